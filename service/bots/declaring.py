"""Whether a computer player declares its three cards (Cirulla, docs/rules.md C3), and
which declaration.

A declaration scores at once (3 for a buona, 10 for a decino) and shows the three
cards to everybody until each is played (C3.4). The greedy and expert players declare
whenever they can: the points are sure and large beside a hand's others (a hand is
worth about 5 to 10 points a side), while three known cards cost a player at most a
capture or two; a tournament measuring declaring against not declaring is the
expert's next step (issue 15). The random player declares half the time.
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
