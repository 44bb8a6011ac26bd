"""Records of finished matches (docs/platforms.md, "Export and import"): a key's match
as one record, all of them as NDJSON, and a record imported again by replaying it
through the rules: export -> import -> the same record."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.engine import VARIANTS, Match
from service.play import records
from service.play.game import Game
from tests.helpers import random_turn

ACME = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
BETA = "beta-secret-0123456789abcdefghijklmnopqrstuvwxyz"


def key(secret: str = ACME) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def random_match(variant: str, rng: random.Random) -> tuple[Game, list[dict[str, Any]]]:
    """A whole match of random legal moves (and, in Cirulla, declarations), as the
    `random` computer player plays, as a key's finished game with its log."""
    match, events = Match.new(variant=variant, seed=rng.randrange(10**9))
    while match.status == "playing":
        events += random_turn(match, rng)
    players = match.players
    game = Game(
        id="game-1",
        version=2,
        match=match,
        bots=("random",) * players,
        token_hashes=(None,) * players,
        owner="acme",
        player_ids=tuple(f"u-{seat}" for seat in range(players)),
        metadata={"cup": variant},
        created_at=1796300000.0 + rng.random(),
    )
    return game, events


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_100_random_matches_round_trip_to_identical_records(variant: str) -> None:
    """Each record imported (replayed through the engine, every claim checked) gives a
    finished game whose record is the same but for its id."""
    rng = random.Random(variant)
    for _ in range(100):
        game, events = random_match(variant, rng)
        record = records.record_of(game, events)
        step = records.imported(orjson.loads(orjson.dumps(record)), "acme")
        assert step.game.id != game.id and step.game.status == "finished"
        assert records.record_of(step.game, step.events) == {**record, "id": step.game.id}


class TestARefusedRecord:
    @pytest.fixture
    def record(self) -> dict[str, Any]:
        game, events = random_match("scopa", random.Random(7))
        return orjson.loads(orjson.dumps(records.record_of(game, events)))

    def first_move(self, record: dict[str, Any]) -> int:
        return next(i for i, e in enumerate(record["events"]) if e["type"] == "move")

    def test_a_move_the_rules_refuse_is_named(self, record: dict[str, Any]) -> None:
        at = self.first_move(record)
        move = record["events"][at]
        seat = move["seat"]
        held = record["events"][at - 1]["hands"][str(seat)]  # its deal, just before
        other = next(e for e in record["events"] if e["type"] == "deal")["hands"]
        stranger = next(c for s, h in other.items() if s != str(seat) for c in h)
        assert stranger not in held
        record["events"][at] = {**move, "card": stranger, "capture": []}
        with pytest.raises(records.RecordRefusedError) as refused:
            records.imported(record, "acme")
        assert refused.value.event == at and "is not legal here" in str(refused.value)

    def test_a_claim_its_events_contradict_is_named(self, record: dict[str, Any]) -> None:
        lied = copy.deepcopy(record)
        lied["result"]["winner"] = 1 - record["result"]["winner"]
        with pytest.raises(records.RecordRefusedError, match="result's winner"):
            records.imported(lied, "acme")
        renamed = copy.deepcopy(record)
        renamed["seats"][0]["name"] = "Someone else"
        with pytest.raises(records.RecordRefusedError, match="seats' names"):
            records.imported(renamed, "acme")

    def test_a_match_not_finished_is_refused(self, record: dict[str, Any]) -> None:
        at = self.first_move(record)
        record["events"] = record["events"][: at + 1]
        with pytest.raises(records.RecordRefusedError, match="only a finished match"):
            records.imported(record, "acme")


@pytest.fixture
def client(make_app: Callable[..., Flask], redis_url: str) -> FlaskClient:
    keys = f"acme={ACME},beta={BETA}"
    return make_app(REDIS_URL=redis_url, SERVICE_KEYS=keys, BOT_ONLY_MAX_TARGET=100).test_client()


