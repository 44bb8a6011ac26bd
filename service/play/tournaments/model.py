"""A tournament as stored: what its key set it up with, its entrants, and each round's
tables with their games and results. Plain frozen values, kept as JSON
(:meth:`Tournament.to_json`); :mod:`.progress` makes each next state, :mod:`.store`
keeps it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

import orjson

from ...tournaments import Entrant, Played


class Format(StrEnum):
    """How a tournament pairs its rounds (docs/platforms.md "Ratings and tournaments")."""

    SWISS = "swiss"
    ROUND_ROBIN = "round_robin"
    SINGLE_ELIMINATION = "single_elimination"


class Stage(StrEnum):
    """Where a tournament stands."""

    #: Its rounds are being played (the first may wait for its ``start_at``).
    PLAYING = "playing"
    FINISHED = "finished"
    #: Stopped by its key: no round after the one it stopped in.
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Member:
    """A player of an entrant: one for Scopa, two for a Scopone pair."""

    player_id: str
    name: str
    #: A computer player's level, if a computer plays for them (a club's house player,
    #: or a test's).
    bot: str | None = None


@dataclass(frozen=True)
class Entry:
    """An entrant: its number (its seed, 1 the strongest), name, players and rating at
    the start; withdrawn after a round (not paired from the next), or not."""

    number: int
    name: str
    members: tuple[Member, ...]
    rating: float
    withdrawn_after: int | None = None

    @property
    def key(self) -> str:
        """Its id for the pairing and standings functions: its number, as text."""
        return str(self.number)


@dataclass(frozen=True)
class Result:
    """How a table ended: the winning entrant's number (None: no winner, the game was
    aborted or lost), each side's game points and scopas, and whether it was decided
    without play (a bye, or a withdrawn opponent's game)."""

    winner: int | None
    points: tuple[int, int] = (0, 0)
    scopas: tuple[int, int] = (0, 0)
    forfeit: bool = False


@dataclass(frozen=True)
class Table:
    """A pairing of a round: the entrant on the first seats (seat 0, and 2 in Scopone),
    the one on the others (None: a bye), its game's id, and its result once over."""

    table: int
    first: int
    second: int | None
    game_id: str | None = None
    result: Result | None = None


@dataclass(frozen=True)
class Round:
    """A round: its tables, when it starts (None: at once), when it was paired, whether
    its games were all made, and when it finished."""

    number: int
    tables: tuple[Table, ...]
    start_at: float | None = None
    paired_at: float = 0.0
    made: bool = False
    finished_at: float | None = None

    @property
    def over(self) -> bool:
        return all(t.result is not None for t in self.tables)


@dataclass(frozen=True)
class Tournament:
    """A tournament of a service key (see the module)."""

    id: str
    owner: str
    name: str
    format: Format
    variant: str
    #: Players a side: 1 (a two-player game) or 2 (Scopone pairs, four-player games).
    side_size: int
    entries: tuple[Entry, ...]
    total_rounds: int
    target: int | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    clock: int | None = None
    rated: bool = False
    public: bool = True
    metadata: dict[str, str] = field(default_factory=dict)
    #: When each round after the first may start at the earliest (UNIX times).
    round_starts: tuple[float, ...] = ()
    created_at: float = 0.0
    stage: Stage = Stage.PLAYING
    rounds: tuple[Round, ...] = ()
    finished_at: float | None = None
    #: Its version: each change stores the next one, if the stored one is still this.
    version: int = 1

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None

    def entry(self, number: int) -> Entry:
        return self.entries[number - 1]

    def seat_players(self, table: Table) -> list[Member]:
        """The players of a table's game, seat by seat: the first side on seats 0 (and 2),
        the second on 1 (and 3)."""
        assert table.second is not None, "a bye has no game"
        first = self.entry(table.first).members
        second = self.entry(table.second).members
        return [side[n] for n in range(len(first)) for side in (first, second)]

    def entrants(self) -> list[Entrant]:
        """Its entrants as the pairing and standings functions take them."""
        return [Entrant(e.key, e.rating, e.number) for e in self.entries]

    def withdrawn(self, before_round: int) -> frozenset[str]:
        """The entrants not paired in ``before_round``: withdrawn after an earlier one."""
        return frozenset(
            e.key
            for e in self.entries
            if e.withdrawn_after is not None and e.withdrawn_after < before_round
        )

    def played(self) -> list[Played]:
        """Every table with its result, as the pairing and standings functions take it."""
        found = []
        for round_ in self.rounds:
            for t in round_.tables:
                if t.result is None:
                    continue
                found.append(
                    Played(
                        round=round_.number,
                        first=str(t.first),
                        second=None if t.second is None else str(t.second),
                        winner=None if t.result.winner is None else str(t.result.winner),
                        points=t.result.points,
                        scopas=t.result.scopas,
                        forfeit=t.result.forfeit and t.second is not None,  # (a bye is one)
                    )
                )
        return found

    def next_version(self, **changes: Any) -> Tournament:
        return replace(self, version=self.version + 1, **changes)

    def to_json(self) -> str:
        return orjson.dumps(asdict(self)).decode()

    @classmethod
    def from_json(cls, raw: str | bytes) -> Tournament:
        data = orjson.loads(raw)
        entries = tuple(
            Entry(**{**e, "members": tuple(Member(**m) for m in e["members"])})
            for e in data.pop("entries")
        )
        rounds = tuple(
            Round(
                **{
                    **r,
                    "tables": tuple(
                        Table(
                            **{
                                **t,
                                "result": None
                                if t["result"] is None
                                else Result(
                                    **{
                                        **t["result"],
                                        "points": tuple(t["result"]["points"]),
                                        "scopas": tuple(t["result"]["scopas"]),
                                    }
                                ),
                            }
                        )
                        for t in r["tables"]
                    ),
                }
            )
            for r in data.pop("rounds")
        )
        return cls(
            **{
                **data,
                "format": Format(data["format"]),
                "stage": Stage(data["stage"]),
                "round_starts": tuple(data["round_starts"]),
                "entries": entries,
                "rounds": rounds,
            }
        )
