"""The service's gunicorn worker with cProfile on the threads that serve requests, for the
load test's breakdown of a request's CPU by layer (tests/bench/breakdown.py).

``GUNICORN_CMD_ARGS="--worker-class tests.bench.profiled.ProfiledWorker"`` serves with it
(never the service itself: it is no part of the deployed code). While the file named by
``SCOPA_PROFILE_FLAG`` exists, each request a thread handles is profiled into that
thread's profile for the kind of load the file names (its text: ``moves``, ``floor``,
...); when the worker stops, every profile is written to ``SCOPA_PROFILE_DIR`` as
``<kind>-<pid>-<n>.prof``. Everything gunicorn does for a request in its thread (reading
and parsing it, the app, writing the answer, the access log line) is in the profile; the
worker's main loop (accepting, polling keep-alive connections) is not.

The profiles count each thread's CPU time (``time.thread_time``), not the wall clock: a
thread waiting for Redis, for the client or for the GIL costs nothing, and a socket's
``sendall`` costs what the kernel spent sending. Reading that clock costs about as much as
a small function call, which the profile adds to every call: the worker measures that
cost (:func:`overhead`) into ``overhead-<pid>.txt``, and the breakdown takes it off.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import threading
import time
from pathlib import Path
from typing import Any

from service.serving import ProblemThreadWorker


class ProfiledWorker(ProblemThreadWorker):
    def init_process(self) -> None:
        self._flag = os.environ.get("SCOPA_PROFILE_FLAG", "")
        self._profiles: dict[tuple[str, int], cProfile.Profile] = {}
        self._profiles_lock = threading.Lock()
        super().init_process()

    def _kind(self) -> str | None:
        try:
            return Path(self._flag).read_text().strip() or None
        except OSError:
            return None

    def handle(self, conn: Any) -> Any:
        kind = self._kind() if self._flag else None
        if kind is None:
            return super().handle(conn)
        key = (kind, threading.get_ident())
        with self._profiles_lock:
            profile = self._profiles.setdefault(key, cProfile.Profile(time.thread_time))
        profile.enable()
        try:
            return super().handle(conn)
        finally:
            profile.disable()

    def run(self) -> None:
        try:
            super().run()
        finally:
            out = Path(os.environ.get("SCOPA_PROFILE_DIR", "."))
            (out / f"overhead-{os.getpid()}.txt").write_text(repr(overhead()))
            with self._profiles_lock:
                for number, ((kind, _), profile) in enumerate(self._profiles.items()):
                    profile.dump_stats(str(out / f"{kind}-{os.getpid()}-{number}.prof"))


def overhead(calls: int = 200_000) -> float:
    """The CPU seconds profiling adds to one function call: a loop of ``calls`` calls of
    an empty function, profiled and not."""

    def nothing() -> None:
        pass

    def loop() -> None:
        for _ in range(calls):
            nothing()

    best = float("inf")
    for _ in range(3):
        started = time.thread_time()
        loop()
        plain = time.thread_time() - started
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        loop()
        profile.disable()
        profiled = sum(tt for _, _, tt, _, _ in pstats.Stats(profile).stats.values())  # type: ignore[attr-defined]
        best = min(best, max(0.0, profiled - plain) / calls)
    return best
