"""How a tournament moves on (pure: a tournament and its games in, the next state and
what happened out): its first round paired (:func:`start`), each game's result taken as
it ends and, once a round's tables all have one, the round finished and the next one
paired or the tournament finished (:func:`advance`); a withdrawal (:func:`withdraw`).

- Pairing: :mod:`service.tournaments` (FIDE's Dutch system for a Swiss, Berger tables
  for a round robin, a seeded bracket for an elimination). A bye is decided at once: a
  win in a Swiss (1 point), a round off in a round robin (0), a pass to the next round
  in an elimination.
- A game's result: the side that won it (the first side holds seat 0, and seat 2 in
  Scopone), each side's points and scopas. A game that is gone (expired unplayed) is a
  forfeit win of the better seed.
- A withdrawn entrant is not paired again; its game of the round under way, unless
  over, is a forfeit win of its opponent (:mod:`..commands.tournaments` aborts it). In
  a round robin its later games are forfeit wins of their opponents; in an elimination,
  walkovers.
- A Swiss round that cannot be paired (every pairing left would be a rematch or a
  second bye: a small field with many rounds) ends the tournament after the round
  before, as lichess's Swiss does.
- Its key may cancel it (:func:`cancel`): the games under way are aborted, and no
  round follows.
- Events (its webhooks' ``tournament.*``): ``round_started`` (with its tables),
  ``round_finished``, ``finished`` and ``cancelled`` (with the standings).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...engine import Status
from ...tournaments import (
    PairingError,
    Played,
    elimination,
    elimination_walkovers,
    round_robin,
    round_robin_forfeits,
    standings,
    swiss,
)
from ..game import Game
from ..steps import new_game_id
from .model import Format, Result, Round, Stage, Table, Tournament

#: The standings' name of each format (service/tournaments/standings.py).
STANDINGS_FORMAT = {
    Format.SWISS: "swiss",
    Format.ROUND_ROBIN: "round_robin",
    Format.SINGLE_ELIMINATION: "elimination",
}

Event = dict[str, Any]


def start(tournament: Tournament, now: float, start_at: float | None) -> Tournament:
    """The tournament with its first round paired, its games' ids chosen (made by the
    caller), to start at ``start_at`` (None: at once)."""
    first = _paired(tournament, 1, start_at, now)
    return replace(tournament, rounds=(first,))


def round_started(tournament: Tournament) -> Event:
    """The event of the current round's start: its number, start time and tables."""
    current = tournament.current
    assert current is not None
    return {
        "type": "round_started",
        "round": current.number,
        "start_at": current.start_at,
        "tables": [_table_event(t) for t in current.tables],
    }


def _table_event(table: Table) -> dict[str, Any]:
    return {
        "table": table.table,
        "first": table.first,
        "second": table.second,
        "game_id": table.game_id,
        "winner": None if table.result is None else table.result.winner,
    }


def _paired(tournament: Tournament, number: int, start_at: float | None, now: float) -> Round:
    """Round ``number``'s tables: its games with new ids, its byes decided, and in a
    round robin or an elimination, the games a withdrawn entrant was due to play
    decided as forfeits."""
    entrants = tournament.entrants()
    played = tournament.played()
    withdrawn = tournament.withdrawn(number)
    decided: list[Played] = []
    if tournament.format is Format.SWISS:
        pairings = swiss(entrants, played, number, tournament.total_rounds, withdrawn)
    elif tournament.format is Format.ROUND_ROBIN:
        pairings = round_robin(entrants, number, withdrawn)
        decided = round_robin_forfeits(entrants, number, withdrawn)
    else:
        pairings = elimination(entrants, played, number, withdrawn)
        decided = elimination_walkovers(entrants, played, number, withdrawn)
    tables: list[Table] = []
    for pairing in pairings:
        first, second = int(pairing.first), pairing.second
        if second is None:
            # A bye: a Swiss's win, a round robin's round off, an elimination's pass.
            result = Result(winner=first, forfeit=True)
            tables.append(Table(len(tables) + 1, first, None, None, result))
        else:
            tables.append(Table(len(tables) + 1, first, int(second), new_game_id()))
    for forfeit in decided:
        assert forfeit.second is not None and forfeit.winner is not None
        result = Result(winner=int(forfeit.winner), forfeit=True)
        tables.append(Table(len(tables) + 1, int(forfeit.first), int(forfeit.second), None, result))
    made = not any(t.game_id for t in tables)  # (a round of byes and forfeits has no game)
    return Round(number, tuple(tables), start_at=start_at, paired_at=now, made=made)


