"""The 40 cards of the Italian deck, their codes and values (docs/rules.md R1)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InvalidCardError

#: Suit letters in deck order: Denari (coins), Coppe, Spade, Bastoni.
SUITS = ("D", "C", "S", "B")
COINS = "D"
VALUES = tuple(range(1, 11))
KING = 10

#: Primiera value of each card value (R7): 7=21, 6=18, A=16, 5=15, 4=14, 3=13, 2=12, figures=10.
PRIMIERA_POINTS = {7: 21, 6: 18, 1: 16, 5: 15, 4: 14, 3: 13, 2: 12, 8: 10, 9: 10, 10: 10}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: a value from 1 (ace) to 10 (king) and a suit letter.

    Cards are interned: ``Card.parse("7D") is Card.parse("7D")``.
    """

    value: int
    suit: str

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card of a code such as ``"7D"``; raises :class:`InvalidCardError`."""
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            raise InvalidCardError(code) from None

    @property
    def code(self) -> str:
        return f"{self.value}{self.suit}"

    @property
    def index(self) -> int:
        """Position 0-39 in the canonical deck: suit by suit, ace to king."""
        return SUITS.index(self.suit) * 10 + self.value - 1

    @property
    def sort_key(self) -> tuple[int, int]:
        """Order cards are listed in: by value, then suit."""
        return (self.value, SUITS.index(self.suit))

    @property
    def is_coin(self) -> bool:
        return self.suit == COINS

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


#: The full deck in canonical order.
DECK: tuple[Card, ...] = tuple(Card(v, s) for s in SUITS for v in VALUES)
_BY_CODE: dict[str, Card] = {c.code: c for c in DECK}

SETTEBELLO = Card.parse("7D")
RE_BELLO = Card.parse("10D")


def parse_cards(codes: Iterable[str]) -> list[Card]:
    """Parse a list of codes; raises :class:`InvalidCardError` on the first bad one."""
    return [Card.parse(code) for code in codes]


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.sort_key)


def codes(cards: Iterable[Card]) -> list[str]:
    """Codes of cards, in the order given."""
    return [c.code for c in cards]
