"""Request ids, structured logs and Prometheus metrics.

Every response carries ``X-Request-ID`` (the client's, if it sent a sane one, else a new
one); every log line the app writes is one JSON object with that id. Logs never name a
card: they hold routes, statuses and timings, never bodies.

Metrics are served at ``/metrics`` in Prometheus' text format. Under gunicorn each worker
is its own process: with ``PROMETHEUS_MULTIPROC_DIR`` set (deploy/gunicorn.conf.py sets
it) the workers' figures are added up.

Which build of the engine's hot modules a process runs (the mypyc build of `make compile`,
which `make run` and the image serve when they have it, or the ``.py`` sources) is told
once per process, by a log line and by the gauge ``scopa_engine_info{build=...}``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import sys
import time
from typing import Any

from flask import Flask, Response, g, request
from gunicorn import glogging
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client import REGISTRY as DEFAULT_REGISTRY

from ..config import Settings
from ..engine import EventKind
from ..engine.build import check_engine, engine_build, engine_description
from ..play import Step

REQUEST_ID = "X-Request-ID"
#: The methods metrics name; any other shares the label "other" (labels come only from
#: fixed sets, so that made-up methods cannot grow the metrics without bound).
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

REQUESTS = Counter(
    "scopa_http_requests_total", "HTTP requests answered.", ["method", "route", "status"]
)
LATENCY = Histogram(
    "scopa_http_request_duration_seconds",
    "Time to answer an HTTP request.",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)
MOVES = Counter("scopa_moves_total", "Moves played, by people and computer players.", ["by"])
#: The moves' label sets' children, each looked up once a process (on first use: in the
#: worker, where the multiprocess metrics' files are).
_MOVES_BY: dict[bool, Any] = {}
MATCHES_STARTED = Counter("scopa_matches_started_total", "Matches created.", ["variant"])
MATCHES_FINISHED = Counter(
    "scopa_matches_finished_total", "Matches played to the end.", ["variant"]
)
REDIS_ERRORS = Counter("scopa_redis_errors_total", "Requests that failed to reach Redis.")
STREAMS_OPEN = Gauge(
    "scopa_streams_open",
    "Event streams the service's threads hold now (not those a GRIP proxy holds: its "
    "connection_connected says).",
    multiprocess_mode="livesum",
)
STREAM_PUBLISH = Histogram(
    "scopa_stream_publish_seconds",
    "Time to publish one commit's events (or a reaction) to every GRIP proxy.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5),
)
STREAM_PUBLISH_FAILURES = Counter(
    "scopa_stream_publish_failures_total",
    "Publishes a GRIP proxy did not take: its streams get those events at their next check.",
)
STREAM_CHECKS = Counter(
    "scopa_stream_checks_total",
    "A GRIP proxy's requests for what one of its streams missed (on its first "
    "subscription, a gap, or its periodic check), by outcome: held again, or ended.",
    ["outcome"],
)
STREAM_RECOVERED = Counter(
    "scopa_stream_recovered_events_total",
    "Events a stream held by a GRIP proxy got from a check, not from a publish: each one "
    "late (a publish missed, or a stream that subscribed as it was published).",
)
ENGINE_INFO = Gauge(
    "scopa_engine_info",
    "1 for the build of the engine's hot modules this service runs: mypyc (compiled) or "
    "python (the .py sources).",
    ["build"],
    multiprocess_mode="livemax",
)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id, and any
    ``extra`` fields given to the log call."""

    RESERVED = set(vars(logging.makeLogRecord({})))

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in self.RESERVED and not key.startswith("_"):
                line[key] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            try:
                record.request_id = g.get("request_id")
            except RuntimeError:  # outside a request
                record.request_id = None
        return True


