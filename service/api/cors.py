"""Cross-origin use from browsers: CORS for the origins ``CORS_ORIGINS`` names."""

from __future__ import annotations

from flask import Flask, Response
from flask_cors import CORS

#: What a browser app may send and read across origins.
ALLOWED_HEADERS = [
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "X-Request-ID",
]
EXPOSED_HEADERS = ["ETag", "Location", "Retry-After", "Idempotent-Replayed", "X-Request-ID"]


def origins_of(setting: str) -> list[str] | str:
    """``CORS_ORIGINS``: origins separated by commas, or ``*`` for any."""
    names = [name.strip() for name in setting.split(",") if name.strip()]
    return "*" if names == ["*"] else names


def install(app: Flask, setting: str) -> None:
    """flask-cors on every route, for the configured origins only: a request from an
    origin not listed gets no CORS header (its browser then refuses the answer). Every
    answer then says ``Vary: Origin``. ``setting``: CORS_ORIGINS."""
    origins = origins_of(setting)
    if not origins:
        return
    CORS(
        app,
        origins=origins,
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        methods=["GET", "POST", "OPTIONS"],
        max_age=600,
        vary_header=True,
    )

    @app.after_request
    def _vary_on_origin(response: Response) -> Response:
        # Whether an answer carries CORS headers depends on the request's Origin, also
        # when it has none or an unlisted one (flask-cors then says nothing, Vary
        # included): a shared cache (`/v1/cards` is public for a day) must not serve the
        # answer to one origin to another.
        response.vary.add("Origin")
        return response
