"""/v1/games: create a match, read it, play it, read its hands and its log."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from .... import play
from ....engine import Status
from ....play.commands import Outcome
from ...blueprint import Blueprint
from ...commands import execute, game_headers, no_body
from ...context import server_secret, store
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
    not_modified,
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
from ...service_keys import KEY_AUTH, NOT_A_KEY
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
        reply = execute("createGame", None, body, _created)
        assert reply.game_id is not None
        headers = answers.created_headers(reply.game_id, reply.version)
        return reply.body, reply.status, {**headers, **game_headers(reply)}


def _created(outcome: Outcome) -> dict[str, Any]:
    creation = outcome.steps[0]
    assert isinstance(creation, play.Creation)
    return answers.created(creation, creation.tokens)


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
        execute("deleteGame", game_id, None, no_body)
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
        reply = execute("abortGame", game_id, body, _spectated)
        return reply.body, 200, etag(reply.version)


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
        reply = execute("playMove", game_id, body, _moved)
        return reply.body, reply.status, game_headers(reply)


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
        reply = execute("declare", game_id, body, _declared)
        return reply.body, reply.status, game_headers(reply)


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
        reply = execute("playBotTurns", game_id, None, _bot_moves)
        return reply.body, 200, etag(reply.version)


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
        reply = execute("joinGame", game_id, body, _joined)
        return reply.body, reply.status, game_headers(reply)


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
        reply = execute(
            "rotateJoinCode", game_id, None, lambda o: answers.join_answer(game_id, o.value)
        )
        return reply.body, 200, etag(reply.version)


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
        reply = execute("leaveGame", game_id, None, no_body)
        return "", 204, etag(reply.version)


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
        reply = execute("rematchGame", game_id, None, _rematch)
        headers = answers.created_headers(reply.body["id"], reply.version)
        return reply.body, reply.status, headers


def _moved(outcome: Outcome) -> dict[str, Any]:
    assert outcome.seat is not None
    return answers.moved(outcome.steps[0], outcome.seat)


def _declared(outcome: Outcome) -> dict[str, Any]:
    assert outcome.seat is not None
    return answers.declared(outcome.steps[0], outcome.seat)


def _joined(outcome: Outcome) -> dict[str, Any]:
    joining = outcome.steps[0]
    assert isinstance(joining, play.Joining)
    return answers.joined(joining)


def _spectated(outcome: Outcome) -> dict[str, Any]:
    """The game after the command, as a spectator (its key) sees it."""
    return answers.view_of(outcome.steps[-1].game, None)


def _bot_moves(outcome: Outcome) -> dict[str, Any]:
    step, seat = outcome.steps[0], outcome.seat
    state = answers.view_of(step.game, seat)
    return {"events": answers.events_for(step.events, seat, step.first_seq), "state": state}


def _rematch(outcome: Outcome) -> dict[str, Any]:
    following, token = outcome.value
    return {
        "id": following.id,
        "seat": outcome.seat,
        "token": token,
        "state": answers.view_of(following, outcome.seat),
    }
