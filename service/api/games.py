"""/v1/games: create a match, read it, play it, read its hands and its log."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import current_app, request, url_for
from flask.views import MethodView

from ..engine import (
    Card,
    Event,
    MatchOverError,
    Move,
    NotYourTurnError,
    Rules,
    event_view,
    match_view,
    move_view,
    parse_cards,
)
from ..games import (
    BotSettings,
    Game,
    NoBotToMoveError,
    StaleVersionError,
    UnauthorizedError,
    create_game,
    let_bots_move,
    load_game,
    play_move,
    replay_creation,
)
from ..store import GameNotFoundError, GameStore, VersionConflictError, record_key_for
from . import idempotency, observability
from .blueprint import Blueprint
from .problems import STORE_ERRORS, Problem, documents
from .schemas import (
    BotMovesSchema,
    CreateGameSchema,
    EventLogSchema,
    GameCreatedSchema,
    GameViewSchema,
    HandListSchema,
    HandScoreSchema,
    MoveRequestSchema,
    MoveResultSchema,
    SeatMovesSchema,
)

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/v1/games",
    description="Matches: create one, read it as a seat or a spectator, play it, read its "
    "hands' scores and its event log.",
)

SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
OPTIONAL_SEAT_AUTH: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
NOT_FOUND = {404: "No game has this id (it never existed, or it expired)."}
BAD_TOKEN = {401: "The bearer token is missing, malformed, or not a seat of this game."}
IF_MATCH = {
    "in": "header",
    "name": "If-Match",
    "required": False,
    "description": "The game version you last saw (as in ETag). If the game has moved on, "
    "the move is refused with 412 and nothing changes.",
    "schema": {"type": "string"},
}
ETAG = {"ETag": {"description": "The game's version, quoted.", "schema": {"type": "string"}}}


def store() -> GameStore:
    store: GameStore = current_app.extensions["scopa_store"]
    return store


def bot_settings() -> BotSettings:
    return BotSettings(
        time_limit_seconds=current_app.config["BOT_TIME_LIMIT_SECONDS"],
        expert_budget_ms=current_app.config["EXPERT_BUDGET_MS"],
    )


def bearer_token() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("The Authorization header must be 'Bearer <seat token>'.")
    return token.strip()


def _unauthorized(detail: str) -> Problem:
    return Problem(401, "/problems/unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def seat_of(game: Game, *, required: bool) -> int | None:
    token = bearer_token()
    if token is None and not required:
        return None
    try:
        return game.seat_of(token)
    except UnauthorizedError:
        if token is None:
            raise _unauthorized(
                "This needs a seat's token: send 'Authorization: Bearer <token>'."
            ) from None
        raise _unauthorized("This token is not a seat token of this game.") from None


def view_of(game: Game, seat: int | None) -> dict[str, Any]:
    view = {"id": game.id, "version": game.version, **match_view(game.match, seat)}
    for entry, level in zip(view["seats"], game.bots, strict=True):
        entry["bot"] = level
    return view


def if_match_version() -> int | None:
    header = request.headers.get("If-Match")
    if header is None:
        return None
    value = header.strip().removeprefix("W/").strip('"')
    if not re.fullmatch(r"[0-9]{1,18}", value):
        raise Problem(
            412,
            "/problems/version-mismatch",
            f'If-Match must be a game version as sent in ETag (such as "3"), not {header!r}.',
        )
    return int(value)


def etag(version: int) -> dict[str, str]:
    return {"ETag": f'"{version}"'}


@blp.route("")
class Games(MethodView):
    @blp.arguments(CreateGameSchema, required=False)  # no body: every default
    @blp.response(
        201,
        GameCreatedSchema,
        headers={
            "Location": {"description": "The game's URL.", "schema": {"type": "string"}},
            **ETAG,
            **idempotency.REPLAYED,
        },
    )
    @blp.doc(parameters=[idempotency.PARAMETER])
    @documents(
        blp,
        {
            422: "The body is not valid, or asks for a match that cannot exist; or an "
            "Idempotency-Key reused with another body.",
            **STORE_ERRORS,
        },
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a match

        Deals the first hand and returns each seat's secret token (shown only here) and
        the spectator's view."""
        key = idempotency.idempotency_key()
        fingerprint = idempotency.fingerprint(body)
        if key is not None:
            try:
                return _creation_replay(key, fingerprint)
            except GameNotFoundError:
                pass

        def remember(game: Game, tokens: list[str | None], events: list[Event]) -> dict[str, Any]:
            answer = _created(game, [None] * len(tokens), events)
            return {"fp": fingerprint, "status": 201, "body": answer, "version": game.version}

        seats = body.get("seats")
        try:
            game, tokens, events = create_game(
                store(),
                variant=body["variant"],
                names=[s["name"] for s in seats] if seats else None,
                players=body.get("players"),
                bots=[s.get("bot") for s in seats] if seats else None,
                target=body.get("target"),
                rules=Rules.from_dict(body["rules"]),
                seed=body.get("seed"),
                deck=parse_cards(body["deck"]) if "deck" in body else None,
                first_dealer=body.get("first_dealer"),
                settings=bot_settings(),
                key=key,
                remember=remember if key is not None else None,
            )
        except VersionConflictError:
            assert key is not None  # fresh ids do not collide
            return _creation_replay(key, fingerprint)  # a retry raced its first attempt
        observability.MATCHES_STARTED.labels(game.match.variant.name).inc()
        observability.count_events(events, game.match.variant.name, game.bots)
        return _created(game, tokens, events), 201, _created_headers(game.id, game.version)


