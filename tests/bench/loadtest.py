"""make loadtest: the running service (gunicorn, real Redis) under N concurrent players.

It starts a private Redis and gunicorn as deployed (deploy/gunicorn.conf.py: metrics,
the JSON access log, the breaker), on 127.0.0.1 only, serving the engine `make run`
serves (the mypyc build where it can be made: ``--engine``) and the service's app with
the floor endpoint added (``tests.bench.floor:create_app()``), with every rate limit on
but set too high to refuse the load (:data:`HIGH_LIMITS`). Then N simulated players send
requests over keep-alive connections, each as soon as the last was answered, for a fixed
time of each kind (the kinds take turns, a few times each, so that each sees the machine
as it is):

- floor: each player posts to the floor endpoint (one Redis GET and one SET, no game);
- moves: each player plays whole 2-player matches, one ``POST /v1/games/{id}/moves`` a
  request. It prepared its matches with the engine before the clock started (a ``deck``
  and a ``seed`` make them known), so every request is a legal move, and the players
  spend the clock sending, not computing;
- streams: the same, each match followed by an event stream per seat (:class:`Streams`),
  opened as its player starts it and closed after its last move;
- create: each player creates matches (``POST /v1/games`` with ``{}``).

The clients send no ``Accept-Encoding``: nothing is compressed, on either side of a
comparison, whatever compression the service is configured with.

It prints requests per second, latency median, p95 and p99, errors, and CPU time per
request of the service's workers, Redis and the clients, for each kind; the ratios issue
30 sets targets for (:func:`ratios`); Redis memory per running and per finished match;
and the breakdown of a request's CPU by layer, from a second, profiled service
(:func:`profile_layers`, tests/bench/breakdown.py). Every loop is bounded in count and in
time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import math
import multiprocessing
import os
import random
import selectors
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service.api.ratelimit import LIMIT_SETTINGS
from service.engine import DECK, Match, Status
from tests.devpushpin import PushpinServer, find_pushpin
from tests.devredis import RedisServer
from tests.live import LiveService

MAX_REQUESTS_PER_PLAYER = 200_000  # a bound, far above what the time allows
#: Distinct matches each player prepares before the clock starts; it plays them in turn,
#: each time as a new game (a new id, new tokens), so that sending costs it nothing but I/O.
MATCHES_PER_PLAYER = 4
#: Matches are created before the clock for this many moves a second per player (a bound
#: above what 2 cores serve).
MOVES_PER_SECOND_BOUND = 100
MOVES_PER_MATCH = 36  # 2-player scopa: 40 cards, 4 of them dealt to the table
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
    while match.status == Status.PLAYING:
        seat = match.turn
        assert seat is not None
        move = rng.choice(match.legal_moves())
        play = {"card": move.card.code, "capture": [c.code for c in move.captured]}
        moves.append((seat, json.dumps(play).encode()))
        match.push(move)
    return Script(json.dumps(body).encode(), moves)


@dataclass
class Game:
    """A match created from a script, ready to be played."""

    path: str
    auth: list[str]
    moves: list[tuple[int, bytes]]


def create(conn: Connection, script: Script) -> Game:
    status, raw = conn.request("POST", "/v1/games", script.create)
    if status != 201:
        raise HttpError(f"creating a match: {status} {raw[:200]!r}")
    created = json.loads(raw)
    auth = [f"Authorization: Bearer {s['token']}\r\n" for s in created["seats"]]
    return Game(f"/v1/games/{created['id']}/moves", auth, script.moves)


class Streams:
    """The event streams a client process holds open: each opened with one request on a
    connection of its own, then read (and dropped) by one thread as the service writes,
    as a browser's EventSource would, until its player closes it."""

    def __init__(self, port: int | None = None) -> None:
        #: Where the streams are opened (a proxy in front), if not at the service's port.
        self.port = port
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.opened = 0
        self.refused = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def open(self, port: int, path: str, auth: str) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port or port), CONNECT_TIMEOUT)
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            f"{auth}\r\n".encode()
        )
        sock.setblocking(False)
        with self.lock:
            self.selector.register(sock, selectors.EVENT_READ, [b""])
            self.opened += 1
        return sock

    def close(self, sock: socket.socket) -> None:
        with self.lock:
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(sock)
        sock.close()

    def _drain(self) -> None:
        # epoll's select reads the registrations as they are: no lock needed around it.
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.02):
                sock, head = key.fileobj, key.data
                try:
                    chunk = sock.recv(65536)  # type: ignore[union-attr]
                except OSError:
                    chunk = b""
                if not chunk:  # closed: by the service, or by its player meanwhile
                    with self.lock, contextlib.suppress(KeyError, ValueError):
                        self.selector.unregister(sock)
                    continue
                if head[0] is not None:  # the answer's status line, once
                    head[0] += chunk
                    if b"\r\n" in head[0]:
                        if not head[0].startswith(b"HTTP/1.1 200"):
                            self.refused += 1
                        head[0] = None


