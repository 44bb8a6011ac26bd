"""What the records of /v1/games take and answer."""

from __future__ import annotations

from marshmallow import EXCLUDE, Schema, fields, validate
from webargs.fields import DelimitedList

from ...fields import (
    BotLevel,
    Metadata,
    MetadataFilters,
    Name,
    Nested,
    NestedList,
    PlayerId,
    String,
    VariantName,
    check_metadata,
)
from ...responses import ResponseSchema

#: The most games one export streams (go on with its `Link`).
MAX_EXPORTED = 1000
#: The most game ids an export's ``ids`` names.
MAX_IDS = 100


class RecordSeatSchema(ResponseSchema):
    seat = fields.Integer(metadata={"description": "The seat's number, from 0."})
    name = String("Its name.")
    team = fields.Integer(metadata={"description": "Its side (docs/rules.md R2)."})
    player_id = String("The platform's id of its player, or null.", allow_none=True)
    bot = BotLevel(
        allow_none=True, metadata={"description": "Its computer player's level; null: a person."}
    )


class ResultSchema(ResponseSchema):
    winner = fields.Integer(
        allow_none=True, metadata={"description": "The winning side; null when aborted."}
    )
    scores = fields.List(fields.Integer(), metadata={"description": "Each side's total."})
    reason = String(
        "Why it ended: `target` (docs/rules.md R8), the variant's outright "
        "win (`napoleone`, Cirulla's `cappotto`), or an abort's reason.",
        allow_none=True,
    )


class RecordSchema(ResponseSchema):
    id = String("The game's id.")
    variant = VariantName(metadata={"description": "The variant."})
    target = fields.Integer(metadata={"description": "The points to win."})
    rules = fields.Dict(metadata={"description": "The rules options, as at creation."})
    created_at = String("When the game was created (RFC 3339).", allow_none=True)
    status = String("`finished` or `aborted`.")
    metadata = fields.Dict(
        keys=fields.String(), values=fields.String(), metadata={"description": "The game's."}
    )
    seats = NestedList(RecordSeatSchema, "In order.")
    result = Nested(ResultSchema, "How the match ended.")
    hands = fields.List(
        fields.Dict(),
        metadata={"description": "Each hand's score lines, in order (as `GET .../hands`)."},
    )
    events = fields.List(
        fields.Dict(),
        metadata={
            "description": "The match's event log, in order, every card included: each "
            "deal's cards by seat (`hands`), every move and declaration, each hand's score "
            "(`hand_over`), the result (`match_over`; an abort's `aborted`). Replaying them "
            "through the rules gives the match again."
        },
    )


class ImportSeatSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    seat = fields.Integer(required=True, strict=True)
    name = Name("The seat's name, as its events give it.", required=True)
    team = fields.Integer(required=True, strict=True)
    player_id = PlayerId("The platform's id of its player.", allow_none=True, load_default=None)
    bot = BotLevel(allow_none=True, load_default=None)


class ImportResultSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    winner = fields.Integer(required=True, allow_none=True, strict=True)
    scores = fields.List(fields.Integer(strict=True), required=True)
    reason = fields.String(required=True, allow_none=True)


class ImportSchema(Schema):
    """A record as ``GET /v1/games/{id}/record`` gives it (its id, status and time are
    read but not kept: the imported game has its own id)."""

    class Meta:
        unknown = EXCLUDE

    id = String("The exported game's id: read, not kept (a new id is given).")
    status = String(
        "`finished`: only a finished match is imported.", validate=validate.Equal("finished")
    )
    variant = VariantName(required=True)
    target = fields.Integer(required=True, strict=True)
    rules = fields.Dict(required=True)
    created_at = fields.AwareDateTime(format="iso", allow_none=True, load_default=None)
    metadata = Metadata(load_default=dict, validate=check_metadata)
    seats = fields.List(
        fields.Nested(ImportSeatSchema), required=True, validate=validate.Length(min=2, max=4)
    )
    result = fields.Nested(ImportResultSchema, required=True)
    hands = fields.List(fields.Dict(), required=True)
    events = fields.List(fields.Dict(), required=True, validate=validate.Length(min=1))


class ExportQuerySchema(MetadataFilters):
    since = fields.AwareDateTime(
        format="iso",
        metadata={"description": "Only the games created at or after this time (RFC 3339)."},
    )
    until = fields.AwareDateTime(
        format="iso",
        metadata={"description": "Only the games created before this time (RFC 3339)."},
    )
    player_id = PlayerId("Only the games with a seat of this player id.")
    status = String(
        "Only the matches that ended so.", validate=validate.OneOf(["finished", "aborted"])
    )
    variant = VariantName(metadata={"description": "Only the matches of this variant."})
    ids = DelimitedList(
        fields.String(validate=validate.Length(1, 64)),
        validate=validate.Length(1, MAX_IDS),
        metadata={
            "description": f"Only these games: their ids, comma-separated ({MAX_IDS} at most)."
        },
    )
    max = fields.Integer(
        load_default=MAX_EXPORTED,
        validate=validate.Range(1, MAX_EXPORTED),
        metadata={"description": f"At most this many games (1 to {MAX_EXPORTED}, the default)."},
    )
    cursor = String(
        'Where the export goes on: the `cursor` of the `Link` (`rel="next"`) of the '
        "export before (opaque). Left out: from the newest match.",
        validate=validate.Length(1, 200),
    )
