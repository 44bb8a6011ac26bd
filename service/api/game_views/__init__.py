"""A game as the API shows it, for every resource under /v1/games (service/api/resources/:
games, play, lobby, hands, events): its view and its events, as schemas
(:mod:`.schemas`, :mod:`.events`) and as built from a game (:mod:`.answers`), and what
their operations document alike."""

from __future__ import annotations

#: The 404 of an operation on one game.
NOT_FOUND = {404: "No game has this id (it never existed, or it expired)."}
#: The ``Location`` header of an answer that made a game.
LOCATION = {"description": "The game's URL.", "schema": {"type": "string"}}
