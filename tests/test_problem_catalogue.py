"""The catalogue of problem types (service/api/problems/catalogue.py) is the one place a
problem type is written: every type the code or the docs name is a row, every row is in
the spec and in docs/api.md's table, every problem the spec says an operation answers is
a row's, and every error a view lets through is answered as its row says."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.api.breaker import StorageUnavailableError
from service.api.problems import (
    CATALOGUE,
    ROWS,
    Problem,
    ProblemSchema,
    ProblemType,
    problem_of,
)
from service.api.problems.docs import BEGIN, END, table, with_table
from service.api.problems.spec import headers_of
from service.engine import (
    AmbiguousMoveError,
    IllegalDeclarationError,
    IllegalMoveError,
    InvalidCardError,
    InvalidSetupError,
    Status,
)
from service.play import AlreadyOverError, BotMatchTooLongError, NotStartedYetError
from service.play.commands.games import (
    NotDeletableError,
    RoundGameRefusedError,
    StartRefusedError,
    TournamentGameError,
)
from service.play.commands.tournaments import TournamentRefusedError
from service.play.game import Game
from service.play.records import RecordRefusedError
from service.play.steps import StaleVersionError
from service.play.text import DISPLAY_NAME, TextRefusedError
from service.play.webhooks.store import TooManyEndpointsError

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
API_DOC = ROOT / "docs" / "api.md"
#: RFC 9457's members, which every problem has.
RFC_MEMBERS = {"type", "title", "status", "detail"}


def source_files() -> Iterator[Path]:
    yield from sorted((ROOT / "service").rglob("*.py"))


# --------------------------------------------------------------------------- docs/api.md


def test_the_checked_in_table_is_what_make_docs_writes() -> None:
    text = API_DOC.read_text(encoding="utf-8")
    assert text == with_table(text), (
        "docs/api.md's table of problem types differs from the catalogue: run `make docs`"
    )
    assert "-m service.api.problems docs/api.md" in (ROOT / "Makefile").read_text()


def test_the_table_has_one_line_per_row_in_order() -> None:
    lines = table().splitlines()[2:]  # after the head and its rule
    assert [line.split("`")[1] for line in lines] == [r.type.value for r in ROWS]
    version = next(line for line in lines if "/problems/version-mismatch" in line)
    assert "| 412 | Version mismatch |" in version
    assert "`current_version`" in version and "`ETag` header" in version


def test_writing_the_table_keeps_the_rest_of_the_file() -> None:
    page = f"# API\n\nBefore.\n\n{BEGIN}\n| stale | table |\n{END}\n\nAfter.\n"
    written = with_table(page)
    assert written.startswith(f"# API\n\nBefore.\n\n{BEGIN}\n\n| `type` |")
    assert written.endswith(f"{table()}\n{END}\n\nAfter.\n")
    assert "stale" not in written
    assert with_table(written) == written
    with pytest.raises(ValueError):
        with_table("# API\n\nNo markers.\n")


# --------------------------------------------------------------------------- the code


def named_types(path: Path) -> Iterator[tuple[int, str]]:
    """(line, name) of every ``ProblemType.NAME`` in a Python file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ProblemType"
        ):
            yield node.lineno, node.attr


def test_every_problem_type_the_code_names_is_a_row() -> None:
    unknown = [
        f"{path.relative_to(ROOT)}:{line}: ProblemType.{name}"
        for path in source_files()
        for line, name in named_types(path)
        if name not in ProblemType.__members__ or ProblemType[name] not in CATALOGUE
    ]
    assert unknown == []
    assert set(CATALOGUE) == set(ProblemType)


#: A problem type's URI (not a path such as service/api/problems/...).
URI = re.compile(r"(?<![\w.])/problems/[a-z][a-z-]*[a-z]")


def text_of(path: Path) -> str:
    """A file's text; a Python file's strings (adjacent literals joined, as Python joins
    them: a URI may be split across two lines of a description)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    return "\n".join(
        node.value
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def test_every_problem_uri_written_anywhere_is_a_row() -> None:
    """In the docs, the page, the tests, the clients' drivers and the spec: a renamed or
    mistyped problem type fails here, not in a client."""
    places = [
        ROOT / "README.md",
        SPEC,
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "service").rglob("*.py"),
        *(ROOT / "service" / "web").rglob("*.js"),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "tests").rglob("*.ts"),
    ]
    known = {t.value for t in ProblemType}
    seen: set[str] = set()
    unknown = []
    for path in places:
        for found in URI.findall(text_of(path)):
            seen.add(found)
            if found not in known:
                unknown.append(f"{path.relative_to(ROOT)}: {found}")
    assert unknown == []
    assert {"/problems/not-started-yet", "/problems/record-refused"} <= seen


def type_named(node: ast.expr) -> str | None:
    """X of ``ProblemType.X``; None for any other expression."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ProblemType"
    ):
        return node.attr
    return None


