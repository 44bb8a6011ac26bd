"""The Scopa rules engine: cards, moves, variants, the match and its scoring.

Pure Python with no web or storage imports. Start with :meth:`Match.new`.
"""

from .cards import DECK, Card, parse_cards
from .errors import (
    AmbiguousMoveError,
    IllegalDeclarationError,
    IllegalMoveError,
    InvalidCardError,
    InvalidSetupError,
    MatchOverError,
    NotYourTurnError,
    ScopaError,
)
from .knowledge import Knowledge
from .legal import first_moves, legal_codes_in, legal_moves_in
from .match import Event, Match, team_of_seats
from .moves import Move
from .rules import ForcedCapture, Rules
from .scoring import SideScore, score_hand
from .states import EventKind, Status
from .variants import VARIANTS, Variant, get_variant
from .views import event_view, match_view, move_view

__all__ = [
    "DECK",
    "VARIANTS",
    "AmbiguousMoveError",
    "Card",
    "Event",
    "EventKind",
    "ForcedCapture",
    "IllegalDeclarationError",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidSetupError",
    "Knowledge",
    "Match",
    "MatchOverError",
    "Move",
    "NotYourTurnError",
    "Rules",
    "ScopaError",
    "SideScore",
    "Status",
    "Variant",
    "event_view",
    "get_variant",
    "first_moves",
    "legal_codes_in",
    "legal_moves_in",
    "match_view",
    "move_view",
    "parse_cards",
    "score_hand",
    "team_of_seats",
]
