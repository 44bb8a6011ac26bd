"""A tournament as /v1/tournaments shows it: its key's view (player ids, metadata, and
the seats' tokens of the games under way, made from the server's secret), or anyone's
(names and numbers only)."""

from __future__ import annotations

from typing import Any

from ....play.listing import Position
from ....play.steps import Creation, tournament_token
from ....play.tournaments.model import Round, Table, Tournament
from ....play.tournaments.progress import table_of
from ....play.tournaments.store import TournamentStore
from ...context import server_secret, store
from ...game_views.answers import utc
from ..games import listing as games_listing
from ..games.answers import created


def view(tournament: Tournament, *, keyed: bool, seats: bool = True) -> dict[str, Any]:
    """The tournament as its key (``keyed``) or anyone else sees it; the key's with its
    games' ``seats`` (and their tokens) unless told not to."""
    current = tournament.current
    shown: dict[str, Any] = {
        "id": tournament.id,
        "name": tournament.name,
        "format": str(tournament.format),
        "variant": tournament.variant,
        "players_per_side": tournament.side_size,
        "status": str(tournament.stage),
        "rounds": tournament.total_rounds,
        "round": 0 if current is None else current.number,
        "target": tournament.target,
        "clock": tournament.clock,
        "rated": tournament.rated,
        "public": tournament.public,
        "created_at": utc(tournament.created_at),
        "finished_at": utc(tournament.finished_at),
        "entrants": [
            {
                "number": e.number,
                "name": e.name,
                "rating": e.rating,
                "withdrawn_after": e.withdrawn_after,
                "players": [
                    {
                        "name": m.name,
                        "bot": m.bot,
                        **({"player_id": m.player_id} if keyed else {}),
                    }
                    for m in e.members
                ],
            }
            for e in tournament.entries
        ],
        "standings": table_of(tournament),
        "pairings": [_round(tournament, r, seats=keyed and seats) for r in tournament.rounds],
    }
    if keyed:
        shown["metadata"] = dict(tournament.metadata)
    return shown


def _round(tournament: Tournament, round_: Round, *, seats: bool) -> dict[str, Any]:
    return {
        "round": round_.number,
        "start_at": utc(round_.start_at),
        "finished_at": utc(round_.finished_at),
        "tables": [_table(tournament, t, seats=seats) for t in round_.tables],
    }


def _table(tournament: Tournament, table: Table, *, seats: bool) -> dict[str, Any]:
    result = table.result
    shown: dict[str, Any] = {
        "table": table.table,
        "first": table.first,
        "second": table.second,
        "game_id": table.game_id,
        "result": None
        if result is None
        else {
            "winner": result.winner,
            "points": list(result.points),
            "scopas": list(result.scopas),
            "forfeit": result.forfeit,
        },
    }
    if seats and table.game_id is not None and table.second is not None:
        shown["seats"] = _seats(tournament, table)
    return shown


def _seats(tournament: Tournament, table: Table) -> list[dict[str, Any]]:
    """A table's seats with their tokens while its game is under way (from the secret)."""
    assert table.game_id is not None
    live = table.result is None
    return [
        {
            "seat": seat,
            "player_id": p.player_id,
            "token": None
            if p.bot or not live
            else tournament_token(server_secret(), table.game_id, seat),
        }
        for seat, p in enumerate(tournament.seat_players(table))
    ]


def created_body(tournament: Tournament, creations: list[Creation]) -> dict[str, Any]:
    """A creation's answer: the key's view, and the first round's games with their
    seats' tokens (kept for a retry with the same Idempotency-Key, tokens sealed: so
    the view holds none)."""
    tables = {t.game_id: t.table for t in tournament.rounds[0].tables}
    return {
        "tournament": view(tournament, keyed=True, seats=False),
        "games": [
            {
                "id": c.game.id,
                "table": tables[c.game.id],
                "start_at": utc(c.game.start_at),
                "seats": created(c, c.tokens)["seats"],
            }
            for c in creations
        ],
    }


def summary(tournament: Tournament) -> dict[str, Any]:
    """A tournament as its key's listing shows it (its own ``GET`` has the rest)."""
    current = tournament.current
    return {
        "id": tournament.id,
        "name": tournament.name,
        "format": str(tournament.format),
        "variant": tournament.variant,
        "status": str(tournament.stage),
        "entrants": len(tournament.entries),
        "rounds": tournament.total_rounds,
        "round": 0 if current is None else current.number,
        "created_at": utc(tournament.created_at),
        "finished_at": utc(tournament.finished_at),
        "metadata": dict(tournament.metadata),
    }


def listing(owner: str, query: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The page of the key's tournaments ``query`` asks for, and the next page's URL (its
    cursor as the games' listing's: a creation time and an id)."""
    start = games_listing.position_of(query["cursor"]) if "cursor" in query else None
    after = None if start is None else (start.score, start.game_id)
    store_ = store()
    found, last = TournamentStore(store_.redis, store_.ttl).page(owner, query["limit"], after)
    following = None if last is None else games_listing.next_url(Position(*last))
    return {"tournaments": [summary(t) for t in found], "next": following}, following
