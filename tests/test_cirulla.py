"""Cirulla's rules on masks (docs/rules.md, the Cirulla part C1-C10): the redeal, the
dealer's bonus and the matta, the three kinds of capture, the declarations, and the
score lines beyond Scopa's. The match engine plays them once the variant is wired in
(issue 14); these are the rules it will ask."""

from __future__ import annotations

import pytest

from service.engine import Card
from service.engine.masks import cards_of, mask_of
from service.engine.variants import VARIANTS
from service.engine.variants.cirulla import (
    CaptureKind,
    Cirulla,
    Declaration,
    DeclarationKind,
    TableBonus,
    auto_declaration,
    bonus_lines,
    capture_kind,
    declarations,
    fewest_cards,
    table_bonus,
)

CIRULLA = Cirulla()
BUONA, DECINO = DeclarationKind.BUONA, DeclarationKind.DECINO


def cards(codes: str) -> int:
    return mask_of(Card.parse(code) for code in codes.split())


def captures(card: str, table: str) -> list[str]:
    """What ``card`` may take from ``table``: each option's codes, sorted."""
    options = CIRULLA.capture_options(Card.parse(card), [Card.parse(c) for c in table.split()])
    return sorted(" ".join(c.code for c in option) for option in options)


def kind(card: str, capture: str, table: str) -> CaptureKind | None:
    return capture_kind(Card.parse(card).index, cards(capture) if capture else 0, cards(table))


def test_it_is_not_playable_until_wired_in() -> None:
    """Being built: no match can be made with it yet (issue 14)."""
    assert "cirulla" not in VARIANTS
    assert CIRULLA.player_counts == (2, 3, 4) and CIRULLA.default_target == 51  # C1.2, C8.1


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
        assert CIRULLA.dealer_bonus(cards("1D 2S 5C 7B")) == 1

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
        assert auto_declaration(cards("7C 2D 3S")) == Declaration(BUONA, 4)
        assert auto_declaration(cards("7C 2D 2S")) == Declaration(DECINO, 2)
        assert auto_declaration(cards("1D 2S 3C")) == Declaration(BUONA)
        assert auto_declaration(cards("10D 9S 8C")) is None

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
