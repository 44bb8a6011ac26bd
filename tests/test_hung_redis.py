"""Fail fast on a hung Redis: the circuit breaker of service/api/breaker.py.

Its state machine first, on a clock the test moves; then the breaker in the connections
of a real pool, on a private Redis of each test's own that is stopped, frozen (SIGSTOP:
connections open, nothing answers) or restarted; then the app on such a Redis, through
Flask's test client. The service as deployed (gunicorn) on a frozen Redis is in
tests/test_faults.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from prometheus_client import REGISTRY
from redis.backoff import NoBackoff
from redis.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.retry import Retry

from service.api.breaker import (
    CircuitBreaker,
    GuardedConnection,
    State,
    StorageUnavailableError,
    guarding,
)
from service.play import connections
from tests.devredis import RedisServer
from tests.helpers import Table

PROBLEM = "application/problem+json"
#: Redis timeouts of these tests: short, as the service's defaults are.
TIMEOUT = 0.3
#: A bound on an answer that did not wait for Redis at all (a fraction of TIMEOUT).
AT_ONCE = 0.1


class Clock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def opens() -> float:
    return REGISTRY.get_sample_value("scopa_redis_breaker_opens_total") or 0.0


def in_thread(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a thread of its own; return what it raised, if anything."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            raised.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return raised[0] if raised else None


# -- the state machine --------------------------------------------------------------------


def test_a_failure_opens_the_breaker_for_the_cooldown_then_one_probe_goes_through() -> None:
    clock = Clock()
    breaker = CircuitBreaker(3.0, clock=clock)
    breaker.before_call()
    breaker.record_success()
    assert breaker.state is State.CLOSED and breaker.retry_after() == 1

    before = opens()
    breaker.record_failure(redis.exceptions.TimeoutError())
    assert breaker.state is State.OPEN and opens() == before + 1
    with pytest.raises(StorageUnavailableError) as refused:
        breaker.before_call()
    assert refused.value.retry_after == 3 == breaker.retry_after()
    clock.now += 1.2
    assert breaker.retry_after() == 2  # the seconds left, rounded up
    # A failure while open (a request that was already waiting) does not draw it out.
    breaker.record_failure()
    clock.now += 1.7
    with pytest.raises(StorageUnavailableError) as refused:
        breaker.before_call()
    assert refused.value.retry_after == 1  # 0.1 s left: never less than 1

    clock.now += 0.2  # the cool-down is over: this thread is the probe
    breaker.before_call()
    assert breaker.state is State.HALF_OPEN
    breaker.before_call()  # the probe's next command (a reconnect, say) goes too
    other = in_thread(breaker.before_call)
    assert isinstance(other, StorageUnavailableError) and other.retry_after == 1
    breaker.record_success()
    assert breaker.state is State.CLOSED
    assert in_thread(breaker.before_call) is None
    assert opens() == before + 1


def test_a_failed_probe_opens_it_again_for_a_whole_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker(2.0, clock=clock)
    before = opens()
    breaker.record_failure()
    clock.now += 2.5
    breaker.before_call()  # the probe
    breaker.record_failure(redis.exceptions.ConnectionError())
    assert breaker.state is State.OPEN
    assert opens() == before + 1  # an outage is counted once, not once per probe
    clock.now += 1.9
    with pytest.raises(StorageUnavailableError):
        breaker.before_call()
    clock.now += 0.2
    breaker.before_call()
    assert breaker.state is State.HALF_OPEN


def test_a_probe_that_never_reports_is_replaced_after_a_cooldown() -> None:
    clock = Clock()
    breaker = CircuitBreaker(1.0, clock=clock)
    breaker.record_failure()
    clock.now += 1.0
    # A probe that never tells how it went (its thread stuck, or its request ended
    # without reading a reply); its thread lives on, so that no other thread gets its id.
    probing, release = threading.Event(), threading.Event()

    def probe() -> None:
        breaker.before_call()
        probing.set()
        release.wait(10)

    stuck = threading.Thread(target=probe)
    stuck.start()
    try:
        assert probing.wait(10)
        clock.now += 0.5
        assert isinstance(in_thread(breaker.before_call), StorageUnavailableError)
        clock.now += 0.6
        breaker.before_call()  # this thread probes instead
        assert breaker.state is State.HALF_OPEN
        assert isinstance(in_thread(breaker.before_call), StorageUnavailableError)
    finally:
        release.set()
        stuck.join()


def test_only_one_of_many_threads_probes() -> None:
    clock = Clock()
    breaker = CircuitBreaker(1.0, clock=clock)
    breaker.record_failure()
    clock.now += 5
    start = threading.Barrier(16)
    through: list[int] = []
    refused: list[int] = []

    def call(number: int) -> None:
        start.wait()
        try:
            breaker.before_call()
        except StorageUnavailableError:
            refused.append(number)
        else:
            through.append(number)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(through) == 1 and len(refused) == 15


def test_the_cooldown_must_be_positive() -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(0)


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("redis://127.0.0.1:6379/0", Connection),
        ("rediss://example.com:6380/0", SSLConnection),
        ("unix:///run/redis.sock?db=0", UnixDomainSocketConnection),
        (
            "redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/scopa",
            connections.SentinelMasterConnection,  # a SentinelManagedConnection
        ),
    ],
)
def test_each_url_form_gets_its_connection_guarded(url: str, base: type) -> None:
    """Whatever REDIS_URL names, its connections ask the breaker (a cluster's are
    checked against a real cluster in tests/test_scale_out.py)."""
    breaker = CircuitBreaker(1)
    wrap = guarding(breaker)
    client = connections.connect(url, connection_class=wrap)
    assert isinstance(client, redis.Redis)
    made = client.connection_pool.connection_class
    assert issubclass(made, GuardedConnection) and issubclass(made, base)
    assert made.breaker is breaker
    assert wrap(base) is made  # one class per base: a worker's clients share it


# -- the breaker in a real pool, on a real Redis ------------------------------------------


@pytest.fixture
def server(redis_server: Any) -> Iterator[RedisServer]:
    """A Redis of this test's own, to stop, freeze and restart."""
    if not isinstance(redis_server, RedisServer):
        pytest.skip("the session uses an external Redis (TEST_REDIS_URL)")
    own = RedisServer().start()
    try:
        yield own
    finally:
        own.stop()


