"""Settings, read from the environment (with defaults for a developer's machine)."""

from __future__ import annotations

import os
from typing import Any

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_GAME_TTL_SECONDS = 7 * 24 * 3600


def from_env(environ: dict[str, str] | None = None) -> dict[str, Any]:
    env = os.environ if environ is None else environ
    return {
        "REDIS_URL": env.get("REDIS_URL", DEFAULT_REDIS_URL),
        # Keys client-chosen values (Idempotency-Keys) are hashed with; required, the same
        # on every instance. `make run` makes one and keeps it in .run/secret.
        "SERVER_SECRET": env.get("SERVER_SECRET", ""),
        "GAME_TTL_SECONDS": int(env.get("GAME_TTL_SECONDS", DEFAULT_GAME_TTL_SECONDS)),
        # Requests larger than this are refused with 413 before they are read.
        "MAX_CONTENT_LENGTH": int(env.get("MAX_BODY_BYTES", 64 * 1024)),
        # Redis calls give up after this many seconds, and the request gets a 503. A call
        # that timed out is not retried (one that met a broken connection is, twice).
        "REDIS_TIMEOUT_SECONDS": float(env.get("REDIS_TIMEOUT_SECONDS", 0.5)),
        # /readyz's own PING gives up after this many seconds (no retry), well inside a
        # load balancer's 1 s probe.
        "REDIS_READY_TIMEOUT_SECONDS": float(env.get("REDIS_READY_TIMEOUT_SECONDS", 0.5)),
        # After a Redis timeout or failed connection, each worker answers requests that
        # need Redis 503 at once for this long, then lets one through to try (see
        # service/api/breaker.py).
        "REDIS_BREAKER_COOLDOWN_SECONDS": float(env.get("REDIS_BREAKER_COOLDOWN_SECONDS", 2.0)),
        # Computer players stop moving after this long in one request (see service/play/steps.py).
        "BOT_TIME_LIMIT_SECONDS": float(env.get("BOT_TIME_LIMIT_SECONDS", 0.3)),
        # A background worker's job plays one game's computer players this long, then
        # queues a follow-up (service/play/background.py).
        "BOT_SLICE_SECONDS": float(env.get("BOT_SLICE_SECONDS", 5.0)),
        # Requests allowed per minute (0: no limit); see service/api/ratelimit.py.
        "RATE_LIMIT_PER_ADDRESS": int(env.get("RATE_LIMIT_PER_ADDRESS", 1200)),
        "RATE_LIMIT_PER_TOKEN": int(env.get("RATE_LIMIT_PER_TOKEN", 300)),
        # Quotas of the expensive operations (see service/api/ratelimit.py): hints and
        # computer-player turns per minute, games created per hour.
        "HINT_LIMIT_PER_ADDRESS": int(env.get("HINT_LIMIT_PER_ADDRESS", 60)),
        "HINT_LIMIT_PER_TOKEN": int(env.get("HINT_LIMIT_PER_TOKEN", 30)),
        "BOT_LIMIT_PER_ADDRESS": int(env.get("BOT_LIMIT_PER_ADDRESS", 60)),
        "BOT_LIMIT_PER_TOKEN": int(env.get("BOT_LIMIT_PER_TOKEN", 30)),
        "CREATION_LIMIT_PER_ADDRESS": int(env.get("CREATION_LIMIT_PER_ADDRESS", 600)),
        "ANALYSIS_LIMIT_PER_ADDRESS": int(env.get("ANALYSIS_LIMIT_PER_ADDRESS", 300)),
        "TRUSTED_PROXIES": int(env.get("TRUSTED_PROXIES", 0)),
        # Origins browser apps may call the API from (comma-separated, or *; default:
        # none, no CORS): service/api/cors.py.
        "CORS_ORIGINS": env.get("CORS_ORIGINS", ""),
        # The expert computer player's search budget per move.
        "EXPERT_BUDGET_MS": float(env.get("EXPERT_BUDGET_MS", 50.0)),
    }
