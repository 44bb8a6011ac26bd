"""Cirulla's rules on masks (docs/rules.md, the Cirulla part C1-C10): the redeal, the
dealer's bonus and the matta, the three kinds of capture, the declarations, and the
score lines beyond Scopa's. The match engine plays them once the variant is wired in
(issue 14); these are the rules it will ask."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from service.engine import DECK, Card, Match, Rules, Status, match_view
from service.engine.errors import IllegalMoveError
from service.engine.hand import Hand
from service.engine.masks import BIT, COINS, VALUE, cards_of, indices, mask_of
from service.engine.match import moves_of
from service.engine.moves import Declaration, DeclarationKind, best_declaration
from service.engine.replay import comparable, replay
from service.engine.variants import VARIANTS, get_variant
from service.engine.variants.cirulla import (
    MATTA,
    CaptureKind,
    Cirulla,
    TableBonus,
    bonus_lines,
    capture_kind,
    declarations,
    fewest_cards,
    table_bonus,
)
from service.engine.views import knowledge_of
from tests.helpers import of_type, position, random_turn

CIRULLA = Cirulla()
BIT_MATTA = BIT[MATTA]
BUONA, DECINO = DeclarationKind.BUONA, DeclarationKind.DECINO


def cards(codes: str) -> int:
    return mask_of(Card.parse(code) for code in codes.split())


def cards_list(codes: str) -> list[Card]:
    return [Card.parse(code) for code in codes.split()]


def bits_of(mask: int) -> list[int]:
    """The bits of ``mask``, one per card."""
    return [BIT[i] for i in indices(mask)]


def captures(card: str, table: str) -> list[str]:
    """What ``card`` may take from ``table``: each option's codes, sorted."""
    options = CIRULLA.capture_options(Card.parse(card), [Card.parse(c) for c in table.split()])
    return sorted(" ".join(c.code for c in option) for option in options)


def kind(card: str, capture: str, table: str) -> CaptureKind | None:
    return capture_kind(Card.parse(card).index, cards(capture) if capture else 0, cards(table))


def test_the_service_offers_it() -> None:
    """R10.7: Cirulla is one of the variants the service plays, for 2 to 4 players
    (C1.2), to 51 (C8.1)."""
    assert VARIANTS["cirulla"] is get_variant("cirulla") and isinstance(CIRULLA, Cirulla)
    assert CIRULLA.player_counts == (2, 3, 4) and CIRULLA.default_target == 51


class TestDealing:
    def test_two_aces_on_the_table_redeal_and_kings_do_not(self) -> None:
        """C2.2: two or more aces dealt to the table: the same dealer deals again; the
        three kings of R3.3 do not."""
        assert CIRULLA.needs_redeal(cards("1D 1S 5C 6B"))
        assert CIRULLA.needs_redeal(cards("1D 1S 1C 6B"))
        assert not CIRULLA.needs_redeal(cards("1D 4S 5C 6B"))
        assert not CIRULLA.needs_redeal(cards("10D 10S 10C 6B"))

    def test_a_table_of_15_or_30_is_the_dealers(self) -> None:
        """C2.3: worth exactly 15, 1 scopa; exactly 30, 2; else nothing."""
        assert table_bonus(cards("1D 2S 5C 7B")) == TableBonus(1)
        assert table_bonus(cards("10D 9S 5C 6B")) == TableBonus(2)
        assert table_bonus(cards("1D 2S 5C 8B")) == TableBonus(0)
        assert CIRULLA.table_bonus(cards("1D 2S 5C 7B"), Rules()) == (1, None)

    def test_the_matta_on_the_table_counts_as_what_makes_30_else_15(self) -> None:
        """C2.3: 7C counts as any value 1-10: the one making 30 if there is one, else 15."""
        assert table_bonus(cards("7C 10D 9S 8B")) == TableBonus(2, 3)  # 27 + 3 = 30
        assert table_bonus(cards("7C 2D 3S 4B")) == TableBonus(1, 6)  # 9 + 6 = 15
        assert table_bonus(cards("7C 1D 1S 1B")) == TableBonus(0)  # 3: 12 is too much
        assert table_bonus(cards("7C 10D 4S 1B")) == TableBonus(0)  # 15: 0 or 15 needed

    def test_table_low_takes_a_table_of_9_or_less_for_3_scopas(self) -> None:
        """C2.4 (option `table_low`): the matta counted as 1; it outweighs 15 (7C 2 2 2:
        7 with the matta as 1, rather than 15 with it as 9)."""
        assert table_bonus(cards("1D 2S 3C 3B"), table_low=True) == TableBonus(3)
        assert table_bonus(cards("7C 2D 2S 2B"), table_low=True) == TableBonus(3, 1)
        assert table_bonus(cards("7C 2D 2S 2B")) == TableBonus(1, 9)
        assert table_bonus(cards("1D 2S 3C 4B"), table_low=True) == TableBonus(0)


