"""RFC 9457 problem details: every 4xx and 5xx the service sends, and their documentation.

Views raise :class:`Problem`, or let an engine, game or store error through; one table,
:data:`PROBLEMS`, says which problem each error is. flask-smorest's public hook
``handle_http_exception`` answers HTTP errors (routing, sizes, bad bodies) the same way.
No answer ever holds a stack trace or a hidden card.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from http import HTTPStatus
from typing import Any

import marshmallow as ma
import orjson
import redis
from flask import Flask, Response, has_app_context, has_request_context, request
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from ..engine import (
    AmbiguousMoveError,
    IllegalDeclarationError,
    IllegalMoveError,
    InvalidSetupError,
    MatchOverError,
    NotYourTurnError,
    ScopaError,
)
from ..play import (
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
from ..play.commands.games import (
    NotDeletableError,
    ReactionsClosedError,
    RoundGameRefusedError,
    StartRefusedError,
)
from ..play.commands.webhooks import DeliveryNotFoundError, EndpointNotFoundError
from ..play.records import RecordRefusedError
from ..play.webhooks.addresses import RefusedAddressError
from ..play.webhooks.store import TooManyEndpointsError
from .breaker import StorageUnavailableError
from .breaker import breaker as current_breaker
from .fields import Card, Enumerated, Enumeration
from .observability import REDIS_ERRORS
from .responses import ResponseSchema

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger(__name__)


class ProblemType(StrEnum):
    """Every problem type the service sends (the ``type`` member)."""

    HTTP = "about:blank"
    VALIDATION = "/problems/validation"
    INVALID_JSON = "/problems/invalid-json"
    UNSUPPORTED_MEDIA_TYPE = "/problems/unsupported-media-type"
    UNAUTHORIZED = "/problems/unauthorized"
    GAME_NOT_FOUND = "/problems/game-not-found"
    NOT_YOUR_TURN = "/problems/not-your-turn"
    MATCH_OVER = "/problems/match-over"
    MATCH_ABORTED = "/problems/match-aborted"
    MATCH_NOT_STARTED = "/problems/match-not-started"
    NOT_STARTED_YET = "/problems/not-started-yet"
    MATCH_STARTED = "/problems/match-started"
    MATCH_NOT_OVER = "/problems/match-not-over"
    NO_OPEN_SEAT = "/problems/no-open-seat"
    WRONG_JOIN_CODE = "/problems/wrong-join-code"
    NOT_THE_HOST = "/problems/not-the-host"
    CONFLICT = "/problems/conflict"
    VERSION_MISMATCH = "/problems/version-mismatch"
    ILLEGAL_MOVE = "/problems/illegal-move"
    AMBIGUOUS_MOVE = "/problems/ambiguous-move"
    ILLEGAL_DECLARATION = "/problems/illegal-declaration"
    IDEMPOTENCY_KEY_REUSED = "/problems/idempotency-key-reused"
    INVALID_SETUP = "/problems/invalid-setup"
    BOT_MATCH_TOO_LONG = "/problems/bot-match-too-long"
    HAND_IN_PROGRESS = "/problems/hand-in-progress"
    HAND_NOT_FOUND = "/problems/hand-not-found"
    RATE_LIMITED = "/problems/rate-limited"
    WEBHOOK_NOT_FOUND = "/problems/webhook-not-found"
    WEBHOOK_DELIVERY_NOT_FOUND = "/problems/webhook-delivery-not-found"
    WEBHOOK_URL_REFUSED = "/problems/webhook-url-refused"
    TOO_MANY_WEBHOOKS = "/problems/too-many-webhooks"
    RECORD_REFUSED = "/problems/record-refused"
    STORAGE_UNAVAILABLE = "/problems/storage-unavailable"
    INTERNAL = "/problems/internal"


#: Each problem type's title ("" for the status phrase) and what it means.
MEANINGS: dict[ProblemType, tuple[str, str]] = {
    ProblemType.HTTP: ("", "A plain HTTP error; the title is the status phrase."),
    ProblemType.VALIDATION: (
        "Invalid request",
        "The body or parameters failed validation; see `errors`.",
    ),
    ProblemType.INVALID_JSON: ("Invalid JSON", "The body is not valid JSON."),
    ProblemType.UNSUPPORTED_MEDIA_TYPE: (
        "Unsupported media type",
        "A body was sent with a type other than JSON.",
    ),
    ProblemType.UNAUTHORIZED: (
        "Unauthorized",
        "No seat token, or one that is not a token of this game.",
    ),
    ProblemType.GAME_NOT_FOUND: (
        "Game not found",
        "No game has this id (it never existed or expired).",
    ),
    ProblemType.NOT_YOUR_TURN: (
        "Not your turn",
        "The move came from a seat that is not the seat to play.",
    ),
    ProblemType.MATCH_OVER: ("Match over", "The match has finished: no more moves."),
    ProblemType.MATCH_NOT_STARTED: (
        "Match not started",
        "The match waits for people to take its open seats: nothing is dealt yet.",
    ),
    ProblemType.NOT_STARTED_YET: (
        "Not started yet",
        "The match was created to start at a given time (`start_at`): no move before then.",
    ),
    ProblemType.MATCH_ABORTED: (
        "Match aborted",
        "The service key that created the game aborted it: nothing more happens in it.",
    ),
    ProblemType.MATCH_STARTED: (
        "Match started",
        "A seat can leave only before the match starts.",
    ),
    ProblemType.MATCH_NOT_OVER: (
        "Match not over",
        "A rematch follows a finished match; this one is still being played.",
    ),
    ProblemType.NO_OPEN_SEAT: (
        "No open seat",
        "Every seat is taken (or the one asked for is), or the match has started.",
    ),
    ProblemType.WRONG_JOIN_CODE: (
        "Wrong join code",
        "The join code is not this game's: ask whoever created it for the code.",
    ),
    ProblemType.NOT_THE_HOST: (
        "Not the game's creator",
        "Only the seat of whoever created the game (the first person's seat named at "
        "creation) may do this.",
    ),
    ProblemType.CONFLICT: (
        "Conflicting move",
        "Another move was stored first; reload the game and retry.",
    ),
    ProblemType.VERSION_MISMATCH: (
        "Version mismatch",
        "If-Match named a version that is no longer current.",
    ),
    ProblemType.ILLEGAL_MOVE: (
        "Illegal move",
        "The rules do not allow this move; see `legal_captures`.",
    ),
    ProblemType.AMBIGUOUS_MOVE: (
        "Ambiguous move",
        "The card can capture in several ways; say which in `capture`.",
    ),
    ProblemType.ILLEGAL_DECLARATION: (
        "Illegal declaration",
        "The rules do not allow this declaration now (Cirulla, docs/rules.md C3); "
        "`GET legal-moves` lists those that are.",
    ),
    ProblemType.IDEMPOTENCY_KEY_REUSED: (
        "Idempotency key reused",
        "The Idempotency-Key came with a different request before; use a new key.",
    ),
    ProblemType.INVALID_SETUP: (
        "Invalid setup",
        "The match or position asked for cannot exist.",
    ),
    ProblemType.BOT_MATCH_TOO_LONG: (
        "Match of computer players too long",
        "A match of computer players only may be played to the service's cap at most "
        "(BOT_ONLY_MAX_TARGET; by default, the variant's default target): ask for a lower "
        "`target`, or give a seat to a person.",
    ),
    ProblemType.HAND_IN_PROGRESS: (
        "Hand in progress",
        "That hand is still being played: no score yet.",
    ),
    ProblemType.HAND_NOT_FOUND: ("Hand not found", "The match has no hand with this number."),
    ProblemType.WEBHOOK_NOT_FOUND: (
        "Webhook endpoint not found",
        "The service key has no webhook endpoint with this id.",
    ),
    ProblemType.WEBHOOK_DELIVERY_NOT_FOUND: (
        "Webhook delivery not found",
        "The endpoint has no delivery with this id (its log keeps the latest 1,000).",
    ),
    ProblemType.WEBHOOK_URL_REFUSED: (
        "Webhook URL refused",
        "Webhooks go only to https:// URLs at public addresses (after DNS resolution).",
    ),
    ProblemType.RECORD_REFUSED: (
        "Record refused",
        "An imported record is not that of a finished match: `event` is the first event "
        "the rules refuse, or `detail` names the claim its events contradict.",
    ),
    ProblemType.TOO_MANY_WEBHOOKS: (
        "Too many webhook endpoints",
        "The service key has as many webhook endpoints as the service allows.",
    ),
    ProblemType.RATE_LIMITED: (
        "Too many requests",
        "Over the request rate allowed per address or token; retry after `Retry-After`.",
    ),
    ProblemType.STORAGE_UNAVAILABLE: (
        "Storage unavailable",
        "The game store cannot be reached; retry after `Retry-After`.",
    ),
    ProblemType.INTERNAL: ("Internal error", "An unexpected error; it was logged."),
}


PROBLEM_TYPE = Enumeration(
    "ProblemType",
    tuple(t.value for t in ProblemType),
    "The kind of problem (a problem's `type`): "
    + "; ".join(f"`{t.value}`: {MEANINGS[t][1]}" for t in ProblemType),
    example=ProblemType.ILLEGAL_MOVE.value,
    names=tuple(t.name for t in ProblemType),
)


class ProblemSchema(ResponseSchema):
    """An RFC 9457 problem details object."""

    #: Present only with the problems they belong to.
    optional = frozenset({"errors", "legal_captures", "current_version", "event"})

    type = Enumerated(PROBLEM_TYPE, metadata={"description": "The kind of problem."})
    title = ma.fields.String(required=True, metadata={"description": "Short summary of the type."})
    status = ma.fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = ma.fields.String(
        required=True, metadata={"description": "What went wrong here, and what to do about it."}
    )
    errors = ma.fields.Dict(
        keys=ma.fields.String(),
        metadata={"description": "Validation errors by field name (validation problems)."},
    )
    legal_captures = ma.fields.List(
        ma.fields.List(Card()),
        metadata={
            "description": "Illegal or ambiguous moves: the captures the card played may "
            "make, each a list of table cards (an empty list lays the card)."
        },
    )
    current_version = ma.fields.Integer(
        metadata={"description": "Version mismatch and conflicts: the game's version now."}
    )
    event = ma.fields.Integer(
        allow_none=True,
        metadata={
            "description": "A refused record: the position in its `events` of the first "
            "event the rules refuse (null: a claim of the record is refused)."
        },
    )


class Problem(Exception):
    """An HTTP error the service answers with a problem+json body."""

    def __init__(
        self,
        status: int,
        type_: ProblemType,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.type = type_
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra

    def response(self) -> Response:
        body = {
            "type": self.type.value,
            "title": MEANINGS[self.type][0] or HTTPStatus(self.status).phrase,
            "status": self.status,
            "detail": self.detail,
            **self.extra,
        }
        # Validation errors of list items are keyed by index: written as strings.
        data = orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
        resp = Response(data, status=self.status, mimetype=PROBLEM_JSON)
        resp.headers.update(self.headers)
        return resp


def rate_limited(detail: str, retry_after: int) -> Problem:
    """429: over a quota, with the seconds to wait in Retry-After."""
    return Problem(429, ProblemType.RATE_LIMITED, detail, headers={"Retry-After": str(retry_after)})


def etag(version: int) -> dict[str, str]:
    """The ETag header of a game at ``version``."""
    return {"ETag": f'"{version}"'}


def _illegal(error: IllegalMoveError) -> Problem:
    kind = (
        ProblemType.AMBIGUOUS_MOVE
        if isinstance(error, AmbiguousMoveError)
        else ProblemType.ILLEGAL_MOVE
    )
    return Problem(422, kind, str(error), legal_captures=error.legal_captures)


def _not_started_yet(error: NotStartedYetError) -> Problem:
    at = datetime.fromtimestamp(error.start_at, UTC).isoformat(timespec="milliseconds")
    wait = max(1, math.ceil(error.start_at - time.time()))
    return Problem(
        409,
        ProblemType.NOT_STARTED_YET,
        f"The match starts at {at.replace('+00:00', 'Z')}: no move before then (in "
        f"{wait} s, as Retry-After says).",
        headers={"Retry-After": str(wait)},
    )


def _stale(error: StaleVersionError) -> Problem:
    return Problem(
        412,
        ProblemType.VERSION_MISMATCH,
        f"The game is now at version {error.current}: reload it before moving.",
        current_version=error.current,
        headers=etag(error.current),
    )


def _storage_down(error: Exception) -> Problem:
    """503: Redis timed out or cannot be reached, or the breaker refused the call unsent
    (service/api/breaker.py). Retry-After is what is left of the breaker's cool-down."""
    REDIS_ERRORS.inc()
    maybe_stored = False
    if isinstance(error, StorageUnavailableError):
        retry = error.retry_after  # refused unsent; the breaker logged when it opened
    else:
        log.warning("game store unreachable: %s", type(error).__name__)
        found = current_breaker() if has_app_context() else None
        retry = found.retry_after() if found is not None else 1
        # A write sent to a Redis that then did not answer in time is still carried out
        # if Redis wakes up (it reads its socket before it sees the client gone).
        maybe_stored = (
            isinstance(error, redis.exceptions.TimeoutError)
            and has_request_context()
            and request.method not in ("GET", "HEAD", "OPTIONS")
        )
    when = "1 second" if retry == 1 else f"{retry} seconds"
    if maybe_stored:
        detail = (
            "The game store did not answer in time, and the change may still be stored: "
            "reload the game (or resend with the same Idempotency-Key) before playing "
            f"again. Retry in {when}."
        )
    else:
        detail = f"The game store is unreachable right now. Nothing was changed; retry in {when}."
    return Problem(
        503, ProblemType.STORAGE_UNAVAILABLE, detail, headers={"Retry-After": str(retry)}
    )


