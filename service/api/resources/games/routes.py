"""/v1/games: create a match, read it, play it, read its hands and its log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import current_app
from flask.views import MethodView

from .... import play
from ....engine import Card, MatchOverError, NotYourTurnError, Rules, Status, parse_cards
from ....engine.moves import DeclarationKind
from ....play import (
    Answer,
    BotSettings,
    Game,
    Step,
    VersionConflictError,
    background,
    connections,
    live,
)
from ....play.idempotency import join_slot, seal_token
from ....play.webhooks import deletion as webhooks
from ... import ratelimit
from ...blueprint import Blueprint
from ...context import bot_only_max_target, bot_settings, committed, server_secret, store
from ...headers import (
    CREATION_KEY_PARAMETER,
    ETAG,
    IDEMPOTENCY_KEY_PARAMETER,
    IF_MATCH,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    PER_VIEWER,
    REPLAYED,
    IfNoneMatchSchema,
    creation_request,
    if_match_versions,
    join_request,
    move_request,
    not_modified,
    replayed,
    unchanged,
)
from ...problems import STORE_ERRORS, Problem, ProblemType, etag
from ...seats import (
    AS_SEAT,
    BAD_TOKEN,
    OPTIONAL_SEAT_AUTH,
    SEAT_AUTH,
    SEAT_NAMED,
    X_SEAT,
    check_owner,
    seat_of,
    seat_required,
)
from ...service_keys import KEY_AUTH, NOT_A_KEY, requesting_key, require_key
from . import answers
from .schemas import (
    AbortRequestSchema,
    BotMovesSchema,
    CreateGameSchema,
    DeclarationRequestSchema,
    DeclaredSchema,
    EventLogSchema,
    EventQuerySchema,
    GameCreatedSchema,
    GameViewSchema,
    HandListSchema,
    HandScoreSchema,
    InvitationQuerySchema,
    JoinedSchema,
    JoinInfoSchema,
    JoinRequestSchema,
    MoveRequestSchema,
    MoveResultSchema,
    RematchSchema,
    SeatMovesSchema,
)

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/v1/games",
    description="Matches: create one, read it as a seat or a spectator, play it, read its "
    "hands' scores and its event log.",
)

NOT_FOUND = {404: "No game has this id (it never existed, or it expired)."}
LOCATION = {"description": "The game's URL.", "schema": {"type": "string"}}
REMATCH_CREATED = {
    "description": "This request created the rematch (the body is as for 200).",
    "headers": {"Location": LOCATION, **ETAG},
    "content": {"application/json": {"schema": RematchSchema}},
}


def setup_of(body: dict[str, Any]) -> play.Setup:
    seats = body.get("seats")
    return play.Setup(
        variant=body["variant"],
        names=[_name_of(seat, spec) for seat, spec in enumerate(seats)] if seats else None,
        players=body.get("players"),
        bots=[s.get("bot") for s in seats] if seats else None,
        target=body.get("target"),
        rules=Rules.from_dict(body["rules"]),
        seed=body.get("seed"),
        deck=parse_cards(body["deck"]) if "deck" in body else None,
        first_dealer=body.get("first_dealer"),
        spectators=body["spectators"],
        clock=body.get("clock"),
    )


def _name_of(seat: int, spec: dict[str, Any]) -> str | None:
    """A seat's name: None for an open seat; a computer player's may be left out."""
    if spec.get("open"):
        return None
    if "name" not in spec and spec.get("bot"):
        return f"Computer {seat + 1}"
    name: str | None = spec.get("name")
    return name


@blp.route("")
class GameCollection(MethodView):
    @blp.arguments(CreateGameSchema, required=False)  # no body: every default
    @blp.response(
        201,
        GameCreatedSchema,
        headers={
            "Location": LOCATION,
            **ETAG,
            **REPLAYED,
        },
    )
    @blp.documents(
        "createGame",
        {
            422: "The body is not valid, or asks for a match that cannot exist, or for a "
            "match of computer players only to a target over the service's cap "
            "(`/problems/bot-match-too-long`); or an Idempotency-Key shorter than 16 "
            "characters, or reused with another body.",
            **STORE_ERRORS,
        },
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a match

        Deals the first hand and returns each seat's secret token (shown only here) and
        the spectator's view. A match of computer players only may be played to the
        service's cap at most (`BOT_ONLY_MAX_TARGET`; by default its variant's default
        target): they play on the background workers' time, which the games one address
        creates may spend only so much of a minute (`COST_BUDGET_SECONDS_PER_ADDRESS`;
        past it, their moves wait)."""
        if any(seat.get("bot") for seat in body.get("seats") or ()):
            ratelimit.charge("bots")
            ratelimit.afford(ratelimit.COMPUTER_SEATS_RESERVE)
        owner = requesting_key()
        player_ids = [seat.get("player_id") for seat in body.get("seats") or ()]
        if owner is None and (any(player_ids) or body.get("metadata")):
            raise Problem(
                422,
                ProblemType.VALIDATION,
                "`player_id` and `metadata` are for games a service key creates: send "
                "'Authorization: Bearer <key secret>', or leave them out.",
                errors={"metadata" if body.get("metadata") else "seats": ["Needs a service key."]},
            )
        request = creation_request(body)
        game_id = play.new_game_id()
        if request is not None:
            game_id = store().claim_creation(request, game_id)
            if (earlier := _creation_replay(game_id, request)) is not None:
                return earlier
        creation = play.create(
            setup_of(body),
            bot_settings(),
            game_id,
            secret=server_secret(),
            payer=ratelimit.payer(),
            owner=owner,
            player_ids=player_ids,
            metadata=body.get("metadata"),
            bot_only_max_target=bot_only_max_target(),
        )
        index(creation.game)
        created = answers.created(creation, creation.tokens)
        kept = None
        if request is not None:  # kept with its tokens sealed: none is stored as it is
            sealed = {**created, "seats": _sealed(created["seats"], request.key, game_id)}
            if created["join"] is not None:  # made again from the secret on a replay
                sealed["join"] = dict.fromkeys(created["join"], "")
            kept = Answer(201, sealed, creation.version)
        try:
            store().commit(creation, request=request, answer=kept)
        except VersionConflictError:  # the first request with this key created it meanwhile
            if request is None or (earlier := _creation_replay(game_id, request)) is None:
                raise
            return earlier
        committed(creation)
        return created, 201, answers.created_headers(game_id, creation.version)


