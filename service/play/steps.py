"""The changes a game goes through, as pure steps: each takes a game (or a creation's
setup) and returns the game as it will be stored and the events that happened, with no
I/O. The HTTP layer builds its answer from a step, and :meth:`GameStore.commit` stores
it: that is the one place a change to a game is committed.

A step plays on the match of the game it is given: that game is spent, and only the
step's game is current.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..bots import DEFAULT_BUDGET_MS, make_bot
from ..bots.declaring import choose_declaration
from ..engine import Card, Event, EventKind, Match, Rules, Status, parse_cards
from ..engine.cards import codes
from ..engine.match import moves_of
from ..engine.moves import DeclarationKind
from ..engine.views import knowledge_of
from .game import Game, Lobby, hash_token

#: The turn clock's range, in seconds a move.
MIN_CLOCK_SECONDS = 5
MAX_CLOCK_SECONDS = 3600


class StaleVersionError(RuntimeError):
    """If-Match named a version that is not the game's current one."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class NoBotToMoveError(RuntimeError):
    """The computer players were asked to move, but the seat to play is a person's, or
    the match is over."""


class NoOpenSeatError(RuntimeError):
    """A person asked to join, but no seat is open (or not the one asked for), or the
    match has started."""


class WrongJoinCodeError(PermissionError):
    """The join code is not the game's."""


class NotTheHostError(PermissionError):
    """Only the seat of whoever created the game may do this."""


class MatchStartedError(RuntimeError):
    """A seat can leave only before the match starts."""


class MatchNotOverError(RuntimeError):
    """A rematch was asked for while the match is still being played."""


class BotMatchTooLongError(ValueError):
    """A match of computer players only, to a target over the service's cap (they play
    on a background worker's time, which the cap bounds)."""

    def __init__(self, target: int, most: int) -> None:
        super().__init__(
            f"A match of computer players only may be played to {most} points at most "
            f"(this service's cap, which bounds the background work one match costs); "
            f"this one is to {target}. Ask for a target of {most} or less, or give a "
            "seat to a person."
        )
        self.target = target
        self.most = most


@dataclass(frozen=True)
class BotSettings:
    #: The computer players stop moving after this long in one step (the allowance of a
    #: request); the match is stored where it is, and a background worker goes on
    #: (service/play/background.py).
    time_limit_seconds: float = 0.3
    #: The expert's search budget per move.
    expert_budget_ms: float = DEFAULT_BUDGET_MS


@dataclass(frozen=True)
class Setup:
    """What a creation asks for (see ``Match.new`` for the meaning of each field)."""

    variant: str = "scopa"
    #: Each seat's name, None for a seat left open for someone to join.
    names: Sequence[str | None] | None = None
    players: int | None = None
    #: Each seat's computer player level, or None for a person (default: all people).
    bots: Sequence[str | None] | None = None
    target: int | None = None
    rules: Rules = Rules()
    seed: int | None = None
    deck: Sequence[Card] | None = None
    first_dealer: int | None = None
    #: False: every view of the game needs a seat's token.
    spectators: bool = True
    #: Seconds a person has for each move (None: no clock).
    clock: int | None = None

    @property
    def open_seats(self) -> list[int]:
        return [seat for seat, name in enumerate(self.names or ()) if name is None]

    def start(self, names: Sequence[str] | None = None) -> tuple[Match, list[Event]]:
        """Set the match up and deal its first hand, the seats named ``names`` (default:
        this setup's)."""
        return Match.new(
            variant=self.variant,
            players=self.players,
            names=names if names is not None else self._names(),
            target=self.target,
            rules=self.rules,
            seed=self.seed,
            deck=self.deck,
            first_dealer=self.first_dealer,
        )

    def _names(self) -> list[str] | None:
        if self.names is None:
            return None
        return [f"Seat {seat + 1}" if n is None else n for seat, n in enumerate(self.names)]

    def to_dict(self) -> dict[str, Any]:
        """What a lobby keeps to start the match later (the names apart)."""
        return {
            "variant": self.variant,
            "players": self.players,
            "target": self.target,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deck": None if self.deck is None else codes(self.deck),
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], names: Sequence[str | None]) -> Setup:
        return cls(
            variant=data["variant"],
            names=names,
            players=data["players"],
            target=data["target"],
            rules=Rules.from_dict(data["rules"]),
            seed=data["seed"],
            deck=None if data["deck"] is None else parse_cards(data["deck"]),
            first_dealer=data["first_dealer"],
        )


