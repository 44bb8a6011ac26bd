"""Rate limits per client address and per seat token, counted in Redis so that every
worker and replica shares them: a fixed window of one minute each. Over a limit, the
answer is 429 with Retry-After. Probes, metrics and the docs are never limited; if Redis
cannot be reached the limiter lets requests through (the request itself then reports
the outage).

``RATE_LIMIT_PER_ADDRESS`` and ``RATE_LIMIT_PER_TOKEN`` set the requests allowed per
minute (0 turns a limit off). Behind a proxy, set ``TRUSTED_PROXIES`` to the number of
proxies that add ``X-Forwarded-For``, so the client's own address is the one counted.
"""

from __future__ import annotations

import time

import redis
from flask import Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

from ..play import hash_token
from .problems import Problem, ProblemType

WINDOW_SECONDS = 60
PREFIX = "scopa:rate:"
UNLIMITED_PATHS = ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs", "/redoc")


def install(app: Flask) -> None:
    proxies = int(app.config.get("TRUSTED_PROXIES", 0))
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]

    @app.before_request
    def _limit() -> None:
        if request.path.startswith(UNLIMITED_PATHS):
            return
        checks = []
        per_address = current_app.config["RATE_LIMIT_PER_ADDRESS"]
        if per_address:
            checks.append((f"a:{request.remote_addr}", per_address))
        per_token = current_app.config["RATE_LIMIT_PER_TOKEN"]
        token = request.headers.get("Authorization", "")
        if per_token and token:
            checks.append((f"t:{hash_token(token)[:32]}", per_token))
        if checks:
            _check(checks)


def _check(checks: list[tuple[str, int]]) -> None:
    now = time.time()
    window = int(now // WINDOW_SECONDS)
    client: redis.Redis = current_app.extensions["scopa_store"].redis
    try:
        with client.pipeline(transaction=False) as pipe:
            for name, _ in checks:
                key = f"{PREFIX}{name}:{window}"
                pipe.incr(key)
                pipe.expire(key, WINDOW_SECONDS * 2)
            counts = pipe.execute()[::2]
    except redis.exceptions.RedisError:
        return  # fail open: the limiter never takes the service down
    for (name, limit), count in zip(checks, counts, strict=True):
        if count > limit:
            retry = max(1, int((window + 1) * WINDOW_SECONDS - now + 0.999))
            what = "this address" if name.startswith("a:") else "this token"
            raise Problem(
                429,
                ProblemType.RATE_LIMITED,
                f"Too many requests from {what}: at most {limit} a minute. "
                f"Retry after {retry} seconds.",
                headers={"Retry-After": str(retry)},
            )