def _created(game: Game, tokens: list[str | None], events: list[Event]) -> dict[str, Any]:
    match = game.match
    return {
        "id": game.id,
        "version": game.version,
        "seats": [
            {
                "seat": seat,
                "name": name,
                "team": match.teams[seat],
                "bot": game.bots[seat],
                "token": tokens[seat],
            }
            for seat, name in enumerate(match.names)
        ],
        "events": [event_view(e, None) for e in events],
        "state": view_of(game, None),
    }


def _created_headers(game_id: str, version: int) -> dict[str, str]:
    return {"Location": url_for("games.GameResource", game_id=game_id), **etag(version)}


def _creation_replay(key: str, fingerprint: str) -> Any:
    """The first answer to a creation with this Idempotency-Key, tokens included."""
    game, tokens = replay_creation(store(), key)
    created = game.stored.state["created"]
    body, status, headers = idempotency.replay(json.dumps(created), fingerprint)
    for seat, token in zip(body["seats"], tokens, strict=True):
        seat["token"] = token
    return body, 201, {**_created_headers(game.id, created["version"]), **headers}


@blp.route("/<string:game_id>")
class GameResource(MethodView):
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.doc(security=OPTIONAL_SEAT_AUTH)
    @documents(blp, {**BAD_TOKEN, **NOT_FOUND, **STORE_ERRORS})
    def get(self, game_id: str) -> Any:
        """Read a game

        With a seat's token, that seat's view (its hand included); without, a
        spectator's view."""
        game = load_game(store(), game_id)
        return view_of(game, seat_of(game, required=False)), 200, etag(game.version)


