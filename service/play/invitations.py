"""A game's invitation found by its join code alone (``GET /v1/invitations/{code}``): the
room code a person types on the home screen, with no game id.

A join code is not stored (it is an HMAC of the game id: :func:`.steps.join_code`), so
an index leads from it to its game: one string key a code, :func:`.keys.invitation`,
named by a keyed hash of the code (:func:`index_name`: a look at Redis shows no code)
and holding the game id. The commit of a game waiting for people writes it
(:func:`changes`, applied by :meth:`.store.GameStore.commit` once the game is stored),
with the game's TTL, at every commit of the game while it waits; a rotation drops the
code before; the join that starts the match, or an abort, drops it; and a deleted game's
is deleted with it. On a Redis Cluster the key is in a slot of its own: it is written
right after the game's commit, not in the same script. So the index is a hint: a code
found there is checked against its game as a join checks it (:func:`find`), and an entry
left behind (a process that stopped between the two writes) finds nothing.

Whatever fails, the code mistyped, malformed (wrong length, characters no code has),
rotated, or its game started, gone or another key's, the caller learns one thing:
:class:`InvitationNotFoundError`. A malformed code goes the way an unknown one goes (read
as a person typed it, hashed, looked up, not found), so neither answers sooner."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Protocol

from .game import Game
from .steps import Joining, Step, WrongJoinCodeError, check_join_code, join_code, read_join_code


class InvitationNotFoundError(LookupError):
    """No game waiting for people has this join code (or, with a service key, none of
    the key's own games)."""


@dataclass(frozen=True)
class Invitation:
    """What a commit changes in the index: the code's entry to write (its name,
    :func:`index_name`), and those to delete."""

    keep: str | None = None
    drop: tuple[str, ...] = ()


def index_name(secret: bytes, typed: str) -> str:
    """The name of the index entry of a join code, as a person typed it (lower case,
    spaces and dashes allowed: :func:`.steps.read_join_code`): a keyed hash of the code
    under the server's secret (128 bits, hex)."""
    code = read_join_code(typed).encode("utf-8", "surrogatepass")
    return hmac.new(secret, b"invitation\n" + code, hashlib.sha256).hexdigest()[:32]


def waiting(game: Game) -> bool:
    """Whether the game waits for people to take its seats (its code lets them in)."""
    return game.lobby is not None and game.aborted is None


def current(secret: bytes, game: Game) -> str:
    """The name of the index entry of the game's join code now."""
    return index_name(secret, join_code(secret, game.id, game.join_generation))


def entry(secret: bytes, game: Game) -> str | None:
    """The name of the index entry the game may have (None: it never waited for people)."""
    return None if game.lobby is None else current(secret, game)


def changes(secret: bytes, step: Step) -> Invitation | None:
    """What committing ``step`` changes in the index (None: nothing, a game being played).
    A game waiting for people: its code's entry written (its TTL renewed with the game's),
    the code before a rotation dropped. The join that starts the match, or an abort
    while it waits: its code's entry dropped."""
    game = step.game
    if waiting(game):
        before = game.join_generation - 1
        earlier = (index_name(secret, join_code(secret, game.id, before)),) if before >= 0 else ()
        return Invitation(keep=current(secret, game), drop=earlier)
    if game.lobby is not None or isinstance(step, Joining):  # aborted, or just started
        return Invitation(drop=(current(secret, game),))
    return None


class Games(Protocol):
    """What :func:`find` reads of the game store (:class:`.store.GameStore`)."""

    def invitation(self, name: str) -> str | None: ...

    def load(self, game_id: str) -> Game: ...


def find(store: Games, secret: bytes, typed: str) -> Game:
    """The game waiting for people whose join code is ``typed`` (as a person typed it);
    InvitationNotFoundError if there is none."""
    game_id = store.invitation(index_name(secret, typed))
    if game_id is None:
        raise InvitationNotFoundError(typed)
    try:
        game = store.load(game_id)
        check_join_code(game, typed, secret)
    except (LookupError, WrongJoinCodeError):  # (GameNotFoundError: gone)
        raise InvitationNotFoundError(typed) from None
    if not waiting(game):
        raise InvitationNotFoundError(typed)
    return game
