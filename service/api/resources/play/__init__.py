"""/v1/games/{id}/legal-moves, /moves, /declarations, /bots: playing a match."""

from .routes import blp

__all__ = ["blp"]
