"""Requests and clients: the server secret, service keys, bodies, timeouts, proxies,
browsers' origins and compression."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .declaring import Section, nonnegative, positive, setting

#: The shortest SERVER_SECRET accepted (a token_urlsafe(32) is 43 characters).
MIN_SECRET_LENGTH = 32
#: A service key's name: what its games, quotas and logs are known by.
SERVICE_KEY_NAME = re.compile(r"[a-z0-9_-]{1,32}")


def parse_service_keys(value: str) -> dict[str, str]:
    """``SERVICE_KEYS``, ``name=secret,name=secret``, as {name: secret}; ValueError (whose
    message never holds a secret) if a name is not 1 to 32 of ``a-z 0-9 _ -``, is given
    twice, or its secret is shorter than the shortest server secret, or two keys share
    one secret. Spaces around the parts are ignored; an empty value: no keys."""
    keys: dict[str, str] = {}
    for index, part in enumerate(value.split(","), 1):
        if not part.strip():
            continue
        name, equals, secret = (piece.strip() for piece in part.partition("="))
        if not equals or not SERVICE_KEY_NAME.fullmatch(name):
            raise ValueError(
                f"key {index} must be written name=secret, its name 1 to 32 of a-z, 0-9, _ and -"
            )
        if name in keys:
            raise ValueError(f"the key {name} is given twice")
        if len(secret) < MIN_SECRET_LENGTH or len(secret.split()) != 1:
            raise ValueError(
                f"the key {name}'s secret must be {MIN_SECRET_LENGTH} or more characters "
                "without spaces or commas (python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))' makes one)"
            )
        if secret in keys.values():
            raise ValueError(f"the key {name} has another key's secret")
        keys[name] = secret
    return keys


@dataclass(frozen=True)
class Clients(Section):
    """Requests and clients

    Attributes:
        server_secret: 32+ random characters, the same on every instance and worker: client keys
            (Idempotency-Keys) are hashed with it, join codes, rematch tokens and the seat tokens
            of tournaments' games made with it (a new secret voids the codes of games still
            waiting, rematch tokens not yet asked for, and the tokens of tournament games under
            way)
        service_keys: the service keys platforms call the API with (`Authorization: Bearer
            <secret>`), `name=secret,name=secret`: each name 1 to 32 of `a-z 0-9 _ -`, each secret
            32+ random characters. A key creates games, acts for every seat of its own games and
            lists them; its requests count against its own quotas, not its address's
            (docs/platforms.md). Kept as keyed hashes, never logged
        max_body_bytes: larger request bodies get 413, before they are read
        client_timeout_seconds: a request must arrive whole (head and body) within this long of its
            first byte, else 408 and the connection closes; a client that does not read its answer
            for this long is let go too. A connection that sends nothing is closed after 5 s (read
            by gunicorn's worker: `service/serving.py`)
        answer_timeout_seconds: an answer must be sent whole within this long of its start, however
            slowly its client reads, else the connection is closed and the thread writing it freed;
            event streams (`text/event-stream`) are not cut (`STREAM_MAX_SECONDS`). The longest
            answer, an export of 1,000 matches (about 23 MB), needs about 3 Mbit/s to arrive within
            60 s (`service/serving.py`)
        request_buffer_bytes: the bytes of requests not yet whole one gunicorn worker holds, over
            all its connections (each request is read whole before a thread serves it; a head is at
            most 32 KiB, else 431); the read that would pass it is answered 503
        trusted_proxies: proxies in front that set `X-Forwarded-For` (to count the client's address)
        cors_origins: origins browser apps may call the API from, comma-separated
            (`https://app.example`), or `*`; an origin not listed gets no CORS header
            (`service/api/cors.py`)
        compression: compress answers of 500 bytes or more (JSON, the /play page's files) with
            brotli or gzip for clients that ask (`Accept-Encoding`); never event streams
            (`service/api/compression.py`). `off` when a proxy in front compresses
    """

    server_secret: str = setting(
        "",
        secret=True,
        shown_default="none: required (`make run` makes one in `.run/secret`)",
    )
    service_keys: str = setting("", secret=True, check=parse_service_keys)
    max_body_bytes: int = setting(64 * 1024, minimum=1, key="MAX_CONTENT_LENGTH")
    client_timeout_seconds: float = positive(10.0)
    answer_timeout_seconds: float = positive(60.0)
    request_buffer_bytes: int = setting(
        64 * 1024 * 1024, minimum=1, shown_default="`67108864` (64 MiB)"
    )
    trusted_proxies: int = nonnegative(0)
    cors_origins: str = setting("")
    compression: str = setting("on", choices=("on", "off"))
