"""Every way a request can go wrong, and the problem+json answer it gets: the status,
the problem type, and a `detail` that says what to do. Never a 500, never HTML."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.helpers import Table, listed

PROBLEM = "application/problem+json"
ALL_CARDS = [f"{value}{suit}" for suit in "DCSB" for value in range(1, 11)]


def deck_starting_with(*cards: str) -> list[str]:
    """A full deck that deals ``cards`` first, then the others in canonical order."""
    return [*cards, *(card for card in ALL_CARDS if card not in cards)]


def problem(response: TestResponse, status: int, type_: str | None = None) -> dict[str, Any]:
    """Check ``response`` is an RFC 9457 problem with ``status``; return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = json.loads(response.get_data(as_text=True))
    assert body["status"] == status
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    assert isinstance(body["type"], str)
    if type_ is not None:
        assert body["type"] == type_
    return body


@pytest.fixture
def game(table: Table) -> Table:
    """A 2-player match where seat 0 plays first, holding 6S 5D 9C, with 2B 4C 6D 5S on
    the table: the seeds' example (table 2 of clubs, 4 of cups, 6 of coins; a 6 played
    takes only the 6, R4.1)."""
    table.create(
        deck=deck_starting_with("6S", "5D", "9C", "1B", "3B", "8S", "2B", "4C", "6D", "5S"),
        first_dealer=1,
    )
    assert table.view(0)["hand"] == listed(["6S", "5D", "9C"])
    assert table.view()["table"] == listed(["2B", "4C", "6D", "5S"])
    assert table.view()["turn"] == 0
    return table


class TestUnauthorized:
    def test_a_move_needs_a_token(self, game: Table) -> None:
        response = game.client.post(game.url("/moves"), json={"card": "6S", "capture": ["6D"]})
        body = problem(response, 401, "/problems/unauthorized")
        assert "Bearer" in body["detail"]
        assert response.headers["WWW-Authenticate"] == "Bearer"
        problem(game.client.get(game.url("/legal-moves")), 401, "/problems/unauthorized")
        assert game.view()["version"] == 1

    @pytest.mark.parametrize(
        "header", ["Token abc", "Bearer", "Bearer   ", "Basic dXNlcjpwdw==", "bearer"]
    )
    def test_a_malformed_authorization_header(self, game: Table, header: str) -> None:
        for method, path in (("GET", ""), ("GET", "/legal-moves"), ("GET", "/events")):
            response = game.client.open(
                game.url(path), method=method, headers={"Authorization": header}
            )
            problem(response, 401, "/problems/unauthorized")
        response = game.client.post(
            game.url("/moves"), json={"card": "6S"}, headers={"Authorization": header}
        )
        problem(response, 401, "/problems/unauthorized")

    def test_another_games_token_is_not_a_seat_here(self, game: Table) -> None:
        other = Table(game.client)
        other.create()
        stranger = {"Authorization": f"Bearer {other.tokens[0]}"}
        for path in ("", "/legal-moves", "/events"):
            body = problem(game.client.get(game.url(path), headers=stranger), 401)
            assert "not a seat token of this game" in body["detail"]
        response = game.client.post(game.url("/moves"), json={"card": "6S"}, headers=stranger)
        problem(response, 401, "/problems/unauthorized")
        assert game.view()["version"] == 1

    def test_the_token_is_the_seat(self, game: Table) -> None:
        """A seat's own token, scheme in any case, reads that seat and no other."""
        response = game.client.get(
            game.url(), headers={"Authorization": f"bearer {game.tokens[1]}"}
        )
        assert response.status_code == 200
        assert response.get_json()["you"] == 1


class TestNotFound:
    def test_an_unknown_game(self, client: FlaskClient, game: Table) -> None:
        headers = game.auth(0)
        unknown = "/v1/games/no-such-game"
        for path in ("", "/legal-moves", "/events", "/hands", "/hands/1"):
            problem(client.get(unknown + path, headers=headers), 404, "/problems/game-not-found")
        response = client.post(unknown + "/moves", json={"card": "6S"}, headers=headers)
        problem(response, 404, "/problems/game-not-found")

    def test_an_unknown_path(self, client: FlaskClient) -> None:
        problem(client.get("/v1/nothing-here"), 404)
        problem(client.get("/"), 404)


