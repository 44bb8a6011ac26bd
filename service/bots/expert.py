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
   its side (hand points of its side minus the best other side's, every point the
   play decides, Cirulla's grande and piccola included: :func:`margin`; partners count
   as one side). After each round the worse half of the candidates is dropped and the
   next rounds' worlds go to the rest. Evaluating all candidates on the same worlds
   makes their *differences* far less noisy than their values.

This is one step of policy improvement over the greedy player (a rollout policy), with
the greedy player as the model of the other seats, plus exact play when the cards are
all known. Where the whole deck is dealt at once (Scopone, Scopone scientifico), step 3
is information-set MCTS instead (:mod:`service.bots.ismcts`, the same candidates,
playouts and budget): over a hand of 36 or 40 moves, with partners playing into each
other's hands, its tree measured stronger than the flat search (+0.32 points a hand over
1,000 seat-swapped scopone deals at the same CPU time, docs/performance.md), given a
budget of 30 ms or more; in the variants dealt three cards at a time, a 50 ms budget
buys a few hundred playouts, too few to grow a useful tree, and the flat search's paired
rollouts, every one put into the decision at hand, won.

In classic Scopa with 2 or 4 players and the default rules, step 3's playouts stop at
the end of the deal in play, where every hand is empty and the position is public, and
:mod:`service.bots.deal_end` values the rest of the hand from there with a model fitted
to self-play (:func:`~service.bots.deal_end.model_for`): the later deals' random stocks
were only noise in each playout, and a shorter playout buys more of them. Measured over
1,000 fresh seat-swapped deals each at the same budget in plies (docs/performance.md):
+0.11 points a hand (95% interval +0.02 to +0.19) with 2 players, +0.17 (+0.08 to +0.27)
with 4, at a little less CPU.

The budget is counted in simulated moves (plies), never in time, so that a seed always
gives the same move: :data:`PLIES_PER_MS` converts the budget in ms into plies. Two
wall-clock limits only stop a search early, and it then answers with what it has: a
soft cap (``cap_factor`` times the budget), which cuts in when the machine is
overloaded, and a hard deadline (``deadline_seconds``, :data:`DEADLINE_SECONDS` by
default), which bounds what one decision may cost whatever its budget or position. A
position can be far larger than a dealt hand ever makes it (a hint describes any
position: 34 cards on the table give thousands of legal moves, and the exact solver of
such an endgame would run for hours), so both are read *inside* the searches: after
each playout, and every :data:`CHECK_EVERY` units of the exact solver's work. Where
neither cuts in, the budget alone decides the move. The Monte Carlo search plays no more
candidates than its budget affords, and both searches take them in the order of
:func:`ordered_candidates`, the greedy player's choice first: a search cut short
answers that choice or one it found better.

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

from ..engine.hand import DEALT, HAND_OVER, Hand
from ..engine.knowledge import Knowledge
from . import deal_end
from .clock import Clock
from .deal_end import DealEndModel
from .ismcts import grows_tree, tree_search
from .playout import Value, greedy_ranking, margin, play_out, sweepable_cache
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
#: The thinking budget a move, in ms, when none is given (``EXPERT_BUDGET_MS``'s default).
DEFAULT_BUDGET_MS = 50.0
#: What a playout costs beyond its moves (copying the world, scoring the hand), in plies.
PLAYOUT_OVERHEAD_PLIES = 1
#: What valuing the end of a deal costs beyond scoring a hand
#: (:func:`service.bots.deal_end.value`), in plies.
DEAL_END_PLIES = 3
#: The wall-clock cap is never shorter than this: the smallest search (one playout per
#: candidate per round, whatever the budget) can take a few ms in the larger variants.
MIN_CAP_MS = 25.0
#: The hard limit on one decision's wall-clock time by default, in seconds: the most a
#: hint or a computer player's move may cost the server, whatever the position and the
#: budget. The default budget's soft cap (150 ms) comes first; this one cuts in first
#: only with budgets above 333 ms.
DEADLINE_SECONDS = 1.0
#: The exact solver reads the clock once in this much work (a legal move generated, or
#: a position expanded): every few ms at most, and at no measurable cost.
CHECK_EVERY = 256


