"""/v1/games/{id}/stream: a game followed live, as server-sent events.

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

import marshmallow as ma
import orjson
from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import fields, validate

from ....engine import EventKind, Status
from ....play import GameNotFoundError, connections, hash_token, live
from ... import ratelimit
from ...context import store
from ...fields import StrictSchema
from ...problems import STORE_ERRORS, Problem, ProblemType, rate_limited
from ...seats import OPTIONAL_SEAT_AUTH, AsSeat, bearer_token
from ...seats import seat_of as seat_of_token
from ...service_keys import requesting_key
from . import answers
from .routes import NOT_FOUND, blp
from .schemas import After, EventLogSchema, GameViewSchema

log = logging.getLogger(__name__)

HUB = "scopa_live_hub"
_hub_lock = threading.Lock()
#: The Retry-After of a 503 when this process holds as many streams as it may.
FULL_RETRY_SECONDS = 5
LAST_EVENT_ID = "Last-Event-ID"
_VIEW = GameViewSchema()
_LOG = EventLogSchema()

FORMAT = """\
Server-sent events (`text/event-stream`), in this order:

1. `event: state`: the game as you see it now, exactly what `GET /v1/games/{game_id}`
   answers you (`data`: its JSON). Its `id` is the `seq` after which the log follows (the
   view's own `seq`). It carries `retry: 1000`: an EventSource reconnects 1 s after the
   stream ends.
2. Each event of the game's log from there on, as it is committed, as
   `GET /v1/games/{game_id}/events` shows it to you (your own cards in `deal` events, no
   one else's): no `event:` line (EventSource's `message`), `id: <seq>`, `data`: the
   event's JSON, `seq` included. Starting fresh, that is every event after the state;
   resuming (`Last-Event-ID` or `after`), every event after that `seq`, including those
   the state already shows.
3. A `: keep-alive` comment every 15 s (unless configured).
4. `event: end` before the service closes the stream, `data` `{"reason": "gone"}` when
   the game expired (do not reconnect: it is a 404 now); `{"reason": "revoked"}` when
   the token the stream was opened with no longer holds its seat (the seat left, and
   may be someone else's now): nothing after that point is sent, and reconnecting with
   that token is a 401; `{"reason": "aborted"}` after the game's `aborted` event (the
   service key that created it aborted it: nothing more comes; do not reconnect); or
   `{"reason": "reconnect"}` (the stream's maximum duration, an
   hour unless configured, or the server shutting down): reconnect with
   `Last-Event-ID` (EventSource does) and nothing is lost.

A finished match keeps its stream open (a rematch may follow). Streams open at once are
limited per client address (429) and per server process (503)."""

SEQ = {"type": "string", "pattern": "^-?[0-9]+$", "description": "A `seq` of the log."}


def _json(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": schema,
        "description": description,
    }


#: Each event of the stream, as an object of its SSE fields (OpenAPI 3.1 has ``schema``
#: describe each event of a ``text/event-stream``; 3.2 would call it ``itemSchema``).
STREAM_EVENT = {
    "type": "object",
    "description": "One event of the stream, by its fields as sent.",
    "oneOf": [
        {
            "title": "State",
            "properties": {
                "event": {"const": "state"},
                "id": SEQ,
                "data": _json("The game as you see it.", {"$ref": "#/components/schemas/GameView"}),
            },
            "required": ["event", "id", "data"],
        },
        {
            "title": "Logged",
            "properties": {
                # No `event:` line is sent, which an EventSource (and any SSE parser)
                # reads as the type "message": absent or "message", both are this.
                "event": {"const": "message", "description": "(No `event:` line is sent.)"},
                "id": SEQ,
                "data": _json(
                    "An event of the log, with its `seq`.", {"$ref": "#/components/schemas/Event"}
                ),
            },
            "required": ["id", "data"],
        },
        {
            "title": "End",
            "properties": {
                "event": {"const": "end"},
                "id": SEQ,
                "data": _json(
                    "Why the stream ends.",
                    {
                        "type": "object",
                        "properties": {
                            "reason": {"enum": ["gone", "revoked", "aborted", "reconnect"]}
                        },
                        "required": ["reason"],
                    },
                ),
            },
            "required": ["event", "data"],
        },
    ],
}
STREAM_RESPONSE = {
    "200": {"description": FORMAT, "content": {"text/event-stream": {"schema": STREAM_EVENT}}}
}


class StreamHeadersSchema(ma.Schema):
    last_event_id = After(
        "The `seq` of the last event you received (EventSource sends it when it "
        "reconnects): the stream resumes after it. Wins over `after`.",
        data_key=LAST_EVENT_ID,
    )


class StreamQuerySchema(StrictSchema):
    as_seat = AsSeat()
    after = After(
        "Resume after the event with this `seq` (-1: from the first event). Left out, the "
        "events after the state. A `Last-Event-ID` header wins."
    )
    access_token = fields.String(
        validate=validate.Regexp(r"^[\x21-\x7e]{1,256}$"),
        metadata={
            "description": "A seat's token, for clients that cannot send an Authorization "
            "header (a browser's EventSource): used as `Authorization: Bearer <token>` "
            "would be. Never logged."
        },
    )


@dataclass(frozen=True)
class StreamSettings:
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


@blp.route("/<string:game_id>/stream")
class GameStream(MethodView):
    @blp.arguments(StreamQuerySchema, location="query", as_kwargs=True)
    @blp.arguments(StreamHeadersSchema, location="headers", as_kwargs=True)
    @blp.documents(
        "streamGame",
        {
            401: "The token is missing, malformed, or not a seat of this game; or this game "
            "has no spectators and no token came.",
            **NOT_FOUND,
            422: "`after` or `Last-Event-ID` is not an integer from -1 on, or the token came "
            "both as `access_token` and in Authorization."
            " Or a seat named wrong by a service key (`as_seat`, `X-Seat`).",
            429: "Too many requests from this address or token, or too many streams open at "
            "once from this address (its network prefix) or service key, of this game's "
            "spectators or of this seat: `detail` says which; retry after `Retry-After` "
            "seconds.",
            503: STORE_ERRORS[503] + " Or this server holds as many streams as it may: "
            "retry after `Retry-After` seconds (or poll the event log meanwhile).",
        },
        limited=False,  # limited, and its 429 says so above: more than the usual one
        security=OPTIONAL_SEAT_AUTH,
        responses=STREAM_RESPONSE,
    )
    def get(self, game_id: str, **query: Any) -> Any:
        """Follow a game live

        Server-sent events: your view of the game now, then every event of its log as
        it happens, as you may see it. With a seat's token (in Authorization, or in
        `access_token` where a header cannot be sent), that seat's view and cards; else
        a spectator's. Reconnect with `Last-Event-ID` to miss nothing."""
        # An EventSource reconnecting keeps its first URL, and says where it got to.
        start = query.get("last_event_id", query.get("after"))
        use_query_token(query.get("access_token"))
        # Follow first, then read: every commit after the read wakes the stream.
        follower = follow(game_id)
        release = follower.close
        try:
            game = store().load(game_id)
            seat = seat_of_token(game, required=False)
            token_hash = None if requesting_key() else hash_token(str(bearer_token()))
            holder = None if seat is None else Holder(seat, token_hash)
            settings = stream_settings(game_id, seat)
            release = releaser(follower, settings)
            cursor = game.logged - 1 if start is None else start
            state = sse(_VIEW.dump(answers.view_of(game, seat)), event="state", id_=cursor)
        except BaseException:
            release()
            raise
        store().release()  # the thread waits without a connection (reads are pooled)
        response = Response(
            _stream(follower, holder, cursor, state, settings, release, game.status),
            mimetype="text/event-stream",
            headers={
                "Cache-Control": "private, no-cache, no-transform",
                "Vary": "Authorization",
                "X-Accel-Buffering": "no",  # proxies such as nginx: send each event at once
            },
        )
        # Also when the body is never read (a HEAD request): the generator's own finally
        # runs only if it started.
        response.call_on_close(release)
        return response


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
                config = current_app.config
                found = live.Hub(
                    config["REDIS_URL"],
                    store(),
                    capacity=config["STREAMS_PER_WORKER"],
                    timeout=config["REDIS_TIMEOUT_SECONDS"],
                )
                current_app.extensions[HUB] = found
    return found


