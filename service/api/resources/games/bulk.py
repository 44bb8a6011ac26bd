"""POST /v1/games/bulk: a round of games in one call, for a service key (a tournament's
pairings): all of them or none."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....play import Creation
from ....play.commands import Outcome
from ...commands import execute
from ...headers import CREATION_KEY_PARAMETER, REPLAYED
from ...problems import STORE_ERRORS
from ...service_keys import KEY_AUTH, NOT_A_KEY
from . import answers
from .routes import blp
from .schemas import MAX_BULK, BulkCreatedSchema, BulkCreateSchema


@blp.route("/bulk")
class BulkCreation(MethodView):
    @blp.arguments(BulkCreateSchema)
    @blp.response(201, BulkCreatedSchema, headers=REPLAYED)
    @blp.documents(
        "createGames",
        {
            **NOT_A_KEY,
            422: f"The body is not valid (1 to {MAX_BULK} games), or one of its games is "
            "not (`detail` names it, `games[<index>]`): a match that cannot exist, open "
            "seats with `start_at`, a `start_at` past the games' time to live. Nothing is "
            "created. Or an Idempotency-Key shorter than 16 characters, or reused with "
            "another body.",
            429: "Over the key's creations quota (each game counts) or another of its "
            "quotas; nothing is created. Retry after `Retry-After` seconds.",
            **STORE_ERRORS,
        },
        limited=False,  # its 429 is above
        security=KEY_AUTH,
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a round of games

        For a service key: up to 100 games in one call, all or none: each is checked
        first, then all are stored, or none is (those stored are deleted again if one
        fails). Each game is as `POST /v1/games` takes it (seats with `player_id`,
        `metadata`...), and may start later (`start_at`). Each counts against the key's
        creations quota. Answers every game's id and its seats' tokens (shown only
        here, and to a retry with the same Idempotency-Key), in the order asked."""
        reply = execute("createGames", None, body, _round)
        return reply.body, reply.status, {"Idempotent-Replayed": "true"} if reply.replayed else {}


def _round(outcome: Outcome) -> dict[str, Any]:
    """Each game of the round: its id, version, seats with their tokens, and start."""
    return {
        "games": [
            {
                "id": creation.game.id,
                "version": creation.version,
                "seats": answers.created(creation, creation.tokens)["seats"],
                "start_at": answers.utc(creation.game.start_at),
            }
            for creation in outcome.steps
            if isinstance(creation, Creation)
        ]
    }
