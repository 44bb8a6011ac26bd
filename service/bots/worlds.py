"""Worlds a seat cannot tell apart: the hidden cards dealt at random, consistently with
what the seat has seen (the search of the expert player samples them)."""

from __future__ import annotations

import random

from ..engine.hand import Hand
from ..engine.knowledge import Knowledge
from ..engine.masks import BIT, indices


def sample_world(knowledge: Knowledge, rng: random.Random) -> Hand:
    """A hand in play that agrees with ``knowledge``: the seat's own cards, the table and
    the piles as they are; the unseen cards shuffled into the other hands (as many as
    each holds) and the stock. Nothing else can be inferred in Scopa: a player may lay
    any card, so no void shows. Declared cards (Cirulla) are where they were declared."""
    unseen = list(indices(knowledge.unseen))
    rng.shuffle(unseen)
    exposed = knowledge.exposed or (0,) * knowledge.players
    hands = []
    pos = 0
    for seat, count in enumerate(knowledge.hand_counts):
        if seat == knowledge.seat:
            hands.append(0)  # the seat's own hand: Hand.from_knowledge puts it in
            continue
        mask = exposed[seat]
        hidden = count - mask.bit_count()
        for index in unseen[pos : pos + hidden]:
            mask |= BIT[index]
        hands.append(mask)
        pos += hidden
    return Hand.from_knowledge(knowledge, hands, unseen[pos:])
