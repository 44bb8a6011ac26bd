"""Idempotency-Key: a retried creation or move gets its first answer again instead of
acting twice. Everything the service does for the header is here, beside the store.

The first successful answer to a request carrying a key is stored with the write it
answers, in the same atomic commit (see :meth:`GameStore.commit`), as a field of the
game's hash: it lives as long as the game. A retry with the same key and the same
request gets that answer; the same key with another request is refused. Keys are scoped:
a move's key to the seat that sent it, a creation's key to creations.

Nothing here derives a secret from what a client sends or can see. Game ids and seat
tokens are random. Where a key's answer is kept is named by an HMAC of the key under the
server's secret (``SERVER_SECRET``), so that an id, a log or a guess reveals nothing of
it. A creation's key names a pointer to the (random) id of the game it created; the
seat tokens kept in its answer are sealed with a pad only the client's key opens, so
that Redis holds no usable token.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import orjson

#: Creation keys shorter than this are refused: a key is a secret of its creator's (a
#: UUID is 36 characters).
MIN_CREATION_KEY_LENGTH = 16


class IdempotencyKeyReusedError(ValueError):
    """The Idempotency-Key came before with a different request."""


@dataclass(frozen=True)
class Answer:
    """An answer as it was first sent: its status, its body and the game's version."""

    status: int
    body: dict[str, Any]
    version: int


@dataclass(frozen=True)
class IdempotentRequest:
    """A request that carried an Idempotency-Key: where its answer is kept, and what
    makes a retry the same request."""

    key: str
    #: The field of the game's hash that keeps the answer.
    field: str
    #: A hash of the operation (method and path) and of the body.
    fingerprint: str

    @classmethod
    def of(
        cls, secret: bytes, scope: str, key: str, operation: str, body: Any
    ) -> IdempotentRequest:
        """The request with ``key`` in ``scope`` (``create``, or a move's seat)."""
        return cls(key, "idem:" + keyed_hash(secret, scope, key), _fingerprint(operation, body))

    def record(self, answer: Answer) -> tuple[str, bytes]:
        """The (field, value) to store with the write this answer reports."""
        value = {"fp": self.fingerprint, **vars(answer)}
        return self.field, orjson.dumps(value)

    def replay(self, stored: str) -> Answer:
        """The answer kept in ``stored``; IdempotencyKeyReusedError when it answered
        another request made with the same key."""
        data = orjson.loads(stored)
        if data["fp"] != self.fingerprint:
            raise IdempotencyKeyReusedError(self.key)
        return Answer(data["status"], data["body"], data["version"])


def keyed_hash(secret: bytes, scope: str, key: str) -> str:
    """An HMAC-SHA256 of ``key`` in ``scope`` under the server's secret (hex, 128 bits)."""
    message = f"{scope}\n{key}".encode("utf-8", "surrogatepass")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def seal_token(token: str, key: str, game_id: str, seat: int) -> str:
    """``token`` sealed with a pad from the client's ``key``: what a creation's kept
    answer holds in its place. :func:`seal_token` of a sealed token opens it."""
    raw = base64.urlsafe_b64decode(token)
    pad = hmac.new(key.encode(), f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(bytes(a ^ b for a, b in zip(raw, pad, strict=False))).decode()


def _fingerprint(operation: str, body: Any) -> str:
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(operation.encode() + b"\n" + canonical).hexdigest()
