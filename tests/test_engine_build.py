"""Which engine the suite tests: the .py sources, unless `make test-compiled` asks for the
mypyc build of `make compile` (tests/bench/compiled.py). Never, silently, extension
modules some compiler left beside the sources."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service.engine import hand, masks, scoring
from tests.bench import compiled


@pytest.mark.parametrize("module", [masks, hand, scoring], ids=lambda m: m.__name__)
def test_the_engine_is_the_one_asked_for(module: object) -> None:
    path = Path(str(getattr(module, "__file__", "")))
    if os.environ.get("SCOPA_ENGINE") == "compiled":
        assert path.suffix in (".so", ".pyd"), path
        assert path.is_relative_to(compiled.BUILD), path
    else:
        assert path.suffix == ".py", f"{path}: run `make clean`, then the tests again"
