"""make players: a load test of players, not requests (issue 40).

It starts what ``make loadtest`` starts, at ``make run``'s defaults (a private Redis;
``--instances`` gunicorn instances as deployed, deploy/gunicorn.conf.py, 2 workers x 4
threads each, ``STREAMS_PER_WORKER`` and ``STREAM_MAX_SECONDS`` at their defaults unless a
flag says otherwise), with every rate limit off, on 127.0.0.1 only. Then ``--games``
matches are played by people, as the browser client /play plays them: each seat of each
match follows its game on an event stream of its own (``GET /v1/games/{id}/stream`` with
its seat's token), opened again with ``Last-Event-ID`` when the service ends it (``end``,
``reconnect``: ``STREAM_MAX_SECONDS``) or it breaks, as EventSource does. A stream refused
(503: the worker holds ``STREAMS_PER_WORKER`` streams; 429) is an error, and that seat then
follows its game as /play does (service/web/follow.js): it polls the log every second
(``GET /v1/games/{id}/events?after=<seq>``, ``If-None-Match``) and tries the stream again
20 s later. When its stream (or its polling) says it is its turn, the seat thinks
(``--think`` seconds, times a random factor from 0.5 to 1.5), reads its legal moves (``GET
/v1/games/{id}/legal-moves``) and plays one of them at random (``POST
/v1/games/{id}/moves``, with an ``Idempotency-Key``). A match that ends is replaced by a new
one, so the number of players stays the same. ``--seats`` says the matches' sizes: 2
(classic Scopa), 4 (Scopone) or ``2,4`` (each in turn). The seats of a match are spread
over the instances (so a move often reaches a stream on another instance).

Every match is created and every stream opened (or refused: its seat waits for the clock
to poll) before the players start; they play a warm-up of 1.5 mean thinks (so that the
matches' turns are spread over time), then ``--seconds`` that count. It prints the moves
answered a second against those offered (each match offers one move every ``--think``
seconds on average: what it would play if every answer and every event came at once),
the moves' latency, the time from a move's answer to its event's arrival on each OTHER
seat's stream (an event that came before the answer counts 0) and how many of those
never came, the errors by kind, the memory (RSS) of each gunicorn worker and instance,
and the CPU seconds over the clock of the service's processes, of Redis and of the
generator itself, as shares of the machine.

The generator is one asyncio process (``--processes 2``: two, each with half the matches)
speaking HTTP/1.1 over its own sockets, as lean as a load generator needs (as
tests/bench/loadtest.py's clients: a client that parsed headers with the email package
would take the service's CPU). Its event loop's lag is printed: when it grows past the
think time, the generator, not the service, is what limits the run. Every loop is bounded
in time; nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import os
import random
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service import config
from service.api.ratelimit import LIMIT_SETTINGS
from tests.bench.hostile import default_env, percentile, tree_cpu_seconds
from tests.bench.loadtest import engine_env, redis_cpu_seconds
from tests.bench.slowclients import raise_fd_limit
from tests.devpushpin import PushpinServer, find_pushpin
from tests.devredis import RedisServer
from tests.live import LiveService, children_of

#: An answer, a stream's head or a connection slower than this is an error.
TIMEOUT = 30.0
#: As /play (service/web/follow.js): a refused stream's seat polls the log this often,
#: and tries the stream again this long after it was refused.
POLL_SECONDS = 1.0
STREAM_RETRY_SECONDS = 20.0
#: EventSource's reconnection delay after a stream that broke (the service asks for 1 s
#: with ``retry:``; after an ``end`` event, /play reconnects at once).
RECONNECT_SECONDS = 1.0
#: Before the clock counts, the players play this many mean thinks (every match has begun
#: its cycle of turns: without it, every first move would fall in the clock's first
#: seconds and every move on the way at its end would be lost), at most so long.
WARMUP_THINKS = 1.5
MAX_WARMUP_SECONDS = 30.0
#: After the clock, streams stay open this long for the last moves' events to arrive.
GRACE_SECONDS = 2.0
#: Matches created and streams opened at once before the clock (a crowd arriving, not a
#: stampede on the listen backlog).
SETUP_CONCURRENCY = 64
#: Each process's setup must be done within this (else the run stops: the machine is
#: too slow for the size asked).
SETUP_SECONDS = 600.0
NAMES = ("Ana", "Bruno", "Carla", "Dario")


class HttpError(Exception):
    """The connection broke, or the answer was not HTTP/1.1 as expected."""


def _head(method: str, path: str, headers: str, body: bytes) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}\r\n"
    ).encode() + body


def _status_and_headers(head: bytes) -> tuple[int, str]:
    text = head.decode("latin-1").lower()
    if not text.startswith("http/1.1 "):
        raise HttpError(text[:40])
    return int(text[9:12]), text


def _content_length(text: str) -> int:
    start = text.find("\r\ncontent-length:")
    if start < 0:
        return 0
    end = text.find("\r\n", start + 2)
    return int(text[start + 17 : end if end >= 0 else None])


async def _body(reader: asyncio.StreamReader, text: str) -> bytes:
    """An answer's body: by its Content-Length, or its chunks (a proxy in front, such as
    Pushpin, may send either)."""
    if "\r\ntransfer-encoding: chunked" not in text:
        return await reader.readexactly(_content_length(text))
    body = b""
    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
        body += (await reader.readexactly(size + 2))[:-2]
    await reader.readuntil(b"\r\n")  # (no trailers)
    return body


class Http:
    """One keep-alive HTTP/1.1 connection of one player (a browser tab's). The service
    closes an idle one after its keep-alive (5 s: longer than a think): a request on a
    connection found closed before its answer began is sent once more on a new one (a
    move carries an Idempotency-Key, so it is never played twice)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, headers: str = "", body: bytes = b""
    ) -> tuple[int, bytes]:
        for attempt in (0, 1):
            reused = self.writer is not None
            if self.reader is not None and self.reader.at_eof():
                self.close()
                reused = False
            try:
                if self.writer is None:
                    self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
                assert self.reader is not None
                self.writer.write(_head(method, path, headers, body))
                head = await self.reader.readuntil(b"\r\n\r\n")
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                self.close()
                if reused and attempt == 0:
                    continue  # closed while idle: once more, on a new connection
                raise
            try:
                status, text = _status_and_headers(head)
                raw = await _body(self.reader, text)
            except (OSError, asyncio.IncompleteReadError):
                self.close()
                raise
            if "\r\nconnection: close" in text:
                self.close()
            return status, raw
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


