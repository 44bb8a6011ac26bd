"""A key's game deleted (``DELETE /v1/games/{id}``): its webhooks finish, then nothing of
it is left.

Before the game is deleted, :func:`before_delete` records the deliveries of whatever its
log gained since the last dispatch (the abort just made, say: the dispatch job queued
by that commit would find no game), marks the game gone until :data:`DRAIN_SECONDS`
from now, and makes its queues due at once (a retry scheduled for later comes now). Its
key's run (:mod:`.jobs`) then delivers them in order, trying a failed one again every
second; past that time, or at a disabled endpoint, what still waits is given up
(``failed``). Once no queue of the game is left, the run's sweep (:func:`sweep`) keeps
of its deliveries in each endpoint's log only what says what was sent and how it went
(id, type, status, attempts' times, statuses and errors), without the payload's game
(its seats, names, player ids, metadata) nor the receivers' answers, and forgets the
game's cursor: no Redis key names the game any more, and no record holds what the
platform told of its players (docs/platforms.md, "A deleted game's deliveries").
"""

from __future__ import annotations

import time
from typing import Any

import orjson
import redis

from ..store import GameNotFoundError, GameStore
from .recording import record, wake
from .schedule import Runs
from .store import WebhookStore

#: How long after a game's deletion its deliveries may still be tried.
DRAIN_SECONDS = 15.0
#: The "endpoint" of a deleted game's sweep in its key's due set.
SWEEP = "*"


def before_delete(
    store: GameStore, connection: redis.Redis, game_id: str, max_pending: int
) -> None:
    """Called with the game ``game_id`` still stored, right before it is deleted: record
    the deliveries its log still owes, and have its key's run deliver them now, then
    forget the game (``connection``: the job queue's; ``max_pending``:
    ``WEBHOOK_MAX_PENDING``)."""
    hooks = WebhookStore(store.redis, store.ttl)
    owner, _ = record(store, hooks, game_id, max_pending)
    if owner is None or not hooks.has_endpoints(owner):
        if owner is not None:
            hooks.forget_game(owner, game_id)
        return
    now = time.time()
    hooks.mark_gone(owner, game_id, now + DRAIN_SECONDS)
    runs = Runs(hooks.client)
    for endpoint in hooks.endpoints(owner):
        if hooks.queue(owner, endpoint.id, game_id):
            runs.due(owner, endpoint.id, game_id, now)
    runs.due(owner, SWEEP, game_id, now + DRAIN_SECONDS)
    wake(hooks.client, connection, owner)


def give_up(hooks: WebhookStore, runs: Runs, owner: str, endpoint_id: str, game_id: str) -> None:
    """The deleted game's deliveries still waiting for the endpoint are given up
    (``failed``), its queue dropped, and the game's sweep due now."""
    for message_id in hooks.queue(owner, endpoint_id, game_id):
        delivery = hooks.delivery(owner, endpoint_id, message_id)
        if delivery is not None and delivery["status"] == "pending":
            delivery |= {"status": "failed", "next_attempt_at": None}
            hooks.settle(owner, endpoint_id, delivery, leaves=False)
    hooks.drop_queue(owner, endpoint_id, game_id)
    runs.due(owner, SWEEP, game_id, time.time())


def sweep(store: GameStore, hooks: WebhookStore, owner: str, game_id: str) -> None:
    """The deleted game's sweep: once none of its queues is left (or its time is up:
    they are given up), its deliveries are kept without what they said of the game and
    its players, and the game is forgotten. A game not deleted after all (the delete
    failed) is left as it is."""
    runs = Runs(hooks.client)
    until = hooks.gone(owner, game_id)
    try:
        store.load(game_id)
    except GameNotFoundError:
        pass
    else:
        until = None  # still stored: not deleted
    endpoints = [e.id for e in hooks.endpoints(owner)]
    waiting = [e for e in endpoints if hooks.queue(owner, e, game_id)]
    if until is None:
        hooks.not_gone(owner, game_id)
        runs.idle(owner, SWEEP, game_id)
        for endpoint_id in waiting:  # back to their schedule (a disabled one waits again)
            runs.due(owner, endpoint_id, game_id, time.time())
        return
    if waiting and time.time() < until:
        runs.due(owner, SWEEP, game_id, until)  # the queues go on until then
        return
    for endpoint_id in waiting:
        give_up(hooks, runs, owner, endpoint_id, game_id)
    for endpoint_id in endpoints:
        hooks.rewrite_deliveries(owner, endpoint_id, f"msg_{game_id}.*", emptied)
    hooks.forget_game(owner, game_id)
    runs.idle(owner, SWEEP, game_id)


def emptied(delivery: dict[str, Any]) -> dict[str, Any]:
    """What the delivery log keeps of a deleted game's delivery: its id, type, game id,
    status and attempts (their answers emptied), and a payload of the message's id, type
    and time only."""
    sent = orjson.loads(delivery["body"])
    payload = {
        "id": sent["id"],
        "type": sent["type"],
        "timestamp": sent["timestamp"],
        "data": {"game": {"id": delivery["game"]}},
    }
    status = "failed" if delivery["status"] == "pending" else delivery["status"]
    return {
        **delivery,
        "body": orjson.dumps(payload).decode(),
        "status": status,
        "next_attempt_at": None,
        "attempts": [{**a, "answer": ""} for a in delivery["attempts"]],
        "game_deleted": True,
    }
