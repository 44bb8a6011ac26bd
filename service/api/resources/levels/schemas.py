"""What /v1/bot-levels answers."""

from __future__ import annotations

from marshmallow import fields

from ...fields import BotLevel, Float, NestedList, String
from ...responses import ResponseSchema


class BotLevelInfoSchema(ResponseSchema):
    level = BotLevel(metadata={"description": "The `bot` value of a seat."})
    label = fields.String(
        metadata={
            "description": "What a frontend may call it.",
            "enum": ["beginner", "easy", "medium", "hard"],
        }
    )
    description = String("How it plays.")
    thinking_ms = Float(
        "Its thinking budget a move on this service, in ms of CPU "
        "(0: it does not search), set by the service's `EXPERT_BUDGET_MS`: the most it "
        "spends, counted in simulated moves so that a seed gives the same move; the "
        "compiled engine spends a third to 60% of it, by game."
    )
    rating = fields.Integer(
        metadata={
            "description": "Its Elo-style rating, random at 0, measured at the default "
            "thinking time (see `ratings`)."
        }
    )


class LevelListSchema(ResponseSchema):
    levels = NestedList(BotLevelInfoSchema, "Weakest first.")
    ratings = String("How the ratings were measured.")
