"""Background work is fair and budgeted (service/play/background.py, service/play/budget.py):
a turn clock fires in time however many matches of computer players keep the workers
busy; one address's matches cost the workers only so much a minute, and then wait while
everybody else's are played; a game has one clock's job pending at most; matches of
computer players only are capped. Real ``python -m service.worker`` processes, on the
tests' Redis."""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from rq.registry import ScheduledJobRegistry, StartedJobRegistry

from service.play.budget import Budget
from service.play.queues import CLOCK_QUEUE_NAME, QUEUE_NAME, queue_for
from tests.helpers import Table
from tests.test_workers import create, start_worker, view, wait_for  # noqa: F401 - a fixture

#: The bot-only match of the issue: four experts playing scopone to 100.
FLOOD = {"variant": "scopone", "target": 100, "seats": [{"bot": "expert"}] * 4}
#: A person against a greedy computer player, the person to play first.
CLOCKED = {"first_dealer": 1, "seats": [{"name": "Ann"}, {"name": "CPU", "bot": "greedy"}]}
OTHER_ADDRESS = {"REMOTE_ADDR": "198.51.100.7"}


@pytest.fixture
def service(make_app: Callable[..., Flask], redis_url: str) -> Flask:
    """The service leaving the computer players to the workers almost at once, and
    allowing matches of computer players only to 100 points."""
    return make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.01, BOT_ONLY_MAX_TARGET=100)


def pending_jobs(connection: redis.Redis, game_id: str) -> dict[str, float]:
    """Every job of ``game_id`` waiting on either queue: scheduled (by id, when) or
    queued (by id, 0)."""
    found: dict[str, float] = {}
    for name in (QUEUE_NAME, CLOCK_QUEUE_NAME):
        registry = ScheduledJobRegistry(name, connection=connection)
        for job_id in registry.get_job_ids():
            if job_id.startswith(game_id):
                found[job_id] = registry.get_scheduled_time(job_id).timestamp()
        queued = queue_for(connection).get_job_ids() if name == QUEUE_NAME else []
        found |= {job_id: 0.0 for job_id in queued if job_id.startswith(game_id)}
    return found


def test_a_turn_that_moves_on_replaces_its_clock_s_job(table: Table, redis_url: str) -> None:
    """Each of Ann's moves starts her next clock: the job of the clock it stopped is
    deleted, so after a dozen moves one job is pending, for the clock running now."""
    table.create(clock=60, seed=11, **CLOCKED)
    rng = random.Random(1)
    for _ in range(12):
        move = rng.choice(table.legal_moves(0))
        assert table.move(0, move["card"], move["capture"]).status_code == 200
        assert table.view()["turn"] == 0  # the computer player replied within the request
    deadline = datetime.fromisoformat(table.view()["clock"]["deadline"]).timestamp()
    with redis.Redis.from_url(redis_url) as connection:
        pending = pending_jobs(connection, table.game_id)
        assert list(pending) == [job_id := next(iter(pending))]
        assert job_id.startswith(f"{table.game_id}-clock-")
        assert pending[job_id] == pytest.approx(deadline, abs=1)
        # No job left behind either: the deleted ones' hashes are gone.
        assert len(connection.keys(f"rq:job:{table.game_id}*")) == 1


@pytest.mark.parametrize(
    "workers", [("",), ("", "--only-clock")], ids=["one-worker", "and-a-clock-worker"]
)
def test_a_clock_fires_in_time_while_matches_of_computer_players_flood_the_workers(
    service: Flask,
    start_worker: Callable[..., subprocess.Popen[bytes]],  # noqa: F811
    workers: tuple[str, ...],
) -> None:
    """The issue's flood: twelve scopone matches of four experts to 100, from one
    address (its budget off here: only the queues are tested), with 8 s slices (the
    clock runs out in the middle of the first). A 5-second clock still fires within
    7 s: its job is on the clocks' queue, which workers take first, and a computer
    players' job ends its slice after the move it plays when a clock's job waits (or a
    worker that takes only clocks takes it at once). With one queue, it waited its turn
    behind the flood's jobs (12 x 8 s)."""
    client = service.test_client()
    flood = [str(create(client, {"seed": i, **FLOOD})["id"]) for i in range(12)]
    for options in workers:
        start_worker(*filter(None, [options]), budget_ms="20", BOT_SLICE_SECONDS="8")
    with redis.Redis.from_url(service.config["REDIS_URL"]) as connection:
        busy = StartedJobRegistry(QUEUE_NAME, connection=connection)
        wait_for(lambda: busy.count > 0, 30, "the flood taking the workers")
        table = Table(client)
        table.create(clock=5, **CLOCKED)
        started = datetime.fromisoformat(table.view()["clock"]["deadline"]).timestamp() - 5

        def timed_out() -> bool:
            log = client.get(table.url("/events")).get_json()["events"]
            return any(e.get("timeout") for e in log)

        wait_for(timed_out, 30, "the clock's move")
        fired = time.time() - started
        assert queue_for(connection).count > 0, "the flood still waits for the workers"
    assert 5 <= fired <= 7, f"a 5-second clock fired after {fired:.1f} s"
    assert all(view(client, game)["status"] == "playing" for game in flood)


