"""Cirulla over HTTP (docs/rules.md, the Cirulla part C1-C10): whole matches of 2, 3 and
4 players, people and computer players; declarations in legal moves and at
``POST /v1/games/{id}/declarations`` (C3, C10.2); declared cards public and the others
not (C3.4); the options (C9); the stateless endpoints."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.api import examples
from service.engine.replay import comparable, replay
from service.play import keys
from tests.helpers import Table
from tests.test_api_games import leaked

PROBLEM = "application/problem+json"
ALL_CARDS = {f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)}


def declare(table: Table, seat: int, **body: Any) -> TestResponse:
    return table.client.post(table.url("/declarations"), json=body, headers=table.auth(seat))


def legal(table: Table, seat: int) -> dict[str, Any]:
    response = table.client.get(table.url("/legal-moves"), headers=table.auth(seat))
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def problem(response: TestResponse, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    assert body["type"] == kind
    return body


def cirulla_table(client: FlaskClient, **body: Any) -> Table:
    """Ana (seat 0, to play first) and Bruno, two people, dealt the deck of the spec's
    Cirulla example: Ana holds 2S 3C 4B, a buona (C3.1); Bruno 5B 9C 10S, nothing."""
    table = Table(client)
    seats = [{"name": "Ana"}, {"name": "Bruno"}]
    table.create(**{**examples.CIRULLA_CREATE, "seats": seats, **body})
    return table


def play_turn(table: Table, seat: int, rng: random.Random, declaring: float) -> list[Any]:
    """One turn of ``seat`` over HTTP: a declaration it may make, ``declaring`` of the
    time, then a random legal move. Returns the answers' bodies."""
    answers = []
    options = legal(table, seat)
    if options["declarations"] and rng.random() < declaring:
        response = declare(table, seat, **rng.choice(options["declarations"]))
        assert response.status_code == 200, response.get_json()
        answers.append(response.get_json())
        options = legal(table, seat)
        assert options["declarations"] == []  # once a deal (C3.1)
    move = rng.choice(options["moves"])
    response = table.move(seat, move["card"], move["capture"])
    assert response.status_code == 200, response.get_json()
    answers.append(response.get_json())
    return answers


def log_of(table: Table) -> list[dict[str, Any]]:
    response = table.client.get(table.url("/events"), headers=table.auth(0))
    return response.get_json()["events"]  # type: ignore[no-any-return]


def check_finished(table: Table, target: int) -> dict[str, Any]:
    """The match is over: the winner reached the target (C8.1) or made a cappotto
    (C7.4); each hand's totals are the sums of its lines (C7); the log replays."""
    final = table.view()
    assert final["status"] == "finished" and final["turn"] is None
    hands = table.client.get(table.url("/hands")).get_json()["hands"]
    for hand in hands:
        assert {c for side in hand["teams"] for c in side["captured"]} <= ALL_CARDS
        for side in hand["teams"]:
            assert side["total"] == sum(side["points"].values())
            assert {"dealer_bonus", "declarations", "grande", "piccola"} <= set(side["points"])
    scores = [t["score"] for t in final["teams"]]
    assert scores == hands[-1]["scores"]
    events = table.client.get(table.url("/events")).get_json()["events"]
    over = events[-1]
    assert over["type"] == "match_over" and over["winner"] == final["winner"]
    if over["reason"] == "target":
        assert scores[final["winner"]] >= target and scores.count(max(scores)) == 1
    else:
        assert over["reason"] == "cappotto"
        last = hands[-1]["teams"][final["winner"]]
        assert last["coins"] == 10
    # the log, as the service stores it, replays to the same match (C10)
    return final


