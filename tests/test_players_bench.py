"""`make players` (tests/bench/players.py) at a tiny size, so that it keeps working: a
few matches of two and four seats, each seat on its own event stream (ended by the
service every second, so that each is opened again with Last-Event-ID), played as fast
as they answer, to one point so that some end and are replaced. Its players meet no
error, every move's event reaches every other seat's stream, and it prints every figure.
(Its figures are the docs' business: nothing here checks a speed.)"""

from __future__ import annotations

import re

import pytest

from tests.bench import players


def test_a_few_players_play_clean_and_every_move_reaches_the_other_seats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--games", "3", "--seats", "2,4", "--think", "0", "--seconds", "3"]
    argv += ["--stream-max-seconds", "1", "--target", "1"]
    # The .py engine: a test does not build the mypyc one (`make players` does).
    assert players.main([*argv, "--engine", "python"]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    lines = {line.split(":", 1)[0]: line for line in out.splitlines() if ":" in line}
    served = re.search(r"; (\d+) answered of (\d+) tried", lines["moves served"])
    assert served and int(served.group(1)) > 0, out
    assert re.search(r"move latency: p50 \d+\.\d ms, p99 \d+\.\d ms", out), out
    delivered = re.search(r"(\d+) delivered \(.*\), (\d+) missing", out)
    assert delivered and int(delivered.group(1)) > 0 and delivered.group(2) == "0", out
    assert lines["errors"] == "errors: none", out
    opened = re.search(r"(\d+) streams opened, (\d+) streams reopened", out)
    assert opened and int(opened.group(1)) >= 8 and int(opened.group(2)) > 0, out
    assert "memory (RSS), instance 1: workers" in out, out
    assert re.search(r"CPU over the clock .*service [\d.]+ s = \d+% of the machine", out), out
    assert "event loop lag" in out, out
