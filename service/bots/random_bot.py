"""The weakest computer player: any legal move, uniformly at random."""

from __future__ import annotations

import random

from ..engine.knowledge import Knowledge


class RandomBot:
    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int:
        return legal[int(rng.random() * len(legal))]
