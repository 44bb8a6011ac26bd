"""The game store behind the API: simultaneous moves, Redis going away and coming back,
key expiry, and what is (and is not) written to Redis."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from redis.backoff import NoBackoff
from redis.retry import Retry

from service import play
from service.engine import Card
from service.play import BotSettings, GameStore, StaleVersionError, VersionConflictError, keys
from tests.devredis import RedisServer
from tests.helpers import Table

PROBLEM = "application/problem+json"
SEVEN_DAYS = 7 * 24 * 3600


@pytest.fixture
def store(redis_url: str) -> Iterator[redis.Redis]:
    """A direct connection to the test Redis, to look at the keys the service writes."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as client:
        yield client


def play_one(game: Table) -> dict[str, Any]:
    """Play the first legal move of the seat on turn; return the response body."""
    turn = game.view()["turn"]
    move = game.legal_moves(turn)[0]
    response = game.move(turn, move["card"], move["capture"])
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def send_at_once(
    app: Flask, url: str, headers: dict[str, str], moves: list[dict[str, Any]]
) -> list[tuple[int, dict[str, Any]]]:
    """POST each move from its own client and thread, all released at the same instant
    by a barrier; return each (status, body)."""
    barrier = threading.Barrier(len(moves))
    results: list[tuple[int, dict[str, Any]] | None] = [None] * len(moves)

    def send(i: int) -> None:
        client = app.test_client()
        body = {"card": moves[i]["card"], "capture": moves[i]["capture"]}
        barrier.wait(timeout=10)
        response = client.post(url, json=body, headers=headers)
        results[i] = (response.status_code, json.loads(response.get_data()))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(moves))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    done = [r for r in results if r is not None]
    assert len(done) == len(moves), "a client did not finish"
    return done


class TestSimultaneousMoves:
    CLIENTS = 6

    def test_one_seat_moving_from_several_clients_at_once(self, app: Flask, table: Table) -> None:
        """Six clients of the seat on turn each send a move at the same instant, round
        after round: exactly one is stored each time, the others are refused."""
        table.create(seed=5)
        for round_ in range(6):
            before = table.view()
            turn = before["turn"]
            hand = table.view(turn)["hand"]
            moves = table.legal_moves(turn)
            bodies = [moves[i % len(moves)] for i in range(self.CLIENTS)]
            done = send_at_once(app, table.url("/moves"), table.auth(turn), bodies)
            statuses = [status for status, _ in done]
            assert statuses.count(200) == 1, (round_, statuses)
            for status, body in done:
                if status != 200:
                    assert status in (409, 422), body
                    assert body["type"] in (
                        "/problems/conflict",
                        "/problems/not-your-turn",
                        "/problems/illegal-move",
                    )
            winner = next(body for status, body in done if status == 200)

            after = table.view()
            assert after["version"] == before["version"] + 1
            assert after["last_move"] == winner["move"]
            assert winner["move"]["seat"] == turn
            log = table.client.get(table.url("/events")).get_json()["events"]
            assert sum(e["type"] == "move" for e in log) == round_ + 1
            played = winner["move"]["card"]
            assert played in hand
            if (
                after["hand_number"] == before["hand_number"]
                and after["stock_count"] == (before["stock_count"])
            ):
                assert sorted(table.view(turn)["hand"]) == sorted(c for c in hand if c != played)
            assert after["turn"] == 1 - turn

    def test_the_second_of_two_writes_from_the_same_version_loses(self, app: Flask) -> None:
        game = Table(app.test_client())
        game.create(seed=8)
        store: GameStore = app.extensions["scopa_store"]
        first = store.load(game.game_id)
        second = store.load(game.game_id)
        assert first.version == second.version == 1
        seat = first.match.turn
        assert seat is not None
        move = first.match.legal_moves()[0]
        other = second.match.legal_moves()[-1]

        step = play.move(first, seat, move.card, move.captured, BotSettings())
        assert step.version == 2 and step.events[0]["card"] == move.card.code
        store.commit(step)
        rival = play.move(second, seat, other.card, other.captured, BotSettings())
        with pytest.raises(VersionConflictError):
            store.commit(rival)

        stored = store.load(game.game_id)
        assert stored.version == 2
        assert stored.match.last_move is not None
        assert stored.match.last_move["card"] == move.card.code
        version, events = store.events(game.game_id)
        assert version == 2
        assert [e["type"] for e in events].count("move") == 1

        # If-Match is checked against the version the game was read at.
        with pytest.raises(StaleVersionError) as stale:
            play.move(
                store.load(game.game_id),
                1 - seat,
                Card.parse("7D"),
                [],
                BotSettings(),
                if_match={1},
            )
        assert stale.value.current == 2

    def test_a_lost_race_is_a_409_with_a_problem(self, app: Flask, table: Table) -> None:
        """A move that was checked against version 1 but is committed after another move
        reached version 2: the API answers 409 /problems/conflict and changes nothing."""
        table.create(seed=8)
        store: GameStore = app.extensions["scopa_store"]
        turn = table.view()["turn"]
        move = table.legal_moves(turn)[0]
        real_commit = store.commit
        raced = {"done": False}

        def commit_after_a_rival(step: play.Step, **kwargs: Any) -> None:
            if not raced["done"]:
                raced["done"] = True
                rival = store.load(table.game_id)
                rival_move = rival.match.legal_moves()[0]
                real_commit(
                    play.move(rival, turn, rival_move.card, rival_move.captured, BotSettings())
                )
            real_commit(step, **kwargs)

        store.commit = commit_after_a_rival  # type: ignore[method-assign]
        try:
            response = table.move(turn, move["card"], move["capture"])
        finally:
            store.commit = real_commit  # type: ignore[method-assign]
        assert response.status_code == 409
        assert response.mimetype == PROBLEM
        assert response.get_json(force=True)["type"] == "/problems/conflict"
        assert table.view()["version"] == 2


