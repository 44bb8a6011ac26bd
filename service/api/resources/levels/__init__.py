"""/v1/bot-levels: the computer players a person can choose, weakest first."""

from .routes import blp

__all__ = ["blp"]
