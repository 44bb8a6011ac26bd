"""What the API does with a game, between the engine and the store: create a match,
find the seat a token belongs to, play a move, let the computer players move. No Flask
here."""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Callable, Sequence
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


def creation_id(key: str) -> str:
    """The id of the game created with Idempotency-Key ``key``: only its creator can know it."""
    digest = hashlib.sha256(f"scopa:create\n{key}".encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def derived_token(key: str, nonce: str, seat: int) -> str:
    """A seat token for a creation with Idempotency-Key ``key``, so that a retry can be
    answered with the same tokens while only their hashes are stored: an HMAC under the
    client's key of a 128-bit random nonce kept with the game."""
    mac = hmac.new(key.encode(), f"{nonce}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode()


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
    key: str | None = None,
    remember: Callable[[Game, list[str | None], list[Event]], dict[str, Any]] | None = None,
) -> tuple[Game, list[str | None], list[Event]]:
    """Deal a new match, let the computer players move if it is their turn, and store it.
    Returns the game, each person's seat token (shown once; None for a computer seat),
    and the events of the computer players' moves.

    With an Idempotency-Key ``key``, the game gets the id :func:`creation_id` gives and
    tokens :func:`derived_token` makes (VersionConflictError if that game exists), and
    what ``remember`` returns is stored with it under ``"created"``, for replays."""
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
    nonce = secrets.token_hex(16)
    tokens = [
        None if level else derived_token(key, nonce, seat) if key else secrets.token_urlsafe(24)
        for seat, level in enumerate(levels)
    ]
    state: dict[str, Any] = {
        "match": match.to_dict(),
        "tokens": [None if t is None else hash_token(t) for t in tokens],
        "bots": levels,
    }
    game_id = creation_id(key) if key else None
    game = Game(StoredGame(game_id or "", 1, state), match)
    bot_events = _bots_move(game, settings)
    state["match"] = match.to_dict()
    if key:
        state["nonce"] = nonce
    if remember is not None:
        state["created"] = remember(game, tokens, bot_events)
    stored = store.create(state, events + bot_events, game_id)
    return Game(stored, match), tokens, bot_events


def replay_creation(store: GameStore, key: str) -> tuple[Game, list[str | None]]:
    """The game created earlier with Idempotency-Key ``key``, and its seats' tokens;
    GameNotFoundError if there is none."""
    game = load_game(store, creation_id(key))
    nonce = game.stored.state["nonce"]
    tokens = [
        None if level else derived_token(key, nonce, seat) for seat, level in enumerate(game.bots)
    ]
    return game, tokens


def load_game(store: GameStore, game_id: str) -> Game:
    stored = store.load(game_id)
    return Game(stored, Match.from_dict(stored.state["match"]))


#: Builds a record to store with a move (key, value), from the game as it will be.
RecordMaker = Callable[[Game, Move, list[Event]], tuple[str, str]]


def play_move(
    store: GameStore,
    game: Game,
    seat: int,
    card: Card,
    capture: Sequence[Card] | None,
    if_match: int | None,
    settings: BotSettings,
    record: RecordMaker | None = None,
) -> tuple[Game, Move, list[Event]]:
    """Check and apply ``seat``'s move, let the computer players answer, then store it
    all by compare-and-set, with the record ``record`` makes if given. Returns the game,
    the move, and the events (the move first).

    Raises StaleVersionError when ``if_match`` is not the current version, the engine's
    errors for a move the rules refuse, and VersionConflictError when another write won.
    """
    if if_match is not None and if_match != game.version:
        raise StaleVersionError(game.version)
    move, events = game.match.play(seat, card, capture)
    events += _bots_move(game, settings)
    after = Game(StoredGame(game.id, game.version + 1, game.stored.state), game.match)
    made = record(after, move, events) if record is not None else None
    return _save(store, game, events, made), move, events


def let_bots_move(store: GameStore, game: Game, settings: BotSettings) -> tuple[Game, list[Event]]:
    """Let the computer players move until a person is to play (or time runs out)."""
    if not game.bot_to_move:
        raise NoBotToMoveError(game.id)
    events = _bots_move(game, settings)
    return _save(store, game, events), events


def _save(
    store: GameStore, game: Game, events: list[Event], record: tuple[str, str] | None = None
) -> Game:
    state: dict[str, Any] = {**game.stored.state, "match": game.match.to_dict()}
    stored = store.save(StoredGame(game.id, game.version, state), events, record)
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
