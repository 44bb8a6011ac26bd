"""Event streams held by a GRIP proxy (Pushpin) in front of the service: what each commit
and each reaction publishes to it, and the channels a stream is held on.

A stream request the proxy signs (``GRIP_KEY``) is answered at once with the stream's
start and hold instructions (service/api/resources/events/grip.py); the proxy keeps the
connection, and each commit publishes its events to the proxy once per view of the game,
on that view's channel:

- ``g:<game>:<seat>:<tag>``: a seat as its token's holder sees it, or as the game's
  service key acting for it does (each its own tag), so that a seat that changes hands is
  never followed with the next holder's cards: its next holder's channel is another, and
  the step that voided the token (``Step.revoked``) ends the old one's streams;
- ``g:<game>:s:<tag>``: a spectator's view (and a service key's that names no seat);
- ``g:<game>:reactions``: the reactions seats send, to every view.

A tag is keyed with the server secret (:func:`channel`): nobody can name a channel of
theirs.

Each item of a view's channel carries the ``seq`` of its last event as its id and the
``seq`` before its first as its ``prev-id``: the proxy sends an item only to streams that
have everything before it, and for any other (a commit published out of order by two
processes, one missed while the proxy restarted) asks the service for what is missing
(the stream's ``next`` link), as it does when a stream is idle for a keep-alive period.

Pure but for the publishing itself (HTTP, to each of ``GRIP_PUBLISH_URLS``): nothing here
knows Flask; the events are rendered by the transport's ``render``. Written here rather
than with gripcontrol (Fanout's GRIP library): its publisher sends each item on its own
from a background thread through requests, which a forked worker's job would lose on
exiting, and costs more a commit than the one request this makes; pyjwt checks the
proxy's signature (service/api/resources/events/grip.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from ..engine import Event, EventKind
from .game import Game
from .steps import Step

log = logging.getLogger(__name__)

#: The shortest GRIP_KEY accepted.
MIN_KEY_LENGTH = 16
#: How long a publish may take before it is given up (the streams then recover).
PUBLISH_TIMEOUT_SECONDS = 2.0
#: What renders a stretch of a game's log for a seat (None: a spectator), from the
#: position of its first event: server-sent events, as a stream sends them.
Render = Callable[[list[Event], int, "int | None"], bytes]
#: What renders one server-sent event that is not in the log (``end``, ``reaction``).
RenderOne = Callable[..., bytes]


class Relay(Protocol):
    """What tells the streams held elsewhere of a game's changes."""

    def committed(self, step: Step) -> None: ...

    def reacted(self, game_id: str, reaction: dict[str, Any]) -> None: ...


class NoRelay:
    """No proxy holds streams: the worker's threads follow Redis (service/play/live.py)."""

    def committed(self, step: Step) -> None:
        return None

    def reacted(self, game_id: str, reaction: dict[str, Any]) -> None:
        return None


NO_RELAY = NoRelay()


def read_grip_key(value: str) -> str:
    """``GRIP_KEY``: the proxy's signing key, 16 or more characters."""
    if len(value) < MIN_KEY_LENGTH:
        raise ValueError(f"must be {MIN_KEY_LENGTH} or more characters (the proxy's sig_key)")
    return value


