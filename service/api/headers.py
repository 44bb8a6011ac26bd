"""The conditional and idempotent request headers: ``If-Match`` against the game's
``ETag`` (its version), and ``Idempotency-Key`` (what it does is in
:mod:`service.play.idempotency`): how they are read, answered and documented."""

from __future__ import annotations

import re

import marshmallow as ma
from flask import Response, request

from ..play.idempotency import MIN_CREATION_KEY_LENGTH
from .problems import Problem, ProblemType, etag

IDEMPOTENCY_KEY = "Idempotency-Key"
_VALID_KEY = re.compile(r"[\x21-\x7e]{1,255}")

ETAG = {
    "ETag": {
        "description": "The game's version, quoted (`\"7\"`); a compressed answer's has "
        'its coding after the version (`"7:br"`, `"7:gzip"`). Either form is '
        "accepted in If-Match and If-None-Match.",
        "schema": {"type": "string"},
    }
}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": "The game version you last saw (as in ETag). If the game has moved on, "
    "the move is refused with 412 and nothing changes. A retry with the Idempotency-Key of "
    "a move that was made is answered with that move's stored 200 (`Idempotent-Replayed: "
    "true`), though its If-Match is stale by then: the game moved on because of it.",
    "schema": {"type": "string"},
}
_KEY_DOC = (
    "Retrying with the same key and body returns the first answer again, without acting "
    "twice (with `Idempotent-Replayed: true`, and even when an If-Match sent with it is "
    "stale by then); the same key with another body is refused with 422. Kept as long as "
    "the game."
)
IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": IDEMPOTENCY_KEY,
    "required": False,
    "description": "A unique key for this move (a UUID, say), 1-255 visible ASCII "
    "characters. " + _KEY_DOC + " Only your seat's latest keyed move or declaration is "
    "kept: retry a request before you send the next one (a retry of an older one is a "
    "new request, refused since its card is played).",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}
CREATION_KEY_PARAMETER = {
    **IDEMPOTENCY_KEY_PARAMETER,
    "description": f"A unique key for this request: use a UUID ({MIN_CREATION_KEY_LENGTH} to "
    "255 visible ASCII characters; a shorter key is refused with 422). " + _KEY_DOC + " The "
    "key is the caller's own: a service key's, or, without a key, the client network's (the "
    "one its rate limits count); another caller sending it makes another request.",
    "schema": {"type": "string", "minLength": MIN_CREATION_KEY_LENGTH, "maxLength": 255},
}
#: A page's link to the next one (a listing's, a leaderboard's, an export's).
NEXT_PAGE = {
    "Link": {
        "description": 'The next page, as `<url>; rel="next"` (absent on the last).',
        "schema": {"type": "string"},
    }
}
REPLAYED = {
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an earlier request with "
        "the same Idempotency-Key.",
        "schema": {"type": "string"},
    }
}


#: A game's entity tag: its version, quoted (``"7"``), and as the compressed answer's
#: own tag (``"7:br"``, service/api/compression.py).
_ENTITY_TAG = re.compile(r'\s*(W/)?"?([0-9]{1,18})(?::(?:br|gzip))?"?\s*')


def if_match_versions() -> frozenset[int] | None:
    """The game versions If-Match accepts (RFC 9110 13.1.1): None without the header or
    with ``*`` (any version of the game, which exists); else the versions of the strong
    entity tags it lists. A weak tag (``W/"3"``) never matches: the comparison is strong."""
    header = request.headers.get("If-Match")
    if header is None or header.strip() == "*":
        return None
    versions = set()
    for entry in header.split(","):
        tag = _ENTITY_TAG.fullmatch(entry)
        if tag is None:
            raise Problem(
                412,
                ProblemType.VERSION_MISMATCH,
                f'If-Match must list game versions as sent in ETag (such as "3"), not {header!r}.',
            )
        if not tag.group(1):
            versions.add(int(tag.group(2)))
    return frozenset(versions)


IF_NONE_MATCH = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "description": "The ETag you last saw. If the game has not changed since, the answer "
    "is 304 with no body: poll cheaply.",
    "schema": {"type": "string"},
}


class IfNoneMatchSchema(ma.Schema):
    """If-None-Match, for an operation whose query parameters come from a schema too
    (read by :func:`not_modified`; this only documents it)."""

    if_none_match = ma.fields.String(
        data_key="If-None-Match", metadata={"description": IF_NONE_MATCH["description"]}
    )


NOT_MODIFIED = {
    "304": {
        "description": "Nothing changed since the ETag sent in If-None-Match: no body (keep "
        "the answer you have).",
        "headers": ETAG,
    }
}


def not_modified(version: int) -> bool:
    """Whether If-None-Match names ``version`` (RFC 9110 13.1.2: ``*``, or any entity tag
    of the list, compared weakly)."""
    header = request.headers.get("If-None-Match")
    if header is None:
        return False
    if header.strip() == "*":
        return True
    for entry in header.split(","):
        tag = _ENTITY_TAG.fullmatch(entry)
        if tag is not None and int(tag.group(2)) == version:
            return True
    return False


#: A game read depends on who asks (a seat sees its own hand), and changes with every
#: move: no cache may keep it for another client, and every cache asks again.
PER_VIEWER = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}


def unchanged(version: int) -> Response:
    """The 304 answer to a conditional GET of a game at ``version``."""
    return Response(status=304, headers={**etag(version), **PER_VIEWER})


def idempotency_key(shortest: int = 1) -> str | None:
    """The request's Idempotency-Key, or None without one."""
    key = request.headers.get(IDEMPOTENCY_KEY)
    if key is None:
        return None
    if not _VALID_KEY.fullmatch(key) or len(key) < shortest:
        raise Problem(
            422,
            ProblemType.VALIDATION,
            f"{IDEMPOTENCY_KEY} must be {shortest} to 255 visible ASCII characters: use a UUID.",
            errors={IDEMPOTENCY_KEY: ["Not a valid key."]},
        )
    return key


def operation() -> str:
    """What, besides its body, makes two requests the same: the method and the path."""
    return f"{request.method} {request.path}"
