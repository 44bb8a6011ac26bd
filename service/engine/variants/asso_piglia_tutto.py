"""Asso piglia tutto (RULES.md R10): the ace takes the whole table."""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import Card
from ..moves import Move
from ..rules import Rules
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

    def capture_options(self, card: Card, table: Sequence[Card]) -> list[tuple[Card, ...]]:
        if card.value == ACE:
            return [tuple(sorted(table, key=lambda c: c.sort_key))] if table else []
        return super().capture_options(card, table)

    def is_scopa(
        self,
        move: Move,
        table: Sequence[Card],
        last_card_of_hand: bool,
        by_dealer: bool,
        rules: Rules,
    ) -> bool:
        if move.card.value == ACE and not (len(table) == 1 and table[0].value == ACE):
            return False
        return super().is_scopa(move, table, last_card_of_hand, by_dealer, rules)
