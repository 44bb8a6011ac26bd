"""What /v1/webhooks takes and answers."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from ....play.webhooks.addresses import MAX_URL_LENGTH
from ....play.webhooks.events import EVENT_TYPES, PING
from ....play.webhooks.store import DISABLED_BY_KEY
from ...fields import (
    Boolean,
    Enumerated,
    Enumeration,
    Integer,
    NestedList,
    StrictSchema,
    String,
)
from ...responses import ResponseSchema

EVENT_TYPE = Enumeration(
    "WebhookEventType",
    EVENT_TYPES,
    "A webhook event's type: `game.created` (a game of the key's was created), "
    "`seat.joined` and `seat.left` (a person took or left an open seat before the match), "
    "`game.started` (every seat taken: dealt), `turn.started` (a seat is to play: for "
    "push notifications), `hand.over` (a hand's score lines), `game.over` (the result and "
    "why), `game.aborted` (aborted by the key, with the reason). docs/platforms.md "
    "shows each one's `data`.",
    example="game.over",
)
DELIVERY_TYPE = Enumeration(
    "WebhookDeliveryType",
    (*EVENT_TYPES, PING),
    "A delivery's type: an event's (`WebhookEventType`), or `ping`, the test message "
    "`POST /v1/webhooks/{endpoint_id}/test` sends (`data`: the `endpoint`'s id).",
    example="game.over",
)
DELIVERY_STATUS = Enumeration(
    "WebhookDeliveryStatus",
    ("pending", "succeeded", "failed"),
    "`pending`: not delivered yet (waiting for its turn in its game's order, or for its "
    "next attempt); `succeeded`: the endpoint answered 2xx; `failed`: every attempt of the "
    "retry schedule failed, and the endpoint was disabled.",
    example="succeeded",
)
TIME = "An RFC 3339 time (UTC)."


class WebhookRequestSchema(StrictSchema):
    url = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_URL_LENGTH),
        metadata={
            "description": "Where deliveries are POSTed: an `https://` URL at a public "
            "address (checked now, and again after DNS resolution before every "
            "delivery); `http://` and private addresses only for hosts the operator "
            "allows (`WEBHOOK_ALLOW_HOSTS`). No user name, password or fragment.",
            "example": "https://platform.example/scopa/webhooks",
        },
    )
    events = fields.List(
        Enumerated(EVENT_TYPE),
        required=True,
        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
        metadata={"description": "The event types the endpoint receives (at least one)."},
    )


class WebhookUpdateSchema(StrictSchema):
    url = fields.String(
        validate=validate.Length(min=1, max=MAX_URL_LENGTH),
        metadata={"description": "A new URL, checked as at registration."},
    )
    events = fields.List(
        Enumerated(EVENT_TYPE),
        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
        metadata={
            "description": "The event types it receives from now on (at least one); those "
            "already recorded for it are still delivered."
        },
    )
    enabled = Boolean(
        metadata={
            "description": "`true` enables a disabled endpoint: its deliveries that waited "
            "are made in order from where they stopped (a delivery given up stays failed: "
            "send it again with its retry). `false` disables it (`disabled_reason`: "
            f'"{DISABLED_BY_KEY}"): its deliveries wait.'
        }
    )

    @validates_schema
    def _something(self, data: dict[str, object], **_: object) -> None:
        if not data:
            raise ValidationError("Send at least one of url, events, enabled.", "_schema")


#: The longest overlap of a secret's rotation: a week.
MAX_OVERLAP_SECONDS = 7 * 86400


class SecretRotationSchema(StrictSchema):
    overlap_seconds = Integer(
        load_default=86400,
        validate=validate.Range(0, MAX_OVERLAP_SECONDS),
        metadata={
            "description": "How long the old secret also signs each delivery (a second "
            "signature in `webhook-signature`), for receivers to move to the new one: 0 to "
            "604,800 seconds (a week); a day by default. 0: the old secret stops now."
        },
    )


class RecoveryRequestSchema(StrictSchema):
    since = fields.AwareDateTime(
        format="iso",
        required=True,
        metadata={
            "description": "Every failed delivery made at or after this time (RFC 3339) is "
            "attempted again.",
            "example": "2026-12-03T14:00:00Z",
        },
    )


class RecoverySchema(ResponseSchema):
    deliveries = fields.List(
        fields.String(),
        metadata={
            "description": "The ids of the deliveries asked for again, oldest first: each "
            "failed, made since the time given (of the latest 1,000; one asked within 10 s "
            "is not asked again; a deleted game's are not sent)."
        },
    )


class EndpointSchema(ResponseSchema):
    id = String("The endpoint's id.", example="ep_x3R")
    url = String("Where deliveries are POSTed.")
    events = fields.List(
        Enumerated(EVENT_TYPE), metadata={"description": "The event types it receives."}
    )
    created_at = fields.String(metadata={"description": TIME})
    disabled = Boolean(
        metadata={
            "description": "Deliveries to it stopped: a delivery failed every attempt of "
            "the retry schedule, or too many waited (`disabled_reason` says which). Its "
            "waiting deliveries wait; `PATCH` it with `enabled` true to have them made, "
            "in order, from where they stopped."
        }
    )
    disabled_reason = String("Why it was disabled; null while enabled.", allow_none=True)
    disabled_at = fields.String(allow_none=True, metadata={"description": TIME + " Or null."})
    previous_secret_expires_at = fields.String(
        allow_none=True,
        metadata={
            "description": TIME + " Until then, the secret before the last rotation "
            "signs each delivery too; null when none does."
        },
    )


class EndpointCreatedSchema(EndpointSchema):
    secret = String(
        "The endpoint's signing secret (Standard Webhooks, `whsec_` "
        "then base64): shown only here. Verify each delivery's `webhook-signature` "
        "with it (the `standardwebhooks` package does, docs/platforms.md).",
        example="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    )


class EndpointListSchema(ResponseSchema):
    endpoints = NestedList(EndpointSchema, "The key's endpoints, oldest first.")


class AttemptSchema(ResponseSchema):
    at = fields.String(metadata={"description": TIME})
    status = Integer(
        allow_none=True,
        metadata={"description": "The endpoint's HTTP status; null: no answer (or refused)."},
    )
    error = String(
        "Why the attempt failed (null: delivered), e.g. `answered HTTP "
        "500`, `no whole answer within 10 s`, `could not connect`, `refused: ... is a loopback "
        "address`.",
        allow_none=True,
    )
    duration_ms = Integer("How long it took, in milliseconds.")
    answer = String("The start of the endpoint's answer (200 characters at most).")
    manual = Boolean("Asked for with `.../retry`.")


class DeliverySchema(ResponseSchema):
    id = String(
        "The message's id, its `webhook-id` header: the same on every "
        "attempt (drop a duplicate you have handled).",
        example="msg_IQXvjVesTzUolFf46urnQg.41",
    )
    type = Enumerated(DELIVERY_TYPE, metadata={"description": "The event's type."})
    game = String(
        "The game's id (a tournament's, `trn_...`, for a `tournament.*` event); null for a ping.",
        allow_none=True,
    )
    status = Enumerated(DELIVERY_STATUS, metadata={"description": "Where the delivery stands."})
    created_at = fields.String(metadata={"description": TIME})
    next_attempt_at = fields.String(
        allow_none=True, metadata={"description": TIME + " Null unless an attempt is due."}
    )
    payload = fields.Dict(metadata={"description": "The body POSTed, as JSON."})
    attempts = NestedList(AttemptSchema, "Its attempts, oldest first (the latest 25).")


class DeliveryListSchema(ResponseSchema):
    deliveries = NestedList(DeliverySchema, "Newest first.")
    next = String("The URL of the next (older) page; null on the last.", allow_none=True)


class DeliveryQuerySchema(StrictSchema):
    limit = fields.Integer(
        load_default=50,
        validate=validate.Range(1, 100),
        metadata={"description": "At most this many deliveries (1 to 100; 50 by default)."},
    )
    before = fields.Integer(
        validate=validate.Range(0),
        metadata={
            "description": "Only deliveries created before this point (the `next` link sets it)."
        },
    )
