"""Who is asking: the seat a request's bearer token belongs to, or the seat a service key
acts for, and how operations document it.

A seat's token is its seat. A service key (service/api/service_keys.py) may act for any
seat of the games it created: it names the seat with ``as_seat=N`` (a query parameter)
on operations that read, and with ``X-Seat: N`` (a header) on those that change the
game; without one, it reads as a spectator would (also a game without spectators). On a
game it did not create, a key gets 404, as for a game that does not exist: a key learns
nothing of other games. ``as_seat`` and ``X-Seat`` are for keys only: sent with a seat
token or no credential, they are a 401."""

from __future__ import annotations

from flask import request
from marshmallow import fields, validate

from ..engine.variants import VARIANTS
from ..play import Game, GameNotFoundError, UnauthorizedError
from .bearer import parse_bearer
from .fields import StrictSchema
from .problems import Problem, ProblemType
from .service_keys import requesting_key, require_key

#: The security of operations that need a seat (a seat's token, or a service key acting
#: for one of its games' seats), or take one optionally.
SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}, {"serviceKey": []}]
OPTIONAL_SEAT_AUTH: list[dict[str, list[str]]] = [{}, {"seatToken": []}, {"serviceKey": []}]
#: The 401 of operations that read a token.
BAD_TOKEN = {
    401: "The bearer token is missing, malformed, or not a seat of this game (a game "
    "created with `spectators: false` shows nothing without one); or `as_seat`/`X-Seat` "
    "came without a service key."
}
#: The 422 of operations a service key acts on for a seat it names.
SEAT_NAMED = {
    422: "A service key named no seat (`as_seat`, `X-Seat`) where one is needed, or "
    "one that is not a seat of this game (or a computer player's, or an open one, to act)."
}
#: What an operation's own 422 adds when it has other causes than :data:`SEAT_NAMED`'s.
OR_SEAT_NAMED = " Or a seat named wrong by a service key (`as_seat`, `X-Seat`)."
#: How a service key names the seat it reads as, and the seat it acts for.
AS_SEAT_NAME = "as_seat"
X_SEAT_NAME = "X-Seat"
_AS_SEAT_DOC = (
    "For a service key, on a game it created: the seat whose view to read (from 0), as "
    "that seat's token would; left out, a spectator's view. Not with a seat's token."
)
_X_SEAT_DOC = (
    "For a service key, on a game it created: the seat (from 0) to act for, as that "
    "seat's token would. Required with a key; not with a seat's token."
)
#: The seats a service key may name: those of the largest table any variant seats.
FIRST_SEAT = 0
LAST_SEAT = max(count for variant in VARIANTS.values() for count in variant.player_counts) - 1


def _seat_parameter(location: str, name: str, description: str) -> dict[str, object]:
    """An OpenAPI parameter naming a seat."""
    return {
        "in": location,
        "name": name,
        "required": False,
        "description": description,
        "schema": {"type": "integer", "minimum": FIRST_SEAT, "maximum": LAST_SEAT},
    }


X_SEAT = _seat_parameter("header", X_SEAT_NAME, _X_SEAT_DOC)


def AsSeat() -> fields.Integer:  # noqa: N802
    """``as_seat`` in an operation's query schema (:func:`seat_of` reads it; a strict
    schema would refuse it otherwise)."""
    return fields.Integer(
        validate=validate.Range(FIRST_SEAT, LAST_SEAT),
        data_key=AS_SEAT_NAME,
        metadata={"description": _AS_SEAT_DOC},
    )


class SeatQuerySchema(StrictSchema):
    """The query of a read that takes no parameter but the seat a key reads as."""

    as_seat = AsSeat()


def bearer_token() -> str | None:
    """The request's bearer token, or None without an Authorization header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    token = parse_bearer(header)
    if token is None:
        raise _unauthorized("The Authorization header must be 'Bearer <seat token>'.")
    return token


def check_owner(game: Game) -> None:
    """A request with a service key may see only the games its key created: any other
    is not found (GameNotFoundError), as if it did not exist."""
    key = requesting_key()
    if key is not None and game.owner != key:
        raise GameNotFoundError(game.id)


def seat_of(game: Game, *, required: bool) -> int | None:
    """The seat of the request's token, or the seat its service key names; None for a
    spectator when a seat is not required and the game has spectators (``spectators:
    false`` at creation: every view needs a seat's token; the key that created the
    game reads it without one)."""
    key = requesting_key()
    if key is not None:
        check_owner(game)
        named = _named_seat(game)
        if named is None and required:
            where = "the query parameter as_seat" if _reads() else "the header X-Seat"
            raise Problem(
                422,
                ProblemType.VALIDATION,
                f"A service key acts for a seat it names: send {where} with the seat's "
                "number (from 0).",
                errors={AS_SEAT_NAME if _reads() else X_SEAT_NAME: ["Missing."]},
            )
        return named
    if AS_SEAT_NAME in request.args or X_SEAT_NAME in request.headers:
        require_key()  # 401: naming a seat is for service keys
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
    """The seat of the request's token, or the one its service key acts for, which it
    must have."""
    seat = seat_of(game, required=True)
    assert seat is not None
    return seat


def _reads() -> bool:
    return request.method in ("GET", "HEAD")


def _named_seat(game: Game) -> int | None:
    """The seat ``as_seat`` (a read) or ``X-Seat`` (a change) names, or None; 422 for
    one that is not a seat of ``game``, for the one that does not belong to the
    operation, and, for a change, for a computer player's seat or an open one."""
    reads = _reads()
    given, wrong = (AS_SEAT_NAME, X_SEAT_NAME) if reads else (X_SEAT_NAME, AS_SEAT_NAME)
    if (request.args if not reads else request.headers).get(wrong) is not None:
        kind = "reads" if reads else "changes to the game"
        raise _bad_seat(wrong, f"{wrong} is not for {kind}: send {given} instead.")
    raw = request.args.get(given) if reads else request.headers.get(given)
    if raw is None:
        return None
    seats = len(game.bots)
    if not (raw.isascii() and raw.isdigit() and int(raw) < seats):
        raise _bad_seat(given, f"{given} must be a seat of this game: 0 to {seats - 1}.")
    seat = int(raw)
    if not reads and game.bots[seat]:
        raise _bad_seat(given, f"Seat {seat} is a computer player's: it plays by itself.")
    if not reads and game.lobby is not None and seat in game.lobby.open_seats:
        raise _bad_seat(given, f"Seat {seat} is open: nobody sits there yet.")
    return seat


def _bad_seat(name: str, detail: str) -> Problem:
    return Problem(422, ProblemType.VALIDATION, detail, errors={name: [detail]})


def _unauthorized(detail: str) -> Problem:
    return Problem(401, ProblemType.UNAUTHORIZED, detail, headers={"WWW-Authenticate": "Bearer"})
