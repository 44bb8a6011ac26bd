"""/v1/webhooks: a service key registers the endpoints its games' events are POSTed
to, reads what was delivered, and asks for a delivery again. Deliveries themselves are
the background workers' (service/play/webhooks/jobs.py): no request sends one."""

from __future__ import annotations

import time
from typing import Any

import orjson
from flask import url_for
from flask.views import MethodView

from ....play.commands import Outcome
from ....play.commands import webhooks as hooks
from ....play.webhooks.events import rfc3339
from ....play.webhooks.store import Endpoint, WebhookStore
from ...blueprint import Blueprint
from ...commands import context, execute, no_body
from ...context import store
from ...service_keys import key_operation, require_key
from .schemas import (
    DeliveryListSchema,
    DeliveryQuerySchema,
    DeliverySchema,
    EndpointCreatedSchema,
    EndpointListSchema,
    EndpointSchema,
    RecoveryRequestSchema,
    RecoverySchema,
    SecretRotationSchema,
    WebhookRequestSchema,
    WebhookUpdateSchema,
)

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/v1/webhooks",
    description="Webhooks (for a service key): endpoints that receive signed events of "
    "the key's games (Standard Webhooks), their delivery log, and redelivery.",
)

ENDPOINT_NOT_FOUND = {404: "The key has no webhook endpoint with this id."}


def _hooks() -> WebhookStore:
    games = store()
    return WebhookStore(games.redis, games.ttl)


def _shown(endpoint: Endpoint) -> dict[str, Any]:
    return {
        "id": endpoint.id,
        "url": endpoint.url,
        "events": list(endpoint.events),
        "created_at": rfc3339(endpoint.created_at),
        "disabled": endpoint.disabled_reason is not None,
        "disabled_reason": endpoint.disabled_reason,
        "disabled_at": None if endpoint.disabled_at is None else rfc3339(endpoint.disabled_at),
        "previous_secret_expires_at": (
            rfc3339(endpoint.previous_until)
            if len(endpoint.signing_secrets(time.time())) > 1 and endpoint.previous_until
            else None
        ),
    }


def _delivery(delivery: dict[str, Any]) -> dict[str, Any]:
    due = delivery.get("next_attempt_at")
    return {
        "id": delivery["id"],
        "type": delivery["type"],
        "game": delivery["game"] or None,
        "status": delivery["status"],
        "created_at": rfc3339(delivery["created_at"]),
        "next_attempt_at": None if due is None or delivery["status"] != "pending" else rfc3339(due),
        "payload": orjson.loads(delivery["body"]),
        "attempts": [{**a, "at": rfc3339(a["at"])} for a in delivery["attempts"]],
    }


def _created(outcome: Outcome) -> dict[str, Any]:
    endpoint: Endpoint = outcome.value
    return {**_shown(endpoint), "secret": endpoint.secret}


def _endpoint(owner: str, endpoint_id: str) -> Endpoint:
    endpoint: Endpoint = hooks.endpoint_of(context(), owner, endpoint_id)
    return endpoint


#: What an operation on one delivery may answer.
DELIVERY_NOT_FOUND = {
    404: "The key has no endpoint with this id, or it has no delivery with this id."
}


