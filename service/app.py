"""The Flask application factory: ``gunicorn 'service.app:create_app()'``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import redis
from flask import Flask
from redis.backoff import ExponentialWithJitterBackoff
from redis.retry import Retry

from . import config
from .api import (
    bodies,
    breaker,
    changelog,
    commands,
    compression,
    cors,
    docs_ui,
    observability,
    play_page,
    ratelimit,
    rules_page,
    service_keys,
    spec_document,
)
from .api import settings as app_settings
from .api.json_provider import OrjsonProvider
from .api.openapi import ContractPlugin
from .api.problems import ProblemApi
from .api.resources import BLUEPRINTS
from .api.resources.events import grip
from .api.resources.players.routes import PlayerIdConverter, player_id_schema
from .api.resources.webhooks import payloads as webhook_payloads
from .play import GameStore, connections, queues

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

Send each request whole: one that has not arrived whole (head and body) within 10 s of
its first byte (the service's `CLIENT_TIMEOUT_SECONDS`, by default) is answered
`408 Request Timeout` and its connection closed; a connection that sends nothing for 5 s
is closed. A request
that is not valid HTTP/1.1 is refused (400, 501, ...) before any operation reads it.
"""


class App(Flask):
    """Flask, for an app whose views and hooks are all plain functions, as the service's
    are. Flask asks ``inspect`` whether each is a coroutine function every time it calls
    one (some 16 times a request, 70 function calls); :func:`check_plain` asks once,
    when the app is built, and ``ensure_sync`` (Flask's hook for how views run) passes
    them through."""

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        return func


def check_plain(app: Flask) -> None:
    """RuntimeError if a view, a view class's method, a hook or an error handler of
    ``app`` is a coroutine function (``async def``): :class:`App` would not run it."""
    found: list[Callable[..., Any]] = []
    for view in app.view_functions.values():
        found.append(view)
        cls = getattr(view, "view_class", None)
        for method in getattr(cls, "methods", None) or ():
            found.append(getattr(cls, method.lower(), view))
    for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs):
        for some in hooks.values():
            found.extend(some)
    found.extend(app.teardown_appcontext_funcs)
    for codes in app.error_handler_spec.values():
        for handlers in codes.values():
            found.extend(handlers.values())
    asynchronous = sorted(f.__qualname__ for f in found if inspect.iscoroutinefunction(f))
    if asynchronous:
        raise RuntimeError(f"coroutine functions where plain ones are needed: {asynchronous}")


def create_app(
    overrides: dict[str, Any] | None = None, settings: config.Settings | None = None
) -> Flask:
    """The app, with ``settings`` (default: read from the environment) and ``overrides``:
    more of Flask's ``app.config``, and settings by their keys there (tests')."""
    settings = (settings or config.load()).overridden(overrides or {})
    app = App(__name__)
    # No redirects (they would be HTML): "/v1/games//moves" is a plain 404.
    app.url_map.merge_slashes = False
    app.url_map.converters["player"] = PlayerIdConverter  # (a player id: slashes too)
    app.config.update(settings.app_config())
    app.config.update(
        API_TITLE="Scopa",
        API_VERSION=changelog.VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        **docs_ui.settings(),
        API_SPEC_OPTIONS={
            "info": {
                "description": API_DESCRIPTION + "\n## Changes\n\n" + changelog.markdown(),
                "license": {"name": "Apache 2.0", "identifier": "Apache-2.0"},  # LICENSE
            },
            "servers": [{"url": "/", "description": "The service that serves this document"}],
            "components": {
                "securitySchemes": {
                    "seatToken": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "A seat's token, as returned when the game was created.",
                    },
                    "serviceKey": service_keys.SECURITY_SCHEME,
                }
            },
        },
    )
    app.config.update(overrides or {})
    # Settings that must be right together (a server secret, a wait for replicas that fits
    # in a Redis call): ConfigError, one line, if not.
    config.check(settings)
    app_settings.install(app, settings)
    provider = OrjsonProvider(app)
    provider.sort_keys = False  # as built: a view's keys in the order the schema lists them
    app.json = provider

    # Every connection to Redis asks the worker's circuit breaker first: after a
    # timeout or a failed connection, calls to Redis are refused at once for a cool-down
    # (503 with Retry-After) instead of each waiting out the timeout (see api/breaker.py).
    redis_breaker = breaker.CircuitBreaker(settings.redis_breaker_cooldown_seconds)
    where = connections.parse(settings.redis_url)  # one Redis, a cluster, Sentinel
    if where.clustered and settings.redis_min_replicas:
        raise RuntimeError(
            "REDIS_MIN_REPLICAS is for one Redis or Sentinel's master; a Redis Cluster "
            "fails over by itself: leave it 0"
        )
    games = functools.partial(
        connections.connect,  # made on first use: a cluster's client connects when made
        where,
        connection_class=breaker.guarding(redis_breaker),
        socket_timeout=settings.redis_timeout_seconds,
        socket_connect_timeout=settings.redis_timeout_seconds,
        health_check_interval=30,
        max_connections=settings.redis_max_connections,  # each thread keeps one
        # A command that fails on a broken connection (Redis restarted, an idle
        # connection dropped, a Sentinel failover) reconnects and goes again, twice at
        # most, then the request is answered 503 with Retry-After. A timeout is not
        # retried: Redis is there but does not answer, and a retry would only wait as
        # long again (on a cluster it may go to the slot's new master, once the breaker
        # lets it).
        retry=Retry(
            ExponentialWithJitterBackoff(base=0.01, cap=0.1),
            2,
            supported_errors=(redis.exceptions.ConnectionError,),
        ),
    )
    app.extensions["scopa_store"] = GameStore(
        games,
        settings.game_ttl_seconds,
        replicas=settings.redis_min_replicas,
        replica_timeout_seconds=settings.redis_replica_timeout_seconds,
    )
    # The computer players' queue (rq stores bytes: a client that does not decode).
    queue_connection = queues.queue_connection(
        settings.queue_redis_url or settings.redis_url,
        socket_timeout=settings.redis_timeout_seconds,
    )
    app.extensions["scopa_bot_queue"] = queues.queue_for(queue_connection)
    readiness = breaker.Readiness(
        settings.redis_url, settings.redis_ready_timeout_seconds, redis_breaker
    )
    breaker.install(app, redis_breaker, readiness)

    compression.install(app, settings.compression == "on")  # first: its hook runs last
    observability.install(app, settings)
    cors.install(app, settings.cors_origins)
    docs_ui.install(app)
    play_page.install(app)
    rules_page.install(app)
    app.register_blueprint(grip.blp)  # the GRIP proxy's next links (outside the spec)
    bodies.install(app, settings.max_body_bytes)
    service_keys.install(app, settings.server_secret, settings.service_keys)
    ratelimit.install(app, commands.policy_of)
    api = ProblemApi(app, spec_kwargs={"marshmallow_plugin": ContractPlugin()})
    api.register_converter(PlayerIdConverter, player_id_schema)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    webhook_payloads.install(api.spec)  # the spec's top-level webhooks
    commands.install(app)  # (once every view is registered)
    spec_document.install(app, api)
    check_plain(app)

    return app
