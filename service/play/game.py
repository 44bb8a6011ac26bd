"""A game as the service keeps it: the match, who sits where (a person with a secret
token, or a computer player), and the version every write moves on by one."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, replace
from typing import Any

from ..engine import Match, Status


class UnauthorizedError(PermissionError):
    """The token is missing, or it is not one of this game's seat tokens."""


def hash_token(token: str) -> str:
    """Seat tokens are kept only as SHA-256 hashes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Game:
    """One stored game at one version. The match is the engine's full state, hidden cards
    included: what a viewer may see of it is decided by ``service.engine.views``."""

    id: str
    #: 1 once created; every write adds one.
    version: int
    match: Match
    #: Each seat's computer player level, or None for a person.
    bots: tuple[str | None, ...]
    #: Each person's token hash (None for a computer player's seat).
    token_hashes: tuple[str | None, ...]

    def seat_of(self, token: str | None) -> int:
        """The seat ``token`` belongs to; raises UnauthorizedError. Constant-time compares."""
        if not token:
            raise UnauthorizedError("no token")
        digest = hash_token(token)
        seat = None
        for index, stored_hash in enumerate(self.token_hashes):
            if stored_hash is not None and hmac.compare_digest(digest, stored_hash):
                seat = index
        if seat is None:
            raise UnauthorizedError("unknown token")
        return seat

    @property
    def bot_to_move(self) -> bool:
        """The match goes on and the seat to play is a computer player's."""
        turn = self.match.turn
        return self.match.status is Status.PLAYING and turn is not None and bool(self.bots[turn])

    def next_version(self) -> Game:
        """This game as the next write stores it (its match as it is now)."""
        return replace(self, version=self.version + 1)

    # -- storage ------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """What the store keeps under the game's id, hidden cards and token hashes included."""
        return {
            "match": self.match.to_dict(),
            "tokens": list(self.token_hashes),
            "bots": list(self.bots),
        }

    @classmethod
    def from_state(cls, game_id: str, version: int, state: dict[str, Any]) -> Game:
        return cls(
            id=game_id,
            version=version,
            match=Match.from_dict(state["match"]),
            bots=tuple(state["bots"]),
            token_hashes=tuple(state["tokens"]),
        )
