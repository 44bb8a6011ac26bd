"""Classic Scopa (RULES.md R1-R9)."""

from __future__ import annotations

from ..masks import BIT, VALUE_MASK, indices, subsets_by_sum
from .base import Variant


class Scopa(Variant):
    name = "scopa"
    title = "Scopa"
    description = (
        "Classic Scopa for 2, 3, 4 (two partnerships) or 6 (two teams of three) players. "
        "Three cards to each seat and four face up on the table, then three more each "
        "until the stock is gone. A card takes a table card of its value, or else a set of "
        "cards adding up to its value; clearing the table scores a scopa. Played to 11."
    )
    deal_order = (
        "each seat in playing order, starting with the seat after the dealer, gets its 3 "
        "cards at once, then the table gets 4; later deals of the hand continue from the "
        "list the same way"
    )

    def find_captures(self, value: int, table: int) -> tuple[int, ...]:
        # R4.1: a single card of the same value has priority over any sum.
        matches = table & VALUE_MASK[value]
        if matches:
            return tuple(BIT[i] for i in indices(matches))
        # R4.2: otherwise any set of two or more cards adding up to the card's value.
        return tuple(m for m in subsets_by_sum(table)[value] if m.bit_count() >= 2)
