"""/v1/games/{id}/join, /join-code, /leave, /rematch: a game waiting for people, and the
next match."""

from .routes import blp

__all__ = ["blp"]
