"""The rules of docs/rules.md (R1-R9, variant ``scopa``), one small class per concept.

Positions are built either by dealing a chosen deck (``Match.new(deck=...)``) or by
setting the fields of a freshly made match (:func:`position`). Card codes follow R1:
value then suit letter, ``D`` coins, ``C`` cups, ``S`` swords, ``B`` clubs.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from typing import Any

import orjson
import pytest

from service.engine import (
    DECK,
    AmbiguousMoveError,
    Card,
    EventKind,
    ForcedCapture,
    IllegalMoveError,
    InvalidCardError,
    InvalidSetupError,
    Match,
    MatchOverError,
    Move,
    NotYourTurnError,
    Rules,
    ScopaError,
    Status,
    event_view,
    get_variant,
    legal_moves_in,
    match_view,
    parse_cards,
    score_hand,
    team_of_seats,
)
from service.engine.cards import sorted_cards
from service.engine.hand import Hand
from service.engine.masks import mask_of
from service.engine.rules import CIRULLA_OPTIONS, OPTIONS
from service.engine.views import knowledge_of
from tests.helpers import cards, of_type, play_randomly_until, position

SCOPA = get_variant("scopa")
ALL_CODES = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]


def code_set(items: Any) -> set[str]:
    return {str(card) for card in items}


def move_event(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert events[0]["type"] == "move"
    return events[0]


def snapshot(match: Match) -> str:
    return json.dumps(match.to_dict(), sort_keys=True)


# --------------------------------------------------------------------------- R1 cards


class TestCards:
    """R1: 40 cards, codes value-then-suit, values ace 1 to king 10."""

    def test_the_deck_is_forty_distinct_cards_ten_per_suit(self) -> None:
        assert len(DECK) == 40
        assert sorted(str(c) for c in DECK) == sorted(ALL_CODES)
        for suit in "DCSB":
            assert sorted(c.value for c in DECK if c.suit == suit) == list(range(1, 11))

    @pytest.mark.parametrize("code", ALL_CODES)
    def test_parse_str_repr_round_trip(self, code: str) -> None:
        """R1: a code parses to the card of that value and suit and prints back."""
        card = Card.parse(code)
        assert card.value == int(code[:-1])
        assert card.suit == code[-1]
        assert str(card) == code == card.code
        assert eval(repr(card), {"Card": Card}) == card
        assert Card.parse(code) is card

    @pytest.mark.parametrize(
        ("code", "value", "suit"),
        [("1B", 1, "B"), ("7D", 7, "D"), ("8C", 8, "C"), ("9S", 9, "S"), ("10D", 10, "D")],
    )
    def test_values_of_ace_figures_and_king(self, code: str, value: int, suit: str) -> None:
        """R1: Ace 1, 2-7 face value, Fante 8, Cavallo 9, Re 10."""
        card = Card.parse(code)
        assert (card.value, card.suit) == (value, suit)

    def test_only_denari_are_coins(self) -> None:
        """R1/R7: ``D`` is the coin suit."""
        assert {str(c) for c in DECK if c.is_coin} == {f"{v}D" for v in range(1, 11)}

    @pytest.mark.parametrize(
        "code",
        ["", "0D", "11D", "7X", "D7", "7", "D", "7DD", " 7D", "7D ", "1.0D", "07D", "x", None, 7],
    )
    def test_invalid_codes_are_rejected(self, code: Any) -> None:
        """R1: anything but value 1-10 then D, C, S or B is not a card."""
        with pytest.raises(InvalidCardError) as caught:
            Card.parse(code)
        assert caught.value.code == code
        assert isinstance(caught.value, ValueError)

    def test_parse_cards_rejects_the_first_bad_code(self) -> None:
        assert parse_cards(["1D", "10B"]) == cards("1D 10B")
        with pytest.raises(InvalidCardError) as caught:
            parse_cards(["1D", "12B", "13B"])
        assert caught.value.code == "12B"

    def test_the_suit_never_changes_what_a_card_captures(self) -> None:
        """R1: a 7 of any suit has the same captures on the same table."""
        table = cards("3C 4S 2B 5D 1C")
        by_suit = {
            suit: sorted(
                sorted(c.value for c in option)
                for option in SCOPA.capture_options(Card.parse(f"7{suit}"), table)
            )
            for suit in "DCSB"
        }
        assert by_suit["D"] == [[1, 2, 4], [2, 5], [3, 4]]
        assert by_suit["D"] == by_suit["C"] == by_suit["S"] == by_suit["B"]


class TestMoveNotation:
    """R4 moves: a card and the set it captures, written ``7Dx3C+4B``."""

    def test_parse_and_print_round_trip(self) -> None:
        move = Move.parse("7Dx3C+4B")
        assert move == Move.of(Card.parse("7D"), cards("4B 3C"))
        assert str(move) == "7Dx3C+4B"
        assert Move.parse("7Dx4B+3C") == move
        assert str(Move.parse("7Dx4B+3C")) == "7Dx3C+4B"
        assert eval(repr(move), {"Move": Move}) == move

    def test_a_laid_card_has_no_capture(self) -> None:
        move = Move.parse("10B")
        assert move.card == Card.parse("10B")
        assert move.capture == frozenset()
        assert str(move) == "10B"

    def test_a_capture_naming_a_card_twice_is_rejected(self) -> None:
        with pytest.raises(ScopaError):
            Move.parse("6Dx3C+3C")

    def test_bad_card_codes_in_a_move_are_rejected(self) -> None:
        with pytest.raises(InvalidCardError):
            Move.parse("7Dx3X")
        with pytest.raises(InvalidCardError):
            Move.parse("11Dx3C")


# --------------------------------------------------------------------------- R2 sides


class TestSeatsAndSides:
    """R2: 2-3 play alone, 4 in partnerships 0+2 / 1+3, 6 in teams 0,2,4 / 1,3,5."""

    @pytest.mark.parametrize(
        ("players", "teams"),
        [
            (2, [0, 1]),
            (3, [0, 1, 2]),
            (4, [0, 1, 0, 1]),
            (6, [0, 1, 0, 1, 0, 1]),
        ],
    )
    def test_team_of_each_seat(self, players: int, teams: list[int]) -> None:
        assert team_of_seats(players) == teams
        match, _ = Match.new(players=players, seed=1)
        assert match.teams == teams
        assert match.scores == [0] * (max(teams) + 1)
        for team in range(max(teams) + 1):
            assert match.seats_of(team) == [s for s, t in enumerate(teams) if t == team]

    @pytest.mark.parametrize("players", [0, 1, 5, 7, 8])
    def test_other_player_counts_are_refused(self, players: int) -> None:
        with pytest.raises(InvalidSetupError):
            team_of_seats(players)
        with pytest.raises(InvalidSetupError):
            Match.new(players=players, seed=1)

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_play_passes_from_seat_i_to_seat_i_plus_one(self, players: int) -> None:
        """R2: within a hand every move is by the seat after the previous mover."""
        match, _ = Match.new(players=players, seed=players)
        first = match.turn
        assert first == (match.dealer + 1) % players
        events = play_randomly_until(match, random.Random(players), "hand_over")
        seats = [e["seat"] for e in of_type(events, "move")]
        assert len(seats) == 40 - 4
        assert seats == [(first + i) % players for i in range(len(seats))]

    def test_partners_capture_into_one_pile(self) -> None:
        """R2: seat 2's captures count for side 0 (with seat 0's), seat 3's for side 1."""
        match = position(["9D 1B 2B", "8D 2S 3S", "5D 4B 1S", "6D 3B 4S"], "5C 6C", turn=2)
        match.push(Move.parse("5Dx5C"))
        match.push(Move.parse("6Dx6C"))
        sides = match.score_current_piles()
        assert code_set(sides[0].captured) == {"5D", "5C"}
        assert code_set(sides[1].captured) == {"6D", "6C"}
        assert len(sides) == 2


