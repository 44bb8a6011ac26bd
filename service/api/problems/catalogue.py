"""The catalogue of problem types: one row each (as Stripe's error catalogue has one entry
per error code). The spec's ProblemType and Problem schemas, the problem answers each
operation documents, docs/api.md's table of problem types, and the problem each error of
the engine, the play layer and the store is, are all read from :data:`ROWS`."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import redis

from ...engine import errors as engine
from ...play import (
    AlreadyOverError,
    BotMatchTooLongError,
    GameNotFoundError,
    IdempotencyKeyReusedError,
    MatchAbortedError,
    MatchNotOverError,
    MatchStartedError,
    NoBotToMoveError,
    NoOpenSeatError,
    NotStartedError,
    NotStartedYetError,
    NotTheHostError,
    StaleVersionError,
    VersionConflictError,
    WrongJoinCodeError,
)
from ...play.commands.games import (
    NotDeletableError,
    ReactionsClosedError,
    RoundGameRefusedError,
    StartRefusedError,
    TournamentGameError,
)
from ...play.commands.tournaments import TournamentRefusedError
from ...play.commands.webhooks import DeliveryNotFoundError, EndpointNotFoundError
from ...play.invitations import InvitationNotFoundError
from ...play.records import RecordRefusedError
from ...play.text import TextRefusedError
from ...play.tournaments.store import TournamentChangedError, TournamentNotFoundError
from ...play.webhooks.addresses import RefusedAddressError
from ...play.webhooks.store import TooManyEndpointsError
from ..breaker import StorageUnavailableError
from .problem_type import Explain, ProblemRow, ProblemType, Said, invalid
from .storage import storage_down

log = logging.getLogger("service.api.problems")

#: What Retry-After says when it says to wait.
WAIT = "Seconds to wait before retrying."


def etag(version: int) -> dict[str, str]:
    """The ETag header of a game at ``version``."""
    return {"ETag": f'"{version}"'}


def _not_started_yet(error: NotStartedYetError) -> Said:
    at = datetime.fromtimestamp(error.start_at, UTC).isoformat(timespec="milliseconds")
    wait = max(1, math.ceil(error.start_at - time.time()))
    return Said(
        f"The match starts at {at.replace('+00:00', 'Z')}: no move before then (in "
        f"{wait} s, as Retry-After says).",
        headers={"Retry-After": str(wait)},
    )


def _stale(error: StaleVersionError) -> Said:
    return Said(
        f"The game is now at version {error.current}: reload it before moving.",
        members={"current_version": error.current},
        headers=etag(error.current),
    )


def _illegal(error: engine.IllegalMoveError) -> Said:
    return Said(str(error), members={"legal_captures": error.legal_captures})


def _refused_move(
    type_: ProblemType, title: str, detail: str, error: type[engine.IllegalMoveError]
) -> ProblemRow:
    """The row of a move the rules refuse (illegal, or ambiguous): a 422 listing what the
    card may capture (``legal_captures``)."""
    return ProblemRow(
        type_, 422, title, detail, members=("legal_captures",), raised_by={error: _illegal}
    )


def _already_over(aborted: bool) -> Explain:
    """An abort of a game over already: match-aborted if it was aborted, else match-over."""

    def explain(error: AlreadyOverError) -> str | None:
        if (error.status == "aborted") != aborted:
            return None
        return (
            f"The game is {error.status} already: only a game still waiting or playing can "
            "be aborted."
        )

    return explain


def _in_round(kind: ProblemType) -> Explain:
    """A bulk creation's game refused, as the problem its own error is, naming the game:
    this row's when that problem is ``kind``."""

    def explain(error: RoundGameRefusedError) -> str | None:
        found, said = explained(error.error)  # (defined below, called once rows exist)
        return f"games[{error.number}]: {said.detail}" if found.type == kind else None

    return explain


