"""Scopone (docs/rules.md R10): four players in partnerships, the whole deck dealt at once."""

from __future__ import annotations

from .base import DealPlan
from .scopa import Scopa


class Scopone(Scopa):
    name = "scopone"
    title = "Scopone"
    description = (
        "Scopa for four players in two partnerships (seats 0+2 against 1+3). Nine cards "
        "to each seat and four face up on the table in one deal (three or four kings on "
        "the table: the hand is dealt again), and no further deals. Captures and scoring "
        "as in Scopa. Played to 11."
    )
    player_counts = (4,)
    deal_order = (
        "each seat in playing order, starting with the seat after the dealer, gets its 9 "
        "cards at once, then the table gets the last 4"
    )

    def deal_plan(self, players: int) -> DealPlan:
        return DealPlan(hand_size=9, table_size=4, deals_again=False)
