"""Tournaments (docs/platforms.md, "Ratings and tournaments"): a Swiss, a round robin and
an elimination played to their end by computer players on the real service with a
worker, their standings checked against standings worked out here from the export
alone; the rules of a tournament's creation, its public view, withdrawals, and its
webhooks."""

from __future__ import annotations

import itertools
import re
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from service.play.tournaments.store import TournamentStore
from service.play.webhooks.tournament_events import messages_of
from tests.test_webhooks import (
    BETA,
    SHORT_SCHEDULE,
    conforms,
    key,
    keyed,
    registered,
    wait_for,
)

__all__ = ["keyed"]

URL = "/v1/tournaments"


def players(count: int, prefix: str = "pl", bot: str = "random") -> list[dict[str, Any]]:
    return [
        {"players": [{"player_id": f"{prefix}-{n}", "name": f"P{n}", "bot": bot}]}
        for n in range(1, count + 1)
    ]


def create(client: FlaskClient, **body: Any) -> dict[str, Any]:
    made = client.post(URL, json={"name": "Spring cup", **body}, headers=key())
    assert made.status_code == 201, made.get_json()
    answer: dict[str, Any] = made.get_json()
    return answer


def finished(client: FlaskClient, tournament_id: str, seconds: float) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        view: dict[str, Any] = client.get(f"{URL}/{tournament_id}", headers=key()).get_json()
        return view if view["status"] == "finished" else None

    found: dict[str, Any] = wait_for(done, seconds, f"tournament {tournament_id} finished")
    return found


def exported(client: FlaskClient, tournament_id: str) -> list[dict[str, Any]]:
    """The tournament's games, from the export (paged by its Link header)."""
    records: list[dict[str, Any]] = []
    url: str | None = f"/v1/games/export?max=50&metadata.tournament={tournament_id}"
    while url is not None:
        page = client.get(url, headers=key())
        assert page.status_code == 200, page.get_data(as_text=True)
        records += [orjson.loads(line) for line in page.get_data().splitlines() if line]
        link = re.match(r"<([^>]+)>; rel=\"next\"", page.headers.get("Link", ""))
        url = link.group(1) if link else None
    return records


def standings_from(records: list[dict[str, Any]], order: list[str]) -> list[dict[str, Any]]:
    """The standings worked out from the games' records alone (no bye, no forfeit): a win
    1 point; Buchholz, the opponents' points summed; Sonneborn-Berger, the points of the
    opponents beaten; game points and scopas (from the moves marked scopa) summed; the
    order points, Buchholz, Sonneborn-Berger, game points, scopas, then seed (``order``,
    every player new: the order given)."""
    points: Counter[str] = Counter(dict.fromkeys(order, 0))
    met: dict[str, list[str]] = defaultdict(list)
    beat: dict[str, list[str]] = defaultdict(list)
    game_points: Counter[str] = Counter()
    scopas: Counter[str] = Counter()
    for record in records:
        assert record["status"] == "finished"
        side = {s["seat"]: s["player_id"] for s in record["seats"]}
        a, b = side[0], side[1]
        winner = a if record["result"]["winner"] == 0 else b
        loser = b if winner == a else a
        points[winner] += 1
        met[a].append(b)
        met[b].append(a)
        beat[winner].append(loser)
        game_points[a] += record["result"]["scores"][0]
        game_points[b] += record["result"]["scores"][1]
        for event in record["events"]:
            if event["type"] == "move" and event["scopa"]:
                scopas[side[event["seat"]]] += 1
    lines = [
        {
            "player": p,
            "points": points[p],
            "buchholz": sum(points[o] for o in met[p]),
            "sonneborn_berger": sum(points[o] for o in beat[p]),
            "game_points": game_points[p],
            "scopas": scopas[p],
            "played": len(met[p]),
        }
        for p in order
    ]
    lines.sort(
        key=lambda line: (
            -line["points"],
            -line["buchholz"],
            -line["sonneborn_berger"],
            -line["game_points"],
            -line["scopas"],
            order.index(line["player"]),
        )
    )
    return lines


