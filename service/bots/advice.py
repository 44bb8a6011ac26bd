"""The expert's advice for a seat (what hints answer): its move and the value it expects
from it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..engine import Knowledge, Move
from ..engine.hand import Hand
from ..engine.legal import moves_of
from .expert import DEADLINE_SECONDS, ExpertBot


@dataclass(frozen=True)
class Advice:
    move: Move
    #: The expected hand point margin for the seat's side; None with a single legal move.
    value: float | None
    #: The wall clock stopped the search (its soft cap or the deadline): the move is the
    #: best it found in time.
    cut: bool = False


def advise(
    knowledge: Knowledge,
    rng: random.Random,
    budget_ms: float,
    deadline_seconds: float = DEADLINE_SECONDS,
) -> Advice:
    """The move the expert would make for ``knowledge``'s seat, which is to play, with
    ``budget_ms`` to spend and ``deadline_seconds`` at most on the search, whatever the
    position (anyone may ask for a hint on any position)."""
    legal = Hand.from_knowledge(knowledge).legal_codes()
    bot = ExpertBot(budget_ms=budget_ms, deadline_seconds=deadline_seconds)
    code = bot.choose(knowledge, legal, rng)
    return Advice(moves_of([code])[0], bot.last_value, bot.last_cut)
