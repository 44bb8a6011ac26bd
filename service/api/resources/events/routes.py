"""/v1/games/{id}/events and /stream: a game's event log, read at once or followed live
(the stream itself: :mod:`.stream`)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...blueprint import Blueprint
from ...context import store
from ...game_views import NOT_FOUND
from ...game_views.answers import events_for
from ...headers import ETAG, NOT_MODIFIED, PER_VIEWER, IfNoneMatchSchema, not_modified, unchanged
from ...problems import STORE_ERRORS, etag
from ...seats import BAD_TOKEN, OPTIONAL_SEAT_AUTH, OR_SEAT_NAMED, seat_of
from . import grip, stream
from .schemas import (
    STREAM_RESPONSE,
    EventLogSchema,
    EventQuerySchema,
    StreamHeadersSchema,
    StreamQuerySchema,
)

blp = Blueprint("events", __name__, description="A game's event log and its live stream.")


@blp.route("/<string:game_id>/events")
class EventLog(MethodView):
    @blp.arguments(EventQuerySchema, location="query")
    # Documented as a schema, since `parameters` would replace the query's in the spec.
    @blp.arguments(IfNoneMatchSchema, location="headers", as_kwargs=True)
    @blp.response(200, EventLogSchema, headers=ETAG)
    @blp.documents(
        "getEventLog",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            422: "`after` is not an integer from -1 on." + OR_SEAT_NAMED,
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
        responses=NOT_MODIFIED,
    )
    def get(self, query: dict[str, Any], game_id: str, **_headers: Any) -> Any:
        """Read the event log

        Everything that happened, in order, for replays; with `after`, only what came
        after the event of that `seq` (poll with the last `seq` you saw). Each seat sees
        the cards dealt to it; nobody sees cards dealt to another seat. With
        If-None-Match, 304 while nothing has changed."""
        game = store().load(game_id)
        seat = seat_of(game, required=False)
        if not_modified(game.version):
            return unchanged(game.version)
        start = query.get("after", -1) + 1
        version, events = store().events(game_id, start)
        shown = events_for(events, seat, start)
        body = {"id": game_id, "version": version, "events": shown}
        return body, 200, {**etag(version), **PER_VIEWER}


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
            "both as `access_token` and in Authorization." + OR_SEAT_NAMED,
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
        stream.use_query_token(query.get("access_token"))
        if grip.proxied():  # a GRIP proxy in front holds it: no thread here
            return grip.hold_stream(game_id, start)
        return stream.open_stream(game_id, start)
