"""A request's CPU by layer, from the profiles of tests/bench/profiled.py.

Each function's own time (cProfile's ``tottime``) goes to the layer its file belongs to
(:data:`LAYERS`); a built-in function's (a C method: ``orjson.dumps``, a socket's
``sendall``, a lock's ``acquire``...) goes to the layers of the functions that called it,
in proportion to the time each call took. The times are CPU times (the profiles' clock is
each thread's CPU clock); the profiler's own cost, measured by each worker, is taken off
each call. The shares are of the profiled CPU, and the milliseconds are those shares of
the CPU a request took unprofiled (the load test's figure), when it is given.
"""

from __future__ import annotations

import pstats
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Func = tuple[str, int, str]

#: (layer, what a path or a ``path:function`` holds), the first that matches a function's
#: file wins; a function of the standard library or a built-in is counted in the layers of
#: its callers (:func:`owners`), and any other function that matches none is "other".
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("gunicorn (HTTP, worker)", ("/gunicorn/", "service/serving.py")),
    ("access log", ("service/api/observability.py:access",)),
    ("request ids, metrics", ("service/api/observability.py", "/prometheus_client/")),
    (
        "rate limits",
        ("service/api/ratelimit.py", "service/api/addresses.py", "service/play/budget.py"),
    ),
    ("breaker", ("service/api/breaker.py",)),
    ("redis-py (+ hiredis)", ("/redis/", "/hiredis/")),
    (
        "game store (keys, scripts)",
        (
            "service/play/store.py",
            "service/play/idempotency.py",
            "service/play/live.py",
            "service/play/connections.py",
            "service/play/keys.py",
        ),
    ),
    ("the game (engine, steps, state JSON)", ("service/engine/", "service/bots/", "service/play/")),
    ("answer dump + JSON", ("service/api/responses.py", "service/api/json_provider.py")),
    ("flask-smorest, webargs, marshmallow", ("/flask_smorest/", "/webargs/", "/marshmallow/")),
    ("the API's code (routes, seats, headers)", ("service/api/", "tests/bench/floor.py")),
    ("Flask, Werkzeug", ("/flask/", "/werkzeug/", "/blinker/", "/itsdangerous/")),
)
OTHER = "other"
_PROJECT = str(Path(__file__).resolve().parents[2]).replace("\\", "/") + "/"


def layer_of(func: Func) -> str | None:
    """The layer of a function; None for a built-in or the standard library's (counted
    where they are called from)."""
    filename, _, name = func
    where = filename.replace("\\", "/")
    for layer, marks in LAYERS:
        for mark in marks:
            path, _, function = mark.partition(":")
            if path in where and (not function or function == name):
                return layer
    if filename == "~" or ("site-packages/" not in where and not where.startswith(_PROJECT)):
        return None
    return OTHER


@dataclass
class Breakdown:
    requests: int
    calls: int  # Python and built-in function calls
    seconds: dict[str, float] = field(default_factory=dict)  # layer -> profiled seconds

    @property
    def cpu(self) -> float:
        return sum(self.seconds.values())


def owners(
    raw: dict[Func, Any], func: Func, seen: frozenset[Func] = frozenset()
) -> dict[str, float]:
    """The layers ``func``'s time is counted in, as fractions: its own, or (a built-in, the
    standard library's) those of its callers, in proportion to the time of their calls."""
    layer = layer_of(func)
    if layer is not None:
        return {layer: 1.0}
    callers = {c: v for c, v in raw[func][4].items() if c not in seen and c in raw}
    total = sum(v[2] + v[3] for v in callers.values())
    if not callers:
        return {OTHER: 1.0}
    shares: dict[str, float] = defaultdict(float)
    for caller, (_, _, tt, ct) in callers.items():
        weight = (tt + ct) / total if total else 1 / len(callers)
        for name, part in owners(raw, caller, seen | {func}).items():
            shares[name] += weight * part
    return shares


def breakdown(paths: Iterable[Path], overhead: float = 0.0) -> Breakdown | None:
    """The breakdown of the profiles at ``paths`` (of one kind of request), less
    ``overhead`` CPU seconds a call."""
    files = [str(p) for p in paths]
    if not files:
        return None
    stats = pstats.Stats(files[0])
    for more in files[1:]:
        stats.add(more)
    raw = stats.stats  # type: ignore[attr-defined]  # pstats' documented dict
    requests = sum(
        v[1]
        for (fn, _, name), v in raw.items()
        if fn.endswith("/flask/app.py") and name == "wsgi_app"
    )
    seconds: dict[str, float] = defaultdict(float)
    calls = 0
    memo: dict[Func, dict[str, float]] = {}
    for func, (_, nc, tt, _ct, _callers) in raw.items():
        calls += nc
        if func not in memo:
            memo[func] = owners(raw, func)
        own = max(0.0, tt - nc * overhead)
        for layer, part in memo[func].items():
            seconds[layer] += own * part
    return Breakdown(max(1, requests), calls, dict(seconds))


def overhead_of(directory: Path) -> float:
    """The profiler's cost a call, as the workers measured it (the least of theirs)."""
    found = [float(p.read_text()) for p in directory.glob("overhead-*.txt")]
    return min(found, default=0.0)


def report(kinds: dict[str, Breakdown], measured_ms: dict[str, float]) -> list[str]:
    """Lines of a table: each layer's share of the profiled CPU of a request, and that
    share of the unprofiled CPU a request took (``measured_ms``, by kind), for each kind."""
    names = list(kinds)
    layers = [layer for layer, _ in LAYERS] + [OTHER]
    lines = [
        "CPU of a request by layer (cProfile in the workers; share of the CPU, and that share "
        "of the service CPU ms a request took unprofiled):",
        f"{'layer':42}" + "".join(f" {name:>17}" for name in names),
    ]
    for layer in layers:
        cells = []
        for name in names:
            b = kinds[name]
            share = b.seconds.get(layer, 0.0) / b.cpu if b.cpu else 0.0
            ms = share * measured_ms.get(name, float("nan"))
            cells.append(f" {share:6.1%} {ms:6.3f} ms")
        if any(kinds[n].seconds.get(layer) for n in names):
            lines.append(f"{layer:42}" + "".join(cells))
    lines.append(
        f"{'total (service CPU ms, unprofiled)':42}"
        + "".join(f" {'':6} {measured_ms.get(n, float('nan')):6.3f} ms" for n in names)
    )
    lines.append(
        f"{'profiled CPU ms (profiler cost taken off)':42}"
        + "".join(f" {'':6} {1000 * kinds[n].cpu / kinds[n].requests:6.3f} ms" for n in names)
    )
    lines.append(
        f"{'function calls a request':42}"
        + "".join(f" {kinds[n].calls / kinds[n].requests:17.0f}" for n in names)
    )
    lines.append(f"{'requests profiled':42}" + "".join(f" {kinds[n].requests:17d}" for n in names))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the breakdown of the profiles in a directory (``<kind>-*.prof``)."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("directory", type=Path)
    args = parser.parse_args(argv)
    kinds = {}
    cost = overhead_of(args.directory)
    found_kinds = {p.name.split("-")[0] for p in args.directory.glob("*.prof")}
    order = ["floor", "moves", "create"]
    for kind in sorted(found_kinds, key=lambda k: (order.index(k) if k in order else 9, k)):
        found = breakdown(sorted(args.directory.glob(f"{kind}-*.prof")), cost)
        if found is not None:
            kinds[kind] = found
    print("\n".join(report(kinds, {})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