@dataclass
class Tally:
    """What one generator process measured; merged over processes."""

    move_latencies: list[float] = field(default_factory=list)  # answered on the clock
    legal_latencies: list[float] = field(default_factory=list)
    #: A move's answer to its event's arrival on another seat's stream (0: before it).
    deliveries: list[float] = field(default_factory=list)
    #: Events on other seats' streams open at the move's answer that never came.
    missing: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    #: Not errors: streams opened (200), reopened after an end or a break, log polls.
    counts: Counter[str] = field(default_factory=Counter)
    loop_lags: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0  # the process's, over the clock

    def merge(self, other: Tally) -> None:
        self.move_latencies += other.move_latencies
        self.legal_latencies += other.legal_latencies
        self.deliveries += other.deliveries
        self.missing += other.missing
        self.errors.update(other.errors)
        self.counts.update(other.counts)
        self.loop_lags += other.loop_lags
        self.cpu_seconds += other.cpu_seconds


@dataclass(frozen=True)
class Plan:
    """What every generator process is told."""

    ports: tuple[int, ...]
    #: Where each instance's streams are opened: its own port, or its proxy's.
    stream_ports: tuple[int, ...]
    seats: tuple[int, ...]  # the matches' sizes, in turn
    think: float
    warmup: float  # played, not counted: each match has begun its cycle of turns
    seconds: float
    target: int | None
    seed: int


