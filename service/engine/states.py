"""The named states of the engine: a match's status and the kinds of event it emits.

Both are :class:`~enum.StrEnum`: each member *is* its string (``Status.PLAYING ==
"playing"``, ``EventKind.MOVE == "move"``), so the events and views that carry them
serialize to the same JSON as plain strings, with :mod:`json` or orjson, and compare equal
to the strings a stored log holds.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["EventKind", "Status"]


class Status(StrEnum):
    """Where a match stands (docs/rules.md R8)."""

    #: Waiting for people to take its open seats: nothing is dealt yet (a match the
    #: engine sets up starts playing at once; the service's lobby is what waits).
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    #: Stopped before its end by the service key that created it: no winner (the
    #: service's too: the engine's own matches never take it).
    ABORTED = "aborted"


class EventKind(StrEnum):
    """The ``"type"`` of each event of a game's log: the lobby's (a seat taken or left
    before the match starts, the next match after it), then what the match emits, in the
    order they first occur."""

    #: A person took an open seat (before the match starts).
    SEAT_JOINED = "seat_joined"
    #: A person left a seat before the match started: it is open again.
    SEAT_LEFT = "seat_left"

    #: The seats, teams, target and rules of a new match.
    MATCH_STARTED = "match_started"
    #: The table dealt calls for a new deal by the same dealer (R3; Cirulla, C2.2).
    REDEAL = "redeal"
    #: Cards dealt: a new hand, or a new round from the stock (R3).
    DEAL = "deal"
    #: The dealer takes the table just dealt (escoba, R10; Cirulla, C2.3).
    DEALER_BONUS = "dealer_bonus"
    #: A seat declared its three cards, which stay face up until played (Cirulla, C3).
    DECLARATION = "declaration"
    #: A seat played a card (R4, R5).
    MOVE = "move"
    #: The hand's last card was played: the remainder and the hand's score (R6, R7).
    HAND_OVER = "hand_over"
    #: A side won (R8, R9 napoleone).
    MATCH_OVER = "match_over"
    #: After the match: a seat asked for the next one, and this is its game id.
    REMATCH = "rematch"
    #: The service key that created the game stopped it, with a reason: no winner, no
    #: more moves.
    ABORTED = "aborted"
