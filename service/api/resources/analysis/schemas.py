"""What the stateless analysis endpoints take and answer."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....engine import get_variant, team_of_seats
from ...fields import (
    Cards,
    Integer,
    KeptMatta,
    NestedList,
    RulesField,
    StrictSchema,
    Variant,
    check_kept_matta,
    check_no_repeats,
    check_rules_fit,
)
from ...responses import ResponseSchema
from ...schemas import LegalDeclarationSchema, LegalMoveSchema, SideScoreSchema


class PositionSchema(StrictSchema):
    variant = Variant()
    rules = RulesField()
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
    matta_as = KeptMatta()

    @ma.validates_schema
    def _distinct(self, data: dict[str, Any], **kwargs: Any) -> None:
        check_no_repeats({"hand": [data["hand"]], "table": [data["table"]]})
        check_rules_fit(data)
        check_kept_matta(data)


class MoveListSchema(ResponseSchema):
    moves = NestedList(
        LegalMoveSchema,
        "The legal moves in listing order (by card: value, then suit; "
        "captures before the laying of the card; then by the cards taken), every one "
        "unless `truncated`: then the first `limit`.",
    )
    truncated = fields.Boolean(
        required=True,
        metadata={"description": "There are more legal moves than `moves` lists (`limit`)."},
    )
    total = Integer(
        required=True,
        metadata={"description": "How many legal moves there are, listed or not."},
    )
    declarations = NestedList(
        LegalDeclarationSchema,
        "Cirulla: what a hand of three cards may declare at its first "
        "turn of a deal, before it plays (docs/rules.md C3); empty otherwise.",
    )


class ScoreRequestSchema(StrictSchema):
    variant = Variant()
    rules = RulesField()
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
    dealer_bonus = fields.List(
        Integer(validate=validate.Range(0, 3)),
        metadata={
            "description": "Cirulla only: each side's dealer's bonus this hand, 0-3 "
            "(docs/rules.md C2.3, C2.4), in the order of `piles` (default: none)."
        },
    )
    declarations = fields.List(
        Integer(validate=validate.Range(0, 120)),
        metadata={
            "description": "Cirulla only: each side's declaration points this hand, 3 a "
            "buona and 10 a decino (C3.1), in the order of `piles` (default: none)."
        },
    )

    @ma.validates_schema
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        check_no_repeats({"piles": data["piles"]})
        check_rules_fit(data)
        variant = get_variant(data["variant"])
        sides = sorted({max(team_of_seats(n)) + 1 for n in variant.player_counts})
        if len(data["piles"]) not in sides:
            raise ma.ValidationError(
                f"{variant.title} is played by {' or '.join(map(str, sides))} sides, "
                f"not {len(data['piles'])}: give one pile per side.",
                field_name="piles",
            )
        for name in ("scopas", "dealer_bonus", "declarations"):
            given = data.get(name)
            if given is not None and len(given) != len(data["piles"]):
                raise ma.ValidationError(
                    f"{name} has {len(given)} entries but there are {len(data['piles'])} "
                    "piles: give one per side.",
                    field_name=name,
                )
        for name, applies in (
            ("dealer_bonus", variant.bonus_apart),
            ("declarations", variant.has_declarations),
        ):
            if name in data and not applies:
                raise ma.ValidationError(
                    f"{variant.title} has no {name.replace('_', ' ')} line: leave it out.",
                    field_name=name,
                )


class ScoreSchema(ResponseSchema):
    teams = NestedList(SideScoreSchema, "Each side's score, in the order of `piles`.")