@dataclass(frozen=True)
class Step:
    """A game after a change, and the events of the change in order."""

    game: Game
    events: list[Event]
    #: The turn deadline of the game before the step, which the step's game replaces
    #: when it differs (the clock's job for it is then void: service/play/queues.py).
    replaced_deadline: float | None = field(default=None, kw_only=True)
    #: The seats whose token the step voided, with its hash (a person who left): their
    #: streams end (service/play/relay.py).
    revoked: tuple[tuple[int, str], ...] = field(default=(), kw_only=True)

    @property
    def version(self) -> int:
        return self.game.version

    @property
    def first_seq(self) -> int:
        """The position of the step's first event in the game's log."""
        return self.game.logged - len(self.events)


@dataclass(frozen=True)
class Creation(Step):
    """A new game, with each seat's token (None for a computer player): the only time
    the tokens are known, since only their hashes are stored."""

    tokens: list[str | None]
    #: How many of the events are the match's opening (its start, the deals); the
    #: computer players' moves, if they play first, follow them.
    opening: int
    #: The code that lets people take the open seats; None when there is none.
    join_code: str | None = None

    @property
    def bot_events(self) -> list[Event]:
        return self.events[self.opening :]


@dataclass(frozen=True)
class Joining(Step):
    """A person took a seat: the seat and its token (known only now)."""

    seat: int
    token: str


def create(
    setup: Setup,
    settings: BotSettings,
    game_id: str | None = None,
    *,
    tokens: Sequence[str | None] | None = None,
    previous: str | None = None,
    series: tuple[int, ...] = (),
    secret: bytes = b"",
    payer: str | None = None,
    owner: str | None = None,
    player_ids: Sequence[str | None] = (),
    metadata: dict[str, str] | None = None,
    start_at: float | None = None,
    bot_only_max_target: int = 0,
    rated: bool = False,
    tournament: str | None = None,
) -> Creation:
    """A new game: its match dealt and the computer players moving if it is their turn;
    or, with open seats, the game waiting in its lobby with a join code, nothing dealt.
    It gets ``game_id`` (default: a new one, :func:`new_game_id`) and each person's
    ``tokens`` (default: random ones, :func:`new_token`). The join code is made from
    ``secret``, the server's (:func:`join_code`). ``payer`` pays for its background
    play (:attr:`Game.payer`); ``owner``, the service key creating it (:attr:`Game.owner`),
    with each seat's ``player_ids`` and the game's ``metadata``. A match to start at
    ``start_at`` (a UNIX time) is dealt now, but nobody moves before then, computer
    players included, and the first turn's clock starts then. A match of computer
    players only may be played to ``bot_only_max_target`` points at most (0: to its
    variant's default target at most); raises BotMatchTooLongError. A ``rated`` game
    moves its players' ratings when it finishes: every seat needs a player id. A
    ``tournament``'s game is one of its rounds' (service/play/tournaments/)."""
    match, events = setup.start()  # with open seats, only to check that it can start
    levels = tuple(setup.bots) if setup.bots is not None else (None,) * match.players
    open_seats = setup.open_seats
    if all(levels) and not open_seats:
        _check_bot_match(match, bot_only_max_target)
    if tokens is None:
        tokens = _new_tokens(levels, open_seats)
    game_id = game_id or new_game_id()
    code = lobby = host = None
    if open_seats:  # nothing is dealt until every seat is taken
        lobby, code, host = _lobby(setup, match, game_id, tokens, secret)
        events = []
    game = Game(
        id=game_id,
        version=1,
        match=None if lobby else match,
        bots=levels,
        token_hashes=tuple(None if t is None else hash_token(t) for t in tokens),
        lobby=lobby,
        spectators=setup.spectators,
        previous=previous,
        series=series,
        clock=setup.clock,
        host=host,
        payer=payer,
        owner=owner,
        player_ids=tuple(player_ids) if any(player_ids) else (),
        metadata=dict(metadata or {}),
        created_at=time.time(),
        start_at=start_at,
        rated=rated,
        tournament=tournament,
    )
    opening = len(events)
    now = time.time()
    later = start_at is not None and start_at > now
    if not later:
        events += _bots_move(game, settings)
    clock_from = start_at if later and start_at is not None else now
    game = replace(_on_the_clock(game, clock_from), logged=len(events))
    return Creation(game, events, list(tokens), opening, code)


def _check_bot_match(match: Match, bot_only_max_target: int) -> None:
    """A match of computer players only is played to ``bot_only_max_target`` points at
    most (0: its variant's default target); BotMatchTooLongError if not."""
    most = bot_only_max_target or match.variant.default_target
    if match.target > most:
        raise BotMatchTooLongError(match.target, most)


