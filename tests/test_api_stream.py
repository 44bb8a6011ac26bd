"""A game followed live: ``GET /v1/games/{id}/stream``, server-sent events.

In the app (Flask's test client): the state first, then every event in order, filtered
for each viewer as the event log is; resuming with Last-Event-ID or ``after``; keep-alive
comments; the stream's end; its errors and limits. Then the service as deployed (gunicorn,
two instances on one Redis): a move served by one instance and a computer player's move
made by a background worker reach a stream held by the other; SIGTERM ends streams at
once; a token sent as ``access_token`` is never logged; and 200 streams on one game see
every move of a whole match within a second while ordinary requests keep answering.
"""

from __future__ import annotations

import json
import queue
import random
import runpy
import selectors
import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from flask import Flask
from flask.testing import FlaskClient

from service.api.context import store as current_store
from service.play import keys, live
from service.play.store import Commit, parse_commit
from tests.helpers import Table, of_type
from tests.live import CARD_CODE, LiveService, Player, burst_worker

ROOT = Path(__file__).resolve().parent.parent

# -- reading server-sent events -----------------------------------------------------------


@dataclass
class Sse:
    """One server-sent event (or comment), and when it arrived."""

    event: str | None = None
    id: Any = None
    data: Any = None
    comment: str | None = None
    retry: int | None = None
    at: float = 0.0


class SseParser:
    """Splits a stream's bytes into events (blocks ending with a blank line)."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes, at: float) -> list[Sse]:
        self.buffer += data
        found = []
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            sse = Sse(at=at)
            for line in block.decode().split("\n"):
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "":
                    sse.comment = value
                elif name == "event":
                    sse.event = value
                elif name == "id":  # a game's stream: a seq; a key's: "<ms>-<n>"
                    sse.id = int(value) if value.lstrip("-").isdigit() else value
                elif name == "data":
                    sse.data = json.loads(value)
                elif name == "retry":
                    sse.retry = int(value)
                else:
                    raise AssertionError(f"not an SSE field: {line!r}")
            found.append(sse)
        return found


class AppStream:
    """A stream answered by the app, read by a thread of its own into a queue. (Only
    that thread may close it, as a server closes a stream in the thread that writes it:
    it does once asked to, at the next event or keep-alive.)"""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.queue: queue.Queue[Sse | None] = queue.Queue()
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        parser = SseParser()
        for chunk in self.response.response:
            for sse in parser.feed(chunk, time.monotonic()):
                self.queue.put(sse)
            if self.closing.is_set():
                break
        self.response.close()
        self.queue.put(None)

    def next(self, timeout: float = 5.0) -> Sse | None:
        """The next event or comment; None once the stream ended."""
        return self.queue.get(timeout=timeout)

    def events(self, until: Callable[[Sse], bool], timeout: float = 5.0) -> list[Sse]:
        """Events and comments until one for which ``until`` holds, that one included."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            sse = self.next(max(0.01, deadline - time.monotonic()))
            assert sse is not None, f"the stream ended after {seen}"
            seen.append(sse)
            if until(sse):
                return seen

    def close(self) -> None:
        self.closing.set()
        self.thread.join(5)
        assert not self.thread.is_alive(), "the stream did not close"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def upto(seq: int) -> Callable[[Sse], bool]:
    return lambda sse: sse.id is not None and sse.id >= seq and sse.event is None


def log_of(stream: list[Sse]) -> list[dict[str, Any]]:
    """The log events of a stream (not its state, comments or end)."""
    return [sse.data for sse in stream if sse.event is None and sse.comment is None]


# -- in the app -----------------------------------------------------------------------------


@pytest.fixture
def app(redis_url: str, make_app: Callable[..., Flask]) -> Iterator[Flask]:
    app = make_app(REDIS_URL=redis_url, STREAM_KEEPALIVE_SECONDS=0.3)
    yield app
    close_hub(app)


def close_hub(app: Flask) -> None:
    hub = app.extensions.get("scopa_live_hub")
    if hub is not None:
        hub.close()


@pytest.fixture
def open_stream(client: FlaskClient) -> Iterator[Callable[..., AppStream]]:
    streams: list[AppStream] = []

    def open_(url: str, headers: dict[str, str] | None = None, **kwargs: Any) -> AppStream:
        response = (kwargs.pop("on", None) or client).get(
            url, headers=headers or {}, buffered=False, **kwargs
        )
        assert response.status_code == 200, response.get_data(as_text=True)
        assert response.mimetype == "text/event-stream"
        stream = AppStream(response)
        streams.append(stream)
        return stream

    yield open_
    for stream in streams:
        stream.close()


def log_length(table: Table) -> int:
    return len(table.client.get(table.url("/events")).get_json()["events"])


def play(table: Table, rng: random.Random, moves: int) -> int:
    """Play up to ``moves`` random legal moves; the log's last seq after them."""
    turn = table.view()["turn"]
    for _ in range(moves):
        if turn is None:
            break
        move = rng.choice(table.legal_moves(turn))
        answer = table.move(turn, move["card"], move["capture"])
        assert answer.status_code == 200, answer.get_json()
        turn = answer.get_json()["state"]["turn"]
    return log_length(table) - 1