def follow(game_id: str) -> live.Follower:
    try:
        return hub().follow(game_id)
    except live.HubFullError:
        raise Problem(
            503,
            ProblemType.HTTP,
            "This server holds as many event streams as it may: retry in "
            f"{FULL_RETRY_SECONDS} seconds, or poll the event log meanwhile.",
            headers={"Retry-After": str(FULL_RETRY_SECONDS)},
        ) from None


def stream_settings(game_id: str, seat: int | None) -> StreamSettings:
    """The stream's timings, and its leases: one of its address's streams (the address's
    network prefix: service/api/addresses.py; a service key's request, one of the key's
    streams, wherever it comes from), and one of its game's spectators' streams
    or of its seat's (429 saying which count is full; no lease taken when Redis fails, as
    the rate limits fail open)."""
    config = current_app.config
    keepalive = float(config["STREAM_KEEPALIVE_SECONDS"])
    spectator = seat is None
    who = ratelimit.identity()
    counts = [
        (
            who,
            int(config["STREAM_LIMIT_PER_ADDRESS"]),
            "Too many streams open at once "
            + ("for this service key" if who.startswith(ratelimit.KEY) else "from this address"),
        ),
        (
            live.holder_of(game_id, seat),
            int(config["STREAM_LIMIT_PER_GAME" if spectator else "STREAM_LIMIT_PER_SEAT"]),
            "Too many spectators follow this game at once"
            if spectator
            else "Too many streams open at once for this seat",
        ),
    ]
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
        _release_leases(held)
        raise
    return StreamSettings(keepalive, float(config["STREAM_MAX_SECONDS"]), tuple(held))


