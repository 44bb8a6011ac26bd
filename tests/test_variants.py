"""The variants of docs/rules.md R10, one class per rule that differs from classic Scopa:
the deal (scopone, scopone scientifico), the player counts, the capture rules (scopa di
quindici, escoba, asso piglia tutto) and the special scoring (escoba's dealer's bonus,
scientifico's ``dealer_last_sweep``).

Positions are built by dealing a chosen deck (``Match.new(deck=...)``), by asking
``legal_moves_in`` about a hand and a table, or by giving a freshly made match a hand set
up by hand (:func:`position`, :func:`~tests.helpers.set_cards`). Card codes follow R1:
value then suit letter, ``D`` coins, ``C`` cups, ``S`` swords, ``B`` clubs. Hands are
compared as sets: their order is not part of the rules.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.engine import (
    DECK,
    VARIANTS,
    Card,
    ForcedCapture,
    IllegalMoveError,
    InvalidSetupError,
    Match,
    Move,
    Rules,
    get_variant,
    legal_moves_in,
)
from tests import helpers
from tests.helpers import DEAL_SHAPE, cards, of_type, play_randomly_until, set_cards

#: The variants of R10.1-R10.6, which share Scopa's shape; Cirulla (R10.7) has rules of
#: its own (C1-C10), tested in tests/test_cirulla.py.
ALL = [name for name in VARIANTS if name != "cirulla"]
SCOPONES = ["scopone", "scopone_scientifico"]
THREE_CARD = ["scopa", "scopa_di_quindici", "escoba", "asso_piglia_tutto"]
FIFTEENS = ["scopa_di_quindici", "escoba"]
PLAYERS = {name: (4,) if name in SCOPONES else (2, 3, 4, 6) for name in ALL}
#: R3: deals in a hand of the three-card variants, by player count.
DEALS = {2: 6, 3: 4, 4: 3, 6: 2}
TEAMS = {2: [0, 1], 3: [0, 1, 2], 4: [0, 1, 0, 1], 6: [0, 1, 0, 1, 0, 1]}


def code_set(items: Any) -> set[str]:
    return {str(card) for card in items}


def moves(text: str) -> set[Move]:
    """``moves("7Dx3C+4B 1B")``: a set of moves in the notation of :class:`Move`."""
    return {Move.parse(m) for m in text.split()}


def legal(variant: str, hand: str, table: str, rules: Rules | None = None) -> set[Move]:
    found = legal_moves_in(get_variant(variant), rules or Rules(), cards(hand), cards(table))
    assert len(found) == len(set(found))
    return set(found)


def deck_with(front: str, table: str, players: int, variant: str) -> list[Card]:
    """A deck that deals ``front`` first (to the seats in playing order), then fills the
    hands, then puts ``table`` on the table; the rest in canonical order."""
    hand_size, _ = DEAL_SHAPE[variant]
    first, top = cards(front), cards(table)
    rest = [c for c in DECK if c not in first and c not in top]
    hands = first + rest[: players * hand_size - len(first)]
    return hands + top + rest[players * hand_size - len(first) :]


def position(variant: str, hands: list[str], table: str, **kwargs: Any) -> Match:
    """helpers.position for ``variant``: the dealer is the last seat."""
    return helpers.position(hands, table, variant=variant, **kwargs)


def plain_deck(seed: int) -> list[Card]:
    """A shuffled deck whose table cards (at any of the positions the variants deal them
    from) hold fewer than 3 kings and do not add up to 15 or 30: no redeal, no bonus."""
    for attempt in range(1000):
        deck = list(DECK)
        random.Random(f"{seed}:{attempt}").shuffle(deck)
        tables = [deck[n : n + 4] for n in (6, 9, 12, 18, 36)]
        if all(
            sum(c.value == 10 for c in t) < 3 and sum(c.value for c in t) not in (15, 30)
            for t in tables
        ):
            return deck
    raise AssertionError("no plain deck")


# --------------------------------------------------------------------------- R10 the list


class TestTheVariants:
    def test_the_seven_games_of_r10_with_classic_scopa_first(self) -> None:
        assert list(VARIANTS) == [
            "scopa",
            "asso_piglia_tutto",
            "cirulla",
            "escoba",
            "scopa_di_quindici",
            "scopone",
            "scopone_scientifico",
        ]
        for name, variant in VARIANTS.items():
            assert variant.name == name
            assert get_variant(name) is variant

    def test_an_unknown_variant_is_refused_naming_the_known_ones(self) -> None:
        with pytest.raises(InvalidSetupError) as caught:
            Match.new(variant="briscola")
        assert "briscola" in str(caught.value)
        for name in VARIANTS:
            assert name in str(caught.value)


# --------------------------------------------------------------------------- R10 players


class TestPlayerCounts:
    """R2, R10: scopone and scientifico are four players in partnerships; the others are
    played by 2, 3, 4 or 6 as Scopa."""

    @pytest.mark.parametrize(("variant", "players"), [(v, n) for v in ALL for n in PLAYERS[v]])
    def test_allowed_counts_and_their_sides(self, variant: str, players: int) -> None:
        match, _ = Match.new(variant=variant, players=players, seed=1)
        assert match.players == players
        assert match.teams == TEAMS[players]
        assert match.scores == [0] * (max(TEAMS[players]) + 1)

    @pytest.mark.parametrize(
        ("variant", "players"),
        [(v, n) for v in ALL for n in (0, 1, 2, 3, 5, 6, 7) if n not in PLAYERS[v]],
    )
    def test_other_counts_are_refused_saying_why(self, variant: str, players: int) -> None:
        with pytest.raises(InvalidSetupError) as caught:
            Match.new(variant=variant, players=players, seed=1)
        message = str(caught.value)
        assert VARIANTS[variant].title in message
        assert str(players) in message
        assert all(str(n) in message for n in PLAYERS[variant])

    @pytest.mark.parametrize("variant", SCOPONES)
    def test_scopone_with_two_named_seats_is_refused(self, variant: str) -> None:
        with pytest.raises(InvalidSetupError, match="4"):
            Match.new(variant=variant, names=["Ana", "Bruno"])
        with pytest.raises(InvalidSetupError):
            Match.new(variant=variant, names=["Ana", "Bruno", "Chiara", "Dario"], players=2)

    @pytest.mark.parametrize("variant", ALL)
    def test_default_player_count(self, variant: str) -> None:
        """Four for the scopone variants when not given, else two."""
        match, _ = Match.new(variant=variant, seed=2)
        assert match.players == (4 if variant in SCOPONES else 2)
        assert match.names == [f"Player {n + 1}" for n in range(match.players)]


class TestTarget:
    """R8, R10: 11 points, 21 in escoba, unless asked otherwise."""

    @pytest.mark.parametrize("variant", ALL)
    def test_default_target(self, variant: str) -> None:
        match, events = Match.new(variant=variant, seed=3)
        expected = 21 if variant == "escoba" else 11
        assert VARIANTS[variant].default_target == expected
        assert match.target == expected
        assert events[0]["target"] == expected
        assert events[0]["variant"] == variant

    @pytest.mark.parametrize("variant", ALL)
    def test_a_target_given_is_kept(self, variant: str) -> None:
        match, _ = Match.new(variant=variant, seed=3, target=16)
        assert match.target == 16

    @pytest.mark.parametrize("target", [0, -1, 101])
    @pytest.mark.parametrize("variant", ALL)
    def test_a_target_out_of_range_is_refused(self, variant: str, target: int) -> None:
        with pytest.raises(InvalidSetupError, match="target"):
            Match.new(variant=variant, seed=3, target=target)


# --------------------------------------------------------------------------- R3/R10 deals


class TestDealShape:
    """R3, R10: scopone deals 9 to each seat and 4 to the table, once; scientifico 10 each
    and nothing to the table; the others 3 each and 4 to the table, then 3 each again
    until the stock is gone."""

    @pytest.mark.parametrize(("variant", "players"), [(v, n) for v in ALL for n in PLAYERS[v]])
    def test_the_first_deal(self, variant: str, players: int) -> None:
        hand_size, table_size = DEAL_SHAPE[variant]
        deck = deck_with("", "1D 2C 3S 5B", players, variant)
        match, events = Match.new(variant=variant, players=players, deck=deck, first_dealer=0)
        assert [len(hand) for hand in match.hands] == [hand_size] * players
        assert len(match.table) == table_size
        assert len(match.stock) == 40 - hand_size * players - table_size
        (deal,) = of_type(events, "deal")
        assert deal["cards_each"] == hand_size
        assert len(deal["table"]) == table_size
        assert deal["stock_count"] == len(match.stock)
        assert not of_type(events, "redeal") and not of_type(events, "dealer_bonus")

    @pytest.mark.parametrize(("variant", "players"), [(v, n) for v in ALL for n in PLAYERS[v]])
    def test_deals_per_hand(self, variant: str, players: int) -> None:
        """R3: 6, 4, 3 or 2 deals a hand for 2, 3, 4 or 6 players; R10: scopone's one."""
        match, _ = Match.new(
            variant=variant, players=players, deck=plain_deck(players), first_dealer=0
        )
        events = play_randomly_until(match, random.Random(players), "hand_over")
        before_end = events[: events.index(of_type(events, "hand_over")[0])]
        later = of_type(before_end, "deal")
        moves_played = of_type(before_end, "move")
        assert len(moves_played) == 40 - DEAL_SHAPE[variant][1]
        if variant in SCOPONES:
            assert later == []
        else:
            assert 1 + len(later) == DEALS[players]
            for deal in later:
                assert deal["cards_each"] == 3 and deal["table"] == []
                assert all(len(hand) == 3 for hand in deal["hands"].values())

    @pytest.mark.parametrize("variant", ALL)
    def test_deck_order_is_honoured(self, variant: str) -> None:
        """As each variant's ``deal_order`` says: from the front of the list, each seat in
        playing order from the seat after the dealer gets its cards at once, then the
        table; later deals continue from the list the same way."""
        hand_size, table_size = DEAL_SHAPE[variant]
        deck = plain_deck(7)
        match, events = Match.new(variant=variant, players=4, deck=deck, first_dealer=2)
        assert not of_type(events, "redeal") and not of_type(events, "dealer_bonus")
        order = [3, 0, 1, 2]
        for n, seat in enumerate(order):
            assert code_set(match.hands[seat]) == code_set(
                deck[n * hand_size : (n + 1) * hand_size]
            )
        dealt = 4 * hand_size
        assert code_set(match.table) == code_set(deck[dealt : dealt + table_size])
        assert code_set(match.stock) == code_set(deck[dealt + table_size :])
        deal = of_type(events, "deal")[0]
        assert code_set(deal["table"]) == code_set(deck[dealt : dealt + table_size])
        for seat in range(4):
            assert code_set(deal["hands"][str(seat)]) == code_set(match.hands[seat])
        if variant in SCOPONES:
            assert match.stock == []
            return
        rng = random.Random(0)
        for _ in range(12):
            match.push(rng.choice(match.legal_moves()))
        for n, seat in enumerate(order):
            start = 16 + 3 * n
            assert code_set(match.hands[seat]) == code_set(deck[start : start + 3])
        assert code_set(match.stock) == code_set(deck[28:])
        assert match.turn == 3

    def test_the_first_seat_of_scientifico_plays_onto_an_empty_table(self) -> None:
        """R10: nothing on the table, so every card of the first hand is laid."""
        match, _ = Match.new(variant="scopone_scientifico", seed=5, first_dealer=1)
        assert match.table == [] and match.turn == 2
        assert set(match.legal_moves()) == {Move(card) for card in match.hands[2]}
        assert len(match.legal_moves()) == 10