def check_standings(view: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """The tournament's standings are the ones worked out from its export."""
    number = {
        e["players"][0]["player_id"]: e["number"] for e in view["entrants"]
    }  # (every player new: entrant n is the n-th given)
    order = sorted(number, key=number.__getitem__)
    expected = standings_from(records, order)
    shown = view["standings"]
    assert [line["entrant"] for line in shown] == [number[line["player"]] for line in expected]
    for line, want in zip(shown, expected, strict=True):
        for field in ("points", "buchholz", "sonneborn_berger", "game_points", "scopas", "played"):
            assert line[field] == want[field], (field, line, want)
    assert [line["rank"] for line in shown] == list(range(1, len(shown) + 1))


def check_pairings(view: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Every table's game is in the export with the tournament's round and table, its
    winner the table's; no pair met twice."""
    by_id = {r["id"]: r for r in records}
    seen: set[frozenset[int]] = set()
    for round_ in view["pairings"]:
        for table in round_["tables"]:
            record = by_id.pop(table["game_id"])
            assert record["metadata"]["round"] == str(round_["round"])
            assert record["metadata"]["table"] == str(table["table"])
            winner = table["first"] if record["result"]["winner"] == 0 else table["second"]
            assert table["result"]["winner"] == winner and not table["result"]["forfeit"]
            pair = frozenset((table["first"], table["second"]))
            assert pair not in seen, f"{pair} met twice"
            seen.add(pair)
    assert not by_id, "every game of the export is a table's"


def test_a_16_player_swiss_of_5_rounds_and_a_6_player_round_robin_run_to_their_end(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """The issue's run: both tournaments played by computer players, through the
    workers; their standings are those worked out from the export."""
    client = keyed()
    for _ in range(2):
        start_worker()
    swiss = create(client, format="swiss", rounds=5, entrants=players(16, "sw"), rated=True)
    robin = create(client, format="round_robin", entrants=players(6, "rr"))
    assert len(swiss["games"]) == 8 and len(robin["games"]) == 3
    # Round 1 of a Swiss: the top half against the bottom half (1-9, 10-2, ...).
    first = swiss["tournament"]["pairings"][0]["tables"]
    assert {frozenset((t["first"], t["second"])) for t in first} == {
        frozenset((n, n + 8)) for n in range(1, 9)
    }
    for made, rounds, games in ((swiss, 5, 40), (robin, 5, 15)):
        tournament_id = made["tournament"]["id"]
        view = finished(client, tournament_id, 240)
        assert view["round"] == rounds and len(view["pairings"]) == rounds
        records = exported(client, tournament_id)
        assert len(records) == games
        check_pairings(view, records)
        check_standings(view, records)
        entrants = len(view["entrants"])
        for line in view["standings"]:
            assert line["played"] == (5 if entrants == 16 else 5)
    robin_view = client.get(f"{URL}/{robin['tournament']['id']}").get_json()
    pairs = {
        frozenset((t["first"], t["second"])) for r in robin_view["pairings"] for t in r["tables"]
    }
    assert pairs == {frozenset(p) for p in itertools.combinations(range(1, 7), 2)}
    # The Swiss was rated: every player's rating moved 5 times.
    record = client.get("/v1/players/sw-1", headers=key()).get_json()["ratings"][0]
    assert record["games"] == 5 and record["variant"] == "scopa"


def test_a_public_tournament_shows_no_player_id_nor_token_but_to_its_key(
    keyed: Callable[..., FlaskClient],
) -> None:
    client = keyed()
    made = create(
        client,
        format="single_elimination",
        entrants=[{"players": [{"player_id": f"e-{n}", "name": f"E{n}"}]} for n in range(5)],
        metadata={"club": "Circolo"},
    )
    tournament_id = made["tournament"]["id"]
    # Five entrants: a bracket of 8, byes to seeds 1, 2 and 3 (decided at once).
    tables = made["tournament"]["pairings"][0]["tables"]
    byes = [t for t in tables if t["second"] is None]
    assert sorted(t["first"] for t in byes) == [1, 2, 3]
    assert all(t["result"]["winner"] == t["first"] and t["result"]["forfeit"] for t in byes)
    game = made["games"][0]
    tokens = [s["token"] for s in game["seats"]]
    assert all(tokens)
    mine = client.get(f"{URL}/{tournament_id}", headers=key()).get_json()
    seats = next(t for t in mine["pairings"][0]["tables"] if t["game_id"] == game["id"])["seats"]
    assert [s["token"] for s in seats] == tokens  # the key reads them again
    assert mine["metadata"] == {"club": "Circolo"}
    public = client.get(f"{URL}/{tournament_id}")
    assert public.status_code == 200
    text = public.get_data(as_text=True)
    assert "e-0" not in text and not any(t in text for t in tokens) and "Circolo" not in text
    assert client.get(f"{URL}/{tournament_id}", headers=key(BETA)).status_code == 404
    # A seat's token plays its game.
    view = client.get(f"/v1/games/{game['id']}", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert view.status_code == 200


def test_a_withdrawn_entrant_loses_its_game_and_is_not_paired_again(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    client = keyed()
    start_worker()
    entrants = players(4, "wd")
    entrants[0]["players"][0].pop("bot")  # a person, who will not come
    made = create(client, format="swiss", rounds=3, entrants=entrants)
    tournament_id = made["tournament"]["id"]
    absent = client.post(f"{URL}/{tournament_id}/withdrawals", json={"entrant": 1}, headers=key())
    assert absent.status_code == 200, absent.get_json()
    view = absent.get_json()
    table = next(t for t in view["pairings"][0]["tables"] if 1 in (t["first"], t["second"]))
    assert table["result"]["forfeit"] and table["result"]["winner"] != 1
    game = client.get(f"/v1/games/{table['game_id']}", headers=key()).get_json()
    assert game["status"] == "aborted"
    view = finished(client, tournament_id, 120)
    later = [t for r in view["pairings"][1:] for t in r["tables"]]
    assert later and all(1 not in (t["first"], t["second"]) for t in later)
    line = next(line for line in view["standings"] if line["entrant"] == 1)
    assert line["withdrawn"] and line["points"] == 0 and line["rank"] == 4
    # A tournament's game is not aborted by its key: its entrant withdraws.
    other = view["pairings"][-1]["tables"][0]["game_id"]
    refused = client.post(f"/v1/games/{other}/abort", json={"reason": "x"}, headers=key())
    assert refused.status_code == 409 or refused.get_json()["type"] == "/problems/match-over"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"format": "swiss", "entrants": players(4)}, "rounds"),
        ({"format": "swiss", "rounds": 4, "entrants": players(4)}, "rounds"),
        ({"format": "round_robin", "rounds": 3, "entrants": players(4)}, "rounds"),
        (
            {
                "format": "round_robin",
                "entrants": [*players(2), {"players": players(2, "x")[0]["players"] * 2}],
            },
            "entrants",
        ),
        (
            {
                "format": "round_robin",
                "variant": "scopone",
                "entrants": players(4),
            },
            "variant",
        ),
        ({"format": "round_robin", "entrants": players(3) + players(1)}, "entrants"),
    ],
)
def test_what_a_tournament_needs(
    keyed: Callable[..., FlaskClient], body: dict[str, Any], says: str
) -> None:
    client = keyed()
    refused = client.post(URL, json={"name": "Cup", **body}, headers=key())
    assert refused.status_code == 422, refused.get_json()
    assert refused.mimetype == "application/problem+json"
    assert says in refused.get_json()["errors"], refused.get_json()


def test_only_a_key_makes_a_tournament(keyed: Callable[..., FlaskClient]) -> None:
    body = {"name": "Cup", "format": "round_robin", "entrants": players(4)}
    refused = keyed().post(URL, json=body)
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"


def test_scopone_pairs_sit_on_alternate_seats(keyed: Callable[..., FlaskClient]) -> None:
    client = keyed()
    pairs = [
        {
            "name": f"Pair {n}",
            "players": [
                {"player_id": f"s{n}a", "name": f"A{n}"},
                {"player_id": f"s{n}b", "name": f"B{n}"},
            ],
        }
        for n in range(4)
    ]
    made = create(client, format="round_robin", variant="scopone", entrants=pairs)
    table = made["tournament"]["pairings"][0]["tables"][0]
    game = client.get(f"/v1/games/{table['game_id']}", headers=key()).get_json()
    first = made["tournament"]["entrants"][table["first"] - 1]["players"]
    second = made["tournament"]["entrants"][table["second"] - 1]["players"]
    assert [s["player_id"] for s in game["seats"]] == [
        first[0]["player_id"],
        second[0]["player_id"],
        first[1]["player_id"],
        second[1]["player_id"],
    ]
    assert game["metadata"]["tournament"] == made["tournament"]["id"]


def test_its_webhooks_tell_each_round_and_the_end(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    kinds = ["tournament.round_started", "tournament.round_finished", "tournament.finished"]
    receiver, allow, client, _ = registered(keyed, kinds)
    receiver.up()
    start_worker()
    start_worker(
        "--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, WEBHOOK_RETRY_SCHEDULE=SHORT_SCHEDULE
    )
    made = create(client, format="round_robin", entrants=players(4, "wh"))
    tournament_id = made["tournament"]["id"]
    view = finished(client, tournament_id, 120)
    told = wait_for(
        lambda: (
            (
                found := [
                    e for e in receiver.received if e["data"]["tournament"]["id"] == tournament_id
                ]
            )
            and found[-1]["type"] == "tournament.finished"
            and found
        ),
        60,
        "the tournament's webhooks",
    )
    assert [e["type"] for e in told] == [
        "tournament.round_started",
        *["tournament.round_finished", "tournament.round_started"] * 2,
        "tournament.round_finished",
        "tournament.finished",
    ]
    assert told[-1]["data"]["standings"] == view["standings"]
    started = [e["data"] for e in told if e["type"] == "tournament.round_started"]
    assert [s["round"] for s in started] == [1, 2, 3]
    for data, round_ in zip(started, view["pairings"], strict=True):
        assert [t["game_id"] for t in data["tables"]] == [t["game_id"] for t in round_["tables"]]
        assert all(t["first"]["player_ids"][0].startswith("wh-") for t in data["tables"])


def test_a_retried_creation_answers_the_same_and_no_token_is_kept(
    keyed: Callable[..., FlaskClient],
) -> None:
    """An Idempotency-Key makes one tournament, answered again with the same tokens; and
    no seat's token is stored anywhere in Redis (the kept answer's are sealed)."""
    client = keyed()
    people = [{"players": [{"player_id": f"ik-{n}", "name": f"I{n}"}]} for n in range(4)]
    body = {"name": "Cup", "format": "round_robin", "entrants": people}
    headers = {**key(), "Idempotency-Key": "spring-cup-2026-entries"}
    first = client.post(URL, json=body, headers=headers)
    again = client.post(URL, json=body, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    tokens = [s["token"] for g in first.get_json()["games"] for s in g["seats"]]
    assert len(tokens) == 4 and all(tokens)
    redis = client.application.extensions["scopa_store"].redis
    stored = []
    for name in redis.scan_iter("scopa:*"):
        kind = redis.type(name)
        if kind == "string":
            stored.append(redis.get(name))
        elif kind == "hash":
            stored += redis.hvals(name)
        elif kind == "list":
            stored += redis.lrange(name, 0, -1)
    assert stored and not [t for t in tokens if any(t in value for value in stored)]


def test_a_key_lists_its_tournaments_newest_first_a_page_at_a_time(
    keyed: Callable[..., FlaskClient],
) -> None:
    client = keyed()
    made = [
        create(client, format="round_robin", entrants=players(2, f"ls{n}"), metadata={"n": str(n)})
        for n in range(5)
    ]
    ids = [m["tournament"]["id"] for m in made][::-1]  # newest first
    listed: list[str] = []
    url: str | None = f"{URL}?limit=2"
    while url is not None:
        page = client.get(url, headers=key())
        assert page.status_code == 200, page.get_json()
        body = page.get_json()
        assert len(body["tournaments"]) <= 2
        listed += [t["id"] for t in body["tournaments"]]
        url = body["next"]
        assert (url is None) == ("Link" not in page.headers)
    assert listed == ids
    first = client.get(f"{URL}?limit=1", headers=key()).get_json()["tournaments"][0]
    assert first["metadata"] == {"n": "4"} and first["entrants"] == 2
    assert first["status"] == "playing" and first["round"] == 1
    assert client.get(URL, headers=key(BETA)).get_json() == {"tournaments": [], "next": None}
    wrong = client.get(f"{URL}?cursor=bm90LWEtY3Vyc29y", headers=key())
    assert wrong.status_code == 422 and wrong.mimetype == "application/problem+json"


def test_a_cancelled_tournament_aborts_its_games_and_pairs_no_more(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    client = keyed()
    people = [{"players": [{"player_id": f"cx-{n}", "name": f"C{n}"}]} for n in range(4)]
    made = create(client, format="round_robin", entrants=people)
    tournament_id = made["tournament"]["id"]
    cancelled = client.post(f"{URL}/{tournament_id}/cancel", headers=key())
    assert cancelled.status_code == 200, cancelled.get_json()
    view = cancelled.get_json()
    assert view["status"] == "cancelled" and view["finished_at"] is not None
    for game in made["games"]:
        shown = client.get(f"/v1/games/{game['id']}", headers=key()).get_json()
        assert shown["status"] == "aborted"
        assert shown["abort_reason"] == "The tournament was cancelled."
    # The games' ends reach the tournament's job: it makes no round after.
    assert start_worker("--burst").wait(60) == 0
    again = client.post(f"{URL}/{tournament_id}/cancel", headers=key()).get_json()
    assert again["status"] == "cancelled" and len(again["pairings"]) == 1
    assert client.post(f"{URL}/{tournament_id}/cancel", headers=key(BETA)).status_code == 404
    # Its log, as its webhooks would carry it: started, then cancelled, each as the spec says.
    store = client.application.extensions["scopa_store"]
    tournaments = TournamentStore(store.redis, store.ttl)
    told = messages_of(tournaments.load(tournament_id), tournaments.events(tournament_id), 0, now=1)
    assert [m.type for m in told] == ["tournament.round_started", "tournament.cancelled"]
    for message in told:
        conforms(orjson.loads(message.body))
