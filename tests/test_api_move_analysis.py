"""The analysis of every move: ``GET /v1/games/{id}/analysis`` for the seat to play and
``POST /v1/analysis`` for a position, and :func:`service.bots.analysis.analyse` under
them (the expert's estimate of every legal move, best first)."""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.api.resources.hints import routes
from service.bots.advice import advise
from service.bots.analysis import EXACT, SAMPLED, Analysis, analyse
from service.bots.expert import is_determined, solve
from service.bots.worlds import sample_world
from service.engine import DECK, Rules, get_variant, parse_cards
from service.engine.hand import Hand
from service.engine.masks import BIT, indices
from service.engine.views import knowledge_of, position_knowledge
from service.play import keys
from tests.helpers import Table, position
from tests.test_api_games import leaked

PROBLEM = "application/problem+json"
#: The obvious position of the hint's tests: 7D takes 3C and 4B, a scopa and the
#: settebello at once (R5).
OBVIOUS = {
    "hand": ["7D", "2S", "10B"],
    "table": ["3C", "4B"],
    "piles": [["1C", "1B"], []],  # so that 30 cards are left to deal
}
SCOPA_OF_SETTEBELLO = {"card": "7D", "capture": ["3C", "4B"], "sweep": True}


@pytest.fixture
def quick(make_app: Callable[..., Flask], redis_url: str) -> FlaskClient:
    """The app with a small expert budget, so the tests stay quick."""
    return make_app(REDIS_URL=redis_url, EXPERT_BUDGET_MS=5).test_client()


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The endpoints' analyses seeded, and stopped by no wall clock: the same position
    then always gets the same answer."""
    monkeypatch.setattr(routes, "new_rng", lambda: random.Random(2024))
    monkeypatch.setattr(
        routes, "analyse", functools.partial(analyse, deadline_seconds=60.0, cap_factor=None)
    )


def knowledge(body: dict[str, Any]) -> Any:
    """What the seat to play knows in a ``POST /v1/analysis`` body (2 players)."""
    players = body.get("players", 2)
    return position_knowledge(
        get_variant(body.get("variant", "scopa")),
        Rules(),
        seat=0,
        players=players,
        dealer=players - 1,
        hand=parse_cards(body["hand"]),
        table=parse_cards(body["table"]),
        piles=[parse_cards(p) for p in body.get("piles") or [[]] * players],
        scopas=[0] * players,
        hand_counts=body.get("hand_counts") or [len(body["hand"])] * players,
        last_capturer=None,
    )


def check_shape(answer: dict[str, Any], legal: list[dict[str, Any]]) -> None:
    """Every legal move exactly once; the evaluated ones first, best first, with every
    estimate; the others with none; the counts as they say."""
    moves = answer["moves"]
    key = lambda m: (m["card"], tuple(m["capture"]))  # noqa: E731
    assert sorted(map(key, (m["move"] for m in moves))) == sorted(map(key, legal))
    assert answer["legal"] == len(legal) == len(moves)
    evaluated = [m for m in moves if m["evaluated"]]
    assert moves[: len(evaluated)] == evaluated and answer["evaluated"] == len(evaluated)
    values = [m["value"] for m in evaluated]
    assert values == sorted(values, reverse=True)
    for m in evaluated:
        assert m["worlds"] >= 1 and m["points"] is not None and m["others"] is not None
        assert set(m["points"]) == set(answer["categories"])
        # the value is the side's expected points minus the best other side's
        total = sum(m["points"].values()) - sum(m["others"].values())
        assert total == pytest.approx(m["value"], abs=1e-9)
        if m["std_error"] is not None:
            low, high = m["interval"]
            assert low <= m["value"] <= high
            assert high - low == pytest.approx(2 * 1.959963984540054 * m["std_error"])
        assert m["gap"] == pytest.approx(values[0] - m["value"])
    for m in moves[len(evaluated) :]:
        assert m["worlds"] == 0
        for name in ("value", "std_error", "interval", "gap", "gap_std_error", "points"):
            assert m[name] is None


class TestGameAnalysis:
    def test_the_seat_to_play_gets_every_legal_move_best_first(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=21)
        turn = table.view()["turn"]
        response = quick.get(table.url("/analysis"), headers=table.auth(turn))
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        assert answer["seat"] == turn and answer["method"] == SAMPLED
        check_shape(answer, table.legal_moves(turn))
        best = answer["moves"][0]["move"]
        assert table.move(turn, best["card"], best["capture"]).status_code == 200

    def test_limit_cuts_the_list(self, quick: FlaskClient, seeded: None) -> None:
        table = Table(quick)
        table.create(seed=21)
        turn = table.view()["turn"]
        whole = quick.get(table.url("/analysis"), headers=table.auth(turn)).get_json()
        assert whole["truncated"] is False and len(whole["moves"]) == whole["legal"] > 1
        cut = quick.get(table.url("/analysis?limit=1"), headers=table.auth(turn)).get_json()
        assert cut["truncated"] is True and cut["legal"] == whole["legal"]
        assert cut["moves"] == whole["moves"][:1]
        wrong = quick.get(table.url("/analysis?limit=0"), headers=table.auth(turn))
        assert wrong.status_code == 422 and "limit" in wrong.get_json()["errors"]

    def test_errors_are_problems(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(seed=21)
        turn = table.view()["turn"]
        answers = {
            409: quick.get(table.url("/analysis"), headers=table.auth(1 - turn)),
            401: quick.get(table.url("/analysis")),
            404: quick.get("/v1/games/nope/analysis", headers=table.auth(0)),
        }
        for status, response in answers.items():
            assert response.status_code == status
            assert response.content_type == PROBLEM
            assert response.get_json()["status"] == status
        assert answers[409].get_json()["type"] == "/problems/not-your-turn"

    def test_a_finished_match_has_no_analysis(self, quick: FlaskClient) -> None:
        people = Table(quick)
        people.create(seed=5, target=1)
        people.play_to_end(random.Random(1))
        response = quick.get(people.url("/analysis"), headers=people.auth(0))
        assert response.status_code == 409 and response.content_type == PROBLEM

    def test_cirulla_is_analysed(self, quick: FlaskClient) -> None:
        table = Table(quick)
        table.create(variant="cirulla", seed=8)
        turn = table.view()["turn"]
        response = quick.get(table.url("/analysis"), headers=table.auth(turn))
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        # The lines the play decides, Cirulla's grande and piccola (C7.2, C7.3) too.
        assert answer["categories"] == [
            *("cards", "coins", "settebello", "primiera", "scopas", "grande", "piccola")
        ]
        check_shape(answer, table.legal_moves(turn))


def hidden_cards(state: dict[str, Any], seat: int) -> list[int]:
    """The card indices ``seat`` cannot see in a stored match: the other hands, the stock."""
    match = state["match"]
    found = [i for other, mask in enumerate(match["hands"]) if other != seat for i in indices(mask)]
    return found + list(match["stock"])


class TestNoLeak:
    """The analysis of a seat depends only on what the seat can see."""

    def test_hidden_cards_dealt_otherwise_change_nothing(
        self, quick: FlaskClient, redis_url: str, seeded: None
    ) -> None:
        """The same game twice: as dealt, and with every card the seat to play cannot see
        (the other hand and the stock) dealt otherwise, in the store itself. The seat's
        view is the same, and so is its analysis, which names none of those cards."""
        table = Table(quick)
        table.create(seed=21)
        turn = table.view()["turn"]
        view = table.view(turn)
        first = quick.get(table.url("/analysis"), headers=table.auth(turn))
        assert first.status_code == 200
        with redis.Redis.from_url(redis_url) as client:
            state = orjson.loads(client.hget(keys.game(table.game_id), "s"))
            hidden = hidden_cards(state, turn)
            other = 1 - turn
            held = state["match"]["hands"][other].bit_count()
            dealt = list(reversed(hidden))  # the other hand gets cards of the stock
            state["match"]["hands"][other] = sum(BIT[i] for i in dealt[:held])
            state["match"]["stock"] = dealt[held:]
            assert hidden_cards(state, turn) != hidden
            client.hset(keys.game(table.game_id), "s", orjson.dumps(state))
        assert table.view(turn) == view
        second = quick.get(table.url("/analysis"), headers=table.auth(turn))
        assert second.status_code == 200
        assert second.get_json() == first.get_json()
        secret = {DECK[i].code for i in hidden}
        assert not leaked(first.get_json(), secret, table.game_id)

    @pytest.mark.parametrize(("variant", "players"), [("scopa", 2), ("scopone", 4), ("cirulla", 2)])
    def test_two_matches_that_look_alike_to_the_seat_get_one_analysis(
        self, variant: str, players: int
    ) -> None:
        """Two matches alike but for the cards seat 0 cannot see (the other hands and the
        stock, dealt from the same cards in two orders): one analysis."""
        hand, table = "7D 2S 10B", "3C 4B 1S"
        rest = [c.code for c in DECK if c.code not in set(f"{hand} {table}".split())]
        plan = get_variant(variant).deal_plan(players)
        deal = players * plan.hand_size
        left = len(rest) - 3 * (players - 1)  # beside the other hands
        stock = left // deal * deal if plan.deals_again else 0
        pile, hidden = rest[: left - stock], rest[left - stock :]
        analyses = []
        for order in (0, 1):
            random.Random(order).shuffle(hidden)
            hands = [hand] + [" ".join(hidden[3 * i : 3 * i + 3]) for i in range(players - 1)]
            match = position(
                hands,
                table,
                variant=variant,
                stock=" ".join(hidden[3 * (players - 1) :]),
                piles=[" ".join(pile)] + [""] * (players - 1),
            )
            known = knowledge_of(match, 0)
            analyses.append(analyse(known, random.Random(7), 20.0, 60.0, cap_factor=None))
        assert analyses[0] == analyses[1]
        assert analyses[0].evaluated == len(analyses[0].moves) and not analyses[0].cut


class TestPositionAnalysis:
    def test_every_legal_move_once_best_first(self, quick: FlaskClient) -> None:
        body = {"hand": ["7D", "3C", "10B"], "table": ["4S", "7C"], "piles": [["1C", "1B"], []]}
        response = quick.post("/v1/analysis", json=body)
        assert response.status_code == 200, response.get_json()
        shown = {"hand": body["hand"], "table": body["table"]}
        legal = quick.post("/v1/legal-moves", json=shown).get_json()["moves"]
        check_shape(response.get_json(), legal)

    def test_it_agrees_with_the_hint_on_the_obvious_scopa(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """With the default budget, as the hint's test (a tiny one lets the wall clock
        of a loaded machine stop the search after a world or two)."""
        client = make_app(REDIS_URL=redis_url).test_client()
        answer = client.post("/v1/analysis", json=OBVIOUS).get_json()
        assert answer["moves"][0]["move"] == SCOPA_OF_SETTEBELLO
        best = answer["moves"][0]
        assert best["value"] > 0 and best["points"]["settebello"] == 1.0
        assert best["points"]["scopas"] >= 1.0
        hint = client.post("/v1/hint", json=OBVIOUS).get_json()
        assert hint["move"] == best["move"]

    def test_the_options_that_score_are_categories(self, quick: FlaskClient) -> None:
        body = {**OBVIOUS, "rules": {"napola": True, "re_bello": True}}
        response = quick.post("/v1/analysis", json=body)
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        assert answer["categories"][-2:] == ["re_bello", "napola"]
        shown = {"hand": body["hand"], "table": body["table"]}
        check_shape(answer, quick.post("/v1/legal-moves", json=shown).get_json()["moves"])

    def test_an_inconsistent_position_is_a_problem(self, quick: FlaskClient) -> None:
        response = quick.post("/v1/analysis", json={"hand": ["7D"], "table": ["7D"]})
        assert response.status_code == 422 and response.content_type == PROBLEM
        assert "table" in response.get_json()["errors"]

    def test_a_huge_position_answers_in_time_with_moves_unevaluated(
        self, quick: FlaskClient
    ) -> None:
        """A king on a 28-card table, cards hidden: thousands of moves, a few evaluated;
        and with nothing hidden, 34 cards on the table: the exact solver's deadline."""
        hand = ["10D", "10C", "10S"]
        hidden = {"10B", "9D", "9C", "9S", "9B", "8D", "8C", "8S", "8B"}
        table = [c.code for c in DECK if c.code not in set(hand) | hidden]
        endgame = [c.code for c in DECK if c.code not in set(hand) | {"10B", "9D", "9C"}]
        bodies = [{"hand": hand, "table": table}, {"hand": hand, "table": endgame}]
        for body, method in zip(bodies, (SAMPLED, EXACT), strict=True):
            started = time.perf_counter()
            response = quick.post("/v1/analysis", json=body)
            elapsed = time.perf_counter() - started
            assert response.status_code == 200, response.get_json()
            answer = response.get_json()
            assert answer["method"] == method
            assert answer["legal"] > 1000 and answer["evaluated"] < answer["legal"]
            assert elapsed < 5.0
            if method == EXACT:
                assert answer["cut"]


