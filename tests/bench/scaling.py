"""make scaling: how the service's throughput grows with the number of its instances,
against one Redis and against a Redis Cluster of 3 masters.

For each topology and each instance count N, it starts N services (gunicorn as deployed,
deploy/gunicorn.conf.py, each with ``--workers`` workers; rate limits off) on 127.0.0.1,
next to the topology's Redis, and runs ``make loadtest``'s "moves" phase
(:mod:`tests.bench.loadtest`): players spread round-robin over the instances, each one
sticking to its instance, play whole prepared 2-player matches, one ``POST
/v1/games/{id}/moves`` a request, for ``--seconds``. Then the instances stop and Redis is
flushed before the next run. The topologies take turns at each N (both run side by side,
idle but for the run on one of them), so that both see a shared machine alike. With a
cluster, the computer players' job queue (rq, which cannot use a cluster) gets a small
Redis of its own (``QUEUE_REDIS_URL``).

It prints one row per (topology, N): moves per second, latency median, p95 and p99,
errors, CPU milliseconds per move of the services' workers, of Redis (every node of the
cluster) and of the clients, and the speed-up over N=1 of the same topology. Every loop is
bounded in count and in time; nothing leaves the machine.

The clients, the services and Redis share this machine's cores: on a small machine the
figures show each instance's overhead and the machine's ceiling, not how a production
cluster scales.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import sys
import threading
from typing import Any

import redis

from service.api.ratelimit import LIMIT_SETTINGS
from tests.bench.loadtest import (
    HttpError,
    Phase,
    Tally,
    _move_player,
    cpu_seconds,
    redis_cpu_seconds,
    summary,
)
from tests.devredis import RedisServer
from tests.live import LiveService
from tests.redis_topologies import RedisClusterProcesses, TopologyUnavailable

APP = "tests.bench.floor:create_app()"
TOPOLOGIES = ("single", "cluster")
MAX_INSTANCES = 16
#: How long the clients may take besides the clock: preparing and creating their matches
#: before it, sending their results after it.
CLIENT_SLACK_SECONDS = 120.0


class _Start:
    """The start barrier as one player sees it: remembers whether the player met it."""

    def __init__(self, barrier: Any) -> None:
        self.barrier = barrier
        self.met = False

    def wait(self, timeout: float | None = None) -> Any:
        self.met = True
        return self.barrier.wait(timeout=timeout)


def _player(port: int, index: int, barrier: Any, seconds: float, tally: Tally) -> None:
    """:func:`tests.bench.loadtest._move_player`, except that a failure is counted as an
    error, and a player whose matches could not be created still meets the others at the
    start barrier (so that they are not left waiting for it)."""
    start = _Start(barrier)
    try:
        _move_player(port, index, start, seconds, tally)
    except (OSError, HttpError) as exc:
        tally.error(f"{'on' if start.met else 'before'} the clock: {type(exc).__name__}")
        if not start.met:
            with contextlib.suppress(threading.BrokenBarrierError):
                start.wait(timeout=300)


def _client_process(
    ports: list[int], first: int, count: int, seconds: float, start: Any, out: Any
) -> None:
    """One client process: players ``first`` .. ``first + count - 1`` as threads, player
    ``i`` on instance ``ports[i % len(ports)]`` (its matches created there too)."""
    tallies = [Tally() for _ in range(count)]
    threads = [
        threading.Thread(
            target=_player,
            args=(ports[(first + i) % len(ports)], first + i, start, seconds, tallies[i]),
        )
        for i in range(count)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + CLIENT_SLACK_SECONDS + 300)
    kinds: dict[str, int] = {}
    for t in tallies:
        for k, v in t.error_kinds.items():
            kinds[k] = kinds.get(k, 0) + v
    out.put(
        (
            [x for t in tallies for x in t.latencies],
            sum(t.cpu_seconds for t in tallies),
            sum(t.errors for t in tallies),
            kinds,
        )
    )


def run_moves(
    services: list[LiveService],
    stores: list[redis.Redis],
    players: int,
    processes: int,
    seconds: float,
) -> Phase:
    """The "moves" phase over several instances: ``players`` in ``processes`` client
    processes for ``seconds``; latencies, and the CPU time of the clients, of every
    instance's workers and of every Redis in ``stores``."""
    ports = [s.port for s in services]
    queue: Any = multiprocessing.Queue()
    start: Any = multiprocessing.Barrier(players + 1)  # the players, and this process
    share = [players // processes + (1 if i < players % processes else 0) for i in range(processes)]
    procs = []
    first = 0
    try:
        for count in share:
            if not count:
                continue
            proc = multiprocessing.Process(
                target=_client_process, args=(ports, first, count, seconds, start, queue)
            )
            proc.start()
            procs.append(proc)
            first += count
        workers = [pid for s in services for pid in s.worker_pids()]

        def redis_cpu() -> float:
            return sum(redis_cpu_seconds(store) for store in stores)

        start.wait(timeout=300)  # every player is ready (its matches created): the clock starts
        server_cpu, store_cpu = cpu_seconds(workers), redis_cpu()
        phase = Phase(seconds, cpu={"client": 0.0})
        for number in range(len(procs)):
            lat, cpu, err, err_kinds = queue.get(timeout=seconds + CLIENT_SLACK_SECONDS)
            if number == 0:  # the first process is done: so is the clock
                phase.cpu["server"] = cpu_seconds(workers) - server_cpu
                phase.cpu["redis"] = redis_cpu() - store_cpu
            phase.latencies += lat
            phase.cpu["client"] += cpu
            phase.errors += err
            for k, v in err_kinds.items():
                phase.error_kinds[k] = phase.error_kinds.get(k, 0) + v
        return phase
    finally:
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=10)


