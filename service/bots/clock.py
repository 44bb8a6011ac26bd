"""A deadline the searches read inside their loops (the expert's, the analysis's)."""

from __future__ import annotations

import time


class Clock:
    """A deadline on :func:`time.perf_counter`, for a search's inner loop to ask about
    as often as it likes: the clock is read once in ``every`` units of work."""

    __slots__ = ("deadline", "every", "countdown", "expired")

    def __init__(self, deadline: float, every: int = 1) -> None:
        self.deadline = deadline
        self.every = every
        self.countdown = every
        #: The deadline has passed (as of the last reading).
        self.expired = False

    def tick(self, work: int = 1) -> bool:
        """Count ``work`` done; whether the deadline has passed."""
        self.countdown -= work
        if self.countdown <= 0:
            self.countdown = self.every
            self.expired = time.perf_counter() > self.deadline
        return self.expired
