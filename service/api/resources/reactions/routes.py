"""Reactions: a seat sends an emote, and every stream open on its game shows it at once
(``event: reaction``). They are not events of the game: not in its log, not stored, not
replayed to a stream that opens later (service/play/live.py)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ...blueprint import Blueprint
from ...commands import body_of, execute
from ...problems import STORE_ERRORS
from ...seats import BAD_TOKEN, SEAT_AUTH
from .schemas import ReactionRequestSchema, ReactionSchema

blp = Blueprint(
    "reactions",
    __name__,
    url_prefix="/v1",
    description="Quick reactions between the seats of a game: a fixed set of emotes, shown "
    "live to everyone who follows the game.",
)


@blp.route("/games/<string:game_id>/reactions")
class GameReactions(MethodView):
    @blp.arguments(ReactionRequestSchema)
    @blp.response(
        202,
        ReactionSchema,
        description="Sent to every stream open on the game now, as this body (`event: reaction`).",
    )
    @blp.documents(
        "sendReaction",
        {
            **BAD_TOKEN,
            404: "No game has this id (it never existed, or it expired).",
            409: "The match is over: reactions are for a game waiting or being played.",
            422: "`emote` is missing or not one of the set.",
            429: "Too many reactions (the `reactions` quota) or requests from this address "
            "or token: `detail` says which; retry after `Retry-After` seconds.",
            **STORE_ERRORS,
        },
        limited=False,  # limited, and its 429 says so above: by its own quota too
        security=SEAT_AUTH,
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Send a reaction

        An emote from your seat, shown at once to every stream open on the game (the
        seats' and the spectators', `GET /v1/games/{game_id}/stream`) as an `event:
        reaction`. Not an event of the game: not in its log, not stored, and a stream
        opened later does not get it. Counted against the `reactions` quota (per address
        and per token), besides `requests`."""
        return execute("sendReaction", game_id, body, body_of).body, 202
