"""flask-smorest's Api, answering every error with problem+json."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from .problem import problem_of, problem_of_http_error
from .spec import ProblemSchema


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
