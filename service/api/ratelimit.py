"""Rate limits and quotas, per client address and per seat token, counted in Redis so that
every worker and replica shares them (sliding windows: see :func:`_check`). Over a
limit, the answer is 429 with Retry-After. If Redis cannot be reached the limiter lets
requests through (the request itself then reports the outage).

Every request counts against ``requests`` (per minute). Expensive operations count
against a quota of their own besides: ``hints`` (the expert's search: hints, and the
analyses of every move, ``GET /v1/games/{id}/analysis`` and ``POST /v1/analysis``), ``bots``
(computer players' moves: ``POST /v1/games/{id}/bots``, creations and rematches with a
computer seat, and a person's move, one per computer seat that replies within the
request: over the quota, they reply on a background worker instead), ``creations`` (per
hour: a game takes memory in Redis until it expires; rematches count),
``analysis`` (the stateless legal moves and scores of a position: a 34-card table has
thousands of moves), ``invitations`` (games looked up by their join code alone,
``GET /v1/invitations/{code}``: a code is 50 bits, so that nobody tries codes at speed)
and ``reactions`` (emotes sent to a game's streams: each is sent
to every stream open on the game). Each limit is a setting (0 turns it off); see :data:`QUOTAS`.
Probes and the docs pages are never limited (``/openapi.json`` and, when it is served on
the service's port, ``/metrics`` are: the spec is 200 KB). An address counts as its
network prefix (service/api/addresses.py: an IPv6 /64 is one client).

A request with a service key (service/api/service_keys.py) counts against its key
instead, wherever it comes from, never its address's nor a token's: ``key:<name>``,
with the key's own ``requests`` and ``creations`` limits (``SERVICE_KEY_RATE_LIMIT``,
``SERVICE_KEY_CREATION_LIMIT``); its other quotas are the per-address ones, counted per
key. :func:`identity` is the one place that decides whom a request counts against.

Besides the counts, what an address (or a key) costs: one budget of seconds a sliding minute
(``COST_BUDGET_SECONDS_PER_ADDRESS``, service/play/budget.py) counts the CPU its
requests take here (each request that took more than :data:`CHARGED_FROM_SECONDS`) and
the background workers' time its games take (the workers charge a game's creator,
:func:`payer`). While it is spent, the costly requests (searches,
analyses, computer players' turns, exports and listings: each operation's policy
in service/play/commands/catalogue.py says what it holds) are 429 and computer
players reply to its moves on the workers instead; everything else goes on. A costly
request counts a share of the budget before it starts (what it may take: so that
requests running at once cannot all pass a budget that only the first leaves room
for) and the difference once done. Behind a proxy, set
``TRUSTED_PROXIES`` to the number of proxies that add ``X-Forwarded-For``, so the
client's own address is the one counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from time import thread_time

from flask import Flask, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from ..play import connections, hash_token, keys
from ..play.budget import Budget
from ..play.commands import Policy
from .addresses import check_settings, client_key
from .bearer import parse_bearer
from .context import store
from .problems import Problem, rate_limited
from .service_keys import requesting_key
from .settings import of as settings_of
from .settings import settings

#: Paths never limited: exactly these (a path that merely starts like one is limited).
UNLIMITED_PATHS = frozenset({"/healthz", "/readyz", "/docs", "/redoc", "/play"})
#: The GRIP proxy's own requests for the streams it holds (each stream's ``next`` link,
#: service/api/resources/events/grip.py): the proxy's, not a client's; the stream was
#: counted when it opened.
UNLIMITED_PREFIX = "/grip/"


@dataclass(frozen=True)
class Quota:
    """A limit on one kind of request: the settings that hold its limits per address,
    per token and per service key (None: the per-address limit, counted per key), and
    its window."""

    name: str
    per_address_setting: str
    per_token_setting: str | None
    window_seconds: int
    what: str
    per_key_setting: str | None = None


QUOTAS = {
    q.name: q
    for q in (
        Quota(
            "requests",
            "RATE_LIMIT_PER_ADDRESS",
            "RATE_LIMIT_PER_TOKEN",
            60,
            "requests",
            "SERVICE_KEY_RATE_LIMIT",
        ),
        Quota("hints", "HINT_LIMIT_PER_ADDRESS", "HINT_LIMIT_PER_TOKEN", 60, "hints"),
        Quota("bots", "BOT_LIMIT_PER_ADDRESS", "BOT_LIMIT_PER_TOKEN", 60, "computer-player turns"),
        Quota(
            "creations",
            "CREATION_LIMIT_PER_ADDRESS",
            None,
            3600,
            "games created",
            "SERVICE_KEY_CREATION_LIMIT",
        ),
        Quota("analysis", "ANALYSIS_LIMIT_PER_ADDRESS", None, 60, "position analyses"),
        Quota("invitations", "INVITATION_LIMIT_PER_ADDRESS", None, 60, "join codes looked up"),
        Quota(
            "reactions", "REACTION_LIMIT_PER_ADDRESS", "REACTION_LIMIT_PER_TOKEN", 60, "reactions"
        ),
        # Only a service key asks for these: their limits are counted per key.
        Quota("redeliveries", "WEBHOOK_REDELIVERY_LIMIT", None, 60, "webhook redeliveries"),
        Quota("exports", "EXPORT_LIMIT_PER_KEY", None, 60, "exports"),
        Quota("listings", "LISTING_LIMIT_PER_KEY", None, 60, "listing pages"),
    )
}
#: Every setting that holds a limit (0 turns it off); then streams open at once
#: (service/api/resources/events/stream.py), and the cost budget.
LIMIT_SETTINGS = tuple(
    setting
    for quota in QUOTAS.values()
    for setting in (quota.per_address_setting, quota.per_token_setting, quota.per_key_setting)
    if setting is not None
) + (
    "STREAM_LIMIT_PER_ADDRESS",
    "STREAM_LIMIT_PER_GAME",
    "STREAM_LIMIT_PER_SEAT",
    "COST_BUDGET_SECONDS_PER_ADDRESS",
)


#: Requests that took less CPU than this are not charged (their number is bounded by
#: the request limit, and the cheapest requests spare the write).
CHARGED_FROM_SECONDS = 0.005


def install(app: Flask, policy_of: Callable[[], Policy | None]) -> None:
    """Count every request against ``requests``, and a request of an operation that
    changes nothing against its policy's quotas and cost (``policy_of`` finds it: a
    command counts its own, service/play/commands/runner.py)."""
    check_settings(settings_of(app))
    proxies = int(app.config.get("TRUSTED_PROXIES", 0))
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies)  # type: ignore[method-assign]

    @app.before_request
    def _limit() -> None:
        if request.path in UNLIMITED_PATHS or request.path.startswith(UNLIMITED_PREFIX):
            return
        g.cpu_started = thread_time()
        policy = policy_of()
        if policy is None:
            charge("requests")
        elif policy.changes:
            # A command counts its own quotas when it spends them (service/play/
            # commands/runner.py), its input checked and its caller authorised. Its first
            # spending is counted here, with the request, in the same round trip: the
            # command takes it as its own (:func:`precharged`), or it is given back at
            # the end of the request if the command never spent it (refused before).
            counted = charge("requests", *policy.quotas)
            if policy.quotas:
                g.precharged = (policy.quotas, counted[1:])
        else:
            charge("requests", *policy.quotas)
            if policy.cost:
                afford(policy.cost)

    @app.teardown_request
    def _charge_cost(_: BaseException | None) -> None:
        unspent = g.pop("precharged", None)
        if unspent is not None:  # the command was refused before it spent its quotas
            _uncount([counter for counters in unspent[1] for counter in counters])
        started = g.pop("cpu_started", None)
        if started is None:
            return
        used = thread_time() - started
        reserved = g.pop("cost_reserved", 0.0)
        if used >= CHARGED_FROM_SECONDS or reserved:
            try:
                cost_budget().charge(store().redis, identity(), used - reserved, time.time())
            except connections.ERRORS:
                pass  # fail open, as the limits do


def precharged(*names: str) -> bool:
    """Whether the quotas ``names`` were counted for this request's command before its
    view, with the request (and are now its command's: taken once)."""
    found = g.get("precharged")
    if found is None or found[0] != names:
        return False
    g.precharged = None
    return True


def charge(*names: str) -> list[list[str]]:
    """Count this request against the quotas ``names``; raise a 429 Problem if it goes
    over any of them. The counters counted in, by quota (none: not limited, or Redis
    could not be reached)."""
    config = settings()

    def limit_of(setting: str) -> int:
        """The limit the setting named ``setting`` holds (0: none)."""
        limit: int = getattr(config, setting.lower())
        return limit

    checks: list[tuple[Quota, str, int]] = []
    who = identity()
    if who.startswith(KEY):  # a service key's request: its own limits only
        for name in names:
            quota = QUOTAS[name]
            limit = limit_of(quota.per_key_setting or quota.per_address_setting)
            if limit:
                checks.append((quota, who, limit))
    else:
        # The stream takes the token as access_token too (an EventSource sends no header).
        token = parse_bearer(request.headers.get("Authorization")) or request.args.get(
            "access_token"
        )
        for name in names:
            quota = QUOTAS[name]
            if limit := limit_of(quota.per_address_setting):
                checks.append((quota, who, limit))
            if token and quota.per_token_setting and (limit := limit_of(quota.per_token_setting)):
                checks.append((quota, f"t:{hash_token(token)[:32]}", limit))
    counters = _check(checks) if checks else []
    return [
        [
            counter
            for (quota, _, _), counter in zip(checks, counters, strict=False)
            if quota.name == name
        ]
        for name in names
    ]


#: How the identity of a service key's requests begins (then the key's name).
KEY = "key:"


def identity() -> str:
    """Whom this request counts against, for every per-address limit, the cost budget
    and the background work of the games it creates (:func:`payer`): its service key
    (``key:<name>``), or else its address (``a:<network>``). The one place that decides
    it."""
    key = requesting_key()
    return f"{KEY}{key}" if key is not None else f"a:{client_key()}"


def payer() -> str:
    """Who pays for the background play of a game this request creates (``Game.payer``,
    service/play/budget.py): its key or its address (:func:`identity`)."""
    return identity()


def allows(name: str, units: int) -> bool:
    """Count ``units`` against this request's quota ``name`` (per address and token);
    False, raising nothing, once that goes over it (the units after are not counted)."""
    for _ in range(units):
        try:
            charge(name)
        except Problem as over:
            if over.status != 429:
                raise
            return False
    return True


def cost_budget() -> Budget:
    """The budget of seconds an address, or a key, may cost a minute (0: none)."""
    return Budget(settings().cost_budget_seconds_per_address)


def afford(reserve: float) -> None:
    """Before a costly request: 429 while this request's address has spent its cost
    budget; else count ``reserve`` seconds of it ahead (the request's own CPU replaces
    them once it is done). Fails open when Redis does."""
    budget = cost_budget()
    if not budget.seconds:
        return
    who, now = identity(), time.time()
    try:
        client = store().redis
        wait = budget.wait(client, who, now)
        if not wait:
            budget.charge(client, who, reserve, now)
            g.cost_reserved = g.get("cost_reserved", 0.0) + reserve
    except connections.ERRORS:
        return
    if wait:
        retry = max(1, math.ceil(wait))
        whom = "This service key" if who.startswith(KEY) else "This address"
        raise rate_limited(
            f"{whom} has used the computing it may use in a minute "
            f"({budget.seconds:g} s of searches, analyses and computer players' play, "
            f"its games' background play included). Retry after {retry} seconds; "
            "moves and views go on meanwhile.",
            retry,
        )


def affordable() -> bool:
    """Whether this request's address may cost more now (its budget not spent; True
    when Redis cannot say): computer players reply to its moves within the request
    only then."""
    budget = cost_budget()
    if not budget.seconds:
        return True
    try:
        return not budget.wait(store().redis, identity(), time.time())
    except connections.ERRORS:
        return True


#: One check's count, in one command (EVAL). KEYS[1] is this window's counter, KEYS[2]
#: the previous window's (service/play/keys.py, ``rate_counter``: one Redis Cluster
#: slot); ARGV[1] the counter's TTL, two windows, as it is read in the next window too.
#: The INCR that makes the key gives it its TTL, in the same script: no key is ever left
#: without one (set at its window's first request, it outlasts the next window, the
#: last that reads it).
#: Replies this window's count and the previous window's.
COUNT_SCRIPT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {count, tonumber(redis.call('GET', KEYS[2]) or '0')}
"""
#: A refused request's count taken off again: only from a counter that is there (a DECR
#: would make a counter that has gone, without a TTL).
UNCOUNT_SCRIPT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0
"""


def _check(checks: list[tuple[Quota, str, int]]) -> list[str]:
    """Count the request once in each check's window, and refuse it (429) if a check
    goes over its limit: a sliding window, approximated by two fixed ones (Cloudflare's
    sliding-window counter). The count is this window's, plus the previous window's
    weighted by the part of it the sliding window still covers; so a client cannot send
    a limit's worth at the end of one window and another at the start of the next. A
    refused request is taken off the count again: a client that retries too early is
    not locked out for longer by its retries.

    Each check is one EVAL of :data:`COUNT_SCRIPT`: a request's one check is sent
    alone, its several in one pipeline (one round trip; on a cluster, one per node they
    fall on). EVAL with the script's text, not EVALSHA: Redis keeps the compiled script
    by its SHA anyway, and a Redis restarted or flushed of its scripts needs no retry
    (and redis-py's cluster pipeline refuses EVALSHA). Sent with ``execute_command``:
    the pipelines' ``eval`` is another method on redis-py's cluster pipeline, and a
    ``Script`` object in a pipeline costs a SCRIPT EXISTS round trip before each."""
    now = time.time()
    counters: list[str] = []  # each check's counter of this window
    commands = []
    for quota, who, _ in checks:
        window = int(now // quota.window_seconds)
        counters.append(keys.rate_counter(quota.name, who, window))
        last = keys.rate_counter(quota.name, who, window - 1)
        commands.append(("EVAL", COUNT_SCRIPT, 2, counters[-1], last, quota.window_seconds * 2))
    try:
        # Inside the try: a thread's first client connects, and fails while Redis is
        # down or the breaker (service/api/breaker.py) refuses calls to it.
        client = store().redis
        if len(commands) == 1:  # a pipeline's own work spared
            replies = [client.execute_command(*commands[0])]
        else:
            with client.pipeline(transaction=False) as pipe:
                for command in commands:
                    pipe.execute_command(*command)
                replies = pipe.execute()
    except connections.ERRORS:
        return []  # fail open: the limiter never takes the service down
    refusal = None
    for (quota, who, limit), (count, previous) in zip(checks, replies, strict=True):
        span = quota.window_seconds
        elapsed = (now % span) / span  # of the current window
        if count + previous * (1 - elapsed) > limit:
            retry = _retry_after(count - 1, previous, limit, elapsed, span)
            if refusal is None or retry > refusal[0]:
                refusal = (retry, quota, who, limit)
    if refusal is None:
        return counters
    _uncount(counters)  # the refused request does not count
    retry, quota, who, limit = refusal
    whom = {"a": "this address", "t": "this token", "key": "this service key"}[who.split(":")[0]]
    per = "a minute" if quota.window_seconds == 60 else "an hour"
    raise rate_limited(
        f"Too many {quota.what} from {whom}: at most {limit} {per}. Retry after {retry} seconds.",
        retry,
    )


def _uncount(counters: list[str]) -> None:
    """Take a request off ``counters`` again (fails open, as the counts do)."""
    if not counters:
        return
    try:
        with store().redis.pipeline(transaction=False) as pipe:
            for counter in counters:
                pipe.execute_command("EVAL", UNCOUNT_SCRIPT, 1, counter)
            pipe.execute()
    except connections.ERRORS:
        pass


def _retry_after(count: int, previous: int, limit: int, elapsed: float, span: int) -> int:
    """Whole seconds until a request would fit: until the previous window's weighted
    count, then (once this window is the previous one) this window's, leaves room for
    one more. ``count`` and ``previous``: the requests counted in this window and the
    previous one; ``elapsed``: the part of this window gone by."""
    if count + 1 <= limit and previous:
        # Later in this window: previous * (1 - f) + count + 1 <= limit.
        wait = (1 - (limit - count - 1) / previous - elapsed) * span
    else:
        # In the next window, where this one weighs count * (1 - g): wait for g.
        later = 1 - (limit - 1) / count if count and limit >= 1 else 1.0
        wait = (1 - elapsed + max(0.0, later)) * span
    return max(1, math.ceil(wait))
