"""/v1/games/{id}/events, /stream: a game's event log, read or followed live."""

from .routes import blp

__all__ = ["blp"]
