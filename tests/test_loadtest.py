"""`make loadtest` (tests/bench/loadtest.py) and `make hostile` (tests/bench/hostile.py) at
a tiny size, so that they keep working: their clients get only the answers they expect,
and they print every figure. (Their figures are the docs' business: nothing here checks
a speed.)"""

from __future__ import annotations

import pytest

from service.api.ratelimit import LIMIT_SETTINGS
from tests.bench import hostile, loadtest


def test_a_tiny_load_runs_clean(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--players", "4", "--processes", "2", "--seconds", "1", "--rounds", "1"]
    assert loadtest.main(argv) == 0  # no error answered, none in the service's log
    out = capsys.readouterr().out
    rows = {row[0]: row for row in map(str.split, out.splitlines()) if len(row) == 10}
    for kind in ("floor", "moves", "create"):
        requests = int(rows[kind][6])
        assert requests > 0 and rows[kind][5] == "0", out  # answered, no errors
    assert "moves / floor throughput:" in out
    assert "Redis memory per match: running" in out


def test_a_short_hostile_run_runs_clean_with_the_default_limits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The service's own limits, not the live tests' (which turn them off).
    env = hostile.default_env()
    assert all(float(env[name]) > 0 for name in LIMIT_SETTINGS if name in env)
    assert "RATE_LIMIT_PER_ADDRESS" in env and "SERVER_SECRET" not in env
    assert hostile.main(["--seconds", "3"]) == 0  # the bystander always answered, no 5xx
    out = capsys.readouterr().out
    rows = {row[0]: row for row in map(str.split, out.splitlines()) if len(row) == 6}
    for name in ("legal-moves", "analysis", "bot-matches", "openapi", "plain"):
        assert int(rows[name][1]) > 0 and rows[name][3] == "0", out  # answered, no errors
    assert "CPU over" in out and "API" in out and "worker" in out
    assert "bystander (another address" in out
