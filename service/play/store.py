"""The game store: one Redis hash and one event list per game, changed only by
:meth:`GameStore.commit`, a compare-and-set on the game's version.

Keys (the id in braces keeps a game's keys in one Redis Cluster slot)::

    scopa:game:{<id>}          hash: v = version, s = state JSON (hidden cards included),
                               w = the id of the write that stored them,
                               idem:<hash> = the answer kept for an Idempotency-Key
    scopa:game:{<id>}:events   list of event JSON, oldest first
    scopa:creation:{<hash>}    the id of the game a creation's Idempotency-Key created

A game's keys expire ``ttl`` seconds after its last write; a creation's, ``ttl`` seconds
after the creation.
"""

from __future__ import annotations

import secrets
import threading

import orjson
import redis

from ..engine import Event
from .game import Game
from .idempotency import Answer, IdempotentRequest
from .steps import Step

KEY_PREFIX = "scopa:game:"
#: A creation's Idempotency-Key (its keyed hash) -> the id of the game it created.
CREATION_PREFIX = "scopa:creation:"

#: KEYS[1] the game hash, KEYS[2] its event list.
#: ARGV[1] the version the caller read ("" for a new game), ARGV[2] the new version,
#: ARGV[3] the new state JSON, ARGV[4] the TTL in seconds, ARGV[5] this write's id,
#: ARGV[6] a field to set in the hash with the write ("" for none), ARGV[7] its value,
#: ARGV[8..] events to append.
#: Writes only if the stored version is still ARGV[1]; returns 1 if it wrote, else 0.
#: The same write sent again (redis-py retries a command whose reply was lost on a
#: broken connection) finds its own id stored, and returns 1 without writing twice.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'v') or ''
if current ~= ARGV[1] then
  if current == ARGV[2] and redis.call('HGET', KEYS[1], 'w') == ARGV[5] then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'w', ARGV[5])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[6], ARGV[7])
end
if #ARGV >= 8 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 8))
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""


class GameNotFoundError(LookupError):
    """No game is stored under this id (never created, or expired)."""


class VersionConflictError(RuntimeError):
    """The game's version changed between the read and the write: another write won."""


def key_for(game_id: str) -> str:
    return f"{KEY_PREFIX}{{{game_id}}}"


def events_key_for(game_id: str) -> str:
    return key_for(game_id) + ":events"


class GameStore:
    """Reads and commits games in Redis.

    Each thread talks to Redis over a connection of its own, taken once from ``pool``
    (redis-py's single-connection client): a pool checkout per command cost about a
    third of redis-py's own time per command. Pipelines borrow from the same pool."""

    def __init__(self, pool: redis.ConnectionPool, ttl_seconds: int) -> None:
        self.pool = pool
        self.ttl = ttl_seconds
        self._local = threading.local()
        self._cas = redis.Redis(connection_pool=pool).register_script(_COMPARE_AND_SET)

    @property
    def redis(self) -> redis.Redis:
        """This thread's client (its connection goes back to the pool with the thread)."""
        client: redis.Redis | None = getattr(self._local, "client", None)
        if client is None:
            client = redis.Redis(connection_pool=self.pool, single_connection_client=True)
            self._local.client = client
        return client

    def close(self) -> None:
        """Close every connection of the pool (a thread's next command reconnects)."""
        self.pool.disconnect()

    def load(self, game_id: str) -> Game:
        """The game as last committed; GameNotFoundError if there is none."""
        version, state = self.redis.hmget(key_for(game_id), ["v", "s"])
        if version is None or state is None:
            raise GameNotFoundError(game_id)
        return Game.from_state(game_id, int(version), orjson.loads(state))

    def commit(
        self,
        step: Step,
        *,
        request: IdempotentRequest | None = None,
        answer: Answer | None = None,
    ) -> None:
        """Store ``step``: its game as the next version, its events appended to the log,
        and for an idempotent ``request`` its ``answer``, all at once, if nobody
        committed since the game was read; else raise VersionConflictError and change
        nothing. A new game (at version 1) is stored only if its id is free.

        This is the one place a change to a game is committed."""
        game = step.game
        expected = str(game.version - 1) if game.version > 1 else ""
        field, value = "", b""
        if request is not None:
            assert answer is not None, "an idempotent request keeps its answer"
            field, value = request.record(answer)
        args: list[str | int | bytes] = [
            expected,
            game.version,
            orjson.dumps(game.to_state()),
            self.ttl,
            secrets.token_hex(8),
            field,
            value,
        ]
        args += [orjson.dumps(e) for e in step.events]
        keys = [key_for(game.id), events_key_for(game.id)]
        if not self._cas(keys=keys, args=args, client=self.redis):
            raise VersionConflictError(game.id)

    def events(self, game_id: str, start: int = 0) -> tuple[int, list[Event]]:
        """The game's version and its event log from position ``start`` on (0: the
        whole log), oldest first."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(key_for(game_id), "v")
            pipe.lrange(events_key_for(game_id), start, -1)
            version, raw = pipe.execute()
        if version is None:
            raise GameNotFoundError(game_id)
        return int(version), [orjson.loads(e) for e in raw]

    def earlier_answer(self, game_id: str, request: IdempotentRequest) -> Answer | None:
        """The answer kept for ``request`` by an earlier commit to the game, or None;
        raises IdempotencyKeyReusedError when its key answered another request."""
        stored = self.redis.hget(key_for(game_id), request.field)
        return None if stored is None else request.replay(str(stored))

    def claim_creation(self, request: IdempotentRequest, game_id: str) -> str:
        """The id of the game the creation ``request`` names: ``game_id`` if the request
        is new (it is recorded, for as long as a game lives), else the id recorded by
        the first request with the same key (that game may not be committed yet)."""
        name = CREATION_PREFIX + "{" + request.field.removeprefix("idem:") + "}"
        while not self.redis.set(name, game_id, nx=True, ex=self.ttl):
            earlier = self.redis.get(name)
            if earlier is not None:  # else it expired just now: claim it again
                return str(earlier)
        return game_id