@blp.route("/<string:game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, SeatMovesSchema, headers=ETAG)
    @blp.doc(security=SEAT_AUTH)
    @documents(blp, {**BAD_TOKEN, **NOT_FOUND, **STORE_ERRORS})
    def get(self, game_id: str) -> Any:
        """List your legal moves

        Every legal move of your seat now, one per capture choice; empty when it is not
        your turn."""
        game = load_game(store(), game_id)
        seat = seat_of(game, required=True)
        table = game.match.table
        moves = [move_view(m, table) for m in game.match.legal_moves(seat)]
        return {"seat": seat, "moves": moves}, 200, etag(game.version)


@blp.route("/<string:game_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequestSchema)
    @blp.response(200, MoveResultSchema, headers={**ETAG, **idempotency.REPLAYED})
    @blp.doc(security=SEAT_AUTH, parameters=[IF_MATCH, idempotency.PARAMETER])
    @documents(
        blp,
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "Not your turn, the match is over, or another move was stored first.",
            412: "If-Match is not the game's current version (`current_version` says it).",
            422: "An illegal or ambiguous move: `detail` says why, `legal_captures` lists "
            "what the card may take. Or an Idempotency-Key reused with another body.",
            **STORE_ERRORS,
        },
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Play a move

        Play a card from your hand, with the table cards it captures."""
        game = load_game(store(), game_id)
        seat = seat_of(game, required=True)
        assert seat is not None
        key = idempotency.idempotency_key()
        fingerprint = idempotency.fingerprint(body) if key is not None else ""
        record_key = ""
        if key is not None:
            record_key = record_key_for(game_id, idempotency.record_name(f"seat{seat}", key))
            earlier = store().record(record_key)
            if earlier is not None:
                return idempotency.replay(earlier, fingerprint)

        def answer(after: Game, move: Move, events: list[Event]) -> dict[str, Any]:
            return {
                "move": {k: v for k, v in events[0].items() if k != "type"},
                "events": [event_view(e, seat) for e in events[1:]],
                "state": view_of(after, seat),
            }

        def record(after: Game, move: Move, events: list[Event]) -> tuple[str, str]:
            kept = idempotency.stored(fingerprint, 200, answer(after, move, events), after.version)
            return record_key, kept

        capture = body.get("capture")
        try:
            game, move, events = play_move(
                store(),
                game,
                seat,
                Card.parse(body["card"]),
                parse_cards(capture) if capture is not None else None,
                if_match_version(),
                bot_settings(),
                record if key is not None else None,
            )
        except StaleVersionError as stale:
            raise Problem(
                412,
                "/problems/version-mismatch",
                f"The game is now at version {stale.current}: reload it before moving.",
                current_version=stale.current,
                headers=etag(stale.current),
            ) from None
        except (VersionConflictError, NotYourTurnError, MatchOverError):
            # A retry racing its own first attempt: answer as the first attempt did.
            earlier = store().record(record_key) if key is not None else None
            if earlier is None:
                raise
            return idempotency.replay(earlier, fingerprint)
        observability.count_events(events, game.match.variant.name, game.bots)
        return answer(game, move, events), 200, etag(game.version)


@blp.route("/<string:game_id>/hands")
class Hands(MethodView):
    @blp.response(200, HandListSchema)
    @documents(blp, {**NOT_FOUND, **STORE_ERRORS})
    def get(self, game_id: str) -> Any:
        """List the scores of finished hands"""
        return {"hands": load_game(store(), game_id).match.hand_scores}


@blp.route("/<string:game_id>/hands/<int:number>")
class Hand(MethodView):
    @blp.response(200, HandScoreSchema)
    @documents(
        blp,
        {
            404: "No game has this id, or the match has no hand with this number.",
            409: "This hand is still being played.",
            **STORE_ERRORS,
        },
    )
    def get(self, game_id: str, number: int) -> Any:
        """Read a finished hand's score"""
        match = load_game(store(), game_id).match
        if 1 <= number <= len(match.hand_scores):
            return match.hand_scores[number - 1]
        if number == match.hand_number and match.status == "playing":
            raise Problem(
                409,
                "/problems/hand-in-progress",
                f"Hand {number} is still being played: its score exists once it ends.",
            )
        raise Problem(
            404,
            "/problems/hand-not-found",
            f"This match has no hand {number}: it has played hands 1 to {match.hand_number}.",
        )


@blp.route("/<string:game_id>/events")
class Events(MethodView):
    @blp.response(200, EventLogSchema, headers=ETAG)
    @blp.doc(security=OPTIONAL_SEAT_AUTH)
    @documents(blp, {**BAD_TOKEN, **NOT_FOUND, **STORE_ERRORS})
    def get(self, game_id: str) -> Any:
        """Read the event log

        Everything that happened, in order, for replays. Each seat sees the cards dealt
        to it; nobody sees cards dealt to another seat."""
        game = load_game(store(), game_id)
        seat = seat_of(game, required=False)
        version, events = store().events(game_id)
        shown = [{"seq": i, **event_view(e, seat)} for i, e in enumerate(events)]
        return {"id": game_id, "version": version, "events": shown}, 200, etag(version)


@blp.route("/<string:game_id>/bots")
class Bots(MethodView):
    @blp.response(200, BotMovesSchema, headers=ETAG)
    @documents(
        blp,
        {**NOT_FOUND, 409: "The seat to play is not a computer player's.", **STORE_ERRORS},
    )
    def post(self, game_id: str) -> Any:
        """Let the computer players move

        Computer players move within the request that gives them the turn, up to a time
        limit; a match of computer players only that did not finish within it goes on
        from here. Needs no token: it only lets them play their turns."""
        game = load_game(store(), game_id)
        try:
            game, events = let_bots_move(store(), game, bot_settings())
        except NoBotToMoveError:
            raise Problem(
                409,
                "/problems/not-your-turn",
                "The seat to play is a person's, or the match is over: no computer player "
                "is to move.",
            ) from None
        observability.count_events(events, game.match.variant.name, game.bots)
        result = {"events": [event_view(e, None) for e in events], "state": view_of(game, None)}
        return result, 200, etag(game.version)
