"""Fail fast while Redis does not answer: a circuit breaker per worker process.

Without it, a hung Redis (frozen, not down: connections open, nothing answers) held
every request's thread for the whole socket timeout, retries included, and requests
queued behind them. Now the first call that times out (or cannot connect) *opens* the
breaker, and for ``REDIS_BREAKER_COOLDOWN_SECONDS`` every call to Redis is refused at
once with :class:`StorageUnavailableError`: the request is answered 503 with
``Retry-After``, the seconds left of the cool-down. After the cool-down one call goes
through as a probe (*half-open*): if Redis answers it the breaker closes and every call
goes through again; if not, it opens for another cool-down. Routes that do not use
Redis never meet it.

The breaker sits in the connections of the app's clients (:class:`GuardedConnection`,
made by :func:`guarding` for whichever connection class the ``REDIS_URL`` uses: one
Redis, each node of a Redis Cluster, or the master a Sentinel names), so it guards every
Redis call, the game store's and the rate limiter's alike, without either knowing of it.
On a cluster one breaker guards every node: a worker that meets a node that does not
answer stops calling the cluster for the cool-down, as it would one Redis.

- before a command is sent, or a connection made, :meth:`CircuitBreaker.before_call`
  refuses it while the breaker is open;
- a reply read (an error reply too: Redis answered) closes the breaker;
- a timeout, or a connection that cannot be made, opens it. An established connection
  that breaks (Redis restarted, an idle connection dropped) does not: redis-py's retry
  reconnects, and only if that fails is Redis taken for gone.

``StorageUnavailableError`` is a ``RedisError`` but not a ``ConnectionError``: redis-py
does not retry it, and the rate limiter's fail-open (``except RedisError``) lets the
request through at once rather than after a timeout.

Readiness (``/readyz``) does not wait for the cool-down: :class:`Readiness` pings Redis
on a client of its own, with its own short timeout that is never retried, and feeds
the answer to the breaker, so an instance is ready again as soon as Redis answers.
While the breaker is open only one readiness ping at a time is made; others are
answered 503 at once.

Why not pybreaker: its ``CircuitBreaker.call`` holds one lock for the whole wrapped call,
which would serialise every Redis command of a worker's threads, and it wraps a call
whole, where a connection sends in one method and reads the reply in another (the send
to a hung Redis succeeds: only the read tells).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import redis
from flask import Flask, current_app
from prometheus_client import Counter
from redis.backoff import NoBackoff
from redis.connection import AbstractConnection
from redis.exceptions import (
    ConnectionError,
    RedisClusterException,
    ResponseError,
    TimeoutError,
)
from redis.retry import Retry

from ..play import connections

log = logging.getLogger(__name__)

BREAKER_OPENS = Counter(
    "scopa_redis_breaker_opens_total",
    "Times a worker stopped calling Redis for a cool-down after a timeout or a failed "
    "connection (a failed probe re-opening it is not counted again).",
)

EXTENSION = "scopa_breaker"
READINESS = "scopa_readiness"


class State(StrEnum):
    CLOSED = "closed"  # calls go through
    OPEN = "open"  # calls are refused until the cool-down ends
    HALF_OPEN = "half-open"  # one call (the probe) goes through; the others are refused


class StorageUnavailableError(redis.exceptions.RedisError):
    """A Redis call refused unsent: the breaker is open. Nothing was sent to Redis."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"Redis calls are refused for {retry_after} s (circuit breaker open)")
        #: Whole seconds until a call may go through again (at least 1).
        self.retry_after = retry_after


