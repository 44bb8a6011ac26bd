"""/v1/invitations/{code}: a game waiting for people, found by its join code alone."""

from .routes import blp

__all__ = ["blp"]
