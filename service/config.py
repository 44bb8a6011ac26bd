"""Settings, read from the environment (with defaults for a developer's machine)."""

from __future__ import annotations

import os
from typing import Any

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_GAME_TTL_SECONDS = 7 * 24 * 3600


def from_env(environ: dict[str, str] | None = None) -> dict[str, Any]:
    env = os.environ if environ is None else environ
    streams_per_worker = int(env.get("STREAMS_PER_WORKER", 200))
    # A worker's threads (deploy/gunicorn.conf.py): for ordinary requests, and for streams.
    threads = int(env.get("GUNICORN_THREADS", 4)) + streams_per_worker
    return {
        # Where the games are: redis://, rediss://, unix://, redis+cluster://host:port,...
        # or redis+sentinel://host:port,.../service_name (service/play/connections.py).
        "REDIS_URL": env.get("REDIS_URL", DEFAULT_REDIS_URL),
        # Where the computer players' job queue is (rq), if not on REDIS_URL: required
        # when REDIS_URL is a cluster, which rq cannot use (one Redis, or a Sentinel URL).
        "QUEUE_REDIS_URL": env.get("QUEUE_REDIS_URL", ""),
        # Replicas each write must reach, and each read find connected to the master,
        # within REDIS_REPLICA_TIMEOUT_SECONDS (less than REDIS_TIMEOUT_SECONDS), else 503
        # (service/play/store.py). With Sentinel, 1: a move answered is on a replica
        # before the master can die. 0: none asked (one Redis; not for a cluster).
        "REDIS_MIN_REPLICAS": int(env.get("REDIS_MIN_REPLICAS", 0)),
        "REDIS_REPLICA_TIMEOUT_SECONDS": float(env.get("REDIS_REPLICA_TIMEOUT_SECONDS", 0.25)),
        # Keys client-chosen values (Idempotency-Keys) are hashed with; required, the same
        # on every instance. `make run` makes one and keeps it in .run/secret.
        "SERVER_SECRET": env.get("SERVER_SECRET", ""),
        "GAME_TTL_SECONDS": int(env.get("GAME_TTL_SECONDS", DEFAULT_GAME_TTL_SECONDS)),
        # Requests larger than this are refused with 413 before they are read.
        "MAX_CONTENT_LENGTH": int(env.get("MAX_BODY_BYTES", 64 * 1024)),
        # A request must arrive whole (head and body) within this many seconds of its
        # first byte, else 408; a write to a client that does not read fails after as
        # long, and its connection closes. Read by gunicorn's worker (service/serving.py).
        "CLIENT_TIMEOUT_SECONDS": float(env.get("CLIENT_TIMEOUT_SECONDS", 10.0)),
        # The bytes of requests not yet whole a gunicorn worker holds, over all its
        # connections: the read that would pass it is answered 503 (service/serving.py).
        "REQUEST_BUFFER_BYTES": int(env.get("REQUEST_BUFFER_BYTES", 64 * 1024 * 1024)),
        # The most connections to Redis a worker's pool opens: each of the worker's threads
        # keeps one (a stream's thread gives its back while it waits), and a few are lent
        # for one command at a time; past it, a request gets a 503.
        "REDIS_MAX_CONNECTIONS": int(env.get("REDIS_MAX_CONNECTIONS", threads + 16)),
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
        # Seconds one address may cost in any minute (0: no budget): the CPU of its
        # costly requests (searches, analyses, computer players within a request) and the
        # background workers' time its games take (their computer players' moves, their
        # clocks' timeouts). Past it, its costly requests are 429, computer players reply
        # to its moves on the workers, and its games' jobs wait until it allows. See
        # service/play/budget.py and service/api/ratelimit.py.
        "COST_BUDGET_SECONDS_PER_ADDRESS": float(env.get("COST_BUDGET_SECONDS_PER_ADDRESS", 7.0)),
        # A match of computer players only may be played to this target at most, else
        # 422 (0: to its variant's default target at most).
        "BOT_ONLY_MAX_TARGET": int(env.get("BOT_ONLY_MAX_TARGET", 0)),
        # Requests allowed per minute (0: no limit); see service/api/ratelimit.py.
        "RATE_LIMIT_PER_ADDRESS": int(env.get("RATE_LIMIT_PER_ADDRESS", 1200)),
        "RATE_LIMIT_PER_TOKEN": int(env.get("RATE_LIMIT_PER_TOKEN", 300)),
        # Quotas of the expensive operations (see service/api/ratelimit.py): hints and
        # computer-player turns per minute, games created per hour.
        # They count requests; what those cost is bounded by COST_BUDGET_SECONDS_PER_ADDRESS
        # (above: half a core at most for one address, `make hostile`,
        # docs/reliability.md): a worst-case hint or analysis is some 0.3 s of CPU.
        "HINT_LIMIT_PER_ADDRESS": int(env.get("HINT_LIMIT_PER_ADDRESS", 60)),
        "HINT_LIMIT_PER_TOKEN": int(env.get("HINT_LIMIT_PER_TOKEN", 30)),
        "BOT_LIMIT_PER_ADDRESS": int(env.get("BOT_LIMIT_PER_ADDRESS", 60)),
        "BOT_LIMIT_PER_TOKEN": int(env.get("BOT_LIMIT_PER_TOKEN", 30)),
        "CREATION_LIMIT_PER_ADDRESS": int(env.get("CREATION_LIMIT_PER_ADDRESS", 600)),
        "ANALYSIS_LIMIT_PER_ADDRESS": int(env.get("ANALYSIS_LIMIT_PER_ADDRESS", 300)),
        "TRUSTED_PROXIES": int(env.get("TRUSTED_PROXIES", 0)),
        # Every per-address limit counts a client's network, not its one address: the
        # address's first ADDRESS_PREFIX_V4 bits (32: the address itself) or
        # ADDRESS_PREFIX_V6 bits (64: a subscriber's /64, any address in it the same
        # client); see service/api/addresses.py.
        "ADDRESS_PREFIX_V4": int(env.get("ADDRESS_PREFIX_V4", 32)),
        "ADDRESS_PREFIX_V6": int(env.get("ADDRESS_PREFIX_V6", 64)),
        # Origins browser apps may call the API from (comma-separated, or *; default:
        # none, no CORS): service/api/cors.py.
        "CORS_ORIGINS": env.get("CORS_ORIGINS", ""),
        # The expert computer player's search budget per move (service.bots'
        # DEFAULT_BUDGET_MS; this module imports nothing of the service).
        "EXPERT_BUDGET_MS": float(env.get("EXPERT_BUDGET_MS", 50.0)),
        # Event streams (GET /v1/games/{id}/stream; service/api/resources/games/stream.py):
        # a keep-alive comment this often while nothing happens (it also rereads the log:
        # an expired game ends its streams within this long);
        "STREAM_KEEPALIVE_SECONDS": float(env.get("STREAM_KEEPALIVE_SECONDS", 15.0)),
        # a stream ends after this long, and its client reconnects with Last-Event-ID;
        "STREAM_MAX_SECONDS": float(env.get("STREAM_MAX_SECONDS", 3600.0)),
        # streams open at once per client address (its prefix: ADDRESS_PREFIX_V4/_V6),
        # over every instance (0: no limit);
        "STREAM_LIMIT_PER_ADDRESS": int(env.get("STREAM_LIMIT_PER_ADDRESS", 20)),
        # spectators' streams (no seat token) open at once on one game, over every
        # instance (0: no limit), and each seat's own streams (a player's tabs and
        # devices): spectators filling a game never keep its players out;
        "STREAM_LIMIT_PER_GAME": int(env.get("STREAM_LIMIT_PER_GAME", 50)),
        "STREAM_LIMIT_PER_SEAT": int(env.get("STREAM_LIMIT_PER_SEAT", 4)),
        # streams one worker process holds at once (each holds one of its threads:
        # deploy/gunicorn.conf.py gives each worker this many besides GUNICORN_THREADS);
        # beyond, 503 with Retry-After.
        "STREAMS_PER_WORKER": streams_per_worker,
        # /metrics on a port of its own, served by gunicorn's master (deploy/gunicorn.conf.py),
        # and not on the service's (0: on the service's port, as the other routes).
        "METRICS_PORT": int(env.get("METRICS_PORT") or 0),
    }
