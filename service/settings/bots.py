"""Computer players: how long they may play, within a request and on a worker."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, nonnegative, positive


@dataclass(frozen=True)
class Bots(Section):
    """Computer players

    Attributes:
        bot_time_limit_seconds: the allowance: how long computer players may play within one request
            (`service/play/steps.py`)
        bot_slice_seconds: how long a background worker plays one game before it lets another game's
            job go (it stops sooner, after the move it is playing, when a turn clock's job waits;
            `service/play/background.py`)
        expert_budget_ms: the expert computer player's thinking budget per move (hints too)
        bot_only_max_target: a match of computer players only may be played to this target at most;
            more is a 422
    """

    bot_time_limit_seconds: float = nonnegative(0.3)
    bot_slice_seconds: float = positive(5.0)
    expert_budget_ms: float = positive(50.0)
    bot_only_max_target: int = nonnegative(0, shown_default="`0` (the variant's default target)")
