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
    # The .py engine: a test does not build the mypyc one (`make loadtest` does).
    assert loadtest.main([*argv, "--engine", "python"]) == 0  # no error, none logged
    out = capsys.readouterr().out
    rows = {row[0]: row for row in map(str.split, out.splitlines()) if len(row) == 10}
    for kind in ("floor", "moves", "streams", "create"):
        requests = int(rows[kind][6])
        assert requests > 0 and rows[kind][5] == "0", out  # answered, no errors
    for ratio in (
        "moves / floor throughput:",
        "moves p99 / floor p99:",
        "creations / floor throughput:",
        "moves with a stream per seat open, throughput lost:",
    ):
        assert ratio in out
    assert "Redis memory per match: running" in out
    # The breakdown: every kind profiled, its layers' shares adding up to the whole.
    table = out[out.index("CPU of a request by layer") :].splitlines()
    profiled = next(line for line in table if line.startswith("requests profiled")).split()
    assert all(int(n) > 0 for n in profiled[2:]) and len(profiled) == 5, out
    shares = [
        [float(cell.rstrip("%")) for cell in line[42:].split() if cell.endswith("%")]
        for line in table
        if "%" in line
    ]
    for column in zip(*shares, strict=True):
        assert sum(column) == pytest.approx(100, abs=1), out
    assert any(line.startswith("the game (engine") for line in table), out
    # The second: each layer timed at its boundaries, the layers adding up to the total.
    timed = out[out.index("CPU of a request by layer, timed") :].splitlines()[2:]
    cells = {line[:52].strip(): [float(cell) for cell in line[52:].split()] for line in timed}
    total = cells.pop("total")
    assert all(ms > 0 for ms in total[:3]), out
    for kind in range(3):
        assert sum(row[kind] for row in cells.values()) == pytest.approx(total[kind], abs=0.01)
    assert cells["the game (engine, steps)"][1] > 0 and cells["seats (the token)"][0] == 0, out


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
