"""The Scopa rules engine: cards, moves, variants, the match and its scoring.

Pure Python with no web or storage imports. Start with :meth:`Match.new`.
"""

from .cards import DECK, Card, parse_cards
from .errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidCardError,
    InvalidSetupError,
    MatchOverError,
    NotYourTurnError,
    ScopaError,
)
from .match import Event, Match, legal_moves_in, team_of_seats
from .moves import Move
from .rules import ForcedCapture, Rules
from .scoring import SideScore, score_hand
from .variants import VARIANTS, Variant, get_variant
from .views import event_view, match_view, move_view

__all__ = [
    "DECK",
    "VARIANTS",
    "AmbiguousMoveError",
    "Card",
    "Event",
    "ForcedCapture",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidSetupError",
    "Match",
    "MatchOverError",
    "Move",
    "NotYourTurnError",
    "Rules",
    "ScopaError",
    "SideScore",
    "Variant",
    "event_view",
    "get_variant",
    "legal_moves_in",
    "match_view",
    "move_view",
    "parse_cards",
    "score_hand",
    "team_of_seats",
]
