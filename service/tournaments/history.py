"""Each entrant's tournament so far, round by round, as the pairing rules and the
tie-breaks read it: the :class:`Outcome` of every round, drawn from the
:class:`~.records.Played` records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .records import Entrant, Played


class Kind(Enum):
    """How an entrant's round went."""

    GAME = "game"  # played over the table
    BYE = "bye"  # no opponent (the pairing left the entrant out)
    FORFEIT_WIN = "forfeit win"  # the opponent did not play
    FORFEIT_LOSS = "forfeit loss"  # the entrant did not play
    ABSENT = "absent"  # not paired at all (withdrawn): a zero-point bye in FIDE's terms


@dataclass(frozen=True, slots=True)
class Outcome:
    """One entrant's round: its kind, the opponent (None for a bye or an absence), the
    points awarded, and for a game the seat (0 first, 1 second), the game points and
    the scopas the entrant made."""

    round: int
    kind: Kind
    opponent: str | None
    points: float
    seat: int | None = None
    game_points: int = 0
    scopas: int = 0

    @property
    def played(self) -> bool:
        """A game played over the table."""
        return self.kind is Kind.GAME

    @property
    def voluntary(self) -> bool:
        """A voluntary unplayed round (FIDE C.07 art. 16.1.2): a forfeit loss or an
        absence."""
        return self.kind in (Kind.FORFEIT_LOSS, Kind.ABSENT)


#: Each entrant's outcomes, by id, then by round.
History = dict[str, dict[int, Outcome]]


def check_entrants(entrants: Sequence[Entrant]) -> None:
    """Raise ValueError unless the ids are distinct and the seeds are distinct and
    positive."""
    ids = [e.id for e in entrants]
    seeds = [e.seed for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError(f"entrant ids repeat: {sorted(ids)}")
    if len(set(seeds)) != len(seeds) or any(s < 1 for s in seeds):
        raise ValueError(f"seeds must be distinct and >= 1: {sorted(seeds)}")


def _sides(record: Played, known: set[str]) -> list[str]:
    """The ids of the record, checked against the entrants and the winner."""
    sides = [record.first] if record.second is None else [record.first, record.second]
    if record.round < 1 or any(s not in known for s in sides) or len(set(sides)) < len(sides):
        raise ValueError(f"not a pairing of these entrants: {record}")
    if record.winner is not None and record.winner not in sides:
        raise ValueError(f"the winner is not a side: {record}")
    if record.second is None and record.forfeit:
        raise ValueError(f"a bye cannot be a forfeit: {record}")
    return sides


def _outcome(record: Played, entrant: str, bye_points: float) -> Outcome:
    won = record.winner == entrant
    if record.second is None:
        return Outcome(record.round, Kind.BYE, None, bye_points)
    opponent = record.opponent(entrant)
    if record.forfeit:
        kind = Kind.FORFEIT_WIN if won else Kind.FORFEIT_LOSS
        return Outcome(record.round, kind, opponent, 1.0 if won else 0.0)
    seat = record.side(entrant)
    return Outcome(
        record.round,
        Kind.GAME,
        opponent,
        1.0 if won else 0.0,
        seat,
        record.points[seat],
        record.scopas[seat],
    )


def history(
    entrants: Sequence[Entrant],
    played: Iterable[Played],
    *,
    bye_points: float,
    before: int | None = None,
    absent_through: int | None = None,
) -> tuple[History, int]:
    """The decided outcomes of every entrant (of rounds before ``before``, if given),
    and the last round the decided records reach.

    A bye scores ``bye_points``. With ``absent_through``, an entrant named by no record
    of a round up to that round (or to the last round, if later) is ``ABSENT`` in it (0
    points), unless it has an undecided record there. Raises ValueError for a record
    that names an unknown entrant, a winner that is not a side, or an entrant twice in
    one round.
    """
    known = {e.id for e in entrants}
    found: History = {e.id: {} for e in entrants}
    undecided: set[tuple[str, int]] = set()
    last = 0
    for record in played:
        if before is not None and record.round >= before:
            continue
        if record.winner is not None:
            last = max(last, record.round)
        for entrant in _sides(record, known):
            if record.round in found[entrant] or (entrant, record.round) in undecided:
                raise ValueError(f"{entrant} is paired twice in round {record.round}")
            if record.winner is None:
                undecided.add((entrant, record.round))
            else:
                found[entrant][record.round] = _outcome(record, entrant, bye_points)
    if absent_through is not None:
        for entrant, rounds in found.items():
            for n in range(1, max(last, absent_through) + 1):
                if n not in rounds and (entrant, n) not in undecided:
                    rounds[n] = Outcome(n, Kind.ABSENT, None, 0.0)
    return found, last


def score(outcomes: dict[int, Outcome], before: int | None = None) -> float:
    """The points of these outcomes (of the rounds before ``before``, if given)."""
    return sum(o.points for n, o in outcomes.items() if before is None or n < before)
