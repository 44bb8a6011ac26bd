"""What /v1/games takes and answers."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, pre_load, validate, validates_schema

from ....engine import VARIANTS, EventKind, Status
from ....engine.match import MAX_TARGET, MIN_TARGET
from ....engine.variants.cirulla import CaptureKind
from ....play import MAX_CLOCK_SECONDS, MIN_CLOCK_SECONDS
from ...fields import (
    AbortReason,
    Boolean,
    BotLevel,
    Card,
    Cards,
    DisplayName,
    Enumerated,
    Enumeration,
    Integer,
    MetadataValue,
    RulesField,
    RulesSchema,
    StrictSchema,
    Variant,
    VariantName,
)
from ...responses import ResponseSchema, TaggedUnion
from ...schemas import (
    DeclarationKindField,
    LegalDeclarationSchema,
    LegalMoveSchema,
    MattaAs,
    SideScoreSchema,
)
from ...seats import AsSeat


def Name(description: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A person's display name (its rules: service/play/text.py)."""
    return DisplayName(metadata={"description": description}, **kwargs)


#: A platform's player id: printable ASCII, no spaces (a UUID, a number, "user:42").
MAX_PLAYER_ID = 64
PLAYER_ID = validate.Regexp(
    r"^[\x21-\x7e]{1,64}$",
    error=f"1 to {MAX_PLAYER_ID} printable ASCII characters, no spaces.",
)
#: A game's metadata: at most this many entries, of at most this many bytes in all (keys
#: and values, UTF-8); keys of letters, digits and _ . - (they are listing filters:
#: `metadata.<key>=<value>`).
MAX_METADATA_ENTRIES = 16
MAX_METADATA_BYTES = 1024
METADATA_KEY = validate.Regexp(
    r"^[A-Za-z0-9_.-]{1,40}$", error="1 to 40 letters, digits, _ . or -."
)