def forget(game: Game) -> None:
    """What a deleted game leaves outside its keys: its streams' leases and its waiting
    jobs (best effort: they expire, or find no game, by themselves)."""
    try:
        holders = [live.holder_of(game.id, seat) for seat in (None, *range(len(game.bots)))]
        live.StreamLeases(store(), 0).forget(*holders)
        background.forget(current_app.extensions["scopa_bot_queue"], game)
    except connections.ERRORS:
        pass


def index(game: Game) -> None:
    """Put a game a service key creates in its key's listings, before it is committed
    (a listing skips an id whose game is not stored yet: service/play/listing.py)."""
    if game.owner is not None:
        assert game.created_at is not None, "a game is created with its time"
        created_ms = int(game.created_at * 1000)  # (truncated, as its `created_at` shows it)
        store().index.add(game.owner, game.id, created_ms, game.player_ids)


def _sealed(seats: list[dict[str, Any]], key: str, game_id: str) -> list[dict[str, Any]]:
    """A creation answer's seats with their tokens sealed with the client's ``key``, or,
    sealed already, opened again (:func:`seal_token` works both ways)."""
    return [
        seat
        if seat["token"] is None
        else {**seat, "token": seal_token(seat["token"], key, game_id, seat["seat"])}
        for seat in seats
    ]