class TestConflicts:
    def test_not_your_turn(self, game: Table) -> None:
        response = game.move(1, game.view(1)["hand"][0], [])
        body = problem(response, 409, "/problems/not-your-turn")
        assert "seat 0" in body["detail"]
        assert game.view()["version"] == 1

    def test_a_stale_if_match_is_refused_and_a_current_one_accepted(self, game: Table) -> None:
        etag = game.client.get(game.url()).headers["ETag"]
        assert etag == '"1"'
        first = game.move(0, "6S", ["6D"], headers={"If-Match": etag})
        assert first.status_code == 200
        assert first.headers["ETag"] == '"2"'

        # Seat 1 still holds the ETag it read before seat 0 moved.
        seat1_card = game.view(1)["hand"][0]
        stale = game.move(1, seat1_card, None, headers={"If-Match": etag})
        body = problem(stale, 412, "/problems/version-mismatch")
        assert body["current_version"] == 2
        assert stale.headers["ETag"] == '"2"'
        assert game.view()["version"] == 2
        assert seat1_card in game.view(1)["hand"]

        # Reloaded, it plays with the current version.
        legal = game.legal_moves(1)[0]
        fresh = game.move(1, legal["card"], legal["capture"], headers={"If-Match": '"2"'})
        assert fresh.status_code == 200
        assert fresh.get_json()["state"]["version"] == 3

    @pytest.mark.parametrize("value", ["abc", '"-1"', "", '"1" "2"'])
    def test_an_if_match_that_is_not_a_version(self, game: Table, value: str) -> None:
        response = game.move(0, "6S", ["6D"], headers={"If-Match": value})
        problem(response, 412, "/problems/version-mismatch")
        assert game.view()["version"] == 1

    @pytest.mark.parametrize("value", ['W/"1"', '"2", W/"1"', ' W/"1" '])
    def test_a_weak_tag_never_matches(self, game: Table, value: str) -> None:
        """RFC 9110 13.1.1: If-Match compares entity tags strongly."""
        response = game.move(0, "6S", ["6D"], headers={"If-Match": value})
        assert problem(response, 412, "/problems/version-mismatch")["current_version"] == 1
        assert game.view()["version"] == 1

    @pytest.mark.parametrize("value", ["*", '"1", "2"', '"0", "1"', " * "])
    def test_a_star_or_a_listed_version_matches(self, game: Table, value: str) -> None:
        """``*`` matches the game that exists; a list matches if any tag does."""
        response = game.move(0, "6S", ["6D"], headers={"If-Match": value})
        assert response.status_code == 200
        assert game.view()["version"] == 2


class TestIllegalMoves:
    def test_a_single_match_goes_before_a_sum(self, game: Table) -> None:
        """Seeds 000 and 003: table 2-4-6, a 6 played takes only the 6."""
        response = game.move(0, "6S", ["2B", "4C"])
        body = problem(response, 422, "/problems/illegal-move")
        assert "R4.1" in body["detail"]
        assert body["legal_captures"] == [["6D"]]
        assert game.view()["version"] == 1
        assert game.move(0, "6S", ["6D"]).status_code == 200

    @pytest.mark.parametrize("body", [{"card": "6S"}, {"card": "6S", "capture": None}])
    def test_the_capture_may_be_left_out_for_a_single_move(
        self, game: Table, body: dict[str, Any]
    ) -> None:
        response = game.client.post(game.url("/moves"), json=body, headers=game.auth(0))
        assert response.status_code == 200
        assert response.get_json()["move"]["capture"] == ["6D"]

    def test_a_card_that_can_capture_must_capture(self, game: Table) -> None:
        body = problem(game.move(0, "6S", []), 422, "/problems/illegal-move")
        assert body["legal_captures"] == [["6D"]]

    @pytest.mark.parametrize(
        ("card", "capture", "words"),
        [
            ("7D", [], "not in your hand"),
            ("9C", ["4S", "5C"], "not on the table"),
            ("9C", ["4C", "4C"], "twice"),
            ("9C", ["2B", "4C"], "not a capture"),
        ],
    )
    def test_other_illegal_moves(
        self, game: Table, card: str, capture: list[str], words: str
    ) -> None:
        body = problem(game.move(0, card, capture), 422, "/problems/illegal-move")
        assert words in body["detail"]
        assert game.view()["version"] == 1


