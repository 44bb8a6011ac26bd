"""Seeded random loops over whole matches: invariants the rules (RULES.md R2-R9) imply.

No hypothesis: every loop draws from ``random.Random(fixed seed)``, so a failure names
the seed that reproduces it. The scorer, the hand model and the move generator below
are written from RULES.md alone, independently of the engine, and the engine is
checked against them.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from service.engine import (
    DECK,
    AmbiguousMoveError,
    Card,
    ForcedCapture,
    IllegalMoveError,
    Match,
    Move,
    NotYourTurnError,
    Rules,
    get_variant,
    legal_moves_in,
)

PLAYER_COUNTS = (2, 3, 4, 6)
SCOPA = get_variant("scopa")


def random_rules(rng: random.Random) -> Rules:
    return Rules(
        re_bello=rng.random() < 0.5,
        napola=rng.random() < 0.5,
        napoleone=rng.random() < 0.3,
        forced_capture=rng.choice(list(ForcedCapture)),
    )


def new_match(rng: random.Random, seed: int, target: int) -> tuple[Match, list[dict[str, Any]]]:
    return Match.new(
        players=rng.choice(PLAYER_COUNTS), target=target, rules=random_rules(rng), seed=seed
    )


def state(match: Match) -> str:
    """The whole state, frozen as text (``to_dict`` shares lists with the match)."""
    return json.dumps(match.to_dict(), sort_keys=True)


def copy_of(match: Match) -> Match:
    return Match.from_dict(json.loads(json.dumps(match.to_dict())))


#: Cards are interned (``Card.parse("7D") is Card.parse("7D")``): ids make a fast check.
DECK_IDS = sorted(map(id, DECK))


def check_all_cards_accounted_for(match: Match) -> None:
    """R1/R3/R4.4/R6: the 40 cards are each in exactly one place: a hand, the table,
    the stock or a pile (piles are emptied when a new hand is dealt)."""
    places = [*match.hands, match.table, match.stock, *match.piles]
    if sorted(id(card) for place in places for card in place) == DECK_IDS:
        return
    counts = Counter(card for place in places for card in place)
    assert set(counts) == set(DECK), sorted(map(str, set(DECK) - set(counts)))
    assert set(counts.values()) == {1}, [str(c) for c, n in counts.items() if n > 1]


# --------------------------------------------------------------------------- naive rules

#: R7 primiera values by the card's value, written out from RULES.md.
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


def naive_captures(card: Card, table: list[Card]) -> list[frozenset[Card]]:
    """R4.1-R4.2 by brute force over every subset of the table."""
    singles = [frozenset([c]) for c in table if c.value == card.value]
    if singles:
        return singles
    return [
        frozenset(combo)
        for size in range(2, len(table) + 1)
        for combo in itertools.combinations(table, size)
        if sum(c.value for c in combo) == card.value
    ]


def naive_legal_moves(rules: Rules, hand: list[Card], table: list[Card]) -> set[Move]:
    """R4.1-R4.3 and the ``forced_capture`` option."""
    options = {card: naive_captures(card, table) for card in hand}
    captures = {Move(card, cap) for card, caps in options.items() for cap in caps}
    lays = {Move(card) for card, caps in options.items() if not caps}
    if rules.forced_capture is ForcedCapture.ANY and captures:
        return captures
    return captures | lays


class HandModel:
    """The public course of one hand, replayed from the events alone (R4-R6)."""

    def __init__(self, players: int, teams: list[int], deal: dict[str, Any]) -> None:
        self.teams = teams
        self.table: list[str] = list(deal["table"])
        self.piles: list[list[str]] = [[] for _ in range(players)]
        self.scopas = [0] * players
        self.last_capturer: int | None = None

    def move(self, event: dict[str, Any], last_of_hand: bool) -> None:
        seat, card, capture = event["seat"], event["card"], event["capture"]
        assert set(capture) <= set(self.table)
        if capture:
            assert sum(value_of(c) for c in capture) == value_of(card)  # R4.1-R4.2
            if len(capture) > 1:  # R4.1: a sum only when no single card matches
                assert value_of(card) not in [value_of(c) for c in self.table]
            for code in capture:
                self.table.remove(code)
            self.piles[seat] += [card, *capture]
            self.last_capturer = seat
        else:
            self.table.append(card)
        scopa = bool(capture) and not self.table and not last_of_hand
        assert event["scopa"] is scopa, event
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


def check_deal(match: Match, events: list[dict[str, Any]], dealer: int) -> dict[str, Any]:
    """R3: a new hand is dealt by ``dealer``, redealt while 3+ kings lie on the table;
    the seat after the dealer plays first. Returns the deal event."""
    for redeal in [e for e in events if e["type"] == "redeal"]:
        assert sum(value_of(c) == 10 for c in redeal["table"]) >= 3
        assert redeal["dealer"] == dealer
    (deal,) = [e for e in events if e["type"] == "deal"]
    assert deal["dealer"] == match.dealer == dealer
    assert sum(value_of(c) == 10 for c in deal["table"]) < 3
    assert [str(c) for c in match.table] == deal["table"] and len(deal["table"]) == 4
    assert [len(hand) for hand in match.hands] == [3] * match.players
    assert match.turn == (dealer + 1) % match.players
    return deal


def play_and_check(match: Match, events: list[dict[str, Any]], rng: random.Random) -> int:
    """Play ``match`` to its end with random legal moves, checking at every move the legal
    moves (R4, against brute force), the cards (all 40 accounted for), the turn order (R2),
    the scopas (R5), the end of each hand (R6), its score (R7) and the end of the match
    (R8, R9 napoleone). Returns the number of hands played."""
    players, rules = match.players, match.rules
    deal = check_deal(match, events, match.dealer)
    model = HandModel(players, match.teams, deal)
    totals = [0] * match.team_count
    hands = 0
    check_all_cards_accounted_for(match)
    while match.status == "playing":
        seat, dealer = match.turn, match.dealer
        assert seat is not None
        legal = match.legal_moves()
        assert set(legal) == naive_legal_moves(rules, match.hands[seat], match.table)
        move = rng.choice(legal)
        events = match.push(move)
        types = [e["type"] for e in events]
        assert types[0] == "move" and events[0]["seat"] == seat
        model.move(events[0], last_of_hand="hand_over" in types)
        check_all_cards_accounted_for(match)
        if "hand_over" not in types:
            assert match.turn == (seat + 1) % players  # R2
            if "deal" in types:  # R3: a new round, 3 cards each from the stock
                assert all(len(hand) == 3 for hand in match.hands)
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
            assert match.status == "playing" and "match_over" not in types
            deal = check_deal(match, events, (dealer + 1) % players)
            assert match.hand_number == hands + 1
            model = HandModel(players, match.teams, deal)
        else:
            assert match.status == "finished" and match.winner == winner
            assert types[-1] == "match_over" and events[-1]["winner"] == winner
    assert match.scores == [
        sum(h["teams"][t]["total"] for h in match.hand_scores) for t in range(match.team_count)
    ]
    assert len(match.hand_scores) == hands
    return hands


# --------------------------------------------------------------------------- full matches


class TestRandomMatches:
    """Thousands of random matches with every player count, option and a range of targets."""

    def test_many_short_matches(self) -> None:
        hands = 0
        for seed in range(2500):
            rng = random.Random(seed)
            match, events = new_match(rng, seed, target=rng.choice((1, 1, 2, 3, 5)))
            hands += play_and_check(match, events, rng)
        assert hands >= 2500

    def test_matches_to_eleven(self) -> None:
        for seed in range(10_000, 10_200):
            rng = random.Random(seed)
            match, events = new_match(rng, seed, target=11)
            play_and_check(match, events, rng)

    def test_matches_to_twenty_one_in_every_player_count(self) -> None:
        for players in PLAYER_COUNTS:
            for seed in range(20_000, 20_005):
                rng = random.Random(seed * players)
                match, events = Match.new(
                    players=players, target=21, rules=random_rules(rng), seed=seed
                )
                play_and_check(match, events, rng)


# --------------------------------------------------------------------------- play vs push


class TestCheckedPlay:
    """``play`` accepts every move ``legal_moves`` lists and refuses everything else."""

    def test_every_legal_move_is_accepted_by_play_on_a_copy(self) -> None:
        checked = 0
        for seed in range(150):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 3)))
            while match.status == "playing":
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
        assert checked > 10_000

    def test_illegal_moves_are_refused_and_change_nothing(self) -> None:
        refused = Counter[str]()
        for seed in range(150):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 3)))
            while match.status == "playing":
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
        assert min(refused.values()) >= 100, refused
        assert len(refused) == 8, refused


def illegal_moves(
    match: Match, rng: random.Random
) -> list[tuple[str, int, Card, list[Card] | None, type[Exception]]]:
    """Random moves the rules forbid in this position, with the error each must raise."""
    seat = match.turn
    assert seat is not None
    hand, table = match.hands[seat], match.table
    legal = set(match.legal_moves())
    out: list[tuple[str, int, Card, list[Card] | None, type[Exception]]] = []
    elsewhere = [c for c in DECK if c not in hand]
    out.append(("card not in hand", seat, rng.choice(elsewhere), [], IllegalMoveError))
    card = rng.choice(hand)
    if table:
        subset = rng.sample(table, rng.randint(1, len(table)))
        if sum(c.value for c in subset) != card.value:
            out.append(("wrong sum", seat, card, subset, IllegalMoveError))
    off_table = [c for c in DECK if c not in table and c != card]
    twin = [c for c in off_table if c.value == card.value]
    if twin:
        out.append(("not on the table", seat, card, [rng.choice(twin)], IllegalMoveError))
    capturing = [c for c in hand if naive_captures(c, table)]
    if capturing:
        out.append(("laying a capturing card", seat, rng.choice(capturing), [], IllegalMoveError))
        if match.rules.forced_capture is ForcedCapture.ANY:
            idle = [c for c in hand if c not in capturing]
            if idle:
                out.append(("forced any", seat, rng.choice(idle), None, IllegalMoveError))
    for c in hand:
        captures = naive_captures(c, table)
        if len(captures) >= 2 and Move(c, captures[0]) in legal:
            out.append(("ambiguous", seat, c, None, AmbiguousMoveError))
            break
    for c in hand:
        sums = [
            combo
            for size in range(2, len(table) + 1)
            for combo in itertools.combinations(table, size)
            if sum(t.value for t in combo) == c.value
        ]
        if sums and any(t.value == c.value for t in table):
            out.append(("sum before a match", seat, c, list(sums[0]), IllegalMoveError))
            break
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
    """R4: ``legal_moves_in`` agrees with brute force over every subset of the table."""

    @pytest.mark.parametrize("mode", list(ForcedCapture))
    def test_against_brute_force_on_random_positions(self, mode: ForcedCapture) -> None:
        rules = Rules(forced_capture=mode)
        rng = random.Random(f"positions:{mode}")
        captures = 0
        for _ in range(3000):
            deck = list(DECK)
            rng.shuffle(deck)
            hand_size = rng.randint(1, 3) if rng.random() < 0.8 else rng.randint(4, 10)
            table_size = rng.choice((0, 1, 2, 3, 4, 5, 6, 7, 8, 10))
            hand, table = deck[:hand_size], deck[hand_size : hand_size + table_size]
            moves = legal_moves_in(SCOPA, rules, hand, table)
            assert len(moves) == len(set(moves))
            assert set(moves) == naive_legal_moves(rules, hand, table), (hand, table)
            for card in hand:
                options = SCOPA.capture_options(card, table)
                assert len(options) == len(set(map(frozenset, options)))
                assert set(map(frozenset, options)) == set(naive_captures(card, table))
            captures += sum(1 for m in moves if m.capture)
        assert captures > 1500


# --------------------------------------------------------------------------- storage


class TestStorage:
    """``to_dict`` / ``from_dict`` keep the whole state, hidden cards included."""

    def test_round_trip_at_random_points(self) -> None:
        for seed in range(200):
            rng = random.Random(seed)
            match, _ = new_match(rng, seed, target=rng.choice((1, 2, 11)))
            while match.status == "playing":
                data = match.to_dict()
                restored = Match.from_dict(json.loads(json.dumps(data)))
                assert state(restored) == state(match)
                assert restored.legal_moves() == match.legal_moves()
                if rng.random() < 0.1:
                    # the copy and the original go on the same way
                    moves = []
                    while match.status == "playing" and len(moves) < 40:
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
