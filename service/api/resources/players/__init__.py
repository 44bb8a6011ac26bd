"""A service key's players: their ratings, one player or a variant's leaderboard
(``/v1/players``)."""

from .routes import PlayerIdConverter, blp

__all__ = ["PlayerIdConverter", "blp"]