def test_an_ambiguous_move_lists_the_choices(table: Table) -> None:
    """Two fives on the table and a five in hand: which one must be said."""
    table.create(
        deck=deck_starting_with("5D", "1C", "2C", "1B", "3B", "8S", "5C", "5S", "9D", "7B"),
        first_dealer=1,
    )
    assert table.view()["table"] == listed(["5C", "5S", "9D", "7B"])
    body = problem(table.move(0, "5D"), 422, "/problems/ambiguous-move")
    assert sorted(body["legal_captures"]) == [["5C"], ["5S"]]
    assert table.view()["version"] == 1
    response = table.move(0, "5D", ["5S"])
    assert response.status_code == 200
    assert response.get_json()["state"]["table"] == listed(["5C", "9D", "7B"])


class TestTransport:
    def test_a_body_that_is_not_json(self, client: FlaskClient, game: Table) -> None:
        for path in ("/v1/games", game.url("/moves"), "/v1/legal-moves", "/v1/score"):
            response = client.post(
                path, data="{not json", content_type="application/json", headers=game.auth(0)
            )
            problem(response, 400, "/problems/invalid-json")

    @pytest.mark.parametrize(
        "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
    )
    def test_a_body_that_is_not_sent_as_json(
        self, client: FlaskClient, game: Table, content_type: str
    ) -> None:
        for path in ("/v1/games", game.url("/moves"), "/v1/legal-moves"):
            response = client.post(
                path, data='{"card": "6S"}', content_type=content_type, headers=game.auth(0)
            )
            body = problem(response, 415, "/problems/unsupported-media-type")
            assert "application/json" in body["detail"]
        assert game.view()["version"] == 1

    def test_a_huge_body(self, client: FlaskClient, game: Table) -> None:
        huge = json.dumps({"seats": [{"name": "x" * 40}] * 3000})
        assert len(huge) > 64 * 1024
        for path in ("/v1/games", game.url("/moves"), "/v1/score"):
            response = client.post(
                path, data=huge, content_type="application/json", headers=game.auth(0)
            )
            problem(response, 413)

    @pytest.mark.parametrize(
        ("method", "path", "allowed"),
        [
            ("PATCH", "/v1/games/{id}", {"GET", "DELETE"}),
            ("PUT", "/v1/games/{id}", {"GET"}),
            ("PUT", "/v1/games", {"GET", "POST"}),
            ("GET", "/v1/games/{id}/moves", {"POST"}),
            ("POST", "/v1/games/{id}/legal-moves", {"GET"}),
            ("GET", "/v1/legal-moves", {"POST"}),
            ("PATCH", "/v1/score", {"POST"}),
            ("POST", "/healthz", {"GET"}),
        ],
    )
    def test_a_method_the_resource_does_not_have(
        self, game: Table, method: str, path: str, allowed: set[str]
    ) -> None:
        response = game.client.open(path.format(id=game.game_id), method=method)
        problem(response, 405)
        assert allowed <= {m.strip() for m in response.headers["Allow"].split(",")}


