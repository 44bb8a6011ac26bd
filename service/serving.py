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
- a head past 32 KiB is answered 431; a body past MAX_BODY_BYTES (a length announced
  past it, or chunks read so far past it) is answered 413 from what is read, its rest
  never read; and the requests a worker is reading hold at most REQUEST_BUFFER_BYTES
  (64 MiB) together: the read that would pass it is answered 503;
- a thread's write to a client that does not read (and a read the thread still makes,
  for a request handed over unread: one that is not valid HTTP) fails after
  CLIENT_TIMEOUT_SECONDS (SO_SNDTIMEO, SO_RCVTIMEO), and the connection is closed;
- an answer must be whole within ANSWER_TIMEOUT_SECONDS (60) of its start (the app's
  ``start_response``), however slowly its client reads: a client reading a byte now and
  then meets no write's timeout, and held the thread as long as it liked. Past it, the
  event loop resets the connection (SO_LINGER 0, then shut): the thread's next write, or
  the one it is blocked in, fails, and the thread is free. Event streams
  (``text/event-stream``) are long by design, with rules of their own
  (service/api/resources/events/stream.py): never cut.

Closing. gthread closes a connection it will not keep alive as RFC 9112 section 9.6 says
(gunicorn's close_graceful: its side shut, what the client still sends read until the
client closes, 2 s at most), but in its event loop, blocking: a client that neither
reads nor closes stopped the whole worker 2 s a connection (`make slowclients` saw 11 s).
Here the event loop lingers the same way without blocking: the socket waits in the
selector for the client's end, 2 s at most (what comes meanwhile read and dropped, 64 KiB
at most; after a 413, 1 MiB of the refused body).

