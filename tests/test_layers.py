"""The code reads top-down: each layer imports only the layers below it, and no module
imports another in a loop (docs/development.md, "The code").

    service.app  >  service.api  >  service.play  >  service.bots  >  service.engine
                                                >  service.ratings, service.tournaments

``service.config`` holds the settings, declared in ``service.settings``; they import only
the readings of a Redis URL and of the webhook settings (in ``service.play``), when they
check one.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "service"
#: Each layer, and the layers it may import (besides itself).
LAYERS = {
    "service": set(),  # the package itself: nothing in its __init__
    "service.engine": set(),
    "service.bots": {"service.engine"},
    # Pure, like the engine: the rating model and tournaments' pairing and standings.
    "service.ratings": set(),
    "service.tournaments": set(),
    "service.play": {"service.engine", "service.bots", "service.ratings", "service.tournaments"},
    "service.api": {
        "service.engine",
        "service.bots",
        "service.play",
        "service.config",
        "service.settings",
    },
    # Settings only; a REDIS_URL is checked with the one reading of it
    # (service.play.connections.parse), imported when a URL is checked (and so the
    # webhooks' settings).
    "service.config": {"service.settings"},
    "service.settings": {"service.play"},
    "service.app": {"service.api", "service.play", "service.config"},
    "service.worker": {"service.engine", "service.play", "service.config"},
    # gunicorn's worker (deploy/gunicorn.conf.py), and how it frames the requests it reads.
    "service.request_reading": set(),
    "service.serving": {"service.config", "service.request_reading"},
}
LIBRARIES_ABOVE_THE_ENGINE = ("flask", "flask_smorest", "marshmallow", "webargs", "redis")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """The modules ``path`` imports, absolute, at any depth of its code."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # "from . import module" depends on the module, not on the package's __init__.
            submodules = {f"{target}.{a.name}" for a in node.names}
            submodules = {m for m in submodules if module_path(m) is not None}
            found |= submodules
            if len(submodules) < len(node.names):
                found.add(target)
    return found


def module_path(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def layer_of(name: str) -> str | None:
    """The longest layer name ``name`` falls under."""
    layers = [layer for layer in LAYERS if name == layer or name.startswith(layer + ".")]
    return max(layers, key=len, default=None)


MODULES = {module_name(p): p for p in sorted(SERVICE.rglob("*.py"))}
GRAPH = {
    name: {i for i in imports_of(path) if i.startswith("service")} for name, path in MODULES.items()
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_no_layer_above_its_own(name: str) -> None:
    layer = layer_of(name)
    assert layer is not None, f"{name} belongs to no layer: add it to LAYERS"
    for imported in GRAPH[name]:
        other = layer_of(imported)
        assert other == layer or other in LAYERS[layer], f"{name} imports {imported}"


def test_the_engine_and_the_bots_know_nothing_of_the_web_or_storage() -> None:
    for name, path in MODULES.items():
        if layer_of(name) in ("service.engine", "service.bots"):
            libraries = {i.split(".")[0] for i in imports_of(path)}
            assert not libraries & set(LIBRARIES_ABOVE_THE_ENGINE), name


def test_no_module_imports_another_in_a_loop() -> None:
    """Modules a package's ``__init__`` re-exports are followed through it. (graphlib's
    sort finds a loop in one pass over the graph, and names it.)"""
    graph = {
        name: {i for i in imports if i in GRAPH and i != name} for name, imports in GRAPH.items()
    }
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        raise AssertionError(" -> ".join(reversed(error.args[1]))) from None


def test_developer_tools_are_not_in_the_runtime_package() -> None:
    """The private-Redis launcher and the load test's floor live with the tests."""
    assert "service.devredis" not in MODULES and (ROOT / "tests" / "devredis.py").is_file()
    assert not any("floor" in name for name in MODULES)
    assert (ROOT / "tests" / "bench" / "floor.py").is_file()
