"""The browser client at /play: the files of service/web/, read once when the app starts
and served from memory. The page loads two of them, ``play.js`` (its ES modules bundled)
and ``play.css`` (its stylesheets as one), which ``make web`` builds with esbuild and the
repository holds, so that serving needs no Node.js.
The page calls only the public API, like any other frontend; like /docs, it is not an
operation of the spec.

Caching: the page itself (``/play``) is revalidated on each load (``no-cache`` with an
ETag: a 304 while it is unchanged). Its files are served under a versioned prefix,
``/play/v/<hash>/<name>``, where ``<hash>`` is :func:`content_hash` of every file of
service/web/: a browser keeps them a year without asking again (``immutable``), and a
deploy that changes any file changes every URL, so that old and new modules never mix.
The page's references to its files (``src``/``href`` naming one, ``app.js`` or
``/play/app.js``) are rewritten to that prefix when the app starts; the modules import
each other, and read the page's words (``locales/<lang>.json``, one file a language), by
relative paths, which resolve under the same prefix. The old
``/play/<name>`` URLs, and a prefix with another hash (a page loaded before a deploy),
still answer the current file, revalidated (``no-cache``) instead of kept.

Every answer carries a strict Content-Security-Policy (everything from this origin, no
inline script or style, no frames). The rules page (``/play/rules``) is
service/api/rules_page.py's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Flask, Response
from werkzeug.exceptions import NotFound

from .compression import fixed_body, unchanged

WEB = Path(__file__).resolve().parent.parent / "web"
PAGE = "index.html"
#: The content type of each kind of file the page is made of (Werkzeug adds
#: "; charset=utf-8" to text types).
TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
#: The folders of service/web/ whose files are the page's too, served as
#: ``<folder>/<name>``: the page's words, one file a language.
FOLDERS = ("locales",)
POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
#: Kept a year, never revalidated: a versioned URL's content never changes.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATED = "no-cache"
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    # The page's address may hold a join code (/play?game=...&code=...).
    "Referrer-Policy": "no-referrer",
}
#: Where the versioned files are served: PREFIX + <hash> + "/" + <name>.
PREFIX = "/play/v/"


@dataclass(frozen=True)
class Asset:
    """A file of the page as served: its bytes, content type and entity tag."""

    body: bytes
    mimetype: str
    etag: str

    @classmethod
    def of(cls, body: bytes, suffix: str) -> Asset:
        return cls(body, TYPES[suffix], hashlib.sha256(body).hexdigest()[:32])


def content_hash(files: Mapping[str, bytes]) -> str:
    """The version of a set of files (name -> content): 16 hex digits of a SHA-256 over
    their names and contents, in name order; any change to any file changes it."""
    digest = hashlib.sha256()
    for name in sorted(files):
        content = files[name]
        digest.update(b"%d:%s\n%d:" % (len(name), name.encode(), len(content)))
        digest.update(content)
    return digest.hexdigest()[:16]


def versioned(html: bytes, names: set[str], version: str) -> bytes:
    """``html`` with each ``src``/``href`` that names one of the files ``names`` (as
    ``app.js`` or ``/play/app.js``) pointing at its versioned URL."""

    def rewrite(found: re.Match[bytes]) -> bytes:
        name = found.group(3).decode()
        if name not in names:
            return found.group(0)
        return found.group(1) + f"{PREFIX}{version}/{name}".encode() + found.group(4)

    return re.sub(rb'(\b(?:src|href)=")(/play/)?([A-Za-z0-9._-]+)(")', rewrite, html)


def _read(web: Path) -> tuple[dict[str, Asset], Asset, str]:
    """The files of ``web`` (but the page), the page with its references versioned, and
    the version."""
    contents = {
        path.relative_to(web).as_posix(): path.read_bytes()
        for folder in (web, *(web / name for name in FOLDERS))
        for path in sorted(folder.iterdir())
        if path.is_file() and path.suffix in TYPES
    }
    version = content_hash(contents)
    assets = {
        name: Asset.of(body, Path(name).suffix) for name, body in contents.items() if name != PAGE
    }
    page = Asset.of(versioned(contents[PAGE], set(assets), version), ".html")
    return assets, page, version


#: The files served, by name: what service/web/ holds (and its FOLDERS' files, named
#: ``<folder>/<name>``), fixed when the app starts (a name not listed is a 404); the
#: page; and their version.
ASSETS, INDEX, VERSION = _read(WEB)

blp = Blueprint("play_page", __name__)


def _serve(asset: Asset, cache_control: str, key: str) -> Response:
    response = unchanged(asset.etag)  # (a 304)
    if response is None:
        response = Response(asset.body, mimetype=asset.mimetype)
        response.set_etag(asset.etag)
        fixed_body(f"play:{key}")  # compressed once per process
    response.headers.update(HEADERS)
    response.headers["Cache-Control"] = cache_control
    return response


def _asset(name: str) -> Asset:
    asset = ASSETS.get(name)
    if asset is None:
        raise NotFound("The page has no such file: it is served at /play.")
    return asset


@blp.get("/play")
def page() -> Response:
    return _serve(INDEX, REVALIDATED, PAGE)


@blp.get("/favicon.ico")
def favicon() -> Response:
    """The page's icon, where a browser looks for one by itself (/docs, /redoc, a
    document of the API opened in a tab)."""
    return _serve(_asset("icon.svg"), REVALIDATED, "icon.svg")


@blp.get("/play/<path:name>")
def asset(name: str) -> Response:
    return _serve(_asset(name), REVALIDATED, name)


@blp.get("/play/v/<version>/<path:name>")
def versioned_asset(version: str, name: str) -> Response:
    found = _asset(name)
    if version != VERSION:  # a page of another deploy: this one's file, not kept
        return _serve(found, REVALIDATED, name)
    return _serve(found, IMMUTABLE, name)


def install(app: Flask) -> None:
    """Serve the page at /play, its files at /play/v/<hash>/<name> and /play/<name>, and
    its icon at /favicon.ico (outside the API's spec)."""
    app.register_blueprint(blp)
