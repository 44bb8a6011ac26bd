"""make hostile: what one client address can cost the service within the default limits.

It starts a private Redis, gunicorn as deployed (deploy/gunicorn.conf.py, the service's
own app, every setting at its default: the rate limits and quotas on) and one background
worker (``python -m service.worker``), on 127.0.0.1 only. Then, from one address
(127.0.0.1), one thread per quota sends the costliest request it covers, back to back,
for ``--seconds``; a thread told 429 waits its ``Retry-After`` (a client within the
limits; the 429s it got are counted):

- ``legal-moves``: ``POST /v1/legal-moves``, a 34-card Cirulla table (over 10,000 legal
  moves), quota ``analysis``;
- ``analysis``: ``POST /v1/analysis`` of the expert's worst searches (the positions of
  tests/test_deadlines.py, in turn), quota ``hints``;
- ``bot-matches``: ``POST /v1/games``, scopone with four expert computer players to the
  longest target a match of computer players only may have (``BOT_ONLY_MAX_TARGET``: the
  variant's own, 11, by default; 100 is a 422 now), played by the worker, quotas ``bots``
  and ``creations``;
- ``openapi``: ``GET /openapi.json`` with no ETag, and ``plain``: ``GET /v1/variants``,
  quota ``requests``.

Meanwhile a bystander on another address (127.0.0.2) reads its own game's view every
100 ms. It prints what each thread sent and was answered, the CPU seconds the API
(gunicorn's master and workers), the worker (rq and its work-horses) and Redis spent
over the run, against the budget (half a core: ``--seconds`` / 2 for API and worker
together), and the bystander's latency. Bounded in time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service import config
from service.engine import DECK
from tests.bench.loadtest import redis_cpu_seconds
from tests.devredis import RedisServer
from tests.live import DEFAULT_ENV, ROOT, LiveService, children_of
from tests.test_deadlines import HIDDEN, KNOWN

ATTACKER, BYSTANDER = "127.0.0.1", "127.0.0.2"
REPLY_TIMEOUT = 30.0
#: The worst stateless position found for POST /v1/legal-moves: 10,805 moves.
WORST_HAND = ["1D", "10D", "10S", "10C", "10B", "9D"]
WORST_MOVES = {
    "variant": "cirulla",
    "hand": WORST_HAND,
    "table": [card.code for card in DECK if card.code not in WORST_HAND],
}
BOT_MATCH = {"variant": "scopone", "seats": [{"bot": "expert"}] * 4}
#: How often the bystander asks.
BYSTANDER_PERIOD = 0.1


class Client:
    """One keep-alive HTTP/1.1 connection from a chosen loopback address."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.conn: http.client.HTTPConnection | None = None

    def send(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        payload = None if body is None else json.dumps(body).encode()
        sent = {**(headers or {}), **({"Content-Type": "application/json"} if payload else {})}
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=REPLY_TIMEOUT, source_address=(self.source, 0)
                )
            try:
                self.conn.request(method, path, body=payload, headers=sent)
                response = self.conn.getresponse()
                data = response.read()
                return response.status, dict(response.getheaders()), data
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


@dataclass
class Tally:
    """What one thread sent and was answered."""

    name: str
    statuses: Counter[int] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)  # of the answers that were not 429
    answered_bytes: int = 0
    failures: int = 0


def hammer(
    name: str,
    port: int,
    until: float,
    request: Callable[[int], tuple[str, str, Any]],
    period: float = 0.0,
) -> Tally:
    """Send ``request(n)`` from the attacker's address until ``until``, back to back or
    one every ``period`` seconds, waiting out each 429's Retry-After."""
    tally, client, n = Tally(name), Client(port, ATTACKER), 0
    try:
        while time.monotonic() < until:
            method, path, body = request(n)
            n += 1
            started = time.monotonic()
            try:
                status, headers, data = client.send(method, path, body)
            except (OSError, http.client.HTTPException):
                tally.failures += 1
                time.sleep(0.1)
                continue
            tally.statuses[status] += 1
            if status == 429:
                wait = float(headers.get("Retry-After", "1"))
                time.sleep(max(0.0, min(wait, until - time.monotonic())))
                continue
            tally.latencies.append(time.monotonic() - started)
            tally.answered_bytes += len(data)
            if period:
                time.sleep(max(0.0, min(started + period, until) - time.monotonic()))
    finally:
        client.close()
    return tally