class TestCreateBodies:
    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"players": 5}, "players"),
            ({"players": 1}, "players"),
            ({"target": 0}, "target"),
            ({"target": 101}, "target"),
            ({"colour": "red"}, "colour"),
            ({"rules": {"scopone": True}}, "rules"),
            ({"rules": {"forced_capture": "always"}}, "rules"),
            ({"variant": "briscola"}, "variant"),
            ({"deck": ALL_CARDS[:39]}, "deck"),
            ({"deck": [*ALL_CARDS[:39], "11D"]}, "deck"),
            ({"first_dealer": 6}, "first_dealer"),
            ({"first_dealer": -1}, "first_dealer"),
            ({"seed": -1}, "seed"),
            ({"seats": [{"name": "Solo"}]}, "seats"),
            ({"seats": [{"name": ""}, {"name": "B"}]}, "seats"),
            ({"seats": [{"name": "A"}, {"name": "B"}], "token": "x"}, "token"),
        ],
    )
    def test_invalid_fields_are_named(
        self, client: FlaskClient, body: dict[str, Any], field: str
    ) -> None:
        response = client.post("/v1/games", json=body)
        details = problem(response, 422, "/problems/validation")
        assert list(details["errors"]) == [field]
        assert field in details["detail"]

    @pytest.mark.parametrize(
        ("body", "words"),
        [
            ({"players": 2, "first_dealer": 2}, "first_dealer 2"),
            ({"players": 4, "first_dealer": 5}, "first_dealer 5"),
            ({"seats": [{"name": "A"}, {"name": "B"}], "players": 3}, "players is 3"),
            ({"seats": [{"name": n} for n in "ABCDE"]}, "not 5"),
            ({"deck": [*ALL_CARDS[:39], "1D"]}, "each of the 40 cards"),
        ],
    )
    def test_a_match_that_cannot_exist(
        self, client: FlaskClient, body: dict[str, Any], words: str
    ) -> None:
        details = problem(client.post("/v1/games", json=body), 422, "/problems/invalid-setup")
        assert words in details["detail"]

    def test_a_rejected_body_stores_nothing(self, client: FlaskClient, redis_url: str) -> None:
        assert client.post("/v1/games", json={"players": 5}).status_code == 422
        with redis.Redis.from_url(redis_url) as store:
            assert store.dbsize() == 0

    def test_non_integral_numbers_are_refused(self, client: FlaskClient) -> None:
        """`target`, `players`, `seed` and `first_dealer` are integers: 11.5 is not a
        target, and silently truncating it gives the client a match it did not ask for."""
        for body in ({"target": 11.5}, {"players": 2.5}, {"seed": 7.25}, {"first_dealer": 0.5}):
            response = client.post("/v1/games", json=body)
            details = problem(response, 422)
            assert list(details["errors"]) == list(body)

    def test_values_of_the_wrong_json_type_are_refused(self, client: FlaskClient) -> None:
        """No coercion: "12" is not a target, "yes" and 1 are not booleans, true is not
        a player count."""
        for body in (
            {"target": "12"},
            {"players": True},
            {"rules": {"re_bello": "yes"}},
            {"rules": {"napola": 1}},
        ):
            response = client.post("/v1/games", json=body)
            details = problem(response, 422)
            assert list(details["errors"]) == list(body)

    @pytest.mark.parametrize(
        "name",
        [
            "Ana\x00",
            "\x1b[31mred",
            "tab\there",
            "\ud800",
            " ",  # blank
            "\u3000\u00a0",  # blank in other scripts
            "\u200b",  # zero-width space
            "Ana\u200d",  # zero-width joiner
            "\u202egnub",  # right-to-left override
            "\u2066Ana\u2069",  # an isolate
            "\ufeffAna",  # zero-width no-break space
            "A\u2028B",  # line separator
            "\u0301",  # a combining mark alone
            # Issue 26, item 9: what shows nothing, or draws over its neighbours.
            "\u3164",  # Hangul filler (a letter that draws blank)
            "\uffa0\uffa0",  # halfwidth Hangul filler
            "\u2800",  # blank braille pattern
            "\u3164\u0301 \u2800",  # all of them, with a mark
            "Z" + "\u0301" * 39,  # 39 stacked combining marks
            "Ana\u0378",  # an unassigned code point
            "Ana\U000e0001",  # a tag (format, default-ignorable)
            "\ue000",  # private use
            "x" * 41,  # over 40 characters
            "e\u0301" * 41,  # 41 characters of two code points each
        ],
    )
    def test_a_seat_name_must_be_printable_text(self, client: FlaskClient, name: str) -> None:
        body = json.dumps({"seats": [{"name": name}, {"name": "Bruno"}]})  # \ud800 escaped
        response = client.post("/v1/games", data=body, content_type="application/json")
        assert problem(response, 422)["errors"]["seats"]

    @pytest.mark.parametrize("name", ["Ana", "José Ñúñez", "李雷", "محمد", "🂡 Ace", "Zoë-2"])
    def test_names_in_any_script_are_welcome(self, client: FlaskClient, name: str) -> None:
        response = client.post("/v1/games", json={"seats": [{"name": name}, {"name": "B"}]})
        assert response.status_code == 201
        assert response.get_json()["seats"][0]["name"] == name

    @pytest.mark.parametrize(
        "name",
        ["Nguyê\u0303n", "e\u0301" * 40, "한국어", "\u1112\u1161\u11ab", "👍🏽 Zoë", "x" * 40],
    )
    def test_names_are_counted_as_a_reader_sees_them(self, client: FlaskClient, name: str) -> None:
        """40 grapheme clusters, whatever their code points; marks a script needs."""
        response = client.post("/v1/games", json={"seats": [{"name": name}, {"name": "B"}]})
        assert response.status_code == 201, response.get_json()

    def test_names_are_stored_nfc_normalised(self, client: FlaskClient) -> None:
        created = client.post(
            "/v1/games", json={"seats": [{"name": "Zoe\u0308"}, {"name": "B"}]}
        ).get_json()
        assert created["seats"][0]["name"] == "Zo\u00eb"
        game = client.get(f"/v1/games/{created['id']}").get_json()
        assert game["seats"][0]["name"] == "Zo\u00eb"

    @pytest.mark.parametrize("name", ["\u3164", "\u2800", "A" + "\u0301" * 39, "B\u0378"])
    def test_a_joiners_name_is_held_to_the_same_rules(self, client: FlaskClient, name: str) -> None:
        created = client.post(
            "/v1/games", json={"seats": [{"name": "Ann"}, {"open": True}]}
        ).get_json()
        code = created["join"]["code"]
        joined = client.post(f"/v1/games/{created['id']}/join", json={"name": name, "code": code})
        assert problem(joined, 422)["errors"]["name"]


