"""/v1/variants: what a frontend needs to build its "new game" screen."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from marshmallow import fields

from ..engine import VARIANTS, Variant
from ..engine.match import MAX_TARGET, MIN_TARGET
from ..engine.rules import OPTIONS
from .blueprint import Blueprint
from .problems import documents
from .response_schema import ResponseSchema

blp = Blueprint("variants", __name__, url_prefix="/v1", description="The games the service plays.")


class OptionSchema(ResponseSchema):
    name = fields.String(metadata={"description": "The key to use in `rules`."})
    type = fields.String(
        metadata={"description": "`boolean` or `string`.", "enum": ["boolean", "string"]}
    )
    default = fields.Raw(metadata={"description": "The value when the option is left out."})
    choices = fields.List(
        fields.String(), metadata={"description": "String options: the values allowed."}
    )
    description = fields.String()


class VariantSchema(ResponseSchema):
    name = fields.String(metadata={"description": "The `variant` value of `POST /v1/games`."})
    title = fields.String()
    description = fields.String(metadata={"description": "A paragraph on how it is played."})
    players = fields.List(fields.Integer(), metadata={"description": "Player counts allowed."})
    default_target = fields.Integer()
    min_target = fields.Integer()
    max_target = fields.Integer()
    options = fields.List(
        fields.Nested(OptionSchema), metadata={"description": "Its rule options."}
    )
    deal = fields.String(metadata={"description": "How a `deck` given at creation is dealt."})


class VariantListSchema(ResponseSchema):
    variants = fields.List(fields.Nested(VariantSchema))


def describe(variant: Variant) -> dict[str, Any]:
    options = []
    for name in variant.options:
        option = OPTIONS[name]
        entry: dict[str, Any] = {
            "name": name,
            "type": "string" if option.choices else "boolean",
            "default": option.default,
            "description": option.description,
        }
        if option.choices:
            entry["choices"] = list(option.choices)
        options.append(entry)
    return {
        "name": variant.name,
        "title": variant.title,
        "description": variant.description,
        "players": list(variant.player_counts),
        "default_target": variant.default_target,
        "min_target": MIN_TARGET,
        "max_target": MAX_TARGET,
        "options": options,
        "deal": variant.deal_order,
    }


@blp.route("/variants")
class Variants(MethodView):
    @blp.response(200, VariantListSchema)
    @documents(blp, {})
    def get(self) -> Any:
        """List the variants

        Each variant with its player counts, default target, rule options and their
        defaults, and a description."""
        return {"variants": [describe(v) for v in VARIANTS.values()]}
