"""Tournaments on the games' Redis: each one a JSON string under its id, with the list
of what happened to it (its webhooks read it as they read a game's log). A change is
stored only over the version it was made from (:meth:`TournamentStore.save`), so that
two workers advancing one tournament at once make one next round, not two. Each write
renews its time to live, the games' (``GAME_TTL_SECONDS`` after its last change).

Keys (named by :mod:`..keys`, in the tournament's slot): ``tournament`` (its JSON) and
``tournament_events`` (a list of event JSON, oldest first).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import orjson

from .. import keys
from ..connections import Client
from .model import Tournament

#: Stores a tournament over the version it was made from, appending its events.
#: KEYS: the tournament, its events; ARGV: the version it was made from (0: a new one),
#: its JSON, the time to live, then each event's JSON. Returns the events' log length
#: after (-1: the stored version is another).
_SAVE = """
local stored = redis.call('GET', KEYS[1])
local expected = tonumber(ARGV[1])
if expected == 0 then
  if stored then return -1 end
else
  if not stored then return -1 end
  if cjson.decode(stored)['version'] ~= expected then return -1 end
end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
local length = redis.call('LLEN', KEYS[2])
for i = 4, #ARGV do length = redis.call('RPUSH', KEYS[2], ARGV[i]) end
if length > 0 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return length
"""

#: The most index entries a page of a key's tournaments reads.
SCANNED = 200
#: A tournament's id: "trn_" and 96 random bits, URL-safe.
PREFIX = "trn_"


class TournamentNotFoundError(LookupError):
    """No tournament is stored under this id (never made, expired, or another key's)."""


class TournamentChangedError(RuntimeError):
    """The tournament changed since it was read: read it again."""


def new_tournament_id() -> str:
    return PREFIX + secrets.token_urlsafe(12)


def is_tournament_id(name: str) -> bool:
    return name.startswith(PREFIX)


class TournamentStore:
    """The tournaments (see the module)."""

    def __init__(self, client: Client, ttl_seconds: int) -> None:
        self.redis = client
        self.ttl = ttl_seconds
        self._save = client.register_script(_SAVE)

    def load(self, tournament_id: str, owner: str | None = None) -> Tournament:
        """The tournament; TournamentNotFoundError if none, or if ``owner`` is given and
        is not its key."""
        raw = (
            self.redis.get(keys.tournament(tournament_id))
            if is_tournament_id(tournament_id)
            else None
        )
        if raw is None:
            raise TournamentNotFoundError(tournament_id)
        found = Tournament.from_json(raw)
        if owner is not None and found.owner != owner:
            raise TournamentNotFoundError(tournament_id)
        return found

    def save(
        self, tournament: Tournament, events: Sequence[dict[str, Any]] = (), *, new: bool = False
    ) -> int:
        """Store ``tournament`` (made from the version before its own, or ``new``) with
        ``events`` appended to its log; its log's length after. TournamentChangedError if
        the stored version is not the one it was made from."""
        expected = 0 if new else tournament.version - 1
        length = self._save(
            keys=[keys.tournament(tournament.id), keys.tournament_events(tournament.id)],
            args=[
                expected,
                tournament.to_json(),
                self.ttl,
                *(orjson.dumps(e).decode() for e in events),
            ],
        )
        if int(length) < 0:
            raise TournamentChangedError(tournament.id)
        return int(length)

    def delete(self, tournament: Tournament) -> None:
        """Remove the tournament, its log and its entry in its key's index (a creation
        whose games could not be made)."""
        self.redis.delete(keys.tournament(tournament.id))
        self.redis.delete(keys.tournament_events(tournament.id))
        self.redis.zrem(keys.tournaments(tournament.owner), tournament.id)

    def index(self, tournament: Tournament) -> None:
        """List the new ``tournament`` among its key's (scored by its creation in ms; the
        index expires with the last tournament made)."""
        name = keys.tournaments(tournament.owner)
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(name, {tournament.id: int(tournament.created_at * 1000)})
            pipe.expire(name, self.ttl)
            pipe.execute()

    def page(
        self, owner: str, limit: int, after: tuple[int, str] | None = None
    ) -> tuple[list[Tournament], tuple[int, str] | None]:
        """Up to ``limit`` of ``owner``'s tournaments, newest first, after the position
        ``after`` (a creation time in ms and an id; None: the newest), and the position
        of the last one when more may follow. One that expired is dropped from the index
        as the page meets it. It reads at most :data:`SCANNED` index entries."""
        name = keys.tournaments(owner)
        top = "+inf" if after is None else after[0]
        read: Any = self.redis.zrevrangebyscore(
            name, top, "-inf", start=0, num=SCANNED, withscores=True
        )
        rows: list[tuple[str, float]] = [(str(member), score) for member, score in read]
        full = len(rows) == SCANNED  # (more may follow what it read)
        if after is not None:  # its own millisecond: the ids after its own (Redis's order)
            rows = [r for r in rows if int(r[1]) < after[0] or r[0] < after[1]]
        found: list[Tournament] = []
        last: tuple[int, str] | None = None
        for tournament_id, score in rows:
            if len(found) == limit:
                return found, last
            raw = self.redis.get(keys.tournament(tournament_id))
            if raw is None:
                self.redis.zrem(name, tournament_id)
            else:
                found.append(Tournament.from_json(raw))
            last = (int(score), tournament_id)
        return found, (last if full else None)

    def events(self, tournament_id: str, start: int = 0) -> list[dict[str, Any]]:
        """What happened to the tournament from position ``start`` of its log on."""
        raw = self.redis.lrange(keys.tournament_events(tournament_id), start, -1)
        return [orjson.loads(e) for e in raw]
