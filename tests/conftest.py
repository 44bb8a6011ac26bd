"""Shared pytest fixtures.

The tests talk to a real Redis server, never a fake: by default a private
``redis-server`` that ``tests.devredis`` starts once per test session on a free
port of 127.0.0.1 (with an append-only file, so ``redis_server.restart()`` keeps the
data).  A ``REDIS_URL`` in the environment is ignored; to run the suite against
another server set ``TEST_REDIS_URL`` instead (its database is flushed before each
test, so point it at a scratch database; in a parallel run, worker N uses the database
N above it).

``make test`` runs the suite in parallel (pytest-xdist, ``--dist loadgroup``): each
worker is a session of its own, with its own private Redis and its own free ports. The
tests of :data:`GROUPS` must not share the machine with each other: each such
group runs on one worker, its tests one after another (the other workers go on with the
rest).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.ratelimit import LIMIT_SETTINGS
from service.app import create_app
from tests.devredis import RedisServer
from tests.helpers import Table
from tests.live import LiveService

#: Tests that run one at a time on one worker, by group (a key is a module, or a test's
#: id from the module on): the browser and the TypeScript client (Chromium, tsc and node
#: are heavy, and ``make node-tools`` installs into one shared folder), the tests that
#: hold many processes or connections (several services, Redis topologies, a load test,
#: hundreds of streams), and those that measure how long things take (a timeout, a
#: deadline, a breaker's cool-down, a recovery).
GROUPS = {
    "test_browser.py": "browser",
    "test_browser_play.py": "browser",
    "test_browser_table.py": "browser",
    "test_browser_tournament.py": "browser",
    "test_ts_client.py": "node",
    "test_scale_out.py": "processes",
    "test_redis_topologies.py": "processes",
    "test_loadtest.py": "processes",
    "test_players_bench.py": "processes",
    "test_slow_clients.py": "processes",
    "test_api_stream.py::test_200_streams_see_every_move_of_a_match_within_a_second": "processes",
    "test_webhooks.py::test_a_receiver_down_for_30_s_still_gets_every_delivery_in_order": (
        "processes"
    ),
    "test_faults.py": "timing",
    "test_hung_redis.py": "timing",
    "test_fair_bots.py": "timing",
    "test_webhook_isolation.py": "timing",
    "test_webhook_deletion.py": "timing",
    "test_api_move_analysis.py::TestAnalyse::test_the_deadline_holds_on_a_huge_position": "timing",
}


#: The long runs (marked ``long``, keyed as :data:`GROUPS` is): tests that take ten seconds
#: or more by design, waiting out what they test (a receiver down for 30 s, a failover, a
#: whole match of every variant through failures, a flood of slow clients, a load run).
#: ``make test`` leaves them to ``make test-long``; CI (``.ci/run``) runs both.
LONG = {
    "test_browser_table.py::test_every_variant_is_played_on_a_phone_through_failures",
    "test_browser_table.py::test_a_failed_read_as_the_turn_comes_back_never_freezes_the_table",
    "test_browser_play.py::test_a_whole_match_on_a_phone_turned_both_ways",
    "test_browser_play.py::test_the_match_goes_on_through_lost_requests_and_offline_spans",
    "test_browser.py::test_friends_through_the_join_link",
    "test_webhooks.py::test_a_receiver_down_for_30_s_still_gets_every_delivery_in_order",
    "test_webhook_deletion.py::"
    "test_a_game_aborted_then_deleted_at_once_has_every_event_delivered_then_nothing_left",
    "test_api_stream.py::test_200_streams_see_every_move_of_a_match_within_a_second",
    "test_scale_out.py",
    "test_slow_clients.py",
    "test_loadtest.py",
    "test_players_bench.py",
    "test_redis_topologies.py",
    "test_fair_bots.py",
    "test_webhook_isolation.py",
    "test_tournament_pairing.py::test_200_random_swiss_tournaments_keep_fides_absolute_rules",
}


def _keys(nodeid: str) -> tuple[str, str]:
    """A test's keys in :data:`GROUPS` and :data:`LONG`: its test's (parameters aside),
    and its module's."""
    path, _, test = nodeid.partition("::")
    module = path.rsplit("/", 1)[-1]
    return f"{module}::{test.split('[')[0]}", module


def group_of(nodeid: str) -> str | None:
    """A test's group in :data:`GROUPS`: its test's (parameters aside), else its module's."""
    test, module = _keys(nodeid)
    return GROUPS.get(test, GROUPS.get(module))


def is_long(nodeid: str) -> bool:
    """Whether a test is one of the long runs of :data:`LONG`."""
    return any(key in LONG for key in _keys(nodeid))


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item.nodeid)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
        if is_long(item.nodeid):
            item.add_marker(pytest.mark.long)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's, in the process that schedules
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """With ``--dist loadgroup``, every grouped test's node id names its group (xdist's
    way of telling the scheduler) and no two tests share a node id (it would run only
    one of them): else the groups would mix, or tests would not run, and nothing would
    say so."""
    if node.config.option.dist != "loadgroup":
        return
    ungrouped = [nodeid for nodeid in ids if "@" not in nodeid and group_of(nodeid)]
    shared = [nodeid for nodeid, n in Counter(ids).items() if n > 1]
    if ungrouped or shared:
        pytest.exit(
            "--dist loadgroup would not run the suite as grouped (is pytest the version"
            f" pyproject.toml asks for?): not in their group: {ungrouped[:2]};"
            f" node ids shared: {shared[:2]}",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


#: The SERVER_SECRET of the apps the tests build.
TEST_SECRET = "tests-secret-0123456789abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class ExternalRedis:
    """A Redis the tests did not start (from ``TEST_REDIS_URL``): only its URL is known."""

    url: str


def worker_database(url: str) -> str:
    """``TEST_REDIS_URL`` for this xdist worker: worker ``gwN`` flushes and uses the URL's
    database plus N, so that the workers of a parallel run never flush each other's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or parts.query:
        raise pytest.UsageError(
            f"TEST_REDIS_URL={url}: a parallel run needs a redis:// or rediss:// URL with no"
            " query, whose database it numbers by worker; or run with TEST_WORKERS=0 (-n 0)"
        )
    database = int(parts.path.strip("/") or 0) + int(worker[2:])
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer | ExternalRedis]:
    """The session's Redis: a private persistent ``RedisServer``, or ``TEST_REDIS_URL``."""
    external_url = os.environ.get("TEST_REDIS_URL")
    if external_url:
        yield ExternalRedis(worker_database(external_url))
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


@pytest.fixture
def start_worker(
    redis_url: str, tmp_path: Path
) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``python -m service.worker`` processes (with ``args``) on the tests' Redis,
    with a 3 ms expert and no cost budget per address unless ``settings`` (environment
    variables) say otherwise; their output goes to the test's temporary directory and is
    printed after it (shown if it failed); each is killed (its whole process group)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str, **settings: str) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "SERVER_SECRET": TEST_SECRET,
            "EXPERT_BUDGET_MS": "3",
            "COST_BUDGET_SECONDS_PER_ADDRESS": "0",
            **settings,
        }
        with open(tmp_path / f"worker-{len(started)}.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "service.worker", *args],
                cwd=Path(__file__).resolve().parent.parent,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
    for log in sorted(tmp_path.glob("worker-*.log")):
        print(log.read_text(errors="replace")[-4000:])
