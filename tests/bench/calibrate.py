"""Calibrate the expert's budget: simulated moves (plies) per millisecond of CPU.

The expert counts its budget in plies so that a seed always gives the same move
(service/bots/expert.py, PLIES_PER_MS). This script plays expert-vs-greedy hands of
2-player Scopa in one process, times every move the expert searched (CPU time), and
prints how many plies it simulated per ms: set PLIES_PER_MS to that figure so that the
default 50 ms budget costs about 50 ms of CPU on the machine at hand (on average over
the searched moves). The first ``--warmup`` deals are not timed: a fresh process fills
the engine's capture caches and runs slower than a long-lived server does.

    python -m tests.bench.calibrate --deals 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence

from service.bots.expert import PLIES_PER_MS, ExpertBot
from service.bots.greedy import GreedyBot
from service.engine.match import Match, moves_of
from service.engine.views import knowledge_of


def measure(deals: int, budget_ms: float, warmup: int = 0) -> tuple[list[float], int]:
    """CPU ms of every searched expert move, and the plies simulated in all of them,
    after ``warmup`` deals not measured."""
    expert, greedy = ExpertBot(budget_ms=budget_ms), GreedyBot()
    times: list[float] = []
    plies = 0
    for deal in range(-warmup, deals):
        match, _ = Match.new(seed=10_000 + deal, players=2, first_dealer=deal % 2)
        rng = random.Random(deal)
        while not match.hand_scores:
            seat = match.turn
            assert seat is not None
            legal = match.hand.legal_codes()
            knowledge = knowledge_of(match, seat)
            bot = expert if seat == 0 else greedy
            start = time.process_time()
            code = bot.choose(knowledge, legal, rng)
            elapsed = (time.process_time() - start) * 1000.0
            if bot is expert and expert.last_plies and deal >= 0:
                times.append(elapsed)
                plies += expert.last_plies
            match.push(moves_of([code])[0])
    return times, plies


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--budget", type=float, default=50.0)
    args = parser.parse_args(argv)
    times, plies = measure(args.deals, args.budget, args.warmup)
    rate = plies / sum(times)
    print(
        f"{len(times)} searched moves at {args.budget:g} ms: CPU median "
        f"{statistics.median(times):.1f} ms, mean {statistics.fmean(times):.1f} ms, "
        f"max {max(times):.1f} ms; {rate:.0f} plies per ms "
        f"(PLIES_PER_MS is {PLIES_PER_MS:g}: set it to {rate:.0f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
