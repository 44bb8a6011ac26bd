"""The background worker: ``python -m service.worker`` plays the computer players'
moves that requests leave to it, and the moves of people whose clock ran out (see
:mod:`service.play.background`); ``python -m service.worker --only-webhooks`` delivers
webhooks, and nothing else (service/play/webhooks/). Both read the same settings as the
service (``REDIS_URL``, ``GAME_TTL_SECONDS``, ``EXPERT_BUDGET_MS``, ...); run as many of
the first as the bot move rate needs, and two or more of the second (a service key's
deliveries take one of them at a time: the others serve the other keys), on any machine
that reaches the Redis."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

import rq

from . import config
from .engine.build import check_engine, engine_build, engine_description
from .play import BotSettings
from .play.background import WorkerSettings, configure, queue_connection, queues_for
from .play.webhooks.addresses import allowed_hosts
from .play.webhooks.queueing import HookSettings, retry_schedule

#: How often the worker looks for jobs whose worker died (rq's maintenance): they are
#: retried once their heartbeat has expired (rq waits its monitoring interval + 60 s).
MAINTENANCE_SECONDS = 60


def settings_from(values: dict[str, Any]) -> WorkerSettings:
    """The worker's settings from the service's (``service.config.from_env``, typed)."""
    return WorkerSettings(
        redis_url=values["REDIS_URL"],
        ttl_seconds=values["GAME_TTL_SECONDS"],
        redis_timeout_seconds=values["REDIS_TIMEOUT_SECONDS"],
        bots=BotSettings(
            time_limit_seconds=values["BOT_SLICE_SECONDS"],
            expert_budget_ms=values["EXPERT_BUDGET_MS"],
        ),
        slice_seconds=values["BOT_SLICE_SECONDS"],
        min_replicas=values["REDIS_MIN_REPLICAS"],
        replica_timeout_seconds=values["REDIS_REPLICA_TIMEOUT_SECONDS"],
        budget_seconds=values["COST_BUDGET_SECONDS_PER_ADDRESS"],
        webhooks=HookSettings(
            schedule=retry_schedule(values["WEBHOOK_RETRY_SCHEDULE"]),
            allow=allowed_hosts(values["WEBHOOK_ALLOW_HOSTS"]),
            max_pending=values["WEBHOOK_MAX_PENDING"],
        ),
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
        every = config.read()
        values = config.from_env()
    except config.ConfigError as error:
        parser.exit(2, f"{parser.prog}: {error}\n")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    build = engine_build()
    logging.getLogger(__name__).info(engine_description(build))
    check_engine(build, every["SCOPA_ENGINE"])
    settings = settings_from(values)
    configure(settings)
    connection = queue_connection(
        values["QUEUE_REDIS_URL"] or settings.redis_url,
        socket_timeout=max(settings.redis_timeout_seconds, 10.0),  # rq blocks on the queue
    )
    worker = rq.Worker(
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
