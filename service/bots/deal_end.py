"""What the rest of a hand is worth once a deal is played out, in classic Scopa: where the
expert's playouts stop.

In classic Scopa with 2 or 4 players the cards come three to a seat at a time (docs/
rules.md R3.4). When the last card of a deal is played, every hand is empty, and what
is left to play is known to every seat as a set: the cards not yet taken are the table,
face up, and the stock, which is every other card (each was seen played or is still
unseen by all). The position between two deals is public. So the expert's playouts need
not play the rest of the hand card by card with the greedy policy, one random deal of
the stock each: they stop at the end of the deal in play, and this module values what
follows from the public position there, in expectation, for every category of points:

* the scopas made so far count as they are, and so do the settebello and, once they are
  decided, the cards and the coins (docs/rules.md R7);
* the cards not yet taken go to the two sides in shares that are modelled as normal:
  a mean that favours the dealer's side (it plays last, and takes what the table holds
  at the end, R6) and a spread that grows as the square root of what is left; the
  chance that each side ends with more than 20 cards, or more than 5 coins, follows;
* the settebello, while nobody has it: its odds for the side that leads the next deal,
  by whether it lies on the table;
* the primiera: the best card of each suit that each side may yet take, if every card
  left went to either side with even odds, gives the mean and the variance of the
  difference of the two primieras; its odds are a probit of their ratio;
* the scopas still to come: a constant of the deals left, plus the chance that the
  leader of the next deal is dealt a value that sweeps the table it finds.

Each part's parameters were fitted, by the number of deals left and the number of
players, to the outcomes of many hands of self-play (``make fit-deal-end``, which writes
:mod:`service.bots.deal_end_fit`; the method and the figures are in docs/
performance.md). The value is the expected point margin of a side, as
:func:`~service.bots.playout.margin` counts it at the end of the hand: the two are
added up in the same search.

The model holds for classic Scopa with its default rules only (the options that score,
R9, or change what may be captured, R4.3, would change the odds), with the player
counts it was fitted for: :func:`model_for` answers None for every other game, whose
playouts still play to the end of the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..engine.cards import PRIMIERA_POINTS
from ..engine.hand import Hand
from ..engine.knowledge import Knowledge
from ..engine.masks import COINS, FULL, SETTEBELLO, VALUE, signature
from ..engine.rules import Rules
from ..engine.variants import Variant
from .deal_end_fit import FITTED

__all__ = [
    "MODELS",
    "DealEndModel",
    "deals_left",
    "leader_value",
    "model_for",
    "normal_cdf",
    "value",
]

#: The variant and rules the model was fitted for.
VARIANT = "scopa"
RULES = Rules()


@dataclass(frozen=True, slots=True)
class DealEndModel:
    """The fitted parameters for one player count. Every tuple is indexed by the deals
    still to come when the position is valued, less one (0: the last deal was just
    dealt). "The leader" is the side of the seat that plays first in the next deal
    (the seat after the dealer); every value is the leader's side's."""

    players: int
    #: The leader's share of the cards not yet taken: its mean is half of them plus
    #: ``cards_shift`` plus ``cards_per_table_card`` for each card on the table; its
    #: standard deviation, ``cards_spread`` times the root of the cards not yet taken.
    cards_shift: tuple[float, ...]
    cards_per_table_card: float
    cards_spread: tuple[float, ...]
    #: The same for the coins (no table term).
    coins_shift: tuple[float, ...]
    coins_spread: tuple[float, ...]
    #: The leader's settebello point minus the other side's while nobody has it:
    #: (in the stock, on the table).
    settebello: tuple[tuple[float, float], ...]
    #: The primiera point difference: 2 Phi(a + b r) - 1, r the mean difference of the
    #: primieras over the root of its variance plus 1: (a, b).
    primiera: tuple[tuple[float, float], ...]
    #: The scopas still to come, the leader's minus the other side's: constant, per unit
    #: of the chance that the leader is dealt a value sweeping the table, per table card.
    scopas: tuple[tuple[float, float, float], ...]


_PRIMIERA = tuple(PRIMIERA_POINTS[VALUE[i]] for i in range(10))
_SUIT: dict[int, tuple[float, float]] = {}


def suit_moments(own: int, other: int) -> tuple[float, float]:
    """The mean and the variance of (``own``'s best primiera value in a suit minus
    ``other``'s; 0 for a side with no card of the suit) when each card of the suit that
    neither holds goes to either with even odds. ``own`` and ``other`` are the suit's
    10-bit slices of the two piles. Cached: 3^10 pairs at most."""
    key = own << 10 | other
    found = _SUIT.get(key)
    if found is not None:
        return found
    best_own = max((_PRIMIERA[v] for v in range(10) if own >> v & 1), default=0)
    best_other = max((_PRIMIERA[v] for v in range(10) if other >> v & 1), default=0)
    left = sorted((_PRIMIERA[v] for v in range(10) if not (own | other) >> v & 1), reverse=True)
    outcomes: list[tuple[float, int]] = []  # (probability, difference)
    if not left:
        outcomes.append((1.0, best_own - best_other))
    else:
        # The best card left goes to one side; the other side's best is then the first
        # of the next ones to go to it (card j with odds 2^-j), or what it has.
        top, rest = left[0], left[1:]
        for own_takes_top in (True, False):
            mine = max(best_own, top) if own_takes_top else best_own
            theirs = best_other if own_takes_top else max(best_other, top)
            for j, card in enumerate(rest, start=1):
                if own_takes_top:
                    outcomes.append((0.5**j / 2, mine - max(theirs, card)))
                else:
                    outcomes.append((0.5**j / 2, max(mine, card) - theirs))
            outcomes.append((0.5 ** len(rest) / 2, mine - theirs))
    mean = sum(p * d for p, d in outcomes)
    variance = max(0.0, sum(p * d * d for p, d in outcomes) - mean * mean)
    found = (mean, variance)
    _SUIT[key] = found
    return found


def primiera_moments(own: int, other: int) -> tuple[float, float]:
    """The mean and the variance of the primiera difference of two piles (masks) once
    the cards neither holds are shared at random: the sum over the suits of
    :func:`suit_moments`."""
    mean = variance = 0.0
    for shift in (0, 10, 20, 30):
        m, v = suit_moments(own >> shift & 0x3FF, other >> shift & 0x3FF)
        mean += m
        variance += v
    return mean, variance


#: The four cards of each value (index 1-10).
_OF_VALUE = tuple(sum(1 << i for i in range(40) if VALUE[i] == v) for v in range(11))
_SWEEPERS: dict[int, tuple[int, ...]] = {}


def sweep_chance(variant: Variant, table: int, stock: int, dealt: int = 3) -> float:
    """The chance that ``dealt`` cards drawn from ``stock`` (a mask) include one whose
    value takes the whole ``table`` (a scopa)."""
    if not table:
        return 0.0
    sig = signature(table)
    values = _SWEEPERS.get(sig)
    if values is None:
        values = tuple(
            v for v in range(1, 11) if table in variant.captures_by_value(v, table, sig, 0)
        )
        _SWEEPERS[sig] = values
    n = stock.bit_count()
    if not values or n < dealt:
        return 0.0
    sweepers = sum((stock & _OF_VALUE[v]).bit_count() for v in values)
    return 1.0 - math.comb(n - sweepers, dealt) / math.comb(n, dealt)


def normal_cdf(x: float) -> float:
    """The standard normal distribution function, Phi(x)."""
    return 0.5 * math.erfc(-x * 0.7071067811865476)


def _more_than_half(held: int, left: int, total: int, shift: float, spread: float) -> float:
    """One point for the side with more than half of ``total`` cards (of a kind), minus
    one for the other side: its expectation when the side holds ``held`` and its share
    of the ``left`` still to take is normal (mean half plus ``shift``, standard
    deviation ``spread`` times the root of ``left``)."""
    if not left:
        return (held * 2 > total) - (held * 2 < total)
    mean = left / 2 + shift
    sd = max(spread, 0.05) * math.sqrt(left)
    win = 1.0 - normal_cdf((total / 2 + 0.5 - held - mean) / sd)
    lose = normal_cdf((total / 2 - 0.5 - held - mean) / sd)
    return win - lose


def leader_value(
    model: DealEndModel,
    variant: Variant,
    own: int,
    other: int,
    table: int,
    scopas: int,
    left: int,
) -> float:
    """The expected point margin of the hand for the leader's side, whose pile is
    ``own`` (the other side's ``other``), with ``scopas`` more than the other side so
    far, ``table`` on the table and ``left`` deals still to come (1: the last one is
    being dealt)."""
    k = left - 1
    worth = float(scopas)
    taken_own, taken_other = own.bit_count(), other.bit_count()
    on_table = table.bit_count()
    cards_left = 40 - taken_own - taken_other
    worth += _more_than_half(
        taken_own,
        cards_left,
        40,
        model.cards_shift[k] + model.cards_per_table_card * on_table,
        model.cards_spread[k],
    )
    coins_own, coins_other = (own & COINS).bit_count(), (other & COINS).bit_count()
    worth += _more_than_half(
        coins_own, 10 - coins_own - coins_other, 10, model.coins_shift[k], model.coins_spread[k]
    )
    if own & SETTEBELLO:
        worth += 1.0
    elif other & SETTEBELLO:
        worth -= 1.0
    else:
        worth += model.settebello[k][1 if table & SETTEBELLO else 0]
    mean, variance = primiera_moments(own, other)
    a, b = model.primiera[k]
    worth += 2.0 * normal_cdf(a + b * mean / math.sqrt(variance + 1.0)) - 1.0
    constant, per_chance, per_card = model.scopas[k]
    chance = sweep_chance(variant, table, FULL ^ (own | other | table))
    worth += constant + per_chance * chance + per_card * on_table
    return worth


def deals_left(hand: Hand) -> int:
    """The deals still to come in ``hand``, the one just dealt included."""
    return len(hand.stock) // (hand.hand_size * hand.players) + 1


def value(model: DealEndModel, hand: Hand, teams: tuple[int, ...], side: int) -> float:
    """The expected point margin of ``side`` in ``hand``, a deal having just been dealt
    (its last move returned DEALT): :func:`leader_value`, from ``side``'s point of view."""
    leader = teams[(hand.dealer + 1) % hand.players]
    dealer = teams[hand.dealer]
    if hand.players == 2:
        piles, scopas = hand.piles, hand.scopas
    else:
        piles, scopas = hand.team_piles(list(teams), 2)
    worth = leader_value(
        model,
        hand.variant,
        piles[leader],
        piles[dealer],
        hand.table,
        scopas[leader] - scopas[dealer],
        deals_left(hand),
    )
    return worth if side == leader else -worth


def model_for(knowledge: Knowledge) -> DealEndModel | None:
    """The model to value the end of the deal in play with, or None where the playouts
    play to the end of the hand: another game than classic Scopa with its default
    rules, a fitted player count and two sides; the last deal (nothing is dealt after it); or a
    stock no dealt hand leaves (a hint's position may hold any cards), one that is not
    whole deals or holds more of them than the model was fitted for."""
    if knowledge.variant.name != VARIANT or knowledge.rules != RULES:
        return None
    model = MODELS.get(knowledge.players)
    deal = knowledge.hand_size * knowledge.players
    if model is None or not deal or not knowledge.stock_count or len(set(knowledge.teams)) != 2:
        return None
    deals, part = divmod(knowledge.stock_count, deal)
    # The playouts stop once the next deal is dealt: ``deals`` are then left, that one
    # included (deals_left), and the model's tuples go up to len(cards_shift).
    if part or deals > len(model.cards_shift):
        return None
    return model


#: The fitted models, by player count (service/bots/deal_end_fit.py).
MODELS = {players: DealEndModel(players, **fields) for players, fields in FITTED.items()}