#: The problem each error the views let through is. An error is looked up by its class,
#: then by each of its base classes in turn: the most specific entry wins.
PROBLEMS: dict[type[Exception], Callable[[Any], Problem]] = {
    Problem: lambda problem: problem,
    IllegalMoveError: _illegal,
    IllegalDeclarationError: lambda e: Problem(422, ProblemType.ILLEGAL_DECLARATION, str(e)),
    NotYourTurnError: lambda e: Problem(409, ProblemType.NOT_YOUR_TURN, f"Not your turn: {e}."),
    MatchOverError: lambda e: Problem(
        409, ProblemType.MATCH_OVER, "The match has finished: no more moves."
    ),
    NotStartedError: lambda e: Problem(
        409,
        ProblemType.MATCH_NOT_STARTED,
        "The match waits for people to take its open seats: nothing is dealt yet, so "
        "there is no move, hint or score to give. Follow the game until its status is "
        "'playing'.",
    ),
    NoOpenSeatError: lambda e: Problem(
        409, ProblemType.NO_OPEN_SEAT, f"No seat to take here: {e}."
    ),
    WrongJoinCodeError: lambda e: Problem(
        403,
        ProblemType.WRONG_JOIN_CODE,
        "This is not the game's join code: ask whoever created the game for it.",
    ),
    NotTheHostError: lambda e: Problem(
        403,
        ProblemType.NOT_THE_HOST,
        "Only the seat of whoever created the game may give it a new join code: ask them.",
    ),
    NotStartedYetError: _not_started_yet,
    MatchAbortedError: lambda e: Problem(
        409,
        ProblemType.MATCH_ABORTED,
        "The game was aborted by whoever created it: nothing more happens in it.",
    ),
    AlreadyOverError: lambda e: Problem(
        409,
        ProblemType.MATCH_ABORTED if e.status == "aborted" else ProblemType.MATCH_OVER,
        f"The game is {e.status} already: only a game still waiting or playing can be aborted.",
    ),
    MatchStartedError: lambda e: Problem(
        409,
        ProblemType.MATCH_STARTED,
        "The match has started: a seat can leave only while the game waits for people.",
    ),
    MatchNotOverError: lambda e: Problem(
        409,
        ProblemType.MATCH_NOT_OVER,
        "A rematch follows a finished match, and this one is still being played.",
    ),
    InvalidSetupError: lambda e: Problem(422, ProblemType.INVALID_SETUP, str(e)),
    BotMatchTooLongError: lambda e: Problem(422, ProblemType.BOT_MATCH_TOO_LONG, str(e)),
    ScopaError: lambda e: Problem(422, ProblemType.VALIDATION, str(e)),
    GameNotFoundError: lambda e: Problem(
        404,
        ProblemType.GAME_NOT_FOUND,
        "No game has this id: it never existed, or it expired after a long pause.",
    ),
    VersionConflictError: lambda e: Problem(
        409,
        ProblemType.CONFLICT,
        "Another move was stored while this one was being applied: reload the game "
        "and play again if the move is still yours to make.",
    ),
    StaleVersionError: _stale,
    NoBotToMoveError: lambda e: Problem(
        409,
        ProblemType.NOT_YOUR_TURN,
        "No move is due: the seat to play is a person's whose time has not run out, or "
        "the match is not being played.",
    ),
    IdempotencyKeyReusedError: lambda e: Problem(
        422,
        ProblemType.IDEMPOTENCY_KEY_REUSED,
        "This Idempotency-Key was used for a different request: use a new key for a new "
        "request, or resend the first request exactly.",
    ),
    NotDeletableError: lambda e: Problem(
        409,
        ProblemType.MATCH_NOT_OVER,
        f"The game is {e.game.status}: only a finished or aborted game can be deleted. "
        f"Abort it first (POST /v1/games/{e.game.id}/abort).",
    ),
    ReactionsClosedError: lambda e: Problem(
        409,
        ProblemType.MATCH_OVER,
        "The match is over: reactions are for a game waiting or being played. "
        "Start a rematch to play (and react) again.",
    ),
    StartRefusedError: lambda e: Problem(
        422,
        ProblemType.VALIDATION,
        f"games[{e.number}]: {e.why}.",
        errors={"games": {str(e.number): {"start_at": [e.why]}}},
    ),
    RoundGameRefusedError: lambda e: _of_round(e),
    RecordRefusedError: lambda e: Problem(
        422,
        ProblemType.RECORD_REFUSED,
        f"This record is not that of a finished match: {e}.",
        event=e.event,
    ),
    RefusedAddressError: lambda e: Problem(
        422,
        ProblemType.WEBHOOK_URL_REFUSED,
        f"This URL cannot receive webhooks: {e}. Give an https:// URL at a public address.",
    ),
    TooManyEndpointsError: lambda e: Problem(
        409,
        ProblemType.TOO_MANY_WEBHOOKS,
        f"This key has {e.most} webhook endpoints, the most it may have: delete one "
        "(DELETE /v1/webhooks/{id}) before registering another.",
    ),
    EndpointNotFoundError: lambda e: Problem(
        404,
        ProblemType.WEBHOOK_NOT_FOUND,
        "This key has no webhook endpoint with this id: GET /v1/webhooks lists them.",
    ),
    DeliveryNotFoundError: lambda e: Problem(
        404,
        ProblemType.WEBHOOK_DELIVERY_NOT_FOUND,
        "This endpoint has no delivery with this id (the log keeps the latest 1,000): "
        "GET .../deliveries lists them.",
    ),
    redis.exceptions.ConnectionError: _storage_down,
    redis.exceptions.TimeoutError: _storage_down,
    # A Redis Cluster reshaping: no node reachable, a slot without a master for now
    # (CLUSTERDOWN), a slot being moved (TRYAGAIN).
    redis.exceptions.RedisClusterException: _storage_down,
    redis.exceptions.ClusterDownError: _storage_down,
    redis.exceptions.TryAgainError: _storage_down,
    StorageUnavailableError: _storage_down,
}


