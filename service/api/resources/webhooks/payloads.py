"""What each webhook event's body holds, as the spec's top-level ``webhooks`` (OpenAPI 3.1)
describes it: one operation per event type (and the ``ping``), its body a named schema in
the components. The bodies are made by service/play/webhooks/events.py; a test checks
every one the suite's matches make against these schemas (tests/test_webhooks.py)."""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from marshmallow import Schema, fields, validate

from ....play.webhooks.events import (
    GAME_ABORTED,
    GAME_CREATED,
    GAME_OVER,
    GAME_STARTED,
    HAND_OVER,
    PING,
    SEAT_JOINED,
    SEAT_LEFT,
    TOURNAMENT_CANCELLED,
    TOURNAMENT_FINISHED,
    TOURNAMENT_ROUND_FINISHED,
    TOURNAMENT_ROUND_STARTED,
    TURN_STARTED,
)
from ...fields import BotLevel, Integer, NestedList, String, VariantName
from ..players.schemas import RatingChangeSchema
from ..tournaments.schemas import StandingSchema
from .schemas import TIME


class _Closed(Schema):
    """A body's part: exactly these fields, each always present."""

    class Meta:
        ordered = True


class WebhookSeatSchema(_Closed):
    seat = Integer("The seat, from 0.", required=True)
    name = String("Its player's name; null while open.", allow_none=True, required=True)
    team = Integer("Its side (the team of the match).", required=True)
    player_id = String("Your id of its player, if you gave one.", allow_none=True, required=True)
    bot = BotLevel(
        allow_none=True,
        required=True,
        metadata={"description": "Its computer player's level; null for a person."},
    )


class WebhookGameSchema(_Closed):
    id = String("The game's id.", required=True)
    variant = VariantName(required=True, metadata={"description": "Its rules."})
    metadata = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "Your metadata of the game."},
    )
    seats = NestedList(WebhookSeatSchema, "Its seats, in order.", required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(["waiting", "playing", "finished", "aborted"]),
        metadata={"description": "The game's status as of the event."},
    )


def _data(schema_name: str, /, **own: fields.Field) -> type[Schema]:
    """The ``data`` of an event: its game, and ``own``."""
    game = fields.Nested(WebhookGameSchema, required=True, metadata={"description": "The game."})
    return Schema.from_dict({"game": game, **own}, name=schema_name)


class WebhookTournamentSchema(_Closed):
    id = String("The tournament's id.", required=True)
    name = String("Its name.", required=True)
    format = String("How it pairs its rounds.", required=True)
    variant = VariantName(required=True, metadata={"description": "Its games' rules."})
    rounds = Integer("How many rounds it has.", required=True)
    status = String("`playing`, `finished`, as of the message.", required=True)
    metadata = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={"description": "Your metadata of the tournament."},
    )


class WebhookSideSchema(_Closed):
    number = Integer("The entrant's number (its seed).", required=True)
    name = String("Its name.", required=True)
    player_ids = fields.List(
        fields.String(), required=True, metadata={"description": "Its players' ids."}
    )


class WebhookTableSchema(_Closed):
    table = Integer("The table's number.", required=True)
    first = fields.Nested(
        WebhookSideSchema, required=True, metadata={"description": "On the first seats."}
    )
    second = fields.Nested(
        WebhookSideSchema,
        required=True,
        allow_none=True,
        metadata={"description": "On the others; null: a bye."},
    )
    game_id = String("Its game; null: decided without one.", allow_none=True, required=True)


def _tournament_data(schema_name: str, /, **own: fields.Field) -> type[Schema]:
    """The ``data`` of a tournament's event: its tournament, and ``own``."""
    tournament = fields.Nested(
        WebhookTournamentSchema, required=True, metadata={"description": "The tournament."}
    )
    return Schema.from_dict({"tournament": tournament, **own}, name=schema_name)


_STANDINGS = fields.List(
    fields.Nested(StandingSchema),
    required=True,
    metadata={"description": "The standings, best first (as `GET /v1/tournaments/{id}`)."},
)
_SEAT = Integer("The seat, from 0.", required=True)
_PLAYER_ID = String("Your id of its player, if you gave one.", allow_none=True, required=True)
_HAND = Integer("The hand's number, from 1.", required=True)
_SCORES = fields.List(
    fields.Integer(), required=True, metadata={"description": "Each side's match total."}
)
_REASON = String("Why, in words; or null.", allow_none=True, required=True)

