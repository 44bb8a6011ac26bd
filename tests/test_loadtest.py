"""`make loadtest` (tests/bench/loadtest.py) at a tiny size, so that it keeps working: its
players get only the answers they expect, and it prints every figure. (Its figures are
the README's business: nothing here checks a speed.)"""

from __future__ import annotations

import pytest

from tests.bench import loadtest


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
