"""The fields every resource's schemas are made of: cards, strict integers and booleans,
printable text, the variant and its rule options. Every field is documented, because
the OpenAPI contract in ``openapi/openapi.json`` is generated from the schemas."""

from __future__ import annotations

import unicodedata
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..engine import DECK, VARIANTS, Rules, get_variant
from ..engine.rules import OPTIONS, Option

CARD_CODES = [card.code for card in DECK]


def Card(**kwargs: Any) -> fields.String:  # noqa: N802 - a field factory, used like a class
    """A card code (docs/rules.md R1): value 1-10 then suit D, C, S or B."""
    metadata = {"description": "A card: its value 1-10 then its suit letter, as in `7D`."}
    metadata.update(kwargs.pop("metadata", {}))
    return fields.String(
        validate=validate.OneOf(CARD_CODES, error="{input!r} is not a card code such as '7D'."),
        metadata=metadata,
        **kwargs,
    )


def Cards(description: str, **kwargs: Any) -> fields.List:  # noqa: N802
    return fields.List(Card(), metadata={"description": description}, **kwargs)


class StrictInteger(fields.Integer):
    """An integer that must be a JSON number with no fractional part: 12 or 12.0 (what
    JSON Schema, and so the spec, calls an integer), not 12.5, "12" or true."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return super()._deserialize(value, attr, data, **kwargs)


def Integer(**kwargs: Any) -> fields.Integer:  # noqa: N802
    """An integer that must be a JSON integer: no 2.5, no "12", no true."""
    return StrictInteger(strict=True, **kwargs)


class StrictBoolean(fields.Boolean):
    """A boolean that must be a JSON true or false: no "yes", no 1."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def Boolean(**kwargs: Any) -> fields.Boolean:  # noqa: N802
    return StrictBoolean(**kwargs)


#: Unicode categories a display name may not hold: controls, lone surrogates, format
#: characters (bidirectional overrides and isolates, zero-width spaces and joiners, ...),
#: line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cs", "Cf", "Zl", "Zp"})


def printable(value: str) -> bool:
    """Text that shows as it is: no control, format (bidi override, zero-width) or
    separator characters, no lone surrogates, and at least one visible character (a
    letter, digit, punctuation or symbol)."""
    categories = [unicodedata.category(ch) for ch in value]
    if any(category in _HIDDEN for category in categories):
        raise ma.ValidationError(
            "Use plain text: no control characters, no bidirectional or zero-width "
            "formatting characters."
        )
    if not any(category[0] in "LNPS" for category in categories):
        raise ma.ValidationError("A name needs at least one visible character.")
    return True


def Variant(description: str = "The game whose rules apply.") -> fields.String:  # noqa: N802
    return fields.String(
        load_default="scopa",
        validate=validate.OneOf(sorted(VARIANTS)),
        metadata={"description": description},
    )


class StrictSchema(ma.Schema):
    """A request body: unknown fields are refused."""

    class Meta:
        unknown = ma.RAISE
        ordered = True


def _option_field(option: Option) -> fields.Field:
    metadata = {"description": option.description}
    if option.choices:
        return fields.String(
            load_default=option.default,
            validate=validate.OneOf(option.choices),
            metadata=metadata,
        )
    return Boolean(load_default=option.default, metadata=metadata)


class RulesSchema(StrictSchema):
    """Rule options (docs/rules.md R9, R10); every one is off unless asked for. Options
    that belong to another variant are refused with 422."""

    re_bello = _option_field(OPTIONS["re_bello"])
    napola = _option_field(OPTIONS["napola"])
    napoleone = _option_field(OPTIONS["napoleone"])
    forced_capture = _option_field(OPTIONS["forced_capture"])
    dealer_last_sweep = _option_field(OPTIONS["dealer_last_sweep"])


def RulesField() -> fields.Nested:  # noqa: N802
    """The ``rules`` of a request: every option at its default when left out."""
    return fields.Nested(RulesSchema, load_default=lambda: RulesSchema().load({}))


def check_rules_fit(data: dict[str, Any]) -> None:
    """Raise a ValidationError on ``rules`` when an option does not apply to the variant."""
    problem = get_variant(data["variant"]).check_rules(Rules.from_dict(data["rules"]))
    if problem:
        raise ma.ValidationError(problem + ".", field_name="rules")


def check_no_repeats(groups: dict[str, list[list[str]]]) -> None:
    """Raise a ValidationError naming the field where a card appears a second time."""
    seen: dict[str, str] = {}
    for field, lists in groups.items():
        for cards in lists:
            for code in cards:
                if code in seen:
                    where = "twice" if seen[code] == field else f"in both {seen[code]} and {field}"
                    raise ma.ValidationError(f"{code} appears {where}.", field_name=field)
                seen[code] = field
