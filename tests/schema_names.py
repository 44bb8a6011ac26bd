"""Schema names that a generated client cannot use: a named schema with a property of
its own name (``Level`` with ``level``). openapi-python-client's ``from_dict`` keeps each
property in a local variable named after it, then the new object in one named after the
class, both in snake_case: the second shadows the first, and mypy finds the model
ill-typed (openapi-python-client#1117). ``make lint`` runs this over openapi/openapi.json;
tests/test_openapi.py checks the spec and that this check does find a collision.

Usage: python -m tests.schema_names [openapi/openapi.json]; exits 1, a line a collision.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def snake(name: str) -> str:
    """``name`` as a Python identifier in snake_case: ``PileCounts`` and ``pile-counts``
    are both ``pile_counts``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"[^a-z0-9]+", "_", spaced.lower()).strip("_")


def collisions(spec: dict[str, Any]) -> list[str]:
    """One line for each named schema that has a property of its own name."""
    found = []
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        for prop in schema.get("properties", {}):
            if snake(prop) == snake(name):
                found.append(
                    f"components.schemas.{name} has a property {prop!r}: rename the schema "
                    "(a generated client shadows one with the other)"
                )
    return found


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else SPEC
    found = collisions(json.loads(path.read_text()))
    for line in found:
        print(f"{path}: {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
