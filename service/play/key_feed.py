"""A service key's feed: every event of every game the key owns, in one Redis stream,
for ``GET /v1/events`` (service/api/resources/feed).

- What it holds: each event of the games' logs as a spectator sees it (no card dealt to
  a hand: :func:`~service.engine.event_view` for no seat, applied before it is written),
  with the game's id. Each game's events are in the order of its log: an append names
  where in the log it starts, and the feed takes it only from where it holds that game
  to (:data:`_APPEND`); a commit's events that come after another's that is not in yet
  (two instances committing one game back to back) are appended with those, read from
  the log.
- When: only while the key's feed is kept, from the first stream of the key opened
  (:meth:`KeyFeed.keep`) until :data:`KEPT_SECONDS` after the last one's last keep-alive.
  A key nobody follows costs its commits one script call that finds nothing to do.
- How much: the last :data:`KEPT_ENTRIES`. The id of the last entry trimmed off is kept,
  and so is when keeping began: a stream resumed from before either is told it missed
  events (:meth:`KeyFeed.missed`).
- Every append publishes the feed's last id on the key's shard channel, which the live
  hub listens to (:mod:`.live`), so a stream waits holding no connection.

Keys (named by :mod:`.keys`, all in the owner's slot): ``key_feed`` (the stream: ``g`` the
game's id, ``e`` the event's JSON, its ``seq`` included), ``key_feed_state`` (``since``:
the id keeping began at, ``trimmed``: the last id trimmed off), ``key_feed_cursor`` (per
game: the log's length the feed holds, expiring with the feed).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import orjson

from ..engine import Event, event_view
from . import keys
from .connections import Client
from .steps import Step
from .store import PUBLISH_LUA, GameNotFoundError, GameStore

#: How long a key's feed is kept after its streams' last keep-alive.
KEPT_SECONDS = 3600
#: The entries a key's feed keeps at most (the oldest are trimmed off).
KEPT_ENTRIES = 10_000
#: A feed's id as a client sends it back (``Last-Event-ID``): "<ms>-<n>".
ID = re.compile(r"^[0-9]{1,19}-[0-9]{1,19}$")
#: The id before every entry.
START = "0-0"

#: Appends a game's events, if the feed is kept and they follow on from what it holds.
#: KEYS: the state, the game's cursor, the stream; ARGV: the game's id, the log position
#: of the first event given, the log's length after the last, the channel, the entries
#: kept at most, the seconds kept, then each event's JSON. Returns -2 (not kept: nothing
#: done), -1 (held already), 0 (appended), or the position the feed holds the game to,
#: before the first given: the caller reads the log from there and calls again.
_APPEND = (
    PUBLISH_LUA
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local first, stop = tonumber(ARGV[2]), tonumber(ARGV[3])
local held = tonumber(redis.call('GET', KEYS[2]) or ARGV[2])
if held >= stop then return -1 end
if held < first then return held end
local last
for i = 7 + held - first, #ARGV do
  last = redis.call('XADD', KEYS[3], '*', 'g', ARGV[1], 'e', ARGV[i])
end
local over = redis.call('XLEN', KEYS[3]) - tonumber(ARGV[5])
if over > 0 then
  local gone = redis.call('XRANGE', KEYS[3], '-', '+', 'COUNT', over)
  redis.call('HSET', KEYS[1], 'trimmed', gone[#gone][1])
  redis.call('XTRIM', KEYS[3], 'MAXLEN', ARGV[5])
end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[6])
publish(ARGV[4], last)
return 0
"""
)

#: Keeps the feed (KEYS: the state, the stream) for ARGV[2] seconds more, keeping from
#: ARGV[1] on if it was not kept.
_KEEP = """
redis.call('HSETNX', KEYS[1], 'since', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1
"""


class Entry(NamedTuple):
    """One event of the feed: its id, its game's, and the event as a spectator sees it."""

    id: str
    game_id: str
    event: Event