class Clock:
    """The run's clock, shared by a process's players: when they start playing, when
    what they meet starts to count (after the warm-up), and when it ends."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.counted_from = float("inf")
        self.deadline = float("inf")
        self.stopping = False

    def on(self) -> bool:
        return self.started.is_set() and time.monotonic() < self.deadline

    def counts(self, when: float) -> bool:
        return self.counted_from <= when < self.deadline


class Match:
    """One match and its seats; each answered move's time, for its deliveries."""

    def __init__(self, run: Run, number: int, size: int) -> None:
        self.run = run
        self.number = number
        self.size = size
        self.id = ""
        self.seats: list[Seat] = []
        self.over = asyncio.Event()
        #: seq of an answered move: when it was answered, and the other seats whose
        #: streams were open then and have not had its event yet.
        self.answered: dict[int, tuple[float, set[int]]] = {}
        #: (seq, seat): when a move's event came on a seat's stream before its answer.
        self.early: dict[tuple[int, int], float] = {}

    def port_of(self, seat: int) -> int:
        return self.run.plan.ports[self.instance_of(seat)]

    def stream_port_of(self, seat: int) -> int:
        return self.run.plan.stream_ports[self.instance_of(seat)]

    def instance_of(self, seat: int) -> int:
        return (self.number * self.size + seat) % len(self.run.plan.ports)

    async def create(self, http: Http) -> dict[str, Any]:
        body: dict[str, Any] = {"seats": [{"name": NAMES[i]} for i in range(self.size)]}
        if self.size == 4:
            body["variant"] = "scopone"
        if self.run.plan.target is not None:
            body["target"] = self.run.plan.target
        status, raw = await http.request("POST", "/v1/games", body=json.dumps(body).encode())
        if status != 201:
            raise HttpError(f"create {status}")
        created: dict[str, Any] = json.loads(raw)
        return created

    def move_answered(self, seq: int, seat: int, when: float) -> None:
        tally = self.run.tally
        waiting = set()
        for other in self.seats:
            if other.seat == seat:
                continue
            early = self.early.pop((seq, other.seat), None)
            if early is not None:
                tally.deliveries.append(0.0)
                tally.counts["came before the answer"] += 1
            elif other.live and when < self.run.clock.deadline:
                waiting.add(other.seat)  # (after the clock, the grace may be too short)
        self.answered[seq] = (when, waiting)

    def event_arrived(self, seq: int, seat: int) -> None:
        found = self.answered.get(seq)
        if found is None:
            self.early[seq, seat] = time.monotonic()
            return
        when, waiting = found
        if seat in waiting:
            waiting.discard(seat)
            self.run.tally.deliveries.append(time.monotonic() - when)

    def missing(self) -> int:
        return sum(len(waiting) for _, waiting in self.answered.values())


