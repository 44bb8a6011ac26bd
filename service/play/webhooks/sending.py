"""One delivery attempt: the payload signed as the Standard Webhooks specification says
(the ``standardwebhooks`` package signs: headers ``webhook-id``, ``webhook-timestamp``,
``webhook-signature``), POSTed to the checked address of the endpoint's URL
(:func:`.addresses.check_url`, again before every attempt).

Bounded whatever the receiver does: 5 s for the whole exchange, no redirect followed,
no more than 4 KiB of its answer read (and only kept, shortened, for the delivery log),
and its answer trusted no further than its status: 2xx is delivered, anything else, or
no answer, is a failure to retry.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3
from standardwebhooks.webhooks import Webhook

from .addresses import RefusedAddressError, Resolver, check_url, resolve

#: Seconds one attempt may take, connection included.
TIMEOUT_SECONDS = 5.0
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


def signed_headers(secret: str, message_id: str, body: str, when: datetime) -> dict[str, str]:
    """The Standard Webhooks headers of ``body`` sent as ``message_id`` at ``when``."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(when.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, when, body),
    }


def send(
    url: str,
    secret: str,
    message_id: str,
    body: str,
    *,
    allow: Collection[str] = frozenset(),
    resolver: Resolver = resolve,
) -> Attempt:
    """POST ``body`` to ``url`` once, signed with the endpoint's ``secret``, if the URL
    still passes :func:`.addresses.check_url` (its name resolved now)."""
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
    timeout = urllib3.Timeout(total=TIMEOUT_SECONDS)
    pool: urllib3.HTTPConnectionPool
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            target.address,
            target.port,
            timeout=timeout,
            retries=False,
            maxsize=1,
            server_hostname=target.host,  # SNI and the certificate: the URL's host name
            assert_hostname=target.host,
        )
    else:
        pool = urllib3.HTTPConnectionPool(
            target.address, target.port, timeout=timeout, retries=False, maxsize=1
        )
    try:
        response = pool.urlopen(
            "POST",
            target.path,
            body=body.encode(),
            headers=headers,
            redirect=False,
            retries=False,
            preload_content=False,
            assert_same_host=False,
        )
        try:
            answer = response.read(MAX_ANSWER_BYTES, decode_content=False)
        finally:
            response.release_conn()
    except urllib3.exceptions.HTTPError as error:
        return done(None, _failure(error))
    finally:
        pool.close()
    kept = answer[:KEPT_ANSWER_CHARS].decode("utf-8", "replace")
    if 200 <= response.status < 300:
        return done(response.status, None, kept)
    return done(response.status, f"answered HTTP {response.status}", kept)


def _failure(error: Exception) -> str:
    """An attempt's failure in words (no stack, no address the platform did not give)."""
    if isinstance(error, urllib3.exceptions.SSLError):
        return "TLS failed (the certificate does not match the host, or is not trusted)"
    if isinstance(error, urllib3.exceptions.NewConnectionError):  # (a ConnectTimeoutError)
        return "could not connect"
    if isinstance(error, urllib3.exceptions.TimeoutError):
        return f"no answer within {TIMEOUT_SECONDS:g} s"
    if isinstance(error, urllib3.exceptions.ProtocolError):
        return "the connection was closed before an answer"
    return f"failed: {type(error).__name__}"
