"""What one seat knows of a match: the only input of the computer players.

:func:`service.engine.views.knowledge_of` builds it from a match (views.py decides what
each viewer sees); :meth:`service.engine.hand.Hand.from_knowledge` turns it back into a
position to play on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .masks import FULL
from .rules import Rules
from .variants import Variant

__all__ = ["Knowledge"]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of a match at its turn: its hand, the table, every card seen
    played (the piles), the counts of cards in the other hands and the stock, and the
    public score. The computer players decide from this alone, never from the state.
    Card sets are masks (see masks.py)."""

    variant: Variant
    rules: Rules
    seat: int
    players: int
    teams: tuple[int, ...]
    dealer: int
    hand: int
    table: int
    piles: tuple[int, ...]
    scopas: tuple[int, ...]
    last_capturer: int | None
    hand_counts: tuple[int, ...]
    stock_count: int
    hand_size: int
    scores: tuple[int, ...]
    target: int
    #: By seat, the cards it declared and has not played, face up (Cirulla, C3.4);
    #: empty where nothing is declared.
    exposed: tuple[int, ...] = ()
    #: The value Cirulla's matta keeps, public since it was declared (option
    #: ``matta_keeps_value``, C5.2); None while it keeps none.
    matta_as: int | None = None

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in the other hands or the stock (declared
        cards are seen, and known to be in their seat's hand)."""
        seen = self.hand | self.table
        for pile in self.piles:
            seen |= pile
        for cards in self.exposed:
            seen |= cards
        return FULL ^ seen
