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
        if kwargs:  # options only Flask's encoder takes (indent, sort_keys, ...)
            return super().dumps(obj, **kwargs)
        return self.encode(obj).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        """As Flask's ``jsonify``: one argument is the value, several are a list, keyword
        arguments are an object; not both."""
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj = args[0] if len(args) == 1 else (args or kwargs or None)
        return Response(self.encode(obj), mimetype=self.mimetype)

    def encode(self, obj: Any) -> bytes:
        """``obj`` as UTF-8 JSON bytes."""
        try:
            return orjson.dumps(obj)
        except TypeError:  # orjson.JSONEncodeError is one
            return super().dumps(obj).encode()
