"""What playing takes and answers: a seat's legal moves, a move, a declaration, the
computer players' turns."""

from __future__ import annotations

from marshmallow import fields

from ...fields import Boolean, Card, Cards, Integer, Nested, NestedList, StrictSchema
from ...game_views.events import DeclarationEventSchema, Events
from ...game_views.schemas import GameViewSchema, PlayedMoveSchema
from ...responses import ResponseSchema
from ...schemas import DeclarationKindField, LegalDeclarationSchema, LegalMoveSchema, MattaAs


class MoveRequestSchema(StrictSchema):
    card = Card(required=True, metadata={"description": "The card to play, from your hand."})
    capture = Cards(
        "The table cards it takes; `[]` lays the card. May be left out when the card has "
        "exactly one legal move.",
        allow_none=True,
    )
    sweep = Boolean(
        metadata={
            "description": "Ignored: accepted so that an entry of `legal-moves` can be sent "
            "back as it is."
        }
    )


class DeclarationRequestSchema(StrictSchema):
    declare = DeclarationKindField(required=True)
    matta_as = MattaAs(
        "The value the `7C` takes, 1-10, when it is among your three cards (C3.2); leave "
        "it out or send null otherwise."
    )
    points = Integer(
        metadata={
            "description": "Ignored: accepted so that an entry of `declarations` in "
            "`legal-moves` can be sent back as it is."
        }
    )


class SeatMovesSchema(ResponseSchema):
    seat = Integer()
    moves = NestedList(
        LegalMoveSchema, "Every legal move now; empty when it is not this seat's turn."
    )
    declarations = NestedList(
        LegalDeclarationSchema,
        "Cirulla: the declarations this seat may make before it plays "
        "(C3), sent to `POST /v1/games/{id}/declarations`; empty in every other case "
        "(another variant, not its first turn of the deal, declared already, nothing "
        "to declare).",
    )


class MoveResultSchema(ResponseSchema):
    move = fields.Nested(PlayedMoveSchema)
    events = Events(
        "What followed the move: the computer players' moves, deals, the hand's score, "
        "the match's end."
    )
    state = Nested(GameViewSchema, "Your view after the move.")


class DeclaredSchema(ResponseSchema):
    declaration = Nested(DeclarationEventSchema, "The declaration, as the event log has it.")
    state = Nested(GameViewSchema, "Your view after it: still your turn, your cards face up.")


class BotMovesSchema(ResponseSchema):
    events = Events("The computer players' moves and what followed them.")
    state = Nested(GameViewSchema, "The spectator's view.")
