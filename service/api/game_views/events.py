"""A game's events as the API shows them (``Event``): in its log, its stream and the
answers that carry events, each kind with its own schema."""

from __future__ import annotations

from marshmallow import fields, validate

from ...engine import EventKind
from ...engine.variants.cirulla import CaptureKind
from ..fields import (
    Boolean,
    Card,
    Cards,
    Enumerated,
    Enumeration,
    Integer,
    String,
    VariantName,
)
from ..responses import ResponseSchema, TaggedUnion
from ..schemas import DeclarationKindField, MattaAs, SideScoreSchema
from .schemas import RulesViewSchema


class HandScoreSchema(ResponseSchema):
    hand = Integer("The hand number, from 1.")
    teams = fields.List(fields.Nested(SideScoreSchema))
    scores = fields.List(
        Integer(), metadata={"description": "Match totals after this hand, by team."}
    )


class EventSeatSchema(ResponseSchema):
    seat = Integer()
    name = fields.String()
    team = Integer()


class RemainderSchema(ResponseSchema):
    seat = Integer(allow_none=True, metadata={"description": "The last seat to capture."})
    team = Integer(allow_none=True)
    cards = Cards("The cards left on the table, now that side's (R6).")


class EventBaseSchema(ResponseSchema):
    """What every event has: its ``type`` (each kind's schema narrows it to its own), and
    its ``seq`` in the event log (every answer, the log and the stream number each event
    they carry)."""

    type = fields.String()
    seq = Integer(
        metadata={
            "description": "Position in the game's event log, from 0: the same in the log, "
            "the stream and the answers that carry events."
        }
    )


def Kind(kind: EventKind) -> fields.String:  # noqa: N802
    return fields.String(validate=validate.Equal(kind.value))


class SeatJoinedEventSchema(EventBaseSchema):
    class Meta:
        description = "A person took an open seat, before the match started."

    type = Kind(EventKind.SEAT_JOINED)
    seat = Integer()
    name = String("The name the person took it with.")


class SeatLeftEventSchema(EventBaseSchema):
    class Meta:
        description = "A person left a seat before the match started: it is open again."

    type = Kind(EventKind.SEAT_LEFT)
    seat = Integer()


class MatchStartedEventSchema(EventBaseSchema):
    class Meta:
        description = "The match began: its seats, teams, target and rules."

    type = Kind(EventKind.MATCH_STARTED)
    variant = VariantName()
    seats = fields.List(fields.Nested(EventSeatSchema))
    target = Integer("Points that end the match.")
    rules = fields.Nested(RulesViewSchema)
    seeded = Boolean("Created with a `seed` or a `deck`.")
    dealer = Integer("The seat that deals the first hand.")


class RedealEventSchema(EventBaseSchema):
    class Meta:
        description = "Three or four kings on the table: the same dealer deals again (R3)."

    type = Kind(EventKind.REDEAL)
    hand = Integer("The hand number.")
    dealer = Integer()
    table = Cards("The table that forced the redeal.")
    reason = fields.String()


class DealEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "Cards dealt: a new hand, or a new round from the stock (R3). A seat's view "
            "shows the cards dealt to it in `cards`; nobody sees another seat's."
        )

    optional = EventBaseSchema.optional | {"cards"}

    type = Kind(EventKind.DEAL)
    hand = Integer("The hand number.")
    dealer = Integer()
    cards_each = Integer("Cards dealt to each seat.")
    table = Cards("Cards dealt face up to the table (empty after the first round).")
    stock_count = Integer("Cards left to deal in this hand.")
    cards = Cards("The cards dealt to you: only in a seat's view.")


class DealerBonusEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "The dealer takes the table just dealt, scoring escobas (escoba, R10) or "
            "scopas (Cirulla, docs/rules.md C2.3)."
        )

    optional = EventBaseSchema.optional | {"matta_as"}

    type = Kind(EventKind.DEALER_BONUS)
    hand = Integer("The hand number.")
    seat = Integer("The dealer.")
    capture = Cards("The table it took.")
    scopas = Integer("The escobas (scopas) it scores.")
    matta_as = Integer(
        metadata={
            "description": "Cirulla, when the 7C was on the table: the value it counted "
            "as (C2.3, C2.4)."
        }
    )


class DeclarationEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "A seat declared its three cards, which stay face up until played "
            "(Cirulla, docs/rules.md C3); it plays a card next."
        )

    type = Kind(EventKind.DECLARATION)
    hand = Integer("The hand number.")
    seat = Integer()
    kind = DeclarationKindField()
    matta_as = MattaAs(
        "The value the 7C takes in the declaration, 1-10; null when the 7C is not among "
        "the cards (C3.2)."
    )
    cards = Cards("The three cards declared: face up until each is played (C3.4).")
    points = Integer("3 for a buona, 10 for a decino (C3.1).")


CAPTURE_KIND = Enumeration(
    "CaptureKind",
    tuple(k.value for k in CaptureKind),
    "Cirulla: the kind of a capture (docs/rules.md C4.4): `match`, one card of the played "
    "card's value; `sum`, cards adding up to it; `fifteen`, cards adding up to 15 with it; "
    "`ace_sweep`, an ace taking the whole table.",
)


class MoveEventSchema(EventBaseSchema):
    class Meta:
        description = "A seat played a card (R4, R5)."

    optional = EventBaseSchema.optional | {"timeout", "kind"}

    type = Kind(EventKind.MOVE)
    seat = Integer()
    card = Card(metadata={"description": "The card played."})
    capture = Cards("The table cards taken; empty when the card was laid.")
    scopa = Boolean("The move scored a scopa (R5).")
    kind = Enumerated(
        CAPTURE_KIND,
        allow_none=True,
        metadata={
            "description": "Cirulla only: the kind of capture (C4.4): `match`, `sum`, "
            "`fifteen` or `ace_sweep`; null when the card was laid."
        },
    )
    timeout = Boolean(
        metadata={
            "description": "Only on a move the service played for a person whose turn "
            "clock ran out (always true): the greedy player's move (docs/rules.md R12)."
        }
    )


class HandOverEventSchema(EventBaseSchema):
    class Meta:
        description = "The hand's last card was played: the remainder and the score (R6, R7)."

    type = Kind(EventKind.HAND_OVER)
    hand = Integer("The hand number.")
    remainder = fields.Nested(RemainderSchema)
    score = fields.Nested(HandScoreSchema)


class MatchOverEventSchema(EventBaseSchema):
    class Meta:
        description = "A side won (R8, R9 napoleone)."

    optional = EventBaseSchema.optional | {"reason"}

    type = Kind(EventKind.MATCH_OVER)
    winner = Integer("The winning team.")
    scores = fields.List(Integer(), metadata={"description": "Match totals, by team."})
    reason = String(
        "Why the match is over: `target`, the winner's total reached the "
        "target and is the single highest (R8); `napoleone` (R9) or `cappotto` "
        "(Cirulla, C7.4), the winner captured all ten coins in the last hand. Absent "
        "from matches that ended before 2026-12-01.",
        validate=validate.OneOf(["target", "napoleone", "cappotto"]),
    )


class RematchEventSchema(EventBaseSchema):
    class Meta:
        description = "After the match: a seat asked for the next one."

    type = Kind(EventKind.REMATCH)
    game = String("The next match's game id.")


class AbortedEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "The service key that created the game aborted it: no winner, nothing more "
            "happens in it (its stream ends after this event)."
        )

    type = Kind(EventKind.ABORTED)
    reason = String("Why, as the key said.")


#: The schema of each kind of event.
EVENT_SCHEMAS: dict[str, type[EventBaseSchema]] = {
    EventKind.SEAT_JOINED: SeatJoinedEventSchema,
    EventKind.SEAT_LEFT: SeatLeftEventSchema,
    EventKind.MATCH_STARTED: MatchStartedEventSchema,
    EventKind.REDEAL: RedealEventSchema,
    EventKind.DEAL: DealEventSchema,
    EventKind.DEALER_BONUS: DealerBonusEventSchema,
    EventKind.DECLARATION: DeclarationEventSchema,
    EventKind.MOVE: MoveEventSchema,
    EventKind.HAND_OVER: HandOverEventSchema,
    EventKind.MATCH_OVER: MatchOverEventSchema,
    EventKind.REMATCH: RematchEventSchema,
    EventKind.ABORTED: AbortedEventSchema,
}


def Events(description: str | None = None) -> fields.List:  # noqa: N802
    """A list of events, each as the schema of its ``type``: ``Event`` in the spec."""
    event = TaggedUnion(
        "Event",
        "type",
        {kind: schema() for kind, schema in EVENT_SCHEMAS.items()},
        description="One thing that happened in a game; `type` says what, and which fields it has.",
    )
    metadata = {"description": description} if description else {}
    return fields.List(event, metadata=metadata)
