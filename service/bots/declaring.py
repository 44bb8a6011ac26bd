"""Whether a computer player declares its three cards (Cirulla, docs/rules.md C3), and
which declaration.

A declaration scores at once (3 for a buona, 10 for a decino) and shows the three
cards to everybody until each is played (C3.4). The greedy and expert players declare
whenever they can, the best declaration first, because it pays: ``make declaring``
(tests/bench/declaring.py) plays the same deals twice, seats swapped, one side
declaring whenever it may and the other never, the same player on both. Declaring gained
+2.27 points a hand for greedy (95% interval +2.15 to +2.39, 1,000 deals, 2 players;
the same with 4), and +2.06 for the expert (+1.60 to +2.53, 300 deals at 20 ms a move;
+2.07 with 4 players) while it made 0.63 declarations a hand: the points of the
declarations, with no measurable loss from the cards shown. The random player declares
half the time.
"""

from __future__ import annotations

import random

from ..engine.moves import Declaration, best_declaration

#: The chance the random player declares when it may.
RANDOM_DECLARES = 0.5


def choose_declaration(
    level: str, declarations: list[Declaration], rng: random.Random
) -> Declaration | None:
    """What the computer player of ``level`` declares among ``declarations`` (the legal
    ones, at its first turn of a deal), or None to play on without declaring."""
    if level == "random":
        if not declarations or rng.random() >= RANDOM_DECLARES:
            return None
        return rng.choice(declarations)
    return best_declaration(declarations)  # as auto_declare does (C3.5)
