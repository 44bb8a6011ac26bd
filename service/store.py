"""The game store: one Redis hash and one event list per game, changed only by
compare-and-set on the game's version.

Keys (the id in braces keeps a game's keys in one Redis Cluster slot)::

    scopa:game:{<id>}          hash: v = version, s = state JSON (hidden cards included),
                               w = the id of the write that stored them
    scopa:game:{<id>}:events   list of event JSON, oldest first

Both expire ``ttl`` seconds after the last write.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from typing import Any

import orjson
import redis

KEY_PREFIX = "scopa:game:"

#: KEYS[1] the game hash, KEYS[2] its event list, KEYS[3] (optional) a record to set
#: with the write, such as the response kept for an Idempotency-Key.
#: ARGV[1] the version the caller read ("" for a new game), ARGV[2] the new version,
#: ARGV[3] the new state JSON, ARGV[4] the TTL in seconds, ARGV[5] the record's value
#: (ignored without KEYS[3]), ARGV[6] this write's id, ARGV[7..] events to append.
#: Writes only if the stored version is still ARGV[1]; returns 1 if it wrote, else 0.
#: The same write sent again (redis-py retries a command whose reply was lost on a
#: broken connection) finds its own id stored, and returns 1 without writing twice.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'v') or ''
if current ~= ARGV[1] then
  if current == ARGV[2] and redis.call('HGET', KEYS[1], 'w') == ARGV[6] then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'w', ARGV[6])
if #ARGV >= 7 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 7))
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if #KEYS >= 3 then
  redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[4])
end
return 1
"""


class GameNotFoundError(LookupError):
    """No game is stored under this id (never created, or expired)."""


class VersionConflictError(RuntimeError):
    """The game's version changed between the read and the write: another move won."""


def key_for(game_id: str) -> str:
    return f"{KEY_PREFIX}{{{game_id}}}"


def events_key_for(game_id: str) -> str:
    return key_for(game_id) + ":events"


def record_key_for(game_id: str, name: str) -> str:
    """A record kept beside a game (in its cluster slot), such as an idempotent response."""
    return key_for(game_id) + ":" + name


def new_game_id() -> str:
    """128 random bits, URL-safe: ids are not guessable nor enumerable."""
    return secrets.token_urlsafe(16)


@dataclass
class StoredGame:
    id: str
    version: int
    state: dict[str, Any]


class GameStore:
    """Reads and writes games in Redis. Every write is a compare-and-set.

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

    def create(
        self, state: dict[str, Any], events: list[dict[str, Any]], game_id: str | None = None
    ) -> StoredGame:
        """Store a new game at version 1 under ``game_id`` (VersionConflictError if it is
        taken), or under a fresh id."""
        if game_id is not None:
            return self.save(StoredGame(game_id, 0, state), events)
        while True:
            game = StoredGame(new_game_id(), 0, state)
            try:
                return self.save(game, events)
            except VersionConflictError:  # an id collision: ~never with 128 bits
                continue

    def load(self, game_id: str) -> StoredGame:
        version, state = self.redis.hmget(key_for(game_id), ["v", "s"])
        if version is None or state is None:
            raise GameNotFoundError(game_id)
        return StoredGame(game_id, int(version), orjson.loads(state))

    def save(
        self,
        game: StoredGame,
        events: list[dict[str, Any]],
        record: tuple[str, str] | None = None,
    ) -> StoredGame:
        """Write ``game.state`` as the version after ``game.version``, append ``events``
        and set ``record`` (a key beside the game, and its value), if nobody wrote since
        ``game.version`` was read; else raise VersionConflictError. All or nothing."""
        expected = str(game.version) if game.version else ""
        new_version = game.version + 1
        state = orjson.dumps(game.state)
        keys = [key_for(game.id), events_key_for(game.id)]
        write_id = secrets.token_hex(8)
        args: list[str | int | bytes] = [expected, new_version, state, self.ttl, "", write_id]
        if record is not None:
            keys.append(record[0])
            args[4] = record[1]
        args += [orjson.dumps(e) for e in events]
        written = self._cas(keys=keys, args=args, client=self.redis)
        if not written:
            raise VersionConflictError(game.id)
        return StoredGame(game.id, new_version, game.state)

    def events(self, game_id: str) -> tuple[int, list[dict[str, Any]]]:
        """The game's version and its whole event log, oldest first."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(key_for(game_id), "v")
            pipe.lrange(events_key_for(game_id), 0, -1)
            version, raw = pipe.execute()
        if version is None:
            raise GameNotFoundError(game_id)
        return int(version), [orjson.loads(e) for e in raw]

    def record(self, key: str) -> str | None:
        """A record set by :meth:`save`, or None."""
        value = self.redis.get(key)
        return None if value is None else str(value)

    def ping(self) -> bool:
        return bool(self.redis.ping())
