"""What /v1/games takes and answers."""

from __future__ import annotations

from marshmallow import fields, validate

from ....bots import BOT_LEVELS
from ....engine import VARIANTS, EventKind, Status
from ....engine.match import MAX_TARGET, MIN_TARGET
from ...fields import (
    Boolean,
    Card,
    Cards,
    Integer,
    RulesField,
    RulesSchema,
    StrictSchema,
    Variant,
    printable,
)
from ...responses import ResponseSchema
from ...schemas import LegalMoveSchema, SideScoreSchema


class SeatSpecSchema(StrictSchema):
    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=40), printable],
        metadata={"description": "The player's display name (1-40 characters)."},
    )
    bot = fields.String(
        validate=validate.OneOf(BOT_LEVELS),
        metadata={
            "description": "Make this seat a computer player of this level: `random` (any "
            "legal move), `greedy` (the best capture now, else the least useful card) or "
            "`expert` (a search over the hidden cards it cannot see). It has no token. It "
            "plays when its turn comes: within the request that gave it the turn for a "
            "short allowance (its moves are in that answer's `events`), then in the "
            "background; follow the game view or its events to see those moves."
        },
    )


class CreateGameSchema(StrictSchema):
    variant = Variant("The game to play (docs/rules.md R10); `GET /v1/variants` describes each.")
    players = Integer(
        validate=validate.OneOf([2, 3, 4, 6]),
        metadata={
            "description": "Number of players (default: 2, or 4 for the scopone variants): "
            "2 or 3 play alone, 4 in two "
            "partnerships (seats 0+2 against 1+3), 6 in two teams of three (0, 2, 4 "
            "against 1, 3, 5). Leave out when `seats` is given, or give the same count."
        },
    )
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        validate=validate.Length(min=2, max=6),
        metadata={"description": "The seats in playing order, with their names."},
    )
    target = Integer(
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata={"description": "Points that end the match (default 11; 16 and 21 are common)."},
    )
    rules = RulesField()
    seed = Integer(
        validate=validate.Range(0, 2**63 - 1),
        metadata={
            "description": "Makes the first dealer and every shuffle of the match "
            "reproducible. Without `seed` or `deck`, shuffles are cryptographically random."
        },
    )
    deck = fields.List(
        Card(),
        validate=validate.Length(equal=40),
        metadata={
            "description": "All 40 cards, each once: the first hand is dealt from this list "
            "in order, cards taken from the front. "
            + " ".join(f"`{v.name}`: {v.deal_order}." for v in VARIANTS.values())
            + " If the table must be dealt again (3 or 4 kings, R3), the new deal comes "
            "from a shuffle. A match created with `deck` or `seed` is marked `seeded`."
        },
    )
    first_dealer = Integer(
        validate=validate.Range(0, 5),
        metadata={"description": "The seat that deals the first hand (default: drawn at random)."},
    )


class MoveRequestSchema(StrictSchema):
    card = Card(required=True, metadata={"description": "The card to play, from your hand."})
    capture = Cards(
        "The table cards it takes; `[]` lays the card. May be left out when the card has "
        "exactly one legal move.",
        allow_none=True,
    )


class SeatViewSchema(ResponseSchema):
    seat = Integer(metadata={"description": "Seat index, 0-based, in playing order."})
    name = fields.String()
    bot = fields.String(
        allow_none=True,
        validate=validate.OneOf(BOT_LEVELS),
        metadata={"description": "The computer player's level, or null for a person."},
    )
    team = Integer(metadata={"description": "The side this seat scores for."})
    hand_count = Integer(metadata={"description": "Cards in this seat's hand."})
    captured_count = Integer(
        metadata={"description": "Cards this seat has captured in the current hand."}
    )
    scopas = Integer(metadata={"description": "Scopas this seat made in the current hand."})


class TeamViewSchema(ResponseSchema):
    team = Integer()
    seats = fields.List(Integer(), metadata={"description": "The seats of this side."})
    score = Integer(metadata={"description": "Match points so far."})


class PlayedMoveSchema(ResponseSchema):
    seat = Integer()
    card = Card()
    capture = Cards("The table cards taken; empty when the card was laid.")
    scopa = Boolean(metadata={"description": "The move scored a scopa (R5)."})


class RulesViewSchema(RulesSchema):
    pass


class GameViewSchema(ResponseSchema):
    """A game as one viewer may see it: a seat sees its own hand, nobody sees another
    seat's hand or the stock."""

    class Meta:
        ordered = True

    optional = frozenset({"hand"})

    id = fields.String(metadata={"description": "The game id."})
    version = Integer(metadata={"description": "Increases by one with every move."})
    variant = fields.String(validate=validate.OneOf(sorted(VARIANTS)))
    status = fields.String(validate=validate.OneOf([s.value for s in Status]))
    target = Integer()
    rules = fields.Nested(RulesViewSchema)
    seeded = Boolean(
        metadata={
            "description": "The match was created with a `seed` or a `deck`: its deals "
            "are not secret."
        }
    )
    hand_number = Integer(metadata={"description": "The hand being played, from 1."})
    dealer = Integer(metadata={"description": "The seat that dealt this hand."})
    turn = Integer(
        allow_none=True, metadata={"description": "The seat to play; null when finished."}
    )
    table = Cards("The cards face up on the table.")
    stock_count = Integer(metadata={"description": "Cards left to deal in this hand."})
    you = Integer(
        allow_none=True, metadata={"description": "Your seat, or null for a spectator's view."}
    )
    hand = Cards("Your cards (only in a seat's view).")
    seats = fields.List(fields.Nested(SeatViewSchema))
    teams = fields.List(fields.Nested(TeamViewSchema))
    last_move = fields.Nested(PlayedMoveSchema, allow_none=True)
    winner = Integer(
        allow_none=True, metadata={"description": "The winning team once finished, else null."}
    )


