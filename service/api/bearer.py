"""The bearer credential of a request (``Authorization: Bearer <credential>``): a seat's
token (service/api/seats.py) or a service key's secret (service/api/service_keys.py)."""

from __future__ import annotations


def parse_bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (the scheme in any case,
    spaces around either part ignored), or None if the header is absent or not that."""
    if header is None:
        return None
    parts = header.split(None, 1)
    if len(parts) != 2 or parts[0].lower() != "bearer":
        return None
    token = parts[1].strip()
    return token if token and len(token.split()) == 1 else None
