"""Seeded random loops over whole matches: invariants the rules (docs/rules.md R2-R10)
imply, for every variant of R10.

No hypothesis: every loop draws from ``random.Random(fixed seed)``, so a failure names
the seed that reproduces it. The scorer, the hand model, the deal checks and the move
generators below are written from docs/rules.md alone, independently of the engine, and
the engine is checked against them.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter, defaultdict
from typing import Any

import pytest

from service.engine import (
    DECK,
    VARIANTS,
    AmbiguousMoveError,
    Card,
    ForcedCapture,
    IllegalMoveError,
    Match,
    Move,
    NotYourTurnError,
    Rules,
    Status,
    get_variant,
    legal_moves_in,
)
from tests.helpers import DEAL_SHAPE

#: The variants of R10.1-R10.6, which these models cover. Cirulla (R10.7) has rules of
#: its own (C1-C10): tests/test_cirulla.py checks its moves against brute force over
#: every table subset, its scoring lines and whole matches that replay.
VARIANT_NAMES = tuple(name for name in VARIANTS if name != "cirulla")

# --------------------------------------------------------------------------- the variants

#: R3, R10: the player counts each variant is played by.
PLAYERS = {
    "scopa": (2, 3, 4, 6),
    "scopone": (4,),
    "scopone_scientifico": (4,),
    "scopa_di_quindici": (2, 3, 4, 6),
    "escoba": (2, 3, 4, 6),
    "asso_piglia_tutto": (2, 3, 4, 6),
}
#: R3: 3 or 4 kings on the table are dealt again (R10: scopone says so; quindici and asso
#: piglia tutto are "otherwise as scopa"). Escoba scores the table instead (its
#: description); scientifico deals no table.
KING_REDEAL = {"scopa", "scopone", "scopa_di_quindici", "asso_piglia_tutto"}
#: R10: the variants where a card and the cards it takes add up to 15.
FIFTEEN = {"scopa_di_quindici", "escoba"}
ACE = 1


def test_every_variant_has_its_properties_written_down() -> None:
    """A new variant must come with its deal shape and player counts here."""
    assert set(DEAL_SHAPE) == set(PLAYERS) == set(VARIANT_NAMES) == set(VARIANTS) - {"cirulla"}
    for name in VARIANT_NAMES:
        assert tuple(VARIANTS[name].player_counts) == PLAYERS[name]


#: The variants the tests that need no model of the rules cover: every one.
ENGINE_VARIANTS = tuple(VARIANTS)


def random_rules(rng: random.Random, variant: str = "scopa") -> Rules:
    if variant == "cirulla":  # its own options (C9)
        return Rules(
            forced_capture=rng.choice(list(ForcedCapture)),
            table_low=rng.random() < 0.5,
            auto_declare=rng.random() < 0.3,
            fewest_cards=rng.random() < 0.5,
            matta_keeps_value=rng.random() < 0.5,
            piccola_max=rng.randint(3, 10),
            cappotto=rng.random() < 0.7,
        )
    options: dict[str, Any] = {
        "re_bello": rng.random() < 0.5,
        "napola": rng.random() < 0.5,
        "napoleone": rng.random() < 0.3,
        "forced_capture": rng.choice(list(ForcedCapture)),
    }
    if variant == "scopone_scientifico":  # R10: its own option
        options["dealer_last_sweep"] = rng.random() < 0.5
    return Rules(**options)


def new_match(
    rng: random.Random, seed: int, target: int, variant: str = "scopa"
) -> tuple[Match, list[dict[str, Any]]]:
    return Match.new(
        variant=variant,
        players=rng.choice(VARIANTS[variant].player_counts),
        target=target,
        rules=random_rules(rng, variant),
        seed=seed,
    )


#: How many random matches (positions, for "positions") each test plays, by variant: the
#: counts keep this whole file under 40 s of CPU. Scopone hands hold 9 or 10 cards, so
#: they have many more legal moves to try one by one.
BUDGET: dict[str, dict[str, int]] = {
    "short": {"scopa": 1500, "others": 400},
    "default target": {"scopa": 200, "others": 40},
    "checked": {"scopa": 100, "scopone": 12, "scopone_scientifico": 10, "others": 20},
    "illegal": {"scopa": 100, "scopone": 15, "scopone_scientifico": 15, "others": 25},
    "positions": {"scopa": 2000, "others": 1000},
    "storage": {"scopa": 120, "others": 25},
}


def how_many(test: str, variant: str) -> int:
    counts = BUDGET[test]
    return counts.get(variant, counts["others"])


def seeds(variant: str, count: int, start: int = 0) -> range:
    """Match seeds: classic Scopa keeps its historical seeds, each other variant has its own
    range so that the variants are not dealt the same cards."""
    base = 1_000_000 * ENGINE_VARIANTS.index(variant)
    return range(base + start, base + start + count)


def maybe_declare(match: Match, rng: random.Random) -> None:
    """In Cirulla, a random legal declaration half the times one may be made (C3)."""
    declarations = match.legal_declarations()
    if declarations and rng.random() < 0.5:
        seat = match.turn
        assert seat is not None
        chosen = rng.choice(declarations)
        match.declare(seat, chosen.kind, chosen.matta_as)


def state(match: Match) -> str:
    """The whole state, frozen as text (``to_dict`` shares lists with the match)."""
    return json.dumps(match.to_dict(), sort_keys=True)


def copy_of(match: Match) -> Match:
    return Match.from_dict(json.loads(json.dumps(match.to_dict())))


#: Cards are interned (``Card.parse("7D") is Card.parse("7D")``): ids make a fast check.
DECK_IDS = sorted(map(id, DECK))


def check_all_cards_accounted_for(match: Match) -> tuple[list[list[Card]], list[Card]]:
    """R1/R3/R4.4/R6: the 40 cards are each in exactly one place: a hand, the table,
    the stock or a pile (piles are emptied when a new hand is dealt). Returns the hands
    and the table it read (the match builds them on each read)."""
    hands, table = match.hands, match.table
    places = [*hands, table, match.stock, *match.piles]
    if sorted(id(card) for place in places for card in place) != DECK_IDS:
        counts = Counter(card for place in places for card in place)
        assert set(counts) == set(DECK), sorted(map(str, set(DECK) - set(counts)))
        assert set(counts.values()) == {1}, [str(c) for c, n in counts.items() if n > 1]
    return hands, table


# --------------------------------------------------------------------------- naive rules

#: R7 primiera values by the card's value, written out from docs/rules.md.
PRIMIERA = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


def value_of(code: str) -> int:
    return int(code[:-1])


def suit_of(code: str) -> str:
    return code[-1]


def sole_winner(values: list[int]) -> int | None:
    """R7: the side with the strictly highest value; nobody on a tie at the top."""
    best = max(values)
    holders = [side for side, v in enumerate(values) if v == best]
    return holders[0] if len(holders) == 1 else None


def naive_primiera(pile: list[str]) -> int | None:
    best: dict[str, int] = {}
    for code in pile:
        best[suit_of(code)] = max(best.get(suit_of(code), 0), PRIMIERA[value_of(code)])
    return sum(best.values()) if len(best) == 4 else None


def naive_napola(pile: list[str]) -> int:
    coins = {value_of(c) for c in pile if suit_of(c) == "D"}
    run = next(n for n in range(10, -1, -1) if set(range(1, n + 1)) <= coins)
    return run if run >= 3 else 0


def naive_score(piles: list[list[str]], scopas: list[int], rules: Rules) -> list[dict[str, int]]:
    """R7 and the R9 options, from the piles of each side, by hand."""
    counts = [len(p) for p in piles]
    coins = [sum(1 for c in p if suit_of(c) == "D") for p in piles]
    primieras = [naive_primiera(p) for p in piles]
    cards_to = sole_winner(counts)
    coins_to = sole_winner(coins)
    primiera_to = sole_winner([-1 if v is None else v for v in primieras])
    if primiera_to is not None and primieras[primiera_to] is None:
        primiera_to = None  # a side missing a suit cannot win it
    result = []
    for side, pile in enumerate(piles):
        points = {
            "cards": int(cards_to == side),
            "coins": int(coins_to == side),
            "settebello": int("7D" in pile),
            "primiera": int(primiera_to == side),
            "scopas": scopas[side],
        }
        if rules.re_bello:
            points["re_bello"] = int("10D" in pile)
        if rules.napola:
            points["napola"] = naive_napola(pile)
        result.append(points)
    return result


def subsets_by_sum(table: list[Card]) -> dict[int, list[frozenset[Card]]]:
    """Every non-empty subset of the table whose values add up to 14 or less (no capture
    rule asks for more), by that sum: brute force over all the subsets."""
    by_sum: dict[int, list[frozenset[Card]]] = defaultdict(list)
    for size in range(1, len(table) + 1):
        for combo in itertools.combinations(table, size):
            total = sum(c.value for c in combo)
            if total <= 14:
                by_sum[total].append(frozenset(combo))
    return by_sum


def naive_captures(
    card: Card,
    table: list[Card],
    variant: str = "scopa",
    by_sum: dict[int, list[frozenset[Card]]] | None = None,
) -> list[frozenset[Card]]:
    """What ``card`` may take from ``table`` in ``variant``, by brute force over every
    subset of the table (``by_sum``: :func:`subsets_by_sum` of the table, if known).

    R4.1-R4.2: a single card of its value, first; else two or more adding up to its value.
    R10 quindici, escoba: one or more cards that add up to 15 with it; no single-match
    priority. R10 asso piglia tutto: an ace takes the whole table; other cards as R4."""
    if variant == "asso_piglia_tutto" and card.value == ACE:
        return [frozenset(table)] if table else []
    by_sum = subsets_by_sum(table) if by_sum is None else by_sum
    if variant in FIFTEEN:
        return list(by_sum.get(15 - card.value, []))
    singles = [frozenset([c]) for c in table if c.value == card.value]
    if singles:
        return singles
    return [s for s in by_sum.get(card.value, []) if len(s) >= 2]


def naive_legal_moves(
    rules: Rules, hand: list[Card], table: list[Card], variant: str = "scopa"
) -> set[Move]:
    """R4.1-R4.3, the ``forced_capture`` option, and the capture rule of ``variant``."""
    by_sum = subsets_by_sum(table)
    options = {card: naive_captures(card, table, variant, by_sum) for card in hand}
    captures = {Move(card, cap) for card, caps in options.items() for cap in caps}
    lays = {Move(card) for card, caps in options.items() if not caps}
    if rules.forced_capture is ForcedCapture.ANY and captures:
        return captures
    return captures | lays


def naive_is_scopa(
    variant: str,
    rules: Rules,
    card: str,
    capture: list[str],
    table_before: list[str],
    last_of_hand: bool,
    by_dealer: bool,
) -> bool:
    """R5: a capture clearing the table, never with the hand's last card. R10 asso piglia
    tutto: an ace's sweep only where the table held a single ace. R10 scientifico with
    ``dealer_last_sweep``: the dealer's last card clearing the table is a scopa."""
    clears = bool(capture) and len(capture) == len(table_before)
    if variant == "asso_piglia_tutto" and value_of(card) == ACE:
        clears = clears and [value_of(c) for c in table_before] == [ACE]
    if variant == "scopone_scientifico" and rules.dealer_last_sweep and last_of_hand:
        return clears and by_dealer
    return clears and not last_of_hand


