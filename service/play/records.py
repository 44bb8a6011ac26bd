"""A finished match as a record: what a platform exports (``GET /v1/games/{id}/record``,
``GET /v1/games/export``) and imports again (``POST /v1/games/import``).

One JSON object: the setup (variant, target, rules), the seats with their names, teams,
platform ids and computer players, the game's metadata, every event of the match in
order (each deal with the cards dealt, every move and declaration, each hand's score
lines, the result and why) and, read from them, each hand's score and the result. The
record is shown only to the service key that owns the game, and only once the match is
over: the cards it names were then all played.

An import replays the record's events through the engine (service/engine/replay.py):
each deal, move and declaration must be legal and give exactly the events recorded, and
the record's result and hand scores must be those of the replay. The game it stores is
finished, with the same record (but its id).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from ..engine import Event, EventKind, Status
from ..engine.replay import ReplayError, replay
from .game import Game
from .steps import Step, new_game_id

#: The events of a game's log that are not its match's record: the next match's id.
_NOT_RECORDED = frozenset({EventKind.REMATCH})


class NotOverError(RuntimeError):
    """A record is of a match that is over (finished or aborted)."""


class RecordRefusedError(ValueError):
    """A record that is not the record of a finished match: the message says where and
    why (the first event the rules refuse, or the claim its events contradict)."""

    def __init__(self, message: str, event: int | None = None) -> None:
        super().__init__(message)
        self.event = event


def _time(when: float | None) -> str | None:
    if when is None:
        return None
    return (
        datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def _parse_time(text: str | None) -> float | None:
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def has_record(game: Game) -> bool:
    """Whether ``game`` has a record: its match was dealt, and is finished or aborted."""
    return game.status in (Status.FINISHED, Status.ABORTED) and game.match is not None


def record_of(game: Game, events: Sequence[Event]) -> dict[str, Any]:
    """The record of ``game`` (finished or aborted) with its whole log ``events``;
    NotOverError while it waits or is played."""
    if not has_record(game) or game.match is None:
        raise NotOverError(game.id)
    match = game.match
    return {
        "id": game.id,
        "variant": match.variant.name,
        "target": match.target,
        "rules": match.rules.to_dict(),
        "created_at": _time(game.created_at),
        "status": str(game.status),
        "metadata": dict(game.metadata),
        "seats": [
            {
                "seat": seat,
                "name": name,
                "team": match.teams[seat],
                "player_id": game.player_id(seat),
                "bot": game.bots[seat],
            }
            for seat, name in enumerate(match.names)
        ],
        "result": {
            "winner": match.winner if game.aborted is None else None,
            "scores": list(match.scores),
            "reason": game.aborted if game.aborted is not None else _reason(events),
        },
        "hands": list(match.hand_scores),
        "events": [e for e in events if e.get("type") not in _NOT_RECORDED],
    }


def _reason(events: Sequence[Event]) -> str | None:
    """Why the match ended (its match_over event's reason: ``target``, ``napoleone``...)."""
    for event in reversed(events):
        if event.get("type") == EventKind.MATCH_OVER:
            reason = event.get("reason")
            return None if reason is None else str(reason)
    return None


def imported(
    record: dict[str, Any], owner: str, *, now: float | None = None, game_id: str | None = None
) -> Step:
    """The finished game ``record`` describes, owned by ``owner``, as a new game's step
    (its log the record's events); RecordRefusedError if the record is not that of a
    finished match: an event the rules refuse, or a claim its events contradict."""
    events: list[Event] = list(record["events"])
    try:
        match = replay(events)
    except ReplayError as refused:
        text = str(refused)
        number = text.split(":", 1)[0].removeprefix("event ")
        raise RecordRefusedError(text, int(number) if number.isdigit() else None) from None
    if match.status is not Status.FINISHED:
        raise RecordRefusedError(
            f"the record's events leave the match {match.status}: only a finished match "
            "is imported (every move to its match_over event)"
        )
    seats = record["seats"]
    claims = {
        "variant": (record["variant"], match.variant.name),
        "target": (record["target"], match.target),
        "rules": (record["rules"], match.rules.to_dict()),
        "seats' names": ([s["name"] for s in seats], list(match.names)),
        "seats' teams": ([s["team"] for s in seats], list(match.teams)),
        "result's winner": (record["result"]["winner"], match.winner),
        "result's scores": (record["result"]["scores"], list(match.scores)),
        "result's reason": (record["result"]["reason"], _reason(events)),
        "hands": (record["hands"], match.hand_scores),
    }
    for what, (said, replayed) in claims.items():
        if said != replayed:
            raise RecordRefusedError(
                f"the record's {what} is {said!r}, its events give {replayed!r}"
            )
    if [s["seat"] for s in seats] != list(range(len(seats))):
        raise RecordRefusedError("the record's seats must be numbered 0, 1, ... in order")
    created = _parse_time(record.get("created_at"))
    game = Game(
        id=game_id or new_game_id(),
        version=1,
        match=match,
        bots=tuple(s.get("bot") for s in seats),
        token_hashes=(None,) * len(seats),
        owner=owner,
        player_ids=tuple(s.get("player_id") for s in seats)
        if any(s.get("player_id") for s in seats)
        else (),
        metadata=dict(record.get("metadata") or {}),
        spectators=False,  # an imported match is its key's: no spectator reads it
        created_at=created if created is not None else (now or time.time()),
        logged=len(events),
    )
    return Step(game, events)