#: The reconnection delay the stream asks of EventSource clients.
RECONNECT_MILLISECONDS = 1000


def sse(data: Any, *, event: str | None = None, id_: int | None = None) -> bytes:
    """One server-sent event; ``data`` as JSON (on one line: orjson writes no newline)."""
    head = b"" if event is None else b"event: " + event.encode() + b"\n"
    if id_ is not None:
        head += b"id: %d\n" % id_
    return head + b"data: " + orjson.dumps(data) + b"\n\n"


def log_events(events: list[Any], first: int, seat: int | None) -> bytes:
    """The events of the log from position ``first`` on, as ``seat`` may see them."""
    shown = answers.events_for(events, seat, first)
    dumped = _LOG.dump({"events": shown})["events"]
    return b"".join(sse(event, id_=event["seq"]) for event in dumped)


def releaser(follower: live.Follower, settings: StreamSettings) -> Callable[[], None]:
    """What ends a stream's hold on its feed and its leases; once, however often called."""
    held = list(settings.leases)

    def release() -> None:
        follower.close()
        leases, held[:] = list(held), []
        _release_leases(leases)

    return release


def _release_leases(held: list[tuple[live.StreamLeases, str, str]]) -> None:
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
    settings: StreamSettings,
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
        # With the state, how soon an EventSource reconnects once the stream ends (its
        # default is about 3 s).
        yield b"retry: %d\n" % RECONNECT_MILLISECONDS + state
        now = time.monotonic()
        deadline = now + settings.max_seconds
        beat = now + settings.keepalive
        while True:
            try:
                read = follower.since(cursor + 1)
            except GameNotFoundError:
                reason = "gone"
                break
            except connections.ERRORS:
                read = None  # read again at the next news or keep-alive
            if read is not None and holder is not None and holder.token_hash is not None:
                if not read.holds(holder.seat, holder.token_hash):
                    reason = "revoked"
                    break
            events = [] if read is None else read.events
            if events:
                yield log_events(events, cursor + 1, seat)
                cursor += len(events)
                if any(event["type"] == EventKind.ABORTED for event in events):
                    status = Status.ABORTED
            if status is Status.ABORTED and read is not None:
                reason = "aborted"
                break
            now = time.monotonic()
            if live.stopping() or now >= deadline:
                break
            if now >= beat:
                yield b": keep-alive\n\n"
                follower.feed.refresh(settings.keepalive / 2)
                _renew(settings)
                beat = now + settings.keepalive
                continue
            follower.wait(min(beat, deadline) - now)
        yield sse({"reason": reason}, event="end")
    except Exception:  # noqa: BLE001 - logged without the URL; the stream ends
        log.exception("an event stream failed")
    finally:
        release()


def _renew(settings: StreamSettings) -> None:
    for leases, who, lease in settings.leases:
        try:
            leases.renew(who, lease)
        except connections.ERRORS:
            pass  # tried again at the next keep-alive
