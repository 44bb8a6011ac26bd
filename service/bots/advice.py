"""The expert's advice for a seat (what hints answer): its move and the value it expects
from it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import Knowledge, Move
from ..engine.hand import Hand
from ..engine.match import moves_of
from .expert import ExpertBot


@dataclass(frozen=True)
class Advice:
    move: Move
    #: The expected hand point margin for the seat's side; None with a single legal move.
    value: float | None


def advise(knowledge: Knowledge, rng: random.Random, budget_ms: float) -> Advice:
    """The move the expert would make for ``knowledge``'s seat, which is to play."""
    legal = Hand.from_knowledge(knowledge).legal_codes()
    bot = ExpertBot(budget_ms=budget_ms)
    code = bot.choose(knowledge, legal, rng)
    return Advice(moves_of([code])[0], bot.last_value)