@pytest.fixture
def private_redis(redis_server: Any, tmp_path: Any) -> Iterator[RedisServer]:
    """A Redis of this test's own, persisting to a data directory that outlives stop(),
    so that start() brings back the same port and the same data."""
    if not isinstance(redis_server, RedisServer):
        pytest.skip("the session uses an external Redis (TEST_REDIS_URL): cannot stop it")
    server = RedisServer(persist=True, data_dir=str(tmp_path / "redis")).start()
    try:
        yield server
    finally:
        server.stop()


def assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["type"] == "/problems/storage-unavailable"
    assert body["status"] == 503 and body["detail"]
    assert int(response.headers["Retry-After"]) >= 1


def test_redis_going_away_mid_game_and_coming_back(
    private_redis: RedisServer, make_app: Callable[..., Flask]
) -> None:
    app = make_app(REDIS_URL=private_redis.url, REDIS_TIMEOUT_SECONDS=0.5)
    client = app.test_client()
    game = Table(client)
    game.create(seed=31)
    play_one(game)
    seen = game.view(0)
    port = private_redis.port

    private_redis.stop()
    turn = seen["turn"]
    assert_unavailable(client.get(game.url()))
    assert_unavailable(client.get(game.url(), headers=game.auth(turn)))
    assert_unavailable(client.get(game.url("/legal-moves"), headers=game.auth(turn)))
    assert_unavailable(client.get(game.url("/events")))
    assert_unavailable(client.get(game.url("/hands")))
    assert_unavailable(game.move(turn, "7D", []))
    assert_unavailable(client.post("/v1/games", json={}))
    assert_unavailable(client.get("/readyz"))
    health = client.get("/healthz")
    assert health.status_code == 200 and health.get_json() == {"status": "ok"}
    # Stateless analysis needs no store.
    assert client.post("/v1/legal-moves", json={"hand": ["7D"]}).status_code == 200

    private_redis.start()
    assert private_redis.port == port
    # The same app reconnects by itself, and the game is as it was.
    assert client.get("/readyz").status_code == 200
    assert game.view(0) == seen
    body = play_one(game)
    assert body["state"]["version"] == seen["version"] + 1


