"""Event streams: how long they last and how many may be open at once."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, nonnegative, positive, reading, setting


@dataclass(frozen=True)
class Streams(Section):
    """Event streams

    Attributes:
        stream_keepalive_seconds: an event stream sends a `: keep-alive` comment this often (and
            rereads the log: a game that expired ends its streams within this long)
        stream_max_seconds: an event stream the service holds ends after this long (`end`,
            `reconnect`); the client reconnects with `Last-Event-ID` and misses nothing. One a GRIP
            proxy holds (`GRIP_KEY`) stays open while its client does
        stream_limit_per_address: event streams open at once per client address (its prefix:
            `ADDRESS_PREFIX_V4`/`_V6`), over every instance (0: no limit); past it, 429
        stream_limit_per_game: spectators' event streams (no seat token) open at once on one game,
            over every instance (0: no limit); past it, 429. Seats are not counted here: spectators
            never keep a game's players out
        stream_limit_per_seat: event streams open at once with one seat's token (a player's tabs and
            devices; 0: no limit); past it, 429. A stream a GRIP proxy holds counts in these
            limits for twice the keep-alive and 5 s from its opening (the service never learns when
            the proxy closes it)
        stream_limit_per_key: streams of a service key's events (`GET /v1/events`) open at once per
            key, over every instance (0: no limit); past it, 429. They count among the key's
            streams (`STREAM_LIMIT_PER_ADDRESS`) too
        streams_per_worker: event streams one worker holds at once, each on a thread of its own
            (`deploy/gunicorn.conf.py` gives each worker this many besides `GUNICORN_THREADS`); past
            it, 503 with `Retry-After`. Streams held by a GRIP proxy (`GRIP_KEY`) take no thread
        grip_key: the key a GRIP proxy in front (Pushpin: its `sig_key`) signs its requests with
            (`Grip-Sig`, HS256), 16+ characters. A stream request it signs is answered with hold
            instructions and the proxy holds the stream, however many: the service holds no
            thread, and each commit is published to the proxy once per view of the game
            (`GRIP_PUBLISH_URLS`). Requests it does not sign are streamed by the worker's threads
            (`deploy/pushpin/`, docs/deploy.md)
        grip_publish_urls: the GRIP proxies' publish endpoints (Pushpin: `http://host:5561`),
            comma-separated, each sent every commit's events and every reaction as the views of
            the game see them; set with `GRIP_KEY`
    """

    stream_keepalive_seconds: float = positive(15.0)
    stream_max_seconds: float = positive(3600.0)
    stream_limit_per_address: int = nonnegative(20)
    stream_limit_per_game: int = nonnegative(50)
    stream_limit_per_seat: int = nonnegative(4)
    stream_limit_per_key: int = nonnegative(4)
    streams_per_worker: int = nonnegative(200)
    grip_key: str = setting("", secret=True, check=reading("service.play.relay:read_grip_key"))
    grip_publish_urls: str = setting("", check=reading("service.play.relay:read_publish_urls"))
