"""The answers of /v1/games, built from a game or a step: every card in them goes
through ``service.engine.views``, which decides what each viewer may see."""

from __future__ import annotations

from typing import Any

from flask import url_for

from ....engine import Event, event_view, match_view, move_view
from ....play import Creation, Game, Step
from ...problems import etag


def view_of(game: Game, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` sees it (a spectator: None)."""
    view = {"id": game.id, "version": game.version, **match_view(game.match, seat)}
    for entry, level in zip(view["seats"], game.bots, strict=True):
        entry["bot"] = level
    return view


def events_for(events: list[Event], seat: int | None) -> list[Event]:
    return [event_view(e, seat) for e in events]


def created(creation: Creation, tokens: list[str | None]) -> dict[str, Any]:
    """The answer to a creation: each seat (with ``tokens``), the computer players'
    opening moves and the spectator's view."""
    game = creation.game
    match = game.match
    return {
        "id": game.id,
        "version": game.version,
        "seats": [
            {
                "seat": seat,
                "name": name,
                "team": match.teams[seat],
                "bot": game.bots[seat],
                "token": tokens[seat],
            }
            for seat, name in enumerate(match.names)
        ],
        "events": events_for(creation.bot_events, None),
        "state": view_of(game, None),
    }


def created_headers(game_id: str, version: int) -> dict[str, str]:
    return {"Location": url_for("games.GameItem", game_id=game_id), **etag(version)}


def moved(step: Step, seat: int) -> dict[str, Any]:
    """The answer to ``seat``'s move: the move, what followed it, the seat's view."""
    move, *after = step.events
    return {
        "move": {k: v for k, v in move.items() if k != "type"},
        "events": events_for(after, seat),
        "state": view_of(step.game, seat),
    }


def legal_moves(game: Game, seat: int) -> list[dict[str, Any]]:
    """``seat``'s legal moves now, as clients see them; empty when it is not its turn."""
    table = game.match.table
    return [move_view(m, table) for m in game.match.legal_moves(seat)]
