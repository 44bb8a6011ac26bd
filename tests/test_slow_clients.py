"""Slow and idle clients cannot stop an instance reached directly (issue 26, item 2):
gunicorn's worker (service/serving.py) reads each request whole in its event loop, with
deadlines, before a thread serves it; a thread's write to a client that never reads
gives up. Against gunicorn as deployed (tests/live.py), on loopback.

`make slowclients` (tests/bench/slowclients.py) is the longer measure of the first test;
its figures are in docs/reliability.md."""

from __future__ import annotations

import contextlib
import json
import random
import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from gunicorn.config import Config as GunicornConfig

from service.play import records
from service.request_reading import RequestBuffer
from tests.bench.slowclients import Attack, run
from tests.conftest import ExternalRedis
from tests.devredis import RedisServer
from tests.live import LIVE_KEY, LiveService
from tests.test_records import random_match

#: The deadline of the instance the short tests run against (CLIENT_TIMEOUT_SECONDS).
SHORT_TIMEOUT = 2.0
#: How soon the bystanders (/healthz, a game's view) are answered under attack at worst.
#: What these tests guard against held them past the attack (10 s and more); this leaves
#: room for the suite's other long runs on the same cores (a browser, the timing tests),
#: beside which a 2-core machine measured up to 1.13 s. `make slowclients` measures the
#: bystander's latency alone (docs/reliability.md).
BYSTANDER_SECONDS = 2.5


def test_slow_and_idle_clients_leave_an_instance_answering(
    redis_server: RedisServer | ExternalRedis,
) -> None:
    """450 connections sending a header line every 20 s, 450 sending a body a byte every
    3 s, 10 pipelining 40 requests they never read, and 150 bare connects a second, for
    12 s (past the 10 s deadline, so the slow ones are refused and come back): /healthz
    and a game's view, each on a new connection, answer within BYSTANDER_SECONDS
    throughout. Before,
    the slow clients held every thread and neither answered for over 10 s."""
    with LiveService(redis_server.url) as service:
        result = run(service, Attack(pipelined=10), seconds=12.0)
        summary = result.summary()
        for name, latencies in result.latencies.items():
            assert len(latencies) >= 20, summary
            assert max(latencies) <= BYSTANDER_SECONDS, summary[name]
        # the slow requests met their deadline: a 408 each, the connection closed
        assert result.tally.answered.get("408", 0) >= 450, summary["attackers"]
        assert result.tally.closed_by_service.get("bare", 0) > 0, summary["attackers"]
        assert not service.server_errors(), service.server_errors()[:20]


def test_bodies_announced_too_large_are_refused_from_their_heads(
    redis_server: RedisServer | ExternalRedis,
) -> None:
    """500 connections each announcing a 1 MB body (past MAX_BODY_BYTES, 64 KiB) and
    sending it a byte every 3 s, for 10 s: each is answered 413 from its head alone, in
    the worker's event loop, and closed; /healthz and a game's view, each on a new
    connection, answer within BYSTANDER_SECONDS throughout. Before, each went to a
    thread, which read
    (and dropped) the body as it trickled: the threads of both workers were held and
    /healthz went unanswered."""
    attack = Attack(
        slow_headers=0,
        slow_bodies=500,
        pipelined=0,
        connects_per_second=0,
        body_interval=3.0,
        body_length=1_000_000,
    )
    with LiveService(redis_server.url) as service:
        result = run(service, attack, seconds=10.0)
        summary = result.summary()
        for name, latencies in result.latencies.items():
            assert len(latencies) >= 15, summary
            assert max(latencies) <= BYSTANDER_SECONDS, summary[name]
        assert result.tally.answered.get("413", 0) >= 500, summary["attackers"]
        assert set(result.tally.answered) == {"413"}, summary["attackers"]
        assert not service.server_errors(), service.server_errors()[:20]


