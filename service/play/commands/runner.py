"""The one way a game changes: :func:`run` runs every command of the API and of the
background workers (service/play/background.py), in the same order every time.

1. its input checked: text fields (service/play/text.py) and the fields only a service
   key may send (:class:`~.policy.Policy`);
2. the game loaded (a command that makes games loads none);
3. the caller authorised: who may run it (:class:`~.policy.Who`), a service key seeing
   only its own games;
4. its quotas and its cost counted (:func:`spend`);
5. a request with an Idempotency-Key answered from the answer kept for it, if there is
   one (its scope the policy's: a seat's, or the caller's);
6. the command acted: pure steps (service/play/steps.py), and its answer made;
7. the steps committed, each with its kept answer (:func:`commit`), a retry racing its
   own first attempt answered as that attempt was;
8. what follows each commit (``Context.after_commit``: service/play/queues.py's
   ``after_commit``, which a worker does once after its slice of moves).

A command writes none of these rules itself: it declares them in its policy
(:mod:`.catalogue`) and the runner applies them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...engine import MatchOverError, NotYourTurnError
from .. import invitations
from ..game import Game
from ..idempotency import (
    JOIN_SLOTS,
    MIN_CREATION_KEY_LENGTH,
    Answer,
    IdempotentRequest,
    join_slot,
    move_slot,
    sealed,
)
from ..steps import Creation, Step, join_code, new_game_id
from ..store import GameNotFoundError, VersionConflictError
from .context import Context, Outcome, Reply
from .policy import COMPUTER_SEATS_RESERVE, Keeping, Policy, Scope, Who
from .texts import check_fields, values_at

#: An outcome's answer body, as the transport shows it.
AnswerOf = Callable[[Outcome], dict[str, Any]]
#: A command's action: the context, the game it acts on (None for one that makes
#: games), the seat it acts for, its input and the game id it was given (a creation's,
#: claimed for its Idempotency-Key).
Act = Callable[[Context, Game | None, int | None, Any, str | None], Outcome]


@dataclass(frozen=True)
class Command:
    """A change to games: its name (the API's operationId), its policy and its action."""

    name: str
    policy: Policy
    act: Act
    #: How many times its quotas count for this input, and how many of the games it
    #: makes have computer players (with ``policy.computer_players``); default: once,
    #: none.
    spends: Callable[[Context, Game | None, Any], tuple[int, int]] = lambda ctx, game, data: (
        1,
        0,
    )
    #: The outcome to answer with when its commit lost a race to another request's
    #: (None: the race is the caller's 409).
    raced: Callable[[Context, Game | None, Outcome], Outcome | None] | None = None
    #: What follows its commits besides what follows every commit (a seat that left:
    #: its player id's listing).
    committed: Callable[[Context, Game | None, Outcome], None] | None = None
    #: What to undo besides the games it made when its commits fail (a tournament
    #: stored for the games that could not be).
    abandoned: Callable[[Context, Outcome], None] | None = None


def no_answer(outcome: Outcome) -> dict[str, Any]:
    """The answer of a command that answers with its status alone (a worker's)."""
    return {}


def run(
    command: Command,
    ctx: Context,
    game_id: str | None,
    data: Any,
    answer: AnswerOf = no_answer,
    *,
    loaded: Game | None = None,
) -> Reply:
    """Run ``command`` for the game ``game_id`` (None: it makes games) with ``data``,
    its answer's body made by ``answer`` (see the module's docstring). ``loaded`` is the
    game as its caller just committed it (a worker going on from its own move): it is
    not read again."""
    policy = command.policy
    check_input(policy, ctx, data)
    assert loaded is None or loaded.id == game_id, "the game loaded is the one to change"
    game = loaded if loaded is not None else _load(ctx, game_id)
    seat = authorise(policy.who, ctx, game)
    spend(policy, ctx, *command.spends(ctx, game, data))
    request = idempotent_request(command, ctx, seat, data)
    if request is not None:
        game_id, earlier = _kept(policy.keeping, ctx, request, game_id)
        if earlier is not None:
            return _replayed(policy.keeping, ctx, request, earlier, game_id)
    outcome: Outcome | None = None
    try:
        outcome = command.act(ctx, game, seat, data, game_id)
        body = answer(outcome)
        reply = Reply(outcome.status, body, outcome.version, _game_of(outcome, game_id))
        kept = None if request is None else _keep(policy.keeping, request, reply, outcome)
        _commit_all(ctx, outcome, kept, policy.keeping, command.abandoned)
    except (VersionConflictError, NotYourTurnError, MatchOverError):
        # A retry racing its own first attempt: answered as the first attempt was.
        if request is not None:
            game_id, earlier = _kept(policy.keeping, ctx, request, game_id)
            if earlier is not None:
                return _replayed(policy.keeping, ctx, request, earlier, game_id)
        lost = None
        if command.raced is not None and outcome is not None:
            lost = command.raced(ctx, game, outcome)
        if lost is None:
            raise
        return Reply(lost.status, answer(lost), lost.version, _game_of(lost, game_id))
    if command.committed is not None:
        command.committed(ctx, game, outcome)
    return reply


def _load(ctx: Context, game_id: str | None) -> Game | None:
    return ctx.store.load(game_id) if game_id is not None else None


def check_input(policy: Policy, ctx: Context, data: Any) -> None:
    """Its text fields are text (service/play/text.py: checked here alone, a display
    name normalised in ``data``), and the fields only a service key may send are not
    sent without one."""
    if policy.texts and data is not None:
        check_fields(data, policy.texts)
    if policy.key_fields and ctx.caller.key is None:
        sent = [path for path in policy.key_fields if _present(data, path)]
        if sent:
            ctx.caller.refuse_key_fields(sent)


def _present(data: Any, path: str) -> bool:
    """Whether ``data`` holds a value (not None or empty) at ``path``."""
    return any(v not in (None, "", {}, [], False) for v in values_at(data, path))


def authorise(who: Who, ctx: Context, game: Game | None) -> int | None:
    """The seat the caller acts as (None: none, or a spectator), if it may act at all;
    raises otherwise. A service key sees only its own games: another's is not found."""
    caller = ctx.caller
    if who in (Who.KEY, Who.OWNER):
        caller.require_key()
    if who is Who.WORKER:
        caller.require_worker()
    if game is None:
        return None
    if caller.key is not None and game.owner != caller.key:
        raise GameNotFoundError(game.id)
    if who is Who.SEAT:
        return caller.seat(game, required=True)
    if who in (Who.VIEWER, Who.WORKER):
        return caller.seat(game, required=False)
    return None


def spend(policy: Policy, ctx: Context, units: int = 1, computer_games: int = 0) -> None:
    """Count a request of ``policy`` against its quotas (``units`` times) and hold its
    cost; computer players it brings count against ``bots`` and hold their reserve."""
    gate = ctx.gate
    for _ in range(units):
        if policy.quotas:
            gate.charge(*policy.quotas)
    if policy.computer_players and computer_games:
        for _ in range(computer_games):
            gate.charge("bots")
        gate.afford(COMPUTER_SEATS_RESERVE)
    if policy.cost:
        gate.afford(policy.cost)


def idempotent_request(
    command: Command, ctx: Context, seat: int | None, data: Any
) -> IdempotentRequest | None:
    """The request's Idempotency-Key in the command's scope, if it sent one."""
    policy = command.policy
    if policy.idempotency is Scope.NONE:
        return None
    seat_scoped = policy.idempotency is Scope.SEAT
    key = ctx.caller.idempotency_key(1 if seat_scoped else MIN_CREATION_KEY_LENGTH)
    if key is None:
        return None
    scope = f"seat{seat}" if seat_scoped else f"{command.name}:{ctx.caller.identity}"
    slots = {Keeping.SEAT_SLOT: (move_slot(seat or 0),), Keeping.JOIN_SLOT: JOIN_SLOTS}
    return IdempotentRequest.of(
        ctx.secret, scope, key, ctx.caller.operation, data, slots.get(policy.keeping)
    )


def _kept(
    keeping: Keeping, ctx: Context, request: IdempotentRequest, game_id: str | None
) -> tuple[str | None, Answer | None]:
    """The game the request is for (a creation's: the one its key claimed) and the
    answer kept for it, if any."""
    store = ctx.store
    if keeping is Keeping.ROUND:
        return game_id, store.kept_round(request)
    if keeping is Keeping.CREATION:
        game_id = store.claim_creation(request, game_id or new_game_id())
    assert game_id is not None
    return game_id, store.earlier_answer(game_id, request)


def _keep(keeping: Keeping, request: IdempotentRequest, reply: Reply, outcome: Outcome) -> Any:
    """What the commit keeps for ``request``: (the request as kept, the answer), its
    tokens sealed with the client's key so that no usable token is stored."""
    body = (
        reply.body
        if keeping is Keeping.SEAT_SLOT
        else sealed(reply.body, request.key, reply.game_id)
    )
    if keeping is Keeping.CREATION and body.get("join") is not None:
        body["join"] = dict.fromkeys(body["join"], "")  # made again from the secret
    answer = Answer(reply.status, body, reply.version)
    if keeping is Keeping.JOIN_SLOT:
        assert outcome.seat is not None
        return request.kept_in(join_slot(outcome.seat)), answer
    return request, answer


def _replayed(
    keeping: Keeping,
    ctx: Context,
    request: IdempotentRequest,
    earlier: Answer,
    game_id: str | None,
) -> Reply:
    body = earlier.body
    if keeping is not Keeping.SEAT_SLOT:  # (a seat's answers hold no token)
        body = sealed(body, request.key, game_id)
    if keeping is Keeping.CREATION and body.get("join") is not None:
        assert game_id is not None
        game = ctx.store.load(game_id)  # the code now (it may have been rotated)
        body["join"] = ctx.join_answer(
            game_id, join_code(ctx.secret, game_id, game.join_generation)
        )
    return Reply(earlier.status, body, earlier.version, game_id, replayed=True)


def _game_of(outcome: Outcome, game_id: str | None) -> str | None:
    return outcome.steps[0].game.id if outcome.steps else game_id


def _commit_all(
    ctx: Context,
    outcome: Outcome,
    kept: Any,
    keeping: Keeping,
    abandoned: Callable[[Context, Outcome], None] | None = None,
) -> None:
    """Commit the outcome's steps in order, the kept answer with the first (or, for a
    round, once every game is stored); games made before a failing commit are deleted
    again (and what else the command says, ``abandoned``), so that a request that fails
    leaves no game stored. Then what follows each."""
    request, answer = kept if kept is not None else (None, None)
    round_ = request is not None and keeping is Keeping.ROUND
    done: list[Step] = []
    try:
        for number, step in enumerate(outcome.steps):
            first = number == 0 and not round_
            commit(ctx, step, request if first else None, answer if first else None)
            done.append(step)
        if (
            round_
            and request is not None
            and answer is not None
            and not ctx.store.keep_round(request, answer)
        ):
            raise VersionConflictError("round")  # the same round, sent twice at once
    except BaseException:
        undo(ctx, done)
        if abandoned is not None:
            abandoned(ctx, outcome)
        raise
    for step in done:
        ctx.after_commit(step)


def commit(
    ctx: Context,
    step: Step,
    request: IdempotentRequest | None = None,
    answer: Answer | None = None,
) -> None:
    """Store one step (service/play/store.py), a new game of a service key put in its
    key's listings first (a listing skips an id whose game is not stored yet), and the
    index of invitations kept (service/play/invitations.py)."""
    game = step.game
    if isinstance(step, Creation) and game.owner is not None:
        assert game.created_at is not None, "a game is created with its time"
        created_ms = int(game.created_at * 1000)  # (truncated, as its `created_at` shows it)
        ctx.store.index.add(game.owner, game.id, created_ms, game.player_ids)
    invitation = invitations.changes(ctx.secret, step)
    followed = ctx.store.commit(step, request=request, answer=answer, invitation=invitation)
    if followed:  # the streams a proxy holds hear of it now, not after
        ctx.relay.committed(step)


def undo(ctx: Context, stored: list[Step]) -> None:
    """Delete the games that ``stored`` made (the creations of a request that failed)."""
    for step in stored:
        if step.game.version == 1:
            try:
                ctx.store.delete(step.game, invitations.entry(ctx.secret, step.game))
            except Exception:  # noqa: BLE001 - best effort: it expires with the TTL otherwise
                pass


def as_creation(step: Step) -> Creation:
    """``step`` as a creation (an import's: a game stored at version 1, no tokens)."""
    if isinstance(step, Creation):
        return step
    return Creation(step.game, step.events, [None] * len(step.game.bots), len(step.events))
