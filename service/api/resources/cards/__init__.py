"""/v1/cards: the words a frontend shows, in its player's language."""

from .routes import blp

__all__ = ["blp"]
