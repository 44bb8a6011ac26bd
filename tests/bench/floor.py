"""The load test's floor: an endpoint that does only what every move costs besides the
game itself (Flask, one Redis GET, one Redis SET, a JSON answer), so that ``make
loadtest`` can show what the game logic adds.

It is not part of the service: the load test serves ``tests.bench.floor:create_app()``,
the service's own app with this endpoint added outside the API and its spec.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from service.api.ratelimit import LIMIT_SETTINGS
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


def in_process(redis_url: str, moves: int) -> tuple[Flask, Callable[[str], None]]:
    """The load test's app, served in-process (Flask's test client) on ``redis_url`` with
    every limit on and too high to refuse anything, and a function that sends it one
    request of a kind (``floor``, ``moves``, ``create``). The matches for ``moves``
    moves are created first, from the load test's scripts: each move sent is legal, and
    two processes asked for the same number create the same matches."""
    from tests.bench.loadtest import MOVES_PER_MATCH, prepare

    os.environ.update(
        {
            "REDIS_URL": redis_url,
            "SERVER_SECRET": "in-process-secret-0123456789abcdefghijklmnopqr",
            **dict.fromkeys(LIMIT_SETTINGS, str(10**9)),
        }
    )
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    app = create_app()
    client = app.test_client()
    rng = random.Random(1)
    scripts = [prepare(rng) for _ in range(4)]
    queued: list[tuple[str, bytes, dict[str, str]]] = []
    for number in range(moves // MOVES_PER_MATCH + 1):
        script = scripts[number % len(scripts)]
        created: Any = client.post(
            "/v1/games", data=script.create, content_type="application/json"
        ).json
        tokens = [seat["token"] for seat in created["seats"]]
        queued += [
            (f"/v1/games/{created['id']}/moves", body, {"Authorization": f"Bearer {tokens[seat]}"})
            for seat, body in script.moves
        ]
    next_move = iter(queued)
    floors = iter(range(10**9))

    def one(kind: str) -> None:
        if kind == "floor":
            number = next(floors)
            answer = client.post(f"/_loadtest/floor/p{number % 32}", json={"n": number})
        elif kind == "create":
            answer = client.post("/v1/games", json={})
        else:
            path, body, headers = next(next_move)
            answer = client.post(path, data=body, headers=headers, content_type="application/json")
        assert answer.status_code in (200, 201), answer.data

    return app, one
