"""The checked-in OpenAPI document is the contract: it must be what the app serves."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import marshmallow as ma
import pytest
from apispec import APISpec
from flask import Flask
from flask.testing import FlaskClient

from service.api import examples
from service.api.game_views.events import EVENT_SCHEMAS
from service.api.openapi import ContractPlugin
from service.api.problems import ProblemType
from service.bots import BOT_LEVELS
from service.engine import DECK, VARIANTS, EventKind, Match, Rules, Status, event_view
from service.engine.match import Event
from service.engine.variants.cirulla import CaptureKind
from tests import schema_names
from tests.helpers import Table, random_turn

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_the_checked_in_spec_is_the_served_spec(client: FlaskClient) -> None:
    served = client.get("/openapi.json").get_json()
    assert served == json.loads(SPEC.read_text()), "the spec drifted: run `make openapi`"


def test_the_spec_is_served_once_prepared_with_an_etag(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    """The same bytes every time, an ETag that a client sends back for a 304 without a
    body; and counted by the per-address limit like any other request."""
    client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=4).test_client()
    first = client.get("/openapi.json")
    assert first.status_code == 200 and first.mimetype == "application/json"
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "public, no-cache"
    again = client.get("/openapi.json")
    assert again.data == first.data and again.headers["ETag"] == etag
    unchanged = client.get("/openapi.json", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.data == b""
    assert unchanged.headers["ETag"] == etag
    stale = client.get("/openapi.json", headers={"If-None-Match": '"not-it"'})
    assert stale.status_code == 200 and stale.data == first.data
    limited = client.get("/openapi.json")  # the fifth request from this address
    assert limited.status_code == 429
    assert limited.mimetype == "application/problem+json"


def test_every_operation_documents_its_errors_as_problem_json(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").get_json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters" or path == "/healthz":
                continue
            errors = {s: r for s, r in operation["responses"].items() if s[0] in "45"}
            assert errors, f"{method.upper()} {path} documents no error"
            for status, response in errors.items():
                content = response.get("content") or {}
                assert list(content) == ["application/problem+json"], (method, path, status)


def test_the_docs_ui_is_served(client: FlaskClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200
    assert b"swagger" in response.data.lower()


def test_every_operation_has_a_name_and_says_who_may_call_it() -> None:
    """Generated clients name their functions after operationIds (createGame, playMove,
    ...), and call an operation with no token when its security is empty."""
    spec = json.loads(SPEC.read_text())
    names = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            names.append(operation["operationId"])
            assert "security" in operation, (method, path)
    assert len(names) == len(set(names))
    assert {"createGame", "playMove", "getGame", "getEventLog"} <= set(names)
    assert spec["servers"]


def test_response_properties_that_are_always_there_are_required() -> None:
    """Generated clients type a required property as present (no non-null assertions, no
    isinstance checks). The live contract tests (tests/test_fuzz.py) check every answer
    against these lists, so a property marked required is never missing."""
    schemas = json.loads(SPEC.read_text())["components"]["schemas"]
    view = schemas["GameView"]
    # a seat's own hand, and Cirulla's kept value of the 7C (C5.2)
    assert set(view["required"]) == set(view["properties"]) - {"hand", "matta_as"}
    seat = schemas["SeatView"]  # Cirulla's declared cards and points (C3)
    # and the platform's player id, only to the key that created the game and to the seat
    assert set(seat["required"]) == set(seat["properties"]) - {
        "exposed",
        "declared_points",
        "player_id",
    }
    for name in (
        "GameCreated",
        "MoveResult",
        "Declared",
        "LegalMove",
        "LegalDeclaration",
        "SeatMoves",
        "HandScore",
        "Hint",
        "MoveAnalyses",
        "MoveAnalysis",
    ):
        assert set(schemas[name]["required"]) == set(schemas[name]["properties"]), name
    assert set(schemas["Problem"]["required"]) == {"type", "title", "status", "detail"}
    for kind, ref in schemas["Event"]["discriminator"]["mapping"].items():
        event = schemas[ref.rpartition("/")[2]]
        optional = EVENT_SCHEMAS[kind].optional  # a few fields of some kinds
        # every event carries its place in the log, wherever it is read
        assert {"seq", "type"} <= set(event["required"]), kind
        assert set(event["required"]) == set(event["properties"]) - optional, kind


def test_the_join_code_has_one_shape_in_every_answer() -> None:
    """Always there, null when the reader has no code to pass on: a generated client has
    one type for it (``JoinInfo | None``), in the creation's answer and in every view."""
    schemas = json.loads(SPEC.read_text())["components"]["schemas"]
    shape = {"anyOf": [{"$ref": "#/components/schemas/JoinInfo"}, {"type": "null"}]}
    for name in ("GameCreated", "GameView"):
        join = schemas[name]["properties"]["join"]
        assert {k: v for k, v in join.items() if k != "description"} == shape, name
        assert "join" in schemas[name]["required"], name