@pytest.fixture(scope="module")
def short_deadlines(redis_server: RedisServer | ExternalRedis) -> Iterator[LiveService]:
    with LiveService(redis_server.url, CLIENT_TIMEOUT_SECONDS=str(SHORT_TIMEOUT)) as service:
        yield service
        assert not service.server_errors(), service.server_errors()[:20]


def read_answer(sock: socket.socket) -> bytes:
    """Everything the service sends until it closes the connection."""
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def test_a_request_not_whole_by_the_deadline_is_answered_408(
    short_deadlines: LiveService,
) -> None:
    with socket.create_connection(("127.0.0.1", short_deadlines.port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        answer = read_answer(sock)
        waited = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 408 Request Timeout", answer
    assert "Content-Type: application/problem+json" in lines
    problem = json.loads(body)
    assert problem["status"] == 408 and problem["type"] == "about:blank"
    assert "did not arrive whole within 2 s" in problem["detail"]
    assert SHORT_TIMEOUT - 0.5 <= waited <= SHORT_TIMEOUT + 2.0


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(
    short_deadlines: LiveService,
) -> None:
    """After keepalive (5 s) with no byte, as a kept-alive connection is."""
    with socket.create_connection(("127.0.0.1", short_deadlines.port), timeout=30) as sock:
        started = time.monotonic()
        assert read_answer(sock) == b""
        assert 4.0 <= time.monotonic() - started <= 8.0


def test_requests_sent_in_pieces_within_the_deadline_are_served(
    short_deadlines: LiveService,
) -> None:
    """A head and a body in pieces, a chunked body, a body sent after `100 Continue`,
    and pipelined requests: each is read whole, then answered as before."""
    port = short_deadlines.port
    body = b'{"variant": "scopa"}'
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        # 1. in pieces, a pause after each
        for piece in (
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\n",
            b"Content-Type: application/json\r\n",
            b"Content-Length: %d\r\n\r\n" % len(body),
            body[:5],
            body[5:],
        ):
            sock.sendall(piece)
            time.sleep(0.2)
        # 2. chunked, then 3. a GET pipelined behind it, on the same connection
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n5\r\n" + body[:5] + b"\r\n"
        )
        time.sleep(0.2)
        sock.sendall(
            b"%x\r\n" % (len(body) - 5)
            + body[5:]
            + b"\r\n0\r\n\r\n"
            + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        answer = read_answer(sock)
    assert answer.count(b"HTTP/1.1 201 CREATED\r\n") == 2, answer[:600]
    assert answer.count(b"HTTP/1.1 200 OK\r\n") == 1, answer[-300:]
    # 4. Expect: 100-continue: the body is asked for before it is sent
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body)
        )
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        assert b"HTTP/1.1 201 CREATED\r\n" in read_answer(sock)


def test_a_client_that_never_reads_its_answers_is_let_go(
    short_deadlines: LiveService,
) -> None:
    """40 pipelined requests for /openapi.json (200 KB each), never read: the thread
    writing the answers gives up after CLIENT_TIMEOUT_SECONDS and closes the connection
    (a line in the log, not an error); before, it waited as long as the client did."""
    service = short_deadlines
    request = f"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1:{service.port}\r\n\r\n".encode()
    said = "did not read its answer within"
    before = service.log_text().count(said)
    with socket.create_connection(("127.0.0.1", service.port), timeout=30) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(request * 40)
        deadline = time.monotonic() + SHORT_TIMEOUT + 20
        while service.log_text().count(said) == before:
            assert time.monotonic() < deadline, service.log_tail()
            assert service.session.get(service.url + "/healthz", timeout=1).status_code == 200
            time.sleep(0.1)


