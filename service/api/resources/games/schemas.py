"""What /v1/games takes and answers: a game's creation (one, or a round in one call), its
abort, and a service key's listing of its games."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from ....engine import VARIANTS, Status
from ....engine.match import MAX_TARGET, MIN_TARGET
from ....play import MAX_CLOCK_SECONDS, MIN_CLOCK_SECONDS
from ...fields import (
    MAX_PLAYER_ID,
    AbortReason,
    Boolean,
    BotLevel,
    Card,
    Integer,
    Metadata,
    MetadataFilters,
    Name,
    Nested,
    NestedList,
    PageCursor,
    PageLimit,
    PlayerId,
    RulesField,
    StrictSchema,
    String,
    Variant,
    VariantName,
    check_metadata,
)
from ...game_views.events import Events
from ...game_views.schemas import GameViewSchema, JoinInfoSchema
from ...responses import ResponseSchema


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
    rated = Boolean(
        load_default=False,
        metadata={
            "description": "With a service key: the game moves its players' ratings when "
            'it finishes (docs/platforms.md, "Ratings and tournaments"); an aborted '
            "game, or one that never finishes, moves none. Every seat needs its own "
            "`player_id`, computer players' too (a platform's house player is rated like "
            "anyone). `GET /v1/players/{player_id}` reads a rating; the `game.over` "
            "webhook carries each seat's rating before and after."
        },
    )

    @validates_schema
    def _rated_players_named(self, data: dict[str, Any], **kwargs: Any) -> None:
        """A rated game rates the player of each seat: each needs a player id of its own."""
        if not data.get("rated"):
            return
        seats = data.get("seats")
        players = [seat.get("player_id") for seat in seats or ()]
        if not seats or not all(players):
            raise ValidationError(
                "A rated game rates the player of each seat: give `seats`, each with its "
                "`player_id`.",
                "rated",
            )
        if len(set(players)) < len(players):
            raise ValidationError(
                "A rated game's seats are different players: each `player_id` once.", "rated"
            )

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


class CreatedSeatSchema(ResponseSchema):
    optional = frozenset({"player_id"})

    seat = Integer()
    name = String("Null for an open seat.", allow_none=True)
    team = Integer()
    open = Boolean("Open for someone to join with the join code.")
    bot = BotLevel(
        allow_none=True,
        metadata={"description": "The computer player's level, or null for a person."},
    )
    token = String(
        "This seat's secret bearer token, shown only in this response: "
        "send it as `Authorization: Bearer <token>`. Null for a computer player and "
        "an open seat.",
        allow_none=True,
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
    join = Nested(
        JoinInfoSchema, "How people take the open seats; null when none is open.", allow_none=True
    )
    events = Events("The computer players' moves, if they played first.")
    state = Nested(GameViewSchema, "The spectator's view.")


class AbortRequestSchema(StrictSchema):
    reason = AbortReason(
        required=True,
        metadata={
            "description": "Why the game is aborted: in its `aborted` event and its view, "
            "for everyone who follows it.",
            "example": "The tournament round was cancelled.",
        },
    )


# -- a service key's listing of its games -------------------------------------------------


class GameListQuerySchema(MetadataFilters):
    status = String(
        "Only the games with this status now.", validate=validate.OneOf([s.value for s in Status])
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
    limit = PageLimit("games")
    cursor = PageCursor("the newest games")


class ListedSeatSchema(ResponseSchema):
    seat = Integer()
    name = String("Null while the seat is open.", allow_none=True)
    bot = BotLevel(allow_none=True, metadata={"description": "A computer player's level, or null."})
    player_id = PlayerId("The platform's id of the seat's player (null: none).", allow_none=True)


class GameSummarySchema(ResponseSchema):
    """A game as a key's listing shows it (`GET /v1/games/{id}` has the rest)."""

    id = fields.String()
    version = Integer()
    status = String("As in the game's view.", validate=validate.OneOf([s.value for s in Status]))
    variant = VariantName()
    created_at = String("When the game was created (RFC 3339, UTC).", allow_none=True)
    seats = fields.List(fields.Nested(ListedSeatSchema))
    scores = fields.List(
        Integer(), metadata={"description": "Each team's match score, by team number."}
    )
    winner = Integer(
        allow_none=True, metadata={"description": "The winning team, once the match is over."}
    )
    abort_reason = String("Why it was aborted.", allow_none=True)
    metadata = Metadata(values=fields.String())  # as stored


class GameListSchema(ResponseSchema):
    games = NestedList(GameSummarySchema, "Newest first.")
    next = String(
        "The next page's URL (relative, like `Location`; also in the "
        "`Link` header), or null after the last page. A page may hold fewer games than "
        "`limit` (a listing reads a bounded number of games a request): follow `next` "
        "until it is null. Games created while you page sort before your first page "
        "and never shift the pages after it.",
        allow_none=True,
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
    start_at = String("When the match starts; null: now.", allow_none=True)


class BulkCreatedSchema(ResponseSchema):
    games = NestedList(
        BulkCreatedGameSchema, "Every game made, in the order asked, with its seats' tokens."
    )
