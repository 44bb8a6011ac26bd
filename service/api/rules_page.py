"""The rules page, ``/play/rules?lang=<it|en|pt|es>``: sections R1 to R10 of
docs/rules.md (the rules a player meets at /play; the Cirulla part and the service's
own readings are left to the document) as one HTML page, in four languages.

The English text is docs/rules.md itself (service/web/rules/en.md links to it); the
Italian, Portuguese and Spanish ones are translations beside it, service/web/rules/
<lang>.md, with the same sections. A translated heading names its English anchor
(``## R4 Catturare {#r4-capturing}``), so that a link to a section
(``/play/rules?lang=it#r41-a-card-of-the-same-value-comes-first``) works in every
language: GitHub's anchors of docs/rules.md's headings, which the English page uses as
they are. tests/test_rules_page.py fails when a translation's sections drift from
docs/rules.md's.

Markdown is rendered by markdown-it-py (CommonMark and tables), raw HTML off: what the
files hold is shown as text, never passed through. Each language is rendered once per
process. The page has /play's Content-Security-Policy, its stylesheet a file of the page
(``rules.css``, under the versioned prefix).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from html import escape

from flask import Blueprint, Flask, Response, request
from markdown_it import MarkdownIt
from markdown_it.token import Token

from .compression import fixed_body, unchanged
from .play_page import HEADERS, PREFIX, VERSION, WEB

RULES = WEB / "rules"
LANGUAGES = ("it", "en", "pt", "es")
DEFAULT = "en"
#: The sections shown: R1 to R10.
SHOWN = range(1, 11)

#: The page's own words, by language.
WORDS = {
    "it": {"languages": "Lingua", "back": "Torna al gioco", "name": "Italiano"},
    "en": {"languages": "Language", "back": "Back to the game", "name": "English"},
    "pt": {"languages": "Idioma", "back": "Voltar ao jogo", "name": "Português"},
    "es": {"languages": "Idioma", "back": "Volver al juego", "name": "Español"},
}

_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")
_SECTION = re.compile(r"^## R(\d+) ", re.MULTILINE)
_LEVEL_TWO = re.compile(r"^## ", re.MULTILINE)
_NAMED = re.compile(r"\s*\{#([a-z0-9_-]+)\}\s*$")
#: A reference to a section in the text ("R4", "R10.5").
_REFERENCE = re.compile(r"\bR\d+(?:\.\d+)?\b")


def slug(text: str) -> str:
    """GitHub's anchor for a heading's text: lower case, punctuation dropped (but ``-``
    and ``_``), each space a ``-``."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def source(lang: str) -> str:
    """The Markdown of ``lang``'s rules (a whole document: docs/rules.md for English)."""
    return (RULES / f"{lang}.md").read_text(encoding="utf-8")


def shown_part(markdown: str) -> tuple[str, str]:
    """A document's title (its ``#`` heading) and its sections R1 to R10, as Markdown."""
    title = re.search(r"^# (.+)$", markdown, re.MULTILINE)
    if title is None:
        raise ValueError("the rules have no title (a '# ' heading)")
    starts = [m.start() for m in _LEVEL_TWO.finditer(markdown)] + [len(markdown)]
    kept = []
    for start, end in zip(starts, starts[1:], strict=False):
        section = _SECTION.match(markdown, start)
        if section is not None and int(section.group(1)) in SHOWN:
            kept.append(markdown[start:end])
    return title.group(1).strip(), "".join(kept)


@dataclass(frozen=True)
class Heading:
    level: int
    anchor: str
    text: str


def render(markdown: str) -> tuple[str, list[Heading]]:
    """``markdown`` as HTML (raw HTML in it escaped), each heading with its anchor as
    ``id`` (a ``{#anchor}`` at its end, else GitHub's for its text), each reference to
    one of its sections in the text ("R4.1") a link to it; and the headings."""
    tokens = _PARSER.parse(markdown)
    headings = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[index + 1]
        children = inline.children or []
        named = None
        if children and children[-1].type == "text":
            found = _NAMED.search(children[-1].content)
            if found is not None:
                named = found.group(1)
                children[-1].content = children[-1].content[: found.start()]
        text = "".join(c.content for c in children if c.type in ("text", "code_inline"))
        anchor = named or slug(text)
        token.attrSet("id", anchor)
        headings.append(Heading(int(token.tag[1]), anchor, text.strip()))
    sections = {h.text.split()[0]: h.anchor for h in headings if h.text}
    for index, token in enumerate(tokens):
        if token.type == "inline" and (index == 0 or tokens[index - 1].type != "heading_open"):
            token.children = _linked(token.children or [], sections)
    return _PARSER.renderer.render(tokens, _PARSER.options, {}), headings


def _linked(children: list[Token], sections: dict[str, str]) -> list[Token]:
    """``children`` with each section number in their text a link to its anchor."""
    linked: list[Token] = []
    for child in children:
        if child.type != "text":
            linked.append(child)
            continue
        text, start = child.content, 0
        for found in _REFERENCE.finditer(text):
            anchor = sections.get(found.group())
            if anchor is None:
                continue
            if found.start() > start:
                linked.append(Token("text", "", 0, content=text[start : found.start()]))
            linked += [
                Token("link_open", "a", 1, attrs={"href": f"#{anchor}"}),
                Token("text", "", 0, content=found.group()),
                Token("link_close", "a", -1),
            ]
            start = found.end()
        if start < len(text):
            linked.append(Token("text", "", 0, content=text[start:]))
    return linked


def page(lang: str) -> bytes:
    """The rules page in ``lang``."""
    title, sections = shown_part(source(lang))
    body, _ = render(sections)
    words = WORDS[lang]
    choices = "".join(
        f'<li><a href="/play/rules?lang={other}" hreflang="{other}" lang="{other}"'
        + (' aria-current="page"' if other == lang else "")
        + f">{escape(WORDS[other]['name'])}</a></li>"
        for other in LANGUAGES
    )
    html = f"""<!doctype html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light">
  <title>{escape(title)} · Scopa</title>
  <link rel="icon" href="{PREFIX}{VERSION}/icon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="{PREFIX}{VERSION}/rules.css">
</head>
<body>
  <header class="bar">
    <a href="/play">{escape(words["back"])}</a>
    <nav aria-label="{escape(words["languages"])}"><ul>{choices}</ul></nav>
  </header>
  <main>
    <h1>{escape(title)}</h1>
{body}  </main>
</body>
</html>
"""
    return html.encode()


_pages: dict[str, tuple[bytes, str]] = {}
_lock = threading.Lock()


def _page(lang: str) -> tuple[bytes, str]:
    """``lang``'s page and its entity tag, made once per process."""
    made = _pages.get(lang)
    if made is None:
        with _lock:
            made = _pages.get(lang)
            if made is None:
                body = page(lang)
                made = _pages[lang] = (body, hashlib.sha256(body).hexdigest()[:32])
    return made


blp = Blueprint("rules_page", __name__)


@blp.get("/play/rules")
def rules() -> Response:
    asked = request.args.get("lang", DEFAULT)
    lang = asked if asked in LANGUAGES else DEFAULT
    body, etag = _page(lang)
    response = unchanged(etag)
    if response is None:
        response = Response(body, mimetype="text/html")
        response.set_etag(etag)
        fixed_body(f"rules:{lang}")
    response.headers.update(HEADERS)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Language"] = lang
    return response


def install(app: Flask) -> None:
    """Serve the rules page at /play/rules (outside the API's spec)."""
    app.register_blueprint(blp)
