"""The guides read as reference (issue 37): a README a newcomer reads through, tables
whose cells are read at a glance, and performance.md holding the current figures only
(the history of each is in git)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: The most lines a guide may have, where a bound holds.
MOST_LINES = {"README.md": 150, "docs/performance.md": 250}
#: The most characters a table cell may hold.
MOST_IN_A_CELL = 200


def cells(text: str) -> list[tuple[int, str]]:
    """Each cell of each Markdown table row of ``text``: (line number, its text). A pipe
    inside backticks or escaped is no border."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith("|"):
            continue
        plain = re.sub(r"`[^`]*`", lambda code: "x" * len(code.group(0)), line)
        plain = plain.replace("\\|", "xx")
        borders = [at for at, char in enumerate(plain) if char == "|"]
        for start, end in zip(borders, borders[1:], strict=False):
            found.append((number, line[start + 1 : end].strip()))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_table_cell_is_long(doc: Path) -> None:
    long = [
        f"line {number}: {len(cell)} characters: {cell[:80]}..."
        for number, cell in cells(doc.read_text())
        if len(cell) > MOST_IN_A_CELL
    ]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("name", sorted(MOST_LINES))
def test_a_guide_keeps_to_its_length(name: str) -> None:
    lines = len((ROOT / name).read_text().splitlines())
    assert lines <= MOST_LINES[name], f"{name}: {lines} lines, at most {MOST_LINES[name]}"


def test_cells_are_read_as_a_reader_sees_them() -> None:
    row = "| `a|b` | c \\| d | " + "e" * 201 + " |"
    assert [cell for _, cell in cells(row)] == ["`a|b`", "c \\| d", "e" * 201]