def guarded(server: RedisServer, breaker: CircuitBreaker) -> redis.Redis:
    """A client on a pool built as the app builds its own."""
    client = connections.connect(
        server.url,
        decode_responses=False,
        connection_class=guarding(breaker),
        socket_timeout=TIMEOUT,
        socket_connect_timeout=TIMEOUT,
        retry=Retry(NoBackoff(), 2, supported_errors=(redis.exceptions.ConnectionError,)),
    )
    assert isinstance(client, redis.Redis)
    return client


def timed(call: Callable[[], Any]) -> tuple[float, BaseException | None]:
    started = time.monotonic()
    try:
        call()
    except redis.exceptions.RedisError as exc:
        return time.monotonic() - started, exc
    return time.monotonic() - started, None


def test_a_stopped_redis_opens_the_breaker_and_a_probe_closes_it(server: RedisServer) -> None:
    breaker = CircuitBreaker(0.5)
    client = guarded(server, breaker)
    try:
        client.set("k", "v")
        server.stop()
        # The broken connection is retried on a new one, which is refused: the breaker
        # opens, and the retry after that is refused by the breaker itself.
        took, error = timed(client.ping)
        assert isinstance(error, redis.exceptions.ConnectionError | StorageUnavailableError)
        assert breaker.state is State.OPEN and took < TIMEOUT
        took, error = timed(client.ping)
        assert isinstance(error, StorageUnavailableError) and took < AT_ONCE
        time.sleep(0.6)
        _, error = timed(client.ping)  # the probe: still refused, and open again
        assert isinstance(error, redis.exceptions.ConnectionError | StorageUnavailableError)
        assert breaker.state is State.OPEN

        server.start()  # the same port
        _, error = timed(client.ping)  # the cool-down is not over
        assert isinstance(error, StorageUnavailableError)
        time.sleep(0.6)
        assert client.ping() is True
        assert breaker.state is State.CLOSED
        assert client.set("k", "w") is True
    finally:
        client.close()
        client.connection_pool.disconnect()