def _timed(
    conn: Connection,
    start: Any,
    seconds: float,
    tally: Tally,
    requests: Any,
) -> None:
    """Wait for ``start``, then send what ``requests`` yields, (method, path, body,
    headers, expected status) each, until the time is up; one latency per answer."""
    start.wait(timeout=300)
    deadline = time.monotonic() + seconds
    cpu = time.thread_time()
    try:
        for _, (method, path, body, headers, expected) in zip(
            range(MAX_REQUESTS_PER_PLAYER), requests, strict=False
        ):
            if time.monotonic() >= deadline:
                break
            started = time.perf_counter()
            try:
                status, _ = conn.request(method, path, body, headers)
            except (OSError, HttpError) as exc:
                tally.error(type(exc).__name__)
                continue
            tally.latencies.append(time.perf_counter() - started)
            if status != expected:
                tally.error(str(status))
    finally:
        conn.close()
        tally.cpu_seconds = time.thread_time() - cpu


def _floor_player(port: int, index: int, start: Any, seconds: float, tally: Tally) -> None:
    path = f"/_loadtest/floor/p{index}"
    requests = (("POST", path, b'{"n": %d}' % n, "", 200) for n in itertools.count())
    _timed(Connection(port), start, seconds, tally, requests)


def _create_player(port: int, index: int, start: Any, seconds: float, tally: Tally) -> None:
    requests = itertools.repeat(("POST", "/v1/games", b"{}", "", 201))
    _timed(Connection(port), start, seconds, tally, requests)


def _move_player(
    port: int,
    index: int,
    start: Any,
    seconds: float,
    tally: Tally,
    streams: Streams | None = None,
) -> None:
    """Plays matches created before the clock starts: enough for a fast service, and
    more on the clock if it runs out (not timed, but their CPU counts). With ``streams``,
    each match is followed by one event stream per seat, opened as the player starts it
    and closed when it has played its last move."""
    rng = random.Random(index)
    scripts = [prepare(rng) for _ in range(MATCHES_PER_PLAYER)]
    conn = Connection(port)
    count = max(2, math.ceil(seconds * MOVES_PER_SECOND_BOUND / MOVES_PER_MATCH))
    games = [create(conn, scripts[i % len(scripts)]) for i in range(count)]

    def moves() -> Any:
        for number in itertools.count():
            if number == len(games):
                games.append(create(conn, scripts[number % len(scripts)]))
            game = games[number]
            following = []
            if streams is not None:
                stream_path = game.path.removesuffix("/moves") + "/stream"
                following = [streams.open(port, stream_path, auth) for auth in game.auth]
            for seat, body in game.moves:
                yield "POST", game.path, body, game.auth[seat], 200
            for sock in following:
                streams.close(sock)  # type: ignore[union-attr]

    _timed(conn, start, seconds, tally, moves())


def _client_process(
    kind: str,
    port: int,
    first: int,
    count: int,
    seconds: float,
    start: Any,
    out: Any,
    stream_port: int | None = None,
) -> None:
    """One process of the load: ``count`` players as threads (the GIL caps what one
    process can send, so the players are spread over a few processes). Each player
    prepares, then waits for ``start``, when every process's players are ready."""
    streams = Streams(stream_port) if kind == "streams" else None
    tallies = [Tally() for _ in range(count)]
    if kind == "streams":
        threads = [
            threading.Thread(
                target=_move_player, args=(port, first + i, start, seconds, tallies[i], streams)
            )
            for i in range(count)
        ]
    else:
        target = {"floor": _floor_player, "moves": _move_player, "create": _create_player}[kind]
        threads = [
            threading.Thread(target=target, args=(port, first + i, start, seconds, tallies[i]))
            for i in range(count)
        ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if streams is not None:
        streams.stop.set()
        if streams.refused:
            for t in tallies[:1]:
                t.errors += streams.refused
                t.error_kinds["stream refused"] = streams.refused
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
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def redis_cpu_seconds(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


@dataclass
class Phase:
    """What one phase measured: every answered request's latency, and CPU seconds."""

    seconds: float
    latencies: list[float] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)  # client, server, redis
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)


