"""What a viewer may see: the one place that decides it.

A viewer is a seat number, or ``None`` for a spectator. A seat sees its own hand; nobody
sees another seat's hand or the stock. Every view and every event a client receives is
built here from the full state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import Card, codes, sorted_cards
from .knowledge import Knowledge
from .masks import FULL, cards_of, mask_of
from .match import Event, Match, team_of_seats
from .moves import Move, is_sweep
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
    if match.variant.has_declarations:
        # Declared cards are face up until played, for everyone (Cirulla, C3.4, C10.3);
        # and the points declared so far this hand.
        for seat in view["seats"]:
            exposed = match.exposed[seat["seat"]]
            seat["exposed"] = codes(sorted_cards(cards_of(exposed)))
            seat["declared_points"] = match.declared_points[seat["seat"]]
    if match.rules.matta_keeps_value:
        # The value the 7C keeps now (C5.2), public as the declaration that gave it.
        view["matta_as"] = hand.matta_as or None
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
        exposed=tuple(match.exposed) if match.variant.has_declarations else (),
        matta_as=hand.matta_as or None,
    )


def position_knowledge(
    variant: Variant,
    rules: Rules,
    *,
    seat: int,
    players: int,
    dealer: int,
    hand: Sequence[Card],
    table: Sequence[Card],
    piles: Sequence[Sequence[Card]],
    scopas: Sequence[int],
    hand_counts: Sequence[int],
    last_capturer: int | None,
    matta_as: int | None = None,
) -> Knowledge:
    """What ``seat``, to play, knows in a position described from outside a match (for
    a hint): its hand, the table, each seat's pile and scopas this hand, how many cards
    each seat holds, and the value the 7C keeps (Cirulla's C5.2; None: none); the cards
    it has not seen are in the other hands and the stock. The match score is unknown:
    nil."""
    seen = mask_of(hand) | mask_of(table)
    pile_masks = tuple(mask_of(p) for p in piles)
    for pile in pile_masks:
        seen |= pile
    unseen = (FULL ^ seen).bit_count()
    teams = tuple(team_of_seats(players))
    return Knowledge(
        variant=variant,
        rules=rules,
        seat=seat,
        players=players,
        teams=teams,
        dealer=dealer,
        hand=mask_of(hand),
        table=mask_of(table),
        piles=pile_masks,
        scopas=tuple(scopas),
        last_capturer=last_capturer,
        hand_counts=tuple(hand_counts),
        stock_count=unseen - (sum(hand_counts) - hand_counts[seat]),
        hand_size=variant.deal_plan(players).hand_size,
        scores=(0,) * (max(teams) + 1),
        target=variant.default_target,
        matta_as=matta_as,
    )
