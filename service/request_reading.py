"""Whether the bytes a client has sent so far hold a whole HTTP/1.1 request (its head and
its body): the worker of service/serving.py buffers a request until they do, in its event
loop, before a thread reads it.

The question is answered by gunicorn's own request parser, the one that then reads the
request in the thread, run over the bytes buffered: the request is whole when that parser
reads its head and its body to their ends without asking for a byte more. A request the
parser refuses (not valid HTTP, headers too large) counts as whole too: the thread's
parser refuses it the same way, and gunicorn answers it (a problem, service/serving.py).

A body past the largest the app accepts (MAX_BODY_BYTES) is refused unread, from what
the buffer holds: a length announced past it, at the end of the head; a chunked body (no
length told), once its chunks read so far pass it. The worker answers it 413 in its event
loop and closes the connection: no thread ever reads such a body.

Parsing again on every read would cost time in the square of a request trickled in small
pieces, so the buffer parses only when the new bytes may end something: a head or a
chunked body ends with an empty line (``\\r\\n\\r\\n``; gunicorn refuses a bare ``\\n\\n``
once it sees one), and a body of known length is only counted. A chunked body is also
parsed (its chunks counted) once its bytes as sent pass ``max_body`` (the chunks cannot
hold more than the bytes that carry them), then at each ``max_body`` (4 KiB at least)
more.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from gunicorn.http.parser import RequestParser

#: The largest request head read (the request line and the header fields): 32 KiB, as
#: nginx's default (large_client_header_buffers 4 8k). This API's requests need a few
#: hundred bytes; gunicorn alone would read up to 800 KiB.
MAX_HEAD_BYTES = 32 * 1024

#: A chunked body is refused once its bytes as sent, its chunks' framing with them, pass
#: this many times the largest body (or 64 KiB more than it, for a small one): only
#: chunks of a few bytes each take that much framing.
MAX_FRAMING_FACTOR = 4

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
    announces a longer one, or whose chunked body passes it, is refused unread
    (:attr:`refused` says why, for its 413).
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
        #: Why the body is refused unread (answered 413), once it is; else "".
        self.refused = ""
        #: Where the body starts in :attr:`data`, once the head is read.
        self._body_start = 0
        #: A chunked body's bytes as sent (from the head's end) when its chunks are next
        #: counted, whether or not the new bytes may end it.
        self._next_count = max_body + 1

    def feed(self, chunk: bytes) -> bool:
        """Add the bytes read; True when the buffer holds a whole request (or one that
        gunicorn refuses: the thread answers it). A head past MAX_HEAD_BYTES sets
        :attr:`too_large` instead, a body past ``max_body`` :attr:`refused` (and
        False)."""
        start = len(self.data)
        self.data += chunk
        if self.refused:
            return False
        if self._needed is not None:
            return len(self.data) >= self._needed
        window = bytes(self.data[max(0, start - 2) :])
        if any(end in window for end in _LINE_ENDS) and self._parse():
            return True
        if not self._head_read:
            self.too_large = len(self.data) > MAX_HEAD_BYTES
            return False
        if self.refused:
            return False
        # A chunked body not yet whole: its chunks counted now and then (above).
        sent = len(self.data) - self._body_start
        if sent >= self._next_count:
            self._next_count = sent + max(self.max_body, 4096)
            if self._parse():
                return True
        if not self.refused and sent > self._max_framed:
            self.refused = (
                f"The chunked body took over {self._max_framed} bytes as sent (its "
                f"chunks' framing with them) without ending, for at most {self.max_body} "
                "bytes of content. Send it with a Content-Length, or in larger chunks."
            )
        return False

    @property
    def _max_framed(self) -> int:
        return max(MAX_FRAMING_FACTOR * self.max_body, self.max_body + 65536)

    def _too_large(self, what: str) -> None:
        self.refused = (
            f"{what} over the {self.max_body} bytes the service accepts, and was not "
            "read. Send a smaller body."
        )

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
        self._body_start = body_start = len(self.data) - len(rest)
        headers = dict(request.headers)
        self.expects_continue = request.version >= (1, 1) and (
            headers.get("EXPECT", "").lower() == "100-continue"
        )
        if "chunked" in headers.get("TRANSFER-ENCODING", "").lower():
            return self._chunks_end(request, parser, rest)
        length = int(headers.get("CONTENT-LENGTH", "0") or 0)
        if length > self.max_body:
            self._too_large(f"The request announces a body of {length} bytes (Content-Length),")
            return False
        self._needed = body_start + length
        return len(self.data) >= self._needed

    def _chunks_end(self, request: Any, parser: RequestParser, rest: bytes) -> bool:
        """Whether a chunked body's last chunk (and its trailers) are in; its chunks
        holding more than ``max_body`` refuse it."""
        parser.unreader.unread(rest)
        try:
            # Whole when it ends short of max_body + 1 (its trailers read too).
            content = request.body.read(self.max_body + 1)
        except _Incomplete:
            return False
        except Exception:  # noqa: BLE001 - a malformed chunk: refused in the thread
            return True
        if len(content) > self.max_body:
            self._too_large("The chunked body's chunks hold")
            return False
        return True
