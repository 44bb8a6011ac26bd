"""What checking a text field costs: each display name, metadata value and abort reason
a request body can hold, as long as the body limit lets it be, accepted or refused in CPU
time that grows no faster than the text (service/play/text.py says why).

For each text field a request takes (:data:`FIELDS`: a seat's name at creation, in a
bulk creation and in an import, a joiner's name, a metadata value, an abort's reason) and
each input of :data:`PATTERNS` (those whose cost grew with the square of their length, and
the common ones), the text is built at two sizes: as long as the body limit lets it be
(``MAX_BODY_BYTES``, 64 KiB by default, the body sent as UTF-8), and the field's own bound
in code points (the longest text whose every rule is read). Each body is loaded as the
API loads it: through its schema (marshmallow's ``load``), then its text fields checked
as its command's policy says (service/play/commands/texts.py), and the CPU time that
took is measured (``time.thread_time``, the least of ``--repeat``
runs). It prints the costliest inputs first, and the worst::

    python -m tests.bench.text_rules [--repeat 5] [--top 15]

tests/test_text_rules.py loads the same inputs, with a generous bound on each.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
import orjson

from service.api.resources.games.schemas import (
    AbortRequestSchema,
    BulkCreateSchema,
    CreateGameSchema,
)
from service.api.resources.lobby.schemas import JoinRequestSchema
from service.api.resources.records.schemas import ImportSeatSchema
from service.config import SETTINGS
from service.play.commands import POLICIES
from service.play.commands.texts import check_fields
from service.play.text import ABORT_REASON, DISPLAY_NAME, METADATA_VALUE, TextKind, TextRefusedError

#: The body limit, at its default.
MAX_BODY_BYTES: int = next(s.default for s in SETTINGS if s.name == "MAX_BODY_BYTES")


@dataclass(frozen=True)
class Field:
    """A text field of a request body: its schema, the body that holds a text there, and
    the text fields its command's policy checks (service/play/commands/catalogue.py)."""

    name: str
    schema: Callable[[], ma.Schema]
    body: Callable[[str], dict[str, Any]]
    kind: TextKind
    texts: tuple[str, ...]


FIELDS = (
    Field(
        "name (create)",
        CreateGameSchema,
        lambda text: {"seats": [{"name": text}, {"name": "B"}]},
        DISPLAY_NAME,
        POLICIES["createGame"].texts,
    ),
    Field(
        "name (bulk)",
        BulkCreateSchema,
        lambda text: {"games": [{"seats": [{"name": text}, {"name": "B"}]}]},
        DISPLAY_NAME,
        POLICIES["createGames"].texts,
    ),
    Field(
        "name (join)",
        JoinRequestSchema,
        lambda text: {"name": text, "code": "c"},
        DISPLAY_NAME,
        POLICIES["joinGame"].texts,
    ),
    Field(
        "name (import)",
        ImportSeatSchema,
        lambda text: {"seat": 0, "name": text, "team": 0},
        DISPLAY_NAME,
        ("name",),  # (one of the import's `seats[].name`)
    ),
    Field(
        "metadata value",
        CreateGameSchema,
        lambda text: {"metadata": {"k": text}},
        METADATA_VALUE,
        POLICIES["createGame"].texts,
    ),
    Field(
        "abort reason",
        AbortRequestSchema,
        lambda text: {"reason": text},
        ABORT_REASON,
        POLICIES["abortGame"].texts,
    ),
)


@dataclass(frozen=True)
class Pattern:
    """A text: ``head``, then ``unit`` as often as fits, then ``tail``."""

    name: str
    unit: str
    head: str = ""
    tail: str = ""

    def text(self, units: int) -> str:
        return self.head + self.unit * max(units, 0) + self.tail


