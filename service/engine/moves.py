"""A move: the card played and the set of table cards it captures (R4); and, in
Cirulla, a declaration (docs/rules.md C3), which a seat makes before it plays."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from .cards import Card, sorted_cards
from .errors import ScopaError


@dataclass(frozen=True, slots=True)
class Move:
    """A card played and the table cards it takes (empty: the card is laid).

    Text notation, both ways: ``"7D"`` lays the 7 of coins, ``"7Dx3C+4B"`` plays it
    taking the 3 of cups and the 4 of clubs. ``Move.parse(str(move)) == move``.
    """

    card: Card
    capture: frozenset[Card] = field(default_factory=frozenset)

    @classmethod
    def of(cls, card: Card, capture: Iterable[Card] = ()) -> Move:
        return cls(card, frozenset(capture))

    @classmethod
    def parse(cls, text: str) -> Move:
        card_code, _, capture_codes = text.partition("x")
        capture = [Card.parse(c) for c in capture_codes.split("+")] if capture_codes else []
        if len(set(capture)) != len(capture):
            raise ScopaError(f"{text!r} names a captured card twice")
        return cls.of(Card.parse(card_code), capture)

    @property
    def captured(self) -> list[Card]:
        """The captured cards in listing order (by value, then suit)."""
        return sorted_cards(self.capture)

    def __str__(self) -> str:
        if not self.capture:
            return self.card.code
        return self.card.code + "x" + "+".join(c.code for c in self.captured)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def is_sweep(move: Move, table: Sequence[Card]) -> bool:
    """The move takes every card on the table."""
    return bool(move.capture) and len(move.capture) == len(table)


class DeclarationKind(StrEnum):
    """C3.1: three cards worth 9 or less, or three of a kind."""

    BUONA = "buona"
    DECINO = "decino"


#: C3.1: the points of each declaration.
DECLARATION_POINTS = {DeclarationKind.BUONA: 3, DeclarationKind.DECINO: 10}


@dataclass(frozen=True, slots=True)
class Declaration:
    """A declaration (C3): its kind, and the value the matta ``7C`` takes in it (None
    when the matta is not among the three cards)."""

    kind: DeclarationKind
    matta_as: int | None = None

    @property
    def points(self) -> int:
        return DECLARATION_POINTS[self.kind]

    def to_dict(self) -> dict[str, str | int | None]:
        return {"kind": self.kind.value, "matta_as": self.matta_as}


def best_declaration(declarations: list[Declaration]) -> Declaration | None:
    """The declaration worth the most (C3.5): a decino before a buona, the matta worth
    the most it can; None when there is none."""
    if not declarations:
        return None
    return max(declarations, key=lambda d: (d.kind is DeclarationKind.DECINO, d.matta_as or 0))