class Seat:
    """One player: its stream (or its polling), its turn, its moves."""

    def __init__(self, match: Match, seat: int, token: str, state: dict[str, Any]) -> None:
        self.match = match
        self.run = match.run
        self.seat = seat
        self.port = match.port_of(seat)
        self.stream_port = match.stream_port_of(seat)
        self.auth = f"Authorization: Bearer {token}\r\n"
        self.http = Http(self.port)  # its moves' (and their legal moves')
        self.poller = Http(self.port)  # its polls' (a browser has 6 connections a host)
        self.seq: int | None = None  # the last event seen (None: the stream not yet opened)
        self.version: int | None = None  # the log's, at the last poll
        self.turn: int | None = state["turn"]
        self.playing = state["status"] == "playing"
        self.moving = False
        self.live = False  # its stream is open
        self.refused = False  # a stream of its was refused, once or more
        self.streamed = False  # a stream of its was opened, once or more
        self.opened = asyncio.Event()  # its stream answered (or was refused) once
        self.rng = random.Random(f"{self.run.plan.seed}-{match.number}-{match.id}-{seat}")
        self.writer: asyncio.StreamWriter | None = None

    # -- following the game -------------------------------------------------------

    async def follow(self) -> None:
        """Stream, reconnect, or poll and retry, until the match is over or the run ends."""
        tally = self.run.tally
        try:
            while self.playing and not self.run.clock.stopping:
                try:
                    status = await self.stream()
                except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                    tally.errors[f"stream broke: {type(exc).__name__}"] += 1
                    status = 0
                finally:
                    self.live = False
                    self.opened.set()
                if status == 200 or status == 0:
                    if status == 0 and self.playing:
                        await asyncio.sleep(RECONNECT_SECONDS)
                    continue
                tally.errors[f"stream refused {status}"] += 1
                if not self.refused:
                    self.refused = True
                    tally.counts["seats refused a stream"] += 1
                # As /play, the stream is tried again 20 s after it was refused (each
                # seat's own time). Before the clock, a refused seat waits for it to
                # poll (its polls would slow the other matches' setup).
                retry = time.monotonic() + STREAM_RETRY_SECONDS
                await self.run.clock.started.wait()
                await self.poll(retry)
        finally:
            self.live = False
            self.opened.set()
            if self.writer is not None:
                self.writer.close()
            self.poller.close()
            if not self.moving:  # else its move closes it, once answered
                self.http.close()

    async def stream(self) -> int:
        """One stream, from the last event seen: its status; 200 once it ended (or its
        match did: the seat leaves it then)."""
        tally = self.run.tally
        path = f"/v1/games/{self.match.id}/stream"
        resume = "" if self.seq is None else f"Last-Event-ID: {self.seq}\r\n"
        async with asyncio.timeout(TIMEOUT):
            reader, writer = await asyncio.open_connection("127.0.0.1", self.stream_port)
            self.writer = writer
            writer.write(
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                f"{self.auth}{resume}\r\n".encode()
            )
            status, text = _status_and_headers(await reader.readuntil(b"\r\n\r\n"))
            if status != 200:
                await _body(reader, text)
                writer.close()
                self.writer = None
                return status
        tally.counts["streams reopened" if self.streamed else "streams opened"] += 1
        self.streamed = True
        self.live = True
        self.opened.set()
        buffer = b""
        ended = False
        try:
            while not ended:
                size = int(await reader.readuntil(b"\r\n"), 16)
                if size == 0:
                    break
                buffer += (await reader.readexactly(size + 2))[:-2]
                while (cut := buffer.find(b"\n\n")) >= 0:
                    message, buffer = buffer[:cut], buffer[cut + 2 :]
                    ended = self.message(message) or ended or not self.playing
        finally:
            self.live = False
            writer.close()
            self.writer = None
        if not ended:
            raise HttpError("the stream ended without its end event")
        return 200

    def message(self, message: bytes) -> bool:
        """One server-sent event; True for ``end``."""
        kind = b"message"
        data = b""
        ident = None
        for line in message.split(b"\n"):
            if line.startswith(b"data: "):
                data = line[6:]
            elif line.startswith(b"event: "):
                kind = line[7:]
            elif line.startswith(b"id: "):
                ident = int(line[4:])
        if kind == b"message" and data:
            self.apply(json.loads(data), streamed=True)
        elif kind == b"state":
            state = json.loads(data)
            if self.seq is None or (ident is not None and ident > self.seq):
                self.seq = ident
                self.turn = state["turn"]
                self.playing = state["status"] == "playing"
                self.changed()
        elif kind == b"end":
            reason = json.loads(data)["reason"]
            if reason != "reconnect":
                self.run.tally.errors[f"stream end: {reason}"] += 1
                self.playing = False
                self.changed()
            return True
        return False

    def apply(self, event: dict[str, Any], *, streamed: bool) -> None:
        """An event of the log, as /play's service/web/events.js applies it to the turn."""
        seq = event["seq"]
        if self.seq is not None and seq <= self.seq:
            return
        self.seq = seq
        kind = event["type"]
        if kind == "move":
            self.turn = (event["seat"] + 1) % self.match.size
            if streamed and event["seat"] != self.seat:
                self.match.event_arrived(seq, self.seat)
        elif kind == "deal":
            self.turn = (event["dealer"] + 1) % self.match.size
        elif kind == "hand_over":
            self.turn = None
        elif kind in ("match_over", "aborted"):
            self.turn = None
            self.playing = False
        self.changed()

    async def poll(self, until: float) -> None:
        """Follow by polling the log (a refused stream's seat), until ``until``."""
        tally = self.run.tally
        path = f"/v1/games/{self.match.id}/events"
        while self.playing and not self.run.clock.stopping and time.monotonic() < until:
            query = "" if self.seq is None else f"?after={self.seq}"
            etag = "" if self.version is None else f'If-None-Match: "{self.version}"\r\n'
            try:
                async with asyncio.timeout(TIMEOUT):
                    status, raw = await self.poller.request("GET", path + query, self.auth + etag)
            except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                tally.errors[f"poll failed: {type(exc).__name__}"] += 1
                status, raw = 0, b""
            tally.counts["log polls"] += 1
            if status == 200:
                log = json.loads(raw)
                self.version = log["version"]
                for event in log["events"]:
                    self.apply(event, streamed=False)
            elif status not in (0, 304):
                tally.errors[f"poll {status}"] += 1
            await asyncio.sleep(POLL_SECONDS)

    # -- playing -------------------------------------------------------------------

    def changed(self) -> None:
        if not self.playing:
            self.match.over.set()
        elif self.turn == self.seat and not self.moving and self.run.clock.on():
            self.moving = True
            self.run.spawn(self.play())

    async def play(self) -> None:
        """Think, read the legal moves, play one: a turn."""
        tally = self.run.tally
        clock = self.run.clock
        game = f"/v1/games/{self.match.id}"
        try:
            await asyncio.sleep(self.run.plan.think * self.rng.uniform(0.5, 1.5))
            if not clock.on() or not self.playing or self.turn != self.seat:
                return  # over, or the hand ended meanwhile (its next deal says who plays)
            started = time.monotonic()
            if clock.counts(started):
                tally.counts["moves tried"] += 1
            async with asyncio.timeout(TIMEOUT):
                status, raw = await self.http.request("GET", game + "/legal-moves", self.auth)
            if status != 200:
                tally.errors[f"legal-moves {status}"] += 1
                return
            if clock.counts(started):
                tally.legal_latencies.append(time.monotonic() - started)
            moves = json.loads(raw)["moves"]
            if not moves:
                tally.errors["legal-moves: none"] += 1
                return
            move = self.rng.choice(moves)
            body = json.dumps({"card": move["card"], "capture": move["capture"]}).encode()
            key = f"Idempotency-Key: {uuid.uuid4().hex}\r\n"
            started = time.monotonic()
            async with asyncio.timeout(TIMEOUT):
                status, raw = await self.http.request(
                    "POST", game + "/moves", self.auth + key, body
                )
            answered = time.monotonic()
            if status != 200:
                tally.errors[f"move {status}"] += 1
                return
            if clock.counts(answered):
                tally.move_latencies.append(answered - started)
            answer = json.loads(raw)
            state = answer["state"]
            events = answer["events"]
            move_seq = events[0]["seq"] - 1 if events else state["seq"]
            self.match.move_answered(move_seq, self.seat, answered)
            # As /play: the answer's state is the game now (its events are in it).
            if self.seq is None or state["seq"] > self.seq:
                self.seq = state["seq"]
                self.turn = state["turn"]
                self.playing = state["status"] == "playing"
        except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
            tally.errors[f"move failed: {type(exc).__name__}"] += 1
        finally:
            self.moving = False
            if not self.playing or clock.stopping:
                self.http.close()
        self.changed()  # its turn again (a new deal), or the match over


