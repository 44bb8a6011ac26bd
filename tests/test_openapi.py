"""The checked-in OpenAPI document is the contract: it must be what the app serves."""

import json
from pathlib import Path

from flask.testing import FlaskClient

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_the_checked_in_spec_is_the_served_spec(client: FlaskClient) -> None:
    served = client.get("/openapi.json").get_json()
    assert served == json.loads(SPEC.read_text()), "the spec drifted: run `make openapi`"


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
    assert len(names) == len(set(names)) == 15
    assert {"createGame", "playMove", "getGame", "getEventLog"} <= set(names)
    assert spec["servers"]


def test_response_properties_that_are_always_there_are_required() -> None:
    """Generated clients type a required property as present (no non-null assertions, no
    isinstance checks). The live contract tests (tests/test_fuzz.py) check every answer
    against these lists, so a property marked required is never missing."""
    schemas = json.loads(SPEC.read_text())["components"]["schemas"]
    view = schemas["GameView"]
    assert set(view["required"]) == set(view["properties"]) - {"hand"}
    for name in ("GameCreated", "MoveResult", "SeatView", "LegalMove", "HandScore", "Hint"):
        assert set(schemas[name]["required"]) == set(schemas[name]["properties"]), name
    assert schemas["Event"]["required"] == ["type"]
    assert set(schemas["Problem"]["required"]) == {"type", "title", "status", "detail"}
