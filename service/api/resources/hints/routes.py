"""Hints: the move the expert computer player would make, with its estimated value; and
the analysis of every legal move (service/bots/analysis.py)."""

from __future__ import annotations

import random
import secrets
from typing import Any

from flask.views import MethodView

from ....bots.advice import Advice, advise
from ....bots.analysis import Analysis, MoveEstimate, analyse
from ....bots.declaring import choose_declaration
from ....engine import Card, Knowledge, Match, Rules, Status, get_variant, move_view, parse_cards
from ....engine.moves import Declaration
from ....engine.views import knowledge_of, position_knowledge
from ...blueprint import Blueprint
from ...context import bot_settings, store
from ...game_views import NOT_FOUND, seat_operation
from ...problems import STORE_ERRORS, Problem, ProblemType
from ...schemas import ListedMovesQuerySchema, declarations_view
from ...seats import BAD_TOKEN, OR_SEAT_NAMED, SEAT_AUTH, SeatQuerySchema, seat_required
from .schemas import GameAnalysisQuerySchema, HintSchema, MoveAnalysesSchema, PositionHintSchema

blp = Blueprint(
    "hints",
    __name__,
    url_prefix="/v1",
    description="What the expert computer player would play: for a seat of a game, or for "
    "a position a client keeps itself.",
)


def _seat_to_play(game_id: str, what: str) -> tuple[Match, int]:
    """The game's match and the caller's seat, which must be the seat to play (else 409:
    ``what`` is for the seat to play)."""
    game = store().load(game_id)
    seat = seat_required(game)
    match = game.playing
    if match.status is not Status.PLAYING or match.turn != seat:
        raise Problem(
            409,
            ProblemType.NOT_YOUR_TURN,
            f"{what} is for the seat to play: it is not your turn, or the match is over.",
        )
    return match, seat


@blp.route("/games/<string:game_id>/hint")
class GameHint(MethodView):
    @blp.arguments(SeatQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, HintSchema)
    @seat_operation(
        blp,
        "getGameHint",
        {
            409: "It is not your turn, or the match is over.",
        },
        security=SEAT_AUTH,
    )
    def get(self, game_id: str, **_as_seat: int) -> Any:
        """Hint for your move

        The move the expert computer player would make for your seat now, with the
        point margin it expects from it. It sees only what your seat sees."""
        match, seat = _seat_to_play(game_id, "A hint")
        return _answer(knowledge_of(match, seat), match.table, match.legal_declarations(seat))


@blp.route("/games/<string:game_id>/analysis")
class GameAnalysis(MethodView):
    @blp.arguments(GameAnalysisQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, MoveAnalysesSchema)
    @blp.documents(
        "getGameAnalysis",
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "It is not your turn, or the match is over.",
            422: "`limit` is out of its range." + OR_SEAT_NAMED,
            **STORE_ERRORS,
        },
        security=SEAT_AUTH,
    )
    def get(self, game_id: str, limit: int, **_as_seat: int) -> Any:
        """Analysis of every move

        Every legal move of your seat now, with the point margin of the hand the
        expert computer player expects from it, its uncertainty, and the points it
        expects by category, best first. It sees only what your seat sees. Counted as
        a hint."""
        match, seat = _seat_to_play(game_id, "An analysis")
        return _analysis(knowledge_of(match, seat), match.table, limit)


@blp.route("/hint")
class PositionHint(MethodView):
    @blp.arguments(PositionHintSchema)
    @blp.response(200, HintSchema)
    @blp.documents(
        "getPositionHint",
        {422: "The position is not valid or not consistent; `errors` says where."},
    )
    def post(self, body: dict[str, Any]) -> Any:
        """Hint for a position

        The move the expert computer player would make in a position you describe:
        your hand, the table, what each seat captured, how many cards each holds."""
        table = parse_cards(body["table"])
        knowledge = knowledge_from(body)
        # three cards in hand: the seat has not played in this deal (C3.1)
        held = knowledge.hand if knowledge.hand.bit_count() == 3 else 0
        return _answer(knowledge, table, knowledge.variant.declarations(held))


@blp.route("/analysis")
class PositionAnalysis(MethodView):
    @blp.arguments(PositionHintSchema)
    @blp.arguments(ListedMovesQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, MoveAnalysesSchema)
    @blp.documents(
        "getPositionAnalysis",
        {
            422: "The position is not valid or not consistent, or `limit` is out of its "
            "range; `errors` says where."
        },
    )
    def post(self, body: dict[str, Any], limit: int) -> Any:
        """Analysis of a position

        Every legal move in a position you describe (as for a hint), with the expert's
        estimate of each, best first. Counted as a hint."""
        return _analysis(knowledge_from(body), parse_cards(body["table"]), limit)


def knowledge_from(body: dict[str, Any]) -> Knowledge:
    """What the seat to play knows in the position a hint request describes."""
    players = body["players"]
    seat = body["seat"]
    return position_knowledge(
        get_variant(body["variant"]),
        Rules.from_dict(body["rules"]),
        seat=seat,
        players=players,
        dealer=body.get("dealer", (seat - 1) % players),
        hand=parse_cards(body["hand"]),
        table=parse_cards(body["table"]),
        piles=[parse_cards(p) for p in body.get("piles") or [[]] * players],
        scopas=body.get("scopas") or [0] * players,
        hand_counts=body.get("hand_counts") or [len(body["hand"])] * players,
        last_capturer=body.get("last_capturer"),
        matta_as=body.get("matta_as"),
    )


def _answer(
    knowledge: Knowledge, table: list[Card], declarations: list[Declaration]
) -> dict[str, Any]:
    """The expert's advice: the declaration it would make among ``declarations`` (the
    legal ones), and its move."""
    budget_ms = bot_settings().expert_budget_ms
    rng = random.Random(secrets.randbits(64))
    declared = choose_declaration("expert", declarations, rng)
    advice: Advice = advise(knowledge, rng, budget_ms)
    return {
        "seat": knowledge.seat,
        "declaration": declarations_view([declared])[0] if declared else None,
        "move": move_view(advice.move, table),
        "value": advice.value,
    }


def new_rng() -> random.Random:
    """A fresh generator for one hint or analysis (tests replace it to seed them)."""
    return random.Random(secrets.randbits(64))


def _analysis(knowledge: Knowledge, table: list[Card], limit: int) -> dict[str, Any]:
    """The analysis of every legal move, with the hints' budget and deadline; the first
    ``limit`` moves of it listed."""
    found: Analysis = analyse(knowledge, new_rng(), bot_settings().expert_budget_ms)
    return {
        "seat": found.seat,
        "method": found.method,
        "legal": len(found.moves),
        "evaluated": found.evaluated,
        "worlds": found.worlds,
        "cut": found.cut,
        "categories": list(found.categories),
        "moves": [_estimate_view(estimate, table) for estimate in found.moves[:limit]],
        "truncated": len(found.moves) > limit,
    }


def _estimate_view(estimate: MoveEstimate, table: list[Card]) -> dict[str, Any]:
    low, high = estimate.low, estimate.high
    return {
        "move": move_view(estimate.move, table),
        "evaluated": estimate.evaluated,
        "value": estimate.value,
        "std_error": estimate.std_error,
        "interval": None if low is None or high is None else [low, high],
        "gap": estimate.gap,
        "gap_std_error": estimate.gap_std_error,
        "worlds": estimate.worlds,
        "points": estimate.points,
        "others": estimate.others,
    }
