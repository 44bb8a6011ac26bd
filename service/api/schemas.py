"""Response schemas that more than one resource answers with: a legal move, and a
side's score for a hand."""

from __future__ import annotations

from marshmallow import fields

from .fields import Boolean, Card, Cards, Integer
from .responses import ResponseSchema


class LegalMoveSchema(ResponseSchema):
    card = Card()
    capture = Cards("The table cards this move takes; empty when the card is laid.")
    sweep = Boolean(metadata={"description": "The move clears the table."})


class PointsSchema(ResponseSchema):
    #: The options' categories, only when the match plays them; Cirulla's lines, only
    #: in Cirulla (docs/rules.md C7).
    optional = frozenset(
        {"re_bello", "napola", "dealer_bonus", "declarations", "grande", "piccola"}
    )

    cards = Integer(metadata={"description": "1 for most cards (a tie: nobody)."})
    coins = Integer(metadata={"description": "1 for most coins (a tie: nobody)."})
    settebello = Integer(metadata={"description": "1 for the 7 of coins."})
    primiera = Integer(metadata={"description": "1 for the best primiera (a tie: nobody)."})
    scopas = Integer(metadata={"description": "1 per scopa."})
    re_bello = Integer(metadata={"description": "Option re_bello: 1 for the king of coins."})
    napola = Integer(metadata={"description": "Option napola: the run of coins from the ace."})
    dealer_bonus = Integer(
        metadata={"description": "Cirulla: the dealer's bonus, 1 or 2 (3 with table_low) (C2.3)."}
    )
    declarations = Integer(
        metadata={"description": "Cirulla: 3 per buona, 10 per decino declared (C3)."}
    )
    grande = Integer(metadata={"description": "Cirulla: 5 for 8D, 9D and 10D (C7.2)."})
    piccola = Integer(
        metadata={"description": "Cirulla: 3 for 1D, 2D, 3D, 1 more a coin of the run (C7.3)."}
    )


class SideScoreSchema(ResponseSchema):
    team = Integer()
    captured = Cards("Every card the side took this hand.")
    cards = Integer(metadata={"description": "How many cards it took."})
    coins = Integer(metadata={"description": "How many coins (D) it took."})
    settebello = Boolean(metadata={"description": "It took the 7 of coins."})
    primiera = Integer(
        allow_none=True,
        metadata={"description": "Its primiera value, or null when a suit is missing."},
    )
    scopas = Integer()
    points = fields.Nested(PointsSchema, metadata={"description": "Points by category."})
    total = Integer(metadata={"description": "Points this hand."})