def test_a_redis_restart_keeps_the_game(redis_server: Any, table: Table) -> None:
    if not isinstance(redis_server, RedisServer):
        pytest.skip("the session uses an external Redis (TEST_REDIS_URL): cannot restart it")
    table.create(seed=32)
    play_one(table)
    seen = [table.view(seat) for seat in range(2)]
    redis_server.restart()
    assert [table.view(seat) for seat in range(2)] == seen
    assert play_one(table)["state"]["version"] == 3


class TestExpiry:
    def test_a_new_game_lives_seven_days_by_default(
        self,
        redis_url: str,
        store: redis.Redis,
        monkeypatch: pytest.MonkeyPatch,
        make_app: Callable[..., Flask],
    ) -> None:
        monkeypatch.delenv("GAME_TTL_SECONDS", raising=False)
        app = make_app(REDIS_URL=redis_url)
        game = Table(app.test_client())
        game.create()
        for key in (keys.game(game.game_id), keys.game_events(game.game_id)):
            assert SEVEN_DAYS - 10 <= store.ttl(key) <= SEVEN_DAYS, key

    def test_the_ttl_is_configurable_and_renewed_by_each_move(
        self, redis_url: str, store: redis.Redis, make_app: Callable[..., Flask]
    ) -> None:
        app = make_app(REDIS_URL=redis_url, GAME_TTL_SECONDS=100)
        game = Table(app.test_client())
        game.create(seed=4)
        names = (keys.game(game.game_id), keys.game_events(game.game_id))
        for key in names:
            assert 95 <= store.ttl(key) <= 100, key

        for key in names:
            store.expire(key, 30)
        play_one(game)
        for key in names:
            assert 95 <= store.ttl(key) <= 100, key

        # Reading does not renew it.
        for key in names:
            store.expire(key, 30)
        game.view()
        game.legal_moves(game.view()["turn"])
        game.client.get(game.url("/events"))
        for key in names:
            assert store.ttl(key) <= 30, key

    def test_an_expired_game_is_gone(self, table: Table, store: redis.Redis) -> None:
        table.create()
        for key in (keys.game(table.game_id), keys.game_events(table.game_id)):
            store.pexpire(key, 1)
        deadline = time.monotonic() + 2
        while store.exists(keys.game(table.game_id)) and time.monotonic() < deadline:
            time.sleep(0.01)
        for path in ("", "/events", "/hands", "/legal-moves"):
            response = table.client.get(table.url(path), headers=table.auth(0))
            assert response.status_code == 404, path
            assert response.get_json(force=True)["type"] == "/problems/game-not-found"
        response = table.move(0, "7D", [])
        assert response.status_code == 404


def test_what_is_stored(table: Table, store: redis.Redis) -> None:
    """One hash (version and state) and one event list per game; the seat tokens are
    stored only as hashes."""
    table.create(players=4, seed=12)
    play_one(table)
    assert sorted(store.keys("*")) == sorted(
        [keys.game(table.game_id), keys.game_events(table.game_id)]
    )
    assert keys.game(table.game_id) == f"scopa:game:{{{table.game_id}}}"
    stored = store.hgetall(keys.game(table.game_id))
    assert set(stored) == {"v", "s", "w", "n", "t"}
    assert stored["v"] == "2"
    assert json.loads(stored["t"]) == json.loads(stored["s"])["tokens"]  # (hashes only)
    events = store.lrange(keys.game_events(table.game_id), 0, -1)
    log = table.client.get(table.url("/events")).get_json()["events"]
    assert len(events) == len(log) == int(stored["n"])
    assert table.view()["seq"] == len(log) - 1
    everything = stored["s"] + stored["t"] + "".join(events)
    for token in table.tokens:
        assert token not in everything