# --------------------------------------------------------------------------- R3 dealing


class TestDeal:
    """R3: 3 cards each and 4 on the table, 3 more each when every hand is empty."""

    @pytest.mark.parametrize(("players", "deals"), [(2, 6), (3, 4), (4, 3), (6, 2)])
    def test_deals_per_hand(self, players: int, deals: int) -> None:
        match, start = Match.new(players=players, seed=11)
        first_deal = of_type(start, "deal")
        assert len(first_deal) == 1
        assert [len(h) for h in match.hands] == [3] * players
        assert len(match.table) == 4
        assert len(match.stock) == 40 - 3 * players - 4
        events = play_randomly_until(match, random.Random(players), "hand_over")
        hand_over = events.index(of_type(events, "hand_over")[0])
        later = of_type(events[:hand_over], "deal")
        assert 1 + len(later) == deals
        for deal in later:
            assert deal["table"] == [] and deal["cards_each"] == 3
            assert all(len(hand) == 3 for hand in deal["hands"].values())

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_the_seat_after_the_dealer_plays_first(self, players: int) -> None:
        for dealer in range(players):
            match, events = Match.new(players=players, seed=3, first_dealer=dealer)
            assert match.dealer == dealer
            assert match.turn == (dealer + 1) % players
            assert of_type(events, "deal")[-1]["dealer"] == dealer

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_the_deal_passes_to_the_next_seat_each_hand(self, players: int) -> None:
        match, _ = Match.new(players=players, seed=5, first_dealer=players - 1, target=100)
        rng = random.Random(5)
        for hand in range(2, 5):
            events = play_randomly_until(match, rng, "hand_over")
            dealer = (players - 1 + hand - 1) % players
            assert match.hand_number == hand
            assert match.dealer == dealer
            assert of_type(events, "deal")[-1]["dealer"] == dealer
            assert match.turn == (dealer + 1) % players
            assert [len(h) for h in match.hands] == [3] * players
            assert len(match.table) == 4

    def test_deck_order_is_honoured(self) -> None:
        """R3 as documented: from the front, 3 cards at once to each seat in playing order
        from the seat after the dealer, then 4 to the table; later deals the same way."""
        deck = list(DECK)
        random.Random(7).shuffle(deck)
        match, events = Match.new(players=4, deck=deck, first_dealer=2)
        assert not of_type(events, "redeal")
        assert match.hands[3] == sorted_cards(deck[0:3])
        assert match.hands[0] == sorted_cards(deck[3:6])
        assert match.hands[1] == sorted_cards(deck[6:9])
        assert match.hands[2] == sorted_cards(deck[9:12])
        assert match.table == sorted_cards(deck[12:16])
        assert match.stock == deck[16:]
        deal = of_type(events, "deal")[0]
        assert deal["table"] == [str(c) for c in sorted_cards(deck[12:16])]
        assert deal["stock_count"] == 24
        rng = random.Random(0)
        for _ in range(12):
            match.push(rng.choice(match.legal_moves()))
        assert match.hands[3] == sorted_cards(deck[16:19])
        assert match.hands[0] == sorted_cards(deck[19:22])
        assert match.hands[1] == sorted_cards(deck[22:25])
        assert match.hands[2] == sorted_cards(deck[25:28])
        assert match.stock == deck[28:]
        assert match.turn == 3

    @staticmethod
    def _deck_with_table(table: str) -> list[Card]:
        """A 2-player deck (dealer seat 1) whose first deal puts ``table`` on the table."""
        top = cards(table)
        rest = [c for c in DECK if c not in top]
        return rest[:6] + top + rest[6:]

    @pytest.mark.parametrize("table", ["10D 10C 10S 1B", "10D 10C 10S 10B", "1B 10S 10C 10D"])
    def test_three_or_four_kings_on_the_table_force_a_redeal(self, table: str) -> None:
        """R3: 3 or 4 kings face up: the same dealer deals again, and says so."""
        deck = self._deck_with_table(table)
        match, events = Match.new(players=2, deck=deck, first_dealer=1, seed=9)
        assert [e["type"] for e in events[:2]] == ["match_started", "redeal"]
        redeal = events[1]
        assert redeal["dealer"] == 1
        assert redeal["hand"] == 1
        assert redeal["table"] == [str(c) for c in sorted_cards(cards(table))]
        assert events[-1]["type"] == "deal"
        assert all(e["type"] == "redeal" for e in events[1:-1])
        assert events[-1]["dealer"] == 1
        assert match.dealer == 1 and match.turn == 0 and match.hand_number == 1
        assert sum(c.value == 10 for c in match.table) < 3
        assert events[-1]["table"] == [str(c) for c in match.table]
        assert sorted(map(str, match.hands[0] + match.hands[1] + match.table + match.stock)) == (
            sorted(ALL_CODES)
        )

    def test_two_kings_on_the_table_do_not(self) -> None:
        deck = self._deck_with_table("10D 10C 5S 1B")
        match, events = Match.new(players=2, deck=deck, first_dealer=1)
        assert not of_type(events, "redeal")
        assert match.table == sorted_cards(cards("10D 10C 5S 1B"))
        assert match.hands == [sorted_cards(deck[0:3]), sorted_cards(deck[3:6])]

    def test_kings_in_the_hands_do_not(self) -> None:
        deck = cards("10D 10C 10S") + [c for c in DECK if c not in cards("10D 10C 10S")]
        match, events = Match.new(players=2, deck=deck, first_dealer=1)
        assert not of_type(events, "redeal")
        assert match.hands[0] == sorted_cards(cards("10D 10C 10S"))

    def test_a_deck_must_be_the_forty_cards(self) -> None:
        with pytest.raises(InvalidSetupError):
            Match.new(players=2, deck=list(DECK[:39]))
        with pytest.raises(InvalidSetupError):
            Match.new(players=2, deck=list(DECK[:39]) + [DECK[0]])


# --------------------------------------------------------------------------- R4 capturing


