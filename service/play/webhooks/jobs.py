"""The webhooks' background jobs (on the queue of :mod:`.queueing`, run by
``python -m service.worker``):

- :func:`dispatch` turns what a game's event log gained since the last dispatch into one
  delivery per endpoint that asked for its type, queued per (endpoint, game) in the
  log's order, and starts the delivery of a queue that was empty;
- :func:`deliver` sends a queue's deliveries one after another, each only once the one
  before it was delivered (or given up): on a failure it stops, and a job is scheduled
  for the next attempt after the delay the retry schedule gives; past the schedule the
  delivery is given up and the endpoint disabled, saying why;
- :func:`redeliver` makes one more attempt of a delivery, asked for by the platform.

Every attempt is recorded in its delivery (the delivery log of the API).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

import rq

from ..background import game_store, worker_settings
from ..store import GameNotFoundError
from .events import messages_of
from .queueing import QUEUE_NAME, span
from .sending import Attempt, send
from .store import Message, WebhookStore

log = logging.getLogger(__name__)
#: How long one delivery job sends before it hands the rest of its queue to a new job.
SLICE_SECONDS = 20.0
#: The attempts a delivery keeps in its record (the latest).
KEPT_ATTEMPTS = 25
_OPTIONS: dict[str, Any] = {"result_ttl": 0, "failure_ttl": 24 * 3600, "retry": rq.Retry(max=5)}


def _hooks() -> WebhookStore:
    store = game_store()
    return WebhookStore(store.redis, store.ttl)


def _queue() -> rq.Queue:
    current = rq.get_current_job()
    assert current is not None, "a webhooks job runs on a worker"
    return rq.Queue(QUEUE_NAME, connection=current.connection)


def dispatch(game_id: str) -> int:
    """Record the deliveries of what ``game_id``'s log gained since the last dispatch,
    for every enabled endpoint of its owner; returns how many were recorded."""
    store = game_store()
    hooks = WebhookStore(store.redis, store.ttl)
    settings = worker_settings().webhooks
    while True:
        try:
            game = store.load(game_id)  # with the length its log had then
        except GameNotFoundError:
            return 0
        owner = game.owner
        if owner is None:
            return 0
        cursor = hooks.cursor(owner, game_id)
        start = int(cursor or 0)
        if cursor and start >= game.logged:
            return 0
        _, events = store.events(game_id, start)
        events = events[: game.logged - start]  # the log as it was with the game read
        messages = messages_of(game, events, start, created=not cursor, now=time.time())
        endpoints = [e for e in hooks.endpoints(owner) if e.disabled_reason is None]
        deliveries: dict[str, list[Message]] = {
            e.id: [m for m in messages if m.type in e.events] for e in endpoints
        }
        deliveries = {k: v for k, v in deliveries.items() if v}
        waited = hooks.dispatch(
            owner, game_id, cursor, str(game.logged), deliveries, settings.max_pending
        )
        if waited is None:
            continue  # another dispatch moved the cursor meanwhile: read on from it
        for endpoint_id, before in zip(deliveries, waited, strict=True):
            if before == -1:
                hooks.disable(
                    owner,
                    endpoint_id,
                    f"more than {settings.max_pending} deliveries were waiting: the "
                    "endpoint was not taking them",
                )
            elif before == 0:
                _start(owner, endpoint_id, game_id, deliveries[endpoint_id][0].id)
        return sum(len(v) for v in deliveries.values())


def _start(owner: str, endpoint_id: str, game_id: str, message_id: str, delay: int = 0) -> None:
    """Queue the job that delivers the head of the (endpoint, game) queue, now or in
    ``delay`` seconds."""
    job_id = _job_id("hook", endpoint_id, message_id)
    args = (deliver, owner, endpoint_id, game_id)
    description = f"webhooks of game {game_id} to {endpoint_id}"
    if delay:
        _queue().enqueue_in(
            timedelta(seconds=delay), *args, job_id=job_id, description=description, **_OPTIONS
        )
    else:
        _queue().enqueue(*args, job_id=job_id, description=description, **_OPTIONS)


def _job_id(kind: str, endpoint_id: str, message_id: str) -> str:
    """A job's id (rq takes letters, digits, _ and -: a message id's dots become _)."""
    stamp = int(time.time() * 1000)
    return f"{kind}-{endpoint_id}-{message_id.replace('.', '_')}-{stamp}"


def _attempted(delivery: dict[str, Any], attempt: Attempt, *, manual: bool) -> dict[str, Any]:
    attempts = [*delivery["attempts"], {**attempt.to_dict(), "manual": manual}]
    return {**delivery, "attempts": attempts[-KEPT_ATTEMPTS:]}


def deliver(owner: str, endpoint_id: str, game_id: str) -> int:
    """Send the (endpoint, game) queue's deliveries in order, until it is empty, one
    fails, or the job's slice is over; returns how many were delivered."""
    hooks = _hooks()
    settings = worker_settings().webhooks
    delivered = 0
    ends = time.monotonic() + SLICE_SECONDS
    while True:
        endpoint = hooks.endpoint(owner, endpoint_id)
        if endpoint is None:
            hooks.drop_queue(owner, endpoint_id, game_id)  # deleted: nothing to send
            return delivered
        if endpoint.disabled_reason is not None:
            return delivered  # its queue waits
        delivery = hooks.head(owner, endpoint_id, game_id)
        if delivery is None:
            return delivered
        if time.monotonic() >= ends:
            _start(owner, endpoint_id, game_id, delivery["id"])
            return delivered
        attempt = send(
            endpoint.url, endpoint.secret, delivery["id"], delivery["body"], allow=settings.allow
        )
        delivery = _attempted(delivery, attempt, manual=False)
        if attempt.delivered:
            delivery |= {"status": "succeeded", "next_attempt_at": None}
            delivered += 1
            if not hooks.settle(owner, endpoint_id, delivery, leaves=True):
                return delivered
            continue
        failures = sum(1 for a in delivery["attempts"] if a["error"] and not a["manual"])
        if failures <= len(settings.schedule):
            delay = settings.schedule[failures - 1]
            delivery["next_attempt_at"] = time.time() + delay
            hooks.settle(owner, endpoint_id, delivery, leaves=False)
            _start(owner, endpoint_id, game_id, delivery["id"], delay)
            return delivered
        delivery |= {"status": "failed", "next_attempt_at": None}
        hooks.settle(owner, endpoint_id, delivery, leaves=True)
        reason = (
            f"the delivery {delivery['id']} failed {failures} attempts over "
            f"{span(settings.schedule)} (the last: {attempt.error})"
        )
        hooks.disable(owner, endpoint_id, reason)
        log.info("webhook endpoint %s of %s disabled: %s", endpoint_id, owner, reason)
        return delivered


