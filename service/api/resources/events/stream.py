"""A game followed live, as server-sent events (``GET /v1/games/{id}/stream``).

The stream opens with the viewer's state (what ``GET /v1/games/{id}`` answers), then
sends every event of the game's log as it is committed, filtered for the viewer as
``GET /v1/games/{id}/events`` filters it. Each SSE ``id`` is an event's ``seq``, so a
client that reconnects with ``Last-Event-ID`` (EventSource does) gets exactly what it
missed. How a commit reaches the streams of every process: :mod:`service.play.live`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from flask import Response, current_app, request

from ....engine import Status
from ....play import Game, GameNotFoundError, connections, hash_token, live, relay
from ... import observability, ratelimit
from ...context import store
from ...game_views.answers import events_for, view_of
from ...game_views.schemas import GameViewSchema
from ...problems import Problem, ProblemType, rate_limited
from ...seats import bearer_token
from ...seats import seat_of as seat_of_token
from ...service_keys import requesting_key
from ...settings import settings
from .schemas import EventLogSchema

log = logging.getLogger(__name__)

HUB = "scopa_live_hub"
_hub_lock = threading.Lock()
#: The Retry-After of a 503 when this process holds as many streams as it may.
FULL_RETRY_SECONDS = 5
#: The longest a stream that is the first on its game in this process waits, before its
#: state, for Redis to confirm the game's reactions channel (usually a few milliseconds).
HEARING_SECONDS = 1.0
_VIEW = GameViewSchema()
_LOG = EventLogSchema()
#: The headers of a stream's answer.
HEADERS = {
    "Cache-Control": "private, no-cache, no-transform",
    "Vary": "Authorization",
    "X-Accel-Buffering": "no",  # proxies such as nginx: send each event at once
}


@dataclass(frozen=True)
class StreamTerms:
    """A stream's timings (``STREAM_KEEPALIVE_SECONDS``, ``STREAM_MAX_SECONDS``) and the
    leases it holds."""

    keepalive: float
    max_seconds: float
    #: The stream's leases, one on each count it is held to (its address's streams, its
    #: game's spectators or its seat's streams): (the leases, whose count, the lease).
    leases: tuple[tuple[live.StreamLeases, str, str], ...] = ()


@dataclass(frozen=True)
class Holder:
    """The seat a stream was opened for, and the hash of the token it was opened with:
    the stream goes on only while that token holds that seat. None for a service key
    acting for the seat (``as_seat``): the key holds every seat of its games."""

    seat: int
    token_hash: str | None


def open_stream(game_id: str, start: int | None) -> Response:
    """The stream of ``game_id`` for the request's viewer, after the event ``start`` (None:
    after the state it opens with)."""
    # Follow first, then read: every commit after the read wakes the stream.
    follower = follow(game_id)
    release = follower.close
    try:
        # Reactions are only published: one sent once the state is out must be heard.
        follower.hearing(HEARING_SECONDS)
        game = store().load(game_id)
        seat, holder = viewer(game)
        terms = stream_terms(game_id, seat)
        release = releaser(follower, terms)
        cursor = game.logged - 1 if start is None else start
        state = opening(game, seat, cursor)
    except BaseException:
        release()
        raise
    store().release()  # the thread waits without a connection (reads are pooled)
    body = _stream(follower, holder, cursor, state, terms, release, game.status)
    response = Response(body, mimetype="text/event-stream", headers=HEADERS)
    # Also when the body is never read (a HEAD request): the generator's own finally
    # runs only if it started.
    response.call_on_close(release)
    return response


def viewer(game: Game) -> tuple[int | None, Holder | None]:
    """The seat the request's stream shows (None: a spectator's view), and who holds it
    (None for a spectator)."""
    seat = seat_of_token(game, required=False)
    token_hash = None if requesting_key() else hash_token(str(bearer_token()))
    return seat, None if seat is None else Holder(seat, token_hash)


def opening(game: Game, seat: int | None, cursor: int) -> bytes:
    """What a stream sends first: how soon an EventSource reconnects once it ends (its
    default is about 3 s), then the viewer's state, whose ``id`` is ``cursor``."""
    view = _VIEW.dump(view_of(game, seat))
    return b"retry: %d\n" % RECONNECT_MILLISECONDS + sse(view, event="state", id_=cursor)


