"""/v1/bot-levels: the computer players a person can choose, weakest first."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....bots.base import LEVELS, RATINGS_MEASURED
from ...blueprint import Blueprint
from ...context import bot_settings
from .schemas import LevelListSchema

blp = Blueprint(
    "levels",
    __name__,
    url_prefix="/v1",
    description="The levels of computer player, with their measured strength.",
)


@blp.route("/bot-levels")
class BotLevels(MethodView):
    @blp.response(200, LevelListSchema)
    @blp.documents("listBotLevels", {})
    def get(self) -> Any:
        """List the computer player levels

        Every level a seat's `bot` may take, weakest first: a label for a "new game"
        screen (`beginner`, `easy`, `medium`, `hard`), how it plays, its thinking time
        a move on this service and its Elo-style rating, measured in tournaments between
        the levels (docs/performance.md)."""
        budget = bot_settings().expert_budget_ms
        return {
            "levels": [
                {
                    "level": level.name,
                    "label": level.label,
                    "description": level.description,
                    "thinking_ms": budget * level.budget_share,
                    "rating": level.rating,
                }
                for level in LEVELS
            ],
            "ratings": RATINGS_DESCRIPTION,
        }


RATINGS_DESCRIPTION = (
    "Elo-style ratings in 2-player Scopa, random at 0: 400 points of difference is a "
    "player that scores 10 times as many hands as it loses against the other (a drawn "
    "hand counts half). Measured with the default thinking time: " + RATINGS_MEASURED + "."
)
