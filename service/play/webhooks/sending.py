"""One delivery attempt: the payload signed as the Standard Webhooks specification says
(the ``standardwebhooks`` package signs: headers ``webhook-id``, ``webhook-timestamp``,
``webhook-signature``), POSTed to the checked address of the endpoint's URL
(:func:`.addresses.check_url`, again before every attempt).

A connection whose answer was read whole, and which the receiver keeps open (HTTP/1.1),
is kept for the next attempt to the same address for :data:`IDLE_SECONDS` (no new TCP
and TLS handshake per delivery: a game's deliveries go one after another); an attempt on
a kept connection that the receiver closed meanwhile is made again at once on a new one.

Bounded whatever the receiver does: one deadline of 10 s for the whole exchange, from
the connection to the end of the answer read (a watchdog shuts the connection down when
it passes, so a receiver that trickles its answer a byte at a time is cut off like one
that never answers), no redirect followed, no more than 4 KiB of its answer read (and
only kept, shortened, for the delivery log), and its answer trusted no further than its
status: 2xx read whole within the deadline is delivered; anything else, or no answer, is
a failure to retry.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3
from standardwebhooks.webhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection

from .addresses import RefusedAddressError, Resolver, check_url, resolve

#: Seconds one attempt may take, from the connection to the end of the answer.
TIMEOUT_SECONDS = 10.0
#: How often the watchdog shuts a connection down again once the deadline passed (one
#: made meanwhile: a TLS handshake in progress).
_AGAIN_SECONDS = 0.05
#: The most of a receiver's answer read.
MAX_ANSWER_BYTES = 4096
#: What the delivery log keeps of an answer's body.
KEPT_ANSWER_CHARS = 200
USER_AGENT = "scopa-webhooks/1"
#: How long a connection kept open waits for the next attempt (receivers close idle
#: ones after 5 s or more: Node's default; nginx's, 75 s). Longer than a run's turn
#: (2 s): a key's turns alternate between workers, each keeping its own connections.
IDLE_SECONDS = 4.0
#: The connections kept open to one address at most.
IDLE_PER_ADDRESS = 16

#: A connection's address: scheme, IP address, port, host name (TLS's, and Host's).
Address = tuple[str, str, int, str]


class _Kept:
    """The connections to receivers kept open between attempts, by address."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[Address, list[tuple[float, HTTPConnection]]] = {}

    def take(self, address: Address) -> HTTPConnection | None:
        """A connection to ``address`` kept open less than :data:`IDLE_SECONDS` ago."""
        stale: list[HTTPConnection] = []
        found = None
        with self._lock:
            idle = self._idle.get(address, [])
            while idle and found is None:
                since, conn = idle.pop()
                if time.monotonic() - since < IDLE_SECONDS:
                    found = conn
                else:
                    stale.append(conn)
        for conn in stale:
            conn.close()
        return found

    def give(self, address: Address, conn: HTTPConnection) -> None:
        """Keep ``conn`` for the next attempt to ``address`` (or close it: enough are)."""
        with self._lock:
            idle = self._idle.setdefault(address, [])
            if len(idle) < IDLE_PER_ADDRESS:
                idle.append((time.monotonic(), conn))
                return
        conn.close()


_KEPT = _Kept()


@dataclass(frozen=True)
class Attempt:
    """What one attempt came to, as the delivery log shows it."""

    #: When it started (UNIX time).
    at: float
    #: The receiver's HTTP status, or None when there was no answer.
    status: int | None
    #: Why it failed, in words (None when it was delivered).
    error: str | None
    #: Milliseconds it took.
    duration_ms: int
    #: The start of the receiver's answer (for the platform's own debugging).
    answer: str = ""

    @property
    def delivered(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, object]:
        return {
            "at": self.at,
            "status": self.status,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "answer": self.answer,
        }


