"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), with their
scripts and styles served by the service itself from the ``openapi-ui-bundles`` package,
never from a CDN: the pages work offline and under a strict Content-Security-Policy
(:func:`policy_for`): scripts from this origin and the page's own inline script, named by
its hash; nothing from elsewhere."""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from typing import Any

import openapi_ui_bundles
from flask import Blueprint, Flask, Response, request

#: Where the assets are served; flask-smorest's pages load them from here.
SWAGGER_UI_URL = "/docs/static/swagger-ui/"
REDOC_URL = "/docs/static/redoc/redoc.standalone.js"

_swagger = Blueprint(
    "swagger_ui_assets",
    __name__,
    static_folder=str(openapi_ui_bundles.swagger_ui.static_path),
    static_url_path=SWAGGER_UI_URL.rstrip("/"),
)
_redoc = Blueprint(
    "redoc_assets",
    __name__,
    static_folder=str(openapi_ui_bundles.redoc.static_path),
    static_url_path=REDOC_URL.rsplit("/", 1)[0],
)


def settings() -> dict[str, Any]:
    """flask-smorest's settings for the two pages."""
    return {
        "OPENAPI_SWAGGER_UI_PATH": "/docs",
        "OPENAPI_SWAGGER_UI_URL": SWAGGER_UI_URL,
        "OPENAPI_REDOC_PATH": "/redoc",
        "OPENAPI_REDOC_URL": REDOC_URL,
    }


#: The pages the policy is for.
PAGES = frozenset({"/docs", "/redoc"})
#: An inline script of a page (one without ``src``): its text, as the browser hashes it.
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@functools.lru_cache(maxsize=8)
def policy_for(html: str) -> str:
    """The Content-Security-Policy of a documentation page: its scripts from this origin,
    and its inline ones (Swagger UI's settings) by their SHA-256, never any other inline
    script, nor ``eval``; styles from this origin and inline (ReDoc injects its styles
    as ``<style>`` elements); images from this origin and ``data:`` URLs (Swagger UI's
    icons); requests to this origin only (the spec, and Swagger UI's "Try it out"); and
    ReDoc's search worker, which it starts from a ``blob:``. No frames, no plugins, no
    forms, no ``<base>``."""
    hashes = [
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(html)
    ]
    return "; ".join(
        [
            "default-src 'none'",
            " ".join(["script-src 'self'", *hashes]),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def _protect(response: Response) -> Response:
    """The policy, and what else keeps the pages to themselves, on a page's answer."""
    if request.path in PAGES and response.status_code == 200 and not response.is_streamed:
        response.headers["Content-Security-Policy"] = policy_for(response.get_data(as_text=True))
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
    return response


def install(app: Flask) -> None:
    """Serve the pages' assets (outside the API and its spec), and the pages under their
    policy."""
    app.register_blueprint(_swagger)
    app.register_blueprint(_redoc)
    app.after_request(_protect)
