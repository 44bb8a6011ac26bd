"""/v1/events: every event of every game a service key owns, followed live in one
stream (the stream itself: :mod:`.stream`)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...blueprint import Blueprint
from ...problems import STORE_ERRORS
from ...service_keys import KEY_AUTH, NOT_A_KEY, require_key
from . import stream
from .schemas import FEED_RESPONSE, FeedHeadersSchema, FeedQuerySchema

blp = Blueprint(
    "feed",
    __name__,
    url_prefix="/v1",
    description="A service key's events: every game's, in one stream.",
)


@blp.route("/events")
class KeyEvents(MethodView):
    @blp.arguments(FeedQuerySchema, location="query", as_kwargs=True)
    @blp.arguments(FeedHeadersSchema, location="headers", as_kwargs=True)
    @blp.documents(
        "streamKeyEvents",
        {
            **NOT_A_KEY,
            422: "`after` or `Last-Event-ID` is not an id of this stream (`<digits>-<digits>`), "
            "or the query has a parameter this operation does not take.",
            429: "Too many requests from this key, or too many streams open at once for this "
            "key (`STREAM_LIMIT_PER_KEY` of its events, `STREAM_LIMIT_PER_ADDRESS` in all): "
            "`detail` says which; retry after `Retry-After` seconds.",
            503: STORE_ERRORS[503] + " Or this server holds as many streams as it may: "
            "retry after `Retry-After` seconds.",
        },
        limited=False,  # limited, and its 429 says so above: more than the usual one
        security=KEY_AUTH,
        responses=FEED_RESPONSE,
    )
    def get(self, **query: Any) -> Any:
        """Follow every game of the key

        Server-sent events: every event of every game this service key owns, as it
        happens, each game's as its spectators see them (no card dealt to a hand), in
        the order of each game's log. Reconnect with `Last-Event-ID`, on any instance,
        to miss nothing; events are kept while the key's streams are followed (an hour
        after the last)."""
        owner = require_key()
        after = query.get("last_event_id", query.get("after"))
        return stream.open_feed(owner, after)
