"""What /v1/variants answers."""

from __future__ import annotations

from marshmallow import fields

from ...fields import NestedList, String, VariantName
from ...responses import ResponseSchema


class OptionSchema(ResponseSchema):
    optional = frozenset({"choices", "minimum", "maximum"})

    name = String("The key to use in `rules`.")
    type = fields.String(
        metadata={
            "description": "`boolean`, `string` or `integer`.",
            "enum": ["boolean", "string", "integer"],
        }
    )
    default = fields.Raw(metadata={"description": "The value when the option is left out."})
    choices = fields.List(
        fields.String(), metadata={"description": "String options: the values allowed."}
    )
    minimum = fields.Integer(metadata={"description": "Integer options: the least value."})
    maximum = fields.Integer(metadata={"description": "Integer options: the greatest value."})
    description = fields.String()


class VariantInfoSchema(ResponseSchema):
    """A variant as `GET /v1/variants` describes it (``Variant`` in the spec is its name)."""

    name = VariantName(metadata={"description": "The `variant` value of `POST /v1/games`."})
    title = fields.String()
    description = String("A paragraph on how it is played.")
    players = fields.List(fields.Integer(), metadata={"description": "Player counts allowed."})
    default_target = fields.Integer()
    min_target = fields.Integer()
    max_target = fields.Integer()
    options = NestedList(OptionSchema, "Its rule options.")
    deal = String("How a `deck` given at creation is dealt.")


class VariantListSchema(ResponseSchema):
    variants = fields.List(fields.Nested(VariantInfoSchema))
