"""The changes a game goes through, as pure steps: each takes a game (or a creation's
setup) and returns the game as it will be stored and the events that happened, with no
I/O. The HTTP layer builds its answer from a step, and :meth:`GameStore.commit` stores
it: that is the one place a change to a game is committed.

A step plays on the match of the game it is given: that game is spent, and only the
step's game is current.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..bots import make_bot
from ..engine import Card, Event, Match, Rules
from ..engine.match import moves_of
from ..engine.views import knowledge_of
from .game import Game, hash_token


class StaleVersionError(RuntimeError):
    """If-Match named a version that is not the game's current one."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class NoBotToMoveError(RuntimeError):
    """The computer players were asked to move, but the seat to play is a person's, or
    the match is over."""


@dataclass(frozen=True)
class BotSettings:
    #: The computer players stop moving after this long in one step (the allowance of a
    #: request); the match is stored where it is, and a background worker goes on
    #: (service/play/background.py).
    time_limit_seconds: float = 0.3
    #: The expert's search budget per move.
    expert_budget_ms: float = 50.0


@dataclass(frozen=True)
class Setup:
    """What a creation asks for (see ``Match.new`` for the meaning of each field)."""

    variant: str = "scopa"
    names: Sequence[str] | None = None
    players: int | None = None
    #: Each seat's computer player level, or None for a person (default: all people).
    bots: Sequence[str | None] | None = None
    target: int | None = None
    rules: Rules = Rules()
    seed: int | None = None
    deck: Sequence[Card] | None = None
    first_dealer: int | None = None


@dataclass(frozen=True)
class Step:
    """A game after a change, and the events of the change in order."""

    game: Game
    events: list[Event]

    @property
    def version(self) -> int:
        return self.game.version


@dataclass(frozen=True)
class Creation(Step):
    """A new game, with each seat's token (None for a computer player): the only time
    the tokens are known, since only their hashes are stored."""

    tokens: list[str | None]
    #: How many of the events are the match's opening (its start, the deals); the
    #: computer players' moves, if they play first, follow them.
    opening: int

    @property
    def bot_events(self) -> list[Event]:
        return self.events[self.opening :]


def create(setup: Setup, settings: BotSettings, game_id: str | None = None) -> Creation:
    """Deal a new match and let the computer players move if it is their turn. The game
    gets ``game_id`` (default: a new one, :func:`new_game_id`) and a random token for
    each person's seat."""
    match, events = Match.new(
        variant=setup.variant,
        players=setup.players,
        names=setup.names,
        target=setup.target,
        rules=setup.rules,
        seed=setup.seed,
        deck=setup.deck,
        first_dealer=setup.first_dealer,
    )
    levels = tuple(setup.bots) if setup.bots is not None else (None,) * match.players
    tokens = [None if level else new_token() for level in levels]
    game = Game(
        id=game_id or new_game_id(),
        version=1,
        match=match,
        bots=levels,
        token_hashes=tuple(None if t is None else hash_token(t) for t in tokens),
    )
    opening = len(events)
    events += _bots_move(game, settings)
    return Creation(game, events, tokens, opening)


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """128 random bits, URL-safe: ids are not guessable nor enumerable."""
    return secrets.token_urlsafe(16)


def move(
    game: Game,
    seat: int,
    card: Card,
    capture: Sequence[Card] | None,
    settings: BotSettings,
    *,
    if_match: Collection[int] | None = None,
) -> Step:
    """``seat`` plays ``card`` taking ``capture``; then the computer players answer.
    The first event is the move.

    Raises StaleVersionError when the game's version is not one of ``if_match`` (None:
    any), and the engine's errors for a move the rules refuse."""
    if if_match is not None and game.version not in if_match:
        raise StaleVersionError(game.version)
    _, events = game.match.play(seat, card, capture)
    events += _bots_move(game, settings)
    return Step(game.next_version(), events)


def bots_move(game: Game, settings: BotSettings, *, most: int | None = None) -> Step:
    """The computer players move: one move at least, then on while it is their turn,
    within the time limit, ``most`` moves at the most."""
    if not game.bot_to_move:
        raise NoBotToMoveError(game.id)
    return Step(game.next_version(), _bots_move(game, settings, least=1, most=most))


def _bots_move(
    game: Game, settings: BotSettings, *, least: int = 0, most: int | None = None
) -> list[Event]:
    """The computer players move while it is their turn, within the time limit (``least``
    moves whatever the time, ``most`` at the most)."""
    match = game.match
    deadline = time.monotonic() + settings.time_limit_seconds
    events: list[Event] = []
    played = 0
    while game.bot_to_move and (played < least or time.monotonic() < deadline):
        if most is not None and played >= most:
            break
        played += 1
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