def problem_calls(path: Path) -> Iterator[tuple[int, Any, str, list[ast.keyword]]]:
    """(line, status, type's name, keywords) of every ``Problem(<status>, ProblemType.X,
    ...)`` and ``Problem.of(ProblemType.X, ...)`` (status None: the row's) of a Python
    file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "Problem" and len(node.args) >= 2:
            status, name = node.args[0], type_named(node.args[1])
            if isinstance(status, ast.Constant) and name is not None:
                yield node.lineno, status.value, name, node.keywords
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "of"
            and isinstance(func.value, ast.Name)
            and func.value.id == "Problem"
            and node.args
        ):
            name = type_named(node.args[0])
            if name is not None:
                yield node.lineno, None, name, node.keywords


def test_every_problem_the_code_raises_has_its_rows_status_members_and_headers() -> None:
    checked = 0
    wrong = []
    for path in source_files():
        for line, status, name, keywords in problem_calls(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            row = CATALOGUE[ProblemType[name]]
            checked += 1
            if status is not None and status not in row.statuses:
                wrong.append(f"{where}: status {status} for {row.type}")
            for keyword in keywords:
                if keyword.arg is None:
                    continue
                if keyword.arg == "headers" and isinstance(keyword.value, ast.Dict):
                    named = {k.value for k in keyword.value.keys if isinstance(k, ast.Constant)}
                    if row.type is not ProblemType.HTTP and not named <= set(row.headers):
                        wrong.append(f"{where}: headers {named - set(row.headers)}")
                elif keyword.arg != "headers" and keyword.arg not in row.members:
                    wrong.append(f"{where}: member {keyword.arg} not in {row.type}'s row")
    assert wrong == []
    assert checked >= 15  # the views' own problems, found (the commands' are rows' errors)


# --------------------------------------------------------------------------- the errors

#: An instance of each error class a row lists.
ERRORS: dict[type[Exception], Exception] = {
    StaleVersionError: StaleVersionError(7),
    NotStartedYetError: NotStartedYetError(4102444800.0),
    BotMatchTooLongError: BotMatchTooLongError(100, 11),
    RecordRefusedError: RecordRefusedError("event 3 plays 7D twice", event=3),
    StorageUnavailableError: StorageUnavailableError(4),
    TextRefusedError: TextRefusedError(DISPLAY_NAME, "bidi", "The name holds U+202E."),
    NotDeletableError: NotDeletableError(
        Game(id="g1", version=1, match=None, bots=(None,), token_hashes=(None,))
    ),
    StartRefusedError: StartRefusedError(2, "a game with open seats starts when they are taken"),
    TooManyEndpointsError: TooManyEndpointsError(16),
    TournamentGameError: TournamentGameError(
        Game(id="g1", version=1, match=None, bots=(None,), token_hashes=(None,), tournament="trn_1")
    ),
    TournamentRefusedError: TournamentRefusedError(
        "A Swiss needs its number of `rounds`.", "rounds"
    ),
}
#: Errors more than one row lists, each row's own instances (the others' are skipped).
SHARED = {
    AlreadyOverError: [AlreadyOverError(Status.FINISHED), AlreadyOverError(Status.ABORTED)],
    RoundGameRefusedError: [
        RoundGameRefusedError(1, InvalidSetupError("2 players at most")),
        RoundGameRefusedError(1, BotMatchTooLongError(100, 11)),
        RoundGameRefusedError(1, InvalidCardError("7X")),
    ],
}


def instances(cls: type[Exception]) -> list[Exception]:
    if cls in SHARED:
        return SHARED[cls]
    if cls in ERRORS:
        return [ERRORS[cls]]
    if issubclass(cls, IllegalMoveError):
        return [cls("7D is not in your hand", [["7C"], []])]
    return [cls("the game at version 3")]


def test_every_error_a_row_lists_is_answered_as_its_row_says() -> None:
    listed = 0
    for row in ROWS:
        for cls in row.raised_by:
            for error in instances(cls):
                problem = problem_of(error)
                if cls in SHARED and problem.type is not row.type:
                    continue  # another row's
                listed += 1
                assert problem.type is row.type, (cls, problem.type)
                assert problem.status in row.statuses
                assert set(problem.extra) <= set(row.members), cls
                assert set(problem.headers) <= set(row.headers), cls
                assert problem.detail
                body = json.loads(problem.response().get_data())
                assert set(body) <= RFC_MEMBERS | set(row.members)
                assert body["title"] == row.title_for(problem.status)
    assert listed >= 30


@pytest.mark.parametrize(
    ("error", "type_", "extra"),
    [
        (IllegalMoveError("no", [["7C"]]), ProblemType.ILLEGAL_MOVE, {"legal_captures"}),
        (AmbiguousMoveError("which?", [["5C"]]), ProblemType.AMBIGUOUS_MOVE, {"legal_captures"}),
        (IllegalDeclarationError("not now"), ProblemType.ILLEGAL_DECLARATION, set()),
        (InvalidCardError("7X"), ProblemType.VALIDATION, set()),
        (AlreadyOverError(Status.FINISHED), ProblemType.MATCH_OVER, set()),
        (AlreadyOverError(Status.ABORTED), ProblemType.MATCH_ABORTED, set()),
        (StaleVersionError(4), ProblemType.VERSION_MISMATCH, {"current_version"}),
        (redis.exceptions.ClusterDownError("CLUSTERDOWN"), ProblemType.STORAGE_UNAVAILABLE, set()),
        (KeyError("a bug"), ProblemType.INTERNAL, set()),
    ],
)
def test_the_most_specific_row_wins(error: Exception, type_: ProblemType, extra: set[str]) -> None:
    problem = problem_of(error)
    assert problem.type is type_ and set(problem.extra) == extra


def test_an_unexpected_error_is_a_logged_500(caplog: pytest.LogCaptureFixture) -> None:
    problem = problem_of(ZeroDivisionError("division by zero"))
    assert (problem.status, problem.type) == (500, ProblemType.INTERNAL)
    assert "division" not in problem.detail
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [ZeroDivisionError]


def test_a_problem_raised_is_answered_as_it_is() -> None:
    raised = Problem(409, ProblemType.HAND_IN_PROGRESS, "Hand 2 is still being played.")
    assert problem_of(raised) is raised


def test_a_problem_of_a_type_has_its_rows_status() -> None:
    made = Problem.of(ProblemType.NOT_STARTED_YET, "Soon.", headers={"Retry-After": "3"})
    assert (made.status, made.type, made.headers) == (
        409,
        ProblemType.NOT_STARTED_YET,
        {"Retry-After": "3"},
    )
    illegal = Problem.of(ProblemType.ILLEGAL_MOVE, "No.", legal_captures=[])
    assert json.loads(illegal.response().get_data()) == {
        "type": "/problems/illegal-move",
        "title": "Illegal move",
        "status": 422,
        "detail": "No.",
        "legal_captures": [],
    }
    with pytest.raises(ValueError):
        Problem.of(ProblemType.HTTP, "Which status?")


# --------------------------------------------------------------------------- the spec


def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC.read_text())
    return loaded


def problem_answers(document: dict[str, Any]) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(operationId, status, response) of every problem an operation documents."""
    for operations in document["paths"].values():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, response in operation["responses"].items():
                if status[0] in "45":
                    yield operation["operationId"], int(status), response


