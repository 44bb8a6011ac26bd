"""``python -m tests.devredis run``: what ``make run`` stands on. It runs a command (the
service) and the commands beside it (the background worker) next to a private Redis,
all with its REDIS_URL, and stops them all when the command ends."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def devredis_run(tmp_path: Path, *options: str, main: str) -> subprocess.CompletedProcess[bytes]:
    """``python -m tests.devredis run [options] -- python -c main``, its Redis's data in
    ``tmp_path``, on a bare environment: its output and status."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "tests.devredis", "run"),
            *("--data-dir", str(tmp_path / "redis"), *options),
            *("--", sys.executable, "-c", main),
        ],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin:/usr/local/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        timeout=60,
    )


def test_the_command_and_its_neighbours_share_the_redis_and_stop_together(
    tmp_path: Path,
) -> None:
    beside = textwrap.dedent(
        f"""
        import os, pathlib, time
        pathlib.Path({str(tmp_path / "beside")!r}).write_text(os.environ["REDIS_URL"])
        time.sleep(120)
        """
    )
    main = textwrap.dedent(
        f"""
        import os, pathlib, sys, time
        import redis
        beside = pathlib.Path({str(tmp_path / "beside")!r})
        for _ in range(200):
            if beside.exists() and beside.read_text():
                break
            time.sleep(0.05)
        assert beside.read_text() == os.environ["REDIS_URL"]
        assert redis.Redis.from_url(os.environ["REDIS_URL"]).ping()
        sys.exit(3)
        """
    )
    result = devredis_run(
        tmp_path, "--beside", f"{sys.executable} -c {shlex.quote(beside)}", main=main
    )
    assert result.returncode == 3, result.stderr.decode()[-2000:]
    # The neighbour was stopped with the command: nothing of it is left running.
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(tmp_path / "beside") not in ps


def test_it_says_once_the_service_answers(tmp_path: Path) -> None:
    """`make run`'s last line: the address to open, printed once the service answers
    (`--ready URL TEXT`), set apart from the lines its processes write as they start."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    main = textwrap.dedent(
        f"""
        import http.server, threading, time
        server = http.server.HTTPServer(("127.0.0.1", {port}), http.server.BaseHTTPRequestHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        time.sleep(3)
        """
    )
    result = devredis_run(
        tmp_path, "--ready", f"http://127.0.0.1:{port}/healthz", "Up: open it.", main=main
    )
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    # (the server answers 501 to a GET it has no handler for: an answer all the same)
    assert "\n\nUp: open it.\n\n" in result.stderr.decode()