def result_of(table: Table, game: Game | None) -> Result | None:
    """The table's result once its game is over (None while it is played): its winner
    and each side's points and scopas; a game gone, a forfeit of the better seed."""
    if game is None or game.status is Status.ABORTED:
        better = min(table.first, table.second or table.first)
        return Result(winner=better, forfeit=True)
    if game.status is not Status.FINISHED:
        return None
    match = game.playing
    assert match.winner is not None and table.second is not None
    scopas = [0, 0]
    for hand in match.hand_scores:
        for side in hand["teams"]:
            scopas[side["team"]] += side["scopas"]
    winner = table.first if match.winner == 0 else table.second
    return Result(winner, (match.scores[0], match.scores[1]), (scopas[0], scopas[1]))


def advance(
    tournament: Tournament, games: Mapping[str, Game | None], now: float | None = None
) -> tuple[Tournament, list[Event]] | None:
    """The tournament once the results of its current round's games over (``games``, by
    id: each of the round's, None for one gone) are in; and, if the round is over, with
    the round finished and the next paired (to start at its set time, or at once) or the
    tournament finished. None if nothing changed."""
    current = tournament.current
    if tournament.stage is not Stage.PLAYING or current is None:
        return None
    when = time.time() if now is None else now
    tables = []
    for table in current.tables:
        if table.result is None and table.game_id is not None and table.game_id in games:
            table = replace(table, result=result_of(table, games[table.game_id]))
        tables.append(table)
    updated = replace(current, tables=tuple(tables))
    events: list[Event] = []
    if not updated.over:
        if updated == current:
            return None
        return _with_round(tournament, updated).next_version(), events
    updated = replace(updated, finished_at=when)
    done = _with_round(tournament, updated)
    events.append({"type": "round_finished", "round": updated.number, "standings": table_of(done)})
    if _last(done):
        finished = done.next_version(stage=Stage.FINISHED, finished_at=when)
        events.append({"type": "finished", "standings": table_of(finished)})
        return finished, events
    number = updated.number + 1
    starts = tournament.round_starts
    at = starts[number - 2] if number - 2 < len(starts) else None
    try:
        following = _paired(done, number, at if at is not None and at > when else None, when)
    except PairingError:
        # A Swiss whose entrants have all met as FIDE's rules allow (a small field
        # with many rounds): it ends here, as lichess's do.
        finished = done.next_version(stage=Stage.FINISHED, finished_at=when)
        events.append({"type": "finished", "standings": table_of(finished)})
        return finished, events
    paired = replace(done, rounds=(*done.rounds, following)).next_version()
    events.append(round_started(paired))
    return paired, events


def _with_round(tournament: Tournament, current: Round) -> Tournament:
    return replace(tournament, rounds=(*tournament.rounds[:-1], current))


def _last(tournament: Tournament) -> bool:
    """Whether the tournament is over with its current round: its last, or an
    elimination's champion found, or fewer than two entrants left to pair."""
    current = tournament.current
    assert current is not None
    if current.number >= tournament.total_rounds:
        return True
    active = len(tournament.entries) - len(tournament.withdrawn(current.number + 1))
    return active < 2


def withdraw(tournament: Tournament, number: int) -> tuple[Tournament, str | None]:
    """The tournament with entrant ``number`` withdrawn after the current round, and its
    game of that round not over yet decided for its opponent: that game's id (the caller
    aborts it), or None."""
    current = tournament.current
    assert current is not None
    entries = list(tournament.entries)
    entries[number - 1] = replace(entries[number - 1], withdrawn_after=current.number)
    stopped = None
    tables = []
    for table in current.tables:
        if table.result is None and number in (table.first, table.second):
            opponent = table.second if table.first == number else table.first
            table = replace(table, result=Result(winner=opponent, forfeit=True))
            stopped = table.game_id
        tables.append(table)
    changed = replace(tournament, entries=tuple(entries))
    return _with_round(changed, replace(current, tables=tuple(tables))).next_version(), stopped


def cancel(tournament: Tournament, now: float) -> tuple[Tournament, list[str]]:
    """The tournament stopped by its key: no round after the current one, whose games
    not over yet have no result (their ids: the caller aborts them)."""
    current = tournament.current
    stopped = (
        []
        if current is None
        else [t.game_id for t in current.tables if t.result is None and t.game_id is not None]
    )
    return tournament.next_version(stage=Stage.CANCELLED, finished_at=now), stopped


def table_of(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings as the API and the events show them: each entrant's line, best
    first (service/tournaments/standings.py)."""
    lines = standings(
        tournament.entrants(), tournament.played(), STANDINGS_FORMAT[tournament.format]
    )
    return [
        {
            "rank": line.rank,
            "entrant": int(line.id),
            "name": tournament.entry(int(line.id)).name,
            "points": line.points,
            "buchholz": line.buchholz,
            "sonneborn_berger": line.sonneborn_berger,
            "game_points": line.game_points,
            "scopas": line.scopas,
            "played": line.played,
            "wins": line.wins,
            "losses": line.losses,
            "byes": line.byes,
            "withdrawn": tournament.entry(int(line.id)).withdrawn_after is not None,
        }
        for line in lines
    ]