class SeatMovesSchema(ResponseSchema):
    seat = Integer()
    moves = fields.List(
        fields.Nested(LegalMoveSchema),
        metadata={"description": "Every legal move now; empty when it is not this seat's turn."},
    )


class HandScoreSchema(ResponseSchema):
    hand = Integer(metadata={"description": "The hand number, from 1."})
    teams = fields.List(fields.Nested(SideScoreSchema))
    scores = fields.List(
        Integer(), metadata={"description": "Match totals after this hand, by team."}
    )


class HandListSchema(ResponseSchema):
    hands = fields.List(
        fields.Nested(HandScoreSchema), metadata={"description": "Finished hands, in order."}
    )


class EventSeatSchema(ResponseSchema):
    seat = Integer()
    name = fields.String()
    team = Integer()


class RemainderSchema(ResponseSchema):
    seat = Integer(allow_none=True, metadata={"description": "The last seat to capture."})
    team = Integer(allow_none=True)
    cards = Cards("The cards left on the table, now that side's (R6).")


class EventSchema(ResponseSchema):
    """One thing that happened. Which fields are present depends on `type`:
    `match_started` (variant, seats, target, rules, seeded, dealer); `redeal` (hand,
    dealer, table, reason); `deal` (hand, dealer, cards_each, table, stock_count, and
    `cards`: the viewer's own cards, only for a seat); `dealer_bonus` (escoba: hand,
    seat, capture, scopas); `move` (seat, card, capture, scopa); `hand_over` (hand,
    remainder, score); `match_over` (winner, scores)."""

    #: Which fields an event has depends on its type; ``seq`` only in the event log.
    optional = frozenset(
        {
            "seq",
            "variant",
            "seats",
            "target",
            "rules",
            "seeded",
            "hand",
            "dealer",
            "reason",
            "cards_each",
            "table",
            "stock_count",
            "cards",
            "seat",
            "card",
            "capture",
            "scopa",
            "scopas",
            "remainder",
            "score",
            "winner",
            "scores",
        }
    )

    type = fields.String(validate=validate.OneOf([k.value for k in EventKind]))
    seq = Integer(metadata={"description": "Position in the game's event log, from 0."})
    variant = fields.String()
    seats = fields.List(fields.Nested(EventSeatSchema))
    target = Integer()
    rules = fields.Nested(RulesViewSchema)
    seeded = Boolean()
    hand = Integer(metadata={"description": "The hand number."})
    dealer = Integer()
    reason = fields.String()
    cards_each = Integer(metadata={"description": "Cards dealt to each seat."})
    table = Cards("Cards dealt face up to the table (deal), or the table that forced a redeal.")
    stock_count = Integer()
    cards = Cards("Deal: the cards dealt to you (only in a seat's view).")
    seat = Integer()
    card = Card()
    capture = Cards("Cards taken.")
    scopa = Boolean()
    scopas = Integer(metadata={"description": "Dealer's bonus: the escobas it scores."})
    remainder = fields.Nested(RemainderSchema)
    score = fields.Nested(HandScoreSchema)
    winner = Integer(allow_none=True)
    scores = fields.List(Integer())


class CreatedSeatSchema(ResponseSchema):
    seat = Integer()
    name = fields.String()
    team = Integer()
    bot = fields.String(
        allow_none=True,
        validate=validate.OneOf(BOT_LEVELS),
        metadata={"description": "The computer player's level, or null for a person."},
    )
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "This seat's secret bearer token, shown only in this response: "
            "send it as `Authorization: Bearer <token>`. Null for a computer player."
        },
    )


class GameCreatedSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    seats = fields.List(fields.Nested(CreatedSeatSchema))
    events = fields.List(
        fields.Nested(EventSchema),
        metadata={"description": "The computer players' moves, if they played first."},
    )
    state = fields.Nested(GameViewSchema, metadata={"description": "The spectator's view."})


class MoveResultSchema(ResponseSchema):
    move = fields.Nested(PlayedMoveSchema)
    events = fields.List(
        fields.Nested(EventSchema),
        metadata={
            "description": "What followed the move: the computer players' moves, deals, "
            "the hand's score, the match's end."
        },
    )
    state = fields.Nested(GameViewSchema, metadata={"description": "Your view after the move."})


class BotMovesSchema(ResponseSchema):
    events = fields.List(
        fields.Nested(EventSchema),
        metadata={"description": "The computer players' moves and what followed them."},
    )
    state = fields.Nested(GameViewSchema, metadata={"description": "The spectator's view."})


class EventLogSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    events = fields.List(fields.Nested(EventSchema))


class EventQuerySchema(StrictSchema):
    # A query string holds text: "3" is the integer 3 here (and "1.5" still is not one).
    after = fields.Integer(
        validate=validate.Range(-1, 10**9),
        metadata={
            "description": "Only the events after the one with this `seq` (-1, or left "
            "out: from the first)."
        },
    )
