"""Every relative link of README.md and docs/*.md leads somewhere: to a file of the
repository and, with a ``#fragment``, to a heading of that file (GitHub's anchors).
External links (http, https, mailto) are not fetched."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PARSER = MarkdownIt("commonmark").enable("table")


def tokens(path: Path) -> list[Token]:
    """Every token of the document, inline ones (links, images) included."""
    found: list[Token] = []

    def walk(items: list[Token]) -> None:
        for token in items:
            found.append(token)
            if token.children:
                walk(token.children)

    walk(PARSER.parse(path.read_text(encoding="utf-8")))
    return found


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (but ``-`` and
    ``_``), each space a ``-``."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings; a repeated one gets -1, -2, ..."""
    seen: Counter[str] = Counter()
    found = set()
    items = tokens(path)
    for i, token in enumerate(items):
        if token.type == "heading_open":
            inline = next(t for t in items[i + 1 :] if t.type == "inline")
            text = "".join(
                child.content
                for child in inline.children or []
                if child.type in ("text", "code_inline")
            )
            base = slug(text)
            found.add(base if not seen[base] else f"{base}-{seen[base]}")
            seen[base] += 1
    return found


def links(path: Path) -> list[str]:
    """The targets of a file's links and images (none from code blocks or spans)."""
    found = []
    for token in tokens(path):
        if token.type == "link_open":
            found.append(str(token.attrs["href"]))
        elif token.type == "image":
            found.append(str(token.attrs["src"]))
    return found


def broken(path: Path) -> list[str]:
    problems = []
    for target in links(path):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # external: not fetched
        dest = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
        elif parts.fragment:
            if dest.suffix != ".md":
                problems.append(f"{target}: an anchor into a file that is not Markdown")
            elif unquote(parts.fragment) not in anchors(dest):
                problems.append(f"{target}: no heading #{parts.fragment} in {dest.name}")
    return problems


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(path: Path) -> None:
    assert broken(path) == []


def test_the_check_finds_a_broken_file_a_broken_anchor_and_computes_githubs_anchors(
    tmp_path: Path,
) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## What `deploy/` holds\n\n## Same\n\n## Same\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[ok](other.md#what-deploy-holds) [dup](other.md#same-1) [self](#page)\n"
        "[gone](missing.md) [bad](other.md#nowhere) [web](https://example.com/x#y)\n\n"
        "```sh\n# not a heading [nor](a-link.md)\n```\n"
    )
    assert broken(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
    ]
