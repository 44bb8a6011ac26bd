"""gunicorn's worker for this service (``worker_class`` in deploy/gunicorn.conf.py):
gthread's, reading each request whole in its event loop before a thread serves it, and
with the errors gunicorn answers itself as RFC 9457 problems.

Slow clients. gthread hands a connection to a thread as soon as its first byte arrives,
and the thread then blocks until the whole request is in: 450 connections sending a
header line every 20 s held every thread of both workers, and /healthz went unanswered
for over a minute (issue 26). Here the worker's event loop (one thread, a selector, as
gunicorn's keep-alive connections already use) reads every request into a buffer
(service/request_reading.py) and only a whole request goes to a thread, so an idle or
slow connection costs a file descriptor and its bytes, never a thread. Its deadlines:

- a connection that sends nothing is closed after ``keepalive`` seconds (5), as a
  kept-alive one is;
- a request must be whole within CLIENT_TIMEOUT_SECONDS (10) of its first byte, else it
  is answered 408 (a problem) and the connection closed;
- a head past 32 KiB is answered 431; and the requests a worker is reading hold at most
  REQUEST_BUFFER_BYTES (64 MiB) together: the read that would pass it is answered 503;
- a thread's write to a client that does not read (and a read the thread still makes,
  for a request handed over unread: not valid HTTP, or past MAX_BODY_BYTES) fails after
  CLIENT_TIMEOUT_SECONDS (SO_SNDTIMEO, SO_RCVTIMEO), and the connection is closed.

Closing. gthread closes a connection it will not keep alive as RFC 9112 section 9.6 says
(gunicorn's close_graceful: its side shut, what the client still sends read until the
client closes, 2 s at most), but in its event loop, blocking: a client that neither
reads nor closes stopped the whole worker 2 s a connection (`make slowclients` saw 11 s).
Here the event loop lingers the same way without blocking: the socket waits in the
selector for the client's end, 2 s at most.

A request that is not valid HTTP (a malformed request line or header, a transfer
coding gunicorn does not know, headers too large) never reaches the app: gunicorn
answers it, with an HTML page. This worker lets gunicorn decide the status, as it
does, and sends the same status as ``application/problem+json`` instead, so that
every 4xx and 5xx of the service is a problem a client can read.
"""

from __future__ import annotations

import contextlib
import heapq
import html
import itertools
import json
import re
import selectors
import socket
import struct
import time
from functools import partial
from typing import Any

from gunicorn import util
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import ThreadWorker

from service import config
from service.request_reading import MAX_HEAD_BYTES, RequestBuffer

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
    return problem_bytes(code, reason, detail)


