"""The fields of a command's input, found by their paths (its text fields checked by
the text rules, service/play/text.py; those only a key may send looked for): a path is
dotted (``reason``, ``seats[].name``), ``[]``
for every entry of a list and ``*`` for every value of a map (``metadata.*``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import text


def values_at(data: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Each value of ``data`` at ``path``, with where it is (``seats[1].name``)."""
    found: list[tuple[str, Any]] = [("", data)]
    for part in path.split("."):
        name, many = part.removesuffix("[]"), part.endswith("[]")
        following: list[tuple[str, Any]] = []
        for where, value in found:
            if not isinstance(value, dict):
                continue
            if name == "*":
                following += [
                    (f"{where}{k}" if not where else f"{where}.{k}", v) for k, v in value.items()
                ]
                continue
            inner = value.get(name)
            at = f"{where}.{name}" if where else name
            if many:
                following += [(f"{at}[{i}]", v) for i, v in enumerate(inner or ())]
            else:
                following.append((at, inner))
        found = following
    yield from found


def check_fields(data: Any, paths: tuple[str, ...]) -> None:
    """Raise text.TextRefusedError for the first text at ``paths`` the rules refuse: a
    ``name`` is a display name, a ``reason`` an abort's, a map's value (``*``) a
    metadata value."""
    for path in paths:
        last = path.rsplit(".", 1)[-1].removesuffix("[]")
        kind = {"name": text.DISPLAY_NAME, "reason": text.ABORT_REASON}.get(
            last, text.METADATA_VALUE
        )
        for where, value in values_at(data, path):
            if not isinstance(value, str):
                continue
            try:
                text.checked(value, kind)
            except text.TextRefusedError as refused:
                refused.where = where  # type: ignore[attr-defined]
                raise
