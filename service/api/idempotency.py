"""Idempotency-Key: a retried POST returns the first answer instead of acting twice.

The first successful answer to a request carrying the header is stored beside the game,
in the same atomic write as the move, for as long as the game lives. The same key with
the same body gets that answer again (with ``Idempotent-Replayed: true``); the same key
with another body is refused with 422. Keys are scoped to the seat that sent them.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from flask import request

from .problems import Problem

HEADER = "Idempotency-Key"
_VALID = re.compile(r"[\x21-\x7e]{1,255}")

PARAMETER = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "description": "A unique key for this request (a UUID, say), 1-255 visible ASCII "
    "characters. Retrying with the same key and body returns the first answer again, "
    "without playing twice; the same key with another body is refused with 422. Kept as "
    "long as the game.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}
REPLAYED = {
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an earlier request with "
        "the same Idempotency-Key.",
        "schema": {"type": "string"},
    }
}


def idempotency_key() -> str | None:
    key = request.headers.get(HEADER)
    if key is None:
        return None
    if not _VALID.fullmatch(key):
        raise Problem(
            422,
            "/problems/validation",
            f"{HEADER} must be 1 to 255 visible ASCII characters, such as a UUID.",
            errors={HEADER: ["Not a valid key."]},
        )
    return key


def record_name(scope: str, key: str) -> str:
    return "idem:" + hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()


def fingerprint(body: Any) -> str:
    """What makes two requests the same request: the method, the path and the body."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{request.method} {request.path}\n{canonical}".encode()).hexdigest()


def stored(fingerprint_: str, status: int, body: Any, version: int) -> str:
    return json.dumps({"fp": fingerprint_, "status": status, "body": body, "version": version})


def replay(record: str, fingerprint_: str) -> tuple[Any, int, dict[str, str]]:
    """The stored answer, or a 422 when the key came with another body."""
    data = json.loads(record)
    if data["fp"] != fingerprint_:
        raise Problem(
            422,
            "/problems/idempotency-key-reused",
            f"This {HEADER} was used for a different request: use a new key for a new "
            "request, or resend the first request exactly.",
        )
    headers = {"ETag": f'"{data["version"]}"', "Idempotent-Replayed": "true"}
    return data["body"], data["status"], headers
