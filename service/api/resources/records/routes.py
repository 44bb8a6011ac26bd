"""A service key's finished matches as records (service/play/records.py): one game's,
every one of them as NDJSON, and a record imported as a finished game."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson
from flask import Response, stream_with_context
from flask.views import MethodView

from ....play import keys, records
from ....play.commands import Outcome
from ...blueprint import Blueprint
from ...commands import execute
from ...context import store
from ...problems import Problem, ProblemType
from ...seats import check_owner
from ...service_keys import key_operation, require_key
from ..games import listing
from .schemas import ExportQuerySchema, ImportSchema, RecordSchema

blp = Blueprint(
    "records",
    __name__,
    url_prefix="/v1/games",
    description="Records of finished matches (for a service key): one game's, an export "
    "of many as NDJSON, and an import that replays a record through the rules.",
)

NDJSON = "application/x-ndjson"
#: Games read from Redis at a time while exporting.
BATCH = 50


@blp.route("/<string:game_id>/record")
class GameRecord(MethodView):
    @blp.response(200, RecordSchema)
    @key_operation(
        blp,
        "getGameRecord",
        {
            404: "No game has this id, or its key did not create it.",
            409: "The match is not over: a record is of a finished or aborted match.",
        },
    )
    def get(self, game_id: str) -> Any:
        """Read a match's record

        For the service key that created it, once the match is over: its setup, seats
        (with `player_id`), metadata, every event in order with every card (each deal,
        move and declaration, each hand's score), each hand's score lines and the
        result with why. The same record as a line of `GET /v1/games/export`, and what
        `POST /v1/games/import` takes."""
        require_key()
        game = store().load(game_id)
        check_owner(game)
        return _record(game)


def _record(game: Any) -> dict[str, Any]:
    try:
        _, events = store().events(game.id)
        return records.record_of(game, events)
    except records.NotOverError:
        raise Problem(
            409,
            ProblemType.MATCH_NOT_OVER,
            f"The game is {game.status}: its record exists once the match is finished or aborted.",
        ) from None


@blp.route("/export")
class Export(MethodView):
    @blp.arguments(ExportQuerySchema, location="query")
    @blp.doc(
        responses={
            "200": {
                "description": "One finished or aborted match's record a line, newest "
                "first (as `GET /v1/games/{id}/record`).",
                "content": {NDJSON: {"schema": {"type": "string"}}},
                "headers": {
                    "Link": {
                        "description": 'The rest of the export, as `<url>; rel="next"` '
                        "(absent once nothing is left).",
                        "schema": {"type": "string"},
                    }
                },
            }
        }
    )
    @key_operation(
        blp,
        "exportGames",
        {
            422: "A filter is not valid (an unknown parameter, a status or variant that "
            "does not exist, a time that is not RFC 3339 with its offset, `max` out of 1 "
            "to 1000), or the cursor is not one an export gave.",
        },
    )
    def get(self, query: dict[str, Any]) -> Any:
        """Export your finished matches

        For a service key: the records of its finished and aborted matches, newest
        first, one JSON object a line (NDJSON, streamed), created from `since` to before
        `until`, filtered by player id, status, variant, metadata or ids: `max` at most
        (1,000), then the `Link` header's `next` URL goes on exactly after the last one
        (games created in the same millisecond included). Matches not over are left
        out, as are games gone (`GAME_TTL_SECONDS` after their last change)."""
        owner = require_key()
        key = keys.listing(owner, query.get("player_id"), over=True)  # (its games over)
        bounds = _ms(query.get("until"), -1), _ms(query.get("since"), 0)
        ids, following = listing.scan(
            key, query, bounds, query["max"], lambda game: game.id, accept=records.has_record
        )
        lines = _lines(ids)
        return Response(stream_with_context(lines), 200, listing.link(following), mimetype=NDJSON)


def _lines(game_ids: list[str]) -> Iterator[bytes]:
    """The records of the games ``game_ids`` (newest first, each with a record: over is
    for good), a line each, read a batch at a time; a game deleted since it was found is
    left out."""
    for at in range(0, len(game_ids), BATCH):
        for game in store().load_many(game_ids[at : at + BATCH]):
            if game is None:
                continue
            _, events = store().events(game.id)
            yield orjson.dumps(records.record_of(game, events)) + b"\n"


def _ms(moment: datetime | None, step: int) -> int | None:
    """A filter's time as an index score (ms): ``since`` from its millisecond (0),
    ``until`` up to the one before it (-1)."""
    if moment is None:
        return None
    ms = moment.timestamp() * 1000
    return math.ceil(ms) if step == 0 else math.ceil(ms) - 1


@blp.route("/import")
class Import(MethodView):
    @blp.arguments(ImportSchema)
    @blp.response(201, RecordSchema)
    @key_operation(
        blp,
        "importGame",
        {
            422: "The body is not a record; or the rules refuse it "
            "(`/problems/record-refused`: `event` is the first event they refuse, or a "
            "claim of the record its events contradict).",
        },
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Import a match's record

        For a service key: a record (as `GET /v1/games/{id}/record` gives it) of a
        finished match, replayed through the rules event by event (every deal, move and
        declaration must be legal and give exactly the events recorded; the result and
        hand scores must be the replay's), stored as a finished game of the key with a
        new id: it is listed, exported, read as any other (`as_seat`, `hands`,
        `events`). Answers its record."""
        reply = execute("importGame", None, body, _imported)
        return reply.body, 201


def _imported(outcome: Outcome) -> dict[str, Any]:
    step = outcome.steps[0]
    return records.record_of(step.game, step.events)