class TestCapturing:
    def test_a_single_match_or_a_sum_and_by_fifteen_alongside(self) -> None:
        """C4.1, C4.2: a 7 played to 3S 5C 6B 7B takes the 7B alone (a single match
        comes before the sums of 7), or 3S 5C, which make 15 with it; never 1+6."""
        assert captures("7D", "3S 5C 6B 7B") == ["3S 5C", "7B"]
        assert captures("7D", "1S 6B 3C") == ["1S 6B"]  # no match: the sum; 15 - 7 = 8: none
        assert captures("5D", "10S 4C 1B") == ["10S", "1B 4C"]  # 10 by fifteen, or the sum

    def test_the_ace_sweeps_a_table_without_an_ace(self) -> None:
        """C4.3: no ace on the table: the ace takes every card, its only capture."""
        assert captures("1D", "3S 5C 6B") == ["3S 5C 6B"]
        assert kind("1D", "3S 5C 6B", "3S 5C 6B") is CaptureKind.ACE_SWEEP

    def test_with_an_ace_on_the_table_the_ace_matches_or_makes_15(self) -> None:
        """C4.3: with an ace on the table, C4.1-C4.2 apply: that ace, or cards adding up
        to 14."""
        assert captures("1D", "1S 10C 4B 6B") == ["1S", "4B 10C"]
        assert kind("1D", "1S", "1S 10C 4B 6B") is CaptureKind.MATCH
        assert kind("1D", "4B 10C", "1S 10C 4B 6B") is CaptureKind.FIFTEEN

    def test_an_ace_on_an_empty_table_stays_there(self) -> None:
        """C4.3."""
        assert captures("1D", "") == []
        assert kind("1D", "", "") is None

    def test_each_capture_has_one_kind(self) -> None:
        """C4.4: one card of the value is a match, two or more adding up to it a sum,
        any set making 15 with the card (one card included) by fifteen."""
        assert kind("7D", "7B", "3S 5C 6B 7B") is CaptureKind.MATCH
        assert kind("7D", "3S 5C", "3S 5C 6B 7B") is CaptureKind.FIFTEEN
        assert kind("7D", "1S 6B", "1S 6B 3C") is CaptureKind.SUM
        assert kind("5D", "10S", "10S 4C 1B") is CaptureKind.FIFTEEN

    def test_every_option_is_listed(self) -> None:
        """C4.4: the legal captures are the union of C4.1-C4.3: here a 6 takes the 6C
        alone (C4.1), or makes 15 with the 9S, or with 4C and 5B (C4.2)."""
        assert captures("6D", "9S 4C 5B 6C") == ["4C 5B", "6C", "9S"]

    def test_fewest_cards_keeps_the_shortest_sums_only(self) -> None:
        """C4.6 (option `fewest_cards`): among the sums of the card's value, only those
        with the fewest cards; captures by fifteen stay."""
        table = cards("1S 2C 3B 4C 5B")
        options = CIRULLA.capture_masks(Card.parse("6D").index, table)
        kept = sorted(
            " ".join(sorted(c.code for c in cards_of(m))) for m in fewest_cards(options, 6)
        )
        assert "1S 2C 3B" not in kept and "2C 4C" in kept and "1S 5B" in kept
        assert "1S 3B 5B" in kept  # 9 = 15 - 6: by fifteen, kept whatever its size


class TestDeclarations:
    def test_a_buona_is_three_cards_worth_9_or_less(self) -> None:
        """C3.1a: 3 points."""
        assert declarations(cards("1D 3S 5C")) == [Declaration(BUONA)]
        assert declarations(cards("2D 3S 5C")) == []  # 10
        assert Declaration(BUONA).points == 3

    def test_a_decino_is_three_of_a_kind_and_then_no_buona(self) -> None:
        """C3.1b, C3.3: 10 points; 2-2-2 is both, and only the decino is offered."""
        assert declarations(cards("10D 10S 10C")) == [Declaration(DECINO)]
        assert declarations(cards("2D 2S 2C")) == [Declaration(DECINO)]
        assert Declaration(DECINO).points == 10

    def test_the_matta_takes_any_value_and_names_it(self) -> None:
        """C3.2: with 7C, a decino if the other two are a pair (its value); else a buona
        for each value keeping the three at 9 or less."""
        assert declarations(cards("7C 4D 4S")) == [Declaration(DECINO, 4)]
        assert declarations(cards("7C 7D 7S")) == [Declaration(DECINO, 7)]
        assert declarations(cards("7C 2D 3S")) == [Declaration(BUONA, v) for v in range(1, 5)]
        assert declarations(cards("7C 4D 5S")) == []  # 9 already: no room for the matta
        assert declarations(cards("7C 3D 5S")) == [Declaration(BUONA, 1)]

    def test_auto_declare_picks_the_decino_else_the_highest_matta(self) -> None:
        """C3.5 (option `auto_declare`)."""
        assert best_declaration(declarations(cards("7C 2D 3S"))) == Declaration(BUONA, 4)
        assert best_declaration(declarations(cards("7C 2D 2S"))) == Declaration(DECINO, 2)
        assert best_declaration(declarations(cards("1D 2S 3C"))) == Declaration(BUONA)
        assert best_declaration(declarations(cards("10D 9S 8C"))) is None

    @pytest.mark.parametrize("size", [0, 1, 2])
    def test_only_three_cards_declare(self, size: int) -> None:
        """C3.1: a seat holding the three cards of a deal (not after it played one)."""
        assert declarations(cards(" ".join(["1D", "2S", "3C"][:size])) if size else 0) == []


