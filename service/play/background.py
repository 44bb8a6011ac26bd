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
A clock's job has an id of its own per deadline (:func:`.queues.clock_job_id`), and the commit
that moves the turn on deletes the job of the deadline it replaced: a game has one
clock's job pending at most.

Every job charges the time it took to the game's payer (:attr:`Game.payer`), and a
job whose payer has spent its budget (``COST_BUDGET_SECONDS_PER_ADDRESS`` a minute,
:mod:`service.play.budget`) is put off, not played: queued again for when the budget
allows, so one address's matches cannot keep the workers from everybody else's.

A job changes its game through the command path, as requests do
(service/play/commands/): each move is one run of its command (``playDueMove`` or
``playOverdueMove``, declared with their policies in the catalogue), the worker its own
caller (:class:`WorkerCaller`: a computer player, or the clock, acting for the seat to
play). What follows its commits is done once, after its slice.

The queues, and what a commit queues on them, are :mod:`service.play.queues`'s; the
worker's settings and store,
:mod:`service.play.workers`'. Keys: rq's own (service/play/queues.py); the budgets' are on
the games' Redis.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import rq
from rq.job import Job

from .budget import Budget, Client
from .commands import COMMANDS, Command, Context, run
from .game import Game
from .queues import (
    after_commit,
    clock_queue_for,
    job_options,
    queue_for,
)
from .steps import Step
from .store import GameNotFoundError, GameStore, VersionConflictError
from .tournaments.store import TournamentNotFoundError
from .workers import WorkerSettings, game_store, worker_settings

__all__ = ["advance", "advance_tournament", "time_out"]
log = logging.getLogger(__name__)


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


def advance_tournament(tournament_id: str) -> int:
    """A tournament's job, queued when one of its games is over: the command
    ``advanceTournament`` (the results in; a round over, the next one paired and its
    games made), the worker its caller, its key its payer. Returns the games made."""
    settings = worker_settings()
    store = game_store()
    current = rq.get_current_job()
    assert current is not None, "a tournament's job runs on a worker"
    done: list[Step] = []
    ctx = _context(settings, store, current, None, done.append)
    ctx = replace(ctx, secret=settings.secret)  # (its games' seats' tokens)
    try:
        run(COMMANDS["advanceTournament"], ctx, None, tournament_id)
    except TournamentNotFoundError:
        return 0  # expired
    queue = queue_for(current.connection)
    for step in done:
        after_commit(step, queue, store, running=current.id)
    return len(done)


def _play(game_id: str, *, clock: bool) -> int:
    settings = worker_settings()
    store = game_store()
    budget = Budget(settings.budget_seconds)
    started = time.monotonic()
    try:
        game = store.load(game_id)
    except GameNotFoundError:
        return 0  # expired, or never committed
    if not (game.deadline is not None or (game.bot_to_move and not clock)):
        return 0  # nothing is or will be due: nothing to put off either
    current = rq.get_current_job()
    assert current is not None, "a computer players' or clock's job runs on a worker"
    if wait := budget.wait(store.redis, game.payer, time.time()):
        _put_off(current, game, wait, clock)
        return 0
    # A slice ends once its payer's budget is spent, not a whole slice past it.
    left = budget.left(store.redis, game.payer, time.time())
    done: list[Step] = []  # the slice's commits, in order (what follows them waits)
    latest = _moves(
        COMMANDS["playOverdueMove" if clock else "playDueMove"],
        _context(settings, store, current, game.payer, done.append),
        game,
        done,
        until=started + min(settings.slice_seconds, left),
        # The clock's job plays the overdue move alone; the computer players' job ends
        # its slice when a clock's job waits (the worker takes it next).
        clocks=None if clock else clock_queue_for(current.connection),
    )
    budget.charge(store.redis, game.payer, time.monotonic() - started, time.time())
    if done:
        _followed(done, latest, store, current)
    return len(done)


