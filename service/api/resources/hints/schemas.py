"""What the hint endpoints take and answer."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ....engine import DECK, get_variant
from ...fields import (
    Cards,
    Float,
    Integer,
    KeptMatta,
    Nested,
    NestedList,
    RulesField,
    StrictSchema,
    String,
    Variant,
    check_kept_matta,
    check_no_repeats,
    check_rules_fit,
)
from ...responses import ResponseSchema
from ...schemas import LegalDeclarationSchema, LegalMoveSchema, ListedMovesQuerySchema
from ...seats import AsSeat


class HintSchema(ResponseSchema):
    seat = Integer("The seat the hint is for.")
    declaration = Nested(
        LegalDeclarationSchema,
        "Cirulla: the declaration to make first, before `move`, as the "
        "expert would (docs/rules.md C3; send it to the game's `declarations`); null "
        "when there is none to make, and in every other variant.",
        allow_none=True,
    )
    move = Nested(LegalMoveSchema, "The move to play.")
    value = Float(
        "The expected point margin of the hand for your side (your "
        "side's hand points minus the best other side's) if you play this move, as "
        "the expert's search estimates it; null when there was only one legal move.",
        allow_none=True,
    )


class PositionHintSchema(StrictSchema):
    """A position as the seat to play sees it."""

    variant = Variant()
    rules = RulesField()
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
        metadata={
            "description": "The seat that dealt this hand (default: the seat before yours). "
            "Each round is played from the seat after the dealer on, so it decides which "
            "`hand_counts` can be (docs/rules.md R2.4, R3.1)."
        },
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
            "you). The seats that played before yours in this round hold one card fewer "
            "than you, the others as many (a 422 says which counts fit). The rest of the "
            "unseen cards are the stock."
        },
    )
    last_capturer = Integer(
        allow_none=True,
        validate=validate.Range(0, 5),
        metadata={"description": "The seat that captured last this hand, if any."},
    )
    matta_as = KeptMatta()

    @ma.validates_schema
    def _consistent(self, data: dict[str, Any], **kwargs: Any) -> None:
        check_rules_fit(data)
        check_kept_matta(data)
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
        check_no_repeats(
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
        check_turn_order(counts, data["seat"], data.get("dealer"), players)
        deal = players * plan.hand_size
        if stock < 0 or (stock % deal if plan.deals_again else stock):
            whole = f"a multiple of {deal}" if plan.deals_again else "none"
            raise ma.ValidationError(
                f"The cards do not add up: {seen} seen and {sum(counts) - len(data['hand'])} "
                f"in the other hands leave {stock} for the stock, which must be {whole} in "
                f"{variant.title}. Check hand_counts and piles.",
                field_name="hand_counts",
            )


def counts_in_turn(held: int, seat: int, dealer: int, players: int) -> list[int]:
    """How many cards each seat holds when ``seat`` is to play holding ``held`` and
    ``dealer`` dealt (R2.4, R3.1, R3.4): every round starts with the seat after the
    dealer, and each seat plays one card in turn, so the seats that have played before
    ``seat`` in this round hold one card fewer than it and the others as many."""
    first = (dealer + 1) % players
    played = (seat - first) % players  # seats that have played in this round
    return [held - 1 if (other - first) % players < played else held for other in range(players)]


def check_turn_order(counts: list[int], seat: int, dealer: int | None, players: int) -> None:
    """Refuse hand counts no play from a deal leads to (the search would reach a seat to
    play with no card), saying which dealer, if any, they fit."""
    dealer = (seat - 1) % players if dealer is None else dealer
    held = counts[seat]
    expected = counts_in_turn(held, seat, dealer, players)
    if list(counts) == expected:
        return
    fits = [d for d in range(players) if counts_in_turn(held, seat, d, players) == list(counts)]
    hint = f" These counts fit seat {fits[0]} as the dealer." if fits else ""
    raise ma.ValidationError(
        f"Seat {dealer} dealt, so every round is played from seat {(dealer + 1) % players} "
        f"on, one card a seat: with seat {seat} to play holding {held}, the seats that "
        f"played before it this round hold {held - 1} and the others {held}, which makes "
        f"hand_counts {expected} (R2.4, R3.1).{hint}",
        field_name="hand_counts",
    )


# -- the analysis of every move ------------------------------------------------------------

_EXPECTED = "The expected points of this category (the mean over the sampled worlds)"


class ExpectedPointsSchema(ResponseSchema):
    """A side's expected hand points by category (docs/rules.md R7, R9): the mean over
    the sampled worlds, or, when exact, the points at the end of the principal line."""

    #: The options' categories, only when the position's rules play them, and the
    #: variant's own, only in that variant (Cirulla).
    optional = frozenset({"re_bello", "napola", "grande", "piccola"})

    cards = fields.Float(metadata={"description": f"{_EXPECTED}: 1 for most cards."})
    coins = fields.Float(metadata={"description": f"{_EXPECTED}: 1 for most coins."})
    settebello = fields.Float(metadata={"description": f"{_EXPECTED}: 1 for the 7 of coins."})
    primiera = fields.Float(metadata={"description": f"{_EXPECTED}: 1 for the best primiera."})
    scopas = fields.Float(
        metadata={"description": f"{_EXPECTED}: 1 per scopa, those of the hand so far included."}
    )
    re_bello = fields.Float(
        metadata={"description": f"{_EXPECTED}: option re_bello, 1 for the king of coins."}
    )
    napola = fields.Float(
        metadata={"description": f"{_EXPECTED}: option napola, the run of coins from the ace."}
    )
    grande = fields.Float(
        metadata={
            "description": f"{_EXPECTED}: Cirulla only, 5 for the 8, 9 and 10 of coins "
            "(docs/rules.md C7.2)."
        }
    )
    piccola = fields.Float(
        metadata={
            "description": f"{_EXPECTED}: Cirulla only, 3 to `piccola_max` for the run of "
            "coins from the ace, the 3 of coins at least (docs/rules.md C7.3)."
        }
    )


class MoveAnalysisSchema(ResponseSchema):
    """One legal move and the expert's estimate of it: every estimate is null (and
    `worlds` 0) when the budget or the clock left the move unevaluated."""

    move = Nested(LegalMoveSchema, "The move.")
    evaluated = fields.Boolean(
        metadata={"description": "The move was evaluated (else every estimate is null)."}
    )
    value = Float(
        "The expected point margin of the hand for your side (your "
        "side's hand points minus the best other side's) if you play this move: the "
        "mean over the sampled worlds, or the exact minimax margin.",
        allow_none=True,
    )
    std_error = Float(
        "The standard error of `value` (0 when exact; null when the "
        "move was played in a single world).",
        allow_none=True,
    )
    interval = fields.List(
        fields.Float(),
        allow_none=True,
        validate=validate.Length(equal=2),
        metadata={
            "description": "A 95% confidence interval of the expected margin, [low, "
            "high]: `value` plus or minus 1.96 standard errors."
        },
    )
    gap = Float("The first move's `value` minus this one's (0 for the first).", allow_none=True)
    gap_std_error = Float(
        "The standard error of `gap`, world by world: every move is "
        "played in the same worlds, so a gap is much surer than the values it is the "
        "difference of (0 when exact; null with a single world).",
        allow_none=True,
    )
    worlds = Integer("The worlds this move was played in.")
    points = Nested(
        ExpectedPointsSchema, "Your side's expected points by category.", allow_none=True
    )
    others = Nested(
        ExpectedPointsSchema,
        "The expected points by category of the best other side (in "
        "each world, the other side with the most points): `value` is the sum of "
        "`points` minus the sum of `others`.",
        allow_none=True,
    )


class MoveAnalysesSchema(ResponseSchema):
    """Every legal move of the seat to play, with the expert's estimate, best first."""

    seat = Integer("The seat the analysis is for.")
    method = String(
        "`sampled`: cards are hidden from you, and every move was "
        "played in the same random deals of them, each hand finished by the greedy "
        "policy; `exact`: nothing is hidden any more, and every move has its minimax "
        "value, its points those of the principal line's end.",
        validate=validate.OneOf(["sampled", "exact"]),
    )
    legal = Integer(
        metadata={
            "description": "How many legal moves there are (all in `moves` unless `truncated`)."
        }
    )
    evaluated = Integer(
        metadata={
            "description": "How many moves were evaluated: the first ones in the order "
            "the expert tries them (its own choice first, then each card's best move), "
            "as many as the budget and the deadline allow."
        }
    )
    worlds = Integer(
        metadata={"description": "The worlds every evaluated move was played in (1 when exact)."}
    )
    cut = fields.Boolean(
        metadata={
            "description": "The deadline stopped the analysis early: fewer moves or "
            "worlds than its budget affords."
        }
    )
    categories = fields.List(
        fields.String(),
        metadata={
            "description": "The categories in `points` and `others`: R7's, the options "
            "that score (docs/rules.md R9), and in Cirulla the grande and the piccola "
            "(C7.2, C7.3). The lines settled before the first card (Cirulla's dealer "
            "bonus and declarations) are not estimated: no move changes them."
        },
    )
    moves = NestedList(
        MoveAnalysisSchema,
        "Every legal move, once: the evaluated ones best first (by "
        "`value`), then the others; unless `truncated`, then the first `limit`.",
    )
    truncated = fields.Boolean(
        required=True,
        metadata={"description": "There are more legal moves (`legal`) than `moves` lists."},
    )


class GameAnalysisQuerySchema(ListedMovesQuerySchema):
    """The analysis of a game's seat: how many moves, and the seat a service key reads
    as."""

    as_seat = AsSeat()
