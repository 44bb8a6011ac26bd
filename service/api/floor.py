"""The load test's floor: an endpoint that does only what every move costs besides the
game itself (Flask, one Redis GET, one Redis SET, a JSON answer), so that ``make
loadtest`` can show what the game logic adds. Mounted only when ``LOADTEST_FLOOR`` is
set (never in production), and never part of the API's contract."""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

blp = Blueprint("floor", __name__)

#: A stored value about the size of a 2-player game in play.
_BLOB = "x" * 1500


@blp.post("/_loadtest/floor/<string:key>")
def floor(key: str) -> ResponseReturnValue:
    client = current_app.extensions["scopa_store"].redis
    request.get_json(silent=True)
    name = f"scopa:floor:{{{key}}}"
    value = client.get(name)
    client.set(name, _BLOB, ex=600)
    return jsonify({"key": key, "seen": value is not None})
