"""The app's settings (:class:`service.config.Settings`), kept in ``app.extensions`` by
``create_app``: :func:`settings` for request code, :func:`of` while an app is built."""

from __future__ import annotations

from flask import Flask, current_app

from ..config import Settings

_EXTENSION = "scopa_settings"


def install(app: Flask, settings: Settings) -> None:
    """Keep ``settings`` on ``app``."""
    app.extensions[_EXTENSION] = settings


def of(app: Flask) -> Settings:
    """``app``'s settings."""
    found: Settings = app.extensions[_EXTENSION]
    return found


def settings() -> Settings:
    """The current app's settings (in a request, or an app context)."""
    return of(current_app)
