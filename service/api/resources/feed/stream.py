"""A service key's events followed live, as server-sent events (``GET /v1/events``).

The stream reads the key's feed (service/play/key_feed.py): each game's events as a
spectator sees them, written there after each commit while the feed is kept. It waits
on the key's feed channel through the process's live hub (no Redis connection held
while it waits), and reads the feed from where it stands when woken. Its ids are the
feed's: a client that reconnects with ``Last-Event-ID``, on any instance, gets what it
missed, or ``missed`` if that is no longer kept.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

from flask import Response

from ....play import connections, keys, live
from ....play.key_feed import Entry, KeyFeed, older, trimmed_past
from ...context import store
from ...settings import settings
from ..events import stream as game_stream
from ..events.schemas import EventLogSchema
from ..events.stream import HEADERS, RECONNECT_MILLISECONDS, StreamTerms, sse

log = logging.getLogger(__name__)

_LOG = EventLogSchema()
#: Entries read from the feed at a time.
BATCH = 200
MISSED = (
    "Events after the place you resumed from are no longer kept (a key's events are kept "
    "from its first stream until an hour after the last, the latest 10,000): the stream "
    "goes on from the oldest kept. Read the games you follow again (GET /v1/games)."
)


def open_feed(owner: str, after: str | None) -> Response:
    """The stream of ``owner``'s events after the id ``after`` (None: from now on)."""
    watch = _watch(owner)
    release: Callable[[], None] = watch.close
    try:
        # Subscribed before the feed is read: whatever is appended after is heard.
        watch.hearing(game_stream.HEARING_SECONDS)
        config = settings()
        terms = game_stream.terms_with(
            (
                f"feed:{owner}",
                config.stream_limit_per_key,
                "Too many streams of this service key's events are open at once",
            )
        )
        release = game_stream.releaser(watch, terms)
        feed = KeyFeed(store())
        missed = after is not None and feed.missed(owner, after)
        feed.keep(owner)
        last = feed.last(owner)
        # (An id from the future, which this stream never sent, would wait for it.)
        cursor = last if after is None or older(last, after) else after
    except BaseException:
        release()
        raise
    store().release()  # the thread waits without a connection (reads are pooled)
    body = _stream(owner, feed, watch, cursor, missed, terms, release)
    response = Response(body, mimetype="text/event-stream", headers=HEADERS)
    response.call_on_close(release)
    return response


def _watch(owner: str) -> live.Watch:
    try:
        return game_stream.hub().watch(keys.key_feed_channel(owner))
    except live.HubFullError:
        raise game_stream.full() from None


def _stream(
    owner: str,
    feed: KeyFeed,
    watch: live.Watch,
    cursor: str,
    missed: bool,
    terms: StreamTerms,
    release: Callable[[], None],
) -> Iterator[bytes]:
    """The stream's body: where it starts, ``missed`` if so, each entry after ``cursor``
    as it comes, a keep-alive comment when due (the feed kept on, the leases renewed),
    and ``end``. Never raises: whatever fails ends the stream, and the client
    reconnects with Last-Event-ID."""
    try:
        yield b"retry: %d\n" % RECONNECT_MILLISECONDS + sse(
            {"after": cursor}, event="open", id_=cursor
        )
        if missed:
            yield sse({"detail": MISSED}, event="missed")
        now = time.monotonic()
        deadline = now + terms.max_seconds
        beat = now + terms.keepalive
        while True:
            watch.clear()
            try:
                read = feed.read(owner, cursor, BATCH)
            except connections.ERRORS:
                read = None  # read again at the next news or keep-alive
            if read is not None:
                if trimmed_past(read.trimmed, cursor):
                    yield sse({"detail": MISSED}, event="missed")
                if read.entries:
                    yield _entries(read.entries)
                    cursor = read.entries[-1].id
                    if len(read.entries) == BATCH:
                        continue  # more to read at once
            now = time.monotonic()
            if live.stopping() or now >= deadline:
                break
            if now >= beat:
                yield b": keep-alive\n\n"
                _keep_alive(owner, feed, terms)
                beat = now + terms.keepalive
                continue
            watch.wait(min(beat, deadline) - now)
        yield sse({"reason": "reconnect"}, event="end")
    except Exception:  # noqa: BLE001 - logged; the stream ends
        log.exception("a key's event stream failed")
    finally:
        release()


def _entries(entries: list[Entry]) -> bytes:
    """The feed's entries as events, each game's event as its log shows it to spectators."""
    shown = _LOG.dump({"events": [e.event for e in entries]})["events"]
    return b"".join(
        sse({"game_id": e.game_id, "event": event}, id_=e.id)
        for e, event in zip(entries, shown, strict=True)
    )


def _keep_alive(owner: str, feed: KeyFeed, terms: StreamTerms) -> None:
    try:
        feed.keep(owner)
    except connections.ERRORS:
        pass  # tried again at the next keep-alive
    game_stream.renew(terms)
