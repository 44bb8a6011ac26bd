"""What a match's finished hands answer: their scores."""

from __future__ import annotations

from ...fields import NestedList
from ...game_views.events import HandScoreSchema
from ...responses import ResponseSchema

__all__ = ["HandListSchema", "HandScoreSchema"]


class HandListSchema(ResponseSchema):
    hands = NestedList(HandScoreSchema, "Finished hands, in order.")