class TestScoreLines:
    def test_grande(self) -> None:
        """C7.2: 8D, 9D and 10D in one pile: 5 points."""
        assert bonus_lines(cards("8D 9D 10D 1S")).grande == 5
        assert bonus_lines(cards("8D 9D 10S")).grande == 0

    def test_piccola_and_its_run(self) -> None:
        """C7.3: 1D 2D 3D: 3 points, and one for each of 4D, 5D, 6D extending the run
        from the ace: A-2-3-4 is 4, A-2-3-5 is 3; `piccola_max` 7 lets 7D in."""
        assert bonus_lines(cards("1D 2D 3D")).piccola == 3
        assert bonus_lines(cards("1D 2D 3D 4D")).piccola == 4
        assert bonus_lines(cards("1D 2D 3D 5D")).piccola == 3
        run = cards("1D 2D 3D 4D 5D 6D 7D")
        assert bonus_lines(run).piccola == 6
        assert bonus_lines(run, piccola_max=7).piccola == 7
        assert bonus_lines(cards("2D 3D 4D")).piccola == 0

    def test_cappotto_is_every_coin(self) -> None:
        """C7.4: all ten coins in one pile (it ends the match; no points of its own)."""
        coins = cards(" ".join(f"{v}D" for v in range(1, 11)))
        lines = bonus_lines(coins)
        assert lines.cappotto and lines.grande == 5 and lines.piccola == 6
        assert not bonus_lines(coins & ~cards("10D")).cappotto

    def test_the_expert_values_the_lines_the_score_counts(self) -> None:
        """C7.2, C7.3: what a search values (Cirulla.bonus_points, the fast path) is
        what the hand score counts (bonus_lines), for any pile and any piccola_max."""
        rng = random.Random(7)
        coins = list(indices(COINS))
        variant = get_variant("cirulla")
        for _ in range(2000):
            pile = mask_of(rng.sample(DECK, rng.randint(0, 20)))
            for index in rng.sample(coins, rng.randint(0, 10)):
                pile |= BIT[index]  # runs of coins are otherwise rare
            piccola_max = rng.randint(3, 10)
            lines = bonus_lines(pile, piccola_max=piccola_max)
            rules = Rules(piccola_max=piccola_max)
            assert variant.bonus_points(pile, rules) == {
                "grande": lines.grande,
                "piccola": lines.piccola,
            }


# -- the match engine playing Cirulla -----------------------------------------------------


def all_but(excluded: str) -> str:
    """The codes of every card of the deck but ``excluded``'s."""
    left_out = set(excluded.split())
    return " ".join(card.code for card in DECK if card.code not in left_out)


def deck(first: str) -> list[Card]:
    """A deck that deals ``first`` (codes) before the rest: with 2 players and seat 1
    dealing, seat 0's three cards, then seat 1's, then the table's four (R3.5)."""
    front = [Card.parse(code) for code in first.split()]
    return front + [card for card in DECK if card not in front]


def new_match(first: str, rules: Rules | None = None, players: int = 2) -> tuple[Match, list[Any]]:
    return Match.new(
        variant="cirulla", players=players, deck=deck(first), first_dealer=players - 1,
        rules=rules, seed=1,
    )  # fmt: skip


