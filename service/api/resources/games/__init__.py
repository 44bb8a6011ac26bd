"""/v1/games: create a match, read it, play it, read its hands and its log."""

from .routes import blp

__all__ = ["blp"]
