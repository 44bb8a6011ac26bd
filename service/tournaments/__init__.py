"""Club tournaments of Scopa (one player a side) and Scopone (a fixed pair a side):
the pairings of a round in a Swiss (FIDE's Dutch system), a round robin (FIDE's
Berger tables) or a single elimination (:mod:`.pairing`), and the standings with
FIDE's tie-breaks (:mod:`.standings`), from the records of :mod:`.records`. Pure: no
Flask, no Redis, no I/O; the caller keeps the records."""

from .pairing import (
    PairingError,
    elimination,
    elimination_walkovers,
    round_robin,
    round_robin_forfeits,
    rounds_of_elimination,
    rounds_of_round_robin,
    seeding_order,
    swiss,
)
from .records import Entrant, Pairing, Played
from .standings import FORMATS, Standing, standings

__all__ = [
    "FORMATS",
    "Entrant",
    "Pairing",
    "PairingError",
    "Played",
    "Standing",
    "elimination",
    "elimination_walkovers",
    "round_robin",
    "round_robin_forfeits",
    "rounds_of_elimination",
    "rounds_of_round_robin",
    "seeding_order",
    "standings",
    "swiss",
]
