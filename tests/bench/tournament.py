"""Seat-swapped duplicate tournament between the computer players (``make tournament``).

Each deal is a seeded shuffle of one hand of a game (a variant and a player count,
``--game scopa:2`` by default), played twice: once with bot A in the even seats and bot
B in the odd ones, once with the seats swapped, so that the luck of the cards cancels
out. With 4 players A and B are partnerships (seats 0 and 2 against 1 and 3). One hand
per game. For each pairing it reports

- W/D/L: hands A scored more than, as many as, fewer points than B;
- the mean point margin per hand (A's hand points minus B's) with a 95% confidence
  interval computed over the per-deal means (the two games of a deal are paired, so
  the deal, not the hand, is the independent unit);
- the CPU time per move of each searching player (the expert and the apprentice) where
  it had a choice (median, 99th percentile).

The players are the service's levels (service/bots/base.py LEVELS: random, greedy,
apprentice, expert), each searching level at its share of ``--budget``, the earlier
experts kept to measure the current one against, and other searches measured against
it (:data:`OTHER_EXPERTS`: ``expert_v1``, ``flat``, ``ismcts``).

Deterministic given ``--seed``: deal ``i`` uses the shuffle seed ``seed * 1_000_000 + i``
and every bot's random generator is seeded from the deal, the game and the seat. The
expert's budget is counted in simulated moves, so its choices do not depend on the
machine's speed; its wall-clock safety cap (which would make them depend on the load) is
off unless ``--wall-cap`` is given. Its time per move is measured in CPU time.

    python -m tests.bench.tournament --deals 1000 --jobs 2 --budget 50
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from typing import Any

from service.bots import make_bot
from service.bots.base import LEVELS_BY_NAME, Bot
from service.bots.declaring import choose_declaration
from service.bots.expert import DEADLINE_SECONDS, ExpertBot
from service.engine.hand import Hand
from service.engine.match import Match, moves_of
from service.engine.scoring import hand_points
from service.engine.views import knowledge_of

PAIRINGS = (("expert", "greedy"), ("greedy", "random"), ("expert", "random"))
#: The pairings that rate every level (``--levels``): each level against the next weaker
#: one, and the expert against greedy.
LEVEL_PAIRINGS = (
    ("greedy", "random"),
    ("apprentice", "greedy"),
    ("expert", "apprentice"),
    ("expert", "greedy"),
)


def classic_margin(hand: Hand, teams: tuple[int, ...], side: int) -> int:
    """The margin as the expert valued a hand until 2026-12-01: R7's points and the R9
    options (``hand_points``) only, blind to a variant's pile lines (Cirulla's grande
    and piccola, docs/rules.md C7.2, C7.3)."""
    team_count = max(teams) + 1
    piles, scopas = hand.team_piles(list(teams), team_count)
    totals = [sum(points.values()) for points in hand_points(piles, scopas, hand.rules)]
    return totals[side] - max(t for s, t in enumerate(totals) if s != side)


#: Other experts, no service level, each as the options of its
#: :class:`~service.bots.expert.ExpertBot` (at the whole budget): each measures what a
#: change to the expert won, or what another search would. expert_v1: the expert until
#: 2026-12-01, blind to Cirulla's grande and piccola, with the flat search in every
#: variant and its playouts always played to the end of the hand (none stopping at the
#: end of a deal in classic Scopa, service/bots/deal_end.py); flat: the expert with the
#: flat search everywhere (in scopone, what the tree search won); ismcts: the expert with
#: the information-set tree search everywhere (service/bots/ismcts.py; in the variants
#: dealt 3 cards at a time, what it lost).
OTHER_EXPERTS: dict[str, dict[str, Any]] = {
    "expert_v1": {"worth": classic_margin, "tree": False, "deal_end": False},
    "flat": {"tree": False},
    "ismcts": {"tree": True},
}


@dataclass
class DealResult:
    """The two games of one deal: A's margin in each, and the searching players' move
    times."""

    margins: tuple[int, int]
    #: CPU ms of each move with a choice by a searching player, by player, and whether
    #: it ran the Monte Carlo search (else it solved a position with nothing hidden).
    cpu_ms: dict[str, list[tuple[float, bool]]] = field(default_factory=dict)
    #: Searches the wall-clock cap cut short (under overload only).
    cap_hits: int = 0


#: A game of the tournament: the variant and the number of players.
Game = tuple[str, int]
CLASSIC: Game = ("scopa", 2)


def play_hand(
    seed: int,
    bots: Sequence[Bot],
    names: Sequence[str],
    game_seed: str,
    game: Game = CLASSIC,
) -> tuple[list[int], dict[str, list[tuple[float, bool]]]]:
    """Play the first hand of a match of ``game`` dealt from ``seed``, ``bots[s]`` in
    seat ``s``. Returns each side's hand points and, by searching player, its CPU ms per
    choice (with whether it searched). Where the variant has declarations (Cirulla),
    each player declares as the service's computer players do."""
    variant, players = game
    match, _ = Match.new(variant=variant, seed=seed, players=players, first_dealer=0)
    rngs = [random.Random(f"{game_seed}:{seat}") for seat in range(players)]
    times: dict[str, list[tuple[float, bool]]] = {}
    while not match.hand_scores:
        seat = match.turn
        assert seat is not None
        declared = choose_declaration(names[seat], match.legal_declarations(), rngs[seat])
        if declared is not None:
            match.declare(seat, declared.kind, declared.matta_as)
        legal = match.hand.legal_codes()
        knowledge = knowledge_of(match, seat)
        start = time.process_time()
        code = bots[seat].choose(knowledge, legal, rngs[seat])
        elapsed = (time.process_time() - start) * 1000.0
        if searches(names[seat]) and len(legal) > 1:
            searched = getattr(bots[seat], "last_plies", 0) > 0
            times.setdefault(names[seat], []).append((elapsed, searched))
        assert code in legal, f"{names[seat]} played an illegal move"
        match.push(moves_of([code])[0])
    points = [team["total"] for team in match.hand_scores[0]["teams"]]
    return points, times


