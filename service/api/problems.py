"""RFC 9457 problem details: every 4xx and 5xx the service sends, and their documentation.

Views raise :class:`Problem` (or let an engine or store error through); the handlers
registered by :func:`register_problem_handlers` turn each into an
``application/problem+json`` response. No handler ever puts a stack trace or a hidden
card into a response.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any, TypeVar

import marshmallow as ma
import redis
from flask import Flask, Response
from flask_smorest import Api, Blueprint
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from ..engine import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidSetupError,
    MatchOverError,
    NotYourTurnError,
    ScopaError,
)
from ..store import GameNotFoundError, VersionConflictError
from .observability import REDIS_ERRORS
from .response_schema import ResponseSchema

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger(__name__)

#: Every problem type the service sends (the ``type`` member), with what it means.
PROBLEM_TYPES: dict[str, tuple[str, str]] = {
    "about:blank": ("", "A plain HTTP error; the title is the status phrase."),
    "/problems/validation": (
        "Invalid request",
        "The body or parameters failed validation; see `errors`.",
    ),
    "/problems/invalid-json": ("Invalid JSON", "The body is not valid JSON."),
    "/problems/unsupported-media-type": (
        "Unsupported media type",
        "A body was sent with a type other than JSON.",
    ),
    "/problems/unauthorized": (
        "Unauthorized",
        "No seat token, or one that is not a token of this game.",
    ),
    "/problems/game-not-found": (
        "Game not found",
        "No game has this id (it never existed or expired).",
    ),
    "/problems/not-your-turn": (
        "Not your turn",
        "The move came from a seat that is not the seat to play.",
    ),
    "/problems/match-over": ("Match over", "The match has finished: no more moves."),
    "/problems/conflict": (
        "Conflicting move",
        "Another move was stored first; reload the game and retry.",
    ),
    "/problems/version-mismatch": (
        "Version mismatch",
        "If-Match named a version that is no longer current.",
    ),
    "/problems/illegal-move": (
        "Illegal move",
        "The rules do not allow this move; see `legal_captures`.",
    ),
    "/problems/ambiguous-move": (
        "Ambiguous move",
        "The card can capture in several ways; say which in `capture`.",
    ),
    "/problems/idempotency-key-reused": (
        "Idempotency key reused",
        "The Idempotency-Key came with a different request before; use a new key.",
    ),
    "/problems/invalid-setup": ("Invalid setup", "The match or position asked for cannot exist."),
    "/problems/hand-in-progress": (
        "Hand in progress",
        "That hand is still being played: no score yet.",
    ),
    "/problems/hand-not-found": ("Hand not found", "The match has no hand with this number."),
    "/problems/rate-limited": (
        "Too many requests",
        "Over the request rate allowed per address or token; retry after `Retry-After`.",
    ),
    "/problems/storage-unavailable": (
        "Storage unavailable",
        "The game store cannot be reached; retry after `Retry-After`.",
    ),
    "/problems/internal": ("Internal error", "An unexpected error; it was logged."),
}


class ProblemSchema(ResponseSchema):
    """An RFC 9457 problem details object."""

    type = ma.fields.String(
        required=True,
        metadata={
            "enum": list(PROBLEM_TYPES),
            "description": "The kind of problem: "
            + "; ".join(f"`{k}`: {v[1]}" for k, v in PROBLEM_TYPES.items()),
        },
    )
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
        ma.fields.List(ma.fields.String()),
        metadata={
            "description": "Illegal or ambiguous moves: the captures the card played may "
            "make, each a list of table cards (an empty list lays the card)."
        },
    )
    current_version = ma.fields.Integer(
        metadata={"description": "Version mismatch and conflicts: the game's version now."}
    )


class Problem(Exception):
    """An HTTP error the service answers with a problem+json body."""

    def __init__(
        self,
        status: int,
        type_: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        assert type_ in PROBLEM_TYPES, type_
        self.status = status
        self.type = type_
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra

    def response(self) -> Response:
        body = {
            "type": self.type,
            "title": _title(self.type, self.status),
            "status": self.status,
            "detail": self.detail,
            **self.extra,
        }
        resp = Response(
            json.dumps(body, separators=(",", ":")), status=self.status, mimetype=PROBLEM_JSON
        )
        resp.headers.update(self.headers)
        return resp


def _title(type_: str, status: int) -> str:
    return PROBLEM_TYPES[type_][0] or HTTPStatus(status).phrase


def _from_http_exception(error: HTTPException) -> Problem:
    """Werkzeug and webargs errors: routing, methods, sizes, body validation."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    headers = data.get("headers") or {}
    if status == 400 and messages == {"json": ["Invalid JSON body."]}:
        return Problem(400, "/problems/invalid-json", "The request body is not valid JSON.")
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
            "/problems/validation",
            f"The request is not valid: check {fields}. Each field's errors are in 'errors'.",
            errors=errors,
        )
    if status == 405:
        headers = (
            {"Allow": ", ".join(error.valid_methods or [])}
            if hasattr(error, "valid_methods")
            else {}
        )
    detail = error.description or HTTPStatus(status).phrase
    return Problem(status, "about:blank", detail, headers=headers)


