"""What a variant of the game decides: the deal, the captures, the sweeps (RULES.md R10).

The match engine asks its variant these questions and nothing else, so that a new
variant is one new class beside :class:`~service.engine.variants.scopa.Scopa`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..cards import KING, Card


@dataclass(frozen=True, slots=True)
class DealPlan:
    """How a hand is dealt: cards to each seat, cards to the table, and whether the
    stock is dealt on in rounds of ``hand_size`` when every hand is empty."""

    hand_size: int
    table_size: int
    deals_again: bool


def subsets_with_sum(
    cards: Sequence[Card], total: int, min_size: int = 1
) -> list[tuple[Card, ...]]:
    """Every set of ``cards`` (by position, so equal values are distinct sets) whose
    values add up to ``total``, with at least ``min_size`` cards. Values are positive,
    so the search prunes as soon as a partial sum passes the total."""
    ordered = sorted(cards, key=lambda c: c.sort_key)
    found: list[tuple[Card, ...]] = []
    chosen: list[Card] = []

    def walk(start: int, remaining: int) -> None:
        for i in range(start, len(ordered)):
            card = ordered[i]
            if card.value > remaining:
                break  # sorted by value: every later card is too big as well
            chosen.append(card)
            if card.value == remaining:
                if len(chosen) >= min_size:
                    found.append(tuple(chosen))
            else:
                walk(i + 1, remaining - card.value)
            chosen.pop()

    walk(0, total)
    return found


class Variant:
    """The rules of one game of the family. Subclasses override what differs."""

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]]
    default_target: ClassVar[int] = 11

    def deal_plan(self, players: int) -> DealPlan:
        raise NotImplementedError

    def needs_redeal(self, table: Sequence[Card]) -> bool:
        """R3: three or four kings face up on the table: the same dealer deals again."""
        return sum(1 for c in table if c.value == KING) >= 3

    def capture_options(self, card: Card, table: Sequence[Card]) -> list[tuple[Card, ...]]:
        """Every set of table cards ``card`` may capture; empty when it takes nothing."""
        raise NotImplementedError

    def is_scopa(self, captured: int, table_left: int, last_card_of_hand: bool) -> bool:
        """R5: a capture that clears the table is a scopa, except with the hand's last card."""
        return captured > 0 and table_left == 0 and not last_card_of_hand