def test_no_enum_lists_null_among_its_values() -> None:
    """A nullable enum is ``anyOf`` [its values, null]: with ``null`` among the values,
    openapi-python-client made three identical enum classes of MoveEvent.kind."""
    spec = json.loads(SPEC.read_text())
    nulls = [
        path for path, node in walk(spec) if isinstance(node, dict) and None in node.get("enum", ())
    ]
    assert nulls == []
    kind = spec["components"]["schemas"]["MoveEvent"]["properties"]["kind"]
    assert kind["anyOf"] == [{"$ref": "#/components/schemas/CaptureKind"}, {"type": "null"}]


def test_the_converter_writes_a_nullable_inline_enum_as_any_of() -> None:
    """Any field that may be null and takes a set of values, named or not."""
    plugin = ContractPlugin()
    APISpec("t", "1", "3.1.0", plugins=[plugin])
    field = ma.fields.String(allow_none=True, validate=ma.validate.OneOf(["a", "b"]))
    field.metadata["description"] = "Either."
    assert plugin.converter.field2property(field) == {
        "anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
        "description": "Either.",
    }


def test_no_schema_is_named_like_one_of_its_properties() -> None:
    """openapi-python-client#1117: ``Level`` with a ``level`` made 6 mypy errors in the
    generated client. `make lint` runs the same check (tests/schema_names.py)."""
    assert schema_names.collisions(json.loads(SPEC.read_text())) == []
    sample = {
        "components": {
            "schemas": {
                "Level": {"properties": {"level": {}}},
                "PileCounts": {"properties": {"pile-counts": {}}},
                "SeatMoves": {"properties": {"seat": {}, "moves": {}}},
            }
        }
    }
    found = schema_names.collisions(sample)
    assert [line.split()[0] for line in found] == [
        "components.schemas.Level",
        "components.schemas.PileCounts",
    ]


def test_the_conditional_gets_document_their_304_without_a_body() -> None:
    spec = json.loads(SPEC.read_text())
    conditional = [
        (path, method)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if method != "parameters"
        and "If-None-Match" in {p["name"] for p in operation.get("parameters", [])}
    ]
    assert {("/v1/games/{game_id}", "get"), ("/v1/games/{game_id}/events", "get")} <= set(
        conditional
    )
    for path, method in conditional:
        answer = spec["paths"][path][method]["responses"]["304"]
        assert "content" not in answer and "ETag" in answer["headers"], path
        assert "no body" in answer["description"], path


def test_a_stale_if_match_retry_is_documented() -> None:
    """A retried move whose If-Match went stale (because of the move itself) gets the
    stored 200 (tests/test_api_idempotency.py): If-Match, Idempotency-Key and the 412
    say so."""
    move = json.loads(SPEC.read_text())["paths"]["/v1/games/{game_id}/moves"]["post"]
    headers = {p["name"]: p["description"] for p in move["parameters"] if p["in"] == "header"}
    assert "stored 200" in headers["If-Match"]
    assert "stale" in headers["Idempotency-Key"]
    assert "stored 200" in move["responses"]["412"]["description"]


