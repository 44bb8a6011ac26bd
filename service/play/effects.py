"""What follows every commit of a game, wherever it was made (a request, a background
job): its next background job (a computer player's turn, a turn clock), its place in
its key's index of games that are over (what exports read), and its webhooks. The game
is committed already: each part is best effort, and a part that cannot reach its Redis
is logged and left to the next commit or to ``POST /v1/games/{id}/bots``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import rq

from ..engine import Status
from . import background, connections
from .steps import Step
from .store import GameStore
from .webhooks import queueing as webhooks

log = logging.getLogger(__name__)
#: Where a game stands once nothing more happens in it.
OVER = frozenset({Status.FINISHED, Status.ABORTED})


def after_commit(
    step: Step,
    queue: rq.Queue,
    store: GameStore,
    *,
    running: str | None = None,
    counted: Callable[[Step], None] | None = None,
) -> None:
    """What follows the commit of ``step`` (see the module's docstring); ``running`` is
    the background job that committed it, if one did; ``counted`` counts it in the
    transport's metrics."""
    game = step.game
    if counted is not None:
        counted(step)
    try:
        background.schedule(queue, game, step.replaced_deadline, running=running)
    except connections.ERRORS as error:
        log.warning("could not queue the computer players' turn: %s", type(error).__name__)
    imported = game.version == 1 and game.status is Status.FINISHED  # (only imports are)
    try:
        if game.owner is not None and game.status in OVER:
            assert game.created_at is not None, "a key's game is created with its time"
            created_ms = int(game.created_at * 1000)
            store.index.add(game.owner, game.id, created_ms, game.player_ids, over=True)
        if not imported:  # an imported match's events happened elsewhere: none is sent
            webhooks.announce(queue.connection, store.redis, game)
    except connections.ERRORS as error:
        log.warning("could not index or announce the game: %s", type(error).__name__)
