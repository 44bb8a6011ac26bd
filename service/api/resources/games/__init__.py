"""/v1/games: create a match, read it, play it, read its hands and its log."""

from . import bulk, listing, stream  # noqa: F401 - their routes, on blp
from .routes import blp

__all__ = ["blp"]
