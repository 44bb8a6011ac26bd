"""Service keys (docs/platforms.md): how a platform's backend is known, what it may do
with the games it created, and how its requests are counted."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import config
from service.play import GameStore
from service.play.idempotency import unpack
from service.settings.clients import parse_service_keys
from tests.helpers import everything_stored
from tests.test_api_stream import AppStream, close_hub
from tests.test_fair_bots import pending_jobs

ACME = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
BETA = "beta-secret-0123456789abcdefghijklmnopqrstuvwxyz"
KEYS = f"acme={ACME},beta={BETA}"


def key(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


@pytest.fixture
def keyed(make_app: Callable[..., Flask], redis_url: str) -> Callable[..., FlaskClient]:
    """A client of an app with the keys acme and beta (and any other settings)."""

    def make(**settings: Any) -> FlaskClient:
        return make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, **settings).test_client()

    return make


class TestTheSetting:
    def test_names_and_secrets_are_read(self) -> None:
        assert parse_service_keys(f" acme = {ACME} ,, beta={BETA}") == {"acme": ACME, "beta": BETA}
        assert parse_service_keys("") == {}

    @pytest.mark.parametrize(
        ("value", "says"),
        [
            ("acme", "name=secret"),
            (f"Acme={ACME}", "name=secret"),
            (f"{'a' * 33}={ACME}", "name=secret"),
            ("acme=short", "32 or more characters"),
            (f"acme={ACME},acme={BETA}", "given twice"),
            (f"acme={ACME},beta={ACME}", "another key's secret"),
        ],
    )
    def test_a_bad_key_stops_the_service_without_repeating_a_secret(
        self, value: str, says: str
    ) -> None:
        with pytest.raises(config.ConfigError) as refused:
            config.load({"SERVICE_KEYS": value})
        message = str(refused.value)
        assert message.startswith("bad setting: SERVICE_KEYS is refused")
        assert says in message
        assert ACME not in message and "short" not in message


class TestIdentity:
    def test_a_game_a_key_creates_is_the_keys(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        created = client.post("/v1/games", json={}, headers=key(ACME))
        assert created.status_code == 201, created.get_json()
        anonymous = client.post("/v1/games", json={})
        store = GameStore(redis.Redis.from_url(redis_url), 60)
        try:
            owned = store.load(created.get_json()["id"])
            assert owned.owner == "acme"
            assert owned.payer == "key:acme"
            assert store.load(anonymous.get_json()["id"]).owner is None
        finally:
            store.close()
        assert ACME not in everything_stored(redis_url)

    def test_a_bearer_that_is_no_key_is_read_as_a_seat_token(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        game = client.post("/v1/games", json={}).get_json()
        wrong = client.get(f"/v1/games/{game['id']}", headers=key(ACME[:-1] + "!"))
        assert wrong.status_code == 401
        assert "not a seat token" in wrong.get_json()["detail"]
        seat = client.get(f"/v1/games/{game['id']}", headers=key(game["seats"][0]["token"]))
        assert seat.status_code == 200 and seat.get_json()["hand"]


class TestQuotas:
    def test_a_key_counts_against_its_own_limit_not_its_address(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        """Two keys from one address, and that address's anonymous requests, are counted
        apart: each key by SERVICE_KEY_RATE_LIMIT wherever it comes from."""
        client = keyed(RATE_LIMIT_PER_ADDRESS=2, SERVICE_KEY_RATE_LIMIT=3)

        def status(headers: dict[str, str], address: str = "192.0.2.1") -> int:
            return client.get(
                "/v1/variants", headers=headers, environ_base={"REMOTE_ADDR": address}
            ).status_code

        assert [status(key(ACME)) for _ in range(3)] == [200, 200, 200]
        limited = client.get("/v1/variants", headers=key(ACME))
        assert limited.status_code == 429
        assert "this service key" in limited.get_json()["detail"]
        assert "at most 3 a minute" in limited.get_json()["detail"]
        # Another address does not help the key; the other key and the address are free.
        assert status(key(ACME), "198.51.100.9") == 429
        assert [status(key(BETA)) for _ in range(3)] == [200, 200, 200]
        assert [status({}), status({}), status({})] == [200, 200, 429]

    def test_creations_count_per_key(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed(CREATION_LIMIT_PER_ADDRESS=1, SERVICE_KEY_CREATION_LIMIT=2)
        statuses = [client.post("/v1/games", json={}, headers=key(ACME)).status_code for _ in "123"]
        assert statuses == [201, 201, 429]
        assert client.post("/v1/games", json={}, headers=key(BETA)).status_code == 201
        assert [client.post("/v1/games", json={}).status_code for _ in "12"] == [201, 429]

    def test_streams_open_at_once_count_per_key(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(
            REDIS_URL=redis_url,
            SERVICE_KEYS=KEYS,
            STREAM_LIMIT_PER_ADDRESS=1,
            STREAM_KEEPALIVE_SECONDS=0.3,
        )
        client = app.test_client()
        try:
            url = f"/v1/games/{create(client)['id']}/stream"
            first = AppStream(client.get(url, headers=key(ACME), buffered=False))
            assert first.next() is not None
            second = client.get(url, headers=key(ACME))
            assert second.status_code == 429
            assert "for this service key" in second.get_json()["detail"]
            # The address's own streams are counted apart from the key's.
            spectator = AppStream(client.get(url, buffered=False))
            assert spectator.next() is not None
            first.close()
            spectator.close()
        finally:
            close_hub(app)

    def test_no_limit_at_zero(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed(RATE_LIMIT_PER_ADDRESS=1, SERVICE_KEY_RATE_LIMIT=0)
        assert {client.get("/v1/variants", headers=key(ACME)).status_code for _ in "1234"} == {200}


# -- acting for the seats of the key's own games ------------------------------------------


def create(client: FlaskClient, secret: str = ACME, **body: Any) -> dict[str, Any]:
    if not any(seat.get("open") for seat in body.get("seats", ())):
        body.setdefault("seed", 7)  # (a seed would show the joiners' hands)
    created = client.post("/v1/games", json=body, headers=key(secret))
    assert created.status_code == 201, created.get_json()
    answer: dict[str, Any] = created.get_json()
    return answer


def seat_of_key(secret: str, seat: int) -> dict[str, str]:
    return {**key(secret), "X-Seat": str(seat)}


def key_plays_first_move(client: FlaskClient, url: str, seat: int) -> tuple[dict[str, Any], Any]:
    """ACME's key reads the legal moves of ``seat`` and plays the first for it: the moves
    read and the move's answer."""
    moves: dict[str, Any] = client.get(
        f"{url}/legal-moves?as_seat={seat}", headers=key(ACME)
    ).get_json()
    move = moves["moves"][0]
    played = client.post(
        f"{url}/moves",
        json={"card": move["card"], "capture": move["capture"]},
        headers=seat_of_key(ACME, seat),
    )
    return moves, played


