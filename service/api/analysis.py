"""Stateless analysis: legal moves and hand scores for a position given in the body."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask.views import MethodView
from marshmallow import fields, validate

from ..engine import (
    VARIANTS,
    Rules,
    get_variant,
    legal_moves_in,
    move_view,
    parse_cards,
    score_hand,
    team_of_seats,
)
from .blueprint import Blueprint
from .problems import documents
from .response_schema import ResponseSchema
from .schemas import Cards, Integer, LegalMoveSchema, RulesSchema, SideScoreSchema, StrictSchema

blp = Blueprint(
    "analysis",
    __name__,
    url_prefix="/v1",
    description="Answers about a position given in the body, with no game stored: for "
    "tools and clients that keep their own state.",
)


def _variant_field() -> fields.String:
    return fields.String(
        load_default="scopa",
        validate=validate.OneOf(sorted(VARIANTS)),
        metadata={"description": "The game whose rules apply."},
    )


def _rules_fit(data: dict[str, Any]) -> None:
    """Raise a ValidationError on ``rules`` when an option does not apply to the variant."""
    problem = get_variant(data["variant"]).check_rules(Rules.from_dict(data["rules"]))
    if problem:
        raise ma.ValidationError(problem + ".", field_name="rules")


def _no_repeats(groups: dict[str, list[list[str]]]) -> None:
    """Raise a ValidationError naming the field where a card appears a second time."""
    seen: dict[str, str] = {}
    for field, lists in groups.items():
        for cards in lists:
            for code in cards:
                if code in seen:
                    where = "twice" if seen[code] == field else f"in both {seen[code]} and {field}"
                    raise ma.ValidationError(f"{code} appears {where}.", field_name=field)
                seen[code] = field


class PositionSchema(StrictSchema):
    variant = _variant_field()
    rules = fields.Nested(RulesSchema, load_default=lambda: RulesSchema().load({}))
    hand = Cards(
        "The cards in the hand of the player to move (1 to 10).",
        required=True,
        validate=validate.Length(min=1, max=10),
    )
    table = Cards(
        "The cards face up on the table (0 to 36).",
        load_default=list,
        validate=validate.Length(max=36),
    )

    @ma.validates_schema
    def _distinct(self, data: dict[str, Any], **kwargs: Any) -> None:
        _no_repeats({"hand": [data["hand"]], "table": [data["table"]]})
        _rules_fit(data)


class MovesSchema(ResponseSchema):
    moves = fields.List(
        fields.Nested(LegalMoveSchema), metadata={"description": "Every legal move."}
    )


class PilesSchema(StrictSchema):
    variant = _variant_field()
    rules = fields.Nested(RulesSchema, load_default=lambda: RulesSchema().load({}))
    piles = fields.List(
        Cards("One side's captured cards."),
        required=True,
        validate=validate.Length(min=2, max=3),
        metadata={"description": "Each side's captured cards, one list per side (2 or 3 sides)."},
    )
    scopas = fields.List(
        Integer(validate=validate.Range(0, 40)),
        metadata={"description": "Each side's scopas, in the order of `piles` (default: none)."},
    )

    @ma.validates_schema
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        _no_repeats({"piles": data["piles"]})
        _rules_fit(data)
        variant = get_variant(data["variant"])
        sides = sorted({max(team_of_seats(n)) + 1 for n in variant.player_counts})
        if len(data["piles"]) not in sides:
            raise ma.ValidationError(
                f"{variant.title} is played by {' or '.join(map(str, sides))} sides, "
                f"not {len(data['piles'])}: give one pile per side.",
                field_name="piles",
            )
        scopas = data.get("scopas")
        if scopas is not None and len(scopas) != len(data["piles"]):
            raise ma.ValidationError(
                f"scopas has {len(scopas)} entries but there are {len(data['piles'])} piles: "
                "give one per side.",
                field_name="scopas",
            )


class ScoreSchema(ResponseSchema):
    teams = fields.List(
        fields.Nested(SideScoreSchema),
        metadata={"description": "Each side's score, in the order of `piles`."},
    )


@blp.route("/legal-moves")
class PositionMoves(MethodView):
    @blp.arguments(PositionSchema)
    @blp.response(200, MovesSchema)
    @documents(
        blp,
        {
            422: "Bad input: an unknown card, a card given twice, a card in both hand and "
            "table, wrong counts."
        },
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Legal moves in a position

        Every legal move for the hand on the table, one per capture choice."""
        table = parse_cards(body["table"])
        moves = legal_moves_in(
            get_variant(body["variant"]),
            Rules.from_dict(body["rules"]),
            parse_cards(body["hand"]),
            table,
        )
        return {"moves": [move_view(m, table) for m in moves]}


@blp.route("/score")
class Score(MethodView):
    @blp.arguments(PilesSchema)
    @blp.response(200, ScoreSchema)
    @documents(
        blp,
        {422: "Bad input: an unknown card, a card in two piles, scopas not matching the piles."},
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Score a hand

        Each side's points from its captured cards and scopas (RULES.md R7, R9)."""
        piles = [parse_cards(p) for p in body["piles"]]
        scopas = body.get("scopas") or [0] * len(piles)
        sides = score_hand(piles, scopas, Rules.from_dict(body["rules"]))
        return {"teams": [side.to_dict() for side in sides]}
