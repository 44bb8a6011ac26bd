"""What a problem type is: its URI (:class:`ProblemType`, the ``type`` member of every
problem), and the row of the catalogue (service/api/problems/catalogue.py) that says
everything else about it: its status, its title, when it happens, the members and headers
it adds, and the errors of the engine, the play layer and the store that are it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from http import HTTPStatus
from typing import Any


class ProblemType(StrEnum):
    """Every problem type the service sends (the ``type`` member)."""

    HTTP = "about:blank"
    VALIDATION = "/problems/validation"
    INVALID_JSON = "/problems/invalid-json"
    UNSUPPORTED_MEDIA_TYPE = "/problems/unsupported-media-type"
    UNAUTHORIZED = "/problems/unauthorized"
    GAME_NOT_FOUND = "/problems/game-not-found"
    NOT_YOUR_TURN = "/problems/not-your-turn"
    MATCH_OVER = "/problems/match-over"
    MATCH_ABORTED = "/problems/match-aborted"
    MATCH_NOT_STARTED = "/problems/match-not-started"
    NOT_STARTED_YET = "/problems/not-started-yet"
    MATCH_STARTED = "/problems/match-started"
    MATCH_NOT_OVER = "/problems/match-not-over"
    NO_OPEN_SEAT = "/problems/no-open-seat"
    WRONG_JOIN_CODE = "/problems/wrong-join-code"
    INVITATION_NOT_FOUND = "/problems/invitation-not-found"
    NOT_THE_HOST = "/problems/not-the-host"
    CONFLICT = "/problems/conflict"
    VERSION_MISMATCH = "/problems/version-mismatch"
    ILLEGAL_MOVE = "/problems/illegal-move"
    AMBIGUOUS_MOVE = "/problems/ambiguous-move"
    ILLEGAL_DECLARATION = "/problems/illegal-declaration"
    IDEMPOTENCY_KEY_REUSED = "/problems/idempotency-key-reused"
    INVALID_SETUP = "/problems/invalid-setup"
    BOT_MATCH_TOO_LONG = "/problems/bot-match-too-long"
    HAND_IN_PROGRESS = "/problems/hand-in-progress"
    HAND_NOT_FOUND = "/problems/hand-not-found"
    RATE_LIMITED = "/problems/rate-limited"
    WEBHOOK_NOT_FOUND = "/problems/webhook-not-found"
    WEBHOOK_DELIVERY_NOT_FOUND = "/problems/webhook-delivery-not-found"
    WEBHOOK_URL_REFUSED = "/problems/webhook-url-refused"
    TOO_MANY_WEBHOOKS = "/problems/too-many-webhooks"
    RECORD_REFUSED = "/problems/record-refused"
    TOURNAMENT_NOT_FOUND = "/problems/tournament-not-found"
    TOURNAMENT_GAME = "/problems/tournament-game"
    STORAGE_UNAVAILABLE = "/problems/storage-unavailable"
    INTERNAL = "/problems/internal"


@dataclass(frozen=True)
class Said:
    """What the problem an error is says of that error beyond its type and status: the
    ``detail``, and any members and headers (each one its row declares)."""

    detail: str
    members: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)


def invalid(errors: Mapping[str, Any]) -> Said:
    """What a validation problem says of ``errors`` (its fields' messages, nested as
    marshmallow nests them): which fields to check, and the messages."""
    fields = ", ".join(sorted(errors)) or "the body"
    return Said(
        f"The request is not valid: check {fields}. Each field's errors are in 'errors'.",
        members={"errors": dict(errors)},
    )


#: What an error that is a problem says (a plain string: its ``detail``); None when this
#: error is not this problem after all (another row listing its class is).
Explain = Callable[[Any], "str | Said | None"]
#: A class of errors (named so for the rows, whose ``type`` is their problem type).
ErrorClass = type[Exception]


@dataclass(frozen=True)
class ProblemRow:
    """One problem type, as clients read it (the spec's ProblemType, docs/api.md's table)
    and as the service answers it."""

    type: ProblemType
    #: Its HTTP status; ``about:blank``'s are those of the HTTP errors it is.
    status: int | tuple[int, ...]
    #: Its ``title`` ("": the status phrase).
    title: str
    #: When it happens, and what to do about it.
    when: str
    #: The members it adds to RFC 9457's (``type``, ``title``, ``status``, ``detail``).
    members: tuple[str, ...] = ()
    #: The header fields it comes with, each with what it says.
    headers: Mapping[str, str] = field(default_factory=dict)
    #: The errors that are this problem, each with what it says of one: an error is
    #: looked up by its class, then by each of its base classes (the most specific wins).
    raised_by: Mapping[ErrorClass, Explain] = field(default_factory=dict)

    @property
    def statuses(self) -> tuple[int, ...]:
        return self.status if isinstance(self.status, tuple) else (self.status,)

    def title_for(self, status: int) -> str:
        """The title of this problem answered with ``status``."""
        return self.title or HTTPStatus(status).phrase