def test_the_spec_names_its_license() -> None:
    info = json.loads(SPEC.read_text())["info"]
    assert info["license"] == {"name": "Apache 2.0", "identifier": "Apache-2.0"}
    assert "Apache License" in (SPEC.parent.parent / "LICENSE").read_text()


# --------------------------------------------------------------------------- named schemas


def walk(node: Any, path: str = "#") -> Iterator[tuple[str, Any]]:
    """Every (JSON pointer, value) of ``node``, itself included."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}/{i}")


NAMED = {
    "Card": [card.code for card in DECK],
    "BotLevel": list(BOT_LEVELS),
    "Variant": list(VARIANTS),
    "ProblemType": [t.value for t in ProblemType],
    "CaptureKind": [k.value for k in CaptureKind],
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_each_value_of_a_named_set_has_a_stable_name(name: str) -> None:
    """``x-enum-varnames``: a generated client's members are ``Card.SEVEN_OF_COINS``, not
    ``Card.VALUE_27``, which would name another card once a value was added before it."""
    named = json.loads(SPEC.read_text())["components"]["schemas"][name]
    names = named["x-enum-varnames"]
    assert len(names) == len(set(names)) == len(named["enum"])
    assert all(n.isidentifier() and n == n.upper() and not n[0].isdigit() for n in names)
    expected = {
        "Card": {"7D": "SEVEN_OF_COINS", "10S": "KING_OF_SWORDS", "1B": "ACE_OF_CLUBS"},
        "ProblemType": {t.value: t.name for t in ProblemType},
        "BotLevel": {"greedy": "GREEDY"},
        "Variant": {"scopa": "SCOPA"},
        "CaptureKind": {"ace_sweep": "ACE_SWEEP"},
    }[name]
    assert {v: n for v, n in zip(named["enum"], names, strict=True) if v in expected} == expected


@pytest.mark.parametrize("name", sorted(NAMED))
def test_a_set_of_values_is_one_named_schema_that_fields_refer_to(name: str) -> None:
    """Generated clients get one type per set (``Card``, ...), not one per field."""
    spec = json.loads(SPEC.read_text())
    named = spec["components"]["schemas"][name]
    assert named["type"] == "string" and named["enum"] == NAMED[name]
    assert named["description"] and set(named["examples"]) <= set(NAMED[name])
    ref = f"#/components/schemas/{name}"
    refs = [
        path
        for path, node in walk(spec)
        if node == {"$ref": ref} or (isinstance(node, dict) and node.get("$ref") == ref)
    ]
    assert refs, f"no field refers to {name}"
    inline = [
        path
        for path, node in walk(spec)
        if isinstance(node, dict)
        and isinstance(node.get("enum"), list)
        and set(node["enum"]) - {None} <= set(NAMED[name])
        and len(set(node["enum"]) - {None}) > 1
        and path != f"#/components/schemas/{name}"
    ]
    assert not inline, f"{name} spelled out instead of referred to at {inline}"


def test_card_fields_refer_to_the_card_schema() -> None:
    schemas = json.loads(SPEC.read_text())["components"]["schemas"]
    card = {"$ref": "#/components/schemas/Card"}
    assert schemas["MoveRequest"]["properties"]["card"]["$ref"] == card["$ref"]
    assert schemas["GameView"]["properties"]["hand"]["items"] == card
    assert schemas["Problem"]["properties"]["legal_captures"]["items"]["items"] == card
    assert schemas["Problem"]["properties"]["type"]["$ref"] == "#/components/schemas/ProblemType"


# --------------------------------------------------------------------------- the Event union


def union_members(schemas: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The schema of each event type, from the union's discriminator."""
    union = schemas["Event"]
    mapping = union["discriminator"]["mapping"]
    assert union["discriminator"]["propertyName"] == "type"
    assert [m["$ref"] for m in union["oneOf"]] == list(mapping.values())
    return {kind: schemas[ref.rpartition("/")[2]] for kind, ref in mapping.items()}


