"""make webhook-latency: how soon a relayed move's ``turn.started`` reaches the platform.

It starts what ``make run`` starts, at its defaults, on 127.0.0.1 only: a private Redis,
gunicorn as deployed (deploy/gunicorn.conf.py; the limits on), one background worker and
two webhook workers (``python -m service.worker --only-webhooks``), with a service key and
``WEBHOOK_ALLOW_HOSTS`` for the receiver, and waits until they run (each worker registered,
and a test event delivered). The receiver is a platform's web server (HTTP/1.1 keep-alive,
a listen backlog of 128): it verifies each delivery's signature (the ``standardwebhooks``
package) and notes when it arrived.

The key registers one endpoint for every event type and creates ``--games`` games of two
people in one bulk call. One thread a game relays its moves as fast as the service answers,
as a platform relaying its players would: the seat to play (the last answer's ``turn``)
plays its first legal move (``X-Seat``, ``If-Match``), with ``--think`` seconds between
moves. Each move that leaves a turn to play causes one ``turn.started``,
``msg_<game>.<seq>.turn`` (``seq``: the move's answer's); the figure is the time from the
move's answer to that message's arrival. It prints how many were expected and how many
came (none may be missing: docs/platforms.md, "Events"), their median, p95 and slowest,
and every delivery's order per game. Exits 1 if one is missing or out of order.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import redis
import requests
import rq
from standardwebhooks.webhooks import Webhook

from service.play.webhooks.events import EVENT_TYPES
from tests.bench.hostile import background_worker, default_env, percentile, tree_cpu_seconds
from tests.devredis import RedisServer
from tests.live import DEFAULT_ENV, LiveService, free_port

KEY_SECRET = "bench-key-secret-0123456789abcdefghijklmnop"
TIMEOUT = 30.0


class Receiver:
    """A platform's endpoint on a free port of 127.0.0.1: each delivery verified, its id
    and arrival noted (the first arrival of an id counts)."""

    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}
        self.order: dict[str, list[str]] = {}
        self.bad = 0
        self.pinged = threading.Event()
        self.verifier: Webhook | None = None
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a platform's web server has

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                now = time.monotonic()
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    assert receiver.verifier is not None
                    message = receiver.verifier.verify(body, dict(self.headers.items()))
                except Exception:  # a bad signature: counted, answered 400
                    receiver.bad += 1
                    self.send_response(400)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if message["type"] == "ping":  # the test event sent before the relay
                    receiver.pinged.set()
                    self.send_response(204)
                    self.end_headers()
                    return
                with lock:
                    if message["id"] not in receiver.arrived:
                        receiver.arrived[message["id"]] = now
                        game = message["data"]["game"]["id"]
                        receiver.order.setdefault(game, []).append(message["id"])
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            request_queue_size = 128  # a web server's listen backlog (http.server's is 5)

        self.server = Server(("127.0.0.1", free_port()), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hooks"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def workers(redis_url: str, env: dict[str, str], log: Path) -> Iterator[list[int]]:
    """``make run``'s workers: one background worker and two webhook workers, each in a
    session of its own, killed when done."""
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(background_worker(redis_url, env, log, *args))
            for args in ((), ("--only-webhooks",), ("--only-webhooks",))
        ]


def ready(
    redis_url: str, base: str, endpoint_id: str, auth: dict[str, str], receiver: Receiver
) -> None:
    """Wait until the workers are up (each registered with rq) and a test event sent to
    the endpoint has arrived: the figures are those of a service running, not starting."""
    deadline = time.monotonic() + TIMEOUT
    with redis.Redis.from_url(redis_url) as connection:
        while len(rq.Worker.all(connection=connection)) < 3:  # make run's three
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not start")
            time.sleep(0.05)
    sent = requests.post(f"{base}/v1/webhooks/{endpoint_id}/test", headers=auth, timeout=TIMEOUT)
    if sent.status_code != 202 or not receiver.pinged.wait(TIMEOUT):
        raise SystemExit(f"the test event did not arrive ({sent.status_code} {sent.text[:200]})")


def call(session: requests.Session, method: str, url: str, **kwargs: Any) -> requests.Response:
    """A request as a platform makes it: a 429 waits its Retry-After and is sent again."""
    while True:
        answer = session.request(method, url, timeout=TIMEOUT, **kwargs)
        if answer.status_code != 429:
            return answer
        time.sleep(float(answer.headers.get("Retry-After", "1")))


def relay(
    base: str, game: dict[str, Any], think: float, answered: dict[str, float], errors: list[str]
) -> None:
    """Play ``game`` to its end, each seat's first legal move in turn; note when each
    move that leaves a turn was answered, by the id of the turn.started it causes."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {KEY_SECRET}"
    url = f"{base}/v1/games/{game['id']}"
    state = call(session, "GET", url).json()
    while state["status"] == "playing":
        seat = state["turn"]
        moves = call(session, "GET", f"{url}/legal-moves", params={"as_seat": seat}).json()
        move = moves["moves"][0]
        played = call(
            session,
            "POST",
            f"{url}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers={"X-Seat": str(seat), "If-Match": f'"{state["version"]}"'},
        )
        if played.status_code != 200:
            errors.append(f"{played.status_code} {played.text[:200]}")
            return
        now = time.monotonic()
        state = played.json()["state"]
        if state["status"] == "playing" and state["turn"] is not None:
            answered[f"msg_{game['id']}.{state['seq']}.turn"] = now
        if think:
            time.sleep(think)


