"""Each service key's deliveries made by the key's *run*: at most one rq job of the key's
at once, on the webhooks' queue (:mod:`.jobs`).

A run's job reads the new events of the key's games that changed (``unread``: each
commit marks its game, and wakes the run) into deliveries, and makes the key's attempts
that are due (the redeliveries asked for first, then
the queues whose heads have waited longest), up to :data:`ATTEMPTS_AT_ONCE` at once, never
two of one (endpoint, game) queue, for a turn of :data:`TURN_SECONDS`, then queues the
run's next job at the back of the queue: now if something is due, else for when the
earliest is. So each game's deliveries to an endpoint go in order, and every key with
something due gets a worker in turn: a key whose receivers hang holds one delivery worker
at a time (each attempt 10 s at most), whatever the number of its endpoints and games, and
the keys behind it are served by the others.

Keys (store.py): ``due`` (a sorted set of the key's queues, "<endpoint> <game>", by when
their head is due, in ms), ``redo`` (the redeliveries asked for, "<endpoint> <message>",
each once: asked again within :data:`REDO_SPACING_SECONDS`, it is not asked twice; ``asked``
holds when each was last asked) and ``runner``: "<due ms> <token>", the run's next job is
due then (0: it runs now), and is the one job that holds ``token``; a job whose token is
no longer there ends at once. The runner's record expires :data:`MARGIN_MS` after its
job was due (a job lost for good): the next event or redelivery starts another run.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Collection

from ..connections import Client
from ..keys import webhook_asked, webhook_due, webhook_redo, webhook_runner, webhook_unread
from .store import member

#: How long a run's job starts attempts before it queues the next job of the run.
TURN_SECONDS = 2.0
#: A key's attempts under way at once (each of its own queue: a game's deliveries to an
#: endpoint stay in order): a platform relaying many games gets each one's events as
#: soon as another's, not after them.
ATTEMPTS_AT_ONCE = 16
#: How long a run's record outlives the time its job was due or started.
MARGIN_MS = 60_000
#: A redelivery asked for again within this time of the last is the same (an attempt's
#: deadline: any nearer, and the platform could not have seen the last one's outcome).
REDO_SPACING_SECONDS = 10.0

#: KEYS[1] the runner. ARGV[1] now (ms), ARGV[2] a new token, ARGV[3] the record's TTL
#: (ms). Starts a run (returns the token) unless one runs or is due by now.
_WAKE = """
local value = redis.call('GET', KEYS[1])
if value then
  local due = tonumber(string.match(value, '^(%d+) '))
  if due == 0 or due <= tonumber(ARGV[1]) then
    return false
  end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return ARGV[2]
"""

#: KEYS[1] the runner. ARGV[1] the job's token, ARGV[2] the record's TTL (ms). 1 if the
#: run is the job's (now marked running), else 0.
_CLAIM = """
local value = redis.call('GET', KEYS[1])
if value and string.match(value, ' (.+)$') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], '0 ' .. ARGV[1], 'PX', ARGV[2])
return 1
"""

#: KEYS[1] the runner, KEYS[2] the due set, KEYS[3] the redo set, KEYS[4] the unread
#: games. ARGV[1] the job's token, ARGV[2] now (ms), ARGV[3] not before (ms), ARGV[4] the
#: margin (ms).
#: When the run's next job is due (ms); -1: nothing waits, the run ends; -2: the run is
#: no longer this job's.
_NEXT = """
local value = redis.call('GET', KEYS[1])
if value and string.match(value, ' (.+)$') ~= ARGV[1] then
  return -2
end
local now = tonumber(ARGV[2])
local at = nil
if redis.call('ZCARD', KEYS[3]) > 0 or redis.call('SCARD', KEYS[4]) > 0 then
  at = now
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #first > 0 and (at == nil or tonumber(first[2]) < at) then
  at = tonumber(first[2])
end
if at == nil then
  redis.call('DEL', KEYS[1])
  return -1
end
at = math.max(at, now, tonumber(ARGV[3]))
redis.call('SET', KEYS[1], string.format('%d', at) .. ' ' .. ARGV[1], 'PX',
  string.format('%d', at - now + tonumber(ARGV[4])))
