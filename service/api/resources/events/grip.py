"""A game's stream held by a GRIP proxy (Pushpin) in front of the service.

When the proxy forwards a stream request it signs it (``Grip-Sig``, with ``GRIP_KEY``).
The service then answers at once, as the stream would start (``retry``, the ``state``,
the events asked for after ``Last-Event-ID``), with instructions to hold the connection
on the viewer's channel (service/play/relay.py) and its game's reactions' channel, a
keep-alive comment, and a ``next`` link. No thread waits: the commits are published to
the proxy as they happen (``Context.relay``).

The proxy requests the ``next`` link (:data:`NEXT`, the same for every stream, so that
the proxy asks for many streams at once) with the last event each stream has
(``Grip-Last``): when a stream first subscribes, when an item does not follow on from
what it has (a publish missed), and every 4 to 6 keep-alives (:data:`CHECK_KEEPALIVES`). The
answer sends what it missed and holds it again, or ends it: its token no longer holds
its seat (``revoked``), its game is gone (``gone``) or aborted. The channel's name says
whose view it is, and a channel's tag cannot be made up: nobody gets a view through a
``Grip-Last`` of their own.

What a stream the proxy holds does not have: an end after ``STREAM_MAX_SECONDS`` (the
service holds nothing: the proxy keeps it while its client stays), and a count of the
streams open at once: the service never learns when the proxy closes one, so each stream
counts in ``STREAM_LIMIT_PER_*`` for the time a lease lasts, twice the keep-alive and 5 s,
from its opening.
"""

from __future__ import annotations

import hmac
import random
from typing import Any

import jwt
from flask import Blueprint, Response, abort, request

from ....engine import Status
from ....play import Game, GameNotFoundError, relay
from ... import observability
from ...context import server_secret, store
from ...settings import settings
from . import stream as streaming

#: The proxy's header with its signature, and the one that says what a stream has seen.
GRIP_SIG = "Grip-Sig"
GRIP_LAST = "Grip-Last"
#: The link the proxy asks what a stream missed at (outside the API's spec: the proxy's).
NEXT = "/grip/next"
#: A stream the proxy holds is checked (its seat, its game) every so many keep-alives,
#: drawn for each answer from this range, besides whenever it misses an item. The proxy
#: checks together every stream whose link and period are the same: periods spread over
#: the range spread the checks over time (one period for all: 5,000 streams checked in
#: the same second, every minute).
CHECK_KEEPALIVES = (4.0, 6.0)
#: A game's commits are published for this many keep-alives after a stream of it opened
#: or was last checked (``GameStore.follow``): past two checks, so that a game nobody
#: follows costs its commits no publishing.
FOLLOWED_KEEPALIVES = 13
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
    return relay.relay_for(
        config.grip_publish_urls,
        config.server_secret.encode(),
        streaming.log_events,
        streaming.sse,
        observability.publish_observed,
    )


def hold_stream(game_id: str, start: int | None) -> Response:
    """The start of a stream the proxy holds: what :func:`streaming.open_stream` sends
    first, and the instructions to hold it."""
    store().follow(game_id, FOLLOWED_KEEPALIVES * _keepalive())  # (before it is read)
    game = store().load(game_id)
    seat, holder = streaming.viewer(game)
    streaming.stream_terms(game_id, seat)  # its leases: they expire by themselves
    cursor = game.logged - 1 if start is None else start
    secret = server_secret()
    if seat is None:
        name = relay.spectators_channel(secret, game_id)
    else:
        token_hash = None if holder is None else holder.token_hash
        name = relay.seat_channel(secret, game_id, seat, token_hash)
    return _answer(game, name, seat, cursor, streaming.opening(game, seat, cursor))


