"""What a background worker process (``python -m service.worker``) plays with: its
settings (:class:`WorkerSettings`, set once by :func:`configure`) and its own connection
to the games' store (:func:`game_store`). The jobs themselves are in
:mod:`service.play.background` (the computer players' and the clocks') and
service/play/webhooks/jobs.py (the webhooks')."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from . import connections
from .relay import NO_RELAY, Relay
from .steps import BotSettings
from .store import GameStore
from .webhooks import queueing as hook_queue


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process needs to play: where the games are, how long they live,
    how the computer players think, and how long one job plays before it yields."""

    redis_url: str
    ttl_seconds: int
    redis_timeout_seconds: float
    bots: BotSettings
    slice_seconds: float = 5.0
    min_replicas: int = 0
    replica_timeout_seconds: float = 0.25
    #: Seconds of background work a payer may cost a minute (0: no budget).
    budget_seconds: float = 0.0
    #: The server's secret (SERVER_SECRET): a tournament's next round's games get their
    #: seats' tokens from it (service/play/steps.py ``tournament_token``).
    secret: bytes = b""
    #: How webhooks are delivered (service/play/webhooks/).
    webhooks: hook_queue.HookSettings = field(default_factory=hook_queue.HookSettings)
    #: What the jobs' commits are published to besides Redis (a GRIP proxy's streams).
    relay: Relay = NO_RELAY


_settings: WorkerSettings | None = None
_store: tuple[int, GameStore] | None = None


def configure(settings: WorkerSettings) -> None:
    """Set what the jobs work with, in the worker process (before it forks)."""
    global _settings, _store
    _settings, _store = settings, None


def worker_settings() -> WorkerSettings:
    """What :func:`configure` set; RuntimeError outside a worker."""
    if _settings is None:
        raise RuntimeError("background jobs run in a worker: python -m service.worker")
    return _settings


def game_store() -> GameStore:
    """This process's store: a work-horse forked from the worker makes its own
    connections, never the parent's."""
    global _store
    settings = worker_settings()
    if _store is None or _store[0] != os.getpid():
        client = connections.connect(
            settings.redis_url,
            socket_timeout=settings.redis_timeout_seconds,
            socket_connect_timeout=settings.redis_timeout_seconds,
        )
        store = GameStore(
            client,
            settings.ttl_seconds,
            replicas=settings.min_replicas,
            replica_timeout_seconds=settings.replica_timeout_seconds,
        )
        _store = (os.getpid(), store)
    return _store[1]
