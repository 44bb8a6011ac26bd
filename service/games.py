"""What the API does with a game, between the engine and the store: create a match,
find the seat a token belongs to, play a move. No Flask here."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .engine import Card, Event, Match, Move, Rules
from .store import GameStore, StoredGame


class UnauthorizedError(PermissionError):
    """The bearer token is missing or is not one of this game's seat tokens."""


class StaleVersionError(RuntimeError):
    """If-Match named a version that is not the game's current one."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


def hash_token(token: str) -> str:
    """Seat tokens are stored only as SHA-256 hashes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Game:
    """A stored game with its match decoded."""

    stored: StoredGame
    match: Match

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def version(self) -> int:
        return self.stored.version

    def seat_of(self, token: str | None) -> int:
        """The seat ``token`` belongs to; raises UnauthorizedError. Constant-time compares."""
        if not token:
            raise UnauthorizedError("no token")
        digest = hash_token(token)
        seat = None
        for index, stored_hash in enumerate(self.stored.state["tokens"]):
            if hmac.compare_digest(digest, stored_hash):
                seat = index
        if seat is None:
            raise UnauthorizedError("unknown token")
        return seat


def create_game(
    store: GameStore,
    *,
    variant: str,
    names: Sequence[str] | None,
    players: int | None,
    target: int | None,
    rules: Rules,
    seed: int | None,
    deck: Sequence[Card] | None,
    first_dealer: int | None,
) -> tuple[Game, list[str], list[Event]]:
    """Deal a new match and store it. Returns the game, each seat's token (shown once),
    and the events of the set-up."""
    match, events = Match.new(
        variant=variant,
        players=players,
        names=names,
        target=target,
        rules=rules,
        seed=seed,
        deck=deck,
        first_dealer=first_dealer,
    )
    tokens = [secrets.token_urlsafe(24) for _ in range(match.players)]
    state = {"match": match.to_dict(), "tokens": [hash_token(t) for t in tokens]}
    stored = store.create(state, events)
    return Game(stored, match), tokens, events


def load_game(store: GameStore, game_id: str) -> Game:
    stored = store.load(game_id)
    return Game(stored, Match.from_dict(stored.state["match"]))


def play_move(
    store: GameStore,
    game: Game,
    seat: int,
    card: Card,
    capture: Sequence[Card] | None,
    if_match: int | None = None,
) -> tuple[Game, Move, list[Event]]:
    """Check and apply ``seat``'s move, then store it by compare-and-set.

    Raises StaleVersionError when ``if_match`` is not the current version, the engine's
    errors for a move the rules refuse, and VersionConflictError when another write won.
    """
    if if_match is not None and if_match != game.version:
        raise StaleVersionError(game.version)
    move, events = game.match.play(seat, card, capture)
    state: dict[str, Any] = {**game.stored.state, "match": game.match.to_dict()}
    stored = store.save(StoredGame(game.id, game.version, state), events)
    return Game(stored, game.match), move, events
