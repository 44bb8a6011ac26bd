"""What a request works with: the app's game store and its settings."""

from __future__ import annotations

import logging

import rq
from flask import current_app

from ..play import BotSettings, GameStore, Step, connections
from ..play.background import schedule
from ..play.webhooks import queueing as webhooks
from .observability import count_step

log = logging.getLogger(__name__)


def store() -> GameStore:
    game_store: GameStore = current_app.extensions["scopa_store"]
    return game_store


def server_secret() -> bytes:
    """The secret that keyed hashes of client keys are made with (``SERVER_SECRET``)."""
    return str(current_app.config["SERVER_SECRET"]).encode()


def bot_settings() -> BotSettings:
    return BotSettings(
        time_limit_seconds=current_app.config["BOT_TIME_LIMIT_SECONDS"],
        expert_budget_ms=current_app.config["EXPERT_BUDGET_MS"],
    )


def bot_only_max_target() -> int:
    """The target a match of computer players only may have at most (0: its variant's
    default target)."""
    return int(current_app.config["BOT_ONLY_MAX_TARGET"])


def committed(step: Step) -> None:
    """What follows every commit of a request: its moves and matches counted, and a
    background job queued for the game if a computer player still has the turn after a
    request's allowance, or for when the turn clock of the person to play runs out (and
    the clock's job of the turn the step ended deleted). The
    game is committed already: if the queue cannot be reached, the request still
    succeeds, and ``POST /v1/games/{id}/bots`` plays the moves due later. And if the
    game's owner has webhook endpoints, the job that turns the commit's events into
    deliveries is queued (a later commit's job delivers them if this one could not be
    queued)."""
    count_step(step)
    queue: rq.Queue = current_app.extensions["scopa_bot_queue"]
    try:
        schedule(queue, step.game, step.replaced_deadline)
    except connections.ERRORS as error:
        log.warning("could not queue the computer players' turn: %s", type(error).__name__)
    try:  # the game's webhooks, if its owner has endpoints: sent by a worker
        webhooks.announce(queue.connection, store().redis, step.game)
    except connections.ERRORS as error:
        log.warning("could not queue the game's webhooks: %s", type(error).__name__)