class Read(NamedTuple):
    """A read of a key's feed: its entries after a place, and the last id trimmed off
    (None: none was)."""

    entries: list[Entry]
    trimmed: str | None


def older(a: str, b: str) -> bool:
    """Whether the feed id ``a`` comes before ``b``."""
    return tuple(map(int, a.split("-"))) < tuple(map(int, b.split("-")))


def trimmed_past(trimmed: str | None, after: str) -> bool:
    """Whether entries after the id ``after`` were trimmed off (``trimmed``: the last
    id trimmed, None if none was)."""
    return trimmed is not None and not older(trimmed, after)


class KeyFeed:
    """The service keys' feeds on the games' Redis (``store``'s)."""

    def __init__(self, store: GameStore) -> None:
        self._store = store

    def append(self, step: Step) -> None:
        """After a commit of ``step``: its events to its owner's feed, if it is kept (with
        the game's events before them that the feed does not hold yet; a step of no
        events, such as a background job's after its commits, brings the feed up to
        the game's log)."""
        game = step.game
        owner = game.owner
        if owner is None:
            return
        client = self._store.redis
        first, events = step.first_seq, list(step.events)
        while True:
            held = self._append(client, owner, game.id, first, game.logged, events)
            if held < 0:
                return
            # Another commit's events before these are not in yet: in with these.
            try:
                _, before = self._store.events(game.id, held)
            except GameNotFoundError:
                return  # deleted meanwhile: its streams hear of it no more
            events = before[: first - held] + list(step.events)
            first = held

    def _append(
        self,
        client: Client,
        owner: str,
        game_id: str,
        first: int,
        stop: int,
        events: Sequence[Event],
    ) -> int:
        shown = [
            orjson.dumps({"seq": seq, **event_view(event, None)})
            for seq, event in enumerate(events, first)
        ]
        script = client.register_script(_APPEND)
        names = [
            keys.key_feed_state(owner),
            keys.key_feed_cursor(owner, game_id),
            keys.key_feed(owner),
        ]
        channel = keys.key_feed_channel(owner)
        args: list[Any] = [game_id, first, stop, channel, KEPT_ENTRIES, KEPT_SECONDS, *shown]
        return int(script(keys=names, args=args))

    def keep(self, owner: str) -> None:
        """Keep ``owner``'s feed for :data:`KEPT_SECONDS` more (a stream opened, or one
        sent its keep-alive), from now on if it was not kept."""
        script = self._store.shared.register_script(_KEEP)
        since = f"{int(time.time() * 1000)}-0"
        script(keys=[keys.key_feed_state(owner), keys.key_feed(owner)], args=[since, KEPT_SECONDS])

    def last(self, owner: str) -> str:
        """The id of the feed's last entry (:data:`START` if it has none)."""
        found = self._store.shared.xrevrange(keys.key_feed(owner), count=1)
        return str(found[0][0]) if found else START

    def missed(self, owner: str, after: str) -> bool:
        """Whether events after the id ``after`` may be missing from the feed: it was
        not kept then, or they were trimmed off."""
        state = {
            str(k): str(v)
            for k, v in self._store.shared.hgetall(keys.key_feed_state(owner)).items()
        }
        since, trimmed = state.get("since"), state.get("trimmed")
        if since is None:
            return True  # not kept now: nothing says what was kept
        return trimmed_past(trimmed, after) or (older(after, since) and after != START)

    def read(self, owner: str, after: str, count: int) -> Read:
        """Up to ``count`` entries after the id ``after``, oldest first, and the last id
        trimmed off, read at once."""
        with self._store.shared.pipeline(transaction=False) as pipe:
            pipe.xread({keys.key_feed(owner): after}, count=count)
            pipe.hget(keys.key_feed_state(owner), "trimmed")
            found, trimmed = pipe.execute()
        entries = found[0][1] if found else []
        return Read([Entry(str(i), f["g"], orjson.loads(f["e"])) for i, f in entries], trimmed)
