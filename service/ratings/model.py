"""The rating model (docs/platforms.md "Ratings and tournaments"): OpenSkill's Weng-Lin
Bayesian rating with the Plackett-Luce model (Weng and Lin, "A Bayesian Approximation
Method for Online Ranking", JMLR 12, 2011), through the ``openskill`` library.

Why this model: Scopa is played one against one (2 players), three ways (3 players, each
alone) and in teams (Scopone 2 against 2, and 3 against 3 with 6 players). Plackett-Luce
rates any number of sides of any size from their order at the end, so every game of the
family moves ratings the same way. Glicko-2 (lichess's) rates only one against one.

A rating is a belief about a player's skill: ``mu`` its mean, ``sigma`` its uncertainty
(25 and 25/3 for a new player). What a leaderboard shows is :attr:`Rating.display`,
``mu - 3 * sigma``: a skill the player is very likely to have at least, which grows as
they win and as the service learns more about them. Each game first adds the model's
dynamics factor (``tau`` = 25/300) to every ``sigma``, so that a rating keeps moving
for a player who improves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

#: A new player's belief, and the model's other parameters: the library's defaults,
#: which are the paper's (beta = sigma / 2, kappa = 0.0001, gamma = sigma_team / c).
MU = 25.0
SIGMA = MU / 3
TAU = MU / 300


@dataclass(frozen=True)
class Rating:
    """A player's rating in one variant: the model's mean and uncertainty."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def display(self) -> float:
        """What a leaderboard ranks by: ``mu - 3 sigma``, a conservative estimate."""
        return self.mu - 3 * self.sigma


#: A player with no rated game yet.
DEFAULT = Rating()


@dataclass(frozen=True)
class Seat:
    """A seat of a rated game, as the model sees it: its side and its rating before."""

    team: int
    rating: Rating


def _model(tau: float) -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, tau=tau)


def rate(seats: Sequence[Seat], ranks: Sequence[int], *, tau: float = TAU) -> list[Rating]:
    """Each seat's rating after a game whose sides (``Seat.team``, 0 to n - 1) finished
    in the order ``ranks`` (one per side: 0 the winner; equal ranks, a tie), in seat
    order. ``tau`` 0 leaves out the dynamics factor (the paper's update alone)."""
    model = _model(tau)
    sides: list[list[int]] = [[] for _ in ranks]
    for index, seat in enumerate(seats):
        sides[seat.team].append(index)
    teams = [
        [model.rating(mu=seats[i].rating.mu, sigma=seats[i].rating.sigma) for i in side]
        for side in sides
    ]
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    after: dict[int, Rating] = {}
    for side, team in zip(sides, rated, strict=True):
        for index, player in zip(side, team, strict=True):
            after[index] = Rating(player.mu, player.sigma)
    return [after[index] for index in range(len(seats))]


def ranks_of(winner: int, scores: Sequence[int]) -> list[int]:
    """The order the sides of a finished match end in (0 first): the winner first (a
    side can win outright with fewer points, R9), then the others by their points,
    equal points sharing a place."""
    others = sorted({s for side, s in enumerate(scores) if side != winner}, reverse=True)
    return [0 if side == winner else 1 + others.index(s) for side, s in enumerate(scores)]