def test_a_hung_redis_costs_one_timeout_then_calls_are_refused_at_once(
    server: RedisServer,
) -> None:
    breaker = CircuitBreaker(0.5)
    client = guarded(server, breaker)
    try:
        client.ping()
        with server.frozen():
            took, error = timed(client.ping)
            assert isinstance(error, redis.exceptions.TimeoutError)
            assert TIMEOUT * 0.9 < took < TIMEOUT + 0.5, "the timeout is not retried"
            assert breaker.state is State.OPEN
            for _ in range(5):
                took, error = timed(lambda: client.get("k"))
                assert isinstance(error, StorageUnavailableError) and took < AT_ONCE
            with client.pipeline() as pipe:  # pipelines too (the rate limiter's)
                pipe.incr("n")
                took, error = timed(pipe.execute)
            assert isinstance(error, StorageUnavailableError) and took < AT_ONCE
            time.sleep(0.6)
            took, error = timed(client.ping)  # one probe waits the timeout, and fails
            assert isinstance(error, redis.exceptions.TimeoutError)
            assert breaker.state is State.OPEN
        time.sleep(0.6)
        assert client.ping() is True
        assert breaker.state is State.CLOSED
    finally:
        client.close()
        client.connection_pool.disconnect()


def test_a_redis_restart_does_not_open_the_breaker(server: RedisServer) -> None:
    """A connection broken under an idle client (Redis restarted) is retried on a new
    one: that is not an outage."""
    breaker = CircuitBreaker(5.0)
    client = guarded(server, breaker)
    single = redis.Redis(connection_pool=client.connection_pool, single_connection_client=True)
    try:
        assert client.ping() and single.ping()
        server.restart()
        assert client.set("k", "v") is True
        assert single.get("k") == b"v"
        assert breaker.state is State.CLOSED
    finally:
        single.close()
        client.close()
        client.connection_pool.disconnect()


def test_an_error_reply_is_an_answer(server: RedisServer) -> None:
    breaker = CircuitBreaker(0.2)
    client = guarded(server, breaker)
    try:
        breaker.record_failure()
        time.sleep(0.3)
        with pytest.raises(redis.exceptions.ResponseError):
            client.execute_command("NO-SUCH-COMMAND")
        assert breaker.state is State.CLOSED
    finally:
        client.close()
        client.connection_pool.disconnect()


# -- the app ------------------------------------------------------------------------------


def assert_unavailable(response: Any, retry_after: int | None = None) -> dict[str, Any]:
    assert response.status_code == 503, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    assert body["type"] == "/problems/storage-unavailable" and body["status"] == 503
    seconds = int(response.headers["Retry-After"])
    assert seconds >= 1
    if retry_after is not None:
        assert seconds == retry_after
    assert f"{seconds} second" in body["detail"]
    return body


