"""What /v1/cards takes and answers."""

from __future__ import annotations

from marshmallow import fields, validate

from ...card_names import CATEGORY_NAMES, FACES, LANGUAGES
from ...fields import Card, Integer, NestedList, StrictSchema, String, VariantName
from ...responses import ResponseSchema


class CatalogueQuerySchema(StrictSchema):
    lang = String(
        "The language: `it`, `en`, `pt` or `es` (default: the best "
        "match of `Accept-Language`, else `en`).",
        validate=validate.OneOf(LANGUAGES),
    )
    faces = String(
        "The pack the names are for: `italian` (denari, coppe, spade, "
        "bastoni; fante, cavallo, re) or `french` (diamonds, hearts, spades, clubs; "
        "jack, queen, king), docs/rules.md R1.4.",
        load_default="italian",
        validate=validate.OneOf(FACES),
    )


class SuitNameSchema(ResponseSchema):
    suit = String("The suit letter.", validate=validate.OneOf(list("DCSB")))
    name = fields.String()


class ValueNameSchema(ResponseSchema):
    value = Integer(validate=validate.Range(1, 10))
    name = fields.String()


class CardNameSchema(ResponseSchema):
    card = Card()
    name = String("Also the card's accessible name.")


class VariantTitleSchema(ResponseSchema):
    variant = VariantName()
    name = fields.String()


class CategoryNameSchema(ResponseSchema):
    category = String(
        "A key of a hand score's `points` (docs/rules.md R7, R9), or `total`.",
        validate=validate.OneOf(list(CATEGORY_NAMES["en"])),
    )
    name = fields.String()


class CatalogueSchema(ResponseSchema):
    lang = fields.String(validate=validate.OneOf(LANGUAGES))
    faces = fields.String(validate=validate.OneOf(FACES))
    suits = fields.List(fields.Nested(SuitNameSchema))
    values = fields.List(fields.Nested(ValueNameSchema))
    cards = NestedList(CardNameSchema, "All 40 cards, in deck order.")
    variants = fields.List(fields.Nested(VariantTitleSchema))
    categories = fields.List(fields.Nested(CategoryNameSchema))