def naive_dealer_bonus(variant: str, table: list[str]) -> int:
    """R10 escoba: a dealt table adding up to 15 is one escoba for the dealer, 30 two."""
    if variant != "escoba":
        return 0
    return {15: 1, 30: 2}.get(sum(value_of(c) for c in table), 0)


class HandModel:
    """The public course of one hand, replayed from the events alone (R4-R6, R10)."""

    def __init__(
        self, match: Match, dealer: int, deal: dict[str, Any], bonus: dict[str, Any] | None
    ) -> None:
        self.variant = match.variant.name
        self.rules = match.rules
        self.dealer = dealer
        self.teams = match.teams
        self.table: list[str] = list(deal["table"])
        self.piles: list[list[str]] = [[] for _ in range(match.players)]
        self.scopas = [0] * match.players
        self.last_capturer: int | None = None
        if bonus is not None:  # R10 escoba: the dealer takes the table just dealt
            self.piles[dealer] += self.table
            self.scopas[dealer] += bonus["scopas"]
            self.last_capturer = dealer
            self.table = []

    def move(self, event: dict[str, Any], last_of_hand: bool) -> None:
        seat, card, capture = event["seat"], event["card"], event["capture"]
        assert set(capture) <= set(self.table) and len(set(capture)) == len(capture)
        before = list(self.table)
        if capture:
            for code in capture:
                self.table.remove(code)
            self.piles[seat] += [card, *capture]
            self.last_capturer = seat
        else:
            self.table.append(card)
        scopa = naive_is_scopa(
            self.variant, self.rules, card, capture, before, last_of_hand, seat == self.dealer
        )
        assert event["scopa"] is scopa, (event, before)
        self.scopas[seat] += int(scopa)

    def end(self, hand_over: dict[str, Any], rules: Rules) -> tuple[list[int], list[bool]]:
        """R6 then R7: check the event; return each side's total and whether it holds
        all ten coins."""
        remainder = hand_over["remainder"]
        assert remainder["seat"] == self.last_capturer
        assert sorted(remainder["cards"]) == sorted(self.table)
        if self.last_capturer is not None:
            self.piles[self.last_capturer] += self.table
        sides = max(self.teams) + 1
        piles: list[list[str]] = [[] for _ in range(sides)]
        scopas = [0] * sides
        for seat, team in enumerate(self.teams):
            piles[team] += self.piles[seat]
            scopas[team] += self.scopas[seat]
        expected = naive_score(piles, scopas, rules)
        reported = hand_over["score"]["teams"]
        assert len(reported) == sides
        for side in range(sides):
            got = reported[side]
            assert sorted(got["captured"]) == sorted(piles[side])
            assert got["points"] == expected[side], (side, got, expected[side])
            assert got["total"] == sum(expected[side].values())
            assert got["cards"] == len(piles[side])
            assert got["coins"] == sum(1 for c in piles[side] if suit_of(c) == "D")
            assert got["settebello"] == ("7D" in piles[side])
            assert got["primiera"] == naive_primiera(piles[side])
            assert got["scopas"] == scopas[side]
        all_coins = [sum(1 for c in pile if suit_of(c) == "D") == 10 for pile in piles]
        return [sum(points.values()) for points in expected], all_coins


