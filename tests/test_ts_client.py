"""A TypeScript client generated from openapi/openapi.json plays a whole match on the
service as deployed (gunicorn, on the tests' Redis): the contract is good enough for a
generated client to be used as it is. tests/ts_client/driver.ts is type-checked with
``tsc --strict`` (and ``--noUncheckedIndexedAccess``) and uses no type assertion, no
non-null assertion and no ``any``; then it runs, and what it prints is checked here.

Needs Node.js 20+ (it has fetch) and npm; else the test is skipped. The tools are those
of openapi/package-lock.json, which ``make node-tools`` installs once into .tools/node
(git-ignored): this test runs it, and later runs find them there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from tests.live import LiveService

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "tests" / "ts_client" / "driver.ts"
TOOLS = ROOT / ".tools" / "node"
BIN = TOOLS / "node_modules" / ".bin"

#: What the driver may not need: a type assertion (``as``, ``<T>x``), a non-null
#: assertion (``x!``), an untyped value (``any``), a silenced error (``@ts-...``).
ESCAPES = {
    "type assertion": re.compile(r"\bas\s+(?!const\b)[A-Za-z{[(]|<[A-Z]\w*>\s*\w"),
    "non-null assertion": re.compile(r"[\w)\]]!(?!=)"),
    "any": re.compile(r"\bany\b"),
    "suppressed error": re.compile(r"@ts-"),
}


def run(
    *command: str | Path, cwd: Path = ROOT, timeout: float = 300, with_stderr: bool = False
) -> str:
    """What ``command`` printed (its standard output, and its errors with
    ``with_stderr``); the test fails, showing both, unless it succeeded."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr if with_stderr else done.stdout


@pytest.fixture(scope="session")
def node_tools() -> Path:
    """The tools' bin folder, installed if needed; skips the test without Node.js 20+
    (before the live service starts: a session fixture listed first)."""
    missing = [tool for tool in ("node", "npm", "make") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{' and '.join(missing)} not found: install Node.js 20+ with npm to run it")
    major = int(run("node", "--version").strip().lstrip("v").split(".")[0])
    if major < 20:
        pytest.skip(f"Node.js {major} has no fetch: install Node.js 20+ to run it")
    run("make", "--no-print-directory", "node-tools")
    return BIN


def code_of(source: str) -> str:
    """``source`` without its comments and string literals' contents."""
    source = re.sub(r"//[^\n]*", "", source)
    return re.sub(r"(`|\")(?:\\.|(?!\1).)*\1", '""', source)


def test_the_driver_needs_no_escape_from_the_types() -> None:
    code = code_of(DRIVER.read_text())
    found = {name: rule.findall(code) for name, rule in ESCAPES.items()}
    assert not any(found.values()), found
    # The rules do catch what they are for.
    for name, sample in [
        ("type assertion", "const v = x as Card;"),
        ("non-null assertion", "const v = list[0]!.card;"),
        ("any", "let v: any = 1;"),
    ]:
        assert ESCAPES[name].search(code_of(sample)), name


def test_a_generated_typescript_client_plays_a_whole_match(
    node_tools: Path, live_service: LiveService, tmp_path: Path
) -> None:
    bin_ = node_tools
    (tmp_path / "node_modules").symlink_to(TOOLS / "node_modules", target_is_directory=True)
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    shutil.copy(DRIVER, tmp_path / "driver.ts")
    # A property with a default is optional in a request (the service fills it in): typed
    # by `required` alone, not as always present (openapi-typescript's default).
    run(
        bin_ / "openapi-typescript",
        ROOT / "openapi" / "openapi.json",
        "--default-non-nullable", "false",
        "-o", "schema.d.ts",
        cwd=tmp_path,
    )  # fmt: skip
    run(
        bin_ / "tsc",
        "--strict",
        "--noUncheckedIndexedAccess",
        "--target", "es2022",
        "--module", "nodenext",
        "--types", "node",
        "--outDir", "out",
        "driver.ts",
        cwd=tmp_path,
    )  # fmt: skip
    printed = run("node", tmp_path / "out" / "driver.js", live_service.url, timeout=60)

    result = json.loads(printed.splitlines()[-1])
    assert result["status"] == "finished" and result["moves"] > 0
    # Both seats play every hand out: as many moves of Bruno's were in the answers.
    assert result["events"]["match_over"] == 1 and result["events"]["move"] == result["moves"]
    assert result["last"].startswith(f"team {result['winner']} wins")
    view = requests.get(f"{live_service.url}/v1/games/{result['game']}", timeout=10).json()
    assert view["status"] == "finished" and view["winner"] == result["winner"]
    assert [team["score"] for team in view["teams"]] == result["scores"]
    assert max(result["scores"]) >= view["target"]
    assert result["logged"] > 2 * result["moves"]  # both seats' moves, deals, scores
    # Cirulla: Ana declared what she could, three cards face up each time (C3.4)
    cirulla = result["cirulla"]
    assert cirulla["status"] == "finished" and cirulla["declared"] > 0
    assert cirulla["shown"] == 3 * cirulla["declared"]
