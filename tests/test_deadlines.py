"""Deadlines: the expert answers every position in bounded time, with a legal move.

For each variant, two worst cases a client can send to ``POST /v1/hint`` without any
credential: a position where nothing is hidden any more (the stock is empty and a
single other seat holds cards), with the largest table the position leaves room for (34
cards beside two hands of three; 36, the most a request may give, in scopone's last
round) and thousands of legal moves, which sends the expert into its exact solver; and
a position with hidden cards and thousands of legal moves, which sends it into its
Monte Carlo search. Each answers a legal move over HTTP, and through :func:`advise`
under a small hard deadline, which must be seen to cut the search and to hold.

The time bounds below are generous bounds on a deadline, not speed measurements: the
search must stop near its deadline on any machine that runs the suite at all.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.bots.advice import advise
from service.bots.expert import DEADLINE_SECONDS, is_determined
from service.engine import DECK, VARIANTS, Card, Knowledge, Rules, get_variant, parse_cards
from service.engine.hand import Hand, move_code
from service.engine.masks import mask_of
from service.engine.match import moves_of
from service.engine.views import position_knowledge

#: The hard deadline given to advise() directly: well below what the smallest of these
#: searches needs even in the mypyc build (scopone's last trick, solved exactly, takes
#: about 0.3 s compiled and 0.9 s in Python), so that it is seen to cut every one.
DEADLINE = 0.05
#: What a decision under DEADLINE may take at most, preparation and answer included.
BOUND = 3 * DEADLINE + 0.5
#: A budget so large that only the hard deadline can stop the search.
HUGE_BUDGET_MS = 60_000.0


@dataclass(frozen=True)
class Position:
    """A position as a hint request describes it, the seat to play's: its hand, the
    cards it has not seen (``hidden``: the other hands and the stock), the cards
    captured (all in seat 0's pile), and every other card on the table."""

    variant: str
    players: int
    seat: int
    dealer: int
    hand: str
    hidden: str
    hand_counts: tuple[int, ...]
    captured: str = ""

    @property
    def table(self) -> list[str]:
        elsewhere = set((self.hand + " " + self.hidden + " " + self.captured).split())
        return [card.code for card in DECK if card.code not in elsewhere]

    @property
    def piles(self) -> list[list[str]]:
        return [self.captured.split()] + [[] for _ in range(self.players - 1)]

    def body(self) -> dict[str, object]:
        """The ``POST /v1/hint`` request for this position."""
        return {
            "variant": self.variant,
            "players": self.players,
            "seat": self.seat,
            "dealer": self.dealer,
            "hand": self.hand.split(),
            "table": self.table,
            "piles": self.piles,
            "hand_counts": list(self.hand_counts),
        }

    def knowledge(self) -> Knowledge:
        return position_knowledge(
            get_variant(self.variant),
            Rules(),
            seat=self.seat,
            players=self.players,
            dealer=self.dealer,
            hand=parse_cards(self.hand.split()),
            table=parse_cards(self.table),
            piles=[parse_cards(pile) for pile in self.piles],
            scopas=[0] * self.players,
            hand_counts=self.hand_counts,
            last_capturer=None,
        )

    def legal(self) -> list[int]:
        return Hand.from_knowledge(self.knowledge()).legal_codes()


def kings(variant: str, hidden: str = "10B 9D 9C") -> Position:
    """Three kings in hand, the fourth and two cavalli (by default) with the other seat,
    the rest on the table (34 cards, no king): each king takes any of the thousands of
    sets of table cards that make 10."""
    return Position(variant, 2, 0, 1, "10D 10C 10S", hidden, hand_counts=(3, 3))


def fifteen(variant: str) -> Position:
    """Two aces and a king in hand, three kings with the other seat, the rest on the
    table (34 cards): each ace takes any set that makes 14, the king any that makes 5."""
    return Position(variant, 2, 0, 1, "1D 1C 10D", "10B 10S 10C", hand_counts=(3, 3))


def last_of_scopone(variant: str) -> Position:
    """Scopone's last round: seats 0 and 1 have played their last card, seat 2 holds a
    king, seat 3 (the dealer) the last card; two kings were captured, the other 36
    cards are on the table."""
    return Position(variant, 4, 2, 3, "10D", "10C", hand_counts=(0, 0, 1, 1), captured="10S 10B")


#: Nothing hidden: the exact solver's worst cases, by variant.
KNOWN = {
    "scopa": kings("scopa"),
    "scopone": last_of_scopone("scopone"),
    "scopone_scientifico": last_of_scopone("scopone_scientifico"),
    "scopa_di_quindici": fifteen("scopa_di_quindici"),
    "escoba": fifteen("escoba"),
    "asso_piglia_tutto": kings("asso_piglia_tutto"),
    # aces on the table: the aces match them or make 15 (no sweep, C4.3)
    "cirulla": fifteen("cirulla"),
}


def one_deal_left(variant: str) -> Position:
    """:func:`kings` one deal earlier: the other seat's three cards and the six of the
    stock are hidden (28 cards on the table, aces to sevens)."""
    return kings(variant, hidden="10B 9D 9C 9S 9B 8D 8C 8S 8B")


def first_of_scopone(variant: str) -> Position:
    """Scopone's last round from its first seat: a king each, the other three hidden,
    36 cards on the table."""
    return Position(variant, 4, 0, 3, "10D", "10C 10S 10B", hand_counts=(1, 1, 1, 1))


def last_round_of_three(variant: str) -> Position:
    """Three players' last round from its first seat: an ace (it takes any set that
    makes 14) against two hidden kings; a king was captured, the other 36 cards (the
    most a request may put there) are on the table."""
    return Position(variant, 3, 0, 2, "1D", "10B 10C", hand_counts=(1, 1, 1), captured="10S")


#: Cards hidden: the Monte Carlo search's worst cases, by variant.
HIDDEN = {
    "scopa": one_deal_left("scopa"),
    "scopone": first_of_scopone("scopone"),
    "scopone_scientifico": first_of_scopone("scopone_scientifico"),
    "scopa_di_quindici": last_round_of_three("scopa_di_quindici"),
    "escoba": last_round_of_three("escoba"),
    "asso_piglia_tutto": one_deal_left("asso_piglia_tutto"),
    "cirulla": last_round_of_three("cirulla"),
}

CASES = [
    pytest.param(position, id=f"{kind}-{variant}")
    for kind, positions in (("known", KNOWN), ("hidden", HIDDEN))
    for variant, position in positions.items()
]


def code_of(move: dict[str, Any]) -> int:
    """The coded move of a move as the API writes it."""
    return move_code(Card.parse(move["card"]).index, mask_of(parse_cards(move["capture"])))


class TestTheWorstPositions:
    def test_every_variant_has_both(self) -> None:
        assert set(KNOWN) == set(HIDDEN) == set(VARIANTS)

    @pytest.mark.parametrize("position", CASES)
    def test_they_are_what_they_claim(self, position: Position) -> None:
        """Thousands of legal moves; nothing hidden in KNOWN (so the exact solver
        runs), cards hidden in HIDDEN (so the Monte Carlo search runs)."""
        knowledge = position.knowledge()
        assert len(position.legal()) > 1500
        assert is_determined(knowledge) == (position in KNOWN.values())


class TestDeadlines:
    @pytest.mark.parametrize("position", CASES)
    def test_a_hint_is_a_legal_move_in_bounded_time(
        self, client: FlaskClient, position: Position
    ) -> None:
        """With the service's settings: the expert's default budget, whose soft cap
        cuts in first, under the default hard deadline."""
        start = time.perf_counter()
        response = client.post("/v1/hint", json=position.body())
        elapsed = time.perf_counter() - start
        assert response.status_code == 200, response.get_json()
        hint = response.get_json()
        assert code_of(hint["move"]) in position.legal()
        assert isinstance(hint["value"], float)
        assert elapsed < 3 * DEADLINE_SECONDS + 0.5

    @pytest.mark.parametrize("position", CASES)
    def test_advice_stops_at_its_deadline(self, position: Position) -> None:
        """A budget no search could spend: the hard deadline alone stops it, and the
        move is still one of the legal moves."""
        knowledge = position.knowledge()
        legal = position.legal()  # before the clock starts: advise() makes them again
        start = time.perf_counter()
        advice = advise(knowledge, random.Random(1), HUGE_BUDGET_MS, deadline_seconds=DEADLINE)
        elapsed = time.perf_counter() - start
        assert advice.cut
        assert elapsed < BOUND
        assert advice.move in moves_of(legal)
        assert advice.value is not None
