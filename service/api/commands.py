"""The HTTP side of the command path (service/play/commands/): a request as a command's
caller (its credential, the seat it names, its Idempotency-Key and If-Match) and gate
(its quotas and cost budget), the context commands run with, and :func:`execute`, the
one call every view that changes a game makes. Which operation a request is (its
operationId) is found once per app from the views' documentation
(:func:`operation_of`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from flask import Flask, current_app, g, request

from ..play import queues
from ..play.commands import COMMANDS, POLICIES, Context, Outcome, Policy, Reply, WebhookRules, run
from ..play.commands.runner import AnswerOf, no_answer
from ..play.game import Game
from . import headers, ratelimit, seats
from .context import bot_only_max_target, bot_settings, server_secret, store
from .game_views.answers import join_answer
from .observability import count_step
from .problems import Problem, ProblemType, etag
from .service_keys import requesting_key, require_key
from .settings import settings

#: Where the app keeps each (endpoint, method)'s operationId.
_OPERATIONS = "scopa_operations"
#: Where the app keeps its commands' context.
_CONTEXT = "scopa_command_context"


class HttpCaller:
    """The request as a command's caller."""

    @property
    def key(self) -> str | None:
        return requesting_key()

    @property
    def identity(self) -> str:
        return ratelimit.identity()

    def require_key(self) -> str:
        return require_key()

    def require_worker(self) -> None:
        raise PermissionError("a background worker's command: no request runs it")

    def seat(self, game: Game, *, required: bool) -> int | None:
        return seats.seat_of(game, required=required)

    def idempotency_key(self, shortest: int) -> str | None:
        return headers.idempotency_key(shortest)

    @property
    def operation(self) -> str:
        return headers.operation()

    def refuse_key_fields(self, fields: Sequence[str]) -> None:
        names = " and ".join(f"`{f.rsplit('.', 1)[-1]}`" for f in fields)
        verb = "are" if len(fields) > 1 else "is"
        raise Problem(
            422,
            ProblemType.VALIDATION,
            f"{names} {verb} for games a service key creates: send 'Authorization: Bearer "
            "<key secret>', or leave them out.",
            errors={"metadata" if "metadata" in fields else "seats": ["Needs a service key."]},
        )

    def if_match(self) -> Collection[int] | None:
        return headers.if_match_versions()


class HttpGate:
    """The request's quotas and cost budget (service/api/ratelimit.py)."""

    def charge(self, *quotas: str) -> None:
        if not ratelimit.precharged(*quotas):  # (counted with the request, before the view)
            ratelimit.charge(*quotas)

    def afford(self, seconds: float) -> None:
        ratelimit.afford(seconds)

    def allows(self, quota: str, units: int) -> bool:
        return ratelimit.allows(quota, units)

    def affordable(self) -> bool:
        return ratelimit.affordable()


def context() -> Context:
    """The context this app's commands run with: made on its first command and kept, as
    it holds nothing of a request (its caller and gate read the request being served)."""
    extensions = current_app.extensions
    found: Context | None = extensions.get(_CONTEXT)
    if found is None:
        found = extensions[_CONTEXT] = _context()
    return found


def _context() -> Context:
    from .resources.events.grip import relay_of  # (the resources import this module)

    queue = current_app.extensions["scopa_bot_queue"]
    games = store()
    config = settings()
    return Context(
        store=games,
        caller=HttpCaller(),
        gate=HttpGate(),
        secret=server_secret(),
        bots=bot_settings(),
        bot_only_max_target=bot_only_max_target(),
        after_commit=lambda step: queues.after_commit(step, queue, games, counted=count_step),
        ttl_seconds=config.game_ttl_seconds,
        queue=queue,
        join_answer=join_answer,
        webhooks=WebhookRules(
            allow_hosts=config.webhook_allow_hosts,
            max_endpoints=config.webhook_max_endpoints,
            max_pending=config.webhook_max_pending,
        ),
        relay=relay_of(config),
    )


def execute(name: str, game_id: str | None, data: Any, answer: AnswerOf) -> Reply:
    """Run the command ``name`` (an operationId) for this request."""
    g.command = name
    return run(COMMANDS[name], context(), game_id, data, answer)


def body_of(outcome: Outcome) -> dict[str, Any]:
    """The answer of a command whose answer is its ``value``."""
    value: dict[str, Any] = outcome.value
    return value


#: The answer of a command that answers with its status alone.
no_body = no_answer


def game_headers(reply: Reply) -> dict[str, str]:
    """A game's answer's headers: its version (and, for a replay, that it is one)."""
    found = dict(etag(reply.version))
    if reply.replayed:
        found["Idempotent-Replayed"] = "true"
    return found


def install(app: Flask) -> None:
    """Find each view's operationId (service/api/blueprint.py marks them), and check
    that every operation has a policy and every command a view."""
    operations: dict[tuple[str, str], str] = {}
    for endpoint, view in app.view_functions.items():
        cls = getattr(view, "view_class", None)
        for method in ("get", "post", "put", "patch", "delete"):
            operation = getattr(getattr(cls, method, None), "operation_id", None)
            if operation is not None:
                operations[(endpoint, method.upper())] = operation
                if method == "get":
                    operations[(endpoint, "HEAD")] = operation
    missing = sorted(set(operations.values()) - set(POLICIES))
    if missing:
        raise RuntimeError(f"operations without a policy (service/play/commands): {missing}")
    app.extensions[_OPERATIONS] = operations


def operation_of() -> str | None:
    """The operationId of the request's operation (None: no operation of the API)."""
    endpoint = request.endpoint
    if endpoint is None:
        return None
    operations: dict[tuple[str, str], str] = current_app.extensions.get(_OPERATIONS, {})
    return operations.get((endpoint, request.method))


def policy_of() -> Policy | None:
    """The policy of the request's operation."""
    operation = operation_of()
    return None if operation is None else POLICIES[operation]