class TestSeedExample:
    """R4.1 and R5, the seeds' worked example: table 2C-4C-6D, a 6 is played."""

    def test_a_six_takes_only_the_six(self) -> None:
        table = cards("2C 4C 6D")
        assert SCOPA.capture_options(Card.parse("6S"), table) == [(Card.parse("6D"),)]
        match = position(["6S 9B", "1D"], "2C 4C 6D")
        assert Move.parse("6Sx2C+4C") not in match.legal_moves()
        assert [m for m in match.legal_moves() if str(m.card) == "6S"] == [Move.parse("6Sx6D")]

    def test_taking_the_sum_instead_is_illegal(self) -> None:
        match = position(["6S 9B", "1D"], "2C 4C 6D")
        before = snapshot(match)
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("6S"), cards("2C 4C"))
        assert caught.value.legal_captures == [["6D"]]
        assert snapshot(match) == before

    def test_the_six_without_a_capture_named_takes_the_six(self) -> None:
        match = position(["6S 9B", "1D"], "2C 4C 6D")
        move, events = match.play(0, Card.parse("6S"))
        assert move == Move.parse("6Sx6D")
        assert code_set(match.table) == {"2C", "4C"}
        assert move_event(events)["scopa"] is False

    def test_with_only_two_and_four_left_the_six_takes_both_and_scores_a_scopa(self) -> None:
        match = position(["6S 9B", "1D"], "2C 4C")
        move, events = match.play(0, Card.parse("6S"))
        assert move == Move.parse("6Sx2C+4C")
        assert move_event(events)["scopa"] is True
        assert match.scopas == [1, 0]
        assert match.table == []

    def test_but_not_with_the_last_card_of_the_hand(self) -> None:
        """R5: the hand's last card never scores a scopa."""
        match = position(["6S", ""], "2C 4C")
        _, events = match.play(0, Card.parse("6S"))
        assert move_event(events)["scopa"] is False
        (hand_over,) = of_type(events, "hand_over")
        assert [team["scopas"] for team in hand_over["score"]["teams"]] == [0, 0]
        assert [team["points"]["scopas"] for team in hand_over["score"]["teams"]] == [0, 0]
        assert {"6S", "2C", "4C"} <= set(hand_over["score"]["teams"][0]["captured"])


class TestCaptureChoices:
    """R4.1-R4.2: one single match (player's choice), else any subset with the sum."""

    def test_a_single_match_has_priority_even_over_a_sweep(self) -> None:
        """R4.1: 3C+4S would clear the table, yet the 7 must take the 7B."""
        options = SCOPA.capture_options(Card.parse("7D"), cards("3C 4S 7B"))
        assert options == [(Card.parse("7B"),)]

    def test_two_equal_single_matches_are_two_moves(self) -> None:
        match = position(["5D", "1B"], "5C 5S 2B 3B")
        assert set(match.legal_moves()) == {Move.parse("5Dx5C"), Move.parse("5Dx5S")}
        assert len(match.legal_moves()) == 2

    def test_the_player_chooses_which_single_match(self) -> None:
        match = position(["5D 9C", "1B"], "5C 5S 2B")
        match.play(0, Card.parse("5D"), cards("5S"))
        assert code_set(match.table) == {"5C", "2B"}
        assert code_set(match.piles[0]) == {"5D", "5S"}

    def test_sum_choices_are_every_subset_with_the_value(self) -> None:
        """R4.2: 6 on 1-2-3-4-5: 1+5, 2+4 and 1+2+3 are three moves."""
        match = position(["6S", "9B"], "1C 2S 3B 4D 5C")
        assert set(match.legal_moves()) == {
            Move.parse("6Sx1C+5C"),
            Move.parse("6Sx2S+4D"),
            Move.parse("6Sx1C+2S+3B"),
        }
        assert len(match.legal_moves()) == 3

    def test_equal_values_make_distinct_sum_choices(self) -> None:
        options = SCOPA.capture_options(Card.parse("6D"), cards("3C 3S 3B"))
        assert {frozenset(map(str, o)) for o in options} == {
            frozenset({"3C", "3S"}),
            frozenset({"3C", "3B"}),
            frozenset({"3S", "3B"}),
        }
        assert len(options) == 3

    def test_a_sum_needs_two_cards_at_least(self) -> None:
        """R4.2: with no single match a lone table card never makes the sum."""
        assert SCOPA.capture_options(Card.parse("9D"), cards("4C 5S 8B")) == [
            (Card.parse("4C"), Card.parse("5S"))
        ]
        assert SCOPA.capture_options(Card.parse("9D"), cards("4C 8B")) == []

    @pytest.mark.parametrize(
        ("capture", "left"),
        [("1C 5C", "2S 3B 4D"), ("2S 4D", "1C 3B 5C"), ("1C 2S 3B", "4D 5C")],
    )
    def test_each_sum_choice_can_be_played(self, capture: str, left: str) -> None:
        match = position(["6S 9B", "1B"], "1C 2S 3B 4D 5C")
        move, _ = match.play(0, Card.parse("6S"), cards(capture))
        assert move.capture == frozenset(cards(capture))
        assert code_set(match.table) == set(left.split())
        assert code_set(match.piles[0]) == set(capture.split()) | {"6S"}
        assert match.turn == 1

    def test_played_and_captured_cards_go_to_the_pile(self) -> None:
        """R4.4."""
        match = position(["8D 2C", "1B"], "3S 5B 9C")
        match.play(0, Card.parse("8D"), cards("3S 5B"))
        assert sorted(map(str, match.piles[0])) == ["3S", "5B", "8D"]
        assert match.piles[1] == []
        assert match.last_capturer == 0


class TestCompulsoryCapture:
    """R4.3: a card that can capture must capture; ``forced_capture`` "any"."""

    def test_a_capturing_card_cannot_be_laid(self) -> None:
        match = position(["5D 9C", "1B"], "5C 2S")
        assert Move.parse("5D") not in match.legal_moves()
        before = snapshot(match)
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("5D"), [])
        assert caught.value.legal_captures == [["5C"]]
        assert snapshot(match) == before

    def test_another_card_that_captures_nothing_can_be_laid(self) -> None:
        match = position(["5D 9C", "1B"], "5C 2S")
        assert set(match.legal_moves()) == {Move.parse("5Dx5C"), Move.parse("9C")}
        move, events = match.play(0, Card.parse("9C"), [])
        assert move == Move.parse("9C")
        assert code_set(match.table) == {"5C", "2S", "9C"}
        assert move_event(events)["capture"] == []
        assert match.piles[0] == []

    def test_a_card_that_captures_nothing_is_laid_without_naming_a_capture(self) -> None:
        match = position(["5D 9C", "1B"], "5C 2S")
        move, _ = match.play(0, Card.parse("9C"))
        assert move == Move.parse("9C")

    def test_forced_any_requires_a_capture_when_any_card_can(self) -> None:
        rules = Rules(forced_capture=ForcedCapture.ANY)
        match = position(["5D 9C", "1B"], "5C 2S", rules=rules)
        assert match.legal_moves() == [Move.parse("5Dx5C")]
        before = snapshot(match)
        for capture in ([], None):
            with pytest.raises(IllegalMoveError):
                match.play(0, Card.parse("9C"), capture)
        assert snapshot(match) == before
        match.play(0, Card.parse("5D"))
        assert code_set(match.table) == {"2S"}

    def test_forced_any_lets_any_card_be_laid_when_none_can_capture(self) -> None:
        rules = Rules(forced_capture=ForcedCapture.ANY)
        match = position(["8D 9C", "1B"], "1C 2S", rules=rules)
        assert set(match.legal_moves()) == {Move.parse("8D"), Move.parse("9C")}
        match.play(0, Card.parse("8D"))
        assert code_set(match.table) == {"1C", "2S", "8D"}

    @pytest.mark.parametrize("mode", list(ForcedCapture))
    def test_legal_moves_in_matches_the_match(self, mode: ForcedCapture) -> None:
        rules = Rules(forced_capture=mode)
        hand, table = cards("5D 8C 6B"), cards("5C 2S 4B")
        moves = set(legal_moves_in(SCOPA, rules, hand, table))
        captures = {Move.parse("5Dx5C"), Move.parse("6Bx2S+4B")}
        expected = captures | ({Move.parse("8C")} if mode is ForcedCapture.CARD else set())
        assert moves == expected


