"""/v1/games/{id}/...: playing a match: a seat's legal moves, its moves and declarations,
and the computer players' turns."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....play.commands import Outcome
from ...blueprint import Blueprint
from ...commands import execute, game_headers
from ...context import store
from ...game_views import NOT_FOUND
from ...game_views.answers import events_for, view_of
from ...headers import ETAG, IDEMPOTENCY_KEY_PARAMETER, IF_MATCH, REPLAYED
from ...problems import STORE_ERRORS, etag
from ...seats import (
    BAD_TOKEN,
    OPTIONAL_SEAT_AUTH,
    OR_SEAT_NAMED,
    SEAT_AUTH,
    SEAT_NAMED,
    X_SEAT,
    SeatQuerySchema,
    seat_required,
)
from . import answers
from .schemas import (
    BotMovesSchema,
    DeclarationRequestSchema,
    DeclaredSchema,
    MoveRequestSchema,
    MoveResultSchema,
    SeatMovesSchema,
)

blp = Blueprint("play", __name__, description="Playing a match.")


@blp.route("/<string:game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.arguments(SeatQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, SeatMovesSchema, headers=ETAG)
    @blp.documents(
        "listLegalMoves",
        {**BAD_TOKEN, **NOT_FOUND, **SEAT_NAMED, **STORE_ERRORS},
        security=SEAT_AUTH,
    )
    def get(self, game_id: str, **_as_seat: int) -> Any:
        """List your legal moves

        Every legal move of your seat now, one per capture choice; empty when it is not
        your turn."""
        game = store().load(game_id)
        seat = seat_required(game)
        moves = answers.legal_moves(game, seat)
        declarations = answers.legal_declarations(game, seat)
        return {"seat": seat, "moves": moves, "declarations": declarations}, 200, etag(game.version)


@blp.route("/<string:game_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequestSchema)
    @blp.response(200, MoveResultSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "playMove",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "Not your turn, the match is over, or another move was stored first.",
            412: "If-Match is not the game's current version (`current_version` says it). "
            "Not for a retry with the Idempotency-Key of a move that was made: that gets "
            "the stored 200, its If-Match stale because of the move itself.",
            422: "An illegal or ambiguous move: `detail` says why, `legal_captures` lists "
            "what the card may take. Or an Idempotency-Key reused with another body."
            + OR_SEAT_NAMED,
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Play a move

        Play a card from your hand, with the table cards it captures. The computer
        players who play after you reply within the request, each one a turn of your
        `bots` quota (per address and per token); over it, they reply on a background
        worker instead, and the answer has only your move (follow the game for theirs)."""
        reply = execute("playMove", game_id, body, _moved)
        return reply.body, reply.status, game_headers(reply)


@blp.route("/<string:game_id>/declarations")
class Declarations(MethodView):
    @blp.arguments(DeclarationRequestSchema)
    @blp.response(200, DeclaredSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "declare",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "Not your turn, the match is over, or another move was stored first.",
            412: "If-Match is not the game's current version (`current_version` says it). "
            "Not for a retry with the Idempotency-Key of a move that was made: that gets "
            "the stored 200, its If-Match stale because of the move itself.",
            422: "A declaration the rules refuse (another variant, not your first turn of "
            "the deal, declared already, cards that make no such declaration, a `matta_as` "
            "the 7C cannot take): `detail` says why. Or an Idempotency-Key reused with "
            "another body." + OR_SEAT_NAMED,
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Declare your cards (Cirulla)

        Declare your three cards before you play the first of them (docs/rules.md C3):
        a buona (worth 9 or less) or a decino (three of a kind), with the value the `7C`
        takes if you hold it. `GET legal-moves` lists what you may declare, as entries
        to send as they are. Your cards go face up for everyone until played, the points
        go to your side, and it is still your turn: play a card next."""
        reply = execute("declare", game_id, body, _declared)
        return reply.body, reply.status, game_headers(reply)


@blp.route("/<string:game_id>/bots")
class BotTurns(MethodView):
    @blp.response(200, BotMovesSchema, headers=ETAG)
    @blp.documents(
        "playBotTurns",
        {
            **NOT_FOUND,
            **BAD_TOKEN,
            **SEAT_NAMED,
            409: "No move is due: the seat to play is a person's whose time has not run "
            "out, or the match is not being played.",
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Let the computer players move

        Computer players move within the request that gives them the turn, for a short
        allowance, and background workers play on from there. This plays their turns
        now (for the allowance) and queues the rest again: for a match that stopped
        because no worker was running. Likewise, when the person to play let their
        clock run out and no worker played for them, this plays their move (marked
        `timeout`). It only plays the moves that are due, so it needs no token where
        the game has spectators, and answers what a spectator sees; with a seat's token,
        what that seat sees. A game created with `spectators: false` needs a seat's
        token (401 without)."""
        reply = execute("playBotTurns", game_id, None, _bot_moves)
        return reply.body, 200, etag(reply.version)


def _moved(outcome: Outcome) -> dict[str, Any]:
    assert outcome.seat is not None
    return answers.moved(outcome.steps[0], outcome.seat)


def _declared(outcome: Outcome) -> dict[str, Any]:
    assert outcome.seat is not None
    return answers.declared(outcome.steps[0], outcome.seat)


def _bot_moves(outcome: Outcome) -> dict[str, Any]:
    step, seat = outcome.steps[0], outcome.seat
    state = view_of(step.game, seat)
    return {"events": events_for(step.events, seat, step.first_seq), "state": state}
