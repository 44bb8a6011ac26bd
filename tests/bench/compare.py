"""make compare: two versions of the code side by side, in one run, by the figures that
say whether a request got slower: the load test's ratios and service CPU a request
(tests.bench.loadtest: what throughput shows, on a machine that drifts); the CPU a
request costs served in-process (the process's CPU time over rounds of 600 requests);
and the machine instructions of a request (tests.bench.instructions, under valgrind).
Each has its spread from one run to the next, on a shared machine: several percent for
the load test and the CPU in-process (more from one process to another than between
rounds within one), 1-2% for the instructions (what depends on time, a rate limit's
window or an idle connection's health check, runs more often in a process that valgrind
makes 50 times slower). Compare medians of alternating runs, and distrust a difference
smaller than the spread.

    python -m tests.bench.compare [--before REV] [--after REV] [--requests N] [--seconds S]

``--before`` is a git revision (default ``HEAD``: the last commit); ``--after`` another,
or the working tree as it is (the default), uncommitted changes included. Each revision
is checked out with ``git archive`` into a temporary folder and run there on this
checkout's virtualenv (so both sides use the same libraries); the working tree runs in
place. Both sides serve the ``.py`` engine. The load test runs alternate (before, after,
before, after...), so that a drift of the machine falls on both sides alike; each ratio
is the median of the side's runs. The in-process CPU runs both sides at the same time,
each on a core of its own, the cores swapped from one run to the next (an even number of
runs gives each side each core equally often): measured one after the other, a creation
differed by 8-11% between two versions of the same instruction count; side by side, by
less than its spread. The instructions need valgrind: without it, only the
load test is compared.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The load test's lines compared, each a label and the pattern of its figure.
RATIOS = {
    "moves / floor throughput": r"moves / floor throughput: ([\d.]+)",
    "moves / floor, by service CPU": (
        r"moves / floor throughput: .*by service CPU a request ([\d.]+)"
    ),
    "creations / floor throughput": r"creations / floor throughput: ([\d.]+)",
    "creations / floor, by service CPU": (
        r"creations / floor throughput: .*by service CPU a request ([\d.]+)"
    ),
}
#: The kinds whose service CPU a request (ms) is compared.
CPU_KINDS = ("floor", "moves", "create")


@contextmanager
def checkout(revision: str | None) -> Iterator[Path]:
    """The code of ``revision`` in a temporary folder (None: this working tree)."""
    if revision is None:
        yield ROOT
        return
    with tempfile.TemporaryDirectory(prefix="scopa-compare-") as folder:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", revision],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        yield Path(folder)


def env(tree: Path) -> dict[str, str]:
    """The environment that runs ``tree``'s code (first on the path) on the .py engine."""
    return {**os.environ, "PYTHONPATH": str(tree), "SCOPA_ENGINE": "python"}


def run(tree: Path, module: str, *args: str, timeout: float) -> str:
    """``python -m module args`` in ``tree`` (its code first on the path): its output."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=tree,
        env=env(tree),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode:
        raise RuntimeError(
            f"{module} in {tree} failed:\n{done.stdout[-1500:]}{done.stderr[-1500:]}"
        )
    return done.stdout


#: (Run in a tree's own code.) CPU microseconds a request of a kind, served in-process
#: as tests.bench.instructions serves them: the least of ROUNDS rounds of N requests.
_CPU = """
import sys, time
from tests.bench.floor import in_process
from tests.devredis import RedisServer
kind, count, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with RedisServer() as server:
    _, one = in_process(server.url, count * rounds + 200)
    for _ in range(100):
        one(kind)
    took = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(count):
            one(kind)
        took.append((time.process_time() - started) / count * 1e6)