def check_deal(
    match: Match, events: list[dict[str, Any]], dealer: int
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """R3, R10: a new hand is dealt by ``dealer`` in the variant's shape, redealt while 3+
    kings lie on the table where the variant says so; escoba's dealer takes a table of 15
    or 30; the seat after the dealer plays first. Returns the deal and bonus events."""
    variant, players = match.variant.name, match.players
    hand_size, table_size = DEAL_SHAPE[variant]
    redeals = [e for e in events if e["type"] == "redeal"]
    if variant not in KING_REDEAL:
        assert not redeals
    for redeal in redeals:
        assert sum(value_of(c) == 10 for c in redeal["table"]) >= 3
        assert redeal["dealer"] == dealer
    (deal,) = [e for e in events if e["type"] == "deal"]
    assert deal["dealer"] == match.dealer == dealer
    assert deal["cards_each"] == hand_size
    assert len(deal["table"]) == table_size
    if variant in KING_REDEAL:
        assert sum(value_of(c) == 10 for c in deal["table"]) < 3
    in_hands = match.hands
    assert [len(hand) for hand in in_hands] == [hand_size] * players
    assert len(match.stock) == deal["stock_count"] == 40 - hand_size * players - table_size
    for seat in range(players):
        assert sorted(map(str, in_hands[seat])) == sorted(deal["hands"][str(seat)])
    bonuses = [e for e in events if e["type"] == "dealer_bonus"]
    expected_bonus = naive_dealer_bonus(variant, deal["table"])
    if expected_bonus:
        (bonus,) = bonuses
        assert bonus["seat"] == dealer and bonus["scopas"] == expected_bonus
        assert sorted(bonus["capture"]) == sorted(deal["table"])
        assert match.table == [] and match.last_capturer == dealer
        assert match.scopas[dealer] == expected_bonus
    else:
        assert not bonuses
        bonus = None
        assert sorted(map(str, match.table)) == sorted(deal["table"])
    assert match.turn == (dealer + 1) % players
    return deal, bonus


def play_and_check(match: Match, events: list[dict[str, Any]], rng: random.Random) -> int:
    """Play ``match`` to its end with random legal moves, checking at every move the legal
    moves (R4/R10, against brute force), the cards (all 40 accounted for), the turn order
    (R2), the deals (R3/R10), the scopas (R5/R10), the end of each hand (R6), its score (R7,
    R10 dealer's bonus) and the end of the match (R8, R9 napoleone). Returns the number
    of hands played."""
    players, rules, variant = match.players, match.rules, match.variant.name
    model = HandModel(match, match.dealer, *check_deal(match, events, match.dealer))
    totals = [0] * match.team_count
    hands = 0
    in_hands, table = check_all_cards_accounted_for(match)
    while match.status == Status.PLAYING:
        seat, dealer = match.turn, match.dealer
        assert seat is not None
        legal = match.legal_moves()
        expected = naive_legal_moves(rules, in_hands[seat], table, variant)
        assert set(legal) == expected, (variant, in_hands[seat], table)
        assert len(legal) == len(expected)
        move = rng.choice(legal)
        events = match.push(move)
        types = [e["type"] for e in events]
        assert types[0] == "move" and events[0]["seat"] == seat
        assert events[0]["card"] == str(move.card)
        assert sorted(events[0]["capture"]) == sorted(map(str, move.capture))
        model.move(events[0], last_of_hand="hand_over" in types)
        in_hands, table = check_all_cards_accounted_for(match)
        if "hand_over" not in types:
            assert match.turn == (seat + 1) % players  # R2
            if "deal" in types:  # R3: a new round, 3 cards each from the stock
                (deal,) = [e for e in events if e["type"] == "deal"]
                assert DEAL_SHAPE[variant][0] == 3  # R10: scopone deals only once
                assert deal["cards_each"] == 3 and deal["table"] == []
                assert all(len(hand) == 3 for hand in in_hands)
            continue
        hands += 1
        hand_over = events[types.index("hand_over")]
        assert seat == dealer  # R2-R3: the dealer plays the hand's last card
        gained, all_coins = model.end(hand_over, rules)
        totals = [t + g for t, g in zip(totals, gained, strict=True)]
        assert hand_over["score"]["scores"] == totals
        assert match.scores == totals
        napoleone = [side for side, full in enumerate(all_coins) if full]
        top = max(totals)
        if rules.napoleone and napoleone:
            winner: int | None = napoleone[0]
        elif top >= match.target and totals.count(top) == 1:
            winner = totals.index(top)
        else:
            winner = None
        if winner is None:
            assert match.status is Status.PLAYING and "match_over" not in types
            new_dealer = (dealer + 1) % players
            model = HandModel(match, new_dealer, *check_deal(match, events, new_dealer))
            assert match.hand_number == hands + 1
        else:
            assert match.status is Status.FINISHED and match.winner == winner
            assert types[-1] == "match_over" and events[-1]["winner"] == winner
    assert match.scores == [
        sum(h["teams"][t]["total"] for h in match.hand_scores) for t in range(match.team_count)
    ]
    assert len(match.hand_scores) == hands
    return hands


# --------------------------------------------------------------------------- full matches


class TestRandomMatches:
    """Thousands of random matches in every variant, with every player count, option and a
    range of targets."""

    @pytest.mark.parametrize("variant", VARIANT_NAMES)
    def test_many_short_matches(self, variant: str) -> None:
        count = how_many("short", variant)
        hands = hands_with_scopas = 0
        for seed in seeds(variant, count):
            rng = random.Random(seed)
            target = rng.choice((1, 1, 2, 3, 5))
            match, events = new_match(rng, seed, target=target, variant=variant)
            hands += play_and_check(match, events, rng)
            hands_with_scopas += sum(
                1 for hand in match.hand_scores if any(t["scopas"] for t in hand["teams"])
            )
        assert hands >= count
        assert hands_with_scopas > hands / 10  # scopas happen, and their checks ran

    @pytest.mark.parametrize("variant", VARIANT_NAMES)
    def test_matches_to_the_default_target(self, variant: str) -> None:
        """11 points, or 21 in escoba (R8, R10)."""
        for seed in seeds(variant, how_many("default target", variant), start=10_000):
            rng = random.Random(seed)
            match, events = new_match(
                rng, seed, target=VARIANTS[variant].default_target, variant=variant
            )
            play_and_check(match, events, rng)

    @pytest.mark.parametrize("variant", VARIANT_NAMES)
    def test_matches_to_twenty_one_in_every_player_count(self, variant: str) -> None:
        for players in PLAYERS[variant]:
            for seed in seeds(variant, 5, start=20_000):
                rng = random.Random(seed * players)
                match, events = Match.new(
                    variant=variant,
                    players=players,
                    target=21,
                    rules=random_rules(rng, variant),
                    seed=seed,
                )
                play_and_check(match, events, rng)


# --------------------------------------------------------------------------- play vs push


class TestCheckedPlay:
    """``play`` accepts every move ``legal_moves`` lists and refuses everything else."""

    @pytest.mark.parametrize("variant", ENGINE_VARIANTS)
    def test_every_legal_move_is_accepted_by_play_on_a_copy(self, variant: str) -> None:
        checked = 0
        count = how_many("checked", variant)
        for seed in seeds(variant, count):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 3)), variant=variant)
            while match.status == Status.PLAYING:
                maybe_declare(match, rng)
                seat = match.turn
                assert seat is not None
                legal = match.legal_moves()
                assert len(set(legal)) == len(legal)
                for move in legal:
                    played, pushed = copy_of(match), copy_of(match)
                    got, events = played.play(seat, move.card, move.capture)
                    assert got == move
                    assert events == pushed.push(move)
                    assert state(played) == state(pushed)
                    checked += 1
                    if sum(m.card == move.card for m in legal) == 1:
                        implicit = copy_of(match)
                        assert implicit.play(seat, move.card)[0] == move
                match.push(rng.choice(legal))
        assert checked > 60 * count

    @pytest.mark.parametrize("variant", VARIANT_NAMES)
    def test_illegal_moves_are_refused_and_change_nothing(self, variant: str) -> None:
        refused = Counter[str]()
        count = how_many("illegal", variant)
        for seed in seeds(variant, count):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 3)), variant=variant)
            while match.status == Status.PLAYING:
                for kind, seat, card, capture, expected in illegal_moves(match, rng):
                    before = state(match)
                    with pytest.raises(expected) as caught:
                        match.play(seat, card, capture)
                    assert state(match) == before, (kind, seed)
                    if issubclass(expected, IllegalMoveError) and card in match.hands[seat]:
                        legal = [m for m in match.legal_moves() if m.card == card]
                        assert sorted(caught.value.legal_captures) == sorted(
                            [str(c) for c in m.captured] for m in legal
                        ), (kind, seed)
                    refused[kind] += 1
                match.push(rng.choice(match.legal_moves()))
        assert set(refused) == ILLEGAL_KINDS[variant], refused
        assert min(refused.values()) >= count // 5, refused


