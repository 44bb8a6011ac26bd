"""Every snippet of README.md and docs/ runs, in order, against a live service, and what a
doc shows a command answering is what the service answers (issue 37).

Sybil finds the code blocks of each Markdown file and its skip marks; a document's
snippets run one after another and chain: a shell block starts with the variables the
blocks before it set (``GAME``, ``ANA``...), in the same working folder (a file one writes,
the next reads). How a shell block is read:

- ``localhost:8000`` is the live service's address;
- a line ``NAME=...`` is a placeholder the reader fills in (a key's secret): the test
  gives it (PLACEHOLDERS), and fails on one it does not know;
- a comment line ``#  {...}`` or ``#  [...]`` (two spaces, then JSON) is the answer of
  the commands since the previous such line: their last JSON answer must match it,
  ``...`` standing for anything (``{"id": "...", ...}``), white space aside; ``#  204``
  (three digits) is the last line they printed (curl's ``-w '%{http_code}'``);
- any answer that is a problem (4xx/5xx problem+json) the doc does not show fails it, as
  does a command that fails (``set -euo pipefail``).

A block in another language, or one the suite cannot run, carries
``<!-- skip: next "why" -->`` (Sybil's skip mark) with its reason, and is reported.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser
from sybil.typing import Parser

from tests.devredis import RedisServer
from tests.live import LiveService

ROOT = Path(__file__).resolve().parent.parent
#: The Node.js packages `make node-tools` installs (openapi-fetch, openapi-typescript, tsc).
NODE_MODULES = ROOT / ".tools" / "node" / "node_modules"
DOCS = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]
#: The service key of the docs' platform snippets ("acme", docs/platforms.md).
KEY = "acme-docs-key-0123456789abcdefghijklmnopqrstuv"
#: What the docs leave for the reader to fill in (``NAME=...``), as the suite fills it.
PLACEHOLDERS = {"KEY": KEY}
#: Where a doc's webhook endpoint receives (README's local recipe): nothing need answer
#: it for the snippets, which only register it.
WEBHOOK_HOST = "localhost:9000"
ANSWER = re.compile(r"^\s*#  ([\[{].*|\d{3})$")
PLACEHOLDER = re.compile(r"^([A-Z_]+)=\.\.\.(\s+#.*)?$")
#: A line of an answer shown over several: a comment indented past the answer's start.
CONTINUED = re.compile(r"^\s*#   +(\S.*)$")
SEPARATOR = "\x1e"
#: A program's first line, naming the file it is saved as.
PROGRAM = re.compile(r"^(?://|#) ([\w-]+\.(?:ts|py)):")
MARK = f"printf '\\n{SEPARATOR}\\n'"


# -- reading a shell snippet --------------------------------------------------------------------


def pattern(shown: str) -> re.Pattern[str]:
    """The answer a doc shows, as a pattern: ``...`` stands for anything, white space is
    left out (of the answer too: see :func:`squashed`)."""
    parts = [re.escape(part) for part in squashed(shown).split("...")]
    return re.compile(".*?".join(parts), re.DOTALL)


def squashed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def json_values(text: str) -> Iterator[Any]:
    """Every JSON value printed in ``text``, in order (curl prints them one after another,
    with or without a newline between)."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        found = re.compile(r"[\[{]").search(text, at)
        if found is None:
            return
        try:
            value, at = decoder.raw_decode(text, found.start())
        except json.JSONDecodeError:
            at = found.start() + 1
            continue
        yield value


def is_problem(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and str(value.get("type", "")).startswith("/problems/")
        and isinstance(value.get("status"), int)
        and value["status"] >= 400
    )


def script_of(source: str, port: int) -> tuple[str, list[str]]:
    """The block as bash runs it, and the answers it shows, in order."""
    lines: list[str] = []
    answers: list[str] = []
    for line in source.replace("localhost:8000", f"127.0.0.1:{port}").splitlines():
        shown = ANSWER.match(line)
        placeholder = PLACEHOLDER.match(line)
        more = CONTINUED.match(line)
        if more and lines and lines[-1] == MARK:
            answers[-1] += " " + more.group(1)
        elif shown:
            answers.append(shown.group(1))
            lines.append(MARK)
        elif placeholder:
            name = placeholder.group(1)
            assert name in PLACEHOLDERS, f"{name}=... is a placeholder the suite does not fill"
            lines.append(f"{name}={PLACEHOLDERS[name]}")
        else:
            lines.append(line)
    return "\n".join(lines), answers


def check_answers(output: str, answers: list[str]) -> None:
    """Each shown answer matches the last JSON answer before its place; no problem is
    answered that the doc does not show."""
    segments = output.split(SEPARATOR)
    for shown, segment in zip(answers, segments, strict=False):
        if shown.isdigit():  # a status, printed by curl's -w '%{http_code}'
            printed = segment.strip().splitlines()
            if not printed or printed[-1] != shown:
                raise AssertionError(f"the doc shows {shown}, the command printed {segment!r}")
            continue
        values = list(json_values(segment))
        assert values, f"no JSON answer where the doc shows {shown}"
        actual = json.dumps(values[-1], ensure_ascii=False)
        if not pattern(shown).fullmatch(squashed(actual)):
            raise AssertionError(
                f"the doc shows\n  {shown}\nthe service answered\n  {actual[:2000]}"
            )
        for value in values[:-1]:
            assert not is_problem(value), f"an answer the doc does not show: {value}"
    for segment in segments[len(answers) :]:
        for value in json_values(segment):
            assert not is_problem(value), f"an answer the doc does not show: {value}"


class Shell:
    """Runs a document's shell blocks in order, each with the variables of the ones
    before, in one working folder."""

    def __init__(self, port: int, workdir: Path) -> None:
        self.port = port
        self.workdir = workdir
        #: What the last block answered (its JSON values, in order).
        self.values: list[Any] = []
        # A reader's tools: the service's virtualenv (Python, openapi-python-client) first,
        # and a Node.js project ("type": "module") with the packages the docs name.
        (workdir / "package.json").write_text('{"type": "module"}\n')
        if NODE_MODULES.is_dir() and not (workdir / "node_modules").exists():
            (workdir / "node_modules").symlink_to(NODE_MODULES, target_is_directory=True)
        self.env = {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(workdir),
            "LANG": "C.UTF-8",
        }

    def __call__(self, example: Example) -> None:
        script, answers = script_of(str(example.parsed), self.port)
        state = self.workdir / ".state"
        ran = subprocess.run(
            ["bash", "-c", f"set -a -euo pipefail\n{script}\nenv -0 > {state}"],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        where = f"{example.path}, line {example.line}"
        assert ran.returncode == 0, f"{where}: exit {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
        try:
            check_answers(ran.stdout, answers)
            self.values = list(json_values(ran.stdout.split(SEPARATOR)[-1]))
        except AssertionError as failed:
            raise AssertionError(f"{where}: {failed}") from None
        self.env = dict(
            entry.split("=", 1) for entry in state.read_text().split("\0") if "=" in entry
        )


def shown_whole(shell: Shell) -> Callable[[Example], None]:
    """A ``json`` block right after a shell block: the answer of its last command, shown
    whole (``...`` for what varies, as in an answer comment)."""

    def check(example: Example) -> None:
        where = f"{example.path}, line {example.line}"
        if not shell.values:
            raise AssertionError(f"{where}: a JSON block after no answer")
        try:
            check_answers(json.dumps(shell.values[-1]), [str(example.parsed)])
        except AssertionError as failed:
            raise AssertionError(f"{where}: {failed}") from None

    return check


def saved(workdir: Path) -> Callable[[Example], None]:
    """A program whose first line names its file (``// play.ts: ...``, ``# play.py: ...``):
    saved in the working folder, for the shell blocks after it to build and run."""

    def save(example: Example) -> None:
        source = str(example.parsed)
        named = PROGRAM.match(source)
        if named is None:
            not_run(example)
            return
        (workdir / named.group(1)).write_text(source)

    return save


def not_run(example: Example) -> None:
    raise AssertionError(
        f"{example.path}, line {example.line}: a block the suite does not run; mark it "
        '<!-- skip: next "why" --> with the reason'
    )


def run_document(path: Path, port: int, workdir: Path) -> list[str]:
    """Run every snippet of ``path``; return the reasons of those it skips."""
    shell = Shell(port, workdir)
    parsers: list[Parser] = [
        CodeBlockParser("sh", shell),
        CodeBlockParser("json", shown_whole(shell)),
        *(CodeBlockParser(language, saved(workdir)) for language in ("python", "ts")),
        CodeBlockParser("js", not_run),
        SkipParser(),
    ]
    skipped = []
    for example in Sybil(parsers).parse(path):
        try:
            example.evaluate()
        except unittest.SkipTest as skip:
            skipped.append(f"{path.name}, line {example.line}: {skip}")
    return skipped


# -- the docs, run --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def docs_service(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveService]:
    """A service as `make run` serves it, with its background worker (a tournament's
    next rounds are its), the docs' service key and the local webhook host they
    register."""
    workdir = tmp_path_factory.mktemp("docs-service")
    service = LiveService(
        redis_server.url,
        workdir=str(workdir),
        SERVICE_KEYS=f"acme={KEY}",
        WEBHOOK_ALLOW_HOSTS=WEBHOOK_HOST,
    ).start()
    env = {**os.environ, **service.env, "REDIS_URL": redis_server.url}
    with open(workdir / "worker.log", "wb") as log:
        worker = subprocess.Popen(
            [sys.executable, "-m", "service.worker"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield service
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        service.close()


@pytest.mark.parametrize("name", DOCS)
def test_every_snippet_of_a_doc_runs_and_answers_as_shown(
    name: str, docs_service: LiveService, tmp_path: Path
) -> None:
    missing = [tool for tool in ("bash", "curl", "jq") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the docs' snippets need {' and '.join(missing)} (`make test` installs them)")
    if name == "docs/frontends.md" and not (NODE_MODULES.is_dir() and shutil.which("node")):
        pytest.skip("its TypeScript client needs Node.js 20+ and `make node-tools` (npm)")
    skipped = run_document(ROOT / name, docs_service.port, tmp_path)
    for reason in skipped:
        print("not run:", reason)


def test_a_wrong_answer_in_a_doc_fails(docs_service: LiveService, tmp_path: Path) -> None:
    """The check can fail: a doc showing an answer the service does not give, a problem it
    does not show, a placeholder the suite does not know."""
    doc = tmp_path / "doc.md"
    right = (
        "```sh\ncurl -s localhost:8000/v1/variants\n"
        '#  {"variants": [{"name": "scopa", ...}, ...]}\n```\n'
    )
    doc.write_text(right)
    run_document(doc, docs_service.port, tmp_path)
    for wrong in (
        right.replace('"scopa"', '"scopone"'),
        "```sh\ncurl -s localhost:8000/v1/games/nope\n```\n",
        "```sh\nSECRET=...\n```\n",
        "```python\nprint(1)\n```\n",
    ):
        doc.write_text(wrong)
        with pytest.raises(AssertionError):
            run_document(doc, docs_service.port, tmp_path)
