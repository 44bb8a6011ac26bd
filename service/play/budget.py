"""What each payer may cost in any minute: the seconds background workers spend on its
games (their computer players' moves, their clocks' timeouts), and the CPU seconds its
costly requests take in the API (searches, analyses, computer players replying within a
request: service/api/ratelimit.py charges those), counted together against one budget
(``COST_BUDGET_SECONDS_PER_ADDRESS``).

A game's payer (:attr:`Game.payer`) is whoever created it: its creator's address as the
rate limits key it, or, once service keys exist, the key. A job first asks
:meth:`Budget.wait`: while the payer has spent its budget, the job is put off (queued
again for later, :mod:`service.play.background`) instead of playing, so one payer's
matches cannot hold the workers that everybody's games share; then the job's time is
charged with :meth:`Budget.charge`.

The count is a sliding window, approximated from two fixed ones (the last minute's
seconds weighted by how much of it the sliding minute still covers): a Redis key per
payer and fixed window (:func:`.keys.budget`: both of a payer's keys in one Redis
Cluster slot), integer milliseconds, each kept two windows.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from . import keys

Client = redis.Redis | redis.RedisCluster


@dataclass(frozen=True)
class Budget:
    """Seconds of background work a payer may cost per ``window_seconds`` (0: no budget)."""

    seconds: float
    window_seconds: int = 60

    def _spent(self, client: Client, payer: str, now: float) -> tuple[float, float, float]:
        """Seconds ``payer`` has cost in this fixed window and the one before, and how far
        into this one ``now`` is (0 to 1)."""
        window = int(now // self.window_seconds)
        current, previous = client.mget([keys.budget(payer, w) for w in (window, window - 1)])
        into = now / self.window_seconds - window
        return int(current or 0) / 1000.0, int(previous or 0) / 1000.0, into

    def spent(self, client: Client, payer: str, now: float) -> float:
        """Seconds ``payer`` has cost in the sliding window that ends ``now``."""
        current, previous, into = self._spent(client, payer, now)
        return current + previous * (1.0 - into)

    def left(self, client: Client, payer: str | None, now: float) -> float:
        """Seconds ``payer`` may still cost in the sliding window that ends ``now``
        (infinite without a budget or a payer; 0 once spent)."""
        if not self.seconds or payer is None:
            return float("inf")
        return max(0.0, self.seconds - self.spent(client, payer, now))

    def wait(self, client: Client, payer: str | None, now: float) -> float:
        """0 if ``payer`` may have more background work now, else the seconds until it
        may (when enough of what it spent has slid out of the window; 1 at least)."""
        if not self.seconds or payer is None:
            return 0.0
        current, previous, into = self._spent(client, payer, now)
        if current + previous * (1.0 - into) < self.seconds:
            return 0.0
        window = now // self.window_seconds
        if current < self.seconds:  # the last window's share slides out within this one
            until = window + 1.0 - (self.seconds - current) / previous
        else:  # this window's share slides out within the next one
            until = window + 2.0 - self.seconds / current
        return max(1.0, until * self.window_seconds - now)

    def charge(self, client: Client, payer: str | None, seconds: float, now: float) -> None:
        """Count ``seconds`` of work against ``payer`` (negative: give back what was
        counted ahead of the work, beyond what it cost)."""
        if not self.seconds or payer is None or not seconds:
            return
        key = keys.budget(payer, int(now // self.window_seconds))
        milliseconds = round(seconds * 1000)
        with client.pipeline(transaction=False) as pipe:
            pipe.incrby(key, milliseconds or (1 if seconds > 0 else -1))
            pipe.expire(key, 2 * self.window_seconds)
            pipe.execute()
