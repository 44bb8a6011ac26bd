"""The Blueprint every resource uses: flask-smorest's, with a JSON body parser that
refuses every unparseable body as bad JSON (400) instead of letting it become a 500."""

from __future__ import annotations

import json
from typing import Any

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser


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
