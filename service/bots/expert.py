"""The expert computer player: determinized Monte Carlo search over the hidden cards.

The expert never looks at a hidden card: it decides from its seat's
:class:`~service.engine.knowledge.Knowledge` alone. For each decision it

1. returns at once when there is a single legal move;
2. solves the position exactly when nothing is hidden any more (the stock is empty and
   at most one other seat holds cards, so the unseen cards are that seat's hand): a
   minimax search of the rest of the hand on the point margin (:func:`solve`);
3. otherwise runs flat Monte Carlo search with *common random numbers* and
   *successive halving* (:meth:`ExpertBot.search`): it deals the unseen cards at
   random into the other hands and the stock (:func:`~service.bots.worlds.sample_world`,
   consistent with everything the seat has seen), plays every candidate move in the
   same sampled worlds, finishes each hand with the greedy policy for every seat
   (:mod:`service.bots.playout`), and scores the candidate by the mean final margin of
   its side (hand points of its side minus the best other side's: partners count as
   one side). After each round the worse half of the candidates is dropped and the
   next rounds' worlds go to the rest. Evaluating all candidates on the same worlds
   makes their *differences* far less noisy than their values.

This is one step of policy improvement over the greedy player (a rollout policy), with
the greedy player as the model of the other seats, plus exact play when the cards are
all known. ISMCTS was considered: in Python a 50 ms budget buys a few hundred playouts,
too few to grow a useful tree, while paired rollouts put every one of them into the
decision at hand.

The budget is counted in simulated moves (plies), never in time, so that a seed always
gives the same move: :data:`PLIES_PER_MS` converts the budget in ms into plies. A
wall-clock cap (``cap_factor`` times the budget) only stops the search early when the
machine is overloaded; the search then answers with what it has.

Tuning (``tests/bench/tournament.py``, 300 seat-swapped deals against the greedy player,
2-player Scopa): successive halving and a uniform split of the playouts scored within
noise of each other (+0.05 +- 0.14 points a hand for halving); twice the default budget
scored the same as the default (+1.16 both), so at 50 ms the search is limited by its
model (greedy playouts), not by its sample size.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator

from ..engine.hand import HAND_OVER, Hand
from ..engine.knowledge import Knowledge
from .playout import greedy_code, margin, play_out, sweepable_cache
from .worlds import sample_world

#: Simulated moves per millisecond of CPU, measured with ``tests/bench/calibrate.py``
#: (expert against greedy, 60 deals after 20 of warm-up, so with the engine's capture
#: caches warm as in a long-lived server) on the development machine, a 2 vCPU Intel
#: Xeon VM with Python 3.11, otherwise idle: six runs gave 193, 201, 207, 250, 254 and
#: 260 plies/ms (the host's own load moves it by +-15%); 230 is their median. A fresh
#: process is slower at first, and so is a loaded machine (171-198 plies/ms at load
#: 2.5-4). The default 50 ms budget is 11,500 plies: about 310 playouts at the first
#: move of a 2-player hand, 880 in the round before the last deal.
PLIES_PER_MS = 230.0
#: What a playout costs beyond its moves (copying the world, scoring the hand), in plies.
PLAYOUT_OVERHEAD_PLIES = 1
#: The wall-clock cap is never shorter than this: the smallest search (one playout per
#: candidate per round, whatever the budget) can take a few ms in the larger variants.
MIN_CAP_MS = 25.0


class ExpertBot:
    """Determinized Monte Carlo search with greedy playouts (see the module docstring).

    ``budget_ms`` is the CPU time to spend on a move, turned into a count of simulated
    moves with ``plies_per_ms``; ``cap_factor`` times it (at least :data:`MIN_CAP_MS`)
    is a wall-clock limit that only cuts in under overload."""

    #: Drop the worse half of the candidates after each round (else: every candidate
    #: gets the whole budget's worlds).
    halving = True

    def __init__(
        self,
        budget_ms: float = 50.0,
        *,
        plies_per_ms: float = PLIES_PER_MS,
        cap_factor: float = 3.0,
    ) -> None:
        self.budget_ms = budget_ms
        self.ply_budget = max(1, int(budget_ms * plies_per_ms))
        self.cap_seconds = max(budget_ms * cap_factor, MIN_CAP_MS) / 1000.0
        #: Playouts, and their cost in plies, of the last search (for calibration).
        self.last_playouts = 0
        self.last_plies = 0
        #: Searches the wall-clock cap stopped early (each may have changed a choice).
        self.cap_hits = 0
        #: The hand point margin the last choice is expected to bring the seat's side
        #: (mean over the sampled worlds, or the exact minimax value); None when there
        #: was a single legal move.
        self.last_value: float | None = None

    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int:
        self.last_playouts = self.last_plies = 0
        self.last_value = None
        if len(legal) == 1:
            return legal[0]
        # One draw from the caller's generator, whatever the search does after it.
        local = random.Random(rng.getrandbits(64))
        deadline = time.perf_counter() + self.cap_seconds
        if is_determined(knowledge):
            world = sample_world(knowledge, local)  # the only world there is
            code, self.last_value = solve(
                world, legal, knowledge.teams, knowledge.teams[knowledge.seat]
            )
            return code
        return self.search(knowledge, legal, local, deadline)

    # -- Monte Carlo search ---------------------------------------------------------

    def search(
        self, knowledge: Knowledge, legal: list[int], rng: random.Random, deadline: float
    ) -> int:
        """Successive halving over the legal moves, each round on fresh sampled worlds
        shared by every surviving candidate; the best mean margin wins."""
        side = knowledge.teams[knowledge.seat]
        first = sample_world(knowledge, rng)
        candidates = ordered_candidates(first, legal)
        plies_per_playout = (
            sum(knowledge.hand_counts) + knowledge.stock_count + PLAYOUT_OVERHEAD_PLIES
        )
        playouts = max(len(candidates), self.ply_budget // plies_per_playout)
        rounds = max(1, math.ceil(math.log2(len(candidates)))) if self.halving else 1
        totals = dict.fromkeys(candidates, 0)
        worlds = _worlds(first, knowledge, rng)
        done = seen = 0
        stopped = False
        for round_index in range(rounds):
            if round_index:
                candidates = best_half(candidates, totals)
            for _ in range(max(1, playouts // rounds // len(candidates))):
                world = next(worlds)
                seen += 1
                for code in candidates:
                    totals[code] += rollout(world, code, knowledge.teams, side)
                done += len(candidates)
                stopped = time.perf_counter() > deadline
                if stopped:
                    break
            if stopped:
                self.cap_hits += 1
                break
        best = max(candidates, key=lambda code: totals[code])
        # Every surviving candidate was played in each of the ``seen`` worlds.
        self.last_value = totals[best] / seen
        self.last_playouts, self.last_plies = done, done * plies_per_playout
        return best


def _worlds(first: Hand, knowledge: Knowledge, rng: random.Random) -> Iterator[Hand]:
    """``first``, then fresh worlds sampled from ``knowledge``."""
    yield first
    while True:
        yield sample_world(knowledge, rng)


def ordered_candidates(world: Hand, legal: list[int]) -> list[int]:
    """The legal moves, the greedy player's choice first (it wins ties)."""
    preferred = greedy_code(world, legal, sweepable_cache(world.variant))
    return [preferred] + [code for code in legal if code != preferred]