class TestTheMatch:
    def test_a_declaration_puts_the_cards_face_up_and_the_turn_goes_on(self) -> None:
        """C3.1, C3.4, C10.2: at its first turn of the deal a seat may declare; the turn
        stays with it; its cards are face up until each is played; once is all."""
        match, _ = new_match("1D 3S 5C  10D 10S 9C  4B 6B 8B 9B")
        assert match.turn == 0
        assert match.legal_declarations() == [Declaration(BUONA)]
        (event,) = match.declare(0, BUONA)
        assert event == {
            "type": "declaration", "hand": 1, "seat": 0, "kind": "buona", "matta_as": None,
            "cards": ["1D", "3S", "5C"], "points": 3,
        }  # fmt: skip
        assert match.turn == 0 and match.legal_declarations() == []
        with pytest.raises(IllegalMoveError, match="declared already"):
            match.declare(0, BUONA)
        match.play(0, Card.parse("3S"))
        assert match.exposed[0] == cards("1D 5C")  # the 3S was played: face down no more
        view = match_view(match, 1)
        assert view["seats"][0]["exposed"] == ["1D", "5C"]  # public: seat 1 sees them

    def test_no_declaration_after_the_first_card_or_for_a_hand_that_makes_none(self) -> None:
        """C3.1, C3.4: a seat that plays without declaring loses the right for the deal;
        three cards worth more than 9 that are not three of a kind make none."""
        match, _ = new_match("1D 3S 5C  10D 10S 9C  4B 6B 8B 9B")
        match.play(0, Card.parse("3S"))
        assert match.legal_declarations() == []
        with pytest.raises(IllegalMoveError, match="make no declaration"):
            match.declare(1, BUONA)
        match.play(1, Card.parse("10D"))
        with pytest.raises(IllegalMoveError, match="first turn of a deal"):
            match.declare(0, BUONA)

    def test_the_matta_value_must_be_one_the_cards_allow(self) -> None:
        """C3.2: 7C 2D 3S: a buona with the 7C as 1 to 4, not 5."""
        match, _ = new_match("7C 2D 3S  10D 10S 9C  4B 6B 8B 9B")
        assert [d.matta_as for d in match.legal_declarations()] == [1, 2, 3, 4]
        with pytest.raises(IllegalMoveError, match="matta_as may be 1, 2, 3, 4"):
            match.declare(0, BUONA, 5)
        with pytest.raises(IllegalMoveError, match="make a buona"):
            match.declare(0, DeclarationKind.DECINO, 2)
        (event,) = match.declare(0, BUONA, 4)
        assert event["matta_as"] == 4

    def test_auto_declare_declares_for_the_seat_at_its_first_turn(self) -> None:
        """C3.5: the decino before the buona; the matta worth the most it can."""
        match, events = new_match("7C 2D 3S  2C 2S 2B  4B 6B 8B 9B", Rules(auto_declare=True))
        assert of_type(events, "declaration") == [
            {"type": "declaration", "hand": 1, "seat": 0, "kind": "buona", "matta_as": 4,
             "cards": ["2D", "3S", "7C"], "points": 3},
        ]  # fmt: skip
        _, after = match.play(0, Card.parse("2D"))
        assert [e["kind"] for e in of_type(after, "declaration")] == ["decino"]

    def test_two_aces_on_the_table_redeal(self) -> None:
        """C2.2: the same dealer deals again, and says why."""
        _, events = new_match("2D 3S 5C  10D 10S 9C  1B 1C 8B 9B")
        (redeal,) = of_type(events, "redeal")
        assert redeal["reason"] == "two or more aces on the table (C2.2)"
        assert redeal["table"] == ["1C", "1B", "8B", "9B"]

    def test_the_dealers_bonus_is_a_line_of_its_own(self) -> None:
        """C2.3, C7: a table of 15 with the 7C as 6 is the dealer's, 1 point in the
        dealer_bonus line (not a scopa), and the next seat plays to an empty table."""
        match, events = new_match("2D 3S 5C  10D 10S 9C  7C 2B 3C 4B")
        (bonus,) = of_type(events, "dealer_bonus")
        assert bonus == {
            "type": "dealer_bonus", "hand": 1, "seat": 1, "capture": ["2B", "3C", "4B", "7C"],
            "scopas": 1, "matta_as": 6,
        }  # fmt: skip
        assert match.table == [] and match.scopas == [0, 0]
        sides = match.score_current_piles()
        assert sides[1].points["dealer_bonus"] == 1 and sides[0].points["dealer_bonus"] == 0

    def test_each_move_says_its_capture_kind(self) -> None:
        """C4.4, C10.4."""
        match, _ = new_match("1D 3S 5C  10D 10S 9C  2B 6B 8B 9B")
        _, events = match.play(0, Card.parse("1D"))  # no ace on the table: the sweep
        assert events[0]["kind"] == "ace_sweep" and events[0]["scopa"] is True
        _, events = match.play(1, Card.parse("9C"))  # an empty table: laid
        assert events[0]["kind"] is None

    def test_the_hand_score_has_cirullas_lines(self) -> None:
        """C7: declarations, grande and piccola beside R7's lines."""
        match = position(
            ["", "9B"], "8C", variant="cirulla", turn=1,
            piles=[all_but("8C 9B 2C"), "2C"], last_capturer=0,
        )  # fmt: skip
        match.declared_points = [10, 3]
        _, events = match.play(1, Card.parse("9B"))
        (over,) = of_type(events, "hand_over")
        points = [team["points"] for team in over["score"]["teams"]]
        assert points[0]["grande"] == 5 and points[0]["piccola"] == 6
        assert points[0]["declarations"] == 10 and points[1]["declarations"] == 3

    def test_cappotto_wins_the_match_whatever_the_totals(self) -> None:
        """C7.4: all ten coins in one pile when the hand is scored: the match is won."""
        match = position(
            ["", "9B"], "8C", variant="cirulla", turn=1, scores=[0, 50],
            piles=[all_but("8C 9B 2C"), "2C"], last_capturer=0,
        )  # fmt: skip
        _, events = match.play(1, Card.parse("9B"))
        (over,) = of_type(events, "match_over")
        assert over["winner"] == 0 and over["reason"] == "cappotto"
        off = position(
            ["", "9B"], "8C", variant="cirulla", turn=1, scores=[0, 50],
            piles=[all_but("8C 9B 2C"), "2C"], last_capturer=0, rules=Rules(cappotto=False),
        )  # fmt: skip
        _, events = off.play(1, Card.parse("9B"))
        assert not of_type(events, "match_over") and off.status is Status.PLAYING

    @pytest.mark.parametrize("players", [2, 3, 4])
    def test_whole_matches_with_declarations_replay_exactly(self, players: int) -> None:
        """C1-C10: random play, declaring half the time it may, to the end; the log
        replays to the same match (every declaration legal again), and no view shows
        a card its viewer could not see: only declared, unplayed cards of others."""
        for seed in range(4):
            rng = random.Random(seed)
            match, events = Match.new(variant="cirulla", players=players, seed=seed)
            while match.status is Status.PLAYING:
                events += random_turn(match, rng)
                for viewer in range(players):
                    view = match_view(match, viewer)
                    for seat in view["seats"]:
                        if seat["seat"] != viewer:
                            shown = mask_of(Card.parse(c) for c in seat["exposed"])
                            assert shown == match.exposed[seat["seat"]]
            assert comparable(replay(events).to_dict()) == comparable(match.to_dict())
            assert of_type(events, "match_over")[0]["reason"] in ("target", "cappotto")


def test_computer_players_see_declared_cards_where_they_are() -> None:
    """C3.4: a seat's declared cards are public: every world the expert imagines puts
    them in that seat's hand, and deals only the unseen cards at random."""
    from service.bots.worlds import sample_world
    from service.engine.views import knowledge_of

    match, _ = new_match("1D 3S 5C  10D 10S 9C  4B 6B 8B 9B")
    match.declare(0, BUONA)
    match.play(0, Card.parse("3S"))
    knowledge = knowledge_of(match, 1)
    assert knowledge.exposed[0] == cards("1D 5C")
    assert not knowledge.unseen & cards("1D 5C")
    rng = random.Random(3)
    for _ in range(20):
        world = sample_world(knowledge, rng)
        assert world.hands[0] & cards("1D 5C") == cards("1D 5C")
        assert world.hands[0].bit_count() == 2


@pytest.mark.parametrize("level", ["random", "greedy", "expert"])
def test_computer_players_play_whole_matches(level: str) -> None:
    """Each level plays Cirulla to the end, 2 to 4 players, with auto_declare."""
    from service.bots import make_bot
    from service.engine.match import moves_of
    from service.engine.views import knowledge_of

    for players in (2, 3, 4):
        bot, rng = make_bot(level, 2), random.Random(players)
        match, events = Match.new(
            variant="cirulla", players=players, seed=players, rules=Rules(auto_declare=True)
        )
        while match.status is Status.PLAYING:
            assert match.turn is not None
            code = bot.choose(knowledge_of(match, match.turn), match.hand.legal_codes(), rng)
            events += match.push(moves_of([code])[0])
        assert comparable(replay(events).to_dict()) == comparable(match.to_dict())


