"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), with their
scripts and styles served by the service itself from the ``openapi-ui-bundles`` package,
never from a CDN: the pages work offline and under a strict Content-Security-Policy."""

from __future__ import annotations

from typing import Any

import openapi_ui_bundles
from flask import Blueprint, Flask

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


def install(app: Flask) -> None:
    """Serve the pages' assets (outside the API and its spec)."""
    app.register_blueprint(_swagger)
    app.register_blueprint(_redoc)