class TestRedeal:
    """R3: three or four kings face up on the table: the same dealer deals again. R10:
    scopone says so; quindici and asso piglia tutto play "otherwise as scopa"."""

    @pytest.mark.parametrize("table", ["10D 10C 10S 1B", "10D 10C 10S 10B", "1B 10S 10C 10D"])
    @pytest.mark.parametrize("variant", ["scopone", "scopa_di_quindici", "asso_piglia_tutto"])
    def test_three_or_four_kings_force_a_redeal(self, variant: str, table: str) -> None:
        players = 4
        hand_size, _ = DEAL_SHAPE[variant]
        deck = deck_with("", table, players, variant)
        match, events = Match.new(
            variant=variant, players=players, deck=deck, first_dealer=3, seed=9
        )
        assert [e["type"] for e in events[:2]] == ["match_started", "redeal"]
        assert events[1]["dealer"] == 3 and sorted(events[1]["table"]) == sorted(table.split())
        assert events[-1]["type"] == "deal" and events[-1]["dealer"] == 3
        assert match.dealer == 3 and match.turn == 0
        assert sum(c.value == 10 for c in match.table) < 3
        assert len(match.table) == 4
        assert [len(hand) for hand in match.hands] == [hand_size] * players
        everything = [c for hand in match.hands for c in hand] + match.table + match.stock
        assert code_set(everything) == code_set(DECK) and len(everything) == 40

    @pytest.mark.parametrize("variant", ["scopone", "scopa_di_quindici", "asso_piglia_tutto"])
    def test_two_kings_do_not(self, variant: str) -> None:
        deck = deck_with("", "10D 10C 5S 1B", 4, variant)
        match, events = Match.new(variant=variant, players=4, deck=deck, first_dealer=3)
        assert not of_type(events, "redeal")
        assert code_set(match.table) == {"10D", "10C", "5S", "1B"}

    @pytest.mark.parametrize("table", ["10D 10C 10S 1B", "10D 10C 10S 10B"])
    def test_escoba_keeps_a_table_of_kings(self, table: str) -> None:
        """Escoba scores the dealt table instead (its description; R10 does not say)."""
        deck = deck_with("", table, 2, "escoba")
        match, events = Match.new(variant="escoba", players=2, deck=deck, first_dealer=1)
        assert not of_type(events, "redeal")
        assert code_set(match.table) == set(table.split())

    def test_scientifico_never_redeals_kings_in_the_hands(self) -> None:
        kings = cards("10D 10C 10S 10B")
        deck = kings + [c for c in DECK if c not in kings]
        match, events = Match.new(variant="scopone_scientifico", deck=deck, first_dealer=3)
        assert not of_type(events, "redeal")
        assert code_set(kings) <= code_set(match.hands[0])