@blp.get(NEXT)
def next_part() -> Response:
    """The proxy's ``next`` request: what the stream missed since the last event it has,
    and its hold again; or its end."""
    found = _last_seen() if proxied() else None
    if found is None:
        abort(404)
    name, cursor = found
    game_id, view = relay.parse_channel(name) or ("", "")
    try:
        store().follow(game_id, FOLLOWED_KEEPALIVES * _keepalive())
        game = store().load(game_id)
    except GameNotFoundError:
        return _end("gone", checked=True)
    if not _holds(game, view, name):
        return _end("revoked", checked=True)
    seat = view if isinstance(view, int) else None
    return _answer(game, name, seat, min(cursor, game.logged - 1), b"", checked=True)


def _holds(game: Game, view: int | str, name: str) -> bool:
    """Whether the channel ``name`` is still one of the game's views: its spectators'
    (while it has any), its seat's holder's or, for a game of a service key, the key's
    for that seat; not for a token that left its seat, nor a made-up name."""
    secret = server_secret()
    if view == relay.SPECTATORS:
        allowed = game.spectators or game.owner is not None
        return allowed and hmac.compare_digest(name, relay.spectators_channel(secret, game.id))
    if not isinstance(view, int) or view >= len(game.token_hashes):
        return False
    holders = [game.token_hashes[view]] if game.token_hashes[view] is not None else []
    holders += [None] if game.owner is not None else []  # (the key's)
    return any(
        hmac.compare_digest(name, relay.seat_channel(secret, game.id, view, holder))
        for holder in holders
    )


def _answer(
    game: Game, name: str, seat: int | None, cursor: int, head: bytes, *, checked: bool = False
) -> Response:
    """``head``, the events of ``game``'s log after ``cursor`` as ``seat`` sees them, then
    the hold on channel ``name``; the end instead of the hold if the game was aborted.
    ``checked``: the answer to a check (counted)."""
    body = head
    aborted = game.status is Status.ABORTED
    if cursor < game.logged - 1:
        _, events = store().events(game.id, cursor + 1)
        events = events[: game.logged - cursor - 1]  # (those of the game as loaded)
        body += streaming.log_events(events, cursor + 1, seat)
        aborted = aborted or relay.aborts(events)
        if checked:
            observability.STREAM_RECOVERED.inc(len(events))
        cursor = game.logged - 1
    if aborted:
        return _end("aborted", body, checked=checked)
    if checked:
        observability.STREAM_CHECKS.labels("held").inc()
    keepalive = _keepalive()
    headers = {
        **streaming.HEADERS,
        "Grip-Hold": "stream",
        "Grip-Channel": f"{name}; prev-id={cursor}, {relay.reactions_channel(game.id)}",
        "Grip-Keep-Alive": f": keep-alive\\n\\n; format=cstring; timeout={keepalive}",
        "Grip-Link": f"<{NEXT}>; rel=next; timeout={_check_period(keepalive)}",
    }
    return Response(body, mimetype="text/event-stream", headers=headers)


def _keepalive() -> int:
    return max(1, round(settings().stream_keepalive_seconds))


def _check_period(keepalive: int) -> int:
    """Seconds until the proxy checks a stream again, a random whole number within
    :data:`CHECK_KEEPALIVES` keep-alives."""
    low, high = (round(keepalive * n) for n in CHECK_KEEPALIVES)
    return random.randint(low, max(low, high))  # noqa: S311 - a spread, not a secret


def _end(reason: str, body: bytes = b"", *, checked: bool = False) -> Response:
    """The stream's last part: ``end``, and no hold (the proxy closes it)."""
    if checked:
        observability.STREAM_CHECKS.labels(reason).inc()
    return Response(
        body + streaming.sse({"reason": reason}, event="end"),
        mimetype="text/event-stream",
        headers=streaming.HEADERS,
    )


def _last_seen() -> tuple[str, int] | None:
    """The view's channel the proxy asks about and the ``seq`` of the last event its
    stream has (``Grip-Last: <channel>; last-id=<seq>, ...``); None if it names none."""
    for part in request.headers.get(GRIP_LAST, "").split(","):
        name, _, params = part.strip().partition(";")
        name = name.strip()
        if relay.parse_channel(name) is None:
            continue  # (the reactions' channel)
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "last-id" and value.lstrip("-").isdigit() and len(value) < 12:
                return name, max(int(value), -1)
    return None
