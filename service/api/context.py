"""What a request works with: the app's game store and its settings."""

from __future__ import annotations

from flask import current_app

from ..play import BotSettings, GameStore


def store() -> GameStore:
    game_store: GameStore = current_app.extensions["scopa_store"]
    return game_store


def bot_settings() -> BotSettings:
    return BotSettings(
        time_limit_seconds=current_app.config["BOT_TIME_LIMIT_SECONDS"],
        expert_budget_ms=current_app.config["EXPERT_BUDGET_MS"],
    )