# --------------------------------------------------------------------------- captures


class TestScoponeCapturesAsScopa:
    """R10: scopone and scientifico capture as Scopa (R4)."""

    @pytest.mark.parametrize("variant", [*SCOPONES, "scopa", "asso_piglia_tutto"])
    def test_the_seeds_example_a_six_takes_only_the_six(self, variant: str) -> None:
        """R4.1 (seeds 000/003): table 2-4-6, a played 6 takes only the 6."""
        assert legal(variant, "6S", "2B 4C 6D") == moves("6Sx6D")
        assert legal(variant, "6S", "2B 4C") == moves("6Sx2B+4C")
        assert legal(variant, "7S 5D", "3C 4B 2S") == moves("7Sx3C+4B 5Dx2S+3C")


class TestScopaDiQuindici:
    """R10: a card takes a set of one or more table cards when the card and the set add
    up to 15; no single-match priority; otherwise as Scopa. Escoba captures the same."""

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_a_ten_takes_the_five_or_the_two_and_three(self, variant: str) -> None:
        assert legal(variant, "10B", "5C 2D 3S") == moves("10Bx5C 10Bx2D+3S")

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_a_card_of_the_same_value_is_not_taken(self, variant: str) -> None:
        """No single-match priority: the 7 takes the 8 (15), not the 7 (14)."""
        assert legal(variant, "7S", "7C 8D") == moves("7Sx8D")
        assert legal(variant, "7S", "7C") == moves("7S")
        assert legal(variant, "5D", "5C 10D") == moves("5Dx10D")

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_every_set_adding_up_to_fifteen_is_a_choice(self, variant: str) -> None:
        assert legal(variant, "10S", "1C 4D 2S 3B 5C") == moves("10Sx5C 10Sx1C+4D 10Sx2S+3B")
        assert legal(variant, "1S", "10D 4C 9S 5B") == moves("1Sx4C+10D 1Sx5B+9S")
        assert legal(variant, "2S", "1C 3D 4S 5B") == moves("2Sx1C+3D+4S+5B")

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_equal_values_are_distinct_choices(self, variant: str) -> None:
        assert legal(variant, "8D", "7C 7S") == moves("8Dx7C 8Dx7S")

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_a_capture_must_be_made_but_another_card_may_be_laid(self, variant: str) -> None:
        """R4.3 with the rule of 15: the 10 must take; the 9 takes nothing and may be
        laid; with ``forced_capture: any`` it may not."""
        assert legal(variant, "10B 9C", "5C 2D") == moves("10Bx5C 9C")
        assert legal(variant, "10B 9C", "5C 2D", Rules(forced_capture=ForcedCapture.ANY)) == (
            moves("10Bx5C")
        )
        match = position(variant, ["10B 9C", "1S"], "5C 2D")
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("10B"), [])
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("10B"), cards("2D"))

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_a_capture_to_the_cards_own_value_is_illegal(self, variant: str) -> None:
        """Scopa's rule (a 7 takes 3+4) does not apply: 7+3+4 is 14."""
        match = position(variant, ["7S 1C", "1S"], "3C 4B")
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("7S"), cards("3C 4B"))

    @pytest.mark.parametrize("variant", FIFTEENS)
    def test_clearing_the_table_is_a_scopa_but_not_with_the_last_card(self, variant: str) -> None:
        """R5 as in Scopa."""
        match = position(variant, ["10B 9C", "1S"], "2C 3S")
        _, events = match.play(0, Card.parse("10B"), cards("2C 3S"))
        assert events[0]["scopa"] is True
        assert match.scopas == [1, 0] and match.table == []
        assert code_set(match.piles[0]) == {"10B", "2C", "3S"}
        last = position(variant, ["", "10B"], "2C 3S", turn=1)
        _, events = last.play(1, Card.parse("10B"))
        assert events[0]["scopa"] is False
        assert of_type(events, "hand_over")[0]["score"]["teams"][1]["scopas"] == 0

    def test_quindici_has_no_dealer_bonus(self) -> None:
        """R10: only escoba scores the table dealt; quindici is otherwise as Scopa."""
        deck = deck_with("", "1C 2D 5S 7B", 2, "scopa_di_quindici")
        match, events = Match.new(variant="scopa_di_quindici", deck=deck, first_dealer=1)
        assert not of_type(events, "dealer_bonus")
        assert code_set(match.table) == {"1C", "2D", "5S", "7B"}
        assert match.scopas == [0, 0]


