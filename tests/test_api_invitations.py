"""``GET /v1/invitations/{code}``: a game waiting for people found by its join code alone,
the room code a person types with no link (issue 36, item 5); its index in Redis
(service/play/invitations.py) kept as the code is made, rotated, used up and deleted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis
from flask import Flask
from flask.testing import FlaskClient

from service.play import invitations, keys
from tests.conftest import TEST_SECRET
from tests.helpers import Table
from tests.live import CARD_CODE
from tests.test_api_lobby import join, open_game
from tests.test_api_service_keys import ACME, BETA, KEYS

SECRET = TEST_SECRET.encode()
NOT_FOUND = "/problems/invitation-not-found"


def find(client: FlaskClient, code: str) -> Any:
    return client.get(f"/v1/invitations/{code}")


def assert_not_found(client: FlaskClient, code: str) -> None:
    answer = find(client, code)
    assert answer.status_code == 404, (code, answer.json)
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json["type"] == NOT_FOUND and answer.json["status"] == 404


def entries(redis_url: str) -> dict[str, str]:
    """The index of invitations as Redis holds it: entry name -> game id."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as client:
        return {name: client.get(name) or "" for name in client.scan_iter(keys.invitation("*"))}


def spaced(code: str) -> str:
    """The code as a person types what the page shows: lower case, in groups."""
    return f"{code[:4]} {code[4:8]}-{code[8:]}".lower()


