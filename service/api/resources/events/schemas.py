"""What a game's event log and its stream take and answer; the stream's format, as the
spec describes it."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ...fields import Integer, StrictSchema, String
from ...game_views.events import Events
from ...responses import ResponseSchema
from ...seats import AsSeat

LAST_EVENT_ID = "Last-Event-ID"


class EventLogSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    events = Events()


def After(description: str, **kwargs: Any) -> fields.Integer:  # noqa: N802
    """A place in the event log to read on from: the ``seq`` of the last event seen (-1:
    before the first). Read from a query string or a header, which hold text: "3" is the
    integer 3 here (and "1.5" still is not one)."""
    return fields.Integer(
        validate=validate.Range(-1, 10**9), metadata={"description": description}, **kwargs
    )


class EventQuerySchema(StrictSchema):
    as_seat = AsSeat()
    after = After(
        "Only the events after the one with this `seq` (-1, or left out: from the first)."
    )


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
3. `event: reaction` when a seat sends a reaction (`POST /v1/games/{game_id}/reactions`),
   as it happens: `data` `{"seat": 1, "emote": "applause", "at": "<RFC 3339 UTC>"}`
   (`Reaction`). No `id` (it is not in the log, and `Last-Event-ID` stays the last
   event's): a stream gets only the reactions sent while it is open; reconnecting
   replays none.
4. A `: keep-alive` comment every 15 s (unless configured).
5. `event: end` before the service closes the stream, `data` `{"reason": "gone"}` when
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


def json_string(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    """An SSE field holding JSON of ``schema``, as the spec describes it."""
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
                "data": json_string(
                    "The game as you see it.", {"$ref": "#/components/schemas/GameView"}
                ),
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
                "data": json_string(
                    "An event of the log, with its `seq`.", {"$ref": "#/components/schemas/Event"}
                ),
            },
            "required": ["id", "data"],
        },
        {
            "title": "Reaction",
            "properties": {
                "event": {"const": "reaction"},
                "data": json_string(
                    "A seat's reaction, as `POST /v1/games/{game_id}/reactions` answered it.",
                    {"$ref": "#/components/schemas/Reaction"},
                ),
            },
            "required": ["event", "data"],
        },
        {
            "title": "End",
            "properties": {
                "event": {"const": "end"},
                "id": SEQ,
                "data": json_string(
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
    access_token = String(
        "A seat's token, for clients that cannot send an Authorization "
        "header (a browser's EventSource): used as `Authorization: Bearer <token>` "
        "would be. Never logged.",
        validate=validate.Regexp(r"^[\x21-\x7e]{1,256}$"),
    )
