"""What the reactions endpoint takes and answers."""

from __future__ import annotations

from marshmallow import fields, validate

from ...fields import Integer, StrictSchema
from ...responses import ResponseSchema

#: The emotes a seat may send, and nothing else (no free text: nothing to moderate, and
#: nothing that could name a card).
EMOTES = ("applause", "laugh", "wow", "oops", "thinking", "sad", "hurry", "gg")

_EMOTE = (
    "One of a fixed set: `applause`, `laugh`, `wow`, `oops`, `thinking`, `sad`, `hurry` "
    "(play faster, please) or `gg` (good game). Each frontend shows them its own way."
)


def _emote(description: str, **kwargs: object) -> fields.String:
    return fields.String(
        validate=validate.OneOf(EMOTES),
        metadata={"description": description, "enum": list(EMOTES), "example": "applause"},
        **kwargs,  # type: ignore[arg-type]
    )


class ReactionRequestSchema(StrictSchema):
    emote = _emote(f"The reaction to send. {_EMOTE}", required=True)


class ReactionSchema(ResponseSchema):
    """A reaction, as the streams of the game send it (`event: reaction`)."""

    seat = Integer("The seat that sent it.")
    emote = _emote(f"The reaction. {_EMOTE}")
    at = fields.String(
        metadata={
            "format": "date-time",
            "example": "2026-11-30T20:15:42.250Z",
            "description": "When the service took it (UTC, to the millisecond).",
        }
    )
