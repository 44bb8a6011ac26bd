"""Scopa di quindici (docs/rules.md R10): the played card and what it takes make 15."""

from __future__ import annotations

from ..masks import Recipe, value_sets
from .base import Variant

FIFTEEN = 15


class ScopaDiQuindici(Variant):
    name = "scopa_di_quindici"
    title = "Scopa di quindici"
    description = (
        "Scopa where a card captures any set of one or more table cards that, with the "
        "card played, adds up to 15; no single card of the same value goes first. Deal, "
        "scopas and scoring as in Scopa. Played to 11."
    )

    def capture_recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        return value_sets(FIFTEEN - value, 1, sig)
