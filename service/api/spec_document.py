"""``GET /openapi.json``: the OpenAPI document, built and encoded once per process (the
first time it is asked for: by then every route is registered), then served from those
bytes with an ETag, so that a client that has it gets a 304 for ``If-None-Match``.
flask-smorest's own view would build and encode the whole document (some 200 KB) at every
request. It is counted by the per-address request limit like any other route
(service/api/ratelimit.py)."""

from __future__ import annotations

import hashlib
import threading

from flask import Flask, Response, current_app
from flask_smorest import Api

from .compression import fixed_body, unchanged

#: The endpoint of flask-smorest's view of the document: its docs blueprint ("api-docs",
#: as it names it without a config prefix), rule "openapi_json".
ENDPOINT = "api-docs.openapi_json"
#: Clients keep it, but ask again (with its ETag) before using it: a deployment may
#: change it.
CACHE_CONTROL = "public, no-cache"


def install(app: Flask, api: Api) -> None:
    """Serve ``api``'s document from bytes prepared once, in place of flask-smorest's
    view (the same route)."""
    if ENDPOINT not in app.view_functions:
        raise RuntimeError(
            f"flask-smorest registered no {ENDPOINT} view: is OPENAPI_JSON_PATH set?"
        )
    prepared: list[tuple[bytes, str]] = []
    lock = threading.Lock()

    def openapi_json() -> Response:
        if not prepared:
            with lock:
                if not prepared:
                    body = current_app.json.dumps(api.spec.to_dict()).encode()
                    prepared.append((body, hashlib.sha256(body).hexdigest()[:32]))
        body, etag = prepared[0]
        response = unchanged(etag)  # 304 for a matching If-None-Match
        if response is None:
            response = current_app.response_class(body, mimetype="application/json")
            response.set_etag(etag)
            fixed_body("openapi.json")  # compressed once per process
        response.headers["Cache-Control"] = CACHE_CONTROL
        return response

    app.view_functions[ENDPOINT] = openapi_json
