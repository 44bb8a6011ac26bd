"""/v1/games/{id}/hands: a match's finished hands and their scores."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....engine import Status
from ...blueprint import Blueprint
from ...context import store
from ...game_views import seat_operation
from ...problems import STORE_ERRORS, Problem, ProblemType
from ...seats import BAD_TOKEN, OPTIONAL_SEAT_AUTH, SEAT_NAMED, SeatQuerySchema, seat_of
from .schemas import HandListSchema, HandScoreSchema

blp = Blueprint("hands", __name__, description="A match's finished hands.")


@blp.route("/<string:game_id>/hands")
class HandScores(MethodView):
    @blp.arguments(SeatQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, HandListSchema)
    @seat_operation(
        blp,
        "listHandScores",
        {},
        security=OPTIONAL_SEAT_AUTH,
    )
    def get(self, game_id: str, **_as_seat: int) -> Any:
        """List the scores of finished hands

        Each finished hand's score, in order: every side's captures and points by
        category (docs/rules.md R7, R9), and the match totals after it."""
        game = store().load(game_id)
        seat_of(game, required=False)  # a game without spectators shows only its seats
        return {"hands": [] if game.match is None else game.match.hand_scores}


@blp.route("/<string:game_id>/hands/<int:number>")
class HandScore(MethodView):
    @blp.arguments(SeatQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, HandScoreSchema)
    @blp.documents(
        "getHandScore",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            404: "No game has this id, or the match has no hand with this number.",
            409: "This hand is still being played, or the match has not started.",
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
    )
    def get(self, game_id: str, number: int, **_as_seat: int) -> Any:
        """Read a finished hand's score

        One finished hand's score, by its number from 1 (409 while that hand is still
        being played)."""
        game = store().load(game_id)
        seat_of(game, required=False)  # a game without spectators shows only its seats
        match = game.playing
        if 1 <= number <= len(match.hand_scores):
            return match.hand_scores[number - 1]
        if number == match.hand_number and match.status is Status.PLAYING:
            raise Problem(
                409,
                ProblemType.HAND_IN_PROGRESS,
                f"Hand {number} is still being played: its score exists once it ends.",
            )
        raise Problem(
            404,
            ProblemType.HAND_NOT_FOUND,
            f"This match has no hand {number}: it has played hands 1 to {match.hand_number}.",
        )
