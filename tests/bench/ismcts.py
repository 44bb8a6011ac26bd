"""Information-set Monte Carlo tree search, kept to measure the expert against (``make
tournament PAIRINGS=ismcts:expert``); no service level.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo
Tree Search", IEEE TCIAIG 2012): one tree over the searching seat's information set,
whose nodes are moves. Each iteration samples a fresh world the seat cannot tell from
the real one (:func:`~service.bots.worlds.sample_world`), walks down the tree choosing,
among the moves that world allows, the one with the best UCB1 score (its mean margin for
the side that makes it, plus ``exploration`` times the root of the log of the times it
was available over its visits), adds one untried move (the greedy player's choice
first), finishes the hand with the greedy playouts of the expert's search
(:func:`~service.bots.playout.play_out`) and credits the margin to every node on the
way. It answers the most visited move at the root.

It thinks for the expert's budget in plies, plays the same root candidates in the same
order (:func:`~service.bots.expert.ordered_candidates`), solves exactly when nothing is
hidden, and obeys the same wall clock; only the search differs. Measured against the
expert (docs/performance.md, "Looking for a stronger expert"): in 2-player Scopa it lost
at every exploration constant tried (-0.51 points a hand at 1, -0.12 at 3, the default
here, -0.19 at 5; 300 deals each); in scopone it won, +0.27 over 150 deals and +0.31
(+0.13 to +0.50) over 300 others, at 23% more CPU for the same plies.
"""

from __future__ import annotations

import math
import random

from service.bots.expert import (
    DEADLINE_SECONDS,
    PLAYOUT_OVERHEAD_PLIES,
    Clock,
    ExpertBot,
    max_candidates,
    ordered_candidates,
    playout_plies,
)
from service.bots.playout import greedy_code, play_out, sweepable_cache
from service.bots.worlds import sample_world
from service.engine.hand import HAND_OVER
from service.engine.knowledge import Knowledge

#: UCB1's exploration constant, in points of hand margin (the best of 1, 3 and 5).
EXPLORATION = 3.0


class Node:
    """A move in the tree: its side, its visits, the margin they brought that side, and
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


class ISMCTSBot(ExpertBot):
    """The expert with :meth:`search` replaced by SO-ISMCTS (the module docstring)."""

    def __init__(
        self,
        budget_ms: float,
        *,
        exploration: float = EXPLORATION,
        cap_factor: float = 3.0,
        deadline_seconds: float = DEADLINE_SECONDS,
    ) -> None:
        super().__init__(budget_ms, cap_factor=cap_factor, deadline_seconds=deadline_seconds)
        self.exploration = exploration

    def search(
        self, knowledge: Knowledge, legal: list[int], rng: random.Random, clock: Clock
    ) -> int:
        teams = knowledge.teams
        side = teams[knowledge.seat]
        world = sample_world(knowledge, rng)
        candidates = ordered_candidates(world, legal)[
            : max_candidates(self.ply_budget // playout_plies(knowledge))
        ]
        cache = sweepable_cache(world.variant)
        root = Node(side)
        plies = iterations = 0
        while plies < self.ply_budget:
            if iterations:
                world = sample_world(knowledge, rng)
            iterations += 1
            hand, node, path, moves = world.copy(), root, [], candidates
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
                        score = node.children[move].score(self.exploration)
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
            plies += PLAYOUT_OVERHEAD_PLIES
            value = self.worth(hand, teams, side)
            for visited in path:
                visited.visits += 1
                visited.total += value if visited.side == side else -value
            if clock.tick():
                break
        children = root.children
        best = max(children, key=lambda m: (children[m].visits, children[m].total))
        self.last_value = children[best].total / children[best].visits
        self.last_playouts, self.last_plies = iterations, plies
        return best
