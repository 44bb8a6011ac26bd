"""What a key's stream of events takes, and its format as the spec describes it."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from ....play.key_feed import ID
from ...fields import StrictSchema, String
from ..events.schemas import LAST_EVENT_ID, json_string


def FeedId(description: str, **kwargs: Any) -> ma.fields.String:  # noqa: N802
    """An id of the key's stream, as it sent it (``<ms>-<n>``)."""
    return String(
        description,
        example="1733600000000-0",
        validate=validate.Regexp(ID, error="Not an id this stream sent: <digits>-<digits>."),
        **kwargs,
    )


class FeedHeadersSchema(ma.Schema):
    last_event_id = FeedId(
        "The `id` of the last event you received (EventSource sends it when it "
        "reconnects): the stream resumes after it. Wins over `after`.",
        data_key=LAST_EVENT_ID,
    )


class FeedQuerySchema(StrictSchema):
    after = FeedId(
        "Resume after the event with this `id` (`0-0`: from the oldest kept). Left out, "
        "the events from now on. A `Last-Event-ID` header wins."
    )


FORMAT = """\
Server-sent events (`text/event-stream`): every event of every game the service key
owns, as it is committed, in one stream. Each game's events come in the order of its
log; events of different games interleave in the order they were committed.

**What it carries.** Each game's events as a spectator sees them, exactly as
`GET /v1/games/{game_id}/events` shows them to a caller with no seat: the table's
cards, every card played and captured, scores; never a card dealt to a hand (`deal`
events carry no `cards`). A service key may read any seat of its games
(`as_seat`, `X-Seat`), but this stream, which a backend might pass on, carries no
seat's hand: read a seat's view where you need it. Only a service key opens it (a
seat's token or no credential: 401).

In this order:

1. `event: open`: `id` the place the stream starts after (`data`
   `{"after": "<id>"}`). It carries `retry: 1000`.
2. `event: missed`, only when events after the place you resumed from are no longer
   kept (`data` `{"detail": "..."}`): the stream goes on from the oldest kept; read
   the games you follow again (`GET /v1/games`, each game's state or event log).
3. Each event: no `event:` line (EventSource's `message`), `id` its place in the key's
   stream (`<ms>-<n>`, increasing), `data` `{"game_id": "...", "event": {...}}`, the
   event with its `seq` in its game's log.
4. A `: keep-alive` comment every 15 s (unless configured).
5. `event: end`, `data` `{"reason": "reconnect"}`: the stream's maximum duration (an
   hour unless configured) or the server shutting down. Reconnect with
   `Last-Event-ID` (EventSource does), on any instance: nothing is lost.

**What is kept.** A key's events are kept from the moment a stream of it is first
opened until an hour after its streams' last keep-alive, the latest 10,000 of them:
resuming within that, on any instance, misses nothing. A key nobody follows has no
events kept (use the event log, or webhooks). Streams open at once are limited per
key (`STREAM_LIMIT_PER_KEY`, 4 unless configured: 429) and per server process (503)."""

#: The stream's ids, as the spec describes them.
FEED_ID = {
    "type": "string",
    "pattern": ID.pattern,
    "description": "A place in the key's stream.",
}


def _event(title: str, name: str, data: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "title": title,
        "properties": {"event": {"const": name}, "data": json_string(description, data)},
        "required": ["event", "data"],
    }


_OPEN = _event(
    "Open",
    "open",
    {"type": "object", "properties": {"after": FEED_ID}, "required": ["after"]},
    "Where the stream starts: after this id.",
)
_OPEN["properties"]["id"] = FEED_ID
_OPEN["required"].append("id")

#: Each event of the stream, as an object of its SSE fields.
FEED_EVENT = {
    "type": "object",
    "description": "One event of the key's stream, by its fields as sent.",
    "oneOf": [
        _OPEN,
        _event(
            "Missed",
            "missed",
            {"type": "object", "properties": {"detail": {"type": "string"}}},
            "Events after the place resumed from are no longer kept.",
        ),
        {
            "title": "GameEvent",
            "properties": {
                "event": {"const": "message", "description": "(No `event:` line is sent.)"},
                "id": FEED_ID,
                "data": json_string(
                    "A game's event, as its spectators see it.",
                    {
                        "type": "object",
                        "properties": {
                            "game_id": {"type": "string", "description": "The game's id."},
                            "event": {"$ref": "#/components/schemas/Event"},
                        },
                        "required": ["game_id", "event"],
                    },
                ),
            },
            "required": ["id", "data"],
        },
        _event(
            "End",
            "end",
            {
                "type": "object",
                "properties": {"reason": {"enum": ["reconnect"]}},
                "required": ["reason"],
            },
            "Why the stream ends.",
        ),
    ],
}
FEED_RESPONSE = {
    "200": {"description": FORMAT, "content": {"text/event-stream": {"schema": FEED_EVENT}}}
}