COMMON_ILLEGAL_KINDS = {
    "card not in hand",
    "wrong capture",
    "not on the table",
    "laying a capturing card",
    "forced any",
    "ambiguous",
    "not your turn",
}
ILLEGAL_KINDS = {
    "scopa": COMMON_ILLEGAL_KINDS | {"sum before a match"},
    "scopone": COMMON_ILLEGAL_KINDS | {"sum before a match"},
    "scopone_scientifico": COMMON_ILLEGAL_KINDS | {"sum before a match"},
    "scopa_di_quindici": COMMON_ILLEGAL_KINDS | {"a sum to the card's own value"},
    "escoba": COMMON_ILLEGAL_KINDS | {"a sum to the card's own value"},
    "asso_piglia_tutto": COMMON_ILLEGAL_KINDS
    | {"sum before a match", "an ace taking part of the table"},
}


def illegal_moves(
    match: Match, rng: random.Random
) -> list[tuple[str, int, Card, list[Card] | None, type[Exception]]]:
    """Random moves the rules (R4, R10) forbid in this position, with the error each must
    raise."""
    variant = match.variant.name
    seat = match.turn
    assert seat is not None
    hand, table = match.hands[seat], match.table
    legal = set(match.legal_moves())
    by_sum = subsets_by_sum(table)
    options = {c: naive_captures(c, table, variant, by_sum) for c in hand}
    out: list[tuple[str, int, Card, list[Card] | None, type[Exception]]] = []
    elsewhere = [c for c in DECK if c not in hand]
    out.append(("card not in hand", seat, rng.choice(elsewhere), [], IllegalMoveError))
    card = rng.choice(hand)
    if table:
        subset = rng.sample(table, rng.randint(1, len(table)))
        if frozenset(subset) not in options[card]:
            out.append(("wrong capture", seat, card, subset, IllegalMoveError))
    # a card off the table that the card played would take, were it on the table
    if variant == "asso_piglia_tutto" and card.value == ACE:
        wanted = set(range(1, 11)) if not table else set()
    elif variant in FIFTEEN:
        wanted = {15 - card.value}
    else:
        wanted = {card.value}
    off_table = [c for c in DECK if c not in table and c != card and c.value in wanted]
    if off_table:
        out.append(("not on the table", seat, card, [rng.choice(off_table)], IllegalMoveError))
    capturing = [c for c in hand if options[c]]
    if capturing:
        out.append(("laying a capturing card", seat, rng.choice(capturing), [], IllegalMoveError))
        if match.rules.forced_capture is ForcedCapture.ANY:
            idle = [c for c in hand if c not in capturing]
            if idle:
                out.append(("forced any", seat, rng.choice(idle), None, IllegalMoveError))
    for c in hand:
        if len(options[c]) >= 2 and Move(c, options[c][0]) in legal:
            out.append(("ambiguous", seat, c, None, AmbiguousMoveError))
            break
    for c in hand:
        sums = [s for s in by_sum.get(c.value, []) if len(s) >= 2]
        if not sums:
            continue
        if variant in FIFTEEN:  # R10: only 15 counts, never the card's own value
            out.append(("a sum to the card's own value", seat, c, list(sums[0]), IllegalMoveError))
            break
        if any(t.value == c.value for t in table) and not (
            variant == "asso_piglia_tutto" and c.value == ACE
        ):
            out.append(("sum before a match", seat, c, list(sums[0]), IllegalMoveError))
            break
    if variant == "asso_piglia_tutto" and len(table) >= 2:
        aces = [c for c in hand if c.value == ACE]
        if aces:
            part = rng.sample(table, rng.randint(1, len(table) - 1))
            out.append(("an ace taking part of the table", seat, aces[0], part, IllegalMoveError))
    other = rng.choice([s for s in range(match.players) if s != seat])
    if match.hands[other]:
        theirs = rng.choice(match.hands[other])
        out.append(("not your turn", other, theirs, None, NotYourTurnError))
    for _, _, c, cap, error in out:
        if error is not NotYourTurnError and cap is not None:
            assert Move.of(c, cap) not in legal  # the generator must not make a legal move
    return out