class TestWholeMatches:
    @pytest.mark.parametrize("players", [2, 3, 4])
    def test_people_play_a_match_to_the_end(self, client: FlaskClient, players: int) -> None:
        """C1.2: 2, 3 or 4 players (4 in two partnerships). Every seat a person over
        HTTP: random moves, a declaration made half the times one is offered."""
        table = Table(client)
        target = 16
        table.create(variant="cirulla", players=players, seed=300 + players, target=target)
        rng = random.Random(players)
        declared = 0
        turn = table.view()["turn"]
        while turn is not None:
            answers = play_turn(table, turn, rng, declaring=0.5)
            declared += len(answers) - 1
            turn = answers[-1]["state"]["turn"]
        check_finished(table, target)
        kinds = [e["type"] for e in log_of(table)]
        assert kinds.count("declaration") == declared > 0

    @pytest.mark.parametrize(
        ("players", "bots"),
        [
            (2, ["expert"]),
            (3, ["random", "greedy"]),
            (4, ["greedy", "expert", "random"]),
        ],
    )
    def test_people_and_computer_players(
        self, client: FlaskClient, players: int, bots: list[str]
    ) -> None:
        """One person and computer players of each level; the computer players declare
        when their cards allow (greedy and expert always, C3), over the service."""
        table = Table(client)
        seats = [{"name": "Ana"}, *({"bot": level} for level in bots)]
        target = 21
        table.create(variant="cirulla", seats=seats, seed=70 + players, target=target)
        rng = random.Random(players)
        state = table.view(0)
        while state["turn"] is not None:
            assert state["turn"] == 0  # the computer players answer within the request
            state = play_turn(table, 0, rng, declaring=1.0)[-1]["state"]
        check_finished(table, target)
        events = log_of(table)
        by_bots = [e for e in events if e["type"] == "declaration" and e["seat"] != 0]
        assert by_bots, "computer players declared nothing in a whole match"

    def test_computer_players_only(self, client: FlaskClient) -> None:
        """Four computer players: the match plays itself to the end at creation."""
        table = Table(client)
        seats = [{"bot": level} for level in ("greedy", "random", "expert", "greedy")]
        table.create(variant="cirulla", seats=seats, seed=5, target=11)
        for _ in range(50):  # the creation's allowance, then the bots endpoint
            if table.view()["status"] == "finished":
                break
            response = client.post(table.url("/bots"))
            assert response.status_code in (200, 409), response.get_json()
        check_finished(table, 11)

    def test_the_log_replays_to_the_stored_match(self, client: FlaskClient, redis_url: str) -> None:
        """The stored event log, with its declarations (C3) and the dealer's bonuses
        (C2.3), rebuilds the stored match exactly."""
        table = Table(client)
        table.create(variant="cirulla", players=3, seed=11, target=11)
        rng = random.Random(11)
        turn = table.view()["turn"]
        while turn is not None:
            turn = play_turn(table, turn, rng, declaring=0.7)[-1]["state"]["turn"]
        with redis.Redis.from_url(redis_url, decode_responses=True) as store:
            state = json.loads(store.hget(keys.game(table.game_id), "s"))["match"]
            log = [json.loads(e) for e in store.lrange(keys.game_events(table.game_id), 0, -1)]
        assert any(e["type"] == "declaration" for e in log)
        assert comparable(replay(log).to_dict()) == comparable(state)


