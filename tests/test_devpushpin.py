"""`make run`'s front (tests/devpushpin.py): with Pushpin installed, the service's command
runs behind it with what it needs to use it; with STREAM_PROXY=none, as it is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.devpushpin import find_pushpin, free_port

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["PORT", "HOST", "GRIP_KEY", "GRIP_PUBLISH_URLS", "TRUSTED_PROXIES"]
SHOW = f"import json, os; print(json.dumps({{k: os.environ.get(k) for k in {NAMES!r}}}))"


def run_front(tmp_path: Path, **env: str) -> tuple[int, dict[str, str | None], str]:
    port = free_port()
    done = subprocess.run(
        [sys.executable, "-m", "tests.devpushpin", "--port", str(port), "--dir", "pp"]
        + ["--", sys.executable, "-c", SHOW],
        cwd=tmp_path,  # (a relative directory, as `make run` gives: .run/pushpin)
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return port, json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


@pytest.mark.skipif(find_pushpin() is None, reason="needs Debian's pushpin")
def test_the_service_runs_behind_pushpin_with_its_key_and_publish_url(tmp_path: Path) -> None:
    port, seen, said = run_front(tmp_path)
    assert f"Pushpin on 127.0.0.1:{port} holds the streams" in said
    assert seen["PORT"] != str(port) and seen["HOST"] == "127.0.0.1"
    assert seen["GRIP_KEY"] and len(seen["GRIP_KEY"]) >= 32
    assert (seen["GRIP_PUBLISH_URLS"] or "").startswith("http://127.0.0.1:")
    assert seen["TRUSTED_PROXIES"] == "1"
    routes = (tmp_path / "pp" / "routes").read_text()
    assert routes.strip() == f"* 127.0.0.1:{seen['PORT']}"


def test_stream_proxy_none_runs_the_service_on_the_port_itself(tmp_path: Path) -> None:
    port, seen, said = run_front(tmp_path, STREAM_PROXY="none")
    assert "the service's threads hold the streams" in said
    assert seen["PORT"] == str(port) and seen["GRIP_KEY"] is None
