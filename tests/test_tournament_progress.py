"""How a tournament moves on, without Redis (service/play/tournaments/progress.py): a
round's results taken in as its games end, the next round at its set time, a game gone,
a withdrawal, and a Swiss that cannot be paired any further."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.engine import Match
from service.play import Game
from service.play.tournaments import progress
from service.play.tournaments.model import Entry, Format, Member, Stage, Tournament
from service.tournaments import PairingError

NOW = 1_800_000_000.0


def tournament(
    count: int, format_: Format = Format.SWISS, rounds: int = 3, **more: Any
) -> Tournament:
    entries = tuple(
        Entry(n, f"P{n}", (Member(f"p{n}", f"P{n}", "random"),), 0.0) for n in range(1, count + 1)
    )
    made = Tournament(
        id="trn_test",
        owner="acme",
        name="Cup",
        format=format_,
        variant="scopa",
        side_size=1,
        entries=entries,
        total_rounds=rounds,
        created_at=NOW,
        **more,
    )
    return progress.start(made, NOW, None)


def finished_game(game_id: str, winner: int, seed: int = 1) -> Game:
    """A finished two-player match (a short one, played to its end) won by ``winner``'s side."""
    match, _ = Match.new(names=["A", "B"], target=1, seed=seed)
    while match.status.value == "playing":
        match.push(match.legal_moves()[0])
    if match.winner != winner:
        return finished_game(game_id, winner, seed + 1)
    return Game(id=game_id, version=9, match=match, bots=(None, None), token_hashes=(None, None))


def play_round(t: Tournament, now: float = NOW) -> tuple[Tournament, list[dict[str, Any]]]:
    """Every game of the current round won by its first side."""
    current = t.current
    assert current is not None
    games = {tb.game_id: finished_game(tb.game_id, 0) for tb in current.tables if tb.game_id}
    moved = progress.advance(t, games, now)
    assert moved is not None
    return moved


def test_a_round_ends_with_its_last_result_and_the_next_starts_at_its_set_time() -> None:
    later = NOW + 3600
    t = tournament(4, round_starts=(later, NOW - 1))
    first = t.current
    assert first is not None and len(first.tables) == 2
    # One game over: its result taken in, the round goes on.
    one = first.tables[0]
    assert one.game_id is not None
    moved = progress.advance(t, {one.game_id: finished_game(one.game_id, 1)}, NOW)
    assert moved is not None
    t, events = moved
    assert events == [] and t.current is not None and t.current.number == 1
    assert t.current.tables[0].result is not None
    assert t.current.tables[0].result.winner == one.second
    # The last one: round 1 finished, round 2 paired to start at its time.
    t, events = play_round(t)
    assert [e["type"] for e in events] == ["round_finished", "round_started"]
    assert t.current is not None and t.current.number == 2 and t.current.start_at == later
    # Round 3's time has passed: it starts when round 2 ends.
    t, events = play_round(t, NOW + 7200)
    assert t.current is not None and t.current.number == 3 and t.current.start_at is None
    t, events = play_round(t, NOW + 9000)
    assert [e["type"] for e in events] == ["round_finished", "finished"]
    assert t.stage is Stage.FINISHED and t.finished_at == NOW + 9000
    assert events[-1]["standings"] == progress.table_of(t)
    assert progress.advance(t, {}, NOW + 9999) is None  # over: nothing moves it


def test_a_game_gone_is_a_forfeit_win_of_the_better_seed() -> None:
    t = tournament(4)
    current = t.current
    assert current is not None
    table = current.tables[0]
    assert table.game_id is not None
    moved = progress.advance(t, {table.game_id: None}, NOW)
    assert moved is not None
    result = moved[0].rounds[0].tables[0].result
    assert result is not None and result.forfeit
    assert result.winner == min(table.first, table.second or table.first)


def test_a_withdrawal_forfeits_the_game_under_way_and_pairs_the_entrant_no_more() -> None:
    t = tournament(6)
    current = t.current
    assert current is not None
    table = next(tb for tb in current.tables if 2 in (tb.first, tb.second))
    t, stopped = progress.withdraw(t, 2)
    assert stopped == table.game_id
    result = t.rounds[0].tables[table.table - 1].result
    assert result is not None and result.forfeit and result.winner != 2
    t, _ = play_round(t)
    following = t.current
    assert following is not None and following.number == 2
    assert all(2 not in (tb.first, tb.second) for tb in following.tables)
    line = next(line for line in progress.table_of(t) if line["entrant"] == 2)
    assert line["withdrawn"] and line["points"] == 0


def test_a_swiss_that_cannot_be_paired_further_ends_after_its_last_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = tournament(4)

    def unpairable(*args: Any, **kwargs: Any) -> Any:
        raise PairingError("round 2: every pairing left is a rematch")

    monkeypatch.setattr(progress, "swiss", unpairable)
    t, events = play_round(t)
    assert [e["type"] for e in events] == ["round_finished", "finished"]
    assert t.stage is Stage.FINISHED and len(t.rounds) == 1


def test_a_tournament_is_kept_as_json_and_read_back_the_same() -> None:
    t, _ = play_round(tournament(5, Format.ROUND_ROBIN, rounds=5, metadata={"club": "x"}))
    again = Tournament.from_json(t.to_json())
    assert again == t and replace(again, version=9) != t


def test_an_elimination_round_of_walkovers_only_is_over_at_once() -> None:
    """Four entrants; after round 1, a finalist withdraws: the final is a walkover,
    decided as it is paired (no game to make), and the tournament ends with it."""
    t = tournament(4, Format.SINGLE_ELIMINATION, rounds=2)
    t, _ = play_round(t)  # the first sides (seeds 1 and 2) go through
    final = t.current
    assert final is not None and final.number == 2
    (table,) = final.tables
    t, stopped = progress.withdraw(t, table.second or 0)
    assert stopped == table.game_id  # its game aborted: the other finalist wins
    t, events = progress.advance(t, {}, NOW) or (t, [])
    assert [e["type"] for e in events] == ["round_finished", "finished"]
    assert progress.table_of(t)[0]["entrant"] == table.first
    # Both sides of a semi-final withdrawn before the final is paired: its winner's
    # final is a walkover.
    early = tournament(4, Format.SINGLE_ELIMINATION, rounds=2)
    early, _ = progress.withdraw(early, 2)
    early, _ = progress.withdraw(early, 3)
    early, events = play_round(early)
    walkover = early.current
    assert walkover is not None and walkover.made and walkover.over
    assert all(t.game_id is None for t in walkover.tables)
    early, events = progress.advance(early, {}, NOW) or (early, [])
    assert [e["type"] for e in events] == ["round_finished", "finished"]