class TestComputerPlayersDeclare:
    """C3: a computer seat declares at its first turn of a deal when it may: greedy and
    expert always (the best declaration, as C3.5 picks it), random half the time."""

    def test_greedy_and_expert_declare_the_best(self) -> None:
        from service.bots.declaring import choose_declaration

        offered = declarations(cards("7C 2D 3S"))
        rng = random.Random(1)
        for level in ("greedy", "expert"):
            assert choose_declaration(level, offered, rng) == Declaration(BUONA, 4)
        assert choose_declaration("greedy", [], rng) is None
        picks = {choose_declaration("random", offered, rng) for _ in range(200)}
        assert None in picks and len(picks) > 2  # sometimes not, and any of them

    def test_a_match_of_computer_players_declares_over_the_service_steps(self) -> None:
        """Through the play layer the service runs: computer seats declare as they play
        a whole match, and the log, declarations included, replays exactly."""
        from service.play import BotSettings, Setup, create

        created = create(
            Setup(variant="cirulla", bots=["greedy", "expert"], seed=5),
            BotSettings(time_limit_seconds=30, expert_budget_ms=2),
        )
        events = created.events
        assert created.game.playing.status is Status.FINISHED
        match_events = [e for e in events if e["type"] != "seat_joined"]
        assert of_type(match_events, "declaration"), "no seat ever declared"
        assert comparable(replay(match_events).to_dict()) == comparable(
            created.game.playing.to_dict()
        )


# -- option matta_keeps_value (C5.2) ---------------------------------------------------------

KEEPS = Rules(matta_keeps_value=True)


def kept_value(index: int, kept: int) -> int:
    """C5.2 written out plainly: the matta counts as ``kept`` (0: as a 7)."""
    return kept if kept and index == MATTA else VALUE[index]


def brute_captures(card: int, table: int, kept: int, fewest: bool) -> set[int]:
    """C4.1-C4.3, C4.6 by trying every set of table cards, the matta worth ``kept``."""
    value = kept_value(card, kept)
    on = list(indices(table))
    if value == 1 and all(kept_value(i, kept) != 1 for i in on):
        return {table} if table else set()  # C4.3
    matched = any(kept_value(i, kept) == value for i in on)
    found: set[int] = set()
    sums: list[int] = []
    for size in range(1, len(on) + 1):
        for combo in combinations(on, size):
            total = sum(kept_value(i, kept) for i in combo)
            mask = sum(1 << i for i in combo)
            if total == 15 - value or (size == 1 and total == value):
                found.add(mask)
            elif total == value and not matched:
                sums.append(mask)
    if fewest and sums:
        least = min(m.bit_count() for m in sums)
        sums = [m for m in sums if m.bit_count() == least]
    return found | set(sums)


def brute_moves(held: int, table: int, kept: int, fewest: bool) -> set[int]:
    """Every legal coded move (forced_capture "card"): each capture of each card, and a
    card that captures nothing laid."""
    moves: set[int] = set()
    for card in indices(held):
        found = brute_captures(card, table, kept, fewest)
        moves |= {m << 6 | card for m in found} if found else {card}
    return moves


def brute_kind(card: int, capture: int, table: int, kept: int) -> str | None:
    """C4.4 written out plainly, the matta worth ``kept``."""
    if not capture:
        return None
    value = kept_value(card, kept)
    if value == 1 and capture == table and all(kept_value(i, kept) != 1 for i in indices(table)):
        return "ace_sweep"
    total = sum(kept_value(i, kept) for i in indices(capture))
    if total == 15 - value:
        return "fifteen"
    return "match" if capture.bit_count() == 1 else "sum"


def takes(match: Match, card: str) -> list[str]:
    """What ``card`` may take now in ``match`` (the seat to play's legal moves)."""
    return sorted(
        " ".join(c.code for c in move.captured)
        for move in match.legal_moves()
        if move.card.code == card and move.capture
    )


def kept_position(
    hands: list[str], table: str, rules: Rules = KEEPS, matta_as: int = 0, **kwargs: Any
) -> Match:
    """A Cirulla position (seat 0 to play, seat 1 dealing), the matta keeping ``matta_as``
    (0: none) as a declaration earlier in the hand would have left it."""
    match = position(hands, table, variant="cirulla", rules=rules, **kwargs)
    match.hand.matta_as = matta_as
    return match