# ---------------------------------------------------------------------------- garbage

DEEP_ARRAY = "[" * 30000 + "]" * 30000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000  # under the 64 KiB limit
HUGE_LITERAL = '{"target": 1' + "0" * 5000 + "}"
NESTED = {"rules": {"re_bello": {"a": {"b": {"c": [[[[None]]]]}}}}}

GARBAGE: list[tuple[str, str, Any]] = [
    # (name, path, body: a JSON-able value, or a str sent as it is)
    ("create-null", "/v1/games", "null"),
    ("create-array", "/v1/games", "[]"),
    ("create-string", "/v1/games", '"scopa"'),
    ("create-number", "/v1/games", "42"),
    ("create-true", "/v1/games", "true"),
    ("create-trailing", "/v1/games", "{}}"),
    ("create-players-string", "/v1/games", {"players": "two"}),
    ("create-players-list", "/v1/games", {"players": [2]}),
    ("create-players-object", "/v1/games", {"players": {"n": 2}}),
    ("create-players-huge", "/v1/games", {"players": 2**64}),
    ("create-players-bool", "/v1/games", {"players": True}),
    ("create-target-null", "/v1/games", {"target": None}),
    ("create-target-huge", "/v1/games", {"target": 10**30}),
    ("create-target-tiny", "/v1/games", {"target": -1e308}),
    ("create-target-inf", "/v1/games", '{"target": Infinity}'),
    ("create-target-nan", "/v1/games", '{"target": NaN}'),
    ("create-target-huge-float", "/v1/games", '{"target": 1e400}'),
    ("create-seed-huge", "/v1/games", {"seed": 2**63}),
    ("create-seed-string", "/v1/games", {"seed": "seed"}),
    ("create-variant-number", "/v1/games", {"variant": 7}),
    ("create-variant-unicode", "/v1/games", {"variant": "scöpa"}),
    ("create-variant-case", "/v1/games", {"variant": "SCOPA"}),
    ("create-rules-list", "/v1/games", {"rules": []}),
    ("create-rules-string", "/v1/games", {"rules": "any"}),
    ("create-rules-nested", "/v1/games", NESTED),
    ("create-seats-string", "/v1/games", {"seats": "ab"}),
    ("create-seats-nulls", "/v1/games", {"seats": [None, None]}),
    ("create-seats-empty-objects", "/v1/games", {"seats": [{}, {}]}),
    ("create-seats-number-names", "/v1/games", {"seats": [{"name": 1}, {"name": 2}]}),
    ("create-seats-long-name", "/v1/games", {"seats": [{"name": "🂡" * 41}, {"name": "b"}]}),
    ("create-seats-seven", "/v1/games", {"seats": [{"name": str(i)} for i in range(7)]}),
    ("create-deck-string", "/v1/games", {"deck": "all"}),
    ("create-deck-lowercase", "/v1/games", {"deck": [c.lower() for c in ALL_CARDS]}),
    ("create-deck-nulls", "/v1/games", {"deck": [None] * 40}),
    ("create-deck-nested", "/v1/games", {"deck": [[c] for c in ALL_CARDS]}),
    ("create-deck-41", "/v1/games", {"deck": [*ALL_CARDS, "7D"]}),
    ("create-unicode-key", "/v1/games", {"ß": 1, "名前": "x"}),
    ("create-deep-array", "/v1/games", DEEP_ARRAY),
    ("create-deep-object", "/v1/games", DEEP_OBJECT),
    ("create-huge-int-literal", "/v1/games", HUGE_LITERAL),
    ("move-empty", "/v1/games/{id}/moves", {}),
    ("move-null", "/v1/games/{id}/moves", "null"),
    ("move-array", "/v1/games/{id}/moves", '["6S"]'),
    ("move-card-null", "/v1/games/{id}/moves", {"card": None}),
    ("move-card-number", "/v1/games/{id}/moves", {"card": 6}),
    ("move-card-lowercase", "/v1/games/{id}/moves", {"card": "6s"}),
    ("move-card-list", "/v1/games/{id}/moves", {"card": ["6S"]}),
    ("move-card-unicode", "/v1/games/{id}/moves", {"card": "6♠"}),
    ("move-capture-string", "/v1/games/{id}/moves", {"card": "6S", "capture": "6D"}),
    ("move-capture-nested", "/v1/games/{id}/moves", {"card": "6S", "capture": [["6D"]]}),
    ("move-capture-nulls", "/v1/games/{id}/moves", {"card": "6S", "capture": [None]}),
    ("move-capture-unknown", "/v1/games/{id}/moves", {"card": "6S", "capture": ["0D"]}),
    ("move-extra-field", "/v1/games/{id}/moves", {"card": "6S", "seat": 1}),
    ("move-deep-array", "/v1/games/{id}/moves", DEEP_ARRAY),
    ("legal-hand-string", "/v1/legal-moves", {"hand": "6S"}),
    ("legal-hand-nested", "/v1/legal-moves", {"hand": [["6S"]]}),
    ("legal-hand-null", "/v1/legal-moves", {"hand": None}),
    ("legal-table-object", "/v1/legal-moves", {"hand": ["6S"], "table": {"6D": True}}),
    ("legal-rules-null", "/v1/legal-moves", {"hand": ["6S"], "rules": None}),
    ("legal-variant-null", "/v1/legal-moves", {"hand": ["6S"], "variant": None}),
    ("legal-huge-int-literal", "/v1/legal-moves", '{"hand": [1' + "0" * 5000 + "]}"),
    ("score-piles-string", "/v1/score", {"piles": "7D"}),
    ("score-piles-numbers", "/v1/score", {"piles": [[7], [1]]}),
    ("score-scopas-strings", "/v1/score", {"piles": [[], []], "scopas": ["a", "b"]}),
    ("score-scopas-negative", "/v1/score", {"piles": [[], []], "scopas": [-1, 0]}),
    ("score-scopas-huge", "/v1/score", {"piles": [[], []], "scopas": [2**70, 0]}),
    ("score-scopas-inf", "/v1/score", '{"piles": [[], []], "scopas": [Infinity, 0]}'),
    ("score-deep-object", "/v1/score", DEEP_OBJECT),
]


