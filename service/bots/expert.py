"""The expert computer player: determinized Monte Carlo search over the hidden cards.

The expert never looks at a hidden card: it decides from its seat's
:class:`~service.engine.views.Knowledge` alone. For each decision it

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
"""

from __future__ import annotations

import math
import random
import time

from ..engine.hand import HAND_OVER, Hand
from ..engine.views import Knowledge
from .playout import _sweepable_cache, greedy_code, margin, play_out
from .worlds import sample_world

#: Simulated moves per millisecond of CPU, measured with ``tests/bench/calibrate.py``
#: on the development machine (Intel Xeon, Python 3.11): see that script's docstring.
PLIES_PER_MS = 100.0


class ExpertBot:
    """Determinized Monte Carlo search with greedy playouts (see the module docstring).

    ``budget_ms`` is the CPU time to spend on a move, turned into a count of simulated
    moves with ``plies_per_ms``; ``cap_factor`` times it is a wall-clock limit that
    only cuts in under overload."""

    def __init__(
        self,
        budget_ms: float = 50.0,
        *,
        plies_per_ms: float = PLIES_PER_MS,
        cap_factor: float = 3.0,
    ) -> None:
        self.budget_ms = budget_ms
        self.ply_budget = max(1, int(budget_ms * plies_per_ms))
        self.cap_seconds = budget_ms * cap_factor / 1000.0
        #: Playouts of the last search (for benchmarks and tests).
        self.last_playouts = 0

    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int:
        if len(legal) == 1:
            return legal[0]
        # One draw from the caller's generator, whatever the search does after it.
        local = random.Random(rng.getrandbits(64))
        deadline = time.perf_counter() + self.cap_seconds
        if is_determined(knowledge):
            world = sample_world(knowledge, local)  # the only world there is
            return solve(world, legal, knowledge.teams, knowledge.teams[knowledge.seat])
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
        plies_per_playout = sum(knowledge.hand_counts) + knowledge.stock_count
        playouts = max(len(candidates), self.ply_budget // plies_per_playout)
        rounds = max(1, math.ceil(math.log2(len(candidates))))
        per_round = playouts // rounds
        totals = dict.fromkeys(candidates, 0)
        done = 0
        worlds: list[Hand] = [first]
        for round_index in range(rounds):
            if round_index:
                candidates = best_half(candidates, totals)
            for _ in range(max(1, per_round // len(candidates))):
                world = worlds.pop() if worlds else sample_world(knowledge, rng)
                for code in candidates:
                    totals[code] += rollout(world, code, knowledge.teams, side)
                done += len(candidates)
                if time.perf_counter() > deadline:
                    break
            if time.perf_counter() > deadline:
                break
        self.last_playouts = done
        return max(candidates, key=lambda code: totals[code])


def ordered_candidates(world: Hand, legal: list[int]) -> list[int]:
    """The legal moves, the greedy player's choice first (it wins ties)."""
    preferred = greedy_code(world, legal, _sweepable_cache(world.variant))
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


def solve(world: Hand, legal: list[int], teams: tuple[int, ...], side: int) -> int:
    """The move with the best minimax margin for ``side`` in a fully known ``world``
    (alpha-beta; every seat of ``side`` maximizes, every other seat minimizes)."""
    best_code, best = legal[0], -math.inf
    for code in legal:
        value = _value_after(world, code, teams, side, best, math.inf)
        if value > best:
            best_code, best = code, value
    return best_code


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
