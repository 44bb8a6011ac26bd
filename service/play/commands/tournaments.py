"""The commands on a service key's tournaments (service/play/tournaments/): make one (its
first round's games made with it, all or none), withdraw an entrant, and the worker's
advance (results taken as games end; once a round is over, the next one's games made).
Their policies are in :mod:`.catalogue`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ...engine import Rules, Status
from ...tournaments import rounds_of_elimination, rounds_of_round_robin
from .. import steps
from ..game import Game
from ..queues import queue_tournament
from ..ratings import Ratings
from ..store import GameNotFoundError
from ..tournaments import progress
from ..tournaments.model import Entry, Format, Member, Round, Table, Tournament
from ..tournaments.store import (
    TournamentChangedError,
    TournamentStore,
    new_tournament_id,
)
from ..webhooks import recording
from .context import Context, Outcome

#: How often a change to a tournament is made again when another changed it first.
ATTEMPTS = 10
#: A round's games not all made this long after it was paired are made by the next
#: tournament job (the one that paired it stopped before it committed them); sooner,
#: that job may still be committing them.
REPAIR_AFTER_SECONDS = 30.0


class TournamentRefusedError(ValueError):
    """A tournament that cannot be made, or a change it cannot take (``field`` names
    what is wrong, for a 422's ``errors``)."""

    def __init__(self, why: str, field: str = "_schema") -> None:
        super().__init__(why)
        self.field = field


def tournaments(ctx: Context) -> TournamentStore:
    return TournamentStore(ctx.store.redis, ctx.ttl_seconds)


def _rounds(format_: Format, count: int, asked: int | None) -> int:
    """How many rounds: a Swiss's as asked (fewer than its entrants), a round robin's
    and an elimination's as their entrants make them."""
    if format_ is Format.SWISS:
        if asked is None:
            raise TournamentRefusedError("A Swiss needs its number of `rounds`.", "rounds")
        if asked >= count:
            raise TournamentRefusedError(
                f"A Swiss of {count} entrants has at most {count - 1} rounds (no pair "
                "meets twice).",
                "rounds",
            )
        return asked
    if asked is not None:
        raise TournamentRefusedError(
            "Only a Swiss takes `rounds`: a round robin's and an elimination's follow "
            "from the entrants.",
            "rounds",
        )
    if format_ is Format.ROUND_ROBIN:
        return rounds_of_round_robin(count)
    return rounds_of_elimination(count)


def _entries(ctx: Context, owner: str, body: dict[str, Any]) -> tuple[Entry, ...]:
    """The entrants seeded: by their rating in the variant (a pair's, its players'
    mean), highest first, then in the order given."""
    ratings = Ratings(ctx.store)
    variant = body["variant"]
    made = []
    for order, spec in enumerate(body["entrants"]):
        members = tuple(Member(p["player_id"], p["name"], p.get("bot")) for p in spec["players"])
        records = ratings.records(owner, variant, [m.player_id for m in members])
        shown = [record.rating.display for record in records]  # (a new player's: 0)
        name = spec.get("name") or " & ".join(m.name for m in members)
        made.append((-sum(shown) / len(shown), order, name, members))
    made.sort(key=lambda entry: (entry[0], entry[1]))
    return tuple(
        Entry(number, name, members, -rating)
        for number, (rating, _, name, members) in enumerate(made, 1)
    )


def _start(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def build(ctx: Context, owner: str, body: dict[str, Any], now: float) -> Tournament:
    """The tournament a creation asks for, its first round paired."""
    format_ = Format(body["format"])
    entries = _entries(ctx, owner, body)
    sizes = {len(e.members) for e in entries}
    if len(sizes) > 1:
        raise TournamentRefusedError(
            "Every entrant has as many players: one each (Scopa) or two (Scopone pairs).",
            "entrants",
        )
    side = sizes.pop()
    try:  # the variant plays one against one, or two pairs
        steps.Setup(variant=body["variant"], players=2 * side).start()
    except ValueError as refused:
        raise TournamentRefusedError(f"{refused}", "variant") from None
    start_at = _start(body.get("start_at"))
    tournament = Tournament(
        id=new_tournament_id(),
        owner=owner,
        name=body["name"],
        format=format_,
        variant=body["variant"],
        side_size=side,
        entries=entries,
        total_rounds=_rounds(format_, len(entries), body.get("rounds")),
        target=body.get("target"),
        rules=dict(body.get("rules") or {}),
        clock=body.get("clock"),
        rated=bool(body.get("rated")),
        public=body.get("public", True),
        metadata=dict(body.get("metadata") or {}),
        round_starts=tuple(s.timestamp() for s in body.get("round_starts") or ()),
        created_at=now,
    )
    later = start_at if start_at is not None and start_at > now else None
    return progress.start(tournament, now, later)


def game_of(ctx: Context, tournament: Tournament, round_: Round, table: Table) -> steps.Creation:
    """The game of a table: the tournament's variant, target, rules and clock, its
    players' ids, names and computer players, each person's token the one
    :func:`steps.tournament_token` makes, rated if the tournament is."""
    assert table.game_id is not None
    players = tournament.seat_players(table)
    setup = steps.Setup(
        variant=tournament.variant,
        names=[p.name for p in players],
        players=len(players),
        bots=[p.bot for p in players],
        target=tournament.target,
        rules=Rules.from_dict(tournament.rules),
        spectators=tournament.public,
        clock=tournament.clock,
    )
    tokens = [
        None if p.bot else steps.tournament_token(ctx.secret, table.game_id, seat)
        for seat, p in enumerate(players)
    ]
    metadata = {
        **tournament.metadata,
        "tournament": tournament.id,
        "round": str(round_.number),
        "table": str(table.table),
    }
    return steps.create(
        setup,
        replace(ctx.bots, time_limit_seconds=0.0),  # (its computer players: in their jobs)
        table.game_id,
        tokens=tokens,
        secret=ctx.secret,
        payer=recording.payer(tournament.owner),
        owner=tournament.owner,
        player_ids=[p.player_id for p in players],
        metadata=metadata,
        start_at=round_.start_at,
        rated=tournament.rated,
        tournament=tournament.id,
    )


def create(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    """A new tournament, stored with its first round paired, and that round's games
    (committed by the runner, all or none; :func:`made` marks the round made)."""
    owner = ctx.caller.require_key()
    tournament = build(ctx, owner, body, time.time())
    first = tournament.rounds[0]
    creations = [game_of(ctx, tournament, first, t) for t in first.tables if t.game_id]
    store = tournaments(ctx)
    store.save(tournament, [progress.round_started(tournament)], new=True)
    store.index(tournament)
    queue_tournament(ctx.queue, tournament.id, "made", REPAIR_AFTER_SECONDS)
    recording.announce_tournament(ctx.queue.connection, ctx.store.redis, tournament)
    return Outcome(list(creations), status=201, value=tournament)


def abandoned(ctx: Context, outcome: Outcome) -> None:
    """A creation whose games could not all be committed: its tournament removed (its
    games were: the request failed, and makes nothing)."""
    tournament = outcome.value
    if isinstance(tournament, Tournament):
        tournaments(ctx).delete(tournament)


def made(ctx: Context, game: Game | None, outcome: Outcome) -> None:
    """After a round's games are committed: the round marked made (a worker that finds
    it not made makes the games that are missing)."""
    tournament = outcome.value
    if not outcome.steps or not isinstance(tournament, Tournament) or tournament.current is None:
        return  # (it made no game: a round being made by another job stays as it is)
    number = tournament.current.number
    store = tournaments(ctx)
    for _attempt in range(ATTEMPTS):
        stored = store.load(tournament.id)
        current = stored.current
        if current is None or current.number != number or current.made:
            return
        try:
            store.save(_made(stored))
            return
        except TournamentChangedError:
            continue


def _made(tournament: Tournament) -> Tournament:
    current = tournament.current
    assert current is not None
    return replace(
        tournament, rounds=(*tournament.rounds[:-1], replace(current, made=True))
    ).next_version()


def spends(ctx: Context, game: Game | None, body: Any) -> tuple[int, int]:
    """A tournament counts its first round's games against the creations quota, and
    those with computer players against the bots quota."""
    count = len(body["entrants"]) // 2
    computers = sum(1 for e in body["entrants"] for p in e["players"] if p.get("bot"))
    return max(count, 1), min(count, computers)


def withdraw(
    ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None
) -> Outcome:
    """Entrant ``body["entrant"]`` of tournament ``body["tournament"]`` withdrawn: not
    paired again; its game under way, if any, a forfeit win of its opponent, and aborted
    (its step committed by the runner)."""
    owner = ctx.caller.require_key()
    tournament_id = body["tournament"]
    store = tournaments(ctx)
    number = body["entrant"]
    for _attempt in range(ATTEMPTS):
        tournament = store.load(tournament_id, owner)
        if not 1 <= number <= len(tournament.entries):
            raise TournamentRefusedError(
                f"The tournament's entrants are numbered 1 to {len(tournament.entries)}.",
                "entrant",
            )
        if tournament.entry(number).withdrawn_after is not None:
            return Outcome(value=tournament)  # withdrawn already: nothing more
        if tournament.stage is not progress.Stage.PLAYING:
            raise TournamentRefusedError(f"The tournament is {tournament.stage} already.")
        changed, stopped = progress.withdraw(tournament, number)
        try:
            store.save(changed)
        except TournamentChangedError:
            continue
        aborted = _aborted(ctx, stopped, f"{tournament.entry(number).name} withdrew")
        return Outcome(aborted, value=changed)
    raise TournamentChangedError(tournament_id)


def cancel(ctx: Context, game: Game | None, seat: int | None, body: Any, _: str | None) -> Outcome:
    """Tournament ``body["tournament"]`` cancelled by its key: its games under way
    aborted (their steps committed by the runner), no round after. Over already
    (finished or cancelled): as it is."""
    owner = ctx.caller.require_key()
    tournament_id = body["tournament"]
    store = tournaments(ctx)
    for _attempt in range(ATTEMPTS):
        tournament = store.load(tournament_id, owner)
        if tournament.stage is not progress.Stage.PLAYING:
            return Outcome(value=tournament)
        changed, stopped = progress.cancel(tournament, time.time())
        event = {"type": "cancelled", "standings": progress.table_of(changed)}
        try:
            store.save(changed, [event])
        except TournamentChangedError:
            continue
        recording.announce_tournament(ctx.queue.connection, ctx.store.redis, changed)
        reason = "The tournament was cancelled."
        aborted = [step for g in stopped for step in _aborted(ctx, g, reason)]
        return Outcome(aborted, value=changed)
    raise TournamentChangedError(tournament_id)


def _aborted(ctx: Context, game_id: str | None, reason: str) -> list[steps.Step]:
    """The game ``game_id`` aborted (as none, if it is over or gone)."""
    if game_id is None:
        return []
    try:
        game = ctx.store.load(game_id)
    except GameNotFoundError:
        return []
    if game.status not in (Status.PLAYING, Status.WAITING):
        return []
    return [steps.abort(game, reason)]


def advance(
    ctx: Context, game: Game | None, seat: int | None, tournament_id: Any, _: str | None
) -> Outcome:
    """The worker's: the results of the current round's games that are over taken in;
    the round, once over, finished and the next paired, its games made (or the
    tournament finished); a round whose games were not all made, the missing ones made.
    Nothing (204) when nothing changed."""
    store = tournaments(ctx)
    for _attempt in range(ATTEMPTS):
        tournament = store.load(tournament_id)
        current = tournament.current
        if current is not None and not current.made:
            if time.time() - current.paired_at < REPAIR_AFTER_SECONDS:
                return Outcome(status=202, value=tournament)  # being made: checked later
            missing = _missing(ctx, tournament, current)
            if missing:
                return Outcome(missing, value=tournament)
            try:
                store.save(_made(tournament))
            except TournamentChangedError:
                pass
            continue
        games = _games(ctx, current.tables if current is not None else ())
        moved = progress.advance(tournament, games)
        if moved is None:
            return Outcome(status=204)
        changed, events = moved
        try:
            store.save(changed, events)
        except TournamentChangedError:
            continue
        if events:
            recording.announce_tournament(ctx.queue.connection, ctx.store.redis, changed)
        following = changed.current
        if following is None or current is None or following.number == current.number:
            return Outcome(value=changed)
        made_now = [game_of(ctx, changed, following, t) for t in following.tables if t.game_id]
        if not made_now:
            continue  # a round of byes and walkovers only: over at once, on to the next
        queue_tournament(ctx.queue, changed.id, "made", REPAIR_AFTER_SECONDS)
        return Outcome(list(made_now), value=changed)
    raise TournamentChangedError(tournament_id)


def _missing(ctx: Context, tournament: Tournament, round_: Round) -> list[steps.Step]:
    """The games of a round not made yet (its creation stopped before they were all
    committed)."""
    found: list[steps.Step] = []
    for table in round_.tables:
        if table.game_id is None or table.result is not None:
            continue
        try:
            ctx.store.load(table.game_id)
        except GameNotFoundError:
            found.append(game_of(ctx, tournament, round_, table))
    return found


def _games(ctx: Context, tables: Sequence[Table]) -> dict[str, Game | None]:
    """The games of the tables without a result, by id (None: gone)."""
    found: dict[str, Game | None] = {}
    for table in tables:
        if table.game_id is None or table.result is not None:
            continue
        try:
            found[table.game_id] = ctx.store.load(table.game_id)
        except GameNotFoundError:
            found[table.game_id] = None
    return found
