"""What a command runs with: who calls (:class:`Caller`), what counts its quotas and its
cost (:class:`Gate`), the game store and the service's settings (:class:`Context`); and
what it returns (:class:`Outcome`, then :class:`Reply`). The HTTP layer makes a caller
and a gate from a request (service/api/commands.py); the background workers run with
theirs (service/play/background.py). Nothing here knows HTTP.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import rq

from ..game import Game
from ..relay import NO_RELAY, Relay
from ..steps import BotSettings, Step
from ..store import GameStore


class Caller(Protocol):
    """Who runs a command, as its transport says."""

    @property
    def key(self) -> str | None:
        """The service key's name, or None."""

    @property
    def identity(self) -> str:
        """Whom its quotas and costs count against: ``key:<name>`` or ``a:<network>``."""

    def require_key(self) -> str:
        """The service key's name; raises (a 401) without one."""

    def require_worker(self) -> None:
        """Raise unless it is a background worker (a computer player or the clock)."""

    def seat(self, game: Game, *, required: bool) -> int | None:
        """The seat it is (its token's, or the one its key names); None for a spectator
        where one is allowed; raises where it may not see the game or act for a seat."""

    def idempotency_key(self, shortest: int) -> str | None:
        """The Idempotency-Key it sent (``shortest`` characters at least), or None."""

    @property
    def operation(self) -> str:
        """What, besides its input, makes two requests the same (``POST /v1/games``)."""

    def refuse_key_fields(self, fields: Sequence[str]) -> None:
        """Raise: ``fields`` of its input are for service keys, and it has none."""

    def if_match(self) -> Collection[int] | None:
        """The game versions its change is conditional on (None: any)."""


class Gate(Protocol):
    """The quotas and the cost budget a caller's requests count against."""

    def charge(self, *quotas: str) -> None:
        """Count one against each of ``quotas``; raise (a 429) over any of them."""

    def afford(self, seconds: float) -> None:
        """Hold ``seconds`` of the cost budget; raise (a 429) while it is spent."""

    def allows(self, quota: str, units: int) -> bool:
        """Count ``units`` against ``quota``; False, raising nothing, once over it."""

    def affordable(self) -> bool:
        """Whether the cost budget is not spent."""


@dataclass(frozen=True)
class WebhookRules:
    """What a key's webhook endpoints may be."""

    #: ``WEBHOOK_ALLOW_HOSTS``: hosts that may be http:// and any address.
    allow_hosts: str = ""
    #: ``WEBHOOK_MAX_ENDPOINTS``: the most endpoints a key may have.
    max_endpoints: int = 10
    #: ``WEBHOOK_MAX_PENDING``: the most deliveries one endpoint may have waiting.
    max_pending: int = 10000


@dataclass(frozen=True)
class Context:
    """A command's world: its caller and gate, the store, and the settings it plays by."""

    store: GameStore
    caller: Caller
    gate: Gate
    #: The server's secret (join codes, rematch tokens, kept answers' names).
    secret: bytes
    bots: BotSettings
    #: The most points a match of computer players only may be played to (0: its
    #: variant's default target).
    bot_only_max_target: int
    #: What follows every commit (service/play/queues.py's ``after_commit``, with the
    #: transport's queue; a worker's, once after its slice of moves).
    after_commit: Callable[[Step], None]
    #: How long a game is kept after its last change.
    ttl_seconds: int
    #: The background jobs' queue (computer players, clocks).
    queue: rq.Queue
    #: How the transport shows a game's join code (its code, where to send it, a link).
    join_answer: Callable[[str, str], dict[str, Any]]
    webhooks: WebhookRules = field(default_factory=WebhookRules)
    #: What tells streams held by a GRIP proxy of each commit and reaction, at once
    #: (service/play/relay.py); none without one.
    relay: Relay = NO_RELAY


@dataclass
class Outcome:
    """What a command did, before it is committed: its steps, in order, and what its
    answer is made of."""

    steps: list[Step] = field(default_factory=list)
    status: int = 200
    #: The seat it acted for (a join: the seat it took).
    seat: int | None = None
    #: Anything else its answer shows (a new join code, a rematch's game).
    value: Any = None
    #: The version its answer is of, when it commits nothing (a rematch made before).
    at: int | None = None

    @property
    def version(self) -> int:
        if self.at is not None:
            return self.at
        return self.steps[-1].version if self.steps else 0


@dataclass(frozen=True)
class Reply:
    """A command's answer: its status and body, the version of the game it answers for,
    and whether it is the kept answer to an earlier request with the same key."""

    status: int
    body: dict[str, Any]
    version: int
    game_id: str | None = None
    replayed: bool = False
