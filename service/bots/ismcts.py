"""Information-set Monte Carlo tree search: the expert's search where the whole deck is
dealt at once (Scopone, Scopone scientifico; :func:`grows_tree`).

Single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo
Tree Search", IEEE TCIAIG 2012): one tree over the searching seat's information set,
whose nodes are moves. Each iteration samples a fresh world the seat cannot tell from
the real one (:func:`~service.bots.worlds.sample_world`), walks down the tree choosing,
among the moves that world allows, the one with the best UCB1 score (its mean margin for
the side that makes it, plus :data:`EXPLORATION` times the root of the log of the times
it was available over its visits), adds one untried move (the greedy player's choice
first), finishes the hand with the greedy playouts of the flat search
(:func:`~service.bots.playout.play_out`) and credits the hand's worth to every node on
the way, for the side that chose it. It answers the most visited move at the root.

Where it plays: measured against the flat search (``make tournament``, seat-swapped, the
same budget; docs/performance.md, "The expert grows a tree in scopone"), it won in
scopone, where a hand is 36 moves long and partners play into each other's hands (+0.32
points a hand over 1,000 deals at the same CPU time, +0.31 over 1,000 others; in scopone
scientifico about +0.19), from a budget of about 30 ms (:data:`MIN_TREE_PLIES`); it lost
in 2-player Scopa at every exploration constant tried (-0.51 at 1, -0.12 at 3, -0.19 at
5) and in 4-player Scopa (-0.14 over 300 deals), whose hands are dealt three cards at a
time: there the budget's few hundred playouts grow too small a tree to pay for its
noise, while the flat search's paired rollouts put every one into the decision at hand.

The budget is the flat search's, in plies: each move of the tree and of the playout
counts one, and each iteration :data:`ITERATION_OVERHEAD_PLIES` more for what the flat
search does not do as often (sampling a world, walking the tree), so that both spend
the same CPU time on the same budget.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..engine.hand import HAND_OVER
from ..engine.knowledge import Knowledge
from .clock import Clock
from .playout import Value, greedy_code, play_out, sweepable_cache
from .worlds import sample_world

#: UCB1's exploration constant, in points of hand margin: the best of 1, 3 and 5 in
#: 2-player Scopa, and better than 5 in scopone (+0.32 against +0.22 a hand over the
#: flat search, the same 1,000 deals).
EXPLORATION = 3.0
#: What an iteration costs beyond its moves, in plies: sampling a world, walking the
#: tree, scoring the hand. Measured on 384 scopone positions and in 1,000 scopone deals
#: (the compiled engine): charged 4, the tree search still took 9% more CPU time than the
#: flat search for the same budget, 1 to 2 plies an iteration more; so 6.
ITERATION_OVERHEAD_PLIES = 6

#: The smallest budget, in plies, the tree search is used for (30 ms): it needs
#: iterations to grow. Against the flat search in scopone (300 deals each, docs/
#: performance.md) it scored -0.20 points a hand at 10 ms, -0.08 at 20, +0.05 at 30,
#: +0.15 at 40 and +0.31 at 50 (1,000 deals); so the apprentice (5 ms) stays flat.
MIN_TREE_PLIES = 6_900


def grows_tree(knowledge: Knowledge, ply_budget: int) -> bool:
    """Whether the expert searches ``knowledge``'s position with this tree rather than
    with flat Monte Carlo: where the whole deck is dealt at once (no further deals), for
    a budget of :data:`MIN_TREE_PLIES` or more."""
    if ply_budget < MIN_TREE_PLIES:
        return False
    return not knowledge.variant.deal_plan(knowledge.players).deals_again


class Node:
    """A move in the tree: its side, its visits, the worth they brought that side, and
    the times it was legal when its parent was reached (UCB1 counts availability, not
    the parent's visits, since a world may not allow it)."""

    __slots__ = ("children", "side", "visits", "total", "available")

    def __init__(self, side: int) -> None:
        self.children: dict[int, Node] = {}
        self.side = side
        self.visits = 0
        self.total = 0.0
        self.available = 0

    def score(self, exploration: float) -> float:
        return self.total / self.visits + exploration * math.sqrt(
            math.log(self.available) / self.visits
        )


@dataclass(frozen=True)
class TreeResult:
    """A tree search's answer: the move, its mean worth for the searching side, and the
    iterations and plies it took."""

    code: int
    value: float
    iterations: int
    plies: int


def tree_search(
    knowledge: Knowledge,
    candidates: list[int],
    rng: random.Random,
    clock: Clock,
    ply_budget: int,
    worth: Value,
    exploration: float = EXPLORATION,
) -> TreeResult:
    """Search ``knowledge``'s position for ``ply_budget`` plies (or until ``clock``,
    read after each iteration, expires), trying only ``candidates`` at the root, in
    their order; the most visited one wins (ties: the greater total worth)."""
    teams = knowledge.teams
    side = teams[knowledge.seat]
    cache = sweepable_cache(knowledge.variant)
    root = Node(side)
    plies = iterations = 0
    while plies < ply_budget:
        iterations += 1
        hand, node, path, moves = sample_world(knowledge, rng), root, [], candidates
        while True:
            untried = []
            for code in moves:
                tried = node.children.get(code)
                if tried is None:
                    untried.append(code)
                else:
                    tried.available += 1
            if untried:
                if node is root:
                    code = untried[0]
                else:
                    greedy = greedy_code(hand, moves, cache)
                    code = greedy if greedy in untried else rng.choice(untried)
                assert hand.turn is not None
                node.children[code] = child = Node(teams[hand.turn])
                child.available = 1
            else:
                code, best = moves[0], -math.inf
                for move in moves:
                    score = node.children[move].score(exploration)
                    if score > best:
                        code, best = move, score
                child = node.children[code]
            path.append(child)
            plies += 1
            if hand.push(code) & HAND_OVER:
                break
            if untried:
                plies += play_out(hand)
                break
            node, moves = child, hand.legal_codes()
        plies += ITERATION_OVERHEAD_PLIES
        value = worth(hand, teams, side)
        for visited in path:
            visited.visits += 1
            visited.total += value if visited.side == side else -value
        if clock.tick():
            break
    children = root.children
    best_code = max(children, key=lambda m: (children[m].visits, children[m].total))
    chosen = children[best_code]
    return TreeResult(best_code, chosen.total / chosen.visits, iterations, plies)