class TestMoveErrors:
    """R4 through the checked entry point ``play``: precise errors, state untouched."""

    def test_an_ambiguous_move_lists_its_captures(self) -> None:
        match = position(["6S", "9B"], "1C 2S 3B 4D 5C")
        before = snapshot(match)
        with pytest.raises(AmbiguousMoveError) as caught:
            match.play(0, Card.parse("6S"))
        assert sorted(caught.value.legal_captures) == sorted(
            [["1C", "5C"], ["2S", "4D"], ["1C", "2S", "3B"]]
        )
        assert isinstance(caught.value, IllegalMoveError)
        assert snapshot(match) == before

    def test_two_single_matches_without_a_choice_are_ambiguous(self) -> None:
        match = position(["5D", "1B"], "5C 5S")
        with pytest.raises(AmbiguousMoveError) as caught:
            match.play(0, Card.parse("5D"))
        assert sorted(caught.value.legal_captures) == [["5C"], ["5S"]]

    @pytest.mark.parametrize(
        "capture",
        ["2C", "1C 2S", "1C 2S 4D", "1C 5C 2S 4D", "6D"],
    )
    def test_a_capture_with_the_wrong_sum_is_illegal(self, capture: str) -> None:
        match = position(["6S 9B", "1B"], "1C 2S 3B 4D 5C")
        before = snapshot(match)
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("6S"), cards(capture))
        assert not isinstance(caught.value, AmbiguousMoveError)
        assert sorted(caught.value.legal_captures) == sorted(
            [["1C", "5C"], ["2S", "4D"], ["1C", "2S", "3B"]]
        )
        assert snapshot(match) == before

    def test_a_capture_of_cards_not_on_the_table_is_illegal(self) -> None:
        match = position(["6S 9B", "6C"], "1C 2S")
        before = snapshot(match)
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("6S"), cards("6C"))
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("9B"), cards("1C 2S 6C"))
        assert snapshot(match) == before

    def test_a_card_not_in_hand_is_illegal(self) -> None:
        match = position(["6S 9B", "6C"], "1C 2S")
        before = snapshot(match)
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("6C"), [])
        assert caught.value.legal_captures == []
        assert snapshot(match) == before

    def test_a_capture_naming_a_card_twice_is_illegal(self) -> None:
        """R4.2: a capture is a set of table cards; naming 5C twice is not taking it once."""
        match = position(["5D 9C", "1B"], "5C 2S")
        before = snapshot(match)
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("5D"), cards("5C 5C"))
        assert "twice" in str(caught.value)
        assert caught.value.legal_captures == [["5C"]]
        assert snapshot(match) == before

    def test_only_the_seat_to_play_may_play(self) -> None:
        """R2: play passes in turn."""
        match = position(["6S 9B", "1B"], "1C 2S")
        before = snapshot(match)
        with pytest.raises(NotYourTurnError):
            match.play(1, Card.parse("1B"))
        assert match.legal_moves(1) == []
        assert snapshot(match) == before

    def test_no_move_after_the_match_is_over(self) -> None:
        match = position(["9B", ""], "8C", target=1, piles=["7D 1C 1S 1B", ""], last_capturer=0)
        match.play(0, Card.parse("9B"))
        assert match.status is Status.FINISHED
        assert match.legal_moves() == []
        with pytest.raises(MatchOverError):
            match.play(0, Card.parse("9B"))


# --------------------------------------------------------------------------- R5 scopa


class TestScopa:
    """R5: a capture that empties the table is a scopa, except with the hand's last card."""

    def test_clearing_the_table_is_a_scopa(self) -> None:
        match = position(["9D 1C", "2S"], "4B 5C")
        _, events = match.play(0, Card.parse("9D"))
        assert move_event(events)["scopa"] is True
        assert match.scopas == [1, 0]

    def test_a_capture_that_leaves_a_card_is_not(self) -> None:
        match = position(["9D 1C", "2S"], "4B 5C 8S")
        _, events = match.play(0, Card.parse("9D"), cards("4B 5C"))
        assert move_event(events)["scopa"] is False
        assert match.scopas == [0, 0]

    def test_a_single_match_that_clears_the_table_is_a_scopa(self) -> None:
        match = position(["9D 1C", "2S"], "9B")
        _, events = match.play(0, Card.parse("9D"))
        assert move_event(events)["scopa"] is True

    def test_laying_a_card_on_an_empty_table_is_not(self) -> None:
        match = position(["9D 1C", "2S"], "")
        _, events = match.play(0, Card.parse("9D"))
        assert move_event(events)["scopa"] is False
        assert match.table == cards("9D")

    def test_the_next_player_plays_onto_the_empty_table(self) -> None:
        match = position(["9D 1C", "2S 3S"], "4B 5C")
        match.play(0, Card.parse("9D"))
        assert match.turn == 1 and match.table == []
        assert set(match.legal_moves()) == {Move.parse("2S"), Move.parse("3S")}
        match.play(1, Card.parse("3S"))
        assert match.table == cards("3S")

    def test_the_last_card_after_a_new_deal_is_not_the_last_of_the_hand(self) -> None:
        """R5: the last card of a round (stock not empty) still scores its scopa."""
        match = position(["9D", ""], "4B 5C", stock="1D 2D 3D 4D 5D 6D")
        _, events = match.play(0, Card.parse("9D"))
        assert move_event(events)["scopa"] is True
        assert of_type(events, "deal")
        assert match.scopas == [1, 0]

    def test_each_scopa_is_a_point(self) -> None:
        """R5/R7: scopas add one point each."""
        sides = score_hand([cards("1D"), cards("2D")], [3, 1], Rules())
        assert [s.points["scopas"] for s in sides] == [3, 1]
        assert [s.scopas for s in sides] == [3, 1]


# --------------------------------------------------------------------------- R6 end of hand


class TestEndOfHand:
    """R6: the table left at the end goes to the last capturer; never a scopa."""

    def test_the_table_goes_to_the_last_capturer(self) -> None:
        match = position(["", "9B"], "8C 3S", turn=1, piles=["4D 4C", ""], last_capturer=0)
        _, events = match.play(1, Card.parse("9B"))
        (hand_over,) = of_type(events, "hand_over")
        assert hand_over["remainder"] == {"seat": 0, "team": 0, "cards": ["3S", "8C", "9B"]}
        teams = hand_over["score"]["teams"]
        assert set(teams[0]["captured"]) == {"4D", "4C", "3S", "8C", "9B"}
        assert teams[1]["captured"] == []
        assert [t["scopas"] for t in teams] == [0, 0]
        assert move_event(events)["scopa"] is False

    def test_the_last_capturer_is_the_last_to_capture_not_the_last_to_play(self) -> None:
        match = position(
            ["2S", "6D"], "1B 5C 3C", turn=1, piles=["4D 4C", "9D 9C"], last_capturer=0
        )
        _, events = match.play(1, Card.parse("6D"), cards("1B 5C"))
        assert len(events) == 1 and match.turn == 0  # seat 0's last card is still to come
        _, events = match.play(0, Card.parse("2S"))
        (hand_over,) = of_type(events, "hand_over")
        assert hand_over["remainder"]["seat"] == 1
        assert set(hand_over["remainder"]["cards"]) == {"3C", "2S"}
        teams = hand_over["score"]["teams"]
        assert set(teams[1]["captured"]) == {"9D", "9C", "6D", "1B", "5C", "3C", "2S"}

    def test_in_partnerships_the_table_goes_to_the_capturers_side(self) -> None:
        match = position(
            ["", "", "", "9B"], "8C", turn=3, piles=["", "", "1D", ""], last_capturer=2
        )
        _, events = match.play(3, Card.parse("9B"))
        (hand_over,) = of_type(events, "hand_over")
        assert hand_over["remainder"] == {"seat": 2, "team": 0, "cards": ["8C", "9B"]}
        assert set(hand_over["score"]["teams"][0]["captured"]) == {"1D", "8C", "9B"}

    def test_a_new_hand_starts_with_empty_piles_and_no_scopas(self) -> None:
        match = position(["", "9B"], "8C", turn=1, piles=["4D", ""], scopas=[2, 1], last_capturer=0)
        match.play(1, Card.parse("9B"))
        assert match.hand_number == 2
        assert match.piles == [[], []] and match.scopas == [0, 0]
        assert match.scores == [2 + 2, 1]  # scopas + cards + coins (4D); primiera: nobody
        assert match.last_capturer is None


