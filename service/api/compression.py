"""Compressed answers (flask-compress): brotli or gzip, whichever the client prefers
(``Accept-Encoding``), for the API's JSON and the /play page's files, from
:data:`MIN_BYTES` on (smaller ones gain little for the CPU). Never an event stream:
``text/event-stream`` is not among the types compressed, and no streamed answer is
(a compressor would hold events back until its buffer fills).

The levels are cheap ones: brotli 4 and gzip 6 halve a game view (727 bytes to 365
and 373 for a 2-player view) in 23 and 12 µs; with flask-compress's handling, about
40 µs a compressed answer in all (brotli 11 would take 1.3 ms for 310 bytes). Answers
whose body is the same for the life of the process (the OpenAPI document, the page's
files, the rules page) say so with :func:`fixed_body`, and each is compressed once per
encoding, then served from memory.

A strong ETag becomes the compressed representation's own (``"7"`` -> ``"7:br"``, as
RFC 9110 8.8.1 asks of a transformed body). The views answer If-None-Match themselves,
knowing both forms (service/api/headers.py for a game's version, :func:`unchanged` for
the fixed bodies): flask-compress's own evaluation of conditional requests, which would
make every answer conditional a second time, is off. ``Vary: Accept-Encoding`` is added
to every answer.
"""

from __future__ import annotations

from flask import Flask, Request, Response, current_app, g, request
from flask_compress import Compress

#: What is compressed: the API's JSON, and what the page is made of. (Problems are
#: short; event streams never.)
TYPES = ("application/json", "text/html", "text/css", "text/javascript", "image/svg+xml")
MIN_BYTES = 500
BROTLI_QUALITY = 4
GZIP_LEVEL = 6
#: The preference when a client takes both equally (every browser does).
ALGORITHMS = ("br", "gzip")


def fixed_body(key: str) -> None:
    """Say that this request's answer is the same for the life of the process (the
    same bytes for every request with the same ``key``): compressed once, then kept."""
    g.compressed_as = key


def unchanged(etag: str) -> Response | None:
    """The 304 answer to a GET whose If-None-Match names the strong tag ``etag``, or the
    tag of one of its compressed forms (``etag:br``); None when it names neither."""
    wanted = request.if_none_match
    if not wanted:
        return None
    for tag in (etag, *(f"{etag}:{coding}" for coding in ALGORITHMS)):
        if wanted.contains_weak(tag):
            response = current_app.response_class(status=304)
            response.set_etag(tag)
            return response
    return None


class FixedBodies:
    """flask-compress's cache, for the answers marked by :func:`fixed_body` only (their
    keys are the code's own: a bounded set); the others are compressed each time."""

    def __init__(self) -> None:
        self._kept: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self._kept.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):  # (a key without a fixed body's name)
            self._kept[key] = value


def _key(_: Request) -> str:
    name: str = g.get("compressed_as", "")
    return name


def install(app: Flask, enabled: bool) -> None:
    """Compress ``app``'s answers (if ``enabled``: ``COMPRESSION`` is on). Installed before the
    other parts' ``after_request`` hooks, so that it runs after them (Flask runs them in
    reverse), on the answer as they left it."""
    if not enabled:
        return
    app.config.update(
        COMPRESS_MIMETYPES=list(TYPES),
        COMPRESS_MIN_SIZE=MIN_BYTES,
        COMPRESS_LEVEL=GZIP_LEVEL,
        COMPRESS_BR_LEVEL=BROTLI_QUALITY,
        COMPRESS_ALGORITHM=list(ALGORITHMS),
        COMPRESS_STREAMS=False,  # the event streams: each event must leave at once
        COMPRESS_CACHE_BACKEND=FixedBodies,
        COMPRESS_CACHE_KEY=_key,
        COMPRESS_EVALUATE_CONDITIONAL_REQUEST=False,  # the views do (see above)
    )
    Compress(app)
