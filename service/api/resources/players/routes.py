"""/v1/players: a service key's players' ratings (service/play/ratings.py), one player's,
or a variant's leaderboard a page at a time."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import ValidationError
from werkzeug.routing import BaseConverter

from ...blueprint import Blueprint
from ...fields import PLAYER_ID
from ...headers import NEXT_PAGE
from ...problems import Problem, ProblemType
from ...service_keys import key_operation, require_key
from ..games.listing import link
from . import answers
from .schemas import LeaderboardQuerySchema, LeaderboardSchema, PlayerSchema


class PlayerIdConverter(BaseConverter):
    """A player id in a path: every character up to the path's end, slashes included
    (a player id may hold them, percent-encoded as `%2F`; werkzeug's ``path`` refuses
    a leading one)."""

    regex = r"[^\x00]+"
    part_isolating = False


def player_id_schema(converter: BaseConverter) -> dict[str, Any]:
    """How the spec describes the converter's parameter: a player id."""
    return {"type": "string", "pattern": r"^[\x21-\x7e]{1,64}$"}


blp = Blueprint(
    "players",
    __name__,
    url_prefix="/v1/players",
    description="A service key's players: their ratings in its rated games, and leaderboards.",
)


@blp.route("")
class Leaderboard(MethodView):
    @blp.arguments(LeaderboardQuerySchema, location="query", as_kwargs=True)
    @blp.response(
        200,
        LeaderboardSchema,
        headers=NEXT_PAGE,
    )
    @key_operation(
        blp,
        "listPlayers",
        {
            422: "`variant` is missing or not a variant, `limit` is out of 1 to 100, or the "
            "cursor is not one a leaderboard gave.",
        },
    )
    def get(self, **query: Any) -> Any:
        """Read a leaderboard

        For a service key: its players in one variant, by rating, highest first, a page
        at a time (`next`). A player is on it from their first rated game of the variant
        finished; the key's other players are not."""
        body, following = answers.leaderboard(require_key(), query)
        return body, 200, link(following)


@blp.route("/<player:player_id>")
class Player(MethodView):
    @blp.response(200, PlayerSchema)
    @key_operation(
        blp,
        "getPlayer",
        {422: "`player_id` is not a player id (1 to 64 printable ASCII characters)."},
    )
    def get(self, player_id: str) -> Any:
        """Read a player's ratings

        For a service key: the player's rating and record in each variant they finished
        rated games of (`rated` at creation), with their place on its leaderboard. A
        player id the key never rated has none yet: an empty list, not a 404."""
        owner = require_key()
        try:
            PLAYER_ID(player_id)
        except ValidationError:
            raise Problem(
                422,
                ProblemType.VALIDATION,
                "A player id is 1 to 64 printable ASCII characters, no spaces.",
                errors={"player_id": ["Not a player id."]},
            ) from None
        return answers.player(owner, player_id)
