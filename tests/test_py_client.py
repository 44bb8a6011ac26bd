"""A Python client generated from openapi/openapi.json plays a whole match on the
service as deployed (gunicorn, on the tests' Redis): the contract is good enough for a
generated client to be used as it is, as tests/test_ts_client.py shows for TypeScript.

openapi-python-client (the test extra) generates the client into a temporary folder
with ``literal_enums: true`` (so that events narrow by ``type``); tests/py_client/driver.py
is type-checked with ``mypy --strict`` against it (the whole generated package is checked
with it) and uses no ``cast``, no ``type: ignore`` and no ``Any``; then it runs, and
what it prints is checked here. Without openapi-python-client the tests skip, saying so.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import tokenize
from pathlib import Path

import pytest
import requests

from tests.live import LiveService
from tests.test_ts_client import run as run_tool

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "openapi" / "openapi.json"
DRIVER = ROOT / "tests" / "py_client" / "driver.py"
BIN = Path(sys.executable).parent

#: What the driver may not need, in its code (names) and in its comments.
ESCAPE_NAMES = {"cast": "cast", "Any": "Any"}
ESCAPE_COMMENT = re.compile(r"type:\s*ignore")


def run(*command: str | Path, cwd: Path = ROOT, timeout: float = 300) -> str:
    """What ``command`` printed, its errors included (the generator warns there)."""
    return run_tool(*command, cwd=cwd, timeout=timeout, with_stderr=True)


#: What the generator reads the export's NDJSON as (docs/frontends.md): its text.
CONTENT_TYPES = {"application/x-ndjson": "text/plain"}


def generate(into: Path, **config: bool) -> Path:
    """The client of the spec, generated into ``into``/client (its package: scopa_client),
    with the generator's ``config`` and the content type docs/frontends.md maps; no post
    hooks (formatting is not what is tested)."""
    generator = shutil.which("openapi-python-client", path=str(BIN))
    if generator is None:
        pytest.skip("openapi-python-client not installed: `make venv` installs the test extra")
    into.mkdir(parents=True, exist_ok=True)
    settings = into / "config.json"
    settings.write_text(
        json.dumps({"post_hooks": [], "content_type_overrides": CONTENT_TYPES, **config})
    )
    printed = run(
        generator, "generate",
        "--path", SPEC,
        "--config", settings,
        "--output-path", into / "client",
        cwd=into,
    )  # fmt: skip
    # A piece of the spec it could not read would be left out of the client, with a warning.
    assert "Warning" not in printed, printed
    return into / "client"


def escapes(source: str) -> list[str]:
    """Every escape from the types in ``source``: the names of ESCAPE_NAMES used in its
    code, and ``type: ignore`` in its comments."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in ESCAPE_NAMES:
            found.append(f"{token.string} (line {token.start[0]})")
        elif token.type == tokenize.COMMENT and ESCAPE_COMMENT.search(token.string):
            found.append(f"type: ignore (line {token.start[0]})")
    return found


def test_the_driver_needs_no_escape_from_the_types() -> None:
    assert escapes(DRIVER.read_text()) == []
    # The rules do catch what they are for, and not the words in a string.
    assert escapes("from typing import cast\nx = cast(int, y)\n") == [
        "cast (line 1)",
        "cast (line 2)",
    ]
    assert escapes("def f(x: Any) -> None: ...\n") == ["Any (line 1)"]
    assert escapes("x = y  # type: ignore[attr-defined]\n") == ["type: ignore (line 1)"]
    assert escapes("x = 'Any cast'  # a comment on casting\n") == []


def test_a_generated_python_client_plays_a_whole_match(
    live_service: LiveService, tmp_path: Path
) -> None:
    if not (BIN / "mypy").exists():
        pytest.skip("mypy not installed: `make venv` installs the dev extra")
    client = generate(tmp_path, literal_enums=True)
    shutil.copy(DRIVER, client / "driver.py")
    run(
        BIN / "mypy", "--strict", "--no-incremental", "--cache-dir", tmp_path / "mypy",
        "driver.py",
        cwd=client,
    )  # fmt: skip
    printed = run(sys.executable, "driver.py", live_service.url, cwd=client, timeout=120)

    result = json.loads(printed.strip().splitlines()[-1])
    assert result["status"] == "finished" and result["moves"] > 0
    # Both seats play every hand out: as many of Bruno's moves came in the answers.
    assert result["events"]["match_over"] == 1 and result["events"]["move"] == result["moves"]
    assert result["last"].startswith(f"team {result['winner']} wins")
    assert result["hand"] == []  # Ana's view: her own hand, empty once it is over
    view = requests.get(f"{live_service.url}/v1/games/{result['game']}", timeout=10).json()
    assert view["status"] == "finished" and view["winner"] == result["winner"]
    assert [team["score"] for team in view["teams"]] == result["scores"]
    assert result["logged"] == view["seq"] + 1 > 2 * result["moves"]
    # The log read on from a `seq` an answer carried: every event after it.
    assert result["after"] == list(range(result["mark"] + 1, view["seq"] + 1))


def test_a_generated_python_clients_enum_members_have_stable_names(tmp_path: Path) -> None:
    """With enum classes (the generator's default), members are named by
    ``x-enum-varnames``: ``Card.SEVEN_OF_COINS``, not ``Card.VALUE_27``, which would
    name another card once a value is added before it."""
    client = generate(tmp_path)
    printed = run(
        sys.executable,
        "-c",
        "from scopa_client.models import Card, ProblemType\n"
        "print(Card.SEVEN_OF_COINS.value, Card.KING_OF_SWORDS.value,"
        " ProblemType.ILLEGAL_MOVE.value, len(Card))",
        cwd=client,
    )
    assert printed.split() == ["7D", "10S", "/problems/illegal-move", "40"]
