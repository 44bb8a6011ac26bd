"""/v1/cards: the words a frontend shows, in its player's language."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from ....engine import DECK, VARIANTS
from ...blueprint import Blueprint
from ...card_names import LANGUAGES, SUIT_NAMES, SUITS, card_name, category_names, value_names
from .schemas import CatalogueQuerySchema, CatalogueSchema

blp = Blueprint(
    "cards",
    __name__,
    url_prefix="/v1",
    description="Names of the cards, suits, variants and scoring categories, in Italian, "
    "English, Portuguese and Spanish.",
)


def catalogue(lang: str, faces: str) -> dict[str, Any]:
    return {
        "lang": lang,
        "faces": faces,
        "suits": [{"suit": s, "name": SUIT_NAMES[faces][lang][s]} for s in SUITS],
        "values": [{"value": v, "name": n} for v, n in value_names(faces, lang).items()],
        "cards": [{"card": c.code, "name": card_name(c.value, c.suit, faces, lang)} for c in DECK],
        "variants": [{"variant": v.name, "name": v.title} for v in VARIANTS.values()],
        "categories": [{"category": k, "name": n} for k, n in category_names(faces, lang).items()],
    }


@blp.route("/cards")
class Catalogue(MethodView):
    @blp.arguments(CatalogueQuerySchema, location="query")
    @blp.response(
        200,
        CatalogueSchema,
        headers={
            "Content-Language": {
                "description": "The language of the names.",
                "schema": {"type": "string"},
            }
        },
    )
    @blp.documents("listCardNames", {422: "`lang` or `faces` is not one of those listed."})
    def get(self, query: dict[str, Any]) -> Any:
        """List the names of things

        Every card's name (also its accessible name), the suits, values, variants and
        scoring categories, in one language, for one pack's faces."""
        lang = query.get("lang") or request.accept_languages.best_match(LANGUAGES) or "en"
        headers = {
            "Content-Language": lang,
            "Vary": "Accept-Language",
            "Cache-Control": "public, max-age=86400",
        }
        return catalogue(lang, query["faces"]), 200, headers
