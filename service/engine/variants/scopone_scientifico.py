"""Scopone scientifico (docs/rules.md R10): ten cards each, nothing on the table."""

from __future__ import annotations

from ..rules import Rules
from .base import DealPlan
from .scopa import Scopa


class ScoponeScientifico(Scopa):
    name = "scopone_scientifico"
    title = "Scopone scientifico"
    description = (
        "Scopone with the whole deck in the players' hands: ten cards to each of four "
        "players in two partnerships, nothing on the table. Captures and scoring as in "
        "Scopa. Option `dealer_last_sweep`: the dealer's side scores a scopa when the "
        "dealer's last card takes every card left on the table. Played to 11."
    )
    player_counts = (4,)
    extra_options = ("dealer_last_sweep",)
    deal_order = (
        "each seat in playing order, starting with the seat after the dealer, gets its 10 "
        "cards at once; nothing goes to the table"
    )

    def deal_plan(self, players: int) -> DealPlan:
        return DealPlan(hand_size=10, table_size=0, deals_again=False)

    def needs_redeal(self, table: int) -> bool:
        return False  # no table cards, no kings to show

    def last_sweep_counts(self, by_dealer: bool, rules: Rules) -> bool:
        return by_dealer and rules.dealer_last_sweep