def run_phase(
    kind: str,
    service: LiveService,
    store: redis.Redis,
    players: int,
    processes: int,
    seconds: float,
    on_start: Any = None,
    stream_port: int | None = None,
) -> Phase:
    """One phase: ``players`` over ``processes`` client processes for ``seconds``; its
    latencies, and the CPU time the clients, the service's workers and Redis spent."""
    port = service.port
    queue: Any = multiprocessing.Queue()
    start: Any = multiprocessing.Barrier(players + 1)  # the players, and this process
    share = [players // processes + (1 if i < players % processes else 0) for i in range(processes)]
    procs = []
    first = 0
    for count in share:
        if not count:
            continue
        proc = multiprocessing.Process(
            target=_client_process,
            args=(kind, port, first, count, seconds, start, queue, stream_port),
        )
        proc.start()
        procs.append(proc)
        first += count
    workers = service.worker_pids()
    start.wait(timeout=300)  # every player is ready (its matches created): the clock starts
    if on_start is not None:
        on_start()
    server_cpu, redis_cpu = cpu_seconds(workers), redis_cpu_seconds(store)
    phase = Phase(seconds, cpu={"client": 0.0})
    for number in range(len(procs)):
        lat, cpu, err, err_kinds = queue.get(timeout=seconds + 120)
        if number == 0:  # the first process is done: so is the clock
            phase.cpu["server"] = cpu_seconds(workers) - server_cpu
            phase.cpu["redis"] = redis_cpu_seconds(store) - redis_cpu
        phase.latencies += lat
        phase.cpu["client"] += cpu
        phase.errors += err
        for k, v in err_kinds.items():
            phase.error_kinds[k] = phase.error_kinds.get(k, 0) + v
    for proc in procs:
        proc.join(timeout=30)
    return phase


def summary(kind: str, phases: list[Phase]) -> dict[str, Any]:
    """The phases of one kind together: requests per second, latency percentiles, errors,
    and CPU milliseconds per request (for moves, the creations' CPU is counted in)."""
    latencies = sorted(x for p in phases for x in p.latencies)
    seconds = sum(p.seconds for p in phases)
    count = max(1, len(latencies))

    def pct(q: float) -> float:
        if not latencies:
            return float("nan")
        return 1000 * latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    kinds: dict[str, int] = {}
    for p in phases:
        for k, v in p.error_kinds.items():
            kinds[k] = kinds.get(k, 0) + v
    return {
        "kind": kind,
        "requests": len(latencies),
        "per_second": len(latencies) / seconds,
        "p50": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p95": pct(0.95),
        "p99": pct(0.99),
        "errors": sum(p.errors for p in phases),
        "error_kinds": kinds,
        "cpu": {
            name: 1000 * sum(p.cpu[name] for p in phases) / count
            for name in ("client", "server", "redis")
        },
    }


def match_memory(service_url: str, redis_url: str) -> dict[str, float]:
    """Redis bytes per running match (a few moves in) and per finished match: MEMORY
    USAGE of its hash and its event list, averaged over several matches."""
    import requests

    with requests.Session() as session, redis.Redis.from_url(redis_url) as client:
        return _match_memory(session, client, service_url)


def _match_memory(session: Any, client: redis.Redis, service_url: str) -> dict[str, float]:

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


#: The limits as deployed, but high enough never to refuse the load's clients (all on
#: one address): each is counted on every request, as in production.
HIGH_LIMITS = {
    **dict.fromkeys(LIMIT_SETTINGS, str(10**9)),
    "COST_BUDGET_SECONDS_PER_ADDRESS": str(10**6),
}
#: Streams' settings for the load: a stream left by its client is noticed at the next
#: keep-alive, so keep-alives come every 2 s (not 15) to free its thread soon; no stream
#: ends on the clock while its match is played.
STREAM_SETTINGS = {"STREAM_KEEPALIVE_SECONDS": "2", "STREAM_MAX_SECONDS": "600"}
#: The all-computer match that :func:`match_memory` creates plays to its end within its
#: creation (the load has no background worker), on a busy machine too.
BOT_SETTINGS = {"BOT_TIME_LIMIT_SECONDS": "10"}


def engine_env(engine: str, *, quiet: bool = False) -> dict[str, str] | None:
    """The environment that serves ``engine`` as `make run` does: the mypyc build of
    tests/bench/compiled.py first on the path (built if need be), or the .py sources;
    None if the compiled engine was asked for and cannot be had."""
    from tests.bench import compiled

    if engine == "python":
        return {"SCOPA_ENGINE": "python"}
    with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
        ready = compiled.prepare("package")
    if ready:
        path = os.pathsep.join(p for p in (str(compiled.BUILD), os.environ.get("PYTHONPATH")) if p)
        return {"PYTHONPATH": path, "SCOPA_ENGINE": "compiled"}
    if engine == "compiled":
        print("the compiled engine was asked for and cannot be built (above)")
        return None
    return {"SCOPA_ENGINE": "python"}


def ratios(by_kind: dict[str, dict[str, Any]]) -> list[str]:
    """The ratios issue 30 sets targets for, each with its target; and after each
    throughput ratio the same ratio of the service's CPU a request (the floor's over the
    kind's), which other work on a shared machine disturbs less."""
    floor, moves = by_kind["floor"], by_kind["moves"]

    def cpu(kind: dict[str, Any], base: dict[str, Any] = floor) -> str:
        return f"; by service CPU a request {base['cpu']['server'] / kind['cpu']['server']:.2f}"

    lines = [
        f"moves / floor throughput: {moves['per_second'] / floor['per_second']:.2f}"
        f" (target >= 0.85{cpu(moves)})",
        f"moves p99 / floor p99: {moves['p99'] / floor['p99']:.2f} (target <= 1.3)",
    ]
    if "create" in by_kind:
        create = by_kind["create"]
        lines.append(
            f"creations / floor throughput: {create['per_second'] / floor['per_second']:.2f}"
            f" (target >= 0.8{cpu(create)})"
        )
    if "streams" in by_kind:
        streams = by_kind["streams"]
        cost = 1 - streams["per_second"] / moves["per_second"]
        lines.append(
            f"moves with a stream per seat open, throughput lost: {cost:.0%} (target <= 10%; "
            f"by service CPU a move {1 - moves['cpu']['server'] / streams['cpu']['server']:.0%})"
        )
    return lines


def profile_layers(
    redis_url: str,
    args: argparse.Namespace,
    measured: dict[str, float],
    engine: dict[str, str] | None = None,
) -> list[str]:
    """The breakdown: the same load (floor, moves, creations; a turn each) on a service
    whose workers profile each request (tests/bench/profiled.py), each request's CPU by
    layer as shares of the profile, and those shares of ``measured`` (service CPU ms per
    request, unprofiled, by kind)."""
    import tempfile

    from tests.bench.breakdown import breakdown, overhead_of, report

    keep = os.environ.get("SCOPA_PROFILE_KEEP")  # a directory to keep the profiles in
    engine = engine or {}
    with contextlib.ExitStack() as stack:
        tmp = keep or stack.enter_context(tempfile.TemporaryDirectory(prefix="scopa-profile-"))
        flag = Path(tmp) / "kind"
        env = {
            "WEB_CONCURRENCY": str(args.workers),
            "GUNICORN_THREADS": str(args.threads),
            **HIGH_LIMITS,
            **STREAM_SETTINGS,
            **engine,
            "GUNICORN_CMD_ARGS": "--worker-class tests.bench.profiled.ProfiledWorker",
            "SCOPA_PROFILE_FLAG": str(flag),
            "SCOPA_PROFILE_DIR": tmp,
        }
        seconds = min(5.0, args.seconds / args.rounds)
        with LiveService(redis_url, app="tests.bench.floor:create_app()", **env) as service:
            store = redis.Redis.from_url(redis_url)
            try:
                # One request at a time a worker: a thread waiting for the GIL would
                # be counted in whatever function it waits in.
                for kind in ("floor", "moves", "create"):
                    run_phase(
                        kind,
                        service,
                        store,
                        args.workers,
                        1,
                        seconds,
                        on_start=lambda kind=kind: flag.write_text(kind),
                    )
                    flag.unlink()
            finally:
                store.close()
        kinds = {}
        cost = overhead_of(Path(tmp))
        for kind in ("floor", "moves", "create"):
            found = breakdown(sorted(Path(tmp).glob(f"{kind}-*.prof")), cost)
            if found is not None:
                kinds[kind] = found
    return report(kinds, measured)


def timed_layers(redis_url: str, engine: dict[str, str], requests: int, turns: int) -> str:
    """tests/bench/layers.py's breakdown, in a process of its own (it wraps functions of
    the app it serves), serving the engine the load test served."""
    run = subprocess.run(
        [
            *(sys.executable, "-m", "tests.bench.layers", "--redis-url", redis_url),
            *("--requests", str(requests), "--turns", str(turns)),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, **engine},
    )
    start = run.stdout.find("CPU of a request by layer, timed")  # (after the app's log)
    if run.returncode or start < 0:
        return f"the timed breakdown failed: {run.stderr.strip()[-500:]}"
    return run.stdout[start:].rstrip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--rounds", type=int, default=4, help="turns each kind takes, SECONDS in all"
    )
    parser.add_argument("--processes", type=int, default=4, help="client processes")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument(
        "--engine",
        choices=("auto", "compiled", "python"),
        default="auto",
        help="the engine served: auto (as `make run`: the mypyc build where it can be "
        "made, else the .py sources), compiled (or fail), python",
    )
    parser.add_argument(
        "--no-streams",
        dest="streams",
        action="store_false",
        help="leave out the moves with an event stream per seat open",
    )
    parser.add_argument(
        "--proxy",
        choices=("none", "pushpin"),
        default="pushpin" if find_pushpin() else "none",
        help="what holds the streams: a Pushpin in front of them (as `make run` has it "
        "when Pushpin is installed: the default then), or the service's threads",
    )
    parser.add_argument(
        "--no-breakdown",
        dest="breakdown",
        action="store_false",
        help="leave out the profiled run that breaks a request's CPU down by layer",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.players <= 256 or not 1 <= args.seconds <= 300 or not 1 <= args.rounds <= 20:
        parser.error("--players 1-256, --seconds 1-300 and --rounds 1-20")

    engine = engine_env(args.engine)
    if engine is None:
        return 1
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(RedisServer())
        env = {
            "WEB_CONCURRENCY": str(args.workers),
            "GUNICORN_THREADS": str(args.threads),
            **HIGH_LIMITS,
            **STREAM_SETTINGS,
            **BOT_SETTINGS,
            **engine,
        }
        service = LiveService(server.url, app="tests.bench.floor:create_app()", **env)
        stream_port = None
        if args.proxy == "pushpin":
            proxy = PushpinServer(service.port, uuid.uuid4().hex)
            service.env.update(proxy.service_env())
            stack.enter_context(proxy)
            stream_port = proxy.port
        with service:
            print(
                f"load: {args.players} players in {args.processes} client processes, "
                f"{args.seconds:g} s of each kind in {args.rounds} turns; gunicorn "
                f"{args.workers} workers x {args.threads} threads; engine "
                f"{engine['SCOPA_ENGINE']}; rate limits on (high); "
                f"Redis {server.url}; streams held by "
                + ("a Pushpin in front" if stream_port else "the service's threads")
                + "; loopback only; clients ask for no compression",
                flush=True,
            )
            store = stack.enter_context(redis.Redis.from_url(server.url))
            slice_ = args.seconds / args.rounds
            run_phase("floor", service, store, args.players, args.processes, min(2.0, slice_))
            # The kinds take turns, so that each sees the machine as it is (a shared
            # machine's speed drifts over a minute; the ratios should not).
            # (The moves phases create their matches before their clock starts.)
            kinds = ("floor", "moves") + (("streams",) if args.streams else ()) + ("create",)
            phases: dict[str, list[Phase]] = {kind: [] for kind in kinds}
            for _ in range(args.rounds):
                for kind, done in phases.items():
                    done.append(
                        run_phase(
                            kind,
                            service,
                            store,
                            args.players,
                            args.processes,
                            slice_,
                            stream_port=stream_port,
                        )
                    )
            results = [summary(kind, done) for kind, done in phases.items()]
            memory = match_memory(service.url, server.url)
            problems = service.server_errors()
        by_kind = {r["kind"]: r for r in results}
        layers = (
            profile_layers(server.url, args, {k: by_kind[k]["cpu"]["server"] for k in by_kind})
            if args.breakdown
            else []
        )
        if args.breakdown:  # the second breakdown: layers timed at their boundaries
            # (A few requests where the load was short: the suite's tiny run.)
            requests, turns = (400, 6) if args.seconds >= 10 else (20, 2)
            layers.append(timed_layers(server.url, engine, requests, turns))
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
    print("\n".join(ratios(by_kind)))
    print(
        f"Redis memory per match: running (6 moves in) {memory['running']:.0f} B, "
        f"finished {memory['finished']:.0f} B"
    )
    if layers:
        print("\n".join(layers))
    if problems:
        print(f"the service logged {len(problems)} errors, e.g.: {problems[0]}")
    return 1 if problems or any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
