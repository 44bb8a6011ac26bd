"""What /v1/players answers: a player's ratings and record, and a variant's leaderboard."""

from __future__ import annotations

from typing import Any

from ...fields import (
    Float,
    Integer,
    Nested,
    NestedList,
    PageCursor,
    PageLimit,
    PlayerId,
    StrictSchema,
    String,
    VariantName,
)
from ...responses import ResponseSchema

#: What each part of a rating is.
RATING = (
    "What leaderboards rank by: `mu - 3 * sigma`, a skill the player very likely has "
    "at least (0 for a new player; it rises as they win and as their games make the "
    "service surer of them)."
)
MU = "The model's estimate of the player's skill (25 for a new player)."
SIGMA = "Its uncertainty, one standard deviation (8.333 for a new player)."


class RatingEstimateSchema(ResponseSchema):
    rating = Float(RATING)
    mu = Float(MU)
    sigma = Float(SIGMA)


class RatingChangeSchema(ResponseSchema):
    seat = Integer("The seat.")
    player_id = PlayerId("Its player's id.")
    team = Integer("Its side.")
    before = Nested(RatingEstimateSchema, "Its player's rating in the game's variant before it.")
    after = Nested(RatingEstimateSchema, "And after it.")


def _record_fields() -> dict[str, Any]:
    """The fields of a player's record in one variant (each schema its own instances)."""
    return {
        "variant": VariantName(metadata={"description": "The variant these ratings are of."}),
        "place": Integer("The player's place on the variant's leaderboard (1: the top)."),
        "rating": Float(RATING),
        "mu": Float(MU),
        "sigma": Float(SIGMA),
        "games": Integer("Rated games finished."),
        "wins": Integer("Those won."),
        "losses": Integer("Those lost."),
        "scopas": Integer("Scopas the player made in them."),
        "hands": Integer("Hands played in them."),
        "scopas_per_hand": Float("`scopas / hands` (0 before any hand)."),
        "last_game": String("The last rated game that moved these ratings."),
        "updated_at": String("When it did (RFC 3339)."),
    }


#: A player's record in one variant.
VariantRecordSchema = type("VariantRecordSchema", (ResponseSchema,), _record_fields())
#: A leaderboard's line: a player and their record.
LeaderboardEntrySchema = type(
    "LeaderboardEntrySchema",
    (ResponseSchema,),
    {"player_id": PlayerId("The player's id."), **_record_fields()},
)


class PlayerSchema(ResponseSchema):
    player_id = PlayerId("The platform's id of the player.")
    ratings = NestedList(
        VariantRecordSchema,
        "A rating per variant the player finished rated games of, by variant name; empty "
        "before the first. In a variant not listed, the player is new: `mu` 25, `sigma` "
        "8.333, `rating` 0.",
    )


class LeaderboardQuerySchema(StrictSchema):
    variant = VariantName(
        required=True, metadata={"description": "The variant whose leaderboard to read."}
    )
    limit = PageLimit("players")
    cursor = PageCursor("the top")


class LeaderboardSchema(ResponseSchema):
    variant = VariantName(metadata={"description": "The leaderboard's variant."})
    players = NestedList(
        LeaderboardEntrySchema,
        "The players, highest `rating` first (equal ratings in a fixed order).",
    )
    next = String("The next page's URL (relative), or null on the last.", allow_none=True)
