"""The memory an event stream holds in its worker, on a long log (docs/performance.md).

``python -m tests.bench.stream_memory``: a private Redis and gunicorn as deployed with
one worker (its RSS read from /proc), on 127.0.0.1. It plays ``--games`` whole 2-player
matches to 100 points (in-process, on the same Redis: over 1,000 events each), then
measures the worker's resident memory as streams open and have read everything they
were sent:

1. one stream per game, each from the first event (``after=-1``, as a client resuming
   from the start asks): each game's feed then holds its whole log in the worker;
2. ``--streams`` more on one of those games, also from the first event: what a stream
   adds once its game's log is held;
3. ``--streams`` fresh streams (no ``after``) on another game that no stream followed.

Bounded in time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import socket
import sys
import time
from pathlib import Path

from service.api.ratelimit import LIMIT_SETTINGS
from service.app import create_app
from tests.devredis import RedisServer
from tests.helpers import Table
from tests.live import LiveService

READ_TIMEOUT = 30.0


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def open_stream(port: int, game_id: str, query: str, until: bytes) -> socket.socket:
    """A stream, read until ``until`` has come (the last event it should send)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT)
    sock.sendall(
        f"GET /v1/games/{game_id}/stream{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )
    tail = b""
    deadline = time.monotonic() + READ_TIMEOUT
    while until not in tail:
        if time.monotonic() > deadline:
            raise RuntimeError(f"the stream of {game_id} did not send {until!r}")
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"the stream of {game_id} ended early")
        tail = (tail + chunk)[-(65536 + len(until)) :]
    return sock


def settle(pid: int) -> int:
    """The worker's RSS once it stopped moving (threads start, allocators settle)."""
    last = rss_bytes(pid)
    for _ in range(20):
        time.sleep(0.25)
        now = rss_bytes(pid)
        if abs(now - last) < 64 * 1024:
            return now
        last = now
    return last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--streams", type=int, default=40)
    args = parser.parse_args(argv)
    if not 2 <= args.games <= 50 or not 1 <= args.streams <= 150:
        parser.error("--games 2-50, --streams 1-150")
    rng = random.Random(1)
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(RedisServer())
        service = stack.enter_context(
            LiveService(
                server.url,
                WEB_CONCURRENCY="1",
                STREAM_MAX_SECONDS="3600",
                STREAM_KEEPALIVE_SECONDS="600",
            )
        )
        app = create_app(
            {
                "REDIS_URL": server.url,
                "SERVER_SECRET": service.env["SERVER_SECRET"],
                **dict.fromkeys(LIMIT_SETTINGS, 0),
            }
        )
        games: list[tuple[str, int]] = []  # (id, the last event's seq)
        for _ in range(args.games + 1):
            table = Table(app.test_client())
            table.create(target=100)
            table.play_to_end(rng)
            events = table.client.get(table.url("/events")).get_json()["events"]
            games.append((table.game_id, events[-1]["seq"]))
        (worker,) = service.worker_pids()
        sockets: list[socket.socket] = []
        # Warm up: the hub, its thread, a first stream's imports.
        open_stream(service.port, games[-1][0], "", b"event: state").close()
        base = settle(worker)

        for game_id, last in games[:-1]:
            sockets.append(open_stream(service.port, game_id, "?after=-1", b"id: %d\n" % last))
        whole = settle(worker)
        first, first_last = games[0]
        for _ in range(args.streams):
            sockets.append(open_stream(service.port, first, "?after=-1", b"id: %d\n" % first_last))
        more = settle(worker)
        fresh_game = games[-1][0]
        for _ in range(args.streams):
            sockets.append(open_stream(service.port, fresh_game, "", b"event: state"))
        fresh = settle(worker)
        for sock in sockets:
            sock.close()

    lengths = sorted(last + 1 for _, last in games)
    kib = 1024
    print(
        f"stream memory: one gunicorn worker; {args.games + 1} matches of {lengths[0]}-"
        f"{lengths[-1]} events; RSS {base / 2**20:.1f} MiB before the streams"
    )
    print(
        f"  a stream from the first event, each on its own game: "
        f"{(whole - base) / args.games / kib:.0f} KiB a stream ({args.games} streams)"
    )
    print(
        f"  more streams from the first event on a game already followed: "
        f"{(more - whole) / args.streams / kib:.0f} KiB a stream ({args.streams} streams)"
    )
    print(
        f"  fresh streams (no after) on another game: "
        f"{(fresh - more) / args.streams / kib:.0f} KiB a stream ({args.streams} streams)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
