"""The variants of docs/rules.md R10 over HTTP: ``GET /v1/variants`` describes each, a match
of each is created and played to its end, the stateless ``/v1/legal-moves`` and
``/v1/score`` answer for each, and senseless combinations are refused with 422."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.helpers import Table

PROBLEM = "application/problem+json"
ALL_CARDS = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]
ALL = [
    "scopa",
    "asso_piglia_tutto",
    "cirulla",
    "escoba",
    "scopa_di_quindici",
    "scopone",
    "scopone_scientifico",
]
SCOPONES = ["scopone", "scopone_scientifico"]
OTHERS = [v for v in ALL if v != "scopone_scientifico"]
#: R10: player counts, default target, cards to each seat and to the table.
EXPECTED: dict[str, dict[str, Any]] = {
    "scopa": {"players": [2, 3, 4, 6], "target": 11, "hand": 3, "table": 4},
    "asso_piglia_tutto": {"players": [2, 3, 4, 6], "target": 11, "hand": 3, "table": 4},
    "cirulla": {"players": [2, 3, 4], "target": 51, "hand": 3, "table": 4},
    "escoba": {"players": [2, 3, 4, 6], "target": 21, "hand": 3, "table": 4},
    "scopa_di_quindici": {"players": [2, 3, 4, 6], "target": 11, "hand": 3, "table": 4},
    "scopone": {"players": [4], "target": 11, "hand": 9, "table": 4},
    "scopone_scientifico": {"players": [4], "target": 11, "hand": 10, "table": 0},
}
COMMON_OPTIONS = {
    "re_bello": ("boolean", False),
    "napola": ("boolean", False),
    "napoleone": ("boolean", False),
    "forced_capture": ("string", "card"),
}


def variants(client: FlaskClient) -> dict[str, dict[str, Any]]:
    response = client.get("/v1/variants")
    assert response.status_code == 200
    listed: list[dict[str, Any]] = response.get_json()["variants"]
    return {v["name"]: v for v in listed}


def legal_moves(client: FlaskClient, **body: Any) -> set[tuple[str, tuple[str, ...], bool]]:
    """The moves as (card, captured codes sorted as strings, sweep)."""
    response = client.post("/v1/legal-moves", json=body)
    assert response.status_code == 200, response.get_json()
    moves = response.get_json()["moves"]
    found = {(m["card"], tuple(sorted(m["capture"])), m["sweep"]) for m in moves}
    assert len(found) == len(moves)
    return found


def problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == PROBLEM
    body: dict[str, Any] = response.get_json(force=True)
    assert body["type"] == kind and body["status"] == status
    return body


def deck_with(table: list[str], players: int, variant: str) -> list[str]:
    """A deck whose first deal puts ``table`` on the table (rest in canonical order)."""
    rest = [c for c in ALL_CARDS if c not in table]
    dealt = players * EXPECTED[variant]["hand"]
    return rest[:dealt] + table + rest[dealt:]


def plain_deck(seed: int) -> list[str]:
    """A shuffled deck whose 4-player tables have no 3 kings and do not add up to 15 or 30."""
    for attempt in range(1000):
        deck = list(ALL_CARDS)
        random.Random(f"{seed}:{attempt}").shuffle(deck)
        tables = [deck[12:16], deck[36:40]]
        if all(
            sum(c.startswith("10") for c in t) < 3 and sum(int(c[:-1]) for c in t) not in (15, 30)
            for t in tables
        ):
            return deck
    raise AssertionError("no plain deck")


# --------------------------------------------------------------------------- GET /v1/variants


class TestVariantList:
    def test_the_six_variants_with_classic_scopa_first(self, client: FlaskClient) -> None:
        assert list(variants(client)) == ALL

    @pytest.mark.parametrize("name", ALL)
    def test_each_is_described(self, client: FlaskClient, name: str) -> None:
        described = variants(client)[name]
        expected = EXPECTED[name]
        assert described["players"] == expected["players"]
        assert described["default_target"] == expected["target"]
        assert (described["min_target"], described["max_target"]) == (1, 100)
        assert described["title"] and described["description"]
        assert len(described["description"]) > 80
        options = {o["name"]: o for o in described["options"]}
        wanted = dict(COMMON_OPTIONS)
        if name == "scopone_scientifico":
            wanted["dealer_last_sweep"] = ("boolean", False)
        if name == "cirulla":  # docs/rules.md C9
            wanted |= {
                "table_low": ("boolean", False),
                "auto_declare": ("boolean", False),
                "fewest_cards": ("boolean", False),
                "matta_keeps_value": ("boolean", False),
                "piccola_max": ("integer", 6),
                "cappotto": ("boolean", True),
            }
            assert (options["piccola_max"]["minimum"], options["piccola_max"]["maximum"]) == (
                3,
                10,
            )
        assert {k: (o["type"], o["default"]) for k, o in options.items()} == wanted
        assert options["forced_capture"]["choices"] == ["card", "any"]
        assert all(o["description"] for o in options.values())
        # how a deck given at creation is dealt, with this variant's hand size
        assert f"{expected['hand']} cards" in described["deal"]
        assert "table" in described["deal"]
        if not expected["table"]:
            assert "nothing" in described["deal"]

    def test_the_descriptions_differ(self, client: FlaskClient) -> None:
        listed = variants(client).values()
        assert len({v["description"] for v in listed}) == len(ALL)
        assert len({v["title"] for v in listed}) == len(ALL)

    @pytest.mark.parametrize("name", ALL)
    def test_creation_follows_the_description(self, client: FlaskClient, name: str) -> None:
        """Default players (4 for the scopone variants), target and option defaults."""
        described = variants(client)[name]
        response = client.post("/v1/games", json={"variant": name})
        assert response.status_code == 201, response.get_json()
        state = response.get_json()["state"]
        assert state["variant"] == name
        assert len(state["seats"]) == (4 if name in SCOPONES else 2)
        assert len(state["seats"]) in described["players"]
        assert state["target"] == described["default_target"]
        defaults = {o["name"]: o["default"] for o in described["options"]}
        assert {k: state["rules"][k] for k in defaults} == defaults
        assert state["rules"]["dealer_last_sweep"] is False

    @pytest.mark.parametrize("name", ALL)
    def test_every_option_listed_is_accepted(self, client: FlaskClient, name: str) -> None:
        described = variants(client)[name]
        rules = {
            o["name"]: {"string": o.get("choices", [""])[-1], "integer": o.get("maximum")}.get(
                o["type"], True
            )
            for o in described["options"]
        }
        response = client.post("/v1/games", json={"variant": name, "rules": rules})
        assert response.status_code == 201, response.get_json()
        assert {k: response.get_json()["state"]["rules"][k] for k in rules} == rules


# --------------------------------------------------------------------------- POST /v1/games


class TestDeal:
    @pytest.mark.parametrize("name", ALL)
    def test_a_given_deck_is_dealt_as_the_variant_says(self, table: Table, name: str) -> None:
        """``deal``: each seat in playing order from the seat after the dealer gets its
        cards at once, then the table."""
        hand, on_table = EXPECTED[name]["hand"], EXPECTED[name]["table"]
        deck = plain_deck(3)
        table.create(variant=name, players=4, deck=deck, first_dealer=3)
        for seat in range(4):
            view = table.view(seat)
            assert sorted(view["hand"]) == sorted(deck[hand * seat : hand * (seat + 1)])
        spectator = table.view()
        assert sorted(spectator["table"]) == sorted(deck[4 * hand : 4 * hand + on_table])
        assert spectator["stock_count"] == 40 - 4 * hand - on_table
        assert [s["hand_count"] for s in spectator["seats"]] == [hand] * 4
        assert spectator["turn"] == 0 and spectator["dealer"] == 3

    def test_escobas_dealers_bonus(self, client: FlaskClient) -> None:
        """R10: a table of 15 goes to the dealer with one escoba, in the log for all."""
        game = Table(client)
        game.create(
            variant="escoba", deck=deck_with(["1C", "2D", "5S", "7B"], 2, "escoba"), first_dealer=1
        )
        state = game.created["state"]
        assert state["table"] == []
        assert state["seats"][1]["scopas"] == 1 and state["seats"][1]["captured_count"] == 4
        assert state["seats"][0]["scopas"] == 0 and state["seats"][0]["captured_count"] == 0
        assert state["turn"] == 0
        for viewer in (None, 0, 1):
            headers = game.auth(viewer) if viewer is not None else {}
            events = client.get(game.url("/events"), headers=headers).get_json()["events"]
            (bonus,) = [e for e in events if e["type"] == "dealer_bonus"]
            assert {k: v for k, v in bonus.items() if k != "seq"} == {
                "type": "dealer_bonus",
                "hand": 1,
                "seat": 1,
                "capture": ["1C", "2D", "5S", "7B"],
                "scopas": 1,
            }
        assert all(not m["capture"] for m in game.legal_moves(0))

    def test_scopone_redeals_three_kings(self, client: FlaskClient) -> None:
        game = Table(client)
        deck = deck_with(["10D", "10C", "10S", "1B"], 4, "scopone")
        game.create(variant="scopone", deck=deck, first_dealer=3)
        events = client.get(game.url("/events")).get_json()["events"]
        assert [e["type"] for e in events[:2]] == ["match_started", "redeal"]
        assert sorted(events[1]["table"]) == sorted(["10D", "10C", "10S", "1B"])
        table = game.view()["table"]
        assert len(table) == 4 and sum(c.startswith("10") for c in table) < 3


class TestRefused:
    """422 for matches that cannot exist, saying why."""

    @pytest.mark.parametrize("players", [2, 3, 6])
    @pytest.mark.parametrize("name", SCOPONES)
    def test_scopone_is_four_players(self, client: FlaskClient, name: str, players: int) -> None:
        response = client.post("/v1/games", json={"variant": name, "players": players})
        detail = problem(response, 422, "/problems/invalid-setup")["detail"]
        assert "4" in detail and str(players) in detail

    @pytest.mark.parametrize("name", SCOPONES)
    def test_scopone_with_two_named_seats(self, client: FlaskClient, name: str) -> None:
        body = {"variant": name, "seats": [{"name": "Ana"}, {"name": "Bruno"}]}
        detail = problem(client.post("/v1/games", json=body), 422, "/problems/invalid-setup")[
            "detail"
        ]
        assert "4" in detail and "2" in detail

    @pytest.mark.parametrize("name", OTHERS)
    def test_dealer_last_sweep_outside_scientifico(self, client: FlaskClient, name: str) -> None:
        body = {"variant": name, "rules": {"dealer_last_sweep": True}}
        detail = problem(client.post("/v1/games", json=body), 422, "/problems/invalid-setup")[
            "detail"
        ]
        assert "dealer_last_sweep" in detail

    def test_dealer_last_sweep_in_scientifico(self, client: FlaskClient) -> None:
        body = {"variant": "scopone_scientifico", "rules": {"dealer_last_sweep": True}}
        response = client.post("/v1/games", json=body)
        assert response.status_code == 201
        assert response.get_json()["state"]["rules"]["dealer_last_sweep"] is True

    @pytest.mark.parametrize("target", [0, 101, -5])
    @pytest.mark.parametrize("name", ALL)
    def test_a_target_out_of_range(self, client: FlaskClient, name: str, target: int) -> None:
        body = {"variant": name, "target": target}
        errors = problem(client.post("/v1/games", json=body), 422, "/problems/validation")["errors"]
        assert list(errors) == ["target"]

    @pytest.mark.parametrize("name", ["escoba", "scopa_di_quindici", "asso_piglia_tutto"])
    def test_five_players(self, client: FlaskClient, name: str) -> None:
        body = {"variant": name, "players": 5}
        problem(client.post("/v1/games", json=body), 422, "/problems/validation")

    def test_an_unknown_variant(self, client: FlaskClient) -> None:
        body = {"variant": "briscola"}  # not a game of the family
        errors = problem(client.post("/v1/games", json=body), 422, "/problems/validation")["errors"]
        assert list(errors) == ["variant"]


# --------------------------------------------------------------------------- full matches


@pytest.mark.parametrize("name", ALL)
def test_a_match_of_each_variant_is_played_to_the_end(client: FlaskClient, name: str) -> None:
    """Random legal moves over HTTP until the match is over; every hand's cards all end
    in the piles, the totals add up, and the winner reached the target."""
    seed = ALL.index(name) + 40
    game = Table(client)
    target = 3
    game.create(variant=name, seed=seed, target=target)
    results = game.play_to_end(random.Random(seed))
    final = results[-1]["state"]
    assert final["status"] == "finished" and final["turn"] is None
    hands = client.get(game.url("/hands")).get_json()["hands"]
    assert len(hands) == final["hand_number"]
    scores = [t["score"] for t in final["teams"]]
    assert scores == hands[-1]["scores"]
    for side, score in enumerate(scores):
        assert score == sum(h["teams"][side]["total"] for h in hands)
    winner = final["winner"]
    assert scores[winner] >= target and scores.count(scores[winner]) == 1
    assert scores[winner] == max(scores)
    for hand in hands:
        captured = [c for side in hand["teams"] for c in side["captured"]]
        assert sorted(captured) == sorted(ALL_CARDS)

    events = client.get(game.url("/events")).get_json()["events"]
    deals = [e for e in events if e["type"] == "deal"]
    moves = [e for e in events if e["type"] == "move"]
    per_hand = 40 - EXPECTED[name]["table"]
    assert len(moves) == per_hand * len(hands) == len(results)
    hand_size, table_size = EXPECTED[name]["hand"], EXPECTED[name]["table"]
    first_deals = []
    for deal in deals:
        assert "hands" not in deal and "cards" not in deal  # a spectator sees no cards
        if deal["cards_each"] == hand_size and len(deal["table"]) == table_size:
            first_deals.append(deal)
        else:  # R3: a later deal of the hand, 3 cards each, none to the table
            assert name not in SCOPONES
            assert deal["cards_each"] == 3 and deal["table"] == []
    assert len(first_deals) == len(hands)
    bonuses = [e for e in events if e["type"] == "dealer_bonus"]
    assert all(e["seat"] == d["dealer"] for e in bonuses for d in deals if d["hand"] == e["hand"])
    if name not in ("escoba", "cirulla"):  # R10.3, C2.3
        assert bonuses == []


# --------------------------------------------------------------------------- stateless


class TestStatelessLegalMoves:
    """``POST /v1/legal-moves`` with each variant's capture rule (R4, R10)."""

    def test_the_escoba_example(self, client: FlaskClient) -> None:
        """Table 2, 3, 8, 10 and a hand of ace and 5: the 5 takes the 10, or the 2 and the
        8; the ace can only be laid."""
        body = {"variant": "escoba", "hand": ["1D", "5C"], "table": ["2C", "3S", "8B", "10D"]}
        assert legal_moves(client, **body) == {
            ("5C", ("10D",), False),
            ("5C", ("2C", "8B"), False),
            ("1D", (), False),
        }
        assert legal_moves(client, **body, rules={"forced_capture": "any"}) == {
            ("5C", ("10D",), False),
            ("5C", ("2C", "8B"), False),
        }

    @pytest.mark.parametrize("name", ["scopa_di_quindici", "escoba"])
    def test_fifteen(self, client: FlaskClient, name: str) -> None:
        body = {"variant": name, "hand": ["10B"], "table": ["5C", "2D", "3S"]}
        assert legal_moves(client, **body) == {
            ("10B", ("5C",), False),
            ("10B", ("2D", "3S"), False),
        }
        body = {"variant": name, "hand": ["7S"], "table": ["7C", "8D"]}
        assert legal_moves(client, **body) == {("7S", ("8D",), False)}
        body = {"variant": name, "hand": ["2S"], "table": ["1C", "3D", "4S", "5B"]}
        assert legal_moves(client, **body) == {("2S", ("1C", "3D", "4S", "5B"), True)}

    def test_asso_piglia_tutto(self, client: FlaskClient) -> None:
        body = {"variant": "asso_piglia_tutto", "hand": ["1B", "7C"], "table": ["3S", "4D"]}
        assert legal_moves(client, **body) == {
            ("1B", ("3S", "4D"), True),
            ("7C", ("3S", "4D"), True),
        }
        body = {"variant": "asso_piglia_tutto", "hand": ["1B", "6C"], "table": ["2S", "4D", "6S"]}
        assert legal_moves(client, **body) == {
            ("1B", ("2S", "4D", "6S"), True),
            ("6C", ("6S",), False),
        }
        body = {"variant": "asso_piglia_tutto", "hand": ["1B", "6C"]}
        assert legal_moves(client, **body) == {("1B", (), False), ("6C", (), False)}

    @pytest.mark.parametrize("name", ["scopa", *SCOPONES])
    def test_scopa_captures(self, client: FlaskClient, name: str) -> None:
        """R4.1: the seeds' example, table 2-4-6: the 6 takes only the 6."""
        body = {"variant": name, "hand": ["6S", "1B"], "table": ["2B", "4C", "6D"]}
        assert legal_moves(client, **body) == {("6S", ("6D",), False), ("1B", (), False)}

    @pytest.mark.parametrize("name", ALL)
    def test_the_same_position_in_every_variant(self, client: FlaskClient, name: str) -> None:
        """One position, six answers: what each capture rule makes of a 5 and an ace on
        a table of 1, 4, 5 and 10."""
        body = {"variant": name, "hand": ["5D", "1S"], "table": ["1C", "4C", "5S", "10B"]}
        scopa = {("5D", ("5S",), False), ("1S", ("1C",), False)}
        fifteen = {
            ("5D", ("10B",), False),
            ("5D", ("1C", "4C", "5S"), False),
            ("1S", ("10B", "4C"), False),
        }
        expected = {
            "scopa": scopa,
            "scopone": scopa,
            "scopone_scientifico": scopa,
            "scopa_di_quindici": fifteen,
            "escoba": fifteen,
            "asso_piglia_tutto": {
                ("5D", ("5S",), False),
                ("1S", ("10B", "1C", "4C", "5S"), True),
            },
            # C4.1 the single 5 before sums of 5, C4.2 any set making 15, C4.3 no
            # sweep with an ace on the table
            "cirulla": {
                ("5D", ("5S",), False),
                ("5D", ("10B",), False),
                ("5D", ("1C", "4C", "5S"), False),
                ("1S", ("1C",), False),
                ("1S", ("10B", "4C"), False),
            },
        }
        assert legal_moves(client, **body) == expected[name]

    def test_a_scientifico_hand_of_ten(self, client: FlaskClient) -> None:
        hand = ["1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D"]
        body = {"variant": "scopone_scientifico", "hand": hand, "table": []}
        assert legal_moves(client, **body) == {(c, (), False) for c in hand}
        body["rules"] = {"dealer_last_sweep": True}
        assert legal_moves(client, **body) == {(c, (), False) for c in hand}

    @pytest.mark.parametrize("name", OTHERS)
    def test_dealer_last_sweep_outside_scientifico_is_refused(
        self, client: FlaskClient, name: str
    ) -> None:
        """RulesSchema: "Options that belong to another variant are refused with 422"."""
        body = {"variant": name, "hand": ["6S"], "rules": {"dealer_last_sweep": True}}
        response = client.post("/v1/legal-moves", json=body)
        assert response.status_code == 422, response.get_json()
        assert "dealer_last_sweep" in response.get_data(as_text=True)