def analysis_bodies() -> list[dict[str, Any]]:
    return [position.body() for position in (*HIDDEN.values(), *KNOWN.values())]


def cheap_period(limits: dict[str, Any]) -> float:
    """How often each of the two cheap threads sends: together, what the per-minute
    request limit leaves once the costly quotas are used up (a client that spends its
    requests where they cost most)."""
    left = limits["RATE_LIMIT_PER_ADDRESS"] - sum(
        limits[name]
        for name in (
            "HINT_LIMIT_PER_ADDRESS",
            "ANALYSIS_LIMIT_PER_ADDRESS",
            "BOT_LIMIT_PER_ADDRESS",
        )
    )
    return 60.0 / max(1, left / 2)


def attackers(
    port: int, until: float, parallel: int, limits: dict[str, Any]
) -> dict[str, Callable[[], Tally]]:
    bodies = analysis_bodies()
    period = cheap_period(limits)
    costly: dict[str, Callable[[int], tuple[str, str, Any]]] = {
        "legal-moves": lambda n: ("POST", "/v1/legal-moves", WORST_MOVES),
        "analysis": lambda n: ("POST", "/v1/analysis", bodies[n % len(bodies)]),
        "bot-matches": lambda n: ("POST", "/v1/games", BOT_MATCH),
    }
    runs: dict[str, Callable[[], Tally]] = {}
    for name, request in costly.items():
        for i in range(parallel):
            runs[f"{name}#{i}"] = functools.partial(hammer, name, port, until, request)
    runs["openapi"] = functools.partial(
        hammer, "openapi", port, until, lambda n: ("GET", "/openapi.json", None), period
    )
    runs["plain"] = functools.partial(
        hammer, "plain", port, until, lambda n: ("GET", "/v1/variants", None), period
    )
    return runs


def bystander(port: int, until: float, out: list[float], errors: list[int]) -> None:
    """A player on another address: its game's view every BYSTANDER_PERIOD seconds."""
    client = Client(port, BYSTANDER)
    status, _, data = client.send("POST", "/v1/games", {})
    assert status == 201, data
    created = json.loads(data)
    path = f"/v1/games/{created['id']}"
    auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    try:
        while time.monotonic() < until:
            started = time.monotonic()
            try:
                status, _, _ = client.send("GET", path, headers=auth)
            except (OSError, http.client.HTTPException):
                status = 0
            out.append(time.monotonic() - started)
            if status != 200:
                errors.append(status)
            time.sleep(max(0.0, BYSTANDER_PERIOD - (time.monotonic() - started)))
    finally:
        client.close()


def _times(pid: int) -> tuple[int, int]:
    """(own, reaped children's) CPU ticks of a process, from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0, 0
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process, of its children that it has reaped, and of those alive
    (gunicorn's workers; rq's work-horse): a child's time moves from the last to the
    second when it exits, so a difference of two readings counts it once."""
    own, reaped = _times(pid)
    alive = sum(sum(_times(child)) for child in children_of(pid))
    return (own + reaped + alive) / os.sysconf("SC_CLK_TCK")


def default_env() -> dict[str, str]:
    """The service's own defaults for every setting the live tests change (they turn the
    limits off and shorten the computer players' turns); not the secret, which has none."""
    defaults = config.load({}).app_config()
    return {key: str(defaults[key]) for key in DEFAULT_ENV if defaults.get(key) not in (None, "")}


