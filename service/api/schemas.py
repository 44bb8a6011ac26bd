"""Schemas that more than one resource uses: a legal move, a side's score for a hand,
and the query that bounds a list of moves."""

from __future__ import annotations

from typing import Any

from marshmallow import fields, validate

from ..engine.moves import Declaration, DeclarationKind
from .fields import Boolean, Card, Cards, Integer, Nested, StrictSchema
from .responses import ResponseSchema

#: The most moves an answer lists (and its default): a 34-card table allows over 10,000
#: moves, some 800 KB of JSON as legal moves and 1.7 MB as an analysis.
MAX_LISTED_MOVES = 1000


class ListedMovesQuerySchema(StrictSchema):
    limit = fields.Integer(
        load_default=MAX_LISTED_MOVES,
        validate=validate.Range(1, MAX_LISTED_MOVES),
        metadata={
            "description": f"List at most this many moves (1 to {MAX_LISTED_MOVES}, the "
            "default): the first ones in the answer's order. `truncated` says whether "
            "there were more."
        },
    )


class LegalMoveSchema(ResponseSchema):
    card = Card()
    capture = Cards("The table cards this move takes; empty when the card is laid.")
    sweep = Boolean("The move clears the table.")


def DeclarationKindField(**kwargs: Any) -> fields.String:  # noqa: N802
    """What a Cirulla declaration is (docs/rules.md C3.1)."""
    return fields.String(
        validate=validate.OneOf([k.value for k in DeclarationKind]),
        metadata={
            "description": "`buona`: three cards worth 9 or less, 3 points; `decino`: three "
            "of a kind, 10 points (C3.1)."
        },
        **kwargs,
    )


def MattaAs(description: str, **kwargs: Any) -> fields.Integer:  # noqa: N802
    """The value the 7C takes in a Cirulla declaration: 1-10, or null without it."""
    return Integer(
        allow_none=True,
        validate=validate.Range(1, 10),
        metadata={"description": description},
        **kwargs,
    )


class LegalDeclarationSchema(ResponseSchema):
    """A declaration a seat may make now (Cirulla, C3): send it as it is to
    `POST /v1/games/{id}/declarations`."""

    declare = DeclarationKindField()
    matta_as = MattaAs(
        "The value the `7C` takes in it, 1-10 (one entry per value allowed, C3.2); null "
        "when the `7C` is not among the cards."
    )
    points = Integer("What it scores: 3 for a buona, 10 for a decino.")


def declarations_view(declarations: list[Declaration]) -> list[dict[str, Any]]:
    """Declarations as :class:`LegalDeclarationSchema` entries."""
    return [
        {"declare": d.kind.value, "matta_as": d.matta_as, "points": d.points} for d in declarations
    ]


class PointsSchema(ResponseSchema):
    #: The options' categories, only when the match plays them; Cirulla's lines, only
    #: in Cirulla (docs/rules.md C7).
    optional = frozenset(
        {"re_bello", "napola", "dealer_bonus", "declarations", "grande", "piccola"}
    )

    cards = Integer("1 for most cards (a tie: nobody).")
    coins = Integer("1 for most coins (a tie: nobody).")
    settebello = Integer("1 for the 7 of coins.")
    primiera = Integer("1 for the best primiera (a tie: nobody).")
    scopas = Integer("1 per scopa.")
    re_bello = Integer("Option re_bello: 1 for the king of coins.")
    napola = Integer("Option napola: the run of coins from the ace.")
    dealer_bonus = Integer(
        metadata={"description": "Cirulla: the dealer's bonus, 1 or 2 (3 with table_low) (C2.3)."}
    )
    declarations = Integer(
        metadata={"description": "Cirulla: 3 per buona, 10 per decino declared (C3)."}
    )
    grande = Integer("Cirulla: 5 for 8D, 9D and 10D (C7.2).")
    piccola = Integer(
        metadata={"description": "Cirulla: 3 for 1D, 2D, 3D, 1 more a coin of the run (C7.3)."}
    )


class SideScoreSchema(ResponseSchema):
    team = Integer()
    captured = Cards("Every card the side took this hand.")
    cards = Integer("How many cards it took.")
    coins = Integer("How many coins (D) it took.")
    settebello = Boolean("It took the 7 of coins.")
    primiera = Integer(
        allow_none=True,
        metadata={"description": "Its primiera value, or null when a suit is missing."},
    )
    scopas = Integer()
    points = Nested(PointsSchema, "Points by category.")
    total = Integer("Points this hand.")
