"""The names of the cards, suits, variants and scoring categories in the four languages
the service speaks (docs/rules.md R1.4), for every frontend to show the same words."""

from __future__ import annotations

from typing import Final

LANGUAGES: Final = ("it", "en", "pt", "es")
FACES: Final = ("italian", "french")
SUITS: Final = "DCSB"

#: Suit names by pack, language and suit letter.
SUIT_NAMES: Final[dict[str, dict[str, dict[str, str]]]] = {
    "italian": {
        "it": {"D": "denari", "C": "coppe", "S": "spade", "B": "bastoni"},
        "en": {"D": "coins", "C": "cups", "S": "swords", "B": "clubs"},
        "pt": {"D": "ouros", "C": "copas", "S": "espadas", "B": "paus"},
        "es": {"D": "oros", "C": "copas", "S": "espadas", "B": "bastos"},
    },
    "french": {
        "it": {"D": "quadri", "C": "cuori", "S": "picche", "B": "fiori"},
        "en": {"D": "diamonds", "C": "hearts", "S": "spades", "B": "clubs"},
        "pt": {"D": "ouros", "C": "copas", "S": "espadas", "B": "paus"},
        "es": {"D": "diamantes", "C": "corazones", "S": "picas", "B": "tréboles"},
    },
}

_NUMBERS: Final = {
    "it": ["Due", "Tre", "Quattro", "Cinque", "Sei", "Sette"],
    "en": ["Two", "Three", "Four", "Five", "Six", "Seven"],
    "pt": ["Dois", "Três", "Quatro", "Cinco", "Seis", "Sete"],
    "es": ["Dos", "Tres", "Cuatro", "Cinco", "Seis", "Siete"],
}
#: The ace and the three figures (8, 9, 10) by pack and language.
_FIGURES: Final = {
    "italian": {
        "it": ["Asso", "Fante", "Cavallo", "Re"],
        "en": ["Ace", "Jack", "Knight", "King"],
        "pt": ["Ás", "Valete", "Cavalo", "Rei"],
        "es": ["As", "Sota", "Caballo", "Rey"],
    },
    "french": {
        "it": ["Asso", "Fante", "Donna", "Re"],
        "en": ["Ace", "Jack", "Queen", "King"],
        "pt": ["Ás", "Valete", "Dama", "Rei"],
        "es": ["As", "Jota", "Reina", "Rey"],
    },
}
#: How a card's name joins its value and its suit.
_OF: Final = {
    "it": "{value} di {suit}",
    "en": "{value} of {suit}",
    "pt": "{value} de {suit}",
    "es": "{value} de {suit}",
}


def value_names(faces: str, lang: str) -> dict[int, str]:
    ace, jack, knight, king = _FIGURES[faces][lang]
    return {
        1: ace,
        **dict(zip(range(2, 8), _NUMBERS[lang], strict=True)),
        8: jack,
        9: knight,
        10: king,
    }


def card_name(value: int, suit: str, faces: str, lang: str) -> str:
    return _OF[lang].format(
        value=value_names(faces, lang)[value], suit=SUIT_NAMES[faces][lang][suit]
    )


#: The scoring categories of a hand (docs/rules.md R7, R9; Cirulla's, C7), as hand
#: scores name them.
CATEGORY_NAMES: Final[dict[str, dict[str, str]]] = {
    "it": {
        "cards": "Carte",
        "coins": "Denari",
        "settebello": "Settebello",
        "primiera": "Primiera",
        "scopas": "Scope",
        "re_bello": "Re bello",
        "napola": "Napola",
        "dealer_bonus": "Bonus del mazziere",
        "declarations": "Accusi",
        "grande": "Grande",
        "piccola": "Piccola",
        "total": "Totale",
    },
    "en": {
        "cards": "Cards",
        "coins": "Coins",
        "settebello": "Settebello",
        "primiera": "Primiera",
        "scopas": "Scopas",
        "re_bello": "Re bello",
        "napola": "Napola",
        "dealer_bonus": "Dealer's bonus",
        "declarations": "Declarations",
        "grande": "Grande",
        "piccola": "Piccola",
        "total": "Total",
    },
    "pt": {
        "cards": "Cartas",
        "coins": "Ouros",
        "settebello": "Sete belo",
        "primiera": "Primeira",
        "scopas": "Escovas",
        "re_bello": "Rei belo",
        "napola": "Napola",
        "dealer_bonus": "Bônus do carteador",
        "declarations": "Declarações",
        "grande": "Grande",
        "piccola": "Piccola",
        "total": "Total",
    },
    "es": {
        "cards": "Cartas",
        "coins": "Oros",
        "settebello": "Siete de oros",
        "primiera": "Primera",
        "scopas": "Escobas",
        "re_bello": "Rey de oros",
        "napola": "Napola",
        "dealer_bonus": "Bono del repartidor",
        "declarations": "Declaraciones",
        "grande": "Grande",
        "piccola": "Piccola",
        "total": "Total",
    },
}


def category_names(faces: str, lang: str) -> dict[str, str]:
    """The scoring categories' names, the coins named for the pack's faces (with French
    faces, "Denari" are "Quadri", "Oros" are "Diamantes")."""
    coins, shown = SUIT_NAMES["italian"][lang]["D"], SUIT_NAMES[faces][lang]["D"]
    return {
        key: name.replace(coins, shown).replace(coins.capitalize(), shown.capitalize())
        for key, name in CATEGORY_NAMES[lang].items()
    }
