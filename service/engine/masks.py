"""Cards and sets of cards as 40-bit integers, and the tables that make play fast.

Card ``i`` (0-39, :attr:`Card.index`: suit by suit, ace to king) is bit ``1 << i``; a
hand, the table or a pile is the OR of its cards' bits. Everything here is precomputed
or cached by mask, so that legal moves and scoring cost a few dictionary look-ups: the
speed the search of the computer players needs (``make bench`` measures it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .cards import DECK, PRIMIERA_POINTS, SUITS, Card

FULL = (1 << 40) - 1
#: The value (1-10) of each card index.
VALUE = tuple(card.value for card in DECK)
#: The bit of each card index.
BIT = tuple(1 << i for i in range(40))
#: The cards of each value (index 1-10; index 0 unused).
VALUE_MASK = tuple(sum(BIT[i] for i in range(40) if VALUE[i] == v) if v else 0 for v in range(11))
#: The ten cards of each suit, in SUITS order.
SUIT_MASKS = tuple(sum(BIT[i] for i in range(40) if DECK[i].suit == s) for s in SUITS)
COINS = SUIT_MASKS[0]
SETTEBELLO = BIT[Card.parse("7D").index]
RE_BELLO = BIT[Card.parse("10D").index]
KINGS = VALUE_MASK[10]
ACES = VALUE_MASK[1]

#: Best primiera points among the cards of one suit, by that suit's 10-bit slice.
_PRIMIERA_BEST = tuple(
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
    total = 0
    for suit in range(4):
        best = _PRIMIERA_BEST[(mask >> (10 * suit)) & 0x3FF]
        if not best:
            return None
        total += best
    return total


# -- subsets of the table by the sum of their values ------------------------------------------

#: The largest sum any capture rule asks for (quindici: 15 minus an ace).
MAX_SUM = 14
_SUBSETS: dict[int, tuple[tuple[int, ...], ...]] = {}
_SUBSETS_LIMIT = 1 << 18


def subsets_by_sum(table: int) -> tuple[tuple[int, ...], ...]:
    """``result[s]``: every non-empty subset of ``table`` (as masks) whose values add up to
    ``s``, for ``s`` up to :data:`MAX_SUM`. Cached by table mask."""
    found = _SUBSETS.get(table)
    if found is not None:
        return found
    partial: list[tuple[int, int]] = [(0, 0)]  # (mask, sum) of every subset so far
    for i in indices(table):
        value, bit = VALUE[i], BIT[i]
        partial += [(m | bit, s + value) for m, s in partial if s + value <= MAX_SUM]
    by_sum: list[list[int]] = [[] for _ in range(MAX_SUM + 1)]
    for m, s in partial[1:]:
        by_sum[s].append(m)
    found = tuple(tuple(sorted(masks)) for masks in by_sum)
    if len(_SUBSETS) >= _SUBSETS_LIMIT:
        _SUBSETS.clear()
    _SUBSETS[table] = found
    return found