def test_while_the_breaker_is_open_only_what_needs_redis_is_refused(
    server: RedisServer, make_app: Callable[..., Flask]
) -> None:
    """Rate limits on (the limiter counts in Redis, and fails open): while Redis is
    hung, what needs no store answers without waiting for it, and what needs it is
    refused at once with the seconds left of the cool-down."""
    app = make_app(
        REDIS_URL=server.url,
        REDIS_TIMEOUT_SECONDS=TIMEOUT,
        REDIS_READY_TIMEOUT_SECONDS=TIMEOUT,
        REDIS_BREAKER_COOLDOWN_SECONDS=4.0,
        RATE_LIMIT_PER_ADDRESS=1000,
        RATE_LIMIT_PER_TOKEN=1000,
    )
    client = app.test_client()
    game = Table(client)
    game.create(seed=5)
    seen = game.view(0)
    turn = seen["turn"]
    move = game.legal_moves(turn)[0]
    before = opens()
    stateless: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/v1/score", {"piles": [["7D"], []]}),
        ("POST", "/v1/legal-moves", {"hand": ["7D"]}),
        ("GET", "/v1/variants", None),
        ("GET", "/healthz", None),
        ("GET", "/metrics", None),
        ("GET", "/openapi.json", None),
    ]

    with server.frozen():
        # The first call to Redis (the limiter's) waits out the timeout, once, and
        # opens the breaker; the request itself needs no store.
        started = time.monotonic()
        assert client.post("/v1/score", json={"piles": [["7D"], []]}).status_code == 200
        assert time.monotonic() - started < TIMEOUT + 0.5
        assert opens() == before + 1

        started = time.monotonic()
        for method, path, body in stateless * 3:
            answer = client.open(path, method=method, json=body)
            assert answer.status_code == 200, (path, answer.get_data(as_text=True))
        # (Waiting out the timeout each, the limiter would take 18 x 0.3 s.)
        assert time.monotonic() - started < 2.0, "something waited for Redis"

        started = time.monotonic()
        assert_unavailable(client.get(game.url()), retry_after=4)
        assert_unavailable(client.get(game.url("/events")))
        body = assert_unavailable(game.move(turn, move["card"], move["capture"]))
        assert "Nothing was changed" in body["detail"]  # refused unsent
        assert_unavailable(client.post("/v1/games", json={}))
        assert time.monotonic() - started < AT_ONCE * 4

        # Readiness pings Redis itself (at most one such ping at a time while the
        # breaker is open), within its own timeout.
        started = time.monotonic()
        assert_unavailable(client.get("/readyz"))
        assert time.monotonic() - started < TIMEOUT + 0.5

    # Redis is back: readiness finds it at once, and closes the breaker.
    assert client.get("/readyz").get_json() == {"status": "ready"}
    assert game.view(0) == seen
    assert game.move(turn, move["card"], move["capture"]).status_code == 200
    assert opens() == before + 1
    assert REGISTRY.get_sample_value("scopa_redis_errors_total") is not None


def test_a_write_that_timed_out_may_still_be_stored_and_the_answer_says_so(
    server: RedisServer, make_app: Callable[..., Flask]
) -> None:
    """A command sent to a hung Redis is carried out when it wakes up, though the client
    gave up on it: the 503 of a write that timed out does not say nothing was changed."""
    app = make_app(REDIS_URL=server.url, REDIS_TIMEOUT_SECONDS=TIMEOUT)
    client = app.test_client()
    game = Table(client)
    game.create(seed=6)
    turn = game.view()["turn"]
    move = game.legal_moves(turn)[0]
    with server.frozen():
        body = assert_unavailable(game.move(turn, move["card"], move["capture"]))
        assert "may still be stored" in body["detail"]
        assert "Nothing was changed" in assert_unavailable(client.get(game.url()))["detail"]


def test_a_redis_restart_neither_fails_readiness_nor_opens_the_breaker(
    server: RedisServer, make_app: Callable[..., Flask]
) -> None:
    app = make_app(REDIS_URL=server.url, REDIS_TIMEOUT_SECONDS=TIMEOUT)
    client = app.test_client()
    game = Table(client)
    game.create(seed=7)
    assert client.get("/readyz").status_code == 200
    before = opens()
    server.restart()  # every connection the app holds is broken now
    assert client.get("/readyz").status_code == 200
    assert client.get(game.url()).status_code == 404  # not persisted: the game is gone
    assert app.extensions["scopa_breaker"].state is State.CLOSED
    assert opens() == before
