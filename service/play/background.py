"""Computer players off the request path: their moves beyond a request's allowance are
played by background workers (``python -m service.worker``) through an rq queue on the
game store's Redis.

rq, because it is the well-kept Python job queue on Redis alone (no other broker to run),
its jobs are plain functions, and it retries a job whose work-horse dies. A job,
:func:`advance`, plays one game's computer players for a slice of time, committing each
move on its own (so clients watching the game view or its events see the moves as they
come), then queues a follow-up if they still have the turn. It is safe to run twice, or
to run again after a worker died mid-way: every move is a compare-and-set on the game's
version (:meth:`GameStore.commit`), so a move not committed was never played, and a move
committed is never played again: the job reads the game anew and goes on from there.

Keys: rq's own, under ``rq:`` (one queue, :data:`QUEUE_NAME`), on ``QUEUE_REDIS_URL`` if
it is set, else on ``REDIS_URL``. rq needs one Redis (or Sentinel's master): with the
games on a Redis Cluster, the queue has a Redis of its own.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
import rq

from . import connections
from .game import Game
from .steps import BotSettings, bots_move
from .store import GameNotFoundError, GameStore, VersionConflictError

QUEUE_NAME = "scopa-bots"
#: A clock's job that starts this much before the turn's deadline (the machines' clocks
#: differ) waits for it.
CLOCK_SKEW_SECONDS = 2.0
#: How often a job is tried again when it fails (Redis away, a work-horse killed).
RETRIES = 5
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process needs to play: where the games are, how long they live,
    how the computer players think, and how long one job plays before it yields."""

    redis_url: str
    ttl_seconds: int
    redis_timeout_seconds: float
    bots: BotSettings
    slice_seconds: float = 5.0
    min_replicas: int = 0
    replica_timeout_seconds: float = 0.25


_settings: WorkerSettings | None = None
_store: tuple[int, GameStore] | None = None


def configure(settings: WorkerSettings) -> None:
    """Set what :func:`advance` works with, in the worker process (before it forks)."""
    global _settings, _store
    _settings, _store = settings, None


def _game_store() -> GameStore:
    """This process's store: a work-horse forked from the worker makes its own
    connections, never the parent's."""
    global _store
    if _settings is None:
        raise RuntimeError("background jobs run in a worker: python -m service.worker")
    if _store is None or _store[0] != os.getpid():
        client = connections.connect(
            _settings.redis_url,
            socket_timeout=_settings.redis_timeout_seconds,
            socket_connect_timeout=_settings.redis_timeout_seconds,
        )
        store = GameStore(
            client,
            _settings.ttl_seconds,
            replicas=_settings.min_replicas,
            replica_timeout_seconds=_settings.replica_timeout_seconds,
        )
        _store = (os.getpid(), store)
    return _store[1]


def queue_connection(url: str, *, socket_timeout: float) -> redis.Redis:
    """A client for the job queue at ``url`` (one Redis, or a Sentinel's master), which
    does not decode responses (rq stores bytes). rq cannot use a Redis Cluster (its
    commands span many keys in many slots): RedisUrlError names the way out."""
    where = connections.parse(url)
    if where.clustered:
        raise connections.RedisUrlError(
            f"The computer players' job queue (rq) cannot use a Redis Cluster "
            f"({where.describe()}): set QUEUE_REDIS_URL to a Redis of its own "
            "(redis://... or redis+sentinel://...) for the queue; the games stay on "
            "the cluster"
        )
    client = connections.connect(
        where,
        decode_responses=False,
        socket_timeout=socket_timeout,
        socket_connect_timeout=min(socket_timeout, 5.0),
    )
    assert isinstance(client, redis.Redis)
    return client


def queue_for(connection: redis.Redis) -> rq.Queue:
    """The computer players' queue on ``connection`` (which must not decode responses:
    rq stores bytes)."""
    return rq.Queue(QUEUE_NAME, connection=connection)


def schedule(queue: rq.Queue, game: Game) -> None:
    """Queue a job for ``game``'s computer players, if one of them is to move; or, if
    the person to play is on the clock, one for when their time runs out (rq's
    scheduler, which every worker runs, queues it then). A person who moves first
    makes that job find nothing overdue."""
    options: dict[str, Any] = {
        "retry": rq.Retry(max=RETRIES),
        "result_ttl": 0,
        "failure_ttl": 24 * 3600,
    }
    if game.bot_to_move:
        queue.enqueue(
            advance,
            game.id,
            job_id=f"{game.id}-{game.version}",
            description=f"computer players of game {game.id}",
            **options,
        )
    elif game.deadline is not None:
        queue.enqueue_at(
            datetime.fromtimestamp(game.deadline, UTC),
            advance,
            game.id,
            job_id=f"{game.id}-{game.version}-clock",
            description=f"the clock of game {game.id}",
            **options,
        )


def advance(game_id: str) -> int:
    """Play ``game_id``'s computer players, move by move, each committed on its own,
    for one slice of time (and a move for a person whose time ran out); queue a
    follow-up if they still have the turn then, or the clock's job if a person is on
    the clock. Returns the moves committed."""
    assert _settings is not None
    store = _game_store()
    deadline = time.monotonic() + _settings.slice_seconds
    committed = 0
    game: Game | None = None  # as last committed, or None: read it (again)
    while time.monotonic() < deadline:
        if game is None:
            try:
                game = store.load(game_id)
            except GameNotFoundError:
                return committed  # expired, or never committed
        early = (game.deadline or 0.0) - time.time()
        if not game.bot_to_move and 0 < early <= CLOCK_SKEW_SECONDS:
            time.sleep(early)  # this machine's clock is behind the one that set it
        if not (game.bot_to_move or game.overdue(time.time())):
            break
        step = bots_move(game, _settings.bots, most=1)
        try:
            store.commit(step)
        except VersionConflictError:
            game = None  # another job or request moved first (and this one is spent)
            continue
        committed += 1
        game = step.game  # what was just committed: no need to read it back
    if game is None:
        game = store.load(game_id)
    current = rq.get_current_job()
    if committed and current is not None:  # else the request that made this turn did
        schedule(queue_for(current.connection), game)
    return committed
