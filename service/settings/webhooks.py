"""Webhooks: when deliveries are retried, where endpoints may be, how many."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, nonnegative, reading, setting


@dataclass(frozen=True)
class Webhooks(Section):
    """Webhooks

    Attributes:
        webhook_retry_schedule: seconds before each retry of a webhook delivery that failed (no 2xx
            within 5 s), comma-separated; past the last, the delivery is given up and its endpoint
            disabled (docs/platforms.md). Shorter for tests only
        webhook_allow_hosts: hosts (`host` or `host:port`, comma-separated) webhook endpoints may be
            at over `http://` and at any address, loopback and private included: for development and
            tests. Any other endpoint must be `https://` at a public address
        webhook_max_endpoints: webhook endpoints a service key may have
        webhook_max_pending: deliveries an endpoint may have waiting; past it, the endpoint is
            disabled
        webhook_redelivery_limit: redeliveries (`POST
            /v1/webhooks/{id}/deliveries/{message_id}/retry`) a minute per service key (0: no
            limit); a delivery asked for again within 10 s of the last is attempted once
    """

    webhook_retry_schedule: str = setting(
        "",
        check=reading("service.play.webhooks.queueing:retry_schedule"),
        shown_default="`5,300,1800,7200,18000,36000,36000` (8 attempts over 27 h 35 min)",
    )
    webhook_allow_hosts: str = setting(
        "", check=reading("service.play.webhooks.addresses:allowed_hosts")
    )
    webhook_max_endpoints: int = setting(16, minimum=1)
    webhook_max_pending: int = setting(10000, minimum=1)
    webhook_redelivery_limit: int = nonnegative(60)
