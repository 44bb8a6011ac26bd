"""Scoring a hand (RULES.md R7, and the R9 options re_bello and napola)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import PRIMIERA_POINTS, RE_BELLO, SETTEBELLO, SUITS, Card, codes, sorted_cards
from .rules import Rules


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side's result for a hand: what its pile holds and the points it earned."""

    team: int
    captured: tuple[Card, ...]
    cards: int
    coins: int
    settebello: bool
    #: Sum of the best card of each suit; ``None`` when a suit is missing (R7).
    primiera: int | None
    scopas: int
    #: Points by category: cards, coins, settebello, primiera, scopas, and each
    #: enabled option that scores (re_bello, napola).
    points: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.points.values())

    @property
    def has_all_coins(self) -> bool:
        return self.coins == 10

    def to_dict(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "captured": codes(self.captured),
            "cards": self.cards,
            "coins": self.coins,
            "settebello": self.settebello,
            "primiera": self.primiera,
            "scopas": self.scopas,
            "points": dict(self.points),
            "total": self.total,
        }


def primiera(pile: Sequence[Card]) -> int | None:
    """The primiera of a pile: its best card of each suit, summed; None if a suit is missing."""
    best: dict[str, int] = {}
    for card in pile:
        points = PRIMIERA_POINTS[card.value]
        if points > best.get(card.suit, 0):
            best[card.suit] = points
    if len(best) < len(SUITS):
        return None
    return sum(best.values())


def napola_run(pile: Sequence[Card]) -> int:
    """R9 napola: the length of the unbroken run of coins from the ace, if it reaches the 3."""
    coin_values = {c.value for c in pile if c.is_coin}
    run = 0
    while run + 1 in coin_values:
        run += 1
    return run if run >= 3 else 0


def _sole_best(values: Sequence[int | None]) -> int | None:
    """Index of the strictly highest value, or None on a tie for the best (R7)."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    top = max(present)
    winners = [i for i, v in enumerate(values) if v == top]
    return winners[0] if len(winners) == 1 else None


def score_hand(
    piles: Sequence[Sequence[Card]], scopas: Sequence[int], rules: Rules
) -> list[SideScore]:
    """Score one hand. ``piles[i]`` and ``scopas[i]`` are side ``i``'s captured cards and
    scopas. Returns one :class:`SideScore` per side."""
    counts = [len(p) for p in piles]
    coins = [sum(1 for c in p if c.is_coin) for p in piles]
    primieras = [primiera(p) for p in piles]
    most_cards = _sole_best(counts)
    most_coins = _sole_best(coins)
    best_primiera = _sole_best(primieras)
    result = []
    for side, pile in enumerate(piles):
        settebello = SETTEBELLO in pile
        points = {
            "cards": int(most_cards == side),
            "coins": int(most_coins == side),
            "settebello": int(settebello),
            "primiera": int(best_primiera == side),
            "scopas": scopas[side],
        }
        if rules.re_bello:
            points["re_bello"] = int(RE_BELLO in pile)
        if rules.napola:
            points["napola"] = napola_run(pile)
        result.append(
            SideScore(
                team=side,
                captured=tuple(sorted_cards(pile)),
                cards=counts[side],
                coins=coins[side],
                settebello=settebello,
                primiera=primieras[side],
                scopas=scopas[side],
                points=points,
            )
        )
    return result
