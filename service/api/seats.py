"""Who is asking: the seat a request's bearer token belongs to, and how operations
document it."""

from __future__ import annotations

from flask import request

from ..play import Game, UnauthorizedError
from .problems import Problem, ProblemType

#: The security of operations that need a seat's token, or take one optionally.
SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
OPTIONAL_SEAT_AUTH: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
#: The 401 of operations that read a token.
BAD_TOKEN = {
    401: "The bearer token is missing, malformed, or not a seat of this game (a game "
    "created with `spectators: false` shows nothing without one)."
}


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


def bearer_token() -> str | None:
    """The request's bearer token, or None without an Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    token = parse_bearer(header)
    if token is None:
        raise _unauthorized("The Authorization header must be 'Bearer <seat token>'.")
    return token


def seat_of(game: Game, *, required: bool) -> int | None:
    """The seat of the request's token; None for a spectator when a token is not required
    and the game has spectators (``spectators: false`` at creation: every view needs a
    seat's token)."""
    token = bearer_token()
    if token is None and not game.spectators:
        raise _unauthorized(
            "This game has no spectators: send a seat's token as 'Authorization: Bearer <token>'."
        )
    if token is None and not required:
        return None
    try:
        return game.seat_of(token)
    except UnauthorizedError:
        if token is None:
            raise _unauthorized(
                "This needs a seat's token: send 'Authorization: Bearer <token>'."
            ) from None
        raise _unauthorized("This token is not a seat token of this game.") from None


def seat_required(game: Game) -> int:
    """The seat of the request's token, which it must have."""
    seat = seat_of(game, required=True)
    assert seat is not None
    return seat


def _unauthorized(detail: str) -> Problem:
    return Problem(401, ProblemType.UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})
