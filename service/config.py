"""Settings, read from the environment (with defaults for a developer's machine).

Every variable an operator can set is declared once, in :data:`SETTINGS`: its name, its
type and allowed range, its default and what it means. From that one declaration:

- :func:`read` parses the environment (every setting, by its variable's name) and
  refuses a bad value with a :class:`ConfigError` whose one-line message names the
  variable and what it takes; :func:`from_env` is the part the app keeps in
  ``app.config`` (gunicorn.conf.py, the background worker and the app all read it);
- :func:`markdown` writes ``docs/configuration.md`` (``make docs``; a test fails when
  the checked-in file differs).

An empty value is the same as no value: the default. Parsing and validation are
marshmallow's (fields and validators); this module imports nothing of the service but,
when a Redis URL is given, :func:`service.play.connections.parse`, the one reading of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import marshmallow as ma

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_GAME_TTL_SECONDS = 7 * 24 * 3600
#: The shortest SERVER_SECRET accepted (a token_urlsafe(32) is 43 characters).
MIN_SECRET_LENGTH = 32
#: A service key's name: what its games, quotas and logs are known by.
SERVICE_KEY_NAME = re.compile(r"[a-z0-9_-]{1,32}")
#: LOG_LEVEL's values (any case), the logging module's levels.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(RuntimeError):
    """A setting with a value the service cannot run with; the message, one line, names
    the variable and what it takes."""


@dataclass(frozen=True)
class Setting:
    """One environment variable: how it is read, its default, what it means."""

    name: str
    kind: type  # int, float or str
    #: The value when the variable is unset or empty; a function of the other values
    #: when it depends on them.
    default: Any
    meaning: str
    group: str
    #: The default as the documentation says it (else the default itself).
    shown_default: str = ""
    minimum: float | None = None
    maximum: float | None = None
    #: More than `minimum`, not equal to it (a duration that cannot be 0).
    above_minimum: bool = False
    choices: tuple[str, ...] = ()
    #: Checks a value further (raises ValueError, whose message is shown).
    check: Callable[[str], object] | None = None
    #: Its key in from_env()'s dict: the name, unless the app calls it otherwise; None
    #: for a setting read by the process around the app (gunicorn.conf.py, logging).
    key: str | None = ""
    #: Its value is never repeated in an error (a credential may be in it).
    secret: bool = False

    def accepts(self) -> str:
        """What the variable takes, in words, for errors and the documentation."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind is str:
            return "text"
        what = "a whole number" if self.kind is int else "a number"
        low = _number(self.minimum)
        high = _number(self.maximum)
        if self.minimum is not None and self.maximum is not None:
            return f"{what} from {low} to {high}"
        if self.minimum is not None:
            return f"{what} above {low}" if self.above_minimum else f"{what}, {low} or more"
        return what

    def field(self) -> ma.fields.Field:
        validators: list[Callable[[Any], Any]] = []
        if self.minimum is not None or self.maximum is not None:
            validators.append(
                ma.validate.Range(self.minimum, self.maximum, min_inclusive=not self.above_minimum)
            )
        if self.choices:
            validators.append(ma.validate.OneOf(self.choices))
        if self.check is not None:
            validators.append(_checking(self.check))
        common: dict[str, Any] = {"data_key": self.name, "validate": validators}
        if self.kind is int:
            return ma.fields.Integer(strict=False, **common)
        if self.kind is float:
            return ma.fields.Float(allow_nan=False, **common)
        return ma.fields.String(**common)

    def documented_default(self) -> str:
        if self.shown_default:
            return self.shown_default
        if self.default == "":
            return "none"
        return f"`{_number(self.default)}`"


