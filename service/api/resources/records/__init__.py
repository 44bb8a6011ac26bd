"""A service key's finished matches as records: one, all of them (NDJSON), and imports."""

from .routes import blp

__all__ = ["blp"]