def test_readiness(client: FlaskClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ready"}
    assert client.get("/healthz").get_json() == {"status": "ok"}
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and "/v1/games" in spec.get_json()["paths"]
    assert client.get("/docs").status_code == 200


class TestConnections:
    """Each thread has a connection of its own, taken from the pool once and given back
    when the thread ends (a server that makes a thread per request must not leak them)."""

    def test_a_thread_keeps_its_client_and_another_thread_has_its_own(self, redis_url: str) -> None:
        store = GameStore(redis.Redis.from_url(redis_url, decode_responses=True), 60)
        mine = store.redis
        assert store.redis is mine and mine.ping()
        theirs: list[redis.Redis] = []
        thread = threading.Thread(target=lambda: theirs.append(store.redis))
        thread.start()
        thread.join()
        assert theirs[0] is not mine
        store.close()

    def test_threads_that_end_give_their_connection_back(self, redis_url: str) -> None:
        pool = redis.ConnectionPool.from_url(redis_url, decode_responses=True)
        store = GameStore(redis.Redis(connection_pool=pool), 60)
        for _ in range(20):  # one after the other, as a thread-per-request server does
            thread = threading.Thread(target=lambda: store.redis.ping())
            thread.start()
            thread.join()
        opened = len(pool._available_connections) + len(pool._in_use_connections)  # noqa: SLF001
        assert opened <= 2  # the connection went back and was used again, not 20 opened
        assert not pool._in_use_connections  # noqa: SLF001
        store.close()


def test_a_write_whose_reply_was_lost_is_not_refused_when_retried(redis_url: str) -> None:
    """Redis stored the move, then the connection broke before the answer came back:
    redis-py sends the same compare-and-set again, which must find its own write (not a
    conflict, as another client's would be) and must not append the events twice."""
    retry = Retry(NoBackoff(), 2)
    pool = redis.ConnectionPool.from_url(redis_url, decode_responses=True, retry=retry)
    store = GameStore(redis.Redis(connection_pool=pool), 60)
    created = play.create(play.Setup(seed=3), BotSettings())
    store.commit(created)
    game_id = created.game.id
    connection = store.redis.connection
    assert connection is not None
    answer = connection.read_response
    lost: list[bool] = []

    def lose_the_first_answer(*args: Any, **kwargs: Any) -> Any:
        if not lost:
            lost.append(True)
            answer(*args, **kwargs)  # Redis ran the script; its answer is lost on the way
            raise redis.ConnectionError("connection reset")
        return answer(*args, **kwargs)

    first, second = store.load(game_id), store.load(game_id)
    seat = first.match.turn
    assert seat is not None
    move = first.match.legal_moves()[0]
    step = play.move(first, seat, move.card, move.captured, BotSettings())
    connection.read_response = lose_the_first_answer  # type: ignore[method-assign]
    store.commit(step)
    assert lost
    stored = store.load(game_id)
    assert stored.version == 2
    assert stored.match.to_dict() == step.game.match.to_dict()
    logged = json.loads(json.dumps(created.events + step.events))
    assert store.events(game_id) == (2, logged)  # the move's events appended once
    # Another writer that read version 1 is still refused.
    other = second.match.legal_moves()[-1]
    with pytest.raises(VersionConflictError):
        store.commit(play.move(second, seat, other.card, other.captured, BotSettings()))
    store.close()


def test_a_game_stored_before_the_log_length_was_kept_reads_it_from_the_log(
    table: Table, store: redis.Redis
) -> None:
    table.create(seed=4)
    store.hdel(keys.game(table.game_id), "n")  # as a game committed by an earlier version
    log = table.client.get(table.url("/events")).get_json()["events"]
    assert table.view()["seq"] == len(log) - 1
    play_one(table)
    assert int(store.hget(keys.game(table.game_id), "n")) == len(
        table.client.get(table.url("/events")).get_json()["events"]
    )