def _number(value: Any) -> str:
    """A figure as one writes it: 5.0 as 5, 0.25 as 0.25."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _checking(check: Callable[[str], object]) -> Callable[[str], None]:
    def validate(value: str) -> None:
        try:
            check(value)
        except ValueError as error:
            raise ma.ValidationError(str(error)) from None

    return validate


def _retry_schedule(value: str) -> None:
    from .play.webhooks.queueing import retry_schedule  # the one reading of it

    retry_schedule(value)


def _allowed_hosts(value: str) -> None:
    from .play.webhooks.addresses import allowed_hosts  # the one reading of it

    allowed_hosts(value)


def _redis_url(url: str) -> None:
    """A Redis URL the service can connect to (the reading connect() itself uses)."""
    from .play.connections import parse  # redis-py's reading: imported only when needed

    parse(url)


def service_keys(value: str) -> dict[str, str]:
    """``SERVICE_KEYS``, ``name=secret,name=secret``, as {name: secret}; ValueError (whose
    message never holds a secret) if a name is not 1 to 32 of ``a-z 0-9 _ -``, is given
    twice, or its secret is shorter than the shortest server secret, or two keys share
    one secret. Spaces around the parts are ignored; an empty value: no keys."""
    keys: dict[str, str] = {}
    for index, part in enumerate(value.split(","), 1):
        if not part.strip():
            continue
        name, equals, secret = (piece.strip() for piece in part.partition("="))
        if not equals or not SERVICE_KEY_NAME.fullmatch(name):
            raise ValueError(
                f"key {index} must be written name=secret, its name 1 to 32 of a-z, 0-9, _ and -"
            )
        if name in keys:
            raise ValueError(f"the key {name} is given twice")
        if len(secret) < MIN_SECRET_LENGTH or len(secret.split()) != 1:
            raise ValueError(
                f"the key {name}'s secret must be {MIN_SECRET_LENGTH} or more characters "
                "without spaces or commas (python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))' makes one)"
            )
        if secret in keys.values():
            raise ValueError(f"the key {name} has another key's secret")
        keys[name] = secret
    return keys


def _max_connections(values: Mapping[str, Any]) -> int:
    # Each of a worker's threads (ordinary ones and streams' ones) keeps one, and a few
    # are lent for one command at a time.
    return int(values["GUNICORN_THREADS"]) + int(values["STREAMS_PER_WORKER"]) + 16


LISTENING = "Listening and processes"
REDIS = "Redis"
REQUESTS = "Requests and clients"
LIMITS = "Limits and quotas"
BOTS = "Computer players"
STREAMS = "Event streams"
OPERATIONS = "Metrics, logs and the engine"
WEBHOOKS = "Webhooks"

SETTINGS: tuple[Setting, ...] = (
    # -- where the service listens, and with how many processes and threads ------------
    Setting(
        "HOST",
        str,
        "127.0.0.1",
        group=LISTENING,
        key=None,
        shown_default="`127.0.0.1` (the image, compose and the Kubernetes pods: `0.0.0.0`)",
        meaning="the address gunicorn listens on: this machine only, unless set "
        "(`HOST=0.0.0.0 make run` for every interface, `::` for IPv6); put a buffering "
        "proxy with TLS in front then (the deploy guide)",
    ),
    Setting(
        "PORT",
        int,
        8000,
        minimum=1,
        maximum=65535,
        group=LISTENING,
        key=None,
        meaning="the port gunicorn listens on",
    ),
    Setting(
        "WEB_CONCURRENCY",
        int,
        2,
        minimum=1,
        group=LISTENING,
        key=None,
        meaning="gunicorn worker processes",
    ),
    Setting(
        "GUNICORN_THREADS",
        int,
        4,
        minimum=1,
        group=LISTENING,
        key=None,
        meaning="threads per worker for ordinary requests (each worker has "
        "`STREAMS_PER_WORKER` more, for event streams)",
    ),
    # -- Redis ----------------------------------------------------------------------------
    Setting(
        "REDIS_URL",
        str,
        DEFAULT_REDIS_URL,
        group=REDIS,
        check=_redis_url,
        secret=True,
        shown_default=f"a private Redis (`make run`); `{DEFAULT_REDIS_URL}` otherwise",
        meaning="where matches live: one Redis (`redis://[[user]:password@]host[:port][/db]`, "
        "`rediss://` for TLS, `unix:///path/redis.sock`), a Redis Cluster "
        "(`redis+cluster://[[user]:password@]host:port[,host:port...]`: any node that "
        "answers is enough to start), or the master Redis Sentinel names "
        "(`redis+sentinel://[[user]:password@]host:port[,host:port...]/service_name[/db]`, "
        "`?sentinel_password=` if the sentinels want one). `rediss+cluster://` and "
        "`rediss+sentinel://` speak TLS; with TLS, `?ssl_ca_certs=/path/ca.pem` (and "
        "`ssl_certfile`, `ssl_keyfile`, `ssl_cert_reqs`, `ssl_check_hostname`) as redis-py "
        "reads them (`service/play/connections.py`)",
    ),
    Setting(
        "QUEUE_REDIS_URL",
        str,
        "",
        group=REDIS,
        check=_redis_url,
        secret=True,
        shown_default="`REDIS_URL`",
        meaning="where the background workers' job queue (rq) lives: one Redis or a "
        "Sentinel URL. Required when `REDIS_URL` is a cluster, which rq cannot use",
    ),
    Setting(
        "REDIS_MIN_REPLICAS",
        int,
        0,
        minimum=0,
        group=REDIS,
        meaning="replicas each write must reach, and each read find connected, within "
        "`REDIS_REPLICA_TIMEOUT_SECONDS`, else 503: with Sentinel, `1` (and two replicas), "
        "so that a move answered 200 survives the master's death. Not for a cluster "
        "(`service/play/store.py`)",
    ),
    Setting(
        "REDIS_REPLICA_TIMEOUT_SECONDS",
        float,
        0.25,
        minimum=0,
        above_minimum=True,
        group=REDIS,
        meaning="how long a write waits for its replicas (less than `REDIS_TIMEOUT_SECONDS`)",
    ),
    Setting(
        "GAME_TTL_SECONDS",
        int,
        DEFAULT_GAME_TTL_SECONDS,
        minimum=1,
        group=REDIS,
        shown_default=f"`{DEFAULT_GAME_TTL_SECONDS}` (7 days)",
        meaning="a match not moved for this long is removed; every move renews it",
    ),
    Setting(
        "REDIS_TIMEOUT_SECONDS",
        float,
        0.5,
        minimum=0,
        above_minimum=True,
        group=REDIS,
        meaning="a Redis call slower than this fails the request with 503 (a timeout is "
        "not retried; a broken connection is, twice)",
    ),
    Setting(
        "REDIS_READY_TIMEOUT_SECONDS",
        float,
        0.5,
        minimum=0,
        above_minimum=True,
        group=REDIS,
        meaning="`/readyz`'s own ping gives up after this (no retry), well inside a load "
        "balancer's 1 s probe",
    ),
    Setting(
        "REDIS_MAX_CONNECTIONS",
        int,
        _max_connections,
        minimum=1,
        group=REDIS,
        shown_default="`GUNICORN_THREADS` + `STREAMS_PER_WORKER` + 16",
        meaning="the most connections to Redis one worker opens (each of its threads "
        "keeps one, a stream's gives its back while it waits, and a few are lent for one "
        "command at a time); past it, 503",
    ),
    Setting(
        "REDIS_BREAKER_COOLDOWN_SECONDS",
        float,
        2.0,
        minimum=0,
        group=REDIS,
        meaning="after a Redis timeout or failed connection, each worker answers requests "
        "that need Redis with 503 at once (with `Retry-After`) for this long, then lets "
        "one through to probe (`service/api/breaker.py`)",
    ),
    # -- requests ---------------------------------------------------------------------------
    Setting(
        "SERVER_SECRET",
        str,
        "",
        group=REQUESTS,
        secret=True,
        shown_default="none: required (`make run` makes one in `.run/secret`)",
        meaning=f"{MIN_SECRET_LENGTH}+ random characters, the same on every instance: "
        "client keys (Idempotency-Keys) are hashed with it, join codes and rematch tokens "
        "made with it (a new secret voids the codes of games still waiting, and rematch "
        "tokens not yet asked for)",
    ),
    Setting(
        "SERVICE_KEYS",
        str,
        "",
        group=REQUESTS,
        secret=True,
        check=service_keys,
        meaning="the service keys platforms call the API with (`Authorization: Bearer "
        "<secret>`), `name=secret,name=secret`: each name 1 to 32 of `a-z 0-9 _ -`, each "
        f"secret {MIN_SECRET_LENGTH}+ random characters. A key creates games, acts for "
        "every seat of its own games and lists them; its requests count against its own "
        "quotas, not its address's (docs/platforms.md). Kept as keyed hashes, never logged",
    ),
    Setting(
        "MAX_BODY_BYTES",
        int,
        64 * 1024,
        minimum=1,
        group=REQUESTS,
        key="MAX_CONTENT_LENGTH",
        meaning="larger request bodies get 413, before they are read",
    ),
    Setting(
        "CLIENT_TIMEOUT_SECONDS",
        float,
        10.0,
        minimum=0,
        above_minimum=True,
        group=REQUESTS,
        meaning="a request must arrive whole (head and body) within this long of its "
        "first byte, else 408 and the connection closes; a client that does not read its "
        "answer for this long is let go too. A connection that sends nothing is closed "
        "after 5 s (read by gunicorn's worker: `service/serving.py`)",
    ),
    Setting(
        "ANSWER_TIMEOUT_SECONDS",
        float,
        60.0,
        minimum=0,
        above_minimum=True,
        group=REQUESTS,
        meaning="an answer must be sent whole within this long of its start, however "
        "slowly its client reads, else the connection is closed and the thread writing it "
        "freed; event streams (`text/event-stream`) are not cut (`STREAM_MAX_SECONDS`). "
        "The longest answer, an export of 1,000 matches (about 23 MB), needs about "
        "3 Mbit/s to arrive within 60 s (`service/serving.py`)",
    ),
    Setting(
        "REQUEST_BUFFER_BYTES",
        int,
        64 * 1024 * 1024,
        minimum=1,
        group=REQUESTS,
        shown_default="`67108864` (64 MiB)",
        meaning="the bytes of requests not yet whole one gunicorn worker holds, over all "
        "its connections (each request is read whole before a thread serves it; a head is "
        "at most 32 KiB, else 431); the read that would pass it is answered 503",
    ),
    Setting(
        "TRUSTED_PROXIES",
        int,
        0,
        minimum=0,
        group=REQUESTS,
        meaning="proxies in front that set `X-Forwarded-For` (to count the client's address)",
    ),
    Setting(
        "CORS_ORIGINS",
        str,
        "",
        group=REQUESTS,
        meaning="origins browser apps may call the API from, comma-separated "
        "(`https://app.example`), or `*`; an origin not listed gets no CORS header "
        "(`service/api/cors.py`)",
    ),
    Setting(
        "COMPRESSION",
        str,
        "on",
        group=REQUESTS,
        choices=("on", "off"),
        meaning="compress answers of 500 bytes or more (JSON, the /play page's files) with "
        "brotli or gzip for clients that ask (`Accept-Encoding`); never event streams "
        "(`service/api/compression.py`). `off` when a proxy in front compresses",
    ),
    # -- limits -----------------------------------------------------------------------------
    Setting(
        "RATE_LIMIT_PER_ADDRESS",
        int,
        1200,
        minimum=0,
        group=LIMITS,
        meaning="requests a minute per client address (0: no limit; `service/api/ratelimit.py`)",
    ),
    Setting(
        "RATE_LIMIT_PER_TOKEN",
        int,
        300,
        minimum=0,
        group=LIMITS,
        meaning="requests a minute per seat token (0: no limit)",
    ),
    Setting(
        "HINT_LIMIT_PER_ADDRESS",
        int,
        60,
        minimum=0,
        group=LIMITS,
        meaning="hints and move analyses a minute per client address (the two hint and "
        "the two analysis endpoints share it; 0: no limit)",
    ),
    Setting(
        "HINT_LIMIT_PER_TOKEN",
        int,
        30,
        minimum=0,
        group=LIMITS,
        meaning="the same per seat token",
    ),
    Setting(
        "REACTION_LIMIT_PER_ADDRESS",
        int,
        120,
        minimum=0,
        group=LIMITS,
        meaning="reactions (emotes sent to a game's streams) a minute per client address "
        "(0: no limit)",
    ),
    Setting(
        "REACTION_LIMIT_PER_TOKEN",
        int,
        30,
        minimum=0,
        group=LIMITS,
        meaning="the same per seat token",
    ),
    Setting(
        "BOT_LIMIT_PER_ADDRESS",
        int,
        60,
        minimum=0,
        group=LIMITS,
        meaning="computer-player turns a minute per client address: "
        "`POST /v1/games/{id}/bots`, creations and rematches with a computer seat (one "
        "each), and each computer player replying within a person's move (over the quota, "
        "they reply on a background worker instead; 0: no limit)",
    ),
    Setting(
        "BOT_LIMIT_PER_TOKEN",
        int,
        30,
        minimum=0,
        group=LIMITS,
        meaning="the same per seat token",
    ),
    Setting(
        "COST_BUDGET_SECONDS_PER_ADDRESS",
        float,
        7.0,
        minimum=0,
        group=LIMITS,
        meaning="seconds one address may cost in a sliding minute: the CPU of its costly "
        "requests (hints, analyses, position analyses, bots' turns, bots replying within "
        "its moves) and the background workers' time its games take; past it, its costly "
        "requests are 429, bots reply to its moves on a worker, and its games' jobs wait "
        "(0: no budget; `service/play/budget.py`)",
    ),
    Setting(
        "CREATION_LIMIT_PER_ADDRESS",
        int,
        600,
        minimum=0,
        group=LIMITS,
        meaning="games created an hour per client address (rematches count; 0: no limit)",
    ),
    Setting(
        "SERVICE_KEY_RATE_LIMIT",
        int,
        12000,
        minimum=0,
        group=LIMITS,
        meaning="requests a minute per service key, wherever they come from (instead of "
        "the address's limit; the hint, bot and analysis quotas count per key at their "
        "per-address values; 0: no limit)",
    ),
    Setting(
        "SERVICE_KEY_CREATION_LIMIT",
        int,
        6000,
        minimum=0,
        group=LIMITS,
        meaning="games created an hour per service key (each game of a bulk creation "
        "counts; 0: no limit)",
    ),
    Setting(
        "ANALYSIS_LIMIT_PER_ADDRESS",
        int,
        300,
        minimum=0,
        group=LIMITS,
        meaning="`POST /v1/legal-moves` and `POST /v1/score` a minute per client address "
        "(0: no limit)",
    ),
    Setting(
        "ADDRESS_PREFIX_V4",
        int,
        32,
        minimum=0,
        maximum=32,
        group=LIMITS,
        meaning="every per-address limit (requests, quotas, streams) counts the client's "
        "IPv4 network of this prefix length (32: the address itself; "
        "`service/api/addresses.py`)",
    ),
    Setting(
        "ADDRESS_PREFIX_V6",
        int,
        64,
        minimum=0,
        maximum=128,
        group=LIMITS,
        meaning="the same for IPv6: 64, any address of one /64 (a subscriber's) is one client",
    ),
    # -- computer players ---------------------------------------------------------------------
    Setting(
        "BOT_TIME_LIMIT_SECONDS",
        float,
        0.3,
        minimum=0,
        group=BOTS,
        meaning="the allowance: how long computer players may play within one request "
        "(`service/play/steps.py`)",
    ),
    Setting(
        "BOT_SLICE_SECONDS",
        float,
        5.0,
        minimum=0,
        above_minimum=True,
        group=BOTS,
        meaning="how long a background worker plays one game before it lets another "
        "game's job go (it stops sooner, after the move it is playing, when a turn clock's "
        "job waits; `service/play/background.py`)",
    ),
    Setting(
        "EXPERT_BUDGET_MS",
        float,
        50.0,
        minimum=0,
        above_minimum=True,
        group=BOTS,
        meaning="the expert computer player's thinking budget per move (hints too)",
    ),
    Setting(
        "BOT_ONLY_MAX_TARGET",
        int,
        0,
        minimum=0,
        group=BOTS,
        shown_default="`0` (the variant's default target)",
        meaning="a match of computer players only may be played to this target at most; "
        "more is a 422",
    ),
    # -- event streams --------------------------------------------------------------------------
    Setting(
        "STREAM_KEEPALIVE_SECONDS",
        float,
        15.0,
        minimum=0,
        above_minimum=True,
        group=STREAMS,
        meaning="an event stream sends a `: keep-alive` comment this often (and rereads "
        "the log: a game that expired ends its streams within this long)",
    ),
    Setting(
        "STREAM_MAX_SECONDS",
        float,
        3600.0,
        minimum=0,
        above_minimum=True,
        group=STREAMS,
        meaning="an event stream ends after this long (`end`, `reconnect`); the client "
        "reconnects with `Last-Event-ID` and misses nothing",
    ),
    Setting(
        "STREAM_LIMIT_PER_ADDRESS",
        int,
        20,
        minimum=0,
        group=STREAMS,
        meaning="event streams open at once per client address (its prefix: "
        "`ADDRESS_PREFIX_V4`/`_V6`), over every instance (0: no limit); past it, 429",
    ),
    Setting(
        "STREAM_LIMIT_PER_GAME",
        int,
        50,
        minimum=0,
        group=STREAMS,
        meaning="spectators' event streams (no seat token) open at once on one game, over "
        "every instance (0: no limit); past it, 429. Seats are not counted here: "
        "spectators never keep a game's players out",
    ),
    Setting(
        "STREAM_LIMIT_PER_SEAT",
        int,
        4,
        minimum=0,
        group=STREAMS,
        meaning="event streams open at once with one seat's token (a player's tabs and "
        "devices; 0: no limit); past it, 429",
    ),
    Setting(
        "STREAMS_PER_WORKER",
        int,
        200,
        minimum=0,
        group=STREAMS,
        meaning="event streams one worker holds at once, each on a thread of its own "
        "(`deploy/gunicorn.conf.py` gives each worker this many besides "
        "`GUNICORN_THREADS`); past it, 503 with `Retry-After`",
    ),
    # -- webhooks ---------------------------------------------------------------------------------
    Setting(
        "WEBHOOK_RETRY_SCHEDULE",
        str,
        "",
        group=WEBHOOKS,
        check=_retry_schedule,
        shown_default="`5,300,1800,7200,18000,36000,36000` (8 attempts over 27 h 35 min)",
        meaning="seconds before each retry of a webhook delivery that failed (no 2xx within "
        "10 s), comma-separated; past the last, the delivery is given up and its endpoint "
        "disabled (docs/platforms.md). Shorter for tests only",
    ),
    Setting(
        "WEBHOOK_ALLOW_HOSTS",
        str,
        "",
        group=WEBHOOKS,
        check=_allowed_hosts,
        meaning="hosts (`host` or `host:port`, comma-separated) webhook endpoints may be at "
        "over `http://` and at any address, loopback and private included: for development "
        "and tests. Any other endpoint must be `https://` at a public address",
    ),
    Setting(
        "WEBHOOK_MAX_ENDPOINTS",
        int,
        16,
        minimum=1,
        group=WEBHOOKS,
        meaning="webhook endpoints a service key may have",
    ),
    Setting(
        "WEBHOOK_MAX_PENDING",
        int,
        10000,
        minimum=1,
        group=WEBHOOKS,
        meaning="deliveries an endpoint may have waiting; past it, the endpoint is disabled",
    ),
    Setting(
        "WEBHOOK_REDELIVERY_LIMIT",
        int,
        60,
        minimum=0,
        group=WEBHOOKS,
        meaning="redeliveries (`POST /v1/webhooks/{id}/deliveries/{message_id}/retry`) a "
        "minute per service key (0: no limit); a delivery asked for again within 10 s of "
        "the last is attempted once",
    ),
    # -- operations -------------------------------------------------------------------------------
    Setting(
        "METRICS_PORT",
        int,
        0,
        minimum=0,
        maximum=65535,
        group=OPERATIONS,
        shown_default="none (the image, compose and the manifests: `9100`)",
        meaning="serve `/metrics` on this port (gunicorn's master, every worker added up) "
        "and not on `PORT`; without it (`make run`), `/metrics` is on `PORT`, counted by "
        "the per-address limit",
    ),
    Setting(
        "PROMETHEUS_MULTIPROC_DIR",
        str,
        "",
        group=OPERATIONS,
        key=None,
        shown_default="a fresh temporary directory",
        meaning="a writable directory for the workers' metrics files (in Kubernetes, an "
        "`emptyDir`); its `*.db` files are removed when gunicorn starts",
    ),
    Setting(
        "LOG_LEVEL",
        str,
        "INFO",
        group=OPERATIONS,
        key=None,
        choices=LOG_LEVELS,
        meaning="the service's JSON logs on stderr (gunicorn's access log is JSON on "
        "stdout); any case",
    ),
    Setting(
        "SCOPA_ENGINE",
        str,
        "",
        group=OPERATIONS,
        key=None,
        choices=("compiled", "python"),
        shown_default="none (`make run` sets it to the engine it chose; the image, `compiled`)",
        meaning="the engine every process must run, else it refuses to start. Each logs "
        "the one it runs at start (`engine: compiled (mypyc, ...)` or `engine: pure Python "
        "(no compiled build on the path)`), and `/metrics` has it as "
        '`scopa_engine_info{build="mypyc"}` (or `"python"`)',
    ),
)

GROUPS: tuple[str, ...] = (
    LISTENING,
    REDIS,
    REQUESTS,
    LIMITS,
    BOTS,
    STREAMS,
    WEBHOOKS,
    OPERATIONS,
)
_SCHEMA = ma.Schema.from_dict(
    {setting.name: setting.field() for setting in SETTINGS}, name="Settings"
)


def read(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every setting's value, by its variable's name; ConfigError (one line naming each
    bad variable and what it takes) if a value is not one it takes."""
    env = os.environ if environ is None else environ
    given = {s.name: env[s.name] for s in SETTINGS if env.get(s.name, "") != ""}
    as_read = dict(given)
    if "LOG_LEVEL" in given:  # any case
        as_read["LOG_LEVEL"] = given["LOG_LEVEL"].upper()
    try:
        loaded = _SCHEMA(unknown=ma.EXCLUDE).load(as_read)
    except ma.ValidationError as error:
        raise ConfigError(_refusal(error.normalized_messages(), given)) from None
    values = {s.name: loaded.get(s.name, s.default) for s in SETTINGS}
    for setting in SETTINGS:  # the defaults that depend on other values, once all are read
        if callable(values[setting.name]):
            values[setting.name] = setting.default(values)
    return values