class TestEscoba:
    """R10: captures as in scopa di quindici, the seed's example (seed 002)."""

    def test_the_seeds_example(self) -> None:
        """Table 2, 3, 8, 10; a hand of ace and 5: the 5 takes the 10, or the 2 and the
        8; the ace takes nothing (it would need 14) and can only be laid."""
        assert legal("escoba", "1D 5C", "2C 3S 8B 10D") == moves("5Cx10D 5Cx2C+8B 1D")
        any_ = Rules(forced_capture=ForcedCapture.ANY)
        assert legal("escoba", "1D 5C", "2C 3S 8B 10D", any_) == moves("5Cx10D 5Cx2C+8B")

    def test_the_seeds_example_in_a_dealt_match(self) -> None:
        deck = deck_with("1D 5C 6S", "2C 3S 8B 10D", 2, "escoba")
        match, events = Match.new(variant="escoba", deck=deck, first_dealer=1)
        assert not of_type(events, "dealer_bonus")  # 2+3+8+10 = 23
        assert match.turn == 0 and code_set(match.hands[0]) == {"1D", "5C", "6S"}
        assert set(match.legal_moves()) == moves("5Cx10D 5Cx2C+8B 1D 6S")
        with pytest.raises(IllegalMoveError) as caught:
            match.play(0, Card.parse("5C"))
        assert sorted(caught.value.legal_captures) == [["10D"], ["2C", "8B"]]
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("1D"), cards("2C 3S 8B"))  # 1+13: not 15
        _, events = match.play(0, Card.parse("5C"), cards("2C 8B"))
        assert events[0]["scopa"] is False
        assert code_set(match.table) == {"3S", "10D"}
        assert code_set(match.piles[0]) == {"5C", "2C", "8B"}