@pytest.mark.parametrize(("path", "body"), [g[1:] for g in GARBAGE], ids=[g[0] for g in GARBAGE])
def test_garbage_bodies_get_a_problem_not_a_500(game: Table, path: str, body: Any) -> None:
    data = body if isinstance(body, str) else json.dumps(body)
    response = game.client.post(
        path.format(id=game.game_id),
        data=data,
        content_type="application/json",
        headers=game.auth(0),
    )
    assert response.status_code < 500, response.get_data(as_text=True)[:300]
    body_out = problem(response, response.status_code)
    assert response.status_code in (400, 413, 422), body_out
    assert game.view()["version"] == 1


GARBAGE_PATHS = [
    "/v1/games/%00",
    "/v1/games/..%2F..%2Fetc%2Fpasswd",
    "/v1/games/" + "é" * 200,
    "/v1/games/" + "a" * 4000,
    "/v1/games/{id}%20",
    "/v1/games/{id}/hands/abc",
    "/v1/games/{id}/hands/-1",
    "/v1/games/{id}/hands/99999999999999999999999999",
    "/v1/games/{id}/hands/2",
    "/v1/games/{id}/nothing",
    "/v1/games/{id}/legal-moves/extra",
    "/v1/games/{id}/events/0",
    "/v1/games/*",
    "/v1/games/{id}/../..",
    "/v1/%E2%28%A1",
]


@pytest.mark.parametrize("path", GARBAGE_PATHS)
def test_garbage_paths_get_a_problem_not_a_500(game: Table, path: str) -> None:
    response = game.client.get(path.format(id=game.game_id), headers=game.auth(0))
    assert response.status_code < 500
    if response.status_code >= 400:
        problem(response, response.status_code)


@pytest.mark.parametrize(
    "header",
    [
        "Bearer " + "x" * 8000,
        "Bearer \u00e9\u00e8",
        "Bearer a b c",
        "Bearer\ttab",
        "Bearer " + "\u00ff" * 20,
    ],
)
def test_garbage_tokens_get_a_401(game: Table, header: str) -> None:
    response = game.client.get(game.url("/legal-moves"), headers={"Authorization": header})
    problem(response, 401, "/problems/unauthorized")