def obvious_knowledge() -> Any:
    return knowledge(OBVIOUS)


def endgame() -> Any:
    """Nothing hidden: the stock is empty and seat 1's three cards are the unseen ones."""
    hand, table, other = ["7D", "2S", "10B"], ["3C", "4B", "5C"], ["1D", "6S", "9C"]
    rest = [c.code for c in DECK if c.code not in hand + table + other]
    return knowledge({"hand": hand, "table": table, "piles": [rest, []]})


def test_a_huge_position_is_listed_up_to_the_limit(quick: FlaskClient) -> None:
    """A 34-card table: thousands of legal moves, 1,000 listed (the evaluated ones
    first), in well under the 1.7 MB the whole list took."""
    hand = ["1D", "1C", "10D"]
    hidden = ["10B", "10S", "10C"]
    body = {
        "variant": "scopa_di_quindici",
        "players": 2,
        "seat": 0,
        "dealer": 1,
        "hand": hand,
        "table": [c.code for c in DECK if c.code not in hand + hidden],
        "hand_counts": [3, 3],
    }
    response = quick.post("/v1/analysis", json=body)
    assert response.status_code == 200, response.get_json()
    answer = response.get_json()
    assert answer["legal"] > 5000 and answer["truncated"] is True
    assert len(answer["moves"]) == 1000 and len(response.data) < 300_000
    evaluated = answer["moves"][: answer["evaluated"]]
    assert all(m["value"] is not None for m in evaluated)


