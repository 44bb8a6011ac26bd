"""The webhooks' background jobs, on the queue of :mod:`.queueing`, run by the webhook
workers (``python -m service.worker --only-webhooks``), apart from the turn clocks and the
computer players:

- :func:`run` is one job of a key's run (:mod:`.schedule`): it turns what the key's
  games that changed gained in their event logs into one delivery per endpoint that
  asked for its type, queued per (endpoint, game) in the log's order (:func:`record`),
  and makes the key's attempts due, several at once (never two of one queue), for a
  turn. A queue's deliveries go one after another, each only once the one before it
  was delivered (or given up): on a failure the queue is due
  again after the delay the retry schedule gives; past the schedule the delivery is
  given up and the endpoint disabled, saying why. A redelivery asked for by the
  platform (:func:`ask_redelivery`) is one more attempt, made by the run too.

Every attempt is recorded in its delivery (the delivery log of the API). What a run's
turn costs is charged to the key's cost budget (``key:<name>``, service/play/budget.py):
the worker's CPU time, and the whole time of each attempt slower than
:data:`SLOW_ATTEMPT_SECONDS` (a receiver that hangs costs its key the worker it holds), at
most the turn's length. A key whose budget is spent has its run put off until it is not;
prompt receivers cost only the CPU their deliveries take.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from typing import Any

import redis
import rq

from ..budget import Budget
from ..workers import game_store, worker_settings
from . import deletion
from .events import game_of
from .queueing import HookSettings, span
from .recording import payer, queue_run, record, wake
from .schedule import ATTEMPTS_AT_ONCE, TURN_SECONDS, Runs
from .sending import Attempt, send
from .store import LOG_LENGTH, Endpoint, WebhookStore, member

log = logging.getLogger(__name__)
#: The attempts a delivery keeps in its record (the latest).
KEPT_ATTEMPTS = 25
#: How soon a delivery of a deleted game is tried again (until it is given up).
GONE_RETRY_SECONDS = 1.0
#: How often a run reads what its key's games gained while its attempts are under way.
RECORD_SECONDS = 0.05
#: An attempt that takes longer is charged to its key whole (see the module's doc).
SLOW_ATTEMPT_SECONDS = 1.0


class Tally:
    """What a run's turn costs its key: the CPU time the worker spent since it began,
    and the time of the attempts slower than :data:`SLOW_ATTEMPT_SECONDS`, at most the
    turn's own length."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slow = 0.0
        self._cpu = time.process_time()
        self._began = time.monotonic()

    def count(self, attempt: Attempt) -> Attempt:
        if attempt.duration_ms > SLOW_ATTEMPT_SECONDS * 1000:
            with self._lock:
                self._slow += attempt.duration_ms / 1000
        return attempt

    def seconds(self) -> float:
        spent = time.process_time() - self._cpu + self._slow
        return min(time.monotonic() - self._began, spent)


def _hooks() -> WebhookStore:
    store = game_store()
    return WebhookStore(store.redis, store.ttl)


def _connection() -> redis.Redis:
    current = rq.get_current_job()
    assert current is not None, "a webhooks job runs on a worker"
    return current.connection


def dispatch(game_id: str) -> int:
    """A job queued before runs read the games themselves: record the deliveries of what
    ``game_id``'s log gained since the last dispatch, and wake its key's run; returns how
    many were recorded."""
    store = game_store()
    hooks = WebhookStore(store.redis, store.ttl)
    owner, recorded = record(store, hooks, game_id, worker_settings().webhooks.max_pending)
    if recorded and owner is not None:
        wake(hooks.client, _connection(), owner)
    return recorded