def searches(name: str) -> bool:
    """Whether the player ``name`` searches (its time per move is reported)."""
    return budget_share(name) > 0


def budget_share(name: str) -> float:
    """The share of the budget the player ``name`` thinks for (another expert: all)."""
    if name in OTHER_EXPERTS:
        return 1.0
    return LEVELS_BY_NAME[name].budget_share


def make_player(name: str, budget: float, wall_cap: float) -> Bot:
    """The bot of level ``name``, a searching level with its share of ``budget`` ms a
    move and its wall-clock cap at ``wall_cap`` times its budget (0: no cap); or the
    other expert ``name`` (:data:`OTHER_EXPERTS`), with the whole budget."""
    if searches(name):
        # No cap: no wall clock at all, the hard deadline included (a seed fixes every move).
        deadline = DEADLINE_SECONDS if wall_cap else math.inf
        limits = {"cap_factor": wall_cap or math.inf, "deadline_seconds": deadline}
        if name in OTHER_EXPERTS:
            return ExpertBot(budget, **OTHER_EXPERTS[name], **limits)
        return make_bot(name, budget, **limits)
    return make_bot(name)


def play_deal(task: tuple[str, str, int, int, float, float, Game]) -> DealResult:
    """Both games of deal ``index`` of the pairing (A, B): A's side is team 0 (the even
    seats), then team 1."""
    name_a, name_b, seed, index, budget, wall_cap, game = task
    deal_seed = seed * 1_000_000 + index
    bots = {name: make_player(name, budget, wall_cap) for name in (name_a, name_b)}
    margins = []
    times: dict[str, list[tuple[float, bool]]] = {}
    players = game[1]
    for side_a in (0, 1):
        names = [name_a if seat % 2 == side_a else name_b for seat in range(players)]
        points, game_times = play_hand(
            deal_seed, [bots[n] for n in names], names, f"{deal_seed}:{side_a}", game
        )
        margins.append(points[side_a] - points[1 - side_a])
        for name, moves in game_times.items():
            times.setdefault(name, []).extend(moves)
    cap_hits = sum(getattr(bot, "cap_hits", 0) for bot in bots.values())
    return DealResult((margins[0], margins[1]), times, cap_hits)


