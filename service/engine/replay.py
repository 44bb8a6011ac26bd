"""Rebuild a match from its event log, and check that the log tells one consistent story.

The stored log of a match (what :meth:`Match.new` and :meth:`Match.play` return, in
order, hidden cards included: each ``deal`` event holds every seat's dealt cards under
``"hands"``) determines the whole match but two things: the ``seed``, and the order of
the cards still in the stock. :func:`replay` deals the same cards again (every deal,
redeal and dealer's bonus), plays every move through :meth:`Match.play` and makes every
declaration through :meth:`Match.declare`, so each must be legal, and checks that the
engine gives back exactly the logged events; a log that
does not is refused with :class:`ReplayError`. :func:`comparable` is the part of
:meth:`Match.to_dict` that the log determines, for comparing a replay with a stored
match.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from .cards import DECK, Card, parse_cards
from .errors import ScopaError
from .legal import code_of
from .match import Event, Match, team_of_seats
from .moves import DeclarationKind, Move
from .rules import Rules
from .states import EventKind, Status
from .variants import Variant, get_variant

__all__ = ["ReplayError", "comparable", "replay"]


class ReplayError(ValueError):
    """The event log is not the log of any match: the message says where and why."""


#: What the engine may raise when a malformed log makes it deal or play nonsense.
#: The events of a game's log that the service's lobby adds around the match.
LOBBY_EVENTS = frozenset({EventKind.SEAT_JOINED, EventKind.SEAT_LEFT, EventKind.REMATCH})

_MALFORMED = (KeyError, IndexError, TypeError, ValueError, AttributeError, ScopaError)


def replay(events: Sequence[Event]) -> Match:
    """The match whose full stored event log is ``events``, rebuilt by the engine.

    Its ``seed`` is None (the log does not hold it), and the cards still in its stock,
    in an order of the replay's choosing. Raises :class:`ReplayError` when a move is
    illegal, or when the engine, dealing and playing as the log says, does not produce
    exactly the logged events. The lobby's events around the match (seats taken and
    left before it, the rematch after it) are not the match's, and are passed over, as
    is the mark of a move played for a seat whose time ran out."""
    events = [_of_the_match(e) for e in events if not _of_the_lobby(e)]
    if not events or events[0].get("type") != EventKind.MATCH_STARTED:
        raise ReplayError("the log must start with a match_started event")
    match = _started(events)
    produced = [match.started_event()]
    try:
        match._start_hand(produced)
    except ReplayError:
        raise
    except _MALFORMED as exc:
        raise ReplayError(f"the first deal cannot be made again ({exc!r})") from None
    _same(events, produced, 0)
    while len(produced) < len(events):
        index = len(produced)
        event = events[index]
        if event.get("type") == EventKind.DECLARATION:  # made by a seat (Cirulla, C3)
            produced += _declared(match, event, index)
        elif event.get("type") == EventKind.MOVE:
            produced += _played(match, event, index)
        else:
            raise ReplayError(
                f"event {index}: the log has {_shown(event)}, the replay expects a move"
            )
        _same(events, produced, index)
    return Match.from_dict(match.to_dict())


def _started(events: Sequence[Event]) -> _Replay:
    """The match the log's ``match_started`` event (its first) sets up, before its
    first deal, to be dealt the decks the log dealt."""
    start = events[0]
    try:
        variant = get_variant(start["variant"])
        names = [seat["name"] for seat in start["seats"]]
        teams = [seat["team"] for seat in start["seats"]]
        match = _Replay(
            variant=variant,
            names=names,
            target=start["target"],
            rules=Rules.from_dict(start["rules"]),
            seed=None,
            teams=teams,
            dealer=start["dealer"],
            seeded=start["seeded"],
            scores=[0] * (max(teams) + 1),
        )
    except _MALFORMED as exc:
        raise ReplayError(f"event 0: not a valid match_started event ({exc!r})") from None
    if teams != team_of_seats(len(names)):
        raise ReplayError(f"event 0: teams {teams} are not those of {len(names)} players")
    match.decks = iter(_decks(events, variant, len(names)))
    return match


def _declared(match: Match, event: Event, index: int) -> list[Event]:
    """The events of the declaration the log's event ``index`` says a seat made."""
    try:
        return match.declare(event["seat"], DeclarationKind(event["kind"]), event["matta_as"])
    except _MALFORMED as exc:
        raise ReplayError(f"event {index}: not a legal declaration ({exc})") from None


