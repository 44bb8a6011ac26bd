"""make loadtest: the running service (gunicorn, real Redis) under N concurrent players.

It starts a private Redis and gunicorn as deployed (deploy/gunicorn.conf.py), on
127.0.0.1 only, with the floor endpoint mounted (LOADTEST_FLOOR=1, see
service/api/floor.py) and rate limits off. Then, for a fixed time each, N simulated
players send requests over keep-alive connections:

- floor: each player posts to the floor endpoint (one Redis GET and one SET, no game);
- moves: each player plays whole 2-player matches, one ``POST /v1/games/{id}/moves`` a
  request. It knows each match's cards because it created the match with a ``deck`` and
  a ``seed`` and mirrors it with the engine, so every request is a move (no polling).

It prints requests per second, latency median, p95 and p99, and errors for both, the
ratio of the two throughputs, and Redis memory per running and per finished match.
Every loop is bounded in count and in time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis

from service.devredis import RedisServer
from service.engine import DECK, Match
from tests.live import LiveService

MAX_REQUESTS_PER_PLAYER = 200_000  # a bound, far above what the time allows
#: Distinct matches each player prepares before the clock starts; it plays them in turn,
#: each time as a new game (a new id, new tokens), so that sending costs it nothing but I/O.
MATCHES_PER_PLAYER = 4
CONNECT_TIMEOUT = REPLY_TIMEOUT = 10.0


class HttpError(Exception):
    """The connection broke or the answer was not HTTP/1.1."""


class Connection:
    """One keep-alive HTTP/1.1 connection, as lean as a load generator needs: requests
    go out as prepared bytes and answers are read by Content-Length. (http.client parses
    headers with the email package: on 2 cores shared with the service, that would be
    the client eating the service's CPU.)"""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""

    def request(self, method: str, path: str, body: bytes, headers: str = "") -> tuple[int, bytes]:
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), CONNECT_TIMEOUT)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.sock.settimeout(REPLY_TIMEOUT)
            self.buffer = b""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}\r\n"
        )
        try:
            self.sock.sendall(head.encode() + body)
            return self._answer()
        except (OSError, HttpError):
            self.close()
            raise

    def _answer(self) -> tuple[int, bytes]:
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self._fill()
        head = self.buffer[:end].decode("latin-1").lower()
        if not head.startswith("http/1.1 "):
            raise HttpError(head[:40])
        status = int(head[9:12])
        start = head.find("\r\ncontent-length:")
        if start < 0:
            raise HttpError("no content-length")
        line_end = head.find("\r\n", start + 2)
        length = int(head[start + 17 : line_end if line_end >= 0 else None])
        while len(self.buffer) < end + 4 + length:
            self._fill()
        body = self.buffer[end + 4 : end + 4 + length]
        self.buffer = self.buffer[end + 4 + length :]
        if "\r\nconnection: close" in head:
            self.close()
        return status, body

    def _fill(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise HttpError("connection closed")
        self.buffer += chunk

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the player thread's CPU time while the clock ran
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


@dataclass
class Script:
    """A match prepared with the engine: its creation body and every move's seat and body."""

    create: bytes
    moves: list[tuple[int, bytes]]


def prepare(rng: random.Random) -> Script:
    deck = list(DECK)
    rng.shuffle(deck)
    seed = rng.randrange(2**62)
    body = {"deck": [c.code for c in deck], "seed": seed, "first_dealer": 1}
    match, _ = Match.new(deck=deck, seed=seed, first_dealer=1)
    moves = []
    while match.status == "playing":
        seat = match.turn
        assert seat is not None
        move = rng.choice(match.legal_moves())
        play = {"card": move.card.code, "capture": [c.code for c in move.captured]}
        moves.append((seat, json.dumps(play).encode()))
        match.push(move)
    return Script(json.dumps(body).encode(), moves)


def _floor_player(port: int, index: int, start: Any, seconds: float, tally: Tally) -> None:
    conn = Connection(port)
    path = f"/_loadtest/floor/p{index}"
    start.wait()
    deadline = time.monotonic() + seconds
    cpu = time.thread_time()
    for n in range(MAX_REQUESTS_PER_PLAYER):
        if time.monotonic() >= deadline:
            break
        body = b'{"n": %d}' % n
        started = time.perf_counter()
        try:
            status, _ = conn.request("POST", path, body)
        except (OSError, HttpError) as exc:
            tally.error(type(exc).__name__)
            continue
        tally.latencies.append(time.perf_counter() - started)
        if status != 200:
            tally.error(str(status))
    conn.close()
    tally.cpu_seconds = time.thread_time() - cpu


def _move_player(port: int, index: int, start: Any, seconds: float, tally: Tally) -> None:
    rng = random.Random(index)
    scripts = [prepare(rng) for _ in range(MATCHES_PER_PLAYER)]
    conn = Connection(port)
    start.wait()
    deadline = time.monotonic() + seconds
    cpu = time.thread_time()
    try:
        _play_scripts(conn, scripts, deadline, tally)
    finally:
        conn.close()
        tally.cpu_seconds = time.thread_time() - cpu


def _play_scripts(conn: Connection, scripts: list[Script], deadline: float, tally: Tally) -> None:
    sent = 0
    for number in range(MAX_REQUESTS_PER_PLAYER):
        script = scripts[number % len(scripts)]
        try:
            status, raw = conn.request("POST", "/v1/games", script.create)
        except (OSError, HttpError) as exc:
            tally.error(type(exc).__name__)
            continue
        if status != 201:
            tally.error(f"create {status}")
            continue
        created = json.loads(raw)
        path = f"/v1/games/{created['id']}/moves"
        auth = [f"Authorization: Bearer {s['token']}\r\n" for s in created["seats"]]
        for seat, body in script.moves:
            if time.monotonic() >= deadline or sent >= MAX_REQUESTS_PER_PLAYER:
                return
            sent += 1
            started = time.perf_counter()
            try:
                status, _ = conn.request("POST", path, body, auth[seat])
            except (OSError, HttpError) as exc:
                tally.error(type(exc).__name__)
                break
            tally.latencies.append(time.perf_counter() - started)
            if status != 200:
                tally.error(str(status))
                break


def _client_process(
    kind: str, port: int, first: int, count: int, seconds: float, start: Any, out: Any
) -> None:
    """One process of the load: ``count`` players as threads (the GIL caps what one
    process can send, so the players are spread over a few processes). Each player
    prepares, then waits for ``start``, when every process's players are ready."""
    target = _floor_player if kind == "floor" else _move_player
    tallies = [Tally() for _ in range(count)]
    threads = [
        threading.Thread(target=target, args=(port, first + i, start, seconds, tallies[i]))
        for i in range(count)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(
        (
            [x for t in tallies for x in t.latencies],
            sum(t.cpu_seconds for t in tallies),
            sum(t.errors for t in tallies),
            {
                k: sum(t.error_kinds.get(k, 0) for t in tallies)
                for t in tallies
                for k in t.error_kinds
            },
        )
    )


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far, from /proc (Linux)."""
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def redis_cpu_seconds(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def run_phase(
    kind: str,
    service: LiveService,
    store: redis.Redis,
    players: int,
    processes: int,
    seconds: float,
) -> dict[str, Any]:
    """One phase: ``players`` over ``processes`` client processes for ``seconds``; its
    latencies, and the CPU time the clients, the service's workers and Redis spent."""
    port = service.port
    queue: Any = multiprocessing.Queue()
    start: Any = multiprocessing.Barrier(players)
    share = [players // processes + (1 if i < players % processes else 0) for i in range(processes)]
    procs = []
    first = 0
    for count in share:
        if not count:
            continue
        proc = multiprocessing.Process(
            target=_client_process, args=(kind, port, first, count, seconds, start, queue)
        )
        proc.start()
        procs.append(proc)
        first += count
    workers = service.worker_pids()
    server_cpu, redis_cpu = cpu_seconds(workers), redis_cpu_seconds(store)
    latencies: list[float] = []
    client_cpu = 0.0
    errors = 0
    kinds: dict[str, int] = {}
    for _ in procs:
        lat, cpu, err, err_kinds = queue.get(timeout=seconds + 120)
        if not latencies:  # the first process is done: so is the clock
            server_cpu = cpu_seconds(workers) - server_cpu
            redis_cpu = redis_cpu_seconds(store) - redis_cpu
        latencies += lat
        client_cpu += cpu
        errors += err
        for k, v in err_kinds.items():
            kinds[k] = kinds.get(k, 0) + v
    for proc in procs:
        proc.join(timeout=30)
    latencies.sort()

    def pct(p: float) -> float:
        return 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))]

    return {
        "kind": kind,
        "requests": len(latencies),
        "per_second": len(latencies) / seconds,
        "p50": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p95": pct(0.95) if latencies else float("nan"),
        "p99": pct(0.99) if latencies else float("nan"),
        "errors": errors,
        "error_kinds": kinds,
        # CPU milliseconds per request (answered or not: creations count for moves)
        "cpu": {
            "client": 1000 * client_cpu / max(1, len(latencies)),
            "server": 1000 * server_cpu / max(1, len(latencies)),
            "redis": 1000 * redis_cpu / max(1, len(latencies)),
        },
    }