# --------------------------------------------------------------------------- R7 scoring


def points(side: Any) -> dict[str, int]:
    return dict(side.points)


class TestScoringCategories:
    """R7: cards, coins, settebello, primiera, scopas; ties score nothing."""

    def test_most_cards(self) -> None:
        sides = score_hand([cards("1C 2C 3C"), cards("4C 5C")], [0, 0], Rules())
        assert [s.cards for s in sides] == [3, 2]
        assert [s.points["cards"] for s in sides] == [1, 0]

    def test_a_tie_for_most_cards_scores_nothing(self) -> None:
        sides = score_hand([cards("1C 2C"), cards("4C 5C")], [0, 0], Rules())
        assert [s.points["cards"] for s in sides] == [0, 0]

    def test_most_coins(self) -> None:
        sides = score_hand([cards("1D 2C 3C 4C"), cards("4D 5D")], [0, 0], Rules())
        assert [s.coins for s in sides] == [1, 2]
        assert [s.points["coins"] for s in sides] == [0, 1]
        assert [s.points["cards"] for s in sides] == [1, 0]

    def test_a_tie_for_most_coins_scores_nothing(self) -> None:
        sides = score_hand([cards("1D 2C"), cards("4D 5C")], [0, 0], Rules())
        assert [s.points["coins"] for s in sides] == [0, 0]

    def test_settebello(self) -> None:
        sides = score_hand([cards("7C 7S 7B"), cards("7D")], [0, 0], Rules())
        assert [s.settebello for s in sides] == [False, True]
        assert [s.points["settebello"] for s in sides] == [0, 1]

    @pytest.mark.parametrize(
        ("pile", "value"),
        [
            ("7D 6C 1S 5B", 21 + 18 + 16 + 15),
            ("4D 3C 2S 10B", 14 + 13 + 12 + 10),
            ("8D 9C 10S 8B", 40),
            ("7D 1D 5D 6C 2C 3S 4B 10B", 21 + 18 + 13 + 14),
            ("7D 7C 7S 7B 6D 6C 6S 6B", 84),
        ],
    )
    def test_primiera_is_the_best_card_of_each_suit(self, pile: str, value: int) -> None:
        """R7: 7=21, 6=18, A=16, 5=15, 4=14, 3=13, 2=12, figures=10."""
        (side, _) = score_hand([cards(pile), cards("")], [0, 0], Rules())
        assert side.primiera == value

    def test_primiera_card_values(self) -> None:
        expected = {1: 16, 2: 12, 3: 13, 4: 14, 5: 15, 6: 18, 7: 21, 8: 10, 9: 10, 10: 10}
        for value, worth in expected.items():
            pile = cards(f"{value}D {value}C {value}S {value}B")
            assert score_hand([pile, []], [0, 0], Rules())[0].primiera == 4 * worth

    def test_the_best_primiera_wins_the_point(self) -> None:
        sides = score_hand([cards("7D 6C 1S 5B"), cards("7C 6D 1B 4S")], [0, 0], Rules())
        assert [s.primiera for s in sides] == [70, 69]
        assert [s.points["primiera"] for s in sides] == [1, 0]

    def test_a_side_missing_a_suit_has_no_primiera_and_cannot_win_it(self) -> None:
        """R7 (seeds 000, 003, 004): 7D 7C 7S (63, no clubs) loses to four figures (40)."""
        sides = score_hand([cards("7D 7C 7S 6D 6C"), cards("8D 9C 10S 8B")], [0, 0], Rules())
        assert [s.primiera for s in sides] == [None, 40]
        assert [s.points["primiera"] for s in sides] == [0, 1]

    def test_nobody_wins_primiera_when_both_miss_a_suit(self) -> None:
        sides = score_hand([cards("7D 7C 7S"), cards("1B 2B")], [0, 0], Rules())
        assert [s.primiera for s in sides] == [None, None]
        assert [s.points["primiera"] for s in sides] == [0, 0]

    def test_a_tie_for_primiera_scores_nothing(self) -> None:
        sides = score_hand([cards("7D 6C 1S 5B"), cards("7C 6D 1B 5S")], [0, 0], Rules())
        assert [s.primiera for s in sides] == [70, 70]
        assert [s.points["primiera"] for s in sides] == [0, 0]

    def test_a_whole_hand(self) -> None:
        """R7 on a full split of the deck: each category to its side, total summed."""
        pile0 = cards("7D 7C 7S 7B 1D 2D 3D 4D 5D 6C 6S 6B 1C 1S 1B 8D 8C 8S 8B 9D 9C")
        pile1 = [c for c in DECK if c not in pile0]
        sides = score_hand([pile0, pile1], [1, 2], Rules())
        assert [s.cards for s in sides] == [21, 19]
        assert [s.coins for s in sides] == [8, 2]
        assert points(sides[0]) == {
            "cards": 1,
            "coins": 1,
            "settebello": 1,
            "primiera": 1,
            "scopas": 1,
        }
        assert points(sides[1]) == {
            "cards": 0,
            "coins": 0,
            "settebello": 0,
            "primiera": 0,
            "scopas": 2,
        }
        assert [s.total for s in sides] == [5, 2]
        assert [s.team for s in sides] == [0, 1]
        assert sides[0].to_dict()["total"] == 5

    def test_options_are_absent_unless_asked_for(self) -> None:
        (side, _) = score_hand([cards("10D 1D 2D 3D"), []], [0, 0], Rules())
        assert set(side.points) == {"cards", "coins", "settebello", "primiera", "scopas"}


class TestThreeSides:
    """R7: with three or more sides, "most" is a strict single maximum."""

    def test_a_strict_maximum_wins(self) -> None:
        sides = score_hand(
            [cards("1C 2C 3C 1D 2D"), cards("4C 5C 3D"), cards("6C 7C")], [0, 0, 0], Rules()
        )
        assert [s.points["cards"] for s in sides] == [1, 0, 0]
        assert [s.points["coins"] for s in sides] == [1, 0, 0]

    def test_a_tie_at_the_top_scores_nothing_even_with_a_third_side_behind(self) -> None:
        sides = score_hand([cards("1C 2C 1D"), cards("4C 5C 3D"), cards("6C")], [0, 0, 0], Rules())
        assert [s.points["cards"] for s in sides] == [0, 0, 0]
        assert [s.points["coins"] for s in sides] == [0, 0, 0]

    def test_a_tie_below_the_top_does_not_matter(self) -> None:
        sides = score_hand(
            [cards("1C 2C 3C 1D 2D"), cards("4C 3D"), cards("6C 4D")], [0, 0, 0], Rules()
        )
        assert [s.points["cards"] for s in sides] == [1, 0, 0]
        assert [s.points["coins"] for s in sides] == [1, 0, 0]

    def test_primiera_among_three_sides(self) -> None:
        sides = score_hand(
            [cards("7D 7C 7S"), cards("6D 6C 6S 6B"), cards("1D 1C 1S 1B")], [0, 0, 0], Rules()
        )
        assert [s.primiera for s in sides] == [None, 72, 64]
        assert [s.points["primiera"] for s in sides] == [0, 1, 0]
        tied = score_hand(
            [cards("7D 7C 7S 7B"), cards("7D 7C 7S 7B"), cards("1D 1C 1S 1B")],
            [0, 0, 0],
            Rules(),
        )
        assert [s.points["primiera"] for s in tied] == [0, 0, 0]


