"""Every operation of the API and its policy (:class:`~.policy.Policy`), by its
operationId, and every command of the background jobs (:data:`JOBS`, which no request
runs); and the commands among them, by the same name. The request hook that counts
quotas (service/api/ratelimit.py) reads the policies of the operations that change
nothing; :func:`.runner.run` applies a command's whole policy. A test walks the spec's
operations and the jobs against this table (tests/test_commands.py)."""

from __future__ import annotations

from typing import Any

from ..game import Game
from . import games, tournaments, webhooks, workers
from .context import Context
from .policy import Keeping, Policy, Scope, Who
from .runner import Act, Command

#: The text fields of a creation's body (and of an import's).
_CREATION_TEXTS = ("seats[].name", "metadata.*")
#: A command that makes games: it counts them as creations, and their computer players.
_MAKES_GAMES: dict[str, Any] = {"quotas": ("creations",), "computer_players": True}


def _keyed_by_caller(who: Who, keeping: Keeping, texts: tuple[str, ...], **more: Any) -> Policy:
    """A command whose Idempotency-Key is its caller's: a creation, a join."""
    return Policy(who, idempotency=Scope.CALLER, keeping=keeping, texts=texts, changes=True, **more)


#: The commands of the background jobs (service/play/background.py), which no request
#: runs: a worker is their caller.
JOBS: dict[str, Policy] = {
    # The computer players' job: a computer player's move (or an overdue one).
    "playDueMove": Policy(Who.WORKER, changes=True),
    # The clock's job: the move of a person whose time ran out.
    "playOverdueMove": Policy(Who.WORKER, changes=True),
    # A tournament's job: its results taken in, its next round paired and made.
    "advanceTournament": Policy(Who.WORKER, changes=True, computer_players=True),
}

POLICIES: dict[str, Policy] = {
    # Games: made and changed (commands).
    "createGame": _keyed_by_caller(
        Who.ANYONE,
        Keeping.CREATION,
        _CREATION_TEXTS,
        key_fields=("metadata", "seats[].player_id", "rated"),
        **_MAKES_GAMES,
    ),
    "createGames": _keyed_by_caller(
        Who.KEY, Keeping.ROUND, ("games[].seats[].name", "games[].metadata.*"), **_MAKES_GAMES
    ),
    "importGame": Policy(Who.KEY, quotas=("creations",), texts=_CREATION_TEXTS, changes=True),
    "rematchGame": Policy(Who.SEAT, changes=True, **_MAKES_GAMES),
    "joinGame": _keyed_by_caller(Who.ANYONE, Keeping.JOIN_SLOT, ("name",)),
    "rotateJoinCode": Policy(Who.SEAT, changes=True),
    "leaveGame": Policy(Who.SEAT, changes=True),
    "playMove": Policy(Who.SEAT, idempotency=Scope.SEAT, keeping=Keeping.SEAT_SLOT, changes=True),
    "declare": Policy(Who.SEAT, idempotency=Scope.SEAT, keeping=Keeping.SEAT_SLOT, changes=True),
    "playBotTurns": Policy(Who.VIEWER, quotas=("bots",), cost=0.3, changes=True),
    "abortGame": Policy(Who.OWNER, texts=("reason",), changes=True),
    "deleteGame": Policy(Who.OWNER, changes=True),
    "sendReaction": Policy(Who.SEAT, quotas=("reactions",), changes=True),
    # Games: read.
    "listGames": Policy(Who.KEY, quotas=("listings",), cost=0.05),
    "getGame": Policy(Who.VIEWER),
    "listLegalMoves": Policy(Who.SEAT),
    "listHandScores": Policy(Who.VIEWER),
    "getHandScore": Policy(Who.VIEWER),
    "getEventLog": Policy(Who.VIEWER),
    "readInvitation": Policy(Who.ANYONE),
    # A code alone finds its game: a quota of its own, so that codes are not guessed.
    "findInvitation": Policy(Who.ANYONE, quotas=("invitations",)),
    "streamGame": Policy(Who.VIEWER),
    "streamKeyEvents": Policy(Who.KEY),
    "getPlayer": Policy(Who.KEY),
    "listPlayers": Policy(Who.KEY, quotas=("listings",), cost=0.05),
    "getGameRecord": Policy(Who.OWNER, cost=0.05),
    "exportGames": Policy(Who.KEY, quotas=("exports",), cost=0.3),
    # The expert's searches and the stateless analyses.
    "getGameHint": Policy(Who.SEAT, quotas=("hints",), cost=0.3),
    "getGameAnalysis": Policy(Who.SEAT, quotas=("hints",), cost=0.3),
    "getPositionHint": Policy(Who.ANYONE, quotas=("hints",), cost=0.3),
    "getPositionAnalysis": Policy(Who.ANYONE, quotas=("hints",), cost=0.3),
    "positionLegalMoves": Policy(Who.ANYONE, quotas=("analysis",), cost=0.05),
    "scoreHand": Policy(Who.ANYONE, quotas=("analysis",), cost=0.05),
    # Reference.
    "listVariants": Policy(Who.ANYONE),
    "listBotLevels": Policy(Who.ANYONE),
    "listCardNames": Policy(Who.ANYONE),
    "getHealth": Policy(Who.ANYONE),
    "getReadiness": Policy(Who.ANYONE),
    # Tournaments: made (with their first round's games), read, an entrant withdrawn.
    "createTournament": _keyed_by_caller(
        Who.KEY,
        Keeping.ROUND,
        ("name", "entrants[].name", "entrants[].players[].name", "metadata.*"),
        **_MAKES_GAMES,
    ),
    "getTournament": Policy(Who.ANYONE),
    "listTournaments": Policy(Who.KEY, quotas=("listings",), cost=0.05),
    "withdrawTournamentEntrant": Policy(Who.KEY, changes=True),
    "cancelTournament": Policy(Who.KEY, changes=True),
    # Webhooks.
    "createWebhook": Policy(Who.KEY, changes=True),
    "listWebhooks": Policy(Who.KEY),
    "getWebhook": Policy(Who.KEY),
    "updateWebhook": Policy(Who.KEY, changes=True),
    "rotateWebhookSecret": Policy(Who.KEY, changes=True),
    "deleteWebhook": Policy(Who.KEY, changes=True),
    "listWebhookDeliveries": Policy(Who.KEY),
    "getWebhookDelivery": Policy(Who.KEY),
    "retryWebhookDelivery": Policy(Who.KEY, quotas=("redeliveries",), changes=True),
    "testWebhook": Policy(Who.KEY, quotas=("redeliveries",), changes=True),
    # Every failed delivery since a time: one request of the quota, its log read (1,000).
    "recoverWebhookDeliveries": Policy(Who.KEY, quotas=("redeliveries",), cost=0.05, changes=True),
    # The background jobs' commands.
    **JOBS,
}


