"""/v1/games: create a match (or a round of them), read it, delete it, abort it; a service
key's listing of its games. The resources of a game (play, lobby, hands, events) are
nested in this blueprint (service/api/resources/__init__.py): one prefix, one tag."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from .... import play
from ....play import Creation
from ....play.commands import Outcome
from ...blueprint import Blueprint
from ...commands import execute, game_headers, no_body
from ...context import store
from ...game_views import LOCATION, seat_operation
from ...game_views.answers import created_headers, utc, view_of
from ...game_views.schemas import GameViewSchema
from ...headers import (
    CREATION_KEY_PARAMETER,
    ETAG,
    IF_NONE_MATCH,
    NEXT_PAGE,
    NOT_MODIFIED,
    PER_VIEWER,
    REPLAYED,
    not_modified,
    unchanged,
)
from ...problems import STORE_ERRORS, etag
from ...seats import OPTIONAL_SEAT_AUTH, SeatQuerySchema, seat_of
from ...service_keys import key_operation
from . import answers, listing
from .schemas import (
    MAX_BULK,
    AbortRequestSchema,
    BulkCreatedSchema,
    BulkCreateSchema,
    CreateGameSchema,
    GameCreatedSchema,
    GameListQuerySchema,
    GameListSchema,
)

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/v1/games",
    description="Matches: create one, read it as a seat or a spectator, play it, read its "
    "hands' scores and its event log.",
)


@blp.route("")
class GameCollection(MethodView):
    @blp.arguments(CreateGameSchema, required=False)  # no body: every default
    @blp.response(
        201,
        GameCreatedSchema,
        headers={
            "Location": LOCATION,
            **ETAG,
            **REPLAYED,
        },
    )
    @blp.documents(
        "createGame",
        {
            422: "The body is not valid, or asks for a match that cannot exist, or for a "
            "match of computer players only to a target over the service's cap "
            "(`/problems/bot-match-too-long`); or an Idempotency-Key shorter than 16 "
            "characters, or reused with another body.",
            **STORE_ERRORS,
        },
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a match

        Deals the first hand and returns each seat's secret token (shown only here) and
        the spectator's view. A match of computer players only may be played to the
        service's cap at most (`BOT_ONLY_MAX_TARGET`; by default its variant's default
        target): they play on the background workers' time, which the games one address
        creates may spend only so much of a minute (`COST_BUDGET_SECONDS_PER_ADDRESS`;
        past it, their moves wait)."""
        reply = execute("createGame", None, body, _created)
        assert reply.game_id is not None
        headers = created_headers(reply.game_id, reply.version)
        return reply.body, reply.status, {**headers, **game_headers(reply)}


def _created(outcome: Outcome) -> dict[str, Any]:
    creation = outcome.steps[0]
    assert isinstance(creation, play.Creation)
    return answers.created(creation, creation.tokens)


@blp.route("/<string:game_id>")
class GameItem(MethodView):
    @blp.arguments(SeatQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, GameViewSchema, headers=ETAG)
    @seat_operation(
        blp,
        "getGame",
        {},
        security=OPTIONAL_SEAT_AUTH,
        parameters=[IF_NONE_MATCH],
        responses=NOT_MODIFIED,
    )
    def get(self, game_id: str, **_as_seat: int) -> Any:
        """Read a game

        With a seat's token, that seat's view (its hand included); without, a
        spectator's view. With If-None-Match, 304 while nothing has changed."""
        game = store().load(game_id)
        seat = seat_of(game, required=False)
        if not_modified(game.version):
            return unchanged(game.version)
        return view_of(game, seat), 200, {**etag(game.version), **PER_VIEWER}

    @blp.response(204)
    @key_operation(
        blp,
        "deleteGame",
        {
            404: "No game has this id, or its key did not create it (a key sees only "
            "its own games).",
            409: "The game is still waiting or being played: abort it first. Or it changed "
            "while being deleted: try again.",
        },
    )
    def delete(self, game_id: str) -> Any:
        """Delete a game

        For the service key that created it: a finished or aborted game is deleted at
        once, with everything the service keeps of it (its log, its kept answers, its
        place in the key's listings); its streams end (`gone`). Then it is a 404, as a
        game that never existed."""
        execute("deleteGame", game_id, None, no_body)
        return "", 204


@blp.route("/<string:game_id>/abort")
class AbortGame(MethodView):
    @blp.arguments(AbortRequestSchema)
    @blp.response(200, GameViewSchema, headers=ETAG)
    @key_operation(
        blp,
        "abortGame",
        {
            404: "No game has this id, or its key did not create it (a key sees only "
            "its own games).",
            409: "The game is finished or aborted already (`/problems/match-over`, "
            "`/problems/match-aborted`). Or it changed while being aborted: try again.",
            422: "`reason` is missing, empty, over 200 characters, or holds a control character.",
        },
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Abort a game

        For the service key that created it: stop a game that waits for people or is
        being played. Its status is `aborted`, with no winner; its log ends with an
        `aborted` event holding the reason; its streams send that event and end
        (`aborted`); its clock stops and its computer players play no more. Moves, joins
        and the like are then 409 (`/problems/match-aborted`). Answers the game as a
        spectator sees it (with every seat's `player_id`: the key's view)."""
        reply = execute("abortGame", game_id, body, _spectated)
        return reply.body, 200, etag(reply.version)


def _spectated(outcome: Outcome) -> dict[str, Any]:
    """The game after the command, as a spectator (its key) sees it."""
    return view_of(outcome.steps[-1].game, None)


@blp.route("/bulk")
class BulkCreation(MethodView):
    @blp.arguments(BulkCreateSchema)
    @blp.response(201, BulkCreatedSchema, headers=REPLAYED)
    @key_operation(
        blp,
        "createGames",
        {
            422: f"The body is not valid (1 to {MAX_BULK} games), or one of its games is "
            "not (`detail` names it, `games[<index>]`): a match that cannot exist, open "
            "seats with `start_at`, a `start_at` past the games' time to live. Nothing is "
            "created. Or an Idempotency-Key shorter than 16 characters, or reused with "
            "another body.",
            429: "Over the key's creations quota (each game counts) or another of its "
            "quotas; nothing is created. Retry after `Retry-After` seconds.",
        },
        limited=False,  # its 429 is above
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
                "start_at": utc(creation.game.start_at),
            }
            for creation in outcome.steps
            if isinstance(creation, Creation)
        ]
    }


@blp.route("")
class GameListing(MethodView):
    @blp.arguments(GameListQuerySchema, location="query", as_kwargs=True)
    @blp.response(
        200,
        GameListSchema,
        headers=NEXT_PAGE,
    )
    @key_operation(
        blp,
        "listGames",
        {
            422: "A filter is not valid (a status or variant that does not exist, a time "
            "that is not RFC 3339 with its offset, `limit` out of 1 to 100), or the cursor "
            "is not one a listing gave.",
        },
    )
    def get(self, **query: Any) -> Any:
        """List your games

        For a service key: the games it created, newest first, a page at a time
        (`next`), filtered by status, player id, variant, creation time and metadata.
        A game is listed as long as it is kept (`GAME_TTL_SECONDS` after its last
        change), until it is deleted."""
        body, headers = listing.page(query)
        return body, 200, headers
