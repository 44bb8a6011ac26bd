"""Hints: the expert's move for the seat to play, and for a position given in the body."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient

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