def _creation_replay(game_id: str, request: play.IdempotentRequest) -> Any:
    """The first answer to a creation with this request's key, its tokens opened again;
    None if the game it names was not committed."""
    answer = store().earlier_answer(game_id, request)
    if answer is None:
        return None
    answer.body["seats"] = _sealed(answer.body["seats"], request.key, game_id)
    if answer.body.get("join") is not None:  # the code now (it may have been rotated)
        generation = store().load(game_id).join_generation
        code = play.join_code(server_secret(), game_id, generation)
        answer.body["join"] = answers.join_answer(game_id, code)
    body, status, headers = replayed(answer)
    return body, status, {**answers.created_headers(game_id, answer.version), **headers}


@blp.route("/<string:game_id>")
class GameItem(MethodView):
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.documents(
        "getGame",
        {**BAD_TOKEN, **SEAT_NAMED, **NOT_FOUND, **STORE_ERRORS},
        security=OPTIONAL_SEAT_AUTH,
        parameters=[AS_SEAT, IF_NONE_MATCH],
        responses=NOT_MODIFIED,
    )
    def get(self, game_id: str) -> Any:
        """Read a game

        With a seat's token, that seat's view (its hand included); without, a
        spectator's view. With If-None-Match, 304 while nothing has changed."""
        game = store().load(game_id)
        seat = seat_of(game, required=False)
        if not_modified(game.version):
            return unchanged(game.version)
        return answers.view_of(game, seat), 200, {**etag(game.version), **PER_VIEWER}

    @blp.response(204)
    @blp.documents(
        "deleteGame",
        {
            **NOT_A_KEY,
            404: "No game has this id, or its key did not create it (a key sees only "
            "its own games).",
            409: "The game is still waiting or being played: abort it first. Or it changed "
            "while being deleted: try again.",
            **STORE_ERRORS,
        },
        security=KEY_AUTH,
    )
    def delete(self, game_id: str) -> Any:
        """Delete a game

        For the service key that created it: a finished or aborted game is deleted at
        once, with everything the service keeps of it (its log, its kept answers, its
        place in the key's listings); its streams end (`gone`). Then it is a 404, as a
        game that never existed."""
        require_key()
        game = store().load(game_id)
        check_owner(game)
        if game.status not in (Status.FINISHED, Status.ABORTED):
            raise Problem(
                409,
                ProblemType.MATCH_NOT_OVER,
                f"The game is {game.status}: only a finished or aborted game can be "
                f"deleted. Abort it first (POST /v1/games/{game_id}/abort).",
            )
        queue, most = current_app.extensions["scopa_bot_queue"], current_app.config
        webhooks.before_delete(store(), queue.connection, game_id, most["WEBHOOK_MAX_PENDING"])
        store().delete(game)
        forget(game)
        return "", 204