def in_log_order(ids: list[str]) -> bool:
    def position(message_id: str) -> tuple[int, int]:
        tail = message_id.split(".", 1)[1]
        if tail == "created":
            return (-1, 0)
        number, _, turn = tail.partition(".")
        return (int(number), 1 if turn else 0)

    return ids == sorted(ids, key=position)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--think", type=float, default=0.0, help="seconds between moves")
    parser.add_argument("--target", type=int, default=11, help="each match's target")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 64 or not 0 <= args.think <= 5:
        parser.error("--games 1-64, --think 0-5")

    receiver = Receiver()
    env = {
        **DEFAULT_ENV,
        **default_env(),
        "SERVICE_KEYS": f"bench={KEY_SECRET}",
        "WEBHOOK_ALLOW_HOSTS": f"127.0.0.1:{receiver.server.server_port}",
    }
    answered: dict[str, float] = {}
    errors: list[str] = []
    with contextlib.ExitStack() as stack:
        stack.callback(receiver.close)
        server = stack.enter_context(RedisServer())
        service = stack.enter_context(LiveService(server.url, **env))
        pids = stack.enter_context(
            workers(server.url, service.env, service.workdir / "workers.log")
        )
        auth = {"Authorization": f"Bearer {KEY_SECRET}"}
        endpoint = requests.post(
            f"{service.url}/v1/webhooks",
            json={"url": receiver.url, "events": list(EVENT_TYPES)},
            headers=auth,
            timeout=TIMEOUT,
        ).json()
        receiver.verifier = Webhook(endpoint["secret"])
        ready(server.url, service.url, endpoint["id"], auth, receiver)
        seats = [{"name": "Ana"}, {"name": "Bo"}]
        bulk = {"games": [{"seats": seats, "target": args.target}] * args.games}
        games = requests.post(
            f"{service.url}/v1/games/bulk", json=bulk, headers=auth, timeout=TIMEOUT
        ).json()["games"]
        print(
            f"webhook latency: {args.games} games of two people relayed by one key as fast "
            f"as the service answers (think {args.think:g} s), target {args.target}; "
            f"gunicorn {env['WEB_CONCURRENCY']} workers x {env['GUNICORN_THREADS']} threads, "
            "one background worker and two webhook workers (make run's); loopback only",
            flush=True,
        )
        started = time.monotonic()
        threads = [
            threading.Thread(target=relay, args=(service.url, g, args.think, answered, errors))
            for g in games
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        relayed = time.monotonic() - started
        deadline = time.monotonic() + TIMEOUT  # the last deliveries, once play is over
        while time.monotonic() < deadline and not set(answered) <= set(receiver.arrived):
            time.sleep(0.05)
        problems = service.server_errors()
        cpu = {
            "API": tree_cpu_seconds(service.master_pid),
            "background worker": tree_cpu_seconds(pids[0]),
            "webhook workers": sum(tree_cpu_seconds(pid) for pid in pids[1:]),
            "this process (relay, receiver)": time.process_time(),
        }

    missing = sorted(set(answered) - set(receiver.arrived))
    delays = sorted(receiver.arrived[i] - at for i, at in answered.items() if i in receiver.arrived)
    turns = sum(1 for i in receiver.arrived if i.endswith(".turn"))
    unordered = [g for g, ids in receiver.order.items() if not in_log_order(ids)]
    print(
        f"{len(answered)} moves relayed in {relayed:.1f} s ({len(answered) / relayed:.0f}/s); "
        f"{len(receiver.arrived)} deliveries, {turns} turn.started; "
        f"{len(missing)} turn.started missing; {len(unordered)} games out of order; "
        f"{receiver.bad} bad signatures; {len(errors)} failed moves; "
        f"{len(problems)} server errors"
    )
    if delays:
        print(
            "move answered -> its turn.started received: median "
            f"{statistics.median(delays) * 1000:.0f} ms, "
            f"p95 {percentile(delays, 95) * 1000:.0f} ms, slowest {delays[-1] * 1000:.0f} ms"
        )
    print("CPU seconds: " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu.items()))
    for error in errors[:3]:
        print("failed move:", error)
    return 1 if missing or unordered or errors or receiver.bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
