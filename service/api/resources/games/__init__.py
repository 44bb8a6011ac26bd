"""/v1/games: create a match, read it, play it, read its hands and its log."""

from . import stream  # noqa: F401 - its route, on blp
from .routes import blp

__all__ = ["blp"]
