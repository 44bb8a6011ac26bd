"""The browser client at /play: one page of plain ES modules and a stylesheet, the files
of service/web/ served as they are (no build step). The page calls only the public API,
like any other frontend; like /docs, it is not an operation of the spec.

Every answer carries a strict Content-Security-Policy (everything from this origin, no
inline script or style, no frames) and is revalidated on each load (``no-cache`` with
an ETag: a 304 while the file is unchanged), so a deploy never mixes old and new modules.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, send_file
from werkzeug.exceptions import NotFound

WEB = Path(__file__).resolve().parent.parent / "web"
PAGE = "index.html"
#: The content type of each kind of file the page is made of (Werkzeug adds
#: "; charset=utf-8" to text types).
TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
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
HEADERS = {
    "Content-Security-Policy": POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
    # The page's address may hold a join code (/play?game=...&code=...).
    "Referrer-Policy": "no-referrer",
}

#: The files served, by name: what service/web/ holds, fixed when the app starts (a name
#: not listed, a path included, is a 404).
ASSETS = {p.name: p for p in sorted(WEB.iterdir()) if p.suffix in TYPES and p.name != PAGE}

blp = Blueprint("play_page", __name__)


def _serve(path: Path) -> Response:
    response = send_file(path, mimetype=TYPES[path.suffix], conditional=True, etag=True)
    response.headers.update(HEADERS)
    return response


@blp.get("/play")
def page() -> Response:
    return _serve(WEB / PAGE)


@blp.get("/play/<name>")
def asset(name: str) -> Response:
    path = ASSETS.get(name)
    if path is None:
        raise NotFound("The page has no such file: it is served at /play.")
    return _serve(path)


def install(app: Flask) -> None:
    """Serve the page at /play and its files at /play/<name> (outside the API's spec)."""
    app.register_blueprint(blp)
