"""Rate limits and quotas, per client address and per seat token, counted in Redis so that
every worker and replica shares them (fixed windows). Over a limit, the answer is 429
with Retry-After. If Redis cannot be reached the limiter lets requests through (the
request itself then reports the outage).

Every request counts against ``requests`` (per minute). Expensive operations count
against a quota of their own besides: ``hints`` (the expert's search: hints, and the
analyses of every move, ``GET /v1/games/{id}/analysis`` and ``POST /v1/analysis``), ``bots``
(computer players' moves: ``POST /v1/games/{id}/bots`` and creations with a computer
seat), ``creations`` (per hour: a game takes memory in Redis until it expires) and
``analysis`` (the stateless legal moves and scores of a position: a 34-card table has
thousands of moves). Each limit is a setting (0 turns it off); see :data:`QUOTAS`.
Probes and the docs pages are never limited (``/openapi.json`` and, when it is served on
the service's port, ``/metrics`` are: the spec is 200 KB). An address counts as its
network prefix (service/api/addresses.py: an IPv6 /64 is one client). Behind a proxy, set
``TRUSTED_PROXIES`` to the number of proxies that add ``X-Forwarded-For``, so the
client's own address is the one counted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flask import Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from ..play import connections, hash_token
from .addresses import check_settings, client_key
from .context import store
from .problems import rate_limited
from .seats import parse_bearer

PREFIX = "scopa:rate:"
#: Paths never limited: exactly these (a path that merely starts like one is limited).
UNLIMITED_PATHS = frozenset({"/healthz", "/readyz", "/docs", "/redoc", "/play"})


@dataclass(frozen=True)
class Quota:
    """A limit on one kind of request: the settings that hold its limits per address
    and per token, and its window."""

    name: str
    per_address_setting: str
    per_token_setting: str | None
    window_seconds: int
    what: str


QUOTAS = {
    q.name: q
    for q in (
        Quota("requests", "RATE_LIMIT_PER_ADDRESS", "RATE_LIMIT_PER_TOKEN", 60, "requests"),
        Quota("hints", "HINT_LIMIT_PER_ADDRESS", "HINT_LIMIT_PER_TOKEN", 60, "hints"),
        Quota("bots", "BOT_LIMIT_PER_ADDRESS", "BOT_LIMIT_PER_TOKEN", 60, "computer-player turns"),
        Quota("creations", "CREATION_LIMIT_PER_ADDRESS", None, 3600, "games created"),
        Quota("analysis", "ANALYSIS_LIMIT_PER_ADDRESS", None, 60, "position analyses"),
    )
}
#: The quota each expensive operation counts against (by Flask endpoint), besides
#: ``requests``.
ENDPOINT_QUOTAS = {
    "hints.GameHint": "hints",
    "hints.PositionHint": "hints",
    "hints.GameAnalysis": "hints",
    "hints.PositionAnalysis": "hints",
    "games.BotTurns": "bots",
    "games.GameCollection": "creations",
    "analysis.PositionMoves": "analysis",
    "analysis.Score": "analysis",
}


#: Every setting that holds a limit (0 turns it off); the last, streams open at once
#: (service/api/resources/games/stream.py).
LIMIT_SETTINGS = tuple(
    setting
    for quota in QUOTAS.values()
    for setting in (quota.per_address_setting, quota.per_token_setting)
    if setting is not None
) + ("STREAM_LIMIT_PER_ADDRESS", "STREAM_LIMIT_PER_GAME", "STREAM_LIMIT_PER_SEAT")


def install(app: Flask) -> None:
    check_settings(app.config)
    proxies = int(app.config.get("TRUSTED_PROXIES", 0))
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]

    @app.before_request
    def _limit() -> None:
        if request.path in UNLIMITED_PATHS:
            return
        names = ["requests"]
        if request.endpoint in ENDPOINT_QUOTAS:
            names.append(ENDPOINT_QUOTAS[request.endpoint])
        charge(*names)


def charge(*names: str) -> None:
    """Count this request against the quotas ``names``; raise a 429 Problem if it goes
    over any of them."""
    checks: list[tuple[Quota, str, int]] = []
    config = current_app.config
    # The stream takes the token as access_token too (an EventSource sends no header).
    token = parse_bearer(request.headers.get("Authorization")) or request.args.get("access_token")
    for name in names:
        quota = QUOTAS[name]
        if config[quota.per_address_setting]:
            checks.append((quota, f"a:{client_key()}", config[quota.per_address_setting]))
        if token and quota.per_token_setting and config[quota.per_token_setting]:
            who = f"t:{hash_token(token)[:32]}"
            checks.append((quota, who, config[quota.per_token_setting]))
    if checks:
        _check(checks)


def _check(checks: list[tuple[Quota, str, int]]) -> None:
    now = time.time()
    try:
        # Inside the try: a thread's first client connects, and fails while Redis is
        # down or the breaker (service/api/breaker.py) refuses calls to it.
        client = store().redis
        with client.pipeline(transaction=False) as pipe:
            for quota, who, _ in checks:
                window = int(now // quota.window_seconds)
                key = f"{PREFIX}{quota.name}:{who}:{window}"
                pipe.incr(key)
                pipe.expire(key, quota.window_seconds * 2)
            counts = pipe.execute()[::2]
    except connections.ERRORS:
        return  # fail open: the limiter never takes the service down
    for (quota, who, limit), count in zip(checks, counts, strict=True):
        if count > limit:
            span = quota.window_seconds
            retry = max(1, int((int(now // span) + 1) * span - now + 0.999))
            whom = "this address" if who.startswith("a:") else "this token"
            per = "a minute" if span == 60 else "an hour"
            raise rate_limited(
                f"Too many {quota.what} from {whom}: at most {limit} {per}. "
                f"Retry after {retry} seconds.",
                retry,
            )
