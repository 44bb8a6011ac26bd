"""A game's events recorded as deliveries (:func:`record`: by the dispatch job after a
commit, and by :func:`.deletion.before_delete` before the game is deleted), and a key's
run woken to make them (:func:`wake`, :mod:`.schedule`). No Flask, no worker needed:
the API calls these too."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

import redis
import rq

from ...engine import EventKind
from ..connections import Client
from ..game import Game
from ..keys import webhook_endpoints, webhook_unread
from ..ratings import Ratings
from ..store import GameNotFoundError, GameStore
from ..tournaments.model import Tournament
from ..tournaments.store import TournamentNotFoundError, TournamentStore, is_tournament_id
from .events import messages_of
from .queueing import queue_for
from .schedule import Runs
from .store import Message, WebhookStore
from .tournament_events import messages_of as tournament_messages

#: The job of a key's run (service/play/webhooks/jobs.py), named: this module is below it.
RUN_JOB = "service.play.webhooks.jobs.run"
_OPTIONS: dict[str, Any] = {"result_ttl": 0, "failure_ttl": 24 * 3600, "retry": rq.Retry(max=5)}


def payer(owner: str) -> str:
    """Whom a key's deliveries are charged to: the key, as its requests are
    (service/api/ratelimit.py ``identity()``: ``key:<name>``)."""
    return f"key:{owner}"


#: How long a key's unread games wait for its run (a run lost for good lapses sooner: the
#: next commit starts another).
UNREAD_TTL_SECONDS = 24 * 3600


def announce(connection: redis.Redis, client: Client, game: Game) -> None:
    """After a commit of ``game``: if its owner has endpoints, mark the game unread and
    wake the owner's run (a job on the job queue's ``connection``, unless the run is on),
    which reads what the game's log gained into deliveries and makes them. A game
    relayed faster than the run reads is read once for many commits; no commit queues a
    job of its own."""
    if game.owner is not None:
        _unread(connection, client, game.owner, game.id)


def announce_tournament(connection: redis.Redis, client: Client, tournament: Tournament) -> None:
    """After a change to ``tournament`` that added to its log: as :func:`announce` for a
    game (its log read by the owner's run into deliveries)."""
    _unread(connection, client, tournament.owner, tournament.id)


def _unread(connection: redis.Redis, client: Client, owner: str, name: str) -> None:
    """If ``owner`` has endpoints: the game or tournament ``name`` marked unread, and the
    owner's run woken."""
    if not client.exists(webhook_endpoints(owner)):
        return
    with client.pipeline(transaction=False) as pipe:
        pipe.sadd(webhook_unread(owner), name)
        pipe.expire(webhook_unread(owner), UNREAD_TTL_SECONDS)
        pipe.execute()
    wake(client, connection, owner)


def wake(client: Client, connection: redis.Redis, owner: str) -> None:
    """Queue a job of ``owner``'s run (on the job queue's ``connection``) unless its run
    is on already (its record on the games' Redis, ``client``)."""
    token = Runs(client).wake(owner, time.time())
    if token is not None:
        queue_run(connection, owner, token, 0.0)


def queue_run(connection: redis.Redis, owner: str, token: str, delay: float) -> None:
    """Queue the job of ``owner``'s run that holds ``token``, in ``delay`` seconds."""
    options = {
        **_OPTIONS,
        "job_id": f"hooks-run-{token}-{int(time.time() * 1000)}",
        "description": "webhook deliveries of a key",
    }
    queue = queue_for(connection)
    if delay > 0:
        queue.enqueue_in(timedelta(seconds=delay), RUN_JOB, owner, token, **options)
    else:
        queue.enqueue(RUN_JOB, owner, token, **options)


def record(
    store: GameStore, hooks: WebhookStore, game_id: str, max_pending: int
) -> tuple[str | None, int]:
    """Record the deliveries of what ``game_id``'s log gained since the last dispatch,
    for every endpoint of its owner (a queue that was empty is due at once);
    returns its owner and how many were recorded. A tournament's id (``trn_...``): what
    its log gained, the same way."""
    if is_tournament_id(game_id):
        return _record_tournament(store, hooks, game_id, max_pending)
    while True:
        try:
            game = store.load(game_id)  # with the length its log had then
        except GameNotFoundError:
            return None, 0
        owner = game.owner
        if owner is None:
            return None, 0
        cursor = hooks.cursor(owner, game_id)
        start = int(cursor or 0)
        if cursor and start >= game.logged:
            return owner, 0
        _, events = store.events(game_id, start)
        events = events[: game.logged - start]  # the log as it was with the game read
        over = any(e.get("type") == EventKind.MATCH_OVER for e in events)
        outcome = Ratings(store).settle(game) if over and game.rated else None
        messages = messages_of(
            game, events, start, created=not cursor, now=time.time(), ratings=outcome
        )
        deliveries = _deliveries(hooks, owner, messages)
        waited = hooks.dispatch(owner, game_id, cursor, str(game.logged), deliveries, max_pending)
        if waited is None:
            continue  # another dispatch moved the cursor meanwhile: read on from it
        return owner, _recorded(hooks, owner, deliveries, waited, max_pending)


def _deliveries(
    hooks: WebhookStore, owner: str, messages: list[Message]
) -> dict[str, list[Message]]:
    """The messages each endpoint of ``owner`` asked for, by endpoint id (a disabled
    endpoint's too: they wait, in order, until it is enabled again, or until too many
    wait, WEBHOOK_MAX_PENDING)."""
    deliveries = {e.id: [m for m in messages if m.type in e.events] for e in hooks.endpoints(owner)}
    return {k: v for k, v in deliveries.items() if v}


def _recorded(
    hooks: WebhookStore,
    owner: str,
    deliveries: dict[str, list[Message]],
    waited: list[int],
    max_pending: int,
) -> int:
    """How many deliveries a dispatch recorded; an endpoint that had too many waiting
    disabled."""
    recorded = 0
    for (endpoint_id, messages), before in zip(deliveries.items(), waited, strict=True):
        if before == -1:
            hooks.disable(
                owner,
                endpoint_id,
                f"more than {max_pending} deliveries were waiting: the endpoint was "
                "not taking them",
            )
        else:
            recorded += len(messages)
    return recorded


def _record_tournament(
    store: GameStore, hooks: WebhookStore, tournament_id: str, max_pending: int
) -> tuple[str | None, int]:
    """:func:`record` for a tournament: the deliveries of what its log gained."""
    tournaments = TournamentStore(store.redis, store.ttl)
    while True:
        try:
            tournament = tournaments.load(tournament_id)
        except TournamentNotFoundError:
            return None, 0
        owner = tournament.owner
        cursor = hooks.cursor(owner, tournament_id)
        start = int(cursor or 0)
        events = tournaments.events(tournament_id, start)
        if not events:
            return owner, 0
        messages = tournament_messages(tournament, events, start, now=time.time())
        deliveries = _deliveries(hooks, owner, messages)
        end = str(start + len(events))
        waited = hooks.dispatch(owner, tournament_id, cursor, end, deliveries, max_pending)
        if waited is None:
            continue
        return owner, _recorded(hooks, owner, deliveries, waited, max_pending)
