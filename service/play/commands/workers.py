"""The background workers' commands (service/play/background.py): a job plays a game's
moves one command at a time, each the one move due then: a computer player's, or the
move of a person whose time ran out. Their policies are in :mod:`.catalogue`."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from .. import steps
from ..game import Game
from .context import Context, Outcome

#: A move that falls due this much after now (the machines' clocks differ: the one that
#: set a deadline may be ahead of this one) is waited for.
CLOCK_SKEW_SECONDS = 2.0


def play_due_move(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """The computer players' job's move: a computer player's (or an overdue one's);
    nothing (204) when none is due."""
    assert game is not None
    return _due_move(ctx, game, seat, clock=False)


def play_overdue_move(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """The clock's job's move: the one of the person whose time ran out, alone (the
    computer players' replies are left to their own job); nothing (204) if they moved
    in time."""
    assert game is not None
    return _due_move(ctx, game, seat, clock=True)


def _due_move(ctx: Context, game: Game, seat: int | None, *, clock: bool) -> Outcome:
    early = (game.deadline or 0.0) - time.time()
    if not game.bot_to_move and 0 < early <= CLOCK_SKEW_SECONDS:
        time.sleep(early)  # this machine's clock is behind the one that set it
    early = (game.start_at or 0.0) - time.time()
    if 0 < early <= CLOCK_SKEW_SECONDS:
        time.sleep(early)  # (the same, for a match created to start later)
    elif early > 0:
        return Outcome(status=204)  # not started: its job is the one scheduled for its start
    if not (game.overdue(time.time()) or (game.bot_to_move and not clock)):
        return Outcome(status=204)
    bots = replace(ctx.bots, time_limit_seconds=0.0) if clock else ctx.bots
    return Outcome([steps.bots_move(game, bots, most=1)], seat=seat)
