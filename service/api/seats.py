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
BAD_TOKEN = {401: "The bearer token is missing, malformed, or not a seat of this game."}


def bearer_token() -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None without the header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("The Authorization header must be 'Bearer <seat token>'.")
    return token.strip()


def seat_of(game: Game, *, required: bool) -> int | None:
    """The seat of the request's token; None for a spectator when a token is not required."""
    token = bearer_token()
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
