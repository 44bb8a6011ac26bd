"""/v1/games/{id}/...: a game waiting for people (its invitation, a seat taken or left,
a new join code) and, after the match, the rematch."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from .... import play
from ....play.commands import Outcome
from ...blueprint import Blueprint
from ...commands import execute, game_headers, no_body
from ...context import server_secret, store
from ...game_views import LOCATION, NOT_FOUND, seat_operation
from ...game_views.answers import created_headers, join_answer, view_of
from ...game_views.schemas import GameViewSchema, JoinInfoSchema
from ...headers import CREATION_KEY_PARAMETER, ETAG, REPLAYED
from ...problems import STORE_ERRORS, etag
from ...seats import BAD_TOKEN, SEAT_AUTH, SEAT_NAMED, X_SEAT, check_owner
from .schemas import InvitationQuerySchema, JoinedSchema, JoinRequestSchema, RematchSchema

blp = Blueprint("lobby", __name__, description="A game waiting for people, and its rematch.")

REMATCH_CREATED = {
    "description": "This request created the rematch (the body is as for 200).",
    "headers": {"Location": LOCATION, **ETAG},
    "content": {"application/json": {"schema": RematchSchema}},
}


@blp.route("/<string:game_id>/join")
class JoinGame(MethodView):
    @blp.arguments(InvitationQuerySchema, location="query")
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.documents(
        "readInvitation",
        {
            403: "The join code is not this game's.",
            **NOT_FOUND,
            409: "No seat to take: the match has started.",
            422: "`code` is missing.",
            **STORE_ERRORS,
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Any:
        """Read an invitation

        For whoever has the join code, before taking a seat: the game as a spectator
        sees it (the variant, target, rules, who sits where, which seats are open),
        also when the game has no spectators."""
        game = store().load(game_id)
        check_owner(game)
        play.check_join_code(game, query["code"], server_secret())
        if game.lobby is None:
            raise play.NoOpenSeatError("the match has started: every seat is taken")
        return view_of(game, None), 200, etag(game.version)

    @blp.arguments(JoinRequestSchema)
    @blp.response(200, JoinedSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "joinGame",
        {
            403: "The join code is not this game's.",
            **NOT_FOUND,
            409: "No seat to take: every seat is taken (the match has started), or the "
            "one asked for is. Or another change was stored first: try again.",
            422: "The body is not valid; or an Idempotency-Key shorter than 16 characters, "
            "or reused with another body.",
            **STORE_ERRORS,
        },
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Take an open seat

        With the game's join code and your name, take an open seat (the one asked for,
        or the first): the answer holds your seat's token, shown only here. When you
        take the last open seat the match starts: it is dealt, and `status` is
        `playing`. Send an Idempotency-Key to retry safely: a retry gets the same seat
        and token."""
        reply = execute("joinGame", game_id, body, _joined)
        return reply.body, reply.status, game_headers(reply)


@blp.route("/<string:game_id>/join-code")
class JoinCode(MethodView):
    @blp.response(200, JoinInfoSchema, headers=ETAG)
    @blp.documents(
        "rotateJoinCode",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            403: "The token is not the seat of whoever created the game.",
            **NOT_FOUND,
            409: "No seat to take: the match has started, so there is no code. Or another "
            "change was stored first: try again.",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Give the game a new join code

        For whoever created a game that waits for people (the token of the first person's
        seat named at creation): a new join code, and the one given out before no longer
        lets anyone join (403), for a code that reached people it should not have. The
        seats taken stay taken; the seated see the new code in their view."""
        reply = execute("rotateJoinCode", game_id, None, lambda o: join_answer(game_id, o.value))
        return reply.body, 200, etag(reply.version)


@blp.route("/<string:game_id>/leave")
class LeaveGame(MethodView):
    @blp.response(204, headers=ETAG)
    @seat_operation(
        blp,
        "leaveGame",
        {
            409: "The match has started: a seat can leave only before. Or another change "
            "was stored first: try again.",
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Leave before the match starts

        Give up your seat while the game waits for people: the seat is open again for
        anyone with the join code, and your token no longer works."""
        reply = execute("leaveGame", game_id, None, no_body)
        return "", 204, etag(reply.version)


@blp.route("/<string:game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, RematchSchema, headers={"Location": LOCATION, **ETAG})
    @seat_operation(
        blp,
        "rematchGame",
        {
            409: "The match is not over yet (or has not started).",
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
        responses={"201": REMATCH_CREATED},
    )
    def post(self, game_id: str) -> Any:
        """Play again

        After a finished match, the next one: the same seats (names, computer players),
        variant, target and rules, a new shuffle, the first deal passing to the next
        seat. The first seat to ask creates it (201) and the finished game's events get
        a `rematch` event with its id, and its view `next`; every seat then asks here
        with its own token (200) to get its token for the new match, the same each
        time. The new game's `previous` names this one. Creating it counts as a game
        created for the `creations` quota (and `bots`, with computer players) of the
        address that asks."""
        reply = execute("rematchGame", game_id, None, _rematch)
        headers = created_headers(reply.body["id"], reply.version)
        return reply.body, reply.status, headers


def _joined(outcome: Outcome) -> dict[str, Any]:
    """The answer to a person who took a seat: the seat, its token, the seat's view."""
    joining = outcome.steps[0]
    assert isinstance(joining, play.Joining)
    state = view_of(joining.game, joining.seat)
    seat = state["seats"][joining.seat]
    return {
        "id": joining.game.id,
        "seat": joining.seat,
        "name": seat["name"],
        "team": seat["team"],
        "token": joining.token,
        "state": state,
    }


def _rematch(outcome: Outcome) -> dict[str, Any]:
    following, token = outcome.value
    return {
        "id": following.id,
        "seat": outcome.seat,
        "token": token,
        "state": view_of(following, outcome.seat),
    }