def read_publish_urls(value: str) -> tuple[str, ...]:
    """``GRIP_PUBLISH_URLS``: ``http(s)://host:port`` of each proxy, comma-separated."""
    urls = tuple(part.strip().rstrip("/") for part in value.split(",") if part.strip())
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s) URL (Pushpin's: http://host:5561)")
    return urls


#: The view of spectators (and of a service key that names no seat), in a channel's name.
SPECTATORS = "s"


def channel(secret: bytes, game_id: str, view: int | str, holder: str) -> str:
    """The channel of one view of a game: ``view`` a seat or :data:`SPECTATORS`;
    ``holder`` the hash of the token that holds the seat, ``"key"`` for the game's
    service key acting for it, ``""`` for spectators. Its last part is a tag keyed
    with the server secret: a name cannot be made up (the proxy's ``next`` request
    names the channel it recovers, service/api/resources/events/grip.py), and a seat's
    next holder's channel is another."""
    data = f"{game_id}\x00{view}\x00{holder}".encode()
    tag = base64.urlsafe_b64encode(hmac.new(_key(secret), data, hashlib.sha256).digest()[:16])
    return f"g:{game_id}:{view}:{tag.rstrip(b'=').decode()}"


def seat_channel(secret: bytes, game_id: str, seat: int, token_hash: str | None) -> str:
    """A seat's channel as its token's holder sees it (None: the game's service key)."""
    return channel(secret, game_id, seat, "key" if token_hash is None else token_hash)


def spectators_channel(secret: bytes, game_id: str) -> str:
    return channel(secret, game_id, SPECTATORS, "")


def reactions_channel(game_id: str) -> str:
    return f"g:{game_id}:reactions"


def parse_channel(name: str) -> tuple[str, int | str] | None:
    """The game and view a view's channel name says (its tag unchecked), or None."""
    parts = name.split(":")
    if len(parts) != 4 or parts[0] != "g":
        return None
    game_id, view = parts[1], parts[2]
    if view == SPECTATORS:
        return game_id, view
    return (game_id, int(view)) if view.isdigit() and len(view) < 3 else None


def views(secret: bytes, game: Game) -> list[tuple[str, int | None]]:
    """Every channel a stream of ``game`` may be held on now, with the seat it shows
    (None: a spectator's view)."""
    found: list[tuple[str, int | None]] = [
        (seat_channel(secret, game.id, seat, token_hash), seat)
        for seat, token_hash in enumerate(game.token_hashes)
        if token_hash is not None
    ]
    if game.owner is not None:  # its key may follow any seat, or none
        found += [
            (seat_channel(secret, game.id, seat, None), seat) for seat in range(len(game.bots))
        ]
    if game.spectators or game.owner is not None:
        found.append((spectators_channel(secret, game.id), None))
    return found


def _key(secret: bytes) -> bytes:
    return hashlib.sha256(b"grip-channel:" + secret).digest()


def aborts(events: list[Event]) -> bool:
    """Whether ``events`` hold the game's abort: every stream of it ends there."""
    return any(event["type"] == EventKind.ABORTED for event in events)


def items_of(
    step: Step, secret: bytes, render: Render, render_one: RenderOne
) -> list[dict[str, Any]]:
    """What ``step`` publishes: its events on every view's channel, as that view sees
    them, then (a game aborted) ``end`` and the close of every stream of it; and the end
    of the streams of every token it voided (``revoked``)."""
    game = step.game
    first = step.first_seq
    last, before = str(game.logged - 1), str(first - 1)
    aborted = aborts(step.events)
    ending = render_one({"reason": "aborted"}, event="end") if aborted else b""
    items: list[dict[str, Any]] = []
    if step.events:
        rendered: dict[int | None, bytes] = {}  # a seat's view, the same on each channel
        for name, seat in views(secret, game):
            if seat not in rendered:
                rendered[seat] = render(step.events, first, seat) + ending
            items.append(_item(name, last, before, rendered[seat]))
            if aborted:
                items.append(_closing(name, last))
    revoked = render_one({"reason": "revoked"}, event="end")
    for seat, token_hash in step.revoked:
        name = seat_channel(secret, game.id, seat, token_hash)
        items += [_item(name, last, before, revoked), _closing(name, last)]
    return items


def hints_of(step: Step, secret: bytes) -> list[dict[str, Any]]:
    """What ``step`` publishes where its events are not rendered (a background worker's
    commit: the format is the API's): a hint on every view's channel, without ids, which
    the proxy takes as a gap. It asks the service for what its streams miss at once, in
    a batch of up to 100 a tenth of a second (service/api/resources/events/grip.py)."""
    names = [name for name, _ in views(secret, step.game)]
    names += [seat_channel(secret, step.game.id, s, h) for s, h in step.revoked]
    return [{"channel": name, "formats": {"http-stream": {"action": "hint"}}} for name in names]


def _item(channel: str, id_: str, prev_id: str, content: bytes) -> dict[str, Any]:
    return {
        "channel": channel,
        "id": id_,
        "prev-id": prev_id,
        "formats": {"http-stream": {"content": content.decode()}},
    }


def _closing(channel: str, after: str) -> dict[str, Any]:
    return {
        "channel": channel,
        "id": after + "-end",
        "prev-id": after,
        "formats": {"http-stream": {"action": "close"}},
    }


@dataclass
class GripRelay:
    """Publishes each commit and reaction to every proxy of ``urls``, at once (before
    the command answers, so that a forked worker's job publishes before it exits), on a
    kept connection of the thread's to each (``http.client``: a publish costs 0.15 ms of
    CPU where urllib3's pool took 0.36). Never raises: a proxy that cannot be reached is
    logged (no card: only the game's id) and its streams catch up at their next check."""

    urls: Sequence[str]
    #: The server secret (SERVER_SECRET): the channels' names are keyed with it.
    secret: bytes
    #: How the events are rendered (the API's stream format); None in a background
    #: worker, which publishes hints instead (:func:`hints_of`).
    render: Render | None = None
    render_one: RenderOne | None = None
    #: Told how long each commit's publishing took, and how many proxies failed it.
    observe: Callable[[float, int], None] | None = None

    def __post_init__(self) -> None:
        self._local = threading.local()

    def committed(self, step: Step) -> None:
        if not (step.events or step.revoked):
            return
        if self.render is None or self.render_one is None:
            items = hints_of(step, self.secret)
        else:
            items = items_of(step, self.secret, self.render, self.render_one)
        self._publish(step.game.id, items)

    def reacted(self, game_id: str, reaction: dict[str, Any]) -> None:
        if self.render_one is None:
            return  # (only a request sends a reaction)
        content = self.render_one(reaction, event="reaction").decode()
        item = {
            "channel": reactions_channel(game_id),
            "formats": {"http-stream": {"content": content}},
        }
        self._publish(game_id, [item])

    def _publish(self, game_id: str, items: list[dict[str, Any]]) -> None:
        if not items:
            return
        started = time.monotonic()
        body = orjson.dumps({"items": items})
        failed = 0
        for url in self.urls:
            try:
                status = self._post(url, body)
            except (OSError, http.client.HTTPException) as error:
                self._connections().pop(url, None)
                failed += 1
                log.warning(
                    "could not publish game %s to the GRIP proxy: %s", game_id, type(error).__name__
                )
                continue
            if status >= 300:
                failed += 1
                log.warning("the GRIP proxy refused game %s's items: %d", game_id, status)
        if self.observe is not None:
            self.observe(time.monotonic() - started, failed)

    def _post(self, url: str, body: bytes) -> int:
        """POST ``body`` to ``url``'s publish endpoint; its status. A kept connection the
        proxy closed meanwhile is made again once."""
        for attempt in (0, 1):
            connections = self._connections()
            connection = connections.get(url)
            fresh = connection is None
            if connection is None:
                connection = connections[url] = _connect(url)
            try:
                connection.request("POST", "/publish/", body, PUBLISH_HEADERS)
                answer = connection.getresponse()
                answer.read()
                return answer.status
            except (ConnectionError, http.client.HTTPException):
                connection.close()
                connections.pop(url, None)
                if fresh or attempt:
                    raise
        raise AssertionError("unreachable")

    def _connections(self) -> dict[str, http.client.HTTPConnection]:
        """This thread's connections (a forked work-horse makes its own)."""
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.pid, local.connections = os.getpid(), {}
        found: dict[str, http.client.HTTPConnection] = local.connections
        return found


#: The headers of a publish.
PUBLISH_HEADERS = {"Content-Type": "application/json"}


def relay_for(
    publish_urls: str,
    secret: bytes,
    render: Render | None = None,
    render_one: RenderOne | None = None,
    observe: Callable[[float, int], None] | None = None,
) -> Relay:
    """The relay of a process: to the proxies of ``publish_urls`` (``GRIP_PUBLISH_URLS``),
    or none if it names none; rendering the events with ``render`` (the API's), else
    publishing hints (a background worker's)."""
    if not publish_urls:
        return NO_RELAY
    return GripRelay(read_publish_urls(publish_urls), secret, render, render_one, observe)


def _connect(url: str) -> http.client.HTTPConnection:
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    return kind(parts.hostname or "", parts.port, timeout=PUBLISH_TIMEOUT_SECONDS)
