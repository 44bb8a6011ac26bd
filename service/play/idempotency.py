"""Idempotency-Key: a retried creation or move gets its first answer again instead of
acting twice. Everything the service does for the header is here, beside the store.

The first successful answer to a request carrying a key is stored with the write it
answers, in the same atomic commit (see :meth:`GameStore.commit`), as a field of the
game's hash: it lives as long as the game. A retry with the same key and the same
request gets that answer; the same key with another request is refused. Keys are scoped:
a move's key to the seat that sent it, a creation's key to creations.

A creation with a key gets the game id :func:`creation_id` gives, so that a retry finds
it, and seat tokens :func:`derived_token` makes, so that a retry can be answered with
the same tokens while only their hashes are stored.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import orjson


class IdempotencyKeyReusedError(ValueError):
    """The Idempotency-Key came before with a different request."""


def creation_id(key: str) -> str:
    """The id of the game created with Idempotency-Key ``key``: only its creator can know it."""
    digest = hashlib.sha256(f"scopa:create\n{key}".encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def derived_token(key: str, nonce: str, seat: int) -> str:
    """A seat token for a creation with Idempotency-Key ``key``: an HMAC under the
    client's key of the 128-bit random nonce kept with the game."""
    mac = hmac.new(key.encode(), f"{nonce}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode()


@dataclass(frozen=True)
class Answer:
    """An answer as it was first sent: its status, its body and the game's version."""

    status: int
    body: dict[str, Any]
    version: int


@dataclass(frozen=True)
class IdempotentRequest:
    """A request that carried an Idempotency-Key: the game it acts on, where its answer
    is kept, and what makes a retry the same request."""

    key: str
    game_id: str
    #: The field of the game's hash that keeps the answer.
    field: str
    #: A hash of the operation (method and path) and of the body.
    fingerprint: str

    @classmethod
    def creation(cls, key: str, operation: str, body: Any) -> IdempotentRequest:
        return cls(key, creation_id(key), _field("create", key), _fingerprint(operation, body))

    @classmethod
    def move(
        cls, key: str, game_id: str, seat: int, operation: str, body: Any
    ) -> IdempotentRequest:
        return cls(key, game_id, _field(f"seat{seat}", key), _fingerprint(operation, body))

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


def _field(scope: str, key: str) -> str:
    return "idem:" + hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()


def _fingerprint(operation: str, body: Any) -> str:
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(operation.encode() + b"\n" + canonical).hexdigest()