def run(owner: str, token: str) -> int:
    """One job of ``owner``'s run: the attempts due, several at once, for a turn; then
    the run's next job queued (or none, if nothing waits). Returns the attempts made."""
    settings = worker_settings()
    store = game_store()
    hooks = WebhookStore(store.redis, store.ttl)
    runs = Runs(hooks.client)
    if not runs.claim(owner, token):
        return 0  # another job holds the run now
    budget = Budget(settings.budget_seconds)
    started = time.monotonic()
    tally = Tally()
    wait = budget.wait(hooks.client, payer(owner), time.time())
    made = 0

    def attempt(kind: str, endpoint_id: str, name: str) -> int:
        if kind == "redo":
            return _redeliver(hooks, owner, endpoint_id, name, settings.webhooks, tally)
        if endpoint_id == deletion.SWEEP:
            deletion.sweep(game_store(), hooks, owner, name)
            return 0
        # A queue's deliveries one after another while they are delivered and the turn
        # lasts: the next goes as soon as the one before it arrived.
        sent = 0
        while True:
            attempts, more = _step(hooks, runs, owner, endpoint_id, name, settings.webhooks, tally)
            sent += attempts
            if not more or time.monotonic() - started >= TURN_SECONDS:
                return sent

    # Up to ATTEMPTS_AT_ONCE queues under way, each of its own (a redelivery counts as its
    # game's); what the games gained is read every RECORD_SECONDS meanwhile. The turn
    # ends once it is over and what is under way has ended.
    with ThreadPoolExecutor(ATTEMPTS_AT_ONCE, thread_name_prefix="webhook") as pool:
        under_way: dict[Future[int], str] = {}
        while not wait and time.monotonic() - started < TURN_SECONDS:
            # What the games that changed gained, first: their queues are due at once.
            for game_id in runs.unread(owner, ATTEMPTS_AT_ONCE):
                record(store, hooks, game_id, settings.webhooks.max_pending)
            busy = set(under_way.values())
            free = ATTEMPTS_AT_ONCE - len(under_way)
            for kind, endpoint_id, name in runs.take(owner, time.time(), busy, free):
                game = name if kind == "queue" else game_of(name)
                under_way[pool.submit(attempt, kind, endpoint_id, name)] = member(endpoint_id, game)
            if not under_way:
                break
            done, _ = futures_wait(under_way, RECORD_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                del under_way[future]
                made += future.result()
        for future in futures_wait(under_way).done:
            made += future.result()
    budget.charge(hooks.client, payer(owner), tally.seconds(), time.time())
    now = time.time()
    at = runs.next(owner, token, now, now + wait)
    if at is not None:
        queue_run(_connection(), owner, token, at - now)
    if wait:
        log.info("webhooks of %s put off %.0f s: its budget is spent", owner, wait)
    return made


def _send(
    endpoint: Endpoint, delivery: dict[str, Any], settings: HookSettings, tally: Tally
) -> Attempt:
    """One attempt of ``delivery`` to ``endpoint``, signed with each of its secrets now,
    counted in the run's ``tally``."""
    secrets = endpoint.signing_secrets(time.time())
    attempt = send(endpoint.url, secrets, delivery["id"], delivery["body"], allow=settings.allow)
    return tally.count(attempt)


def _attempted(delivery: dict[str, Any], attempt: Attempt, *, manual: bool) -> dict[str, Any]:
    attempts = [*delivery["attempts"], {**attempt.to_dict(), "manual": manual}]
    return {**delivery, "attempts": attempts[-KEPT_ATTEMPTS:]}


def _step(
    hooks: WebhookStore,
    runs: Runs,
    owner: str,
    endpoint_id: str,
    game_id: str,
    settings: HookSettings,
    tally: Tally,
) -> tuple[int, bool]:
    """One attempt of the head of the (endpoint, game) queue, and when the queue is due
    next; returns the attempts made (0 or 1), and whether the next delivery of the queue
    may go at once (this one was delivered, and another waits)."""
    endpoint = hooks.endpoint(owner, endpoint_id)
    gone = hooks.gone(owner, game_id)  # when a deleted game's deliveries are given up
    if endpoint is None:
        hooks.drop_queue(owner, endpoint_id, game_id)  # deleted: nothing to send
        return 0, False
    if gone is not None and (endpoint.disabled_reason is not None or time.time() >= gone):
        runs.idle(owner, endpoint_id, game_id)  # the game's sweep gives it up
        runs.due(owner, deletion.SWEEP, game_id, time.time())
        return 0, False
    if endpoint.disabled_reason is not None:
        runs.idle(owner, endpoint_id, game_id)  # its queue waits
        return 0, False
    delivery = hooks.head(owner, endpoint_id, game_id)
    if delivery is None:  # none waits, or the log dropped the head's record: pass it
        head = hooks.queue(owner, endpoint_id, game_id)[:1]
        hooks.settle(owner, endpoint_id, {"id": "".join(head), "game": game_id}, leaves=True)
        return 0, False
    attempt = _send(endpoint, delivery, settings, tally)
    delivery = _attempted(delivery, attempt, manual=False)
    now = time.time()
    if attempt.delivered:
        delivery |= {"status": "succeeded", "next_attempt_at": None}
        waiting = hooks.settle(owner, endpoint_id, delivery, leaves=True, due=now)
        if not waiting and gone:
            runs.due(owner, deletion.SWEEP, game_id, now)  # its last queue may be done
        return 1, waiting > 0
    failures = sum(1 for a in delivery["attempts"] if a["error"] and not a["manual"])
    if gone is not None or failures <= len(settings.schedule):
        delay = GONE_RETRY_SECONDS if gone is not None else settings.schedule[failures - 1]
        delivery["next_attempt_at"] = now + delay
        hooks.settle(owner, endpoint_id, delivery, leaves=False, due=now + delay)
        return 1, False
    delivery |= {"status": "failed", "next_attempt_at": None}
    hooks.settle(owner, endpoint_id, delivery, leaves=True, due=now)
    reason = (
        f"the delivery {delivery['id']} failed {failures} attempts over "
        f"{span(settings.schedule)} (the last: {attempt.error})"
    )
    hooks.disable(owner, endpoint_id, reason)
    log.info("webhook endpoint %s of %s disabled: %s", endpoint_id, owner, reason)
    return 1, False


def _redeliver(
    hooks: WebhookStore,
    owner: str,
    endpoint_id: str,
    message_id: str,
    settings: HookSettings,
    tally: Tally,
) -> int:
    """One more attempt of a delivery, asked for by the platform (also of one given up,
    or to a disabled endpoint; not of a deleted game's). Returns the attempts made."""
    endpoint = hooks.endpoint(owner, endpoint_id)
    delivery = hooks.delivery(owner, endpoint_id, message_id)
    if endpoint is None or delivery is None or delivery.get("game_deleted"):
        return 0
    attempt = _send(endpoint, delivery, settings, tally)
    delivery = _attempted(delivery, attempt, manual=True)
    if attempt.delivered:
        delivery |= {"status": "succeeded", "next_attempt_at": None}
    # Delivered, it leaves its queue if it heads it: the queue's next is due at once.
    hooks.settle(owner, endpoint_id, delivery, leaves=attempt.delivered)
    return 1


def ask_redelivery(
    hooks: WebhookStore, connection: redis.Redis, owner: str, endpoint_id: str, message_id: str
) -> bool:
    """Ask for one more attempt of a delivery (for the API: a request never sends a
    webhook itself), made by the key's run soon. Asked again within 10 s
    (:data:`.schedule.REDO_SPACING_SECONDS`), it is not asked twice: False."""
    if not Runs(hooks.client).ask(owner, endpoint_id, message_id, hooks.ttl):
        return False
    wake(hooks.client, connection, owner)
    return True


def ask_recovery(
    hooks: WebhookStore, connection: redis.Redis, owner: str, endpoint_id: str, since: float
) -> list[str]:
    """Ask for one more attempt of each failed delivery of the endpoint made at or after
    ``since`` (of its log's latest 1,000; not a deleted game's), made by the key's run
    soon; returns their ids, oldest first (one asked within 10 s is not asked again)."""
    runs = Runs(hooks.client)
    asked = []
    for delivery in reversed(hooks.deliveries(owner, endpoint_id, limit=LOG_LENGTH)):
        if (
            delivery["status"] == "failed"
            and delivery["created_at"] >= since
            and not delivery.get("game_deleted")
            and runs.ask(owner, endpoint_id, delivery["id"], hooks.ttl)
        ):
            asked.append(delivery["id"])
    if asked:
        wake(hooks.client, connection, owner)
    return asked


def resume(hooks: WebhookStore, connection: redis.Redis, owner: str, endpoint_id: str) -> None:
    """An endpoint enabled again: each of its queues that waited is due now, and the
    key's run woken to make them."""
    runs = Runs(hooks.client)
    now = time.time()
    for game_id in hooks.queued_games(owner, endpoint_id):
        runs.due(owner, endpoint_id, game_id, now)
    wake(hooks.client, connection, owner)


def deliver(owner: str, endpoint_id: str, game_id: str) -> int:
    """A job queued before runs existed: the queue is due now, and its key's run woken."""
    hooks = _hooks()
    if hooks.queue(owner, endpoint_id, game_id):
        Runs(hooks.client).due(owner, endpoint_id, game_id, time.time())
        wake(hooks.client, _connection(), owner)
    return 0


def redeliver(owner: str, endpoint_id: str, message_id: str) -> bool:
    """A job queued before runs existed: the redelivery asked of the key's run."""
    return ask_redelivery(_hooks(), _connection(), owner, endpoint_id, message_id)
