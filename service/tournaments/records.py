"""What a tournament is made of: its entrants, the outcome of each pairing, and the
pairings of a round. Plain frozen values: the pairing and standings functions read
them and never change them; the caller stores them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entrant:
    """One participant: a player (Scopa) or a fixed pair (Scopone).

    ``seed`` is the 1-based initial rank, fixed for the whole tournament: the caller
    numbers the entrants by rating, highest first, ties by registration order. The
    pairing numbers of FIDE's systems are these seeds.
    """

    id: str
    rating: float
    seed: int


@dataclass(frozen=True, slots=True)
class Played:
    """The outcome of one pairing of round ``round``.

    ``second is None``: a bye of ``first``. ``winner``: the id of ``first`` or
    ``second`` (of ``first`` for a bye), or None while the game is not decided (the
    standings and the pairings skip it; the pairings refuse to pair after it).
    ``points`` and ``scopas``: the game points and scopas of ``first`` and ``second``.
    ``forfeit``: decided without play (an opponent withdrew or did not come). A
    forfeit counts for the score (win 1, loss 0) but not as a game played, nor for game
    points, scopas or seats; and, as FIDE's Swiss rules have it (C.04.3 and bbpPairings:
    a game not played is not a meeting), the two may still be paired again.
    """

    round: int
    first: str
    second: str | None
    winner: str | None
    points: tuple[int, int] = (0, 0)
    scopas: tuple[int, int] = (0, 0)
    forfeit: bool = False

    @property
    def is_bye(self) -> bool:
        """A bye: ``first`` had no opponent this round."""
        return self.second is None

    @property
    def is_game(self) -> bool:
        """A decided game played over the table (neither a bye nor a forfeit)."""
        return self.second is not None and self.winner is not None and not self.forfeit

    def opponent(self, entrant: str) -> str | None:
        """The other side of this pairing for ``entrant`` (None for a bye)."""
        return self.second if entrant == self.first else self.first

    def side(self, entrant: str) -> int:
        """0 if ``entrant`` sat first, 1 if second."""
        return 0 if entrant == self.first else 1


@dataclass(frozen=True, slots=True)
class Pairing:
    """One table of a round: ``first`` sits first (seat 0, or the team with seats 0
    and 2; White in chess terms), ``second`` second; ``second is None`` is a bye."""

    table: int
    first: str
    second: str | None