class TestActingForSeats:
    def test_a_key_reads_and_plays_the_last_seat_of_a_six_player_game(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        """Seats 4 and 5 of a 6-player match are named like the others (the spec's
        ``as_seat`` and ``X-Seat`` go up to 5)."""
        client = keyed()
        game = create(client, seats=[{"name": f"P{i}"} for i in range(6)])
        url = f"/v1/games/{game['id']}"
        view = client.get(f"{url}?as_seat=5", headers=key(ACME))
        assert view.status_code == 200, view.get_json()
        assert view.get_json()["you"] == 5 and view.get_json()["hand"]
        events = client.get(f"{url}/events?as_seat=5", headers=key(ACME))
        assert events.status_code == 200, events.get_json()
        deal = next(e for e in events.get_json()["events"] if e["type"] == "deal")
        assert deal["cards"] == view.get_json()["hand"]
        _, played = key_plays_first_move(client, url, view.get_json()["turn"])
        assert played.status_code == 200, played.get_json()
        too_far = client.get(f"{url}?as_seat=6", headers=key(ACME))
        assert too_far.status_code == 422

    def test_a_key_reads_and_plays_every_seat_of_its_game(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        game = create(client)
        url = f"/v1/games/{game['id']}"
        tokens = [seat["token"] for seat in game["seats"]]
        for seat in (0, 1):  # each seat's view, as its token sees it
            as_key = client.get(f"{url}?as_seat={seat}", headers=key(ACME)).get_json()
            as_token = client.get(url, headers=key(tokens[seat])).get_json()
            assert as_key["you"] == seat and as_key["hand"] == as_token["hand"]
        spectator = client.get(url, headers=key(ACME)).get_json()
        assert spectator["you"] is None and "hand" not in spectator
        turn = spectator["turn"]
        moves, played = key_plays_first_move(client, url, turn)
        assert moves["seat"] == turn and moves["moves"]
        assert played.status_code == 200, played.get_json()
        assert played.get_json()["state"]["you"] == turn
        # The seat's own token still plays it; the log shows each seat its own deal.
        assert client.get(url, headers=key(tokens[0])).status_code == 200
        events = client.get(f"{url}/events?as_seat=1", headers=key(ACME)).get_json()["events"]
        deal = next(e for e in events if e["type"] == "deal")
        assert (
            deal["cards"]
            == client.get(f"{url}/events", headers=key(tokens[1])).get_json()["events"][
                deal["seq"]
            ]["cards"]
        )
        hands = client.get(f"{url}/hands?as_seat=0", headers=key(ACME))
        assert hands.status_code == 200

    def test_a_key_leaves_for_a_seat_of_its_game_waiting_for_people(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        game = create(client, seats=[{"name": "Ana"}, {"open": True}])
        url = f"/v1/games/{game['id']}"
        assert client.post(f"{url}/leave", headers=seat_of_key(ACME, 1)).status_code == 422
        left = client.post(f"{url}/leave", headers=seat_of_key(ACME, 0))
        assert left.status_code == 204
        assert client.get(url, headers=key(game["seats"][0]["token"])).status_code == 401

    @pytest.mark.parametrize(
        ("method", "path", "headers", "status", "says"),
        [
            ("post", "/moves", {}, 422, "X-Seat"),  # no seat named
            ("get", "/legal-moves", {}, 422, "as_seat"),
            ("get", "?as_seat=2", {}, 422, "0 to 1"),
            ("get", "?as_seat=one", {}, 422, "check as_seat"),
            ("get", "", {"X-Seat": "0"}, 422, "X-Seat is not for reads"),
            ("post", "/moves?as_seat=0", {"X-Seat": "0"}, 422, "as_seat is not for changes"),
            ("post", "/moves", {"X-Seat": "1"}, 422, "computer player"),
        ],
    )
    def test_a_seat_named_wrong_is_a_422(
        self,
        keyed: Callable[..., FlaskClient],
        method: str,
        path: str,
        headers: dict[str, str],
        status: int,
        says: str,
    ) -> None:
        client = keyed()
        game = create(client, seats=[{"name": "Ana"}, {"bot": "random"}])
        answer = getattr(client, method)(
            f"/v1/games/{game['id']}{path}",
            headers={**key(ACME), **headers},
            json={"card": "1D"} if method == "post" else None,
        )
        assert answer.status_code == status, answer.get_json()
        assert says in answer.get_json()["detail"]

    def test_naming_a_seat_needs_a_key(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = create(client)
        url = f"/v1/games/{game['id']}"
        token = key(game["seats"][0]["token"])
        for headers, path in ((token, "?as_seat=1"), ({}, "?as_seat=1"), ({"X-Seat": "1"}, "")):
            answer = client.get(url + path, headers=headers)
            assert answer.status_code == 401, (headers, path)
            assert "service key" in answer.get_json()["detail"]

    def test_another_key_finds_nothing_of_a_keys_games(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        """Another key cannot see, play, abort or delete a key's games: 404, as for a
        game that does not exist; nor can a key see a game created without one."""
        client = keyed()
        game = create(client)
        url = f"/v1/games/{game['id']}"
        anonymous = client.post("/v1/games", json={}).get_json()
        beta = key(BETA)
        answers = [
            client.get(url, headers=beta),
            client.get(f"{url}?as_seat=0", headers=beta),
            client.get(f"{url}/events", headers=beta),
            client.get(f"{url}/stream", headers=beta),
            client.post(f"{url}/moves", json={"card": "1D"}, headers={**beta, "X-Seat": "0"}),
            client.post(f"{url}/abort", json={"reason": "mine"}, headers=beta),
            client.delete(url, headers=beta),
            client.get(f"/v1/games/{anonymous['id']}", headers=beta),
        ]
        for answer in answers:
            assert answer.status_code == 404, answer.get_json()
            assert answer.get_json()["type"] == "/problems/game-not-found"
        assert client.get(url, headers=key(ACME)).status_code == 200


# -- abort and delete ------------------------------------------------------------------------


class TestAbort:
    def test_an_aborted_game_has_no_winner_and_takes_no_more_moves(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        game = create(client, seats=[{"name": "Ana"}, {"name": "Bruno"}], clock=60)
        url = f"/v1/games/{game['id']}"
        token = key(game["seats"][0]["token"])
        with redis.Redis.from_url(redis_url) as raw:
            assert pending_jobs(raw, game["id"])  # the clock's job
        # A seat's token cannot abort; only the key.
        assert client.post(f"{url}/abort", json={"reason": "x"}, headers=token).status_code == 401
        for bad in ({}, {"reason": ""}, {"reason": "x" * 201}, {"reason": "a\x00b"}):
            assert client.post(f"{url}/abort", json=bad, headers=key(ACME)).status_code == 422
        aborted = client.post(f"{url}/abort", json={"reason": "Round cancelled"}, headers=key(ACME))
        assert aborted.status_code == 200, aborted.get_json()
        view = aborted.get_json()
        assert view["status"] == "aborted" and view["abort_reason"] == "Round cancelled"
        assert view["winner"] is None and view["turn"] is None
        assert view["clock"]["deadline"] is None  # the clock stopped, its job gone
        with redis.Redis.from_url(redis_url) as raw:
            assert not pending_jobs(raw, game["id"])
        seat_view = client.get(url, headers=token).get_json()
        assert seat_view["status"] == "aborted"
        log = client.get(f"{url}/events").get_json()["events"]
        assert log[-1] == {"seq": len(log) - 1, "type": "aborted", "reason": "Round cancelled"}
        turn = client.get(f"{url}?as_seat=0", headers=key(ACME)).get_json()["hand"][0]
        refused = client.post(f"{url}/moves", json={"card": turn}, headers=seat_of_key(ACME, 0))
        assert refused.status_code == 409
        assert refused.get_json()["type"] == "/problems/match-aborted"
        again = client.post(f"{url}/abort", json={"reason": "again"}, headers=key(ACME))
        assert again.status_code == 409
        assert again.get_json()["type"] == "/problems/match-aborted"

    def test_a_game_waiting_for_people_can_be_aborted_and_nobody_joins_it(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        game = create(client, seats=[{"name": "Ana"}, {"open": True}])
        url = f"/v1/games/{game['id']}"
        assert (
            client.post(f"{url}/abort", json={"reason": "no"}, headers=key(ACME)).status_code == 200
        )
        joined = client.post(f"{url}/join", json={"name": "Carla", "code": game["join"]["code"]})
        assert joined.status_code == 409
        assert joined.get_json()["type"] == "/problems/match-aborted"

    def test_its_streams_get_the_event_and_end(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, STREAM_KEEPALIVE_SECONDS=0.3)
        client = app.test_client()
        try:
            game = create(client)
            url = f"/v1/games/{game['id']}"
            streams = [
                AppStream(client.get(f"{url}/stream", headers=headers, buffered=False))
                for headers in (key(game["seats"][1]["token"]), {}, key(ACME))
            ]
            for stream in streams:
                assert stream.next().event == "state"  # type: ignore[union-attr]
            client.post(f"{url}/abort", json={"reason": "Storm"}, headers=key(ACME))
            for stream in streams:
                seen = stream.events(lambda sse: sse.event == "end")
                assert [s.data["type"] for s in seen if s.event is None] == ["aborted"]
                assert seen[-1].data == {"reason": "aborted"}
                assert stream.next() is None
            # Opened on an aborted game: its state, then the end.
            late = AppStream(
                client.get(f"{url}/stream?as_seat=0", headers=key(ACME), buffered=False)
            )
            state = late.next()
            assert state is not None and state.data["status"] == "aborted"
            assert late.events(lambda sse: sse.event == "end")[-1].data == {"reason": "aborted"}
        finally:
            close_hub(app)

    def test_a_finished_game_cannot_be_aborted(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = finished_game(client)
        refused = client.post(f"/v1/games/{game}/abort", json={"reason": "x"}, headers=key(ACME))
        assert refused.status_code == 409
        assert refused.get_json()["type"] == "/problems/match-over"


def finished_game(client: FlaskClient) -> str:
    """A key's game of two computer players, played to its end."""
    game = create(client, seats=[{"bot": "greedy"}, {"bot": "greedy"}], target=1)
    url = f"/v1/games/{game['id']}"
    for _ in range(200):
        if client.get(url, headers=key(ACME)).get_json()["status"] == "finished":
            return str(game["id"])
        client.post(f"{url}/bots", headers=key(ACME))
    raise AssertionError("the match did not end")


class TestDelete:
    def test_only_a_finished_or_aborted_game_and_then_nothing_is_left(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        created = client.post(
            "/v1/games",
            json={"seed": 3, "seats": [{"name": "Ana", "player_id": "u1"}, {"name": "Bo"}]},
            headers={**key(ACME), "Idempotency-Key": "delete-me-0123456789"},
        )
        game_id = created.get_json()["id"]
        url = f"/v1/games/{game_id}"
        assert (
            client.delete(url, headers=key(created.get_json()["seats"][0]["token"])).status_code
            == 401
        )
        playing = client.delete(url, headers=key(ACME))
        assert playing.status_code == 409
        assert "Abort it first" in playing.get_json()["detail"]
        client.post(f"{url}/abort", json={"reason": "done"}, headers=key(ACME))
        with redis.Redis.from_url(redis_url) as raw:
            assert raw.keys(f"*{game_id}*") and raw.keys("scopa:creation:*")
            deleted = client.delete(url, headers=key(ACME))
            assert deleted.status_code == 204 and deleted.get_data() == b""
            assert client.get(url, headers=key(ACME)).status_code == 404
            assert client.delete(url, headers=key(ACME)).status_code == 404
            # Every key of the game: its hash, its log, its creation's Idempotency-Key,
            # its place in the key's listings.
            assert not raw.keys(f"*{game_id}*")
            assert not raw.keys("scopa:creation:*")
            for index in raw.keys("scopa:owner:*"):
                assert raw.zscore(index, game_id) is None

    def test_its_streams_end_and_leave_nothing(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(
            REDIS_URL=redis_url,
            SERVICE_KEYS=KEYS,
            STREAM_KEEPALIVE_SECONDS=0.3,
            STREAM_LIMIT_PER_GAME=5,
        )
        client = app.test_client()
        try:
            game_id = finished_game(client)  # (its streams stay open: a rematch may follow)
            url = f"/v1/games/{game_id}"
            stream = AppStream(client.get(f"{url}/stream", buffered=False))
            assert stream.next() is not None
            with redis.Redis.from_url(redis_url) as raw:
                assert raw.keys(f"scopa:streams:*{game_id}*")  # its lease
                assert client.delete(url, headers=key(ACME)).status_code == 204
                assert stream.events(lambda sse: sse.event == "end")[-1].data == {"reason": "gone"}
                assert not raw.keys(f"*{game_id}*")
        finally:
            close_hub(app)

    def test_a_finished_game(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = finished_game(client)
        assert client.delete(f"/v1/games/{game}", headers=key(ACME)).status_code == 204


# -- the platform's player ids and metadata ------------------------------------------------

ANA, BO, CARLA = "pid-ana-4f1c", "pid-bo-77e2", "pid-carla-0b9d"


class TestPlayerIds:
    def test_creation_checks_them(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()

        def refused(body: dict[str, Any], headers: dict[str, str] | None = None) -> str:
            answer = client.post(
                "/v1/games", json=body, headers=key(ACME) if headers is None else headers
            )
            assert answer.status_code == 422, answer.get_json()
            return str(answer.get_json())

        assert "service key" in refused(
            {"seats": [{"name": "A", "player_id": "x"}, {"name": "B"}]}, {}
        )
        assert "service key" in refused({"metadata": {"a": "b"}}, {})
        assert "printable" in refused({"seats": [{"name": "A", "player_id": "a b"}, {"name": "B"}]})
        assert "printable" in refused(
            {"seats": [{"name": "A", "player_id": "x" * 65}, {"name": "B"}]}
        )
        assert "16 entries" in refused({"metadata": {f"k{i}": "v" for i in range(17)}})
        assert "1024 bytes" in refused({"metadata": {"a": "é" * 400, "b": "x" * 300}})
        assert "letters, digits" in refused({"metadata": {"a b": "c"}})
        assert "control" in refused({"metadata": {"a": "line\nbreak"}})
        made = client.post(
            "/v1/games",
            json={"metadata": {f"k{i}": "v" * 50 for i in range(16)}},
            headers=key(ACME),
        )
        assert made.status_code == 201 and len(made.get_json()["state"]["metadata"]) == 16

    def test_a_player_id_reaches_the_key_and_its_seat_only(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """Every output a seat or a spectator reads: the view, legal moves, the log, the
        stream, hands, moves' and joins' answers, an invitation, a rematch. Another seat's
        player id is in none of them; the key sees them all."""
        app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, STREAM_KEEPALIVE_SECONDS=0.3)
        client = app.test_client()
        try:
            game = create(
                client,
                seats=[
                    {"name": "Ana", "player_id": ANA},
                    {"name": "Bo", "player_id": BO},
                    {"open": True, "player_id": CARLA},
                ],
                metadata={"round": "3"},
                target=1,
            )
            assert [s["player_id"] for s in game["seats"]] == [ANA, BO, CARLA]  # the key's
            assert game["state"]["metadata"] == {"round": "3"}
            url = f"/v1/games/{game['id']}"
            ana, bo = key(game["seats"][0]["token"]), key(game["seats"][1]["token"])
            code = game["join"]["code"]
            invitation = client.get(f"{url}/join?code={code}")
            joined = client.post(f"{url}/join", json={"name": "Carla", "code": code})
            assert joined.status_code == 200
            carla = key(joined.get_json()["token"])
            assert [s.get("player_id") for s in joined.get_json()["state"]["seats"]] == [
                None,
                None,
                CARLA,
            ]
            streams = {
                "Bo": AppStream(client.get(f"{url}/stream", headers=bo, buffered=False)),
                "spectator": AppStream(client.get(f"{url}/stream", buffered=False)),
            }
            # Bo's seen texts, a spectator's, and Carla's.
            seen: dict[str, list[str]] = {
                "Bo": [],
                "spectator": [invitation.get_data(as_text=True)],
            }
            seen["Carla"] = [joined.get_data(as_text=True)]
            for who, headers in (("Bo", bo), ("spectator", {}), ("Carla", carla)):
                for path in ("", "/events", "/hands", "/legal-moves"):
                    answer = client.get(url + path, headers=headers)
                    if answer.status_code == 200:
                        seen[who].append(answer.get_data(as_text=True))
            view = client.get(url, headers=bo).get_json()
            assert [s.get("player_id", "absent") for s in view["seats"]] == ["absent", BO, "absent"]
            # A whole match, played through the seats' own tokens.
            tokens = {0: ana, 1: bo, 2: carla}
            for _ in range(200):
                view = client.get(url).get_json()
                if view["status"] != "playing":
                    break
                turn = view["turn"]
                move = client.get(f"{url}/legal-moves", headers=tokens[turn]).get_json()["moves"][0]
                answer = client.post(
                    f"{url}/moves",
                    json={"card": move["card"], "capture": move["capture"]},
                    headers=tokens[turn],
                )
                if turn == 1:
                    seen["Bo"].append(answer.get_data(as_text=True))
            rematch = client.post(f"{url}/rematch", headers=bo)
            assert rematch.status_code in (200, 201), rematch.get_json()
            seen["Bo"].append(rematch.get_data(as_text=True))
            for who, stream in streams.items():
                stream.closing.set()
                while (sse := stream.next()) is not None:
                    seen[who].append(json.dumps(sse.data))
            for who, texts in seen.items():
                own = {"Bo": BO, "Carla": CARLA}.get(who)
                others = {ANA, BO, CARLA} - {own}
                assert texts
                for text in texts:
                    assert not any(pid in text for pid in others), (who, text[:300])
            # The key sees every seat's, whatever seat it reads as.
            for as_seat in ("", "?as_seat=1"):
                seats = client.get(url + as_seat, headers=key(ACME)).get_json()["seats"]
                assert [s["player_id"] for s in seats] == [ANA, BO, CARLA]
        finally:
            close_hub(app)


# -- listing ------------------------------------------------------------------------------


def listing(client: FlaskClient, query: str = "", secret: str = ACME) -> dict[str, Any]:
    answer = client.get(f"/v1/games{query}", headers=key(secret))
    assert answer.status_code == 200, answer.get_json()
    body: dict[str, Any] = answer.get_json()
    if body["next"] is not None:
        assert answer.headers["Link"] == f'<{body["next"]}>; rel="next"'
    else:
        assert "Link" not in answer.headers
    return body


def every_page(client: FlaskClient, query: str, secret: str = ACME) -> list[list[str]]:
    pages, url = [], f"/v1/games{query}"
    while url:
        answer = client.get(url, headers=key(secret))
        assert answer.status_code == 200, answer.get_json()
        pages.append([game["id"] for game in answer.get_json()["games"]])
        url = answer.get_json()["next"]
    return pages


class TestListing:
    def test_a_keys_games_newest_first_filtered(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        made = [
            create(
                client,
                seats=[{"name": "A", "player_id": f"p{i % 2}"}, {"name": "B"}],
                metadata={"i": str(i), "cup": "spring" if i < 3 else "autumn"},
                variant="cirulla" if i == 4 else "scopa",
            )["id"]
            for i in range(5)
        ]
        create(client, BETA)  # another key's
        client.post("/v1/games", json={})  # nobody's
        assert [g["id"] for g in listing(client)["games"]] == made[::-1]
        pages = every_page(client, "?limit=2")
        assert pages == [made[:2:-1], made[2:0:-1], made[:1]]  # no empty page after the last
        assert every_page(client, "?limit=5") == [made[::-1]]
        games = listing(client, "?player_id=p1")["games"]
        assert [g["id"] for g in games] == [made[3], made[1]]
        assert games[0]["seats"][0]["player_id"] == "p1"
        assert [g["id"] for g in listing(client, "?metadata.cup=spring&metadata.i=1")["games"]] == [
            made[1]
        ]
        assert [g["id"] for g in listing(client, "?variant=cirulla")["games"]] == [made[4]]
        assert listing(client, "", BETA)["games"][0]["id"] not in made
        # Status, as the games have it now.
        client.post(f"/v1/games/{made[2]}/abort", json={"reason": "x"}, headers=key(ACME))
        aborted = listing(client, "?status=aborted")["games"]
        assert [(g["id"], g["status"], g["abort_reason"]) for g in aborted] == [
            (made[2], "aborted", "x")
        ]
        assert made[2] not in [g["id"] for g in listing(client, "?status=playing")["games"]]
        # Creation times (exclusive bounds, to the millisecond).
        times = {g["id"]: g["created_at"] for g in listing(client, "?limit=100")["games"]}
        middle = times[made[2]]
        after = [g["id"] for g in listing(client, f"?created_after={middle}")["games"]]
        assert after == [i for i in made[::-1] if times[i] > middle] and made[4] in after
        before = [g["id"] for g in listing(client, f"?created_before={middle}")["games"]]
        assert before == [i for i in made[::-1] if times[i] < middle] and made[0] in before

    @pytest.mark.parametrize(
        "query",
        [
            "?status=won",
            "?variant=chess",
            "?limit=0",
            "?limit=101",
            "?created_after=yesterday",
            "?created_after=2026-01-01T00:00:00",  # no offset
            "?cursor=bm90LWEtY3Vyc29y",
            "?metadata.a%20b=c",
            "?colour=red",
        ],
    )
    def test_a_bad_filter_is_a_422(self, keyed: Callable[..., FlaskClient], query: str) -> None:
        answer = keyed().get(f"/v1/games{query}", headers=key(ACME))
        assert answer.status_code == 422, answer.get_json()

    def test_only_a_key_lists(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = create(client)
        for headers in ({}, key(game["seats"][0]["token"])):
            answer = client.get("/v1/games", headers=headers)
            assert answer.status_code == 401
            assert "service key" in answer.get_json()["detail"]

    def test_pages_are_stable_under_concurrent_creation(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        """Games created while a client pages through its listing (by another thread, and
        many in the same millisecond) never move a page: every game that was there is
        seen once, in order; the new ones would sort before the first page."""
        client = keyed()
        before = [create(client)["id"] for _ in range(12)]
        stop, created_meanwhile = threading.Event(), []

        def creating() -> None:
            other = client.application.test_client()
            while not stop.is_set():
                created_meanwhile.append(create(other)["id"])

        creator = threading.Thread(target=creating)
        creator.start()
        try:
            seen: list[str] = []
            url: str | None = "/v1/games?limit=5"
            while url:
                while len(created_meanwhile) < 3 * (len(seen) // 5 + 1):
                    time.sleep(0.01)  # (wait for the creator to have made more: no fixed wait)
                answer = client.get(url, headers=key(ACME)).get_json()
                seen += [game["id"] for game in answer["games"]]
                url = answer["next"]
        finally:
            stop.set()
            creator.join()
        fresh = set(created_meanwhile)
        assert [i for i in seen if i not in fresh] == before[::-1]
        assert len(seen) == len(set(seen))


# -- bulk creation ----------------------------------------------------------------------------


def pairing(table: int, **more: Any) -> dict[str, Any]:
    return {
        "seats": [
            {"name": "Ana", "player_id": f"a{table}"},
            {"name": "Bo", "player_id": f"b{table}"},
        ],
        "metadata": {"round": "1", "table": str(table)},
        **more,
    }


class TestBulk:
    def test_a_round_in_one_call(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        made = client.post(
            "/v1/games/bulk", json={"games": [pairing(t) for t in range(100)]}, headers=key(ACME)
        )
        assert made.status_code == 201, made.get_json()
        games = made.get_json()["games"]
        assert len(games) == 100 and len({g["id"] for g in games}) == 100
        for table, game in enumerate(games):
            assert [s["player_id"] for s in game["seats"]] == [f"a{table}", f"b{table}"]
            token = key(game["seats"][0]["token"])
            view = client.get(f"/v1/games/{game['id']}", headers=token).get_json()
            assert view["you"] == 0 and view["metadata"]["table"] == str(table)
        listed = client.get("/v1/games?metadata.round=1&limit=100", headers=key(ACME))
        assert len(listed.get_json()["games"]) == 100
        too_many = {"games": [pairing(t) for t in range(101)]}
        assert client.post("/v1/games/bulk", json=too_many, headers=key(ACME)).status_code == 422

    def test_all_or_none(self, keyed: Callable[..., FlaskClient], redis_url: str) -> None:
        client = keyed()
        bad = [pairing(0), pairing(1, target=1000), pairing(2)]
        refused = client.post("/v1/games/bulk", json={"games": bad}, headers=key(ACME))
        assert refused.status_code == 422 and "1" in refused.get_json()["errors"]["games"]
        too_long = {"seats": [{"bot": "greedy"}, {"bot": "greedy"}], "target": 21}
        bad = [pairing(0), too_long, pairing(2)]  # (a match the engine refuses)
        refused = client.post("/v1/games/bulk", json={"games": bad}, headers=key(ACME))
        assert refused.status_code == 422 and refused.get_json()["detail"].startswith("games[1]")
        late = [pairing(0), pairing(1, start_at="2999-01-01T00:00:00Z")]
        refused = client.post("/v1/games/bulk", json={"games": late}, headers=key(ACME))
        assert refused.status_code == 422 and "games[1]" in refused.get_json()["detail"]
        with_open = [{"seats": [{"name": "A"}, {"open": True}], "start_at": "2999-01-01T00:00:00Z"}]
        refused = client.post("/v1/games/bulk", json={"games": with_open}, headers=key(ACME))
        assert refused.status_code == 422 and "open seats" in refused.get_json()["detail"]
        with redis.Redis.from_url(redis_url) as raw:
            assert not raw.keys("scopa:game:*") and not raw.keys("scopa:owner:*")
        # Without a key, nothing either.
        assert client.post("/v1/games/bulk", json={"games": [pairing(0)]}).status_code == 401

    def test_a_retry_with_its_idempotency_key_gets_the_same_round(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        body = {"games": [pairing(t) for t in range(3)]}
        headers = {**key(ACME), "Idempotency-Key": "round-3-0123456789abcdef"}
        first = client.post("/v1/games/bulk", json=body, headers=headers)
        again = client.post("/v1/games/bulk", json=body, headers=headers)
        assert first.status_code == again.status_code == 201
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json() == first.get_json()  # the same ids and tokens
        assert len(client.get("/v1/games", headers=key(ACME)).get_json()["games"]) == 3
        other = client.post("/v1/games/bulk", json={"games": [pairing(9)]}, headers=headers)
        assert other.status_code == 422
        assert other.get_json()["type"] == "/problems/idempotency-key-reused"
        # Another key's same Idempotency-Key is another request; no token is kept as it is.
        beta = client.post("/v1/games/bulk", json=body, headers={**headers, **key(BETA)})
        assert beta.status_code == 201 and "Idempotent-Replayed" not in beta.headers
        tokens = [s["token"] for g in first.get_json()["games"] for s in g["seats"]]
        with redis.Redis.from_url(redis_url) as raw:
            kept = [unpack(raw.get(k) or b"").decode() for k in raw.keys("scopa:round:*")]
        assert len(kept) == 2 and all('"games"' in answer for answer in kept)
        stored = everything_stored(redis_url) + "".join(kept)
        assert not any(token in stored for token in tokens)

    def test_each_game_counts_against_the_keys_creations(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed(SERVICE_KEY_CREATION_LIMIT=5)
        three = {"games": [pairing(t) for t in range(3)]}
        assert client.post("/v1/games/bulk", json=three, headers=key(ACME)).status_code == 201
        over = client.post("/v1/games/bulk", json=three, headers=key(ACME))
        assert over.status_code == 429 and "Retry-After" in over.headers
        listed = client.get("/v1/games", headers=key(ACME)).get_json()["games"]
        assert len(listed) == 3  # the refused round made nothing

    def test_no_move_before_start_at_and_the_clock_starts_then(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        start = datetime.now(UTC) + timedelta(seconds=30)
        game = client.post(
            "/v1/games/bulk",
            json={"games": [pairing(0, clock=20, start_at=start.isoformat())]},
            headers=key(ACME),
        ).get_json()["games"][0]
        url = f"/v1/games/{game['id']}"
        view = client.get(url, headers=key(ACME)).get_json()
        assert view["start_at"] == game["start_at"]
        assert view["start_at"].startswith(start.strftime("%Y-%m-%dT%H:%M:%S"))
        deadline = datetime.fromisoformat(view["clock"]["deadline"])
        assert (deadline - start).total_seconds() == pytest.approx(20, abs=0.01)
        turn = view["turn"]
        card = client.get(f"{url}?as_seat={turn}", headers=key(ACME)).get_json()["hand"][0]
        early = client.post(f"{url}/moves", json={"card": card}, headers=seat_of_key(ACME, turn))
        assert early.status_code == 409
        assert early.get_json()["type"] == "/problems/not-started-yet"
        assert start.strftime("%Y-%m-%dT%H:%M:%S") in early.get_json()["detail"]
        assert 1 <= int(early.headers["Retry-After"]) <= 31
        with redis.Redis.from_url(redis_url) as raw:  # the clock's job is for start + 20 s
            (when,) = pending_jobs(raw, game["id"]).values()
            assert when == pytest.approx(deadline.timestamp(), abs=1)  # (rq: whole seconds)

    def test_computer_players_wait_for_the_start(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        start = datetime.now(UTC) + timedelta(seconds=60)
        games = client.post(
            "/v1/games/bulk",
            json={
                "games": [
                    {
                        "seats": [{"bot": "greedy"}, {"name": "Ana"}],
                        "first_dealer": 1,
                        "start_at": start.isoformat(),
                    }
                ]
            },
            headers=key(ACME),
        ).get_json()["games"]
        url = f"/v1/games/{games[0]['id']}"
        view = client.get(url, headers=key(ACME)).get_json()
        assert view["turn"] == 0 and view["last_move"] is None  # the computer waits
        assert client.post(f"{url}/bots", headers=key(ACME)).status_code == 409
