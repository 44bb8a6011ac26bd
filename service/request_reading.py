"""Whether the bytes a client has sent so far hold a whole HTTP/1.1 request (its head and
its body): the worker of service/serving.py buffers a request until they do, in its event
loop, before a thread reads it.

The question is answered by gunicorn's own request parser, the one that then reads the
request in the thread, run over the bytes buffered: the request is whole when that parser
reads its head and its body to their ends without asking for a byte more. A request the
parser refuses (not valid HTTP, headers too large) counts as whole too: the thread's
parser refuses it the same way, and gunicorn answers it (a problem, service/serving.py).

Parsing again on every read would cost time in the square of a request trickled in small
pieces, so the buffer parses only when the new bytes may end something: a head or a
chunked body ends with an empty line (``\\r\\n\\r\\n``; gunicorn refuses a bare ``\\n\\n``
once it sees one), and a body of known length is only counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gunicorn.http.parser import RequestParser

#: The largest request head read (the request line and the header fields): 32 KiB, as
#: nginx's default (large_client_header_buffers 4 8k). This API's requests need a few
#: hundred bytes; gunicorn alone would read up to 800 KiB.
MAX_HEAD_BYTES = 32 * 1024

#: The bytes that may end a head or a chunked body (an empty line), with bare LFs,
#: which gunicorn's parser refuses once it sees them.
_LINE_ENDS = (b"\n\r\n", b"\n\n")


class _Incomplete(Exception):
    """The parser asked for more than the bytes buffered."""


def _source(data: bytes) -> Iterator[bytes]:
    yield data
    raise _Incomplete


class RequestBuffer:
    """The bytes of one request as they arrive; :meth:`feed` says when they are whole.

    ``max_body`` is the largest body the app accepts (MAX_BODY_BYTES): a request that
    announces a longer one is whole at the end of its head (the app refuses it, 413,
    without reading it), and a chunked body past it is handed over as it stands.
    """

    def __init__(self, cfg: Any, peer: Any, max_body: int) -> None:
        self.cfg = cfg
        self.peer = peer
        self.max_body = max_body
        self.data = bytearray()
        #: Whether the request asked for a ``100 Continue`` before its body is sent.
        self.expects_continue = False
        #: How many bytes a whole request takes, once its head told (a known length).
        self._needed: int | None = None
        self._head_read = False
        #: Whether the head grew past MAX_HEAD_BYTES without ending (answered 431).
        self.too_large = False

    def feed(self, chunk: bytes) -> bool:
        """Add the bytes read; True when the buffer holds a whole request (or one that
        gunicorn refuses, or a body past ``max_body``: the thread answers it). A head
        past MAX_HEAD_BYTES sets :attr:`too_large` instead (and False)."""
        start = len(self.data)
        self.data += chunk
        if self._needed is not None:
            return len(self.data) >= self._needed
        window = bytes(self.data[max(0, start - 2) :])
        if any(end in window for end in _LINE_ENDS) and self._parse():
            return True
        if not self._head_read:
            self.too_large = len(self.data) > MAX_HEAD_BYTES
            return False
        # A chunked body: past the largest, handed over as it stands (the app refuses it).
        return len(self.data) > self._chunked_limit

    @property
    def _chunked_limit(self) -> int:
        return MAX_HEAD_BYTES + self.max_body + 65536

    def _parse(self) -> bool:
        parser = RequestParser(self.cfg, _source(bytes(self.data)), self.peer)
        try:
            request = next(parser)
        except _Incomplete:
            return False
        except Exception:  # noqa: BLE001 - not valid HTTP: the thread's parser refuses it
            return True
        self._head_read = True
        rest = parser.unreader.take_buffered()
        body_start = len(self.data) - len(rest)
        headers = dict(request.headers)
        self.expects_continue = request.version >= (1, 1) and (
            headers.get("EXPECT", "").lower() == "100-continue"
        )
        if "chunked" in headers.get("TRANSFER-ENCODING", "").lower():
            # Whole when the last chunk (and the trailers) are in.
            parser.unreader.unread(rest)
            try:
                while request.body.read(65536):
                    pass
            except _Incomplete:
                return len(self.data) > self._chunked_limit
            except Exception:  # noqa: BLE001 - a malformed chunk: refused in the thread
                return True
            return True
        length = int(headers.get("CONTENT-LENGTH", "0") or 0)
        if length > self.max_body:
            return True
        self._needed = body_start + length
        return len(self.data) >= self._needed
