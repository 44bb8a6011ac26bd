"""A service key's events: every game's, in one stream (``GET /v1/events``)."""

from .routes import blp

__all__ = ["blp"]
