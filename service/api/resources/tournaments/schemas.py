"""What /v1/tournaments takes and answers: a tournament's creation, its view (the key's,
or anyone's when it is public), and a withdrawal."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from ....engine.match import MAX_TARGET, MIN_TARGET
from ....play import MAX_CLOCK_SECONDS, MIN_CLOCK_SECONDS
from ....play.tournaments.model import Format, Stage
from ...fields import (
    MAX_METADATA_ENTRIES,
    Boolean,
    BotLevel,
    Float,
    Integer,
    Metadata,
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
from ...responses import ResponseSchema
from ..games.schemas import CreatedSeatSchema

#: The most entrants a tournament has, and rounds a Swiss.
MAX_ENTRANTS = 64
MAX_ROUNDS = 20
#: The metadata entries a tournament may have: its games add three (tournament, round,
#: table) to a game's 16.
MAX_TOURNAMENT_METADATA = MAX_METADATA_ENTRIES - 3
FORMATS = [f.value for f in Format]


class TournamentPlayerSpecSchema(StrictSchema):
    player_id = PlayerId("Your id of the player (its ratings are by it).", required=True)
    name = Name("The player's display name (1-40 characters).", required=True)
    bot = BotLevel(
        metadata={
            "description": "A computer player of this level plays for this player (a "
            "club's house player, a filler): its games need no one at the table."
        }
    )


class EntrantSpecSchema(StrictSchema):
    name = Name(
        "The entrant's name in the standings (default: its players' names, joined by ` & `)."
    )
    players = fields.List(
        fields.Nested(TournamentPlayerSpecSchema),
        required=True,
        validate=validate.Length(min=1, max=2),
        metadata={
            "description": "One player (a two-player game), or a fixed pair (Scopone: "
            "four-player games, the pair on alternate seats). Every entrant has as many."
        },
    )


def _check_metadata(value: dict[str, str]) -> None:
    check_metadata(value)
    if len(value) > MAX_TOURNAMENT_METADATA:
        raise ValidationError(
            f"At most {MAX_TOURNAMENT_METADATA} entries: each game adds `tournament`, "
            "`round` and `table`."
        )
    clash = {"tournament", "round", "table"} & set(value)
    if clash:
        raise ValidationError(f"`{sorted(clash)[0]}` is the tournament's own key in its games.")


class CreateTournamentSchema(StrictSchema):
    name = Name("The tournament's name (1-40 characters).", required=True)
    format = fields.String(
        required=True,
        validate=validate.OneOf(FORMATS),
        metadata={
            "description": "`swiss` (every round pairs entrants of equal scores, FIDE's "
            "Dutch system: no pair meets twice, seats balanced, a bye to one of the "
            "lowest when the count is odd), `round_robin` (everyone meets everyone, "
            "FIDE's Berger tables) or `single_elimination` (a seeded bracket: 1 and 2 "
            "meet in the final at the earliest)."
        },
    )
    variant = Variant("The game of every match (docs/rules.md R10).")
    entrants = fields.List(
        fields.Nested(EntrantSpecSchema),
        required=True,
        validate=validate.Length(min=2, max=MAX_ENTRANTS),
        metadata={
            "description": f"2 to {MAX_ENTRANTS} entrants. They are seeded by their "
            "rating in the variant (`GET /v1/players/{player_id}`; a pair's, its "
            "players' mean), then in the order given: entrant 1 is the top seed."
        },
    )
    rounds = Integer(
        validate=validate.Range(1, MAX_ROUNDS),
        metadata={
            "description": "A Swiss's rounds (fewer than its entrants). A round robin has "
            "n - 1 (n if odd) and an elimination log2 n rounded up: leave it out."
        },
    )
    target = Integer(
        validate=validate.Range(MIN_TARGET, MAX_TARGET),
        metadata={"description": "Points that end each match (default: the variant's)."},
    )
    rules = RulesField()
    clock = Integer(
        validate=validate.Range(MIN_CLOCK_SECONDS, MAX_CLOCK_SECONDS),
        metadata={"description": "Seconds each person has for each move (default: none)."},
    )
    start_at = fields.AwareDateTime(
        format="iso",
        metadata={
            "description": "When the first round starts (RFC 3339): its games are made "
            "now, and nobody moves before then. Left out or past: now.",
            "example": "2026-12-12T18:00:00Z",
        },
    )
    round_starts = fields.List(
        fields.AwareDateTime(format="iso"),
        validate=validate.Length(max=MAX_ROUNDS),
        metadata={
            "description": "When rounds 2, 3, ... start at the earliest. Each round is "
            "made when the one before is over; its games wait for its time, if still "
            "ahead. Left out: each round starts when the one before ends."
        },
    )
    rated = Boolean(
        load_default=False,
        metadata={"description": "Every game moves its players' ratings (as `rated` games)."},
    )
    public = Boolean(
        load_default=True,
        metadata={
            "description": "Anyone with its id may read its standings and pairings "
            "(`GET /v1/tournaments/{id}` without a key, the page `/play?tournament=<id>`), and "
            "watch its games; false: only the key."
        },
    )
    metadata = Metadata(validate=_check_metadata)

    @validates_schema
    def _each_player_once(self, data: dict[str, Any], **kwargs: Any) -> None:
        ids = [p["player_id"] for e in data.get("entrants") or () for p in e["players"]]
        if len(set(ids)) < len(ids):
            raise ValidationError("Each `player_id` plays for one entrant only.", "entrants")


class TournamentPlayerSchema(ResponseSchema):
    optional = frozenset({"player_id"})

    name = String("The player's name.")
    bot = BotLevel(
        allow_none=True, metadata={"description": "The computer player playing for them."}
    )
    player_id = PlayerId("Your id of the player (only in the key's view).")


class EntrantSchema(ResponseSchema):
    number = Integer("The entrant's number: its seed (1 the top seed).")
    name = String("Its name.")
    rating = Float("Its rating in the variant when the tournament was made (0: new).")
    withdrawn_after = Integer(
        "The round after which it withdrew (not paired since); null: in.", allow_none=True
    )
    players = NestedList(TournamentPlayerSchema, "Its players: one, or a Scopone pair.")


class TableResultSchema(ResponseSchema):
    winner = Integer("The winning entrant's number.")
    points = fields.List(Integer(), metadata={"description": "Each side's game points."})
    scopas = fields.List(Integer(), metadata={"description": "Each side's scopas."})
    forfeit = Boolean(
        "Decided without play: a bye, a withdrawn entrant's game, a walkover (no points or scopas)."
    )


class TableSeatSchema(ResponseSchema):
    seat = Integer("The seat.")
    player_id = PlayerId("Its player's id.")
    token = String(
        "Its seat's bearer token, for the player's client (null for a computer player). "
        "Only in the key's view, and only while the game is being played.",
        allow_none=True,
    )


class PairingTableSchema(ResponseSchema):
    optional = frozenset({"seats"})

    table = Integer("The table's number in its round.")
    first = Integer("The entrant on the first seats (seat 0; and 2 in Scopone).")
    second = Integer("The entrant on the others; null: a bye.", allow_none=True)
    game_id = String("Its game (`GET /v1/games/{id}`); null: decided without one.", allow_none=True)
    result = Nested(TableResultSchema, "How it ended; null while it is played.", allow_none=True)
    seats = NestedList(TableSeatSchema, "Its game's seats (only in the key's view).")


class TournamentRoundSchema(ResponseSchema):
    round = Integer("The round's number, from 1.")
    start_at = String("When it starts; null: when it was made.", allow_none=True)
    finished_at = String("When its last game ended; null while played.", allow_none=True)
    tables = NestedList(PairingTableSchema, "Its tables: the games, then any bye or forfeit.")


class StandingSchema(ResponseSchema):
    rank = Integer("The place, 1 first (equal lines are ordered by seed).")
    entrant = Integer("The entrant's number.")
    name = String("Its name.")
    points = Float("Its score: a win 1 (a Swiss's bye too), a loss 0.")
    buchholz = Float("The sum of its opponents' scores (FIDE's tie-break rules).")
    sonneborn_berger = Float("The sum of the scores of the opponents it beat.")
    game_points = Integer("The points it scored in its games.")
    scopas = Integer("The scopas it made in them.")
    played = Integer("Games played (byes and forfeits not counted).")
    wins = Integer("Wins (forfeit wins included).")
    losses = Integer("Losses (forfeit losses included).")
    byes = Integer("Byes.")
    withdrawn = Boolean("It withdrew.")


class TournamentSchema(ResponseSchema):
    optional = frozenset({"metadata"})

    id = String("The tournament's id.")
    name = String("Its name.")
    format = String("How it pairs its rounds.", validate=validate.OneOf(FORMATS))
    variant = VariantName(metadata={"description": "The game of every match."})
    players_per_side = Integer("1: two-player games; 2: Scopone pairs.")
    status = String(
        "`playing` (its rounds under way; the first may wait for its start), `finished`.",
        validate=validate.OneOf([s.value for s in Stage]),
    )
    rounds = Integer("How many rounds it has (an elimination may end sooner).")
    round = Integer("The round under way, or the last one (0: none yet).")
    target = Integer("Points that end each match; null: the variant's.", allow_none=True)
    clock = Integer("Seconds each person has for a move; null: no clock.", allow_none=True)
    rated = Boolean("Its games move their players' ratings.")
    public = Boolean("Anyone with its id may read it.")
    created_at = String("When it was made (RFC 3339).")
    finished_at = String("When it finished; null until then.", allow_none=True)
    metadata = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={"description": "Your metadata (only in the key's view)."},
    )
    entrants = NestedList(EntrantSchema, "The entrants, by number (seed).")
    standings = NestedList(StandingSchema, "The standings now, best first.")
    pairings = NestedList(TournamentRoundSchema, "Every round made so far, in order.")


class TournamentGameSchema(ResponseSchema):
    id = fields.String(metadata={"description": "The game's id."})
    table = Integer("Its table.")
    start_at = String("When it starts; null: now.", allow_none=True)
    seats = fields.List(fields.Nested(CreatedSeatSchema))


class TournamentCreatedSchema(ResponseSchema):
    tournament = Nested(TournamentSchema, "The tournament (the key's view).")
    games = NestedList(
        TournamentGameSchema,
        "Its first round's games, with their seats' tokens (each player's client plays "
        "with its own; the key may act for any seat with `X-Seat`).",
    )


class WithdrawalSchema(StrictSchema):
    entrant = Integer(
        required=True,
        validate=validate.Range(1, MAX_ENTRANTS),
        metadata={
            "description": "The entrant's number. It is not paired again; its game under "
            "way, if any, is aborted and won by its opponent (a forfeit)."
        },
    )


class TournamentListQuerySchema(StrictSchema):
    limit = PageLimit("tournaments")
    cursor = PageCursor("the newest")


class TournamentSummarySchema(ResponseSchema):
    id = String("The tournament's id.")
    name = String("Its name.")
    format = String("How it pairs its rounds.", validate=validate.OneOf(FORMATS))
    variant = VariantName(metadata={"description": "The game of every match."})
    status = String("Where it stands.", validate=validate.OneOf([s.value for s in Stage]))
    entrants = Integer("How many entrants it has.")
    rounds = Integer("How many rounds it has.")
    round = Integer("The round under way, or the last one.")
    created_at = String("When it was made (RFC 3339).")
    finished_at = String("When it finished; null until then.", allow_none=True)
    metadata = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "Your metadata."}
    )


class TournamentListSchema(ResponseSchema):
    tournaments = NestedList(TournamentSummarySchema, "The key's tournaments, newest first.")
    next = String("The next page's URL (relative), or null on the last.", allow_none=True)