class TestFound:
    def test_by_its_code_in_any_case_with_spaces_and_dashes(self, table: Table) -> None:
        created = open_game(
            table, {"name": "Ann"}, {"open": True}, spectators=False, target=21, clock=60
        )
        code = created["join"]["code"]
        by_id = table.client.get(table.url("/join"), query_string={"code": code})
        for typed in (code, code.lower(), spaced(code), f" {code[:5]} {code[5:]} "):
            found = find(table.client, typed)
            assert found.status_code == 200, (typed, found.json)
            assert found.json == by_id.json  # the invitation's answer, its id in it
            assert found.headers["ETag"] == by_id.headers["ETag"] == '"1"'
        view = found.json
        assert view["id"] == table.game_id and view["status"] == "waiting"
        assert view["variant"] == "scopa" and view["target"] == 21
        assert view["clock"] == {"seconds": 60, "deadline": None}
        assert [(s["name"], s["open"]) for s in view["seats"]] == [("Ann", False), (None, True)]
        assert view["you"] is None and view["join"] is None  # a spectator's: no code in it
        assert "hand" not in view and view["table"] == []

    def test_no_hidden_card_shows_once_people_sit(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        assert join(table.client, table.game_id, "Bea", code).status_code == 200
        found = find(table.client, code.lower())
        assert found.status_code == 200
        assert not CARD_CODE.search(found.get_data(as_text=True))
        assert [s["name"] for s in found.json["seats"]] == ["Ann", "Bea", None]


class TestNotFound:
    def test_an_unknown_or_malformed_code_is_one_404_problem(self, table: Table) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        code = created["join"]["code"]
        other = "0" * 10 if code != "0" * 10 else "1" * 10
        for typed in (other, code[:9], code + "7", "!!", "ÜÜÜ", "x" * 300, "%20"):
            assert_not_found(table.client, typed)

    def test_a_stale_entry_finds_nothing(self, table: Table, redis_url: str) -> None:
        """An entry the index kept by mistake (a process stopped between the game's
        commit and the index's write) leads nowhere: the code is checked on the game."""
        created = open_game(table, {"name": "Ann"}, {"open": True})
        wrong = "ZZZZZZZZZZ" if created["join"]["code"] != "ZZZZZZZZZZ" else "YYYYYYYYYY"
        with redis.Redis.from_url(redis_url) as client:
            client.set(keys.invitation(invitations.index_name(SECRET, wrong)), table.game_id)
            client.set(keys.invitation(invitations.index_name(SECRET, "1" * 10)), "no-such-game")
        assert_not_found(table.client, wrong)
        assert_not_found(table.client, "1" * 10)

    def test_gone_after_a_rotation(self, table: Table, redis_url: str) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True})
        old = created["join"]["code"]
        assert find(table.client, old).status_code == 200
        rotated = table.client.post(table.url("/join-code"), headers=table.auth(0))
        new = rotated.json["code"]
        assert_not_found(table.client, old)
        assert find(table.client, new).json["id"] == table.game_id
        assert entries(redis_url) == {
            keys.invitation(invitations.index_name(SECRET, new)): table.game_id
        }

    def test_gone_once_the_match_starts(self, table: Table, redis_url: str) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        assert join(table.client, table.game_id, "Bea", code).status_code == 200
        assert len(entries(redis_url)) == 1  # still waiting: still there
        assert join(table.client, table.game_id, "Cid", code).status_code == 200
        assert table.view()["status"] == "playing"
        assert_not_found(table.client, code)
        assert entries(redis_url) == {}

    def test_a_seat_left_keeps_it_with_the_games_ttl(self, table: Table, redis_url: str) -> None:
        created = open_game(table, {"name": "Ann"}, {"open": True}, {"open": True})
        code = created["join"]["code"]
        bea = join(table.client, table.game_id, "Bea", code).json["token"]
        left = table.client.post(table.url("/leave"), headers={"Authorization": f"Bearer {bea}"})
        assert left.status_code == 204
        assert find(table.client, code).json["seats"][1]["open"] is True
        with redis.Redis.from_url(redis_url) as client:
            (entry,) = entries(redis_url)
            assert 0 < client.ttl(entry) <= client.ttl(keys.game(table.game_id))

    def test_gone_after_an_abort_and_a_delete(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """A key's game aborted while it waits: its entry goes with the abort; one left
        behind (stopped between two writes) goes with the DELETE, and then nothing in
        Redis names the game nor leads to it."""
        client = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS).test_client()
        auth = {"Authorization": f"Bearer {ACME}"}
        body = {"seats": [{"name": "Ann"}, {"open": True}]}
        created = client.post("/v1/games", json=body, headers=auth).json
        game_id, code = created["id"], created["join"]["code"]
        assert find(client, code).json["id"] == game_id
        # Another key does not find it, as it would not find the game by its id.
        assert (
            client.get(
                f"/v1/invitations/{code}", headers={"Authorization": f"Bearer {BETA}"}
            ).status_code
            == 404
        )
        aborted = client.post(f"/v1/games/{game_id}/abort", json={"reason": "t"}, headers=auth)
        assert aborted.status_code == 200
        assert_not_found(client, code)
        assert entries(redis_url) == {}
        entry = keys.invitation(invitations.index_name(SECRET, code))
        with redis.Redis.from_url(redis_url) as connection:
            connection.set(entry, game_id)
            assert client.delete(f"/v1/games/{game_id}", headers=auth).status_code == 204
            assert not connection.exists(entry)
            assert not list(connection.scan_iter(match=f"*{game_id}*"))
        assert entries(redis_url) == {}


def test_lookups_have_a_quota_of_their_own(make_app: Callable[..., Flask], redis_url: str) -> None:
    """Found or not, each lookup counts against ``invitations``; past it, 429 with
    Retry-After, the right code included; the rest of the API goes on."""
    client = make_app(REDIS_URL=redis_url, INVITATION_LIMIT_PER_ADDRESS=3).test_client()
    table = Table(client)
    code = open_game(table, {"name": "Ann"}, {"open": True})["join"]["code"]
    statuses = [find(client, typed).status_code for typed in ("AAAAAAAAAA", "BBBBBBBBBB", code)]
    assert statuses == [404, 404, 200]
    limited = find(client, code)
    assert limited.status_code == 429
    assert limited.json["type"] == "/problems/rate-limited"
    assert "join codes looked up" in limited.json["detail"]
    assert 1 <= int(limited.headers["Retry-After"]) <= 2 * 60
    # The game's own invitation, with its id, is not counted against it.
    assert client.get(table.url("/join"), query_string={"code": code}).status_code == 200
