"""The command path (service/play/commands/): every operation has one policy, every change
to a game goes through the one runner, and the rules the policies declare hold in every
entry point: who may, whose an Idempotency-Key is, which quota and cost a request spends,
what a player's id follows, and that a request that fails leaves no game stored."""

from __future__ import annotations

import inspect
import json
import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis
import rq
from flask import Flask, g
from flask.testing import FlaskClient

from service.api import changelog, examples
from service.api.commands import context
from service.engine import Status
from service.play import GameStore, keys, steps, workers
from service.play.budget import Budget
from service.play.commands import COMMANDS, JOBS, POLICIES, Who, run, runner
from service.play.queues import TIME_OUT, clock_queue_for, queue_connection, queues_for
from service.play.steps import BotSettings, Step
from tests.test_api_service_keys import ACME, BETA, KEYS, create, finished_game, key, seat_of_key

SPEC = json.loads((Path(__file__).parent.parent / "openapi" / "openapi.json").read_text())
OPERATIONS = {
    operation["operationId"]: (method.upper(), path)
    for path, methods in SPEC["paths"].items()
    for method, operation in methods.items()
    if isinstance(operation, dict) and "operationId" in operation
}


@pytest.fixture
def keyed(make_app: Callable[..., Flask], redis_url: str) -> Callable[..., FlaskClient]:
    def make(**settings: Any) -> FlaskClient:
        return make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, **settings).test_client()

    return make


class TestEveryOperation:
    def test_every_operation_of_the_spec_and_every_job_has_one_policy(self) -> None:
        assert set(POLICIES) == set(OPERATIONS) | set(JOBS)
        assert not set(JOBS) & set(OPERATIONS)

    def test_every_operation_that_changes_something_is_a_command(self) -> None:
        changing = {name for name, (method, _) in OPERATIONS.items() if method != "GET"}
        analyses = {"getPositionHint", "getPositionAnalysis", "positionLegalMoves", "scoreHand"}
        commands = (changing - analyses) | set(JOBS)
        assert {n for n, p in POLICIES.items() if p.changes} == commands
        assert set(COMMANDS) == commands

    def test_each_command_s_request_goes_through_the_runner(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """Each operation that changes something, asked for as its spec's example asks,
        is run by the one runner under its own name (whatever it then answers)."""
        app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS)
        ran: list[str | None] = []

        @app.after_request
        def _seen(response: Any) -> Any:
            ran.append(g.get("command"))
            return response

        client = app.test_client()
        game = create(client, seats=[{"name": "Ana"}, {"open": True}])["id"]
        for name in sorted(set(COMMANDS) - set(JOBS)):
            method, path = OPERATIONS[name]
            url = re.sub(
                r"\{(\w+)\}",
                lambda found: {"game_id": game}.get(found.group(1), "x1"),
                path,
            )
            body = examples.REQUESTS.get(name)
            headers = {**key(ACME), "X-Seat": "0"} if "{game_id}" in path else key(ACME)
            ran.clear()
            answer = client.open(url, method=method, json=body, headers=headers)
            assert ran == [name], (name, answer.status_code, answer.get_json())


