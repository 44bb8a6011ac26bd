"""The webhooks' records in Redis: each service key's endpoints, the deliveries made to
each endpoint, and the queue of deliveries waiting, per endpoint and game, in order.

Keys (all of a service key's in one Redis Cluster slot: its name in braces)::

    scopa:hooks:{<owner>}:endpoints        hash: endpoint id -> the endpoint (JSON)
    scopa:hooks:{<owner>}:cursor           hash: game id -> how much of the game's event
                                           log became deliveries
    scopa:hooks:{<owner>}:pending          hash: endpoint id -> deliveries waiting, and
                                           seq:<endpoint> -> its deliveries' last number
    scopa:hooks:{<owner>}:d:<endpoint>     hash: message id -> the delivery (JSON), its
                                           attempts included
    scopa:hooks:{<owner>}:log:<endpoint>   sorted set: message ids by their number (in
                                           the order they were made)
    scopa:hooks:{<owner>}:q:<endpoint>:<game>  list: the game's message ids waiting to be
                                           delivered to the endpoint, oldest first
    scopa:hooks:{<owner>}:qs:<endpoint>    set: the games with such a queue
    scopa:hooks:{<owner>}:due              sorted set: "<endpoint> <game>" for each such
                                           queue, by when its head is due (ms)
    scopa:hooks:{<owner>}:redo             sorted set: "<endpoint> <message>" for each
                                           redelivery asked for and not yet attempted
    scopa:hooks:{<owner>}:asked            sorted set: the same, by when last asked (ms)
    scopa:hooks:{<owner>}:runner           string: the key's delivery run (schedule.py)
    scopa:hooks:{<owner>}:gone             hash: game id -> when the deliveries of the
                                           deleted game are given up (deletion.py)

Every key but the endpoints expires ``ttl`` seconds (the games' TTL) after its last write.
A delivery is the one record of a message sent to an endpoint: its id is the message's
(``webhook-id``), the same on every attempt, so a receiver drops a duplicate.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import orjson

from ..connections import Client
from ..keys import (
    webhook_cursors,
    webhook_deliveries,
    webhook_due,
    webhook_endpoints,
    webhook_gone,
    webhook_log,
    webhook_pending,
    webhook_queue,
    webhook_queues,
)

#: The deliveries each endpoint's log keeps (the oldest beyond it are dropped).
LOG_LENGTH = 1000


def member(endpoint_id: str, game_or_message: str) -> str:
    """A queue's member of the due set ("<endpoint> <game>"), or a redelivery's of the
    redo set ("<endpoint> <message>"): ids hold no space."""
    return f"{endpoint_id} {game_or_message}"


def new_endpoint_id() -> str:
    return "ep_" + secrets.token_urlsafe(12)


def new_secret() -> str:
    """An endpoint's signing secret in the Standard Webhooks form: ``whsec_`` and 32
    random bytes in base64."""
    import base64

    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


@dataclass(frozen=True)
class Endpoint:
    id: str
    url: str
    #: The event types it receives.
    events: tuple[str, ...]
    secret: str
    created_at: float
    #: Why deliveries to it stopped, and when (None: it is enabled).
    disabled_reason: str | None = None
    disabled_at: float | None = None
    #: The secret before the last rotation, which also signs until ``previous_until``.
    previous_secret: str | None = None
    previous_until: float | None = None

    def signing_secrets(self, now: float) -> tuple[str, ...]:
        """The secrets a delivery made at ``now`` is signed with: the current one, and
        the one before it while the rotation's overlap lasts."""
        if self.previous_secret is not None and now < (self.previous_until or 0):
            return (self.secret, self.previous_secret)
        return (self.secret,)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "url": self.url,
            "events": list(self.events),
            "secret": self.secret,
            "created_at": self.created_at,
            "disabled_reason": self.disabled_reason,
            "disabled_at": self.disabled_at,
            "previous_secret": self.previous_secret,
            "previous_until": self.previous_until,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Endpoint:
        return cls(
            id=data["id"],
            url=data["url"],
            events=tuple(data["events"]),
            secret=data["secret"],
            created_at=data["created_at"],
            disabled_reason=data.get("disabled_reason"),
            disabled_at=data.get("disabled_at"),
            previous_secret=data.get("previous_secret"),
            previous_until=data.get("previous_until"),
        )


@dataclass(frozen=True)
class Message:
    """A webhook event for one game: its id (stable: the same for every endpoint and
    every attempt), its type and its body as sent."""

    id: str
    type: str
    game_id: str
    body: str


