"""Games as the service keeps them, between the engine and the HTTP layer: no Flask here.

- :mod:`.game`: a stored game (the match, its seats, its version) and seat tokens;
- :mod:`.steps`: pure steps (create, join, leave, move, let the computer players move,
  rematch), no I/O;
- :mod:`.connections`: the Redis clients for a ``REDIS_URL`` (one Redis, a cluster, Sentinel);
- :mod:`.keys`: the name of every Redis key and channel the service uses;
- :mod:`.store`: Redis, and :meth:`GameStore.commit`, the one place a step is stored;
- :mod:`.idempotency`: Idempotency-Key, kept with the commit it answers;
- :mod:`.budget`: what each payer's background play may cost;
- :mod:`.background`: the background workers' jobs (computer players, turn clocks);
- :mod:`.records`: a finished match as a record, exported and imported again;
- :mod:`.text`: the rules of the text people type for others (display names, metadata
  values, abort reasons);
- :mod:`.webhooks`: a service key's webhook endpoints, their deliveries and the jobs
  that send them.
"""

from .game import (
    Game,
    Lobby,
    MatchAbortedError,
    NotStartedError,
    NotStartedYetError,
    UnauthorizedError,
    hash_token,
)
from .idempotency import Answer, IdempotencyKeyReusedError, IdempotentRequest
from .steps import (
    MAX_CLOCK_SECONDS,
    MIN_CLOCK_SECONDS,
    AlreadyOverError,
    BotMatchTooLongError,
    BotSettings,
    Creation,
    Joining,
    MatchNotOverError,
    MatchStartedError,
    NoBotToMoveError,
    NoOpenSeatError,
    NotTheHostError,
    Setup,
    StaleVersionError,
    Step,
    WrongJoinCodeError,
    abort,
    bots_move,
    check_join_code,
    create,
    declare,
    join,
    join_code,
    leave,
    link_rematch,
    move,
    new_game_id,
    rematch,
    rematch_token,
    rotate_join_code,
)
from .store import GameNotFoundError, GameStore, VersionConflictError
from .text import MAX_ABORT_REASON

__all__ = [
    "MAX_ABORT_REASON",
    "MAX_CLOCK_SECONDS",
    "MIN_CLOCK_SECONDS",
    "AlreadyOverError",
    "Answer",
    "BotMatchTooLongError",
    "BotSettings",
    "Creation",
    "Game",
    "GameNotFoundError",
    "Joining",
    "Lobby",
    "MatchAbortedError",
    "MatchNotOverError",
    "MatchStartedError",
    "NoOpenSeatError",
    "NotStartedError",
    "NotStartedYetError",
    "NotTheHostError",
    "WrongJoinCodeError",
    "GameStore",
    "IdempotencyKeyReusedError",
    "IdempotentRequest",
    "NoBotToMoveError",
    "Setup",
    "StaleVersionError",
    "Step",
    "UnauthorizedError",
    "VersionConflictError",
    "abort",
    "bots_move",
    "check_join_code",
    "create",
    "declare",
    "hash_token",
    "join",
    "join_code",
    "leave",
    "link_rematch",
    "move",
    "new_game_id",
    "rematch",
    "rematch_token",
    "rotate_join_code",
]
