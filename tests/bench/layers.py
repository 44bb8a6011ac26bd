"""A request's CPU by layer, timed at the layers' own boundaries: the second breakdown of
``make loadtest`` (tests/bench/breakdown.py is the first).

cProfile, which the first breakdown reads, adds a cost to every function call; taken off
on average, it still leaves the layers that make many small calls (redis-py's, the
engine's dataclasses) looking dearer than they are, and a compiled module's work lands on
whichever Python function called it. Here each layer is one or a few functions, wrapped
so that a call reads the thread's CPU clock as it starts and as it ends (two reads, about
a microsecond): a layer's time is its calls' time less the time of the layers called
within them, so the layers add up to the request. The requests are served in-process,
through Flask's test client (no gunicorn, no socket, no access log: the load test's first
breakdown has those), on a private Redis, the kinds taking turns so that each sees the
machine as it is; the median of the turns is printed.

    python -m tests.bench.layers [--requests N] [--turns T]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

# PYTHONPATH before the current directory, which ``python -m`` puts first: the load test
# runs this with the compiled engine's build there (as deploy/gunicorn.conf.py does).
for _path in reversed([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]):
    _path = os.path.abspath(_path)
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

from service.engine import hand  # noqa: E402

KINDS = ("floor", "moves", "create")
#: The layers, each (its name, the functions whose time is its own: module, owner class
#: or None, attribute). Wrapped in this order; a function wrapped twice is not.
LAYERS: tuple[tuple[str, tuple[tuple[str, str | None, str], ...]], ...] = (
    ("Flask, Werkzeug (the rest of a request)", (("flask.app", "Flask", "wsgi_app"),)),
    (
        "Redis client (redis-py, hiredis, breaker)",
        (
            ("redis.client", "Redis", "execute_command"),
            ("redis.client", "Pipeline", "execute"),
            ("redis.commands.core", "Script", "__call__"),
        ),
    ),
    ("arguments (webargs, marshmallow)", (("webargs.core", "Parser", "parse"),)),
    ("the view and flask-smorest's wrappers", (("flask.app", "Flask", "dispatch_request"),)),
    (
        "the game store (keys, scripts, state JSON)",
        (
            ("service.play.store", "GameStore", "load"),
            ("service.play.store", "GameStore", "commit"),
        ),
    ),
    (
        "the game (engine, steps)",
        (
            ("service.play.steps", None, "move"),
            ("service.play.steps", None, "create"),
        ),
    ),
    (
        "seats (the token)",
        (
            ("service.api.seats", None, "seat_of"),
            ("service.api.resources.games.routes", None, "seat_of"),
        ),
    ),
    (
        "the answer (built, dumped, JSON)",
        (
            ("service.api.resources.play.answers", None, "moved"),
            ("service.api.resources.games.answers", None, "created"),
            ("service.api.responses", "ResponseSchema", "dump"),
            ("flask_smorest.response", None, "jsonify"),
            ("flask.json", None, "jsonify"),
            ("tests.bench.floor", None, "jsonify"),
        ),
    ),
    (
        "after the commit (metrics, queues)",
        (("service.play.queues", None, "after_commit"),),
    ),
)
#: The app's hooks (Flask's ``before_request_funcs`` and the like, by function name),
#: each a layer of its own: rate limits, request ids and metrics, bodies, CORS...
HOOK_LAYERS = {
    "_limit": "rate limits (before)",
    "_charge_cost": "rate limits (after: the cost budget)",
}
HOOKS = "other hooks (request ids, metrics, CORS, bodies...)"  # (and compression)


class Timers:
    """Each layer's own CPU time: a stack of the calls under way, each call's time less
    its callees'."""

    def __init__(self) -> None:
        self.own: dict[str, float] = defaultdict(float)
        self._stack: list[list[Any]] = []  # [layer, started, callees' time]

    def wrap(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        stack, own, clock = self._stack, self.own, time.thread_time

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame: list[Any] = [name, clock(), 0.0]
            stack.append(frame)
            try:
                return func(*args, **kwargs)
            finally:
                spent = clock() - frame[1]
                stack.pop()
                own[name] += spent - frame[2]
                if stack:
                    stack[-1][2] += spent

        timed.__name__ = getattr(func, "__name__", "timed")
        timed.__wrapped__ = func  # type: ignore[attr-defined]
        return timed


def instrument(timers: Timers, app: Any) -> None:
    """Wrap each layer's functions, and the app's hooks."""
    wrappers: set[int] = set()
    for name, functions in LAYERS:
        for module, owner, attribute in functions:
            target: Any = importlib.import_module(module)
            if owner is not None:
                target = getattr(target, owner)
            func = getattr(target, attribute, None)
            if func is None or id(func) in wrappers:
                continue
            wrapper = timers.wrap(name, func)
            wrappers.add(id(wrapper))
            setattr(target, attribute, wrapper)
    for hooks in (app.before_request_funcs, app.after_request_funcs, app.teardown_request_funcs):
        for funcs in hooks.values():
            funcs[:] = [timers.wrap(HOOK_LAYERS.get(f.__name__, HOOKS), f) for f in funcs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400, help="of each kind a turn")
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--redis-url", help="a Redis to use (else a private one is started)")
    args = parser.parse_args(argv)
    if args.redis_url:
        print(table(args.redis_url, args.requests, args.turns))
        return 0
    from tests.devredis import RedisServer

    with RedisServer() as server:
        print(table(server.url, args.requests, args.turns))
    return 0


def table(redis_url: str, requests: int, turns: int) -> str:
    """The breakdown's lines, measured on an app of its own on ``redis_url``."""
    from tests.bench.floor import in_process

    warm = 40
    app, one = in_process(redis_url, requests * turns + warm)
    for kind in KINDS:
        for _ in range(warm // len(KINDS)):
            one(kind)
    timers = Timers()
    instrument(timers, app)
    measured: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
    for _ in range(turns):
        for kind in KINDS:
            timers.own.clear()
            started = time.thread_time()
            for _ in range(requests):
                one(kind)
            total = time.thread_time() - started
            turn = {name: 1000 * spent / requests for name, spent in timers.own.items()}
            turn["(outside the app: Flask's test client)"] = 1000 * total / requests - sum(
                turn.values()
            )
            turn["total"] = 1000 * total / requests
            measured[kind].append(turn)
    names = [name for name, _ in LAYERS] + list(dict.fromkeys([*HOOK_LAYERS.values(), HOOKS]))
    names += ["(outside the app: Flask's test client)", "total"]
    lines = [
        f"CPU of a request by layer, timed at the layers' boundaries (in-process, median of "
        f"{turns} turns of {requests} requests of each kind; engine "
        f"{'compiled' if not hand.__file__.endswith('.py') else 'python'}), ms:",
        f"{'layer':52}" + "".join(f"{kind:>10}" for kind in KINDS) + f"{'move - floor':>14}",
    ]
    for name in names:
        values = [statistics.median(t.get(name, 0.0) for t in measured[kind]) for kind in KINDS]
        lines.append(
            f"{name:52}" + "".join(f"{v:10.3f}" for v in values) + f"{values[1] - values[0]:+14.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
