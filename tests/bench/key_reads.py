"""make hostile's second part: what one service key's reads of many games cost, within
the default limits.

It starts a private Redis and gunicorn as deployed (every setting at its default but
the service key ``live``), gives the key ``--games`` games that are still being played
(bulk creations) and a few that are over, then from ``--threads`` threads, for
``--seconds``, sends back to back half ``GET /v1/games/export?max=1`` and half listings
that match nothing (``GET /v1/games?metadata.none=none``: each reads up to 1,000 games),
waiting out each 429's ``Retry-After``. It prints what was answered and the CPU seconds
the API spent (gunicorn's master and workers) and Redis. Loopback only, bounded in time.

    python -m tests.bench.key_reads [--seconds 20] [--threads 4] [--games 2000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import threading
import time
from collections import Counter

import redis

from tests.bench.hostile import REPLY_TIMEOUT, Client, default_env, tree_cpu_seconds
from tests.bench.loadtest import redis_cpu_seconds
from tests.devredis import RedisServer
from tests.live import DEFAULT_ENV, LIVE_KEY, LiveService

AUTH = {"Authorization": f"Bearer {LIVE_KEY}"}
READS = ("/v1/games/export?max=1", "/v1/games?metadata.none=none&limit=100")


def give_games(port: int, count: int) -> None:
    """``count`` games of the key being played, a hundred a call, and two that are over."""
    client = Client(port, "127.0.0.1")
    pairing = {"seats": [{"name": "Ana"}, {"name": "Ben"}]}
    for start in range(0, count, 100):
        body = {"games": [pairing] * min(100, count - start)}
        status, _, data = client.send("POST", "/v1/games/bulk", body, AUTH)
        assert status == 201, data
    for _ in range(2):
        status, _, data = client.send("POST", "/v1/games", pairing, AUTH)
        assert status == 201, data
        game = json.loads(data)["id"]
        status, _, data = client.send("POST", f"/v1/games/{game}/abort", {"reason": "bench"}, AUTH)
        assert status == 200, data
    client.close()


def reader(port: int, path: str, until: float, statuses: Counter[int]) -> None:
    client = Client(port, "127.0.0.1")
    try:
        while time.monotonic() < until:
            status, headers, _ = client.send("GET", path, headers=AUTH)
            statuses[status] += 1
            if status == 429:
                wait = float(headers.get("Retry-After", "1"))
                time.sleep(max(0.0, min(wait, until - time.monotonic())))
    finally:
        client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args(argv)
    if not 2 <= args.seconds <= 300 or not 1 <= args.threads <= 16 or not 1 <= args.games <= 6000:
        parser.error("--seconds 2-300, --threads 1-16, --games 1-6000")
    env = {**DEFAULT_ENV, **default_env(), "SERVICE_KEYS": DEFAULT_ENV["SERVICE_KEYS"]}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(RedisServer())
        service = stack.enter_context(LiveService(server.url, **env))
        store = stack.enter_context(redis.Redis.from_url(server.url))
        give_games(service.port, args.games)
        print(
            f"key reads: one key with {args.games} games being played and 2 over, "
            f"{args.threads} threads for {args.seconds:g} s of {READS[0]} and {READS[1]} "
            "in turn; default limits; loopback only",
            flush=True,
        )
        api_before, redis_before = tree_cpu_seconds(service.master_pid), redis_cpu_seconds(store)
        until = time.monotonic() + args.seconds
        tallies = {path: Counter[int]() for path in READS}
        threads = [
            threading.Thread(
                target=reader, args=(service.port, READS[i % 2], until, tallies[READS[i % 2]])
            )
            for i in range(args.threads)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.seconds + REPLY_TIMEOUT)
        elapsed = time.monotonic() - started
        api = tree_cpu_seconds(service.master_pid) - api_before
        redis_cpu = redis_cpu_seconds(store) - redis_before
        problems = service.server_errors()
    for path, statuses in tallies.items():
        print(f"{path}: " + ", ".join(f"{n} x {s}" for s, n in sorted(statuses.items())))
    print(f"CPU over {elapsed:.1f} s: API {api:.1f} s, Redis {redis_cpu:.1f} s")
    if problems:
        print("server errors:", *problems[:5], sep="\n  ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