def use_query_token(token: str | None) -> None:
    """Read ``access_token`` as the request's bearer token, so that the seat is found
    the one way every operation finds it (:func:`service.api.seats.seat_of`)."""
    if token is None:
        return
    if "Authorization" in request.headers:
        raise Problem(
            422,
            ProblemType.VALIDATION,
            "Send the seat's token once: in Authorization or in access_token, not both.",
            errors={"access_token": ["Sent with an Authorization header."]},
        )
    request.environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"


def hub() -> live.Hub:
    """This process's subscriber, made on first use (in the worker, after the fork)."""
    found: live.Hub | None = current_app.extensions.get(HUB)
    if found is None:
        with _hub_lock:
            found = current_app.extensions.get(HUB)
            if found is None:
                config = settings()
                found = live.Hub(
                    config.redis_url,
                    store(),
                    capacity=config.streams_per_worker,
                    timeout=config.redis_timeout_seconds,
                )
                current_app.extensions[HUB] = found
    return found


def follow(game_id: str) -> live.Follower:
    try:
        return hub().follow(game_id)
    except live.HubFullError:
        raise full() from None


def full() -> Problem:
    """The 503 of a stream this process cannot hold (``STREAMS_PER_WORKER``)."""
    return Problem(
        503,
        ProblemType.HTTP,
        "This server holds as many event streams as it may: retry in "
        f"{FULL_RETRY_SECONDS} seconds, or poll the event log meanwhile.",
        headers={"Retry-After": str(FULL_RETRY_SECONDS)},
    )


def stream_terms(game_id: str, seat: int | None) -> StreamTerms:
    """The stream's timings, and its leases: one of its address's streams (the address's
    network prefix: service/api/addresses.py; a service key's request, one of the key's
    streams, wherever it comes from), and one of its game's spectators' streams
    or of its seat's (429 saying which count is full; no lease taken when Redis fails, as
    the rate limits fail open)."""
    config = settings()
    spectator = seat is None
    return terms_with(
        (
            live.holder_of(game_id, seat),
            config.stream_limit_per_game if spectator else config.stream_limit_per_seat,
            "Too many spectators follow this game at once"
            if spectator
            else "Too many streams open at once for this seat",
        )
    )


def terms_with(*counts: tuple[str, int, str]) -> StreamTerms:
    """The stream's timings, and its leases: one of its address's streams (a service
    key's request: one of the key's), then one on each of ``counts`` (whose count, its
    limit, what its 429 says), as :func:`stream_terms` says."""
    config = settings()
    keepalive = config.stream_keepalive_seconds
    who = ratelimit.identity()
    counts = (
        (
            who,
            config.stream_limit_per_address,
            "Too many streams open at once "
            + ("for this service key" if who.startswith(ratelimit.KEY) else "from this address"),
        ),
        *counts,
    )
    # A lease is renewed at each keep-alive: it outlives two that went missing.
    leases = live.StreamLeases(store(), 2 * keepalive + 5)
    held: list[tuple[live.StreamLeases, str, str]] = []
    try:
        for who, limit, too_many in counts:
            if not limit:
                continue
            lease = leases.take(who, limit)
            if lease is None:
                raise rate_limited(
                    f"{too_many}: at most {limit}. Close one, or retry after "
                    f"{FULL_RETRY_SECONDS} seconds.",
                    FULL_RETRY_SECONDS,
                )
            held.append((leases, who, lease))
    except connections.ERRORS:
        pass  # fail open, with the leases taken so far
    except BaseException:
        release_leases(held)
        raise
    return StreamTerms(keepalive, config.stream_max_seconds, tuple(held))


#: The reconnection delay the stream asks of EventSource clients.
RECONNECT_MILLISECONDS = 1000


def sse(data: Any, *, event: str | None = None, id_: int | str | None = None) -> bytes:
    """One server-sent event; ``data`` as JSON (on one line: orjson writes no newline)."""
    head = b"" if event is None else b"event: " + event.encode() + b"\n"
    if id_ is not None:
        head += b"id: " + str(id_).encode() + b"\n"
    return head + b"data: " + orjson.dumps(data) + b"\n\n"