def PlayerId(description: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A seat's player id, the platform's own."""
    return fields.String(
        validate=PLAYER_ID, metadata={"description": description, "example": "user-8812"}, **kwargs
    )


def check_metadata(value: dict[str, str]) -> None:
    """Metadata within its bounds (entries, bytes)."""
    if len(value) > MAX_METADATA_ENTRIES:
        raise ValidationError(f"At most {MAX_METADATA_ENTRIES} entries.")
    size = sum(len(k.encode()) + len(v.encode("utf-8", "surrogatepass")) for k, v in value.items())
    if size > MAX_METADATA_BYTES:
        raise ValidationError(
            f"At most {MAX_METADATA_BYTES} bytes of keys and values in all (UTF-8); these "
            f"are {size}."
        )


def Metadata(values: fields.Field | None = None, **kwargs: Any) -> fields.Dict:  # noqa: N802
    """A game's metadata: its values checked (:func:`MetadataValue`), or ``values``."""
    return fields.Dict(
        keys=fields.String(validate=METADATA_KEY),
        values=values or MetadataValue(),
        metadata={
            "description": f"The platform's own data about the game, as text: at most "
            f"{MAX_METADATA_ENTRIES} entries of {MAX_METADATA_BYTES} bytes in all, keys of "
            "letters, digits and `_ . -`. Shown to everyone who sees the game; a key lists "
            "its games by it (`metadata.<key>=<value>`).",
            "example": {"tournament": "spring-cup", "round": "3"},
        },
        **kwargs,
    )


class SeatSpecSchema(StrictSchema):
    player_id = PlayerId(
        f"With a service key: the platform's id of this seat's player (1 to "
        f"{MAX_PLAYER_ID} printable ASCII characters), shown only to the key and to this "
        "seat itself, never to the other seats or spectators; the key lists games by it."
    )
    name = Name(
        "The player's display name (1-40 characters); null, or left out with `open`, "
        "leaves the seat open for someone to join. A computer player's seat may leave it "
        "out: it is named `Computer <seat + 1>`.",
        allow_none=True,
    )
    open = Boolean(
        metadata={
            "description": "Leave this seat open: someone takes it with the join code "
            "(`POST /v1/games/{id}/join`). A game with open seats waits, nothing dealt, "
            "until every seat is taken; then the match starts."
        }
    )
    bot = BotLevel(
        metadata={
            "description": "Make this seat a computer player of this level: `random` (any "
            "legal move), `greedy` (the best capture now, else the least useful card) or "
            "`expert` (a search over the hidden cards it cannot see). It has no token. It "
            "plays when its turn comes: within the request that gave it the turn for a "
            "short allowance (its moves are in that answer's `events`), then in the "
            "background; follow the game view or its events to see those moves."
        },
    )

    @validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        open_ = _is_open(data)
        if open_ and data.get("name") is not None:
            raise ValidationError("An open seat has no name: its player names it on joining.")
        if open_ and "bot" in data:
            raise ValidationError("A computer player's seat cannot be open.")
        if not open_ and "name" not in data and "bot" not in data:
            raise ValidationError("Give the seat a `name`, or make it `open`.", "name")


def _is_open(seat: dict[str, Any]) -> bool:
    """A seat spec (as loaded) leaves the seat open: ``open``, or a null name."""
    return bool(seat.get("open", False) or ("name" in seat and seat["name"] is None))


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
            "reproducible. Without `seed` or `deck`, shuffles are cryptographically random. "
            "Refused (422) with open seats: it would tell the creator the joiners' hands."
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
            "from a shuffle. A match created with `deck` or `seed` is marked `seeded`. "
            "Refused (422) with open seats: it would tell the creator the joiners' hands."
        },
    )
    first_dealer = Integer(
        validate=validate.Range(0, 5),
        metadata={"description": "The seat that deals the first hand (default: drawn at random)."},
    )
    clock = Integer(
        validate=validate.Range(MIN_CLOCK_SECONDS, MAX_CLOCK_SECONDS),
        metadata={
            "description": "Seconds each person has for each move (5-3600; default: no "
            "clock). When a person's time runs out, the service plays the greedy player's "
            "move for them, the least harmful one, and marks its `move` event `timeout: "
            "true` (docs/rules.md R12). The view's `clock` says when the turn runs out."
        },
    )
    spectators = Boolean(
        load_default=True,
        metadata={
            "description": "False: every view of the game (the game, its events, its hands, "
            "its stream) needs a seat's token; nobody can watch."
        },
    )
    metadata = Metadata(validate=check_metadata)

    @validates_schema
    def _nothing_known_of_joiners_hands(self, data: dict[str, Any], **kwargs: Any) -> None:
        """Whoever knows a `seed` or a `deck` knows every hand it deals: a game with
        open seats would show its creator the hands of the people who join it."""
        fixed = [name for name in ("seed", "deck") if name in data]
        if fixed and any(_is_open(seat) for seat in data.get("seats") or ()):
            raise ValidationError(
                f"`{fixed[0]}` fixes every deal, so whoever sent it would know the hands "
                "of the people who take the open seats: leave it out, or name every seat.",
                fixed[0],
            )


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


class SeatViewSchema(ResponseSchema):
    #: Only in variants with declarations (Cirulla); only to whom it may be shown.
    optional = frozenset({"exposed", "declared_points", "player_id"})

    seat = Integer(metadata={"description": "Seat index, 0-based, in playing order."})
    name = fields.String(allow_none=True, metadata={"description": "Null while the seat is open."})
    open = Boolean(metadata={"description": "Nobody has taken this seat yet: the game is waiting."})
    bot = BotLevel(
        allow_none=True,
        metadata={"description": "The computer player's level, or null for a person."},
    )
    team = Integer(metadata={"description": "The side this seat scores for."})
    hand_count = Integer(metadata={"description": "Cards in this seat's hand."})
    captured_count = Integer(
        metadata={"description": "Cards this seat has captured in the current hand."}
    )
    scopas = Integer(metadata={"description": "Scopas this seat made in the current hand."})
    exposed = Cards(
        "Cirulla only: the cards this seat declared and has not played yet, face up for "
        "everyone (C3.4); empty when it declared nothing in this deal."
    )
    declared_points = Integer(
        metadata={
            "description": "Cirulla only: the points of this seat's declarations in the "
            "current hand (C3.1)."
        }
    )
    player_id = PlayerId(
        "The platform's id of this seat's player, as given at creation (null: none): "
        "only to the service key that created the game and to this seat's own token; "
        "absent for everyone else.",
        allow_none=True,
    )


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


