"""/v1/variants: what a frontend needs to build its "new game" screen."""

from .routes import blp

__all__ = ["blp"]
