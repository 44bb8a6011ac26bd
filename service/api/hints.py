"""Hints: the move the expert computer player would make, with its estimated value, for
a seat of a stored game or for a position given in the body."""

from __future__ import annotations

import random
import secrets
from typing import Any

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from marshmallow import fields, validate

from ..bots.hints import Hint, best_move
from ..engine import Rules, get_variant, team_of_seats
from ..engine.cards import DECK, parse_cards
from ..engine.hand import Hand
from ..engine.masks import FULL, cards_of, mask_of
from ..engine.match import moves_of
from ..engine.views import Knowledge, knowledge_of, move_view
from .analysis import _no_repeats, _rules_fit, _variant_field
from .blueprint import Blueprint
from .games import BAD_TOKEN, NOT_FOUND, SEAT_AUTH, load_game, seat_of, store
from .problems import STORE_ERRORS, Problem, documents
from .response_schema import ResponseSchema
from .schemas import Cards, Integer, LegalMoveSchema, RulesSchema, StrictSchema

blp = Blueprint(
    "hints",
    __name__,
    url_prefix="/v1",
    description="What the expert computer player would play: for a seat of a game, or for "
    "a position a client keeps itself.",
)


class HintSchema(ResponseSchema):
    seat = Integer(metadata={"description": "The seat the hint is for."})
    move = fields.Nested(LegalMoveSchema, metadata={"description": "The move to play."})
    value = fields.Float(
        allow_none=True,
        metadata={
            "description": "The expected point margin of the hand for your side (your "
            "side's hand points minus the best other side's) if you play this move, as "
            "the expert's search estimates it; null when there was only one legal move."
        },
    )


class PositionHintSchema(StrictSchema):
    """A position as the seat to play sees it."""

    variant = _variant_field()
    rules = fields.Nested(RulesSchema, load_default=lambda: RulesSchema().load({}))
    players = Integer(
        validate=validate.OneOf([2, 3, 4, 6]),
        metadata={"description": "Players at the table (default: the variant's fewest)."},
    )
    seat = Integer(
        load_default=0,
        validate=validate.Range(0, 5),
        metadata={"description": "The seat to play, whose hand this is (default 0)."},
    )
    dealer = Integer(
        validate=validate.Range(0, 5),
        metadata={"description": "The seat that dealt this hand (default: the seat before)."},
    )
    hand = Cards("Your cards (1 to 10).", required=True, validate=validate.Length(min=1, max=10))
    table = Cards("The cards on the table.", load_default=list, validate=validate.Length(max=36))
    piles = fields.List(
        Cards("The cards this seat captured in this hand."),
        validate=validate.Length(max=6),
        metadata={"description": "Each seat's captured cards this hand, by seat (default none)."},
    )
    scopas = fields.List(
        Integer(validate=validate.Range(0, 40)),
        validate=validate.Length(max=6),
        metadata={"description": "Each seat's scopas this hand, by seat (default none)."},
    )
    hand_counts = fields.List(
        Integer(validate=validate.Range(0, 10)),
        validate=validate.Length(max=6),
        metadata={
            "description": "How many cards each seat holds, by seat (default: as many as "
            "you). The rest of the unseen cards are the stock."
        },
    )
    last_capturer = Integer(
        allow_none=True,
        validate=validate.Range(0, 5),
        metadata={"description": "The seat that captured last this hand, if any."},
    )

    @ma.validates_schema
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        _rules_fit(data)
        variant = get_variant(data["variant"])
        players = data.setdefault("players", variant.player_counts[0])
        if players not in variant.player_counts:
            raise ma.ValidationError(
                f"{variant.title} is played by "
                f"{', '.join(map(str, variant.player_counts))} players.",
                field_name="players",
            )
        for name in ("seat", "dealer", "last_capturer"):
            if data.get(name) is not None and data[name] >= players:
                raise ma.ValidationError(f"There are {players} seats.", field_name=name)
        for name in ("piles", "scopas", "hand_counts"):
            if name in data and len(data[name]) != players:
                raise ma.ValidationError(f"Give one entry per seat ({players}).", field_name=name)
        _no_repeats(
            {"hand": [data["hand"]], "table": [data["table"]], "piles": data.get("piles", [])}
        )
        counts = data.get("hand_counts") or [len(data["hand"])] * players
        if counts[data["seat"]] != len(data["hand"]):
            raise ma.ValidationError(
                "Your own count must be the size of your hand.", field_name="hand_counts"
            )
        seen = len(data["hand"]) + len(data["table"]) + sum(map(len, data.get("piles", [])))
        stock = len(DECK) - seen - (sum(counts) - len(data["hand"]))
        plan = variant.deal_plan(players)
        if max(counts) > plan.hand_size:
            raise ma.ValidationError(
                f"In {variant.title} a hand holds at most {plan.hand_size} cards.",
                field_name="hand" if len(data["hand"]) > plan.hand_size else "hand_counts",
            )
        deal = players * plan.hand_size
        if stock < 0 or (stock % deal if plan.deals_again else stock):
            whole = f"a multiple of {deal}" if plan.deals_again else "none"
            raise ma.ValidationError(
                f"The cards do not add up: {seen} seen and {sum(counts) - len(data['hand'])} "
                f"in the other hands leave {stock} for the stock, which must be {whole} in "
                f"{variant.title}. Check hand_counts and piles.",
                field_name="hand_counts",
            )