class TestDeclaring:
    def test_legal_moves_list_the_declarations(self, client: FlaskClient) -> None:
        """C10.2: at the first turn of a deal the legal moves list the declarations,
        ready to send back; the card moves are there too."""
        table = cirulla_table(client)
        options = legal(table, 0)
        assert options["declarations"] == [{"declare": "buona", "matta_as": None, "points": 3}]
        assert {m["card"] for m in options["moves"]} == {"2S", "3C", "4B"}
        assert legal(table, 1)["declarations"] == []  # not Bruno's turn

    def test_a_declaration_shows_the_cards_and_the_turn_goes_on(self, client: FlaskClient) -> None:
        """C3.4: the declared cards are face up for everyone until played; the seat
        plays next; its side has the points (C7.1)."""
        table = cirulla_table(client)
        response = declare(table, 0, **legal(table, 0)["declarations"][0])
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        assert body["declaration"]["cards"] == ["2S", "3C", "4B"]
        assert body["state"]["turn"] == 0 and body["state"]["version"] == 2
        for viewer in (None, 0, 1):
            seats = table.view(viewer)["seats"]
            assert seats[0]["exposed"] == ["2S", "3C", "4B"] and seats[0]["declared_points"] == 3
            assert seats[1]["exposed"] == [] and seats[1]["declared_points"] == 0
        moved = table.move(0, "3C", ["3B"]).get_json()
        assert moved["state"]["seats"][0]["exposed"] == ["2S", "4B"]  # played: face down no more
        log = client.get(table.url("/events")).get_json()["events"]
        assert [e["type"] for e in log[2:4]] == ["declaration", "move"]

    def test_refusals_say_why(self, client: FlaskClient) -> None:
        """C3.1-C3.3: 409 out of turn, 422 for what the cards do not make, for a value
        of the 7C the seat does not hold, after the first card, twice in a deal."""
        table = cirulla_table(client)
        problem(declare(table, 1, declare="buona"), 409, "/problems/not-your-turn")
        wrong = problem(declare(table, 0, declare="decino"), 422, "/problems/illegal-declaration")
        assert "buona" in wrong["detail"]
        matta = problem(
            declare(table, 0, declare="buona", matta_as=3), 422, "/problems/illegal-declaration"
        )
        assert "7C" in matta["detail"]
        assert declare(table, 0, declare="buona").status_code == 200
        again = problem(declare(table, 0, declare="buona"), 422, "/problems/illegal-declaration")
        assert "already" in again["detail"]
        invalid = problem(declare(table, 0, declare="scopa"), 422, "/problems/validation")
        assert list(invalid["errors"]) == ["declare"]
        out_of_range = declare(table, 0, declare="buona", matta_as=11)
        assert problem(out_of_range, 422, "/problems/validation")["errors"].keys() == {"matta_as"}

        other = Table(client)
        other.create(seed=1)  # classic Scopa
        refused = problem(declare(other, 0, declare="buona"), 422, "/problems/illegal-declaration")
        assert "no declarations" in refused["detail"]
        assert legal(other, 0)["declarations"] == []

    def test_after_the_first_card_it_is_too_late(self, client: FlaskClient) -> None:
        table = cirulla_table(client)
        assert table.move(0, "3C", ["3B"]).status_code == 200
        bruno = legal(table, 1)["moves"][0]
        assert table.move(1, bruno["card"], bruno["capture"]).status_code == 200
        late = problem(declare(table, 0, declare="buona"), 422, "/problems/illegal-declaration")
        assert "first turn" in late["detail"]

    def test_a_retry_with_its_key_is_answered_the_same(self, client: FlaskClient) -> None:
        """Idempotency-Key: the retry gets the first answer, and nothing is declared
        twice; If-Match with an old version is 412."""
        table = cirulla_table(client)
        headers = {**table.auth(0), "Idempotency-Key": "declare-once-123"}
        first = client.post(table.url("/declarations"), json={"declare": "buona"}, headers=headers)
        again = client.post(table.url("/declarations"), json={"declare": "buona"}, headers=headers)
        assert first.status_code == again.status_code == 200
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json() == first.get_json()
        stale = client.post(
            table.url("/moves"),
            json={"card": "3C", "capture": ["3B"]},
            headers={**table.auth(0), "If-Match": '"1"'},
        )
        assert stale.status_code == 412

    def test_auto_declare_declares_for_everyone(self, client: FlaskClient) -> None:
        """C3.5: with auto_declare, the service declares at each seat's first turn;
        nothing is left to declare by hand."""
        table = cirulla_table(client, rules={"auto_declare": True})
        view = table.view(0)
        assert view["seats"][0]["exposed"] == ["2S", "3C", "4B"]
        assert view["rules"]["auto_declare"] is True
        assert legal(table, 0)["declarations"] == []


def test_no_answer_shows_a_card_its_reader_may_not_see(client: FlaskClient) -> None:
    """C3.4: a declared card is public until played; an undeclared one is not. At every
    version of a 3-player match with declarations, each seat's and the spectator's view,
    log and legal moves name no card of another seat's hand that it did not declare,
    nor of the stock; and every declared card not yet played is in every view."""
    players = 3
    table = Table(client)
    table.create(variant="cirulla", players=players, seed=97, target=8)
    rng = random.Random(97)
    viewers: list[int | None] = [None, *range(players)]
    checked = 0
    while True:
        views = {v: table.view(v) for v in viewers}
        spectator = views[None]
        if spectator["status"] != "playing":
            break
        hands = {seat: set(views[seat]["hand"]) for seat in range(players)}
        exposed = {c for seat in spectator["seats"] for c in seat["exposed"]}
        for seat in range(players):
            assert set(spectator["seats"][seat]["exposed"]) <= hands[seat]
        in_hands = set().union(*hands.values())
        log = client.get(table.url("/events")).get_json()["events"]
        starts = [i for i, e in enumerate(log) if e["type"] == "hand_over"]
        current = [e for e in log[starts[-1] + 1 if starts else 0 :] if e["type"] != "redeal"]
        seen = set(spectator["table"])
        for event in current:
            seen |= {event.get("card"), *event.get("capture", []), *event.get("cards", [])}
        stock = ALL_CARDS - in_hands - seen - exposed
        for viewer in viewers:
            own = hands[viewer] if viewer is not None else set()
            secret = stock | (in_hands - own - exposed)
            for seat in views[viewer]["seats"]:
                assert set(seat["exposed"]) == set(spectator["seats"][seat["seat"]]["exposed"])
            assert not leaked(views[viewer], secret, table.game_id), viewer
            headers = table.auth(viewer) if viewer is not None else {}
            events = client.get(table.url("/events"), headers=headers).get_json()["events"]
            mine = events[starts[-1] + 1 if starts else 0 :]
            assert not leaked([e for e in mine if e["type"] != "redeal"], secret, table.game_id)
            if viewer is not None:
                assert not leaked(legal(table, viewer), secret, table.game_id)
        checked += 1
        play_turn(table, spectator["turn"], rng, declaring=0.8)
    assert checked > 30


