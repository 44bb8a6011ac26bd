"""The greedy computer player: the best capture now, else the least useful card laid.

Its heuristic, in order of priority:

- If it can capture, it takes the capture worth most: a scopa first, then the
  settebello, then the most coins, then the highest primiera value of the cards taken
  (7 = 21, 6 = 18, ace = 16, ... figures = 10, summed), then the most cards.
- Otherwise it lays the card that gives least away: first one that leaves no table the
  next player could sweep with some card, then not the settebello, then not a coin,
  then the lowest primiera value, then the highest card value.
"""

from __future__ import annotations

import random

from ..engine.cards import PRIMIERA_POINTS
from ..engine.knowledge import Knowledge
from ..engine.masks import BIT, COINS, SETTEBELLO, VALUE, indices, signature

_PRIMIERA = tuple(PRIMIERA_POINTS[v] for v in VALUE)


def capture_key(card: int, capture: int, table: int, last_card: bool) -> tuple[int, ...]:
    """How much a capture is worth to the greedy player: higher is better."""
    taken = capture | BIT[card]
    return (
        int(capture == table and not last_card),
        int(bool(taken & SETTEBELLO)),
        (taken & COINS).bit_count(),
        sum(_PRIMIERA[i] for i in indices(taken)),
        taken.bit_count(),
    )


def lay_key(knowledge: Knowledge, card: int) -> tuple[int, ...]:
    """How much laying ``card`` gives away: lower is better."""
    table = knowledge.table | BIT[card]
    variant = knowledge.variant
    kept = knowledge.matta_as or 0  # the value the 7C keeps (Cirulla, C5.2)
    sig = variant.kept_signature(table, kept) if kept else signature(table)
    sweepable = any(
        table in variant.captures_by_value(value, table, sig, kept) for value in range(1, 11)
    )
    bit = BIT[card]
    return (
        int(sweepable),
        int(bool(bit & SETTEBELLO)),
        int(bool(bit & COINS)),
        _PRIMIERA[card],
        -VALUE[card],
    )


class GreedyBot:
    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int:
        captures = [code for code in legal if code >> 6]
        if captures:
            last_card = knowledge.stock_count == 0 and sum(knowledge.hand_counts) == 1
            return max(
                captures,
                key=lambda code: capture_key(code & 63, code >> 6, knowledge.table, last_card),
            )
        return min(legal, key=lambda code: lay_key(knowledge, code & 63))
