"""The stateless endpoints: legal moves in a position and the score of a hand, for
positions given in the body (docs/rules.md R4, R5, R7, R9). Nothing is stored."""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from tests.helpers import Table

PROBLEM = "application/problem+json"
ALL_CARDS = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]


def legal_moves(client: FlaskClient, **body: Any) -> list[dict[str, Any]]:
    response = client.post("/v1/legal-moves", json=body)
    assert response.status_code == 200, response.get_json()
    moves: list[dict[str, Any]] = response.get_json()["moves"]
    return moves


def as_set(moves: list[dict[str, Any]]) -> set[tuple[str, tuple[str, ...], bool]]:
    return {(m["card"], tuple(sorted(m["capture"])), m["sweep"]) for m in moves}


def score(client: FlaskClient, **body: Any) -> list[dict[str, Any]]:
    response = client.post("/v1/score", json=body)
    assert response.status_code == 200, response.get_json()
    teams: list[dict[str, Any]] = response.get_json()["teams"]
    return teams


class TestLegalMoves:
    #: A worst case: Cirulla, the four kings, the 9D and an ace in hand, the other 34
    #: cards on the table: each king takes any of the thousands of sets that make 10.
    WORST = {
        "variant": "cirulla",
        "hand": ["1D", "10D", "10S", "10C", "10B", "9D"],
        "table": [c for c in ALL_CARDS if c not in {"1D", "10D", "10S", "10C", "10B", "9D"}],
    }

    def test_a_huge_list_is_cut_to_the_limit(self, client: FlaskClient) -> None:
        """At most 1,000 moves by default (the first in listing order, as the engine
        lists them all), with `truncated` and `total`: the answer stays under 100 KB."""
        from service.engine import get_variant, legal_moves_in, move_view, parse_cards
        from service.engine.rules import Rules

        hand, table = parse_cards(self.WORST["hand"]), parse_cards(self.WORST["table"])
        every = [
            move_view(m, table)
            for m in legal_moves_in(get_variant("cirulla"), Rules.from_dict({}), hand, table)
        ]
        assert len(every) > 10_000
        response = client.post("/v1/legal-moves", json=self.WORST)
        assert response.status_code == 200
        answer = response.get_json()
        assert answer["truncated"] is True and answer["total"] == len(every)
        assert answer["moves"] == every[:1000]
        assert len(response.data) < 100_000
        fewer = client.post("/v1/legal-moves?limit=7", json=self.WORST).get_json()
        assert fewer["moves"] == every[:7] and fewer["truncated"] is True
        # A short list is whole.
        small = client.post("/v1/legal-moves?limit=1", json={"hand": ["6S"]}).get_json()
        assert small["truncated"] is False and small["total"] == 1 and len(small["moves"]) == 1

    @pytest.mark.parametrize("limit", ["0", "1001", "x", "1.5"])
    def test_a_limit_out_of_range_is_refused(self, client: FlaskClient, limit: str) -> None:
        response = client.post(f"/v1/legal-moves?limit={limit}", json={"hand": ["6S"]})
        assert response.status_code == 422 and response.mimetype == PROBLEM
        assert "limit" in response.get_json()["errors"]

    def test_the_seeds_example_a_single_match_before_a_sum(self, client: FlaskClient) -> None:
        """Seeds 000/003: table 2 of clubs, 4 of cups, 6 of coins; a 6 of swords takes
        only the 6 (R4.1). Without the 6 it takes 2+4 and clears the table: a scopa."""
        moves = legal_moves(client, hand=["6S"], table=["2B", "4C", "6D"])
        assert moves == [{"card": "6S", "capture": ["6D"], "sweep": False}]
        moves = legal_moves(client, hand=["6S"], table=["2B", "4C"])
        assert moves == [{"card": "6S", "capture": ["2B", "4C"], "sweep": True}]

    def test_every_sum_is_a_choice(self, client: FlaskClient) -> None:
        moves = legal_moves(client, hand=["7D", "1B"], table=["3C", "4B", "2S", "5C"])
        assert as_set(moves) == {
            ("7D", ("3C", "4B"), False),
            ("7D", ("2S", "5C"), False),
            ("1B", (), False),  # an ace captures nothing here and may be laid (R4.3)
        }

    def test_a_three_card_sum_and_the_sweep_flag(self, client: FlaskClient) -> None:
        moves = legal_moves(client, hand=["10D"], table=["1C", "2S", "7B", "3D"])
        assert as_set(moves) == {
            ("10D", ("3D", "7B"), False),
            ("10D", ("1C", "2S", "7B"), False),
        }
        moves = legal_moves(client, hand=["9C"], table=["1C", "2S", "6B"])
        assert as_set(moves) == {("9C", ("1C", "2S", "6B"), True)}

    def test_equal_cards_on_the_table_are_separate_choices(self, client: FlaskClient) -> None:
        moves = legal_moves(client, hand=["5D"], table=["5C", "5S", "2B", "3B"])
        assert as_set(moves) == {("5D", ("5C",), False), ("5D", ("5S",), False)}

    def test_a_card_that_can_capture_must_but_another_may_be_laid(
        self, client: FlaskClient
    ) -> None:
        body = {"hand": ["6S", "9B", "1D"], "table": ["6D", "3C"]}
        assert as_set(legal_moves(client, **body)) == {
            ("6S", ("6D",), False),
            ("9B", ("3C", "6D"), True),
            ("1D", (), False),
        }
        # forced_capture "any": with a capture in hand, nothing may be laid.
        moves = legal_moves(client, **body, rules={"forced_capture": "any"})
        assert as_set(moves) == {("6S", ("6D",), False), ("9B", ("3C", "6D"), True)}

    def test_forced_capture_any_when_nothing_can_capture(self, client: FlaskClient) -> None:
        body = {"hand": ["1B", "2B"], "table": ["10C"], "rules": {"forced_capture": "any"}}
        assert as_set(legal_moves(client, **body)) == {("1B", (), False), ("2B", (), False)}

    def test_an_empty_table(self, client: FlaskClient) -> None:
        moves = legal_moves(client, hand=["7D", "10B"])
        assert as_set(moves) == {("7D", (), False), ("10B", (), False)}

    def test_it_agrees_with_a_stored_game(self, table: Table) -> None:
        """For each position of a real match, the stateless answer is the seat's own."""
        table.create(seed=99, rules={"forced_capture": "any"})
        rng = random.Random(99)
        for _ in range(20):
            turn = table.view()["turn"]
            view = table.view(turn)
            stateless = legal_moves(
                table.client, hand=view["hand"], table=view["table"], rules=view["rules"]
            )
            seat_moves = table.legal_moves(turn)
            assert as_set(stateless) == as_set(seat_moves)
            move = rng.choice(seat_moves)
            assert table.move(turn, move["card"], move["capture"]).status_code == 200


