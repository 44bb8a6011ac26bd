"""Computer players off the request path (service/play/background.py): past a request's
allowance, real ``python -m service.worker`` processes play on through the rq queue on
the tests' Redis. A worker killed mid-match loses no move and plays none twice: the
match still ends, and its event log replays exactly (service/engine/replay.py refuses a
move missing or played twice)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
import rq
from flask import Flask
from flask.testing import FlaskClient
from rq.registry import StartedJobRegistry

from service.engine.replay import comparable, replay
from service.play import GameStore
from service.play.queues import queue_for

#: Two expert computer players, to a target far enough that the match lasts a while.
EXPERTS = {"target": 16, "seats": [{"name": "A", "bot": "expert"}, {"name": "B", "bot": "expert"}]}


@pytest.fixture
def client(make_app: Callable[..., Flask], redis_url: str) -> FlaskClient:
    """The service with a tiny allowance: requests leave the computer players to the
    workers almost at once; matches of computer players only up to 100 points."""
    app = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.01, BOT_ONLY_MAX_TARGET=100)
    return app.test_client()


@pytest.fixture
def start_worker(
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> Callable[..., subprocess.Popen[bytes]]:
    """conftest's workers, with 1 s slices and the expert's budget as ``budget_ms``."""

    def start(*args: str, budget_ms: str = "3", **settings: str) -> subprocess.Popen[bytes]:
        return start_worker(
            *args, **{"EXPERT_BUDGET_MS": budget_ms, "BOT_SLICE_SECONDS": "1", **settings}
        )

    return start


def create(client: FlaskClient, body: dict[str, object]) -> dict[str, object]:
    response = client.post("/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    created: dict[str, object] = response.get_json()
    return created


def wait_for(predicate: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"{what}: not within {seconds:g} s"
        time.sleep(0.05)


def view(client: FlaskClient, game_id: object) -> dict[str, object]:
    answer: dict[str, object] = client.get(f"/v1/games/{game_id}").get_json()
    return answer


def assert_the_log_replays(redis_url: str, game_id: str) -> None:
    """The stored match is exactly what its event log gives, move by move."""
    store = GameStore(redis.Redis.from_url(redis_url, decode_responses=True), 60)
    try:
        _, events = store.events(game_id)
        stored = store.load(game_id).match
        assert comparable(replay(events).to_dict()) == comparable(stored.to_dict())
    finally:
        store.close()


def test_a_match_of_computer_players_is_answered_at_once_and_finished_by_a_worker(
    client: FlaskClient, redis_url: str, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    created = create(client, {"seed": 5, **EXPERTS})
    state = created["state"]
    assert isinstance(state, dict) and state["status"] == "playing"
    worker = start_worker("--burst")
    assert worker.wait(120) == 0  # burst: it stops once no job is left
    final = view(client, created["id"])
    assert final["status"] == "finished" and final["winner"] in (0, 1)
    assert_the_log_replays(redis_url, str(created["id"]))


def test_a_person_gets_the_replies_that_fit_the_allowance(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    """Random computer players answer in microseconds: all three replies come back in
    the answer to the person's move, and nothing is left to a worker."""
    client = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.3).test_client()
    seats = [{"name": "Ana"}] + [{"name": f"Cpu{i}", "bot": "random"} for i in range(3)]
    created = create(client, {"seed": 3, "first_dealer": 3, "seats": seats})
    token = created["seats"][0]["token"]  # type: ignore[index]
    headers = {"Authorization": f"Bearer {token}"}
    move = client.get(f"/v1/games/{created['id']}/legal-moves", headers=headers).get_json()
    first = move["moves"][0]
    answer = client.post(
        f"/v1/games/{created['id']}/moves",
        json={"card": first["card"], "capture": first["capture"]},
        headers=headers,
    ).get_json()
    replies = [e for e in answer["events"] if e["type"] == "move"]
    assert [e["seat"] for e in replies] == [1, 2, 3]
    assert answer["state"]["turn"] == 0
    with redis.Redis.from_url(redis_url) as connection:
        assert queue_for(connection).count == 0