@blp.route("/<string:game_id>/abort")
class AbortGame(MethodView):
    @blp.arguments(AbortRequestSchema)
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.documents(
        "abortGame",
        {
            **NOT_A_KEY,
            404: "No game has this id, or its key did not create it (a key sees only "
            "its own games).",
            409: "The game is finished or aborted already (`/problems/match-over`, "
            "`/problems/match-aborted`). Or it changed while being aborted: try again.",
            422: "`reason` is missing, empty, over 200 characters, or holds a control character.",
            **STORE_ERRORS,
        },
        security=KEY_AUTH,
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Abort a game

        For the service key that created it: stop a game that waits for people or is
        being played. Its status is `aborted`, with no winner; its log ends with an
        `aborted` event holding the reason; its streams send that event and end
        (`aborted`); its clock stops and its computer players play no more. Moves, joins
        and the like are then 409 (`/problems/match-aborted`). Answers the game as a
        spectator sees it (with every seat's `player_id`: the key's view)."""
        require_key()
        game = store().load(game_id)
        check_owner(game)
        step = play.abort(game, body["reason"])
        store().commit(step)
        committed(step)
        return answers.view_of(step.game, None), 200, etag(step.version)


@blp.route("/<string:game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, SeatMovesSchema, headers=ETAG)
    @blp.documents(
        "listLegalMoves",
        {**BAD_TOKEN, **NOT_FOUND, **SEAT_NAMED, **STORE_ERRORS},
        security=SEAT_AUTH,
        parameters=[AS_SEAT],
    )
    def get(self, game_id: str) -> Any:
        """List your legal moves

        Every legal move of your seat now, one per capture choice; empty when it is not
        your turn."""
        game = store().load(game_id)
        seat = seat_required(game)
        moves = answers.legal_moves(game, seat)
        declarations = answers.legal_declarations(game, seat)
        return {"seat": seat, "moves": moves, "declarations": declarations}, 200, etag(game.version)


@blp.route("/<string:game_id>/moves")
class Moves(MethodView):
    @blp.arguments(MoveRequestSchema)
    @blp.response(200, MoveResultSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "playMove",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "Not your turn, the match is over, or another move was stored first.",
            412: "If-Match is not the game's current version (`current_version` says it). "
            "Not for a retry with the Idempotency-Key of a move that was made: that gets "
            "the stored 200, its If-Match stale because of the move itself.",
            422: "An illegal or ambiguous move: `detail` says why, `legal_captures` lists "
            "what the card may take. Or an Idempotency-Key reused with another body."
            " Or a seat named wrong by a service key (`as_seat`, `X-Seat`).",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Play a move

        Play a card from your hand, with the table cards it captures. The computer
        players who play after you reply within the request, each one a turn of your
        `bots` quota (per address and per token); over it, they reply on a background
        worker instead, and the answer has only your move (follow the game for theirs)."""
        capture = body.get("capture")
        return _seat_step(
            game_id,
            body,
            lambda game, seat: play.move(
                game,
                seat,
                Card.parse(body["card"]),
                parse_cards(capture) if capture is not None else None,
                _replies(game, seat),
                if_match=if_match_versions(),
            ),
            answers.moved,
        )


def _replies(game: Game, seat: int) -> BotSettings:
    """How the computer players who play after ``seat`` reply within this request: each
    counts one turn against the caller's ``bots`` quota; over it, none replies here (a
    background worker plays them, charged to the game's payer)."""
    players = len(game.bots)
    following = 0
    while following < players - 1 and game.bots[(seat + 1 + following) % players]:
        following += 1
    if following and not (ratelimit.affordable() and ratelimit.allows("bots", following)):
        return replace(bot_settings(), time_limit_seconds=0.0)
    return bot_settings()


@blp.route("/<string:game_id>/declarations")
class Declarations(MethodView):
    @blp.arguments(DeclarationRequestSchema)
    @blp.response(200, DeclaredSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "declare",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "Not your turn, the match is over, or another move was stored first.",
            412: "If-Match is not the game's current version (`current_version` says it). "
            "Not for a retry with the Idempotency-Key of a move that was made: that gets "
            "the stored 200, its If-Match stale because of the move itself.",
            422: "A declaration the rules refuse (another variant, not your first turn of "
            "the deal, declared already, cards that make no such declaration, a `matta_as` "
            "the 7C cannot take): `detail` says why. Or an Idempotency-Key reused with "
            "another body."
            " Or a seat named wrong by a service key (`as_seat`, `X-Seat`).",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Declare your cards (Cirulla)

        Declare your three cards before you play the first of them (docs/rules.md C3):
        a buona (worth 9 or less) or a decino (three of a kind), with the value the `7C`
        takes if you hold it. `GET legal-moves` lists what you may declare, as entries
        to send as they are. Your cards go face up for everyone until played, the points
        go to your side, and it is still your turn: play a card next."""
        return _seat_step(
            game_id,
            body,
            lambda game, seat: play.declare(
                game,
                seat,
                DeclarationKind(body["declare"]),
                body.get("matta_as"),
                if_match=if_match_versions(),
            ),
            answers.declared,
        )


def _seat_step(
    game_id: str,
    body: dict[str, Any],
    act: Callable[[Game, int], Step],
    answer_of: Callable[[Step, int], dict[str, Any]],
) -> Any:
    """A seat's step (a move, a declaration): ``act`` for the caller's seat, committed
    with its answer (``answer_of``); a retry with the same Idempotency-Key gets the first
    answer again, also when it races its own first attempt."""
    game = store().load(game_id)
    seat = seat_required(game)
    request = move_request(seat, body)
    if request is not None and (earlier := store().earlier_answer(game_id, request)):
        return replayed(earlier)
    try:
        step = act(game, seat)
        answer = Answer(200, answer_of(step, seat), step.version)
        store().commit(step, request=request, answer=answer)
    except (VersionConflictError, NotYourTurnError, MatchOverError):
        # A retry racing its own first attempt: answer as the first attempt did.
        if request is None or (earlier := store().earlier_answer(game_id, request)) is None:
            raise
        return replayed(earlier)
    committed(step)
    return answer.body, 200, etag(step.version)


@blp.route("/<string:game_id>/hands")
class HandScores(MethodView):
    @blp.response(200, HandListSchema)
    @blp.documents(
        "listHandScores",
        {**BAD_TOKEN, **SEAT_NAMED, **NOT_FOUND, **STORE_ERRORS},
        security=OPTIONAL_SEAT_AUTH,
        parameters=[AS_SEAT],
    )
    def get(self, game_id: str) -> Any:
        """List the scores of finished hands

        Each finished hand's score, in order: every side's captures and points by
        category (docs/rules.md R7, R9), and the match totals after it."""
        game = store().load(game_id)
        seat_of(game, required=False)  # a game without spectators shows only its seats
        return {"hands": [] if game.match is None else game.match.hand_scores}


@blp.route("/<string:game_id>/hands/<int:number>")
class HandScore(MethodView):
    @blp.response(200, HandScoreSchema)
    @blp.documents(
        "getHandScore",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            404: "No game has this id, or the match has no hand with this number.",
            409: "This hand is still being played, or the match has not started.",
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
        parameters=[AS_SEAT],
    )
    def get(self, game_id: str, number: int) -> Any:
        """Read a finished hand's score

        One finished hand's score, by its number from 1 (409 while that hand is still
        being played)."""
        game = store().load(game_id)
        seat_of(game, required=False)  # a game without spectators shows only its seats
        match = game.playing
        if 1 <= number <= len(match.hand_scores):
            return match.hand_scores[number - 1]
        if number == match.hand_number and match.status is Status.PLAYING:
            raise Problem(
                409,
                ProblemType.HAND_IN_PROGRESS,
                f"Hand {number} is still being played: its score exists once it ends.",
            )
        raise Problem(
            404,
            ProblemType.HAND_NOT_FOUND,
            f"This match has no hand {number}: it has played hands 1 to {match.hand_number}.",
        )


@blp.route("/<string:game_id>/events")
class EventLog(MethodView):
    @blp.arguments(EventQuerySchema, location="query")
    # Documented as a schema, since `parameters` would replace the query's in the spec.
    @blp.arguments(IfNoneMatchSchema, location="headers", as_kwargs=True)
    @blp.response(200, EventLogSchema, headers=ETAG)
    @blp.documents(
        "getEventLog",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            422: "`after` is not an integer from -1 on."
            " Or a seat named wrong by a service key (`as_seat`, `X-Seat`).",
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
        responses=NOT_MODIFIED,
    )
    def get(self, query: dict[str, Any], game_id: str, **_headers: Any) -> Any:
        """Read the event log

        Everything that happened, in order, for replays; with `after`, only what came
        after the event of that `seq` (poll with the last `seq` you saw). Each seat sees
        the cards dealt to it; nobody sees cards dealt to another seat. With
        If-None-Match, 304 while nothing has changed."""
        game = store().load(game_id)
        seat = seat_of(game, required=False)
        if not_modified(game.version):
            return unchanged(game.version)
        start = query.get("after", -1) + 1
        version, events = store().events(game_id, start)
        shown = answers.events_for(events, seat, start)
        body = {"id": game_id, "version": version, "events": shown}
        return body, 200, {**etag(version), **PER_VIEWER}


@blp.route("/<string:game_id>/bots")
class BotTurns(MethodView):
    @blp.response(200, BotMovesSchema, headers=ETAG)
    @blp.documents(
        "playBotTurns",
        {
            **NOT_FOUND,
            **BAD_TOKEN,
            **SEAT_NAMED,
            409: "No move is due: the seat to play is a person's whose time has not run "
            "out, or the match is not being played.",
            **STORE_ERRORS,
        },
        security=OPTIONAL_SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Let the computer players move

        Computer players move within the request that gives them the turn, for a short
        allowance, and background workers play on from there. This plays their turns
        now (for the allowance) and queues the rest again: for a match that stopped
        because no worker was running. Likewise, when the person to play let their
        clock run out and no worker played for them, this plays their move (marked
        `timeout`). It only plays the moves that are due, so it needs no token where
        the game has spectators, and answers what a spectator sees; with a seat's token,
        what that seat sees. A game created with `spectators: false` needs a seat's
        token (401 without)."""
        game = store().load(game_id)
        seat = seat_of(game, required=False)  # a game without spectators: its seats only
        step = play.bots_move(game, bot_settings())
        store().commit(step)
        committed(step)
        state = answers.view_of(step.game, seat)
        result = {"events": answers.events_for(step.events, seat, step.first_seq), "state": state}
        return result, 200, etag(step.version)


@blp.route("/<string:game_id>/join")
class JoinGame(MethodView):
    @blp.arguments(InvitationQuerySchema, location="query")
    @blp.response(200, GameViewSchema, headers=ETAG)
    @blp.documents(
        "readInvitation",
        {
            403: "The join code is not this game's.",
            **NOT_FOUND,
            409: "No seat to take: the match has started.",
            422: "`code` is missing.",
            **STORE_ERRORS,
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Any:
        """Read an invitation

        For whoever has the join code, before taking a seat: the game as a spectator
        sees it (the variant, target, rules, who sits where, which seats are open),
        also when the game has no spectators."""
        game = store().load(game_id)
        check_owner(game)
        play.check_join_code(game, query["code"], server_secret())
        if game.lobby is None:
            raise play.NoOpenSeatError("the match has started: every seat is taken")
        return answers.view_of(game, None), 200, etag(game.version)

    @blp.arguments(JoinRequestSchema)
    @blp.response(200, JoinedSchema, headers={**ETAG, **REPLAYED})
    @blp.documents(
        "joinGame",
        {
            403: "The join code is not this game's.",
            **NOT_FOUND,
            409: "No seat to take: every seat is taken (the match has started), or the "
            "one asked for is. Or another change was stored first: try again.",
            422: "The body is not valid; or an Idempotency-Key shorter than 16 characters, "
            "or reused with another body.",
            **STORE_ERRORS,
        },
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any], game_id: str) -> Any:
        """Take an open seat

        With the game's join code and your name, take an open seat (the one asked for,
        or the first): the answer holds your seat's token, shown only here. When you
        take the last open seat the match starts: it is dealt, and `status` is
        `playing`. Send an Idempotency-Key to retry safely: a retry gets the same seat
        and token."""
        game = store().load(game_id)
        check_owner(game)
        request = join_request(body)
        if request is not None and (earlier := store().earlier_answer(game_id, request)):
            return _join_replay(earlier, request.key, game_id)
        joining = play.join(
            game, body["name"], body["code"], server_secret(), bot_settings(), seat=body.get("seat")
        )
        answer = answers.joined(joining)
        kept, slot = None, None
        if request is not None:  # its token sealed with the client's key
            kept = Answer(200, _sealed_join(answer, request.key, game_id), joining.version)
            slot = request.kept_in(join_slot(joining.seat))
        try:
            store().commit(joining, request=slot, answer=kept)
        except VersionConflictError:  # a retry racing its first attempt: answer as it did
            if request is None or (earlier := store().earlier_answer(game_id, request)) is None:
                raise
            return _join_replay(earlier, request.key, game_id)
        committed(joining)
        return answer, 200, etag(joining.version)


def _sealed_join(answer: dict[str, Any], key: str, game_id: str) -> dict[str, Any]:
    """A join's answer with its token sealed with the client's ``key`` (or opened)."""
    return {**answer, "token": seal_token(answer["token"], key, game_id, answer["seat"])}


def _join_replay(earlier: Answer, key: str, game_id: str) -> Any:
    body, status, headers = replayed(earlier)
    return _sealed_join(body, key, game_id), status, headers


@blp.route("/<string:game_id>/join-code")
class JoinCode(MethodView):
    @blp.response(200, JoinInfoSchema, headers=ETAG)
    @blp.documents(
        "rotateJoinCode",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            403: "The token is not the seat of whoever created the game.",
            **NOT_FOUND,
            409: "No seat to take: the match has started, so there is no code. Or another "
            "change was stored first: try again.",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Give the game a new join code

        For whoever created a game that waits for people (the token of the first person's
        seat named at creation): a new join code, and the one given out before no longer
        lets anyone join (403), for a code that reached people it should not have. The
        seats taken stay taken; the seated see the new code in their view."""
        game = store().load(game_id)
        step, code = play.rotate_join_code(game, seat_required(game), server_secret())
        store().commit(step)
        committed(step)
        return answers.join_answer(game_id, code), 200, etag(step.version)


@blp.route("/<string:game_id>/leave")
class LeaveGame(MethodView):
    @blp.response(204, headers=ETAG)
    @blp.documents(
        "leaveGame",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            **NOT_FOUND,
            409: "The match has started: a seat can leave only before. Or another change "
            "was stored first: try again.",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
    )
    def post(self, game_id: str) -> Any:
        """Leave before the match starts

        Give up your seat while the game waits for people: the seat is open again for
        anyone with the join code, and your token no longer works."""
        game = store().load(game_id)
        step = play.leave(game, seat_required(game))
        store().commit(step)
        committed(step)
        return "", 204, etag(step.version)


@blp.route("/<string:game_id>/rematch")
class Rematch(MethodView):
    @blp.response(200, RematchSchema, headers={"Location": LOCATION, **ETAG})
    @blp.documents(
        "rematchGame",
        {
            **BAD_TOKEN,
            **SEAT_NAMED,
            **NOT_FOUND,
            409: "The match is not over yet (or has not started).",
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
        parameters=[X_SEAT],
        responses={"201": REMATCH_CREATED},
    )
    def post(self, game_id: str) -> Any:
        """Play again

        After a finished match, the next one: the same seats (names, computer players),
        variant, target and rules, a new shuffle, the first deal passing to the next
        seat. The first seat to ask creates it (201) and the finished game's events get
        a `rematch` event with its id, and its view `next`; every seat then asks here
        with its own token (200) to get its token for the new match, the same each
        time. The new game's `previous` names this one. Creating it counts as a game
        created for the `creations` quota (and `bots`, with computer players) of the
        address that asks."""
        game = store().load(game_id)
        seat = seat_required(game)
        if game.next is None:
            linked = play.link_rematch(game, play.new_game_id())
            try:
                store().commit(linked)
                committed(linked)
                game = linked.game
            except VersionConflictError:  # another seat asked at the same time
                game = store().load(game_id)
            assert game.next is not None, "a rematch is linked once the match is over"
        created = False
        try:
            following = store().load(game.next)
        except play.GameNotFoundError:
            # A game created: a creation (and computer players' turns) for the quotas.
            ratelimit.charge("creations", *(["bots"] if any(game.bots) else []))
            if any(game.bots):
                ratelimit.afford(ratelimit.COMPUTER_SEATS_RESERVE)
            creation = play.rematch(game, server_secret(), bot_settings(), payer=ratelimit.payer())
            index(creation.game)
            try:
                store().commit(creation)
            except VersionConflictError:  # another seat created it at the same time
                following = store().load(game.next)
            else:
                committed(creation)
                following, created = creation.game, True
        stored_hash = game.token_hashes[seat]
        assert stored_hash is not None, "a person's seat has a token"
        body = {
            "id": following.id,
            "seat": seat,
            "token": play.rematch_token(server_secret(), following.id, seat, stored_hash),
            "state": answers.view_of(following, seat),
        }
        headers = answers.created_headers(following.id, following.version)
        return body, 201 if created else 200, headers
