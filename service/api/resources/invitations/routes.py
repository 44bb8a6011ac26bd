"""/v1/invitations/{code}: a game waiting for people, found by its join code alone (the
room code a person types), for a client that has no link with the game's id."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....play import GameNotFoundError, invitations
from ...blueprint import Blueprint
from ...context import server_secret, store
from ...game_views.answers import view_of
from ...game_views.schemas import GameViewSchema
from ...headers import ETAG
from ...problems import STORE_ERRORS, etag
from ...seats import check_owner

blp = Blueprint(
    "invitations",
    __name__,
    url_prefix="/v1",
    description="Games waiting for people, found by their join code alone.",
)

CODE = {
    "in": "path",
    "name": "code",
    "description": "The game's join code as a person types it: upper or lower case, with "
    "spaces or dashes anywhere (`k7qx 2mpa-9r` is `K7QX2MPA9R`).",
}


@blp.route("/invitations/<string:code>", parameters=[CODE])
class InvitationByCode(MethodView):
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.documents(
        "findInvitation",
        {
            404: "No game waiting for people has this code: a code mistyped or malformed, "
            "one given out before a new one, or that of a match started, aborted or expired "
            "(one answer for all; a malformed code is looked up as an unknown one is).",
            **STORE_ERRORS,
        },
    )
    def get(self, code: str) -> Any:
        """Find a game by its join code

        The room code alone, without the game's id (which the join link carries): the
        game waiting for people that it lets in, as `GET /v1/games/{game_id}/join?code=`
        answers it (a spectator's view: its `id`, variant, target, rules, clock, who sits
        where and which seats are open), also when the game has no spectators. Then take
        a seat with `POST /v1/games/{id}/join`, the same code in the body. A wrong code
        is a 404 problem (`/problems/invitation-not-found`) whatever is wrong with it.
        Each lookup counts against the `invitations` quota (30 a minute per address by
        default, found or not: 429 past it), so that codes cannot be tried at speed."""
        game = invitations.find(store(), server_secret(), code)
        try:
            check_owner(game)  # a service key finds only its own games
        except GameNotFoundError:
            raise invitations.InvitationNotFoundError(code) from None
        return view_of(game, None), 200, etag(game.version)
