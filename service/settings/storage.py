"""Redis: where matches and the job queue live, and how the service waits on it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .declaring import Section, nonnegative, positive, reading, setting

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_GAME_TTL_SECONDS = 7 * 24 * 3600
#: A Redis URL the service can connect to: the reading connect() itself uses.
_REDIS_URL = reading("service.play.connections:parse")


def _max_connections(values: Mapping[str, Any]) -> int:
    # Each of a worker's threads (ordinary ones and streams' ones) keeps one, and a few
    # are lent for one command at a time.
    return int(values["GUNICORN_THREADS"]) + int(values["STREAMS_PER_WORKER"]) + 16


@dataclass(frozen=True)
class Storage(Section):
    """Redis

    Attributes:
        redis_url: where matches live: one Redis (`redis://[[user]:password@]host[:port][/db]`,
            `rediss://` for TLS, `unix:///path/redis.sock`), a Redis Cluster
            (`redis+cluster://[[user]:password@]host:port[,host:port...]`: any node that answers is
            enough to start), or the master Redis Sentinel names
            (`redis+sentinel://[[user]:password@]host:port[,host:port...]/service_name[/db]`,
            `?sentinel_password=` if the sentinels want one). `rediss+cluster://` and
            `rediss+sentinel://` speak TLS; with TLS, `?ssl_ca_certs=/path/ca.pem` (and
            `ssl_certfile`, `ssl_keyfile`, `ssl_cert_reqs`, `ssl_check_hostname`) as redis-py reads
            them (`service/play/connections.py`)
        queue_redis_url: where the background workers' job queue (rq) lives: one Redis or a Sentinel
            URL. Required when `REDIS_URL` is a cluster, which rq cannot use
        redis_min_replicas: replicas each write must reach, and each read find connected, within
            `REDIS_REPLICA_TIMEOUT_SECONDS`, else 503: with Sentinel, `1` (and two replicas), so
            that a move answered 200 survives the master's death. Not for a cluster
            (`service/play/store.py`)
        redis_replica_timeout_seconds: how long a write waits for its replicas (less than
            `REDIS_TIMEOUT_SECONDS`)
        game_ttl_seconds: a match not moved for this long is removed; every move renews it
        redis_timeout_seconds: a Redis call slower than this fails the request with 503 (a timeout
            is not retried; a broken connection is, twice)
        redis_ready_timeout_seconds: `/readyz`'s own ping gives up after this (no retry), well
            inside a load balancer's 1 s probe
        redis_max_connections: the most connections to Redis one worker opens (each of its threads
            keeps one, a stream's gives its back while it waits, and a few are lent for one command
            at a time); past it, 503
        redis_breaker_cooldown_seconds: after a Redis timeout or failed connection, each worker
            answers requests that need Redis with 503 at once (with `Retry-After`) for this long,
            then lets one through to probe (`service/api/breaker.py`)
    """

    redis_url: str = setting(
        DEFAULT_REDIS_URL,
        check=_REDIS_URL,
        secret=True,
        shown_default=f"a private Redis (`make run`); `{DEFAULT_REDIS_URL}` otherwise",
    )
    queue_redis_url: str = setting("", check=_REDIS_URL, secret=True, shown_default="`REDIS_URL`")
    redis_min_replicas: int = nonnegative(0)
    redis_replica_timeout_seconds: float = positive(0.25)
    game_ttl_seconds: int = setting(
        DEFAULT_GAME_TTL_SECONDS, minimum=1, shown_default=f"`{DEFAULT_GAME_TTL_SECONDS}` (7 days)"
    )
    redis_timeout_seconds: float = positive(0.5)
    redis_ready_timeout_seconds: float = positive(0.5)
    redis_max_connections: int = setting(
        0,
        follows=_max_connections,
        minimum=1,
        shown_default="`GUNICORN_THREADS` + `STREAMS_PER_WORKER` + 16",
    )
    redis_breaker_cooldown_seconds: float = nonnegative(2.0)