# --------------------------------------------------------------------------- move generation


class TestLegalMoveGeneration:
    """R4, R10: ``legal_moves_in`` agrees with brute force over every subset of the table."""

    @pytest.mark.parametrize("mode", list(ForcedCapture))
    @pytest.mark.parametrize("variant", VARIANT_NAMES)
    def test_against_brute_force_on_random_positions(
        self, variant: str, mode: ForcedCapture
    ) -> None:
        rules = Rules(forced_capture=mode)
        the_variant = get_variant(variant)
        rng = random.Random(f"positions:{mode}" if variant == "scopa" else f"{variant}:{mode}")
        count = how_many("positions", variant)
        captures = 0
        for _ in range(count):
            deck = list(DECK)
            rng.shuffle(deck)
            hand_size = rng.randint(1, 3) if rng.random() < 0.8 else rng.randint(4, 10)
            table_size = rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 8, 10))
            hand, table = deck[:hand_size], deck[hand_size : hand_size + table_size]
            moves = legal_moves_in(the_variant, rules, hand, table)
            assert len(moves) == len(set(moves))
            assert set(moves) == naive_legal_moves(rules, hand, table, variant), (hand, table)
            by_sum = subsets_by_sum(table)
            for card in hand:
                options = the_variant.capture_options(card, table)
                assert len(options) == len(set(map(frozenset, options)))
                assert set(map(frozenset, options)) == set(
                    naive_captures(card, table, variant, by_sum)
                )
            captures += sum(1 for m in moves if m.capture)
        assert captures > count / 2


