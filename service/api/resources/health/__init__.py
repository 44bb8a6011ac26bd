"""Liveness and readiness probes."""

from .routes import blp

__all__ = ["blp"]
