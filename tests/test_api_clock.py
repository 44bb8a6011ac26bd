"""The turn clock (docs/rules.md R12): a person who lets their time run out has the
greedy player's move played for them, marked ``timeout``; by a worker when it falls due,
or by ``POST /v1/games/{id}/bots`` where no worker runs."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.bots import make_bot
from service.engine import Match
from service.engine.match import moves_of
from service.engine.replay import comparable, replay
from service.engine.views import knowledge_of
from service.play import BotSettings, Game, NoBotToMoveError, Setup, bots_move, create
from service.play.steps import _bot_rng, move
from tests.helpers import Table
from tests.test_workers import (  # noqa: F401 - start_worker, a fixture
    assert_the_log_replays,
    start_worker,
    wait_for,
)

SETTINGS = BotSettings(time_limit_seconds=0.2, expert_budget_ms=2)


def clocked(seconds: int = 30, **setup: object) -> Game:
    return create(Setup(seed=7, clock=seconds, first_dealer=1, **setup), SETTINGS).game  # type: ignore[arg-type]


class TestTheStep:
    def test_the_person_to_play_has_until_now_plus_the_clock(self) -> None:
        before = time.time()
        game = clocked(30)
        assert game.clock == 30 and game.deadline is not None
        assert before + 30 <= game.deadline <= time.time() + 30
        assert not game.overdue(game.deadline - 0.001) and game.overdue(game.deadline)

    def test_no_clock_runs_without_one(self) -> None:
        game = create(Setup(seed=7), SETTINGS).game
        assert game.clock is None and game.deadline is None

    def test_a_computer_players_turn_has_no_deadline(self) -> None:
        game = clocked(30, bots=["greedy", None], names=["CPU", "Ann"])
        # Seat 1 dealt: the computer player in seat 0 played at once; the person's clock runs.
        assert game.playing.turn == 1 and game.deadline is not None
        slow = create(
            Setup(seed=7, clock=30, first_dealer=1, bots=["greedy", None], names=["C", "A"]),
            BotSettings(time_limit_seconds=0.0),
        ).game
        assert slow.playing.turn == 0 and slow.deadline is None

    def test_nothing_is_due_before_the_deadline(self) -> None:
        game = clocked(30)
        assert game.deadline is not None
        with pytest.raises(NoBotToMoveError):
            bots_move(game, SETTINGS, now=game.deadline - 1)

    def test_the_greedy_move_is_played_for_a_seat_whose_time_ran_out(self) -> None:
        game = clocked(30)
        assert game.deadline is not None
        match = game.playing
        seat = match.turn
        assert seat is not None
        copy = Match.from_dict(match.to_dict())
        legal = copy.hand.legal_codes()
        expected = moves_of(
            [make_bot("greedy").choose(knowledge_of(copy, seat), legal, _bot_rng(copy))]
        )[0]
        step = bots_move(game, SETTINGS, now=game.deadline + 0.5)
        first = step.events[0]
        assert first["type"] == "move" and first["seat"] == seat and first["timeout"] is True
        assert first["card"] == expected.card.code
        assert step.game.version == game.version + 1
        # The next person's clock starts from when the move was played.
        assert step.game.deadline == pytest.approx(game.deadline + 0.5 + 30)

    def test_a_move_in_time_restarts_the_clock_for_the_next_seat(self) -> None:
        game = clocked(30)
        match = game.playing
        seat = match.turn
        assert seat is not None
        card = moves_of([match.hand.legal_codes()[0]])[0]
        step = move(game, seat, card.card, list(card.capture), SETTINGS)
        assert step.game.deadline is not None and step.game.deadline >= time.time() + 29
        assert "timeout" not in step.events[0]

    def test_a_timed_out_move_replays_as_the_match_move_it_is(self) -> None:
        """docs/rules.md R3-R8: the log of a match with timeouts replays exactly."""
        game = clocked(30)
        start_events = create(Setup(seed=7, clock=30, first_dealer=1), SETTINGS).events
        assert game.deadline is not None
        step = bots_move(game, SETTINGS, now=game.deadline + 1)
        replayed = replay([*start_events, *step.events])
        assert comparable(replayed.to_dict()) == comparable(step.game.playing.to_dict())


class TestOverHttp:
    def test_the_view_shows_the_clock(self, table: Table) -> None:
        table.create(clock=30)
        clock = table.view()["clock"]
        assert clock["seconds"] == 30
        deadline = datetime.fromisoformat(clock["deadline"])
        assert 25 < deadline.timestamp() - time.time() <= 30
        table.create()
        assert table.view()["clock"] is None

    @pytest.mark.parametrize("seconds", [4, 3601, 10.5, "30"])
    def test_the_clock_is_from_5_seconds_to_an_hour(
        self, client: FlaskClient, seconds: object
    ) -> None:
        response = client.post("/v1/games", json={"clock": seconds})
        assert response.status_code == 422 and "clock" in response.json["errors"]

    def test_without_a_worker_the_bots_endpoint_plays_an_overdue_move(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        table = Table(make_app(REDIS_URL=redis_url).test_client())
        table.create(clock=5)
        early = table.client.post(table.url("/bots"))
        assert early.status_code == 409
        view = table.view()
        seat = view["turn"]
        due = datetime.fromisoformat(view["clock"]["deadline"]).timestamp()
        # Asked again and again: refused until the clock runs out, then the move is played.
        give_up = time.monotonic() + 15
        while (late := table.client.post(table.url("/bots"))).status_code == 409:
            assert time.monotonic() < give_up, late.json
            time.sleep(0.05)
        assert late.status_code == 200, late.json
        assert time.time() >= due - 0.001  # (the deadline is shown to the millisecond)
        played = late.json["events"][0]
        assert played["type"] == "move" and played["seat"] == seat and played["timeout"] is True
        log = table.client.get(table.url("/events")).get_json()["events"]
        assert log[-1]["timeout"] is True
        assert_the_log_replays(redis_url, table.game_id)


def test_a_worker_plays_for_a_person_whose_time_ran_out(
    client: FlaskClient,
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],  # noqa: F811
) -> None:
    """Nobody asks: the worker's scheduler queues the clock's job when it falls due; the
    computer player's reply follows on its own queue, and Ann's next clock runs out too
    (the job the clock's job left for it was not lost)."""
    table = Table(client)
    table.create(clock=5, seats=[{"name": "Ann"}, {"name": "CPU", "bot": "greedy"}], first_dealer=1)
    start_worker()
    assert table.view()["turn"] == 0

    def timeouts() -> list[dict[str, Any]]:
        log = table.client.get(table.url("/events")).get_json()["events"]
        return [e for e in log if e.get("timeout")]

    wait_for(lambda: len(timeouts()) == 1, 15, "a move for the seat whose time ran out")
    assert timeouts()[0]["seat"] == 0
    # The computer player answers, and Ann's clock runs again.
    wait_for(lambda: table.view()["turn"] == 0, 15, "the computer player's reply")
    assert table.view()["clock"]["deadline"] is not None
    wait_for(lambda: len(timeouts()) == 2, 15, "Ann's second clock")
    assert [e["seat"] for e in timeouts()] == [0, 0]
    assert_the_log_replays(redis_url, table.game_id)