class TestEscobaDealersBonus:
    """R10: if the 4 cards dealt to the table add up to 15, the dealer takes them and
    scores one escoba; 30, two. Any other sum (seed 002's 20 included): nothing."""

    @pytest.mark.parametrize(
        ("table", "escobas"),
        [("1C 2D 5S 7B", 1), ("4C 4D 3S 4B", 1), ("7C 8D 5S 10B", 2), ("6C 9D 7S 8B", 2)],
    )
    @pytest.mark.parametrize(("players", "dealer"), [(2, 1), (2, 0), (4, 2), (3, 0)])
    def test_the_dealer_takes_the_table(
        self, table: str, escobas: int, players: int, dealer: int
    ) -> None:
        deck = deck_with("", table, players, "escoba")
        match, events = Match.new(variant="escoba", players=players, deck=deck, first_dealer=dealer)
        (deal,) = of_type(events, "deal")
        assert sorted(deal["table"]) == sorted(table.split())  # dealt face up, then taken
        (bonus,) = of_type(events, "dealer_bonus")
        assert events.index(bonus) > events.index(deal)
        assert bonus == {
            "type": "dealer_bonus",
            "hand": 1,
            "seat": dealer,
            "capture": [str(c) for c in sorted(cards(table), key=lambda c: c.sort_key)],
            "scopas": escobas,
        }
        assert match.table == []
        assert code_set(match.piles[dealer]) == set(table.split())
        assert match.scopas == [escobas if seat == dealer else 0 for seat in range(players)]
        assert match.last_capturer == dealer
        assert match.turn == (dealer + 1) % players
        # the first player plays onto the empty table: every card is laid
        assert all(not m.capture for m in match.legal_moves())

    @pytest.mark.parametrize(
        "table", ["1C 2D 5S 6B", "1C 2D 5S 8B", "10D 5C 3S 2B", "10D 9C 8S 2B", "10D 10C 10S 10B"]
    )
    def test_other_sums_score_nothing(self, table: str) -> None:
        """14, 16, 20 (seed 002 says 20 for two: R10 takes 30), 29, 40."""
        deck = deck_with("", table, 2, "escoba")
        match, events = Match.new(variant="escoba", deck=deck, first_dealer=1)
        assert not of_type(events, "dealer_bonus")
        assert code_set(match.table) == set(table.split())
        assert match.scopas == [0, 0] and match.piles == [[], []]
        assert match.last_capturer is None

    def test_the_bonus_counts_in_the_hands_score_and_the_dealer_is_the_last_capturer(
        self,
    ) -> None:
        """If nobody captures afterwards, the cards left on the table go to the dealer
        (R6), and the dealer's side scores its escoba (R7)."""
        deck = deck_with("", "1C 2D 5S 7B", 2, "escoba")
        match, _ = Match.new(variant="escoba", deck=deck, first_dealer=1)
        set_cards(match, hands=["2C", "3S"], stock="")  # the hand's last two cards
        match.play(0, Card.parse("2C"))  # 2 on an empty table: laid
        _, events = match.play(1, Card.parse("3S"))  # 3+2 is not 15: laid
        (hand_over,) = of_type(events, "hand_over")
        assert hand_over["remainder"] == {"seat": 1, "team": 1, "cards": ["2C", "3S"]}
        dealer_side = hand_over["score"]["teams"][1]
        assert dealer_side["scopas"] == 1 and dealer_side["points"]["scopas"] == 1
        assert set(dealer_side["captured"]) == {"1C", "2D", "5S", "7B", "2C", "3S"}
        assert hand_over["score"]["teams"][0]["scopas"] == 0

    @pytest.mark.parametrize(
        "variant", ["scopa", "scopone", "scopa_di_quindici", "asso_piglia_tutto"]
    )
    def test_no_other_variant_has_it(self, variant: str) -> None:
        deck = deck_with("", "7C 8D 5S 10B", 4, variant)
        match, events = Match.new(variant=variant, players=4, deck=deck, first_dealer=0)
        assert not of_type(events, "dealer_bonus")
        assert code_set(match.table) == {"7C", "8D", "5S", "10B"}


