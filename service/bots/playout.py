"""Fast playouts for the expert's search: the greedy player's heuristic on masks.

:func:`greedy_code` picks exactly the move :class:`~service.bots.greedy.GreedyBot`
would pick in the same position (a test checks it), but works on a
:class:`~service.engine.hand.Hand` with precomputed tables instead of tuples of keys,
so that a whole hand can be played out in a fraction of a millisecond. The policy only
looks at the hand of the seat to play and the table, as the greedy player does: a
playout in a sampled world models opponents that cannot see our cards.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.cards import PRIMIERA_POINTS
from ..engine.hand import HAND_OVER, Hand
from ..engine.masks import BIT, COINS, SETTEBELLO, SIG_SLICE, VALUE, signature
from ..engine.scoring import played_points
from ..engine.variants import Variant

_PRIMIERA = tuple(PRIMIERA_POINTS[v] for v in VALUE)
#: Sum of the primiera values of the cards of one suit's 10-bit slice.
_PRIMIERA_SUM = tuple(
    sum(PRIMIERA_POINTS[v + 1] for v in range(10) if s >> v & 1) for s in range(1 << 10)
)

# A capture's worth, as one integer ordered like GreedyBot's capture_key tuple:
# scopa, settebello, coins, primiera sum, cards.
_SCOPA_W = 1 << 30
_SETTEBELLO_W = 1 << 26
_COIN_W = 1 << 21
_PRIMIERA_W = 1 << 8

# What laying a card gives away, ordered like GreedyBot's lay_key tuple (lower is
# better): leaves a sweepable table, settebello, coin, primiera value, -card value.
_SWEEPABLE_W = 1 << 20
_LAY_COST = tuple(
    (1 << 19) * bool(BIT[i] & SETTEBELLO)
    + (1 << 18) * bool(BIT[i] & COINS)
    + _PRIMIERA[i] * (1 << 8)
    + (10 - VALUE[i])
    for i in range(40)
)

#: Per variant name: is a table of this signature sweepable by some card value?
_SWEEPABLE: dict[str, dict[int, bool]] = {}


def sweepable_cache(variant: Variant) -> dict[int, bool]:
    return _SWEEPABLE.setdefault(variant.name, {})


def sweepable(
    variant: Variant, table: int, sig: int, cache: dict[int, bool], kept: int = 0
) -> bool:
    """Could some card value take the whole ``table``? Depends only on the values on
    it (its signature ``sig``), so it is cached by signature. While the 7C keeps a value
    (``kept``, Cirulla's C5.2), ``sig`` is its Variant.kept_signature: the table's values
    with the 7C's kept, and the same cache holds."""
    found = cache.get(sig)
    if found is None:
        found = any(table in variant.captures_by_value(v, table, sig, kept) for v in range(1, 11))
        if len(cache) >= 1 << 16:
            cache.clear()
        cache[sig] = found
    return found


def capture_worth(card: int, capture: int, table: int, last_card: bool) -> int:
    """The greedy player's worth of a capture, as one comparable integer."""
    taken = capture | BIT[card]
    worth = (
        (taken & COINS).bit_count() * _COIN_W
        + (
            _PRIMIERA_SUM[taken & 0x3FF]
            + _PRIMIERA_SUM[taken >> 10 & 0x3FF]
            + _PRIMIERA_SUM[taken >> 20 & 0x3FF]
            + _PRIMIERA_SUM[taken >> 30]
        )
        * _PRIMIERA_W
        + taken.bit_count()
    )
    if taken & SETTEBELLO:
        worth += _SETTEBELLO_W
    if capture == table and not last_card:
        worth += _SCOPA_W
    return worth


def greedy_code(hand: Hand, legal: list[int], cache: dict[int, bool]) -> int:
    """The move the greedy player makes from ``legal`` in ``hand``: its best capture,
    else its least costly lay. ``cache`` is :func:`sweepable_cache` of the variant."""
    table = hand.table
    best = -1
    best_code = -1
    last_card = False
    if not hand.stock:
        last_card = sum(h.bit_count() for h in hand.hands) == 1
    for code in legal:
        capture = code >> 6
        if capture:
            worth = capture_worth(code & 63, capture, table, last_card)
            if worth > best:
                best, best_code = worth, code
    if best_code >= 0:
        return best_code
    lowest = 1 << 40
    variant = hand.variant
    kept = hand.matta_as  # the value the 7C keeps (Cirulla, C5.2), or 0
    for code in legal:
        card = code & 63
        laid = table | BIT[card]
        if kept:
            sig = variant.kept_signature(laid, kept)
        else:
            sig = (
                SIG_SLICE[laid & 0x3FF]
                + SIG_SLICE[laid >> 10 & 0x3FF]
                + SIG_SLICE[laid >> 20 & 0x3FF]
                + SIG_SLICE[laid >> 30]
            )
        swept = cache.get(sig)
        if swept is None:
            swept = sweepable(variant, laid, sig, cache, kept)
        cost = _LAY_COST[card] + (_SWEEPABLE_W if swept else 0)
        if cost < lowest:
            lowest, best_code = cost, code
    return best_code


def greedy_ranking(hand: Hand, legal: list[int], cache: dict[int, bool]) -> list[int]:
    """``legal`` in the greedy player's order of preference: its captures by worth, best
    first, then its lays by what they give away, least first; ties keep their order in
    ``legal``, so the first move is :func:`greedy_code`'s. For ordering the candidates
    of a search, once a decision: :func:`greedy_code` is the playouts' fast path."""
    table = hand.table
    last_card = not hand.stock and sum(h.bit_count() for h in hand.hands) == 1
    keys = {}
    for code in legal:
        capture = code >> 6
        if capture:  # every capture before every lay: its key is negative
            keys[code] = -capture_worth(code & 63, capture, table, last_card)
        else:
            keys[code] = 1 + lay_cost(hand.variant, table, code & 63, cache, hand.matta_as)
    return sorted(legal, key=keys.__getitem__)


def lay_cost(variant: Variant, table: int, card: int, cache: dict[int, bool], kept: int = 0) -> int:
    """What laying ``card`` on ``table`` gives away, as :func:`greedy_code` weighs it
    (inline there: the playouts' hot path); ``kept``: the value the 7C keeps, or 0."""
    laid = table | BIT[card]
    sig = variant.kept_signature(laid, kept) if kept else signature(laid)
    swept = sweepable(variant, laid, sig, cache, kept)
    return _LAY_COST[card] + (_SWEEPABLE_W if swept else 0)


def play_out(hand: Hand, stop: int = HAND_OVER) -> int:
    """Play ``hand`` with the greedy policy for every seat until a move's flags meet
    ``stop``: by default to the end of the hand; with ``DEALT | HAND_OVER``, to the end
    of the deal in play. Returns the number of moves played (the search counts its
    budget in them)."""
    cache = sweepable_cache(hand.variant)
    plies = 0
    while True:
        plies += 1
        if hand.push(greedy_code(hand, hand.legal_codes(), cache)) & stop:
            return plies


#: What a finished hand is worth to a side: ``value(hand, teams, side)``.
Value = Callable[[Hand, tuple[int, ...], int], int]


def margin(hand: Hand, teams: tuple[int, ...], side: int) -> int:
    """``side``'s points in the finished ``hand`` minus the best other side's: the
    points its play decides (:func:`~service.engine.scoring.played_points`)."""
    team_count = max(teams) + 1
    piles, scopas = hand.team_piles(list(teams), team_count)
    points = played_points(hand.variant, piles, scopas, hand.rules)
    totals = [sum(lines.values()) for lines in points]
    own = totals[side]
    return own - max(t for s, t in enumerate(totals) if s != side)
