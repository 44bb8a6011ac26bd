"""Players' ratings, kept per service key, player id and variant: moved once when a rated
game finishes (:meth:`Ratings.settle`), read one player at a time
(:meth:`Ratings.player`) and as a leaderboard (:meth:`Ratings.board`). The model is
:mod:`service.ratings`.

- What moves them: a finished game created ``rated`` (every seat with a player id of its
  own). An aborted game, or one that never finishes, moves nothing.
- Once per game, whoever settles it first: the commit's after-commit step, the webhook
  job making its ``game.over`` message, or a tournament's. A script writes the new
  ratings only if none of the players' ratings in that variant changed since they were
  read (another game of theirs settled meanwhile: read again and rate again), and only if
  the game was not settled already (then its kept outcome is the answer). So a player's
  ratings are the fold of their games in the order those settled, each applied once.
- Kept: the ratings for good (a player's record is what a club keeps); a game's outcome
  for the games' time to live (for its ``game.over`` message).

Keys (named by :mod:`.keys`, all in the owner's slot): ``player_ratings`` (a hash:
variant -> the player's record's JSON, :class:`Record`), ``rating_board`` (a sorted set
per variant: player id -> displayed rating), ``rated_game`` (the game's outcome's JSON).
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import orjson

from ..engine import EventKind, Status
from ..ratings import DEFAULT, Rating, Seat, ranks_of, rate
from . import keys
from .connections import Client
from .game import Game
from .store import GameStore

#: How often a settlement reads and rates again when other games of its players settle
#: meanwhile, before it gives up (the next reader settles it).
ATTEMPTS = 20

#: Writes a game's new ratings unless the game was settled already (returns 0) or one of
#: its players' records changed since read (returns -1); returns 1 once written.
#: KEYS: the game's outcome, the board, then each player's hash; ARGV: the outcome's
#: JSON, its time to live, the variant, then per player its record as read ("" for
#: none), its new record, its displayed rating and its id.
_SETTLE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local n = #KEYS - 2
for i = 1, n do
  local was = redis.call('HGET', KEYS[2 + i], ARGV[3]) or ''
  if was ~= ARGV[4 * i] then return -1 end
end
for i = 1, n do
  redis.call('HSET', KEYS[2 + i], ARGV[3], ARGV[4 * i + 1])
  redis.call('ZADD', KEYS[2], ARGV[4 * i + 2], ARGV[4 * i + 3])
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""

#: A leaderboard's page: the players after the cursor (a score and a player id, or
#: none), highest rating first, equal ratings by player id (higher first, as Redis
#: orders them backwards). KEYS: the board; ARGV: the score ("" for the top), the player
#: id, how many. Returns player id, score, position (0-based), ... flat.
_PAGE = """
local key, score, after, want = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local found = {}
if score == '' then
  found = redis.call('ZRANGE', key, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, want,
    'WITHSCORES')