def _moves(
    command: Command,
    ctx: Context,
    game: Game,
    done: list[Step],
    *,
    until: float,
    clocks: rq.Queue | None,
) -> Game | None:
    """Run ``command`` on ``game`` move by move, each committed on its own and gathered
    in ``done`` (by the context's ``after_commit``), until nothing is due, ``until`` (a
    monotonic time), or a clock's job waits on ``clocks`` (None: after one move). The
    game as last committed (None: read it again)."""
    latest: Game | None = game
    while time.monotonic() < until:
        before = len(done)
        try:
            run(command, ctx, game.id, None, loaded=latest)
        except VersionConflictError:
            latest = None  # another job or request moved first (and this one is spent)
            continue
        except GameNotFoundError:
            return None  # expired meanwhile
        if len(done) == before:
            break  # nothing due (or not started: its job is the one for its start)
        latest = done[-1].game  # what was just committed: no need to read it back
        if clocks is None or clocks.count:
            break  # a clock ran out: the worker takes its job next (a follow-up is queued)
    return latest


def _followed(done: list[Step], latest: Game | None, store: GameStore, current: Job) -> None:
    """What follows a job's commits, once: the game as it is now, with the deadline its
    first commit replaced."""
    try:
        game = latest or store.load(done[0].game.id)
    except GameNotFoundError:
        return
    step = Step(game, [], replaced_deadline=done[0].replaced_deadline)
    after_commit(step, queue_for(current.connection), store, running=current.id)


def _context(
    settings: WorkerSettings,
    store: GameStore,
    current: Job,
    payer: str | None,
    gathered: Callable[[Step], None],
) -> Context:
    """What a job's commands run with: the worker as their caller, its game's payer's
    budget as their gate; each commit ``gathered`` (what follows is done once, after
    the slice)."""
    return Context(
        store=store,
        caller=WorkerCaller(payer),
        gate=WorkerGate(Budget(settings.budget_seconds), store.redis, payer),
        secret=b"",  # (a worker's commands make no join code, token nor kept answer)
        bots=settings.bots,
        bot_only_max_target=0,
        after_commit=gathered,
        ttl_seconds=settings.ttl_seconds,
        queue=queue_for(current.connection),
        join_answer=_no_join_answer,
        relay=settings.relay,
    )


def _no_join_answer(game_id: str, code: str) -> dict[str, Any]:
    raise RuntimeError("a background job makes no join code")


@dataclass(frozen=True)
class WorkerCaller:
    """A background worker as a command's caller: a computer player, or the clock,
    acting for the seat to play, on behalf of the game's payer. It has no service key,
    no token, no Idempotency-Key and no If-Match."""

    payer: str | None

    @property
    def key(self) -> str | None:
        return None

    @property
    def identity(self) -> str:
        return self.payer or "worker"

    def require_key(self) -> str:
        raise PermissionError("a background worker has no service key")

    def require_worker(self) -> None:
        return None

    def seat(self, game: Game, *, required: bool) -> int | None:
        """The seat to play, which the worker moves for (None: no match is being played)."""
        return None if game.match is None else game.match.turn

    def idempotency_key(self, shortest: int) -> str | None:
        return None

    @property
    def operation(self) -> str:
        return "background job"

    def refuse_key_fields(self, fields: Sequence[str]) -> None:
        raise PermissionError(f"a background worker sends no {', '.join(fields)}")

    def if_match(self) -> Collection[int] | None:
        return None


@dataclass(frozen=True)
class WorkerGate:
    """A background worker's gate: no request quota (those count requests); the cost
    budget is its game's payer's (service/play/budget.py), which the job asks before
    its slice (put off while it is spent) and charges with the slice's time after it."""

    budget: Budget
    client: Client
    payer: str | None

    def charge(self, *quotas: str) -> None:
        return None

    def afford(self, seconds: float) -> None:
        return None

    def allows(self, quota: str, units: int) -> bool:
        return True

    def affordable(self) -> bool:
        return self.budget.left(self.client, self.payer, time.time()) > 0


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
        **job_options(),
    )
    log.info("game %s put off %.0f s: its payer's budget is spent", game.id, seconds)