def _start_refused(error: StartRefusedError) -> Said:
    return Said(
        f"games[{error.number}]: {error.why}.",
        members={"errors": {"games": {str(error.number): {"start_at": [error.why]}}}},
    )


def _text_refused(error: TextRefusedError) -> Said:
    """A text the command path refused (service/play/commands/texts.py), said as the
    body's other fields' errors are: nested by where it is."""
    errors: Any = [str(error)]
    for step in reversed(error.where or ("_schema",)):
        errors = {step: errors}
    return invalid(errors)


def _unexpected(error: Exception) -> str:
    log.error("unhandled error", exc_info=error)
    return "Something went wrong on our side; it has been logged."


#: Redis failures: unreachable, timed out, refused unsent by the breaker; and a Redis
#: Cluster reshaping (no node reachable, a slot without a master for now: CLUSTERDOWN, a
#: slot being moved: TRYAGAIN).
_STORAGE_ERRORS: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.RedisClusterException,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
    StorageUnavailableError,
)

#: The catalogue: one row per problem type, in the order of :class:`ProblemType`.
ROWS: tuple[ProblemRow, ...] = (
    ProblemRow(
        ProblemType.HTTP,
        (400, 404, 405, 408, 413, 431, 500, 503),
        "",
        "A plain HTTP error, titled by its status: a path unknown (404), a method it "
        "lacks (405, `Allow`), a body over `MAX_BODY_BYTES` (413), no valid HTTP (400, "
        "408, 431), a full server (503).",
    ),
    ProblemRow(
        ProblemType.VALIDATION,
        422,
        "Invalid request",
        "The body or parameters failed validation; see `errors`.",
        members=("errors",),
        raised_by={
            engine.ScopaError: str,
            TextRefusedError: _text_refused,
            StartRefusedError: _start_refused,
            RoundGameRefusedError: _in_round(ProblemType.VALIDATION),
            TournamentRefusedError: lambda e: invalid({e.field: [str(e)]}),
        },
    ),
    ProblemRow(ProblemType.INVALID_JSON, 400, "Invalid JSON", "The body is not valid JSON."),
    ProblemRow(
        ProblemType.UNSUPPORTED_MEDIA_TYPE,
        415,
        "Unsupported media type",
        "A body was sent with a type other than JSON.",
    ),
    ProblemRow(
        ProblemType.UNAUTHORIZED,
        401,
        "Unauthorized",
        "No seat token (a game without spectators is read only with one), or one that is "
        "not a token of this game; or no service key where one is needed.",
        headers={
            "WWW-Authenticate": "`Bearer`, the scheme a token is sent with "
            "(`Authorization: Bearer <token>`)."
        },
    ),
    ProblemRow(
        ProblemType.GAME_NOT_FOUND,
        404,
        "Game not found",
        "No game has this id (it never existed or expired).",
        raised_by={
            GameNotFoundError: lambda e: (
                "No game has this id: it never existed, or it expired after a long pause."
            )
        },
    ),
    ProblemRow(
        ProblemType.NOT_YOUR_TURN,
        409,
        "Not your turn",
        "The move (or hint) came from a seat that is not the seat to play; or the computer "
        "players were asked to move when none is due.",
        raised_by={
            engine.NotYourTurnError: lambda e: f"Not your turn: {e}.",
            NoBotToMoveError: lambda e: (
                "No move is due: the seat to play is a person's whose time has not run out, "
                "or the match is not being played."
            ),
        },
    ),
    ProblemRow(
        ProblemType.MATCH_OVER,
        409,
        "Match over",
        "The match has finished: no more moves, reactions or aborts.",
        raised_by={
            engine.MatchOverError: lambda e: "The match has finished: no more moves.",
            AlreadyOverError: _already_over(aborted=False),
            ReactionsClosedError: lambda e: (
                "The match is over: reactions are for a game waiting or being played. "
                "Start a rematch to play (and react) again."
            ),
        },
    ),
    ProblemRow(
        ProblemType.MATCH_ABORTED,
        409,
        "Match aborted",
        "The service key that created the game aborted it: nothing more happens in it "
        "(no move, join or abort).",
        raised_by={
            MatchAbortedError: lambda e: (
                "The game was aborted by whoever created it: nothing more happens in it."
            ),
            AlreadyOverError: _already_over(aborted=True),
        },
    ),
    ProblemRow(
        ProblemType.MATCH_NOT_STARTED,
        409,
        "Match not started",
        "The match waits for people to take its open seats: nothing is dealt yet.",
        raised_by={
            NotStartedError: lambda e: (
                "The match waits for people to take its open seats: nothing is dealt yet, "
                "so there is no move, hint or score to give. Follow the game until its "
                "status is 'playing'."
            )
        },
    ),
    ProblemRow(
        ProblemType.NOT_STARTED_YET,
        409,
        "Not started yet",
        "The match was created to start at a given time (`start_at`): no move before then.",
        headers={"Retry-After": "Seconds until the match starts."},
        raised_by={NotStartedYetError: _not_started_yet},
    ),
    ProblemRow(
        ProblemType.MATCH_STARTED,
        409,
        "Match started",
        "A seat can leave only before the match starts.",
        raised_by={
            MatchStartedError: lambda e: (
                "The match has started: a seat can leave only while the game waits for people."
            )
        },
    ),
    ProblemRow(
        ProblemType.MATCH_NOT_OVER,
        409,
        "Match not over",
        "A rematch follows a finished match, a record is of one, and only a finished or "
        "aborted game is deleted; this one is still waiting or being played.",
        raised_by={
            MatchNotOverError: lambda e: (
                "A rematch follows a finished match, and this one is still being played."
            ),
            NotDeletableError: lambda e: (
                f"The game is {e.game.status}: only a finished or aborted game can be "
                f"deleted. Abort it first (POST /v1/games/{e.game.id}/abort)."
            ),
        },
    ),
    ProblemRow(
        ProblemType.NO_OPEN_SEAT,
        409,
        "No open seat",
        "Every seat is taken (or the one asked for is), or the match has started.",
        raised_by={NoOpenSeatError: lambda e: f"No seat to take here: {e}."},
    ),
    ProblemRow(
        ProblemType.WRONG_JOIN_CODE,
        403,
        "Wrong join code",
        "The join code is not this game's: ask whoever created it for the code.",
        raised_by={
            WrongJoinCodeError: lambda e: (
                "This is not the game's join code: ask whoever created the game for it."
            )
        },
    ),
    ProblemRow(
        ProblemType.INVITATION_NOT_FOUND,
        404,
        "Invitation not found",
        "No game waiting for people has this join code: it was mistyped, or given a new "
        "one, or its match has started (or it expired); ask whoever created it for the code.",
        raised_by={
            InvitationNotFoundError: lambda e: (
                "No game waiting for people has this code: check it, or ask whoever created "
                "the game for its code (a code given out before a new one, or of a match that "
                "has started, lets nobody in)."
            )
        },
    ),
    ProblemRow(
        ProblemType.NOT_THE_HOST,
        403,
        "Not the game's creator",
        "Only the seat of whoever created the game (the first person's seat named at "
        "creation) may do this.",
        raised_by={
            NotTheHostError: lambda e: (
                "Only the seat of whoever created the game may give it a new join code: ask them."
            )
        },
    ),
    ProblemRow(
        ProblemType.CONFLICT,
        409,
        "Conflicting move",
        "Another move was stored first; reload the game and retry.",
        raised_by={
            VersionConflictError: lambda e: (
                "Another move was stored while this one was being applied: reload the game "
                "and play again if the move is still yours to make."
            ),
            TournamentChangedError: lambda e: (
                "The tournament kept changing while this request was applied: read it again "
                "and retry if the change is still to make."
            ),
        },
    ),
    ProblemRow(
        ProblemType.VERSION_MISMATCH,
        412,
        "Version mismatch",
        "If-Match named a version that is no longer current.",
        members=("current_version",),
        headers={"ETag": "The game's version now, with `current_version`."},
        raised_by={StaleVersionError: _stale},
    ),
    _refused_move(
        ProblemType.ILLEGAL_MOVE,
        "Illegal move",
        "The rules do not allow this move; see `legal_captures`.",
        engine.IllegalMoveError,
    ),
    _refused_move(
        ProblemType.AMBIGUOUS_MOVE,
        "Ambiguous move",
        "The card can capture in several ways; say which in `capture`.",
        engine.AmbiguousMoveError,
    ),
    ProblemRow(
        ProblemType.ILLEGAL_DECLARATION,
        422,
        "Illegal declaration",
        "The rules do not allow this declaration now (Cirulla, docs/rules.md C3); "
        "`GET legal-moves` lists those that are.",
        raised_by={engine.IllegalDeclarationError: str},
    ),
    ProblemRow(
        ProblemType.IDEMPOTENCY_KEY_REUSED,
        422,
        "Idempotency key reused",
        "The Idempotency-Key came with a different request before; use a new key.",
        raised_by={
            IdempotencyKeyReusedError: lambda e: (
                "This Idempotency-Key was used for a different request: use a new key for a "
                "new request, or resend the first request exactly."
            )
        },
    ),
    ProblemRow(
        ProblemType.INVALID_SETUP,
        422,
        "Invalid setup",
        "The match or position asked for cannot exist.",
        raised_by={
            engine.InvalidSetupError: str,
            RoundGameRefusedError: _in_round(ProblemType.INVALID_SETUP),
        },
    ),
    ProblemRow(
        ProblemType.BOT_MATCH_TOO_LONG,
        422,
        "Match of computer players too long",
        "A match of computer players only may be played to the service's cap at most "
        "(BOT_ONLY_MAX_TARGET; by default, the variant's default target): ask for a lower "
        "`target`, or give a seat to a person.",
        raised_by={
            BotMatchTooLongError: str,
            RoundGameRefusedError: _in_round(ProblemType.BOT_MATCH_TOO_LONG),
        },
    ),
    ProblemRow(
        ProblemType.HAND_IN_PROGRESS,
        409,
        "Hand in progress",
        "That hand is still being played: no score yet.",
    ),
    ProblemRow(
        ProblemType.HAND_NOT_FOUND, 404, "Hand not found", "The match has no hand with this number."
    ),
    ProblemRow(
        ProblemType.RATE_LIMITED,
        429,
        "Too many requests",
        "Over the request rate allowed per address or token; retry after `Retry-After`.",
        headers={"Retry-After": WAIT},
    ),
    ProblemRow(
        ProblemType.WEBHOOK_NOT_FOUND,
        404,
        "Webhook endpoint not found",
        "The service key has no webhook endpoint with this id.",
        raised_by={
            EndpointNotFoundError: lambda e: (
                "This key has no webhook endpoint with this id: GET /v1/webhooks lists them."
            )
        },
    ),
    ProblemRow(
        ProblemType.WEBHOOK_DELIVERY_NOT_FOUND,
        404,
        "Webhook delivery not found",
        "The endpoint has no delivery with this id (its log keeps the latest 1,000).",
        raised_by={
            DeliveryNotFoundError: lambda e: (
                "This endpoint has no delivery with this id (the log keeps the latest "
                "1,000): GET .../deliveries lists them."
            )
        },
    ),
    ProblemRow(
        ProblemType.WEBHOOK_URL_REFUSED,
        422,
        "Webhook URL refused",
        "Webhooks go only to https:// URLs at public addresses (after DNS resolution).",
        raised_by={
            RefusedAddressError: lambda e: (
                f"This URL cannot receive webhooks: {e}. Give an https:// URL at a public address."
            )
        },
    ),
    ProblemRow(
        ProblemType.TOO_MANY_WEBHOOKS,
        409,
        "Too many webhook endpoints",
        "The service key has as many webhook endpoints as the service allows.",
        raised_by={
            TooManyEndpointsError: lambda e: (
                f"This key has {e.most} webhook endpoints, the most it may have: delete one "
                "(DELETE /v1/webhooks/{id}) before registering another."
            )
        },
    ),
    ProblemRow(
        ProblemType.RECORD_REFUSED,
        422,
        "Record refused",
        "An imported record is not that of a finished match: `event` is the first event "
        "the rules refuse, or `detail` names the claim its events contradict.",
        members=("event",),
        raised_by={
            RecordRefusedError: lambda e: Said(
                f"This record is not that of a finished match: {e}.", members={"event": e.event}
            )
        },
    ),
    ProblemRow(
        ProblemType.TOURNAMENT_NOT_FOUND,
        404,
        "Tournament not found",
        "No tournament has this id (it never existed, expired, or is another key's, or "
        "it is not public and no key of its own asked).",
        raised_by={
            TournamentNotFoundError: lambda e: (
                "No tournament has this id: it never existed, it expired after a long "
                "pause, or it is another key's (or not public, and this request has not "
                "its key)."
            )
        },
    ),
    ProblemRow(
        ProblemType.TOURNAMENT_GAME,
        409,
        "Tournament game",
        "The game is a tournament's: its result decides the tournament, so it is not "
        "aborted. Withdraw its absent entrant instead (its opponent wins the game).",
        raised_by={
            TournamentGameError: lambda e: (
                f"This game is a game of tournament {e.game.tournament}: it is not aborted. "
                f"Withdraw the entrant who cannot play (POST /v1/tournaments/"
                f"{e.game.tournament}/withdrawals): their opponent wins the game."
            )
        },
    ),
    ProblemRow(
        ProblemType.STORAGE_UNAVAILABLE,
        503,
        "Storage unavailable",
        "The game store cannot be reached, or did not answer in time; retry after "
        "`Retry-After`. `detail` says whether a change may have been stored.",
        headers={"Retry-After": WAIT},
        raised_by=dict.fromkeys(_STORAGE_ERRORS, storage_down),
    ),
    ProblemRow(
        ProblemType.INTERNAL,
        500,
        "Internal error",
        "An unexpected error; it was logged.",
        raised_by={Exception: _unexpected},
    ),
)

