"""What a request works with: the app's game store and its settings."""

from __future__ import annotations

import logging

from flask import current_app

from ..play import BotSettings, GameStore
from .settings import settings

log = logging.getLogger(__name__)


def store() -> GameStore:
    game_store: GameStore = current_app.extensions["scopa_store"]
    return game_store


def server_secret() -> bytes:
    """The secret that keyed hashes of client keys are made with (``SERVER_SECRET``)."""
    return settings().server_secret.encode()


def bot_settings() -> BotSettings:
    return BotSettings(
        time_limit_seconds=settings().bot_time_limit_seconds,
        expert_budget_ms=settings().expert_budget_ms,
    )


def bot_only_max_target() -> int:
    """The target a match of computer players only may have at most (0: its variant's
    default target)."""
    return settings().bot_only_max_target
