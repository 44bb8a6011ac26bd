"""Which build of the engine's hot modules this process runs: their ``.py`` sources, or
the mypyc build (`make compile`, the image), whose extension modules come first on the
path. The service and the worker log it at start, and the service reports it as the
``scopa_engine_info`` metric."""

from __future__ import annotations

import importlib.machinery
import os
from types import ModuleType

from . import hand, masks, scoring

#: The modules `make compile` builds with mypyc (tests/bench/compiled.py, the image).
COMPILED_MODULES: tuple[ModuleType, ...] = (masks, hand, scoring)
#: What SCOPA_ENGINE may ask for: the build a process must run, or it refuses to start.
ENGINE_BUILDS = {"compiled": "mypyc", "python": "python"}


def engine_build() -> str:
    """``"mypyc"`` when the engine's hot modules were imported from extension modules (the
    mypyc build), ``"python"`` when from their ``.py`` sources, ``"mixed"`` otherwise."""
    compiled = {
        str(getattr(module, "__file__", "")).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
        for module in COMPILED_MODULES
    }
    if compiled == {True}:
        return "mypyc"
    return "python" if compiled == {False} else "mixed"


def engine_description(build: str) -> str:
    """The startup log line's message for ``build``."""
    if build == "mypyc":
        return f"engine: compiled (mypyc, {os.path.dirname(str(hand.__file__))})"
    if build == "python":
        return "engine: pure Python (no compiled build on the path)"
    where = ", ".join(str(getattr(m, "__file__", "?")) for m in COMPILED_MODULES)
    return f"engine: MIXED, some modules compiled and some not ({where})"


def check_engine(build: str, wanted: str) -> None:
    """Refuse to go on (RuntimeError) when ``wanted``, the value of SCOPA_ENGINE
    (``compiled``, ``python``, or empty for either), is not ``build``."""
    if wanted and ENGINE_BUILDS.get(wanted) != build:
        raise RuntimeError(
            f"SCOPA_ENGINE={wanted!r} but this process runs the {build} engine "
            f"({hand.__file__}): SCOPA_ENGINE is 'compiled' (the mypyc build must be on the "
            "path: PYTHONPATH=build/mypyc after `make compile`), 'python' or unset"
        )