class JoinInfoSchema(ResponseSchema):
    code = fields.String(
        metadata={
            "description": "The join code: give it to the people who are to take the open "
            "seats (10 letters and digits).",
            "example": "K7M2QXPA4R",
        }
    )
    url = fields.String(
        metadata={
            "description": 'Where they send it: `POST` `{"name": ..., "code": ...}` '
            "here (relative to the API's base URL, like `Location`)."
        }
    )
    link = fields.String(
        metadata={
            "description": "A link to share with people: the service's own page `/play` "
            "opens it at this game's join form (relative to the service's base URL). An app "
            "of your own makes its link from `id` and `code` instead."
        }
    )


class ClockSchema(ResponseSchema):
    seconds = Integer(metadata={"description": "Seconds each person has for each move."})
    deadline = fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "example": "2026-11-30T20:15:42.250Z",
            "description": "When the turn of the person to play runs out (UTC); null when "
            "no person's clock runs (a computer player's turn, a game waiting or over).",
        },
    )


class GameViewSchema(ResponseSchema):
    """A game as one viewer may see it: a seat sees its own hand, nobody sees another
    seat's hand or the stock."""

    class Meta:
        ordered = True

    optional = frozenset({"hand", "matta_as"})

    id = fields.String(metadata={"description": "The game id."})
    version = Integer(metadata={"description": "Increases by one with every move."})
    seq = Integer(
        metadata={
            "description": "The `seq` of the last event of the game's log this view "
            "includes (-1 while the log is empty): follow the log from here "
            "(`/events?after=`, the stream's `after`)."
        }
    )
    variant = VariantName()
    status = fields.String(
        validate=validate.OneOf([s.value for s in Status]),
        metadata={
            "description": "`waiting`: open seats to take, nothing dealt yet; `playing`; "
            "`finished`; `aborted`: stopped by the service key that created it "
            "(`abort_reason` says why), with no winner and no more moves."
        },
    )
    target = Integer()
    rules = fields.Nested(RulesViewSchema)
    seeded = Boolean(
        metadata={
            "description": "The match was created with a `seed` or a `deck`: its deals "
            "are not secret."
        }
    )
    hand_number = Integer(
        metadata={"description": "The hand being played, from 1 (0 while waiting)."}
    )
    dealer = Integer(
        allow_none=True,
        metadata={
            "description": "The seat that dealt this hand; while waiting, the seat that "
            "will deal first, or null if it will be drawn."
        },
    )
    turn = Integer(
        allow_none=True, metadata={"description": "The seat to play; null when finished."}
    )
    table = Cards("The cards face up on the table.")
    matta_as = MattaAs(
        "Cirulla with `matta_keeps_value` only: the value a declaration gave the `7C`, "
        "which it keeps in its holder's hand and on the table until captured (C5.2); "
        "null when it keeps none."
    )
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
    spectators = Boolean(metadata={"description": "False: every view needs a seat's token."})
    clock = fields.Nested(
        ClockSchema,
        allow_none=True,
        metadata={"description": "The match's turn clock; null when it has none."},
    )
    join = fields.Nested(
        JoinInfoSchema,
        allow_none=True,
        metadata={
            "description": "How people take the open seats, in a seat's view of a game "
            "waiting for people, so that any seated player can pass the code on; null in "
            "every other view (a spectator's, a game with no open seat)."
        },
    )
    previous = fields.String(
        allow_none=True,
        metadata={"description": "The game this match is the rematch of, if any."},
    )
    next = fields.String(
        allow_none=True,
        metadata={
            "description": "The rematch's game id, once a seat asked for it "
            "(`POST /v1/games/{id}/rematch`), else null."
        },
    )
    abort_reason = fields.String(
        allow_none=True,
        metadata={"description": "Why the game was aborted; null unless its status is `aborted`."},
    )
    start_at = fields.String(
        allow_none=True,
        metadata={
            "description": "When the match starts (RFC 3339, UTC), for a match created to "
            "start later (`POST /v1/games/bulk`): before then moves are 409 "
            "(`/problems/not-started-yet`) and no clock runs; null otherwise."
        },
    )
    metadata = Metadata(values=fields.String())  # as stored