class ExpertBot:
    """Determinized Monte Carlo search with greedy playouts (see the module docstring).

    ``budget_ms`` is the CPU time to spend on a move, turned into a count of simulated
    moves with ``plies_per_ms``; ``cap_factor`` times it (at least :data:`MIN_CAP_MS`)
    is a wall-clock limit that only cuts in under overload; ``deadline_seconds`` is an
    absolute one, whatever the budget. The earlier of the two stops the search."""

    #: Drop the worse half of the candidates after each round (else: every candidate
    #: gets the whole budget's worlds).
    halving = True

    def __init__(
        self,
        budget_ms: float = DEFAULT_BUDGET_MS,
        *,
        plies_per_ms: float = PLIES_PER_MS,
        cap_factor: float = 3.0,
        deadline_seconds: float = DEADLINE_SECONDS,
        worth: Value = margin,
        tree: bool | None = None,
        deal_end: bool = True,
    ) -> None:
        self.budget_ms = budget_ms
        #: Search with information-set MCTS (service/bots/ismcts.py) rather than flat
        #: Monte Carlo: True, False, or None for where and at what budget it measured
        #: stronger (:func:`~service.bots.ismcts.grows_tree`).
        self.tree = tree
        #: What a finished hand is worth to a side (the search maximizes its mean).
        self.worth = worth
        #: Stop the flat search's playouts at the end of the deal in play where a model
        #: values what follows (:func:`~service.bots.deal_end.model_for`: classic Scopa).
        self.deal_end = deal_end
        self.ply_budget = max(1, int(budget_ms * plies_per_ms))
        self.cap_seconds = max(budget_ms * cap_factor, MIN_CAP_MS) / 1000.0
        self.deadline_seconds = deadline_seconds
        #: Playouts, and their cost in plies, of the last search (for calibration).
        self.last_playouts = 0
        self.last_plies = 0
        #: Searches the wall clock (the cap or the deadline) stopped early (each may have
        #: changed a choice).
        self.cap_hits = 0
        #: Whether the wall clock stopped the last decision's search: its move is then the
        #: best the search found in time, no longer the one its budget decides.
        self.last_cut = False
        #: The hand point margin the last choice is expected to bring the seat's side
        #: (mean over the sampled worlds, or the exact minimax value); None when there
        #: was a single legal move.
        self.last_value: float | None = None

    def choose(self, knowledge: Knowledge, legal: list[int], rng: random.Random) -> int:
        self.last_playouts = self.last_plies = 0
        self.last_value = None
        self.last_cut = False
        if len(legal) == 1:
            return legal[0]
        # One draw from the caller's generator, whatever the search does after it.
        local = random.Random(rng.getrandbits(64))
        deadline = time.perf_counter() + min(self.cap_seconds, self.deadline_seconds)
        if is_determined(knowledge):
            world = sample_world(knowledge, local)  # the only world there is
            side = knowledge.teams[knowledge.seat]
            clock = Clock(deadline, every=CHECK_EVERY)
            code, self.last_value = solve(world, legal, knowledge.teams, side, clock, self.worth)
        else:
            clock = Clock(deadline)
            code = self.search(knowledge, legal, local, clock)
        if clock.expired:
            self.last_cut = True
            self.cap_hits += 1
        return code

    # -- Monte Carlo search ---------------------------------------------------------

    def search(
        self, knowledge: Knowledge, legal: list[int], rng: random.Random, clock: Clock
    ) -> int:
        """Successive halving over the legal moves, each round on fresh sampled worlds
        shared by every surviving candidate; the best mean margin wins. (Or, where
        :attr:`tree` says so, :func:`~service.bots.ismcts.tree_search` over the same
        candidates, for the same budget.)

        Only as many candidates as the budget affords a first round for are played
        (the first of :func:`ordered_candidates`). The clock is read after every
        rollout: once it expires, the search answers from the worlds every surviving
        candidate was played in, or in the first world, from the candidates played so
        far."""
        side = knowledge.teams[knowledge.seat]
        first = sample_world(knowledge, rng)
        tree = grows_tree(knowledge, self.ply_budget) if self.tree is None else self.tree
        model = deal_end.model_for(knowledge) if self.deal_end and not tree else None
        plies_per_playout = playout_plies(knowledge, model)
        affordable = self.ply_budget // plies_per_playout
        candidates = ordered_candidates(first, legal)[: max_candidates(affordable)]
        if tree:
            found = tree_search(knowledge, candidates, rng, clock, self.ply_budget, self.worth)
            self.last_value = found.value
            self.last_playouts, self.last_plies = found.iterations, found.plies
            return found.code
        playouts = max(len(candidates), affordable)
        rounds = max(1, math.ceil(math.log2(len(candidates)))) if self.halving else 1
        totals = dict.fromkeys(candidates, 0.0)
        worlds = _worlds(first, knowledge, rng)
        done = seen = 0
        for round_index in range(rounds):
            if round_index:
                candidates = best_half(candidates, totals)
            for _ in range(max(1, playouts // rounds // len(candidates))):
                margins = rollouts(
                    next(worlds), candidates, knowledge.teams, side, clock, self.worth, model
                )
                done += len(margins)
                # A world cut short would favour the candidates played in it; but in
                # the first world, the ones played are all there is to go by.
                if len(margins) == len(candidates) or not seen:
                    candidates = candidates[: len(margins)]
                    for code, value in zip(candidates, margins, strict=True):
                        totals[code] += value
                    seen += 1
                if clock.expired:
                    break
            if clock.expired:
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


def playout_plies(knowledge: Knowledge, model: DealEndModel | None = None) -> int:
    """What a playout from ``knowledge``'s position costs at most, in plies: a move for
    each card in a hand or the stock, and the overhead of a playout; with a ``model``
    of the deal's end, a move for each card in a hand and the overhead of valuing the
    deal's end. The searches count their budget in it."""
    if model is not None:
        return sum(knowledge.hand_counts) + PLAYOUT_OVERHEAD_PLIES + DEAL_END_PLIES
    return sum(knowledge.hand_counts) + knowledge.stock_count + PLAYOUT_OVERHEAD_PLIES


def max_candidates(playouts: int) -> int:
    """How many candidates a search of ``playouts`` can play: successive halving spends
    about twice its first round in all, so half as many as there are playouts, each
    played once in the first round (and never fewer than 2: a choice)."""
    return max(2, playouts // 2)


def ordered_candidates(world: Hand, legal: list[int]) -> list[int]:
    """The legal moves in the order to try them, for a search that may not reach them
    all: the greedy player's choice first (it wins ties), then every card's best move
    by the greedy player's preference, then every card's second best, and so on. So a
    prefix of the list plays every card in hand before it tries a second way for any
    card to capture (a king on a full table can take thousands of sets making 10)."""
    ranked = greedy_ranking(world, legal, sweepable_cache(world.variant))
    tried: dict[int, int] = {}  # ways so far to play each card
    layers = []
    for code in ranked:
        card = code & 63
        layers.append(tried.get(card, 0))
        tried[card] = layers[-1] + 1
    order = sorted(range(len(ranked)), key=layers.__getitem__)  # stable: greedy order
    return [ranked[i] for i in order]


def best_half(candidates: list[int], totals: dict[int, float]) -> list[int]:
    """The better half (rounded up) of ``candidates`` by total margin, in their order."""
    keep = (len(candidates) + 1) // 2
    ranked = sorted(candidates, key=lambda code: -totals[code])[:keep]
    return [code for code in candidates if code in ranked]


def rollouts(
    world: Hand,
    candidates: list[int],
    teams: tuple[int, ...],
    side: int,
    clock: Clock,
    worth: Value = margin,
    model: DealEndModel | None = None,
) -> list[float]:
    """The :func:`rollout` margin of each candidate in ``world``, in order, until the
    clock (read after each) expires: then of those played so far."""
    margins = []
    for code in candidates:
        margins.append(rollout(world, code, teams, side, worth, model))
        if clock.tick():
            break
    return margins


def rollout(
    world: Hand,
    code: int,
    teams: tuple[int, ...],
    side: int,
    worth: Value = margin,
    model: DealEndModel | None = None,
) -> float:
    """Play ``code`` in a copy of ``world``, finish the hand greedily, return its
    ``worth`` (by default the margin). With a ``model`` of the deal's end, play only to
    the end of the deal in play and return the margin the model expects from there
    (:func:`~service.bots.deal_end.value`), or the hand's worth if it is over."""
    hand = world.copy()
    stop = HAND_OVER if model is None else DEALT | HAND_OVER
    if not hand.push(code) & stop:
        play_out(hand, stop)
    if model is None or hand.turn is None:  # no model, or the hand is over
        return worth(hand, teams, side)
    return deal_end.value(model, hand, teams, side)


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


class OutOfTime(Exception):
    """The exact solver's clock expired: unwinds the search to its root."""


def solve(
    world: Hand,
    legal: list[int],
    teams: tuple[int, ...],
    side: int,
    clock: Clock | None = None,
    worth: Value = margin,
) -> tuple[int, float]:
    """The move with the best minimax margin for ``side`` in a fully known ``world``,
    and that margin (alpha-beta; every seat of ``side`` maximizes, every other seat
    minimizes).

    The root moves are valued in :func:`ordered_candidates`'s order. Once ``clock``
    expires (it is told the work done: each position expanded and each legal move
    generated; give it ``every=CHECK_EVERY``) the search stops and answers the best move
    it has valued in full; if none, the greedy player's choice (the first tried),
    valued by a greedy playout."""
    solver = Solver(teams, side, clock or Clock(math.inf, every=CHECK_EVERY), worth)
    order = ordered_candidates(world, legal)
    best_code, best = order[0], -math.inf
    try:
        for code in order:
            value, _ = solver.line_after(world, code, best, math.inf)
            if value > best:
                best_code, best = code, value
    except OutOfTime:
        if best == -math.inf:
            best = rollout(world, best_code, teams, side, worth)
    return best_code, best


class Solver:
    """The alpha-beta search of :func:`solve`, with its clock. Fail-soft, so every value
    it returns is the margin of a leaf: it returns that leaf too, the end of the hand on
    the line that gives the value (what the analysis of a move reports,
    service/bots/analysis.py)."""

    __slots__ = ("teams", "side", "clock", "worth")

    def __init__(
        self, teams: tuple[int, ...], side: int, clock: Clock, worth: Value = margin
    ) -> None:
        self.teams = teams
        self.side = side
        self.clock = clock
        self.worth = worth

    def line_after(self, world: Hand, code: int, alpha: float, beta: float) -> tuple[float, Hand]:
        """The minimax margin after ``code`` is played in ``world``, within alpha-beta's
        window, and the finished hand of its line; raises :class:`OutOfTime` once the
        clock expires."""
        hand = world.copy()
        if hand.push(code) & HAND_OVER:
            return self.worth(hand, self.teams, self.side), hand
        assert hand.turn is not None
        maximizing = self.teams[hand.turn] == self.side
        replies = hand.legal_codes()
        if self.clock.tick(1 + len(replies)):
            raise OutOfTime
        value = -math.inf if maximizing else math.inf
        line = hand
        for reply in replies:
            score, leaf = self.line_after(hand, reply, alpha, beta)
            if maximizing:
                if score > value:
                    value, line = score, leaf
                alpha = max(alpha, value)
            else:
                if score < value:
                    value, line = score, leaf
                beta = min(beta, value)
            if alpha >= beta:
                break
        return value, line
