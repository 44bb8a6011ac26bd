"""What a match's finished hands answer: their scores."""

from __future__ import annotations

from marshmallow import fields

from ...game_views.events import HandScoreSchema
from ...responses import ResponseSchema

__all__ = ["HandListSchema", "HandScoreSchema"]


class HandListSchema(ResponseSchema):
    hands = fields.List(
        fields.Nested(HandScoreSchema), metadata={"description": "Finished hands, in order."}
    )
