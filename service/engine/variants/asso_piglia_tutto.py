"""Asso piglia tutto (docs/rules.md R10): the ace takes the whole table."""

from __future__ import annotations

from ..masks import ACES, FULL, VALUE, Recipe
from .scopa import Scopa

ACE = 1


class AssoPigliaTutto(Scopa):
    name = "asso_piglia_tutto"
    title = "Asso piglia tutto"
    description = (
        "Scopa where a played ace takes every card on the table. That sweep is a scopa "
        "only when a plain capture would have cleared the table too (the table held a "
        "single ace), and never with the last card of the hand; an ace played on an "
        "empty table stays there. Other cards capture as in Scopa. Played to 11."
    )

    def capture_recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        if value == ACE:
            return (FULL,) if sig else ()  # the whole table, if there is one
        return super().capture_recipes(value, sig)

    def sweep_counts(self, card: int, table: int) -> bool:
        # The ace's sweep counts only where a plain capture would also clear the table.
        return VALUE[card] != ACE or (table.bit_count() == 1 and bool(table & ACES))
