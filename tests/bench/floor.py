"""The load test's floor: an endpoint that does only what every move costs besides the
game itself (Flask, one Redis GET, one Redis SET, a JSON answer), so that ``make
loadtest`` can show what the game logic adds.

It is not part of the service: the load test serves ``tests.bench.floor:create_app()``,
the service's own app with this endpoint added outside the API and its spec.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from service.app import create_app as create_service_app

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


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The service's app, with the floor endpoint."""
    app = create_service_app(config)
    app.register_blueprint(blp)
    return app
