"""The interface every computer player implements, and the levels the API offers."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine.knowledge import Knowledge


class Bot(Protocol):
    """Chooses a move for the seat whose knowledge it is given, from ``legal`` (coded
    moves, see service.engine.hand), using ``rng`` for every random choice."""

    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int: ...


@dataclass(frozen=True)
class Level:
    """A level of computer player a person can choose (``GET /v1/bot-levels``)."""

    #: The ``bot`` value of a seat.
    name: str
    #: What a frontend may call it: beginner, easy, medium or hard.
    label: str
    #: How it plays, in a sentence.
    description: str
    #: The share of the expert's thinking budget (``EXPERT_BUDGET_MS``) it searches
    #: for; 0: it does not search.
    budget_share: float
    #: Its Elo-style rating in 2-player Scopa, random at 0 (:data:`RATINGS_MEASURED`).
    rating: int
    #: Whether its search stops classic Scopa's playouts at the end of a deal
    #: (:mod:`service.bots.deal_end`). The apprentice does not: with the model its 5 ms
    #: played level with the expert's 50 ms (docs/performance.md), and a medium level
    #: as strong as the hardest is no level.
    deal_end: bool = True


#: How the ratings were measured: ``make tournament`` (tests/bench/tournament.py), every
#: level against the ones next to it and the expert against greedy, on the same seeded
#: deals with the seats swapped; the ratings are the least-squares fit of each pairing's
#: ``400 log10(score / (1 - score))``, a hand won counting 1 and a hand drawn 1/2. The
#: figures and the command are in docs/performance.md and docs/api.md.
RATINGS_MEASURED = "make tournament PAIRINGS=levels DEALS=1000 BUDGET=50 (2026-12-02)"

#: The levels of computer player, weakest first.
LEVELS = (
    Level("random", "beginner", "Plays any legal move, at random.", 0.0, 0),
    Level(
        "greedy",
        "easy",
        "Takes the best capture on the table now, else lays its least useful card; it "
        "never thinks ahead.",
        0.0,
        171,
    ),
    Level(
        "apprentice",
        "medium",
        "The expert's search over the cards it cannot see, with a tenth of its thinking "
        "time; in classic Scopa it plays every sampled hand out to its end.",
        0.1,
        227,
        deal_end=False,
    ),
    Level(
        "expert",
        "hard",
        "Searches the ways the cards it cannot see may lie (never peeking), plays every "
        "move in each and keeps the best (in Scopone, grows a tree of every seat's moves "
        "over them); exact once nothing is hidden.",
        1.0,
        273,
    ),
)
LEVELS_BY_NAME = {level.name: level for level in LEVELS}
BOT_LEVELS = tuple(LEVELS_BY_NAME)


def make_bot(level: str, budget_ms: float | None = None, **search: Any) -> Bot:
    """A computer player of ``level`` (one of BOT_LEVELS). ``budget_ms`` is the
    expert's budget (a searching level thinks for its share of it); ``search``: more
    options of :class:`~service.bots.expert.ExpertBot` for a searching level."""
    found = LEVELS_BY_NAME.get(level)
    if found is None:
        raise ValueError(f"unknown bot level {level!r}: choose one of {', '.join(BOT_LEVELS)}")
    if found.budget_share:
        from .expert import DEFAULT_BUDGET_MS, ExpertBot

        budget = DEFAULT_BUDGET_MS if budget_ms is None else budget_ms
        search.setdefault("deal_end", found.deal_end)
        return ExpertBot(budget_ms=budget * found.budget_share, **search)
    if level == "random":
        from .random_bot import RandomBot

        return RandomBot()
    from .greedy import GreedyBot

    return GreedyBot()
