"""Fit the value of a deal's end (service/bots/deal_end.py) to self-play (``make
fit-deal-end``).

For each player count, plays ``--hands`` hands of classic Scopa between players that
search like the apprentice (the expert's search at ``--budget`` ms, playing every hand
to its end: what they do never depends on the model being fitted), records the public
position each time a deal ends (the piles, the scopas, the table, the deals left) and
what the hand brought after it, and fits every part of the model to it, by the deals
left:

- the leader's share of the cards not yet taken, and of the coins: its mean beyond half
  (least squares, the cards with a term for each card on the table) and its spread (the
  residuals' variance per card left);
- the settebello while nobody has it: the mean outcome for the leader, in the stock and
  on the table (with two draws of prior weight);
- the primiera: the probit ``2 Phi(a + b r) - 1`` of the random-share moments
  (Gauss-Newton on the squared error);
- the scopas to come: least squares on a constant, the sweep chance and the table cards.

It then prints how well each part predicts (its mean squared error against the
outcome's variance) and writes service/bots/deal_end_fit.py. Deterministic given
``--seed``.

    python -m tests.bench.deal_end --hands 12000 --players 2 --players 4
"""

from __future__ import annotations

import argparse
import math
import pprint
import random
import statistics
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from datetime import date
from multiprocessing import Pool
from pathlib import Path

from service.bots.deal_end import (
    RULES,
    VARIANT,
    DealEndModel,
    deals_left,
    leader_value,
    normal_cdf,
    primiera_moments,
    sweep_chance,
)
from service.bots.expert import ExpertBot
from service.engine.masks import COINS, FULL, SETTEBELLO
from service.engine.match import Match, moves_of
from service.engine.variants import VARIANTS
from service.engine.views import knowledge_of

OUTPUT = Path(__file__).resolve().parents[2] / "service" / "bots" / "deal_end_fit.py"

#: One deal's end: deals left, the leader's pile, the other side's, the table, the
#: leader's scopas minus the other's; then what the hand ended with: the leader's cards
#: and coins, and its settebello, primiera and scopa points minus the other side's (the
#: scopas: those made after this deal's end).
Row = tuple[int, int, int, int, int, int, int, int, int, int]


def play(task: tuple[int, int, float]) -> list[Row]:
    """The rows of one self-play hand of ``players``, dealt from ``seed``."""
    players, seed, budget = task
    match, _ = Match.new(variant=VARIANT, seed=seed, players=players, first_dealer=seed % players)
    bots = [
        ExpertBot(budget, cap_factor=math.inf, deadline_seconds=math.inf, deal_end=False)
        for _ in range(players)
    ]
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(players)]
    assert match.rules == RULES
    teams = [seat % 2 for seat in range(players)]  # docs/rules.md R2.2, 2 or 4 players
    ends: list[tuple[int, int, int, int, int, int]] = []
    stock = len(match.hand.stock)
    while not match.hand_scores:
        hand = match.hand
        if len(hand.stock) < stock:  # a deal was just dealt: the last one ended
            stock = len(hand.stock)
            piles, scopas = hand.team_piles(teams, 2)
            leader = teams[(hand.dealer + 1) % players]
            left = deals_left(hand)
            ends.append(
                (
                    left,
                    leader,
                    piles[leader],
                    piles[1 - leader],
                    hand.table,
                    scopas[leader] - scopas[1 - leader],
                )
            )
        seat = match.turn
        assert seat is not None
        code = bots[seat].choose(knowledge_of(match, seat), hand.legal_codes(), rngs[seat])
        match.push(moves_of([code])[0])
    sides = match.hand_scores[0]["teams"]
    rows = []
    for left, leader, own, other, table, scopas in ends:
        mine, theirs = sides[leader], sides[1 - leader]
        points = [mine["points"][c] - theirs["points"][c] for c in ("settebello", "primiera")]
        later = mine["scopas"] - theirs["scopas"] - scopas
        rows.append((left, own, other, table, scopas, mine["cards"], mine["coins"], *points, later))
    return rows


