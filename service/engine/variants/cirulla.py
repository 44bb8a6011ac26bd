"""Cirulla, the Ligurian game (docs/rules.md, the Cirulla part: C1-C10).

Its rules on masks, as the other variants': the deal (a redeal for two aces on the
table, C2.2), the dealer's bonus with the matta ``7C`` wild (C2.3, C2.4), the three
kinds of capture (C4), the declarations a seat's three cards allow (C3), and the
scoring lines beyond Scopa's (C7.2-C7.4).

The option ``matta_keeps_value`` (C5.2): the value the matta was declared as stays on
it (:attr:`Hand.matta_as <service.engine.hand.Hand.matta_as>`) until it is captured. The
captures then come from the recipes of the table's signature with the matta counted at
that value (:func:`kept_signature`), its own from the recipes of that value, each value
mask remapped so that the matta goes with that value's cards (:func:`remap`): see
:meth:`Cirulla.kept_row`. The capture kind and ``fewest_cards`` read the same value
(:func:`value_of`, :func:`kept_sum`).

Being built (issue 14): the engine plays it (``Match.new(variant="cirulla")``), but it
is not ``playable`` yet, so the service does not offer it: its contract (declarations in
the API, the new score lines and event fields) comes next.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from ..cards import Card
from ..masks import (
    ACES,
    BIT,
    COINS,
    FULL,
    SIG_SLICE,
    VALUE,
    VALUE_MASK,
    Recipe,
    count_in,
    indices,
    signature,
    single_matches,
    value_sets,
    value_sum,
)
from ..moves import Declaration, DeclarationKind
from ..rules import CIRULLA_OPTIONS, Rules
from .base import MAX_ROWS, RecipeRow, Variant

#: C1.1: the matta, the 7 of cups.
MATTA: Final = Card.parse("7C").index
MATTA_BIT: Final = BIT[MATTA]
MATTA_VALUE: Final = VALUE[MATTA]
#: C5.2: by value, the cards of that value but the matta (whose kept value it may be).
_PEERS: Final = tuple(VALUE_MASK[v] & ~MATTA_BIT for v in range(11))
#: By value, what one card of that value adds to a table's signature (masks.signature).
_SIG_ONE: Final = tuple(SIG_SLICE[1 << (v - 1)] if v else 0 for v in range(11))
ACE: Final = 1
FIFTEEN: Final = 15
#: C2.4 (option `table_low`): a table worth this much or less, the matta counted as 1.
TABLE_LOW_MAX: Final = 9
TABLE_LOW_SCOPAS: Final = 3
#: C3.1: a buona is three cards worth this much or less.
BUONA_MAX: Final = 9
#: C7.2, C7.3.
GRANDE: Final = sum(BIT[Card.parse(code).index] for code in ("8D", "9D", "10D"))
GRANDE_POINTS: Final = 5
PICCOLA_BASE: Final = 3  # 1D 2D 3D
DEFAULT_PICCOLA_MAX: Final = 6
PICCOLA_MIN, PICCOLA_LIMIT = 3, 10  # what piccola_max may be
#: The coin of each value, by value (the run of the piccola climbs them).
COIN_OF: Final = tuple(BIT[Card.parse(f"{value}D").index] if value else 0 for value in range(11))
#: The coins a piccola starts from (C7.3).
PICCOLA_RUN: Final = sum(COIN_OF[value] for value in range(1, PICCOLA_BASE + 1))


class CaptureKind(StrEnum):
    """C4.4: what a capture is, from the card played and the cards it takes."""

    MATCH = "match"  # one card of the played card's value (C4.1)
    SUM = "sum"  # two or more cards adding up to its value (C4.1)
    FIFTEEN = "fifteen"  # cards adding up to 15 less its value (C4.2)
    ACE_SWEEP = "ace_sweep"  # an ace taking the whole table, no ace on it (C4.3)


@dataclass(frozen=True, slots=True)
class TableBonus:
    """C2.3, C2.4: the scopas the dealer's side scores by taking the table just dealt,
    and the value the matta took in it (None if it was not on the table, or did not
    count)."""

    scopas: int
    matta_as: int | None = None


@dataclass(frozen=True, slots=True)
class BonusLines:
    """C7.2-C7.4: a side's lines beyond Scopa's, from its pile."""

    grande: int
    piccola: int
    cappotto: bool  # adds no points: it ends the match (C7.4)


class Cirulla(Variant):
    name = "cirulla"
    playable = True
    redeal_reason = "two or more aces on the table (C2.2)"
    bonus_apart = True
    has_declarations = True
    has_pile_bonuses = True
    reports_capture_kind = True
    extra_options = CIRULLA_OPTIONS
    title = "Cirulla"
    description = (
        "The Ligurian game for 2, 3 or 4 (two partnerships) players. A card takes a table "
        "card of its value (else a set adding up to it), or any set that makes 15 with "
        "it; an ace takes the whole table when none is on it. A hand of three cards worth "
        "9 or less, or three of a kind, may be declared for 3 or 10 points, the 7 of cups "
        "wild. A table dealt worth 15 or 30 is the dealer's, for 1 or 2 scopas. Grande "
        "and piccola score 5 and 3 or more; all ten coins win the match. Played to 51."
    )
    player_counts = (2, 3, 4)
    default_target = 51

    def __init__(self) -> None:
        super().__init__()
        #: :meth:`kept_row` by ``sig << 4 | kept``.
        self.kept_rows: dict[int, RecipeRow] = {}

    def needs_redeal(self, table: int) -> bool:
        """C2.2: two or more aces on the table (the kings of R3.3 do not count)."""
        return (table & ACES).bit_count() >= 2

    def table_bonus(self, table: int, rules: Rules) -> tuple[int, int | None]:
        found = table_bonus(table, table_low=rules.table_low)
        return found.scopas, found.matta_as

    def check_rules(self, rules: Rules) -> str | None:
        if not PICCOLA_MIN <= rules.piccola_max <= PICCOLA_LIMIT:
            return f"piccola_max must be {PICCOLA_MIN} to {PICCOLA_LIMIT}, not {rules.piccola_max}"
        return super().check_rules(rules)

    def declarations(self, hand: int) -> list[Declaration]:
        return declarations(hand)

    def capture_kind(self, card: int, capture: int, table: int, matta_as: int = 0) -> str | None:
        found = capture_kind(card, capture, table, matta_as)
        return None if found is None else found.value

    def card_value(self, card: int, matta_as: int = 0) -> int:
        return value_of(card, matta_as)

    def kept_signature(self, table: int, kept: int) -> int:
        return kept_signature(table, kept)

    def kept_row(self, sig: int, kept: int) -> RecipeRow:
        """C5.2: what each card may take from a table of signature ``sig`` (the matta
        counted as ``kept``, see :func:`kept_signature`) while the matta keeps the value
        ``kept``: the matta's recipes are those of ``kept``, and every value mask goes
        through :func:`remap`. By card index, as :meth:`recipe_row`; cached."""
        key = sig << 4 | kept
        row = self.kept_rows.get(key)
        if row is None:
            plain = self.recipe_row(sig)
            # By value (the coin of a value has index value - 1, and is never the matta).
            by_value = [tuple(remap_recipe(r, kept) for r in plain[v - 1]) for v in range(1, 11)]
            row = tuple(by_value[value_of(index, kept) - 1] for index in range(len(VALUE)))
            if len(self.kept_rows) >= MAX_ROWS:
                self.kept_rows.clear()
            self.kept_rows[key] = row
        return row

    def bonus_points(self, pile: int, rules: Rules) -> dict[str, int]:
        # The expert values every playout with it: no BonusLines built on the way.
        return {"grande": grande_points(pile), "piccola": piccola_points(pile, rules.piccola_max)}

    def wins_outright(self, pile: int, rules: Rules) -> str | None:
        if rules.cappotto and pile & COINS == COINS:
            return "cappotto"  # C7.4
        return super().wins_outright(pile, rules)

    def capture_filter(self, rules: Rules) -> Callable[[list[int], int], list[int]] | None:
        return keep_fewest_cards if rules.fewest_cards else None

    def capture_recipes(self, value: int, sig: int) -> tuple[Recipe, ...]:
        if value == ACE and not count_in(sig, ACE):
            return (FULL,) if sig else ()  # C4.3: the whole table, if there is one
        # C4.1: one card of the value comes before any sum of it; C4.2: by fifteen.
        simple = single_matches(value, sig) or value_sets(value, 2, sig)
        return simple + value_sets(FIFTEEN - value, 1, sig)


def table_bonus(table: int, *, table_low: bool = False) -> TableBonus:
    """C2.3: a table of 4 cards worth 15 is the dealer's for 1 scopa, 30 for 2, the matta
    worth whatever makes 30 if anything does, else 15. C2.4 (option ``table_low``): worth
    9 or less, the matta counted as 1, for 3 scopas, which outweighs the others."""
    others = value_sum(table & ~MATTA_BIT)
    has_matta = bool(table & MATTA_BIT)
    if table_low and table and others + (ACE if has_matta else 0) <= TABLE_LOW_MAX:
        return TableBonus(TABLE_LOW_SCOPAS, ACE if has_matta else None)
    if not has_matta:
        total = others
        return TableBonus(total // FIFTEEN if table and total in (15, 30) else 0)
    for total in (30, 15):
        if 1 <= total - others <= 10:
            return TableBonus(total // FIFTEEN, total - others)
    return TableBonus(0)


def value_of(card: int, kept: int = 0) -> int:
    """The capture value of the card of index ``card``, the matta keeping the value
    ``kept`` (C5.2; 0: it keeps none, and is a 7, C5.1)."""
    return kept if kept and card == MATTA else VALUE[card]


def kept_sum(mask: int, kept: int = 0) -> int:
    """The capture values of the cards of ``mask`` added up, the matta counted as
    ``kept`` (C5.2; 0: as a 7)."""
    total = value_sum(mask)
    return total + kept - MATTA_VALUE if kept and mask & MATTA_BIT else total


def kept_signature(table: int, kept: int) -> int:
    """The signature (masks.signature) of ``table``, the matta on it counted as
    ``kept`` rather than as a 7 (C5.2)."""
    sig = signature(table)
    return sig + _SIG_ONE[kept] - _SIG_ONE[MATTA_VALUE] if table & MATTA_BIT else sig


def remap(mask: int, kept: int) -> int:
    """C5.2: a value mask of a recipe (an OR of whole ``VALUE_MASK`` classes, or FULL)
    for a table where the matta counts as ``kept``: the matta is in it when the class of
    ``kept`` is, and out of it otherwise (it leaves the class of 7)."""
    return mask | MATTA_BIT if mask & _PEERS[kept] else mask & ~MATTA_BIT


def remap_recipe(recipe: Recipe, kept: int) -> Recipe:
    """:func:`remap` on every value mask of ``recipe``."""
    if isinstance(recipe, int):
        return remap(recipe, kept)
    return tuple((remap(mask, kept), many) for mask, many in recipe)


def capture_kind(card: int, capture: int, table: int, kept: int = 0) -> CaptureKind | None:
    """C4.4: the kind of the capture ``capture`` (a mask of table cards) made by the card
    of index ``card`` on ``table``; None for a card laid on the table. ``kept``: the value
    the matta keeps (C5.2), 0 for none."""
    if not capture:
        return None
    value = value_of(card, kept)
    aces = table & ACES if kept != ACE else table & (ACES | MATTA_BIT)  # C4.3, C5.2
    if value == ACE and not aces and capture == table:
        return CaptureKind.ACE_SWEEP
    taken = kept_sum(capture, kept)
    if taken == FIFTEEN - value:
        return CaptureKind.FIFTEEN
    return CaptureKind.MATCH if capture.bit_count() == 1 else CaptureKind.SUM


def fewest_cards(recipes: list[int], value: int, kept: int = 0) -> list[int]:
    """C4.6 (option `fewest_cards`): of the captures ``recipes`` (masks) a card of
    ``value`` may make, the sums of its value (C4.1) keep only those of the fewest cards;
    the others (a single match, by fifteen, the ace's sweep) stay. ``kept``: the value
    the matta keeps (C5.2), 0 for none."""
    sums = [m for m in recipes if m.bit_count() >= 2 and kept_sum(m, kept) == value]
    if not sums:
        return recipes
    fewest = min(m.bit_count() for m in sums)
    return [m for m in recipes if m not in sums or m.bit_count() == fewest]


def keep_fewest_cards(codes: list[int], kept: int = 0) -> list[int]:
    """:func:`fewest_cards` on coded moves (capture mask << 6 | card index), card by card,
    for Hand.legal_codes; ``kept`` is the value the matta keeps (C5.2), 0 for none."""
    by_card: dict[int, list[int]] = {}
    for code in codes:
        by_card.setdefault(code & 63, []).append(code >> 6)
    found = []
    for card, masks in by_card.items():
        found += [m << 6 | card for m in fewest_cards(masks, value_of(card, kept), kept)]
    return found


def declarations(hand: int) -> list[Declaration]:
    """C3.1-C3.3: what a seat holding the three cards ``hand`` may declare, one entry
    per value the matta may take; a decino when three of a kind can be made (and then
    no buona), else a buona when the three can be worth 9 or less."""
    if hand.bit_count() != 3:
        return []
    values = sorted(VALUE[i] for i in indices(hand & ~MATTA_BIT))
    if not hand & MATTA_BIT:
        if values[0] == values[2]:
            return [Declaration(DeclarationKind.DECINO)]
        if sum(values) <= BUONA_MAX:
            return [Declaration(DeclarationKind.BUONA)]
        return []
    first, second = values
    if first == second:
        return [Declaration(DeclarationKind.DECINO, first)]
    room = BUONA_MAX - first - second
    return [Declaration(DeclarationKind.BUONA, value) for value in range(1, min(room, 10) + 1)]


def bonus_lines(pile: int, *, piccola_max: int = DEFAULT_PICCOLA_MAX) -> BonusLines:
    """C7.2 grande: 8D, 9D and 10D, 5 points. C7.3 piccola: 1D, 2D and 3D, 3 points,
    one more for each coin extending the run from the ace, up to ``piccola_max``. C7.4
    cappotto: all ten coins."""
    return BonusLines(grande_points(pile), piccola_points(pile, piccola_max), pile & COINS == COINS)


def grande_points(pile: int) -> int:
    """C7.2: the grande's points in ``pile``: 5 with 8D, 9D and 10D, else 0."""
    return GRANDE_POINTS if pile & GRANDE == GRANDE else 0


def piccola_points(pile: int, piccola_max: int = DEFAULT_PICCOLA_MAX) -> int:
    """C7.3: the piccola's points in ``pile``: 3 with 1D, 2D and 3D, one more for each
    coin extending the run from the ace, up to ``piccola_max``; else 0."""
    if pile & PICCOLA_RUN != PICCOLA_RUN:
        return 0
    points = PICCOLA_BASE
    while points < piccola_max and pile & COIN_OF[points + 1]:
        points += 1
    return points


__all__ = [
    "MATTA",
    "MATTA_BIT",
    "BonusLines",
    "CaptureKind",
    "Cirulla",
    "TableBonus",
    "bonus_lines",
    "capture_kind",
    "declarations",
    "fewest_cards",
    "kept_signature",
    "kept_sum",
    "remap",
    "table_bonus",
    "value_of",
]
