"""The background worker: ``python -m service.worker`` plays the computer players'
moves that requests leave to it, and the moves of people whose clock ran out (see
:mod:`service.play.background`); ``python -m service.worker --only-webhooks`` delivers
webhooks, and nothing else (service/play/webhooks/). Both read the same settings as the
service (``REDIS_URL``, ``GAME_TTL_SECONDS``, ``EXPERT_BUDGET_MS``, ...), once
(:func:`service.config.load`); run as many of
the first as the bot move rate needs, and two or more of the second (a service key's
deliveries take one of them at a time: the others serve the other keys), on any machine
that reaches the Redis."""

from __future__ import annotations

import argparse
import logging
import sys

import rq

from . import config
from .engine.build import check_engine, engine_build, engine_description
from .play import BotSettings
from .play.queues import queue_connection, queues_for
from .play.relay import relay_for
from .play.webhooks.addresses import allowed_hosts
from .play.webhooks.queueing import HookSettings, retry_schedule
from .play.workers import WorkerSettings, configure

#: How often the worker looks for jobs whose worker died (rq's maintenance): they are
#: retried once their heartbeat has expired (rq waits its monitoring interval + 60 s).
MAINTENANCE_SECONDS = 60


def settings_from(settings: config.Settings) -> WorkerSettings:
    """The worker's settings from the service's."""
    return WorkerSettings(
        redis_url=settings.redis_url,
        ttl_seconds=settings.game_ttl_seconds,
        redis_timeout_seconds=settings.redis_timeout_seconds,
        bots=BotSettings(
            time_limit_seconds=settings.bot_slice_seconds,
            expert_budget_ms=settings.expert_budget_ms,
        ),
        slice_seconds=settings.bot_slice_seconds,
        min_replicas=settings.redis_min_replicas,
        replica_timeout_seconds=settings.redis_replica_timeout_seconds,
        budget_seconds=settings.cost_budget_seconds_per_address,
        secret=settings.server_secret.encode(),
        webhooks=HookSettings(
            schedule=retry_schedule(settings.webhook_retry_schedule),
            allow=allowed_hosts(settings.webhook_allow_hosts),
            max_pending=settings.webhook_max_pending,
        ),
        # The GRIP proxies the jobs' commits are told of, as hints: the API renders the
        # events (service/play/relay.py).
        relay=relay_for(settings.grip_publish_urls, settings.server_secret.encode()),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.worker", description=__doc__)
    parser.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    parser.add_argument(
        "--only-clock",
        action="store_true",
        help="take only the turn clocks' jobs (a few milliseconds each): a worker that no "
        "number of computer players' matches can keep from a clock",
    )
    parser.add_argument(
        "--only-webhooks",
        action="store_true",
        help="take only the webhooks' jobs (deliveries: each attempt up to 10 s): run two or "
        "more of these beside the other workers, which never take them",
    )
    args = parser.parse_args(argv)
    if args.only_clock and args.only_webhooks:
        parser.error("--only-clock and --only-webhooks take different queues: choose one")
    try:  # a bad setting: one line naming it, and the worker does not start
        settings = config.load()
    except config.ConfigError as error:
        parser.exit(2, f"{parser.prog}: {error}\n")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    build = engine_build()
    logging.getLogger(__name__).info(engine_description(build))
    check_engine(build, settings.scopa_engine)
    configure(settings_from(settings))
    connection = queue_connection(
        settings.queue_redis_url or settings.redis_url,
        socket_timeout=max(settings.redis_timeout_seconds, 10.0),  # rq blocks on the queue
    )
    # The webhooks' jobs (a dispatch: a few milliseconds; an attempt: an HTTP request)
    # run in the worker's own process, as rq's SimpleWorker does: forking a work-horse
    # for each would cost more than most of them, and a game relayed as fast as the
    # service answers makes one a few moves. The computer players' searches keep a
    # work-horse of their own.
    kind = rq.SimpleWorker if args.only_webhooks else rq.Worker
    worker = kind(
        # the clocks' first; or the webhooks' alone
        queues_for(connection, only_clock=args.only_clock, only_webhooks=args.only_webhooks),
        connection=connection,
        maintenance_interval=MAINTENANCE_SECONDS,
    )
    # The scheduler queues the turn clocks' jobs when they fall due (one worker at a
    # time runs it: rq elects it through a lock in Redis).
    worker.work(burst=args.burst, logging_level="INFO", with_scheduler=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
