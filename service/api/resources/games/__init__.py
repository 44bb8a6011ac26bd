"""/v1/games: create a match (one, or a round), read it, delete it, abort it, list a
service key's games."""

from .routes import blp

__all__ = ["blp"]
