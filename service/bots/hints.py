"""The expert's advice for a seat: its move and the value it expects from it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine.views import Knowledge
from .expert import ExpertBot


@dataclass(frozen=True)
class Hint:
    code: int
    #: The expected hand point margin for the seat's side; None with a single legal move.
    value: float | None


def best_move(knowledge: Knowledge, legal: list[int], rng: random.Random, budget_ms: float) -> Hint:
    bot = ExpertBot(budget_ms=budget_ms)
    code = bot.choose(knowledge, legal, rng)
    return Hint(code, bot.last_value)
