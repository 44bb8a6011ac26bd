"""The /play page's files as served (service/api/play_page.py): versioned URLs kept a
year, the page referencing only those, the old URLs revalidated; and compressed answers
(service/api/compression.py): brotli or gzip for the page, its files, the spec and the
API's JSON, never for an event stream, the ETags those of the compressed bodies."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brotli
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api import play_page
from service.api.play_page import ASSETS, IMMUTABLE, POLICY, PREFIX, VERSION, content_hash
from tests.helpers import Table

ROOT = Path(__file__).resolve().parent.parent
DECODE = {"br": brotli.decompress, "gzip": gzip.decompress}


def decoded(response: Any) -> bytes:
    coding = response.headers.get("Content-Encoding")
    body: bytes = response.get_data()
    return DECODE[coding](body) if coding else body


# -- caching -----------------------------------------------------------------------------


def test_the_page_references_only_versioned_files(client: FlaskClient) -> None:
    page = client.get("/play")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-cache"
    html = page.get_data(as_text=True)
    references = re.findall(r'(?:src|href)="([^"]+)"', html)
    named = [ref for ref in references if ref.split("/")[-1] in ASSETS]
    # The page's script and stylesheet, one file each (`make web`), and its icon.
    assert {ref.split("/")[-1] for ref in named} == {"play.js", "play.css", "icon.svg"}
    for ref in named:
        assert ref == f"{PREFIX}{VERSION}/{ref.split('/')[-1]}", ref
    again = client.get("/play", headers={"If-None-Match": page.headers["ETag"]})
    assert again.status_code == 304


def test_a_versioned_file_is_kept_a_year_and_an_old_url_revalidated(
    client: FlaskClient,
) -> None:
    for name in ("play.js", "play.css", "icon.svg", "locales/it.json"):
        kept = client.get(f"{PREFIX}{VERSION}/{name}")
        assert kept.status_code == 200, name
        assert kept.headers["Cache-Control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        assert kept.headers["Content-Security-Policy"] == POLICY
        assert kept.get_data() == ASSETS[name].body
        old = client.get(f"/play/{name}")  # bookmarked before the prefix
        assert old.status_code == 200 and old.get_data() == kept.get_data()
        assert old.headers["Cache-Control"] == "no-cache"
        other = client.get(f"{PREFIX}0123456789abcdef/{name}")  # a page of another deploy
        assert other.status_code == 200 and other.headers["Cache-Control"] == "no-cache"
    for missing in (f"{PREFIX}{VERSION}/nope.js", f"{PREFIX}{VERSION}/index.html"):
        answer = client.get(missing)
        assert answer.status_code == 404 and answer.mimetype == "application/problem+json"


def test_the_page_bundle_is_made_from_its_modules_and_stylesheets(tmp_path: Path) -> None:
    """service/web/play.js and play.css, checked in, are what `make web` makes of the
    modules and stylesheets beside them now: an edit to a module without `make web`
    fails here (as the spec's drift test does for the API)."""
    esbuild = ROOT / ".tools" / "node" / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        pytest.skip("esbuild is not installed (`make node-tools`, which needs npm)")
    made = subprocess.run(
        ["make", "--no-print-directory", "web", f"WEB_OUT={tmp_path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    for name in ("play.js", "play.css"):
        assert (tmp_path / name).read_bytes() == (play_page.WEB / name).read_bytes(), (
            f"service/web/{name} is not what its sources make: run `make web`"
        )


def test_the_icon_is_where_browsers_look_for_it(client: FlaskClient) -> None:
    """/docs and /redoc name no icon: a browser asks /favicon.ico, and gets the page's."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.mimetype == "image/svg+xml"
    assert icon.get_data() == ASSETS["icon.svg"].body


def test_the_version_changes_with_any_file() -> None:
    files = {"app.js": b"export const a = 1;\n", "style.css": b"body { margin: 0 }\n"}
    version = content_hash(files)
    assert re.fullmatch(r"[0-9a-f]{16}", version)
    assert content_hash(dict(reversed(files.items()))) == version  # the order is not
    assert content_hash({**files, "app.js": b"export const a = 2;\n"}) != version
    assert content_hash({**files, "new.js": b""}) != version
    assert content_hash({"app.js": files["app.js"], "style.cs": b"s" + files["style.css"]}) != (
        version
    )  # (names and contents do not run into each other)
    web = play_page.WEB
    files = [*web.iterdir(), *(web / "locales").iterdir()]
    assert play_page.VERSION == content_hash(
        {
            p.relative_to(web).as_posix(): p.read_bytes()
            for p in files
            if p.suffix in play_page.TYPES
        }
    )  # (the page's words, locales/<lang>.json, included)


def test_references_are_rewritten_only_for_the_pages_own_files() -> None:
    html = (
        b'<link href="style.css"><script src="/play/app.js"></script>'
        b'<a href="/docs">x</a><a href="other.js">y</a><img src="https://x.example/a.svg">'
    )
    assert play_page.versioned(html, {"style.css", "app.js"}, "abc") == (
        b'<link href="/play/v/abc/style.css"><script src="/play/v/abc/app.js"></script>'
        b'<a href="/docs">x</a><a href="other.js">y</a><img src="https://x.example/a.svg">'
    )


# -- compression ---------------------------------------------------------------------------


@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_the_page_its_files_and_the_api_answer_compressed(table: Table, coding: str) -> None:
    client = table.client
    table.create(seed=3)
    asked = {"Accept-Encoding": f"{coding}, identity;q=0.5"}
    urls = ["/play", f"{PREFIX}{VERSION}/app.js", "/play/screen.css", "/openapi.json"]
    for url in urls:
        plain, packed = client.get(url), client.get(url, headers=asked)
        assert packed.headers["Content-Encoding"] == coding, url
        assert "Accept-Encoding" in packed.headers["Vary"], url
        assert decoded(packed) == plain.get_data(), url
        assert len(packed.get_data()) < len(plain.get_data()) / 2, url
        assert "Content-Encoding" not in plain.headers
        # The ETag is the compressed body's own, and revalidates it.
        assert packed.headers["ETag"] == plain.headers["ETag"][:-1] + f':{coding}"', url
        again = client.get(url, headers={**asked, "If-None-Match": packed.headers["ETag"]})
        assert again.status_code == 304, url

    view = client.get(table.url(), headers={**table.auth(0), **asked})
    assert view.headers["Content-Encoding"] == coding
    assert json.loads(decoded(view)) == table.view(0)
    assert view.headers["ETag"] == f'"{table.view(0)["version"]}:{coding}"'
    # Either form of the game's tag reads as its version.
    for tag in (view.headers["ETag"], f'"{table.view(0)["version"]}"'):
        same = client.get(table.url(), headers={**table.auth(0), "If-None-Match": tag})
        assert same.status_code == 304, tag
    listed = client.get("/v1/variants", headers=asked)
    assert json.loads(decoded(listed)) == client.get("/v1/variants").get_json()


def test_small_answers_and_problems_stay_as_they_are(table: Table) -> None:
    asked = {"Accept-Encoding": "br, gzip"}
    small = table.client.get("/healthz", headers=asked)
    assert small.status_code == 200 and "Content-Encoding" not in small.headers
    missing = table.client.get("/v1/games/AAAAAAAAAAAAAAAAAAAAAA", headers=asked)
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers


def test_an_event_stream_is_never_compressed(
    redis_url: str, make_app: Callable[..., Flask]
) -> None:
    app = make_app(REDIS_URL=redis_url, STREAM_KEEPALIVE_SECONDS=0.2)
    table = Table(app.test_client())
    table.create(seed=4)
    try:
        stream = table.client.get(
            table.url("/stream"), headers={"Accept-Encoding": "br, gzip"}, buffered=False
        )
        assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
        assert "Content-Encoding" not in stream.headers
        first = next(iter(stream.response))
        assert first.startswith(b"retry: ")  # plain text, sent at once
        stream.close()
    finally:
        hub = app.extensions.get("scopa_live_hub")
        if hub is not None:
            hub.close()


def test_compression_can_be_turned_off(redis_url: str, make_app: Callable[..., Flask]) -> None:
    client = make_app(REDIS_URL=redis_url, COMPRESSION="off").test_client()
    answer = client.get("/openapi.json", headers={"Accept-Encoding": "br, gzip"})
    assert answer.status_code == 200 and "Content-Encoding" not in answer.headers


# -- the page's words ------------------------------------------------------------------------

LOCALES = play_page.WEB / "locales"


def test_every_language_says_what_english_says() -> None:
    """One file of words a language (service/web/locales/<lang>.json, the languages of
    strings.js's LANGUAGES): each has English's keys, no more; a plural text the forms
    its language needs (one, other); and each text the placeholders English's has."""
    english = json.loads((LOCALES / "en.json").read_text())
    languages = re.search(r"LANGUAGES = \[([^\]]*)\]", (play_page.WEB / "strings.js").read_text())
    assert languages is not None
    langs = re.findall(r"'(\w+)'", languages.group(1))
    assert (
        sorted(p.stem for p in LOCALES.glob("*.json")) == sorted(langs) == ["en", "es", "it", "pt"]
    )

    def placeholders(text: str | dict[str, str]) -> set[str]:
        texts = text.values() if isinstance(text, dict) else [text]
        return {name for one in texts for name in re.findall(r"\{(\w+)\}", one)}

    for lang in langs:
        words = json.loads((LOCALES / f"{lang}.json").read_text())
        assert list(words) == list(english), lang  # the same keys, in the same order
        for key, text in words.items():
            assert isinstance(text, type(english[key])), (lang, key)
            if isinstance(text, dict):
                assert {"one", "other"} <= set(text), (lang, key)
            assert placeholders(text) <= placeholders(english[key]) | {"n"}, (lang, key)
        assert f"locales/{lang}.json" in ASSETS
        assert ASSETS[f"locales/{lang}.json"].mimetype == "application/json"