#: KEYS[1] the owner's cursor hash, KEYS[2] its pending counts, KEYS[3] its due set;
#: then for each endpoint KEYS[4+4i] its deliveries hash, KEYS[5+4i] its log, KEYS[6+4i]
#: the game's queue, KEYS[7+4i] its set of queues.
#: ARGV[1] the game id, ARGV[2] the cursor the caller read ("" none), ARGV[3] the new
#: cursor, ARGV[4] the TTL, ARGV[5] the most deliveries an endpoint may have waiting,
#: ARGV[6] the log's length, ARGV[7] now (ms); then for each endpoint: its id, the
#: number n of its deliveries, and n pairs (message id, delivery JSON).
#: Writes only if the cursor is still ARGV[2] (else returns 0: another dispatch did it);
#: a queue that was empty is due now; returns, per endpoint, the length its queue had
#: before (-1: over the most waiting, nothing queued).
_DISPATCH = """
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
local result = {}
local at = 8
local index = 0
while at <= #ARGV do
  local endpoint = ARGV[at]
  local count = tonumber(ARGV[at + 1])
  local base = 4 + 4 * index
  local waiting = tonumber(redis.call('HGET', KEYS[2], endpoint) or '0')
  if waiting + count > tonumber(ARGV[5]) then
    table.insert(result, -1)
  else
    local before = redis.call('LLEN', KEYS[base + 2])
    for j = 0, count - 1 do
      local id = ARGV[at + 2 + 2 * j]
      redis.call('HSET', KEYS[base], id, ARGV[at + 3 + 2 * j])
      redis.call('ZADD', KEYS[base + 1], redis.call('HINCRBY', KEYS[2], 'seq:' .. endpoint, 1), id)
      redis.call('RPUSH', KEYS[base + 2], id)
    end
    if count > 0 then
      redis.call('HINCRBY', KEYS[2], endpoint, count)
      redis.call('SADD', KEYS[base + 3], ARGV[1])
      if before == 0 then
        redis.call('ZADD', KEYS[3], 'NX', ARGV[7], endpoint .. ' ' .. ARGV[1])
        redis.call('EXPIRE', KEYS[3], ARGV[4])
      end
      local dropped = redis.call('ZRANGE', KEYS[base + 1], 0, -tonumber(ARGV[6]) - 1)
      if #dropped > 0 then
        redis.call('ZREM', KEYS[base + 1], unpack(dropped))
        redis.call('HDEL', KEYS[base], unpack(dropped))
      end
      for k = 0, 3 do
        redis.call('EXPIRE', KEYS[base + k], ARGV[4])
      end
      redis.call('EXPIRE', KEYS[2], ARGV[4])
    end
    table.insert(result, before)
  end
  at = at + 2 + 2 * count
  index = index + 1
end
return result
"""

#: KEYS[1] the deliveries hash, KEYS[2] the game's queue, KEYS[3] the pending counts,
#: KEYS[4] the set of queues, KEYS[5] the due set. ARGV[1] the message id, ARGV[2] the
#: delivery (JSON) after its last attempt, ARGV[3] "1" if it leaves the queue (delivered,
#: or given up), ARGV[4] the endpoint id, ARGV[5] the game id, ARGV[6] the TTL, ARGV[7]
#: when the queue's head is due next (ms), ARGV[8] "1" if that holds whether or not the
#: delivery left the head (an attempt of the run's; a redelivery's moves it only if so).
#: Stores the delivery (if it still exists: a log that dropped it, or an endpoint
#: deleted, keeps it gone; and unless its game's deletion emptied it meanwhile: an
#: attempt that ran past the drain does not write back what it said of the players);
#: takes it off the head of the queue; the queue is due at ARGV[7], or no more if empty;
#: returns how many wait.
_SETTLE = """
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored and not string.find(stored, '"game_deleted":true', 1, true) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[6])
end
local popped = false
if ARGV[3] == '1' and redis.call('LINDEX', KEYS[2], 0) == ARGV[1] then
  redis.call('LPOP', KEYS[2])
  popped = true
  if redis.call('HINCRBY', KEYS[3], ARGV[4], -1) <= 0 then
    redis.call('HDEL', KEYS[3], ARGV[4])
  end
end
local left = redis.call('LLEN', KEYS[2])
local due = ARGV[4] .. ' ' .. ARGV[5]
if left == 0 then
  redis.call('SREM', KEYS[4], ARGV[5])
  redis.call('ZREM', KEYS[5], due)
elseif popped or ARGV[8] == '1' then
  redis.call('ZADD', KEYS[5], ARGV[7], due)
  redis.call('EXPIRE', KEYS[5], ARGV[6])
end
return left
"""