def best_half(candidates: list[int], totals: dict[int, int]) -> list[int]:
    """The better half (rounded up) of ``candidates`` by total margin, in their order."""
    keep = (len(candidates) + 1) // 2
    ranked = sorted(candidates, key=lambda code: -totals[code])[:keep]
    return [code for code in candidates if code in ranked]


def rollout(world: Hand, code: int, teams: tuple[int, ...], side: int) -> int:
    """Play ``code`` in a copy of ``world``, finish the hand greedily, return the margin."""
    hand = world.copy()
    if not hand.push(code) & HAND_OVER:
        play_out(hand)
    return margin(hand, teams, side)


# -- exact play when nothing is hidden ---------------------------------------------------


def is_determined(knowledge: Knowledge) -> bool:
    """No card is hidden from the seat: the stock is empty and no more than one other
    seat holds cards (which then are exactly the unseen ones)."""
    if knowledge.stock_count:
        return False
    holders = sum(
        1 for seat, count in enumerate(knowledge.hand_counts) if count and seat != knowledge.seat
    )
    return holders <= 1


def solve(world: Hand, legal: list[int], teams: tuple[int, ...], side: int) -> tuple[int, float]:
    """The move with the best minimax margin for ``side`` in a fully known ``world``,
    and that margin (alpha-beta; every seat of ``side`` maximizes, every other seat
    minimizes)."""
    best_code, best = legal[0], -math.inf
    for code in legal:
        value = _value_after(world, code, teams, side, best, math.inf)
        if value > best:
            best_code, best = code, value
    return best_code, best


def _value_after(
    world: Hand, code: int, teams: tuple[int, ...], side: int, alpha: float, beta: float
) -> float:
    hand = world.copy()
    if hand.push(code) & HAND_OVER:
        return margin(hand, teams, side)
    assert hand.turn is not None
    maximizing = teams[hand.turn] == side
    value = -math.inf if maximizing else math.inf
    for reply in hand.legal_codes():
        score = _value_after(hand, reply, teams, side, alpha, beta)
        if maximizing:
            value = max(value, score)
            alpha = max(alpha, value)
        else:
            value = min(value, score)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return value