def test_a_killed_work_horse_loses_no_move_and_plays_none_twice(
    client: FlaskClient, redis_url: str, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """rq runs each job in a forked work-horse; killed mid-job (as the OOM killer would),
    the worker sees it die and retries the job, which reads the game anew."""
    created = create(client, {"seed": 6, **EXPERTS})
    worker = start_worker(budget_ms="20")
    started = int(str(view(client, created["id"])["version"]))
    wait_for(lambda: int(str(view(client, created["id"])["version"])) > started + 3, 60, "moves")
    horses = _children(worker.pid)
    assert horses, "the worker runs its job in a work-horse"
    for horse in horses:
        os.kill(horse, signal.SIGKILL)
    wait_for(lambda: view(client, created["id"])["status"] == "finished", 180, "the match")
    assert_the_log_replays(redis_url, str(created["id"]))


def test_a_killed_worker_s_job_is_retried_by_another(
    client: FlaskClient, redis_url: str, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """The whole worker killed: its job stays in rq's started registry until its
    heartbeat expires (rq's job monitoring interval + 60 s); rq's maintenance, which
    every worker runs, then retries it. Here that maintenance runs with the clock
    moved past the expiry, instead of the test waiting for it."""
    created = create(client, {"seed": 7, **EXPERTS})
    first = start_worker(budget_ms="20")
    started = int(str(view(client, created["id"])["version"]))
    wait_for(lambda: int(str(view(client, created["id"])["version"])) > started + 3, 60, "moves")
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(10)
    stopped_at = view(client, created["id"])
    assert stopped_at["status"] == "playing"
    with redis.Redis.from_url(redis_url) as connection:
        queue = queue_for(connection)
        registry = StartedJobRegistry(queue=queue)
        assert registry.get_job_ids(), "the killed worker's job is still marked started"
        registry.cleanup(timestamp=time.time() + 3600)
        assert queue.count >= 1, "the abandoned job was queued again"
    second = start_worker("--burst", budget_ms="20")
    assert second.wait(180) == 0
    final = view(client, created["id"])
    assert final["status"] == "finished"
    assert int(str(final["version"])) > int(str(stopped_at["version"]))
    assert_the_log_replays(redis_url, str(created["id"]))


def test_a_job_for_a_game_that_is_gone_does_nothing(
    redis_url: str, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    with redis.Redis.from_url(redis_url) as connection:
        queue = queue_for(connection)
        job = queue.enqueue("service.play.background.advance", "no-such-game")
        # Within seconds, not the minute of rq's pubsub poll (pyproject.toml's redis pin).
        assert start_worker("--burst").wait(20) == 0
        job.refresh()
        assert job.get_status() in (rq.job.JobStatus.FINISHED, None)


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found += [int(child) for child in children]
    return found


def test_a_computer_player_first_moves_from_the_start_of_a_match_created_to_start_later(
    make_app: Callable[..., Flask],
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    """A game of a bulk creation with ``start_at``: its computer player, first to play,
    does not move before it (its job is scheduled for it), and does then."""
    secret = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
    client = make_app(REDIS_URL=redis_url, SERVICE_KEYS=f"acme={secret}").test_client()
    start_at = time.time() + 2
    body = {
        "games": [
            {
                "seats": [{"bot": "greedy"}, {"name": "Ana"}],
                "first_dealer": 1,
                "start_at": datetime.fromtimestamp(start_at, UTC).isoformat(),
            }
        ]
    }
    made = client.post("/v1/games/bulk", json=body, headers={"Authorization": f"Bearer {secret}"})
    assert made.status_code == 201, made.get_json()
    game_id = made.get_json()["games"][0]["id"]
    start_worker()
    wait_for(lambda: view(client, game_id)["last_move"] is not None, 15, "the computer's move")
    assert time.time() >= start_at
    assert view(client, game_id)["turn"] == 1