class TestTheMattaKeepsItsValue:
    """C5.2 (option `matta_keeps_value`): the value the 7C was declared as stays on it,
    in the hand and on the table, until it is captured."""

    def test_declared_as_4_it_captures_as_a_4(self) -> None:
        """C5.2: after the buona 7C 2S 3B with the 7C as 4, the 7C takes a 4, or cards
        adding up to 4 (a sum) or to 11 (by fifteen); played, it says which."""
        match = kept_position(["7C 2S 3B", "9C 10D 10S"], "4D 6S 10B")
        match.declare(0, BUONA, 4)
        assert match.hand.matta_as == 4 and match_view(match, 1)["matta_as"] == 4
        assert takes(match, "7C") == ["4D"]  # as a 7 it would take nothing here
        match = kept_position(["7C 2S 3B", "9C 10D 10S"], "1S 3C 5B 6B")
        match.declare(0, BUONA, 4)
        assert takes(match, "7C") == ["1S 3C", "5B 6B"]  # 4, and 11 by fifteen
        _, events = match.play(0, Card.parse("7C"), [Card.parse("5B"), Card.parse("6B")])
        assert events[0]["kind"] == "fifteen"
        assert match.hand.matta_as == 0  # captured (with the cards it took): it ends

    def test_the_capture_kinds_read_the_kept_value(self) -> None:
        """C5.2, C4.4: the kind of a capture by or of the matta counts it at its kept value."""

        def kind_kept(card: str, capture: str, table: str, kept: int) -> CaptureKind | None:
            index = Card.parse(card).index
            return capture_kind(index, cards(capture) if capture else 0, cards(table), kept)

        assert kind_kept("7C", "4D", "4D 6S 10B", 4) is CaptureKind.MATCH
        assert kind_kept("7C", "1S 3C", "1S 3C 5B 6B", 4) is CaptureKind.SUM
        assert kind_kept("7C", "5B 6B", "1S 3C 5B 6B", 4) is CaptureKind.FIFTEEN
        assert kind_kept("7C", "1S 6B", "1S 3C 5B 6B", 0) is CaptureKind.SUM  # a 7
        assert kind_kept("9C", "5B 7C", "2D 5B 7C 10S", 4) is CaptureKind.SUM
        assert kind_kept("9C", "2D 7C", "2D 5B 7C 10S", 4) is CaptureKind.FIFTEEN
        assert kind_kept("7C", "5D 6S 9B", "5D 6S 9B", 1) is CaptureKind.ACE_SWEEP
        assert kind_kept("1S", "7C", "5D 7C 9B", 1) is CaptureKind.MATCH
        assert kind_kept("1S", "5D 7C 9B", "5D 7C 9B", 0) is CaptureKind.ACE_SWEEP
        assert kind_kept("4D", "", "5D 7C 9B", 4) is None
        assert CIRULLA.capture_kind(Card.parse("1S").index, cards("7C"), cards("7C 5D"), 1) == (
            "match"
        )

    def test_laid_it_is_taken_as_a_4_and_a_7_no_longer_takes_it(self) -> None:
        """C5.2: on the table the 7C is a 4 for every capture: a 4 takes it alone, a 9
        takes it with a 5 (4 + 5, a sum) or with a 2 (4 + 2 + 9 = 15), and a 7 never
        takes it; once captured it keeps nothing more."""
        match = kept_position(["7C 2S 3B", "4S 7D 9C"], "2D 5B 10S")
        match.declare(0, BUONA, 4)
        assert takes(match, "7C") == []  # 4: no 4, no sum of 4, nothing adding up to 11
        _, events = match.play(0, Card.parse("7C"), [])
        assert events[0]["kind"] is None and match.hand.matta_as == 4
        assert match_view(match, None)["matta_as"] == 4  # public: spectators see it too
        assert takes(match, "4S") == ["2D 5B 7C", "7C"]  # a match, or 4 + 2 + 5 + 4 = 15
        assert takes(match, "7D") == ["2D 5B"]  # the sum of 7 only: 7C is no 7 any more
        assert takes(match, "9C") == ["2D 7C", "5B 7C"]
        _, events = match.play(1, Card.parse("9C"), [Card.parse("5B"), Card.parse("7C")])
        assert events[0]["kind"] == "sum"
        assert match.hand.matta_as == 0 and match_view(match, 0)["matta_as"] is None

    def test_on_the_table_it_counts_for_every_sum_and_fifteen(self) -> None:
        """C5.2: the 7C kept as 4 beside four real 4s is a fifth card of value 4: an 8
        takes any two of the five (as a 7, the 7C alone makes 15 with the 8, and only the
        real 4s pair up); a 6 takes it with a 5 (4 + 5 + 6 = 15)."""
        table = cards("4D 4C 4S 4B 7C")
        pairs = CIRULLA.capture_masks(Card.parse("8D").index, table, matta_as=4)
        assert sorted(pairs) == sorted(a | b for a, b in combinations(bits_of(table), 2))
        plain = CIRULLA.capture_masks(Card.parse("8D").index, table)  # a 7: the 8 makes 15
        assert sorted(plain) == sorted(
            [cards("7C")] + [a | b for a, b in combinations(bits_of(cards("4D 4C 4S 4B")), 2)]
        )
        six = Card.parse("6D").index
        assert CIRULLA.capture_masks(six, cards("5B 7C 10S"), matta_as=4) == [cards("5B 7C")]
        assert CIRULLA.capture_options(Card.parse("4S"), [Card.parse("7C")], matta_as=4) == [
            (Card.parse("7C"),)
        ]

    def test_declared_as_an_ace_it_sweeps_and_on_the_table_it_is_an_ace(self) -> None:
        """C5.2, C4.3: the 7C kept as an ace takes the whole table when no ace is on it
        (a scopa); on the table it is an ace, so an ace played then does not sweep: it
        takes the 7C by match, or cards adding up to 14."""
        match = kept_position(["7C 2S 3B", "1S 4D 8C"], "5D 6S 9B")
        match.declare(0, BUONA, 1)
        assert takes(match, "7C") == ["5D 6S 9B"]  # its only capture
        _, events = match.play(0, Card.parse("7C"), cards_list("5D 6S 9B"))
        assert events[0]["kind"] == "ace_sweep" and events[0]["scopa"] is True
        assert match.hand.matta_as == 0
        laid = kept_position(["1S 4D", "2S 3B"], "7C 5D 9B", matta_as=1)
        assert takes(laid, "1S") == ["5D 9B", "7C"]
        _, events = laid.play(0, Card.parse("1S"), cards_list("7C"))
        assert events[0]["kind"] == "match" and laid.hand.matta_as == 0
        plain = kept_position(["1S 4D", "2S 3B"], "7C 5D 9B")  # no value kept: a 7
        assert takes(plain, "1S") == ["5D 7C 9B"]
        with_ace = kept_position(["7C 2S", "3B 4D"], "1D 5D 9B", matta_as=1)
        assert takes(with_ace, "7C") == ["1D", "5D 9B"]  # an ace on the table: no sweep

    def test_fewest_cards_counts_it_at_its_kept_value(self) -> None:
        """C5.2, C4.6: an 8 on 7C (as 4) 1S 2D 2B 3C: no two cards make 8, so the sums of
        three stay (7C 1S 3C, 7C 2D 2B) and the sum of four goes."""
        rules = Rules(matta_keeps_value=True, fewest_cards=True)
        match = kept_position(["8D", "9C"], "7C 1S 2D 2B 3C", rules=rules, matta_as=4)
        found = takes(match, "8D")
        assert "1S 3C 7C" in found and "2D 2B 7C" in found and "1S 2D 2B 3C" not in found
        assert {cards(" ".join(f.split())) << 6 | Card.parse("8D").index for f in found} == (
            brute_moves(cards("8D"), cards("7C 1S 2D 2B 3C"), 4, fewest=True)
        )
        match.hand.matta_as = 0  # a 7: 7C 1S is a sum of two, the only one kept
        assert "1S 7C" in takes(match, "8D") and "1S 2D 2B 3C" not in takes(match, "8D")

    def test_the_primiera_still_counts_it_21(self) -> None:
        """C5.2: kept as 2, the 7C takes the 2D; in the pile it is still the 7 of cups,
        21 for cups: 16 + 21 + 16 + 16 = 69 beats 63 (as a 2 it would make 60)."""
        match = kept_position(
            ["7C", "9B"], "2D", matta_as=2, piles=["1D 1S 1B", "6C 5D 5S 5B"], last_capturer=1
        )
        assert takes(match, "7C") == ["2D"]
        match.play(0, Card.parse("7C"), cards_list("2D"))
        _, events = match.play(1, Card.parse("9B"))
        (over,) = of_type(events, "hand_over")
        primiera = [team["points"]["primiera"] for team in over["score"]["teams"]]
        assert primiera == [1, 0]

    def test_it_ends_at_the_end_of_the_hand(self) -> None:
        """C5.2: left on the table, the 7C keeps its value to the end of the hand, then
        goes with the remainder; the next hand starts with none."""
        match = kept_position(["2S", "3B"], "7C 10D", matta_as=4)
        match.play(0, Card.parse("2S"))  # 2: nothing to take (4 + 10 = 14, not 13)
        assert match.hand.matta_as == 4
        _, events = match.play(1, Card.parse("3B"), cards_list("2S 10D"))
        assert of_type(events, "hand_over") and match.hand_number == 2
        assert match.hand.matta_as == 0 and match_view(match, 0)["matta_as"] is None

    def test_without_the_option_the_matta_is_a_seven(self) -> None:
        """C5.1: the declaration gives it a value for the declaration only."""
        match = kept_position(["7C 2S 3B", "9C 10D 10S"], "1S 3C 5B 6B", rules=Rules())
        match.declare(0, BUONA, 4)
        assert match.hand.matta_as == 0 and takes(match, "7C") == ["1S 6B", "3C 5B"]
        assert "matta_as" not in match_view(match, 0) and "matta_as" not in match.to_dict()
        assert knowledge_of(match, 0).matta_as is None

    def test_a_dealers_bonus_never_sets_it(self) -> None:
        """C5.2, C2.3: the 7C counted as 6 for the dealer's 15 keeps nothing."""
        match, events = new_match("2D 3S 5C  10D 10S 9C  7C 2B 3C 4B", KEEPS)
        assert of_type(events, "dealer_bonus")[0]["matta_as"] == 6
        assert match.hand.matta_as == 0 and match_view(match, 0)["matta_as"] is None

    def test_auto_declare_sets_it(self) -> None:
        """C5.2, C3.5: a declaration the service makes keeps the value it gave."""
        rules = Rules(matta_keeps_value=True, auto_declare=True)
        match, _ = new_match("7C 2D 3S  2C 2S 2B  4B 6B 8B 9B", rules)
        assert match.hand.matta_as == 4 and takes(match, "7C") == ["4B"]  # as a 7: the 8B
        assert match_view(match, 1)["matta_as"] == 4

    def test_it_is_stored_and_read_back(self) -> None:
        """C5.2: Match.to_dict keeps the value, from_dict gives it back; a match stored
        before the option existed has none."""
        match = kept_position(["7C 2S 3B", "4S 7D 9C"], "2D 5B 10S")
        match.declare(0, BUONA, 4)
        match.play(0, Card.parse("7C"), [])
        stored = match.to_dict()
        assert stored["matta_as"] == 4
        again = Match.from_dict(stored)
        assert again.hand.matta_as == 4 and again.hand.legal_codes() == match.hand.legal_codes()
        assert again.to_dict() == stored
        del stored["matta_as"]
        assert Match.from_dict(stored).hand.matta_as == 0

    def test_what_a_seat_knows_and_the_worlds_it_imagines_keep_it(self) -> None:
        """C5.2: the kept value is public (the declaration showed it): the knowledge of
        every seat holds it, and so do the positions the computer players build."""
        from service.bots.worlds import sample_world

        match = kept_position(["7C 2S 3B", "4S 7D 9C"], "2D 5B 10S")
        match.declare(0, BUONA, 4)
        match.play(0, Card.parse("7C"), [])
        knowledge = knowledge_of(match, 1)
        assert knowledge.matta_as == 4
        known = Hand.from_knowledge(knowledge)
        assert known.matta_as == 4 and known.legal_codes() == match.hand.legal_codes()
        assert known.copy().matta_as == 4
        world = sample_world(knowledge, random.Random(1))
        assert world.matta_as == 4 and sorted(world.legal_codes()) == sorted(
            match.hand.legal_codes()
        )

    def test_positions_from_outside_a_match_take_it(self) -> None:
        """C5.2: the legal moves of a hand on a table, and a hint's knowledge, may say
        what the 7C keeps."""
        from service.engine import legal_moves_in
        from service.engine.views import position_knowledge

        def moves(matta_as: int | None) -> list[tuple[str, list[str]]]:
            found = legal_moves_in(
                CIRULLA, KEEPS, cards_list("7C 9B"), cards_list("4D 6S"), matta_as
            )
            return sorted((m.card.code, [c.code for c in m.captured]) for m in found)

        assert moves(4) == [("7C", ["4D"]), ("9B", ["6S"])]
        assert moves(None) == [("7C", []), ("9B", ["6S"])]  # a 7: nothing to take
        knowledge = position_knowledge(
            CIRULLA, KEEPS, seat=0, players=2, dealer=1, hand=cards_list("7C 9B"),
            table=cards_list("4D 6S"), piles=[[], []], scopas=[0, 0], hand_counts=[2, 3],
            last_capturer=None, matta_as=4,
        )  # fmt: skip
        assert knowledge.matta_as == 4
        assert moves_of(Hand.from_knowledge(knowledge).legal_codes())[0].captured == (
            cards_list("4D")
        )

    @pytest.mark.parametrize("players", [2, 3, 4])
    def test_whole_matches_play_by_the_kept_value_and_replay_exactly(self, players: int) -> None:
        """C5.2, C4: random play with random declarations (so random kept values), half
        the matches with `fewest_cards`: at every turn the legal moves are exactly those
        that trying every set of table cards gives with the matta at its kept value, and
        each move's kind too; the log replays to the same match."""
        kept_turns = 0
        for seed in range(6):
            rules = Rules(matta_keeps_value=True, fewest_cards=bool(seed % 2))
            rng = random.Random(seed)
            match, events = Match.new(variant="cirulla", players=players, seed=seed, rules=rules)
            while match.status is Status.PLAYING:
                offered = match.legal_declarations()
                if offered and match.turn is not None and rng.random() < 0.9:
                    chosen = rng.choice(offered)
                    events += match.declare(match.turn, chosen.kind, chosen.matta_as)
                hand = match.hand
                assert hand.turn is not None
                kept, table, held = hand.matta_as, hand.table, hand.hands[hand.turn]
                assert not kept or not any(pile & BIT_MATTA for pile in hand.piles)
                if kept and (table | held) & BIT_MATTA:
                    kept_turns += 1
                legal = hand.legal_codes()
                assert sorted(legal) == sorted(brute_moves(held, table, kept, rules.fewest_cards))
                code = rng.choice(legal)
                produced = match.push(moves_of([code])[0])
                assert produced[0]["kind"] == brute_kind(code & 63, code >> 6, table, kept)
                assert match_view(match, 0)["matta_as"] == (match.hand.matta_as or None)
                events += produced
            assert comparable(replay(events).to_dict()) == comparable(match.to_dict())
        assert kept_turns  # the matta played at its kept value (more: the test below)

    @pytest.mark.parametrize("fewest", [False, True])
    def test_random_positions_capture_by_the_kept_value(self, fewest: bool) -> None:
        """C5.2, C4: random tables and hands, the matta on the table or in the hand and
        keeping a random value: the legal moves are those that trying every set of table
        cards gives, and each capture's kind is the plain reading of C4.4."""
        rng = random.Random(fewest)
        rules = Rules(matta_keeps_value=True, fewest_cards=fewest)
        deck = [i for i in range(40) if i != MATTA]
        for trial in range(1500):
            rng.shuffle(deck)
            on_table = rng.randrange(9)
            table = sum(BIT[i] for i in deck[:on_table])
            held = sum(BIT[i] for i in deck[on_table : on_table + rng.randrange(1, 4)])
            if trial % 2:
                table |= BIT_MATTA
            else:
                held |= BIT_MATTA
            kept = rng.randrange(1, 11)
            hand = Hand(CIRULLA, rules, hands=[held, 0], table=table, matta_as=kept)
            legal = hand.legal_codes()
            assert sorted(legal) == sorted(brute_moves(held, table, kept, fewest))
            for code in legal:
                found = CIRULLA.capture_kind(code & 63, code >> 6, table, kept)
                assert found == brute_kind(code & 63, code >> 6, table, kept)