@blp.route("")
class Webhooks(MethodView):
    @blp.arguments(WebhookRequestSchema)
    @blp.response(201, EndpointCreatedSchema)
    @key_operation(
        blp,
        "createWebhook",
        {
            409: "The key has as many endpoints as the service allows "
            "(`WEBHOOK_MAX_ENDPOINTS`): delete one first.",
            422: "The body is not valid; or the URL is refused (`/problems/webhook-url-"
            "refused`: not https://, or a host that does not resolve, or resolves to a "
            "loopback, private, link-local or metadata address).",
        },
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Register a webhook endpoint

        The events of the key's games, of the types asked for, are POSTed to the URL as
        JSON, signed as the Standard Webhooks specification says (headers `webhook-id`,
        `webhook-timestamp`, `webhook-signature`), in order per game, by the background
        workers; a delivery not answered 2xx within 10 s is tried again on the retry
        schedule (docs/platforms.md). The answer holds the endpoint's signing `secret`,
        shown only here."""
        reply = execute("createWebhook", None, body, _created)
        return reply.body, 201

    @blp.response(200, EndpointListSchema)
    @key_operation(blp, "listWebhooks", {})
    def get(self) -> Any:
        """List the key's webhook endpoints

        Oldest first, without their secrets; a disabled endpoint says why."""
        owner = require_key()
        return {"endpoints": [_shown(e) for e in _hooks().endpoints(owner)]}


@blp.route("/<string:endpoint_id>")
class WebhookItem(MethodView):
    @blp.response(200, EndpointSchema)
    @key_operation(blp, "getWebhook", ENDPOINT_NOT_FOUND)
    def get(self, endpoint_id: str) -> Any:
        """Read a webhook endpoint

        Its URL, event types and whether it is disabled (and why)."""
        return _shown(_endpoint(require_key(), endpoint_id))

    @blp.arguments(WebhookUpdateSchema)
    @blp.response(200, EndpointSchema)
    @key_operation(
        blp,
        "updateWebhook",
        {
            **ENDPOINT_NOT_FOUND,
            422: "The body is not valid (it changes nothing, or a field is wrong); or the "
            "URL is refused (`/problems/webhook-url-refused`, as at registration).",
        },
    )
    def patch(self, body: dict[str, Any], endpoint_id: str) -> Any:
        """Change a webhook endpoint

        Its URL, its event types, or whether it is enabled: enabling a disabled endpoint
        (after its receiver is fixed) has the deliveries that waited made, in order per
        game, from where they stopped. The secret stays."""
        reply = execute(
            "updateWebhook", None, {**body, "endpoint_id": endpoint_id}, lambda o: _shown(o.value)
        )
        return reply.body

    @blp.response(204)
    @key_operation(blp, "deleteWebhook", ENDPOINT_NOT_FOUND)
    def delete(self, endpoint_id: str) -> Any:
        """Delete a webhook endpoint

        Nothing more is sent to it, and its delivery log is gone."""
        execute("deleteWebhook", None, {"endpoint_id": endpoint_id}, no_body)
        return "", 204


@blp.route("/<string:endpoint_id>/secret")
class WebhookSecret(MethodView):
    @blp.arguments(SecretRotationSchema)
    @blp.response(200, EndpointCreatedSchema)
    @key_operation(
        blp,
        "rotateWebhookSecret",
        {**ENDPOINT_NOT_FOUND, 422: "`overlap_seconds` is out of its range."},
    )
    def post(self, body: dict[str, Any], endpoint_id: str) -> Any:
        """Rotate a webhook endpoint's secret

        A new signing `secret`, shown only here. For `overlap_seconds` (a day by
        default) every delivery carries two signatures in `webhook-signature`, one by
        each secret, as Standard Webhooks allows: a receiver verifying with either
        accepts it, so it can move to the new secret at any time in between."""
        asked = {**body, "endpoint_id": endpoint_id}
        reply = execute("rotateWebhookSecret", None, asked, _created)
        return reply.body


@blp.route("/<string:endpoint_id>/recover")
class WebhookRecovery(MethodView):
    @blp.arguments(RecoveryRequestSchema)
    @blp.response(202, RecoverySchema)
    @key_operation(
        blp,
        "recoverWebhookDeliveries",
        {**ENDPOINT_NOT_FOUND, 422: "`since` is missing or not an RFC 3339 time."},
    )
    def post(self, body: dict[str, Any], endpoint_id: str) -> Any:
        """Send every failed delivery again

        One more attempt of each delivery that failed since a time (after an outage of
        the receiver, once it is fixed), by the webhook workers, soon: as many
        redeliveries in one request, which counts once against the key's redelivery
        quota. Each keeps its `webhook-id`; the log shows the attempts (`manual`)."""
        asked = {**body, "endpoint_id": endpoint_id}
        reply = execute("recoverWebhookDeliveries", None, asked, lambda o: {"deliveries": o.value})
        return reply.body, 202


@blp.route("/<string:endpoint_id>/test")
class WebhookTest(MethodView):
    @blp.response(202, DeliverySchema)
    @key_operation(blp, "testWebhook", ENDPOINT_NOT_FOUND)
    def post(self, endpoint_id: str) -> Any:
        """Send a test message

        A signed `ping` (`{"id", "type": "ping", "timestamp", "data": {"endpoint"}}`),
        by a webhook worker, soon: also to a disabled endpoint, to check that its receiver
        answers again. Answers the delivery, which the log lists as any other (its
        attempt once made). Counted as a redelivery."""
        asked = {"endpoint_id": endpoint_id}
        reply = execute("testWebhook", None, asked, lambda o: _delivery(o.value))
        return reply.body, 202


@blp.route("/<string:endpoint_id>/deliveries")
class Deliveries(MethodView):
    @blp.arguments(DeliveryQuerySchema, location="query")
    @blp.response(200, DeliveryListSchema)
    @key_operation(
        blp,
        "listWebhookDeliveries",
        {
            **ENDPOINT_NOT_FOUND,
            422: "`limit` or `before` is not valid.",
        },
    )
    def get(self, query: dict[str, Any], endpoint_id: str) -> Any:
        """List an endpoint's deliveries

        Newest first (the latest 1,000 are kept, for as long as games are): each
        message's id, type, game, status, payload and every attempt (when, the status
        answered, why it failed). `next` links the older ones."""
        owner = require_key()
        _endpoint(owner, endpoint_id)
        limit = query["limit"]
        found = _hooks().deliveries(owner, endpoint_id, before=query.get("before"), limit=limit)
        following = None
        if len(found) == limit:
            oldest = found[-1]["seq"]
            following = url_for(
                "webhooks.Deliveries", endpoint_id=endpoint_id, limit=limit, before=oldest
            )
        return {"deliveries": [_delivery(d) for d in found], "next": following}


@blp.route("/<string:endpoint_id>/deliveries/<string:message_id>")
class DeliveryItem(MethodView):
    @blp.response(200, DeliverySchema)
    @key_operation(blp, "getWebhookDelivery", DELIVERY_NOT_FOUND)
    def get(self, endpoint_id: str, message_id: str) -> Any:
        """Read a delivery

        Its status, payload and attempts."""
        return _delivery(_found_delivery(require_key(), endpoint_id, message_id))


@blp.route("/<string:endpoint_id>/deliveries/<string:message_id>/retry")
class DeliveryRetry(MethodView):
    @blp.response(202, DeliverySchema)
    @key_operation(blp, "retryWebhookDelivery", DELIVERY_NOT_FOUND)
    def post(self, endpoint_id: str, message_id: str) -> Any:
        """Send a delivery again

        One more attempt, by a webhook worker, soon: also of a delivery that failed,
        and to a disabled endpoint (to check that it works again); not of a deleted
        game's. The same `webhook-id` as before. Asked again within 10 s, the delivery is
        attempted once. Answers the delivery as it is now; its log shows the attempt
        (`manual`) once made."""
        asked = {"endpoint_id": endpoint_id, "message_id": message_id}
        reply = execute("retryWebhookDelivery", None, asked, lambda o: _delivery(o.value))
        return reply.body, 202


def _found_delivery(owner: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
    return hooks.delivery_of(context(), owner, endpoint_id, message_id)