#: KEYS[1] the game's queue, KEYS[2] the set of queues, KEYS[3] the due set, KEYS[4] the
#: pending counts. ARGV[1] the endpoint id, ARGV[2] the game id.
_DROP = """
local left = redis.call('LLEN', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1] .. ' ' .. ARGV[2])
if left > 0 and redis.call('HINCRBY', KEYS[4], ARGV[1], -left) <= 0 then
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return left
"""

#: KEYS[1] the deliveries hash, KEYS[2] the log, KEYS[3] the pending counts. ARGV[1] the
#: message id, ARGV[2] the delivery (JSON), ARGV[3] the endpoint id, ARGV[4] the TTL,
#: ARGV[5] the log's length. A delivery in the endpoint's log and in no game's queue (a
#: ping): made by a redelivery's attempt.
_LOG_ALONE = """
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], 'seq:' .. ARGV[3], 1), ARGV[1])
local dropped = redis.call('ZRANGE', KEYS[2], 0, -tonumber(ARGV[5]) - 1)
if #dropped > 0 then
  redis.call('ZREM', KEYS[2], unpack(dropped))
  redis.call('HDEL', KEYS[1], unpack(dropped))
end
for k = 1, 3 do
  redis.call('EXPIRE', KEYS[k], ARGV[4])
end
"""

#: The reason of an endpoint its key disabled (``PATCH`` with ``enabled`` false).
DISABLED_BY_KEY = "disabled by its key"