@pytest.mark.parametrize("level", ["greedy", "expert"])
def test_computer_players_play_with_the_kept_value(level: str) -> None:
    """C5.2: the greedy and expert players play whole matches with the option (every
    declaration made, so the matta keeps a value in most hands); the logs replay."""
    from service.bots import make_bot

    kept_turns = 0
    for players in (2, 4):
        bot, rng = make_bot(level, 2), random.Random(players)
        rules = Rules(auto_declare=True, matta_keeps_value=True)
        match, events = Match.new(variant="cirulla", players=players, seed=players, rules=rules)
        while match.status is Status.PLAYING:
            assert match.turn is not None
            kept_turns += bool(match.hand.matta_as)
            legal = match.hand.legal_codes()
            code = bot.choose(knowledge_of(match, match.turn), legal, rng)
            assert code in legal
            events += match.push(moves_of([code])[0])
        assert comparable(replay(events).to_dict()) == comparable(match.to_dict())
    assert kept_turns > 0


def test_the_fast_greedy_policy_is_the_greedy_bot_with_the_kept_value() -> None:
    """C5.2: the expert's playouts model the greedy player exactly when the matta keeps
    a value too (which tables laying a card leaves sweepable reads it)."""
    from service.bots.greedy import GreedyBot
    from service.bots.playout import greedy_code, greedy_ranking, sweepable_cache

    greedy, rng = GreedyBot(), random.Random(11)
    rules = Rules(auto_declare=True, matta_keeps_value=True)
    checked = 0
    for seed in range(8):
        match, _ = Match.new(variant="cirulla", players=2 + seed % 3, seed=seed, rules=rules)
        cache = sweepable_cache(match.variant)
        while match.status is Status.PLAYING and match.hand_number < 5:
            seat = match.turn
            assert seat is not None
            legal = match.hand.legal_codes()
            if match.hand.matta_as:
                expected = greedy.choose(knowledge_of(match, seat), legal, rng)
                assert greedy_code(match.hand, legal, cache) == expected
                assert greedy_ranking(match.hand, legal, cache)[0] == expected
                checked += 1
            match.push(moves_of([rng.choice(legal)])[0])
    assert checked > 20