#: Each event type's ``data`` schema, and what the event means.
DATA: dict[str, tuple[type[Schema], str]] = {
    GAME_CREATED: (
        _data(
            "GameCreatedData",
            created_at=fields.String(
                allow_none=True, required=True, metadata={"description": TIME}
            ),
        ),
        "A game of the key's was created (dealt at once, or waiting for people).",
    ),
    SEAT_JOINED: (
        _data(
            "SeatJoinedData",
            seat=_SEAT,
            name=String("The name taken.", required=True),
            player_id=_PLAYER_ID,
        ),
        "A person took an open seat, before the match.",
    ),
    SEAT_LEFT: (
        _data("SeatLeftData", seat=_SEAT, player_id=_PLAYER_ID),
        "A person left a seat before the match: it is open again.",
    ),
    GAME_STARTED: (
        _data(
            "GameStartedData",
            target=Integer("The points to win.", required=True),
            dealer=Integer("The first dealer's seat.", required=True),
            teams=fields.List(
                fields.Dict(),
                required=True,
                metadata={"description": "Each seat's side: `{seat, team}`."},
            ),
            rules=fields.Dict(required=True, metadata={"description": "The match's rules."}),
        ),
        "Every seat taken: the first hand is dealt.",
    ),
    TURN_STARTED: (
        _data(
            "TurnStartedData",
            seat=_SEAT,
            player_id=_PLAYER_ID,
            hand=_HAND,
            deadline=fields.String(
                allow_none=True,
                required=True,
                metadata={
                    "description": TIME + " When the turn's clock runs out; null without a "
                    "clock, or for a turn taken before its event was read."
                },
            ),
        ),
        "A seat is to play: one for every turn, in order.",
    ),
    HAND_OVER: (
        _data(
            "HandOverData",
            hand=_HAND,
            teams=fields.List(
                fields.Dict(),
                required=True,
                metadata={
                    "description": "Each side's score lines: `team`, `cards`, `coins`, "
                    "`settebello`, `primiera`, `scopas`, `points` by category, `total`."
                },
            ),
            scores=_SCORES,
        ),
        "A hand ended: its score lines (no card).",
    ),
    GAME_OVER: (
        _data(
            "GameOverData",
            winner=Integer("The winning side.", required=True),
            winners=fields.List(
                fields.Dict(),
                required=True,
                metadata={"description": "The winning side's seats: `{seat, player_id}`."},
            ),
            scores=_SCORES,
            reason=_REASON,
            ratings=fields.List(
                fields.Nested(RatingChangeSchema),
                required=True,
                allow_none=True,
                metadata={
                    "description": "A rated game's (`rated` at creation): each seat's "
                    "rating in the game's variant before and after it, in seat order "
                    "(`GET /v1/players/{player_id}` reads them since). Null for a game "
                    "that is not rated."
                },
            ),
        ),
        "The match is won (`reason`: `target`, `napoleone`, `cappotto`).",
    ),
    GAME_ABORTED: (
        _data("GameAbortedData", reason=_REASON),
        "The key aborted the game.",
    ),
    TOURNAMENT_ROUND_STARTED: (
        _tournament_data(
            "TournamentRoundStartedData",
            round=Integer("The round's number, from 1.", required=True),
            start_at=String(
                TIME + " When its games start; null: now.", allow_none=True, required=True
            ),
            tables=fields.List(
                fields.Nested(WebhookTableSchema),
                required=True,
                metadata={"description": "Its tables (the games, then any bye or forfeit)."},
            ),
        ),
        "A round of a tournament of the key's was paired and its games made "
        "(`GET /v1/tournaments/{id}` has their seats' tokens).",
    ),
    TOURNAMENT_ROUND_FINISHED: (
        _tournament_data(
            "TournamentRoundFinishedData",
            round=Integer("The round's number.", required=True),
            standings=_STANDINGS,
        ),
        "The last game of a round ended: the standings after it.",
    ),
    TOURNAMENT_FINISHED: (
        _tournament_data("TournamentFinishedData", standings=_STANDINGS),
        "The tournament is over: its final standings.",
    ),
    TOURNAMENT_CANCELLED: (
        _tournament_data("TournamentCancelledData", standings=_STANDINGS),
        "The key cancelled the tournament: its games under way aborted, no round after; "
        "the standings as it stopped.",
    ),
    PING: (
        Schema.from_dict(
            {"endpoint": String("The endpoint's id.", required=True)}, name="PingData"
        ),
        "A test message (`POST /v1/webhooks/{endpoint_id}/test`); of no game.",
    ),
}


def component(event_type: str) -> str:
    """The name of an event's body schema in the components ("TurnStartedWebhook")."""
    return "".join(part.capitalize() for part in re.split(r"[._]", event_type)) + "Webhook"


def install(spec: APISpec) -> None:
    """Register each event's body schema and describe it under the spec's ``webhooks``."""
    described: dict[str, Any] = {}
    for event_type, (data, meaning) in DATA.items():
        body = Schema.from_dict(
            {
                "id": String(
                    "The message's id, its `webhook-id` header: the same on every attempt.",
                    required=True,
                ),
                "type": fields.String(
                    required=True,
                    validate=validate.OneOf([event_type]),
                    metadata={"description": "The event's type."},
                ),
                "timestamp": fields.String(required=True, metadata={"description": TIME}),
                "data": fields.Nested(data, required=True),
            },
            name=component(event_type),
        )
        name = component(event_type)
        spec.components.schema(name, schema=body)
        described[event_type] = {
            "post": {
                "operationId": name[0].lower() + name[1:],  # "turnStartedWebhook"
                "summary": meaning,
                "security": [],  # the body is signed: the receiver verifies it
                "description": "POSTed to each endpoint asking for it, signed as Standard "
                "Webhooks says (headers `webhook-id`, `webhook-timestamp`, "
                "`webhook-signature`); docs/platforms.md, Webhooks.",
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "Received: any 2xx, within 10 s. Anything else "
                        "is tried again on the retry schedule."
                    }
                },
            }
        }
    spec.options["webhooks"] = described