def _topology(
    name: str, stack: contextlib.ExitStack
) -> tuple[str, dict[str, str], list[redis.Redis]]:
    """Start a topology: its REDIS_URL, the extra environment the service needs with it,
    and a client of every data node (for INFO cpu and FLUSHALL)."""
    if name == "single":
        server = stack.enter_context(RedisServer())
        assert server.port is not None
        return server.url, {}, [stack.enter_context(redis.Redis(port=server.port))]
    cluster = stack.enter_context(RedisClusterProcesses(masters=3))
    queue = stack.enter_context(RedisServer())
    stores = [stack.enter_context(redis.Redis(port=port)) for port in cluster.ports]
    return cluster.url, {"QUEUE_REDIS_URL": queue.url}, stores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", default="1,2,4", help="instance counts, e.g. 1,2,4")
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0, help="the clock of each run")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers per instance")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--topologies", default=",".join(TOPOLOGIES), help="single,cluster")
    args = parser.parse_args(argv)
    try:
        counts = [int(x) for x in args.instances.split(",") if x.strip()]
    except ValueError:
        parser.error("--instances: comma-separated numbers, e.g. 1,2,4")
    topologies = [x.strip() for x in args.topologies.split(",") if x.strip()]
    if not counts or not all(1 <= n <= MAX_INSTANCES for n in counts):
        parser.error(f"--instances: numbers from 1 to {MAX_INSTANCES}")
    if not topologies or not set(topologies) <= set(TOPOLOGIES):
        parser.error(f"--topologies: some of {','.join(TOPOLOGIES)}")
    if not 1 <= args.players <= 256 or not 1 <= args.seconds <= 300:
        parser.error("--players 1-256, --seconds 1-300")
    if not 1 <= args.workers <= 8 or not 1 <= args.threads <= 32:
        parser.error("--workers 1-8, --threads 1-32")
    if not 1 <= args.processes <= 32:
        parser.error("--processes 1-32")

    print(
        f"machine: {os.cpu_count()} CPUs, loopback only; {args.players} players in "
        f"{args.processes} client processes, spread round-robin over the instances, "
        f"{args.seconds:g} s of moves a run; each instance: gunicorn {args.workers} "
        f"worker(s) x {args.threads} threads",
        flush=True,
    )
    problems: list[str] = []
    results: dict[tuple[str, int], dict[str, Any]] = {}
    env = {
        "WEB_CONCURRENCY": str(args.workers),
        "GUNICORN_THREADS": str(args.threads),
        **dict.fromkeys(LIMIT_SETTINGS, "0"),
    }
    with contextlib.ExitStack() as stack:
        started: dict[str, tuple[str, dict[str, str], list[redis.Redis]]] = {}
        for name in topologies:
            try:
                started[name] = _topology(name, stack)
            except TopologyUnavailable as exc:
                print(f"{name}: skipped: {exc}", flush=True)
        # The topologies take turns at each N, so that both see the machine as it is (a
        # shared machine's speed drifts over a minute; the comparison should not).
        for n in counts:
            for name, (url, extra, stores) in started.items():
                with contextlib.ExitStack() as run:
                    services = [
                        run.enter_context(LiveService(url, app=APP, **env, **extra))
                        for _ in range(n)
                    ]
                    phase = run_moves(services, stores, args.players, args.processes, args.seconds)
                    for service in services:
                        service.stop()  # graceful: what it logs on the way out counts
                        problems += service.server_errors()
                for store in stores:
                    store.flushall()
                r = results[name, n] = summary("moves", [phase])
                print(
                    f"  {name} N={n}: {r['per_second']:.0f} moves/s, {r['errors']} errors",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        f"{'topology':9} {'N':>2} {'moves/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} "
        f"{'errors':>6}  CPU ms/move: {'service':>7} {'Redis':>6} {'clients':>7} "
        f"{'speed-up':>8}"
    )
    for name in started:
        one = results.get((name, 1))
        base = one["per_second"] if one else float("nan")  # no N=1 run: no speed-up
        for n in counts:
            r = results[name, n]
            cpu = r["cpu"]
            print(
                f"{name:9} {n:2d} {r['per_second']:8.0f} {r['p50']:7.1f} {r['p95']:7.1f} "
                f"{r['p99']:7.1f} {r['errors']:6d}  {'':12} {cpu['server']:7.3f} "
                f"{cpu['redis']:6.3f} {cpu['client']:7.3f} "
                f"{r['per_second'] / base if base else float('nan'):7.2f}x"
                + (f"  {r['error_kinds']}" if r["errors"] else "")
            )
    print(
        f"note: on this machine ({os.cpu_count()} CPUs) the client processes, the N "
        "instances' gunicorn workers and Redis (every cluster node) share the same cores, "
        "so these figures show each instance's overhead and this machine's ceiling, not "
        "how a production cluster scales."
    )
    if problems:
        print(f"the services logged {len(problems)} errors, e.g.: {problems[0]}")
    errors = sum(r["errors"] for r in results.values())
    return 1 if problems or errors else 0


if __name__ == "__main__":
    sys.exit(main())