def test_every_row_is_documented_in_the_spec() -> None:
    schemas = spec()["components"]["schemas"]
    named = schemas["ProblemType"]
    assert named["enum"] == [r.type.value for r in ROWS]
    assert named["x-enum-varnames"] == [r.type.name for r in ROWS]
    for row, said in zip(ROWS, named["x-enum-descriptions"], strict=True):
        assert row.when in said and row.title in said, row.type
        assert all(str(status) in said for status in row.statuses), row.type
        assert all(f"`{m}`" in said for m in row.members), row.type
        assert all(f"`{h}`" in said for h in row.headers), row.type
        assert f"`{row.type.value}`: {row.when}" in named["description"]
    members = schemas["Problem"]["properties"]
    assert set(members) == RFC_MEMBERS | {m for r in ROWS for m in r.members}
    assert ProblemSchema.optional == set(members) - RFC_MEMBERS
    for name, member in members.items():
        carriers = {r.type.value for r in ROWS if name in r.members}
        assert carriers == set(URI.findall(member["description"])), name


def test_every_problem_an_operation_answers_is_a_rows() -> None:
    """Walk every operation's problem answers: each status is one some row answers with;
    each problem type a description names is of that status; each example is a row's,
    title and members; each answer documents the header fields its status's rows carry."""
    documented: set[int] = set()
    for operation, status, response in problem_answers(spec()):
        documented.add(status)
        rows = [r for r in ROWS if status in r.statuses]
        assert rows, f"{operation}: {status} is no row's status"
        for named in URI.findall(response["description"]):
            assert status in CATALOGUE[ProblemType(named)].statuses, (operation, status, named)
        headers = response.get("headers", {})
        assert set(headers) == set(headers_of(status)), (operation, status)
        example = response["content"]["application/problem+json"].get("example")
        if example is not None:
            row = CATALOGUE[ProblemType(example["type"])]
            assert example["status"] == status and status in row.statuses, operation
            assert example["title"] == row.title_for(status), operation
            assert set(example) <= RFC_MEMBERS | set(row.members), operation
    # Every row's status is documented somewhere but an internal error's and about:blank's
    # (an answer of any operation: routing, methods, sizes).
    special = {ProblemType.HTTP, ProblemType.INTERNAL}
    assert {s for r in ROWS if r.type not in special for s in r.statuses} <= documented


def test_the_answers_document_the_headers_their_problems_come_with() -> None:
    """Retry-After with a 429 or a 503, WWW-Authenticate with a 401, ETag with a 412."""
    expected = {429: "Retry-After", 503: "Retry-After", 401: "WWW-Authenticate", 412: "ETag"}
    for operation, status, response in problem_answers(spec()):
        if status in expected:
            assert expected[status] in response["headers"], (operation, status)