PATTERNS = (
    Pattern("regional indicators", "\U0001f1ee"),
    Pattern("marks of alternating classes", "\u0301\u0316", head="a"),
    Pattern("marks", "\u0301", head="a"),
    Pattern("letter, mark", "e\u0301"),
    Pattern("letter, four marks", "a\u0301\u0316\u0301\u0316"),
    Pattern("Hangul jamo", "\u1100\u1161\u11a8"),
    Pattern("Devanagari conjuncts", "\u0915\u094d\u0937"),
    Pattern("emoji, skin tone", "\U0001f44d\U0001f3fd"),
    Pattern("emoji, variation selector", "\u2764\ufe0f"),
    Pattern("emoji, zero-width joiner", "\U0001f468\u200d"),
    Pattern("letters, a bidi override last", "x", tail="\u202e"),
    Pattern("zero-width spaces", "\u200b"),
    Pattern("spaces, a letter last", " ", tail="x"),
    Pattern("CJK", "\u6f22"),
    Pattern("Latin letters", "x"),
)


def size(body: dict[str, Any]) -> int:
    """The body's bytes as JSON in UTF-8."""
    return len(orjson.dumps(body))


def at_body_limit(field: Field, pattern: Pattern, limit: int = MAX_BODY_BYTES) -> str:
    """The longest text of ``pattern`` whose body, in ``field``, is within ``limit``."""
    base = size(field.body(pattern.text(0)))
    per_unit = size(field.body(pattern.text(1))) - base
    return pattern.text((limit - base) // per_unit)


def at_bound(field: Field, pattern: Pattern) -> str:
    """The longest text of ``pattern`` within the field's bound in code points."""
    room = field.kind.max_code_points - len(pattern.head) - len(pattern.tail)
    return pattern.text(room // len(pattern.unit))


def inputs() -> Iterator[tuple[Field, Pattern, str, str]]:
    """Every field with every pattern at both sizes: (field, pattern, size, text)."""
    for field in FIELDS:
        for pattern in PATTERNS:
            yield field, pattern, "body limit", at_body_limit(field, pattern)
            yield field, pattern, "bound", at_bound(field, pattern)


def cost(field: Field, text: str, repeat: int = 3) -> tuple[float, str]:
    """The least CPU seconds of ``repeat`` loads of ``text`` in ``field``'s body, and
    what the load said: ``accepted``, or the first words of the refusal."""
    schema = field.schema()
    body = field.body(text)
    best = float("inf")
    said = "accepted"
    for _ in range(repeat):
        started = time.thread_time()
        try:
            check_fields(schema.load(body), field.texts)
        except ma.ValidationError as refused:
            said = "refused: " + _first(refused.messages)[:60]
        except TextRefusedError as refused:
            said = "refused: " + str(refused)[:60]
        best = min(best, time.thread_time() - started)
    return best, said


def _first(messages: Any) -> str:
    """The first message of marshmallow's nested ``messages``."""
    while not isinstance(messages, str):
        messages = next(iter(messages.values())) if isinstance(messages, dict) else messages[0]
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each load (the least)")
    parser.add_argument("--top", type=int, default=15, help="rows to print, costliest first")
    args = parser.parse_args(argv)
    rows = []
    for field, pattern, where, text in inputs():
        seconds, said = cost(field, text, args.repeat)
        rows.append((seconds, field.name, pattern.name, where, len(text), said))
    rows.sort(reverse=True)
    print(f"{len(rows)} loads, body limit {MAX_BODY_BYTES} bytes, least of {args.repeat} runs")
    print("| CPU ms | field | text | size | code points | answer |")
    print("|---:|---|---|---|---:|---|")
    for seconds, field_name, pattern_name, where, length, said in rows[: args.top]:
        print(
            f"| {seconds * 1000:.3f} | {field_name} | {pattern_name} | {where} | {length:,} "
            f"| {said} |"
        )
    worst = rows[0]
    print(f"worst: {worst[0] * 1000:.3f} ms of CPU ({worst[1]}, {worst[2]}, {worst[3]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
