"""Shared pytest fixtures.

The tests talk to a real Redis server, never a fake: by default a private
``redis-server`` that ``tests.devredis`` starts once per test session on a free
port of 127.0.0.1 (with an append-only file, so ``redis_server.restart()`` keeps the
data).  A ``REDIS_URL`` in the environment is ignored; to run the suite against
another server set ``TEST_REDIS_URL`` instead (its database is flushed before each
test, so point it at a scratch database).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.ratelimit import LIMIT_SETTINGS
from service.app import create_app
from tests.devredis import RedisServer
from tests.helpers import Table
from tests.live import LiveService

#: The SERVER_SECRET of the apps the tests build.
TEST_SECRET = "tests-secret-0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class ExternalRedis:
    """A Redis the tests did not start (from ``TEST_REDIS_URL``): only its URL is known."""

    url: str


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer | ExternalRedis]:
    """The session's Redis: a private persistent ``RedisServer``, or ``TEST_REDIS_URL``."""
    external_url = os.environ.get("TEST_REDIS_URL")
    if external_url:
        yield ExternalRedis(external_url)
        return
    with RedisServer(persist=True) as server:
        yield server


@pytest.fixture(scope="session")
def live_service(redis_server: RedisServer | ExternalRedis) -> Iterator[LiveService]:
    """The service itself, as deployed: gunicorn with 2 workers (deploy/gunicorn.conf.py)
    on a free port, on the session's Redis. For tests that need real processes and
    sockets; each makes its own games (the ``redis_url`` fixture's flushes do not run
    while they do)."""
    with LiveService(redis_server.url) as service:
        yield service
        # Whatever its tests checked, it never failed: no 5xx, no error in its log; and
        # its log never named a card.
        assert not service.server_errors(), "\n".join(service.server_errors()[:20])
        assert not service.card_mentions(), "\n".join(service.card_mentions()[:20])


@pytest.fixture
def redis_url(redis_server: RedisServer | ExternalRedis, monkeypatch: pytest.MonkeyPatch) -> str:
    """URL of the session's Redis, with its database flushed before the test.

    ``REDIS_URL`` is also set to it for the duration of the test, so code that reads
    the environment (``create_app()`` without a config) uses the same server.
    """
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushdb()
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    return redis_server.url


@pytest.fixture
def make_app() -> Iterator[Callable[..., Flask]]:
    """Build apps with extra config; their Redis connections are closed after the test."""
    apps: list[Flask] = []

    def make(**config: Any) -> Flask:
        limits_off = dict.fromkeys(LIMIT_SETTINGS, 0)
        app = create_app({"TESTING": True, "SERVER_SECRET": TEST_SECRET, **limits_off, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["scopa_store"].close()


@pytest.fixture
def app(redis_url: str, make_app: Callable[..., Flask]) -> Flask:
    """The application, on the session's private Redis."""
    return make_app(REDIS_URL=redis_url)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def table(client: FlaskClient) -> Table:
    """A helper that creates matches and plays seats over HTTP."""
    return Table(client)