class SeatMovesSchema(ResponseSchema):
    seat = Integer()
    moves = fields.List(
        fields.Nested(LegalMoveSchema),
        metadata={"description": "Every legal move now; empty when it is not this seat's turn."},
    )
    declarations = fields.List(
        fields.Nested(LegalDeclarationSchema),
        metadata={
            "description": "Cirulla: the declarations this seat may make before it plays "
            "(C3), sent to `POST /v1/games/{id}/declarations`; empty in every other case "
            "(another variant, not its first turn of the deal, declared already, nothing "
            "to declare)."
        },
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
    name = fields.String(metadata={"description": "The name the person took it with."})


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
    target = Integer(metadata={"description": "Points that end the match."})
    rules = fields.Nested(RulesViewSchema)
    seeded = Boolean(metadata={"description": "Created with a `seed` or a `deck`."})
    dealer = Integer(metadata={"description": "The seat that deals the first hand."})


class RedealEventSchema(EventBaseSchema):
    class Meta:
        description = "Three or four kings on the table: the same dealer deals again (R3)."

    type = Kind(EventKind.REDEAL)
    hand = Integer(metadata={"description": "The hand number."})
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
    hand = Integer(metadata={"description": "The hand number."})
    dealer = Integer()
    cards_each = Integer(metadata={"description": "Cards dealt to each seat."})
    table = Cards("Cards dealt face up to the table (empty after the first round).")
    stock_count = Integer(metadata={"description": "Cards left to deal in this hand."})
    cards = Cards("The cards dealt to you: only in a seat's view.")


class DealerBonusEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "The dealer takes the table just dealt, scoring escobas (escoba, R10) or "
            "scopas (Cirulla, docs/rules.md C2.3)."
        )

    optional = EventBaseSchema.optional | {"matta_as"}

    type = Kind(EventKind.DEALER_BONUS)
    hand = Integer(metadata={"description": "The hand number."})
    seat = Integer(metadata={"description": "The dealer."})
    capture = Cards("The table it took.")
    scopas = Integer(metadata={"description": "The escobas (scopas) it scores."})
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
    hand = Integer(metadata={"description": "The hand number."})
    seat = Integer()
    kind = DeclarationKindField()
    matta_as = MattaAs(
        "The value the 7C takes in the declaration, 1-10; null when the 7C is not among "
        "the cards (C3.2)."
    )
    cards = Cards("The three cards declared: face up until each is played (C3.4).")
    points = Integer(metadata={"description": "3 for a buona, 10 for a decino (C3.1)."})


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
    scopa = Boolean(metadata={"description": "The move scored a scopa (R5)."})
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
    hand = Integer(metadata={"description": "The hand number."})
    remainder = fields.Nested(RemainderSchema)
    score = fields.Nested(HandScoreSchema)


class MatchOverEventSchema(EventBaseSchema):
    class Meta:
        description = "A side won (R8, R9 napoleone)."

    optional = EventBaseSchema.optional | {"reason"}

    type = Kind(EventKind.MATCH_OVER)
    winner = Integer(metadata={"description": "The winning team."})
    scores = fields.List(Integer(), metadata={"description": "Match totals, by team."})
    reason = fields.String(
        validate=validate.OneOf(["target", "napoleone", "cappotto"]),
        metadata={
            "description": "Why the match is over: `target`, the winner's total reached the "
            "target and is the single highest (R8); `napoleone` (R9) or `cappotto` "
            "(Cirulla, C7.4), the winner captured all ten coins in the last hand. Absent "
            "from matches that ended before 2026-12-01."
        },
    )


class RematchEventSchema(EventBaseSchema):
    class Meta:
        description = "After the match: a seat asked for the next one."

    type = Kind(EventKind.REMATCH)
    game = fields.String(metadata={"description": "The next match's game id."})


class AbortedEventSchema(EventBaseSchema):
    class Meta:
        description = (
            "The service key that created the game aborted it: no winner, nothing more "
            "happens in it (its stream ends after this event)."
        )

    type = Kind(EventKind.ABORTED)
    reason = fields.String(metadata={"description": "Why, as the key said."})


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


class CreatedSeatSchema(ResponseSchema):
    optional = frozenset({"player_id"})

    seat = Integer()
    name = fields.String(allow_none=True, metadata={"description": "Null for an open seat."})
    team = Integer()
    open = Boolean(metadata={"description": "Open for someone to join with the join code."})
    bot = BotLevel(
        allow_none=True,
        metadata={"description": "The computer player's level, or null for a person."},
    )
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "This seat's secret bearer token, shown only in this response: "
            "send it as `Authorization: Bearer <token>`. Null for a computer player and "
            "an open seat."
        },
    )
    player_id = PlayerId(
        "The platform's id of this seat's player (null: none); only when a service key "
        "created the game.",
        allow_none=True,
    )


class GameCreatedSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    seats = fields.List(fields.Nested(CreatedSeatSchema))
    join = fields.Nested(
        JoinInfoSchema,
        allow_none=True,
        metadata={"description": "How people take the open seats; null when none is open."},
    )
    events = Events("The computer players' moves, if they played first.")
    state = fields.Nested(GameViewSchema, metadata={"description": "The spectator's view."})


class MoveResultSchema(ResponseSchema):
    move = fields.Nested(PlayedMoveSchema)
    events = Events(
        "What followed the move: the computer players' moves, deals, the hand's score, "
        "the match's end."
    )
    state = fields.Nested(GameViewSchema, metadata={"description": "Your view after the move."})


class DeclaredSchema(ResponseSchema):
    declaration = fields.Nested(
        DeclarationEventSchema,
        metadata={"description": "The declaration, as the event log has it."},
    )
    state = fields.Nested(
        GameViewSchema,
        metadata={"description": "Your view after it: still your turn, your cards face up."},
    )


class BotMovesSchema(ResponseSchema):
    events = Events("The computer players' moves and what followed them.")
    state = fields.Nested(GameViewSchema, metadata={"description": "The spectator's view."})


class EventLogSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    events = Events()


def After(description: str, **kwargs: Any) -> fields.Integer:  # noqa: N802
    """A place in the event log to read on from: the ``seq`` of the last event seen (-1:
    before the first). Read from a query string or a header, which hold text: "3" is the
    integer 3 here (and "1.5" still is not one)."""
    return fields.Integer(
        validate=validate.Range(-1, 10**9), metadata={"description": description}, **kwargs
    )


class EventQuerySchema(StrictSchema):
    as_seat = AsSeat()
    after = After(
        "Only the events after the one with this `seq` (-1, or left out: from the first)."
    )


class InvitationQuerySchema(StrictSchema):
    code = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The game's join code."},
    )


class AbortRequestSchema(StrictSchema):
    reason = AbortReason(
        required=True,
        metadata={
            "description": "Why the game is aborted: in its `aborted` event and its view, "
            "for everyone who follows it.",
            "example": "The tournament round was cancelled.",
        },
    )


class JoinRequestSchema(StrictSchema):
    name = Name("Your display name (1-40 characters).", required=True)
    code = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The game's join code, from whoever created it."},
    )
    seat = Integer(
        validate=validate.Range(0, 5),
        metadata={"description": "The open seat to take (default: the first open one)."},
    )


class JoinedSchema(ResponseSchema):
    id = fields.String(metadata={"description": "The game id."})
    seat = Integer(metadata={"description": "Your seat."})
    name = fields.String()
    team = Integer()
    token = fields.String(
        metadata={
            "description": "Your seat's secret bearer token, shown only in this response "
            "(and its replays with the same Idempotency-Key): send it as "
            "`Authorization: Bearer <token>`."
        }
    )
    state = fields.Nested(
        GameViewSchema,
        metadata={
            "description": "Your view: `waiting` while seats are open, `playing` once you "
            "took the last one."
        },
    )


class RematchSchema(ResponseSchema):
    id = fields.String(metadata={"description": "The rematch's game id."})
    seat = Integer(metadata={"description": "Your seat there: the same as in this match."})
    token = fields.String(
        allow_none=True,
        metadata={
            "description": "Your seat's token for the rematch. Every seat of the finished "
            "match gets its own by asking here with its token for that match; asking again "
            "gives the same one. Null for a seat that had no token (an imported game's: "
            "its service key acts for it with `X-Seat`)."
        },
    )
    state = fields.Nested(GameViewSchema, metadata={"description": "Your view of the rematch."})


# -- a service key's listing of its games -------------------------------------------------

#: The most games a listing's page holds.
MAX_PAGE = 100
METADATA_FILTER = "metadata."


