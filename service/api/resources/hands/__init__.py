"""/v1/games/{id}/hands: a match's finished hands."""

from .routes import blp

__all__ = ["blp"]
