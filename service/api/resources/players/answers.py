"""What /v1/players answers, built from the key's ratings (service/play/ratings.py)."""

from __future__ import annotations

from typing import Any

from ....play.ratings import BadCursorError, Ratings, Record
from ....play.webhooks.events import rating_of
from ...context import store
from ...game_views.answers import utc
from ...problems import Problem, ProblemType
from ..games.listing import page_url


def player(owner: str, player_id: str) -> dict[str, Any]:
    """A player's ratings and record in each variant, with their places."""
    found = Ratings(store()).player(owner, player_id)
    return {
        "player_id": player_id,
        "ratings": [_record(v, record, place) for v, (record, place) in found.items()],
    }


def leaderboard(owner: str, query: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The page of a variant's leaderboard ``query`` asks for, and the next page's URL."""
    variant = query["variant"]
    try:
        entries, cursor = Ratings(store()).board(
            owner, variant, query["limit"], query.get("cursor")
        )
    except BadCursorError:
        raise Problem(
            422,
            ProblemType.VALIDATION,
            "This cursor is not one a leaderboard gave: follow the `next` link as it is.",
            errors={"cursor": ["Not a leaderboard's cursor."]},
        ) from None
    following = None if cursor is None else page_url(cursor)
    players = [{"player_id": e.player_id, **_record(variant, e.record, e.place)} for e in entries]
    return {"variant": variant, "players": players, "next": following}, following


def _record(variant: str, record: Record, place: int) -> dict[str, Any]:
    """A player's record in one variant, as the API shows it."""
    return {
        "variant": variant,
        "place": place,
        **rating_of(record.rating),
        "games": record.games,
        "wins": record.wins,
        "losses": record.losses,
        "scopas": record.scopas,
        "hands": record.hands,
        "scopas_per_hand": record.scopas / record.hands if record.hands else 0.0,
        "last_game": record.last_game,
        "updated_at": utc(record.updated_at),
    }