def finished_game(client: FlaskClient, variant: str = "scopa", player: str = "u-1") -> str:
    """A key's match of two `random` computer players, played to its end."""
    made = client.post(
        "/v1/games",
        json={
            "variant": variant,
            "target": 1,
            "seats": [
                {"name": "Robo", "bot": "random", "player_id": player},
                {"name": "Tin", "bot": "random", "player_id": "u-2"},
            ],
            "metadata": {"cup": "spring"},
        },
        headers=key(),
    )
    assert made.status_code == 201, made.get_json()
    game_id: str = made.get_json()["id"]
    for _ in range(50):
        game = client.get(f"/v1/games/{game_id}", headers=key()).get_json()
        if game["status"] == "finished":
            return game_id
        client.post(f"/v1/games/{game_id}/bots", headers=key())
    raise AssertionError("the match did not end")


class TestTheApi:
    def test_a_record_is_exported_and_imported_again(self, client: FlaskClient) -> None:
        first = finished_game(client)
        second = finished_game(client, "cirulla", player="u-9")
        waiting = client.post(
            "/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}, headers=key()
        ).get_json()["id"]
        record = client.get(f"/v1/games/{first}/record", headers=key())
        assert record.status_code == 200
        record = record.get_json()
        assert record["status"] == "finished" and record["result"]["reason"] == "target"
        assert [s["player_id"] for s in record["seats"]] == ["u-1", "u-2"]
        assert record["events"][0]["type"] == "match_started"
        assert record["events"][-1]["type"] == "match_over"
        assert len(record["hands"]) == sum(e["type"] == "hand_over" for e in record["events"])
        # Not over: no record. Another key, a seat token or nothing: none of it.
        assert client.get(f"/v1/games/{waiting}/record", headers=key()).status_code == 409
        assert client.get(f"/v1/games/{first}/record", headers=key(BETA)).status_code == 404
        assert client.get(f"/v1/games/{first}/record").status_code == 401
        # The export: both finished matches, newest first, one line each.
        export = client.get("/v1/games/export", headers=key())
        assert export.status_code == 200 and export.mimetype == "application/x-ndjson"
        lines = [orjson.loads(line) for line in export.get_data().splitlines()]
        assert [line["id"] for line in lines] == [second, first] and lines[1] == record
        by_player = client.get("/v1/games/export?player_id=u-9", headers=key()).get_data()
        assert [orjson.loads(line)["id"] for line in by_player.splitlines()] == [second]
        one = client.get("/v1/games/export?max=1", headers=key()).get_data().splitlines()
        after = orjson.loads(one[0])["created_at"]
        rest = client.get("/v1/games/export", query_string={"until": after}, headers=key())
        assert [orjson.loads(line)["id"] for line in rest.get_data().splitlines()] == [first]
        since = client.get("/v1/games/export", query_string={"since": after}, headers=key())
        assert [orjson.loads(line)["id"] for line in since.get_data().splitlines()] == [second]
        assert client.get("/v1/games/export", headers=key(BETA)).get_data() == b""
        # Aborted: exported with the reason; aborted before any deal: no record at all.
        client.post(f"/v1/games/{waiting}/abort", json={"reason": "No show"}, headers=key())
        assert client.get(f"/v1/games/{waiting}/record", headers=key()).status_code == 200
        lobby = client.post(
            "/v1/games", json={"seats": [{"name": "A"}, {"open": True}]}, headers=key()
        ).get_json()["id"]
        client.post(f"/v1/games/{lobby}/abort", json={"reason": "No show"}, headers=key())
        assert client.get(f"/v1/games/{lobby}/record", headers=key()).status_code == 409
        exported = client.get("/v1/games/export", headers=key()).get_data().splitlines()
        aborted = orjson.loads(exported[0])
        assert [orjson.loads(line)["id"] for line in exported] == [waiting, second, first]
        assert aborted["status"] == "aborted" and aborted["result"] == {
            "winner": None,
            "scores": [0, 0],
            "reason": "No show",
        }
        refused = client.post("/v1/games/import", json=aborted, headers=key())
        assert refused.status_code == 422
        # Imported: a new finished game of the key, the same record, listed and exported.
        imported = client.post("/v1/games/import", json=record, headers=key())
        assert imported.status_code == 201, imported.get_json()
        copy_id = imported.get_json()["id"]
        assert copy_id not in (first, second)
        assert imported.get_json() == {**record, "id": copy_id}
        again = client.get(f"/v1/games/{copy_id}/record", headers=key()).get_json()
        assert again == {**record, "id": copy_id}
        view = client.get(f"/v1/games/{copy_id}?as_seat=0", headers=key()).get_json()
        assert view["status"] == "finished" and view["winner"] == record["result"]["winner"]
        hands = client.get(f"/v1/games/{copy_id}/hands", headers=key()).get_json()
        assert hands["hands"] == record["hands"]
        listed = client.get("/v1/games?player_id=u-1", headers=key()).get_json()["games"]
        assert copy_id in [g["id"] for g in listed]

    def test_an_export_paged_by_its_link_skips_no_game(self, client: FlaskClient) -> None:
        """Games of one bulk call share their creation's millisecond: an export of one
        game at a time, following its `Link`, gives each of them once, newest first
        (paging by `until`, exclusive, skipped those of the same millisecond)."""
        made = client.post(
            "/v1/games/bulk",
            json={
                "games": [
                    {"seats": [{"name": "A"}, {"name": "B"}], "metadata": {"n": str(n)}}
                    for n in range(6)
                ]
            },
            headers=key(),
        )
        assert made.status_code == 201, made.get_json()
        ids = [game["id"] for game in made.get_json()["games"]]
        for game_id in ids:
            aborted = client.post(
                f"/v1/games/{game_id}/abort", json={"reason": "Rained off"}, headers=key()
            )
            assert aborted.status_code == 200
        url: str | None = "/v1/games/export?max=1"
        seen: list[str] = []
        while url is not None:
            page = client.get(url, headers=key())
            assert page.status_code == 200
            seen += [orjson.loads(line)["id"] for line in page.get_data().splitlines()]
            link = page.headers.get("Link")
            url = link.removeprefix("<").split(">;")[0] if link else None
            assert len(seen) <= len(ids), seen
        assert sorted(seen) == sorted(ids) and len(set(seen)) == len(ids)
        created = [client.get(f"/v1/games/{g}/record", headers=key()).get_json() for g in seen]
        assert [r["created_at"] for r in created] == sorted(
            (r["created_at"] for r in created), reverse=True
        )

    def test_an_export_filters_and_refuses_what_it_does_not_know(self, client: FlaskClient) -> None:
        first = finished_game(client)
        second = finished_game(client, "cirulla", player="u-9")
        stopped = client.post(
            "/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}, headers=key()
        ).get_json()["id"]
        client.post(f"/v1/games/{stopped}/abort", json={"reason": "No show"}, headers=key())

        def exported(**query: str) -> list[str]:
            answer = client.get("/v1/games/export", query_string=query, headers=key())
            assert answer.status_code == 200, answer.get_json()
            return [orjson.loads(line)["id"] for line in answer.get_data().splitlines()]

        assert exported() == [stopped, second, first]
        assert exported(status="aborted") == [stopped]
        assert exported(status="finished") == [second, first]
        assert exported(variant="cirulla") == [second]
        assert exported(**{"metadata.cup": "spring"}) == [second, first]
        assert exported(**{"metadata.cup": "no-such-cup"}) == []
        assert exported(ids=f"{first},{stopped}") == [stopped, first]
        for wrong in (
            {"event": "no-such-event"},
            {"status": "playing"},
            {"variant": "poker"},
            {"cursor": "not-a-cursor"},
            {"ids": ",".join(["x"] * 101)},
        ):
            refused = client.get("/v1/games/export", query_string=wrong, headers=key())
            assert refused.status_code == 422, wrong
            assert refused.mimetype == "application/problem+json"

    def test_an_import_the_rules_refuse_is_a_422_naming_the_event(
        self, client: FlaskClient
    ) -> None:
        record = client.get(f"/v1/games/{finished_game(client)}/record", headers=key()).get_json()
        at = next(i for i, e in enumerate(record["events"]) if e["type"] == "move")
        record["events"][at]["seat"] = 1 - record["events"][at]["seat"]
        refused = client.post("/v1/games/import", json=record, headers=key())
        assert refused.status_code == 422
        problem = refused.get_json()
        assert problem["type"] == "/problems/record-refused" and problem["event"] == at
        assert f"event {at}" in problem["detail"]
        assert (
            client.post("/v1/games/import", json={"events": []}, headers=key()).status_code == 422
        )
        assert client.post("/v1/games/import", json=record).status_code == 401