def _refusal(messages: Mapping[str, Any], given: Mapping[str, str]) -> str:
    problems = []
    for setting in SETTINGS:
        if setting.name not in messages:
            continue
        value = "" if setting.secret else f"={given[setting.name]!r}"
        if setting.check is None:  # a type, a range or a choice: what it takes says it
            problems.append(f"{setting.name}{value} is refused: it takes {setting.accepts()}")
        else:  # the check's own message (a Redis URL's says which forms there are)
            said = messages[setting.name]
            reason = " ".join(said) if isinstance(said, list) else str(said)
            problems.append(f"{setting.name}{value} is refused: {reason}")
    return "bad setting: " + "; ".join(problems)


def from_env(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings the app keeps in ``app.config``, by their keys there."""
    values = read(environ)
    return {
        setting.key or setting.name: values[setting.name]
        for setting in SETTINGS
        if setting.key is not None
    }


def check(config: Mapping[str, Any]) -> None:
    """What the app's settings must be together to serve (ConfigError if not): a
    server secret, and a wait for replicas that fits in a Redis call."""
    if len(config["SERVER_SECRET"]) < MIN_SECRET_LENGTH:
        raise ConfigError(
            f"SERVER_SECRET must be set to a random string of at least {MIN_SECRET_LENGTH} "
            "characters, the same on every instance: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    if (
        config["REDIS_MIN_REPLICAS"]
        and config["REDIS_REPLICA_TIMEOUT_SECONDS"] >= config["REDIS_TIMEOUT_SECONDS"]
    ):
        raise ConfigError(
            "REDIS_REPLICA_TIMEOUT_SECONDS must be shorter than REDIS_TIMEOUT_SECONDS: the "
            "wait for replicas is a Redis call, which gives up after REDIS_TIMEOUT_SECONDS"
        )


def markdown() -> str:
    """docs/configuration.md: every setting, by topic (``make docs`` writes it)."""
    lines = [
        "# Configuration",
        "",
        "<!-- Generated from service/config.py by `make docs`: edit that, not this. -->",
        "",
        "The service is configured by environment variables only, the same for gunicorn",
        "(`make run`, the image), the app and the background workers",
        "(`python -m service.worker`). An empty variable is the same as an unset one.",
        "A value the service cannot take (`PORT=abc`, a negative limit, a `REDIS_URL` of",
        "no known form) stops it at start with one line naming the variable and what it",
        "takes.",
    ]
    for group in GROUPS:
        lines += ["", f"## {group}", "", "| variable | default | meaning |", "|---|---|---|"]
        for setting in SETTINGS:
            if setting.group != group:
                continue
            meaning = setting.meaning[0].upper() + setting.meaning[1:]
            plain_text = setting.kind is str and not setting.choices
            takes = "" if plain_text else f" Takes {setting.accepts()}."
            lines.append(
                f"| `{setting.name}` | {setting.documented_default()} | {meaning}.{takes} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    # `python -m service.config docs/configuration.md` (`make docs`) writes the guide; with
    # no argument, it prints it.
    import sys
    from pathlib import Path

    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(markdown())
    else:
        print(markdown(), end="")
