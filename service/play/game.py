"""A game as the service keeps it: the match, who sits where (a person with a secret
token, or a computer player), and the version every write moves on by one.

A game created with open seats waits in a :class:`Lobby` until people take them: its
match is set up and dealt only then, so no card exists before every seat is taken."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field, replace
from typing import Any

from ..engine import Match, Status


class UnauthorizedError(PermissionError):
    """The token is missing, or it is not one of this game's seat tokens."""


class NotStartedError(RuntimeError):
    """The match waits for people to take its open seats: nothing is dealt yet."""


class NotStartedYetError(RuntimeError):
    """The match was created to start later (``start_at``): no move before then."""

    def __init__(self, start_at: float) -> None:
        super().__init__(start_at)
        self.start_at = start_at


class MatchAbortedError(RuntimeError):
    """The game was aborted by the service key that created it: nothing more happens
    in it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Lobby:
    """A game waiting for people: its seats so far, and how its match is set up once
    every seat is taken."""

    #: ``Match.new``'s arguments but the names, as JSON (``Setup.to_dict``).
    setup: dict[str, Any]
    #: Each seat's name; None while the seat is open.
    names: tuple[str | None, ...]

    @property
    def open_seats(self) -> list[int]:
        return [seat for seat, name in enumerate(self.names) if name is None]

    def to_dict(self) -> dict[str, Any]:
        return {"setup": self.setup, "names": list(self.names)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Lobby:
        return cls(data["setup"], tuple(data["names"]))


def hash_token(token: str) -> str:
    """Seat tokens are kept only as SHA-256 hashes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


#: The attributes a game's stored state holds only when they are set (not None), under
#: their names.
_STORED_WHEN_SET = (
    "previous",
    "next",
    "host",
    "payer",
    "owner",
    "created_at",
    "aborted",
    "start_at",
    "tournament",
)