class Run:
    """One generator process: its matches, each replaced by a new one when it ends."""

    def __init__(self, plan: Plan, first: int, count: int) -> None:
        self.plan = plan
        self.first = first
        self.count = count
        self.tally = Tally()
        self.clock = Clock()
        self.tasks: set[asyncio.Task[None]] = set()
        self.matches: list[Match] = []
        self.numbers = itertools.count(first + count, 1_000_000)  # replacements' numbers

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.done)

    def done(self, task: asyncio.Task[None]) -> None:
        """A task ended: one that failed (a bug of the generator's) is an error."""
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.tally.errors[f"player failed: {task.exception()!r}"[:120]] += 1

    async def start_match(self, number: int, size: int) -> Match:
        """A new match of ``size`` seats, its seats following it (their streams answered
        or refused)."""
        match = Match(self, number, size)
        http = Http(match.port_of(0))
        try:
            async with asyncio.timeout(TIMEOUT):
                created = await match.create(http)
        finally:
            http.close()
        match.id = created["id"]
        match.seats = [
            Seat(match, s["seat"], s["token"], created["state"]) for s in created["seats"]
        ]
        for seat in match.seats:
            self.spawn(seat.follow())
        for seat in match.seats:
            await seat.opened.wait()
        self.matches.append(match)
        return match

    async def keep(self, match: Match) -> None:
        """Play ``match``; when it ends, replace it, until the run ends."""
        while not self.clock.stopping:
            await match.over.wait()
            self.tally.counts["matches finished"] += 1
            if self.clock.stopping:
                return
            number = next(self.numbers)
            try:
                match = await self.start_match(number, match.size)
            except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                self.tally.errors[f"create failed: {type(exc).__name__}"] += 1
                await asyncio.sleep(1.0)
                continue
            self.tally.counts["matches started on the clock"] += 1
            for seat in match.seats:
                seat.changed()

    async def lag(self) -> None:
        """The event loop's lateness, sampled every 0.1 s over the clock."""
        while not self.clock.stopping:
            before = time.monotonic()
            await asyncio.sleep(0.1)
            if self.clock.on():
                self.tally.loop_lags.append(time.monotonic() - before - 0.1)

    async def main(self, barrier: Any) -> Tally:
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def setup(number: int) -> Match | None:
            async with gate:
                try:
                    size = self.plan.seats[number % len(self.plan.seats)]
                    return await self.start_match(number, size)
                except (OSError, asyncio.IncompleteReadError, HttpError, TimeoutError) as exc:
                    self.tally.errors[f"create failed: {type(exc).__name__}"] += 1
                    return None

        async with asyncio.timeout(SETUP_SECONDS):
            made = await asyncio.gather(
                *(setup(n) for n in range(self.first, self.first + self.count))
            )
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, barrier.wait, SETUP_SECONDS)
        now = time.monotonic()
        self.clock.counted_from = now + self.plan.warmup
        self.clock.deadline = now + self.plan.warmup + self.plan.seconds
        self.clock.started.set()
        self.spawn(self.lag())
        for match in made:
            if match is not None:
                self.spawn(self.keep(match))
                for seat in match.seats:
                    seat.changed()
        await asyncio.sleep(self.plan.warmup)
        cpu = time.process_time()
        await asyncio.sleep(self.plan.seconds)
        self.tally.cpu_seconds = time.process_time() - cpu
        await asyncio.sleep(GRACE_SECONDS)  # the last moves' events still come
        self.clock.stopping = True
        self.tally.missing = sum(m.missing() for m in self.matches)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        return self.tally


