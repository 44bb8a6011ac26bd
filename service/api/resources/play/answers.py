"""The answers of playing: a seat's legal moves, its move's and its declaration's."""

from __future__ import annotations

from typing import Any

from ....engine import move_view
from ....play import Game, Step
from ...game_views.answers import events_for, view_of
from ...schemas import declarations_view


def moved(step: Step, seat: int) -> dict[str, Any]:
    """The answer to ``seat``'s move: the move, what followed it, the seat's view."""
    move, *after = step.events
    return {
        "move": {k: v for k, v in move.items() if k != "type"},
        "events": events_for(after, seat, step.first_seq + 1),
        "state": view_of(step.game, seat),
    }


def declared(step: Step, seat: int) -> dict[str, Any]:
    """The answer to ``seat``'s declaration: the declaration's event and the seat's view."""
    (declaration,) = events_for(step.events, seat, step.first_seq)
    return {"declaration": declaration, "state": view_of(step.game, seat)}


def legal_declarations(game: Game, seat: int) -> list[dict[str, Any]]:
    """What ``seat`` may declare now (Cirulla, C3), as entries to send back as they are."""
    match = game.match
    return [] if match is None else declarations_view(match.legal_declarations(seat))


def legal_moves(game: Game, seat: int) -> list[dict[str, Any]]:
    """``seat``'s legal moves now, as clients see them; empty when it is not its turn."""
    match = game.match
    if match is None:  # waiting for people: nothing is dealt
        return []
    return [move_view(m, match.table) for m in match.legal_moves(seat)]
