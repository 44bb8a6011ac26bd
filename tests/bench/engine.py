"""How fast the engine plays: random 2-player hands of classic Scopa per second.

Run it with ``make bench`` (or ``python -m tests.bench.engine --help``). It is a script,
not a test: pytest never collects it, and no test depends on a timing.

One hand is: shuffle and deal (again on three kings, R3), then at every turn list the
legal moves, pick one at random and apply it, and at the end score the hand (R7). Three
implementations play the same hands, from the same random numbers, with the same pick
(``moves[int(random() * len(moves))]``), so the harness costs them all the same:

- naive: what a reader would first write, cards as code strings (``"7D"``) and captures
  found by trying every subset of the table with itertools;
- fast: the engine's core, :class:`~service.engine.hand.Hand` on card masks (dealt by
  :meth:`~service.engine.hand.Hand.deal` as :class:`~service.engine.match.Match` deals),
  ``legal_codes()`` and ``push()``, then :func:`~service.engine.scoring.hand_points`;
- Match: the readable API (``Match.legal_moves()`` and ``push()``), for reference.

Before timing anything, the three play a few hundred hands in lockstep and must agree on
every legal move and every score. When ``make compile`` has built the engine with mypyc
(into build/mypyc, see tests/bench/compiled.py; ``make bench`` builds it first where a C
compiler exists), the same figures are measured again in a child process that imports
the compiled modules. The last lines sum up both engines against the naive figure: what
`make run` and the image serve, compiled, should be at least ``TARGET`` times it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import combinations
from typing import Any

from service.engine import hand as hand_module
from service.engine.cards import DECK
from service.engine.hand import Hand
from service.engine.match import Match, code_of
from service.engine.rules import Rules
from service.engine.scoring import hand_points
from service.engine.states import Status
from service.engine.variants import get_variant
from tests.bench import compiled

Points = list[dict[str, int]]
#: Plays one hand from ``rng`` with ``dealer`` dealing; returns each side's points.
Player = Callable[[random.Random, int], Points]

# --------------------------------------------------------------------------- naive

NAIVE_DECK = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]
PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}
NaiveMove = tuple[str, tuple[str, ...]]


def value(card: str) -> int:
    return int(card[:-1])


class NaiveHand:
    """A hand of classic Scopa for two, as a reader would first write it."""

    def __init__(self, deck: list[str], dealer: int) -> None:
        first = (dealer + 1) % 2
        self.dealer = dealer
        self.hands: list[list[str]] = [[], []]
        self.hands[first] = deck[0:3]
        self.hands[dealer] = deck[3:6]
        self.table = deck[6:10]
        self.stock = deck[10:]
        self.piles: list[list[str]] = [[], []]
        self.scopas = [0, 0]
        self.last_capturer: int | None = None
        self.turn = first
        self.over = False

    def needs_redeal(self) -> bool:
        return sum(1 for card in self.table if value(card) == 10) >= 3

    def legal_moves(self) -> list[NaiveMove]:
        moves: list[NaiveMove] = []
        for card in self.hands[self.turn]:
            v = value(card)
            singles = [c for c in self.table if value(c) == v]
            if singles:  # a single match goes first
                moves.extend((card, (c,)) for c in singles)
                continue
            sums = [
                combo
                for size in range(2, len(self.table) + 1)
                for combo in combinations(self.table, size)
                if sum(value(c) for c in combo) == v
            ]
            if sums:
                moves.extend((card, combo) for combo in sums)
            else:
                moves.append((card, ()))
        return moves

    def play(self, move: NaiveMove) -> None:
        card, captured = move
        seat = self.turn
        self.hands[seat].remove(card)
        last_card = not self.stock and not self.hands[0] and not self.hands[1]
        if captured:
            for c in captured:
                self.table.remove(c)
            self.piles[seat] += [card, *captured]
            if not self.table and not last_card:
                self.scopas[seat] += 1
            self.last_capturer = seat
        else:
            self.table.append(card)
        if last_card:
            if self.last_capturer is not None:
                self.piles[self.last_capturer] += self.table
                self.table = []
            self.over = True
            return
        if not self.hands[0] and not self.hands[1]:
            for offset in (1, 2):
                self.hands[(self.dealer + offset) % 2] = self.stock[:3]
                del self.stock[:3]
        self.turn = 1 - seat

    def score(self) -> Points:
        def primiera(pile: list[str]) -> int | None:
            best: dict[str, int] = {}
            for card in pile:
                best[card[-1]] = max(best.get(card[-1], 0), PRIMIERA[value(card)])
            return sum(best.values()) if len(best) == 4 else None

        def sole_best(values: list[int | None]) -> int | None:
            known = [v for v in values if v is not None]
            if not known or known.count(max(known)) > 1:
                return None
            return values.index(max(known))

        cards = sole_best([len(pile) for pile in self.piles])
        coins = sole_best([sum(1 for c in pile if c.endswith("D")) for pile in self.piles])
        best_primiera = sole_best([primiera(pile) for pile in self.piles])
        return [
            {
                "cards": int(cards == side),
                "coins": int(coins == side),
                "settebello": int("7D" in pile),
                "primiera": int(best_primiera == side),
                "scopas": self.scopas[side],
            }
            for side, pile in enumerate(self.piles)
        ]


def naive_hand(rng: random.Random, dealer: int) -> Points:
    random_ = rng.random
    while True:
        deck = list(NAIVE_DECK)
        rng.shuffle(deck)
        hand = NaiveHand(deck, dealer)
        if not hand.needs_redeal():
            break
    while not hand.over:
        moves = hand.legal_moves()
        hand.play(moves[int(random_() * len(moves))])
    return hand.score()


# --------------------------------------------------------------------------- the engine

SCOPA = get_variant("scopa")
RULES = Rules()
TEAMS = [0, 1]


def fast_hand(rng: random.Random, dealer: int) -> Points:
    random_ = rng.random
    while True:  # as Match._start_hand deals (classic Scopa has no dealer's bonus)
        cards = list(range(40))
        rng.shuffle(cards)
        hand = Hand.deal(SCOPA, RULES, 2, dealer, cards)
        if not SCOPA.needs_redeal(hand.table):
            break
    while hand.turn is not None:
        moves = hand.legal_codes()
        hand.push(moves[int(random_() * len(moves))])
    piles, scopas = hand.team_piles(TEAMS, 2)
    return hand_points(piles, scopas, RULES)


def match_hand(rng: random.Random, dealer: int) -> Points:
    random_ = rng.random
    deck = list(DECK)
    rng.shuffle(deck)
    # target 1: the match ends with this hand, unless the top scores tie (then the next
    # hand is dealt too, and not played)
    match, _ = Match.new(players=2, deck=deck, first_dealer=dealer, target=1, seed=0)
    while match.hand_number == 1 and match.status == Status.PLAYING:
        moves = match.legal_moves()
        match.push(moves[int(random_() * len(moves))])
    return [side["points"] for side in match.hand_scores[0]["teams"]]


IMPLEMENTATIONS: dict[str, Player] = {"naive": naive_hand, "fast": fast_hand, "match": match_hand}

# --------------------------------------------------------------------------- sanity check

INDEX = {code: i for i, code in enumerate(NAIVE_DECK)}


def naive_code(move: NaiveMove) -> int:
    card, captured = move
    capture = 0
    for c in captured:
        capture |= 1 << INDEX[c]
    return capture << 6 | INDEX[card]


def check_agreement(hands: int, seed: int) -> tuple[int, int]:
    """Play ``hands`` random hands with the three implementations in lockstep: at every
    turn they must list the same legal moves, and at the end give the same points.
    Returns (positions, hands) checked."""
    rng = random.Random(seed)
    positions = checked = 0
    while checked < hands:
        cards = list(range(40))
        rng.shuffle(cards)
        dealer = checked & 1
        fast = Hand.deal(SCOPA, RULES, 2, dealer, cards)
        naive = NaiveHand([NAIVE_DECK[i] for i in cards], dealer)
        assert SCOPA.needs_redeal(fast.table) == naive.needs_redeal()
        if naive.needs_redeal():
            continue
        match, _ = Match.new(players=2, deck=[DECK[i] for i in cards], first_dealer=dealer)
        while fast.turn is not None:
            codes = fast.legal_codes()
            naive_moves = {naive_code(m): m for m in naive.legal_moves()}
            match_moves = {code_of(m): m for m in match.legal_moves()}
            assert len(codes) == len(naive_moves) == len(match_moves), (cards, codes)
            assert set(codes) == set(naive_moves) == set(match_moves), (cards, codes)
            code = codes[int(rng.random() * len(codes))]
            fast.push(code)
            naive.play(naive_moves[code])
            match.push(match_moves[code])
            positions += 1
        assert naive.over
        piles, scopas = fast.team_piles(TEAMS, 2)
        points = hand_points(piles, scopas, RULES)
        assert points == naive.score(), (cards, points, naive.score())
        assert points == [side["points"] for side in match.hand_scores[0]["teams"]]
        checked += 1
    return positions, checked


# --------------------------------------------------------------------------- timing


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def rate(
    play: Player, seed: int, hands: int | None, seconds: float, clock: Callable[[], float]
) -> float:
    """Hands per second playing ``hands`` hands, or as many as fit in ``seconds``."""
    rng = random.Random(seed)
    played = 0
    start = now = clock()
    if hands is not None:
        for played in range(hands):
            play(rng, played & 1)
        return hands / (clock() - start)
    deadline = start + seconds
    while now < deadline:
        play(rng, played & 1)
        played += 1
        now = clock()
    return played / (now - start)


def measure(names: list[str], args: argparse.Namespace) -> dict[str, list[float]]:
    """Hands per second of each implementation, ``args.repeat`` times, after a warm-up
    (which fills the engine's caches, as a long-running process has them); the
    implementations take turns, so that a change in the machine's load hits them all."""
    clock = CLOCKS[args.clock]
    for name in names if args.warmup > 0 else ():
        rate(IMPLEMENTATIONS[name], args.seed - 1, None, args.warmup, clock)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for rep in range(args.repeat):
        for name in names:
            gc.collect()
            found = rate(IMPLEMENTATIONS[name], args.seed + rep, args.hands, args.seconds, clock)
            rates[name].append(found)
    return rates


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def engine_kind() -> str:
    """Whether the engine's hot modules are the .py sources or the mypyc build."""
    if hand_module.__file__.endswith(".py"):
        return "pure Python"
    return f"mypyc ({os.path.relpath(hand_module.__file__, compiled.ROOT)})"


LABELS = {
    "naive": "naive: code strings, itertools subsets",
    "fast": "fast: Hand on masks",
    "match": "Match: the readable API",
}


#: How many times the naive figure the engine that serves (compiled) should play.
TARGET = 15.0


def summary(results: list[dict[str, Any]]) -> list[str]:
    """One line per engine measured: the fast core's median over its process's naive."""
    lines = []
    for result in results:
        rates = result["rates"]
        if "fast" not in rates:
            continue
        ratio = statistics.median(rates["fast"]) / statistics.median(rates["naive"])
        line = f"engine {result['engine']}: {ratio:.1f}x the naive figure"
        if result["engine"].startswith("mypyc"):
            line += f" ({'meets' if ratio >= TARGET else 'BELOW'} the target of {TARGET:g}x)"
        lines.append(line)
    return lines


def report(results: list[dict[str, Any]]) -> None:
    """Each process's medians; its own naive figure is the baseline of its ratios."""
    print(f"{'':<42} {'hands/s':>9} {'(min-max)':>17} {'x naive':>8}")
    for number, result in enumerate(results):
        where = "this process" if number == 0 else "a child process"
        print(f"{where}, engine {result['engine']}:")
        naive = statistics.median(result["rates"]["naive"])
        for name, rates in result["rates"].items():
            median = statistics.median(rates)
            spread = f"({min(rates):,.0f}-{max(rates):,.0f})"
            print(f"  {LABELS[name]:<40} {median:>9,.0f} {spread:>17} {median / naive:>7.2f}x")
    print()
    for line in summary(results):
        print(line)


def run_compiled(args: argparse.Namespace) -> dict[str, Any] | None:
    """The figures of the mypyc build, measured in a child process that imports it."""
    state = compiled.status("engine")
    if state == "missing":
        print("compiled engine: not built (`make compile` builds it into build/mypyc)")
        return None
    if state == "stale":
        print("compiled engine: build/mypyc is STALE (the engine changed): skipped;")
        print("  run `make compile` again to measure it")
        return None
    command = [sys.executable, "-m", "tests.bench.engine", "--child"]
    command += ["--repeat", str(args.repeat), "--seed", str(args.seed)]
    command += ["--warmup", str(args.warmup), "--clock", args.clock]
    if args.hands is None:
        command += ["--seconds", str(args.seconds)]
    else:
        command += ["--hands", str(args.hands)]
    for name in args.only or ():
        command += ["--only", name]
    # The child runs in the build directory, so that `service` is the compiled copy
    # there; `tests` comes from PYTHONPATH.
    env = dict(os.environ, PYTHONPATH=str(compiled.ROOT))
    child = subprocess.run(
        command, cwd=compiled.BUILD, env=env, check=True, capture_output=True, text=True
    )
    result: dict[str, Any] = json.loads(child.stdout)
    if not result["engine"].startswith("mypyc"):
        raise SystemExit(f"the child did not import the compiled engine: {result}")
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--seconds", type=float, default=1.0, help="time per repetition (1)")
    size.add_argument("--hands", type=int, help="hands per repetition instead of a time")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions (5)")
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="seconds each plays before timing (1)"
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="time the process's CPU time (the default: steadier on a shared machine) "
        "or the wall clock",
    )
    parser.add_argument("--seed", type=int, default=2024, help="random seed (2024)")
    parser.add_argument(
        "--only", choices=sorted(IMPLEMENTATIONS), action="append", help="time only these"
    )
    parser.add_argument("--check-hands", type=int, default=200, help="hands checked (200)")
    parser.add_argument("--no-check", action="store_true", help="skip the agreement check")
    parser.add_argument("--no-compiled", action="store_true", help="skip the mypyc build")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1 or (args.hands is not None and args.hands < 1):
        parser.error("--seconds, --hands and --repeat must be positive")
    # The naive baseline is always measured.
    names = [n for n in IMPLEMENTATIONS if n == "naive" or not args.only or n in args.only]

    if args.child:
        print(json.dumps({"engine": engine_kind(), "rates": measure(names, args)}))
        return

    print("Random 2-player hands of classic Scopa: deal, legal moves every turn, apply, score")
    print(f"{platform.python_implementation()} {platform.python_version()} on {cpu_model()}")
    how = f"{args.hands} hands" if args.hands is not None else f"{args.seconds:g} s"
    clock = "CPU time" if args.clock == "cpu" else "wall-clock time"
    print(f"hands per second of {clock}: median of {args.repeat} runs of {how} each,")
    print(f"after {args.warmup:g} s of warm-up; the implementations take turns; seed {args.seed}")
    if not args.no_check:
        positions, checked = check_agreement(args.check_hands, args.seed)
        print(f"check: naive, fast and Match agree on all {positions:,} positions' legal moves")
        print(f"       and on the points of all {checked} hands")
    results = [{"engine": engine_kind(), "rates": measure(names, args)}]
    if not args.no_compiled:
        compiled_result = run_compiled(args)
        if compiled_result is not None:
            results.append(compiled_result)
    print()
    report(results)


if __name__ == "__main__":
    main()
