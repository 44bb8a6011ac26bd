"""What the API does with a game, between the engine and the store: create a match,
find the seat a token belongs to, play a move, let the computer players move. No Flask
here."""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .bots import make_bot
from .engine import Card, Event, Match, Move, Rules
from .engine.match import moves_of
from .engine.views import knowledge_of
from .store import GameStore, StoredGame


class UnauthorizedError(PermissionError):
    """The bearer token is missing or is not one of this game's seat tokens."""


class StaleVersionError(RuntimeError):
    """If-Match named a version that is not the game's current one."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class NoBotToMoveError(RuntimeError):
    """The computer players were asked to move, but the seat to play is a person's."""


@dataclass(frozen=True)
class BotSettings:
    #: The computer players stop moving after this long in one request; the match is
    #: stored where it is, and ``POST /v1/games/{id}/bots`` lets them go on.
    time_limit_seconds: float = 20.0
    #: The expert's search budget per move.
    expert_budget_ms: float = 50.0


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

    @property
    def bots(self) -> list[str | None]:
        """Each seat's computer player level, or None for a person."""
        bots: list[str | None] = self.stored.state["bots"]
        return bots

    def seat_of(self, token: str | None) -> int:
        """The seat ``token`` belongs to; raises UnauthorizedError. Constant-time compares."""
        if not token:
            raise UnauthorizedError("no token")
        digest = hash_token(token)
        seat = None
        for index, stored_hash in enumerate(self.stored.state["tokens"]):
            if stored_hash is not None and hmac.compare_digest(digest, stored_hash):
                seat = index
        if seat is None:
            raise UnauthorizedError("unknown token")
        return seat

    @property
    def bot_to_move(self) -> bool:
        turn = self.match.turn
        return self.match.status == "playing" and turn is not None and bool(self.bots[turn])


def create_game(
    store: GameStore,
    *,
    variant: str,
    names: Sequence[str] | None,
    players: int | None,
    bots: Sequence[str | None] | None,
    target: int | None,
    rules: Rules,
    seed: int | None,
    deck: Sequence[Card] | None,
    first_dealer: int | None,
    settings: BotSettings,
) -> tuple[Game, list[str | None], list[Event]]:
    """Deal a new match, let the computer players move if it is their turn, and store it.
    Returns the game, each person's seat token (shown once; None for a computer seat),
    and the events of the computer players' moves."""
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
    levels = list(bots) if bots is not None else [None] * match.players
    tokens = [None if level else secrets.token_urlsafe(24) for level in levels]
    state = {
        "match": match.to_dict(),
        "tokens": [None if t is None else hash_token(t) for t in tokens],
        "bots": levels,
    }
    game = Game(StoredGame("", 0, state), match)
    bot_events = _bots_move(game, settings)
    state["match"] = match.to_dict()
    stored = store.create(state, events + bot_events)
    return Game(stored, match), tokens, bot_events


def load_game(store: GameStore, game_id: str) -> Game:
    stored = store.load(game_id)
    return Game(stored, Match.from_dict(stored.state["match"]))


def play_move(
    store: GameStore,
    game: Game,
    seat: int,
    card: Card,
    capture: Sequence[Card] | None,
    if_match: int | None,
    settings: BotSettings,
) -> tuple[Game, Move, list[Event]]:
    """Check and apply ``seat``'s move, let the computer players answer, then store it
    all by compare-and-set. Returns the game, the move, and the events (the move first).

    Raises StaleVersionError when ``if_match`` is not the current version, the engine's
    errors for a move the rules refuse, and VersionConflictError when another write won.
    """
    if if_match is not None and if_match != game.version:
        raise StaleVersionError(game.version)
    move, events = game.match.play(seat, card, capture)
    events += _bots_move(game, settings)
    return _save(store, game, events), move, events


def let_bots_move(store: GameStore, game: Game, settings: BotSettings) -> tuple[Game, list[Event]]:
    """Let the computer players move until a person is to play (or time runs out)."""
    if not game.bot_to_move:
        raise NoBotToMoveError(game.id)
    events = _bots_move(game, settings)
    return _save(store, game, events), events


def _save(store: GameStore, game: Game, events: list[Event]) -> Game:
    state: dict[str, Any] = {**game.stored.state, "match": game.match.to_dict()}
    stored = store.save(StoredGame(game.id, game.version, state), events)
    return Game(stored, game.match)


def _bots_move(game: Game, settings: BotSettings) -> list[Event]:
    """The computer players move while it is their turn, within the time limit."""
    match = game.match
    deadline = time.monotonic() + settings.time_limit_seconds
    events: list[Event] = []
    while game.bot_to_move and time.monotonic() < deadline:
        seat = match.turn
        assert seat is not None
        level = game.bots[seat]
        assert level is not None
        bot = make_bot(level, budget_ms=settings.expert_budget_ms)
        legal = match.hand.legal_codes()
        code = bot.choose(knowledge_of(match, seat), legal, _bot_rng(match))
        events += match.push(moves_of([code])[0])
    return events


def _bot_rng(match: Match) -> random.Random:
    """Reproducible for a seeded match (by seed, hand and cards left), else unpredictable."""
    if match.seed is None:
        return random.Random(secrets.randbits(64))
    left = sum(h.bit_count() for h in match.hand.hands) + len(match.hand.stock)
    return random.Random(f"scopa:{match.seed}:bot:{match.hand_number}:{left}")
