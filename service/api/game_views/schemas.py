"""A game as one viewer sees it (``GameView``): what every operation that answers a
game's state answers, and the stream's first event."""

from __future__ import annotations

from marshmallow import fields, validate

from ...engine import Status
from ..fields import (
    Boolean,
    BotLevel,
    Card,
    Cards,
    Integer,
    Metadata,
    Nested,
    PlayerId,
    RulesSchema,
    String,
    VariantName,
)
from ..responses import ResponseSchema
from ..schemas import MattaAs


class SeatViewSchema(ResponseSchema):
    #: Only in variants with declarations (Cirulla); only to whom it may be shown.
    optional = frozenset({"exposed", "declared_points", "player_id"})

    seat = Integer("Seat index, 0-based, in playing order.")
    name = String("Null while the seat is open.", allow_none=True)
    open = Boolean("Nobody has taken this seat yet: the game is waiting.")
    bot = BotLevel(
        allow_none=True,
        metadata={"description": "The computer player's level, or null for a person."},
    )
    team = Integer("The side this seat scores for.")
    hand_count = Integer("Cards in this seat's hand.")
    captured_count = Integer(
        metadata={"description": "Cards this seat has captured in the current hand."}
    )
    scopas = Integer("Scopas this seat made in the current hand.")
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
    score = Integer("Match points so far.")


class PlayedMoveSchema(ResponseSchema):
    seat = Integer()
    card = Card()
    capture = Cards("The table cards taken; empty when the card was laid.")
    scopa = Boolean("The move scored a scopa (R5).")


class RulesViewSchema(RulesSchema):
    pass


class JoinInfoSchema(ResponseSchema):
    code = String(
        "The join code: give it to the people who are to take the open "
        "seats (10 letters and digits).",
        example="K7M2QXPA4R",
    )
    url = String(
        'Where they send it: `POST` `{"name": ..., "code": ...}` '
        "here (relative to the API's base URL, like `Location`)."
    )
    link = String(
        "A link to share with people: the service's own page `/play` "
        "opens it at this game's join form (relative to the service's base URL). An app "
        "of your own makes its link from `id` and `code` instead."
    )


class ClockSchema(ResponseSchema):
    seconds = Integer("Seconds each person has for each move.")
    deadline = fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "example": "2026-11-30T20:15:42.250Z",
            "description": "When the turn of the person to play runs out (UTC); null when "
            "no person's clock runs (a computer player's turn, a game waiting or over).",
        },
    )


class SeriesSchema(ResponseSchema):
    matches = Integer(
        "The matches of the series that are over: those before this one, and this one "
        "once finished (an aborted match counts for nobody)."
    )
    wins = fields.List(
        Integer(),
        metadata={
            "description": "The matches each team won, by team (as `teams`: a rematch keeps "
            "every seat, so a team is the same seats in each match)."
        },
    )


class GameViewSchema(ResponseSchema):
    """A game as one viewer may see it: a seat sees its own hand, nobody sees another
    seat's hand or the stock."""

    class Meta:
        ordered = True

    optional = frozenset({"hand", "matta_as"})

    id = String("The game id.")
    version = Integer("Increases by one with every move.")
    seq = Integer(
        metadata={
            "description": "The `seq` of the last event of the game's log this view "
            "includes (-1 while the log is empty): follow the log from here "
            "(`/events?after=`, the stream's `after`)."
        }
    )
    variant = VariantName()
    status = String(
        "`waiting`: open seats to take, nothing dealt yet; `playing`; "
        "`finished`; `aborted`: stopped by the service key that created it "
        "(`abort_reason` says why), with no winner and no more moves.",
        validate=validate.OneOf([s.value for s in Status]),
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
    stock_count = Integer("Cards left to deal in this hand.")
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
    spectators = Boolean("False: every view needs a seat's token.")
    rated = Boolean(
        "The match moves its players' ratings when it finishes (`rated` at creation; "
        "`GET /v1/players/{player_id}` reads them)."
    )
    clock = Nested(ClockSchema, "The match's turn clock; null when it has none.", allow_none=True)
    join = Nested(
        JoinInfoSchema,
        "How people take the open seats, in a seat's view of a game "
        "waiting for people, so that any seated player can pass the code on; null in "
        "every other view (a spectator's, a game with no open seat).",
        allow_none=True,
    )
    previous = String("The game this match is the rematch of, if any.", allow_none=True)
    next = String(
        "The rematch's game id, once a seat asked for it "
        "(`POST /v1/games/{id}/rematch`), else null.",
        allow_none=True,
    )
    series = Nested(
        SeriesSchema,
        "The series this match belongs to: it and the matches it is the rematch of, one "
        "after another (`previous`), with the same seats.",
    )
    abort_reason = String(
        "Why the game was aborted; null unless its status is `aborted`.", allow_none=True
    )
    start_at = String(
        "When the match starts (RFC 3339, UTC), for a match created to "
        "start later (`POST /v1/games/bulk`): before then moves are 409 "
        "(`/problems/not-started-yet`) and no clock runs; null otherwise.",
        allow_none=True,
    )
    metadata = Metadata(values=fields.String())  # as stored