#: Each problem type's row.
CATALOGUE: dict[ProblemType, ProblemRow] = {r.type: r for r in ROWS}
if [r.type for r in ROWS] != list(ProblemType):
    raise RuntimeError("the catalogue holds one row per ProblemType, in its order")
if any(r.raised_by and len(r.statuses) != 1 for r in ROWS):
    raise RuntimeError("a problem that errors are made into has one status")

#: The rows that list each error class, with what each says of it.
_RAISED: dict[type[Exception], list[tuple[ProblemRow, Explain]]] = {}
for _row in ROWS:
    for _error, _explain in _row.raised_by.items():
        _RAISED.setdefault(_error, []).append((_row, _explain))
del _row, _error, _explain


def row(type_: ProblemType) -> ProblemRow:
    """``type_``'s row."""
    return CATALOGUE[type_]


def explained(error: Exception) -> tuple[ProblemRow, Said]:
    """The problem ``error`` is, and what it says: looked up by the error's class, then by
    each of its base classes in turn (the most specific row wins; every error is at
    least an :class:`Exception`, an internal error)."""
    for cls in type(error).__mro__:
        for found, explain in _RAISED.get(cls, ()):
            said = explain(error)
            if said is not None:
                return found, said if isinstance(said, Said) else Said(said)
    raise TypeError(f"{type(error).__name__} is not an Exception")  # pragma: no cover


def with_status(status: int) -> Iterator[ProblemRow]:
    """The rows answered with ``status``."""
    return (r for r in ROWS if status in r.statuses)
