"""Classic Scopa (docs/rules.md R1-R9)."""

from __future__ import annotations

from ..masks import Recipe, single_matches, value_sets
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

    def capture_recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        # R4.1: a single card of the same value has priority over any sum.
        # R4.2: otherwise any set of two or more cards adding up to the card's value.
        return single_matches(value, sig) or value_sets(value, 2, sig)