def match_memory(service_url: str, redis_url: str) -> dict[str, float]:
    """Redis bytes per running match (a few moves in) and per finished match: MEMORY
    USAGE of its hash and its event list, averaged over several matches."""
    import requests

    session = requests.Session()
    client = redis.Redis.from_url(redis_url)

    def usage(game_id: str) -> int:
        total = 0
        for key in client.scan_iter(f"scopa:game:{{{game_id}}}*"):
            total += client.memory_usage(key, samples=0) or 0
        return total

    running, finished = [], []
    for i in range(10):
        created = session.post(f"{service_url}/v1/games", json={"seed": 100 + i}).json()
        player_tokens = [s["token"] for s in created["seats"]]
        for _ in range(6):  # a few moves in, as a match in play usually is
            view = session.get(f"{service_url}/v1/games/{created['id']}").json()
            seat = view["turn"]
            auth = {"Authorization": f"Bearer {player_tokens[seat]}"}
            moves = session.get(
                f"{service_url}/v1/games/{created['id']}/legal-moves", headers=auth
            ).json()["moves"]
            move = moves[0]
            session.post(
                f"{service_url}/v1/games/{created['id']}/moves",
                json={"card": move["card"], "capture": move["capture"]},
                headers=auth,
            )
        running.append(usage(created["id"]))
        bots = {
            "seed": 200 + i,
            "seats": [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}],
        }
        done = session.post(f"{service_url}/v1/games", json=bots).json()
        assert done["state"]["status"] == "finished"
        finished.append(usage(done["id"]))
    return {"running": statistics.mean(running), "finished": statistics.mean(finished)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    args = parser.parse_args(argv)
    if not 1 <= args.players <= 256 or not 1 <= args.seconds <= 300:
        parser.error("--players 1-256 and --seconds 1-300")

    with RedisServer() as server:
        env = {
            "LOADTEST_FLOOR": "1",
            "WEB_CONCURRENCY": str(args.workers),
            "GUNICORN_THREADS": str(args.threads),
            "RATE_LIMIT_PER_ADDRESS": "0",
            "RATE_LIMIT_PER_TOKEN": "0",
        }
        with LiveService(server.url, **env) as service:
            print(
                f"load: {args.players} players in {args.processes} client processes, "
                f"{args.seconds:g} s a phase; gunicorn {args.workers} workers x "
                f"{args.threads} threads; Redis {server.url}; loopback only",
                flush=True,
            )
            store = redis.Redis.from_url(server.url)
            run_phase("floor", service, store, args.players, args.processes, 2.0)  # warm-up
            results = [
                run_phase(kind, service, store, args.players, args.processes, args.seconds)
                for kind in ("floor", "moves")
            ]
            memory = match_memory(service.url, server.url)
            problems = service.server_errors()
    print(
        f"{'':8} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7} "
        f"{'requests':>9}   CPU ms per request: service  Redis  clients"
    )
    for r in results:
        cpu = r["cpu"]
        print(
            f"{r['kind']:8} {r['per_second']:8.0f} {r['p50']:8.1f} {r['p95']:8.1f} "
            f"{r['p99']:8.1f} {r['errors']:7d} {r['requests']:9d}   "
            f"{'':20}{cpu['server']:6.3f} {cpu['redis']:6.3f} {cpu['client']:8.3f}"
            + (f"  {r['error_kinds']}" if r["errors"] else "")
        )
    floor, moves = results
    print(f"moves / floor throughput: {moves['per_second'] / floor['per_second']:.0%}")
    print(
        f"Redis memory per match: running (6 moves in) {memory['running']:.0f} B, "
        f"finished {memory['finished']:.0f} B"
    )
    if problems:
        print(f"the service logged {len(problems)} errors, e.g.: {problems[0]}")
    return 1 if problems or any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