return at
"""

#: KEYS[1] the redo set, KEYS[2] the asked set (member -> when last asked, ms). ARGV[1]
#: the redelivery ("<endpoint> <message>"), ARGV[2] now (ms), ARGV[3] the spacing (ms),
#: ARGV[4] the TTL (s). 1 if asked now, 0 if it was within the spacing.
_ASK = """
local now = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZADD', KEYS[1], 'NX', now, ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""


class Runs:
    """The runs of the service keys' deliveries, on the games' Redis."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._wake = client.register_script(_WAKE)
        self._claim = client.register_script(_CLAIM)
        self._next = client.register_script(_NEXT)
        self._ask = client.register_script(_ASK)

    def wake(self, owner: str, now: float) -> str | None:
        """A token for a new run's job, to queue now; None if a run is on (running, or
        its job due by ``now``)."""
        token = secrets.token_hex(8)
        started = self._wake(keys=[webhook_runner(owner)], args=[_ms(now), token, MARGIN_MS])
        return None if started is None else token

    def claim(self, owner: str, token: str) -> bool:
        """Whether the job holding ``token`` is the key's run (then marked running)."""
        return bool(self._claim(keys=[webhook_runner(owner)], args=[token, MARGIN_MS]))

    def next(self, owner: str, token: str, now: float, not_before: float) -> float | None:
        """When the run's next job is due (UNIX time, not before ``not_before``), the
        record saying so; None if the run ends (nothing waits) or is not ``token``'s."""
        keys = [
            webhook_runner(owner),
            webhook_due(owner),
            webhook_redo(owner),
            webhook_unread(owner),
        ]
        at = int(self._next(keys=keys, args=[token, _ms(now), _ms(not_before), MARGIN_MS]))
        return None if at < 0 else at / 1000.0

    def unread(self, owner: str, most: int) -> list[str]:
        """Up to ``most`` of the key's games whose new events are to be read (each taken:
        a commit after this one marks its game again)."""
        return [str(g) for g in self.client.spop(webhook_unread(owner), most) or []]

    def take(
        self, owner: str, now: float, busy: Collection[str], most: int
    ) -> list[tuple[str, str, str]]:
        """Up to ``most`` things due: ("redo", endpoint, message), the redeliveries asked
        for first (no longer waiting once taken); then ("queue", endpoint, game), the
        queues whose heads are due by ``now``, earliest first, but those in ``busy``
        (members "<endpoint> <game>" with an attempt under way)."""
        found: list[tuple[str, str, str]] = []
        while len(found) < most:
            redo = self.client.zpopmin(webhook_redo(owner))
            if not redo:
                break
            endpoint_id, _, message_id = str(redo[0][0]).partition(" ")
            found.append(("redo", endpoint_id, message_id))
        if len(found) < most:
            due = self.client.zrangebyscore(
                webhook_due(owner), "-inf", _ms(now), start=0, num=most + len(busy)
            )
            for entry in due:
                if str(entry) in busy or len(found) == most:
                    continue
                endpoint_id, _, game_id = str(entry).partition(" ")
                found.append(("queue", endpoint_id, game_id))
        return found

    def ask(self, owner: str, endpoint_id: str, message_id: str, ttl: int) -> bool:
        """Ask for a redelivery; False if one of it was asked for less than
        :data:`REDO_SPACING_SECONDS` ago (waiting, or made since)."""
        keys = [webhook_redo(owner), webhook_asked(owner)]
        now = time.time()
        args: list[str | int] = [
            member(endpoint_id, message_id),
            _ms(now),
            _ms(REDO_SPACING_SECONDS),
            ttl,
        ]
        return bool(self._ask(keys=keys, args=args))

    def due(self, owner: str, endpoint_id: str, game_id: str, when: float) -> None:
        """The queue (or, with endpoint ``*``, the deleted game's sweep) is due at
        ``when``."""
        self.client.zadd(webhook_due(owner), {member(endpoint_id, game_id): _ms(when)})

    def idle(self, owner: str, endpoint_id: str, game_id: str) -> None:
        """The queue is due no more (its endpoint is disabled: it waits)."""
        self.client.zrem(webhook_due(owner), member(endpoint_id, game_id))


def _ms(when: float) -> int:
    return int(when * 1000)
