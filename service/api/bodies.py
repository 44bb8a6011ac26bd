"""Request bodies: JSON only, within the size limit however they are sent, and never
left half-read on a keep-alive connection."""

from __future__ import annotations

import io

from flask import Flask, Response, request

from .problems import Problem, ProblemType

#: The most of a request body that is read and dropped when it was refused unread.
UNREAD_BODY_DRAIN_BYTES = 1 << 20
_WITH_BODY = ("POST", "PUT", "PATCH")


def install(app: Flask, limit: int) -> None:
    """Bodies within ``limit`` bytes (MAX_BODY_BYTES) on ``app``, chunked ones too."""

    @app.before_request
    def _json_within_the_limit() -> None:
        if request.method not in _WITH_BODY:
            return
        length = request.content_length
        if length is None:
            length = _read_chunked(limit)
        if length and not request.is_json:
            raise Problem(
                415,
                ProblemType.UNSUPPORTED_MEDIA_TYPE,
                f"Send the body as application/json, not {request.mimetype or 'no type'}.",
            )

    @app.after_request
    def _drop_unread_body(response: Response) -> Response:
        # A body refused before it was read (413, 415, ...) is read and dropped here, up
        # to a bound, so that the connection can carry the client's next request: past
        # 64 KiB of unread body gunicorn closes a keep-alive connection it has just
        # answered "Connection: keep-alive" on, and the client's next request fails.
        length = request.content_length
        if length and length <= UNREAD_BODY_DRAIN_BYTES:
            stream = request.environ.get("wsgi.input")
            while stream is not None and length > 0:
                chunk = stream.read(min(length, 65536))
                if not chunk:
                    break
                length -= len(chunk)
        return response


def _read_chunked(limit: int) -> int | None:
    """A body sent in chunks has no Content-Length, and Werkzeug cuts it at the size
    limit without telling (the cut JSON then fails to parse: a 400 where 413 is meant).
    Read it here, one byte past the limit at most, and hand the rest of the app a body
    with its length (returned; None: no body sent in chunks)."""
    if "chunked" not in request.headers.get("Transfer-Encoding", "").lower():
        return None
    stream = request.environ["wsgi.input"]
    body = bytearray()
    while len(body) <= limit:
        chunk = stream.read(min(65536, limit + 1 - len(body)))
        if not chunk:
            break
        body += chunk
    if len(body) > limit:
        raise Problem(
            413,
            ProblemType.HTTP,
            f"The body is larger than the {limit} bytes the service accepts.",
            headers={"Connection": "close"},
        )
    request.environ["wsgi.input"] = io.BytesIO(bytes(body))
    request.environ["CONTENT_LENGTH"] = str(len(body))
    request.environ.pop("HTTP_TRANSFER_ENCODING", None)
    request.environ.pop("wsgi.input_terminated", None)
    return len(body)
