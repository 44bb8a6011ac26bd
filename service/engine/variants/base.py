"""What a variant of the game decides: the deal, the captures, the sweeps (docs/rules.md R10).

The match engine asks its variant these questions and nothing else, so a new variant is
one new module in this package holding a :class:`Variant` subclass with a ``name``: it
is found and registered on import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..cards import Card, sorted_cards
from ..masks import COINS, KINGS, VALUE, Recipe, cards_of, mask_of, realize, signature
from ..moves import Declaration
from ..rules import COMMON_OPTIONS, Rules

#: How many signatures' rows a variant keeps cached before it starts afresh.
MAX_ROWS = 1 << 15

#: What each card may take from a table, by card index (see :meth:`Variant.recipe_row`).
RecipeRow = tuple[tuple[Recipe, ...], ...]

#: Every variant class by name, filled as their modules are imported.
REGISTRY: dict[str, type[Variant]] = {}


@dataclass(frozen=True, slots=True)
class DealPlan:
    """How a hand is dealt: cards to each seat, cards to the table, and whether the
    stock is dealt on in rounds of ``hand_size`` when every hand is empty."""

    hand_size: int
    table_size: int
    deals_again: bool


#: R3, dealt by most variants (a constant: the plan is asked for at every deal).
CLASSIC_DEAL = DealPlan(hand_size=3, table_size=4, deals_again=True)


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
    #: How ``deck`` on match creation is dealt, for the API's documentation: by default,
    #: as :meth:`deal_plan` deals by default (R3).
    deal_order: ClassVar[str] = (
        "each seat in playing order, starting with the seat after the dealer, gets its 3 "
        "cards at once, then the table gets 4; later deals of the hand continue from the "
        "list the same way"
    )
    #: False for a variant being built: the engine plays it, the service does not offer
    #: it (it is left out of ``VARIANTS``).
    playable: ClassVar[bool] = True
    #: Why :meth:`needs_redeal` asks for a new deal, for the redeal event.
    redeal_reason: ClassVar[str] = "three or more kings on the table (R3)"
    #: The dealer's bonus (:meth:`table_bonus`) scores as a line of its own rather than
    #: as scopas (Cirulla, C7).
    bonus_apart: ClassVar[bool] = False
    #: Seats may declare their cards (:meth:`declarations`; Cirulla, C3).
    has_declarations: ClassVar[bool] = False
    #: A side's pile earns lines of the variant's own (:meth:`bonus_points`; Cirulla's
    #: grande and piccola, C7.2, C7.3): a search that values a hand must count them.
    has_pile_bonuses: ClassVar[bool] = False
    #: Each move says the kind of its capture (:meth:`capture_kind`; Cirulla, C4.4).
    reports_capture_kind: ClassVar[bool] = False

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
        return CLASSIC_DEAL

    def __init__(self) -> None:
        #: :meth:`recipe_row` by table signature.
        self.recipe_rows: dict[int, RecipeRow] = {}
        #: Every sweep but the hand's last card's is a scopa (R5 as it stands): neither
        #: :meth:`sweep_counts` nor :meth:`last_sweep_counts` is overridden, so a hand
        #: may check a sweep without asking :meth:`is_scopa` (read at every new Hand).
        kind = type(self)
        self.plain_sweeps = (
            kind.sweep_counts is Variant.sweep_counts
            and kind.last_sweep_counts is Variant.last_sweep_counts
        )

    def needs_redeal(self, table: int) -> bool:
        """R3: three or four kings face up on the table: the same dealer deals again."""
        return (table & KINGS).bit_count() >= 3

    def dealer_bonus(self, table: int) -> int:
        """Scopas the dealer scores by taking the table just dealt (none in most variants)."""
        return 0

    def table_bonus(self, table: int, rules: Rules) -> tuple[int, int | None]:
        """:meth:`dealer_bonus` under ``rules``, and the value a wild card on the table
        took in it (None: none did)."""
        return self.dealer_bonus(table), None

    def declarations(self, hand: int) -> list[Declaration]:
        """What a seat holding ``hand`` (a mask) may declare at its first turn of a deal:
        nothing, but in Cirulla (C3)."""
        return []

    def capture_kind(self, card: int, capture: int, table: int, matta_as: int = 0) -> str | None:
        """The kind of a capture, where the variant names kinds (Cirulla, C4.4);
        ``matta_as`` is the value a wild card keeps (Cirulla, C5.2), 0 for none."""
        return None

    # A wild card that keeps a value (Cirulla's matta, option matta_keeps_value, C5.2):
    # ``Hand.matta_as``, when not 0, is that value; what reads a card's capture value
    # asks these. The variants without one never have a kept value: plain values.

    def card_value(self, card: int, matta_as: int = 0) -> int:
        """The capture value of the card of index ``card``, a wild card keeping the value
        ``matta_as`` (0: none keeps a value)."""
        return VALUE[card]

    def kept_signature(self, table: int, kept: int) -> int:
        """The signature of ``table`` with a wild card on it counted at its kept value
        ``kept`` (not 0): what :meth:`kept_row` is looked up by."""
        return signature(table)

    def kept_row(self, sig: int, kept: int) -> RecipeRow:
        """:meth:`recipe_row` while a wild card keeps the value ``kept`` (not 0), for a
        table of :meth:`kept_signature` ``sig``."""
        return self.recipe_row(sig)

    def bonus_points(self, pile: int, rules: Rules) -> dict[str, int]:
        """Score lines beyond R7's that a side's pile earns (Cirulla's grande and
        piccola, C7.2, C7.3): none in most variants."""
        return {}

    def capture_filter(self, rules: Rules) -> Callable[[list[int], int], list[int]] | None:
        """A function that narrows a seat's coded captures under ``rules`` (Cirulla's
        ``fewest_cards``, C4.6), or None: most variants and rules have none. It is given
        the codes and the value a wild card keeps (``Hand.matta_as``, C5.2; 0: none)."""
        return None

    def wins_outright(self, pile: int, rules: Rules) -> str | None:
        """Why a side with this pile wins the match when the hand is scored, whatever
        the totals: R9 ``napoleone``, all ten coins; else None."""
        if rules.napoleone and pile & COINS == COINS:
            return "napoleone"
        return None

    def capture_masks(self, card: int, table: int, matta_as: int = 0) -> list[int]:
        """Every set of table cards (masks) the card of index ``card`` may capture; empty
        when it takes nothing. ``matta_as``: the value a wild card keeps, 0 for none."""
        if matta_as:
            value = self.card_value(card, matta_as)
            return self.captures_by_value(
                value, table, self.kept_signature(table, matta_as), matta_as
            )
        return self.captures_by_value(VALUE[card], table, signature(table))

    def captures_by_value(self, value: int, table: int, sig: int, matta_as: int = 0) -> list[int]:
        """:meth:`capture_masks` for a card of ``value``, given the table's signature; with
        a wild card keeping the value ``matta_as`` (not 0), ``sig`` is the table's
        :meth:`kept_signature`."""
        if matta_as:
            recipes = self.kept_row(sig, matta_as)[value - 1]  # the coin of that value
        else:
            recipes = self.recipes(value, sig)
        return realize(recipes, table) if recipes else []

    def recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        """:meth:`capture_recipes`, cached by signature (see :meth:`recipe_row`)."""
        return self.recipe_row(sig)[value - 1]  # card value - 1 is the coin of that value

    def recipe_row(self, sig: int) -> RecipeRow:
        """What each card may take from a table of signature ``sig``: the
        :meth:`capture_recipes` of its value, by card index. Cached in ``recipe_rows``,
        where :meth:`Hand.legal_codes` looks it up once a turn."""
        row = self.recipe_rows.get(sig)
        if row is None:
            by_value = [self.capture_recipes(value, sig) for value in range(1, 11)]
            row = tuple(by_value[value - 1] for value in VALUE)
            if len(self.recipe_rows) >= MAX_ROWS:
                self.recipe_rows.clear()
            self.recipe_rows[sig] = row
        return row

    def capture_recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        """The capture rule, on values: what a card of ``value`` may take from a table of
        signature ``sig`` (see masks.signature)."""
        raise NotImplementedError

    def capture_options(
        self, card: Card, table: Sequence[Card], matta_as: int = 0
    ) -> list[tuple[Card, ...]]:
        """:meth:`capture_masks` with cards: each option's cards in listing order."""
        options = self.capture_masks(card.index, mask_of(table), matta_as)
        return sorted(
            (tuple(sorted_cards(cards_of(m))) for m in options),
            key=lambda cards: [c.sort_key for c in cards],
        )

    def is_scopa(
        self,
        card: int,
        capture: int,
        table: int,
        last_card_of_hand: bool,
        by_dealer: bool,
        rules: Rules,
    ) -> bool:
        """R5: a capture that takes every card on ``table`` (the table before the move)
        is a scopa, except with the last card of the hand: a variant may narrow the
        first (:meth:`sweep_counts`) or widen the exception (:meth:`last_sweep_counts`)."""
        if capture != table:
            return False
        if last_card_of_hand:
            return self.last_sweep_counts(by_dealer, rules)
        return self.sweep_counts(card, table)

    def sweep_counts(self, card: int, table: int) -> bool:
        """Whether the card of index ``card`` taking all of ``table`` (not with the
        hand's last card) scores a scopa: always, in most variants."""
        return True

    def last_sweep_counts(self, by_dealer: bool, rules: Rules) -> bool:
        """Whether taking all of the table with the hand's last card scores a scopa
        (``by_dealer``: the dealer plays it): never, in most variants (R5)."""
        return False