def test_the_event_union_has_one_schema_per_event_type() -> None:
    schemas = json.loads(SPEC.read_text())["components"]["schemas"]
    members = union_members(schemas)
    lobby = {"seat_joined", "seat_left", "rematch"}
    assert set(members) == {k.value for k in EventKind} | lobby
    for kind, member in members.items():
        assert member["properties"]["type"] == {"type": "string", "enum": [kind]}
    event = {"$ref": "#/components/schemas/Event"}
    for name in ("GameCreated", "MoveResult", "BotMoves", "EventLog"):
        assert schemas[name]["properties"]["events"]["items"] == event, name


def validator(spec: dict[str, Any], schema: dict[str, Any]) -> jsonschema_rs.Validator:
    """A JSON Schema validator of ``schema``, a schema of ``spec`` (OpenAPI 3.1's schemas
    are JSON Schema 2020-12), its references resolved in ``spec``."""
    return jsonschema_rs.Draft202012Validator({**schema, "components": spec["components"]})


def viewed(events: list[Event], players: int) -> Iterator[Event]:
    """``events`` as each seat and a spectator see them, ``seq`` added as in the log."""
    for seq, event in enumerate(events):
        for viewer in [None, *range(players)]:
            yield {"seq": seq, **event_view(event, viewer)}


def whole_match(variant: str, seed: int, rules: Rules | None = None) -> Iterator[Event]:
    """Every event of a whole match of random moves (and, in Cirulla, a declaration
    whenever one is legal, half the time), as every viewer sees it."""
    rng = random.Random(seed)
    match, events = Match.new(variant=variant, seed=seed, rules=rules)
    while match.status is Status.PLAYING:
        events += random_turn(match, rng)
    return viewed(events, match.players)


#: The variants of the engine, each with its default rules; and Cirulla with
#: auto_declare too, for the declarations the service makes, and table_low.
ENGINE_VARIANTS: list[tuple[str, Rules | None]] = [
    *((name, None) for name in VARIANTS),
    ("cirulla", Rules(auto_declare=True, table_low=True)),
]


def rare_starts(variant: str) -> Iterator[Event]:
    """The first events of the matches, of a few thousand seeds, that start with what a
    whole match seldom has: a redeal (three kings or more on the table), or escoba's
    dealer bonus (a first table of 15)."""
    for seed in range(2000):
        match, events = Match.new(variant=variant, seed=seed)
        if {e["type"] for e in events} & {"redeal", "dealer_bonus"}:
            yield from viewed(events, match.players)


def test_every_event_the_engine_emits_is_an_event_of_the_spec() -> None:
    """The union cannot drift from the engine: every event of whole matches of every
    variant, in every viewer's view, matches the schema its type names and no other, and
    has no field that schema leaves out (the answer would drop it)."""
    spec = json.loads(SPEC.read_text())
    members = union_members(spec["components"]["schemas"])
    union = validator(spec, {"$ref": "#/components/schemas/Event"})
    own = {kind: validator(spec, member) for kind, member in members.items()}
    seen: set[str] = set()
    for variant, rules in ENGINE_VARIANTS:
        for event in itertools.chain(
            *(whole_match(variant, s, rules) for s in range(3)), rare_starts(variant)
        ):
            kind = event["type"]
            seen.add(kind)
            union.validate(event)
            own[kind].validate(event)
            assert set(event) <= set(members[kind]["properties"]), (kind, event)
            assert [k for k, v in own.items() if v.is_valid(event)] == [kind]
    # (the service's own events: the lobby's, a rematch, an abort)
    assert seen == {k.value for k in EventKind} - {"seat_joined", "seat_left", "rematch", "aborted"}


# --------------------------------------------------------------------------- examples