def log_events(events: list[Any], first: int, seat: int | None) -> bytes:
    """The events of the log from position ``first`` on, as ``seat`` may see them."""
    shown = events_for(events, seat, first)
    dumped = _LOG.dump({"events": shown})["events"]
    return b"".join(sse(event, id_=event["seq"]) for event in dumped)


def releaser(follower: live.Follower | live.Watch, terms: StreamTerms) -> Callable[[], None]:
    """What ends a stream's hold on its feed (or its watch) and its leases; once, however
    often called."""
    held = list(terms.leases)
    open_ = [True]
    observability.STREAMS_OPEN.inc()

    def release() -> None:
        follower.close()
        leases, held[:] = list(held), []
        release_leases(leases)
        if open_:  # (counted once)
            open_.clear()
            observability.STREAMS_OPEN.dec()

    return release


def release_leases(held: list[tuple[live.StreamLeases, str, str]]) -> None:
    for leases, who, lease in held:
        try:
            leases.release(who, lease)
        except connections.ERRORS:
            pass  # it expires by itself


def _stream(
    follower: live.Follower,
    holder: Holder | None,
    cursor: int,
    state: bytes,
    terms: StreamTerms,
    release: Callable[[], None],
    status: Status = Status.PLAYING,
) -> Iterator[bytes]:
    """The stream's body: the state, then each event after ``cursor`` as it comes, a
    keep-alive comment when due, and ``end``. A seat's stream checks, with each read of
    the log, that its token still holds its seat (a seat that left, and whoever takes it
    next, would otherwise be followed with the new holder's cards): once it does not,
    nothing more is sent but ``end`` (revoked). A game aborted (``status``, as the
    stream opened, or its ``aborted`` event) ends it once its log is sent. Never
    raises (whatever fails ends the stream, and the client reconnects): an error here
    would reach the server's log with the URL, and the URL may hold a token."""
    reason = "reconnect"
    seat = None if holder is None else holder.seat
    try:
        yield state
        now = time.monotonic()
        deadline = now + terms.max_seconds
        beat = now + terms.keepalive
        while True:
            try:
                read = follower.since(cursor + 1)
            except GameNotFoundError:
                reason = "gone"
                break
            except connections.ERRORS:
                read = None  # read again at the next news or keep-alive
            if read is not None:
                if _revoked(read, holder):
                    reason = "revoked"
                    break
                chunks, cursor, aborted = _news(read, cursor, seat)
                yield from chunks
                if aborted or status is Status.ABORTED:
                    reason = "aborted"
                    break
            now = time.monotonic()
            if live.stopping() or now >= deadline:
                break
            if now >= beat:
                yield b": keep-alive\n\n"
                _keep_alive(follower, terms)
                beat = now + terms.keepalive
                continue
            follower.wait(min(beat, deadline) - now)
        yield sse({"reason": reason}, event="end")
    except Exception:  # noqa: BLE001 - logged without the URL; the stream ends
        log.exception("an event stream failed")
    finally:
        release()


def _revoked(read: live.Read, holder: Holder | None) -> bool:
    """The token a seat's stream was opened with no longer holds its seat."""
    if holder is None or holder.token_hash is None:
        return False
    return not read.holds(holder.seat, holder.token_hash)


def _news(read: live.Read, cursor: int, seat: int | None) -> tuple[list[bytes], int, bool]:
    """What a read of the log sends (the events after ``cursor``, then the reactions);
    the ``seq`` of the last event sent; whether the game was aborted."""
    chunks = []
    aborted = False
    if read.events:
        chunks.append(log_events(read.events, cursor + 1, seat))
        cursor += len(read.events)
        aborted = relay.aborts(read.events)
    if read.reactions:
        chunks.append(b"".join(sse(reaction, event="reaction") for reaction in read.reactions))
    return chunks, cursor, aborted


def _keep_alive(follower: live.Follower, terms: StreamTerms) -> None:
    """At each keep-alive: the feed is checked again, and the stream's leases renewed."""
    follower.feed.refresh(terms.keepalive / 2)
    renew(terms)


def renew(terms: StreamTerms) -> None:
    for leases, who, lease in terms.leases:
        try:
            leases.renew(who, lease)
        except connections.ERRORS:
            pass  # tried again at the next keep-alive