class TestOptions:
    def test_the_options_are_taken_and_shown(self, client: FlaskClient) -> None:
        """C9: each option at creation, shown in the game's rules."""
        rules = {
            "table_low": True,
            "auto_declare": False,
            "fewest_cards": True,
            "matta_keeps_value": True,
            "piccola_max": 7,
            "cappotto": False,
        }
        table = cirulla_table(client, rules=rules)
        shown = table.view()["rules"]
        assert {k: shown[k] for k in rules} == rules

    @pytest.mark.parametrize("value", [2, 11, True, "6"])
    def test_piccola_max_is_3_to_10(self, client: FlaskClient, value: Any) -> None:
        """C7.3: the piccola counts a run of 3 at least and 10 at the most."""
        body = {"variant": "cirulla", "rules": {"piccola_max": value}}
        refused = problem(client.post("/v1/games", json=body), 422, "/problems/validation")
        assert "rules" in refused["errors"]

    @pytest.mark.parametrize("option", ["table_low", "auto_declare", "matta_keeps_value"])
    def test_other_variants_refuse_cirullas_options(self, client: FlaskClient, option: str) -> None:
        body = {"variant": "scopa", "rules": {option: True}}
        response = client.post("/v1/games", json=body)
        assert response.status_code == 422 and response.mimetype == PROBLEM
        assert f"the option {option} does not apply to Scopa" in response.get_data(as_text=True)

    def test_scopa_shows_no_cirulla_option(self, client: FlaskClient) -> None:
        table = Table(client)
        table.create(seed=3)
        assert "piccola_max" not in table.view()["rules"]
        assert "exposed" not in table.view()["seats"][0]


class TestStateless:
    def test_legal_moves_and_declarations_of_a_position(self, client: FlaskClient) -> None:
        """C4 on a position, and C3.2: the 7C in a buona may count as 1 up to what
        keeps the three at 9 or less."""
        body = {"variant": "cirulla", "hand": ["7C", "2S", "3B"], "table": ["5D", "8C"]}
        response = client.post("/v1/legal-moves", json=body)
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
        assert answer["declarations"] == [
            {"declare": "buona", "matta_as": v, "points": 3} for v in (1, 2, 3, 4)
        ]
        # C5.1: outside declarations the 7C is a 7, and takes the 8 by fifteen (C4.2);
        # the 2 makes 15 with both (a sweep); the 3 takes nothing
        moves = {(m["card"], tuple(sorted(m["capture"])), m["sweep"]) for m in answer["moves"]}
        assert moves == {
            ("7C", ("8C",), False),
            ("2S", ("5D", "8C"), True),
            ("3B", (), False),
        }

    def test_score_with_cirullas_lines(self, client: FlaskClient) -> None:
        """C7: the dealer's bonus and declarations given per side; grande and piccola
        from the piles."""
        piles = [
            ["1D", "2D", "3D", "4D", "8D", "9D", "10D", "7C"],
            ["5D", "6D", "7D", "1C"],
        ]
        body = {
            "variant": "cirulla",
            "piles": piles,
            "scopas": [1, 0],
            "dealer_bonus": [0, 2],
            "declarations": [3, 10],
            "rules": {"piccola_max": 5},
        }
        response = client.post("/v1/score", json=body)
        assert response.status_code == 200, response.get_json()
        first, second = response.get_json()["teams"]
        assert first["points"]["grande"] == 5 and first["points"]["piccola"] == 4
        assert first["points"]["declarations"] == 3 and first["points"]["dealer_bonus"] == 0
        assert second["points"]["declarations"] == 10 and second["points"]["dealer_bonus"] == 2
        assert second["points"]["grande"] == second["points"]["piccola"] == 0

    def test_score_refuses_cirullas_lines_elsewhere(self, client: FlaskClient) -> None:
        body = {"variant": "scopa", "piles": [["1D"], ["2D"]], "declarations": [3, 0]}
        refused = problem(client.post("/v1/score", json=body), 422, "/problems/validation")
        assert list(refused["errors"]) == ["declarations"]
        body = {"variant": "cirulla", "piles": [["1D"], ["2D"]], "dealer_bonus": [1]}
        refused = problem(client.post("/v1/score", json=body), 422, "/problems/validation")
        assert list(refused["errors"]) == ["dealer_bonus"]