class TestAssoPigliaTutto:
    """R10: a played ace takes every card on the table, in one move. It is a scopa only
    when the table held a single ace, and never with the hand's last card. An ace played
    on an empty table stays. Other cards capture as in Scopa."""

    def test_the_ace_takes_the_whole_table_in_one_move(self) -> None:
        assert legal("asso_piglia_tutto", "1B", "5C 2D 9S") == moves("1Bx2D+5C+9S")
        assert legal("asso_piglia_tutto", "1B", "1C 5D") == moves("1Bx1C+5D")
        assert legal("asso_piglia_tutto", "1B 7C", "3S 4D") == moves("1Bx3S+4D 7Cx3S+4D")

    def test_it_is_not_a_scopa(self) -> None:
        match = position("asso_piglia_tutto", ["1B 9C", "2S"], "5C 2D 9S")
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("1B"), cards("5C"))  # not part of the table
        with pytest.raises(IllegalMoveError):
            match.play(0, Card.parse("1B"), [])  # it must take (R4.3)
        _, events = match.play(0, Card.parse("1B"))
        assert events[0]["capture"] == ["2D", "5C", "9S"] and events[0]["scopa"] is False
        assert match.table == [] and match.scopas == [0, 0]
        assert code_set(match.piles[0]) == {"1B", "5C", "2D", "9S"}
        assert match.last_capturer == 0

    def test_taking_a_single_ace_is_a_scopa(self) -> None:
        match = position("asso_piglia_tutto", ["1B 9C", "2S"], "1C")
        _, events = match.play(0, Card.parse("1B"))
        assert events[0]["capture"] == ["1C"] and events[0]["scopa"] is True
        assert match.scopas == [1, 0]

    @pytest.mark.parametrize("table", ["1C 1D", "7C", "1C 2S"])
    def test_a_table_that_is_not_a_single_ace_is_no_scopa(self, table: str) -> None:
        match = position("asso_piglia_tutto", ["1B 9C", "2S"], table)
        _, events = match.play(0, Card.parse("1B"))
        assert events[0]["scopa"] is False and match.table == []

    def test_never_with_the_last_card_of_the_hand(self) -> None:
        match = position("asso_piglia_tutto", ["", "1B"], "1C", turn=1)
        _, events = match.play(1, Card.parse("1B"))
        assert events[0]["scopa"] is False
        (hand_over,) = of_type(events, "hand_over")
        assert [t["scopas"] for t in hand_over["score"]["teams"]] == [0, 0]
        assert set(hand_over["score"]["teams"][1]["captured"]) == {"1B", "1C"}

    def test_an_ace_on_an_empty_table_is_laid_and_stays(self) -> None:
        match = position("asso_piglia_tutto", ["1B 5C", "1C 3S", "2D 9B"], "")
        assert set(match.legal_moves()) == moves("1B 5C")
        _, events = match.play(0, Card.parse("1B"))
        assert events[0]["capture"] == [] and match.table == cards("1B")
        # the next ace takes it: the table held a single ace, so a scopa
        assert set(match.legal_moves()) == moves("1Cx1B 3S")
        _, events = match.play(1, Card.parse("1C"))
        assert events[0]["scopa"] is True

    def test_other_cards_take_an_ace_as_in_scopa(self) -> None:
        match = position("asso_piglia_tutto", ["1B 5C", "3S 9C"], "")
        match.play(0, Card.parse("1B"))
        set_cards(match, table="1B 2D")
        assert set(match.legal_moves()) == moves("3Sx1B+2D 9C")
        _, events = match.play(1, Card.parse("3S"))
        assert events[0]["scopa"] is True  # a normal capture clearing the table

    def test_the_ace_must_capture_when_the_table_is_not_empty(self) -> None:
        """R4.3: an ace on a non-empty table always can, so it never is laid there."""
        assert legal("asso_piglia_tutto", "1B 9C", "5C") == moves("1Bx5C 9C")
        any_ = Rules(forced_capture=ForcedCapture.ANY)
        assert legal("asso_piglia_tutto", "1B 9C", "5C", any_) == moves("1Bx5C")


