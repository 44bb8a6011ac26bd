"""make slowclients: one instance (gunicorn as deployed, 2 workers, on 127.0.0.1) under
slow and idle clients, while a bystander asks for /healthz and a game's view.

It starts a private Redis and gunicorn (deploy/gunicorn.conf.py, tests/live.py's
LiveService), creates one game, then, for ``--seconds``, keeps open at once:

- ``--slow-headers`` connections (450) that send a request's head a line at a time, one
  line every ``--header-interval`` seconds (20), never ending it;
- ``--slow-bodies`` connections (450) that send a whole head announcing a body of
  ``--body-length`` bytes (1,000; ``Content-Length``), then a byte of it every
  ``--body-interval`` seconds (3);
- ``--pipelined`` connections (20) that each send 40 requests for /openapi.json at once
  and never read an answer;

and opens ``--connects`` (150) bare connections a second that send nothing. A connection
the service closes is opened again (each kind keeps its count). Meanwhile a bystander
sends ``GET /healthz`` and ``GET /v1/games/{id}``, each on a new connection, every
``--probe-interval`` seconds (0.25), and the latency of each is kept (an error or no
answer within 10 s counts as 10 s).

It prints the latencies of both (median, p95, max, how many took over 1 s), what the
attackers met (the statuses they were answered, connections closed by the service) and
the service's CPU time.
Bounded in time (``--seconds``, 40 by default), loopback only; it stops by itself.
:func:`run` is what tests/test_slow_clients.py runs, smaller and shorter.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import errno
import heapq
import http.client
import itertools
import json
import math
import re
import resource
import selectors
import socket
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.devredis import RedisServer
from tests.live import LiveService

PROBE_TIMEOUT = 10.0
BODY_LENGTH = 1000
PIPELINE_DEPTH = 40
#: The status line an attacker reads first when the service answers it.
_STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) ")


@dataclass(frozen=True)
class Attack:
    """The slow and idle clients, all at once, against one address."""

    slow_headers: int = 450
    slow_bodies: int = 450
    pipelined: int = 20
    connects_per_second: float = 150.0
    header_interval: float = 20.0
    body_interval: float = 3.0
    #: The body a slow-body connection announces (Content-Length) and trickles.
    body_length: int = BODY_LENGTH
    #: A bare connection the service has not closed is closed by the client after this.
    idle_give_up: float = 60.0


@dataclass
class Tally:
    """What the attacking clients met."""

    opened: dict[str, int] = field(default_factory=dict)
    closed_by_service: dict[str, int] = field(default_factory=dict)
    #: How many attacking connections were answered each status (its code, as text).
    answered: dict[str, int] = field(default_factory=dict)
    connect_failures: int = 0
    #: The most connections the attackers held open at once.
    most_open: int = 0


def raise_fd_limit(wanted: int) -> None:
    """The soft limit on open files raised towards ``wanted`` (at most the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


class _Conn:
    def __init__(self, kind: str, sock: socket.socket, now: float) -> None:
        self.kind = kind
        self.sock = sock
        self.opened = now
        self.connected = False
        self.next_send = math.inf
        self.sent = 0


class Attacker(threading.Thread):
    """One thread, one selector: every attacking connection, non-blocking."""

    def __init__(self, port: int, game_path: str, attack: Attack, tally: Tally) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.attack = attack
        self.tally = tally
        self.stopping = threading.Event()
        self.selector = selectors.DefaultSelector()
        self.conns: dict[socket.socket, _Conn] = {}
        #: (when, order, connection): its next piece to send (a bare one: to give up).
        self.due: list[tuple[float, int, _Conn]] = []
        self.order = itertools.count()
        self.counts = {"slow-header": 0, "slow-body": 0, "pipelined": 0, "bare": 0}
        head = f"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        self.body_head = (
            f"{head}Content-Type: application/json\r\nContent-Length: {attack.body_length}\r\n\r\n"
        ).encode()
        self.pipeline = (
            f"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
            * PIPELINE_DEPTH
        )
        self.header_lines = [f"GET {game_path} HTTP/1.1\r\n".encode()] + [
            f"X-Slow-{n}: still coming\r\n".encode() for n in range(10_000)
        ]

    def run(self) -> None:
        attack = self.attack
        bare_due = time.monotonic()
        while not self.stopping.is_set():
            now = time.monotonic()
            for kind, target in (
                ("slow-header", attack.slow_headers),
                ("slow-body", attack.slow_bodies),
                ("pipelined", attack.pipelined),
            ):
                while self.counts[kind] < target:
                    if not self._open(kind, now):
                        break
            while attack.connects_per_second and bare_due <= now:
                bare_due += 1.0 / attack.connects_per_second
                self._open("bare", now)
            for key, mask in self.selector.select(timeout=0.02):
                self._event(self.conns[key.fileobj], mask)  # type: ignore[index]
            now = time.monotonic()
            while self.due and self.due[0][0] <= now:
                when, _, conn = heapq.heappop(self.due)
                if self.conns.get(conn.sock) is not conn or conn.next_send != when:
                    continue  # closed since, or due later
                if conn.kind == "bare":
                    self._close(conn)  # the service never closed it: given up
                else:
                    self._send_next(conn, now)
            self.tally.most_open = max(self.tally.most_open, len(self.conns))
        for conn in list(self.conns.values()):
            self._close(conn)
        self.selector.close()

    def _open(self, kind: str, now: float) -> bool:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        err = sock.connect_ex(("127.0.0.1", self.port))
        if err not in (0, errno.EINPROGRESS):
            sock.close()
            self.tally.connect_failures += 1
            return False
        conn = _Conn(kind, sock, now)
        self.conns[sock] = conn
        self.counts[kind] += 1
        self.tally.opened[kind] = self.tally.opened.get(kind, 0) + 1
        self.selector.register(sock, selectors.EVENT_WRITE)
        return True

    def _event(self, conn: _Conn, mask: int) -> None:
        if not conn.connected:
            if conn.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                self.tally.connect_failures += 1
                self._close(conn)
                return
            conn.connected = True
            self._schedule(
                conn, conn.opened + self.attack.idle_give_up if conn.kind == "bare" else 0.0
            )
            # A pipelining client never reads; the others watch for the service's answer.
            if conn.kind == "pipelined":
                self.selector.unregister(conn.sock)
            else:
                self.selector.modify(conn.sock, selectors.EVENT_READ)
            return
        try:
            data = conn.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        status = _STATUS.match(data)
        if status is not None:
            code = status.group(1).decode()
            self.tally.answered[code] = self.tally.answered.get(code, 0) + 1
        if not data:
            self.tally.closed_by_service[conn.kind] = (
                self.tally.closed_by_service.get(conn.kind, 0) + 1
            )
            self._close(conn)

    def _schedule(self, conn: _Conn, when: float) -> None:
        conn.next_send = when
        heapq.heappush(self.due, (when, next(self.order), conn))

    def _send_next(self, conn: _Conn, now: float) -> None:
        attack = self.attack
        if conn.kind == "slow-header":
            piece = self.header_lines[min(conn.sent, len(self.header_lines) - 1)]
            self._schedule(conn, now + attack.header_interval)
        elif conn.kind == "slow-body":
            piece = self.body_head if conn.sent == 0 else b" "
            if conn.sent < attack.body_length:
                self._schedule(conn, now + attack.body_interval)
        else:  # pipelined: everything at once, then never a read
            piece = self.pipeline
        conn.sent += 1
        try:
            conn.sock.send(piece)
        except BlockingIOError:
            pass
        except OSError:
            self.tally.closed_by_service[conn.kind] = (
                self.tally.closed_by_service.get(conn.kind, 0) + 1
            )
            self._close(conn)

    def _close(self, conn: _Conn) -> None:
        self.conns.pop(conn.sock, None)
        self.counts[conn.kind] -= 1
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(conn.sock)
        conn.sock.close()


