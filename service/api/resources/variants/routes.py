"""/v1/variants: what a frontend needs to build its "new game" screen."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....engine import VARIANTS, Variant
from ....engine.match import MAX_TARGET, MIN_TARGET
from ....engine.rules import OPTIONS
from ...blueprint import Blueprint
from .schemas import VariantListSchema

blp = Blueprint("variants", __name__, url_prefix="/v1", description="The games the service plays.")


def describe(variant: Variant) -> dict[str, Any]:
    options = []
    for name in variant.options:
        option = OPTIONS[name]
        kind = "string" if option.choices else "integer" if option.bounds else "boolean"
        entry: dict[str, Any] = {
            "name": name,
            "type": kind,
            "default": option.default,
            "description": option.description,
        }
        if option.choices:
            entry["choices"] = list(option.choices)
        if option.bounds:
            entry["minimum"], entry["maximum"] = option.bounds
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
    @blp.documents("listVariants", {})
    def get(self) -> Any:
        """List the variants

        Each variant with its player counts, default target, rule options and their
        defaults, and a description."""
        return {"variants": [describe(v) for v in VARIANTS.values()]}
