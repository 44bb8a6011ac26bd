"""The index of the games each service key created, newest first, for its listings
(``GET /v1/games``): Redis sorted sets of game ids scored by their creation time.

Keys (named by :mod:`.keys`; all of one service key's indexes share a Redis Cluster
slot, so a listing reads one shard)::

    keys.listing(<key>)                       sorted set: every game the key created
    keys.listing(<key>, <player>)             sorted set: its games with a seat of that
                                              player id
    keys.listing(<key>, over=True)            sorted set: its finished and aborted games
                                              (what an export reads)
    keys.listing(<key>, <player>, over=True)  sorted set: those with a seat of that player

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

from . import keys

Client = redis.Redis | redis.RedisCluster

#: How many members a listing reads from its index at a time.
BATCH = 200


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
            for key in keys.listings(owner, player_ids, over=over):
                pipe.zadd(key, {game_id: created_ms}, nx=True)
                pipe.expire(key, self.ttl)
            pipe.execute()

    def remove(self, owner: str, game_id: str, player_ids: Iterable[str | None]) -> None:
        """Take a deleted game out of its indexes."""
        with self.client.pipeline(transaction=False) as pipe:
            for key in keys.every_listing(owner, player_ids):
                pipe.zrem(key, game_id)
            pipe.execute()

    def remove_players(self, owner: str, game_id: str, player_ids: Iterable[str]) -> None:
        """Take a game out of the indexes of players who left its seats."""
        with self.client.pipeline(transaction=False) as pipe:
            for player in player_ids:
                pipe.zrem(keys.listing(owner, player), game_id)
                pipe.zrem(keys.listing(owner, player, over=True), game_id)
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
