"""The commands that make and change games: each one's action, as the runner
(:mod:`.runner`) calls it; their policies are in :mod:`.catalogue`."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import orjson

from ...engine import Card, Rules, Status, parse_cards
from ...engine.moves import DeclarationKind
from .. import connections, invitations, live, queues, records, steps
from ..game import Game
from ..steps import BotSettings, Setup, Step
from ..store import GameNotFoundError, VersionConflictError
from ..webhooks import deletion
from .context import Context, Outcome
from .runner import as_creation, commit


class ReactionsClosedError(RuntimeError):
    """A reaction was sent to a game that is over."""


class NotDeletableError(RuntimeError):
    """A game still waiting or being played was asked to be deleted."""

    def __init__(self, game: Game) -> None:
        super().__init__(f"the game is {game.status}")
        self.game = game


class StartRefusedError(ValueError):
    """A bulk creation's game with a ``start_at`` it cannot have."""

    def __init__(self, number: int, why: str) -> None:
        super().__init__(why)
        self.number = number
        self.why = why


class RoundGameRefusedError(ValueError):
    """One game of a bulk creation cannot be made (the error it raised is the cause)."""

    def __init__(self, number: int, error: Exception) -> None:
        super().__init__(str(error))
        self.number = number
        self.error = error


def setup_of(body: dict[str, Any]) -> Setup:
    """What a creation's body asks for."""
    seats = body.get("seats")
    return Setup(
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


def with_computers(body: dict[str, Any]) -> bool:
    """Whether a creation's body seats a computer player."""
    return any(seat.get("bot") for seat in body.get("seats") or ())


def _create_one(
    ctx: Context, body: dict[str, Any], game_id: str | None, start_at: float | None = None
) -> steps.Creation:
    return steps.create(
        setup_of(body),
        ctx.bots,
        game_id,
        secret=ctx.secret,
        payer=ctx.caller.identity,
        owner=ctx.caller.key,
        player_ids=[seat.get("player_id") for seat in body.get("seats") or ()],
        metadata=body.get("metadata"),
        start_at=start_at,
        bot_only_max_target=ctx.bot_only_max_target,
        rated=bool(body.get("rated")),
    )


def create(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    return Outcome([_create_one(ctx, body or {}, game_id)], status=201)


def create_round(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """A bulk creation: every game checked and made first, then all committed."""
    games: list[dict[str, Any]] = body["games"]
    starts = [start_of(ctx, number, spec) for number, spec in enumerate(games)]
    made: list[Step] = []
    for number, (spec, start_at) in enumerate(zip(games, starts, strict=True)):
        try:
            made.append(_create_one(ctx, spec, None, start_at))
        except (ValueError, steps.BotMatchTooLongError) as refused:  # (the engine's too)
            raise RoundGameRefusedError(number, refused) from None
    return Outcome(made, status=201)


def start_of(ctx: Context, number: int, spec: dict[str, Any]) -> float | None:
    """A round's game's ``start_at`` as a UNIX time (None: now); StartRefusedError for
    one with open seats or past the games' time to live."""
    start: datetime | None = spec.get("start_at")
    if start is None or start.timestamp() <= time.time():
        return None
    if any(seat.get("open") for seat in spec.get("seats") or ()):
        raise StartRefusedError(
            number, "a game with open seats starts when they are taken: no start_at"
        )
    if start.timestamp() > time.time() + ctx.ttl_seconds:
        raise StartRefusedError(
            number, f"start_at is at most {ctx.ttl_seconds} s ahead (the games' time to live)"
        )
    return start.timestamp()


def import_record(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """A record replayed through the rules, stored as a finished game of the key."""
    plain = {**body, "created_at": None}
    if body.get("created_at") is not None:
        plain["created_at"] = body["created_at"].isoformat()
    owner = ctx.caller.require_key()
    return Outcome([as_creation(records.imported(plain, owner))], status=201)


def join(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None
    joining = steps.join(
        game, body["name"], body["code"], ctx.secret, ctx.bots, seat=body.get("seat")
    )
    return Outcome([joining], seat=joining.seat)


def rotate_join_code(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None and seat is not None
    step, code = steps.rotate_join_code(game, seat, ctx.secret)
    return Outcome([step], seat=seat, value=code)


def leave(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None and seat is not None
    return Outcome([steps.leave(game, seat)], status=204, seat=seat)


def left(ctx: Context, game: Game | None, outcome: Outcome) -> None:
    """After a seat left: the games of its player id no longer list this one (unless
    another seat has the same id)."""
    if game is None or game.owner is None or outcome.seat is None:
        return
    gone = game.player_id(outcome.seat)
    if gone and gone not in outcome.steps[-1].game.player_ids:
        ctx.store.index.remove_players(game.owner, game.id, [gone])


def move(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None and seat is not None
    capture = body.get("capture")
    step = steps.move(
        game,
        seat,
        Card.parse(body["card"]),
        parse_cards(capture) if capture is not None else None,
        replies(ctx, game, seat),
        if_match=ctx.caller.if_match(),
    )
    return Outcome([step], seat=seat)


def replies(ctx: Context, game: Game, seat: int) -> BotSettings:
    """How the computer players who play after ``seat`` reply within this request: each
    counts one turn against the caller's ``bots`` quota; over it, or past its cost
    budget, none replies here (a background worker plays them, charged to the game's
    payer)."""
    players = len(game.bots)
    following = 0
    while following < players - 1 and game.bots[(seat + 1 + following) % players]:
        following += 1
    if following and not (ctx.gate.affordable() and ctx.gate.allows("bots", following)):
        return replace(ctx.bots, time_limit_seconds=0.0)
    return ctx.bots


def declare(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None and seat is not None
    step = steps.declare(
        game,
        seat,
        DeclarationKind(body["declare"]),
        body.get("matta_as"),
        if_match=ctx.caller.if_match(),
    )
    return Outcome([step], seat=seat)


def bots_move(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """The moves due now (the computer players', or the one of a person whose time ran
    out), as many as the request's allowance plays (the background jobs' commands,
    one move at a time, are :mod:`.workers`')."""
    assert game is not None
    return Outcome([steps.bots_move(game, ctx.bots)], seat=seat)


class TournamentGameError(RuntimeError):
    """A tournament's game was asked to be aborted: its entrant withdraws instead."""

    def __init__(self, game: Game) -> None:
        super().__init__(f"game {game.id} is a game of tournament {game.tournament}")
        self.game = game


def abort(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    assert game is not None
    if game.tournament is not None and game.status in (Status.WAITING, Status.PLAYING):
        raise TournamentGameError(game)  # its result decides the tournament
    return Outcome([steps.abort(game, body["reason"])])


def delete(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """A finished or aborted game deleted, with all the service keeps of it."""
    assert game is not None
    if game.status not in (Status.FINISHED, Status.ABORTED):
        raise NotDeletableError(game)
    # Its events not yet delivered are recorded first, from its log: all are delivered.
    deletion.before_delete(ctx.store, ctx.queue.connection, game.id, ctx.webhooks.max_pending)
    ctx.store.delete(game, invitations.entry(ctx.secret, game))
    forget(ctx, game)
    return Outcome(status=204)


def forget(ctx: Context, game: Game) -> None:
    """What a deleted game leaves outside its keys: its streams' leases and its waiting
    jobs (best effort: they expire, or find no game, by themselves)."""
    try:
        holders = [live.holder_of(game.id, seat) for seat in (None, *range(len(game.bots)))]
        live.StreamLeases(ctx.store, 0).forget(*holders)
        queues.forget(ctx.queue, game)
    except connections.ERRORS:
        pass


def rematch(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """The match after a finished one: linked on the first ask, made by the first seat
    that asks (201), found by the others (200); each seat gets its own token for it."""
    assert game is not None and seat is not None
    game = linked_rematch(ctx, game)
    assert game.next is not None, "a rematch is linked once the match is over"
    token = rematch_token(ctx, game, seat)
    try:
        following = ctx.store.load(game.next)
    except GameNotFoundError:
        creation = steps.rematch(game, ctx.secret, ctx.bots, payer=ctx.caller.identity)
        return Outcome([creation], status=201, seat=seat, value=(creation.game, token))
    return Outcome(seat=seat, value=(following, token), at=following.version)


def linked_rematch(ctx: Context, game: Game) -> Game:
    """``game`` linked to its rematch (committed by the first seat that asks)."""
    if game.next is not None:
        return game
    linked = steps.link_rematch(game, steps.new_game_id())
    try:
        commit(ctx, linked)
    except VersionConflictError:  # another seat asked at the same time
        return ctx.store.load(game.id)
    ctx.after_commit(linked)
    return linked.game


def rematch_token(ctx: Context, game: Game, seat: int) -> str | None:
    """``seat``'s token for ``game``'s rematch; None for a seat that had no token (an
    imported game's: its key acts for it with ``X-Seat``)."""
    stored_hash = game.token_hashes[seat] if seat < len(game.token_hashes) else None
    if stored_hash is None or game.next is None:
        return None
    return steps.rematch_token(ctx.secret, game.next, seat, stored_hash)


def rematch_raced(ctx: Context, game: Game | None, outcome: Outcome) -> Outcome | None:
    """Another seat created the rematch at the same time: answer with theirs."""
    if not outcome.steps:
        return None
    following, token = outcome.value
    stored = ctx.store.load(following.id)
    return Outcome(seat=outcome.seat, value=(stored, token), at=stored.version)


def rematch_spends(ctx: Context, game: Game | None, body: Any) -> tuple[int, int]:
    """A rematch counts as a creation (with computer players, if its seats have them)
    only for the seat that makes it."""
    assert game is not None
    if game.next is not None:
        try:
            ctx.store.load(game.next)
        except GameNotFoundError:
            pass
        else:
            return 0, 0
    return 1, int(any(game.bots))


def react(
    ctx: Context, game: Game | None, seat: int | None, body: Any, game_id: str | None
) -> Outcome:
    """An emote from ``seat`` to every stream open on the game now (not stored)."""
    assert game is not None
    if game.status not in (Status.WAITING, Status.PLAYING):
        raise ReactionsClosedError(game.id)
    reaction = {"seat": seat, "emote": body["emote"], "at": _now()}
    ctx.store.publish_reaction(game.id, orjson.dumps(reaction))
    ctx.relay.reacted(game.id, reaction)
    return Outcome(status=202, seat=seat, value=reaction)


def _now() -> str:
    """Now as RFC 3339 text in UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