def media_examples(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(operationId, where, media type object) of every example of a body or answer."""
    for operations in spec["paths"].values():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            bodies = operation.get("requestBody", {}).get("content", {})
            for media_type, media in bodies.items():
                yield operation["operationId"], f"request {media_type}", media
            for status, response in operation["responses"].items():
                for media_type, media in response.get("content", {}).items():
                    yield operation["operationId"], f"{status} {media_type}", media


def example_of(spec: dict[str, Any], operation_id: str, where: str) -> Any:
    found = [m["example"] for o, w, m in media_examples(spec) if (o, w) == (operation_id, where)]
    assert len(found) == 1, (operation_id, where)
    return found[0]


def test_every_body_and_the_main_answers_have_an_example_that_fits_its_schema() -> None:
    spec = json.loads(SPEC.read_text())
    shown = set()
    for operation_id, where, media in media_examples(spec):
        if "example" in media:
            shown.add((operation_id, where))
            errors = [
                e.message for e in validator(spec, media["schema"]).iter_errors(media["example"])
            ]
            assert not errors, (operation_id, where, errors)
        elif where.startswith("request"):
            raise AssertionError(f"{operation_id}: a request body without an example")
    assert shown >= {
        ("createGame", "201 application/json"),
        ("getGame", "200 application/json"),
        ("listLegalMoves", "200 application/json"),
        ("playMove", "200 application/json"),
        ("playMove", "422 application/problem+json"),
        ("declare", "200 application/json"),
        ("getEventLog", "200 application/json"),
    }


def test_the_examples_are_what_the_service_answers(client: FlaskClient) -> None:
    """The examples are one exchange (service/api/examples.py): replayed, the service
    answers each (its random game id and tokens aside) as the spec shows it."""
    spec = json.loads(SPEC.read_text())
    created = client.post(
        "/v1/games", json=example_of(spec, "createGame", "request application/json")
    )
    assert created.status_code == 201
    shown = example_of(spec, "createGame", "201 application/json")
    token = created.get_json()["seats"][0]["token"]

    def same(response: Any, operation_id: str, where: str) -> None:
        """``response`` is the example, but for the game id and Ana's token."""
        text = response.get_data(as_text=True)
        text = text.replace(created.get_json()["id"], shown["id"]).replace(
            token, shown["seats"][0]["token"]
        )
        assert response.status_code == int(where.split()[0]), text
        assert json.loads(text) == example_of(spec, operation_id, where), operation_id

    url = f"/v1/games/{created.get_json()['id']}"
    ana = {"Authorization": f"Bearer {token}"}
    same(created, "createGame", "201 application/json")
    same(client.get(url, headers=ana), "getGame", "200 application/json")
    same(client.get(url + "/legal-moves", headers=ana), "listLegalMoves", "200 application/json")
    move = example_of(spec, "playMove", "request application/json")
    ambiguous = client.post(url + "/moves", headers=ana, json={"card": move["card"]})
    same(ambiguous, "playMove", "422 application/problem+json")
    same(client.post(url + "/moves", headers=ana, json=move), "playMove", "200 application/json")
    same(client.get(url + "/events", headers=ana), "getEventLog", "200 application/json")
    same(client.get("/v1/games/nosuchgame"), "getGame", "404 application/problem+json")

    # Cirulla's exchange: Ana declares (service/api/examples.py)
    created = client.post("/v1/games", json=examples.CIRULLA_CREATE)
    assert created.status_code == 201
    token = created.get_json()["seats"][0]["token"]
    url = f"/v1/games/{created.get_json()['id']}"
    ana = {"Authorization": f"Bearer {token}"}
    legal = client.get(url + "/legal-moves", headers=ana).get_json()["declarations"]
    assert legal == [{"declare": "buona", "matta_as": None, "points": 3}]
    declare = example_of(spec, "declare", "request application/json")
    same(
        client.post(url + "/declarations", headers=ana, json=declare),
        "declare",
        "200 application/json",
    )
    for operation_id, path in [
        ("positionLegalMoves", "/v1/legal-moves"),
        ("scoreHand", "/v1/score"),
    ]:
        body = example_of(spec, operation_id, "request application/json")
        same(client.post(path, json=body), operation_id, "200 application/json")
    hint = client.post(
        "/v1/hint", json=example_of(spec, "getPositionHint", "request application/json")
    )
    assert hint.status_code == 200


def test_the_lobby_events_of_a_game_log_are_events_of_the_spec(client: FlaskClient) -> None:
    """A seat taken, left and taken again, a whole match, a rematch: the log, as a seat
    and a spectator read it, holds only events of the spec, with no field left out."""
    spec = json.loads(SPEC.read_text())
    members = union_members(spec["components"]["schemas"])
    union = validator(spec, {"$ref": "#/components/schemas/Event"})
    table = Table(client)
    created = table.create(seats=[{"name": "Ana"}, {"open": True}, {"open": True}])
    code = created["join"]["code"]
    first = client.post(table.url("/join"), json={"name": "Bruno", "code": code}).get_json()
    left = client.post(table.url("/leave"), headers={"Authorization": f"Bearer {first['token']}"})
    assert left.status_code == 204
    for name in ("Bruno", "Carla"):  # the last seat taken starts the match
        joined = client.post(table.url("/join"), json={"name": name, "code": code}).get_json()
        table.tokens[joined["seat"]] = joined["token"]
    table.play_to_end(random.Random(4))
    assert client.post(table.url("/rematch"), headers=table.auth(0)).status_code == 201
    seen = set()
    for headers in ({}, table.auth(1)):
        response = client.get(table.url("/events"), headers=headers)
        assert response.status_code == 200
        for event in response.get_json()["events"]:
            seen.add(event["type"])
            union.validate(event)
            assert set(event) <= set(members[event["type"]]["properties"]), event
    assert {"seat_joined", "seat_left", "rematch", "match_over"} <= seen


def test_every_query_parameter_an_operation_reads_is_in_the_spec() -> None:
    """The query parameters each operation parses are documented, header parameters
    beside them (the events' `after` was once lost behind If-None-Match)."""
    spec = json.loads(SPEC.read_text())
    reads = {
        ("/v1/games/{game_id}/events", "get"): {"after"},
        ("/v1/games/{game_id}/stream", "get"): {"after", "access_token"},
        ("/v1/cards", "get"): {"lang", "faces"},
    }
    for (path, method), names in reads.items():
        parameters = spec["paths"][path][method]["parameters"]
        assert names <= {p["name"] for p in parameters if p["in"] == "query"}, path
    events = spec["paths"]["/v1/games/{game_id}/events"]["get"]["parameters"]
    assert "If-None-Match" in {p["name"] for p in events if p["in"] == "header"}


def test_a_logged_stream_event_is_valid_however_a_parser_names_its_type() -> None:
    """The stream sends no `event:` line with a logged event: an SSE parser gives it
    the type "message" (an EventSource does, and so does schemathesis), or none. Both
    are the spec's "Logged" event, and only that one."""
    spec = json.loads(SPEC.read_text())
    stream = spec["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]
    schema = stream["content"]["text/event-stream"]["schema"]
    members = {m["title"]: validator(spec, m) for m in schema["oneOf"]}
    data = json.dumps({"type": "match_started", "seq": 0})
    for parsed in ({"id": "0", "data": data}, {"event": "message", "id": "0", "data": data}):
        assert [t for t, v in members.items() if v.is_valid(parsed)] == ["Logged"], parsed


def test_docs_api_md_lists_every_operation_with_its_summary() -> None:
    """docs/api.md's table of operations has a row for each operation of the spec, with
    the summary the spec gives it."""
    spec = json.loads(SPEC.read_text())
    guide = (SPEC.parent.parent / "docs" / "api.md").read_text()
    missing = [
        f"{method.upper()} {path}"
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
        and f"| `{method.upper()} {path}` | {operation['summary']} |" not in guide
    ]
    assert not missing, f"docs/api.md has no row for {missing}"