def test_clients_that_never_close_do_not_stall_the_worker(
    short_deadlines: LiveService,
) -> None:
    """40 clients ask for /healthz with `Connection: close`, then neither read nor close:
    each connection lingers up to 2 s for the client's end (RFC 9112 section 9.6) in the
    event loop, without blocking it. gthread's own close waited in the event loop, and
    the bystander's /healthz waited 2 s for each."""
    service = short_deadlines
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    stubborn = [socket.create_connection(("127.0.0.1", service.port)) for _ in range(40)]
    try:
        for sock in stubborn:
            sock.sendall(request)
        started = time.monotonic()
        while time.monotonic() - started < 4.0:
            asked = time.monotonic()
            answer = requests.get(service.url + "/healthz", timeout=5)
            assert answer.status_code == 200
            assert time.monotonic() - asked <= 1.0
    finally:
        for sock in stubborn:
            sock.close()


def test_a_head_past_32_kib_is_refused_431(short_deadlines: LiveService) -> None:
    with socket.create_connection(("127.0.0.1", short_deadlines.port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        with contextlib.suppress(ConnectionError):  # the service may close mid-send
            for n in range(40):
                sock.sendall(b"X-Filler-%d: %s\r\n" % (n, b"y" * 1000))
        answer = read_answer(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"), answer[:200]
    problem = json.loads(body)
    assert problem["status"] == 431 and "over 32 KiB" in problem["detail"]


def problem_of(answer: bytes) -> tuple[list[str], dict[str, object]]:
    """An answer's head lines and its problem+json body."""
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    assert "Content-Type: application/problem+json" in lines, answer[:300]
    return lines, json.loads(body)


def test_a_body_announced_past_the_limit_is_refused_413_from_the_head_alone(
    short_deadlines: LiveService,
) -> None:
    """A head announcing 1 MB (MAX_BODY_BYTES is 64 KiB), no byte of the body sent: 413
    at once, and the connection closed."""
    with socket.create_connection(("127.0.0.1", short_deadlines.port), timeout=30) as sock:
        started = time.monotonic()
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000\r\n\r\n"
        )
        answer = read_answer(sock)
        assert time.monotonic() - started < 1.0
    lines, problem = problem_of(answer)
    assert lines[0] == "HTTP/1.1 413 Request Entity Too Large", answer[:300]
    assert "Connection: close" in lines
    assert problem == {
        "type": "about:blank",
        "title": "Request Entity Too Large",
        "status": 413,
        "detail": "The request announces a body of 1000000 bytes (Content-Length), over "
        "the 65536 bytes the service accepts, and was not read. Send a smaller body.",
    }


def test_a_chunked_body_past_the_limit_is_refused_413_as_it_comes(
    short_deadlines: LiveService,
) -> None:
    """Chunks of 10,000 bytes, never the last one: 413 once they hold over 64 KiB."""
    with socket.create_connection(("127.0.0.1", short_deadlines.port), timeout=30) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        started = time.monotonic()
        with contextlib.suppress(ConnectionError):  # the service may close mid-send
            for _ in range(14):
                sock.sendall(b"%x\r\n" % 10_000 + b" " * 10_000 + b"\r\n")
        answer = read_answer(sock)
        assert time.monotonic() - started < 1.0
    lines, problem = problem_of(answer)
    assert lines[0] == "HTTP/1.1 413 Request Entity Too Large", answer[:300]
    assert problem["status"] == 413
    assert "The chunked body's chunks hold over the 65536 bytes" in str(problem["detail"])


def test_requests_being_read_hold_at_most_the_buffer_budget(
    redis_server: RedisServer | ExternalRedis,
) -> None:
    """REQUEST_BUFFER_BYTES (here 100,000, one worker): two requests each 50,000 bytes
    into a 60,000-byte body; the read that passes the budget is answered 503, the other
    request is read whole and served."""
    with LiveService(
        redis_server.url, WEB_CONCURRENCY="1", REQUEST_BUFFER_BYTES="100000"
    ) as service:
        head = (
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: 60000\r\n\r\n"
        )
        first = socket.create_connection(("127.0.0.1", service.port), timeout=30)
        second = socket.create_connection(("127.0.0.1", service.port), timeout=30)
        with first, second:
            first.sendall(head + b" " * 50_000)
            with contextlib.suppress(ConnectionError):
                second.sendall(head + b" " * 50_000)
            refused = read_answer(second)
            first.sendall(b" " * 10_000)
            served = read_answer(first)
        assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), refused[:200]
        assert json.loads(refused.partition(b"\r\n\r\n")[2])["status"] == 503
        # read whole and given to the app, which found no JSON in it
        assert served.startswith(b"HTTP/1.1 400 "), served[:200]
        assert not service.server_errors(), service.server_errors()[:20]


#: The answer deadline of the instance the slow readers meet (ANSWER_TIMEOUT_SECONDS).
ANSWER_TIMEOUT = 3.0


@pytest.fixture(scope="module")
def short_answers(redis_server: RedisServer | ExternalRedis) -> Iterator[LiveService]:
    """One worker, three threads (two for requests, one for an event stream), answers
    whole within 3 s; event streams last a minute, with a comment every second."""
    with LiveService(
        redis_server.url,
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="2",
        STREAMS_PER_WORKER="1",
        ANSWER_TIMEOUT_SECONDS=str(ANSWER_TIMEOUT),
        STREAM_MAX_SECONDS="60",
        STREAM_KEEPALIVE_SECONDS="1",
    ) as service:
        yield service
        assert not service.server_errors(), service.server_errors()[:20]


def read_slowly(sock: socket.socket, until: float) -> tuple[bytes, float | None]:
    """What a client reading 512 bytes every 0.2 s gets, and when the service ended
    the connection (None: still open at ``until``)."""
    got = b""
    while time.monotonic() < until:
        try:
            piece = sock.recv(512)
        except ConnectionResetError:
            piece = b""
        if not piece:
            return got, time.monotonic()
        got += piece
        time.sleep(0.2)
    return got, None


def test_a_slow_reader_of_a_long_answer_is_cut_at_its_deadline(
    short_answers: LiveService,
) -> None:
    """Two clients export 200 matches (4.6 MB of NDJSON: the kernel's buffers on
    loopback took 2.8 MB of a reader's answer) and read 2.5 KB a second, which keeps
    every write within its own timeout: past ANSWER_TIMEOUT_SECONDS (3) the
    service resets their connections, mid-answer, and their threads serve /healthz,
    which waited for them. An event stream open all along is not cut. Before, each
    reader kept its connection and its thread as long as it read."""
    service = short_answers
    key = {"Authorization": f"Bearer {LIVE_KEY}"}
    game, events = random_match("scopa", random.Random(1))
    record = json.loads(json.dumps(records.record_of(game, events), default=str))
    ids = []
    for _ in range(200):
        made = service.session.post(service.url + "/v1/games/import", json=record, headers=key)
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])
    said = "an answer was not sent whole within 3.0s"
    assert said not in service.log_text()

    stream = socket.create_connection(("127.0.0.1", service.port), timeout=30)
    stream.sendall(
        f"GET /v1/games/{ids[0]}/stream?as_seat=0 HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {LIVE_KEY}\r\n\r\n".encode()
    )
    assert stream.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")
    started = time.monotonic()
    readers = []
    for _ in range(2):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", service.port))
        sock.sendall(
            b"GET /v1/games/export HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n"
            % LIVE_KEY.encode()
        )
        readers.append(sock)
    with stream, readers[0], readers[1], ThreadPoolExecutor(2) as pool:
        reads = [pool.submit(read_slowly, sock, started + 20) for sock in readers]
        healthz = service.session.get(service.url + "/healthz", timeout=ANSWER_TIMEOUT + 12)
        answered = time.monotonic() - started
        # the stream still open, and sending, past the answers' deadline
        stream.settimeout(ANSWER_TIMEOUT + 5)
        while time.monotonic() - started < ANSWER_TIMEOUT + 3:
            assert stream.recv(65536), "the event stream was cut"
        for read in reads:
            got, ended = read.result()
            assert ended is not None, f"still reading after 20 s ({len(got)} bytes)"
            assert ANSWER_TIMEOUT - 0.5 <= ended - started <= ANSWER_TIMEOUT + 2.5
            assert got.startswith(b"HTTP/1.1 200 OK\r\n")
            assert b"Transfer-Encoding: chunked" in got and not got.endswith(b"0\r\n\r\n")
    assert healthz.status_code == 200
    assert answered <= ANSWER_TIMEOUT + 2.5
    assert service.log_text().count(said) == 2, service.log_tail()


