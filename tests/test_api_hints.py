"""Hints: the expert's move for the seat to play, and for a position given in the body."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.engine import DECK
from tests.helpers import Table


@pytest.fixture
def quick(make_app: Callable[..., Flask], redis_url: str) -> FlaskClient:
    """The app with a small expert budget, so the tests stay quick."""
    return make_app(REDIS_URL=redis_url, EXPERT_BUDGET_MS=5).test_client()


class TestGameHint:
    def test_the_seat_to_play_gets_one_of_its_legal_moves(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=21)
        turn = table.view()["turn"]
        response = quick.get(table.url("/hint"), headers=table.auth(turn))
        assert response.status_code == 200
        hint = response.get_json()
        assert hint["seat"] == turn
        assert hint["move"] in table.legal_moves(turn)
        assert hint["value"] is None or isinstance(hint["value"], float)
        played = table.move(turn, hint["move"]["card"], hint["move"]["capture"])
        assert played.status_code == 200

    def test_not_your_turn_is_a_conflict(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=21)
        other = 1 - table.view()["turn"]
        response = quick.get(table.url("/hint"), headers=table.auth(other))
        assert response.status_code == 409
        assert response.get_json()["type"] == "/problems/not-your-turn"

    def test_it_needs_a_seat_token_and_a_game(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=21)
        assert quick.get(table.url("/hint")).status_code == 401
        assert quick.get("/v1/games/nope/hint", headers=table.auth(0)).status_code == 404

    def test_a_finished_match_has_no_hint(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=2, seats=[{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}])
        assert table.view()["status"] == "finished"
        # Bot seats have no tokens: a finished match of people is reached the long way.
        people = Table(quick)
        people.create(seed=5, target=1)
        people.play_to_end(random.Random(1))
        assert quick.get(people.url("/hint"), headers=people.auth(0)).status_code == 409


class TestPositionHint:
    def test_it_takes_the_obvious_scopa(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """R5: 7D takes 3C and 4B and clears the table; nothing else comes close. (With
        the default budget: a tiny one lets the wall-clock cap, under a loaded machine,
        stop the search after a world or two, where anything can look best.)"""
        quick = make_app(REDIS_URL=redis_url).test_client()
        body = {
            "hand": ["7D", "2S", "10B"],
            "table": ["3C", "4B"],
            "piles": [["1C", "1B"], []],  # so that 30 cards are left to deal
        }
        response = quick.post("/v1/hint", json=body)
        assert response.status_code == 200
        hint = response.get_json()
        assert hint["move"] == {"card": "7D", "capture": ["3C", "4B"], "sweep": True}
        assert hint["value"] > 0

    def test_a_single_legal_move_has_no_estimate(self, quick: FlaskClient) -> None:
        body = {"hand": ["7D"], "table": ["3C", "4B"], "hand_counts": [1, 1]}
        response = quick.post("/v1/hint", json=body)
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["value"] is None

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"hand": ["7D"], "table": ["7D"]}, "table"),
            ({"hand": ["7D"], "piles": [["7D"], []]}, "piles"),
            ({"hand": ["7D"], "piles": [[]]}, "piles"),
            ({"hand": ["7D"], "hand_counts": [2, 3]}, "hand_counts"),
            ({"hand": ["7D"], "hand_counts": [1, 40]}, "hand_counts"),
            ({"hand": ["7D", "2S", "10B"], "table": ["3C", "4B"]}, "hand_counts"),
            ({"hand": ["7D"], "seat": 3}, "seat"),
            ({"hand": ["1D", "2D", "3D", "4D"]}, "hand"),
            ({"variant": "scopone", "players": 2, "hand": ["7D"]}, "players"),
            ({"hand": ["7D"], "rules": {"dealer_last_sweep": True}}, "rules"),
        ],
    )
    def test_an_inconsistent_position_is_refused(
        self, quick: FlaskClient, body: dict[str, object], field: str
    ) -> None:
        response = quick.post("/v1/hint", json=body)
        assert response.status_code == 422
        assert field in response.get_json()["errors"]


def adding_up(body: dict[str, Any], stock: int = 0) -> dict[str, Any]:
    """``body`` (2 players) with seat 0's pile holding every card it leaves out but the
    other hands' and ``stock`` more, so that the cards add up."""
    used = set(body["hand"]) | set(body.get("table", []))
    free = [card.code for card in DECK if card.code not in used]
    kept = sum(body["hand_counts"]) - len(body["hand"]) + stock
    return {**body, "piles": [free[: len(free) - kept], []]}


class TestTurnOrder:
    """R2.4, R3.1: every round is played from the seat after the dealer, one card a
    seat, so the seats that played before the seat to play hold one card fewer than it
    and the others as many. Other hand counts describe no position play can reach."""

    @pytest.mark.parametrize(
        ("hand", "hand_counts", "stock"),
        [
            # Seat 1 would still hold cards when seat 0 has none left to play: these
            # made the search push a move of no card, a 500.
            (["7D", "2S"], [2, 3], 6),
            (["7D", "2S"], [2, 0], 6),
            # And these, with nothing hidden, an infinite value (null) from the solver.
            (["7D", "2S", "10B"], [3, 1], 0),
            (["7D"], [1, 3], 0),
        ],
    )
    def test_counts_no_play_leads_to_are_refused(
        self, quick: FlaskClient, hand: list[str], hand_counts: list[int], stock: int
    ) -> None:
        body = adding_up({"hand": hand, "table": ["3C", "4B"], "hand_counts": hand_counts}, stock)
        response = quick.post("/v1/hint", json=body)
        assert response.status_code == 422, response.get_json()
        assert "R3.1" in response.get_json()["errors"]["hand_counts"][0]

    def test_counts_that_fit_another_dealer_say_which(self, quick: FlaskClient) -> None:
        """Seat 1 holding a card fewer has played first this round: seat 0 dealt."""
        body = adding_up({"hand": ["7D", "2S"], "table": ["3C", "4B"], "hand_counts": [2, 1]})
        refused = quick.post("/v1/hint", json=body)  # the dealer by default: seat 1
        assert refused.status_code == 422
        assert "fit seat 0 as the dealer" in refused.get_json()["errors"]["hand_counts"][0]
        answered = quick.post("/v1/hint", json={**body, "dealer": 0})
        assert answered.status_code == 200, answered.get_json()
        assert answered.get_json()["value"] is not None

    @pytest.mark.parametrize(
        ("seat", "dealer", "hand_counts"),
        [(2, 3, [0, 0, 1, 1]), (0, 3, [1, 1, 1, 1]), (3, 3, [0, 0, 0, 1]), (1, 2, [0, 1, 1, 0])],
    )
    def test_a_round_in_progress_is_a_position(
        self, quick: FlaskClient, seat: int, dealer: int, hand_counts: list[int]
    ) -> None:
        """Four players in their last round, each seat having played in turn."""
        body = {
            "variant": "scopone",
            "players": 4,
            "seat": seat,
            "dealer": dealer,
            "hand": ["7D"],
            "table": ["3C", "4B"],
            "hand_counts": hand_counts,
        }
        used = {"7D", "3C", "4B"}
        free = [card.code for card in DECK if card.code not in used]
        body["piles"] = [free[: len(free) - sum(hand_counts) + 1], [], [], []]
        response = quick.post("/v1/hint", json=body)
        assert response.status_code == 200, response.get_json()