def knowledge_from(body: dict[str, Any]) -> Knowledge:
    variant = get_variant(body["variant"])
    players = body["players"]
    seat = body["seat"]
    hand = mask_of(parse_cards(body["hand"]))
    table = mask_of(parse_cards(body["table"]))
    piles = tuple(mask_of(parse_cards(p)) for p in body.get("piles") or [[]] * players)
    counts = tuple(body.get("hand_counts") or [len(body["hand"])] * players)
    seen = hand | table
    for pile in piles:
        seen |= pile
    unseen = (FULL ^ seen).bit_count()
    return Knowledge(
        variant=variant,
        rules=Rules.from_dict(body["rules"]),
        seat=seat,
        players=players,
        teams=tuple(team_of_seats(players)),
        dealer=body.get("dealer", (seat - 1) % players),
        hand=hand,
        table=table,
        piles=piles,
        scopas=tuple(body.get("scopas") or [0] * players),
        last_capturer=body.get("last_capturer"),
        hand_counts=counts,
        stock_count=unseen - (sum(counts) - counts[seat]),
        hand_size=variant.deal_plan(players).hand_size,
        scores=(0,) * (max(team_of_seats(players)) + 1),
        target=variant.default_target,
    )


def _answer(seat: int, hint: Hint, table: int) -> dict[str, Any]:
    move = moves_of([hint.code])[0]
    return {"seat": seat, "move": move_view(move, cards_of(table)), "value": hint.value}


def _budget_ms() -> float:
    budget: float = current_app.config["EXPERT_BUDGET_MS"]
    return budget


@blp.route("/games/<string:game_id>/hint")
class GameHint(MethodView):
    @blp.response(200, HintSchema)
    @blp.doc(security=SEAT_AUTH)
    @documents(
        blp,
        {
            **BAD_TOKEN,
            **NOT_FOUND,
            409: "It is not your turn, or the match is over.",
            **STORE_ERRORS,
        },
    )
    def get(self, game_id: str) -> Any:
        """Hint for your move

        The move the expert computer player would make for your seat now, with the
        point margin it expects from it. It sees only what your seat sees."""
        game = load_game(store(), game_id)
        seat = seat_of(game, required=True)
        assert seat is not None
        match = game.match
        if match.status != "playing" or match.turn != seat:
            raise Problem(
                409,
                "/problems/not-your-turn",
                "A hint is for the seat to play: it is not your turn, or the match is over.",
            )
        hint = best_move(knowledge_of(match, seat), match.hand.legal_codes(), _rng(), _budget_ms())
        return _answer(seat, hint, match.hand.table)


@blp.route("/hint")
class PositionHint(MethodView):
    @blp.arguments(PositionHintSchema)
    @blp.response(200, HintSchema)
    @documents(blp, {422: "The position is not valid or not consistent; `errors` says where."})
    def post(self, body: dict[str, Any]) -> Any:
        """Hint for a position

        The move the expert computer player would make in a position you describe:
        your hand, the table, what each seat captured, how many cards each holds."""
        knowledge = knowledge_from(body)
        position = Hand(
            knowledge.variant,
            knowledge.rules,
            knowledge.players,
            knowledge.dealer,
            knowledge.hand_size,
            [knowledge.hand if s == knowledge.seat else 0 for s in range(knowledge.players)],
            knowledge.table,
            [],
            list(knowledge.piles),
            list(knowledge.scopas),
            knowledge.last_capturer,
            knowledge.seat,
        )
        hint = best_move(knowledge, position.legal_codes(), _rng(), _budget_ms())
        return _answer(knowledge.seat, hint, knowledge.table)


def _rng() -> random.Random:
    return random.Random(secrets.randbits(64))
