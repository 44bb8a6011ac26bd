"""Hints: the move the expert computer player would make, for a seat of a stored game or
for a position given in the body."""

from .routes import blp

__all__ = ["blp"]