def _from_scopa_error(error: ScopaError) -> Problem:
    if isinstance(error, IllegalMoveError):
        kind = "ambiguous-move" if isinstance(error, AmbiguousMoveError) else "illegal-move"
        return Problem(422, f"/problems/{kind}", str(error), legal_captures=error.legal_captures)
    if isinstance(error, NotYourTurnError):
        return Problem(409, "/problems/not-your-turn", f"Not your turn: {error}.")
    if isinstance(error, MatchOverError):
        return Problem(409, "/problems/match-over", "The match has finished: no more moves.")
    if isinstance(error, InvalidSetupError):
        return Problem(422, "/problems/invalid-setup", str(error))
    return Problem(422, "/problems/validation", str(error))


def register_problem_handlers(app: Flask) -> None:
    """Turn every error into a problem+json response."""

    @app.errorhandler(Problem)
    def _problem(error: Problem) -> Response:
        return error.response()

    @app.errorhandler(ScopaError)
    def _scopa(error: ScopaError) -> Response:
        return _from_scopa_error(error).response()

    @app.errorhandler(GameNotFoundError)
    def _not_found(error: GameNotFoundError) -> Response:
        return Problem(
            404,
            "/problems/game-not-found",
            "No game has this id: it never existed, or it expired after a long pause.",
        ).response()

    @app.errorhandler(VersionConflictError)
    def _conflict(error: VersionConflictError) -> Response:
        return Problem(
            409,
            "/problems/conflict",
            "Another move was stored while this one was being applied: reload the game "
            "and play again if the move is still yours to make.",
        ).response()

    @app.errorhandler(redis.exceptions.ConnectionError)
    @app.errorhandler(redis.exceptions.TimeoutError)
    def _storage_down(error: Exception) -> Response:
        log.warning("game store unreachable: %s", type(error).__name__)
        REDIS_ERRORS.inc()
        return Problem(
            503,
            "/problems/storage-unavailable",
            "The game store is unreachable right now. Nothing was changed; retry in a moment.",
            headers={"Retry-After": "1"},
        ).response()

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException) -> Response:
        return _from_http_exception(error).response()

    @app.errorhandler(Exception)
    def _unexpected(error: Exception) -> Response:
        log.exception("unhandled error")
        return Problem(
            500, "/problems/internal", "Something went wrong on our side; it has been logged."
        ).response()


class ProblemApi(Api):
    """flask-smorest's Api, with problem+json as the documented error format and the
    handlers of :func:`register_problem_handlers` in place of its own."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = None  # each operation lists its own errors

    def _register_error_handlers(self) -> None:
        register_problem_handlers(self._app)

    def _register_responses(self) -> None:
        for status in HTTPStatus:
            if status < 400:
                continue
            response: dict[str, Any] = {"description": status.phrase, "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)


F = TypeVar("F", bound=Callable[..., Any])


RATE_LIMITED = {
    429: "Too many requests from this address or token: retry after `Retry-After` seconds."
}


def documents(
    blp: Blueprint, errors: Mapping[int, str], *, limited: bool = True
) -> Callable[[F], F]:
    """Document the problem responses of an operation: ``{status: when it happens}``, and
    the rate limit's 429 unless the operation is never limited."""

    def decorate(func: F) -> F:
        for status, description in {**errors, **(RATE_LIMITED if limited else {})}.items():
            headers = {}
            if status in (429, 503):
                headers = {
                    "Retry-After": {
                        "description": "Seconds to wait before retrying.",
                        "schema": {"type": "integer"},
                    }
                }
            func = blp.alt_response(
                status,
                schema=ProblemSchema,
                description=description,
                content_type=PROBLEM_JSON,
                headers=headers or None,
            )(func)
        return func

    return decorate


#: The errors any operation can answer.
STORE_ERRORS = {
    503: "The game store is unreachable; nothing was changed. Retry after `Retry-After` seconds."
}