@dataclass(frozen=True)
class Game:
    """One stored game at one version. The match is the engine's full state, hidden cards
    included: what a viewer may see of it is decided by ``service.engine.views``."""

    id: str
    #: 1 once created; every write adds one.
    version: int
    #: None while the game waits in its lobby for people (see :attr:`playing`).
    match: Match | None
    #: Each seat's computer player level, or None for a person.
    bots: tuple[str | None, ...]
    #: Each person's token hash (None for a computer player's seat, and an open one).
    token_hashes: tuple[str | None, ...]
    #: The open seats and the match's setup, until every seat is taken; then None.
    lobby: Lobby | None = None
    #: False: every view of the game needs a seat's token.
    spectators: bool = True
    #: The game this one is the rematch of, and the rematch of this one, if any.
    previous: str | None = None
    next: str | None = None
    #: The wins of each team in the matches before this one in its series (the games it
    #: is the rematch of, one after another); empty for a series' first match.
    series: tuple[int, ...] = ()
    #: Seconds a person has for each move, if the match has a clock; and when the turn
    #: of the person to play now runs out (UNIX time), if it does.
    clock: int | None = None
    deadline: float | None = None
    #: How many events the game's log holds at this version (the store keeps it beside
    #: the state; each step adds its events).
    logged: int = 0
    #: The seat of whoever created a game with open seats (the first person's seat named
    #: at creation), who may rotate its join code; None without one.
    host: int | None = None
    #: How many times the join code was rotated: mixed into it (see ``join_code``).
    join_generation: int = 0
    #: Who pays for the game's background play (its computer players' moves, its clock's
    #: timeouts), against their budget (service/play/budget.py): the creator's address as
    #: the rate limits key it ("a:..."), or its service key ("key:<name>").
    #: None for a game stored before payers existed: charged to nobody.
    payer: str | None = None
    #: The name of the service key that created the game, which may read and play every
    #: seat of it, abort, delete and list it; None for a game created without a key.
    owner: str | None = None
    #: Each seat's id in the platform that created the game (a service key), or None;
    #: empty: none was given. Shown only to the owner and to that seat itself.
    player_ids: tuple[str | None, ...] = ()
    #: What the platform attached to the game at creation: a flat map of text.
    metadata: dict[str, str] = field(default_factory=dict)
    #: When the game was created (UNIX time); None for a game stored before it was kept.
    created_at: float | None = None
    #: The reason its owner gave when it aborted the game; None unless it was aborted.
    aborted: str | None = None
    #: When the match starts (UNIX time), if it was created to start later: no move
    #: before then, and the first turn's clock starts then.
    start_at: float | None = None
    #: The game moves its players' ratings when it finishes (service/play/ratings.py):
    #: a service key's game whose every seat has a player id.
    rated: bool = False
    #: The tournament this game is a round's game of (service/play/tournaments/), if any.
    tournament: str | None = None

    @property
    def status(self) -> Status:
        """Where the game stands: waiting for people, playing, finished, or aborted."""
        if self.aborted is not None:
            return Status.ABORTED
        if self.match is None:
            return Status.WAITING
        return self.match.status

    def check_live(self, now: float | None = None) -> None:
        """Raise MatchAbortedError if the game was aborted: nothing more happens in it;
        with ``now``, NotStartedYetError before its start."""
        if self.aborted is not None:
            raise MatchAbortedError(self.aborted)
        if now is not None and self.start_at is not None and now < self.start_at:
            raise NotStartedYetError(self.start_at)

    def player_id(self, seat: int) -> str | None:
        """``seat``'s platform id, or None."""
        return self.player_ids[seat] if seat < len(self.player_ids) else None

    @property
    def playing(self) -> Match:
        """The match; NotStartedError while the game waits for people."""
        if self.match is None:
            raise NotStartedError(self.id)
        return self.match

    def overdue(self, now: float) -> bool:
        """The person to play has let their time run out."""
        return self.deadline is not None and now >= self.deadline

    def seat_of(self, token: str | None) -> int:
        """The seat ``token`` belongs to; raises UnauthorizedError. Constant-time compares."""
        if not token:
            raise UnauthorizedError("no token")
        digest = hash_token(token)
        seat = None
        for index, stored_hash in enumerate(self.token_hashes):
            if stored_hash is not None and hmac.compare_digest(digest, stored_hash):
                seat = index
        if seat is None:
            raise UnauthorizedError("unknown token")
        return seat

    @property
    def bot_to_move(self) -> bool:
        """The match goes on and the seat to play is a computer player's."""
        match = self.match
        if match is None or match.status is not Status.PLAYING or match.turn is None:
            return False
        if self.aborted is not None:
            return False
        return bool(self.bots[match.turn])

    def next_version(self) -> Game:
        """This game as the next write stores it (its match as it is now)."""
        return replace(self, version=self.version + 1)

    # -- storage ------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """What the store keeps under the game's id, hidden cards and token hashes included."""
        state: dict[str, Any] = {
            "match": None if self.match is None else self.match.to_dict(),
            "tokens": list(self.token_hashes),
            "bots": list(self.bots),
        }
        # Only what differs from a plain game: a game stored before lobbies existed
        # loads and stores again as it was.
        if self.lobby is not None:
            state["lobby"] = self.lobby.to_dict()
        if not self.spectators:
            state["spectators"] = False
        if self.clock is not None:
            state["clock"] = self.clock
            state["deadline"] = self.deadline
        if self.join_generation:
            state["join_generation"] = self.join_generation
        if any(self.player_ids):
            state["player_ids"] = list(self.player_ids)
        if self.metadata:
            state["metadata"] = self.metadata
        if self.series:
            state["series"] = list(self.series)
        if self.rated:
            state["rated"] = True
        for name in _STORED_WHEN_SET:
            value = getattr(self, name)
            if value is not None:
                state[name] = value
        return state

    @classmethod
    def from_state(cls, game_id: str, version: int, state: dict[str, Any], logged: int = 0) -> Game:
        lobby = state.get("lobby")
        return cls(
            id=game_id,
            version=version,
            match=None if state["match"] is None else Match.from_dict(state["match"]),
            bots=tuple(state["bots"]),
            token_hashes=tuple(state["tokens"]),
            lobby=None if lobby is None else Lobby.from_dict(lobby),
            spectators=state.get("spectators", True),
            previous=state.get("previous"),
            next=state.get("next"),
            series=tuple(state.get("series", ())),
            clock=state.get("clock"),
            deadline=state.get("deadline"),
            logged=logged,
            host=state.get("host"),
            join_generation=state.get("join_generation", 0),
            payer=state.get("payer"),
            owner=state.get("owner"),
            player_ids=tuple(state.get("player_ids", ())),
            metadata=state.get("metadata", {}),
            created_at=state.get("created_at"),
            aborted=state.get("aborted"),
            start_at=state.get("start_at"),
            rated=state.get("rated", False),
            tournament=state.get("tournament"),
        )
