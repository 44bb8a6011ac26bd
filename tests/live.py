"""A real running service for the tests that need one: gunicorn with its real workers,
on a free port of 127.0.0.1, next to a Redis the test chooses; and a small HTTP client
that plays matches on it.

The fuzz, fault and concurrency tests use it: they need real processes (a worker to kill,
a master to stop, a socket between client and server), not Flask's test client.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

from service.api.ratelimit import LIMIT_SETTINGS

ROOT = Path(__file__).resolve().parent.parent
GUNICORN = str(Path(sys.executable).parent / "gunicorn")
APP = "service.app:create_app()"

#: Settings the tests run the service with, unless a test says otherwise: no rate limits
#: (the tests send far more than a client would), and short computer-player turns.
DEFAULT_ENV = {
    "HOST": "127.0.0.1",
    "WEB_CONCURRENCY": "2",
    "GUNICORN_THREADS": "4",
    **dict.fromkeys(LIMIT_SETTINGS, "0"),
    "BOT_TIME_LIMIT_SECONDS": "0.2",
    "EXPERT_BUDGET_MS": "5",
    "REDIS_TIMEOUT_SECONDS": "1",
    "SERVER_SECRET": "live-tests-secret-0123456789abcdefghijklmnop",
    # A service key, "live", for the platforms' operations (LIVE_KEY is its secret).
    "SERVICE_KEYS": "live=live-key-secret-0123456789abcdefghijklmnopq",
    # Event streams end after a second unless a test says otherwise: a client that reads
    # a whole answer (the fuzz tests) gets one; a browser's EventSource reconnects.
    "STREAM_MAX_SECONDS": "1",
}


#: The secret of DEFAULT_ENV's service key.
LIVE_KEY = "live-key-secret-0123456789abcdefghijklmnopq"

#: A card code standing alone (not inside a longer token such as an id).
CARD_CODE = re.compile(r"(?<![A-Za-z0-9_-])(10|[1-9])[DCSB](?![A-Za-z0-9_-])")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def children_of(pid: int) -> list[int]:
    """The pids of a process's children, from /proc (Linux)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            found += [int(p) for p in task.read_text().split()]
    return sorted(set(found))


def burst_worker(redis_url: str, **settings: str) -> None:
    """Run a background worker (``--burst``) on ``redis_url`` until every job queued is
    done: computer players with a 3 ms expert, in 1 s slices (and ``settings``). Fails if
    it fails, or takes over two minutes."""
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "SERVER_SECRET": "x" * 40,
        "EXPERT_BUDGET_MS": "3",
        "BOT_SLICE_SECONDS": "1",
        **settings,
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "service.worker", "--burst"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert worker.wait(120) == 0
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)