@dataclass
class PairingReport:
    name_a: str
    name_b: str
    results: list[DealResult]
    game: Game = CLASSIC

    @property
    def hand_margins(self) -> list[int]:
        return [m for r in self.results for m in r.margins]

    @property
    def wins_draws_losses(self) -> tuple[int, int, int]:
        margins = self.hand_margins
        return (
            sum(m > 0 for m in margins),
            sum(m == 0 for m in margins),
            sum(m < 0 for m in margins),
        )

    @property
    def mean_and_halfwidth(self) -> tuple[float, float]:
        """Mean margin per hand and the 95% CI half-width over per-deal means."""
        per_deal = [sum(r.margins) / 2 for r in self.results]
        mean = statistics.fmean(per_deal)
        if len(per_deal) < 2:
            return mean, math.inf
        return mean, 1.96 * statistics.stdev(per_deal) / math.sqrt(len(per_deal))

    def times(self, name: str) -> list[float]:
        """CPU ms of every move with a choice by player ``name`` (if it searches)."""
        return [t for r in self.results for t, _ in r.cpu_ms.get(name, ())]

    def searched_times(self, name: str) -> list[float]:
        """The same, for the moves it searched (not solved exactly)."""
        return [t for r in self.results for t, s in r.cpu_ms.get(name, ()) if s]

    @property
    def cap_hits(self) -> int:
        return sum(r.cap_hits for r in self.results)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0-1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def run(
    pairings: Iterable[tuple[str, str]],
    deals: int,
    jobs: int,
    seed: int,
    budget: float,
    wall_cap: float = 0.0,
    games: Sequence[Game] = (CLASSIC,),
) -> list[PairingReport]:
    """Play ``deals`` deals of every pairing in every game on ``jobs`` processes."""
    reports = []
    for game in games:
        for name_a, name_b in pairings:
            tasks = [(name_a, name_b, seed, i, budget, wall_cap, game) for i in range(deals)]
            if jobs > 1:
                with Pool(jobs) as pool:
                    results = pool.map(play_deal, tasks, chunksize=max(1, deals // (jobs * 8)))
            else:
                results = [play_deal(task) for task in tasks]
            reports.append(PairingReport(name_a, name_b, results, game))
    return reports


def elo_ratings(reports: Sequence[PairingReport], anchor: str = "random") -> dict[str, float]:
    """An Elo-style rating of each player from the hands it won, drew and lost against
    the others (a draw counts half): the ratings whose differences best fit, by least
    squares, each pairing's ``400 log10(score / (1 - score))``, with ``anchor`` at 0
    (without it among the players, the first of them by name). A pairing one side won
    every hand of is clipped at a score of 0.99 (+798)."""
    names = sorted({r.name_a for r in reports} | {r.name_b for r in reports})
    if anchor not in names:
        anchor = names[0]
    rows: list[tuple[str, str, float]] = []
    for report in reports:
        if report.name_a == report.name_b:
            continue
        wins, draws, losses = report.wins_draws_losses
        score = (wins + draws / 2) / max(1, wins + draws + losses)
        score = min(0.99, max(0.01, score))
        rows.append((report.name_a, report.name_b, 400 * math.log10(score / (1 - score))))
    ratings = dict.fromkeys(names, 0.0)
    # Gauss-Seidel on the normal equations: each rating the mean of what its pairings
    # say it is; converges for a connected set of pairings.
    for _ in range(200):
        for name in names:
            if name == anchor:
                continue
            said = [ratings[b] + d for a, b, d in rows if a == name]
            said += [ratings[a] - d for a, b, d in rows if b == name]
            if said:
                ratings[name] = statistics.fmean(said)
    return ratings


def table(reports: Sequence[PairingReport], budget: float) -> str:
    """The results as a Markdown table, and the searching players' move times below."""
    lines = [
        "| game | pairing (A vs B) | deals | hands | A wins | draws | B wins "
        "| margin per hand (A - B) | 95% CI | CPU ms/move median, p99 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for report in reports:
        wins, draws, losses = report.wins_draws_losses
        mean, half = report.mean_and_halfwidth
        timing = "; ".join(
            f"{name} {statistics.median(times):.1f}, {percentile(times, 0.99):.1f}"
            for name in (report.name_a, report.name_b)
            if (times := report.times(name))
        )
        variant, players = report.game
        lines.append(
            f"| {variant}, {players} players | {report.name_a} vs {report.name_b} "
            f"| {len(report.results)} "
            f"| {2 * len(report.results)} | {wins} | {draws} | {losses} "
            f"| {mean:+.3f} | [{mean - half:+.3f}, {mean + half:+.3f}] | {timing or '-'} |"
        )
    names = sorted({n for r in reports for n in (r.name_a, r.name_b) if searches(n)})
    for name in names:
        times = [t for report in reports for t in report.times(name)]
        searched = [t for report in reports for t in report.searched_times(name)]
        if not times:
            continue
        own = budget * budget_share(name)
        p99 = percentile(times, 0.99)
        lines.append("")
        lines.append(
            f"{name.capitalize()} CPU time per move with a choice ({len(times)} moves, "
            f"budget {own:g} ms): median {statistics.median(times):.1f} ms, p99 "
            f"{p99:.1f} ms ({p99 / own:.2f}x the budget), max {max(times):.1f} ms. "
            f"Moves it searched ({len(searched)}; the others it solved exactly): median "
            f"{statistics.median(searched or [0]):.1f} ms, mean "
            f"{statistics.fmean(searched or [0]):.1f} ms."
        )
    lines.append("")
    lines.append(
        f"Searches cut by the wall-clock cap: {sum(report.cap_hits for report in reports)}."
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals per pairing")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="base seed of the shuffles")
    parser.add_argument(
        "--budget",
        type=float,
        default=50.0,
        help="the expert's budget, ms a move (the apprentice thinks for a tenth of it)",
    )
    parser.add_argument(
        "--wall-cap",
        type=float,
        default=0.0,
        help="the expert's wall-clock cap, in budgets (the service uses 3); 0, the default, "
        "turns it off so that the results do not depend on the machine's load",
    )
    parser.add_argument(
        "--game",
        action="append",
        metavar="VARIANT:PLAYERS",
        help="a game to play each pairing in (repeatable); default: scopa:2",
    )
    parser.add_argument(
        "--pairing",
        action="append",
        metavar="A:B",
        help="a pairing to play (repeatable); default: expert:greedy greedy:random expert:random",
    )
    parser.add_argument(
        "--levels",
        action="store_true",
        help="rate every level: " + " ".join(f"{a}:{b}" for a, b in LEVEL_PAIRINGS),
    )
    args = parser.parse_args(argv)
    pairings = list(PAIRINGS)
    if args.levels:
        pairings = list(LEVEL_PAIRINGS)
    if args.pairing:
        pairings = [(a, b) for a, _, b in (p.partition(":") for p in args.pairing)]
    players = [*LEVELS_BY_NAME, *OTHER_EXPERTS]
    for name in {n for pairing in pairings for n in pairing}:
        if name not in players:
            parser.error(f"unknown player {name!r}: choose among {', '.join(players)}")
    games = [CLASSIC]
    if args.game:
        games = [(v, int(n)) for v, _, n in (g.partition(":") for g in args.game)]
    start = time.perf_counter()
    reports = run(pairings, args.deals, args.jobs, args.seed, args.budget, args.wall_cap, games)
    print(table(reports, args.budget))
    for game in games:
        ratings = elo_ratings([r for r in reports if r.game == game])
        shown = ", ".join(
            f"{name} {rating:+.0f}"
            for name, rating in sorted(ratings.items(), key=lambda item: item[1])
        )
        anchor = "random" if "random" in ratings else min(ratings)
        print(f"\nElo-style ratings in {game[0]}, {game[1]} players ({anchor} = 0): {shown}")
    print(
        f"\n{args.deals} deals per pairing, seed {args.seed}, {args.jobs} jobs, "
        f"{time.perf_counter() - start:.0f} s wall.",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