def _generator(plan: Plan, first: int, count: int, barrier: Any, out: Any) -> None:
    """One generator process: its matches in one event loop; its tally to ``out``."""
    raise_fd_limit(count * max(plan.seats) * 3 + 1024)  # a stream and two connections a seat
    try:
        tally = asyncio.run(Run(plan, first, count).main(barrier))
    except BaseException as exc:  # noqa: BLE001 - said in the report, not lost
        with contextlib.suppress(Exception):
            barrier.abort()
        tally = Tally()
        tally.errors[f"generator failed: {exc!r}"[:200]] += 1
    out.put(tally)


def memory_of(pid: int) -> tuple[int, int]:
    """A process's resident set and its peak (VmRSS, VmHWM), bytes."""
    found = {"VmRSS:": 0, "VmHWM:": 0}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            name, *rest = line.split()
            if name in found:
                found[name] = int(rest[0]) * 1024
    return found["VmRSS:"], found["VmHWM:"]


def pct(values: list[float], q: float) -> float:
    """The ``q``th percentile of ``values``, in ms."""
    return 1000 * percentile(sorted(values), q) if values else float("nan")


def service_env(args: argparse.Namespace) -> dict[str, str]:
    """``make run``'s settings (the service's defaults for everything the live tests
    change), every rate limit off, and the flags' changes."""
    defaults = config.load({})
    env = {**default_env(), **dict.fromkeys(LIMIT_SETTINGS, "0")}
    env["GUNICORN_THREADS"] = str(defaults.gunicorn_threads)
    env["STREAMS_PER_WORKER"] = str(defaults.streams_per_worker)
    env["STREAM_MAX_SECONDS"] = f"{defaults.stream_max_seconds:g}"
    env["WEB_CONCURRENCY"] = str(args.workers)
    if args.streams_per_worker is not None:
        env["STREAMS_PER_WORKER"] = str(args.streams_per_worker)
    if args.stream_max_seconds is not None:
        env["STREAM_MAX_SECONDS"] = str(args.stream_max_seconds)
    return env


