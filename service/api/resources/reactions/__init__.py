"""Reactions: the emotes a seat sends to everyone following its game live."""

from .routes import blp

__all__ = ["blp"]
