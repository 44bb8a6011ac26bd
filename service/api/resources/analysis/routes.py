"""Stateless analysis: legal moves and hand scores for a position given in the body."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....engine import (
    Rules,
    first_moves,
    get_variant,
    legal_codes_in,
    move_view,
    parse_cards,
    score_hand,
)
from ....engine.masks import mask_of
from ...blueprint import Blueprint
from ...schemas import ListedMovesQuerySchema, declarations_view
from .schemas import MoveListSchema, PositionSchema, ScoreRequestSchema, ScoreSchema

blp = Blueprint(
    "analysis",
    __name__,
    url_prefix="/v1",
    description="Answers about a position given in the body, with no game stored: for "
    "tools and clients that keep their own state.",
)


@blp.route("/legal-moves")
class PositionMoves(MethodView):
    @blp.arguments(PositionSchema)
    @blp.arguments(ListedMovesQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, MoveListSchema)
    @blp.documents(
        "positionLegalMoves",
        {
            422: "Bad input: an unknown card, a card given twice, a card in both hand and "
            "table, wrong counts; or `limit` out of its range."
        },
    )
    def post(self, body: dict[str, Any], limit: int) -> Any:
        """Legal moves in a position

        Every legal move for the hand on the table, one per capture choice, up to
        `limit` (1,000 at most: a large table allows over 10,000; `truncated` and `total`
        say so); in Cirulla, the declarations the hand allows too (docs/rules.md C3)."""
        table = parse_cards(body["table"])
        hand = parse_cards(body["hand"])
        variant = get_variant(body["variant"])
        rules = Rules.from_dict(body["rules"])
        codes = legal_codes_in(variant, rules, hand, table, body.get("matta_as"))
        return {
            "moves": [move_view(m, table) for m in first_moves(codes, limit)],
            "truncated": len(codes) > limit,
            "total": len(codes),
            "declarations": declarations_view(variant.declarations(mask_of(hand))),
        }


@blp.route("/score")
class Score(MethodView):
    @blp.arguments(ScoreRequestSchema)
    @blp.response(200, ScoreSchema)
    @blp.documents(
        "scoreHand",
        {422: "Bad input: an unknown card, a card in two piles, scopas not matching the piles."},
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Score a hand

        Each side's points from its captured cards and scopas (docs/rules.md R7, R9), and
        in Cirulla its dealer's bonus, declarations, grande and piccola (C7)."""
        piles = [parse_cards(p) for p in body["piles"]]
        scopas = body.get("scopas") or [0] * len(piles)
        sides = score_hand(
            piles,
            scopas,
            Rules.from_dict(body["rules"]),
            get_variant(body["variant"]),
            dealer_bonus=body.get("dealer_bonus"),
            declarations=body.get("declarations"),
        )
        return {"teams": [side.to_dict() for side in sides]}