class TestAnalyse:
    def test_a_seed_gives_the_same_analysis(self) -> None:
        known = obvious_knowledge()
        runs = [analyse(known, random.Random(3), 5.0, 60.0, cap_factor=None) for _ in range(2)]
        assert runs[0] == runs[1]
        assert runs[0].moves[0].move.card.code == "7D"

    def test_exact_values_when_nothing_is_hidden(self) -> None:
        known = endgame()
        assert is_determined(known)
        found = analyse(known, random.Random(1), 5.0, 60.0, cap_factor=None)
        assert found.method == EXACT and found.worlds == 1 and not found.cut
        world = sample_world(known, random.Random(0))
        legal = Hand.from_knowledge(known).legal_codes()
        assert found.evaluated == len(legal) == len(found.moves)
        best_code, best = solve(world, legal, known.teams, 0)
        assert found.moves[0].value == best
        for estimate in found.moves:
            assert estimate.value == solve(world, [estimate.code], known.teams, 0)[1]
            assert estimate.std_error == 0.0 and estimate.gap_std_error == 0.0
            assert estimate.low == estimate.high == estimate.value
            assert estimate.points is not None and estimate.others is not None
            own, other = sum(estimate.points.values()), sum(estimate.others.values())
            assert own - other == estimate.value  # the principal line's end
        assert best_code in [e.code for e in found.moves if e.value == best]

    def test_uncertainty_shrinks_with_a_bigger_budget(self) -> None:
        known = obvious_knowledge()

        def mean_error(found: Analysis) -> float:
            errors = [e.std_error for e in found.moves if e.std_error is not None]
            return sum(errors) / len(errors)

        small = analyse(known, random.Random(5), 3.0, 60.0, cap_factor=None)
        large = analyse(known, random.Random(5), 60.0, 60.0, cap_factor=None)
        assert large.worlds > 4 * small.worlds
        assert mean_error(large) < mean_error(small) / 2

    def test_three_sides_count_the_best_other(self) -> None:
        """Three players: each value is the side's points minus the best other side's."""
        hands, table = ["7D 2S 10B", "1D 5C 9S", "2D 3D 4D"], "3C 4B 1S"
        seen = set(" ".join([*hands, table]).split())
        rest = [c.code for c in DECK if c.code not in seen]  # 28: 18 to deal, 10 taken
        match = position(
            hands, table, stock=" ".join(rest[:18]), piles=[" ".join(rest[18:]), "", ""]
        )
        found = analyse(knowledge_of(match, 0), random.Random(2), 5.0, 60.0, cap_factor=None)
        for estimate in found.moves:
            assert estimate.points is not None and estimate.others is not None
            total = sum(estimate.points.values()) - sum(estimate.others.values())
            assert total == pytest.approx(estimate.value)

    def test_the_deadline_holds_on_a_huge_position(self) -> None:
        hand = "10D 10C 10S"
        hidden = {"10B", "9D", "9C", "9S", "9B", "8D", "8C", "8S", "8B"}
        table = [c.code for c in DECK if c.code not in set(hand.split()) | hidden]
        known = knowledge({"hand": hand.split(), "table": table})
        started, computed = time.perf_counter(), time.thread_time()
        found = analyse(known, random.Random(1), 60_000.0, 0.2)
        # It stops computing soon after its deadline (the CPU time it took: a loaded
        # machine may keep it waiting to run, not make it compute more), and answers
        # long before its budget of a minute.
        assert time.thread_time() - computed < 0.2 * 3 + 0.5
        assert time.perf_counter() - started < 10
        assert found.cut and 0 < found.evaluated < len(found.moves)

    def test_the_analysis_agrees_with_the_advice(self) -> None:
        known = obvious_knowledge()
        advice = advise(known, random.Random(4), 50.0, deadline_seconds=60.0)
        found = analyse(known, random.Random(4), 50.0, 60.0, cap_factor=None)
        assert found.moves[0].move == advice.move