def record(players: int, hands: int, seed: int, budget: float, jobs: int) -> list[Row]:
    tasks = [(players, seed * 1_000_000 + i, budget) for i in range(hands)]
    with Pool(jobs) as pool:
        found = pool.map(play, tasks, chunksize=max(1, hands // (jobs * 16)))
    return [row for rows in found for row in rows]


def solve(normal: list[list[float]], right: list[float]) -> list[float]:
    """The solution of a small linear system, by Gaussian elimination with pivoting."""
    n = len(right)
    a = [row[:] + [right[i]] for i, row in enumerate(normal)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            raise ValueError("singular system: too few rows of some kind to fit")
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def least_squares(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> list[float]:
    """Ordinary least squares: the coefficients of ``ys`` on the columns of ``xs``."""
    n = len(xs[0])
    normal = [[sum(x[i] * x[j] for x in xs) for j in range(n)] for i in range(n)]
    right = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in range(n)]
    return solve(normal, right)


def fit_probit(ratios: Sequence[float], outcomes: Sequence[float]) -> tuple[float, float]:
    """(a, b) minimizing the squared error of ``2 Phi(a + b r) - 1`` (Gauss-Newton)."""
    a, b = 0.0, 0.5
    for _ in range(50):
        jtj = [[0.0, 0.0], [0.0, 0.0]]
        jtr = [0.0, 0.0]
        for r, y in zip(ratios, outcomes, strict=True):
            z = a + b * r
            density = 2.0 * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
            residual = y - (2.0 * normal_cdf(z) - 1.0)
            grad = (density, density * r)
            for i in range(2):
                jtr[i] += grad[i] * residual
                for j in range(2):
                    jtj[i][j] += grad[i] * grad[j]
        step = solve(jtj, jtr)
        a, b = a + step[0], b + step[1]
        if abs(step[0]) + abs(step[1]) < 1e-9:
            break
    return a, b


def mse(predict: Callable[[int], float], outcomes: Sequence[float]) -> float:
    return statistics.fmean((predict(i) - y) ** 2 for i, y in enumerate(outcomes))


def fit(rows: list[Row], players: int) -> tuple[dict[str, tuple], list[str]]:
    """The model's fields for ``players`` fitted to ``rows``, and a line per part on its
    fit."""
    variant = VARIANTS[VARIANT]
    deals = max(row[0] for row in rows)
    by_left = [[row for row in rows if row[0] == left] for left in range(1, deals + 1)]
    report = []
    # Cards: the leader's share beyond half, on the deals left (one column each) and the
    # table's cards; the spread per deal left from the residuals.
    xs, ys, lefts = [], [], []
    for left, own, other, table, _scopas, cards, *_ in rows:
        remaining = 40 - own.bit_count() - other.bit_count()
        xs.append([float(left == k) for k in range(1, deals + 1)] + [float(table.bit_count())])
        ys.append(cards - own.bit_count() - remaining / 2)
        lefts.append((left, remaining))
    coef = least_squares(xs, ys)
    spread = []
    for k in range(1, deals + 1):
        residuals = [
            (y - sum(c * x for c, x in zip(coef, row, strict=True)), remaining)
            for row, y, (left, remaining) in zip(xs, ys, lefts, strict=True)
            if left == k
        ]
        spread.append(math.sqrt(sum(r * r for r, _ in residuals) / sum(n for _, n in residuals)))
    fields: dict[str, tuple] = {
        "cards_shift": tuple(coef[:deals]),
        "cards_per_table_card": coef[deals],
        "cards_spread": tuple(spread),
    }
    # Coins: the leader's share beyond half, by the deals left.
    shifts, spreads = [], []
    for group in by_left:
        share = [
            (row[6] - (row[1] & COINS).bit_count() - left_coins / 2, left_coins)
            for row in group
            if (left_coins := 10 - ((row[1] | row[2]) & COINS).bit_count())
        ]
        shift = statistics.fmean(s for s, _ in share)
        shifts.append(shift)
        squares = sum((s - shift) ** 2 for s, _ in share)
        spreads.append(math.sqrt(squares / sum(n for _, n in share)))
    fields["coins_shift"], fields["coins_spread"] = tuple(shifts), tuple(spreads)
    # The settebello while nobody has it: mean outcome in the stock and on the table.
    settebello = []
    for group in by_left:
        cells = []
        for on_table in (False, True):
            outcomes = [
                row[7]
                for row in group
                if not (row[1] | row[2]) & SETTEBELLO and bool(row[3] & SETTEBELLO) == on_table
            ]
            cells.append(sum(outcomes) / (len(outcomes) + 2))
        settebello.append(tuple(cells))
    fields["settebello"] = tuple(settebello)
    # The primiera: a probit of the random-share moments.
    primiera = []
    errors = []
    for group in by_left:
        ratios = []
        for row in group:
            mean, variance = primiera_moments(row[1], row[2])
            ratios.append(mean / math.sqrt(variance + 1.0))
        outcomes = [float(row[8]) for row in group]
        a, b = fit_probit(ratios, outcomes)
        primiera.append((a, b))
        errors += [
            (2 * normal_cdf(a + b * r) - 1 - y) ** 2 for r, y in zip(ratios, outcomes, strict=True)
        ]
    fields["primiera"] = tuple(primiera)
    outcomes = [float(row[8]) for row in rows]
    report.append(
        f"primiera: mean squared error {statistics.fmean(errors):.3f} "
        f"(the outcome's variance {statistics.pvariance(outcomes):.3f})"
    )
    # The scopas to come: constant, sweep chance, table cards, by the deals left.
    scopas = []
    errors = []
    for group in by_left:
        xs = [
            [
                1.0,
                sweep_chance(variant, row[3], FULL ^ (row[1] | row[2] | row[3])),
                float(row[3].bit_count()),
            ]
            for row in group
        ]
        ys = [float(row[9]) for row in group]
        coef = least_squares(xs, ys)
        scopas.append(tuple(coef))
        errors += [
            (y - sum(c * v for c, v in zip(coef, x, strict=True))) ** 2
            for x, y in zip(xs, ys, strict=True)
        ]
    fields["scopas"] = tuple(scopas)
    outcomes = [float(row[9]) for row in rows]
    report.append(
        f"scopas to come: mean squared error {statistics.fmean(errors):.3f} "
        f"(the outcome's variance {statistics.pvariance(outcomes):.3f})"
    )
    # The whole value against the hand's margin.
    model = DealEndModel(players, **fields)
    predicted, margins = [], []
    for left, own, other, table, scopas_so_far, cards, coins, sb, pr, later in rows:
        predicted.append(leader_value(model, variant, own, other, table, scopas_so_far, left))
        margins.append(
            (cards > 20)
            - (cards < 20)
            + (coins > 5)
            - (coins < 5)
            + sb
            + pr
            + scopas_so_far
            + later
        )
    residual = statistics.fmean((p - m) ** 2 for p, m in zip(predicted, margins, strict=True))
    variance = statistics.pvariance(margins)
    slope = statistics.linear_regression(predicted, margins).slope
    report.append(
        f"the hand's margin: mean squared error {residual:.3f} against its variance "
        f"{variance:.3f} (R^2 {1 - residual / variance:.3f}); margin on value, slope {slope:.3f}"
    )
    return fields, report


def rounded(value: object) -> object:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, tuple):
        return tuple(rounded(v) for v in value)
    return value


def write(models: dict[int, dict[str, tuple]], summary: str) -> None:
    """Write :data:`OUTPUT`, the models' fields rounded to 4 places."""
    fitted = {n: {k: rounded(v) for k, v in fields.items()} for n, fields in models.items()}
    # Each key on a line of its own, under the assignment, within ruff's 100 columns.
    body = pprint.pformat(fitted, width=96, sort_dicts=False).replace("\n", "\n    ")
    lines = [
        '"""The fitted parameters of service/bots/deal_end.py, by player count: written by',
        "`make fit-deal-end` (tests/bench/deal_end.py); run it again rather than edit.",
        "",
        *textwrap.wrap(summary, 88),
        '"""',
        "",
        "from typing import Any",
        "",
        "FITTED: dict[int, dict[str, Any]] = (",
        f"    {body}",
        ")",
    ]
    OUTPUT.write_text("\n".join(lines) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=12000, help="self-play hands a player count")
    parser.add_argument(
        "--players", type=int, action="append", help="a player count to fit (repeatable; 2, 4)"
    )
    parser.add_argument("--budget", type=float, default=5.0, help="the players' budget, ms a move")
    parser.add_argument("--seed", type=int, default=1, help="base seed of the shuffles")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    counts = args.players or [2, 4]
    models = {}
    start = time.perf_counter()
    for players in counts:
        rows = record(players, args.hands, args.seed + players, args.budget, args.jobs)
        fields, report = fit(rows, players)
        models[players] = fields
        print(f"{players} players: {args.hands} hands, {len(rows)} deal ends")
        for line in report:
            print(f"  {line}")
    summary = (
        f"{date.today().isoformat()}: {args.hands} hands a player count, the search at "
        f"{args.budget:g} ms a move, seed {args.seed} ({VARIANT}, default rules)."
    )
    write(models, summary)
    print(f"wrote {OUTPUT.relative_to(OUTPUT.parents[2])} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
