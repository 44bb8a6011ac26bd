"""/v1/tournaments: a service key makes a tournament (its first round's games with it),
reads it, and withdraws an entrant; anyone reads a public one. What moves it on (each
game's result, each next round) is the workers' (service/play/commands/tournaments.py)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ....play.commands import Outcome
from ....play.steps import Creation
from ....play.tournaments.model import Tournament
from ....play.tournaments.store import TournamentNotFoundError, TournamentStore
from ...blueprint import Blueprint
from ...commands import execute
from ...context import store
from ...headers import (
    CREATION_KEY_PARAMETER,
    ETAG,
    IF_NONE_MATCH,
    NEXT_PAGE,
    NOT_MODIFIED,
    PER_VIEWER,
    REPLAYED,
    not_modified,
    unchanged,
)
from ...problems import STORE_ERRORS, etag
from ...service_keys import key_operation, requesting_key, require_key
from ..games.listing import link
from . import answers
from .schemas import (
    CreateTournamentSchema,
    TournamentCreatedSchema,
    TournamentListQuerySchema,
    TournamentListSchema,
    TournamentSchema,
    WithdrawalSchema,
)

blp = Blueprint(
    "tournaments",
    __name__,
    url_prefix="/v1/tournaments",
    description="Tournaments (for a service key): Swiss, round robin or single "
    "elimination, their rounds paired and their games made by the service; standings "
    "with tie-breaks, public to anyone with the id.",
)

NOT_FOUND = {
    404: "No tournament has this id (or it is another key's, or not public and asked "
    "without its key)."
}


def _created(outcome: Outcome) -> dict[str, Any]:
    tournament: Tournament = outcome.value
    made = [c for c in outcome.steps if isinstance(c, Creation)]
    return answers.created_body(tournament, made)


def _viewed(outcome: Outcome) -> dict[str, Any]:
    tournament: Tournament = outcome.value
    return answers.view(tournament, keyed=True)


@blp.route("")
class Tournaments(MethodView):
    @blp.arguments(CreateTournamentSchema)
    @blp.response(201, TournamentCreatedSchema, headers=REPLAYED)
    @key_operation(
        blp,
        "createTournament",
        {
            422: "The body is not valid: a Swiss without `rounds` (or with as many as its "
            "entrants), `rounds` for another format, entrants of different sizes, a "
            "variant that cannot seat them (Scopone pairs need a four-player game), a "
            "player in two entrants; or an Idempotency-Key shorter than 16 characters, "
            "or reused with another body.",
            429: "Over the key's creations quota (each first-round game counts) or "
            "another of its quotas; nothing is made. Retry after `Retry-After` seconds.",
        },
        limited=False,  # its 429 is above
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a tournament

        For a service key: the entrants seeded by rating, the first round paired and
        its games made at once (all or none), each game the tournament's variant with
        its players' ids (and `metadata.tournament`, `round`, `table`). The service
        pairs and makes each next round when the last game of a round ends (or at its
        time in `round_starts`), and its webhooks say so (`tournament.*`). Answers the
        tournament and the first round's games with their seats' tokens (shown here,
        and in the key's `GET` while each game is played)."""
        reply = execute("createTournament", None, body, _created)
        return reply.body, reply.status, {"Idempotent-Replayed": "true"} if reply.replayed else {}

    @blp.arguments(TournamentListQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, TournamentListSchema, headers=NEXT_PAGE)
    @key_operation(
        blp,
        "listTournaments",
        {422: "`limit` is out of 1 to 100, or the cursor is not one a listing gave."},
    )
    def get(self, **query: Any) -> Any:
        """List your tournaments

        For a service key: the tournaments it made, newest first, a page at a time
        (`next`), each with its status and round; `GET /v1/tournaments/{id}` has its
        standings and pairings. A tournament is listed as long as it is kept
        (`GAME_TTL_SECONDS` after its last change)."""
        body, following = answers.listing(require_key(), query)
        return body, 200, link(following)


@blp.route("/<string:tournament_id>")
class TournamentItem(MethodView):
    @blp.response(200, TournamentSchema, headers=ETAG)
    @blp.documents(
        "getTournament",
        {**NOT_FOUND, **STORE_ERRORS},
        parameters=[IF_NONE_MATCH],
        responses=NOT_MODIFIED,
    )
    def get(self, tournament_id: str) -> Any:
        """Read a tournament

        Its entrants, standings (points, then Buchholz, Sonneborn-Berger, game points,
        scopas) and every round's pairings with their games and results. Its key sees
        the players' ids, its metadata and the tokens of the games being played;
        anyone else sees a public tournament's names and numbers only. With
        If-None-Match, 304 while nothing has changed: poll it cheaply."""
        owner = requesting_key()
        tournament = TournamentStore(store().redis, store().ttl).load(tournament_id)
        keyed = owner is not None and tournament.owner == owner
        if not keyed and (owner is not None or not tournament.public):
            raise TournamentNotFoundError(tournament_id)
        if not_modified(tournament.version):
            return unchanged(tournament.version)
        shown = answers.view(tournament, keyed=keyed)
        return shown, 200, {**etag(tournament.version), **PER_VIEWER}


@blp.route("/<string:tournament_id>/withdrawals")
class Withdrawals(MethodView):
    @blp.arguments(WithdrawalSchema)
    @blp.response(200, TournamentSchema)
    @key_operation(
        blp,
        "withdrawTournamentEntrant",
        {
            **NOT_FOUND,
            422: "No entrant has this number, or the tournament is over.",
        },
    )
    def post(self, body: dict[str, Any], tournament_id: str) -> Any:
        """Withdraw an entrant

        For the key: the entrant is not paired from the next round on; its game under
        way, if any, is aborted and won by its opponent (a forfeit). In a round robin
        its later games are forfeit wins of their opponents; in an elimination, its
        opponent goes through. Withdrawn already: the tournament as it is."""
        reply = execute(
            "withdrawTournamentEntrant", None, {**body, "tournament": tournament_id}, _viewed
        )
        return reply.body


@blp.route("/<string:tournament_id>/cancel")
class Cancellation(MethodView):
    @blp.response(200, TournamentSchema)
    @key_operation(blp, "cancelTournament", NOT_FOUND)
    def post(self, tournament_id: str) -> Any:
        """Cancel a tournament

        For the key: no round after the current one; its games under way are aborted
        (no result). The standings stay as they stopped; its webhooks say
        `tournament.cancelled`. Finished or cancelled already: the tournament as it is."""
        reply = execute("cancelTournament", None, {"tournament": tournament_id}, _viewed)
        return reply.body