def _new_tokens(levels: Sequence[str | None], open_seats: Sequence[int]) -> list[str | None]:
    """A new token for each person's seat; none for a computer player's, or an open one."""
    return [
        None if level or seat in open_seats else new_token() for seat, level in enumerate(levels)
    ]


def _lobby(
    setup: Setup, match: Match, game_id: str, tokens: Sequence[str | None], secret: bytes
) -> tuple[Lobby, str, int | None]:
    """A game with open seats waits in its lobby: the lobby (the match's plan, the names
    given), its join code, and its host (the first seat with a token)."""
    assert secret, "a join code is made with the server's secret"
    plan = replace(setup, target=match.target, names=None).to_dict()
    host = next((seat for seat, token in enumerate(tokens) if token is not None), None)
    return Lobby(plan, tuple(setup.names or ())), join_code(secret, game_id), host


def join(
    game: Game,
    name: str,
    code: str,
    secret: bytes,
    settings: BotSettings,
    *,
    seat: int | None = None,
) -> Joining:
    """A person named ``name`` takes an open seat (``seat``, or the first open one) with
    the game's join ``code``. When it was the last open seat, the match starts: it is
    dealt, and the computer players move if it is their turn."""
    check_join_code(game, code, secret)
    game.check_live()
    lobby = game.lobby
    if lobby is None:
        raise NoOpenSeatError("the match has started: every seat is taken")
    open_seats = lobby.open_seats
    if not open_seats:
        raise NoOpenSeatError("every seat is taken")
    if seat is None:
        seat = open_seats[0]
    elif seat not in open_seats:
        raise NoOpenSeatError(f"seat {seat} is not open")
    token = new_token()
    names = list(lobby.names)
    names[seat] = name
    hashes = list(game.token_hashes)
    hashes[seat] = hash_token(token)
    events: list[Event] = [{"type": EventKind.SEAT_JOINED, "seat": seat, "name": name}]
    joined = replace(game, token_hashes=tuple(hashes), lobby=replace(lobby, names=tuple(names)))
    if None not in names:  # the last open seat: the match starts
        match, opening = Setup.from_dict(lobby.setup, names).start()
        joined = replace(joined, match=match, lobby=None)
        events += opening
        events += _bots_move(joined, settings)
    return Joining(_on_the_clock(_next(joined, events), time.time()), events, seat, token)


def check_join_code(game: Game, code: str, secret: bytes) -> None:
    """Raise WrongJoinCodeError unless ``code``, as a person typed it, is the game's."""
    typed = read_join_code(code).encode("utf-8", "surrogatepass")
    if not hmac.compare_digest(typed, join_code(secret, game.id, game.join_generation).encode()):
        raise WrongJoinCodeError(game.id)


def rotate_join_code(game: Game, seat: int, secret: bytes) -> tuple[Step, str]:
    """A new join code for the game waiting for people, asked for by ``seat``, which
    must be its creator's (:attr:`Game.host`): the code given out before no longer lets
    anyone join. The step and the new code."""
    game.check_live()
    if game.lobby is None:
        raise NoOpenSeatError("the match has started: every seat is taken")
    if game.host is None or seat != game.host:
        raise NotTheHostError(game.id)
    rotated = replace(_next(game, []), join_generation=game.join_generation + 1)
    return Step(rotated, []), join_code(secret, game.id, rotated.join_generation)


def leave(game: Game, seat: int) -> Step:
    """``seat`` leaves before the match starts: it is open again, its token void, its
    player id gone with it."""
    game.check_live()
    lobby = game.lobby
    if lobby is None:
        raise MatchStartedError(game.id)
    names = list(lobby.names)
    names[seat] = None
    hashes = list(game.token_hashes)
    voided = hashes[seat]
    hashes[seat] = None
    events: list[Event] = [{"type": EventKind.SEAT_LEFT, "seat": seat}]
    players = list(game.player_ids)
    if seat < len(players):  # its player id leaves with its holder
        players[seat] = None
    left = replace(
        _next(game, events),
        token_hashes=tuple(hashes),
        lobby=replace(lobby, names=tuple(names)),
        player_ids=tuple(players) if any(players) else (),
    )
    return Step(left, events, revoked=() if voided is None else ((seat, voided),))


class AlreadyOverError(RuntimeError):
    """An abort asked for a game that is finished or aborted already."""

    def __init__(self, status: Status) -> None:
        super().__init__(f"the game is {status} already")
        self.status = status


