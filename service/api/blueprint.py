"""The Blueprint every resource uses: flask-smorest's, with a JSON body parser that
refuses every unparseable body as bad JSON (400) instead of letting it become a 500, and
that documents, on every operation taking a JSON body, the answers to a bad body: 400,
413 and 415."""

from __future__ import annotations

import json
from typing import Any

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser

from .problems import PROBLEM_JSON, ProblemSchema

#: What every operation with a JSON body may answer before it reads the body's fields.
BODY_ERRORS = {
    400: "The body is not valid JSON.",
    413: "The body is larger than the service accepts (64 KiB unless configured).",
    415: "The body was sent with a content type other than `application/json`.",
}


class BodyParser(FlaskParser):
    def _raw_load_json(self, req: flask.Request) -> Any:
        try:
            return super()._raw_load_json(req)
        except RecursionError:  # nesting deeper than the parser's stack
            error = json.JSONDecodeError("JSON nested too deeply", "-", 0)
        except json.JSONDecodeError:
            raise
        except ValueError as exc:  # e.g. an integer literal over Python's digit limit
            error = json.JSONDecodeError(str(exc), "-", 0)
        return self._handle_invalid_json_error(error, req)


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = BodyParser()

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Any:
        if isinstance(schema, type):
            # One instance for every request: webargs would build one per request from a
            # class, which costs more than parsing a move.
            schema = schema()
        parse = super().arguments(schema, location=location, **kwargs)
        if location != "json":
            return parse

        def decorate(func: Any) -> Any:
            func = parse(func)
            for status, description in BODY_ERRORS.items():
                func = self.alt_response(
                    status, schema=ProblemSchema, description=description, content_type=PROBLEM_JSON
                )(func)
            return func

        return decorate

    # flask-smorest's documenting decorators wrap the view in one more function each, that
    # only calls it; an operation documenting ten answers ran ten such calls per request.
    # These keep the documentation they record and drop the wrapper.

    def alt_response(self, *args: Any, **kwargs: Any) -> Any:
        return _documentation_only(super().alt_response(*args, **kwargs))

    @staticmethod
    def doc(**kwargs: Any) -> Any:
        return _documentation_only(flask_smorest.Blueprint.doc(**kwargs))


def _documentation_only(document: Any) -> Any:
    def decorate(func: Any) -> Any:
        func._apidoc = document(func)._apidoc  # noqa: SLF001 - flask-smorest's record
        return func

    return decorate
