"""Computer players over HTTP: seats that play themselves inside the requests, for the
requests' allowance (past it, background workers play on: tests/test_workers.py)."""

from __future__ import annotations

import random
from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient

from tests.helpers import Table


def test_a_person_against_a_greedy_bot(table: Table) -> None:
    created = table.create(seed=11, seats=[{"name": "Ana"}, {"name": "Cpu", "bot": "greedy"}])
    ana, cpu = created["seats"]
    assert ana["bot"] is None and len(ana["token"]) >= 32
    assert cpu["bot"] == "greedy" and cpu["token"] is None
    assert [s["bot"] for s in created["state"]["seats"]] == [None, "greedy"]
    # Whoever deals, when Ana's first view comes back it is her turn.
    assert table.view(0)["turn"] == 0
    rng = random.Random(3)
    bot_moves = 0
    while True:
        view = table.view(0)
        if view["status"] == "finished":
            break
        assert view["turn"] == 0, "the bot always answers inside the request"
        move = rng.choice(table.legal_moves(0))
        response = table.move(0, move["card"], move["capture"])
        assert response.status_code == 200, response.json
        body = response.get_json()
        moves = [e for e in body["events"] if e["type"] == "move"]
        assert all(e["seat"] == 1 for e in moves)
        bot_moves += len(moves)
        # Deals inside the answer show Ana her own new cards (all still in her hand,
        # since the bot moves after a deal and she has not), never the bot's.
        for event in body["events"]:
            if event["type"] == "deal" and body["state"]["status"] == "playing":
                assert set(event["cards"]) <= set(body["state"]["hand"])
    assert bot_moves > 0
    assert view["winner"] in (0, 1)


def test_a_match_of_bots_only_that_fits_the_allowance_ends_in_its_creation(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    """Computer players move within the request that gives them the turn, for the
    allowance BOT_TIME_LIMIT_SECONDS (background workers go on past it: test_workers.py)."""
    client = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=60).test_client()
    response = client.post(
        "/v1/games",
        json={"seed": 5, "seats": [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}]},
    )
    assert response.status_code == 201
    body = response.get_json()
    assert body["state"]["status"] == "finished"
    assert body["events"][-1]["type"] == "match_over"
    assert all("hands" not in e and "cards" not in e for e in body["events"])
    log = client.get(f"/v1/games/{body['id']}/events").get_json()["events"]
    assert [e["type"] for e in log].count("move") == [e["type"] for e in body["events"]].count(
        "move"
    )


def test_bots_past_their_time_limit_go_on_when_asked(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    client = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.0).test_client()
    response = client.post(
        "/v1/games",
        json={"seed": 8, "seats": [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}]},
    )
    body = response.get_json()
    assert body["state"]["status"] == "playing" and body["events"] == []
    fast = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=60).test_client()
    answer = fast.post(f"/v1/games/{body['id']}/bots")
    assert answer.status_code == 200
    assert answer.get_json()["state"]["status"] == "finished"
    again = fast.post(f"/v1/games/{body['id']}/bots")
    assert again.status_code == 409
    assert again.mimetype == "application/problem+json"


def test_asking_bots_to_move_on_a_persons_turn_is_a_conflict(table: Table) -> None:
    table.create(seed=2, first_dealer=1, seats=[{"name": "Ana"}, {"name": "Cpu", "bot": "random"}])
    response = table.client.post(table.url("/bots"))
    assert response.status_code == 409
    assert table.view()["version"] == 1


def test_an_unknown_bot_level_is_refused(client: FlaskClient) -> None:
    response = client.post(
        "/v1/games", json={"seats": [{"name": "A"}, {"name": "B", "bot": "genius"}]}
    )
    assert response.status_code == 422
    assert "seats" in response.get_json()["errors"]


def test_a_bot_seat_has_no_token_to_steal(table: Table) -> None:
    created = table.create(seats=[{"name": "Ana"}, {"name": "Cpu", "bot": "greedy"}])
    assert created["seats"][1]["token"] is None
    response = table.client.get(table.url(), headers={"Authorization": "Bearer None"})
    assert response.status_code == 401


def test_a_person_plays_a_whole_match_against_the_expert(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    """Issue 4's 'done when': a match against an expert bot, played through the API."""
    table = Table(make_app(REDIS_URL=redis_url, EXPERT_BUDGET_MS=2).test_client())
    created = table.create(
        seed=4, target=3, seats=[{"name": "Ana"}, {"name": "Esperto", "bot": "expert"}]
    )
    assert created["seats"][1]["bot"] == "expert"
    rng = random.Random(4)
    for _ in range(2000):
        view = table.view(0)
        if view["status"] == "finished":
            break
        move = rng.choice(table.legal_moves(0))
        assert table.move(0, move["card"], move["capture"]).status_code == 200
    assert view["status"] == "finished" and view["winner"] in (0, 1)
    log = table.client.get(table.url("/events")).get_json()["events"]
    assert any(e["type"] == "move" and e["seat"] == 1 for e in log)


class TestWhoMayAskBotsToMove:
    """``POST /bots`` of a game without spectators needs a seat's token, and answers only
    what its caller may see (issue 26, item 9)."""

    @staticmethod
    def waiting_for_the_bot(
        make_app: Callable[..., Flask], redis_url: str, spectators: bool
    ) -> tuple[FlaskClient, str, str]:
        """A game whose computer player (seat 1, first to play) has not moved yet."""
        slow = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=0.0).test_client()
        seats = [{"name": "Ann"}, {"name": "Cpu", "bot": "random"}]
        created = slow.post(
            "/v1/games", json={"seats": seats, "first_dealer": 0, "spectators": spectators}
        ).get_json()
        assert created["state"]["turn"] == 1 and created["events"] == []
        fast = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=60).test_client()
        return fast, created["id"], created["seats"][0]["token"]

    def test_without_spectators_a_token_is_needed(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        client, game_id, token = self.waiting_for_the_bot(make_app, redis_url, False)
        for headers in ({}, {"Authorization": "Bearer not-a-seat-token"}):
            refused = client.post(f"/v1/games/{game_id}/bots", headers=headers)
            assert refused.status_code == 401, refused.get_json()
            assert refused.mimetype == "application/problem+json"
        seat = {"Authorization": f"Bearer {token}"}
        assert client.get(f"/v1/games/{game_id}", headers=seat).get_json()["version"] == 1
        answer = client.post(f"/v1/games/{game_id}/bots", headers=seat)
        assert answer.status_code == 200
        state = answer.get_json()["state"]
        # The seat's own view, its hand included; the same as its view of the game.
        assert state["you"] == 0 and len(state["hand"]) == 3
        assert state == client.get(f"/v1/games/{game_id}", headers=seat).get_json()

    def test_with_spectators_a_token_gets_its_seats_view_and_none_a_spectators(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        client, game_id, token = self.waiting_for_the_bot(make_app, redis_url, True)
        answer = client.post(f"/v1/games/{game_id}/bots").get_json()
        assert answer["state"]["you"] is None and "hand" not in answer["state"]
        assert all("hand" not in event for event in answer["events"])
