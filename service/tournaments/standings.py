"""The standings of a tournament: points, then FIDE's tie-breaks (C.07), then the
game points and scopas the entrants made, then the seed.

Tie-breaks (C.07, articles 8.1, 9.1 and 16, read from the current text: the 2023
regulations' handling of unplayed rounds with its later clarifications):

- Buchholz (8.1): the sum of the opponents' scores.
- Sonneborn-Berger (9.1): the sum, over the rounds, of the points the entrant scored
  against each opponent times that opponent's score.

Unplayed rounds (Swiss and elimination; art. 16):

- An opponent's score is *adjusted* (16.3): every round is counted with the points it
  awarded, except an absence (a withdrawn entrant's round, a zero-point bye in FIDE's
  terms) followed only by absences or forfeit losses, or in the last round, which
  counts as a draw (half a point) (16.2.5, 16.3.2).
- The entrant's own unplayed round (bye, forfeit win or loss, absence) is a game against
  a dummy whose score is the entrant's own score (16.4), with the result the points
  awarded; the dummy's score is capped by the scheduled opponent's adjusted score for a
  forfeit (16.4.1) and by half a point times the number of rounds (the draws of a whole
  tournament) for a bye or an absence (16.4.2). The number of rounds is the last round
  the records reach.

In a round robin the pairings are fixed in advance: forfeits count as games (15.2), so
the opponent's plain score is used, and the bye of an odd number (scored 0) adds
nothing. (FIDE does not use Buchholz in round robins, 8; it is computed all the same.)

Points: a win 1, a loss 0 (forfeits included); a bye 1 in a Swiss and in an
elimination (it advances), 0 in a round robin. Records not yet decided are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .history import History, Kind, Outcome, check_entrants, history, score
from .records import Entrant, Played

FORMATS = ("swiss", "round_robin", "elimination")


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line of the standings: its rank (1 first; distinct ranks, equal
    lines ordered by seed), points, Buchholz and Sonneborn-Berger (module docstring),
    the game points and scopas of its games played, the games played over the table,
    its wins and losses (forfeits included: ``played`` counts neither forfeits nor
    byes) and its byes."""

    id: str
    rank: int
    points: float
    buchholz: float
    sonneborn_berger: float
    game_points: int
    scopas: int
    played: int
    wins: int
    losses: int
    byes: int


def _adjusted(outcomes: dict[int, Outcome], rounds: int) -> float:
    """The score an entrant counts for in its opponents' tie-breaks (art. 16.3): an
    absence followed only by voluntary unplayed rounds, or in the last round, is a
    draw."""
    total = score(outcomes)
    for n, outcome in outcomes.items():
        if outcome.kind is Kind.ABSENT and all(
            outcomes[later].voluntary for later in range(n + 1, rounds + 1) if later in outcomes
        ):
            total += 0.5
    return total


def _opponent_score(
    outcome: Outcome, own: float, adjusted: dict[str, float], rounds: int, fixed: bool
) -> float | None:
    """The score of this round's opponent, or of the dummy standing in for it (art.
    16.4); None for a round that does not count (a round robin's bye)."""
    if fixed:  # a round robin: forfeits are games (art. 15.2)
        return None if outcome.opponent is None else adjusted[outcome.opponent]
    if outcome.played and outcome.opponent is not None:
        return adjusted[outcome.opponent]
    if outcome.opponent is not None:  # a forfeit: capped by the scheduled opponent
        return min(own, adjusted[outcome.opponent])
    return min(own, 0.5 * rounds)  # a bye or an absence


def _tie_breaks(
    entrant: str, past: History, adjusted: dict[str, float], rounds: int, fixed: bool
) -> tuple[float, float]:
    """Buchholz and Sonneborn-Berger of ``entrant``."""
    own = score(past[entrant])
    buchholz = sonneborn_berger = 0.0
    for outcome in past[entrant].values():
        opponent = _opponent_score(outcome, own, adjusted, rounds, fixed)
        if opponent is not None:
            buchholz += opponent
            sonneborn_berger += outcome.points * opponent
    return buchholz, sonneborn_berger


def _reached(outcomes: dict[int, Outcome]) -> int:
    """The elimination round an entrant reached: its last round, plus one if it came
    through it (a winner of the final is ahead of the finalist)."""
    if not outcomes:
        return 0
    last = outcomes[max(outcomes)]
    return last.round + (1 if last.points > 0 else 0)


def _line(
    entrant: Entrant, outcomes: dict[int, Outcome], tie_breaks: tuple[float, float]
) -> Standing:
    games = [o for o in outcomes.values() if o.played]
    paired = [o for o in outcomes.values() if o.opponent is not None]
    return Standing(
        id=entrant.id,
        rank=0,
        points=score(outcomes),
        buchholz=tie_breaks[0],
        sonneborn_berger=tie_breaks[1],
        game_points=sum(o.game_points for o in games),
        scopas=sum(o.scopas for o in games),
        played=len(games),
        wins=sum(o.points > 0 for o in paired),
        losses=sum(o.points == 0 for o in paired),
        byes=sum(o.kind is Kind.BYE for o in outcomes.values()),
    )


def standings(entrants: Sequence[Entrant], played: Iterable[Played], format: str) -> list[Standing]:
    """The standings of every entrant (withdrawn ones included), best first.

    ``format``: "swiss", "round_robin" or "elimination". Order: points, Buchholz,
    Sonneborn-Berger, game points, scopas (all higher first), then seed; in an
    elimination, first the round reached (the winner first, then the finalist, the
    semi-finalists...), then the same order among those who went out in the same
    round. A Swiss entrant with no record in a round (withdrawn) was absent from it.
    """
    if format not in FORMATS:
        raise ValueError(f"format {format!r} is not one of {FORMATS}")
    check_entrants(entrants)
    past, rounds = history(
        entrants,
        played,
        bye_points=0.0 if format == "round_robin" else 1.0,
        absent_through=0 if format == "swiss" else None,
    )
    fixed = format == "round_robin"
    adjusted = {
        e.id: score(past[e.id]) if fixed else _adjusted(past[e.id], rounds) for e in entrants
    }
    lines = {
        e.id: _line(e, past[e.id], _tie_breaks(e.id, past, adjusted, rounds, fixed))
        for e in entrants
    }
    reached = {e.id: _reached(past[e.id]) if format == "elimination" else 0 for e in entrants}

    def order(e: Entrant) -> tuple[float, ...]:
        s = lines[e.id]
        return (
            -reached[e.id],
            -s.points,
            -s.buchholz,
            -s.sonneborn_berger,
            -s.game_points,
            -s.scopas,
            e.seed,
        )

    ranked = sorted(entrants, key=order)
    return [replace(lines[e.id], rank=rank) for rank, e in enumerate(ranked, 1)]