A request that is not valid HTTP (a malformed request line or header, a transfer
coding gunicorn does not know, headers too large) never reaches the app: gunicorn
answers it, with an HTML page. This worker lets gunicorn decide the status, as it
does, and sends the same status as ``application/problem+json`` instead, so that
every 4xx and 5xx of the service is a problem a client can read.
"""

from __future__ import annotations

import contextlib
import errno
import heapq
import html
import itertools
import json
import re
import selectors
import socket
import struct
import threading
import time
from collections.abc import Iterable
from functools import partial
from typing import Any

from gunicorn import util
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import ThreadWorker

from service import config
from service.request_reading import MAX_HEAD_BYTES, RequestBuffer


def taken(binds: Iterable[str]) -> list[str]:
    """The TCP addresses among ``binds`` (gunicorn's ``bind``, ``host:port``) on which
    another process listens already. Each worker binds a socket of its own with
    SO_REUSEPORT, so a second service started on the same port would come up without a
    word and share the connections (two `make run`: a game created on one, a 404 on the
    other); a bind without that option fails wherever anyone listens."""
    found = []
    for bind in binds:
        host, _, port = bind.rpartition(":")
        if bind.startswith(("unix:", "fd://")) or not port.isdigit() or int(port) == 0:
            continue
        host = host.strip("[]") or "0.0.0.0"
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            # (a port whose last connections are in TIME_WAIT is free: a restart)
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, int(port)))
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    found.append(bind)
    return found


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
#: After a 413, as much of the refused body (1 MiB, as the app drains one it refused
#: unread): a client sending it whole reads its 413, where a close with the body's rest
#: unread would reset the connection and lose the answer.
LINGER_BODY_BYTES = 1 << 20


class _Lingering:
    """A connection closing: its side shut, the client's end awaited."""

    def __init__(self, sock: socket.socket, deadline: float, most: int) -> None:
        self.sock = sock
        self.deadline = deadline
        self.most = most
        self.drained = 0
        self.closed = False


#: SO_LINGER on, 0 s: closing the socket resets the connection, what is unsent dropped.
_RESET = struct.pack("ii", 1, 0)


class ProblemThreadWorker(ThreadWorker):
    """gthread's worker, each request read whole before a thread serves it, gunicorn's
    own error pages sent as problems."""

    #: The app, as gunicorn's load_wsgi sets it (here wrapped: :meth:`load_wsgi`).
    wsgi: Any
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
        self.answer_timeout = settings.answer_timeout_seconds
        #: The answers being sent (event streams aside): each connection's socket, with
        #: when its answer must be whole. Threads add and remove, the event loop cuts.
        self.answering: dict[socket.socket, float] = {}
        self.answering_lock = threading.Lock()
        #: The socket of the request the current thread serves (None between requests).
        self.serving = threading.local()
        super().init_process()

    def load_wsgi(self) -> None:
        """gunicorn's, the app wrapped: each answer's deadline starts as it starts."""
        super().load_wsgi()
        app = self.wsgi

        def deadlined(environ: dict[str, Any], start_response: Any) -> Any:
            def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                self._answer_starts(headers)
                return start_response(status, headers, exc_info)

            return app(environ, start)

        self.wsgi = deadlined

    def _answer_starts(self, headers: list[tuple[str, str]]) -> None:
        sock = getattr(self.serving, "sock", None)
        if sock is None:  # not a request of handle_request (HTTP/2): no deadline
            return
        kind = next((v for k, v in headers if k.lower() == "content-type"), "")
        if kind.lower().startswith("text/event-stream"):
            return
        with self.answering_lock:
            self.answering.setdefault(sock, time.monotonic() + self.answer_timeout)

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
        conn.sock.setblocking(False)
        self.reading[conn.sock] = reading
        self._expire_at(reading, reading.deadline)
        self.poller.register(
            conn.sock, selectors.EVENT_READ, partial(self.on_request_bytes, reading)
        )
        ahead = conn.parser.unreader.take_buffered() if conn.parser is not None else b""
        if ahead:
            self._expire_at(reading, time.monotonic() + self.client_timeout)
            self._take(reading, ahead)

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
        self._take(reading, data)

    def _take(self, reading: _Reading, data: bytes) -> None:
        """Bytes of a request, buffered: a thread once whole, refused once they must be."""
        self.buffered += len(data)
        whole = reading.buffer.feed(data)
        if reading.buffer.too_large:
            self._drop(reading, self._head_too_large())
            return
        if reading.buffer.refused:
            self._drop(reading, self._body_too_large(reading.buffer.refused), LINGER_BODY_BYTES)
            return
        if not whole:
            if reading.buffer.expects_continue and not reading.continued:
                # The body is asked for here, where it is read. (gunicorn sends its own
                # 100 once the thread has the request: a second interim answer, which
                # HTTP allows any number of, RFC 9110 section 15.2.)
                reading.continued = True
                self._send(reading.conn.sock, b"HTTP/1.1 100 Continue\r\n\r\n")
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

    def _drop(self, reading: _Reading, answer: bytes = b"", drain: int = LINGER_BYTES) -> None:
        self._forget(reading)
        self.nr_conns -= 1
        if answer:
            # Answered, then closed without cutting the answer short (lingering).
            self._send(reading.conn.sock, answer)
            self._linger(reading.conn.sock, drain)
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

    def _linger(self, sock: socket.socket, drain: int = LINGER_BYTES) -> None:
        try:
            sock.setblocking(False)
            sock.shutdown(socket.SHUT_WR)
            lingering = _Lingering(sock, time.monotonic() + LINGER_SECONDS, drain)
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
        if not data or lingering.drained >= lingering.most:
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
        self._cut_late_answers(now)

    def _cut_late_answers(self, now: float) -> None:
        """The answers not whole by their deadline: their connections reset, which
        fails their threads' writes (the one blocked, or the next)."""
        with self.answering_lock:
            late = [sock for sock, deadline in self.answering.items() if deadline <= now]
            for sock in late:
                # Under the lock: the thread cannot be done with the socket meanwhile.
                del self.answering[sock]
                self.log.info(
                    "an answer was not sent whole within %ss: its connection is reset",
                    self.answer_timeout,
                )
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
                    sock.shutdown(socket.SHUT_RDWR)

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

    @staticmethod
    def _body_too_large(why: str) -> bytes:
        return problem_bytes(413, "Request Entity Too Large", why)

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
        """gthread's, its answer under its deadline (above), a write that timed out (a
        client that does not read its answer, SO_SNDTIMEO) closing the connection with
        a line in the log, not an error."""
        self.serving.sock = conn.sock
        try:
            keep: bool = super().handle_request(req, conn)
        except (BlockingIOError, TimeoutError):
            self.log.info(
                "a client did not read its answer within %ss: closed", self.client_timeout
            )
            return False
        finally:
            self.serving.sock = None
            with self.answering_lock:
                self.answering.pop(conn.sock, None)
        return keep

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        kept = _Kept(client)
        super().handle_error(req, kept, addr, exc)
        response = problem_response(kept.written)
        try:
            util.write_nonblock(client, response if response is not None else kept.written)
        except OSError:
            self.log.debug("Failed to send error message.")