else
  local same = redis.call('ZRANGE', key, score, score, 'BYSCORE', 'REV', 'WITHSCORES')
  for i = 1, #same, 2 do
    if #found < 2 * want and same[i] < after then
      found[#found + 1] = same[i]
      found[#found + 1] = same[i + 1]
    end
  end
  if #found < 2 * want then
    local rest = redis.call('ZRANGE', key, '(' .. score, '-inf', 'BYSCORE', 'REV', 'LIMIT', 0,
      want - #found / 2, 'WITHSCORES')
    for i = 1, #rest do found[#found + 1] = rest[i] end
  end
end
local out = {}
for i = 1, #found, 2 do
  out[#out + 1] = found[i]
  out[#out + 1] = found[i + 1]
  out[#out + 1] = redis.call('ZREVRANK', key, found[i])
end
return out
"""


@dataclass(frozen=True)
class Record:
    """A player's rating in one variant, and their record in its rated games."""

    mu: float = DEFAULT.mu
    sigma: float = DEFAULT.sigma
    games: int = 0
    wins: int = 0
    losses: int = 0
    scopas: int = 0
    hands: int = 0
    #: The last rated game that moved it, and when (UNIX time).
    last_game: str | None = None
    updated_at: float | None = None

    @property
    def rating(self) -> Rating:
        return Rating(self.mu, self.sigma)

    def to_json(self) -> str:
        return orjson.dumps(asdict(self)).decode()

    @classmethod
    def from_json(cls, raw: str | bytes | None) -> Record:
        return cls() if not raw else cls(**orjson.loads(raw))


@dataclass(frozen=True)
class Change:
    """What a rated game did to one seat's rating."""

    seat: int
    player_id: str
    team: int
    before: Rating
    after: Rating


@dataclass(frozen=True)
class Outcome:
    """What a rated game did to its players' ratings, in seat order."""

    game_id: str
    variant: str
    seats: tuple[Change, ...]

    def to_json(self) -> str:
        return orjson.dumps(
            {
                "game_id": self.game_id,
                "variant": self.variant,
                "seats": [
                    {**asdict(c), "before": asdict(c.before), "after": asdict(c.after)}
                    for c in self.seats
                ],
            }
        ).decode()

    @classmethod
    def from_json(cls, raw: str | bytes) -> Outcome:
        data = orjson.loads(raw)
        seats = tuple(
            Change(
                seat=c["seat"],
                player_id=c["player_id"],
                team=c["team"],
                before=Rating(**c["before"]),
                after=Rating(**c["after"]),
            )
            for c in data["seats"]
        )
        return cls(data["game_id"], data["variant"], seats)


@dataclass(frozen=True)
class Entry:
    """A leaderboard's line: a player, their record, and their place (1: the top)."""

    player_id: str
    place: int
    record: Record


class BadCursorError(ValueError):
    """A leaderboard's cursor this service did not give."""


def rated_players(game: Game) -> list[str] | None:
    """The player ids a finished rated ``game`` rates, in seat order; None when it rates
    nobody (not rated, not finished, or a seat without a player id of its own)."""
    if not game.rated or game.owner is None or game.status is not Status.FINISHED:
        return None
    match = game.playing
    players = [game.player_id(seat) for seat in range(match.players)]
    named = [p for p in players if p]
    if len(named) < len(players) or len(set(named)) < len(named):
        return None
    return named


def _scopas_by_seat(events: Sequence[dict[str, Any]], players: int) -> list[int]:
    """Each seat's scopas in a match's log (its moves marked ``scopa``)."""
    scopas = [0] * players
    for event in events:
        if event.get("type") == EventKind.MOVE and event.get("scopa"):
            scopas[event["seat"]] += 1
    return scopas


class Ratings:
    """The service keys' players' ratings on the games' Redis (see the module)."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self.redis: Client = store.redis
        self._settle = self.redis.register_script(_SETTLE)
        self._page = self.redis.register_script(_PAGE)

    def outcome(self, owner: str, game_id: str) -> Outcome | None:
        """What the game did to its players' ratings, if it was settled (and is kept)."""
        raw = self.redis.get(keys.rated_game(owner, game_id))
        return None if raw is None else Outcome.from_json(raw)

    def settle(self, game: Game, now: float | None = None) -> Outcome | None:
        """Move the ratings of ``game``'s players, if it is a finished rated game not
        settled yet; its outcome (None: it rates nobody, or its players' ratings kept
        changing under it :data:`ATTEMPTS` times: the next caller settles it)."""
        players = rated_players(game)
        if players is None:
            return None
        assert game.owner is not None
        owner = game.owner
        kept = self.outcome(owner, game.id)
        if kept is not None:
            return kept
        match = game.playing
        assert match.winner is not None, "a finished match has its winner"
        variant = match.variant.name
        _, events = self.store.events(game.id)
        scopas = _scopas_by_seat(events, match.players)
        ranks = ranks_of(match.winner, match.scores)
        player_keys = [keys.player_ratings(owner, p) for p in players]
        for _ in range(ATTEMPTS):
            raw = self.raw_records(owner, variant, players)
            records = [Record.from_json(r) for r in raw]
            seats = [Seat(match.teams[s], r.rating) for s, r in enumerate(records)]
            after = rate(seats, ranks)
            when = time.time() if now is None else now
            changes = tuple(
                Change(s, players[s], match.teams[s], records[s].rating, after[s])
                for s in range(match.players)
            )
            outcome = Outcome(game.id, variant, changes)
            args: list[str | float | int] = [outcome.to_json(), self.store.ttl, variant]
            for s, record in enumerate(records):
                won = match.teams[s] == match.winner
                new = replace(
                    record,
                    mu=after[s].mu,
                    sigma=after[s].sigma,
                    games=record.games + 1,
                    wins=record.wins + won,
                    losses=record.losses + (not won),
                    scopas=record.scopas + scopas[s],
                    hands=record.hands + match.hand_number,
                    last_game=game.id,
                    updated_at=when,
                )
                args += [raw[s] or "", new.to_json(), repr(after[s].display), players[s]]
            names = [keys.rated_game(owner, game.id), keys.rating_board(owner, variant)]
            done = self._settle(keys=names + player_keys, args=args)
            if done == 1:
                return outcome
            if done == 0:
                return self.outcome(owner, game.id)
        return None

    def raw_records(self, owner: str, variant: str, players: Sequence[str]) -> list[str | None]:
        """Each player's record in ``variant`` as stored (None: no rated game of it yet),
        read in one round trip."""
        with self.redis.pipeline(transaction=False) as pipe:
            for player in players:
                pipe.hget(keys.player_ratings(owner, player), variant)
            found: list[str | None] = pipe.execute()
        return found

    def records(self, owner: str, variant: str, players: Sequence[str]) -> list[Record]:
        """Each player's record in ``variant`` (a new player's: :class:`Record`'s defaults)."""
        return [Record.from_json(raw) for raw in self.raw_records(owner, variant, players)]

    def player(self, owner: str, player_id: str) -> dict[str, tuple[Record, int]]:
        """``player_id``'s record in each variant it has rated games of, with its place
        on that variant's leaderboard (1: the top)."""
        read: Any = self.redis.hgetall(keys.player_ratings(owner, player_id))
        raw: dict[str, str] = read  # (the games' client decodes: text)
        variants = sorted(raw)
        with self.redis.pipeline(transaction=False) as pipe:
            for variant in variants:
                pipe.zrevrank(keys.rating_board(owner, variant), player_id)
            places = pipe.execute()
        return {
            variant: (Record.from_json(raw[variant]), (place or 0) + 1)
            for variant, place in zip(variants, places, strict=True)
        }

    def board(
        self, owner: str, variant: str, limit: int, cursor: str | None = None
    ) -> tuple[list[Entry], str | None]:
        """A page of ``variant``'s leaderboard after ``cursor`` (None: from the top), and
        the cursor of the next page (None: this one is the last)."""
        score, after = _read_cursor(cursor) if cursor else ("", "")
        board = keys.rating_board(owner, variant)
        flat = self._page(keys=[board], args=[score, after, limit + 1])
        rows = [(str(flat[i]), str(flat[i + 1]), int(flat[i + 2])) for i in range(0, len(flat), 3)]
        more = len(rows) > limit
        rows = rows[:limit]
        records = self.records(owner, variant, [player for player, _, _ in rows])
        entries = [
            Entry(player, place + 1, record)
            for (player, _, place), record in zip(rows, records, strict=True)
        ]
        last = rows[-1] if rows else None
        return entries, (_write_cursor(last[1], last[0]) if more and last else None)


def _write_cursor(score: str, player: str) -> str:
    """A leaderboard cursor: the last line's score and player id, opaque to clients."""
    return base64.urlsafe_b64encode(orjson.dumps([score, player])).decode().rstrip("=")


def _read_cursor(cursor: str) -> tuple[str, str]:
    """The score and player id a cursor holds; BadCursorError if this service did not
    make it."""
    try:
        data = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        score, player = data
        float(score)
    except (binascii.Error, orjson.JSONDecodeError, TypeError, ValueError):
        raise BadCursorError(cursor) from None
    if not isinstance(score, str) or not isinstance(player, str):
        raise BadCursorError(cursor)
    return score, player