def test_hints_say_what_to_declare(client: FlaskClient) -> None:
    """The expert's hint names the declaration to make before the move (C3), the best
    one (C3.5: the matta worth the most), and none once declared."""
    table = cirulla_table(client)
    hint = client.get(table.url("/hint"), headers=table.auth(0)).get_json()
    assert hint["declaration"] == {"declare": "buona", "matta_as": None, "points": 3}
    assert declare(table, 0, **hint["declaration"]).status_code == 200
    hint = client.get(table.url("/hint"), headers=table.auth(0)).get_json()
    assert hint["declaration"] is None and hint["move"]["card"] in {"2S", "3C", "4B"}

    table_cards = ["5D", "8C", "9B", "10S"]
    position = {"variant": "cirulla", "hand": ["7C", "2S", "3B"], "table": table_cards}
    hint = client.post("/v1/hint", json=position).get_json()
    assert hint["declaration"] == {"declare": "buona", "matta_as": 4, "points": 3}
    # later in the deal: seat 0 laid the 3B, seat 1 took it with the 3D
    later = {**position, "hand": ["7C", "2S"], "hand_counts": [2, 2], "piles": [[], ["3B", "3D"]]}
    played = client.post("/v1/hint", json=later).get_json()
    assert played["declaration"] is None


class TestKeptMatta:
    """C5.2 (option `matta_keeps_value`) over HTTP: the declared value of the 7C is in
    every view, and it captures by it."""

    def test_a_declaration_gives_the_7c_its_value(self, client: FlaskClient) -> None:
        deck = ["7C", "2S", "3B", "10S", "5B", "9C", "4D", "8B", "6C", "1S"]
        deck += [c for c in examples.CIRULLA_CREATE["deck"] if c not in deck]
        table = cirulla_table(client, deck=deck, rules={"matta_keeps_value": True})
        assert table.view(1)["matta_as"] is None
        made = declare(table, 0, declare="buona", matta_as=4)
        assert made.status_code == 200, made.get_json()
        for viewer in (None, 0, 1):
            assert table.view(viewer)["matta_as"] == 4
        # table 1S 4D 6C 8B: the 7C as 4 takes the 4D (C4.1), or 1S+4D+6C, which make
        # 11, by fifteen (C4.2); as a 7 it would take the 8B by fifteen
        moves = {
            (m["card"], tuple(sorted(m["capture"])))
            for m in legal(table, 0)["moves"]
            if m["card"] == "7C"
        }
        assert moves == {("7C", ("4D",)), ("7C", ("1S", "4D", "6C"))}
        assert "matta_as" not in cirulla_table(client).view()  # the option off

    def test_positions_take_the_kept_value(self, client: FlaskClient) -> None:
        body = {
            "variant": "cirulla",
            "rules": {"matta_keeps_value": True},
            "hand": ["7C", "2S"],
            "table": ["1D", "4D", "8B"],
            "matta_as": 1,
        }
        response = client.post("/v1/legal-moves", json=body)
        assert response.status_code == 200, response.get_json()
        found = {(m["card"], tuple(sorted(m["capture"]))) for m in response.get_json()["moves"]}
        # as an ace, with an ace on the table: it takes the ace, or 14 by fifteen: none
        assert ("7C", ("1D",)) in found and ("7C", ("8B",)) not in found
        without = client.post("/v1/legal-moves", json={**body, "rules": {}})
        assert problem(without, 422, "/problems/validation")["errors"].keys() == {"matta_as"}
        elsewhere = client.post("/v1/legal-moves", json={**body, "hand": ["2S"]})
        assert problem(elsewhere, 422, "/problems/validation")["errors"].keys() == {"matta_as"}
        hint = client.post(
            "/v1/hint", json={**body, "hand": ["7C", "2S", "3B"], "table": ["1D", "4D", "8B", "9C"]}
        )
        assert hint.status_code == 200, hint.get_json()
