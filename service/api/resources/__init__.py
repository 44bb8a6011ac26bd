"""The API's resources, one package each, with its routes and its schemas side by side.

The resources of a game (``play``, ``lobby``, ``hands``, ``events``) are nested in
``games``' blueprint: their URLs are under its ``/v1/games``, and flask-smorest documents
a nested blueprint's operations as its parent's, with its tag (``games``); their
endpoints are ``games.<resource>.<view>``. What they show of a game alike is in
service/api/game_views/."""

from .analysis import blp as analysis
from .cards import blp as cards
from .events import blp as events
from .feed import blp as feed
from .games import blp as games
from .hands import blp as hands
from .health import blp as health
from .hints import blp as hints
from .invitations import blp as invitations
from .levels import blp as levels
from .lobby import blp as lobby
from .play import blp as play
from .players import blp as players
from .reactions import blp as reactions
from .records import blp as records
from .tournaments import blp as tournaments
from .variants import blp as variants
from .webhooks import blp as webhooks

for _resource in (play, hands, events, lobby):
    games.register_blueprint(_resource)

#: Every blueprint of the API, in the order the spec lists them.
BLUEPRINTS = (
    games,
    invitations,
    reactions,
    hints,
    variants,
    levels,
    cards,
    analysis,
    health,
    records,
    webhooks,
    feed,
    players,
    tournaments,
)
