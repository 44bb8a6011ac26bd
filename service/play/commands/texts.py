"""The fields of a command's input, found by their paths: its text fields held to the
text rules (service/play/text.py), the one place they are checked, whatever the entry
point (the API's schemas only state the rules in the spec); those only a key may send
looked for. A path is dotted (``reason``, ``seats[].name``), ``[]`` for every entry of a
list and ``*`` for every value of a map (``metadata.*``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import text

#: Where a value is, as a validation problem's ``errors`` nest it (marshmallow's way):
#: ``("seats", "0", "name")``; a map's value ``("metadata", "round", "value")``.
Where = tuple[str, ...]


def places_at(data: Any, path: str) -> Iterator[tuple[Where, dict[str, Any], str]]:
    """Each place at ``path`` in ``data`` that holds a value: where it is, and the map
    that holds it under which key."""
    *parents, last = path.split(".")
    found: list[tuple[Where, Any]] = [((), data)]
    for part in parents:
        found = [inner for where, value in found for inner in _inside(where, value, part)]
    for where, value in found:
        if not isinstance(value, dict):
            continue
        if last == "*":
            yield from (((*where, str(key), "value"), value, key) for key in value)
        elif last in value:
            yield (*where, last), value, last


def _inside(where: Where, value: Any, part: str) -> list[tuple[Where, Any]]:
    """What ``part`` of a path names in ``value`` (found at ``where``)."""
    if not isinstance(value, dict):
        return []
    name = part.removesuffix("[]")
    if name == "*":
        return [((*where, str(key)), inner) for key, inner in value.items()]
    inner = value.get(name)
    if part.endswith("[]"):
        entries = inner if isinstance(inner, list) else []
        return [((*where, name, str(number)), entry) for number, entry in enumerate(entries)]
    return [((*where, name), inner)]


def values_at(data: Any, path: str) -> Iterator[Any]:
    """Each value of ``data`` at ``path``."""
    return (holder[key] for _, holder, key in places_at(data, path))


def check_fields(data: Any, paths: tuple[str, ...]) -> None:
    """Hold each text at ``paths`` to the text rules, replaced by the text as kept (a
    display name NFC-normalised); text.TextRefusedError, its ``where`` set, for the
    first the rules refuse. A ``name`` is a display name, a ``reason`` an abort's, a
    map's value (``*``) a metadata value."""
    for path in paths:
        head = path.partition(".")[0].removesuffix("[]")
        if isinstance(data, dict) and head != "*" and head not in data:
            continue  # not sent (most bodies send few of them, or none)
        last = path.rsplit(".", 1)[-1].removesuffix("[]")
        kind = {"name": text.DISPLAY_NAME, "reason": text.ABORT_REASON}.get(
            last, text.METADATA_VALUE
        )
        for where, holder, key in places_at(data, path):
            value = holder[key]
            if not isinstance(value, str):
                continue
            try:
                holder[key] = text.checked(value, kind)
            except text.TextRefusedError as refused:
                refused.where = where
                raise