class WebhookStore:
    """The webhooks' records of every service key, on the games' Redis."""

    def __init__(self, client: Client, ttl_seconds: int) -> None:
        self.client = client
        self.ttl = ttl_seconds
        self._dispatch = client.register_script(_DISPATCH)
        self._settle = client.register_script(_SETTLE)
        self._drop = client.register_script(_DROP)
        self._log_alone = client.register_script(_LOG_ALONE)

    # -- endpoints --------------------------------------------------------------------

    def endpoints(self, owner: str) -> list[Endpoint]:
        """The owner's endpoints, oldest first."""
        raw = self.client.hvals(webhook_endpoints(owner))
        found = [Endpoint.from_dict(orjson.loads(r)) for r in raw]
        return sorted(found, key=lambda e: (e.created_at, e.id))

    def endpoint(self, owner: str, endpoint_id: str) -> Endpoint | None:
        raw = self.client.hget(webhook_endpoints(owner), endpoint_id)
        return None if raw is None else Endpoint.from_dict(orjson.loads(raw))

    def has_endpoints(self, owner: str) -> bool:
        return bool(self.client.exists(webhook_endpoints(owner)))

    def add_endpoint(self, owner: str, url: str, events: Sequence[str], most: int) -> Endpoint:
        """A new endpoint for ``owner``; TooManyEndpointsError past ``most`` of them."""
        endpoint = Endpoint(new_endpoint_id(), url, tuple(events), new_secret(), time.time())
        key = webhook_endpoints(owner)
        added = self.client.eval(
            "if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end "
            "redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) return 1",
            1,
            key,
            most,
            endpoint.id,
            orjson.dumps(endpoint.to_dict()),
        )
        if not added:
            raise TooManyEndpointsError(most)
        return endpoint

    def update_endpoint(
        self, owner: str, endpoint_id: str, changes: dict[str, Any]
    ) -> tuple[Endpoint, Endpoint] | None:
        """Change an endpoint's ``url``, ``events`` or ``enabled`` (an enabled endpoint has
        no disabled reason; one disabled here says the key did it), or give it a new
        secret (with ``overlap_seconds``: how long the old one also signs), in one
        transaction with the workers' writes; the endpoint before and after, or None if
        there is none."""
        key = webhook_endpoints(owner)
        found: list[tuple[Endpoint, Endpoint] | None] = []

        def change(pipe: Any) -> None:
            found.clear()
            raw = pipe.hget(key, endpoint_id)
            if raw is None:
                found.append(None)
                return
            before = Endpoint.from_dict(orjson.loads(raw))
            data = before.to_dict()
            data.update({k: v for k, v in changes.items() if k in ("url", "events")})
            if "overlap_seconds" in changes:  # a new secret; the old one signs meanwhile
                now = time.time()
                data |= {
                    "secret": new_secret(),
                    "previous_secret": before.secret,
                    "previous_until": now + changes["overlap_seconds"],
                }
            if changes.get("enabled") is True:
                data |= {"disabled_reason": None, "disabled_at": None}
            elif changes.get("enabled") is False and before.disabled_reason is None:
                data |= {"disabled_reason": DISABLED_BY_KEY, "disabled_at": time.time()}
            pipe.multi()
            pipe.hset(key, endpoint_id, orjson.dumps(data))
            found.append((before, Endpoint.from_dict(data)))

        self.client.transaction(change, key)
        return found[0]

    def disable(self, owner: str, endpoint_id: str, reason: str) -> None:
        endpoint = self.endpoint(owner, endpoint_id)
        if endpoint is None or endpoint.disabled_reason is not None:
            return
        data = {**endpoint.to_dict(), "disabled_reason": reason, "disabled_at": time.time()}
        self.client.hset(webhook_endpoints(owner), endpoint_id, orjson.dumps(data))

    def delete_endpoint(self, owner: str, endpoint_id: str) -> bool:
        """Delete the endpoint, its deliveries and its queues; False if there was none."""
        queues = self.client.smembers(webhook_queues(owner, endpoint_id))
        keys = [
            webhook_deliveries(owner, endpoint_id),
            webhook_log(owner, endpoint_id),
            webhook_queues(owner, endpoint_id),
            *(webhook_queue(owner, endpoint_id, str(game)) for game in queues),
        ]
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hdel(webhook_endpoints(owner), endpoint_id)
            pipe.hdel(webhook_pending(owner), endpoint_id, f"seq:{endpoint_id}")
            for key in keys:
                pipe.delete(key)
            found = pipe.execute()[0]
        return bool(found)

    # -- deliveries -------------------------------------------------------------------

    def cursor(self, owner: str, game_id: str) -> str:
        """How much of the game's log became deliveries ("" if none of it yet)."""
        raw = self.client.hget(webhook_cursors(owner), game_id)
        return "" if raw is None else str(raw)

    def dispatch(
        self,
        owner: str,
        game_id: str,
        expected: str,
        cursor: str,
        deliveries: dict[str, list[Message]],
        most_pending: int,
    ) -> list[int] | None:
        """Record ``deliveries`` (by endpoint id) and move the game's cursor from
        ``expected`` to ``cursor``, at once; None if another dispatch moved it first.
        Returns, per endpoint in order, how many of the game's deliveries waited before
        (-1: the endpoint has ``most_pending`` waiting, and got none)."""
        now = time.time()
        keys = [webhook_cursors(owner), webhook_pending(owner), webhook_due(owner)]
        args: list[Any] = [
            game_id,
            expected,
            cursor,
            self.ttl,
            most_pending,
            LOG_LENGTH,
            int(now * 1000),
        ]
        for endpoint_id, messages in deliveries.items():
            keys += [
                webhook_deliveries(owner, endpoint_id),
                webhook_log(owner, endpoint_id),
                webhook_queue(owner, endpoint_id, game_id),
                webhook_queues(owner, endpoint_id),
            ]
            args += [endpoint_id, len(messages)]
            for message in messages:
                args += [message.id, orjson.dumps(new_delivery(message, now))]
        result = self._dispatch(keys=keys, args=args)
        if result == 0:
            return None
        return [int(r) for r in result]

    def log_alone(self, owner: str, endpoint_id: str, message: Message) -> dict[str, Any]:
        """A delivery of ``message`` in the endpoint's log and in no game's queue (a ping,
        whose attempt is a redelivery's); returns it."""
        delivery = new_delivery(message, time.time())
        keys = [
            webhook_deliveries(owner, endpoint_id),
            webhook_log(owner, endpoint_id),
            webhook_pending(owner),
        ]
        args: list[Any] = [message.id, orjson.dumps(delivery), endpoint_id, self.ttl, LOG_LENGTH]
        self._log_alone(keys=keys, args=args)
        return delivery

    def head(self, owner: str, endpoint_id: str, game_id: str) -> dict[str, Any] | None:
        """The delivery first in the game's queue to the endpoint, or None."""
        message_id = self.client.lindex(webhook_queue(owner, endpoint_id, game_id), 0)
        if message_id is None:
            return None
        return self.delivery(owner, endpoint_id, str(message_id))

    def delivery(self, owner: str, endpoint_id: str, message_id: str) -> dict[str, Any] | None:
        raw = self.client.hget(webhook_deliveries(owner, endpoint_id), message_id)
        return None if raw is None else dict(orjson.loads(raw))

    def settle(
        self,
        owner: str,
        endpoint_id: str,
        delivery: dict[str, Any],
        *,
        leaves: bool,
        due: float | None = None,
    ) -> int:
        """Store ``delivery`` after an attempt, and take it off its queue if it
        ``leaves`` it (delivered, or given up). The queue's head is due next at ``due``
        (UNIX time; None: now, and only if ``delivery`` left the head: a redelivery's
        attempt keeps the run's schedule). Returns how many of its game's wait."""
        game_id = delivery["game"]
        keys = [
            webhook_deliveries(owner, endpoint_id),
            webhook_queue(owner, endpoint_id, game_id),
            webhook_pending(owner),
            webhook_queues(owner, endpoint_id),
            webhook_due(owner),
        ]
        args = [
            delivery["id"],
            orjson.dumps(delivery),
            "1" if leaves else "0",
            endpoint_id,
            game_id,
            self.ttl,
            int((time.time() if due is None else due) * 1000),
            "0" if due is None else "1",
        ]
        return int(self._settle(keys=keys, args=args))

    def drop_queue(self, owner: str, endpoint_id: str, game_id: str) -> None:
        """Forget what waits in the game's queue (its endpoint is gone, or its game)."""
        keys = [
            webhook_queue(owner, endpoint_id, game_id),
            webhook_queues(owner, endpoint_id),
            webhook_due(owner),
            webhook_pending(owner),
        ]
        self._drop(keys=keys, args=[endpoint_id, game_id])

    def queued_games(self, owner: str, endpoint_id: str) -> list[str]:
        """The games whose deliveries to the endpoint have a queue."""
        return sorted(str(g) for g in self.client.smembers(webhook_queues(owner, endpoint_id)))

    def queue(self, owner: str, endpoint_id: str, game_id: str) -> list[str]:
        """The ids of the messages waiting in the game's queue to the endpoint."""
        return [
            str(m) for m in self.client.lrange(webhook_queue(owner, endpoint_id, game_id), 0, -1)
        ]

    def rewrite_deliveries(
        self,
        owner: str,
        endpoint_id: str,
        match: str,
        rewrite: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> int:
        """Replace each of the endpoint's deliveries whose message id matches the glob
        ``match`` with what ``rewrite`` makes of it; returns how many."""
        key = webhook_deliveries(owner, endpoint_id)
        found = 0
        for message_id, raw in self.client.hscan_iter(key, match=match, count=200):
            self.client.hset(key, message_id, orjson.dumps(rewrite(orjson.loads(raw))))
            found += 1
        return found

    # -- deleted games ----------------------------------------------------------------

    def gone(self, owner: str, game_id: str) -> float | None:
        """Until when a deleted game's deliveries are tried (None: it is not deleted)."""
        raw = self.client.hget(webhook_gone(owner), game_id)
        return None if raw is None else float(raw)

    def mark_gone(self, owner: str, game_id: str, until: float) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(webhook_gone(owner), game_id, until)
            pipe.expire(webhook_gone(owner), self.ttl)
            pipe.execute()

    def not_gone(self, owner: str, game_id: str) -> None:
        self.client.hdel(webhook_gone(owner), game_id)

    def forget_game(self, owner: str, game_id: str) -> None:
        """Forget how far the game's log was dispatched, and that it was deleted."""
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hdel(webhook_cursors(owner), game_id)
            pipe.hdel(webhook_gone(owner), game_id)
            pipe.execute()

    def deliveries(
        self, owner: str, endpoint_id: str, *, before: int | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """The endpoint's deliveries, newest first, each with its number (``seq``, in
        the order they were made); only those numbered below ``before`` if given."""
        top = f"({before}" if before is not None else "+inf"
        found = cast(
            "list[tuple[str, float]]",
            self.client.zrevrangebyscore(
                webhook_log(owner, endpoint_id), top, "-inf", start=0, num=limit, withscores=True
            ),
        )
        if not found:
            return []
        raw = self.client.hmget(webhook_deliveries(owner, endpoint_id), [i for i, _ in found])
        return [
            {**orjson.loads(r), "seq": int(seq)}
            for r, (_, seq) in zip(raw, found, strict=True)
            if r is not None
        ]


class TooManyEndpointsError(RuntimeError):
    """A service key has as many webhook endpoints as the service allows."""

    def __init__(self, most: int) -> None:
        super().__init__(f"at most {most} endpoints")
        self.most = most


def new_delivery(message: Message, now: float) -> dict[str, Any]:
    """A delivery of ``message``, not attempted yet."""
    return {
        "id": message.id,
        "type": message.type,
        "game": message.game_id,
        "body": message.body,
        "status": "pending",
        "created_at": now,
        "next_attempt_at": now,
        "attempts": [],
    }