class TestTheStream:
    def test_the_state_first_then_every_event_in_order(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=11)
        stream = open_stream(table.url("/stream"))
        state = stream.next()
        assert state is not None and state.event == "state"
        assert state.data == table.view()  # exactly what GET /v1/games/{id} answers
        assert state.id == log_length(table) - 1 == state.data["seq"]  # the log follows
        assert state.retry == 1000  # an EventSource reconnects after 1 s, not its 3 s
        last = play(table, random.Random(1), 12)
        seen = stream.events(upto(last))
        expected = table.client.get(table.url("/events"), query_string={"after": state.id})
        assert log_of(seen) == expected.get_json()["events"]
        assert [sse.id for sse in seen if sse.comment is None] == list(
            range(state.id + 1, last + 1)
        )

    def test_a_whole_match_and_the_stream_stays_open_after_it(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=12, target=1)
        stream = open_stream(table.url("/stream"), query_string={"after": -1})
        assert stream.next().event == "state"  # type: ignore[union-attr]
        table.play_to_end(random.Random(2))
        last = log_length(table) - 1
        seen = stream.events(upto(last))
        assert log_of(seen) == table.client.get(table.url("/events")).get_json()["events"]
        assert log_of(seen)[-1]["type"] == "match_over"
        # Over, and still followed (a rematch may come): keep-alives, no end.
        after = stream.events(lambda sse: sse.comment is not None, timeout=2)
        assert [sse.comment for sse in after] == ["keep-alive"]

    def test_each_seat_sees_its_own_cards_and_a_spectator_none(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=13)
        viewers: list[int | None] = [0, 1, None]
        streams = {
            viewer: open_stream(
                table.url("/stream"),
                headers=table.auth(viewer) if viewer is not None else {},
                query_string={"after": -1},
            )
            for viewer in viewers
        }
        hands = {seat: set(table.view(seat)["hand"]) for seat in (0, 1)}
        last = play(table, random.Random(3), 14)  # past the second deal of the hand
        for viewer, stream in streams.items():
            seen = stream.events(upto(last))
            headers = table.auth(viewer) if viewer is not None else {}
            events = table.client.get(table.url("/events"), headers=headers).get_json()
            assert log_of(seen) == events["events"], viewer  # as the log shows this viewer
            deals = of_type(log_of(seen), "deal")
            assert len(deals) >= 2
            for deal in deals:
                assert "hands" not in deal
                assert ("cards" in deal) == (viewer is not None)
            if viewer is not None:
                assert set(deals[0]["cards"]) == hands[viewer]
                # Nothing before the first move names a card of the other seat's hand.
                first = next(i for i, e in enumerate(log_of(seen)) if e["type"] == "move")
                text = json.dumps(log_of(seen)[:first]) + json.dumps(seen[0].data)
                assert not set(re_cards(text)) & hands[1 - viewer]
            state = seen[0].data
            assert state["you"] == viewer and ("hand" in state) == (viewer is not None)

    def test_last_event_id_resumes_with_nothing_lost_and_nothing_repeated(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=14)
        rng = random.Random(4)
        first = open_stream(table.url("/stream"), query_string={"after": -1})
        last = play(table, rng, 5)
        seen = first.events(upto(last))
        cut = seen[len(seen) // 2].id  # the client got this far, then lost the stream
        assert cut is not None
        first.close()
        last = play(table, rng, 5)  # meanwhile
        # An EventSource reconnects with its first URL (after=-1) and Last-Event-ID: the
        # header wins.
        again = open_stream(
            table.url("/stream"),
            headers={"Last-Event-ID": str(cut)},
            query_string={"after": -1},
        )
        state = again.next()
        assert state is not None and state.event == "state" and state.id == cut
        resumed = again.events(upto(last))
        assert [sse.id for sse in resumed if sse.comment is None] == list(range(cut + 1, last + 1))
        # What the client got before it lost the stream, and after: the whole log, once.
        before = [event for event in log_of(seen) if event["seq"] <= cut]
        everything = table.client.get(table.url("/events")).get_json()["events"]
        assert before + log_of(resumed) == everything

    def test_after_starts_at_a_known_point(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=15)
        last = play(table, random.Random(5), 6)
        stream = open_stream(table.url("/stream"), query_string={"after": 3})
        assert stream.next().id == 3  # type: ignore[union-attr]
        seen = stream.events(upto(last))
        everything = table.client.get(table.url("/events")).get_json()["events"]
        assert log_of(seen) == everything[4:]

    def test_a_keep_alive_comment_while_nothing_happens(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=16)
        stream = open_stream(table.url("/stream"))
        stream.next()
        started = time.monotonic()
        beat = stream.next(timeout=2)
        assert beat is not None and beat.comment == "keep-alive"
        assert 0.2 < time.monotonic() - started < 1.5

    def test_a_seat_token_as_access_token(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        table.create(seed=17)
        stream = open_stream(table.url("/stream"), query_string={"access_token": table.tokens[1]})
        state = stream.next()
        assert state is not None and state.data == table.view(1)


class TestErrors:
    def problem(self, response: Any, status: int) -> dict[str, Any]:
        if response.status_code == 200:  # a stream, which would never end: close it
            AppStream(response).close()
        assert response.status_code == status
        assert response.mimetype == "application/problem+json"
        body: dict[str, Any] = response.get_json()
        assert body["status"] == status
        return body

    def test_an_unknown_game_is_a_404(self, client: FlaskClient) -> None:
        body = self.problem(client.get("/v1/games/no-such-game/stream", buffered=False), 404)
        assert body["type"] == "/problems/game-not-found"

    @pytest.mark.parametrize(
        "how",
        [
            {"headers": {"Authorization": "Bearer not-a-token"}},
            {"headers": {"Authorization": "Basic abc"}},
            {"query_string": {"access_token": "not-a-token"}},
        ],
    )
    def test_a_bad_token_is_a_401(self, table: Table, how: dict[str, Any]) -> None:
        table.create(seed=18)
        response = table.client.get(table.url("/stream"), buffered=False, **how)
        assert self.problem(response, 401)["type"] == "/problems/unauthorized"
        assert response.headers["WWW-Authenticate"] == "Bearer"

    @pytest.mark.parametrize(
        "how",
        [
            {"query_string": {"after": "x"}},
            {"query_string": {"after": -2}},
            {"query_string": {"access_token": "with space"}},
            {"headers": {"Last-Event-ID": "seven"}},
            {"headers": {"Last-Event-ID": "-5"}},
        ],
    )
    def test_a_bad_cursor_or_parameter_is_a_422(self, table: Table, how: dict[str, Any]) -> None:
        table.create(seed=19)
        response = table.client.get(table.url("/stream"), buffered=False, **how)
        assert self.problem(response, 422)["type"] == "/problems/validation"

    def test_the_token_sent_twice_is_a_422(self, table: Table) -> None:
        table.create(seed=20)
        response = table.client.get(
            table.url("/stream"),
            headers=table.auth(0),
            query_string={"access_token": "x"},
            buffered=False,
        )
        assert "access_token" in self.problem(response, 422)["errors"]


class TestTheEnd:
    def test_an_expired_game_ends_its_stream(
        self, table: Table, open_stream: Callable[..., AppStream], redis_url: str
    ) -> None:
        table.create(seed=21)
        stream = open_stream(table.url("/stream"))
        stream.next()
        with redis.Redis.from_url(redis_url) as store:
            store.delete(keys.game(table.game_id), keys.game_events(table.game_id))
        seen = stream.events(lambda sse: sse.event == "end", timeout=3)
        assert seen[-1].data == {"reason": "gone"}
        assert stream.next() is None  # closed

    def test_a_stream_ends_after_its_longest_duration(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(REDIS_URL=redis_url, STREAM_MAX_SECONDS=0.3, STREAM_KEEPALIVE_SECONDS=0.3)
        table = Table(app.test_client())
        table.create(seed=22)
        stream = AppStream(table.client.get(table.url("/stream"), buffered=False))
        try:
            seen = stream.events(lambda sse: sse.event == "end", timeout=3)
            assert [sse.event for sse in seen] == ["state", "end"]
            assert seen[-1].data == {"reason": "reconnect"}
            assert seen[-1].at - seen[0].at == pytest.approx(0.3, abs=0.2)
        finally:
            stream.close()
            close_hub(app)


class TestRevoked:
    """A seat's stream goes on only while the token it was opened with holds the seat
    (docs/rules.md is silent here: this is about who may see which cards)."""

    def test_seats_that_left_see_nothing_of_whoever_takes_them_next(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        seats = [{"name": "Ann"}, {"open": True}, {"open": True}, {"open": True}]
        created = table.create(seats=seats, spectators=False)
        code = created["join"]["code"]
        tokens = {}
        for name in ("Bea", "Cid"):
            joined = table.client.post(table.url("/join"), json={"name": name, "code": code})
            tokens[joined.get_json()["seat"]] = joined.get_json()["token"]
        assert sorted(tokens) == [1, 2]
        # Bea follows as the page does (access_token), Cid with the header.
        stale = {
            1: open_stream(table.url("/stream"), query_string={"access_token": tokens[1]}),
            2: open_stream(table.url("/stream"), headers=bearer(tokens[2])),
        }
        for stream in stale.values():
            assert stream.next().event == "state"  # type: ignore[union-attr]
        for seat, token in tokens.items():
            left = table.client.post(table.url("/leave"), headers=bearer(token))
            assert left.status_code == 204, seat
        for seat, stream in stale.items():
            seen = stream.events(lambda sse: sse.event == "end")
            assert seen[-1].data == {"reason": "revoked"}
            # Only what came while the seat was held: Cid may have seen Bea leave (if
            # his stream read the log between the two leavings); nobody saw their own
            # leaving, nor anything after it.
            held = [] if seat == 1 else [{"seq": 2, "type": "seat_left", "seat": 1}]
            assert log_of(seen[:-1]) in (held, []), seat
        # Others take the seats and the match starts: the stale streams are closed, and
        # were sent nothing of it.
        for name in ("Dan", "Eve", "Fay"):
            joined = table.client.post(table.url("/join"), json={"name": name, "code": code})
            assert joined.status_code == 200
        for stream in stale.values():
            assert stream.next() is None
        # Reconnecting with the old token is refused.
        again = table.client.get(table.url("/stream"), query_string={"access_token": tokens[1]})
        assert again.status_code == 401

    def test_a_seat_still_held_keeps_its_stream_through_others_leaving(
        self, table: Table, open_stream: Callable[..., AppStream]
    ) -> None:
        created = table.create(seats=[{"name": "Ann"}, {"open": True}, {"open": True}])
        code = created["join"]["code"]
        joined = table.client.post(table.url("/join"), json={"name": "Bea", "code": code})
        bea = joined.get_json()["token"]
        ann = open_stream(table.url("/stream"), headers=table.auth(0))
        assert ann.next().event == "state"  # type: ignore[union-attr]
        table.client.post(table.url("/leave"), headers=bearer(bea))
        for name in ("Cid", "Dan"):
            table.client.post(table.url("/join"), json={"name": name, "code": code})
        seen = ann.events(lambda sse: any(e["type"] == "deal" for e in log_of([sse])))
        assert [e["type"] for e in log_of(seen)[:3]] == ["seat_left", "seat_joined", "seat_joined"]
        deal = of_type(log_of(seen), "deal")[0]
        assert set(deal["cards"]) == set(table.view(0)["hand"])  # Ann's own cards

    def test_the_log_and_the_tokens_are_read_together(self, table: Table, app: Flask) -> None:
        created = table.create(seats=[{"name": "Ann"}, {"open": True}])
        with app.app_context():
            store = current_store()
            events, tokens = store.feed(table.game_id, 0)
            assert events == [] and tokens[1] is None and tokens[0] is not None
            code = created["join"]["code"]
            table.client.post(table.url("/join"), json={"name": "Bea", "code": code})
            events, tokens = store.feed(table.game_id, 0)
            assert events[0]["type"] == "seat_joined" and tokens[1] is not None
            game = store.load(table.game_id)
            assert tokens == game.token_hashes


class TestTheFeed:
    """A process's feed of a game takes each commit's events from the commit's message
    (service/play/live.py), and reads the log only when a message does not follow on
    from what it holds."""

    @pytest.fixture
    def messages(self, redis_url: str, table: Table) -> Iterator[Callable[[int], list[Commit]]]:
        """The game's log channel as published, parsed: ``take(n)`` waits for n more."""
        client = redis.Redis.from_url(redis_url)
        pubsub = client.pubsub()
        subscribed = False

        def take(count: int) -> list[Commit]:
            nonlocal subscribed
            if not subscribed:  # (subscribe before the first commit to watch)
                version = int(str(client.info("server")["redis_version"]).split(".")[0])
                channel = keys.game_log_channel(table.game_id)
                (pubsub.ssubscribe if version >= 7 else pubsub.subscribe)(channel)
                subscribed = True
                return []
            found: list[Commit] = []
            give_up = time.monotonic() + 10
            while len(found) < count:
                assert time.monotonic() < give_up, f"{len(found)} of {count} messages came"
                message = pubsub.get_message(timeout=1.0)
                if message is not None and message["type"] in ("message", "smessage"):
                    found.append(parse_commit(message["data"]))
            return found

        yield take
        pubsub.close()
        client.close()

    @staticmethod
    def counted(store: Any) -> list[int]:
        """The store's log reads from now on, counted (the store is the app's own)."""
        reads = [0]
        read = store.feed

        def feed(*args: Any) -> Any:
            reads[0] += 1
            return read(*args)

        store.feed = feed
        return reads

    def test_a_message_holds_what_the_commit_appended(
        self, table: Table, app: Flask, messages: Callable[[int], list[Commit]]
    ) -> None:
        table.create(seed=5)
        messages(0)
        last = play(table, random.Random(5), 3)
        commits = messages(3)
        with app.app_context():
            _, log = current_store().events(table.game_id)
            game = current_store().load(table.game_id)
        assert commits[-1].length == last + 1 == len(log)
        assert [e for c in commits for e in c.events] == log[
            commits[0].length - len(commits[0].events) :
        ]
        assert commits[-1].tokens == game.token_hashes

    def test_commits_extend_the_feed_without_reading_the_log(
        self, table: Table, app: Flask, messages: Callable[[int], list[Commit]]
    ) -> None:
        table.create(seed=6)
        messages(0)
        with app.app_context():
            store = current_store()
            feed = live.Feed(table.game_id, store)
            first = feed.since(0).events
            reads = self.counted(store)
            last = play(table, random.Random(6), 4)
            for commit in messages(4):
                feed.announce(commit)
            read = feed.since(0)
            _, log = store.events(table.game_id)
        assert reads == [0]
        assert read.events == log and len(log) == last + 1 > len(first)
        assert read.tokens == store.load(table.game_id).token_hashes

    def test_a_message_that_does_not_follow_on_has_the_log_read(
        self, table: Table, app: Flask, messages: Callable[[int], list[Commit]]
    ) -> None:
        table.create(seed=7)
        messages(0)
        with app.app_context():
            store = current_store()
            feed = live.Feed(table.game_id, store)
            feed.since(0)
            reads = self.counted(store)
            play(table, random.Random(7), 3)
            missed, second, third = messages(3)
            feed.announce(third)  # the two before it never came: read the log
            assert reads == [1]
            feed.announce(missed)  # late, and held already: nothing twice
            feed.announce(second)
            events = feed.since(0).events
            _, log = store.events(table.game_id)
        assert events == log and reads == [1]

    def test_a_game_stored_before_the_tokens_field_is_read_from_its_state(
        self, table: Table, app: Flask, redis_url: str
    ) -> None:
        table.create(seats=[{"name": "Ann"}, {"open": True}])
        with redis.Redis.from_url(redis_url) as client:
            client.hdel(keys.game(table.game_id), "t")
        with app.app_context():
            _, tokens = current_store().feed(table.game_id, 0)
            assert tokens == current_store().load(table.game_id).token_hashes


class TestLimits:
    def test_streams_at_once_per_address(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(
            REDIS_URL=redis_url, STREAM_LIMIT_PER_ADDRESS=2, STREAM_KEEPALIVE_SECONDS=0.3
        )
        table = Table(app.test_client())
        table.create(seed=23)
        streams = [
            AppStream(table.client.get(table.url("/stream"), buffered=False)) for _ in range(2)
        ]
        try:
            refused = table.client.get(table.url("/stream"), buffered=False)
            assert refused.status_code == 429
            assert refused.mimetype == "application/problem+json"
            assert refused.get_json()["type"] == "/problems/rate-limited"
            assert int(refused.headers["Retry-After"]) >= 1
            # Another address has streams of its own.
            other = table.client.get(
                table.url("/stream"), environ_base={"REMOTE_ADDR": "10.0.0.9"}, buffered=False
            )
            assert other.status_code == 200
            AppStream(other).close()
            # A stream closed gives its place back.
            streams.pop().close()
            again = table.client.get(table.url("/stream"), buffered=False)
            assert again.status_code == 200
            streams.append(AppStream(again))
        finally:
            for stream in streams:
                stream.close()
            close_hub(app)

    def test_an_ipv6_64_counts_as_one_address(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(
            REDIS_URL=redis_url, STREAM_LIMIT_PER_ADDRESS=1, STREAM_KEEPALIVE_SECONDS=0.3
        )
        table = Table(app.test_client())
        table.create(seed=27)

        def open_from(address: str) -> Any:
            return table.client.get(
                table.url("/stream"), environ_base={"REMOTE_ADDR": address}, buffered=False
            )

        stream = AppStream(open_from("2001:db8:5:6::1"))
        try:
            refused = open_from("2001:db8:5:6:abcd::2")  # same /64, another address
            assert refused.status_code == 429
            assert refused.get_json()["detail"].startswith(
                "Too many streams open at once from this address: at most 1."
            )
            other = open_from("2001:db8:5:7::1")  # the next /64
            assert other.status_code == 200
            AppStream(other).close()
        finally:
            stream.close()
            close_hub(app)

    def test_spectators_per_game_and_streams_per_seat(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """A game's spectators have a count of their own, which never keeps its players
        out; each seat has its own."""
        app = make_app(
            REDIS_URL=redis_url,
            STREAM_LIMIT_PER_GAME=2,
            STREAM_LIMIT_PER_SEAT=1,
            STREAM_KEEPALIVE_SECONDS=0.3,
        )
        table = Table(app.test_client())
        table.create(seed=28)
        other = Table(app.test_client())
        other.create(seed=29)
        streams: list[AppStream] = []

        def open_(url: str, address: str, headers: dict[str, str] | None = None) -> Any:
            return table.client.get(
                url, headers=headers, environ_base={"REMOTE_ADDR": address}, buffered=False
            )

        try:
            for n in range(2):  # from two networks: the game's count, not the address's
                answer = open_(table.url("/stream"), f"203.0.113.{n + 1}")
                assert answer.status_code == 200
                streams.append(AppStream(answer))
            full = open_(table.url("/stream"), "203.0.113.3")
            assert full.status_code == 429
            assert full.get_json()["detail"].startswith(
                "Too many spectators follow this game at once: at most 2."
            )
            assert int(full.headers["Retry-After"]) >= 1
            # The players still get theirs, one stream a seat.
            for seat in (0, 1):
                answer = open_(table.url("/stream"), "203.0.113.3", table.auth(seat))
                assert answer.status_code == 200
                streams.append(AppStream(answer))
            again = open_(table.url("/stream"), "203.0.113.4", table.auth(0))
            assert again.status_code == 429
            assert again.get_json()["detail"].startswith(
                "Too many streams open at once for this seat: at most 1."
            )
            # Another game has spectators of its own.
            answer = open_(other.url("/stream"), "203.0.113.3")
            assert answer.status_code == 200
            streams.append(AppStream(answer))
            # A spectator who leaves gives the place back.
            streams.pop(0).close()
            answer = open_(table.url("/stream"), "203.0.113.3")
            assert answer.status_code == 200
            streams.append(AppStream(answer))
        finally:
            for stream in streams:
                stream.close()
            close_hub(app)

    def test_streams_per_process(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        app = make_app(REDIS_URL=redis_url, STREAMS_PER_WORKER=1, STREAM_KEEPALIVE_SECONDS=0.3)
        table = Table(app.test_client())
        table.create(seed=24)
        stream = AppStream(table.client.get(table.url("/stream"), buffered=False))
        try:
            full = table.client.get(table.url("/stream"), buffered=False)
            assert full.status_code == 503
            assert full.mimetype == "application/problem+json"
            assert int(full.headers["Retry-After"]) >= 1
            assert table.view()  # ordinary requests are not refused
        finally:
            stream.close()
            close_hub(app)
        assert app.extensions["scopa_live_hub"].followers == 0


def test_a_head_request_holds_nothing(make_app: Callable[..., Flask], redis_url: str) -> None:
    """Its body is never read, yet it gives its place back."""
    app = make_app(REDIS_URL=redis_url, STREAM_LIMIT_PER_ADDRESS=1, STREAM_KEEPALIVE_SECONDS=0.3)
    table = Table(app.test_client())
    table.create(seed=26)
    try:
        for _ in range(2):
            response = table.client.head(table.url("/stream"))
            assert response.status_code == 200 and response.data == b""
            response.close()  # as a server does once it has sent the answer
            assert app.extensions["scopa_live_hub"].followers == 0
        AppStream(table.client.get(table.url("/stream"), buffered=False)).close()
    finally:
        close_hub(app)


def test_cross_origin(make_app: Callable[..., Flask], redis_url: str) -> None:
    """A browser app on another origin may open the stream, and resume it."""
    origin = "https://scopa.example"
    app = make_app(REDIS_URL=redis_url, CORS_ORIGINS=origin, STREAM_KEEPALIVE_SECONDS=0.3)
    table = Table(app.test_client())
    table.create(seed=25)
    preflight = table.client.options(
        table.url("/stream"),
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "authorization, last-event-id",
        },
    )
    assert preflight.headers["Access-Control-Allow-Origin"] == origin
    allowed = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "last-event-id" in allowed and "authorization" in allowed
    response = table.client.get(
        table.url("/stream"), headers={"Origin": origin, "Last-Event-ID": "0"}, buffered=False
    )
    stream = AppStream(response)
    try:
        assert response.headers["Access-Control-Allow-Origin"] == origin
        assert stream.next().event == "state"  # type: ignore[union-attr]
    finally:
        stream.close()
        close_hub(app)


def test_each_thread_of_a_worker_can_keep_its_redis_connection(
    make_app: Callable[..., Flask], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every thread gunicorn gives a worker (deploy/gunicorn.conf.py: ordinary requests
    and streams) keeps a connection of the pool; redis-py's pools hold 100 unless told."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "unused")  # (the file sets it otherwise)
    threads = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))["threads"]
    assert threads > 200
    pool = make_app(REDIS_URL=redis_url).extensions["scopa_store"].shared.connection_pool
    assert pool.max_connections >= threads + 1


def re_cards(text: str) -> list[str]:
    return [m.group(0) for m in CARD_CODE.finditer(text)]


# -- the service as deployed ---------------------------------------------------------------


class Streams:
    """Streams on live services over plain sockets, read by one thread with a selector:
    HTTP/1.0, so that the body is the events as sent (no chunked coding). Each event is
    kept with the time it arrived."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def open(self, service: LiveService, path: str, headers: dict[str, str] | None = None) -> Conn:
        sock = socket.create_connection(("127.0.0.1", service.port), timeout=10)
        lines = [f"GET {path} HTTP/1.0", "Host: 127.0.0.1"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        sock.setblocking(False)
        conn = Conn(sock)
        with self.lock:
            self.selector.register(sock, selectors.EVENT_READ, conn)
        return conn

    def _run(self) -> None:
        while self.running:
            if not self.selector.get_map():
                time.sleep(0.01)
                continue
            ready = self.selector.select(timeout=0.05)
            now = time.monotonic()
            for key, _ in ready:
                conn: Conn = key.data
                try:
                    data = conn.sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                with self.lock:
                    if data:
                        conn.receive(data, now)
                    else:
                        conn.closed = True
                        self.selector.unregister(conn.sock)
                        conn.sock.close()
                    self.changed.notify_all()

    def wait(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        with self.changed:
            assert self.changed.wait_for(predicate, timeout), f"{what}: not within {timeout} s"

    def close(self) -> None:
        """Close every stream (the reader stops first)."""
        self.running = False
        self.thread.join(5)
        for key in list(self.selector.get_map().values()):
            self.selector.unregister(key.fileobj)
            key.data.sock.close()


class Conn:
    """One stream on a socket: what came, when (the reader only keeps the bytes: they
    are parsed when read, off the reader's thread)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.head = b""
        self.status = 0
        self.chunks: list[tuple[float, bytes]] = []
        self.closed = False
        self._parser = SseParser()
        self._parsed = 0
        self._events: list[Sse] = []

    def receive(self, data: bytes, at: float) -> None:
        if not self.status:
            self.head += data
            if b"\r\n\r\n" not in self.head:
                return
            head, data = self.head.split(b"\r\n\r\n", 1)
            self.status = int(head.split()[1])
        self.chunks.append((at, data))

    @property
    def events(self) -> list[Sse]:
        chunks = self.chunks[self._parsed :]
        self._parsed += len(chunks)
        for at, data in chunks:
            self._events += self._parser.feed(data, at)
        return self._events

    def seqs(self) -> list[int]:
        return [e.id for e in self.events if e.event is None and e.id is not None]


@pytest.fixture(scope="module")
def pair(redis_server: Any) -> Iterator[tuple[LiveService, LiveService]]:
    """Two instances of the service on one Redis, streams up to a minute, keep-alives
    each second, computer players left to the background workers at once."""
    env = {
        "STREAM_MAX_SECONDS": "60",
        "STREAM_KEEPALIVE_SECONDS": "1",
        "BOT_TIME_LIMIT_SECONDS": "0.001",
    }
    with (
        LiveService(redis_server.url, **env) as first,
        LiveService(redis_server.url, **env) as second,
    ):
        yield first, second
        for service in (first, second):
            assert not service.server_errors(), "\n".join(service.server_errors()[:20])
            assert not service.card_mentions(), "\n".join(service.card_mentions()[:20])


@pytest.fixture
def streams() -> Iterator[Streams]:
    reader = Streams()
    yield reader
    reader.close()


def test_a_move_served_by_one_instance_reaches_a_stream_on_another(
    pair: tuple[LiveService, LiveService], streams: Streams
) -> None:
    first, second = pair
    player = Player(second.url)
    player.create(seed=31)
    conn = streams.open(first, f"/v1/games/{player.game_id}/stream")
    streams.wait(lambda: bool(conn.events), 10, "the state")
    assert conn.status == 200 and conn.events[0].event == "state"
    start = conn.events[0].id
    assert start is not None
    player.play_random(random.Random(6), 8)
    last = len(player.events()["events"]) - 1
    streams.wait(lambda: last in conn.seqs(), 5, "the moves")
    assert conn.seqs() == list(range(start + 1, last + 1))
    log = [e.data for e in conn.events if e.event is None and e.comment is None]
    assert log == player.events()["events"][start + 1 :]


def test_computer_players_moved_by_a_worker_reach_the_stream(
    pair: tuple[LiveService, LiveService], streams: Streams, redis_server: Any
) -> None:
    first, second = pair
    player = Player(second.url)
    bots = [{"name": "A", "bot": "expert"}, {"name": "B", "bot": "expert"}]
    player.create(seed=32, target=1, seats=bots)
    conn = streams.open(first, f"/v1/games/{player.game_id}/stream?after=-1")
    streams.wait(lambda: bool(conn.events), 10, "the state")
    burst_worker(redis_server.url)
    final = player.view()
    assert final["status"] == "finished"
    log = player.events()["events"]
    streams.wait(lambda: len(log) - 1 in conn.seqs(), 5, "the worker's moves")
    assert [e.data for e in conn.events if e.event is None and e.comment is None] == log
    assert sum(e["type"] == "move" for e in log) > 10


def test_a_token_in_the_query_is_never_logged(
    pair: tuple[LiveService, LiveService], streams: Streams
) -> None:
    first, _ = pair
    player = Player(first.url)
    player.create(seed=33)
    token = player.tokens[0]
    conn = streams.open(first, f"/v1/games/{player.game_id}/stream?access_token={token}")
    streams.wait(lambda: bool(conn.events), 10, "the state")
    assert conn.events[0].data["you"] == 0 and conn.events[0].data["hand"]
    refused = requests.get(
        f"{first.url}/v1/games/{player.game_id}/stream?access_token=wrong-{token}", timeout=10
    )
    assert refused.status_code == 401
    streams.close()  # the stream ends: its access log line is written
    path = f"/v1/games/{player.game_id}/stream"

    def logged() -> bool:
        lines = first.log_text().splitlines()
        return any(f'"path": "{path}"' in line and '"status": 200' in line for line in lines)

    give_up = time.monotonic() + 10
    while not logged():
        assert time.monotonic() < give_up, f"no access log line for the stream\n{first.log_tail()}"
        time.sleep(0.05)
    assert token not in first.log_text()


def test_a_head_request_is_answered_at_once(pair: tuple[LiveService, LiveService]) -> None:
    player = Player(pair[0].url)
    player.create(seed=36)
    started = time.monotonic()
    response = requests.head(player.url("/stream"), timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/event-stream")
    assert time.monotonic() - started < 2


def test_a_graceful_stop_ends_the_streams_at_once(redis_server: Any, streams: Streams) -> None:
    with LiveService(redis_server.url, STREAM_MAX_SECONDS="600") as service:
        player = Player(service.url)
        player.create(seed=34)
        conns = [streams.open(service, f"/v1/games/{player.game_id}/stream") for _ in range(4)]
        streams.wait(lambda: all(c.events for c in conns), 10, "the states")
        started = time.monotonic()
        assert service.stop(timeout=20) == 0
        took = time.monotonic() - started
        streams.wait(lambda: all(c.closed for c in conns), 5, "the ends")
    for conn in conns:
        assert conn.events[-1].event == "end" and conn.events[-1].data == {"reason": "reconnect"}
    assert took < 5, f"the stop took {took:.1f} s"


def rss_kib(pids: Iterable[int]) -> int:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def test_200_streams_see_every_move_of_a_match_within_a_second(
    pair: tuple[LiveService, LiveService], streams: Streams, redis_server: Any
) -> None:
    """200 streams on one game, half on each instance (a few as seats, through
    access_token), while a whole match is played through the API as fast as it answers;
    meanwhile a prober reads the game and /healthz. Every stream sees every move within
    a second of the move's answer, and every probe is answered."""
    first, second = pair
    services = (first, second)
    player = Player(first.url)
    player.create(seed=35, target=11)
    workers = [pid for service in services for pid in service.worker_pids()]
    with redis.Redis.from_url(redis_server.url) as client:
        clients_before = int(client.info("clients")["connected_clients"])
        rss_before = rss_kib(workers)
        conns = []
        for i in range(200):
            path = f"/v1/games/{player.game_id}/stream"
            if i % 50 < 2:
                path += f"?access_token={player.tokens[i % 2]}"
            conns.append(streams.open(services[i % 2], path))
        streams.wait(lambda: all(c.events for c in conns), 20, "200 states")
        assert {c.status for c in conns} == {200}
        clients_open = int(client.info("clients")["connected_clients"])
        rss_open = rss_kib(workers)

    probes: list[tuple[str, int, float]] = []
    playing = threading.Event()
    playing.set()

    def probe() -> None:
        http = requests.Session()
        urls = [s.url + p for s in services for p in ("/healthz", f"/v1/games/{player.game_id}")]
        n = 0
        while playing.is_set():
            url = urls[n % len(urls)]
            started = time.monotonic()
            status = http.get(url, timeout=10).status_code
            probes.append((url.rsplit("/", 1)[-1], status, time.monotonic() - started))
            n += 1
            time.sleep(0.02)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    answered: list[float] = []  # when each move's answer came, in order
    rng = random.Random(7)
    started = time.monotonic()
    try:
        turn = player.view()["turn"]
        while turn is not None:
            move = rng.choice(player.legal_moves(turn))
            response = player.move(turn, move["card"], move["capture"])
            assert response.status_code == 200, response.text
            answered.append(time.monotonic())
            turn = response.json()["state"]["turn"]
    finally:
        playing.clear()
        prober.join(15)
    played = time.monotonic() - started
    log = player.events()["events"]
    assert log[-1]["type"] == "match_over"
    last = len(log) - 1
    streams.wait(lambda: all(last in c.seqs() for c in conns), 10, "every stream's last event")

    moves = [e["seq"] for e in log if e["type"] == "move"]
    assert len(moves) == len(answered)
    lags = []
    for conn in conns:
        start = conn.events[0].id
        assert start is not None
        assert conn.seqs() == list(range(start + 1, last + 1))
        seen = {e.id: e.at for e in conn.events if e.event is None}
        lags += [seen[seq] - at for seq, at in zip(moves, answered, strict=True) if seq in seen]
    lags.sort()
    latencies = sorted(t for _, _, t in probes)
    print(
        f"\n{len(moves)} moves in {played:.1f} s, 200 streams: lag max {lags[-1] * 1000:.0f} ms, "
        f"p99 {lags[int(len(lags) * 0.99)] * 1000:.0f} ms, median "
        f"{statistics.median(lags) * 1000:.1f} ms; {len(probes)} probes meanwhile: "
        f"max {latencies[-1] * 1000:.0f} ms, median {statistics.median(latencies) * 1000:.1f} "
        f"ms; Redis clients {clients_before} -> {clients_open}; workers' RSS "
        f"{rss_before // 1024} -> {rss_open // 1024} MiB "
        f"({(rss_open - rss_before) / 200:.0f} KiB a stream)"
    )
    assert lags[-1] < 1.0
    assert probes and {status for _, status, _ in probes} == {200}
    assert len(probes) >= played / 0.5  # the prober was never held up for long
