"""What a storage failure says: Redis timed out or cannot be reached, or the breaker
refused the call unsent (service/api/breaker.py)."""

from __future__ import annotations

import logging

import redis
from flask import has_app_context, has_request_context, request

from ..breaker import StorageUnavailableError
from ..breaker import breaker as current_breaker
from ..observability import REDIS_ERRORS
from .problem_type import Said

log = logging.getLogger("service.api.problems")


def storage_down(error: Exception) -> Said:
    """503's detail and Retry-After: what is left of the breaker's cool-down."""
    REDIS_ERRORS.inc()
    maybe_stored = False
    if isinstance(error, StorageUnavailableError):
        retry = error.retry_after  # refused unsent; the breaker logged when it opened
    else:
        log.warning("game store unreachable: %s", type(error).__name__)
        found = current_breaker() if has_app_context() else None
        retry = found.retry_after() if found is not None else 1
        # A write sent to a Redis that then did not answer in time is still carried out
        # if Redis wakes up (it reads its socket before it sees the client gone).
        maybe_stored = (
            isinstance(error, redis.exceptions.TimeoutError)
            and has_request_context()
            and request.method not in ("GET", "HEAD", "OPTIONS")
        )
    when = "1 second" if retry == 1 else f"{retry} seconds"
    if maybe_stored:
        detail = (
            "The game store did not answer in time, and the change may still be stored: "
            "reload the game (or resend with the same Idempotency-Key) before playing "
            f"again. Retry in {when}."
        )
    else:
        detail = f"The game store is unreachable right now. Nothing was changed; retry in {when}."
    return Said(detail, headers={"Retry-After": str(retry)})
