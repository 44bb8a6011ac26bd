"""The app's JSON answers, written by orjson.

Flask's own provider runs the standard library's encoder; orjson writes the same JSON
(UTF-8, keys in their order) in a fraction of the time, and a move's answer (the move,
its events, the whole view) is the largest thing the service writes on every request.
Whatever orjson refuses (an integer over 64 bits, a type it does not know) goes to
Flask's own encoder, so nothing that Flask could answer fails here.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider


class OrjsonProvider(DefaultJSONProvider):
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:
            try:
                return orjson.dumps(obj).decode()
            except TypeError:  # orjson.JSONEncodeError is one
                pass
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj = args[0] if len(args) == 1 else (args or kwargs or None)
        try:
            body = orjson.dumps(obj)
        except TypeError:
            body = super().dumps(obj).encode()
        return Response(body, mimetype=self.mimetype)
