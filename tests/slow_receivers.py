"""Webhook receivers that hold a delivery: a raw TCP server on 127.0.0.1 that reads a
request and then answers a byte at a time (trickles), or not at all (hangs), for the
webhook tests (tests/test_webhook_*.py)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

#: An answer whose status line and headers are trickled.
WHOLE_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
#: Headers sent at once, then a body that is trickled.
BODY_LATER = b"HTTP/1.1 200 OK\r\nContent-Length: 64\r\nConnection: close\r\n\r\n"


class SlowReceiver:
    """Accepts connections on a free port of 127.0.0.1; for each, reads the request
    (headers and the body its Content-Length says), sends ``first`` at once, then
    ``trickle`` one byte every ``every`` seconds (``trickle`` empty: nothing more, the
    connection held open), for ``most`` seconds at most, then closes it. Counts the
    requests it read (``requests``), their paths (``paths``), and the most it held at
    once (``most_at_once``)."""

    def __init__(
        self, first: bytes = b"", trickle: bytes = b"", every: float = 1.0, most: float = 25.0
    ) -> None:
        self.first, self.trickle, self.every, self.most = first, trickle, every, most
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]
        self.paths: list[str] = []
        self.holding = 0
        self.most_at_once = 0
        self.closing = threading.Event()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def requests(self) -> int:
        with self.lock:
            return len(self.paths)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, suppress(OSError):
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            length = next(
                (
                    int(v)
                    for k, _, v in (x.partition(":") for x in lines)
                    if k.lower() == "content-length"
                ),
                0,
            )
            while len(body) < length:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                body += chunk
            with self.lock:
                self.paths.append(lines[0].split(" ")[1])
                self.holding += 1
                self.most_at_once = max(self.most_at_once, self.holding)
            try:
                self._answer(conn)
            finally:
                with self.lock:
                    self.holding -= 1

    def _answer(self, conn: socket.socket) -> None:
        conn.sendall(self.first)
        ends = time.monotonic() + self.most
        for byte in self.trickle:
            if self.closing.wait(self.every) or time.monotonic() > ends:
                return
            conn.sendall(bytes([byte]))
        self.closing.wait(max(0.0, ends - time.monotonic()))

    def close(self) -> None:
        self.closing.set()
        self.server.close()


@contextmanager
def slow_receiver(
    first: bytes = b"", trickle: bytes = b"", every: float = 1.0, most: float = 25.0
) -> Iterator[SlowReceiver]:
    receiver = SlowReceiver(first, trickle, every, most)
    try:
        yield receiver
    finally:
        receiver.close()
