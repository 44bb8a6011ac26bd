"""How webhooks reach the background workers: after every commit to a game that a
service key with endpoints owns, the game is marked unread and the key's run woken
(:func:`.recording.announce`); the run, jobs on the webhooks' queue (:data:`QUEUE_NAME`,
:mod:`.schedule`), turns what the game's log gained into deliveries and makes them,
never inside a request. Only webhook workers take this queue.

:class:`HookSettings` are the workers' webhook settings (``WEBHOOK_*``, service/config.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import redis
import rq

QUEUE_NAME = "scopa-webhooks"
#: The retries' delays, in seconds after the failed attempt before: 5 s, 5 min, 30 min,
#: 2 h, 5 h, 10 h, 10 h (Standard Webhooks' and Svix's schedule): 8 attempts in all,
#: the last 27 h 35 min after the first.
DEFAULT_RETRY_SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)
#: The most retries a schedule may have, and the longest delay (a day).
MAX_RETRIES = 20
MAX_DELAY_SECONDS = 86400


@dataclass(frozen=True)
class HookSettings:
    #: Seconds before each retry of a failed delivery; past the last, the endpoint is
    #: disabled.
    schedule: tuple[int, ...] = DEFAULT_RETRY_SCHEDULE
    #: Hosts (``host`` or ``host:port``) that may be http:// and any address.
    allow: frozenset[str] = field(default_factory=frozenset)
    #: The most deliveries one endpoint may have waiting.
    max_pending: int = 10000


def retry_schedule(value: str) -> tuple[int, ...]:
    """``WEBHOOK_RETRY_SCHEDULE``: comma-separated whole seconds, each from 1 to a day, at
    most :data:`MAX_RETRIES` of them (empty: the default); ValueError if not."""
    if not value.strip():
        return DEFAULT_RETRY_SCHEDULE
    try:
        delays = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise ValueError("it takes comma-separated whole seconds, such as 5,300,1800") from None
    if not 1 <= len(delays) <= MAX_RETRIES or not all(1 <= d <= MAX_DELAY_SECONDS for d in delays):
        raise ValueError(
            f"it takes 1 to {MAX_RETRIES} delays, each from 1 to {MAX_DELAY_SECONDS} seconds"
        )
    return delays


def queue_for(connection: redis.Redis) -> rq.Queue:
    """The webhooks' queue on the job queue's ``connection``."""
    return rq.Queue(QUEUE_NAME, connection=connection)


def span(delays: Sequence[int]) -> str:
    """A schedule's whole length in words ("27 h 35 min 5 s")."""
    total = sum(delays)
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [
        f"{hours} h" if hours else "",
        f"{minutes} min" if minutes else "",
        f"{seconds} s" if seconds or not total else "",
    ]
    return " ".join(p for p in parts if p)
