"""The engine's errors. Each is a ``ValueError`` whose message holds the bad input."""

from __future__ import annotations


class ScopaError(ValueError):
    """Base class of every error the engine raises."""


class InvalidCardError(ScopaError):
    """A card code that is not one of the 40 cards of R1."""

    def __init__(self, code: object) -> None:
        super().__init__(
            f"{code!r} is not a card code: use value 1-10 then suit D, C, S or B, as in '7D'"
        )
        self.code = code


class InvalidSetupError(ScopaError):
    """A match or position that cannot exist: wrong player count, bad deck, bad seat..."""


class NotYourTurnError(ScopaError):
    """A move by a seat that is not the seat to play."""


class MatchOverError(ScopaError):
    """A move in a match that has already finished."""


class IllegalMoveError(ScopaError):
    """A move the rules do not allow in this position.

    ``legal_captures`` lists the captures the rules allow for the card played (empty
    lists for a card that must be laid on the table), when the card is in the hand.
    """

    def __init__(self, message: str, legal_captures: list[list[str]] | None = None) -> None:
        super().__init__(message)
        self.legal_captures = legal_captures or []


class IllegalDeclarationError(IllegalMoveError):
    """A declaration the rules do not allow now (Cirulla, docs/rules.md C3); the message
    says what would be allowed."""


class AmbiguousMoveError(IllegalMoveError):
    """A card with several legal captures, played without saying which one."""
