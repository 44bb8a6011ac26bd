"""How the spec documents problems, from the catalogue's rows: the ProblemType schema (each
value with what it means), the Problem schema (each member beyond RFC 9457's saying which
problems add it), and each operation's problem answers (:func:`error_responses`, with the
header fields every problem of the status comes with)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import marshmallow as ma

from ..fields import Card, Enumerated, Enumeration
from ..responses import ResponseSchema
from .catalogue import ROWS
from .problem import PROBLEM_JSON
from .problem_type import ProblemRow, ProblemType

#: Each header field's schema (a string unless named here).
HEADER_SCHEMAS: dict[str, dict[str, Any]] = {"Retry-After": {"type": "integer"}}


def summary(row: ProblemRow) -> str:
    """One row in a sentence or two: its title and status, when it happens, what it adds."""
    statuses = ", ".join(str(s) for s in row.statuses)
    text = f"{row.title or 'HTTP error'} ({statuses}). {row.when}"
    if row.members:
        text += " Adds " + ", ".join(f"`{m}`" for m in row.members) + "."
    for name, says in row.headers.items():
        text += f" With `{name}`: {says[0].lower()}{says[1:]}"
    return text


PROBLEM_TYPE = Enumeration(
    "ProblemType",
    tuple(r.type.value for r in ROWS),
    "The kind of problem (a problem's `type`): "
    + "; ".join(f"`{r.type.value}`: {r.when}" for r in ROWS),
    example=ProblemType.ILLEGAL_MOVE.value,
    names=tuple(r.type.name for r in ROWS),
    descriptions=tuple(summary(r) for r in ROWS),
)


def _member(name: str, description: str) -> str:
    """A member's description, and the problems that add it."""
    types = [f"`{r.type.value}`" for r in ROWS if name in r.members]
    return f"{description} In {' and '.join(types)} problems."


class ProblemSchema(ResponseSchema):
    """An RFC 9457 problem details object."""

    #: Present only with the problems they belong to.
    optional = frozenset(m for r in ROWS for m in r.members)

    type = Enumerated(PROBLEM_TYPE, metadata={"description": "The kind of problem."})
    title = ma.fields.String(required=True, metadata={"description": "Short summary of the type."})
    status = ma.fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = ma.fields.String(
        required=True, metadata={"description": "What went wrong here, and what to do about it."}
    )
    errors = ma.fields.Dict(
        keys=ma.fields.String(),
        metadata={"description": _member("errors", "Validation errors by field name.")},
    )
    legal_captures = ma.fields.List(
        ma.fields.List(Card()),
        metadata={
            "description": _member(
                "legal_captures",
                "The captures the card played may make, each a list of table cards (an "
                "empty list lays the card).",
            )
        },
    )
    current_version = ma.fields.Integer(
        metadata={"description": _member("current_version", "The game's version now.")}
    )
    event = ma.fields.Integer(
        allow_none=True,
        metadata={
            "description": _member(
                "event",
                "The position in the record's `events` of the first event the rules "
                "refuse (null: a claim of the record is refused).",
            )
        },
    )


RATE_LIMITED = {
    429: "Too many requests from this address or token: retry after `Retry-After` seconds."
}
#: What any operation that reads or writes a game may answer.
STORE_ERRORS = {
    503: "The game store is unreachable or did not answer in time: retry after `Retry-After` "
    "seconds. `detail` says whether anything may have been stored (a write whose answer "
    "timed out: reload the game, or resend with the same Idempotency-Key)."
}


def headers_of(status: int) -> dict[str, Any]:
    """The header fields every problem of ``status`` comes with (``about:blank``, whose
    statuses are any HTTP error's, aside), as OpenAPI header objects."""
    rows = [r for r in ROWS if r.status == status]
    found: dict[str, Any] = {}
    for name in rows[0].headers if rows else ():
        said = {r.headers.get(name) for r in rows}
        if len(said) == 1 and None not in said:
            found[name] = {
                "description": rows[0].headers[name],
                "schema": HEADER_SCHEMAS.get(name, {"type": "string"}),
            }
    return found


def error_responses(errors: Mapping[int, str], *, limited: bool = True) -> dict[str, Any]:
    """The OpenAPI responses of an operation's problems, ``{status: when it happens}``,
    and the rate limit's 429 unless the operation is never limited."""
    responses: dict[str, Any] = {}
    for status, description in {**errors, **(RATE_LIMITED if limited else {})}.items():
        response: dict[str, Any] = {"description": description}
        headers = headers_of(status)
        if headers:
            response["headers"] = headers
        response["content"] = {PROBLEM_JSON: {"schema": ProblemSchema}}
        responses[str(status)] = response
    return responses