def _of_round(error: RoundGameRefusedError) -> Problem:
    """A bulk creation's game refused: its problem, naming the game."""
    problem = problem_of(error.error)
    return Problem(problem.status, problem.type, f"games[{error.number}]: {problem.detail}")


def problem_of(error: Exception) -> Problem:
    """The problem ``error`` is (see :data:`PROBLEMS`); an unexpected error is a 500."""
    for cls in type(error).__mro__:
        make = PROBLEMS.get(cls)
        if make is not None:
            return make(error)
    log.error("unhandled error", exc_info=error)
    return Problem(
        500, ProblemType.INTERNAL, "Something went wrong on our side; it has been logged."
    )


def problem_of_http_error(error: HTTPException) -> Problem:
    """Werkzeug and webargs errors: routing, methods, sizes, body validation."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    headers = data.get("headers") or {}
    if status == 400 and messages == {"json": ["Invalid JSON body."]}:
        return Problem(400, ProblemType.INVALID_JSON, "The request body is not valid JSON.")
    if status == 422 and messages is not None:
        errors: dict[str, Any] = {}
        for location_errors in messages.values():  # {"json": {...}, "query": {...}}
            if isinstance(location_errors, dict):
                errors.update(location_errors)
            else:
                errors["_schema"] = location_errors
        fields = ", ".join(sorted(errors)) or "the body"
        return Problem(
            422,
            ProblemType.VALIDATION,
            f"The request is not valid: check {fields}. Each field's errors are in 'errors'.",
            errors=errors,
        )
    if status == 405:
        valid = getattr(error, "valid_methods", None)
        headers = {"Allow": ", ".join(valid or [])} if valid is not None else {}
    detail = error.description or HTTPStatus(status).phrase
    return Problem(status, ProblemType.HTTP, detail, headers=headers)


class ProblemApi(Api):
    """flask-smorest's Api, answering every error with problem+json: HTTP errors through
    its public hook :meth:`handle_http_exception`, every other error through
    :func:`problem_of`."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # each operation lists its own errors

    def init_app(self, app: Flask, *, spec_kwargs: dict[str, Any] | None = None) -> None:
        super().init_app(app, spec_kwargs=spec_kwargs)
        # flask-smorest registers the schema of its pagination header, for paginated
        # answers; no answer is paginated, and the spec would list it unused.
        self.spec.components.schemas.pop("PaginationMetadata", None)
        app.register_error_handler(Exception, lambda error: problem_of(error).response())

    def handle_http_exception(self, error: HTTPException) -> Response:
        return problem_of_http_error(error).response()


RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer"},
    }
}
RATE_LIMITED = {
    429: "Too many requests from this address or token: retry after `Retry-After` seconds."
}
#: What any operation that reads or writes a game may answer.
STORE_ERRORS = {
    503: "The game store is unreachable or did not answer in time: retry after `Retry-After` "
    "seconds. `detail` says whether anything may have been stored (a write whose answer "
    "timed out: reload the game, or resend with the same Idempotency-Key)."
}


def error_responses(errors: Mapping[int, str], *, limited: bool = True) -> dict[str, Any]:
    """The OpenAPI responses of an operation's problems, ``{status: when it happens}``,
    and the rate limit's 429 unless the operation is never limited."""
    responses: dict[str, Any] = {}
    for status, description in {**errors, **(RATE_LIMITED if limited else {})}.items():
        response: dict[str, Any] = {"description": description}
        if status in (429, 503):
            response["headers"] = RETRY_AFTER
        response["content"] = {PROBLEM_JSON: {"schema": ProblemSchema}}
        responses[str(status)] = response
    return responses
