"""The Flask application factory: ``gunicorn 'service.app:create_app()'``."""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask, Response, request
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry

from . import config as settings
from .api import observability, ratelimit
from .api.json_provider import OrjsonProvider
from .api.problems import Problem, ProblemApi, ProblemType
from .api.resources import BLUEPRINTS
from .play import GameStore

API_DESCRIPTION = """\
Play Scopa over HTTP: create a match, give each player their seat's secret token, and
play it move by move. Every match lives in Redis under its id.

Cards are codes: the value 1-10 (ace 1, Fante 8, Cavallo 9, Re 10) then the suit:
`D` Denari (coins), `C` Coppe (cups), `S` Spade (swords), `B` Bastoni (clubs). `7D` is
the settebello. The rules are those of the project's rules reference, `docs/rules.md`
(sections R1-R10), which code, answers and errors cite.

Seat tokens go in `Authorization: Bearer <token>`. A seat's view shows its own hand;
no response ever shows another seat's cards or the stock. Every error is an RFC 9457
`application/problem+json` object whose `detail` says what to do.
"""


#: The most of a request body that is read and dropped when it was refused unread.
UNREAD_BODY_DRAIN_BYTES = 1 << 20


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    # No redirects (they would be HTML): "/v1/games//moves" is a plain 404.
    app.url_map.merge_slashes = False
    app.config.update(settings.from_env())
    app.config.update(
        API_TITLE="Scopa",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        OPENAPI_REDOC_PATH="/redoc",
        OPENAPI_REDOC_URL="https://cdn.jsdelivr.net/npm/redoc/bundles/redoc.standalone.js",
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION},
            "components": {
                "securitySchemes": {
                    "seatToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A seat's token, as returned when the game was created.",
                    }
                }
            },
        },
    )
    app.config.update(config or {})
    provider = OrjsonProvider(app)
    provider.sort_keys = False  # as built: a view's keys in the order the schema lists them
    app.json = provider

    pool = redis.ConnectionPool.from_url(
        app.config["REDIS_URL"],
        socket_timeout=app.config["REDIS_TIMEOUT_SECONDS"],
        socket_connect_timeout=app.config["REDIS_TIMEOUT_SECONDS"],
        health_check_interval=30,
        decode_responses=True,
        # A command that fails on a broken connection (Redis restarted, an idle
        # connection dropped) reconnects and goes again, twice at most, then the
        # request is answered 503 with Retry-After.
        retry=Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.1), 2),
    )
    app.extensions["scopa_store"] = GameStore(pool, app.config["GAME_TTL_SECONDS"])

    observability.install(app)
    ratelimit.install(app)
    api = ProblemApi(app)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)

    @app.before_request
    def _json_bodies_only() -> None:
        if request.method in ("POST", "PUT", "PATCH") and request.content_length:
            if not request.is_json:
                raise Problem(
                    415,
                    ProblemType.UNSUPPORTED_MEDIA_TYPE,
                    f"Send the body as application/json, not {request.mimetype or 'no type'}.",
                )

    @app.after_request
    def _drop_unread_body(response: Response) -> Response:
        # A body refused before it was read (413, 415, ...) is read and dropped here, up
        # to a bound, so that the connection can carry the client's next request: past
        # 64 KiB of unread body gunicorn closes a keep-alive connection it has just
        # answered "Connection: keep-alive" on, and the client's next request fails.
        length = request.content_length
        if length and length <= UNREAD_BODY_DRAIN_BYTES:
            stream = request.environ.get("wsgi.input")
            while stream is not None and length > 0:
                chunk = stream.read(min(length, 65536))
                if not chunk:
                    break
                length -= len(chunk)
        return response

    return app