class AccessLogger(glogging.Logger):
    """gunicorn's logger with its access log line written as JSON by ``json.dumps``: time,
    remote address, method, path, status, bytes sent, duration and the request id the app
    answered with. No query string, no user agent: nothing a client sends but the path is
    copied into the log, and the path is escaped as JSON, whatever it holds. (gunicorn's
    own format would escape only double quotes, and builds every atom of every request.)"""

    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not self.access_log_enabled:
            return
        request_id = None
        for name, value in getattr(resp, "headers", ()):
            if name.lower() == "x-request-id":
                request_id = value
        line = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "remote": environ.get("REMOTE_ADDR"),
            "method": environ.get("REQUEST_METHOD"),
            "path": environ.get("PATH_INFO"),
            "status": getattr(resp, "status_code", None),
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            "request_id": request_id,
        }
        try:
            self.access_log.info(json.dumps(line))
        except Exception:  # noqa: BLE001 - a log line must not fail the request
            self.error("could not write an access log line")


def configure_logging(level: str) -> None:
    """JSON lines on stderr for the service's own loggers, from ``level`` on (one of
    LOG_LEVELS; idempotent)."""
    logger = logging.getLogger("service")
    if any(isinstance(h.formatter, JsonFormatter) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


#: The process that logged its engine (a forked process logs its own).
_engine_logged_by: int | None = None


def report_engine(required: str) -> str:
    """Log which engine this process runs (once a process: the first app it builds) and
    set ``scopa_engine_info``; with ``required`` (SCOPA_ENGINE: ``compiled`` or
    ``python``), refuse to go on with another one. Returns the build."""
    global _engine_logged_by
    build = engine_build()
    if _engine_logged_by != os.getpid():
        _engine_logged_by = os.getpid()
        logging.getLogger(__name__).info(engine_description(build), extra={"engine": build})
    ENGINE_INFO.labels(build).set(1)
    check_engine(build, required)
    return build


def count_step(step: Step) -> None:
    """Count the matches started, the moves and the matches finished of a step just
    committed."""
    game = step.game
    if game.match is None:  # a lobby's step: people taking and leaving seats
        return
    variant = game.match.variant.name
    for event in step.events:
        kind = event["type"]
        if kind == EventKind.MOVE:
            bot = bool(game.bots[event["seat"]])
            moves = _MOVES_BY.get(bot)
            if moves is None:
                moves = _MOVES_BY[bot] = MOVES.labels("bot" if bot else "person")
            moves.inc()
        elif kind == EventKind.MATCH_STARTED:
            MATCHES_STARTED.labels(variant).inc()
        elif kind == EventKind.MATCH_OVER:
            MATCHES_FINISHED.labels(variant).inc()


def install(app: Flask, settings: Settings) -> None:
    """Request ids, request metrics and /metrics on ``app``; which engine runs, logged."""
    configure_logging(settings.log_level)
    report_engine(settings.scopa_engine)

    @app.before_request
    def _start() -> None:
        sent = request.headers.get(REQUEST_ID, "")
        g.request_id = sent if _SANE_ID.fullmatch(sent) else secrets.token_hex(8)
        g.started = time.perf_counter()

    # Each label set's child, looked up once a process (labels() checks and hashes its
    # values at every call); the label values come from fixed sets, so these stay small.
    counted: dict[tuple[str, str, int], Any] = {}
    timed: dict[tuple[str, str], Any] = {}

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers[REQUEST_ID] = g.get("request_id") or secrets.token_hex(8)
        rule, method = request.url_rule, request.method
        route = rule.rule if rule is not None else "unmatched"
        if method not in METHODS:
            method = "other"
        status = response.status_code
        counter = counted.get((method, route, status))
        if counter is None:
            counter = counted[method, route, status] = REQUESTS.labels(method, route, str(status))
        counter.inc()
        started = g.get("started")
        if started is not None:
            latency = timed.get((method, route))
            if latency is None:
                latency = timed[method, route] = LATENCY.labels(method, route)
            latency.observe(time.perf_counter() - started)
        return response

    if settings.metrics_port:  # served on that port instead (deploy/gunicorn.conf.py)
        return

    @app.get("/metrics")
    def metrics() -> Response:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
        else:
            registry = DEFAULT_REGISTRY
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


def publish_observed(seconds: float, failed: int) -> None:
    """One commit's publishing to the GRIP proxies (service/play/relay.py)."""
    STREAM_PUBLISH.observe(seconds)
    if failed:
        STREAM_PUBLISH_FAILURES.inc(failed)
