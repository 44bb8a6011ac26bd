"""A game as the API shows it, for every resource under /v1/games (service/api/resources/:
games, play, lobby, hands, events): its view and its events, as schemas
(:mod:`.schemas`, :mod:`.events`) and as built from a game (:mod:`.answers`), and what
their operations document alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..problems import STORE_ERRORS
from ..seats import BAD_TOKEN, SEAT_NAMED

if TYPE_CHECKING:
    from ..blueprint import Blueprint

#: The 404 of an operation on one game.
NOT_FOUND = {404: "No game has this id (it never existed, or it expired)."}
#: The ``Location`` header of an answer that made a game.
LOCATION = {"description": "The game's URL.", "schema": {"type": "string"}}


def seat_operation(
    blp: Blueprint, operation_id: str, errors: Mapping[int, str], **doc: Any
) -> Callable[[Any], Any]:
    """Document an operation on one game that its seats call (a seat's token, or a
    service key naming a seat), as :meth:`Blueprint.documents` does: its problem answers
    are a bad token's, a seat named wrong's, no such game's, ``errors``, then the store's."""
    answers = {**BAD_TOKEN, **SEAT_NAMED, **NOT_FOUND, **errors, **STORE_ERRORS}
    return blp.documents(operation_id, answers, **doc)