def abort(game: Game, reason: str) -> Step:
    """The game stopped by its owner with ``reason``: status aborted, no winner, its
    clock stopped (its job void), no computer player moves in it again; one event,
    ``aborted``, with the reason. AlreadyOverError if it is finished or aborted."""
    if game.status in (Status.FINISHED, Status.ABORTED):
        raise AlreadyOverError(game.status)
    events: list[Event] = [{"type": EventKind.ABORTED, "reason": reason}]
    stopped = replace(_next(game, events), aborted=reason, deadline=None)
    return Step(stopped, events, replaced_deadline=game.deadline)


def link_rematch(game: Game, next_id: str) -> Step:
    """The finished ``game`` pointing to its rematch, ``next_id``, with an event saying so."""
    if game.playing.status is not Status.FINISHED:
        raise MatchNotOverError(game.id)
    events: list[Event] = [{"type": EventKind.REMATCH, "game": next_id}]
    return Step(replace(_next(game, events), next=next_id), events)


def rematch(
    game: Game, secret: bytes, settings: BotSettings, *, payer: str | None = None
) -> Creation:
    """The match after the finished ``game`` (which :func:`link_rematch` linked to it):
    the same seats, variant, target and rules, the deal passing to the next seat. Each
    person's token is :func:`rematch_token`, so any seat can ask for it later. ``payer``
    (the seat that asked) pays for its background play; the game's owner owns it too."""
    match = game.playing
    if match.status is not Status.FINISHED or game.next is None:
        raise MatchNotOverError(game.id)
    setup = Setup(
        variant=match.variant.name,
        names=match.names,
        bots=game.bots,
        target=match.target,
        rules=match.rules,
        first_dealer=(match.dealer + 1) % match.players,
        spectators=game.spectators,
        clock=game.clock,
    )
    tokens = [
        None if old is None else rematch_token(secret, game.next, seat, old)
        for seat, old in enumerate(game.token_hashes)
    ]
    return create(
        setup,
        settings,
        game.next,
        tokens=tokens,
        previous=game.id,
        series=series_after(game),
        secret=secret,
        payer=payer,
        owner=game.owner,  # a key's game's rematch is the key's too, its seats the same
        player_ids=game.player_ids,
        metadata=game.metadata,
        rated=game.rated,  # a rated game's rematch is rated too: the same players
    )


def series_after(game: Game) -> tuple[int, ...]:
    """The wins of each team in ``game``'s series once it is over: those before it, and
    its own winner's. A rematch keeps every seat, so a team is the same seats in each."""
    match = game.playing
    wins = list(game.series) or [0] * match.team_count
    if match.winner is not None and game.aborted is None:
        wins[match.winner] += 1
    return tuple(wins)


def rematch_token(secret: bytes, game_id: str, seat: int, previous_hash: str) -> str:
    """A seat's token for the rematch ``game_id``, from the hash of its token for the
    match before and the server's secret: the seat gets it by asking with that token,
    and nobody without the secret can work it out."""
    message = f"rematch\n{game_id}\n{seat}\n{previous_hash}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()[:24]
    return base64.urlsafe_b64encode(digest).decode()


def tournament_token(secret: bytes, game_id: str, seat: int) -> str:
    """A seat's token in a tournament's game, from the server's secret: the game's key
    reads it in the tournament (``GET /v1/tournaments/{id}``) whichever process made the
    game, and nobody without the secret can work it out."""
    message = f"tournament\n{game_id}\n{seat}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()[:24]
    return base64.urlsafe_b64encode(digest).decode()


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


#: Join codes are written in Crockford's base 32: digits and capitals but I, L, O and U.
_JOIN_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: What a person may type for a code's characters: lower case, I or L for 1, O for 0.
_JOIN_READING = str.maketrans("ILO", "110", " -")


def read_join_code(typed: str) -> str:
    """A join code as a person typed it, in the form :func:`join_code` makes."""
    return typed.upper().translate(_JOIN_READING)


def join_code(secret: bytes, game_id: str, generation: int = 0) -> str:
    """A game's join code: 10 characters a person can read out and type (50 bits), an
    HMAC of the game id (and of how many times its code was rotated, ``generation``)
    under the server's secret, so that it need not be stored and nobody without the
    secret can make one. (A new ``SERVER_SECRET`` voids the codes of the games waiting
    for people; a rotation, the game's code before.)"""
    message = f"join\n{game_id}" + (f"\n{generation}" if generation else "")
    digest = hmac.new(secret, message.encode(), hashlib.sha256).digest()
    number = int.from_bytes(digest[:8], "big")
    return "".join(_JOIN_ALPHABET[(number >> (5 * i)) % 32] for i in range(10))


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
    game.check_live(time.time())
    if if_match is not None and game.version not in if_match:
        raise StaleVersionError(game.version)
    _, events = game.playing.play(seat, card, capture)
    events += _bots_move(game, settings)
    return Step(
        _on_the_clock(_next(game, events), time.time()), events, replaced_deadline=game.deadline
    )