print(min(took))
"""


def _serve_cpu(tree: Path, kind: str, requests: int, core: int | None) -> subprocess.Popen[str]:
    """Start serving ``kind`` in-process in ``tree``, on ``core`` alone when given (the
    Redis server it starts inherits the core)."""
    pin = None if core is None else (lambda: os.sched_setaffinity(0, {core}))
    return subprocess.Popen(
        [sys.executable, "-c", _CPU, kind, str(requests), "5"],
        cwd=tree,
        env=env(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=pin,
    )


def _figure(serving: subprocess.Popen[str]) -> float:
    out, _ = serving.communicate(timeout=600)
    if serving.returncode:
        raise RuntimeError(f"serving in-process failed: {out[-1500:]}")
    return float(out.split()[-1])


def process_cpu(trees: dict[str, Path], kind: str, requests: int, run: int) -> dict[str, float]:
    """CPU microseconds a request of ``kind`` costs the process serving it in-process
    (the app, Flask's test client, the Redis client), by side: the least of 5 rounds.

    With two cores or more, both sides run at once, each pinned to a core of its own, and
    the cores swap from one run to the next: a drift of the machine then falls on both
    sides in the same seconds, and a core slower than the other on both sides in turn.
    With one core, the sides run one after the other."""
    sides = list(trees)
    if len(os.sched_getaffinity(0)) < 2:
        return {side: _figure(_serve_cpu(trees[side], kind, requests, None)) for side in sides}
    cores = sorted(os.sched_getaffinity(0))[:2]
    if run % 2:
        cores.reverse()
    serving = {
        side: _serve_cpu(trees[side], kind, requests, core)
        for side, core in zip(sides, cores, strict=True)
    }
    return {side: _figure(each) for side, each in serving.items()}


def instructions(tree: Path, requests: int) -> dict[str, float]:
    """Million instructions a request, by kind (floor, moves, create)."""
    out = run(tree, "tests.bench.instructions", "--requests", str(requests), timeout=3600)
    return {
        kind: float(figure)
        for kind, figure in re.findall(r"^(\w+)\s+([\d.]+) million instructions", out, re.M)
    }


def loadtest(tree: Path, players: int, seconds: float) -> dict[str, float]:
    """One load test's ratios and service CPU a request (ms), by label."""
    out = run(
        tree,
        "tests.bench.loadtest",
        "--players",
        str(players),
        "--seconds",
        str(seconds),
        "--engine",
        "python",
        "--no-streams",
        "--no-breakdown",
        timeout=seconds * 10 + 300,
    )
    found: dict[str, float] = {}
    for label, pattern in RATIOS.items():
        match = re.search(pattern, out)
        if match:
            found[label] = float(match.group(1))
    for kind in CPU_KINDS:
        # "<kind> req/s p50 p95 p99 errors requests   service Redis clients"
        match = re.search(rf"^{kind}\s+(?:[\d.]+\s+){{6}}([\d.]+)\s", out, re.M)
        if match:
            found[f"{kind}: service CPU ms a request"] = float(match.group(1))
    return found


def table(title: str, before: dict[str, float], after: dict[str, float], digits: int) -> list[str]:
    lines = [f"\n{title}", f"{'':38} {'before':>9} {'after':>9} {'change':>8}"]
    for label, was in before.items():
        now = after.get(label)
        if now is None:
            continue
        change = f"{now / was - 1:+.1%}" if was else ""
        lines.append(f"{label:38} {was:9.{digits}f} {now:9.{digits}f} {change:>8}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="HEAD", help="a git revision (default HEAD)")
    parser.add_argument("--after", default=None, help="a git revision (default: the working tree)")
    parser.add_argument(
        "--requests", type=int, default=100, help="instructions: N requests counted"
    )
    parser.add_argument("--players", type=int, default=32)
    parser.add_argument(
        "--seconds", type=float, default=20.0, help="load test: seconds of each kind"
    )
    parser.add_argument(
        "--runs", type=int, default=2, help="load test runs a side, alternating (0: none)"
    )
    parser.add_argument(
        "--cpu-runs", type=int, default=4, help="in-process CPU runs a side (0: none)"
    )
    parser.add_argument("--no-instructions", dest="count", action="store_false")
    args = parser.parse_args(argv)
    after_name = args.after or "the working tree"
    with checkout(args.before) as before, checkout(args.after) as after:
        print(f"before: {args.before}; after: {after_name}; the .py engine on both", flush=True)
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for side, tree in (("before", before), ("after", after)):
                runs[side].append(loadtest(tree, args.players, args.seconds))
                print(f"  load test, {side}: {runs[side][-1]}", flush=True)
        lines: list[str] = []
        if args.runs:
            medians = {
                side: {
                    label: statistics.median(r[label] for r in found if label in r)
                    for label in found[0]
                }
                for side, found in runs.items()
            }
            lines += table(
                f"load test ({args.players} players, {args.seconds:g} s a kind; the median "
                f"of {args.runs} runs a side)",
                medians["before"],
                medians["after"],
                3,
            )
        cpu: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
        for run in range(args.cpu_runs):
            for kind in ("floor", "moves", "create"):
                found = process_cpu({"before": before, "after": after}, kind, 600, run)
                for side, figure in found.items():
                    cpu[side].setdefault(kind, []).append(figure)
                print(f"  CPU in-process, {kind}: {found}", flush=True)
        if args.cpu_runs:
            lines += table(
                f"CPU µs a request in-process (the least of 5 rounds of 600; the median of "
                f"{args.cpu_runs} runs a side, both sides at once on cores of their own, "
                "swapped each run)",
                {k: statistics.median(v) for k, v in cpu["before"].items()},
                {k: statistics.median(v) for k, v in cpu["after"].items()},
                1,
            )
        if args.count and shutil.which("valgrind"):
            counted = {
                side: instructions(tree, args.requests)
                for side, tree in (("before", before), ("after", after))
            }
            lines += table(
                f"million instructions a request ({args.requests} requests, callgrind)",
                counted["before"],
                counted["after"],
                3,
            )
        elif args.count:
            lines.append("\n(valgrind is not installed: no instruction counts)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
