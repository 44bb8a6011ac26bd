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

Two queues, which every worker takes jobs from in this order: the turn clocks'
(:data:`CLOCK_QUEUE_NAME`; :func:`time_out` plays the one move of a person whose time
ran out, a few milliseconds, and leaves the computer players' replies to the other
queue), then the computer players' (:data:`QUEUE_NAME`); and a computer players' job
ends its slice after the move it is playing when a clock's job is waiting. So no number
of computer players' matches delays a clock by more than one computer player's move
(after rq's scheduler, which looks for due jobs every second, queued it); a worker run
with ``--only-clock`` takes nothing else. The webhooks' queue is not theirs: webhook
workers (``--only-webhooks``) take it alone.
A clock's job has an id of its own per deadline (:func:`clock_job_id`), and the commit
that moves the turn on deletes the job of the deadline it replaced: a game has one
clock's job pending at most.

Every job charges the time it took to the game's payer (:attr:`Game.payer`), and a
job whose payer has spent its budget (``COST_BUDGET_SECONDS_PER_ADDRESS`` a minute,
:mod:`service.play.budget`) is put off, not played: queued again for when the budget
allows, so one address's matches cannot keep the workers from everybody else's.

Keys: rq's own, under ``rq:``, on ``QUEUE_REDIS_URL`` if it is set, else on
``REDIS_URL``. rq needs one Redis (or Sentinel's master): with the games on a Redis
Cluster, the queue has a Redis of its own. The budgets' keys are on the games' Redis.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
import rq
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from ..engine import Status
from . import connections
from .budget import Budget
from .game import Game
from .steps import BotSettings, Step, bots_move
from .store import GameNotFoundError, GameStore, VersionConflictError
from .webhooks import queueing as hook_queue

QUEUE_NAME = "scopa-bots"
CLOCK_QUEUE_NAME = "scopa-clock"
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
    #: Seconds of background work a payer may cost a minute (0: no budget).
    budget_seconds: float = 0.0
    #: How webhooks are delivered (service/play/webhooks/).
    webhooks: hook_queue.HookSettings = field(default_factory=hook_queue.HookSettings)


_settings: WorkerSettings | None = None
_store: tuple[int, GameStore] | None = None


def configure(settings: WorkerSettings) -> None:
    """Set what :func:`advance` works with, in the worker process (before it forks)."""
    global _settings, _store
    _settings, _store = settings, None


def worker_settings() -> WorkerSettings:
    """What :func:`configure` set; RuntimeError outside a worker."""
    if _settings is None:
        raise RuntimeError("background jobs run in a worker: python -m service.worker")
    return _settings


def game_store() -> GameStore:
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


def clock_queue_for(connection: redis.Redis) -> rq.Queue:
    """The turn clocks' queue on ``connection``."""
    return rq.Queue(CLOCK_QUEUE_NAME, connection=connection)


def queues_for(
    connection: redis.Redis, *, only_clock: bool = False, only_webhooks: bool = False
) -> list[rq.Queue]:
    """The queues a worker takes jobs from, in the order it takes them: the clocks'
    first (and only, with ``only_clock``), then the computer players'. The webhooks'
    queue is taken by webhook workers alone (``only_webhooks``): a receiver, however
    slow, never holds a clock or a computer player (service/play/webhooks/)."""
    if only_webhooks:
        return [hook_queue.queue_for(connection)]
    clocks = clock_queue_for(connection)
    if only_clock:
        return [clocks]
    return [clocks, queue_for(connection)]


def clock_job_id(game_id: str, deadline: float) -> str:
    """The id of the clock's job for ``game_id``'s turn that runs out at ``deadline``."""
    return f"{game_id}-clock-{round(deadline * 1000)}"


def _options() -> dict[str, Any]:
    return {"retry": rq.Retry(max=RETRIES), "result_ttl": 0, "failure_ttl": 24 * 3600}


def schedule(
    queue: rq.Queue, game: Game, replaced: float | None = None, *, running: str | None = None
) -> None:
    """Queue a job for ``game``'s computer players (on ``queue``), if one of them is to
    move; or, if the person to play is on a clock that the change to ``game`` started,
    one on the clocks' queue for when their time runs out (rq's scheduler, which every
    worker runs, queues it then). ``replaced`` is the deadline the change replaced: the
    job for it is deleted (unless it is the one ``running`` now), so a turn that moves
    on leaves no clock's job behind."""
    connection = queue.connection
    if replaced is not None and replaced != game.deadline:
        _delete_pending(connection, clock_job_id(game.id, replaced), running)
    if game.bot_to_move and game.start_at is not None and game.start_at > time.time():
        queue.enqueue_at(  # a match created to start later: its computer players then
            datetime.fromtimestamp(game.start_at, UTC),
            advance,
            game.id,
            job_id=f"{game.id}-{game.version}",
            description=f"computer players of game {game.id}, from its start",
            **_options(),
        )
    elif game.bot_to_move:
        queue.enqueue(
            advance,
            game.id,
            job_id=f"{game.id}-{game.version}",
            description=f"computer players of game {game.id}",
            **_options(),
        )
    elif game.deadline is not None and game.deadline != replaced:
        clock_queue_for(connection).enqueue_at(
            datetime.fromtimestamp(game.deadline, UTC),
            time_out,
            game.id,
            job_id=clock_job_id(game.id, game.deadline),
            description=f"the clock of game {game.id}",
            **_options(),
        )


#: Where a game stands once nothing more happens in it.
OVER = frozenset({Status.FINISHED, Status.ABORTED})


def after_commit(
    step: Step,
    queue: rq.Queue,
    store: GameStore,
    *,
    running: str | None = None,
    counted: Callable[[Step], None] | None = None,
) -> None:
    """What follows the commit of ``step`` (see the module's docstring); ``running`` is
    the background job that committed it, if one did; ``counted`` counts it in the
    transport's metrics."""
    game = step.game
    if counted is not None:
        counted(step)
    try:
        schedule(queue, game, step.replaced_deadline, running=running)
    except connections.ERRORS as error:
        log.warning("could not queue the computer players' turn: %s", type(error).__name__)
    imported = game.version == 1 and game.status is Status.FINISHED  # (only imports are)
    try:
        if game.owner is not None and game.status in OVER:
            assert game.created_at is not None, "a key's game is created with its time"
            created_ms = int(game.created_at * 1000)
            store.index.add(game.owner, game.id, created_ms, game.player_ids, over=True)
        if not imported:  # an imported match's events happened elsewhere: none is sent
            hook_queue.announce(queue.connection, store.redis, game)
    except connections.ERRORS as error:
        log.warning("could not index or announce the game: %s", type(error).__name__)


def forget(queue: rq.Queue, game: Game) -> None:
    """Delete the jobs still waiting for ``game``, which is being deleted: its computer
    players' (of its last version) and its clock's."""
    _delete_pending(queue.connection, f"{game.id}-{game.version}", None)
    if game.deadline is not None:
        _delete_pending(queue.connection, clock_job_id(game.id, game.deadline), None)


def _delete_pending(connection: redis.Redis, job_id: str, running: str | None) -> None:
    """Delete the job ``job_id`` if it waits (scheduled, or queued); one that runs, or
    ran, is left alone (it finds nothing due, or did)."""
    if job_id == running:
        return
    try:
        job = Job.fetch(job_id, connection=connection)
    except NoSuchJobError:
        return
    if job.get_status(refresh=False) in (JobStatus.SCHEDULED, JobStatus.QUEUED):
        job.delete()


def advance(game_id: str) -> int:
    """Play ``game_id``'s computer players, move by move, each committed on its own,
    for one slice of time (and a move for a person whose time ran out); queue a
    follow-up if they still have the turn then, or the clock's job if a person is on
    the clock. Returns the moves committed."""
    return _play(game_id, clock=False)


def time_out(game_id: str) -> int:
    """The clock's job: play the move of the person whose time ran out (if it did: a
    person who moved in time makes this job find nothing due), and queue the computer
    players' replies on their own queue, or the next person's clock. Returns the moves
    committed (0 or 1)."""
    return _play(game_id, clock=True)


def _play(game_id: str, *, clock: bool) -> int:
    assert _settings is not None
    store = game_store()
    budget = Budget(_settings.budget_seconds)
    started = time.monotonic()
    try:
        game: Game | None = store.load(game_id)  # as last committed, or None: read it again
    except GameNotFoundError:
        return 0  # expired, or never committed
    assert game is not None
    payer = game.payer
    current = rq.get_current_job()
    if not (game.deadline is not None or (game.bot_to_move and not clock)):
        return 0  # nothing is or will be due: nothing to put off either
    if wait := budget.wait(store.redis, payer, time.time()):
        if current is not None:
            _put_off(current, game, wait, clock)
        return 0
    # The clock's job plays the overdue move alone: the replies go to the other queue.
    bots = replace(_settings.bots, time_limit_seconds=0.0) if clock else _settings.bots
    clocks = None if clock or current is None else clock_queue_for(current.connection)
    # A slice ends once its payer's budget is spent, not a whole slice past it.
    left = budget.left(store.redis, payer, time.time())
    deadline = started + min(_settings.slice_seconds, left)
    committed = 0
    replaced: float | None = None  # the deadline the job's first commit replaced
    while time.monotonic() < deadline:
        if game is None:
            try:
                game = store.load(game_id)
            except GameNotFoundError:
                break  # expired meanwhile
        early = (game.deadline or 0.0) - time.time()
        if not game.bot_to_move and 0 < early <= CLOCK_SKEW_SECONDS:
            time.sleep(early)  # this machine's clock is behind the one that set it
        early = (game.start_at or 0.0) - time.time()
        if 0 < early <= CLOCK_SKEW_SECONDS:
            time.sleep(early)  # (the same, for a match created to start later)
        elif early > 0:
            break  # not started: its job is the one scheduled for its start
        overdue = game.overdue(time.time())
        if not (overdue or (game.bot_to_move and not clock)):
            break
        step = bots_move(game, bots, most=1)
        try:
            store.commit(step)
        except VersionConflictError:
            game = None  # another job or request moved first (and this one is spent)
            continue
        if not committed:
            replaced = step.replaced_deadline
        committed += 1
        game = step.game  # what was just committed: no need to read it back
        if clock or (clocks is not None and clocks.count):
            break  # a clock ran out: the worker takes its job next (a follow-up is queued)
    budget.charge(store.redis, payer, time.monotonic() - started, time.time())
    if committed and current is not None:  # else the request that made this turn did
        try:
            game = game or store.load(game_id)
        except GameNotFoundError:
            return committed
        done = Step(game, [], replaced_deadline=replaced)  # what the job's commits did
        after_commit(done, queue_for(current.connection), store, running=current.id)
    return committed


def _put_off(current: Job, game: Game, seconds: float, clock: bool) -> None:
    """Queue the job ``current`` does again in ``seconds`` (its payer's budget is spent),
    under an id of its own: a job that is running is never replaced."""
    queue = rq.Queue(current.origin, connection=current.connection)
    stamp = round(time.time() * 1000)
    queue.enqueue_in(
        timedelta(seconds=seconds),
        time_out if clock else advance,
        game.id,
        job_id=f"{game.id}-{game.version}-later-{stamp}",
        description=f"{current.description} (put off: its payer's budget is spent)",
        **_options(),
    )
    log.info("game %s put off %.0f s: its payer's budget is spent", game.id, seconds)