def _command(name: str, act: Act, **hooks: Any) -> Command:
    return Command(name, POLICIES[name], act, **hooks)


def _creation(ctx: Context, game: Game | None, body: Any) -> tuple[int, int]:
    return 1, int(games.with_computers(body or {}))


def _round(ctx: Context, game: Game | None, body: Any) -> tuple[int, int]:
    return len(body["games"]), sum(games.with_computers(spec) for spec in body["games"])


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        _command("createGame", games.create, spends=_creation),
        _command("createGames", games.create_round, spends=_round),
        _command("importGame", games.import_record),
        _command(
            "rematchGame",
            games.rematch,
            spends=games.rematch_spends,
            raced=games.rematch_raced,
        ),
        _command("joinGame", games.join),
        _command("rotateJoinCode", games.rotate_join_code),
        _command("leaveGame", games.leave, committed=games.left),
        _command("playMove", games.move),
        _command("declare", games.declare),
        _command("playBotTurns", games.bots_move),
        _command("abortGame", games.abort),
        _command("deleteGame", games.delete),
        _command("sendReaction", games.react),
        _command(
            "createTournament",
            tournaments.create,
            spends=tournaments.spends,
            committed=tournaments.made,
            abandoned=tournaments.abandoned,
        ),
        _command("withdrawTournamentEntrant", tournaments.withdraw),
        _command("cancelTournament", tournaments.cancel),
        _command("advanceTournament", tournaments.advance, committed=tournaments.made),
        _command("createWebhook", webhooks.register),
        _command("updateWebhook", webhooks.update),
        _command("rotateWebhookSecret", webhooks.rotate_secret),
        _command("deleteWebhook", webhooks.remove),
        _command("retryWebhookDelivery", webhooks.redeliver),
        _command("testWebhook", webhooks.test),
        _command("recoverWebhookDeliveries", webhooks.recover),
        _command("playDueMove", workers.play_due_move),
        _command("playOverdueMove", workers.play_overdue_move),
    )
}
