"""The rules page, /play/rules?lang=... (service/api/rules_page.py): docs/rules.md's
sections R1 to R10 in four languages, the translations' sections exactly docs/rules.md's
(a section added, removed or renamed there fails here until each translation follows),
every section on the page under its GitHub anchor, no raw HTML passed through, and the
page's structure for assistive technology (language, landmarks, headings in order)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.api import rules_page
from service.api.play_page import ASSETS, POLICY, PREFIX, VERSION
from service.api.rules_page import LANGUAGES, Heading, render, shown_part, source

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = [lang for lang in LANGUAGES if lang != "en"]


def headings(lang: str) -> list[Heading]:
    return render(shown_part(source(lang))[1])[1]


def english() -> list[Heading]:
    """docs/rules.md's sections R1 to R10, read from docs/rules.md itself."""
    return render(shown_part((ROOT / "docs" / "rules.md").read_text(encoding="utf-8"))[1])[1]


def test_the_english_rules_are_docs_rules_md() -> None:
    assert (rules_page.RULES / "en.md").resolve() == (ROOT / "docs" / "rules.md").resolve()
    found = english()
    tops = [h.text.split()[0] for h in found if h.level == 2]
    assert tops == [f"R{n}" for n in range(1, 11)]  # R1 to R10, nothing else
    anchors = [h.anchor for h in found]
    assert "r41-a-card-of-the-same-value-comes-first" in anchors  # GitHub's, as linked
    assert "r91-re_bello" in anchors and len(set(anchors)) == len(anchors)


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_a_translation_has_exactly_the_sections_of_docs_rules_md(lang: str) -> None:
    """Same sections, same order, same levels, each under docs/rules.md's anchor, with
    the same number; a section renamed in docs/rules.md changes its anchor, and fails
    here until the translation names the new one."""
    theirs = [(h.level, h.anchor, h.text.split()[0]) for h in english()]
    ours = [(h.level, h.anchor, h.text.split()[0]) for h in headings(lang)]
    missing = [s for s in theirs if s not in ours]
    extra = [s for s in ours if s not in theirs]
    assert not missing and not extra, f"{lang}.md drifted: lacks {missing}, has {extra}"
    assert ours == theirs, f"{lang}.md: sections out of order"
    # Translated: the headings that are words (not an option's or a variant's name).
    worded = [
        (h, e) for h, e in zip(headings(lang), english(), strict=True) if len(e.text.split()) > 2
    ]
    same = [h.text for h, e in worded if h.text == e.text]
    assert len(same) < len(worded) / 4, f"{lang}.md: headings left in English: {same}"


def test_the_drift_check_sees_a_section_added_removed_or_renamed() -> None:
    doc = "# T\n\n## R1 Cards\n\n### R1.1 The deck\ntext\n\n## R2 Seats\n\n## R11 Service\n"
    title, shown = shown_part(doc)
    assert title == "T" and "R11" not in shown
    assert [h.anchor for h in render(shown)[1]] == ["r1-cards", "r11-the-deck", "r2-seats"]
    renamed = render("## R1 Le carte {#r1-cards}\n\n### R1.1 Il mazzo {#r11-the-pack}\n")[1]
    assert [h.anchor for h in renamed] == ["r1-cards", "r11-the-pack"]  # != r11-the-deck
    assert renamed[0].text == "R1 Le carte"


def test_a_reference_to_a_shown_section_is_a_link_to_it() -> None:
    html, _ = render(
        "## R1 Cards\n\n### R1.1 The deck {#r11-the-deck}\n"
        "See R1.1 and R1, not R12 nor `R1`; R1.10 is not R1.1.\n"
    )
    assert '<h3 id="r11-the-deck">R1.1 The deck</h3>' in html  # (no link in a heading)
    assert (
        'See <a href="#r11-the-deck">R1.1</a> and <a href="#r1-cards">R1</a>, not R12 nor '
        '<code>R1</code>; R1.10 is not <a href="#r11-the-deck">R1.1</a>.'
    ) in html


def test_no_raw_html_passes_through() -> None:
    html, _ = render("## R1 <b>x</b>\n\n<script>alert(1)</script>\n\n[a](javascript:alert(1))\n")
    assert "<script" not in html and "<b>" not in html and 'href="javascript:' not in html
    assert "&lt;script&gt;" in html  # shown as text


class Structure(HTMLParser):
    """What a screen reader relies on: the page's language, landmarks, headings."""

    def __init__(self) -> None:
        super().__init__()
        self.lang: str | None = None
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.headings: list[int] = []
        self.links: list[str] = []
        self.inline = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.tags.append(tag)
        if tag == "html":
            self.lang = named.get("lang")
        if named.get("id"):
            self.ids.append(str(named["id"]))
        if re.fullmatch(r"h[1-6]", tag):
            self.headings.append(int(tag[1]))
        if tag in ("link", "script", "a", "img"):
            self.links.append(str(named.get("href") or named.get("src") or ""))
        self.inline = self.inline or tag == "style" or "style" in named


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_in_each_language(client: FlaskClient, lang: str) -> None:
    answer = client.get(f"/play/rules?lang={lang}")
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    assert answer.headers["Content-Security-Policy"] == POLICY
    assert answer.headers["Cache-Control"] == "no-cache"
    page = Structure()
    page.feed(answer.get_data(as_text=True))
    assert page.lang == lang
    assert {"header", "nav", "main"} <= set(page.tags) and page.tags.count("main") == 1
    assert "script" not in page.tags and not page.inline  # no script, no inline style
    assert page.headings[0] == 1 and page.headings.count(1) == 1
    assert all(b - a <= 1 for a, b in zip(page.headings, page.headings[1:], strict=False))
    # Every section of docs/rules.md R1-R10, under its anchor; every reference to one a
    # link there.
    assert [a for a in page.ids if a.startswith("r")] == [h.anchor for h in english()]
    internal = [link[1:] for link in page.links if link.startswith("#")]
    assert len(internal) > 50 and set(internal) <= set(page.ids)
    sheet = f"{PREFIX}{VERSION}/rules.css"
    assert sheet in page.links and "rules.css" in ASSETS
    assert client.get(sheet).status_code == 200
    assert (
        client.get(
            f"/play/rules?lang={lang}", headers={"If-None-Match": answer.headers["ETag"]}
        ).status_code
        == 304
    )


def test_an_unknown_language_is_english(client: FlaskClient) -> None:
    for query in ("", "?lang=fr", "?lang=<x>"):
        answer = client.get(f"/play/rules{query}")
        assert answer.status_code == 200, query
        assert '<html lang="en">' in answer.get_data(as_text=True)
