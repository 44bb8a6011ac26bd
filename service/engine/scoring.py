"""Scoring a hand (docs/rules.md R7, and the R9 options re_bello and napola)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import masks
from .cards import Card, codes, sorted_cards
from .rules import Rules
from .variants import Variant, get_variant


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
    return masks.primiera(masks.mask_of(pile))


def napola_run(pile: int) -> int:
    """R9 napola: the length of the unbroken run of coins from the ace, if it reaches the 3."""
    run = 0
    while run < 10 and pile >> run & 1:  # coins are bits 0-9, ace first
        run += 1
    return run if run >= 3 else 0


def _sole_best(values: Sequence[int | None]) -> int | None:
    """Index of the strictly highest value, or None on a tie for the best (R7)."""
    best, winner = -1, None
    for i, v in enumerate(values):
        if v is None:
            continue
        if v > best:
            best, winner = v, i
        elif v == best:
            winner = None
    return winner


def hand_points(piles: Sequence[int], scopas: Sequence[int], rules: Rules) -> list[dict[str, int]]:
    """Points by category for each side, from its pile (mask) and scopas (R7, R9)."""
    counts = [p.bit_count() for p in piles]
    coins = [(p & masks.COINS).bit_count() for p in piles]
    primieras = [masks.primiera(p) for p in piles]
    most_cards = _sole_best(counts)
    most_coins = _sole_best(coins)
    best_primiera = _sole_best(primieras)
    result = []
    for side, pile in enumerate(piles):
        points = {
            "cards": int(most_cards == side),
            "coins": int(most_coins == side),
            "settebello": int(bool(pile & masks.SETTEBELLO)),
            "primiera": int(best_primiera == side),
            "scopas": scopas[side],
        }
        if rules.re_bello:
            points["re_bello"] = int(bool(pile & masks.RE_BELLO))
        if rules.napola:
            points["napola"] = napola_run(pile)
        result.append(points)
    return result


def played_points(
    variant: Variant, piles: Sequence[int], scopas: Sequence[int], rules: Rules
) -> list[dict[str, int]]:
    """Points by category that each side's play earns in a hand of ``variant``:
    :func:`hand_points` (R7, R9), and the variant's lines that come from the pile
    (Cirulla's grande and piccola, C7.2, C7.3); not the lines settled before the first
    card is played (the dealer's bonus, the declarations). What a search values."""
    points = hand_points(piles, scopas, rules)
    if variant.has_pile_bonuses:
        for lines, pile in zip(points, piles, strict=True):
            lines.update(variant.bonus_points(pile, rules))
    return points


def score_piles(
    piles: Sequence[int],
    scopas: Sequence[int],
    rules: Rules,
    extra: Sequence[dict[str, int]] | None = None,
) -> list[SideScore]:
    """Score one hand from each side's pile (mask) and scopas; ``extra``, each side's
    lines beyond R7's (a variant's), are added to its points."""
    points_of = hand_points(piles, scopas, rules)
    if extra is not None:
        for points, lines in zip(points_of, extra, strict=True):
            points.update(lines)
    return [
        SideScore(
            team=side,
            captured=tuple(sorted_cards(masks.cards_of(pile))),
            cards=pile.bit_count(),
            coins=(pile & masks.COINS).bit_count(),
            settebello=bool(pile & masks.SETTEBELLO),
            primiera=masks.primiera(pile),
            scopas=scopas[side],
            points=points,
        )
        for side, (pile, points) in enumerate(zip(piles, points_of, strict=True))
    ]


def score_sides(
    variant: Variant,
    piles: Sequence[int],
    scopas: Sequence[int],
    rules: Rules,
    *,
    dealer_bonus: Sequence[int] | None = None,
    declarations: Sequence[int] | None = None,
) -> list[SideScore]:
    """Score one hand of ``variant`` from each side's pile (mask) and scopas: R7, and the
    variant's own lines (Cirulla, C7: the dealer's bonus and the declarations, each
    side's points of them, none by default; grande and piccola, from the pile)."""
    extra: list[dict[str, int]] = []
    for side, pile in enumerate(piles):
        lines: dict[str, int] = {}
        if variant.bonus_apart:
            lines["dealer_bonus"] = dealer_bonus[side] if dealer_bonus else 0
        if variant.has_declarations:
            lines["declarations"] = declarations[side] if declarations else 0
        lines.update(variant.bonus_points(pile, rules))
        extra.append(lines)
    return score_piles(piles, scopas, rules, extra)


def score_hand(
    piles: Sequence[Sequence[Card]],
    scopas: Sequence[int],
    rules: Rules,
    variant: Variant | None = None,
    *,
    dealer_bonus: Sequence[int] | None = None,
    declarations: Sequence[int] | None = None,
) -> list[SideScore]:
    """Score one hand. ``piles[i]`` and ``scopas[i]`` are side ``i``'s captured cards and
    scopas; ``variant`` (default: classic Scopa) and the lines as for
    :func:`score_sides`. Returns one :class:`SideScore` per side."""
    return score_sides(
        variant or get_variant("scopa"),
        [masks.mask_of(p) for p in piles],
        scopas,
        rules,
        dealer_bonus=dealer_bonus,
        declarations=declarations,
    )
