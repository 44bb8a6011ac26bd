"""Cards and sets of cards as 40-bit integers, and the tables that make play fast.

Card ``i`` (0-39, :attr:`Card.index`: suit by suit, ace to king) is bit ``1 << i``; a
hand, the table or a pile is the OR of its cards' bits. Everything here is precomputed
or cached by mask, so that legal moves and scoring cost a few dictionary look-ups: the
speed the search of the computer players needs (``make bench`` measures it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations
from typing import Final

from .cards import DECK, PRIMIERA_POINTS, SUITS, Card

FULL: Final = (1 << 40) - 1
#: The value (1-10) of each card index.
VALUE: Final = tuple(card.value for card in DECK)
#: The bit of each card index.
BIT: Final = tuple(1 << i for i in range(40))
#: The cards of each value (index 1-10; index 0 unused).
VALUE_MASK: Final = tuple(
    sum(BIT[i] for i in range(40) if VALUE[i] == v) if v else 0 for v in range(11)
)
#: The ten cards of each suit, in SUITS order.
SUIT_MASKS: Final = tuple(sum(BIT[i] for i in range(40) if DECK[i].suit == s) for s in SUITS)
COINS: Final = SUIT_MASKS[0]
SETTEBELLO: Final = BIT[Card.parse("7D").index]
RE_BELLO: Final = BIT[Card.parse("10D").index]
KINGS: Final = VALUE_MASK[10]
ACES: Final = VALUE_MASK[1]

#: Best primiera points among the cards of one suit, by that suit's 10-bit slice.
_PRIMIERA_BEST: Final = tuple(
    max((PRIMIERA_POINTS[v + 1] for v in range(10) if slice_ >> v & 1), default=0)
    for slice_ in range(1 << 10)
)


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= BIT[card.index]
    return mask


def indices(mask: int) -> Iterator[int]:
    """The card indices in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: int) -> list[Card]:
    return [DECK[i] for i in indices(mask)]


def popcount(mask: int) -> int:
    return mask.bit_count()


def value_sum(mask: int) -> int:
    return sum(VALUE[i] for i in indices(mask))


def primiera(mask: int) -> int | None:
    """R7 primiera of a pile: best card of each suit summed; None if a suit is missing."""
    coins = _PRIMIERA_BEST[mask & 0x3FF]
    cups = _PRIMIERA_BEST[mask >> 10 & 0x3FF]
    swords = _PRIMIERA_BEST[mask >> 20 & 0x3FF]
    clubs = _PRIMIERA_BEST[mask >> 30]
    if coins and cups and swords and clubs:
        return coins + cups + swords + clubs
    return None


# -- captures by the values on the table ------------------------------------------------------
#
# What a card can capture depends only on how many cards of each value the table holds
# (its "signature"); which cards exactly is then a cheap mask operation. So captures are
# cached by signature, which repeats far more than table masks do.

_SIG_BITS: Final = 3  # a count 0-4 per value
#: Signature of one suit's 10-bit slice: the count of value v sits at bits 3*(v-1).
SIG_SLICE: Final = tuple(
    sum(1 << (_SIG_BITS * v) for v in range(10) if slice_ >> v & 1) for slice_ in range(1 << 10)
)


def signature(table: int) -> int:
    """How many cards of each value ``table`` holds, packed 3 bits a value."""
    return (
        SIG_SLICE[table & 0x3FF]
        + SIG_SLICE[table >> 10 & 0x3FF]
        + SIG_SLICE[table >> 20 & 0x3FF]
        + SIG_SLICE[table >> 30]
    )


def count_in(sig: int, value: int) -> int:
    return sig >> (_SIG_BITS * (value - 1)) & 7


#: A way to take cards of given values: an ``int`` is a value mask whose every table card
#: is taken (capture = table & mask); a tuple of ``(value mask, how many)`` pairs needs a
#: choice among the table's cards of some value.
Recipe = int | tuple[tuple[int, int], ...]


#: The part of a signature that counts the values 1 to v, by v.
_UP_TO: Final = tuple((1 << (_SIG_BITS * v)) - 1 for v in range(11))
#: value_sets() by (total, min_cards, the counts of the values up to total).
_VALUE_SETS: dict[tuple[int, int, int], tuple[Recipe, ...]] = {}


def value_sets(total: int, min_cards: int, sig: int) -> tuple[Recipe, ...]:
    """Recipes for every set of table cards whose values add up to ``total``, with at
    least ``min_cards`` cards, given the table's signature. Cached: only the counts of
    the values up to ``total`` matter, and those repeat far more than signatures do."""
    key = (total, min_cards, sig & _UP_TO[max(0, min(total, 10))])
    found = _VALUE_SETS.get(key)
    if found is None:
        if len(_VALUE_SETS) >= 1 << 16:
            _VALUE_SETS.clear()
        found = _VALUE_SETS[key] = _value_sets(total, min_cards, key[2])
    return found


def _value_sets(total: int, min_cards: int, sig: int) -> tuple[Recipe, ...]:
    recipes: list[Recipe] = []
    parts: list[tuple[int, int]] = []  # (value, how many), values decreasing

    def walk(remaining: int, largest: int, cards: int) -> None:
        if remaining == 0:
            if cards >= min_cards:
                recipes.append(_recipe(parts, sig))
            return
        for value in range(min(largest, remaining), 0, -1):
            available = count_in(sig, value)
            for many in range(1, available + 1):
                if many * value > remaining:
                    break
                parts.append((value, many))
                walk(remaining - many * value, value - 1, cards + many)
                parts.pop()

    walk(total, 10, 0)
    return tuple(recipes)


def _recipe(parts: list[tuple[int, int]], sig: int) -> Recipe:
    if all(count_in(sig, value) == many for value, many in parts):
        mask = 0
        for value, _ in parts:
            mask |= VALUE_MASK[value]
        return mask
    return tuple((VALUE_MASK[value], many) for value, many in parts)


def single_matches(value: int, sig: int) -> tuple[Recipe, ...]:
    """Recipes taking exactly one table card of ``value`` (one per such card)."""
    count = count_in(sig, value)
    if count == 0:
        return ()
    if count == 1:
        return (VALUE_MASK[value],)
    return (((VALUE_MASK[value], 1),),)


def realize(recipes: tuple[Recipe, ...], table: int) -> list[int]:
    """The capture masks the recipes make on ``table``."""
    found: list[int] = []
    for recipe in recipes:
        if isinstance(recipe, int):
            found.append(table & recipe)
            continue
        partial = [0]
        for value_mask, many in recipe:
            choices = _choose(table & value_mask, many)
            partial = [m | c for m in partial for c in choices]
        found.extend(partial)
    return found


def _choose(cards: int, many: int) -> list[int]:
    """Every subset of ``cards`` with ``many`` cards."""
    bits = [BIT[i] for i in indices(cards)]
    result = []
    for combo in combinations(bits, many):
        mask = 0
        for bit in combo:
            mask |= bit
        result.append(mask)
    return result
