"""The interface every computer player implements, and the levels the API offers."""

from __future__ import annotations

import random
from typing import Protocol

from ..engine.knowledge import Knowledge


class Bot(Protocol):
    """Chooses a move for the seat whose knowledge it is given, from ``legal`` (coded
    moves, see service.engine.hand), using ``rng`` for every random choice."""

    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int: ...


#: The levels of computer player, weakest first.
BOT_LEVELS = ("random", "greedy", "expert")


def make_bot(level: str, budget_ms: float | None = None) -> Bot:
    """A computer player of ``level`` (one of BOT_LEVELS)."""
    if level == "random":
        from .random_bot import RandomBot

        return RandomBot()
    if level == "greedy":
        from .greedy import GreedyBot

        return GreedyBot()
    if level == "expert":
        from .expert import ExpertBot

        return ExpertBot() if budget_ms is None else ExpertBot(budget_ms=budget_ms)
    raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")
