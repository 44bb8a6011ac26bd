"""What an operation may do, declared once: who may call it, how its Idempotency-Key is
scoped and where its answer is kept, which quotas and how much of the cost budget it
spends, which fields of its input are checked as text, and which only a service key may
send. :mod:`.catalogue` holds one :class:`Policy` per operation of the API and per
command of the background jobs; the one function that runs a command
(:func:`.runner.run`) and the request hook that counts quotas read it, and nothing else
decides these things.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Who(StrEnum):
    """Who may call an operation."""

    #: Anybody (a service key sees only its own games: another's is not found).
    ANYONE = "anyone"
    #: A seat's token, a service key (as the seat it names, or a spectator), or nobody
    #: where the game has spectators.
    VIEWER = "viewer"
    #: A seat: its token, or a service key acting for a seat it names (``X-Seat``).
    SEAT = "seat"
    #: A service key.
    KEY = "key"
    #: The service key that created the game.
    OWNER = "owner"
    #: A background worker, its own caller: a computer player, or the clock, acting for
    #: the seat to play (service/play/background.py); never a request.
    WORKER = "worker"


class Scope(StrEnum):
    """Whose an Idempotency-Key is: a request with the same key from outside its scope
    is another request, never a replay of an answer it was not given."""

    #: The operation takes no Idempotency-Key.
    NONE = "none"
    #: The seat's (a move's, a declaration's).
    SEAT = "seat"
    #: The caller's: a service key's own; without a key, the client address's network
    #: (the one its rate limits count: service/api/addresses.py).
    CALLER = "caller"


class Keeping(StrEnum):
    """Where an idempotent command's answer is kept."""

    NONE = "none"
    #: The seat's slot in the game's hash (its latest keyed move or declaration).
    SEAT_SLOT = "seat-slot"
    #: The slot of the seat a join took.
    JOIN_SLOT = "join-slot"
    #: A pointer from the key to the game it created, and the answer in the game's hash.
    CREATION = "creation"
    #: A key of its own (a bulk creation: a round of games).
    ROUND = "round"


@dataclass(frozen=True)
class Policy:
    """One operation's rules (see the module's docstring)."""

    who: Who
    idempotency: Scope = Scope.NONE
    keeping: Keeping = Keeping.NONE
    #: The quotas it counts against besides ``requests`` (service/api/ratelimit.py):
    #: once a request, or once a game it makes (a command's ``units``).
    quotas: tuple[str, ...] = ()
    #: Seconds of the cost budget it holds before it runs (its CPU replaces them once
    #: done); 0: it is charged what it took, never refused for the budget.
    cost: float = 0.0
    #: It makes games whose computer players it counts against the ``bots`` quota and
    #: the cost budget (:data:`COMPUTER_SEATS_RESERVE` each game) before they move.
    computer_players: bool = False
    #: The fields of its input whose text is checked (service/play/text.py): a dotted
    #: path, ``[]`` for every entry of a list and ``*`` for every value of a map.
    texts: tuple[str, ...] = ()
    #: The fields of its input that only a service key may send.
    key_fields: tuple[str, ...] = ()
    #: It changes a game (or makes one): it is a command, run by :func:`.runner.run`.
    changes: bool = False


#: What a game with computer players costs of the budget before they move.
COMPUTER_SEATS_RESERVE = 0.3
