"""A game's stream held by a GRIP proxy (Pushpin) in front of the service.

When the proxy forwards a stream request it signs it (``Grip-Sig``, with ``GRIP_KEY``).
The service then answers at once, as the stream would start (``retry``, the ``state``,
the events asked for after ``Last-Event-ID``), with instructions to hold the connection
on the viewer's channel (service/play/relay.py), a keep-alive comment, and a ``next``
link: the proxy asks it for what a stream missed, and at least once a keep-alive period,
so that a stream still ends when its token no longer holds its seat (``revoked``), its
game is gone (``gone``), aborted, or the stream is ``STREAM_MAX_SECONDS`` old
(``reconnect``), and its leases are renewed. No thread waits: the commits are published
to the proxy as they happen (``Context.relay``).

The link is the proxy's alone: it carries what the stream was opened with, signed with
the server secret, so that a client cannot ask it for another seat's view.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from typing import Any

import jwt
import orjson
from flask import Blueprint, Response, abort, request

from ....engine import EventKind, Status
from ....play import GameNotFoundError, live, relay
from ...context import server_secret, store
from ...settings import settings
from . import stream as streaming

#: The proxy's header with its signature, and the one that says what a stream has seen.
GRIP_SIG = "Grip-Sig"
GRIP_LAST = "Grip-Last"
NEXT = "/grip/next/"
blp = Blueprint("grip", __name__)


def proxied() -> bool:
    """The request came through the GRIP proxy: its ``Grip-Sig`` verifies with
    ``GRIP_KEY`` and has not expired."""
    key = settings().grip_key
    token = request.headers.get(GRIP_SIG)
    if not key or not token:
        return False
    try:
        jwt.decode(token, key, algorithms=["HS256"], options={"require": ["exp"]})
    except jwt.PyJWTError:
        return False
    return True


def relay_of(config: Any) -> relay.Relay:
    """The process's relay: the proxies of ``GRIP_PUBLISH_URLS``, or none."""
    if not config.grip_publish_urls:
        return relay.NO_RELAY
    urls = relay.read_publish_urls(config.grip_publish_urls)
    return relay.GripRelay(urls, streaming.log_events, streaming.sse)


def hold_stream(game_id: str, start: int | None) -> Response:
    """The start of a stream the proxy holds: what :func:`streaming.open_stream` sends
    first, and the instructions to hold it."""
    game = store().load(game_id)
    seat, holder = streaming.viewer(game)
    terms = streaming.stream_terms(game_id, seat)
    try:
        cursor = game.logged - 1 if start is None else start
        link = _Link(game_id, seat, holder, terms, time.time() + terms.max_seconds)
        return _answer(link, game, cursor, streaming.opening(game, seat, cursor))
    except BaseException:
        streaming.release_leases(list(terms.leases))
        raise


@blp.get(NEXT + "<string:signed>")
def next_part(signed: str) -> Response:
    """The proxy's ``next`` request: what the stream missed since the last event it has,
    and its hold again; or its end."""
    link = _Link.read(signed) if proxied() else None
    if link is None:
        abort(404)
    cursor = _last_seen(link)
    try:
        game = store().load(link.game_id)
    except GameNotFoundError:
        return _end(link, "gone")
    if link.holder is not None and link.holder.token_hash is not None:
        hashes = game.token_hashes
        held = hashes[link.holder.seat] if link.holder.seat < len(hashes) else None
        if held is None or not hmac.compare_digest(
            relay.holder_part(held), relay.holder_part(link.holder.token_hash)
        ):
            return _end(link, "revoked")
    if time.time() >= link.deadline:
        return _end(link, "reconnect")
    streaming.renew(link.terms)
    return _answer(link, game, min(cursor, game.logged - 1), b"")


