"""Idempotency-Key: a retried creation or move gets its first answer again instead of
acting twice. Everything the service does for the header is here, beside the store.

The first successful answer to a request carrying a key is stored with the write it
answers, in the same atomic commit (see :meth:`GameStore.commit`), as a field of the
game's hash (a *slot*). A retry with the same key and the same request gets that answer;
the same key with another request is refused. Keys are scoped: a move's key to the seat
that sent it, a join's to joins, a creation's key to creations.

What a game keeps is bounded whatever its clients send: one answer per slot, and a game
has few slots. A seat's moves and declarations share one slot (:func:`move_slot`), which
keeps the answer to the seat's latest keyed request only: a client retries its latest
request, since it sends nothing else until that one is answered. (A retry of an older
one is a new request: a card already played is refused, nothing is played twice.) Each
seat taken by a join has a slot (:func:`join_slot`), and the creation one. So a whole
match with a key on every move keeps at most one answer per seat (measured in
docs/reliability.md).

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
import zlib
from dataclasses import dataclass, replace
from typing import Any

import orjson

#: The most seats a game has (a join's answer is looked for in each seat's slot).
MAX_SEATS = 6

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
    #: The key's keyed hash (:func:`keyed_hash`): what the kept answer is known by.
    name: str
    #: A hash of the operation (method and path) and of the body.
    fingerprint: str
    #: The fields of the game's hash its answer may be kept in; it is written to the
    #: first (see :meth:`kept_in`).
    slots: tuple[str, ...]

    @classmethod
    def of(
        cls,
        secret: bytes,
        scope: str,
        key: str,
        operation: str,
        body: Any,
        slots: tuple[str, ...] | None = None,
    ) -> IdempotentRequest:
        """The request with ``key`` in ``scope`` (``create``, ``join``, or a move's
        seat), kept in ``slots`` (default: a slot named by the key's hash)."""
        name = keyed_hash(secret, scope, key)
        return cls(key, name, _fingerprint(operation, body), slots or ("idem:" + name,))

    def kept_in(self, slot: str) -> IdempotentRequest:
        """This request, its answer to be kept in ``slot``."""
        return replace(self, slots=(slot,))

    def record(self, answer: Answer) -> tuple[str, bytes]:
        """The (field, value) to store with the write this answer reports: the first
        slot, which a later answer kept there replaces."""
        value = {"k": self.name, "fp": self.fingerprint, **vars(answer)}
        return self.slots[0], pack(orjson.dumps(value))

    def replay(self, stored: list[Any]) -> Answer | None:
        """The answer to this request's key among ``stored`` (the slots' values, None
        for an empty one), or None; IdempotencyKeyReusedError when it answered another
        request made with the same key."""
        for value in stored:
            if value is None:
                continue
            data = orjson.loads(unpack(value))
            if data.get("k", self.name) != self.name:  # (no "k": named by the key's hash)
                continue  # another key's answer: this one's was replaced, or never kept
            if data["fp"] != self.fingerprint:
                raise IdempotencyKeyReusedError(self.key)
            return Answer(data["status"], data["body"], data["version"])
        return None


#: What a compressed kept answer starts with (one kept before is plain JSON: ``{``).
PACKED = b"z:"


def pack(value: bytes) -> bytes:
    """A kept answer as stored: deflated (an answer, a view and its events, is JSON that
    shrinks about four times) and in base64, as the store's clients read text."""
    return PACKED + base64.b64encode(zlib.compress(value))


def unpack(stored: str | bytes) -> bytes:
    """A kept answer as :func:`pack` stored it (or as stored before, plain JSON)."""
    raw = stored.encode() if isinstance(stored, str) else stored
    if raw.startswith(PACKED):
        return zlib.decompress(base64.b64decode(raw[len(PACKED) :]))
    return raw


def move_slot(seat: int) -> str:
    """Where a seat's latest keyed move or declaration keeps its answer."""
    return f"idem:seat{seat}"


def join_slot(seat: int) -> str:
    """Where the keyed join that took ``seat`` keeps its answer."""
    return f"idem:join{seat}"


#: Where a join's answer may be kept: the slot of the seat it took.
JOIN_SLOTS = tuple(join_slot(seat) for seat in range(MAX_SEATS))


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


def sealed(body: dict[str, Any], key: str, game_id: str | None) -> dict[str, Any]:
    """An answer with every seat token in it sealed with the client's ``key`` (or, sealed
    already, opened again): a creation's seats, a join's seat, a round's games' seats."""
    if "games" in body:  # a round: each game its own id
        return {**body, "games": [sealed(game, key, game["id"]) for game in body["games"]]}
    game_id = body.get("id", game_id)
    if isinstance(body.get("seats"), list):
        return {**body, "seats": [_sealed_seat(seat, key, game_id) for seat in body["seats"]]}
    return _sealed_seat(body, key, game_id)


def _sealed_seat(seat: dict[str, Any], key: str, game_id: str | None) -> dict[str, Any]:
    if seat.get("token") is None or game_id is None:
        return dict(seat)
    return {**seat, "token": seal_token(seat["token"], key, game_id, seat["seat"])}


def _fingerprint(operation: str, body: Any) -> str:
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(operation.encode() + b"\n" + canonical).hexdigest()