class TestStatelessScore:
    """``POST /v1/score``: every variant scores a hand as Scopa (R7, R10)."""

    PILES = [["7D", "7C", "6S", "1B", "2D"], ["3D", "4C"]]

    @pytest.mark.parametrize("name", ALL)
    def test_a_hand_is_scored_as_in_scopa(self, client: FlaskClient, name: str) -> None:
        response = client.post(
            "/v1/score", json={"variant": name, "piles": self.PILES, "scopas": [1, 2]}
        )
        assert response.status_code == 200, response.get_json()
        first, second = response.get_json()["teams"]
        assert first["primiera"] == 21 + 21 + 18 + 16
        # Cirulla's own lines are there, and score nothing here (C7.2-C7.3)
        cirulla = {"dealer_bonus": 0, "declarations": 0, "grande": 0, "piccola": 0}
        extra = cirulla if name == "cirulla" else {}
        assert first["points"] == {
            "cards": 1,
            "coins": 1,
            "settebello": 1,
            "primiera": 1,
            "scopas": 1,
            **extra,
        }
        assert second["primiera"] is None
        assert second["points"] == {
            "cards": 0,
            "coins": 0,
            "settebello": 0,
            "primiera": 0,
            "scopas": 2,
            **extra,
        }
        assert [first["total"], second["total"]] == [5, 2]

    def test_dealer_last_sweep_is_accepted_in_scientifico(self, client: FlaskClient) -> None:
        body = {
            "variant": "scopone_scientifico",
            "piles": self.PILES,
            "rules": {"dealer_last_sweep": True},
        }
        assert client.post("/v1/score", json=body).status_code == 200

    @pytest.mark.parametrize("name", OTHERS)
    def test_dealer_last_sweep_outside_scientifico_is_refused(
        self, client: FlaskClient, name: str
    ) -> None:
        """RulesSchema: "Options that belong to another variant are refused with 422"."""
        body = {"variant": name, "piles": self.PILES, "rules": {"dealer_last_sweep": True}}
        response = client.post("/v1/score", json=body)
        assert response.status_code == 422, response.get_json()
        assert "dealer_last_sweep" in response.get_data(as_text=True)

    @pytest.mark.parametrize("name", SCOPONES)
    def test_three_sides_in_scopone_are_refused(self, client: FlaskClient, name: str) -> None:
        """R10: scopone is two partnerships: a hand has two sides, never three."""
        body = {"variant": name, "piles": [["7D"], ["1C"], ["2S"]]}
        response = client.post("/v1/score", json=body)
        assert response.status_code == 422, response.get_json()
