"""Which engine the suite tests: the .py sources, unless `make test-compiled` (or CI's
`make test-compiled-engine`) asks for the mypyc build of `make compile`
(tests/bench/compiled.py) with SCOPA_ENGINE=compiled. Never, silently, extension modules
some compiler left beside the sources. And the service says which engine it runs: one
log line a process and the gauge ``scopa_engine_info``; SCOPA_ENGINE makes it refuse
another one."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask

from service.api import observability
from service.engine import build as engine_build_module
from service.engine import hand, masks, scoring
from tests.bench import compiled

COMPILED = os.environ.get("SCOPA_ENGINE") == "compiled"
#: The build the suite runs, as the service names it.
EXPECTED = "mypyc" if COMPILED else "python"


@pytest.mark.parametrize("module", [masks, hand, scoring], ids=lambda m: m.__name__)
def test_the_engine_is_the_one_asked_for(module: object) -> None:
    path = Path(str(getattr(module, "__file__", "")))
    if COMPILED:
        assert path.suffix in (".so", ".pyd"), path
        assert path.is_relative_to(compiled.BUILD), path
    else:
        assert path.suffix == ".py", f"{path}: run `make clean`, then the tests again"


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def engine_lines(self) -> list[str]:
        return [r.getMessage() for r in self.records if r.getMessage().startswith("engine:")]


@pytest.fixture
def engine_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[Records]:
    """The service's log records, as if this process had not logged its engine yet."""
    monkeypatch.setattr(observability, "_engine_logged_by", None)
    handler = Records()
    logger = logging.getLogger(observability.__name__)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def test_the_service_logs_and_counts_its_engine(
    engine_log: Records, make_app: Callable[..., Flask]
) -> None:
    app = make_app()
    make_app()  # a second app of the same process logs nothing more
    (line,) = engine_log.engine_lines()
    if COMPILED:
        assert line.startswith("engine: compiled (mypyc, "), line
        assert str(compiled.BUILD) in line
    else:
        assert line == "engine: pure Python (no compiled build on the path)"
    (record,) = [r for r in engine_log.records if r.getMessage() == line]
    assert record.levelno == logging.INFO and getattr(record, "engine", None) == EXPECTED
    metrics = app.test_client().get("/metrics").text
    assert f'scopa_engine_info{{build="{EXPECTED}"}} 1.0' in metrics.splitlines()


@pytest.mark.parametrize("asked", ["python", "compiled", "fast"])
def test_scopa_engine_refuses_another_engine(
    asked: str, monkeypatch: pytest.MonkeyPatch, make_app: Callable[..., Flask]
) -> None:
    monkeypatch.setenv("SCOPA_ENGINE", asked)
    if engine_build_module.ENGINE_BUILDS.get(asked) == EXPECTED:
        make_app()
    elif asked in engine_build_module.ENGINE_BUILDS:
        with pytest.raises(RuntimeError, match=f"SCOPA_ENGINE='{asked}' but this process"):
            make_app()
    else:  # not an engine at all: refused as a bad setting
        with pytest.raises(RuntimeError, match=f"SCOPA_ENGINE='{asked}' is refused"):
            make_app()


@pytest.mark.parametrize(
    ("files", "build"),
    [
        (["masks.cpython-311-x86_64-linux-gnu.so", "hand.abi3.so", "scoring.so"], "mypyc"),
        (["masks.py", "hand.py", "scoring.py"], "python"),
        (["masks.cpython-311-x86_64-linux-gnu.so", "hand.py", "scoring.py"], "mixed"),
    ],
)
def test_the_build_is_read_off_the_modules_files(
    files: list[str], build: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    modules = tuple(SimpleNamespace(__file__=f"/somewhere/service/engine/{f}") for f in files)
    monkeypatch.setattr(engine_build_module, "COMPILED_MODULES", modules)
    assert engine_build_module.engine_build() == build
    assert engine_build_module.engine_description(build).startswith("engine: ")


class TestPrepare:
    """`make run` and `make bench` fall back to the .py sources, saying why, and go on."""

    @pytest.fixture(autouse=True)
    def _elsewhere(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(compiled, "BUILD", tmp_path / "mypyc")
        monkeypatch.setattr(compiled, "DIGESTS", tmp_path / "mypyc" / "sources.json")

    def test_without_a_compiler(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(compiled, "c_compiler", lambda: None)
        assert compiled.prepare() is False
        assert capsys.readouterr().out.startswith("engine: pure Python (no C compiler")

    def test_a_failed_build(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        def fail(quiet: bool = False) -> None:
            compiled.BUILD.mkdir()
            raise subprocess.CalledProcessError(1, ["mypyc"], output="error: no Python.h\n")

        monkeypatch.setattr(compiled, "c_compiler", lambda: "/usr/bin/cc")
        monkeypatch.setattr(compiled, "build", fail)
        assert compiled.prepare() is False
        out = capsys.readouterr().out
        assert "error: no Python.h" in out
        assert out.splitlines()[-1].startswith("engine: pure Python (the mypyc build failed")
        assert not compiled.BUILD.exists()  # nothing half-built left for the next run

    def test_a_fresh_build_is_reused(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(compiled, "status", lambda scope="package": "fresh")
        monkeypatch.setattr(compiled, "build", lambda quiet=False: pytest.fail("rebuilt"))
        assert compiled.prepare() is True
        assert capsys.readouterr().out.startswith("engine: compiled (mypyc)")
