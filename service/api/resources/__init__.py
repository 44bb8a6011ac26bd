"""The API's resources, one package each, with its routes and its schemas side by side."""

from .analysis import blp as analysis
from .cards import blp as cards
from .games import blp as games
from .health import blp as health
from .hints import blp as hints
from .levels import blp as levels
from .reactions import blp as reactions
from .records import blp as records
from .variants import blp as variants
from .webhooks import blp as webhooks

#: Every blueprint of the API, in the order the spec lists them.
BLUEPRINTS = (games, reactions, hints, variants, levels, cards, analysis, health, records, webhooks)
