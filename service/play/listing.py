"""The index of the games each service key created, newest first, for its listings
(``GET /v1/games``): Redis sorted sets of game ids scored by their creation time.

Keys (the key's name in braces: all of one key's indexes are in one Redis Cluster slot,
so a listing reads one shard)::

    scopa:owner:{<key>}:games              sorted set: every game the key created
    scopa:owner:{<key>}:player:<player>    sorted set: its games with a seat of that
                                           player id
    scopa:owner:{<key>}:over               sorted set: its finished and aborted games
                                           (what an export reads)
    scopa:owner:{<key>}:over:player:<p>    sorted set: those with a seat of that player

Each member is a game id, scored by the game's creation time in milliseconds; games
created in the same millisecond are in the order of their ids (Redis orders equal
scores so). A listing walks an index from a position (a score and an id, the cursor),
so games created while a client pages through never move a page: they sort before it.

The sets expire with the games: each creation and each commit of a key's game sets the
game's sets to expire the games' TTL after, as the game's own keys do, so a set outlives
every game it names. A member whose game expired before its set did (an older game of a
set that a newer one keeps alive) is removed when a listing meets it
(:meth:`GameIndex.prune`), and a deleted game is removed at once. The status, variant
and metadata of a game are read from the game itself as a listing meets it, never kept
in the index: no write can leave the index saying something its game does not.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import redis

Client = redis.Redis | redis.RedisCluster

PREFIX = "scopa:owner:"
#: How many members a listing reads from its index at a time.
BATCH = 200


def games_key(owner: str) -> str:
    """The index of every game ``owner`` (a service key's name) created."""
    return f"{PREFIX}{{{owner}}}:games"


def player_key(owner: str, player_id: str) -> str:
    """The index of ``owner``'s games with a seat of ``player_id``."""
    return f"{PREFIX}{{{owner}}}:player:{player_id}"


def over_key(owner: str) -> str:
    """The index of ``owner``'s games that are over (finished or aborted)."""
    return f"{PREFIX}{{{owner}}}:over"


def over_player_key(owner: str, player_id: str) -> str:
    """The index of ``owner``'s games that are over with a seat of ``player_id``."""
    return f"{PREFIX}{{{owner}}}:over:player:{player_id}"


def keys_of(owner: str, player_ids: Iterable[str | None], *, over: bool = False) -> list[str]:
    """Every index a game of ``owner`` with seats of ``player_ids`` is in (``over``: the
    indexes of its games that are over)."""
    players = dict.fromkeys(p for p in player_ids if p)  # each once, in seat order
    if over:
        return [over_key(owner), *(over_player_key(owner, p) for p in players)]
    return [games_key(owner), *(player_key(owner, p) for p in players)]


def every_key_of(owner: str, player_ids: Iterable[str | None]) -> list[str]:
    """Every index a game of ``owner`` may be in, over or not."""
    players = list(player_ids)
    return keys_of(owner, players) + keys_of(owner, players, over=True)


@dataclass(frozen=True, order=True)
class Position:
    """A place in an index: a game's creation time (ms) and id. A listing goes on from
    the games after it (created before it, newest first)."""

    score: int
    game_id: str


class GameIndex:
    """The listings' indexes on the games' Redis."""

    def __init__(self, client: Client, ttl_seconds: int) -> None:
        self.client = client
        self.ttl = ttl_seconds

    def add(
        self,
        owner: str,
        game_id: str,
        created_ms: int,
        player_ids: Iterable[str | None],
        *,
        over: bool = False,
    ) -> None:
        """Index a new game (kept at its first score if indexed already: a creation
        retried with its Idempotency-Key); ``over``: in the indexes of games over."""
        with self.client.pipeline(transaction=False) as pipe:
            for key in keys_of(owner, player_ids, over=over):
                pipe.zadd(key, {game_id: created_ms}, nx=True)
                pipe.expire(key, self.ttl)
            pipe.execute()

    def remove(self, owner: str, game_id: str, player_ids: Iterable[str | None]) -> None:
        """Take a deleted game out of its indexes."""
        with self.client.pipeline(transaction=False) as pipe:
            for key in every_key_of(owner, player_ids):
                pipe.zrem(key, game_id)
            pipe.execute()

    def remove_players(self, owner: str, game_id: str, player_ids: Iterable[str]) -> None:
        """Take a game out of the indexes of players who left its seats."""
        with self.client.pipeline(transaction=False) as pipe:
            for player in player_ids:
                pipe.zrem(player_key(owner, player), game_id)
                pipe.zrem(over_player_key(owner, player), game_id)
            pipe.execute()

    def prune(self, key: str, game_ids: list[str]) -> None:
        """Take games that no longer exist out of the index ``key``."""
        if game_ids:
            self.client.zrem(key, *game_ids)

    def walk(
        self,
        key: str,
        *,
        start: Position | None = None,
        newest_ms: int | None = None,
        oldest_ms: int | None = None,
    ) -> Iterator[Position]:
        """The games of the index ``key``, newest first: after ``start`` (exclusive),
        created from ``oldest_ms`` to ``newest_ms`` (inclusive, None: no bound)."""
        low = "-inf" if oldest_ms is None else oldest_ms
        cursor, skip = start, 0
        while True:
            high = newest_ms
            if cursor is not None:
                high = cursor.score if high is None else min(high, cursor.score)
            found: list[tuple[Any, float]] = self.client.zrevrangebyscore(  # type: ignore[assignment]
                key, "+inf" if high is None else high, low, start=skip, num=BATCH, withscores=True
            )
            fresh = 0
            for member, score in found:
                game_id = member.decode() if isinstance(member, bytes) else str(member)
                position = Position(int(score), game_id)
                if cursor is not None and position >= cursor:
                    continue  # at the cursor's score: the games up to the cursor's id
                fresh += 1
                cursor = position
                yield position
            if len(found) < BATCH:
                return
            # Each batch from the last game read, not by offset: games created meanwhile
            # sort before it and shift nothing. (A whole batch of one millisecond, all
            # read already, is passed by offset.)
            skip = 0 if fresh else skip + BATCH
