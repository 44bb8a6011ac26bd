"""One delivery attempt: the payload signed as the Standard Webhooks specification says
(the ``standardwebhooks`` package signs: headers ``webhook-id``, ``webhook-timestamp``,
``webhook-signature``), POSTed to the checked address of the endpoint's URL
(:func:`.addresses.check_url`, again before every attempt).

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
from collections.abc import Collection, Sequence
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
    timeout = TIMEOUT_SECONDS  # each of connect and read; the watchdog bounds them all
    conn: HTTPConnection
    if target.scheme == "https":
        conn = HTTPSConnection(
            target.address,
            target.port,
            timeout=timeout,
            server_hostname=target.host,  # SNI and the certificate: the URL's host name
            assert_hostname=target.host,
        )
    else:
        conn = HTTPConnection(target.address, target.port, timeout=timeout)
    try:
        with _Deadline(conn, ends) as deadline:
            conn.connect()
            deadline.hold(conn.sock)
            conn.request(
                "POST", target.path, body=body.encode(), headers=headers, preload_content=False
            )
            response = conn.getresponse()
            answer = response.read(MAX_ANSWER_BYTES, decode_content=False)
    except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException) as error:
        if time.monotonic() >= ends:
            return done(None, f"no whole answer within {TIMEOUT_SECONDS:g} s")
        return done(None, _failure(error))
    finally:
        conn.close()
    if time.monotonic() >= ends:  # cut off mid-answer: what was read is not all of it
        return done(response.status, f"no whole answer within {TIMEOUT_SECONDS:g} s")
    kept = answer[:KEPT_ANSWER_CHARS].decode("utf-8", "replace")
    if 200 <= response.status < 300:
        return done(response.status, None, kept)
    return done(response.status, f"answered HTTP {response.status}", kept)


class _Deadline:
    """A watchdog thread that shuts a connection down once ``time.monotonic()`` passes
    ``ends`` (and again, while it runs, every :data:`_AGAIN_SECONDS`): whatever is waited
    for on it (connect, TLS, the answer's headers or body) ends then, however slowly the
    other side trickles. The socket the answer is read from is :meth:`hold`'s (http.client
    lets go of it once the answer says ``Connection: close``)."""

    def __init__(self, conn: HTTPConnection, ends: float) -> None:
        self.conn, self.ends = conn, ends
        self.held: socket.socket | None = None
        self.over = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="webhook-deadline", daemon=True)

    def hold(self, sock: socket.socket | None) -> None:
        self.held = sock

    def _watch(self) -> None:
        if self.over.wait(max(0.0, self.ends - time.monotonic())):
            return
        while not self.over.is_set():
            for sock in (self.conn.sock, self.held):
                if sock is not None:
                    with suppress(OSError):  # the plain socket's: an SSLSocket's drops TLS
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)
            self.over.wait(_AGAIN_SECONDS)

    def __enter__(self) -> _Deadline:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.over.set()
        self.thread.join()


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