class LiveService:
    """``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'`` on a free port.

    ``start()`` waits until /healthz answers and every worker is up; ``stop()`` sends
    SIGTERM to the master (gunicorn's graceful shutdown) and waits for it to exit.
    Its output goes to ``gunicorn.log`` in ``workdir``; :meth:`log_tail` quotes it.
    """

    def __init__(
        self, redis_url: str, workdir: str | None = None, *, app: str = APP, **env: str
    ) -> None:
        self.redis_url = redis_url
        #: The app gunicorn serves (the load test serves the service with its floor).
        self.app = app
        self.port = free_port()
        # LIVE_KEEP_LOGS=1 keeps each service's directory (and its gunicorn.log) in /tmp.
        self._own_workdir = workdir is None and not os.environ.get("LIVE_KEEP_LOGS")
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="scopa-live-"))
        self.env = {**DEFAULT_ENV, **env}
        self.process: subprocess.Popen[bytes] | None = None
        self.session = requests.Session()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def workers(self) -> int:
        return int(self.env["WEB_CONCURRENCY"])

    def start(self, timeout: float = 30.0) -> LiveService:
        metrics = self.workdir / "metrics"
        shutil.rmtree(metrics, ignore_errors=True)
        metrics.mkdir(parents=True)
        env = {
            **os.environ,
            **self.env,
            "PORT": str(self.port),
            "REDIS_URL": self.redis_url,
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        }
        log = open(self.workdir / "gunicorn.log", "ab")  # noqa: SIM115 - kept by the child
        try:
            self.process = subprocess.Popen(
                [GUNICORN, "-c", "deploy/gunicorn.conf.py", self.app],
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"gunicorn exited with {self.process.returncode}\n{self.log_tail()}"
                )
            if len(self.worker_pids()) >= self.workers and self._healthy():
                return self
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"gunicorn did not come up within {timeout:.0f}s\n{self.log_tail()}")

    def _healthy(self) -> bool:
        try:
            return requests.get(self.url + "/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    @property
    def master_pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def worker_pids(self) -> list[int]:
        return children_of(self.master_pid) if self.process is not None else []

    def stop(self, timeout: float = 40.0) -> int:
        """SIGTERM to the master: it stops accepting, lets the workers finish the requests
        in flight, and exits. Returns its exit status."""
        process, self.process = self.process, None
        if process is None:
            return 0
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise

    def kill(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            workers = children_of(process.pid)
            process.kill()
            process.wait()
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        try:
            self.stop()
        finally:
            self.kill()
            self.session.close()
            if self._own_workdir:
                shutil.rmtree(self.workdir, ignore_errors=True)

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = (self.workdir / "gunicorn.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def log_text(self) -> str:
        try:
            return (self.workdir / "gunicorn.log").read_text(errors="replace")
        except OSError:
            return ""

    def server_errors(self) -> list[str]:
        """The lines of its log that tell of a failure: an error logged (an unhandled
        exception, a worker that died or timed out) or a 5xx answered."""
        return [
            line
            for line in self.log_text().splitlines()
            if re.search(r'"level": "(error|critical)"|"status": 5\d\d|Traceback', line)
        ]

    def card_mentions(self) -> list[str]:
        """The lines of its log that name a card, outside what the client itself sent (the
        path and the request id, which a client may fill with anything). Logs must never
        name a card: they hold routes, statuses and timings."""
        found = []
        for line in self.log_text().splitlines():
            try:
                fields = json.loads(line)
            except ValueError:
                fields = line
            if isinstance(fields, dict):
                fields = {k: v for k, v in fields.items() if k not in ("path", "request_id")}
            if CARD_CODE.search(json.dumps(fields)):
                found.append(line)
        return found

    def __enter__(self) -> LiveService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class Player:
    """Plays one match on a live service, as all its seats, over HTTP."""

    def __init__(self, base_url: str, session: requests.Session | None = None) -> None:
        self.base_url = base_url
        self.http = session or requests.Session()
        self.game_id = ""
        self.tokens: list[str] = []
        self.created: dict[str, Any] = {}

    def create(self, headers: dict[str, str] | None = None, **body: Any) -> dict[str, Any]:
        response = self.http.post(
            self.base_url + "/v1/games", json=body, headers=headers or {}, timeout=30
        )
        assert response.status_code == 201, response.text
        self.created = response.json()
        self.game_id = self.created["id"]
        self.tokens = [seat["token"] for seat in self.created["seats"]]
        return self.created

    def url(self, suffix: str = "") -> str:
        return f"{self.base_url}/v1/games/{self.game_id}{suffix}"

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def get(self, suffix: str = "", seat: int | None = None) -> requests.Response:
        headers = self.auth(seat) if seat is not None else {}
        return self.http.get(self.url(suffix), headers=headers, timeout=30)

    def view(self, seat: int | None = None) -> dict[str, Any]:
        response = self.get("", seat)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        response = self.get("/legal-moves", seat)
        assert response.status_code == 200, response.text
        return response.json()["moves"]  # type: ignore[no-any-return]

    def events(self) -> dict[str, Any]:
        response = self.get("/events")
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    def move(
        self, seat: int, card: str, capture: list[str] | None, **headers: str
    ) -> requests.Response:
        body: dict[str, Any] = {"card": card}
        if capture is not None:
            body["capture"] = capture
        return self.http.post(
            self.url("/moves"),
            json=body,
            headers={**self.auth(seat), **{k.replace("_", "-"): v for k, v in headers.items()}},
            timeout=30,
        )

    def play_random(self, rng: random.Random, moves: int) -> int:
        """Play up to ``moves`` random legal moves for whoever is to play; return how many
        were played (fewer if the match ended)."""
        turn = self.view()["turn"]
        for played in range(moves):
            if turn is None:
                return played
            move = rng.choice(self.legal_moves(turn))
            response = self.move(turn, move["card"], move["capture"])
            assert response.status_code == 200, response.text
            turn = response.json()["state"]["turn"]
        return moves


#: The checks every answer of the service must pass against the checked-in spec.
def contract_checks() -> list[Any]:
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
        response_headers_conformance,
    ]


@functools.cache
def _spec() -> Any:
    import schemathesis

    return schemathesis.openapi.from_path(ROOT / "openapi" / "openapi.json")


def assert_conforms(
    method: str, path: str, response: requests.Response, **path_parameters: Any
) -> None:
    """Check an answer of the service against openapi/openapi.json with schemathesis:
    ``path`` is the operation's template, such as ``/v1/games/{game_id}``, and
    ``path_parameters`` the values it was sent with. A 5xx (but a
    documented 503), an undocumented status, or a body, content type or header that
    breaks the spec raises."""
    checks = contract_checks()
    if response.status_code == 503:
        checks = checks[1:]  # documented (status_code_conformance checks it is)
    case = _spec()[path][method.upper()].Case(path_parameters=path_parameters)
    case.validate_response(response, checks=checks)
