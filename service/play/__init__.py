"""Games as the service keeps them, between the engine and the HTTP layer: no Flask here.

- :mod:`.game`: a stored game (the match, its seats, its version) and seat tokens;
- :mod:`.steps`: pure steps (create, move, let the computer players move), no I/O;
- :mod:`.store`: Redis, and :meth:`GameStore.commit`, the one place a step is stored;
- :mod:`.idempotency`: Idempotency-Key, kept with the commit it answers.
"""

from .game import Game, UnauthorizedError, hash_token
from .idempotency import Answer, IdempotencyKeyReusedError, IdempotentRequest
from .steps import (
    BotSettings,
    Creation,
    NoBotToMoveError,
    Setup,
    StaleVersionError,
    Step,
    bots_move,
    create,
    move,
    new_game_id,
)
from .store import GameNotFoundError, GameStore, VersionConflictError

__all__ = [
    "Answer",
    "BotSettings",
    "Creation",
    "Game",
    "GameNotFoundError",
    "GameStore",
    "IdempotencyKeyReusedError",
    "IdempotentRequest",
    "NoBotToMoveError",
    "Setup",
    "StaleVersionError",
    "Step",
    "UnauthorizedError",
    "VersionConflictError",
    "bots_move",
    "create",
    "hash_token",
    "move",
    "new_game_id",
]
