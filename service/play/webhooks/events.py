"""The webhook events of a game, read from its event log: what a platform's endpoints
receive. Pure: a game and a stretch of its log in, messages out.

A message carries only public facts of the match (seats, player ids, metadata, turns,
scores, results), never a card: no hand, no stock, no deal, no captured pile, not even
the cards left on the table at a hand's end. Each has a stable id, the same however
often it is sent: ``msg_<game>.<n>``, with ``<n>`` the position in the game's log of the
event it tells of (``created`` for the game's creation, ``<n>.turn`` for the turn that
follows the events up to ``<n>``). Every turn has its ``turn.started``, however many
changes one stretch of the log holds: the log read after each change, or read after many,
makes messages of the same ids.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from ...engine import Event, EventKind, Status, team_of_seats
from ...ratings import Rating
from ..game import Game
from ..ratings import Outcome
from .store import Message

GAME_CREATED = "game.created"
GAME_STARTED = "game.started"
HAND_OVER = "hand.over"
GAME_OVER = "game.over"
GAME_ABORTED = "game.aborted"
SEAT_JOINED = "seat.joined"
SEAT_LEFT = "seat.left"
TURN_STARTED = "turn.started"
#: A tournament's (service/play/webhooks/tournament_events.py).
TOURNAMENT_ROUND_STARTED = "tournament.round_started"
TOURNAMENT_ROUND_FINISHED = "tournament.round_finished"
TOURNAMENT_FINISHED = "tournament.finished"
TOURNAMENT_CANCELLED = "tournament.cancelled"
#: Every event type an endpoint may ask for, in the order a match has them, then a
#: tournament's.
EVENT_TYPES = (
    GAME_CREATED,
    SEAT_JOINED,
    SEAT_LEFT,
    GAME_STARTED,
    TURN_STARTED,
    HAND_OVER,
    GAME_OVER,
    GAME_ABORTED,
    TOURNAMENT_ROUND_STARTED,
    TOURNAMENT_ROUND_FINISHED,
    TOURNAMENT_FINISHED,
    TOURNAMENT_CANCELLED,
)
#: What ``POST /v1/webhooks/{id}/test`` sends: no game's event, never recorded for one.
PING = "ping"


def ping(endpoint_id: str, now: float) -> Message:
    """A test message to an endpoint (of no game), with an id of its own:
    ``msg_ping_<random>``."""
    message_id = f"msg_{PING}_{secrets.token_urlsafe(12)}"
    body = {
        "id": message_id,
        "type": PING,
        "timestamp": rfc3339(now),
        "data": {"endpoint": endpoint_id},
    }
    return Message(message_id, PING, "", orjson.dumps(body).decode())


def game_of(message_id: str) -> str:
    """The game a message id names (``msg_<game>.<n>...``; a ping's names none: "")."""
    name = message_id.removeprefix("msg_")
    return "" if name.startswith(f"{PING}_") else name.split(".", 1)[0]


#: The log's events after which the turn passes (to someone, or to the next hand).
_TURNING = frozenset({EventKind.MATCH_STARTED, EventKind.DEAL, EventKind.MOVE})
#: A seat's actions on its turn: the first after the turn passed takes that turn.
_ACTING = frozenset({EventKind.MOVE, EventKind.DECLARATION})


def rfc3339(when: float) -> str:
    return (
        datetime.fromtimestamp(when, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def game_summary(game: Game) -> dict[str, Any]:
    """What every message says of its game: the facts anyone at the table sees, and the
    platform's own ids."""
    if game.match is not None:
        names: Sequence[str | None] = game.match.names
        variant = game.match.variant.name
    else:
        assert game.lobby is not None, "a game without a match waits in its lobby"
        names, variant = game.lobby.names, str(game.lobby.setup["variant"])
    teams = team_of_seats(len(names))
    return {
        "id": game.id,
        "variant": variant,
        "metadata": dict(game.metadata),
        "seats": [
            {
                "seat": seat,
                "name": name,
                "team": teams[seat],
                "player_id": game.player_id(seat),
                "bot": bot,
            }
            for seat, (name, bot) in enumerate(zip(names, game.bots, strict=True))
        ],
    }


def messages_of(
    game: Game,
    events: Sequence[Event],
    start: int,
    *,
    created: bool,
    now: float,
    ratings: Outcome | None = None,
) -> list[Message]:
    """The messages of ``events``, the game's log from position ``start`` on, read with
    ``game`` as the log stood at their end; with ``created``, the game's creation first.
    ``ratings``: what the game, rated, did to its players' ratings (its ``game.over``
    message carries it)."""
    summary = game_summary(game)
    found: list[Message] = []
    after = statuses_after(game, events)
    status = str(game.status)

    def add(message_id: str, kind: str, data: dict[str, Any]) -> None:
        body = {
            "id": message_id,
            "type": kind,
            "timestamp": rfc3339(now),
            "data": {"game": {**summary, "status": status}, **data},
        }
        found.append(Message(message_id, kind, game.id, orjson.dumps(body).decode()))

    base = f"msg_{game.id}."
    if created:  # dealt at once, or waiting for people in its lobby
        opened = bool(events) and events[0].get("type") == EventKind.MATCH_STARTED
        status = str(Status.PLAYING if opened else Status.WAITING)
        add(base + "created", GAME_CREATED, {"created_at": _created_at(game)})
    turned = False  # a turn passed since the last seat acted
    hands = hands_of(game, events)
    for position, event in enumerate(events, start):
        kind = event.get("type")
        if turned and kind in _ACTING:
            # The turn that began after the event before this one, taken since.
            status = after[position - start - 1]
            taken = _taken_turn(game, event["seat"], hands[position - start])
            add(f"{base}{position - 1}.turn", TURN_STARTED, taken)
            turned = False
        status = after[position - start]
        turned = turned or kind in _TURNING
        told = _TOLD.get(kind)
        if told is not None:
            message_type, data = told
            said = data(game, event)
            if message_type == GAME_OVER:
                said["ratings"] = rating_changes(ratings)
            add(f"{base}{position}", message_type, said)
    status = str(game.status)
    turn = _turn(game) if events and turned else None
    if turn is not None:
        add(f"{base}{start + len(events) - 1}.turn", TURN_STARTED, turn)
    return found


def _taken_turn(game: Game, seat: int, hand: int) -> dict[str, Any]:
    """What a turn.started message says of a turn already taken when its message is made
    (``seat`` acted in ``hand``): its clock's deadline is not known then."""
    return {"seat": seat, "player_id": game.player_id(seat), "hand": hand, "deadline": None}


def hands_of(game: Game, events: Sequence[Event]) -> list[int]:
    """The hand each of ``events`` (the last stretch of the log, ``game`` as it stood at
    its end) belongs to, read back from the end: a deal, a declaration and a hand's end
    name theirs; a move belongs to the next one that does, or to the hand being played."""
    hand = game.match.hand_number if game.match is not None else 0
    found: list[int] = []
    for event in reversed(events):
        hand = event.get("hand", hand)
        found.append(hand)
    return found[::-1]


def _turn(game: Game) -> dict[str, Any] | None:
    """What a turn.started message says of the turn ``game`` is at (None: nobody's)."""
    match = game.match
    if match is None or game.status is not Status.PLAYING or match.turn is None:
        return None
    return {
        "seat": match.turn,
        "player_id": game.player_id(match.turn),
        "hand": match.hand_number,
        "deadline": None if game.deadline is None else rfc3339(game.deadline),
    }


def _seat_joined(game: Game, event: Event) -> dict[str, Any]:
    seat = event["seat"]
    return {"seat": seat, "name": event["name"], "player_id": game.player_id(seat)}


def _seat_left(game: Game, event: Event) -> dict[str, Any]:
    return {"seat": event["seat"], "player_id": game.player_id(event["seat"])}


def _started(game: Game, event: Event) -> dict[str, Any]:
    teams = [{"seat": s["seat"], "team": s["team"]} for s in event["seats"]]
    return {
        "target": event["target"],
        "dealer": event["dealer"],
        "teams": teams,
        "rules": event["rules"],
    }


def _hand_over(game: Game, event: Event) -> dict[str, Any]:
    score = event["score"]
    sides = [{k: v for k, v in side.items() if k != "captured"} for side in score["teams"]]
    return {"hand": event["hand"], "teams": sides, "scores": score["scores"]}


def _over(game: Game, event: Event) -> dict[str, Any]:
    winner = event["winner"]
    winners = [
        {"seat": seat, "player_id": game.player_id(seat)}
        for seat, team in enumerate(game.playing.teams)
        if team == winner
    ]
    return {
        "winner": winner,
        "winners": winners,
        "scores": event["scores"],
        "reason": event.get("reason"),
    }


def rating_changes(outcome: Outcome | None) -> list[dict[str, Any]] | None:
    """Each seat's rating before and after a rated game (None: the game is not rated, or
    its ratings could not be settled yet)."""
    if outcome is None:
        return None
    return [
        {
            "seat": change.seat,
            "player_id": change.player_id,
            "team": change.team,
            "before": rating_of(change.before),
            "after": rating_of(change.after),
        }
        for change in outcome.seats
    ]


def rating_of(rating: Rating) -> dict[str, float]:
    """A rating as the API shows it: the model's mean and uncertainty, and what a
    leaderboard ranks by."""
    return {"rating": rating.display, "mu": rating.mu, "sigma": rating.sigma}


def _aborted(game: Game, event: Event) -> dict[str, Any]:
    return {"reason": event.get("reason")}


#: The log's events a message tells of: its type, and what it says (besides the game).
_TOLD: dict[Any, tuple[str, Callable[[Game, Event], dict[str, Any]]]] = {
    EventKind.SEAT_JOINED: (SEAT_JOINED, _seat_joined),
    EventKind.SEAT_LEFT: (SEAT_LEFT, _seat_left),
    EventKind.MATCH_STARTED: (GAME_STARTED, _started),
    EventKind.HAND_OVER: (HAND_OVER, _hand_over),
    EventKind.MATCH_OVER: (GAME_OVER, _over),
    EventKind.ABORTED: (GAME_ABORTED, _aborted),
}


def statuses_after(game: Game, events: Sequence[Event]) -> list[str]:
    """The game's status after each of ``events`` (the last stretch of its log, ``game``
    as it stood at its end), read back from the end: before a match_over or an abort the
    match was being played (or waited, if it never started), before match_started it
    waited."""
    status = game.status
    found: list[str] = []
    for event in reversed(events):
        found.append(str(status))
        kind = event.get("type")
        if kind in (EventKind.MATCH_OVER, EventKind.ABORTED):
            status = Status.PLAYING if game.match is not None else Status.WAITING
        elif kind == EventKind.MATCH_STARTED:
            status = Status.WAITING
    return found[::-1]


def _created_at(game: Game) -> str | None:
    return None if game.created_at is None else rfc3339(game.created_at)
