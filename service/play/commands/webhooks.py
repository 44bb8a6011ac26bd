"""The commands on a service key's webhook endpoints: register one, change one, rotate
its secret, delete one, send it a test message, and ask for a delivery again (or for
every failed one since a time); their policies are in
:mod:`.catalogue`."""

from __future__ import annotations

import time
from typing import Any

from ..game import Game
from ..webhooks import jobs
from ..webhooks.addresses import allowed_hosts, check_url
from ..webhooks.events import ping
from ..webhooks.store import WebhookStore
from .context import Context, Outcome


class EndpointNotFoundError(LookupError):
    """The key has no webhook endpoint with this id."""


class DeliveryNotFoundError(LookupError):
    """The endpoint has no delivery with this id (the log keeps the latest 1,000)."""


def hooks(ctx: Context) -> WebhookStore:
    return WebhookStore(ctx.store.redis, ctx.store.ttl)


def endpoint_of(ctx: Context, owner: str, endpoint_id: str) -> Any:
    endpoint = hooks(ctx).endpoint(owner, endpoint_id)
    if endpoint is None:
        raise EndpointNotFoundError(endpoint_id)
    return endpoint


def delivery_of(ctx: Context, owner: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
    endpoint_of(ctx, owner, endpoint_id)
    delivery = hooks(ctx).delivery(owner, endpoint_id, message_id)
    if delivery is None:
        raise DeliveryNotFoundError(message_id)
    return delivery


def register(
    ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None
) -> Outcome:
    """A new endpoint at a URL that may receive webhooks (RefusedAddressError if not)."""
    owner = ctx.caller.require_key()
    check_url(body["url"], allowed_hosts(ctx.webhooks.allow_hosts))
    events = list(dict.fromkeys(body["events"]))
    endpoint = hooks(ctx).add_endpoint(owner, body["url"], events, ctx.webhooks.max_endpoints)
    return Outcome(status=201, value=endpoint)


def update(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    """Change an endpoint's URL (checked as at registration), event types, or whether it
    is enabled: enabled again, its deliveries that waited are made, in order, from where
    they stopped."""
    owner = ctx.caller.require_key()
    endpoint_id = body["endpoint_id"]
    changes = {k: body[k] for k in ("url", "events", "enabled") if k in body}
    if "url" in changes:
        check_url(changes["url"], allowed_hosts(ctx.webhooks.allow_hosts))
    if "events" in changes:
        changes["events"] = list(dict.fromkeys(changes["events"]))
    store = hooks(ctx)
    found = store.update_endpoint(owner, endpoint_id, changes)
    if found is None:
        raise EndpointNotFoundError(endpoint_id)
    before, after = found
    if before.disabled_reason is not None and after.disabled_reason is None:
        jobs.resume(store, ctx.queue.connection, owner, endpoint_id)
    return Outcome(status=200, value=after)


def rotate_secret(
    ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None
) -> Outcome:
    """A new signing secret for the endpoint; the old one signs too for
    ``overlap_seconds``, so that receivers can move to the new one meanwhile."""
    owner = ctx.caller.require_key()
    changes = {"overlap_seconds": body["overlap_seconds"]}
    found = hooks(ctx).update_endpoint(owner, body["endpoint_id"], changes)
    if found is None:
        raise EndpointNotFoundError(body["endpoint_id"])
    return Outcome(status=200, value=found[1])


def remove(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    owner = ctx.caller.require_key()
    endpoint_of(ctx, owner, body["endpoint_id"])
    hooks(ctx).delete_endpoint(owner, body["endpoint_id"])
    return Outcome(status=204)


def redeliver(
    ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None
) -> Outcome:
    """One more attempt at a delivery, by a background worker."""
    owner = ctx.caller.require_key()
    endpoint_id, message_id = body["endpoint_id"], body["message_id"]
    delivery = delivery_of(ctx, owner, endpoint_id, message_id)
    jobs.ask_redelivery(hooks(ctx), ctx.queue.connection, owner, endpoint_id, message_id)
    return Outcome(status=202, value=delivery)


def test(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    """A signed ``ping`` to the endpoint, by a background worker, soon (also to a
    disabled one: to check that it answers again); in its delivery log as any other."""
    owner = ctx.caller.require_key()
    endpoint_id = body["endpoint_id"]
    endpoint_of(ctx, owner, endpoint_id)
    store = hooks(ctx)
    message = ping(endpoint_id, time.time())
    delivery = store.log_alone(owner, endpoint_id, message)
    jobs.ask_redelivery(store, ctx.queue.connection, owner, endpoint_id, message.id)
    return Outcome(status=202, value=delivery)


def recover(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    """One more attempt of every failed delivery of the endpoint since a time, by the
    key's run, soon (as a redelivery each: also to a disabled endpoint)."""
    owner = ctx.caller.require_key()
    endpoint_id = body["endpoint_id"]
    endpoint_of(ctx, owner, endpoint_id)
    since = body["since"].timestamp()
    asked = jobs.ask_recovery(hooks(ctx), ctx.queue.connection, owner, endpoint_id, since)
    return Outcome(status=202, value=asked)
