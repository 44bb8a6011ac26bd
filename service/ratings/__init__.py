"""Players' ratings: the model that moves them when a rated game ends
(:mod:`.model`). Pure: no Flask, no Redis; service/play/ratings.py keeps them."""

from .model import DEFAULT, Rating, Seat, ranks_of, rate

__all__ = ["DEFAULT", "Rating", "Seat", "rate", "ranks_of"]