class TestTheBackgroundJobs:
    """The computer players' and the clocks' jobs (service/play/background.py) change
    games through the same runner, under their catalogue's policies."""

    def test_only_a_worker_may_run_a_job_s_command(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        assert {n for n, p in POLICIES.items() if p.who is Who.WORKER} == set(JOBS)
        for name in JOBS:
            assert COMMANDS[name].policy is POLICIES[name]
            assert not POLICIES[name].quotas and not POLICIES[name].cost
        app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, BOT_TIME_LIMIT_SECONDS=0.0)
        game = create(app.test_client(), seats=[{"name": "A", "bot": "greedy"}, {"name": "B"}])
        with app.test_request_context(), pytest.raises(PermissionError):
            run(COMMANDS["playDueMove"], context(), game["id"], None)

    def test_every_move_a_job_plays_is_committed_by_the_runner(
        self, make_app: Callable[..., Flask], redis_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A match of computer players and a person's clock that ran out, their jobs
        run in this process: every commit is made within the runner's ``run``."""
        committed: list[bool] = []
        commit = GameStore.commit

        def checked(store: GameStore, step: Step, *args: Any, **kwargs: Any) -> Any:
            frame = inspect.currentframe()
            while frame is not None and frame.f_code is not runner.run.__code__:
                frame = frame.f_back
            committed.append(frame is not None)
            return commit(store, step, *args, **kwargs)

        monkeypatch.setattr(GameStore, "commit", checked)
        monkeypatch.setattr(workers, "_settings", None)  # (restored after the test)
        workers.configure(
            workers.WorkerSettings(
                redis_url=redis_url,
                ttl_seconds=600,
                redis_timeout_seconds=5.0,
                bots=BotSettings(time_limit_seconds=0.05),
                slice_seconds=0.02,  # short slices: each queues its follow-up
            )
        )
        client = make_app(
            REDIS_URL=redis_url, SERVICE_KEYS=KEYS, BOT_TIME_LIMIT_SECONDS=0.0
        ).test_client()
        bots = create(
            client,
            target=11,
            seats=[{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}],
        )
        stored = GameStore(redis.Redis.from_url(redis_url, decode_responses=True), 600)
        clocked = steps.create(steps.Setup(seed=7, clock=5, first_dealer=1), BotSettings())
        overdue = replace(clocked.game, deadline=time.time() - 1)
        stored.commit(replace(clocked, game=overdue))
        connection = queue_connection(redis_url, socket_timeout=10.0)
        clock_queue_for(connection).enqueue(TIME_OUT, overdue.id)
        committed.clear()
        queues = queues_for(connection)  # the workers' order: the clocks' first
        jobs = 0
        while (found := rq.Queue.dequeue_any(queues, None, connection=connection)) is not None:
            found[0].perform()  # (as a worker's work-horse does)
            jobs += 1
        assert stored.load(bots["id"]).status is Status.FINISHED
        timed_out = stored.load(overdue.id)
        assert timed_out.version == 2 and timed_out.match is not None
        assert jobs >= 2 and len(committed) > jobs and all(committed), (jobs, committed)
        stored.close()


class TestIdempotencyKeysAreTheCallers:
    BODY = {"seats": [{"name": "Ana"}, {"name": "Ben"}], "seed": 3}
    IDEM = {"Idempotency-Key": "3f1c0c9e-5d2b-4b8e-9a53-5b1f0d0a7e11"}

    def test_another_key_sending_the_same_key_and_body_gets_its_own_game(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        first = client.post("/v1/games", json=self.BODY, headers={**key(ACME), **self.IDEM})
        again = client.post("/v1/games", json=self.BODY, headers={**key(ACME), **self.IDEM})
        other = client.post("/v1/games", json=self.BODY, headers={**key(BETA), **self.IDEM})
        assert first.status_code == again.status_code == other.status_code == 201
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json()["id"] == first.get_json()["id"]
        assert other.get_json()["id"] != first.get_json()["id"]
        assert "Idempotent-Replayed" not in other.headers
        tokens = {s["token"] for s in first.get_json()["seats"]}
        assert not tokens & {s["token"] for s in other.get_json()["seats"]}

    def test_an_anonymous_client_elsewhere_gets_its_own_game(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        here = {"REMOTE_ADDR": "198.51.100.7"}
        there = {"REMOTE_ADDR": "203.0.113.9"}
        first = client.post("/v1/games", json=self.BODY, headers=self.IDEM, environ_base=here)
        again = client.post("/v1/games", json=self.BODY, headers=self.IDEM, environ_base=here)
        other = client.post("/v1/games", json=self.BODY, headers=self.IDEM, environ_base=there)
        keyed_one = client.post("/v1/games", json=self.BODY, headers={**key(ACME), **self.IDEM})
        assert again.get_json()["id"] == first.get_json()["id"]
        assert again.get_json()["seats"] == first.get_json()["seats"]
        ids = {r.get_json()["id"] for r in (first, other, keyed_one)}
        assert len(ids) == 3
        assert not {s["token"] for s in first.get_json()["seats"]} & {
            s["token"] for s in other.get_json()["seats"]
        }

    def test_a_join_s_key_is_the_caller_s_too(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = client.post("/v1/games", json={"seats": [{"name": "Ana"}, {"open": True}]})
        code = game.get_json()["join"]["code"]
        url = f"/v1/games/{game.get_json()['id']}/join"
        body = {"name": "Ben", "code": code}
        here = {"REMOTE_ADDR": "198.51.100.7"}
        there = {"REMOTE_ADDR": "203.0.113.9"}
        joined = client.post(url, json=body, headers=self.IDEM, environ_base=here)
        stolen = client.post(url, json=body, headers=self.IDEM, environ_base=there)
        retried = client.post(url, json=body, headers=self.IDEM, environ_base=here)
        assert joined.status_code == 200 and retried.status_code == 200
        assert retried.get_json()["token"] == joined.get_json()["token"]
        assert stolen.status_code == 409  # no seat left: it never sees the joiner's token
        assert joined.get_json()["token"] not in stolen.get_data(as_text=True)


class TestQuotasAndCosts:
    def test_an_import_counts_as_a_creation(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed(SERVICE_KEY_CREATION_LIMIT=3)
        game = finished_game(client)  # (one creation)
        record = client.get(f"/v1/games/{game}/record", headers=key(ACME)).get_json()
        assert client.post("/v1/games/import", json=record, headers=key(ACME)).status_code == 201
        assert client.post("/v1/games/import", json=record, headers=key(ACME)).status_code == 201
        refused = client.post("/v1/games/import", json=record, headers=key(ACME))
        assert refused.status_code == 429, refused.get_json()
        assert refused.get_json()["type"] == "/problems/rate-limited"

    @pytest.mark.parametrize(
        "url", ["/v1/games/export", "/v1/games?limit=5", "/v1/games/{game}/record"]
    )
    def test_exports_listings_and_records_are_refused_once_the_cost_budget_is_spent(
        self, keyed: Callable[..., FlaskClient], redis_url: str, url: str
    ) -> None:
        client = keyed(COST_BUDGET_SECONDS_PER_ADDRESS=2.0)
        url = url.format(game=finished_game(client))
        first = client.get(url, headers=key(ACME))
        assert first.status_code == 200
        first.get_data()
        stored = redis.Redis.from_url(redis_url, decode_responses=True)
        Budget(2.0).charge(stored, "key:acme", 5.0, time.time())  # its minute's computing spent
        refused = client.get(url, headers=key(ACME))
        assert refused.status_code == 429, refused.get_json()
        assert "computing" in refused.get_json()["detail"]
        assert int(refused.headers["Retry-After"]) >= 1

    def test_an_export_reads_only_the_key_s_games_that_are_over(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        client = keyed()
        over = finished_game(client)
        create(client, seats=[{"name": "Ana"}, {"name": "Ben"}])  # still being played
        stored = redis.Redis.from_url(redis_url, decode_responses=True)
        assert stored.zrange(keys.listing("acme", over=True), 0, -1) == [over]
        lines = client.get("/v1/games/export", headers=key(ACME)).get_data(as_text=True)
        assert [json.loads(line)["id"] for line in lines.splitlines()] == [over]


class TestPlayerIds:
    def test_a_player_id_leaves_with_its_holder(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        game = create(
            client,
            seats=[
                {"name": "Ana", "player_id": "u-ana"},
                {"name": "Ben", "player_id": "u-ben"},
                {"open": True},
                {"open": True},
            ],
        )
        url = f"/v1/games/{game['id']}"
        assert client.post(f"{url}/leave", headers=seat_of_key(ACME, 1)).status_code == 204
        code = game["join"]["code"]
        joined = client.post(f"{url}/join", json={"name": "Cleo", "code": code, "seat": 1})
        assert joined.status_code == 200
        assert "u-ben" not in joined.get_data(as_text=True)
        view = client.get(url, headers=key(ACME)).get_json()
        assert [s.get("player_id") for s in view["seats"]] == ["u-ana", None, None, None]
        listed = client.get("/v1/games?player_id=u-ben", headers=key(ACME)).get_json()
        assert listed["games"] == []
        still = client.get("/v1/games?player_id=u-ana", headers=key(ACME)).get_json()
        assert [g_["id"] for g_ in still["games"]] == [game["id"]]


class TestNoFailureLeavesAGame:
    def test_an_imported_game_s_rematch_is_made_and_played_by_its_key(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed()
        played = finished_game(client)
        record = client.get(f"/v1/games/{played}/record", headers=key(ACME)).get_json()
        for seat in record["seats"]:  # people's seats, which no token was ever given to
            seat["bot"] = None
        imported = client.post("/v1/games/import", json=record, headers=key(ACME)).get_json()
        url = f"/v1/games/{imported['id']}/rematch"
        made = client.post(url, headers=seat_of_key(ACME, 0))
        assert made.status_code == 201, made.get_json()
        assert made.get_json()["token"] is None  # its key acts for it with X-Seat
        again = client.post(url, headers=seat_of_key(ACME, 1))
        assert again.status_code == 200 and again.get_json()["id"] == made.get_json()["id"]
        following = client.get(f"/v1/games/{made.get_json()['id']}", headers=key(ACME))
        assert following.status_code == 200
        assert following.get_json()["previous"] == imported["id"]


class TestTheChangelog:
    def test_the_spec_and_docs_api_md_list_the_contract_s_changes(self) -> None:
        assert SPEC["info"]["version"] == changelog.VERSION
        assert SPEC["info"]["description"].endswith(changelog.markdown())
        api_md = (Path(__file__).parent.parent / "docs" / "api.md").read_text()
        assert api_md.endswith(changelog.markdown())