def redeliver(owner: str, endpoint_id: str, message_id: str) -> bool:
    """One more attempt of a delivery, asked for by the platform (also of one given up,
    or to a disabled endpoint). Returns whether it was delivered."""
    hooks = _hooks()
    endpoint = hooks.endpoint(owner, endpoint_id)
    delivery = hooks.delivery(owner, endpoint_id, message_id)
    if endpoint is None or delivery is None:
        return False
    settings = worker_settings().webhooks
    attempt = send(
        endpoint.url, endpoint.secret, delivery["id"], delivery["body"], allow=settings.allow
    )
    delivery = _attempted(delivery, attempt, manual=True)
    if attempt.delivered:
        delivery |= {"status": "succeeded", "next_attempt_at": None}
    # Delivered, it leaves its queue if it heads it: the job scheduled for its retry
    # then goes on with the next.
    hooks.settle(owner, endpoint_id, delivery, leaves=attempt.delivered)
    return attempt.delivered


def enqueue_redelivery(connection: Any, owner: str, endpoint_id: str, message_id: str) -> None:
    """Queue :func:`redeliver` (for the API: a request never sends a webhook itself)."""
    rq.Queue(QUEUE_NAME, connection=connection).enqueue(
        redeliver,
        owner,
        endpoint_id,
        message_id,
        job_id=_job_id("hook-retry", endpoint_id, message_id),
        description=f"webhook {message_id} again to {endpoint_id}",
        **_OPTIONS,
    )
