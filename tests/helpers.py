"""Helpers for the tests: a client that creates matches over HTTP and acts as their
seats (:class:`Table`), and positions set up by hand for the engine's tests."""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.engine import Card, Match, Rules
from service.engine.hand import Hand
from service.engine.masks import mask_of
from service.play.idempotency import unpack


def everything_stored(url: str) -> str:
    """Every string Redis holds (hash fields' values, lists, strings), kept answers
    inflated (:func:`service.play.idempotency.pack`): to look for what must never be
    stored as it is."""
    import redis

    found: list[str] = []
    with redis.Redis.from_url(url, decode_responses=True) as client:
        for key in client.keys("*"):
            kind = client.type(key)
            if kind == "hash":
                found += [unpack(value).decode() for value in client.hvals(key)]
            elif kind == "list":
                found += client.lrange(key, 0, -1)
            elif kind == "string":
                found.append(client.get(key) or "")
    return "\n".join(found)


class Table:
    """Creates matches over HTTP and plays them as their seats would."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.game_id = ""
        self.tokens: list[str] = []
        self.created: dict[str, Any] = {}

    def create(self, **body: Any) -> dict[str, Any]:
        response = self.client.post("/v1/games", json=body)
        assert response.status_code == 201, response.json
        self.created = response.get_json()
        self.game_id = self.created["id"]
        self.tokens = [seat["token"] for seat in self.created["seats"]]
        return self.created

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def url(self, suffix: str = "") -> str:
        return f"/v1/games/{self.game_id}{suffix}"

    def view(self, seat: int | None = None) -> dict[str, Any]:
        headers = self.auth(seat) if seat is not None else {}
        response = self.client.get(self.url(), headers=headers)
        assert response.status_code == 200, response.json
        return response.get_json()  # type: ignore[no-any-return]

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        response = self.client.get(self.url("/legal-moves"), headers=self.auth(seat))
        assert response.status_code == 200, response.json
        return response.get_json()["moves"]  # type: ignore[no-any-return]

    def move(
        self,
        seat: int,
        card: str,
        capture: list[str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> TestResponse:
        body: dict[str, Any] = {"card": card}
        if capture is not None:
            body["capture"] = capture
        return self.client.post(
            self.url("/moves"), json=body, headers={**self.auth(seat), **(headers or {})}
        )

    def play_to_end(self, rng: random.Random, max_moves: int = 5000) -> list[dict[str, Any]]:
        """Play random legal moves for whoever is on turn until the match ends.
        Returns every move response body, in order."""
        results = []
        turn = self.view()["turn"]
        for _ in range(max_moves):
            if turn is None:
                return results
            move = rng.choice(self.legal_moves(turn))
            response = self.move(turn, move["card"], move["capture"])
            assert response.status_code == 200, response.json
            body = response.get_json()
            results.append(body)
            turn = body["state"]["turn"]
        raise AssertionError("the match did not end")


def listed(codes: list[str]) -> list[str]:
    """Card codes in the order the API lists cards: by value, then suit D, C, S, B."""
    return sorted(codes, key=lambda code: (int(code[:-1]), "DCSB".index(code[-1])))


def cards(text: str) -> list[Card]:
    """``cards("2C 4C 6D")``: the cards of space-separated codes."""
    return [Card.parse(code) for code in text.split()]


def position(
    hands: list[str],
    table: str,
    *,
    variant: str = "scopa",
    stock: str = "",
    turn: int = 0,
    piles: list[str] | None = None,
    scopas: list[int] | None = None,
    last_capturer: int | None = None,
    scores: list[int] | None = None,
    rules: Rules | None = None,
    target: int | None = None,
) -> Match:
    """A match whose current hand is set by hand: ``hands[seat]``, ``table``, ``stock``
    (in dealing order) and ``piles[seat]`` are codes; the dealer is the last seat.

    The match is made with a seed (its later hands are dealt reproducibly); the piles,
    scopas and last capturer start empty unless given, the scores at 0 unless given."""
    players = len(hands)
    match, _ = Match.new(
        variant=variant,
        players=players,
        rules=rules or Rules(),
        target=target,
        seed=0,
        first_dealer=players - 1,
    )
    match.hand = Hand(
        match.variant,
        match.rules,
        hands=[mask_of(cards(hand)) for hand in hands],
        table=mask_of(cards(table)),
        stock=[card.index for card in cards(stock)],
        dealer=match.dealer,
        turn=turn,
        piles=None if piles is None else [mask_of(cards(pile)) for pile in piles],
        scopas=scopas,
        last_capturer=last_capturer,
    )
    if scores is not None:
        match.scores = list(scores)
    return match


def set_cards(
    match: Match,
    *,
    hands: list[str] | None = None,
    table: str | None = None,
    stock: str | None = None,
) -> None:
    """Give the current hand of ``match`` other cards (codes, as for :func:`position`):
    the hands, the table or the stock given; the rest of the hand (dealer, turn, piles,
    scopas, last capturer) as it was."""
    hand = match.hand
    match.hand = Hand(
        hand.variant,
        hand.rules,
        hands=hand.hands if hands is None else [mask_of(cards(h)) for h in hands],
        table=hand.table if table is None else mask_of(cards(table)),
        stock=hand.stock if stock is None else [card.index for card in cards(stock)],
        dealer=hand.dealer,
        turn=hand.turn,
        piles=hand.piles,
        scopas=hand.scopas,
        last_capturer=hand.last_capturer,
        hand_size=hand.hand_size,
    )


#: R3, R10: cards dealt to each seat and to the table when a hand starts, by variant.
DEAL_SHAPE = {
    "scopa": (3, 4),
    "scopone": (9, 4),
    "scopone_scientifico": (10, 0),
    "scopa_di_quindici": (3, 4),
    "escoba": (3, 4),
    "asso_piglia_tutto": (3, 4),
}


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The events of type ``kind``."""
    return [event for event in events if event["type"] == kind]


def random_turn(match: Match, rng: random.Random) -> list[dict[str, Any]]:
    """The seat to play makes a random legal move; in Cirulla, when it may declare, it
    first declares half the time (any legal declaration). Returns the events."""
    events: list[dict[str, Any]] = []
    offered = match.legal_declarations()
    if offered and match.turn is not None and rng.random() < 0.5:
        chosen = rng.choice(offered)
        events += match.declare(match.turn, chosen.kind, chosen.matta_as)
    return events + match.push(rng.choice(match.legal_moves()))


def play_randomly_until(match: Match, rng: random.Random, stop: str) -> list[dict[str, Any]]:
    """Play random legal moves until an event of type ``stop``; return every event."""
    seen: list[dict[str, Any]] = []
    while True:
        events = match.push(rng.choice(match.legal_moves()))
        seen.extend(events)
        if of_type(events, stop):
            return seen
