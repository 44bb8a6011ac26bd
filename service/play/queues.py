"""The background jobs' queues (rq) and what a commit queues on them: the computer
players' job of a game whose computer players are to move, the clock's job of a person
on the clock (:func:`schedule`), and what else follows a commit (:func:`after_commit`).
The jobs are :mod:`service.play.background`'s, named here by their paths (rq imports
them in the work-horse): that module runs the command path (service/play/commands/),
which queues them through this one.

Keys: rq's own, under ``rq:``, on ``QUEUE_REDIS_URL`` if it is set, else on
``REDIS_URL``. rq needs one Redis (or Sentinel's master): with the games on a Redis
Cluster, the queue has a Redis of its own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
import rq
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from ..engine import Status
from . import connections
from .game import Game
from .key_feed import KeyFeed
from .ratings import Ratings
from .steps import Step
from .store import GameStore
from .webhooks import queueing as hook_queue
from .webhooks import recording as hook_recording

QUEUE_NAME = "scopa-bots"
CLOCK_QUEUE_NAME = "scopa-clock"
#: The computer players' job and the clock's (service/play/background.py).
ADVANCE = "service.play.background.advance"
TIME_OUT = "service.play.background.time_out"
#: A tournament's job: its results taken in, its next round made.
ADVANCE_TOURNAMENT = "service.play.background.advance_tournament"
#: How often a job is tried again when it fails (Redis away, a work-horse killed).
RETRIES = 5
log = logging.getLogger(__name__)


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


def job_options() -> dict[str, Any]:
    """What every job of these queues is queued with: its retries, and how long rq
    keeps it (a failed one a day; a result never)."""
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
            ADVANCE,
            game.id,
            job_id=f"{game.id}-{game.version}",
            description=f"computer players of game {game.id}, from its start",
            **job_options(),
        )
    elif game.bot_to_move:
        queue.enqueue(
            ADVANCE,
            game.id,
            job_id=f"{game.id}-{game.version}",
            description=f"computer players of game {game.id}",
            **job_options(),
        )
    elif game.deadline is not None and game.deadline != replaced:
        clock_queue_for(connection).enqueue_at(
            datetime.fromtimestamp(game.deadline, UTC),
            TIME_OUT,
            game.id,
            job_id=clock_job_id(game.id, game.deadline),
            description=f"the clock of game {game.id}",
            **job_options(),
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
    """What follows the commit of ``step``: the jobs it makes due queued
    (:func:`schedule`), a rated game that finished settled (its players' ratings
    moved, :mod:`.ratings`), a game that is over listed among its key's games that are,
    its events announced to its key's webhooks, and a tournament's game over its
    tournament's job queued; ``running`` is the background job that
    committed it, if one did; ``counted`` counts it in the transport's metrics. Its
    events go to its key's feed too, if it is kept (:mod:`.key_feed`)."""
    game = step.game
    if counted is not None:
        counted(step)
    try:
        schedule(queue, game, step.replaced_deadline, running=running)
    except connections.ERRORS as error:
        log.warning("could not queue the computer players' turn: %s", type(error).__name__)
    imported = game.version == 1 and game.status is Status.FINISHED  # (only imports are)
    try:
        if game.rated and game.status is Status.FINISHED:  # (never an imported game)
            Ratings(store).settle(game)  # before its game.over message reads the outcome
    except connections.ERRORS as error:
        log.warning("could not settle the game's ratings: %s", type(error).__name__)
    try:
        if game.owner is not None and game.status in OVER:
            assert game.created_at is not None, "a key's game is created with its time"
            created_ms = int(game.created_at * 1000)
            store.index.add(game.owner, game.id, created_ms, game.player_ids, over=True)
        if not imported:  # an imported match's events happened elsewhere: none is sent
            hook_recording.announce(queue.connection, store.redis, game)
    except connections.ERRORS as error:
        log.warning("could not index or announce the game: %s", type(error).__name__)
    try:
        if game.tournament is not None and game.status in OVER:
            queue_tournament(queue, game.tournament, game.id)
    except connections.ERRORS as error:
        log.warning("could not queue the tournament's job: %s", type(error).__name__)
    try:
        if not imported:
            KeyFeed(store).append(step)
    except connections.ERRORS as error:
        log.warning("could not add the game's events to its key's feed: %s", type(error).__name__)


def queue_tournament(queue: rq.Queue, tournament_id: str, why: str, delay: float = 0.0) -> None:
    """Queue a job of ``tournament_id`` (service/play/commands/tournaments.py): after its
    game ``why`` is over, to take its result in (and what else is due); or, ``delay``
    seconds on, to make the games of a round whose making stopped (``why``: "made")."""
    stamp = round(time.time() * 1000)
    options = {
        "job_id": f"{tournament_id}-{why}-{stamp}" if delay else f"{tournament_id}-after-{why}",
        "description": f"tournament {tournament_id} ({why})",
        **job_options(),
    }
    if delay:
        queue.enqueue_in(timedelta(seconds=delay), ADVANCE_TOURNAMENT, tournament_id, **options)
    else:
        queue.enqueue(ADVANCE_TOURNAMENT, tournament_id, **options)


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
