"""POST /v1/games/bulk: a round of games in one call, for a service key (a tournament's
pairings): all of them or none."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from flask import current_app
from flask.views import MethodView

from .... import play
from ....play import Answer
from ....play.idempotency import seal_token
from ... import ratelimit
from ...context import bot_only_max_target, bot_settings, committed, server_secret, store
from ...headers import CREATION_KEY_PARAMETER, REPLAYED, replayed, round_request
from ...problems import STORE_ERRORS, Problem, ProblemType, problem_of
from ...service_keys import KEY_AUTH, NOT_A_KEY, require_key
from . import answers
from .routes import blp, index, setup_of
from .schemas import MAX_BULK, BulkCreatedSchema, BulkCreateSchema


@blp.route("/bulk")
class BulkCreation(MethodView):
    @blp.arguments(BulkCreateSchema)
    @blp.response(201, BulkCreatedSchema, headers=REPLAYED)
    @blp.documents(
        "createGames",
        {
            **NOT_A_KEY,
            422: f"The body is not valid (1 to {MAX_BULK} games), or one of its games is "
            "not (`detail` names it, `games[<index>]`): a match that cannot exist, open "
            "seats with `start_at`, a `start_at` past the games' time to live. Nothing is "
            "created. Or an Idempotency-Key shorter than 16 characters, or reused with "
            "another body.",
            429: "Over the key's creations quota (each game counts) or another of its "
            "quotas; nothing is created. Retry after `Retry-After` seconds.",
            **STORE_ERRORS,
        },
        limited=False,  # its 429 is above
        security=KEY_AUTH,
        parameters=[CREATION_KEY_PARAMETER],
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Create a round of games

        For a service key: up to 100 games in one call, all or none: each is checked
        first, then all are stored, or none is (those stored are deleted again if one
        fails). Each game is as `POST /v1/games` takes it (seats with `player_id`,
        `metadata`...), and may start later (`start_at`). Each counts against the key's
        creations quota. Answers every game's id and its seats' tokens (shown only
        here, and to a retry with the same Idempotency-Key), in the order asked."""
        owner = require_key()
        request = round_request(owner, body)
        if request is not None and (earlier := store().kept_round(request)) is not None:
            return _opened(earlier, request.key)
        games: list[dict[str, Any]] = body["games"]
        starts = [_start_of(number, game) for number, game in enumerate(games)]
        with_bots = sum(1 for game in games if any(s.get("bot") for s in game.get("seats") or ()))
        for _ in games:
            ratelimit.charge("creations")
        if with_bots:
            for _ in range(with_bots):
                ratelimit.charge("bots")
            ratelimit.afford(ratelimit.COMPUTER_SEATS_RESERVE)
        creations = []
        for number, (game, start_at) in enumerate(zip(games, starts, strict=True)):
            try:
                creations.append(
                    play.create(
                        setup_of(game),
                        bot_settings(),
                        secret=server_secret(),
                        payer=ratelimit.payer(),
                        owner=owner,
                        player_ids=[seat.get("player_id") for seat in game.get("seats") or ()],
                        metadata=game.get("metadata"),
                        start_at=start_at,
                        bot_only_max_target=bot_only_max_target(),
                    )
                )
            except (ValueError, play.BotMatchTooLongError) as refused:  # (the engine's too)
                problem = problem_of(refused)
                raise Problem(
                    problem.status, problem.type, f"games[{number}]: {problem.detail}"
                ) from None
        stored: list[play.Creation] = []
        try:
            for creation in creations:
                index(creation.game)
                store().commit(creation)
                stored.append(creation)
        except BaseException:
            _undo(stored)
            raise
        answer = {
            "games": [
                {
                    "id": creation.game.id,
                    "version": creation.version,
                    "seats": answers.created(creation, creation.tokens)["seats"],
                    "start_at": answers.utc(creation.game.start_at),
                }
                for creation in creations
            ]
        }
        if request is not None:  # kept with its tokens sealed: none is stored as it is
            kept = Answer(201, _sealed(answer, request.key), 1)
            if not store().keep_round(request, kept):  # the same round, sent twice at once
                _undo(stored)
                earlier = store().kept_round(request)
                assert earlier is not None, "a round's answer is kept once"
                return _opened(earlier, request.key)
        for creation in creations:
            committed(creation)
        return answer, 201


def _start_of(number: int, game: dict[str, Any]) -> float | None:
    """A game's ``start_at`` as a UNIX time (None: now); 422 naming the game for one
    with open seats or past the games' time to live."""
    start: datetime | None = game.get("start_at")
    if start is None or start.timestamp() <= time.time():
        return None
    if any(seat.get("open") for seat in game.get("seats") or ()):
        raise _refused(number, "a game with open seats starts when they are taken: no start_at")
    ttl = int(current_app.config["GAME_TTL_SECONDS"])
    if start.timestamp() > time.time() + ttl:
        raise _refused(number, f"start_at is at most {ttl} s ahead (the games' time to live)")
    return start.timestamp()


def _refused(number: int, why: str) -> Problem:
    return Problem(
        422,
        ProblemType.VALIDATION,
        f"games[{number}]: {why}.",
        errors={"games": {str(number): {"start_at": [why]}}},
    )


def _sealed(answer: dict[str, Any], key: str) -> dict[str, Any]:
    """A round's answer with its tokens sealed with the client's ``key`` (or opened)."""
    return {
        "games": [
            {
                **game,
                "seats": [
                    seat
                    if seat["token"] is None
                    else {**seat, "token": seal_token(seat["token"], key, game["id"], seat["seat"])}
                    for seat in game["seats"]
                ],
            }
            for game in answer["games"]
        ]
    }


def _opened(earlier: Answer, key: str) -> Any:
    """The answer kept for a round, its tokens opened again."""
    body, status, headers = replayed(earlier)
    headers.pop("ETag", None)  # (a round has no one version)
    return _sealed(body, key), status, headers


def _undo(stored: list[play.Creation]) -> None:
    """Delete the games of a bulk creation stored before one failed."""
    for creation in stored:
        try:
            store().delete(creation.game)
        except Exception:  # noqa: BLE001 - best effort: it expires with the TTL otherwise
            pass