def _answer(link: _Link, game: Any, cursor: int, head: bytes) -> Response:
    """``head``, the events of ``game``'s log after ``cursor`` as the link's viewer sees
    them, then its hold; the end instead of the hold if the game was aborted."""
    body = head
    seat = link.seat
    aborted = game.status is Status.ABORTED
    if cursor < game.logged - 1:
        _, events = store().events(game.id, cursor + 1)
        events = events[: game.logged - cursor - 1]  # (those of the game as loaded)
        body += streaming.log_events(events, cursor + 1, seat)
        aborted = aborted or any(event["type"] == EventKind.ABORTED for event in events)
        cursor = game.logged - 1
    if aborted:
        body += streaming.sse({"reason": "aborted"}, event="end")
        return Response(body, mimetype="text/event-stream", headers=streaming.HEADERS)
    channel = _channel(link)
    keepalive = link.terms.keepalive
    headers = {
        **streaming.HEADERS,
        "Grip-Hold": "stream",
        "Grip-Channel": f"{channel}; prev-id={cursor}, {relay.reactions_channel(link.game_id)}",
        "Grip-Keep-Alive": f": keep-alive\\n\\n; format=cstring; timeout={_seconds(keepalive)}",
        "Grip-Link": f"<{NEXT}{link.signed(cursor)}>; rel=next; timeout={_seconds(keepalive)}",
    }
    return Response(body, mimetype="text/event-stream", headers=headers)


def _end(link: _Link, reason: str) -> Response:
    """The stream's last part: ``end``, and no hold (the proxy closes it)."""
    streaming.release_leases(list(link.terms.leases))
    return Response(
        streaming.sse({"reason": reason}, event="end"),
        mimetype="text/event-stream",
        headers=streaming.HEADERS,
    )


def _channel(link: _Link) -> str:
    if link.seat is None:
        return relay.spectators_channel(link.game_id)
    token_hash = None if link.holder is None else link.holder.token_hash
    return relay.seat_channel(link.game_id, link.seat, token_hash)


def _last_seen(link: _Link) -> int:
    """The ``seq`` of the last event the stream has: what the proxy says of the link's
    channel (``Grip-Last: <channel>; last-id=<seq>``), else the link's own."""
    channel = _channel(link)
    for part in request.headers.get(GRIP_LAST, "").split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() != channel:
            continue
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "last-id" and value.lstrip("-").isdigit():
                return max(int(value), -1)
    return link.cursor


def _seconds(value: float) -> int:
    return max(1, round(value))


class _Link:
    """What a held stream was opened for, as its ``next`` link carries it: its game,
    seat and token's hash (None: a spectator, or a service key acting for the seat),
    its leases, and when it ends."""

    def __init__(
        self,
        game_id: str,
        seat: int | None,
        holder: streaming.Holder | None,
        terms: streaming.StreamTerms,
        deadline: float,
        cursor: int = -1,
    ) -> None:
        self.game_id, self.seat, self.holder = game_id, seat, holder
        self.terms, self.deadline, self.cursor = terms, deadline, cursor

    def signed(self, cursor: int) -> str:
        # (Of a token's hash, only the part its channel's name holds: enough to tell
        # holders apart, and a URL the proxy and access logs may show.)
        holder = None
        if self.holder is not None:
            token_hash = self.holder.token_hash
            holder = [
                self.holder.seat,
                None if token_hash is None else relay.holder_part(token_hash),
            ]
        leases = [[who, lease] for _, who, lease in self.terms.leases]
        payload = orjson.dumps(
            [
                self.game_id,
                self.seat,
                holder,
                leases,
                round(self.deadline),
                cursor,
                self.terms.keepalive,
                self.terms.max_seconds,
            ]
        )
        data = base64.urlsafe_b64encode(payload).rstrip(b"=")
        return (data + b"." + _mac(data)).decode()

    @classmethod
    def read(cls, signed: str) -> _Link | None:
        data, _, mac = signed.encode().partition(b".")
        if not hmac.compare_digest(mac, _mac(data)):
            return None
        try:
            fields = orjson.loads(base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4)))
            game_id, seat, holder, leases, deadline, cursor, keepalive, max_seconds = fields
        except (ValueError, TypeError):
            return None
        held = streaming.StreamTerms(
            keepalive,
            max_seconds,
            tuple(
                (live.StreamLeases(store(), 2 * keepalive + 5), who, lease) for who, lease in leases
            ),
        )
        person = None if holder is None else streaming.Holder(holder[0], holder[1])
        return cls(game_id, seat, person, held, deadline, cursor)


def _mac(data: bytes) -> bytes:
    key = hashlib.sha256(b"grip-next:" + server_secret()).digest()
    return base64.urlsafe_b64encode(hmac.new(key, data, hashlib.sha256).digest()).rstrip(b"=")