def declare(
    game: Game,
    seat: int,
    kind: DeclarationKind,
    matta_as: int | None,
    *,
    if_match: Collection[int] | None = None,
) -> Step:
    """``seat`` declares its three cards (Cirulla, docs/rules.md C3). Its turn goes on:
    nobody else moves, and its clock keeps running from when its turn began. The one
    event is the declaration.

    Raises StaleVersionError when the game's version is not one of ``if_match`` (None:
    any), and the engine's errors for a declaration the rules refuse."""
    game.check_live(time.time())
    if if_match is not None and game.version not in if_match:
        raise StaleVersionError(game.version)
    events = game.playing.declare(seat, kind, matta_as)
    return Step(_next(game, events), events, replaced_deadline=game.deadline)


def bots_move(
    game: Game, settings: BotSettings, *, most: int | None = None, now: float | None = None
) -> Step:
    """The moves that are due: the computer players' (one move at least, then on while
    it is their turn, within the time limit, ``most`` moves at the most); or, when the
    person to play let their time run out, the move played for them."""
    now = time.time() if now is None else now
    game.check_live(now)
    if game.overdue(now):
        return _play_for_the_clock(game, settings, now)
    if not game.bot_to_move:
        raise NoBotToMoveError(game.id)
    events = _bots_move(game, settings, least=1, most=most)
    return Step(_on_the_clock(_next(game, events), now), events, replaced_deadline=game.deadline)


def _play_for_the_clock(game: Game, settings: BotSettings, now: float) -> Step:
    """The person to play let their time run out (docs/rules.md R12.20): the greedy
    player's move is played for them, the least harmful one, its event marked
    ``"timeout": true``; then the computer players answer, if it is their turn."""
    match = game.playing
    seat = match.turn
    assert seat is not None, "a turn that runs out is somebody's"
    legal = match.hand.legal_codes()
    code = make_bot("greedy").choose(knowledge_of(match, seat), legal, _bot_rng(match))
    move, *after = match.push(moves_of([code])[0])
    events = [{**move, "timeout": True}, *after]
    events += _bots_move(game, settings)
    return Step(_on_the_clock(_next(game, events), now), events, replaced_deadline=game.deadline)


def _next(game: Game, events: list[Event]) -> Game:
    """``game`` as the write that logs ``events`` stores it: the next version, its log
    longer by as many events."""
    return replace(game.next_version(), logged=game.logged + len(events))


def _on_the_clock(game: Game, now: float) -> Game:
    """``game`` with the clock of whoever is to play now started at ``now``: a person
    to play in a match with a clock has until ``now + clock``; no other clock runs."""
    match = game.match
    running = (
        game.clock is not None
        and match is not None
        and match.status is Status.PLAYING
        and match.turn is not None
        and not game.bots[match.turn]
    )
    deadline = now + game.clock if running and game.clock is not None else None
    return game if deadline == game.deadline else replace(game, deadline=deadline)


def _bots_move(
    game: Game, settings: BotSettings, *, least: int = 0, most: int | None = None
) -> list[Event]:
    """The computer players move while it is their turn, within the time limit (``least``
    moves whatever the time, ``most`` at the most)."""
    if not game.bot_to_move:
        return []
    match = game.playing
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
        rng = _bot_rng(match)
        declared = choose_declaration(level, match.legal_declarations(), rng)
        if declared is not None:  # (Cirulla, C3: the turn goes on)
            events += match.declare(seat, declared.kind, declared.matta_as)
        legal = match.hand.legal_codes()
        code = bot.choose(knowledge_of(match, seat), legal, rng)
        events += match.push(moves_of([code])[0])
    return events


def _bot_rng(match: Match) -> random.Random:
    """Reproducible for a seeded match (by seed, hand and cards left), else unpredictable."""
    if match.seed is None:
        return random.Random(secrets.randbits(64))
    left = sum(h.bit_count() for h in match.hand.hands) + len(match.hand.stock)
    return random.Random(f"scopa:{match.seed}:bot:{match.hand_number}:{left}")
