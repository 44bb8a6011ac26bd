"""What a variant of the game decides: the deal, the captures, the sweeps (RULES.md R10).

The match engine asks its variant these questions and nothing else, so a new variant is
one new module in this package holding a :class:`Variant` subclass with a ``name``: it
is found and registered on import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..cards import KING, Card
from ..moves import Move
from ..rules import COMMON_OPTIONS, Rules

#: Every variant class by name, filled as their modules are imported.
REGISTRY: dict[str, type[Variant]] = {}


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

    if total > 0:
        walk(0, total)
    return found


class Variant:
    """The rules of one game of the family. The defaults are classic Scopa's (R3-R5);
    subclasses override what differs."""

    name: ClassVar[str]
    title: ClassVar[str]
    description: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]] = (2, 3, 4, 6)
    default_target: ClassVar[int] = 11
    #: Options of rules.OPTIONS that only this variant accepts (beyond COMMON_OPTIONS).
    extra_options: ClassVar[tuple[str, ...]] = ()
    #: How ``deck`` on match creation is dealt, for the API's documentation.
    deal_order: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            REGISTRY[cls.name] = cls

    @property
    def options(self) -> tuple[str, ...]:
        return COMMON_OPTIONS + self.extra_options

    def check_rules(self, rules: Rules) -> str | None:
        """Why ``rules`` make no sense with this variant, or None when they do."""
        for name in rules.changed():
            if name not in self.options:
                return f"the option {name} does not apply to {self.title}"
        return None

    def deal_plan(self, players: int) -> DealPlan:
        """R3: 3 cards to each seat, 4 to the table, 3 more each until the stock is gone."""
        return DealPlan(hand_size=3, table_size=4, deals_again=True)

    def needs_redeal(self, table: Sequence[Card]) -> bool:
        """R3: three or four kings face up on the table: the same dealer deals again."""
        return sum(1 for c in table if c.value == KING) >= 3

    def dealer_bonus(self, table: Sequence[Card]) -> int:
        """Scopas the dealer scores by taking the table just dealt (none in most variants)."""
        return 0

    def capture_options(self, card: Card, table: Sequence[Card]) -> list[tuple[Card, ...]]:
        """Every set of table cards ``card`` may capture; empty when it takes nothing."""
        raise NotImplementedError

    def is_scopa(
        self,
        move: Move,
        table: Sequence[Card],
        last_card_of_hand: bool,
        by_dealer: bool,
        rules: Rules,
    ) -> bool:
        """R5: a capture that takes every card on ``table`` (the table before the move)
        is a scopa, except with the last card of the hand."""
        return bool(move.capture) and len(move.capture) == len(table) and not last_card_of_hand
