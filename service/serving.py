"""gunicorn's worker for this service (``worker_class`` in deploy/gunicorn.conf.py):
gthread's, with the errors gunicorn answers itself as RFC 9457 problems.

A request that is not valid HTTP (a malformed request line or header, a transfer
coding gunicorn does not know, headers too large) never reaches the app: gunicorn
answers it, with an HTML page. This worker lets gunicorn decide the status, as it
does, and sends the same status as ``application/problem+json`` instead, so that
every 4xx and 5xx of the service is a problem a client can read.
"""

from __future__ import annotations

import html
import json
import re
import socket
from typing import Any

from gunicorn import util
from gunicorn.workers.gthread import ThreadWorker

#: The status line and the message of the HTML page gunicorn writes.
_STATUS = re.compile(rb"^HTTP/1\.[01] (\d{3}) ([^\r\n]*)")
_MESSAGE = re.compile(rb"</h1>(.*?)</body>", re.S)


class _Kept:
    """The client's socket, what is written to it kept aside (everything else as is)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.written = b""

    def sendall(self, data: bytes) -> None:
        self.written += bytes(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def problem_response(written: bytes) -> bytes | None:
    """The HTTP response gunicorn ``written`` for an error, as a problem; None when it
    is not one of gunicorn's error pages."""
    status = _STATUS.match(written)
    if status is None:
        return None
    code, reason = int(status.group(1)), status.group(2).decode("latin-1")
    found = _MESSAGE.search(written)
    told = html.unescape(found.group(1).decode("latin-1")).strip() if found else ""
    if code >= 500 and code != 501:
        detail = "Something went wrong on our side; it has been logged."
    else:
        detail = (
            f"The request is not valid HTTP/1.1 ({told or reason}): it was refused before "
            "the API read it. Send a well-formed request (RFC 9112)."
        )
    body = json.dumps(
        {"type": "about:blank", "title": reason, "status": code, "detail": detail}
    ).encode()
    head = (
        f"HTTP/1.1 {code} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class ProblemThreadWorker(ThreadWorker):
    """gthread's worker, gunicorn's own error pages sent as problems."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        kept = _Kept(client)
        super().handle_error(req, kept, addr, exc)
        response = problem_response(kept.written)
        try:
            util.write_nonblock(client, response if response is not None else kept.written)
        except OSError:
            self.log.debug("Failed to send error message.")
