"""A problem answered: :class:`Problem`, raised by views or made from the error a view
let through (:func:`problem_of`, by the catalogue's rows) or from an HTTP error
(:func:`problem_of_http_error`: routing, methods, sizes, bodies webargs refuses)."""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import orjson
from flask import Response
from werkzeug.exceptions import HTTPException

from .catalogue import explained, row
from .problem_type import ProblemType, invalid

PROBLEM_JSON = "application/problem+json"


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

    @classmethod
    def of(
        cls,
        type_: ProblemType,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> Problem:
        """A problem of ``type_``, at the status its row gives it (``about:blank``, of any
        HTTP status, is made with :class:`Problem` itself)."""
        statuses = row(type_).statuses
        if len(statuses) != 1:
            raise ValueError(f"{type_} has no one status: give it")
        return cls(statuses[0], type_, detail, headers=headers, **extra)

    def response(self) -> Response:
        body = {
            "type": self.type.value,
            "title": row(self.type).title_for(self.status),
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


def problem_of(error: Exception) -> Problem:
    """The problem ``error`` is: itself if it is one, else its row's in the catalogue
    (an unexpected error is a 500, logged)."""
    if isinstance(error, Problem):
        return error
    found, said = explained(error)
    return Problem.of(found.type, said.detail, headers=said.headers, **said.members)


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
        said = invalid(errors)
        return Problem(422, ProblemType.VALIDATION, said.detail, **said.members)
    if status == 405:
        valid = getattr(error, "valid_methods", None)
        headers = {"Allow": ", ".join(valid or [])} if valid is not None else {}
    detail = error.description or HTTPStatus(status).phrase
    return Problem(status, ProblemType.HTTP, detail, headers=headers)
