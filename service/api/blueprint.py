"""The Blueprint every resource uses: flask-smorest's, with

- a parser that refuses every unparseable JSON body as bad JSON (400) instead of
  letting it become a 500, and a query parameter no operation declares (422: a typo,
  or a filter the operation does not have, is said, not ignored);
- one schema instance per operation (webargs would build one per request from a class,
  which costs more than parsing a move);
- :meth:`Blueprint.documents`: an operation's problem answers, its security and its
  header parameters in one decorator (the answers to a bad body, 400, 413 and 415, are
  added to every operation taking a JSON body).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import flask
import flask_smorest
import marshmallow as ma
from webargs.flaskparser import FlaskParser

from . import examples
from .problems import PROBLEM_JSON, Problem, ProblemType, error_responses

F = TypeVar("F", bound=Callable[..., Any])

#: What every operation with a JSON body may answer before it reads the body's fields.
BODY_ERRORS = {
    400: "The body is not valid JSON.",
    413: "The body is larger than the service accepts (64 KiB unless configured).",
    415: "The body was sent with a content type other than `application/json`.",
}


class Parser(FlaskParser):
    DEFAULT_UNKNOWN_BY_LOCATION = {
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
        "query": ma.RAISE,
        "querystring": ma.RAISE,
    }

    def load_json(self, req: flask.Request, schema: ma.Schema) -> Any:
        # webargs answers a body that does not decode as JSON with a 400 itself; these
        # are the bodies that decode and still fail: nesting deeper than the parser's
        # stack, an integer literal over Python's digit limit.
        try:
            return super().load_json(req, schema)
        except (RecursionError, ValueError):
            raise Problem(
                400, ProblemType.INVALID_JSON, "The request body is not valid JSON."
            ) from None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = Parser()

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Any:
        if isinstance(schema, type):
            schema = schema()
        parse = super().arguments(schema, location=location, **kwargs)
        if location != "json":
            return parse
        document = self.doc(responses=error_responses(BODY_ERRORS, limited=False))
        return lambda func: parse(document(func))

    def documents(
        self,
        operation_id: str,
        errors: Mapping[int, str],
        *,
        limited: bool = True,
        responses: Mapping[str, Any] | None = None,
        **doc: Any,
    ) -> Callable[[F], F]:
        """Document an operation: its ``operationId`` (what generated clients name it),
        its problem answers, ``{status: when it happens}`` (and the rate limit's 429
        unless the operation is never limited), its other answers (``responses``, OpenAPI
        response objects by status) and any other OpenAPI fields of the operation
        (``parameters``; ``security``, none unless given). The examples of its body and
        answers are those of :mod:`.examples`."""
        # By status: the problems' (and ``responses``') as strings; the examples of success
        # answers as the int the route's response decorator was given, so that
        # flask-smorest merges each into the answer it documents from the schema.
        documented: dict[Any, Any] = {
            **(responses or {}),
            **error_responses(errors, limited=limited),
        }
        for status, example in examples.ANSWERS.get(operation_id, {}).items():
            if status < 400:
                documented[status] = _with_example({}, "application/json", example)
            elif str(status) in documented:
                documented[str(status)] = _with_example(
                    documented[str(status)], PROBLEM_JSON, example
                )
            else:
                raise ValueError(f"{operation_id}: an example of an undocumented {status}")
        if operation_id in examples.REQUESTS:
            doc["requestBody"] = _with_example(
                {}, "application/json", examples.REQUESTS[operation_id]
            )
        doc.setdefault("security", [])
        document: Callable[[F], F] = self.doc(operationId=operation_id, responses=documented, **doc)

        def decorate(func: F) -> F:
            # Which operation a view is: its policy's name (service/api/commands.py).
            func.operation_id = operation_id  # type: ignore[attr-defined]
            return document(func)

        return decorate


def _with_example(response: Mapping[str, Any], media_type: str, example: Any) -> dict[str, Any]:
    """``response`` (or a request body) with ``example`` for ``media_type``; flask-smorest
    merges it into what it documents from the schemas."""
    content = dict(response.get("content") or {})
    content[media_type] = {**content.get(media_type, {}), "example": example}
    return {**response, "content": content}