# --------------------------------------------------------------------------- storage


class TestStorage:
    """``to_dict`` / ``from_dict`` keep the whole state, hidden cards included."""

    @pytest.mark.parametrize("variant", ENGINE_VARIANTS)
    def test_round_trip_at_random_points(self, variant: str) -> None:
        for seed in seeds(variant, how_many("storage", variant)):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 2, 11)), variant=variant)
            while match.status == Status.PLAYING:
                maybe_declare(match, rng)
                data = match.to_dict()
                restored = Match.from_dict(json.loads(json.dumps(data)))
                assert restored.variant is match.variant
                assert state(restored) == state(match)
                assert restored.legal_moves() == match.legal_moves()
                if rng.random() < 0.1:
                    # the copy and the original go on the same way
                    moves = []
                    while match.status == Status.PLAYING and len(moves) < 40:
                        moves.append(rng.choice(match.legal_moves()))
                        assert restored.push(moves[-1]) == match.push(moves[-1])
                    assert state(restored) == state(match)
                else:
                    match.push(rng.choice(match.legal_moves()))
            assert state(Match.from_dict(match.to_dict())) == state(match)

    def test_to_dict_is_a_snapshot(self) -> None:
        """A stored state must not change when the match plays on."""
        match, _ = Match.new(players=2, seed=4, target=100)
        data = match.to_dict()
        frozen = json.dumps(data, sort_keys=True)
        rng = random.Random(4)
        while match.hand_number < 3:
            match.push(rng.choice(match.legal_moves()))
        assert json.dumps(data, sort_keys=True) == frozen
