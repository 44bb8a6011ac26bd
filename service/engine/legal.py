"""The legal moves of a position, coded and as :class:`Move` objects (docs/rules.md R4).

The engine finds moves as ints (:func:`.hand.move_code`: the card's index and the mask
of its capture); this module lists them for readers: as :class:`Move` objects in
listing order (by card, captures first), or only the first few of a long list, and
finds the legal moves of a hand on a table outside any match (the analysis endpoint).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from typing import Final

from .cards import DECK, Card
from .hand import Hand, code_capture, code_card, move_code
from .masks import cards_of, mask_of
from .moves import Move
from .rules import Rules
from .variants import Variant


def legal_moves_in(
    variant: Variant,
    rules: Rules,
    hand: Sequence[Card],
    table: Sequence[Card],
    matta_as: int | None = None,
) -> list[Move]:
    """Every legal move with ``hand`` on ``table`` (R4): each capture choice of each card
    is its own move; a card that can capture must (R4.3), and with
    ``forced_capture="any"`` a card that captures nothing is legal only when no card can.
    ``matta_as``: the value Cirulla's 7C keeps (C5.2), None for none."""
    return moves_of(legal_codes_in(variant, rules, hand, table, matta_as))


def legal_codes_in(
    variant: Variant,
    rules: Rules,
    hand: Sequence[Card],
    table: Sequence[Card],
    matta_as: int | None = None,
) -> list[int]:
    """:func:`legal_moves_in`'s moves, coded (:func:`.hand.move_code`), in no order."""
    position = Hand(
        variant, rules, hands=[mask_of(hand)], table=mask_of(table), matta_as=matta_as or 0
    )
    return list(position.legal_codes())


#: Each card's place in listing order (by value, then suit), by its index in DECK.
_LISTING_RANK: Final = tuple(
    sorted(range(len(DECK)), key=lambda i: DECK[i].sort_key).index(i) for i in range(len(DECK))
)
#: The listing ranks of the cards of each byte of a mask: [byte][its value].
_RANKS_OF_BYTE: Final = tuple(
    tuple(
        tuple(_LISTING_RANK[8 * byte + bit] for bit in range(8) if value >> bit & 1)
        for value in range(256)
    )
    for byte in range((len(DECK) + 7) // 8)
)


def _listing_key(code: int) -> tuple[int, bool, list[int]]:
    """:func:`moves_of`'s order of a coded move, without making its :class:`Move`."""
    capture = code_capture(code)
    taken: list[int] = []
    for ranks in _RANKS_OF_BYTE:
        taken += ranks[capture & 255]
        capture >>= 8
    taken.sort()
    return (_LISTING_RANK[code_card(code)], not code_capture(code), taken)


def first_moves(codes_: Iterable[int], limit: int) -> list[Move]:
    """The first ``limit`` of coded moves in listing order, as :func:`moves_of` lists
    them; only those are made into :class:`Move` objects (a 34-card table has over
    10,000 legal moves, which would take 100 ms and more to make and sort)."""
    return moves_of(heapq.nsmallest(limit, codes_, key=_listing_key))


def moves_of(codes_: Iterable[int]) -> list[Move]:
    """Coded moves as :class:`Move` objects, in listing order (by card, captures first)."""
    moves = [Move.of(DECK[code_card(c)], cards_of(code_capture(c))) for c in codes_]
    moves.sort(key=lambda m: (m.card.sort_key, not m.capture, [c.sort_key for c in m.captured]))
    return moves


def code_of(move: Move) -> int:
    """``move`` coded (:func:`.hand.move_code`), as :meth:`.hand.Hand.legal_codes` lists it."""
    return move_code(move.card.index, mask_of(move.capture))
