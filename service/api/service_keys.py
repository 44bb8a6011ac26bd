"""Service keys: the credential a platform's backend calls the API with
(``Authorization: Bearer <key secret>``), configured by the operator in ``SERVICE_KEYS``
(``name=secret,...``, read and checked by service/settings/clients.py).

The app keeps no secret as it is: each key as the HMAC-SHA256 of its secret keyed with
``SERVER_SECRET``. A request's bearer is hashed the same way and compared with every
key's digest by :func:`hmac.compare_digest`, so neither the time taken nor a log line
tells anything of a secret. A request carries a key or a seat token (or nothing): a
bearer that is no key is read as today, as a seat token, by service/api/seats.py.

A key is known by its name: the owner of the games it creates (``Game.owner``), the
identity its requests' quotas count under (``key:<name>``, service/api/ratelimit.py).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from flask import Flask, current_app, g, request

from ..settings.clients import parse_service_keys
from .bearer import parse_bearer
from .problems import STORE_ERRORS, Problem, ProblemType
from .settings import settings

if TYPE_CHECKING:
    from .blueprint import Blueprint

#: The security of operations only a service key may call, and of those a key or a
#: seat's token may call.
KEY_AUTH: list[dict[str, list[str]]] = [{"serviceKey": []}]
#: The spec's security scheme of service keys.
SECURITY_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": "A service key's secret, as the operator configured it (`SERVICE_KEYS`): "
    "for a platform's backend, never for a browser. A key creates games, reads and plays "
    "every seat of the games it created (`as_seat`, `X-Seat`), aborts, deletes and lists "
    "them; its requests count against its own quotas.",
}
#: The 401 of operations only a service key may call.
NOT_A_KEY = {
    401: "No service key: the operation is for the platform's backend, with "
    "`Authorization: Bearer <key secret>` (a seat's token cannot call it)."
}
_EXTENSION = "scopa_service_keys"

#: Where a request's key is kept once found (None: it has none).
_FOUND = "service_key"
_UNKNOWN = object()  # (not looked for yet in this request)


def key_operation(
    blp: Blueprint, operation_id: str, errors: Mapping[int, str], **doc: Any
) -> Callable[[Any], Any]:
    """Document an operation only a service key may call (:data:`KEY_AUTH`), as
    :meth:`Blueprint.documents` does: its problem answers are a request without a key's
    (:data:`NOT_A_KEY`), ``errors``, then the store's."""
    answers = {**NOT_A_KEY, **errors, **STORE_ERRORS}
    return blp.documents(operation_id, answers, security=KEY_AUTH, **doc)


def install(app: Flask, server_secret: str, service_keys: str) -> None:
    """Keep the app's keys (SERVICE_KEYS) as keyed hashes of their secrets (by name)."""
    secret = server_secret.encode()
    app.extensions[_EXTENSION] = {
        name: _digest(secret, key) for name, key in parse_service_keys(service_keys).items()
    }


def _digest(secret: bytes, key: str) -> bytes:
    return hmac.new(secret, key.encode("utf-8", "surrogatepass"), hashlib.sha256).digest()


def requesting_key() -> str | None:
    """The name of the service key this request authenticates with
    (``Authorization: Bearer <secret>``), or None: a seat token, or no credential."""
    known: Any = g.get(_FOUND, _UNKNOWN)
    if known is not _UNKNOWN:
        found: str | None = known
        return found
    found = None
    keys: dict[str, bytes] = current_app.extensions.get(_EXTENSION, {})
    bearer = parse_bearer(request.headers.get("Authorization")) if keys else None
    if bearer is not None:
        digest = _digest(settings().server_secret.encode(), bearer)
        for name, stored in keys.items():  # every one compared: no early answer
            if hmac.compare_digest(digest, stored):
                found = name
    setattr(g, _FOUND, found)
    return found


def require_key() -> str:
    """The name of the request's service key; a 401 problem without one."""
    name = requesting_key()
    if name is None:
        raise Problem(
            401,
            ProblemType.UNAUTHORIZED,
            "This needs a service key: send 'Authorization: Bearer <key secret>' (a seat's "
            "token cannot do it). The operator configures keys with SERVICE_KEYS.",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return name