class GameListQuerySchema(StrictSchema):
    status = fields.String(
        validate=validate.OneOf([s.value for s in Status]),
        metadata={"description": "Only the games with this status now."},
    )
    player_id = PlayerId("Only the games with a seat of this player id.")
    variant = VariantName(metadata={"description": "Only the games of this variant."})
    created_after = fields.AwareDateTime(
        format="iso",
        metadata={"description": "Only the games created after this time (RFC 3339)."},
    )
    created_before = fields.AwareDateTime(
        format="iso",
        metadata={"description": "Only the games created before this time (RFC 3339)."},
    )
    limit = fields.Integer(  # (from a query string: text)
        load_default=20,
        validate=validate.Range(1, MAX_PAGE),
        metadata={"description": f"The most games on the page (1 to {MAX_PAGE}; 20 by default)."},
    )
    cursor = fields.String(
        validate=validate.Length(1, 200),
        metadata={
            "description": "Where the page starts: the `cursor` of the `next` link of the page "
            "before (opaque). Left out: the newest games."
        },
    )
    metadata = fields.Dict(
        keys=fields.String(validate=METADATA_KEY),
        values=fields.String(validate=validate.Length(max=MAX_METADATA_BYTES)),
        metadata={
            "description": "Sent as `metadata.<key>=<value>` (one parameter per key): only "
            "the games whose metadata has each of these entries.",
            "example": {"tournament": "spring-cup"},
        },
    )

    @pre_load
    def _metadata_filters(self, data: Any, **kwargs: Any) -> dict[str, Any]:
        """``metadata.<key>=<value>`` parameters, gathered under ``metadata``."""
        loaded = {k: data[k] for k in data if not k.startswith(METADATA_FILTER)}
        filters = {
            k[len(METADATA_FILTER) :]: data[k] for k in data if k.startswith(METADATA_FILTER)
        }
        if filters:
            loaded["metadata"] = filters
        return loaded


class ListedSeatSchema(ResponseSchema):
    seat = Integer()
    name = fields.String(allow_none=True, metadata={"description": "Null while the seat is open."})
    bot = BotLevel(allow_none=True, metadata={"description": "A computer player's level, or null."})
    player_id = PlayerId("The platform's id of the seat's player (null: none).", allow_none=True)


class GameSummarySchema(ResponseSchema):
    """A game as a key's listing shows it (`GET /v1/games/{id}` has the rest)."""

    id = fields.String()
    version = Integer()
    status = fields.String(
        validate=validate.OneOf([s.value for s in Status]),
        metadata={"description": "As in the game's view."},
    )
    variant = VariantName()
    created_at = fields.String(
        allow_none=True,
        metadata={"description": "When the game was created (RFC 3339, UTC)."},
    )
    seats = fields.List(fields.Nested(ListedSeatSchema))
    scores = fields.List(
        Integer(), metadata={"description": "Each team's match score, by team number."}
    )
    winner = Integer(
        allow_none=True, metadata={"description": "The winning team, once the match is over."}
    )
    abort_reason = fields.String(allow_none=True, metadata={"description": "Why it was aborted."})
    metadata = Metadata(values=fields.String())  # as stored


class GameListSchema(ResponseSchema):
    games = fields.List(fields.Nested(GameSummarySchema), metadata={"description": "Newest first."})
    next = fields.String(
        allow_none=True,
        metadata={
            "description": "The next page's URL (relative, like `Location`; also in the "
            "`Link` header), or null after the last page. A page may hold fewer games than "
            "`limit` (a listing reads a bounded number of games a request): follow `next` "
            "until it is null. Games created while you page sort before your first page "
            "and never shift the pages after it."
        },
    )


# -- a round of games in one call -----------------------------------------------------------

#: The most games one bulk creation makes.
MAX_BULK = 100


class BulkGameSchema(CreateGameSchema):
    start_at = fields.AwareDateTime(
        format="iso",
        metadata={
            "description": "When the match starts (RFC 3339 with its offset): it is dealt "
            "now, but nobody moves before then (moves are 409 with the time) and the first "
            "turn's clock starts then. A time past is now. Only for games whose seats are "
            "all named, and at most the games' time to live ahead.",
            "example": "2026-12-05T18:00:00Z",
        },
    )


class BulkCreateSchema(StrictSchema):
    games = fields.List(
        fields.Nested(BulkGameSchema),
        required=True,
        validate=validate.Length(1, MAX_BULK),
        metadata={
            "description": f"1 to {MAX_BULK} games, each as `POST /v1/games` takes it, with "
            "`start_at` besides."
        },
    )


class BulkCreatedGameSchema(ResponseSchema):
    id = fields.String()
    version = Integer()
    seats = fields.List(fields.Nested(CreatedSeatSchema))
    start_at = fields.String(
        allow_none=True, metadata={"description": "When the match starts; null: now."}
    )


class BulkCreatedSchema(ResponseSchema):
    games = fields.List(
        fields.Nested(BulkCreatedGameSchema),
        metadata={"description": "Every game made, in the order asked, with its seats' tokens."},
    )
