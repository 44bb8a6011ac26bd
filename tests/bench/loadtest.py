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
import http.client
import json
import multiprocessing
import random
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


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


def _request(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any, headers: dict[str, str]
) -> tuple[int, bytes]:
    payload = json.dumps(body).encode()
    conn.request(method, path, payload, {"Content-Type": "application/json", **headers})
    response = conn.getresponse()
    return response.status, response.read()


def _floor_player(port: int, index: int, deadline: float, tally: Tally) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for n in range(MAX_REQUESTS_PER_PLAYER):
        if time.monotonic() >= deadline:
            break
        started = time.perf_counter()
        try:
            status, _ = _request(conn, "POST", f"/_loadtest/floor/p{index}", {"n": n}, {})
        except (OSError, http.client.HTTPException) as exc:
            tally.error(type(exc).__name__)
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            continue
        tally.latencies.append(time.perf_counter() - started)
        if status != 200:
            tally.error(str(status))
    conn.close()


def _new_match(
    conn: http.client.HTTPConnection, rng: random.Random
) -> tuple[str, list[str], Match]:
    deck = list(DECK)
    rng.shuffle(deck)
    seed = rng.randrange(2**62)
    body = {"deck": [c.code for c in deck], "seed": seed, "first_dealer": 1}
    status, raw = _request(conn, "POST", "/v1/games", body, {})
    if status != 201:
        raise RuntimeError(f"creating a match: {status} {raw[:200]!r}")
    created = json.loads(raw)
    mirror, _ = Match.new(deck=deck, seed=seed, first_dealer=1)
    return created["id"], [s["token"] for s in created["seats"]], mirror


def _move_player(port: int, index: int, deadline: float, tally: Tally) -> None:
    rng = random.Random(index)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    game_id, tokens, mirror = _new_match(conn, rng)
    for _ in range(MAX_REQUESTS_PER_PLAYER):
        if time.monotonic() >= deadline:
            break
        if mirror.status != "playing":
            game_id, tokens, mirror = _new_match(conn, rng)
        seat = mirror.turn
        assert seat is not None
        move = rng.choice(mirror.legal_moves())
        body = {"card": move.card.code, "capture": [c.code for c in move.captured]}
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        started = time.perf_counter()
        try:
            status, _ = _request(conn, "POST", f"/v1/games/{game_id}/moves", body, headers)
        except (OSError, http.client.HTTPException) as exc:
            tally.error(type(exc).__name__)
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            game_id, tokens, mirror = _new_match(conn, rng)
            continue
        tally.latencies.append(time.perf_counter() - started)
        if status != 200:
            tally.error(str(status))
            game_id, tokens, mirror = _new_match(conn, rng)
            continue
        mirror.push(move)
    conn.close()


def _client_process(kind: str, port: int, first: int, count: int, seconds: float, out: Any) -> None:
    """One process of the load: ``count`` players as threads (the GIL caps what one
    process can send, so the players are spread over a few processes)."""
    target = _floor_player if kind == "floor" else _move_player
    deadline = time.monotonic() + seconds
    tallies = [Tally() for _ in range(count)]
    threads = [
        threading.Thread(target=target, args=(port, first + i, deadline, tallies[i]))
        for i in range(count)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(
        (
            [x for t in tallies for x in t.latencies],
            sum(t.errors for t in tallies),
            {
                k: sum(t.error_kinds.get(k, 0) for t in tallies)
                for t in tallies
                for k in t.error_kinds
            },
        )
    )


def run_phase(kind: str, port: int, players: int, processes: int, seconds: float) -> dict[str, Any]:
    queue: Any = multiprocessing.Queue()
    share = [players // processes + (1 if i < players % processes else 0) for i in range(processes)]
    procs = []
    first = 0
    for count in share:
        proc = multiprocessing.Process(
            target=_client_process, args=(kind, port, first, count, seconds, queue)
        )
        proc.start()
        procs.append(proc)
        first += count
    latencies: list[float] = []
    errors = 0
    kinds: dict[str, int] = {}
    for _ in procs:
        lat, err, err_kinds = queue.get(timeout=seconds + 120)
        latencies += lat
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
            run_phase("floor", service.port, args.players, args.processes, 2.0)  # warm-up
            results = [
                run_phase(kind, service.port, args.players, args.processes, args.seconds)
                for kind in ("floor", "moves")
            ]
            memory = match_memory(service.url, server.url)
            problems = service.server_errors()
    print(f"{'':8} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7} requests")
    for r in results:
        print(
            f"{r['kind']:8} {r['per_second']:8.0f} {r['p50']:8.1f} {r['p95']:8.1f} "
            f"{r['p99']:8.1f} {r['errors']:7d} {r['requests']}"
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