class CircuitBreaker:
    """Closed, open for ``cooldown`` seconds after a failure, then half-open: one probe.

    Thread-safe: every change of state is made under a lock; the closed state's fast
    path reads one attribute. ``clock`` is for tests."""

    def __init__(self, cooldown: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if cooldown <= 0:
            raise ValueError(f"the breaker's cool-down must be positive, not {cooldown}")
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._state = State.CLOSED
        self._opened_at = 0.0
        self._probe: int | None = None  # the thread making the half-open probe
        self._probe_since = 0.0

    @property
    def state(self) -> State:
        return self._state

    @property
    def closed(self) -> bool:
        return self._state is State.CLOSED

    def before_call(self) -> None:
        """Let a call go ahead, or raise StorageUnavailableError. The first call after
        the cool-down becomes the probe; so does one after a probe that never told how
        it went (its thread gone) for as long again."""
        if self._state is State.CLOSED:
            return
        me = threading.get_ident()
        with self._lock:
            now = self._clock()
            if self._state is State.CLOSED:
                return
            if self._state is State.HALF_OPEN:
                if self._probe == me:
                    return
                if now - self._probe_since < self.cooldown:
                    raise StorageUnavailableError(1)  # the probe's answer is near
            elif now - self._opened_at < self.cooldown:
                raise StorageUnavailableError(self._seconds_left(now))
            self._state = State.HALF_OPEN
            self._probe = me
            self._probe_since = now

    def record_success(self) -> None:
        """Redis answered: close the breaker."""
        if self._state is State.CLOSED:
            return
        with self._lock:
            if self._state is State.CLOSED:
                return
            self._state = State.CLOSED
            self._probe = None
        log.info("Redis answers again: calls to it resume")

    def record_failure(self, error: BaseException | None = None) -> None:
        """A call timed out or could not connect: open the breaker (a failure while it
        is already open changes nothing, so the cool-down is not drawn out)."""
        with self._lock:
            if self._state is State.OPEN:
                return
            was = self._state
            self._state = State.OPEN
            self._opened_at = self._clock()
            self._probe = None
        if was is State.CLOSED:
            BREAKER_OPENS.inc()
            log.warning(
                "Redis did not answer (%s): calls to it are refused for %g s",
                type(error).__name__ if error is not None else "failure",
                self.cooldown,
            )

    def retry_after(self) -> int:
        """Whole seconds until a call may go through again: at least 1."""
        with self._lock:
            if self._state is State.OPEN:
                return self._seconds_left(self._clock())
        return 1

    def _seconds_left(self, now: float) -> int:
        return max(1, math.ceil(self._opened_at + self.cooldown - now))


class GuardedConnection(AbstractConnection):
    """A redis-py connection that asks its class's ``breaker`` before each command or
    connect and tells it how each went. Made for a connection class of redis-py by
    :func:`guarding` (one breaker per worker, however many classes and pools)."""

    breaker: CircuitBreaker

    def connect_check_health(
        self, check_health: bool = True, retry_socket_connect: bool = True
    ) -> None:
        self.breaker.before_call()
        try:
            super().connect_check_health(
                check_health=check_health, retry_socket_connect=retry_socket_connect
            )
        except (ConnectionError, TimeoutError) as error:
            self.breaker.record_failure(error)  # a new connection failed: Redis is gone
            raise

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        self.breaker.before_call()
        try:
            super().send_packed_command(command, check_health=check_health)
        except TimeoutError as error:
            self.breaker.record_failure(error)
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            response = super().read_response(*args, **kwargs)
        except TimeoutError as error:
            self.breaker.record_failure(error)
            raise
        except ResponseError:
            self.breaker.record_success()  # an error reply is an answer
            raise
        self.breaker.record_success()
        return response


def guarding(breaker: CircuitBreaker) -> connections.Wrapper:
    """The ``connection_class`` wrapper of :func:`service.play.connections.connect`:
    given the connection class a URL's form uses (plain, TLS, Unix socket, a Sentinel's
    managed connection), the same class guarded by ``breaker``."""
    made: dict[type[AbstractConnection], type[AbstractConnection]] = {}

    def guarded(base: type[AbstractConnection]) -> type[AbstractConnection]:
        if base not in made:
            name = f"Guarded{base.__name__}"
            made[base] = type(name, (GuardedConnection, base), {"breaker": breaker})
        return made[base]

    return guarded


class Readiness:
    """The readiness check: one PING, at most ``timeout`` seconds (to connect, and for
    the reply), on a client of its own that does not retry a timeout; its outcome is
    told to the breaker. (A broken connection, Redis having restarted, is retried once
    on a new one.)"""

    def __init__(self, url: str, timeout: float, breaker: CircuitBreaker) -> None:
        self.breaker = breaker
        self._url, self._timeout = url, timeout
        self._client: connections.Client | None = None  # made at the first check
        self._one_at_a_time = threading.Lock()
        self._making = threading.Lock()

    @property
    def client(self) -> connections.Client:
        """The check's own client, made on first use (a cluster's connects when made:
        while no node answers, each check tries again, and fails)."""
        with self._making:
            if self._client is None:
                self._client = connections.connect(
                    self._url,
                    socket_timeout=self._timeout,
                    socket_connect_timeout=self._timeout,
                    retry=Retry(NoBackoff(), 1, supported_errors=(ConnectionError,)),
                )
            return self._client

    def check(self) -> None:
        """Return if Redis answers; else raise a Redis error (StorageUnavailableError if
        the breaker is open and another readiness check is already waiting)."""
        if self.breaker.closed:
            self._ping()
            return
        if not self._one_at_a_time.acquire(blocking=False):
            raise StorageUnavailableError(self.breaker.retry_after())
        try:
            self._ping()
        finally:
            self._one_at_a_time.release()

    def _ping(self) -> None:
        try:
            self.client.ping()
        except (ConnectionError, TimeoutError, RedisClusterException) as error:
            self.breaker.record_failure(error)
            raise
        self.breaker.record_success()


def install(app: Flask, breaker: CircuitBreaker, readiness: Readiness) -> None:
    """Keep ``breaker`` and the readiness check on ``app``."""
    app.extensions[EXTENSION] = breaker
    app.extensions[READINESS] = readiness


def breaker() -> CircuitBreaker | None:
    """The current app's breaker, if it has one."""
    found: CircuitBreaker | None = current_app.extensions.get(EXTENSION)
    return found


def readiness() -> Readiness:
    check: Readiness = current_app.extensions[READINESS]
    return check
