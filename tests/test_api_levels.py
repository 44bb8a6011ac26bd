"""The levels of computer player a person can choose (GET /v1/bot-levels), and that each
plays as it says."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import config
from service.bots import BOT_LEVELS, DEFAULT_BUDGET_MS, make_bot
from service.bots.base import LEVELS
from service.bots.expert import ExpertBot
from service.bots.greedy import GreedyBot
from service.bots.random_bot import RandomBot
from service.play.steps import BotSettings

API_GUIDE = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def test_the_levels_are_listed_weakest_first(client: FlaskClient) -> None:
    response = client.get("/v1/bot-levels")
    assert response.status_code == 200
    body = response.get_json()
    levels = body["levels"]
    assert [level["level"] for level in levels] == list(BOT_LEVELS)
    assert [level["label"] for level in levels] == ["beginner", "easy", "medium", "hard"]
    ratings = [level["rating"] for level in levels]
    assert ratings[0] == 0 and ratings == sorted(set(ratings)), ratings
    # The default budget: 50 ms a move for the expert, a tenth for the apprentice.
    assert [level["thinking_ms"] for level in levels] == [0, 0, 5, 50]
    assert "make tournament" in body["ratings"]
    assert all(level["description"].endswith(".") for level in levels)


def test_the_thinking_time_follows_the_services_budget(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    client = make_app(REDIS_URL=redis_url, EXPERT_BUDGET_MS=20).test_client()
    levels = client.get("/v1/bot-levels").get_json()["levels"]
    assert [level["thinking_ms"] for level in levels] == [0, 0, 2, 20]


def test_the_service_and_the_engine_think_as_long_by_default() -> None:
    """service.config imports nothing of the service (tests/test_layers.py), so it
    states the default budget again: it must be the expert's, and the moves' steps'."""
    assert config.load({}).expert_budget_ms == DEFAULT_BUDGET_MS
    assert BotSettings().expert_budget_ms == DEFAULT_BUDGET_MS


def test_each_level_is_the_player_it_describes() -> None:
    assert isinstance(make_bot("random"), RandomBot)
    assert isinstance(make_bot("greedy"), GreedyBot)
    apprentice, expert = make_bot("apprentice", 40), make_bot("expert", 40)
    assert isinstance(apprentice, ExpertBot) and apprentice.budget_ms == pytest.approx(4)
    assert isinstance(expert, ExpertBot) and expert.budget_ms == pytest.approx(40)
    # Only the expert stops classic Scopa's playouts at a deal's end (docs/rules.md R11.6).
    assert expert.deal_end and not apprentice.deal_end
    assert make_bot("apprentice").budget_ms == pytest.approx(5)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="apprentice"):
        make_bot("master")


@pytest.mark.parametrize("players", [2, 4])
def test_every_level_plays_a_match_over_http(
    make_app: Callable[..., Flask], redis_url: str, players: int
) -> None:
    client = make_app(
        REDIS_URL=redis_url, EXPERT_BUDGET_MS=2, BOT_TIME_LIMIT_SECONDS=60
    ).test_client()
    seats = [{"bot": level} for level in ("apprentice", "random", "expert", "greedy")][:players]
    response = client.post("/v1/games", json={"seed": 3, "target": 3, "seats": seats})
    assert response.status_code == 201, response.get_json()
    state = response.get_json()["state"]
    assert state["status"] == "finished"
    assert [seat["bot"] for seat in state["seats"]] == [seat["bot"] for seat in seats]


def test_an_unknown_level_is_refused_with_the_levels_named(client: FlaskClient) -> None:
    response = client.post("/v1/games", json={"seats": [{"name": "A"}, {"bot": "master"}]})
    assert response.status_code == 422
    assert response.content_type == "application/problem+json"
    assert "apprentice" in response.get_data(as_text=True)


def test_the_api_guide_shows_the_ratings_the_service_answers() -> None:
    """docs/api.md's table of levels is the one GET /v1/bot-levels answers."""
    text = API_GUIDE.read_text(encoding="utf-8")
    for level in LEVELS:
        row = re.search(rf"^\| `{level.name}` \| {level.label} \|.*$", text, re.MULTILINE)
        assert row, f"no row in docs/api.md for {level.name}"
        assert f"| {level.rating:+d} |" in row.group(0) or (
            level.rating == 0 and "| 0 |" in row.group(0)
        ), row.group(0)
