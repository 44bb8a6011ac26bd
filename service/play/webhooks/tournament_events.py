"""The webhook events of a tournament (``tournament.round_started``,
``tournament.round_finished``, ``tournament.finished``, ``tournament.cancelled``), read
from its log
(service/play/tournaments/store.py) as a game's are read from its own. Pure: a
tournament and a stretch of its log in, messages out. A message's id is
``msg_<tournament>.<n>``, ``<n>`` the position in the log of the event it tells of.

They name entrants by number and name, with their players' ids (the key's own), the
games' ids, and the standings; never a seat's token (the key reads those in the
tournament, ``GET /v1/tournaments/{id}``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..tournaments.model import Tournament
from .events import TOURNAMENT_CANCELLED as CANCELLED
from .events import TOURNAMENT_FINISHED as FINISHED
from .events import TOURNAMENT_ROUND_FINISHED as ROUND_FINISHED
from .events import TOURNAMENT_ROUND_STARTED as ROUND_STARTED
from .events import rfc3339
from .store import Message

_TYPES = {
    "round_started": ROUND_STARTED,
    "round_finished": ROUND_FINISHED,
    "finished": FINISHED,
    "cancelled": CANCELLED,
}


def summary(tournament: Tournament) -> dict[str, Any]:
    """What every message says of its tournament."""
    return {
        "id": tournament.id,
        "name": tournament.name,
        "format": str(tournament.format),
        "variant": tournament.variant,
        "rounds": tournament.total_rounds,
        "status": str(tournament.stage),
        "metadata": dict(tournament.metadata),
    }


def _side(tournament: Tournament, number: int | None) -> dict[str, Any] | None:
    if number is None:
        return None
    entry = tournament.entry(number)
    return {
        "number": number,
        "name": entry.name,
        "player_ids": [m.player_id for m in entry.members],
    }


def _data(tournament: Tournament, event: dict[str, Any]) -> dict[str, Any]:
    if event["type"] == "round_started":
        return {
            "round": event["round"],
            "start_at": None if event["start_at"] is None else rfc3339(event["start_at"]),
            "tables": [
                {
                    "table": t["table"],
                    "first": _side(tournament, t["first"]),
                    "second": _side(tournament, t["second"]),
                    "game_id": t["game_id"],
                }
                for t in event["tables"]
            ],
        }
    if event["type"] == "round_finished":
        return {"round": event["round"], "standings": event["standings"]}
    return {"standings": event["standings"]}


def messages_of(
    tournament: Tournament, events: Sequence[dict[str, Any]], start: int, *, now: float
) -> list[Message]:
    """The messages of ``events``, the tournament's log from position ``start`` on."""
    found = []
    for position, event in enumerate(events, start):
        kind = _TYPES[event["type"]]
        message_id = f"msg_{tournament.id}.{position}"
        body = {
            "id": message_id,
            "type": kind,
            "timestamp": rfc3339(now),
            "data": {"tournament": summary(tournament), **_data(tournament, event)},
        }
        found.append(Message(message_id, kind, tournament.id, orjson.dumps(body).decode()))
    return found