# --------------------------------------------------------------------------- R8 the match


def all_cards_but(excluded: str) -> str:
    """The codes of every card of the deck but ``excluded``'s."""
    return " ".join(c.code for c in DECK if c not in cards(excluded))


def final_position(
    *,
    scores: list[int],
    scopas: list[int],
    taker: int,
    target: int = 11,
    rules: Rules | None = None,
    not_taken: str = "",
) -> Match:
    """Two players; seat 1 holds the hand's last card (9B, it captures nothing), seat
    ``taker`` captured every other card and takes the table (8C and the 9B): side
    ``taker`` scores cards, coins, settebello and primiera (4 points) plus its scopas,
    the other side its scopas only. But for ``not_taken``: the other seat captured those."""
    taken = all_cards_but(f"8C 9B {not_taken}")
    piles = [taken, not_taken] if taker == 0 else [not_taken, taken]
    return position(
        ["", "9B"],
        "8C",
        turn=1,
        rules=rules,
        target=target,
        piles=piles,
        scopas=list(scopas),
        last_capturer=taker,
        scores=list(scores),
    )


class TestMatchEnd:
    """R8: after a complete hand, once a side reached the target, the highest total wins."""

    def test_the_hand_totals_add_up(self) -> None:
        match = final_position(scores=[3, 5], scopas=[1, 2], taker=0)
        _, events = match.play(1, Card.parse("9B"))
        assert match.scores == [3 + 4 + 1, 5 + 2]
        (hand_over,) = of_type(events, "hand_over")
        assert hand_over["score"]["scores"] == [8, 7]
        assert [t["total"] for t in hand_over["score"]["teams"]] == [5, 2]
        assert match.hand_scores[-1] == hand_over["score"]
        assert match.status is Status.PLAYING and match.winner is None

    @pytest.mark.parametrize(
        ("taker", "scopas", "winner", "scores"),
        [(0, [0, 2], 0, [14, 12]), (1, [2, 0], 1, [12, 14])],
    )
    def test_both_sides_reach_the_target_the_highest_wins(
        self, taker: int, scopas: list[int], winner: int, scores: list[int]
    ) -> None:
        match = final_position(scores=[10, 10], scopas=scopas, taker=taker)
        _, events = match.play(1, Card.parse("9B"))
        assert match.scores == scores
        assert match.status is Status.FINISHED
        assert match.winner == winner
        assert match.turn is None
        (over,) = of_type(events, "match_over")
        assert over == {
            "type": "match_over",
            "winner": winner,
            "scores": scores,
            "reason": "target",
        }
        assert not of_type(events, "deal")

    def test_a_tie_at_the_top_plays_another_hand(self) -> None:
        match = final_position(scores=[10, 12], scopas=[0, 2], taker=0)
        _, events = match.play(1, Card.parse("9B"))
        assert match.scores == [14, 14]
        assert match.status is Status.PLAYING and match.winner is None
        assert not of_type(events, "match_over")
        assert events[-1]["type"] == "deal"
        assert match.hand_number == 2
        # The next hand decides it.
        decider = final_position(scores=[14, 14], scopas=[0, 0], taker=1)
        decider.play(1, Card.parse("9B"))
        assert decider.status is Status.FINISHED and decider.winner == 1

    def test_a_tie_among_three_sides_at_the_top_plays_another_hand(self) -> None:
        match = position(
            ["", "9B", ""],
            "8C",
            turn=1,
            piles=[all_cards_but("8C 9B"), "", ""],
            last_capturer=0,
            scores=[10, 10, 3],
            scopas=[0, 4, 0],
        )
        match.play(1, Card.parse("9B"))
        assert match.scores == [14, 14, 3]
        assert match.status is Status.PLAYING and match.hand_number == 2

    def test_below_the_target_the_match_goes_on(self) -> None:
        match = final_position(scores=[0, 5], scopas=[0, 0], taker=0, target=16)
        match.play(1, Card.parse("9B"))
        assert match.scores == [4, 5]
        assert match.status is Status.PLAYING

    def test_no_early_end_in_the_middle_of_a_hand(self) -> None:
        """R8: a scopa that would take side 0 past the target counts only at the hand's end."""
        match = position(
            ["9D 1C", "2S 3S"], "4B 5C", stock="1D 2D 3D 4D", target=11, scores=[10, 0]
        )
        match.play(0, Card.parse("9D"))
        assert match.scopas == [1, 0]
        assert match.scores == [10, 0]
        assert match.status is Status.PLAYING and match.winner is None
        assert match.legal_moves(1)

    def test_a_full_seeded_match_ends_with_a_single_highest_total(self) -> None:
        match, _ = Match.new(players=2, seed=2024, target=11)
        rng = random.Random(2024)
        while match.status == Status.PLAYING:
            match.push(rng.choice(match.legal_moves()))
        top = max(match.scores)
        assert top >= 11
        assert match.scores.count(top) == 1
        assert match.winner == match.scores.index(top)
        assert match.scores == [
            sum(h["teams"][t]["total"] for h in match.hand_scores) for t in range(2)
        ]


# --------------------------------------------------------------------------- R9 options


class TestOptions:
    """R9: every option is stored and shown, and comes back as it was set."""

    def test_every_option_round_trips(self) -> None:
        assert {f.name for f in dataclasses.fields(Rules)} == set(OPTIONS)
        # Cirulla's options are left out while at their defaults (docs/rules.md C9).
        assert set(Rules().to_dict()) == set(OPTIONS) - set(CIRULLA_OPTIONS)
        chosen = Rules(
            re_bello=True,
            napola=True,
            napoleone=True,
            forced_capture=ForcedCapture.ANY,
            dealer_last_sweep=True,
            table_low=True,
            auto_declare=True,
            fewest_cards=True,
            matta_keeps_value=True,
            piccola_max=7,
            cappotto=False,
        )
        assert set(chosen.to_dict()) == set(OPTIONS)
        assert Rules.from_dict(json.loads(json.dumps(chosen.to_dict()))) == chosen
        assert Rules.from_dict(Rules().to_dict()) == Rules()


class TestReBello:
    """R9 re_bello: 1 point for the 10D."""

    def test_scores_for_the_side_holding_the_king_of_coins(self) -> None:
        sides = score_hand([cards("10D"), cards("10C")], [0, 0], Rules(re_bello=True))
        assert [s.points["re_bello"] for s in sides] == [1, 0]
        assert [s.total for s in sides] == [2, 0]  # coins and re bello

    def test_off_by_default(self) -> None:
        sides = score_hand([cards("10D"), cards("10C")], [0, 0], Rules())
        assert "re_bello" not in sides[0].points


