"""The analysis of every legal move of a seat: the expert's estimate of each, not only of
the one it would play.

:func:`analyse` values every legal move of the seat to play with the expert's own
pieces (:mod:`service.bots.expert`), from the seat's
:class:`~service.engine.knowledge.Knowledge` alone, so it never depends on a card the
seat cannot see:

* *sampled* (cards are hidden): every move is played in the same worlds, the hidden
  cards dealt at random consistently with what the seat has seen
  (:func:`~service.bots.worlds.sample_world`), and each hand is finished with the greedy
  policy for every seat, as the expert's rollouts do. Common random numbers: every
  evaluated move meets the same worlds, so the *differences* between moves (``gap``)
  are far less noisy than their values. Unlike the expert's search, there is no
  successive halving: each evaluated move gets every world, so that each estimate
  comes with its standard error. A move's value is the mean over the worlds of the
  hand point margin of the seat's side (its hand points minus the best other side's:
  partners count as one side, as in :func:`~service.bots.playout.margin`). Where the
  expert itself searches with a tree (the whole deck dealt at once:
  :func:`~service.bots.ismcts.grows_tree`), the analysis still plays every move in
  every world: a tree visits the moves it likes most, so it has no estimate with an
  uncertainty for the others. Nor does it stop at the end of a deal where the expert's
  playouts do (classic Scopa: :mod:`service.bots.deal_end`): it plays every hand to its
  end, so that each category's points are counted, not modelled. Its best move can
  then differ from the hint's.
* *exact* (nothing is hidden: :func:`~service.bots.expert.is_determined`): the minimax
  value of each move (as :func:`~service.bots.expert.solve` values it, each with a full
  window), its uncertainty 0; its points by category are those of the end of the hand
  on the principal line (both sides playing the minimax moves).

The points by category are those the margin counts
(:func:`~service.engine.scoring.played_points`): docs/rules.md R7 (cards, coins,
settebello, primiera, scopas), the options that score (re_bello, napola) and the
variant's lines that come from the pile (Cirulla's grande and piccola, C7.2, C7.3), for
the seat's side (``points``) and for the best other side in each world (``others``); so
a value is the sum of ``points`` minus the sum of ``others``. The lines settled before
the first card (Cirulla's dealer bonus and declarations) are not in it: no move changes
them.

The budget is counted in work, as the expert's: plies of the playouts, so a seed always
gives the same analysis unless a wall clock cuts in. With ``budget_ms`` the analysis
affords ``budget_ms * PLIES_PER_MS`` plies: at least :data:`MIN_WORLDS` worlds for each
move it evaluates, in the order of :func:`~service.bots.expert.ordered_candidates`
(the greedy player's choice first, then every card's best move, ...), so a position
with thousands of legal moves has only its first ones evaluated. The wall clock only
stops it early: a soft cap (``cap_factor`` times the budget, at least
:data:`~service.bots.expert.MIN_CAP_MS`) and the hard ``deadline_seconds``, the
earlier of the two, read after each playout (and in the exact solver every
:data:`~service.bots.expert.CHECK_EVERY` units of work). Once it expires, the moves
evaluated in every world so far are kept (in the first world, those played so far) and
the rest are answered unevaluated. The exact solver takes no budget, only the clock.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from ..engine import Knowledge, Move
from ..engine.hand import HAND_OVER, Hand
from ..engine.legal import moves_of
from ..engine.scoring import played_points
from .clock import Clock
from .expert import (
    CHECK_EVERY,
    DEADLINE_SECONDS,
    MIN_CAP_MS,
    PLIES_PER_MS,
    OutOfTime,
    Solver,
    is_determined,
    ordered_candidates,
    playout_plies,
)
from .playout import play_out
from .worlds import sample_world

#: The fewest worlds the budget gives each evaluated move (unless it affords fewer for
#: the first move alone): below this a standard error means little.
MIN_WORLDS = 8
#: The soft wall-clock cap, in multiples of the budget (as the expert's).
CAP_FACTOR = 3.0
#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054

SAMPLED = "sampled"
EXACT = "exact"


@dataclass(frozen=True)
class MoveEstimate:
    """One legal move and what the analysis found of it (all None, and ``worlds`` 0,
    when it was not evaluated)."""

    code: int
    move: Move
    #: Mean hand point margin of the seat's side (exact: the minimax margin).
    value: float | None
    #: Standard error of ``value`` (0 when exact; None with a single world).
    std_error: float | None
    #: A 95% interval for the expected margin, ``value`` +- 1.96 standard errors.
    low: float | None
    high: float | None
    #: The best move's value minus this one's, and the standard error of that
    #: difference, measured world by world (paired).
    gap: float | None
    gap_std_error: float | None
    #: The worlds this move was played in.
    worlds: int
    #: Mean points by category of the seat's side, and of the best other side.
    points: dict[str, float] | None
    others: dict[str, float] | None

    @property
    def evaluated(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class Analysis:
    seat: int
    #: :data:`SAMPLED` or :data:`EXACT`.
    method: str
    #: Every legal move: the evaluated ones best first, then the others in the order
    #: the search would have tried them.
    moves: tuple[MoveEstimate, ...]
    #: How many moves were evaluated.
    evaluated: int
    #: The worlds every evaluated move was played in (1 when exact).
    worlds: int
    #: The wall clock (the soft cap or the deadline) stopped the analysis early.
    cut: bool
    #: The categories of ``points`` and ``others``, in scoring order.
    categories: tuple[str, ...]


def analyse(
    knowledge: Knowledge,
    rng: random.Random,
    budget_ms: float,
    deadline_seconds: float = DEADLINE_SECONDS,
    *,
    cap_factor: float | None = CAP_FACTOR,
    plies_per_ms: float = PLIES_PER_MS,
) -> Analysis:
    """Every legal move of ``knowledge``'s seat, which is to play, with its estimated
    margin, uncertainty and points by category (see the module docstring).
    ``cap_factor`` None: no soft cap, only the deadline."""
    started = time.perf_counter()
    limit = deadline_seconds
    if cap_factor is not None:
        limit = min(limit, max(budget_ms * cap_factor, MIN_CAP_MS) / 1000.0)
    deadline = started + limit
    legal = Hand.from_knowledge(knowledge).legal_codes()
    # One draw from the caller's generator, whatever the analysis does after it.
    local = random.Random(rng.getrandbits(64))
    first = sample_world(knowledge, local)
    order = ordered_candidates(first, legal)
    side = knowledge.teams[knowledge.seat]
    if is_determined(knowledge):
        clock = Clock(deadline, every=CHECK_EVERY)
        results = _exact(first, order, knowledge.teams, side, clock)
        method, worlds = EXACT, 1
    else:
        clock = Clock(deadline)
        ply_budget = max(1, int(budget_ms * plies_per_ms))
        results, worlds = _sampled(knowledge, first, order, side, local, ply_budget, clock)
        method = SAMPLED
    categories = tuple(played_points(knowledge.variant, [0, 0], [0, 0], knowledge.rules)[0])
    moves = _estimates(order, results, exact=method == EXACT)
    return Analysis(
        seat=knowledge.seat,
        method=method,
        moves=moves,
        evaluated=len(results),
        worlds=worlds if results else 0,
        cut=clock.expired,
        categories=categories,
    )


#: What one move met in each world: its margins, and the points by category of the
#: seat's side and of the best other side.
_Outcomes = tuple[list[int], list[dict[str, int]], list[dict[str, int]]]


def _outcome(
    hand: Hand, teams: tuple[int, ...], side: int
) -> tuple[int, dict[str, int], dict[str, int]]:
    """The margin of ``side`` in the finished ``hand`` (as
    :func:`~service.bots.playout.margin`), its points by category and the best other
    side's (the first of the best, on a tie)."""
    team_count = max(teams) + 1
    piles, scopas = hand.team_piles(list(teams), team_count)
    points = played_points(hand.variant, piles, scopas, hand.rules)
    totals = [sum(p.values()) for p in points]
    other = max((s for s in range(team_count) if s != side), key=totals.__getitem__)
    return totals[side] - totals[other], points[side], points[other]


