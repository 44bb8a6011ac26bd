"""make clock-flood: the issue's flood of bot-only matches against a turn clock, with the
service's defaults (5 s slices, the expert's 50 ms budget).

On a private Redis (tests.devredis), one address creates ``--matches`` matches of four
expert computer players (scopone; to ``--target`` points, the cap raised for them, and
the per-address budget off: only the queues' order is measured), real workers
(``python -m service.worker``) start, and ``--delay`` seconds after they are busy a
person's game with a 5-second clock is created. It prints when the clock's move was
played, counted from when the clock started: once with ``--workers`` workers taking
both queues, once with them and a worker taking clocks only (``--only-clock``). Every
loop is bounded in time.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import redis
from rq.registry import StartedJobRegistry

from service.app import create_app
from service.play.queues import QUEUE_NAME
from tests.devredis import RedisServer

ROOT = Path(__file__).resolve().parents[2]
SECRET = "clock-flood-0123456789abcdefghijklmnopqrstuvwxyz"


def _worker(url: str, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": url, "SERVER_SECRET": SECRET}
    env["COST_BUDGET_SECONDS_PER_ADDRESS"] = "0"
    return subprocess.Popen(
        [sys.executable, "-m", "service.worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _run(
    url: str, matches: int, target: int, workers: int, clock_worker: bool, delay: float
) -> float:
    with redis.Redis.from_url(url) as connection:
        connection.flushdb()
    app = create_app(
        {
            "REDIS_URL": url,
            "SERVER_SECRET": SECRET,
            "BOT_TIME_LIMIT_SECONDS": 0.01,
            "BOT_ONLY_MAX_TARGET": target,
            "RATE_LIMIT_PER_ADDRESS": 0,
            "BOT_LIMIT_PER_ADDRESS": 0,
            "CREATION_LIMIT_PER_ADDRESS": 0,
        }
    )
    client = app.test_client()
    flood = {"variant": "scopone", "target": target, "seats": [{"bot": "expert"}] * 4}
    for seed in range(matches):
        assert client.post("/v1/games", json={"seed": seed, **flood}).status_code == 201
    started = [_worker(url) for _ in range(workers)]
    if clock_worker:
        started.append(_worker(url, "--only-clock"))
    try:
        with redis.Redis.from_url(url) as connection:
            busy = StartedJobRegistry(QUEUE_NAME, connection=connection)
            stop = time.monotonic() + 60
            while busy.count == 0 and time.monotonic() < stop:
                time.sleep(0.05)
        time.sleep(delay)  # so that the clock runs out in the middle of a slice
        seats = [{"name": "Ann"}, {"name": "CPU", "bot": "greedy"}]
        game = client.post("/v1/games", json={"clock": 5, "first_dealer": 1, "seats": seats})
        game_id = game.get_json()["id"]
        deadline = game.get_json()["state"]["clock"]["deadline"]
        clock_started = datetime.fromisoformat(deadline).timestamp() - 5
        stop = time.monotonic() + 120
        while time.monotonic() < stop:
            events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
            if any(e.get("timeout") for e in events):
                return time.time() - clock_started
            time.sleep(0.05)
        return float("inf")
    finally:
        for process in started:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)
        app.extensions["scopa_store"].close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make clock-flood", description=__doc__)
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--delay",
        type=float,
        default=2.5,
        help="seconds between the flood taking the "
        "workers and the clock starting (slices are 5 s: its end falls mid-slice)",
    )
    args = parser.parse_args(argv)
    with RedisServer() as server:
        for clock_worker in (False, True):
            fired = _run(
                server.url, args.matches, args.target, args.workers, clock_worker, args.delay
            )
            print(
                f"{args.matches} bot-only matches, {args.workers} worker(s)"
                f"{' + 1 --only-clock' if clock_worker else ''}: "
                f"a 5-second clock's move played after {fired:.2f} s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
