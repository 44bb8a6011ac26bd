"""A platform's integration, as docs/platforms.md walks it and issue 38 found it: a two-round
Swiss tournament of 8 players on one service key. Each round is one ``POST /v1/games/bulk``;
every move is relayed with ``X-Seat`` and ``If-Match``; the signed webhooks are received by
the docs' receiver (verified, de-duplicated by id, each body checked against the spec's
``webhooks``); the standings come from the export, paged by its ``Link`` header."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
from flask.testing import FlaskClient

from tests.test_webhooks import key, keyed, registered, wait_for  # noqa: F401

PLAYERS = [f"u-{n}" for n in range(1, 9)]
EVENT = {"event": "swiss-7"}


def relay(client: FlaskClient, game_id: str) -> int:
    """Play the game to its end as a platform relays its players: the seat to play (the
    last answer's `turn`) plays its first legal move, with X-Seat and If-Match. Returns
    the moves made."""
    url = f"/v1/games/{game_id}"
    state = client.get(url, headers=key()).get_json()
    moves = 0
    while state["status"] == "playing":
        seat = state["turn"]
        legal = client.get(f"{url}/legal-moves?as_seat={seat}", headers=key()).get_json()
        move = {k: legal["moves"][0][k] for k in ("card", "capture")}
        headers = {**key(), "X-Seat": str(seat), "If-Match": f'"{state["version"]}"'}
        played = client.post(f"{url}/moves", json=move, headers=headers)
        assert played.status_code == 200, played.get_json()
        state = played.get_json()["state"]
        moves += 1
    return moves


def exported(client: FlaskClient) -> list[dict[str, Any]]:
    """The tournament's finished records, three a page, following the Link header."""
    records: list[dict[str, Any]] = []
    url: str | None = "/v1/games/export?max=3&status=finished&metadata.event=swiss-7"
    while url is not None:
        page = client.get(url, headers=key())
        assert page.status_code == 200, page.get_data(as_text=True)
        records += [orjson.loads(line) for line in page.get_data().splitlines() if line]
        link = re.match(r"<([^>]+)>; rel=\"next\"", page.headers.get("Link", ""))
        url = link.group(1) if link else None
    return records


def standings(records: list[dict[str, Any]]) -> Counter[str]:
    """Each player's wins (a player with none counts 0)."""
    wins: Counter[str] = Counter(dict.fromkeys(PLAYERS, 0))
    for record in records:
        winner = record["result"]["winner"]
        for seat in record["seats"]:
            if seat["team"] == winner:
                wins[seat["player_id"]] += 1
    return wins


def test_a_two_round_swiss_on_one_key(
    keyed: Callable[..., FlaskClient],  # noqa: F811
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    receiver, allow, client, _ = registered(keyed, ["game.over", "turn.started"])
    receiver.up()
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow)
    try:
        pairings = [PLAYERS[i : i + 2] for i in range(0, 8, 2)]
        games: dict[str, int] = {}  # game id -> moves relayed
        for round_number in (1, 2):
            body = {
                "games": [
                    {
                        "seats": [{"name": p, "player_id": p} for p in pair],
                        "metadata": {**EVENT, "round": str(round_number)},
                        "target": 1,
                    }
                    for pair in pairings
                ]
            }
            made = client.post("/v1/games/bulk", json=body, headers=key())
            assert made.status_code == 201, made.get_json()
            ids = [game["id"] for game in made.get_json()["games"]]
            for game_id in ids:
                games[game_id] = relay(client, game_id)
            # Every game of the round over, as the webhooks told it.
            wait_for(
                lambda ids=ids: (
                    {e["data"]["game"]["id"] for e in receiver.received if e["type"] == "game.over"}
                    >= set(ids)
                ),
                30,
                f"round {round_number}'s game.over",
            )
            if round_number == 2:
                break
            # The next round pairs by wins from the export, no pair twice.
            table = standings(exported(client))
            ranked = sorted(PLAYERS, key=lambda p: (-table[p], p))
            met = {frozenset(pair) for pair in pairings}
            pairings = []
            while ranked:
                first = ranked.pop(0)
                other = next(p for p in ranked if frozenset((first, p)) not in met)
                ranked.remove(other)
                pairings.append([first, other])
        records = exported(client)
        # The export has every game once, each round's four, however it was paged.
        assert sorted(r["id"] for r in records) == sorted(games)
        assert Counter(r["metadata"]["round"] for r in records) == {"1": 4, "2": 4}
        table = standings(records)
        assert sum(table.values()) == 8 and all(
            sum(1 for r in records for s in r["seats"] if s["player_id"] == p) == 2 for p in PLAYERS
        )
        # The webhooks agree: each game's winners by player id, and a turn.started a move.
        over = {
            e["data"]["game"]["id"]: e["data"]
            for e in receiver.received
            if e["type"] == "game.over"
        }
        for record in records:
            winners = {w["player_id"] for w in over[record["id"]]["winners"]}
            assert winners == {
                s["player_id"] for s in record["seats"] if s["team"] == record["result"]["winner"]
            }
        wait_for(
            lambda: (
                Counter(
                    e["data"]["game"]["id"]
                    for e in receiver.received
                    if e["type"] == "turn.started"
                )
                == Counter(games)
            ),
            30,
            "a turn.started for every move",
        )
        assert len(receiver.ids()) == len(set(receiver.ids()))  # each handled once
    finally:
        receiver.down()