class TestNapola:
    """R9 napola: the unbroken run of coins from the ace, once it reaches the 3."""

    @pytest.mark.parametrize(
        ("coins", "run"),
        [
            ("1D 2D 3D", 3),
            ("1D 2D 3D 4D 5D", 5),
            ("1D 2D 3D 4D 5D 7D 8D", 5),
            ("1D 2D", 0),
            ("1D 2D 4D 5D 6D", 0),
            ("2D 3D 4D 5D", 0),
            ("1D 3D", 0),
            ("1D 2D 3D 4D 5D 6D 7D 8D 9D 10D", 10),
        ],
    )
    def test_the_run(self, coins: str, run: int) -> None:
        pile = cards(coins) + cards("1C 2C 3C")  # other suits never extend the run
        sides = score_hand([pile, cards("4C")], [0, 0], Rules(napola=True))
        assert sides[0].points["napola"] == run
        assert sides[1].points["napola"] == 0

    def test_off_by_default(self) -> None:
        sides = score_hand([cards("1D 2D 3D"), []], [0, 0], Rules())
        assert "napola" not in sides[0].points


class TestNapoleone:
    """R9 napoleone: all ten coins win the match at the end of that hand."""

    def test_all_ten_coins_win_below_the_target(self) -> None:
        match = final_position(scores=[0, 0], scopas=[0, 0], taker=0, rules=Rules(napoleone=True))
        _, events = match.play(1, Card.parse("9B"))
        assert match.scores == [4, 0]
        assert match.status is Status.FINISHED and match.winner == 0
        (over,) = of_type(events, "match_over")
        assert over["winner"] == 0 and over["reason"] == "napoleone"

    def test_it_beats_a_higher_total_past_the_target(self) -> None:
        match = final_position(scores=[0, 12], scopas=[0, 0], taker=0, rules=Rules(napoleone=True))
        match.play(1, Card.parse("9B"))
        assert match.status is Status.FINISHED and match.winner == 0

    def test_without_the_option_the_match_goes_on(self) -> None:
        match = final_position(scores=[0, 0], scopas=[0, 0], taker=0)
        match.play(1, Card.parse("9B"))
        assert match.status is Status.PLAYING and match.hand_number == 2

    def test_nine_coins_are_not_enough(self) -> None:
        match = final_position(
            scores=[0, 0], scopas=[0, 0], taker=0, rules=Rules(napoleone=True), not_taken="5D"
        )
        match.play(1, Card.parse("9B"))
        assert match.status is Status.PLAYING

    def test_not_before_the_hand_is_over(self) -> None:
        rules = Rules(napoleone=True)
        match = position(
            ["10D 1C", "2S 3S"],
            "10C 10S",
            stock="4C 5C 6C 7C 8C 9C",
            rules=rules,
            piles=["1D 2D 3D 4D 5D 6D 7D 8D 9D", ""],
        )
        match.play(0, Card.parse("10D"), cards("10C"))
        assert match.score_current_piles()[0].coins == 10
        assert match.status is Status.PLAYING and match.winner is None


# --------------------------------------------------------------------------- views

CODE = re.compile(r"(?<![0-9])(?:10|[1-9])[DCSB](?![0-9])")


def codes_in(data: Any) -> set[str]:
    """Every card code written anywhere in ``data`` once dumped as JSON."""
    return set(CODE.findall(json.dumps(data)))


def hidden_from(match: Match, viewer: int | None) -> set[str]:
    """The cards ``viewer`` may not see: every other seat's hand and the stock."""
    hidden = {str(c) for c in match.stock}
    for seat, hand in enumerate(match.hands):
        if seat != viewer:
            hidden |= {str(c) for c in hand}
    return hidden


class TestViews:
    """A seat sees its own hand; nobody sees another seat's hand or the stock."""

    def test_a_seat_sees_only_its_own_hand(self) -> None:
        match, _ = Match.new(players=4, seed=8)
        for seat in range(4):
            view = match_view(match, seat)
            assert view["you"] == seat
            assert view["hand"] == [str(c) for c in match.hands[seat]]
            assert codes_in(view) == {str(c) for c in match.hands[seat] + match.table}
            assert [s["hand_count"] for s in view["seats"]] == [3, 3, 3, 3]
            assert view["stock_count"] == len(match.stock)

    def test_a_spectator_sees_no_hand(self) -> None:
        match, _ = Match.new(players=2, seed=8)
        view = match_view(match, None)
        assert "hand" not in view and view["you"] is None
        assert codes_in(view) == {str(c) for c in match.table}

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_a_deal_shows_each_seat_only_its_own_cards(self, players: int) -> None:
        match, events = Match.new(players=players, seed=12)
        (deal,) = of_type(events, "deal")
        for seat in range(players):
            shown = event_view(deal, seat)
            assert "hands" not in shown
            assert shown["cards"] == [str(c) for c in match.hands[seat]]
            assert codes_in(shown) == {str(c) for c in match.hands[seat] + match.table}
        spectator = event_view(deal, None)
        assert "hands" not in spectator and "cards" not in spectator
        assert codes_in(spectator) == {str(c) for c in match.table}

    def test_the_scanner_sees_codes_inside_moves(self) -> None:
        assert codes_in({"a": "7Dx3C+10B", "b": ["1D"], "n": 21}) == {"7D", "3C", "10B", "1D"}

    @pytest.mark.parametrize("players", [2, 3, 4, 6])
    def test_nothing_hidden_leaks_in_a_full_match(self, players: int) -> None:
        """Every view and every filtered event of a seeded match, for every viewer."""
        match, events = Match.new(players=players, seed=100 + players, target=11)
        viewers: list[int | None] = [None, *range(players)]
        self._check_events(match, events, {v: set() for v in viewers}, set())
        rng = random.Random(players)
        moves = 0
        while match.status == Status.PLAYING:
            before = {v: hidden_from(match, v) for v in viewers}
            for viewer in viewers:
                view = match_view(match, viewer)
                assert not codes_in(view) & before[viewer], (viewer, view)
                if viewer is not None:
                    assert set(view["hand"]) <= codes_in(view)
            move = rng.choice(match.legal_moves())
            self._check_events(match, match.push(move), before, {str(move.card)})
            moves += 1
        assert moves == 36 * match.hand_number
        for viewer in viewers:
            assert not codes_in(match_view(match, viewer)) & hidden_from(match, viewer)

    @staticmethod
    def _check_events(
        match: Match,
        events: list[dict[str, Any]],
        before: dict[int | None, set[str]],
        played: set[str],
    ) -> None:
        """An event of the hand just played may show no card hidden before the move but the
        card played; a deal (or redeal) of a new round may show no card hidden now, but
        the face-up table of a deal that was redone."""
        for viewer, hidden_before in before.items():
            hidden_now = hidden_from(match, viewer)
            for event in events:
                shown = event_view(event, viewer)
                if event["type"] == "deal":
                    forbidden = hidden_now
                    if viewer is not None:
                        assert shown["cards"] == [str(c) for c in match.hands[viewer]]
                elif event["type"] == "redeal":
                    forbidden = hidden_now - set(event["table"])
                else:
                    forbidden = hidden_before - played
                leaked = codes_in(shown) & forbidden
                assert not leaked, (viewer, event["type"], leaked)


# --------------------------------------------------------------------------- the engine's API

