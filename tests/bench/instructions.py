"""The machine instructions a request costs the service's own process, counted by
valgrind's callgrind: a count that stays the same whatever else the machine runs, where
throughput and CPU time swing with it. For comparing two versions of the code on a
shared machine (docs/performance.md).

    python -m tests.bench.instructions [--requests N] [--kinds floor moves create]

For each kind (the load test's floor, a move, a match creation) it runs a process that
serves requests through the app in-process (Flask's test client, the load test's app:
rate limits on and high, metrics off the file system) on a private Redis: once with a
warm-up of W requests, once with W + N; the difference over N is a request's
instructions (the app, Flask's test client, the Redis client; not Redis, not the
kernel). Each process first creates the matches both runs need, so that the two differ
by the N requests alone. Needs valgrind, and time: each process runs some 50 times
slower under it (a few minutes a run on 2 cores).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

WARM_UP = 40
KINDS = ("floor", "moves", "create")


def serve(kind: str, count: int, total: int) -> None:
    """(In the measured process.) ``count`` requests of ``kind``, the matches of
    ``total`` moves created first."""
    from tests.bench.floor import in_process
    from tests.devredis import RedisServer

    with RedisServer() as server:
        _, one = in_process(server.url, total)
        for _ in range(count):
            one(kind)


def instructions(kind: str, count: int, total: int) -> int:
    """The instructions callgrind counted in a process serving ``count`` of ``kind``."""
    run = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-m",
            "tests.bench.instructions",
            "--serve",
            kind,
            str(count),
            str(total),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise RuntimeError(run.stderr[-2000:])
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="N: the requests counted")
    parser.add_argument(
        "--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="the kinds counted"
    )
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        kind, count, total = args.serve
        serve(kind, int(count), int(total))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured")
        return 1
    total = WARM_UP + args.requests
    for kind in args.kinds:
        base = instructions(kind, WARM_UP, total)
        more = instructions(kind, total, total)
        print(f"{kind:8} {(more - base) / args.requests / 1e6:8.3f} million instructions a request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
