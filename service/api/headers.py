"""The conditional and idempotent request headers: ``If-Match`` against the game's
``ETag`` (its version), and ``Idempotency-Key`` (what it does is in
:mod:`service.play.idempotency`): how they are read, answered and documented."""

from __future__ import annotations

import re
from typing import Any

from flask import request

from ..play import Answer, IdempotentRequest
from .problems import Problem, ProblemType, etag

IDEMPOTENCY_KEY = "Idempotency-Key"
_VALID_KEY = re.compile(r"[\x21-\x7e]{1,255}")

ETAG = {"ETag": {"description": "The game's version, quoted.", "schema": {"type": "string"}}}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": "The game version you last saw (as in ETag). If the game has moved on, "
    "the move is refused with 412 and nothing changes.",
    "schema": {"type": "string"},
}
IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": IDEMPOTENCY_KEY,
    "required": False,
    "description": "A unique key for this request (a UUID, say), 1-255 visible ASCII "
    "characters. Retrying with the same key and body returns the first answer again, "
    "without playing twice; the same key with another body is refused with 422. Kept as "
    "long as the game.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}
REPLAYED = {
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an earlier request with "
        "the same Idempotency-Key.",
        "schema": {"type": "string"},
    }
}


def if_match_version() -> int | None:
    """The version If-Match names, or None without the header."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    value = header.strip().removeprefix("W/").strip('"')
    if not re.fullmatch(r"[0-9]{1,18}", value):
        raise Problem(
            412,
            ProblemType.VERSION_MISMATCH,
            f'If-Match must be a game version as sent in ETag (such as "3"), not {header!r}.',
        )
    return int(value)


def idempotency_key() -> str | None:
    """The request's Idempotency-Key, or None without one."""
    key = request.headers.get(IDEMPOTENCY_KEY)
    if key is None:
        return None
    if not _VALID_KEY.fullmatch(key):
        raise Problem(
            422,
            ProblemType.VALIDATION,
            f"{IDEMPOTENCY_KEY} must be 1 to 255 visible ASCII characters, such as a UUID.",
            errors={IDEMPOTENCY_KEY: ["Not a valid key."]},
        )
    return key


def operation() -> str:
    """What, besides its body, makes two requests the same: the method and the path."""
    return f"{request.method} {request.path}"


def creation_request(body: Any) -> IdempotentRequest | None:
    """The creation's idempotent request, if it carries an Idempotency-Key."""
    key = idempotency_key()
    return None if key is None else IdempotentRequest.creation(key, operation(), body)


def move_request(game_id: str, seat: int, body: Any) -> IdempotentRequest | None:
    """A seat's move's idempotent request, if it carries an Idempotency-Key."""
    key = idempotency_key()
    return None if key is None else IdempotentRequest.move(key, game_id, seat, operation(), body)


def replayed(answer: Answer) -> tuple[dict[str, Any], int, dict[str, str]]:
    """An answer sent again for a retried request."""
    return answer.body, answer.status, {**etag(answer.version), "Idempotent-Replayed": "true"}
