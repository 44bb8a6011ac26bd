"""The answers of /v1/games itself: a creation's (its seats' tokens), a listing's."""

from __future__ import annotations

from typing import Any

from ....play import Creation, Game
from ...game_views.answers import events_for, join_answer, utc, view_of


def summary_of(game: Game) -> dict[str, Any]:
    """A game as its key's listing shows it: from the view of the key that created it
    (every seat's player id)."""
    view = view_of(game, None)
    return {
        "id": game.id,
        "version": game.version,
        "status": view["status"],
        "variant": view["variant"],
        "created_at": utc(game.created_at),
        "seats": [
            {
                "seat": seat["seat"],
                "name": seat["name"],
                "bot": seat["bot"],
                "player_id": seat.get("player_id"),
            }
            for seat in view["seats"]
        ],
        "scores": [team["score"] for team in view["teams"]],
        "winner": view["winner"],
        "abort_reason": view["abort_reason"],
        "metadata": view["metadata"],
    }


def variant_of(game: Game) -> str:
    """The game's variant's name (its lobby's, while it waits for people)."""
    if game.match is None:
        assert game.lobby is not None, "a game has a match or a lobby"
        return str(game.lobby.setup["variant"])
    return game.match.variant.name


def created(creation: Creation, tokens: list[str | None]) -> dict[str, Any]:
    """The answer to a creation: each seat (with ``tokens``), the computer players'
    opening moves and the spectator's view."""
    game = creation.game
    state = view_of(game, None)
    return {
        "id": game.id,
        "version": game.version,
        "seats": [
            {
                "seat": seat["seat"],
                "name": seat["name"],
                "team": seat["team"],
                "bot": seat["bot"],
                "open": seat["open"],
                "token": tokens[seat["seat"]],
                **({"player_id": seat["player_id"]} if "player_id" in seat else {}),
            }
            for seat in state["seats"]
        ],
        "join": None if creation.join_code is None else join_answer(game.id, creation.join_code),
        "events": events_for(creation.bot_events, None, creation.opening),
        "state": state,
    }