@contextlib.contextmanager
def background_worker(redis_url: str, env: dict[str, str], log: Path, *args: str) -> Iterator[int]:
    """``python -m service.worker`` (with ``args``) in a session of its own, killed (with
    its work-horse) when done: what it has queued is not waited for."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.worker", *args],
            cwd=ROOT,
            env={**os.environ, **env, "REDIS_URL": redis_url},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process.pid
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def percentile(values: list[float], q: float) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[round(q) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--parallel", type=int, default=1, help="threads for each costly quota (default 1)"
    )
    args = parser.parse_args(argv)
    if not 2 <= args.seconds <= 300 or not 1 <= args.parallel <= 8:
        parser.error("--seconds 2-300, --parallel 1-8")

    env = {**DEFAULT_ENV, **default_env()}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(RedisServer())
        service = stack.enter_context(LiveService(server.url, **env))
        worker = stack.enter_context(
            background_worker(server.url, service.env, service.workdir / "worker.log")
        )
        store = stack.enter_context(redis.Redis.from_url(server.url))
        print(
            f"hostile: one address, {args.parallel} thread(s) per costly quota, "
            f"{args.seconds:g} s, default limits; "
            f"gunicorn {env['WEB_CONCURRENCY']} workers x {env['GUNICORN_THREADS']} threads "
            f"and one rq worker, Redis {server.url}; loopback only",
            flush=True,
        )
        api_before = tree_cpu_seconds(service.master_pid)
        worker_before = tree_cpu_seconds(worker)
        redis_before = redis_cpu_seconds(store)
        # Fixed one-minute windows (the limiter's, until sliding ones) let a run that
        # crosses a minute's boundary spend two minutes' quotas: say whether it does.
        second = time.time() % 60
        print(
            f"starting at second {second:.0f} of the minute: "
            + ("crosses into the next" if second + args.seconds > 60 else "within one minute"),
            flush=True,
        )
        until = time.monotonic() + args.seconds
        tallies: list[Tally] = []
        latencies: list[float] = []
        errors: list[int] = []
        threads = [
            threading.Thread(target=lambda run=run: tallies.append(run()), name=name)
            for name, run in attackers(
                service.port, until, args.parallel, config.load(service.env).app_config()
            ).items()
        ]
        threads.append(
            threading.Thread(target=bystander, args=(service.port, until, latencies, errors))
        )
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.seconds + 2 * REPLY_TIMEOUT)
        elapsed = time.monotonic() - started
        api = tree_cpu_seconds(service.master_pid) - api_before
        background = tree_cpu_seconds(worker) - worker_before
        redis_cpu = redis_cpu_seconds(store) - redis_before
        memory = int(store.info("memory")["used_memory"])
        problems = service.server_errors()

    print(
        f"\n{'thread':<12} {'answered':>8} {'429':>5} {'other':>5} {'median ms':>10} "
        f"{'KB/answer':>10}"
    )
    merged: dict[str, Tally] = {}
    for tally in tallies:
        into = merged.setdefault(tally.name, Tally(tally.name))
        into.statuses.update(tally.statuses)
        into.latencies += tally.latencies
        into.answered_bytes += tally.answered_bytes
        into.failures += tally.failures
    for tally in sorted(merged.values(), key=lambda t: t.name):
        answered = sum(n for s, n in tally.statuses.items() if s < 300)
        other = sum(n for s, n in tally.statuses.items() if s >= 300 and s != 429)
        median = statistics.median(tally.latencies) * 1000 if tally.latencies else float("nan")
        size = tally.answered_bytes / max(1, len(tally.latencies)) / 1000
        print(
            f"{tally.name:<12} {answered:>8} {tally.statuses[429]:>5} "
            f"{other + tally.failures:>5} {median:>10.1f} {size:>10.1f}"
        )
    budget = args.seconds / 2
    total = api + background
    print(
        f"\nCPU over {elapsed:.1f} s: API {api:.1f} s, worker {background:.1f} s, together "
        f"{total:.1f} s ({total / elapsed:.2f} cores; budget {budget:g} s: "
        f"{'within' if total <= budget else 'OVER'}); Redis {redis_cpu:.1f} s, "
        f"{memory / 2**20:.1f} MiB used"
    )
    print(
        f"bystander (another address, its game's view every {BYSTANDER_PERIOD * 1000:g} ms): "
        f"{len(latencies)} requests, p50 {percentile(latencies, 50) * 1000:.1f} ms, "
        f"p95 {percentile(latencies, 95) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms, "
        f"{len(errors)} not 200"
    )
    if problems:
        print("server errors:", *problems[:5], sep="\n  ")
    return 1 if problems or errors else 0


if __name__ == "__main__":
    sys.exit(main())