#: A match as Match.to_dict() stored it before Status and EventKind existed (escoba, 3
#: players, 5 moves in): it must load, and store again, unchanged.
STORED = (
    '{"variant": "escoba", "names": ["Ann", "Bo", "Cy"], "target": 21, "rules": '
    '{"re_bello": false, "napola": false, "napoleone": false, "forced_capture": "card", '
    '"dealer_last_sweep": false}, "seed": 11, "teams": [0, 1, 2], "dealer": 0, '
    '"seeded": true, "hand_number": 1, "turn": 0, "hands": [8454144, 262144, 8], '
    '"table": 32900, "stock": [34, 1, 39, 26, 8, 0, 21, 36, 37, 13, 14, 22, 38, 12, 10, 5, '
    '33, 24, 17, 6, 31, 29, 4, 28, 35, 19, 20], "piles": [4294969856, 1241513984, 0], '
    '"scopas": [0, 0, 0], "last_capturer": 0, "scores": [0, 0, 0], "hand_scores": [], '
    '"status": "playing", "winner": null, "last_move": {"seat": 2, "card": "6C", '
    '"capture": [], "scopa": false}}'
)


class TestStates:
    """Status and EventKind are the strings they stand for, in events, views and storage."""

    def test_the_strings(self) -> None:
        assert [s.value for s in Status] == ["waiting", "playing", "finished", "aborted"]
        assert [k.value for k in EventKind] == [
            "seat_joined",
            "seat_left",
            "match_started",
            "redeal",
            "deal",
            "dealer_bonus",
            "declaration",
            "move",
            "hand_over",
            "match_over",
            "rematch",
            "aborted",
        ]

    def test_events_serialize_as_plain_strings(self) -> None:
        match, events = Match.new(variant="escoba", players=2, seed=5, target=1)
        rng = random.Random(5)
        while match.status is Status.PLAYING:
            events += match.push(rng.choice(match.legal_moves()))
        kinds = {event["type"] for event in events}
        assert kinds >= {EventKind.MATCH_STARTED, EventKind.DEAL, EventKind.MOVE}
        assert kinds >= {EventKind.HAND_OVER, EventKind.MATCH_OVER}
        assert all(type(event["type"]) is EventKind for event in events)
        stored = json.loads(json.dumps(events))
        assert stored == events
        assert all(type(event["type"]) is str for event in stored)
        assert json.loads(orjson.dumps(events)) == stored
        assert json.loads(orjson.dumps(match_view(match, 0)))["status"] == "finished"
        assert of_type(stored, "move") == of_type(events, EventKind.MOVE)

    def test_the_status_is_stored_as_its_string(self) -> None:
        match = final_position(scores=[10, 10], scopas=[0, 2], taker=0)
        assert type(match.to_dict()["status"]) is str and match.to_dict()["status"] == "playing"
        match.play(1, Card.parse("9B"))
        data = json.loads(json.dumps(match.to_dict()))
        assert data["status"] == "finished" and type(match.to_dict()["status"]) is str
        assert Match.from_dict(data).status is Status.FINISHED

    def test_a_match_stored_before_loads(self) -> None:
        match = Match.from_dict(json.loads(STORED))
        assert match.status is Status.PLAYING
        assert match.hand.hand_size == 3 and match.hand.players == 3
        assert json.dumps(match.to_dict()) == STORED
        assert match.legal_moves()


class TestPositions:
    """Hand: the keyword constructor's defaults, Hand.deal and Hand.from_knowledge."""

    def test_the_constructor_defaults(self) -> None:
        hands = [mask_of(cards("1D 2D")), mask_of(cards("3S"))]
        hand = Hand(SCOPA, Rules(), hands=hands)
        assert (hand.players, hand.dealer, hand.turn, hand.last_capturer) == (2, 0, 0, None)
        assert (hand.table, hand.stock, hand.piles, hand.scopas) == (0, [], [0, 0], [0, 0])
        assert hand.hand_size == 3  # the variant's deal for 2 players
        hands[0] = 0
        assert hand.hands[0] == mask_of(cards("1D 2D"))  # the sequences are copied
        assert Hand(get_variant("scopone"), Rules(), hands=[0] * 4).hand_size == 9
        assert Hand(SCOPA, Rules(), hands=[0]).hand_size == 0  # not a player count of scopa
        with pytest.raises(ValueError):
            Hand(SCOPA, Rules(), hands=hands, piles=[0, 0, 0])

    def test_a_copy_is_the_same_position_and_independent(self) -> None:
        match, _ = Match.new(players=4, seed=8)
        hand = match.hand
        copy = hand.copy()
        fields = list(HAND_FIELDS)
        assert [getattr(copy, f) for f in fields] == [getattr(hand, f) for f in fields]
        assert copy.legal_codes() == hand.legal_codes()
        copy.push(copy.legal_codes()[0])
        assert copy.hands != hand.hands and hand.turn == match.turn

    @pytest.mark.parametrize("dealer", [0, 1, 3])
    def test_deal(self, dealer: int) -> None:
        deck = list(range(40))
        hand = Hand.deal(SCOPA, Rules(), 4, dealer, deck)
        first = (dealer + 1) % 4
        assert hand.turn == first and hand.dealer == dealer and hand.hand_size == 3
        assert hand.hands[first] == mask_of([DECK[0], DECK[1], DECK[2]])
        assert hand.table == mask_of(DECK[12:16]) and hand.stock == deck[16:]
        assert hand.piles == [0] * 4 and hand.scopas == [0] * 4 and hand.last_capturer is None

    @pytest.mark.parametrize(("variant", "players"), [("scopa", 2), ("escoba", 3), ("scopone", 4)])
    def test_from_knowledge(self, variant: str, players: int) -> None:
        """What a seat knows, with the hidden cards as they are, is the position; without
        them, the seat's legal moves are the same."""
        rng = random.Random(players)
        match, _ = Match.new(variant=variant, players=players, seed=players)
        while match.status is Status.PLAYING:
            seat = match.turn
            assert seat is not None
            knowledge = knowledge_of(match, seat)
            known = Hand.from_knowledge(knowledge)
            assert known.legal_codes() == match.hand.legal_codes()
            assert known.hands == [knowledge.hand if s == seat else 0 for s in range(players)]
            assert known.stock == []
            other = Hand.from_knowledge(knowledge, [1] * players, [5])  # the seat's entry: ignored
            assert other.hands == [knowledge.hand if s == seat else 1 for s in range(players)]
            assert other.stock == [5] and other.turn == seat
            full = Hand.from_knowledge(knowledge, match.hand.hands, match.hand.stock)
            fields = list(HAND_FIELDS)
            assert [getattr(full, f) for f in fields] == [getattr(match.hand, f) for f in fields]
            match.push(rng.choice(match.legal_moves()))
            if match.hand_scores:
                break
        with pytest.raises(ValueError):
            Hand.from_knowledge(knowledge, [0])


#: Hand's public fields, spelled out: the mypyc build's Hand has no __slots__.
HAND_FIELDS = (
    "variant", "rules", "players", "dealer", "turn", "last_capturer", "hands", "table",
    "stock", "piles", "scopas", "hand_size", "matta_as",
)  # fmt: skip


def test_hand_fields_are_its_public_slots() -> None:
    if not hasattr(Hand, "__slots__"):
        pytest.skip("the mypyc build's Hand has no __slots__: checked on the .py sources")
    assert set(HAND_FIELDS) == {n for n in Hand.__slots__ if not n.startswith("_")}