def test_an_address_over_its_budget_waits_and_the_others_are_played(
    service: Flask,
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],  # noqa: F811
) -> None:
    """One address's three matches spend its 2 s of the workers' time, and its jobs
    are then put off until the budget allows (none is played before); meanwhile another
    address's match is played at once."""
    client = service.test_client()
    mine = [str(create(client, {"seed": i, **FLOOD})["id"]) for i in range(3)]
    # 5 s slices: a job stops when the budget is spent, not a whole slice past it.
    start_worker(budget_ms="10", BOT_SLICE_SECONDS="5", COST_BUDGET_SECONDS_PER_ADDRESS="2")
    connection = redis.Redis.from_url(redis_url)
    budget = Budget(2.0)

    def put_off() -> dict[str, float]:
        """When each of my games is put off to, if all of them are (none queued)."""
        later: dict[str, float] = {}
        for game in mine:
            pending = pending_jobs(connection, game)
            if len(pending) != 1 or "-later-" not in next(iter(pending)):
                return {}
            later[game] = next(iter(pending.values()))
        return later

    try:
        wait_for(lambda: bool(put_off()), 60, "the address's jobs put off")
        until = put_off()
        versions = {game: view(client, game)["version"] for game in mine}
        spent = budget.spent(connection, "a:127.0.0.1/32", time.time())
        # At most about a move over the budget, never a slice (5 s): a move cost up to
        # 0.6 s on a machine busy with the rest of the suite.
        assert 2.0 <= spent <= 2.0 + 1.5, f"{spent:.2f} s: more than a move over, a slice?"
        # Another address's match is played meanwhile.
        theirs = client.post("/v1/games", json={"seed": 9, **FLOOD}, environ_base=OTHER_ADDRESS)
        assert theirs.status_code == 201
        first = theirs.get_json()["state"]["version"]
        other = theirs.get_json()["id"]
        wait_for(lambda: view(client, other)["version"] >= first + 20, 20, "their match played")
        for game in mine:  # none of mine played before it was due
            if time.time() < until[game] - 1:
                assert view(client, game)["version"] == versions[game]
    finally:
        connection.close()


def test_a_clock_s_timeout_is_charged_to_its_game_s_payer(
    service: Flask,
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],  # noqa: F811
) -> None:
    """An idle clocked game costs the workers a timeout move every clock period: it is
    charged to the address that created the game, and put off while that address is
    over its budget (another address's clock runs out as usual meanwhile)."""
    client = service.test_client()
    budget = Budget(2.0)
    with redis.Redis.from_url(redis_url) as connection:
        budget.charge(connection, "a:127.0.0.1/32", 30.0, time.time())  # mine: spent
        mine, theirs = Table(client), Table(client)
        mine.create(clock=5, **CLOCKED)
        response = client.post(
            "/v1/games", json={"clock": 5, **CLOCKED}, environ_base=OTHER_ADDRESS
        )
        assert response.status_code == 201
        theirs.game_id = response.get_json()["id"]
        start_worker(COST_BUDGET_SECONDS_PER_ADDRESS="2")

        def timeouts(table: Table) -> int:
            log = client.get(table.url("/events")).get_json()["events"]
            return sum(1 for e in log if e.get("timeout"))

        wait_for(lambda: timeouts(theirs) == 1, 15, "their clock's move")
        assert budget.spent(connection, "a:198.51.100.7/32", time.time()) > 0, "charged"

        def put_off() -> bool:
            return any("-later-" in job for job in pending_jobs(connection, mine.game_id))

        wait_for(put_off, 15, "my clock's job put off")
        assert timeouts(mine) == 0


def test_the_budget_slides(redis_url: str) -> None:
    """A sliding window over two fixed ones: what was spent counts for a minute, and
    less as the window slides past it; ``wait`` says when it has slid enough."""
    budget = Budget(2.0, window_seconds=60)
    with redis.Redis.from_url(redis_url) as client:
        start = 600.0 * 60  # the start of a window
        assert budget.wait(client, "a:x", start) == 0
        budget.charge(client, "a:x", 3.0, start + 30)
        assert budget.spent(client, "a:x", start + 31) == pytest.approx(3.0)
        assert budget.spent(client, "a:y", start + 31) == 0  # per payer
        # Over: allowed again once a third of it has slid out of the window, 20 s into the
        # next one.
        assert budget.wait(client, "a:x", start + 31) == pytest.approx(49.0)
        assert budget.spent(client, "a:x", start + 80) == pytest.approx(2.0)
        assert budget.wait(client, "a:x", start + 80.1) == 0
        assert budget.wait(client, None, start + 31) == 0  # a game without a payer
        assert Budget(0).wait(client, "a:x", start + 31) == 0  # no budget


class TestBotOnlyMatches:
    def test_are_capped_at_the_variant_s_default_target(self, client: FlaskClient) -> None:
        response = client.post("/v1/games", json=FLOOD)
        assert response.status_code == 422
        problem: dict[str, Any] = response.get_json()
        assert problem["type"] == "/problems/bot-match-too-long"
        assert "11 points at most" in problem["detail"] and "to 100" in problem["detail"]
        assert client.post("/v1/games", json={**FLOOD, "target": 11}).status_code == 201
        # A person in a seat, or a seat left open for one: not capped.
        person = {**FLOOD, "seats": [{"name": "Ann"}] + [{"bot": "expert"}] * 3}
        assert client.post("/v1/games", json=person).status_code == 201

    def test_the_cap_is_a_setting(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, BOT_ONLY_MAX_TARGET=5).test_client()
        assert client.post("/v1/games", json={**FLOOD, "target": 6}).status_code == 422
        assert client.post("/v1/games", json={**FLOOD, "target": 5}).status_code == 201