def _finish(world: Hand, code: int) -> Hand:
    """``code`` played in a copy of ``world`` and the hand finished greedily."""
    hand = world.copy()
    if not hand.push(code) & HAND_OVER:
        play_out(hand)
    return hand


def _sampled(
    knowledge: Knowledge,
    first: Hand,
    order: list[int],
    side: int,
    rng: random.Random,
    ply_budget: int,
    clock: Clock,
) -> tuple[dict[int, _Outcomes], int]:
    """Play the first moves of ``order`` the budget affords in the same sampled worlds
    (``first`` the first of them). Returns each evaluated move's outcomes, and the
    number of worlds."""
    affordable = max(1, ply_budget // playout_plies(knowledge))
    candidates = order[: max(1, affordable // MIN_WORLDS)]
    rounds = max(2, affordable // len(candidates))
    results: dict[int, _Outcomes] = {code: ([], [], []) for code in candidates}
    worlds = 0
    world = first
    for _ in range(rounds):
        played = []
        for code in candidates:
            played.append(_outcome(_finish(world, code), knowledge.teams, side))
            if clock.tick():
                break
        # A world cut short would favour the moves played in it; but in the first
        # world, the ones played are all there is to go by.
        if len(played) == len(candidates) or not worlds:
            candidates = candidates[: len(played)]
            for code, (value, own, other) in zip(candidates, played, strict=False):
                margins, owns, others = results[code]
                margins.append(value)
                owns.append(own)
                others.append(other)
            worlds += 1
        if clock.expired:
            break
        world = sample_world(knowledge, rng)
    return {code: results[code] for code in candidates}, worlds


def _exact(
    world: Hand, order: list[int], teams: tuple[int, ...], side: int, clock: Clock
) -> dict[int, _Outcomes]:
    """The minimax margin of each move of ``order`` in the fully known ``world``, with
    the points at the end of its principal line, until the clock expires."""
    solver = Solver(teams, side, clock)
    results: dict[int, _Outcomes] = {}
    try:
        for code in order:
            value, leaf = solver.line_after(world, code, -math.inf, math.inf)
            _, own, other = _outcome(leaf, teams, side)
            results[code] = ([int(value)], [own], [other])
    except OutOfTime:
        pass
    return results


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def _std_error(values: list[int]) -> float | None:
    """The standard error of the mean of ``values`` (None with fewer than 2)."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def _mean_points(points: list[dict[str, int]]) -> dict[str, float]:
    return {name: sum(p[name] for p in points) / len(points) for name in points[0]}


def _estimates(
    order: list[int], results: dict[int, _Outcomes], *, exact: bool
) -> tuple[MoveEstimate, ...]:
    """Every move of ``order``: the evaluated ones by value, best first (a tie keeps
    ``order``), then the others in ``order``. ``exact``: the values are minimax values,
    their uncertainty 0."""
    ranked = sorted(results, key=lambda code: -_mean(results[code][0]))  # stable
    best = results[ranked[0]][0] if ranked else []
    moves = {code: moves_of([code])[0] for code in order}
    estimates = []
    for code in ranked:
        margins, owns, others = results[code]
        value = _mean(margins)
        error = 0.0 if exact else _std_error(margins)
        gaps = [b - m for b, m in zip(best, margins, strict=False)]
        gap_error = 0.0 if exact else _std_error(gaps)
        estimates.append(
            MoveEstimate(
                code=code,
                move=moves[code],
                value=value,
                std_error=error,
                low=None if error is None else value - Z95 * error,
                high=None if error is None else value + Z95 * error,
                gap=_mean(gaps) if gaps else None,
                gap_std_error=gap_error,
                worlds=len(margins),
                points=_mean_points(owns),
                others=_mean_points(others),
            )
        )
    for code in order:
        if code not in results:
            estimates.append(
                MoveEstimate(code, moves[code], None, None, None, None, None, None, 0, None, None)
            )
    return tuple(estimates)
