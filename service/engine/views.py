"""What a viewer may see: the one place that decides it.

A viewer is a seat number, or ``None`` for a spectator. A seat sees its own hand; nobody
sees another seat's hand or the stock. Every view and every event a client receives is
built here from the full state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import codes
from .masks import FULL
from .match import Event, Match, is_sweep
from .moves import Move
from .rules import Rules
from .variants import Variant


def match_view(match: Match, viewer: int | None) -> dict[str, Any]:
    """The state of ``match`` as ``viewer`` may see it."""
    hand = match.hand  # counts come from the card masks: no card is listed but to be shown
    view: dict[str, Any] = {
        "variant": match.variant.name,
        "status": match.status,
        "target": match.target,
        "rules": match.rules.to_dict(),
        "seeded": match.seeded,
        "hand_number": match.hand_number,
        "dealer": match.dealer,
        "turn": match.turn,
        "table": codes(match.table),
        "stock_count": len(hand.stock),
        "you": viewer,
        "seats": [
            {
                "seat": seat,
                "name": name,
                "team": match.teams[seat],
                "hand_count": hand.hands[seat].bit_count(),
                "captured_count": hand.piles[seat].bit_count(),
                "scopas": hand.scopas[seat],
            }
            for seat, name in enumerate(match.names)
        ],
        "teams": [
            {"team": team, "seats": match.seats_of(team), "score": score}
            for team, score in enumerate(match.scores)
        ],
        "last_move": match.last_move,
        "winner": match.winner,
    }
    if viewer is not None:
        view["hand"] = codes(match.hands[viewer])
    return view


def event_view(event: Event, viewer: int | None) -> Event:
    """``event`` with the cards ``viewer`` could not see removed: a deal shows the viewer
    its own cards under ``"cards"`` and nobody else's."""
    if "hands" not in event:
        return event
    shown = {k: v for k, v in event.items() if k != "hands"}
    if viewer is not None:
        shown["cards"] = event["hands"][str(viewer)]
    return shown


def move_view(move: Move, table: list[Any]) -> dict[str, Any]:
    """A legal move as clients see it: the card, what it takes, whether it clears the table."""
    return {
        "card": move.card.code,
        "capture": codes(move.captured),
        "sweep": is_sweep(move, table),
    }


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of a match at its turn: its hand, the table, every card seen
    played (the piles), the counts of cards in the other hands and the stock, and the
    public score. The computer players decide from this alone, never from the state.
    Card sets are masks (see masks.py)."""

    variant: Variant
    rules: Rules
    seat: int
    players: int
    teams: tuple[int, ...]
    dealer: int
    hand: int
    table: int
    piles: tuple[int, ...]
    scopas: tuple[int, ...]
    last_capturer: int | None
    hand_counts: tuple[int, ...]
    stock_count: int
    hand_size: int
    scores: tuple[int, ...]
    target: int

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in the other hands or the stock."""
        seen = self.hand | self.table
        for pile in self.piles:
            seen |= pile
        return FULL ^ seen


def knowledge_of(match: Match, seat: int) -> Knowledge:
    """What ``seat`` knows of ``match`` (see :class:`Knowledge`)."""
    hand = match.hand
    return Knowledge(
        variant=match.variant,
        rules=match.rules,
        seat=seat,
        players=match.players,
        teams=tuple(match.teams),
        dealer=hand.dealer,
        hand=hand.hands[seat],
        table=hand.table,
        piles=tuple(hand.piles),
        scopas=tuple(hand.scopas),
        last_capturer=hand.last_capturer,
        hand_counts=tuple(h.bit_count() for h in hand.hands),
        stock_count=len(hand.stock),
        hand_size=hand.hand_size,
        scores=tuple(match.scores),
        target=match.target,
    )