def report(
    args: argparse.Namespace,
    tally: Tally,
    seconds: float,
    cpu: dict[str, Any],
    memory: list[list[tuple[str, int, int]]],
) -> list[str]:
    """The printed figures."""
    mib = 1024 * 1024
    machine = seconds * (os.cpu_count() or 1)
    served = len(tally.move_latencies)
    seats = sum(args.seat_sizes[n % len(args.seat_sizes)] for n in range(args.games))
    if args.think > 0:
        offered = args.games / args.think
        against = f"of {offered:.1f}/s offered ({served / seconds / offered:.0%})"
    else:
        against = "(offered: as fast as answered)"
    lines = [
        f"moves served: {served / seconds:.1f}/s {against}; {served} answered of "
        f"{tally.counts['moves tried']} tried in {seconds:.1f} s",
        f"move latency: p50 {pct(tally.move_latencies, 50):.1f} ms, p99 "
        f"{pct(tally.move_latencies, 99):.1f} ms; legal moves p50 "
        f"{pct(tally.legal_latencies, 50):.1f} ms, p99 {pct(tally.legal_latencies, 99):.1f} ms",
        f"delivery to the other seats' streams: p50 {pct(tally.deliveries, 50):.1f} ms, "
        f"p99 {pct(tally.deliveries, 99):.1f} ms, max "
        f"{1000 * max(tally.deliveries, default=float('nan')):.1f} ms; "
        f"{len(tally.deliveries)} delivered ({tally.counts['came before the answer']} before the "
        f"move's answer, counted 0), {tally.missing} missing",
        f"streams: {tally.counts['seats refused a stream']} of {seats} seats refused a stream "
        "(then polling), "
        + ", ".join(
            f"{tally.counts[k]} {k}" for k in ("streams opened", "streams reopened", "log polls")
        )
        + f"; matches finished {tally.counts['matches finished']}",
        "errors: " + (", ".join(f"{k} x{v}" for k, v in sorted(tally.errors.items())) or "none"),
    ]
    for number, processes in enumerate(memory, 1):
        workers = [p for p in processes if p[0] == "worker"]
        total = sum(p[1] for p in processes)
        lines.append(
            f"memory (RSS), instance {number}: workers "
            + ", ".join(f"{rss / mib:.0f}" for _, rss, _ in workers)
            + " MiB (peak "
            + ", ".join(f"{peak / mib:.0f}" for _, _, peak in workers)
            + f"), instance with its master {total / mib:.0f} MiB"
        )
    lines.append(
        f"CPU over the clock ({os.cpu_count()} CPUs): service {cpu['service']:.1f} s = "
        f"{cpu['service'] / machine:.0%} of the machine ("
        + ", ".join(f"{c:.1f}" for c in cpu["instances"])
        + f" s by instance); Redis {cpu['redis']:.1f} s = {cpu['redis'] / machine:.0%}; "
        f"generator {tally.cpu_seconds:.1f} s = {tally.cpu_seconds / machine:.0%}"
    )
    if cpu.get("proxies"):
        total = sum(cpu["proxies"])
        lines.append(
            f"Pushpin: CPU {total:.1f} s = {total / machine:.0%} of the machine ("
            + ", ".join(f"{c:.1f}" for c in cpu["proxies"])
            + " s by proxy); memory (RSS, all its processes) "
            + ", ".join(f"{m / mib:.0f}" for m in cpu["proxy_memory"])
            + " MiB by proxy"
        )
    lines.append(
        f"generator: {args.processes} process(es), event loop lag p50 "
        f"{pct(tally.loop_lags, 50):.1f} ms, p99 {pct(tally.loop_lags, 99):.1f} ms, max "
        f"{1000 * max(tally.loop_lags, default=float('nan')):.0f} ms"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="matches played at once")
    parser.add_argument("--think", type=float, default=5.0, help="a player's mean think, s")
    parser.add_argument("--seconds", type=float, default=30.0, help="the clock")
    parser.add_argument("--instances", type=int, default=1, help="gunicorn instances")
    parser.add_argument("--seats", default="2", help="the matches' sizes, in turn: 2, 4 or 2,4")
    parser.add_argument("--processes", type=int, default=1, help="generator processes (1-2)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers an instance")
    parser.add_argument("--streams-per-worker", type=int, help="default: the service's")
    parser.add_argument("--stream-max-seconds", type=float, help="default: the service's")
    parser.add_argument(
        "--proxy",
        choices=("none", "pushpin"),
        default="none",
        help="what holds the streams: the service's threads, or a Pushpin in front of each "
        "instance (the streams through it, as deploy/ routes them; each commit published "
        "to every one)",
    )
    parser.add_argument(
        "--proxies",
        type=int,
        default=0,
        help="with --proxy pushpin: how many (default: one an instance), in front of the "
        "first instances, each instance's streams through one of them in turn",
    )
    parser.add_argument("--target", type=int, help="the matches' points (default: theirs)")
    parser.add_argument("--seed", type=int, default=1, help="the players' choices")
    parser.add_argument(
        "--engine",
        choices=("auto", "compiled", "python"),
        default="auto",
        help="the engine served: auto (as `make run`), compiled (or fail), python",
    )
    args = parser.parse_args(argv)
    try:
        seats = tuple(int(s) for s in args.seats.split(","))
    except ValueError:
        parser.error("--seats: 2, 4 or 2,4")
    if not seats or not set(seats) <= {2, 4}:
        parser.error("--seats: 2, 4 or 2,4")
    if not 1 <= args.games <= 10_000 or not 0 <= args.think <= 600:
        parser.error("--games 1-10000, --think 0-600")
    if not 1 <= args.seconds <= 600 or not 1 <= args.instances <= 8:
        parser.error("--seconds 1-600, --instances 1-8")
    if not 1 <= args.processes <= 2 or not 1 <= args.workers <= 8:
        parser.error("--processes 1-2, --workers 1-8")

    engine = engine_env(args.engine)
    if engine is None:
        return 1
    env = {**service_env(args), **engine}
    warmup = min(WARMUP_THINKS * args.think, MAX_WARMUP_SECONDS)
    args.seat_sizes = seats
    seat_count = sum(seats[n % len(seats)] for n in range(args.games))
    if args.proxy == "pushpin" and find_pushpin() is None:
        print("--proxy pushpin: pushpin is not installed (Debian: apt-get install pushpin)")
        return 1
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(RedisServer())
        services = [LiveService(server.url, **env) for _ in range(args.instances)]
        proxies = []
        if args.proxy == "pushpin":
            key = uuid.uuid4().hex
            count = args.proxies or len(services)
            proxies = [PushpinServer(s.port, key) for s in services[:count]]
            for service in services:
                service.env.update(
                    GRIP_KEY=key, GRIP_PUBLISH_URLS=",".join(p.publish_url for p in proxies)
                )
            for proxy in proxies:
                stack.enter_context(proxy)
        for service in services:
            stack.enter_context(service)
        store = stack.enter_context(redis.Redis.from_url(server.url))
        print(
            f"players: {args.games} matches of {args.seats} seats ({seat_count} players, "
            f"a stream each) on {args.instances} instance(s) x {env['WEB_CONCURRENCY']} "
            f"workers x {env['GUNICORN_THREADS']} threads (+ {env['STREAMS_PER_WORKER']} "
            f"streams a worker), STREAM_MAX_SECONDS {env['STREAM_MAX_SECONDS']}, rate "
            f"limits off, engine {engine['SCOPA_ENGINE']}; think {args.think:g} s "
            f"(x 0.5-1.5); {warmup:g} s of warm-up, then {args.seconds:g} s counted; "
            f"{args.processes} generator process(es); streams held by "
            + (
                f"{len(proxies)} Pushpin(s) in front of the streams of {len(services)} instance(s)"
                if proxies
                else "the service's threads"
            )
            + "; loopback only",
            flush=True,
        )
        plan = Plan(
            tuple(s.port for s in services),
            tuple(
                (proxies or services)[i % len(proxies or services)].port
                for i in range(len(services))
            ),
            seats,
            args.think,
            warmup,
            args.seconds,
            args.target,
            args.seed,
        )
        barrier: Any = multiprocessing.Barrier(args.processes + 1)
        queue: Any = multiprocessing.Queue()
        share = [
            args.games // args.processes + (1 if i < args.games % args.processes else 0)
            for i in range(args.processes)
        ]
        procs = []
        first = 0
        for count in share:
            proc = multiprocessing.Process(
                target=_generator, args=(plan, first, count, barrier, queue)
            )
            proc.start()
            procs.append(proc)
            first += count
        masters = [s.master_pid for s in services]
        runners = [p.process.pid for p in proxies if p.process is not None]
        tally = Tally()
        try:
            barrier.wait(timeout=SETUP_SECONDS)  # every match created, every stream opened
            time.sleep(warmup)
            started = time.monotonic()
            before = [tree_cpu_seconds(pid) for pid in masters]
            proxies_before = [tree_cpu_seconds(pid) for pid in runners]
            redis_before = redis_cpu_seconds(store)
            time.sleep(args.seconds)
            elapsed = time.monotonic() - started
            instances = [tree_cpu_seconds(pid) - b for pid, b in zip(masters, before, strict=True)]
            cpu: dict[str, Any] = {
                "service": sum(instances),
                "instances": instances,
                "redis": redis_cpu_seconds(store) - redis_before,
                "proxies": [
                    tree_cpu_seconds(pid) - b
                    for pid, b in zip(runners, proxies_before, strict=True)
                ],
            }
            memory = [
                [("master", *memory_of(s.master_pid))]
                + [("worker", *memory_of(pid)) for pid in s.worker_pids()]
                for s in services
            ]
            cpu["proxy_memory"] = [
                sum(memory_of(pid)[0] for pid in [runner, *children_of(runner)])
                for runner in runners
            ]
        except Exception as exc:  # noqa: BLE001 - the generators' failure is below
            print(f"the run stopped: {exc!r}")
            elapsed, cpu, memory = 0.0, {}, []
        for _ in procs:
            with contextlib.suppress(Exception):
                tally.merge(queue.get(timeout=SETUP_SECONDS + args.seconds + 60))
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=10)
        problems = [
            line for s in services for line in s.server_errors() if '"status": 503' not in line
        ]
    if not cpu:
        print("errors: " + ", ".join(f"{k} x{v}" for k, v in tally.errors.items()))
        return 1
    print("\n".join(report(args, tally, elapsed, cpu, memory)))
    if problems:
        print(f"the service logged {len(problems)} errors (503s aside), e.g.: {problems[0]}")
    return 1 if problems or tally.errors or tally.missing else 0


if __name__ == "__main__":
    sys.exit(main())