def _played(match: Match, event: Event, index: int) -> list[Event]:
    """The events of the move the log's event ``index`` says a seat played, once the
    move is found legal."""
    try:
        seat = event["seat"]
        move = Move.of(Card.parse(event["card"]), parse_cards(event["capture"]))
        legal = (
            match.status == Status.PLAYING
            and seat == match.turn
            and len(move.capture) == len(event["capture"])
            and code_of(move) in match.hand.legal_codes()
        )
    except _MALFORMED as exc:
        raise ReplayError(f"event {index}: not a valid move event ({exc!r})") from None
    if not legal:
        raise ReplayError(f"event {index}: the move {_shown(event)} is not legal here")
    try:
        return match.push(move)
    except ReplayError:
        raise
    except _MALFORMED as exc:
        raise ReplayError(
            f"event {index}: what follows the move cannot be made ({exc!r})"
        ) from None


def _of_the_lobby(event: Event) -> bool:
    kind = event.get("type")
    return isinstance(kind, str) and kind in LOBBY_EVENTS


def _of_the_match(event: Event) -> Event:
    """``event`` without the service's note that a move was played for a seat whose
    time ran out (``timeout``): the move is the match's, the reason for it is not."""
    if event.get("type") == EventKind.MOVE and "timeout" in event:
        return {k: v for k, v in event.items() if k != "timeout"}
    return event


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """The part of a :meth:`Match.to_dict` that the event log determines: all of it but
    the seed, with the stock as a set (sorted card indices) rather than a sequence."""
    data = json.loads(json.dumps(state))
    data.pop("seed", None)
    data["stock"] = sorted(data["stock"])
    return data  # type: ignore[no-any-return]


class _Replay(Match):
    """A match whose shuffles are the decks the log dealt (see :func:`_decks`)."""

    decks: Iterator[list[int]]

    def _shuffled_deck(self, attempt: int) -> list[int]:
        deck = next(self.decks, None)
        if deck is None:
            raise ReplayError("the log has fewer deals than the match makes")
        return deck


def _decks(events: Sequence[Event], variant: Variant, players: int) -> list[list[int]]:
    """Every deck the match was dealt from (card indices, in dealing order): one per
    redeal and one per hand, rebuilt from the log so that dealing it again gives the
    logged hands and table, then the logged deals of the rest of the hand."""
    plan = variant.deal_plan(players)
    decks: list[list[int]] = []
    hand_number = 0
    for index, event in enumerate(events):
        kind = event.get("type")
        try:
            if kind == EventKind.REDEAL:
                table = _indices(event["table"])
                others = [i for i in range(len(DECK)) if i not in set(table)]
                dealt = plan.hand_size * players
                decks.append(others[:dealt] + table + others[dealt:])
            elif kind == EventKind.DEAL and event["hand"] != hand_number:
                hand_number = event["hand"]
                dealer = event["dealer"]
                deck: list[int] = []
                for offset in range(1, players + 1):
                    deck += _indices(event["hands"][str((dealer + offset) % players)])
                deck += _indices(event["table"])
                for later in events[index + 1 :]:
                    if later.get("type") != EventKind.DEAL or later["hand"] != hand_number:
                        if later.get("type") in (EventKind.HAND_OVER, EventKind.REDEAL):
                            break
                        continue
                    for offset in range(1, players + 1):
                        deck += _indices(later["hands"][str((dealer + offset) % players)])
                seen = set(deck)
                if len(seen) != len(deck):
                    raise ReplayError(f"event {index}: hand {hand_number} deals a card twice")
                deck += [i for i in range(len(DECK)) if i not in seen]
                decks.append(deck)
        except ReplayError:
            raise
        except _MALFORMED as exc:
            raise ReplayError(f"event {index}: not a valid {kind} event ({exc!r})") from None
    return decks


def _indices(codes: Sequence[str]) -> list[int]:
    return sorted(Card.parse(code).index for code in codes)


def _same(logged: Sequence[Event], produced: Sequence[Event], since: int) -> None:
    """Raise ReplayError at the first event from ``since`` on where the replay differs
    from the log (compared as JSON, as the log is stored), or runs past its end."""
    for index in range(since, len(produced)):
        if index >= len(logged):
            raise ReplayError(
                f"event {index}: the log ends, the replay gives {_plain(produced[index])}"
            )
        if logged[index] == produced[index]:
            continue
        theirs, mine = _plain(logged[index]), _plain(produced[index])
        if mine.get("type") == EventKind.MATCH_OVER and "reason" not in theirs:
            mine.pop("reason", None)  # logged before match_over said why
        if theirs != mine:
            raise ReplayError(f"event {index}: the log has {theirs}, the replay gives {mine}")


def _plain(event: Event) -> Any:
    """``event`` as the log is stored and read back: JSON data, its kind (an
    :class:`EventKind`) a plain string."""
    return json.loads(json.dumps(event))


def _shown(event: Event) -> Any:
    """``event`` for a message: as :func:`_plain`, or as it is when it is not JSON data."""
    try:
        return _plain(event)
    except (TypeError, ValueError):
        return event