def problem_bytes(code: int, reason: str, detail: str) -> bytes:
    """A whole HTTP response (the connection closing after it) carrying a problem."""
    body = json.dumps(
        {"type": "about:blank", "title": reason, "status": code, "detail": detail}
    ).encode()
    head = (
        f"HTTP/1.1 {code} {reason}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def _socket_timeout(seconds: float) -> bytes:
    """A ``struct timeval`` for SO_SNDTIMEO and SO_RCVTIMEO."""
    whole = int(seconds)
    return struct.pack("ll", whole, int((seconds - whole) * 1_000_000))


class _Reading:
    """A connection whose request the event loop is reading."""

    def __init__(self, conn: Any, buffer: RequestBuffer, idle_until: float) -> None:
        self.conn = conn
        self.buffer = buffer
        #: When it is closed if no byte of a request has come (then: its whole deadline).
        self.deadline = idle_until
        self.continued = False


#: How long a closing connection waits for the client's end, and how much of what the
#: client still sends it reads meanwhile (as gunicorn's close_graceful).
LINGER_SECONDS = 2.0
LINGER_BYTES = 65536


class _Lingering:
    """A connection closing: its side shut, the client's end awaited."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.drained = 0
        self.closed = False


class ProblemThreadWorker(ThreadWorker):
    """gthread's worker, each request read whole before a thread serves it, gunicorn's
    own error pages sent as problems."""

    #: The service's settings: the master's, which deploy/gunicorn.conf.py hands to each
    #: worker as it is forked (its ``post_fork``); read here if nothing did.
    settings: config.Settings | None = None

    def init_process(self) -> None:
        settings = self.settings or config.load()
        self.client_timeout = settings.client_timeout_seconds
        self.max_body = settings.max_body_bytes
        #: Bytes of requests not yet whole, over every connection, and the most allowed.
        self.buffered = 0
        self.buffer_budget = settings.request_buffer_bytes
        self.reading: dict[Any, _Reading] = {}
        # (deadline, order, reading): the next to expire first. An entry whose reading
        # is gone, or has a later deadline since, is skipped when it comes up.
        self.deadlines: list[tuple[float, int, _Reading]] = []
        self.order = itertools.count()
        # (deadline, order, connection): the closing connections, the next to end first.
        self.lingering: list[tuple[float, int, _Lingering]] = []
        super().init_process()

    def enqueue_req(self, conn: Any) -> None:
        """A connection with a request to come (new, kept alive, or with bytes of its
        next one already read): its request is read here, in the event loop, and goes
        to a thread once whole."""
        if self.cfg.is_ssl or negotiation.prior_knowledge_allowed(self.cfg, conn.client):
            # TLS (its handshake) and HTTP/2 are read in the thread, as gthread does;
            # neither is served here (a proxy terminates TLS).
            super().enqueue_req(conn)
            return
        if not conn.initialized:
            # A new connection: its writes (and any read a thread still makes) give up
            # on a client that stops reading (or sending).
            timeout = _socket_timeout(self.client_timeout)
            with contextlib.suppress(OSError):
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeout)
                conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeout)
        reading = _Reading(
            conn,
            RequestBuffer(self.cfg, conn.client, self.max_body),
            time.monotonic() + self.cfg.keepalive,
        )
        ahead = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        if ahead:
            reading.deadline = time.monotonic() + self.client_timeout
            if reading.buffer.feed(ahead):
                self._hand_over(reading)
                return
        conn.sock.setblocking(False)
        self.reading[conn.sock] = reading
        self.buffered += len(reading.buffer.data)
        self._expire_at(reading, reading.deadline)
        self.poller.register(
            conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, reading)
        )

    def on_request_bytes(self, reading: _Reading, sock: socket.socket) -> None:
        """Bytes of a request (or the client gone): buffered; a thread once whole."""
        try:
            data = sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(reading)
            return
        if not reading.buffer.data:
            self._expire_at(reading, time.monotonic() + self.client_timeout)
        if self.buffered + len(data) > self.buffer_budget:
            self._drop(reading, self._over_budget())
            return
        self.buffered += len(data)
        whole = reading.buffer.feed(data)
        if reading.buffer.too_large:
            self._drop(reading, self._head_too_large())
            return
        if not whole:
            if reading.buffer.expects_continue and not reading.continued:
                # The body is asked for here, where it is read. (gunicorn sends its own
                # 100 once the thread has the request: a second interim answer, which
                # HTTP allows any number of, RFC 9110 section 15.2.)
                reading.continued = True
                self._send(sock, b"HTTP/1.1 100 Continue\r\n\r\n")
            return
        self._forget(reading)
        self._hand_over(reading)

    def _expire_at(self, reading: _Reading, deadline: float) -> None:
        reading.deadline = deadline
        heapq.heappush(self.deadlines, (deadline, next(self.order), reading))

    def _hand_over(self, reading: _Reading) -> None:
        conn = reading.conn
        conn.sock.setblocking(True)
        conn.init()
        conn.parser.unreader.unread(bytes(reading.buffer.data))
        super().enqueue_req(conn)

    def _forget(self, reading: _Reading) -> None:
        del self.reading[reading.conn.sock]
        self.buffered -= len(reading.buffer.data)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(reading.conn.sock)

    def _drop(self, reading: _Reading, answer: bytes = b"") -> None:
        self._forget(reading)
        self.nr_conns -= 1
        if answer:
            # Answered, then closed without cutting the answer short (lingering).
            self._send(reading.conn.sock, answer)
            self._linger(reading.conn.sock)
        else:
            reading.conn.close()

    @staticmethod
    def _send(sock: socket.socket, data: bytes) -> None:
        """A few bytes to a non-blocking socket, as much as it takes (best effort)."""
        with contextlib.suppress(OSError):
            sock.send(data)

    def finish_request(self, conn: Any, fs: Any) -> None:
        """gthread's, but a connection that closes lingers in the event loop (above)."""
        if fs.cancelled() or fs.exception() is not None or fs.result() is not False:
            super().finish_request(conn, fs)
            return
        self.nr_conns -= 1
        self._linger(conn.sock)

    def _linger(self, sock: socket.socket) -> None:
        try:
            sock.setblocking(False)
            sock.shutdown(socket.SHUT_WR)
            lingering = _Lingering(sock, time.monotonic() + LINGER_SECONDS)
            self.poller.register(
                sock, selectors.EVENT_READ, partial(self.on_lingering_bytes, lingering)
            )
        except (OSError, ValueError, KeyError):
            util.close(sock)
            return
        heapq.heappush(self.lingering, (lingering.deadline, next(self.order), lingering))

    def on_lingering_bytes(self, lingering: _Lingering, sock: socket.socket) -> None:
        """What a closing connection's client still sends, dropped; its end, closed."""
        try:
            data = sock.recv(LINGER_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        lingering.drained += len(data)
        if not data or lingering.drained >= LINGER_BYTES:
            self._close_lingering(lingering)

    def _close_lingering(self, lingering: _Lingering) -> None:
        if lingering.closed:
            return
        lingering.closed = True
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.poller.unregister(lingering.sock)
        util.close(lingering.sock)

    def murder_pending(self) -> None:
        """gthread's pending connections, then the requests past their deadline: 408
        for one begun, a plain close for a connection that sent nothing (and, once the
        worker is stopping, at once for those)."""
        super().murder_pending()
        if not self.alive:
            for reading in [r for r in self.reading.values() if not r.buffer.data]:
                self._drop(reading)
        now = time.monotonic()
        while self.deadlines and self.deadlines[0][0] <= now:
            deadline, _, reading = heapq.heappop(self.deadlines)
            if self.reading.get(reading.conn.sock) is not reading or reading.deadline > deadline:
                continue  # handed over or dropped since, or given a later deadline
            self._drop(reading, self._timed_out() if reading.buffer.data else b"")
        while self.lingering and self.lingering[0][0] <= now:
            self._close_lingering(heapq.heappop(self.lingering)[2])

    def _timed_out(self) -> bytes:
        self.log.info("a request did not arrive whole within %ss: 408", self.client_timeout)
        return problem_bytes(
            408,
            "Request Timeout",
            f"The request did not arrive whole within {self.client_timeout:g} s of its "
            "first byte, and was not read. Send the whole request at once, then retry.",
        )

    def _head_too_large(self) -> bytes:
        return problem_bytes(
            431,
            "Request Header Fields Too Large",
            f"The request's head (its request line and header fields) is over "
            f"{MAX_HEAD_BYTES // 1024} KiB, and was not read. Send fewer or shorter "
            "header fields.",
        )

    def _over_budget(self) -> bytes:
        self.log.warning(
            "requests being read hold over REQUEST_BUFFER_BYTES (%s): 503", self.buffer_budget
        )
        return problem_bytes(
            503,
            "Service Unavailable",
            "The service is reading too many requests at once to read this one. "
            "Retry in a few seconds.",
        )

    def handle_request(self, req: Any, conn: Any) -> bool:
        """gthread's, a write that timed out (a client that does not read its answer,
        SO_SNDTIMEO) closing the connection with a line in the log, not an error."""
        try:
            keep: bool = super().handle_request(req, conn)
        except (BlockingIOError, TimeoutError):
            self.log.info(
                "a client did not read its answer within %ss: closed", self.client_timeout
            )
            return False
        return keep

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        kept = _Kept(client)
        super().handle_error(req, kept, addr, exc)
        response = problem_response(kept.written)
        try:
            util.write_nonblock(client, response if response is not None else kept.written)
        except OSError:
            self.log.debug("Failed to send error message.")
