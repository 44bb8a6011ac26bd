"""A service key's tournaments: made with their first round, read (by anyone, when
public), an entrant withdrawn (``/v1/tournaments``)."""

from .routes import blp

__all__ = ["blp"]
