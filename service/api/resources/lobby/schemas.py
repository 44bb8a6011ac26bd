"""What a game waiting for people takes and answers: its invitation, a seat taken; and
after the match, the rematch."""

from __future__ import annotations

from marshmallow import fields, validate

from ...fields import Integer, Name, Nested, StrictSchema, String
from ...game_views.schemas import GameViewSchema
from ...responses import ResponseSchema


class InvitationQuerySchema(StrictSchema):
    code = String("The game's join code.", required=True, validate=validate.Length(min=1, max=64))


class JoinRequestSchema(StrictSchema):
    name = Name("Your display name (1-40 characters).", required=True)
    code = String(
        "The game's join code, from whoever created it.",
        required=True,
        validate=validate.Length(min=1, max=64),
    )
    seat = Integer(
        validate=validate.Range(0, 5),
        metadata={"description": "The open seat to take (default: the first open one)."},
    )


class JoinedSchema(ResponseSchema):
    id = String("The game id.")
    seat = Integer("Your seat.")
    name = fields.String()
    team = Integer()
    token = String(
        "Your seat's secret bearer token, shown only in this response "
        "(and its replays with the same Idempotency-Key): send it as "
        "`Authorization: Bearer <token>`."
    )
    state = Nested(
        GameViewSchema,
        "Your view: `waiting` while seats are open, `playing` once you took the last one.",
    )


class RematchSchema(ResponseSchema):
    id = String("The rematch's game id.")
    seat = Integer("Your seat there: the same as in this match.")
    token = String(
        "Your seat's token for the rematch. Every seat of the finished "
        "match gets its own by asking here with its token for that match; asking again "
        "gives the same one. Null for a seat that had no token (an imported game's: "
        "its service key acts for it with `X-Seat`).",
        allow_none=True,
    )
    state = Nested(GameViewSchema, "Your view of the rematch.")
