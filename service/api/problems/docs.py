"""docs/api.md's table of problem types, written from the catalogue's rows (``make docs``:
``python -m service.api.problems docs/api.md`` replaces the table between its markers,
and nothing else of the file)."""

from __future__ import annotations

from .catalogue import ROWS
from .problem_type import ProblemRow

BEGIN = "<!-- problem types: written from service/api/problems/catalogue.py by `make docs` -->"
END = "<!-- end of problem types -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _adds(row: ProblemRow) -> str:
    members = [f"`{m}`" for m in row.members]
    headers = [f"`{h}` header" for h in row.headers]
    return ", ".join(members + headers)


def table() -> str:
    """The table: one line per problem type, in the catalogue's order."""
    lines = ["| `type` | status | title | when | adds |", "|---|---|---|---|---|"]
    for row in ROWS:
        statuses = ", ".join(str(s) for s in row.statuses)
        title = row.title or "the status phrase"
        cells = (f"`{row.type.value}`", statuses, title, row.when, _adds(row))
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def with_table(text: str) -> str:
    """``text`` (docs/api.md) with the table between its markers written anew."""
    head, begin, rest = text.partition(BEGIN + "\n")
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"no table between {BEGIN!r} and {END!r}")
    return head + begin + "\n" + table() + "\n" + end + tail