def signed_headers(
    secret: str | Sequence[str], message_id: str, body: str, when: datetime
) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` sent as ``message_id`` at ``when``,
    signed with the secret, or with each of the secrets (space-separated signatures, as
    the specification allows while a secret is rotated)."""
    keys = (secret,) if isinstance(secret, str) else tuple(secret)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": " ".join(Webhook(key).sign(message_id, when, body) for key in keys),
    }


def send(
    url: str,
    secret: str | Sequence[str],
    message_id: str,
    body: str,
    *,
    allow: Collection[str] = frozenset(),
    resolver: Resolver = resolve,
) -> Attempt:
    """POST ``body`` to ``url`` once, signed with the endpoint's ``secret`` (or secrets),
    if the URL still passes :func:`.addresses.check_url` (its name resolved now)."""
    started = time.time()
    clock = time.monotonic()

    def done(status: int | None, error: str | None, answer: str = "") -> Attempt:
        took = int((time.monotonic() - clock) * 1000)
        return Attempt(started, status, error, took, answer)

    try:
        target = check_url(url, allow, resolver=resolver)
    except RefusedAddressError as refused:
        return done(None, f"refused: {refused}")
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Host": target.host if target.port in (80, 443) else f"{target.host}:{target.port}",
        **signed_headers(secret, message_id, body, datetime.now(UTC)),
    }
    ends = clock + TIMEOUT_SECONDS
    address: Address = (target.scheme, target.address, target.port, target.host)
    kept = _KEPT.take(address)
    if kept is not None:
        try:
            status, answer, reusable = _exchange(kept, target.path, body, headers, ends)
        except _FAILURES as error:
            kept.close()  # closed by the receiver while it waited: again, on a new one
            if time.monotonic() >= ends:
                return done(None, _failure(error))
        else:
            return _answered(done, status, answer, reusable, kept, address, ends)
    conn = _connection(target.scheme, target.address, target.port, target.host)
    try:
        status, answer, reusable = _exchange(conn, target.path, body, headers, ends, new=True)
    except _FAILURES as error:
        conn.close()
        if time.monotonic() >= ends:
            return done(None, f"no whole answer within {TIMEOUT_SECONDS:g} s")
        return done(None, _failure(error))
    return _answered(done, status, answer, reusable, conn, address, ends)


#: What an exchange with a receiver may meet.
_FAILURES = (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException)


def _connection(scheme: str, address: str, port: int, host: str) -> HTTPConnection:
    timeout = TIMEOUT_SECONDS  # each of connect and read; the watchdog bounds them all
    if scheme == "https":
        return HTTPSConnection(
            address,
            port,
            timeout=timeout,
            server_hostname=host,  # SNI and the certificate: the URL's host name
            assert_hostname=host,
        )
    return HTTPConnection(address, port, timeout=timeout)


def _exchange(
    conn: HTTPConnection,
    path: str,
    body: str,
    headers: dict[str, str],
    ends: float,
    *,
    new: bool = False,
) -> tuple[int, bytes, bool]:
    """POST ``body`` on ``conn`` (connected first if ``new``) within the deadline
    ``ends``: the answer's status, the start of its body, and whether the connection may
    carry another request (the answer read whole, and the receiver keeps it open)."""
    with _Deadline(conn, ends) as deadline:
        if new:
            conn.connect()
        deadline.hold(conn.sock)
        conn.request("POST", path, body=body.encode(), headers=headers, preload_content=False)
        response = conn.getresponse()
        answer = response.read(MAX_ANSWER_BYTES, decode_content=False)
    reusable = (
        response.version == 11
        and response.length_remaining == 0
        and "close" not in response.headers.get("Connection", "").lower()
        and time.monotonic() < ends
    )
    return response.status, answer, reusable


def _answered(
    done: Callable[..., Attempt],
    status: int,
    answer: bytes,
    reusable: bool,
    conn: HTTPConnection,
    address: Address,
    ends: float,
) -> Attempt:
    """The attempt that got ``status`` and ``answer``; its connection kept or closed."""
    if reusable:
        _KEPT.give(address, conn)
    else:
        conn.close()
    if time.monotonic() >= ends:  # cut off mid-answer: what was read is not all of it
        return done(status, f"no whole answer within {TIMEOUT_SECONDS:g} s")
    kept = answer[:KEPT_ANSWER_CHARS].decode("utf-8", "replace")
    if 200 <= status < 300:
        return done(status, None, kept)
    return done(status, f"answered HTTP {status}", kept)


class _Deadline:
    """An attempt's deadline: once ``time.monotonic()`` passes ``ends``, the watchdog
    (:class:`_Watchdog`, one thread for every attempt of the process) shuts its
    connection down (and again every :data:`_AGAIN_SECONDS` while the attempt runs):
    whatever is waited for on it (connect, TLS, the answer's headers or body) ends then,
    however slowly the other side trickles. The socket the answer is read from is
    :meth:`hold`'s (http.client lets go of it once the answer says ``Connection:
    close``). Once the attempt has left the ``with`` block, its connection is never
    shut by the watchdog: it may be kept for the next attempt."""

    def __init__(self, conn: HTTPConnection, ends: float) -> None:
        self.conn, self.ends = conn, ends
        self.held: socket.socket | None = None

    def hold(self, sock: socket.socket | None) -> None:
        self.held = sock

    def shut(self) -> None:
        for sock in (self.conn.sock, self.held):
            if sock is not None:
                with suppress(OSError):  # the plain socket's: an SSLSocket's drops TLS
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> _Deadline:
        _WATCHDOG.add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _WATCHDOG.remove(self)


class _Watchdog:
    """The one thread that shuts down the connections of attempts past their deadline
    (started on first use, in the process that makes attempts)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._deadlines: set[_Deadline] = set()
        self._thread: threading.Thread | None = None

    def add(self, deadline: _Deadline) -> None:
        with self._changed:
            self._deadlines.add(deadline)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="webhook-deadlines", daemon=True
                )
                self._thread.start()
            elif len(self._deadlines) == 1:
                self._changed.notify()  # (else it wakes for an earlier deadline first)

    def remove(self, deadline: _Deadline) -> None:
        """(Holding the lock the watchdog shuts sockets under: once this returns, the
        attempt's connection is no longer touched.)"""
        with self._changed:
            self._deadlines.discard(deadline)

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                overdue = [d for d in self._deadlines if d.ends <= now]
                for deadline in overdue:
                    deadline.shut()
                coming = [d.ends - now for d in self._deadlines if d.ends > now]
                wait = min([*coming, _AGAIN_SECONDS]) if overdue else min(coming, default=None)
                self._changed.wait(wait)


_WATCHDOG = _Watchdog()


def _failure(error: Exception) -> str:
    """An attempt's failure in words (no stack, no address the platform did not give)."""
    if isinstance(error, urllib3.exceptions.SSLError | ssl.SSLError):
        return "TLS failed (the certificate does not match the host, or is not trusted)"
    if isinstance(error, urllib3.exceptions.NewConnectionError):  # (a ConnectTimeoutError)
        return "could not connect"
    if isinstance(error, urllib3.exceptions.TimeoutError | TimeoutError):
        return f"no answer within {TIMEOUT_SECONDS:g} s"
    if isinstance(
        error, urllib3.exceptions.ProtocolError | ConnectionError | http.client.HTTPException
    ):
        return "the connection was closed before an answer"
    return f"failed: {type(error).__name__}"
