"""Does declaring pay in Cirulla? (``make declaring``; docs/rules.md C3.)

A declaration scores at once (3 for a buona, 10 for a decino) but shows the seat's
three cards to everybody until each is played (C3.4). The computer players declare
whenever they may (service/bots/declaring.py); this measures that choice against never
declaring, with the same player on both sides so that only the declaring differs.

Each deal is a seeded shuffle of the first hand of a Cirulla match, played twice with
the seats swapped: side A declares whenever it may (the best declaration, as the bots
do), side B never does; both sides play their cards with ``--level``. It reports A's
mean point margin per hand over B with a 95% interval over the deals (the two games of a
deal are paired), and how many declarations A made. With 4 players, A is a partnership.

Deterministic given ``--seed``: the expert's budget is counted in simulated moves.

    python -m tests.bench.declaring --level greedy --players 2 --deals 1000
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from multiprocessing import Pool

from service.bots.base import BOT_LEVELS, Bot
from service.engine.match import Match, moves_of
from service.engine.moves import best_declaration
from service.engine.views import knowledge_of
from tests.bench.tournament import make_player, searches


def play_hand(
    deal_seed: int, players: int, declaring_team: int, bot: Bot, game_seed: str
) -> tuple[int, int]:
    """The first hand of a Cirulla match dealt from ``deal_seed``; the seats of
    ``declaring_team`` declare whenever they may. Returns that team's margin over the
    other and the declarations it made."""
    match, _ = Match.new(variant="cirulla", seed=deal_seed, players=players, first_dealer=0)
    rngs = [random.Random(f"{game_seed}:{seat}") for seat in range(players)]
    declared = 0
    while not match.hand_scores:
        seat = match.turn
        assert seat is not None
        if match.teams[seat] == declaring_team:
            best = best_declaration(match.legal_declarations())
            if best is not None:
                match.declare(seat, best.kind, best.matta_as)
                declared += 1
        legal = match.hand.legal_codes()
        code = bot.choose(knowledge_of(match, seat), legal, rngs[seat])
        match.push(moves_of([code])[0])
    totals = [team["total"] for team in match.hand_scores[0]["teams"]]
    return totals[declaring_team] - totals[1 - declaring_team], declared


def play_deal(task: tuple[str, int, int, int, float]) -> tuple[float, int]:
    """Both games of deal ``index``: the mean margin of the declaring side, and its
    declarations."""
    level, players, seed, index, budget = task
    deal_seed = seed * 1_000_000 + index
    bot = make_player(level, budget, wall_cap=0.0)  # no wall clock: a seed fixes every move
    margins, declared = [], 0
    for team in (0, 1):  # the declaring side in each seat
        margin, made = play_hand(deal_seed, players, team, bot, f"{deal_seed}:{team}")
        margins.append(margin)
        declared += made
    return sum(margins) / 2, declared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="greedy", choices=BOT_LEVELS)
    parser.add_argument("--players", type=int, default=2, choices=[2, 4])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=50.0, help="expert ms a move")
    args = parser.parse_args(argv)
    tasks = [(args.level, args.players, args.seed, i, args.budget) for i in range(args.deals)]
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            results = pool.map(play_deal, tasks, chunksize=max(1, args.deals // (args.jobs * 8)))
    else:
        results = [play_deal(task) for task in tasks]
    per_deal = [margin for margin, _ in results]
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))
    declared = sum(made for _, made in results)
    budget = f", expert budget {args.budget:g} ms" if searches(args.level) else ""
    print(
        f"Cirulla, {args.players} players, {args.level} on both sides{budget}, "
        f"{args.deals} deals x 2 seatings (seed {args.seed}):"
    )
    print(
        f"declaring whenever it may vs never: {mean:+.2f} points a hand "
        f"[{mean - half:+.2f}, {mean + half:+.2f}] (95%), "
        f"{declared / (2 * args.deals):.2f} declarations a hand"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