class TestRequestBuffer:
    """service/request_reading.py: whole when gunicorn's parser reads the request to
    its end from the bytes buffered."""

    @staticmethod
    def fed(*pieces: bytes, max_body: int = 65536) -> list[bool]:
        buffer = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), max_body)
        return [buffer.feed(piece) for piece in pieces]

    def test_a_head_then_a_body_of_known_length(self) -> None:
        head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
        assert self.fed(head, b"\r\n", b"ab", b"cd") == [False, False, False, True]
        assert self.fed(head + b"\r\nabcdGET / HTTP/1.1\r\n") == [True]  # pipelined

    def test_a_chunked_body_is_whole_with_its_last_chunk(self) -> None:
        head = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        assert self.fed(head, b"2\r\nab\r\n", b"0\r\n", b"\r\n") == [False, False, False, True]

    def test_what_gunicorn_refuses_goes_on_at_once(self) -> None:
        assert self.fed(b"GET /a b HTTP/1.1\r\nHost: x\r\n\r\n") == [True]

    def test_a_length_announced_past_the_limit_is_refused_from_the_head(self) -> None:
        buffer = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 10)
        assert not buffer.feed(b"POST / HTTP/1.1\r\nHost: x\r\n")
        assert not buffer.refused
        assert not buffer.feed(b"Content-Length: 11\r\n\r\n")
        assert buffer.refused == (
            "The request announces a body of 11 bytes (Content-Length), over the 10 "
            "bytes the service accepts, and was not read. Send a smaller body."
        )
        exact = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 10)
        assert exact.feed(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n" + b"x" * 10)
        assert not exact.refused

    def test_chunks_past_the_limit_are_refused_as_they_come(self) -> None:
        """Chunks with no empty line to end them: counted once their bytes pass the
        limit, then at each 4 KiB more, and refused once what they hold passes it."""
        head = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        buffer = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 1000)
        assert not buffer.feed(head)
        fed = 0
        while not buffer.refused:
            assert not buffer.feed(b"64\r\n" + b"x" * 100 + b"\r\n")
            fed += 100
            assert fed <= 1000 + 4096, "not refused"
        assert fed > 1000
        assert "chunked body's chunks hold over the 1000 bytes" in buffer.refused
        # within the limit, the same chunks are read whole
        within = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 1000)
        assert not within.feed(head + (b"64\r\n" + b"x" * 100 + b"\r\n") * 10)
        assert within.feed(b"0\r\n\r\n") and not within.refused

    def test_chunks_mostly_framing_are_refused_past_their_bound(self) -> None:
        """A byte of content a chunk, each with a 1,000-byte chunk extension: refused
        once the bytes sent pass the limit's bound (64 KiB over it), holding 66 bytes."""
        head = b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        buffer = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 1000)
        assert not buffer.feed(head)
        chunks = 0
        while not buffer.refused:
            assert not buffer.feed(b"1;n=" + b"v" * 1000 + b"\r\nx\r\n")
            chunks += 1
            assert chunks <= 100, "not refused"
        assert 1009 * chunks > 1000 + 65536 >= 1009 * (chunks - 1)
        assert buffer.refused.startswith("The chunked body took over 66536 bytes as sent")

    def test_a_head_past_the_limit_is_too_large(self) -> None:
        buffer = RequestBuffer(GunicornConfig(), ("127.0.0.1", 1), 65536)
        assert not buffer.feed(b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 6000)
        assert buffer.too_large
