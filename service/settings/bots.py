"""Computer players: how long they may play, within a request and on a worker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .declaring import Section, setting


@dataclass(frozen=True)
class Bots(Section):
    TITLE: ClassVar[str] = "Computer players"

    bot_time_limit_seconds: float = setting(
        0.3,
        minimum=0,
        meaning="the allowance: how long computer players may play within one request "
        "(`service/play/steps.py`)",
    )
    bot_slice_seconds: float = setting(
        5.0,
        minimum=0,
        above_minimum=True,
        meaning="how long a background worker plays one game before it lets another "
        "game's job go (it stops sooner, after the move it is playing, when a turn clock's "
        "job waits; `service/play/background.py`)",
    )
    expert_budget_ms: float = setting(
        50.0,
        minimum=0,
        above_minimum=True,
        meaning="the expert computer player's thinking budget per move (hints too)",
    )
    bot_only_max_target: int = setting(
        0,
        minimum=0,
        shown_default="`0` (the variant's default target)",
        meaning="a match of computer players only may be played to this target at most; "
        "more is a 422",
    )
