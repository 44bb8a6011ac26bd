"""Escoba (docs/rules.md R10): the Spanish sister game, captures to 15, played to 21."""

from __future__ import annotations

from ..masks import value_sum
from .scopa_di_quindici import FIFTEEN, ScopaDiQuindici


class Escoba(ScopaDiQuindici):
    name = "escoba"
    title = "Escoba"
    description = (
        "The Spanish sister game: a card captures any set of table cards that, with it, "
        "adds up to 15, and clearing the table scores an escoba. Dealer's bonus: if the "
        "four cards dealt to the table add up to 15, the dealer takes them and scores one "
        "escoba; if they add up to 30, two. No redeal for kings on the table. Scoring as "
        "in Scopa. Played to 21."
    )
    default_target = 21

    def needs_redeal(self, table: int) -> bool:
        return False  # the Spanish game scores the table instead (dealer_bonus)

    def dealer_bonus(self, table: int) -> int:
        total = value_sum(table)
        if table and total % FIFTEEN == 0:
            return total // FIFTEEN
        return 0