class TestScore:
    def test_settebello_and_a_missing_suit(self, client: FlaskClient) -> None:
        teams = score(
            client,
            piles=[["7D", "7C", "7S", "6B", "1D", "2D"], ["3D", "5C", "4S", "10D"]],
            scopas=[1, 2],
        )
        first, second = teams
        assert first == {
            "team": 0,
            "captured": ["1D", "2D", "6B", "7D", "7C", "7S"],
            "cards": 6,
            "coins": 3,
            "settebello": True,
            "primiera": 21 + 21 + 21 + 18,
            "scopas": 1,
            "points": {"cards": 1, "coins": 1, "settebello": 1, "primiera": 1, "scopas": 1},
            "total": 5,
        }
        assert second["primiera"] is None  # no clubs (R7)
        assert second["settebello"] is False
        assert second["points"] == {
            "cards": 0,
            "coins": 0,
            "settebello": 0,
            "primiera": 0,
            "scopas": 2,
        }
        assert second["total"] == 2

    def test_ties_score_nobody_and_the_best_primiera_wins(self, client: FlaskClient) -> None:
        teams = score(client, piles=[["7D", "6C", "1S", "5B"], ["7C", "7S", "7B", "2D"]])
        assert [t["primiera"] for t in teams] == [21 + 18 + 16 + 15, 21 + 21 + 21 + 12]
        assert [t["points"] for t in teams] == [
            {"cards": 0, "coins": 0, "settebello": 1, "primiera": 0, "scopas": 0},
            {"cards": 0, "coins": 0, "settebello": 0, "primiera": 1, "scopas": 0},
        ]
        assert [t["scopas"] for t in teams] == [0, 0]

    def test_equal_primiera_is_a_tie(self, client: FlaskClient) -> None:
        teams = score(client, piles=[["7D", "7C", "7S", "7B"], ["6D", "6C", "6S", "6B", "1D"]])
        assert [t["primiera"] for t in teams] == [84, 18 * 4]  # the 6 of coins beats its ace
        teams = score(client, piles=[["7D", "6C", "7S", "6B"], ["6D", "7C", "6S", "7B"]])
        assert [t["primiera"] for t in teams] == [78, 78]
        assert [t["points"]["primiera"] for t in teams] == [0, 0]

    def test_three_sides_need_a_strict_single_maximum(self, client: FlaskClient) -> None:
        teams = score(client, piles=[["1C", "2C", "3C"], ["4C", "5C", "6C"], ["1D"]])
        assert [t["points"]["cards"] for t in teams] == [0, 0, 0]
        assert [t["points"]["coins"] for t in teams] == [0, 0, 1]
        assert [t["team"] for t in teams] == [0, 1, 2]

    def test_the_options_re_bello_and_napola(self, client: FlaskClient) -> None:
        rules = {"re_bello": True, "napola": True}
        teams = score(
            client, piles=[["1D", "2D", "3D", "4D", "6D"], ["10D", "5D", "7C"]], rules=rules
        )
        assert teams[0]["points"]["napola"] == 4  # A-2-3-4 of coins; the 5 is elsewhere
        assert teams[0]["points"]["re_bello"] == 0
        assert teams[1]["points"]["napola"] == 0
        assert teams[1]["points"]["re_bello"] == 1
        assert [t["total"] for t in teams] == [1 + 1 + 4, 1]  # cards, coins, napola; re bello
        # Off by default: the categories are not even listed.
        plain = score(client, piles=[["1D", "2D", "3D", "4D", "6D"], ["10D", "5D", "7C"]])
        assert "napola" not in plain[0]["points"] and "re_bello" not in plain[1]["points"]

    def test_scoring_stores_nothing(self, client: FlaskClient, redis_url: str) -> None:
        score(client, piles=[["7D"], ["1C"]])
        legal_moves(client, hand=["7D"])
        with redis.Redis.from_url(redis_url) as store:
            assert store.dbsize() == 0


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/legal-moves", {"hand": ["XX"]}, "hand"),
        ("/v1/legal-moves", {"hand": ["6S"], "table": ["11D"]}, "table"),
        ("/v1/legal-moves", {"hand": ["6S", "6S"]}, "hand"),
        ("/v1/legal-moves", {"hand": ["6S"], "table": ["2B", "2B"]}, "table"),
        ("/v1/legal-moves", {"hand": ["6S", "4C"], "table": ["4C"]}, "table"),
        ("/v1/legal-moves", {"hand": []}, "hand"),
        ("/v1/legal-moves", {"table": ["6D"]}, "hand"),
        ("/v1/legal-moves", {"hand": ALL_CARDS[:11]}, "hand"),
        ("/v1/legal-moves", {"hand": ["1D"], "table": ALL_CARDS[3:40]}, "table"),
        ("/v1/legal-moves", {"hand": ["6S"], "variant": "briscola"}, "variant"),
        ("/v1/legal-moves", {"hand": ["6S"], "rules": {"forced_capture": "some"}}, "rules"),
        ("/v1/legal-moves", {"hand": ["6S"], "rules": {"napoli": True}}, "rules"),
        ("/v1/legal-moves", {"hand": ["6S"], "seat": 0}, "seat"),
        ("/v1/score", {}, "piles"),
        ("/v1/score", {"piles": [["7D"]]}, "piles"),
        ("/v1/score", {"piles": [[], [], [], []]}, "piles"),
        ("/v1/score", {"piles": [["7D"], ["7X"]]}, "piles"),
        ("/v1/score", {"piles": [["7D"], ["1C", "7D"]]}, "piles"),
        ("/v1/score", {"piles": [["7D", "7D"], []]}, "piles"),
        ("/v1/score", {"piles": [["7D"], []], "scopas": [1]}, "scopas"),
        ("/v1/score", {"piles": [["7D"], []], "scopas": [1, 2, 3]}, "scopas"),
        ("/v1/score", {"piles": [["7D"], []], "scopas": [-1, 0]}, "scopas"),
        ("/v1/score", {"piles": [["7D"], []], "scopas": [41, 0]}, "scopas"),
        ("/v1/score", {"piles": [["7D"], []], "teams": 2}, "teams"),
    ],
)
def test_bad_positions_name_the_field(
    client: FlaskClient, path: str, body: dict[str, Any], field: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422
    assert response.mimetype == PROBLEM
    problem = response.get_json(force=True)
    assert problem["type"] == "/problems/validation"
    assert problem["status"] == 422 and problem["title"]
    assert list(problem["errors"]) == [field]
    assert field in problem["detail"]


def test_a_card_in_both_hand_and_table_is_named(client: FlaskClient) -> None:
    response = client.post("/v1/legal-moves", json={"hand": ["6S", "4C"], "table": ["4C"]})
    assert response.get_json(force=True)["errors"] == {
        "table": ["4C appears in both hand and table."]
    }
    response = client.post("/v1/score", json={"piles": [["7D"], ["1C", "7D"]]})
    assert response.get_json(force=True)["errors"] == {"piles": ["7D appears twice."]}