def probe(port: int, path: str, failures: list[str]) -> float:
    """Seconds until ``GET path`` on a new connection is answered 200 (else the timeout,
    and what went wrong added to ``failures``)."""
    start = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            failures.append(f"{path}: {response.status}")
            return PROBE_TIMEOUT
    except OSError as exc:
        failures.append(f"{path}: {exc!r} after {time.monotonic() - start:.1f} s")
        return PROBE_TIMEOUT
    finally:
        connection.close()
    return min(time.monotonic() - start, PROBE_TIMEOUT)


@dataclass
class Result:
    """The bystander's latencies (seconds) by path, and what the attackers met."""

    latencies: dict[str, list[float]]
    tally: Tally
    #: The bystander's requests that failed (an error, or a status other than 200), or
    #: took over 1 s (when, from the start).
    failures: list[str]
    seconds: float
    cpu_seconds: float

    def summary(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for name, values in self.latencies.items():
            ordered = sorted(values)
            found[name] = {
                "requests": len(values),
                "median_ms": round(statistics.median(ordered) * 1000, 1),
                "p95_ms": round(ordered[max(0, math.ceil(len(ordered) * 0.95) - 1)] * 1000, 1),
                "max_ms": round(ordered[-1] * 1000, 1),
                "over_1s": sum(v > 1.0 for v in values),
            }
        found["attackers"] = {
            "opened": self.tally.opened,
            "closed_by_service": self.tally.closed_by_service,
            "answered": self.tally.answered,
            "connect_failures": self.tally.connect_failures,
            "most_open_at_once": self.tally.most_open,
        }
        found["bystander_failures"] = self.failures
        found["service_cpu_seconds"] = round(self.cpu_seconds, 2)
        found["seconds"] = round(self.seconds, 1)
        return found


def _cpu_seconds(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
    return ticks / 100.0


def run(
    service: LiveService, attack: Attack, seconds: float, probe_interval: float = 0.25
) -> Result:
    """Attack ``service`` for ``seconds`` while probing /healthz and a game's view."""
    raise_fd_limit(
        attack.slow_headers
        + attack.slow_bodies
        + attack.pipelined
        + int(attack.connects_per_second * 15)
        + 1024
    )
    created = service.session.post(service.url + "/v1/games", json={}, timeout=10)
    assert created.status_code == 201, created.text
    game_path = "/v1/games/" + created.json()["id"]
    paths = {"healthz": "/healthz", "game view": game_path}
    latencies: dict[str, list[float]] = {name: [] for name in paths}
    tally = Tally()
    failures: list[str] = []
    slow: list[str] = []
    attacker = Attacker(service.port, game_path, attack, tally)
    pids = [service.master_pid, *service.worker_pids()]
    cpu_before = _cpu_seconds(pids)
    start = time.monotonic()
    attacker.start()
    try:
        while time.monotonic() - start < seconds:
            tick = time.monotonic()
            for name, path in paths.items():
                latency = probe(service.port, path, failures)
                latencies[name].append(latency)
                if latency > 1.0:
                    slow.append(f"{name}: {latency:.2f} s at {tick - start:.1f} s")
            time.sleep(max(0.0, probe_interval - (time.monotonic() - tick)))
    finally:
        attacker.stopping.set()
        attacker.join(timeout=30)
    return Result(
        latencies, tally, failures + slow, time.monotonic() - start, _cpu_seconds(pids) - cpu_before
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--slow-headers", type=int, default=450)
    parser.add_argument("--slow-bodies", type=int, default=450)
    parser.add_argument("--pipelined", type=int, default=20)
    parser.add_argument("--connects", type=float, default=150.0, help="bare connects a second")
    parser.add_argument("--header-interval", type=float, default=20.0)
    parser.add_argument("--body-interval", type=float, default=3.0)
    parser.add_argument("--body-length", type=int, default=BODY_LENGTH)
    parser.add_argument("--probe-interval", type=float, default=0.25)
    args = parser.parse_args(argv)
    attack = Attack(
        slow_headers=args.slow_headers,
        slow_bodies=args.slow_bodies,
        pipelined=args.pipelined,
        connects_per_second=args.connects,
        header_interval=args.header_interval,
        body_interval=args.body_interval,
        body_length=args.body_length,
    )
    with RedisServer() as server, LiveService(server.url) as service:
        result = run(service, attack, args.seconds, args.probe_interval)
    summary = result.summary()
    print(json.dumps({"attack": dataclasses.asdict(attack), **summary}, indent=2))
    worst = max(summary[name]["max_ms"] for name in result.latencies)
    print(
        f"bystander: worst answer {worst:.0f} ms; "
        + ", ".join(f"{name} over 1 s: {summary[name]['over_1s']}" for name in result.latencies)
    )
    return 0 if all(summary[name]["over_1s"] == 0 for name in result.latencies) else 1


if __name__ == "__main__":
    sys.exit(main())
