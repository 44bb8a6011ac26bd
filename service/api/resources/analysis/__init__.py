"""Stateless analysis: legal moves and hand scores for a position given in the body."""

from .routes import blp

__all__ = ["blp"]