# --------------------------------------------------------------------------- scientifico


class TestDealerLastSweep:
    """R10 scopone scientifico, option ``dealer_last_sweep`` (seed 004): the dealer's side
    scores a scopa when the dealer's last card takes every card left on the table."""

    ON = Rules(dealer_last_sweep=True)

    @staticmethod
    def last_card(rules: Rules, table: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """The dealer (seat 3) plays the hand's last card, the 7 of coins."""
        match = position("scopone_scientifico", ["", "", "", "7D"], table, turn=3, rules=rules)
        _, events = match.play(3, Card.parse("7D"))
        (hand_over,) = of_type(events, "hand_over")
        return events[0], hand_over

    def test_with_the_option_the_last_sweep_scores(self) -> None:
        move, hand_over = self.last_card(self.ON, "3C 4S")
        assert move["capture"] == ["3C", "4S"] and move["scopa"] is True
        dealer_side = hand_over["score"]["teams"][1]  # seat 3 plays for side 1
        assert dealer_side["scopas"] == 1 and dealer_side["points"]["scopas"] == 1
        assert hand_over["score"]["teams"][0]["scopas"] == 0

    def test_without_it_no_scopa_on_the_last_card(self) -> None:
        """R5: the last card never scores a scopa."""
        move, hand_over = self.last_card(Rules(), "3C 4S")
        assert move["capture"] == ["3C", "4S"] and move["scopa"] is False
        assert [t["scopas"] for t in hand_over["score"]["teams"]] == [0, 0]

    def test_a_last_capture_that_leaves_a_card_is_no_scopa(self) -> None:
        move, hand_over = self.last_card(self.ON, "3C 4S 5B")
        assert move["scopa"] is False
        assert hand_over["remainder"] == {"seat": 3, "team": 1, "cards": ["5B"]}
        assert [t["scopas"] for t in hand_over["score"]["teams"]] == [0, 0]

    @pytest.mark.parametrize("rules", [Rules(), ON])
    def test_before_the_last_card_sweeps_score_as_usual(self, rules: Rules) -> None:
        match = position(
            "scopone_scientifico", ["2B", "5C", "", "7D 6S"], "3C 4S", turn=3, rules=rules
        )
        _, events = match.play(3, Card.parse("7D"))
        assert events[0]["scopa"] is True

    def test_scopone_has_no_such_option_and_its_last_sweep_never_scores(self) -> None:
        with pytest.raises(InvalidSetupError, match="dealer_last_sweep"):
            Match.new(variant="scopone", rules=self.ON)
        match = position("scopone", ["", "", "", "7D"], "3C 4S", turn=3)
        _, events = match.play(3, Card.parse("7D"))
        assert events[0]["scopa"] is False


class TestOptions:
    """R9 options apply to every variant; R10's dealer_last_sweep only to scientifico."""

    @pytest.mark.parametrize("variant", ALL)
    def test_the_common_options_are_accepted(self, variant: str) -> None:
        rules = Rules(re_bello=True, napola=True, napoleone=True, forced_capture=ForcedCapture.ANY)
        match, events = Match.new(variant=variant, rules=rules, seed=1)
        assert match.rules == rules
        assert events[0]["rules"] == rules.to_dict()
        assert set(VARIANTS[variant].options) >= {
            "re_bello",
            "napola",
            "napoleone",
            "forced_capture",
        }

    @pytest.mark.parametrize("variant", ALL)
    def test_dealer_last_sweep_only_in_scientifico(self, variant: str) -> None:
        rules = Rules(dealer_last_sweep=True)
        if variant == "scopone_scientifico":
            match, _ = Match.new(variant=variant, rules=rules, seed=1)
            assert match.rules.dealer_last_sweep is True
            assert "dealer_last_sweep" in VARIANTS[variant].options
            return
        assert "dealer_last_sweep" not in VARIANTS[variant].options
        with pytest.raises(InvalidSetupError) as caught:
            Match.new(variant=variant, rules=rules, seed=1)
        assert "dealer_last_sweep" in str(caught.value)
        assert VARIANTS[variant].title in str(caught.value)
