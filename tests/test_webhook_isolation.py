"""Webhooks delivered apart (docs/platforms.md, "Webhooks"): one attempt has one deadline
for its whole exchange, however slowly a receiver answers; a slow or hostile receiver
holds neither a turn clock nor another key's deliveries; a redelivery asked for many
times at once is made once."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import redis
import rq
import yaml
from flask import Flask
from flask.testing import FlaskClient
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from service.play.budget import Budget
from service.play.keys import webhook_runner
from service.play.queues import queues_for
from service.play.webhooks.queueing import QUEUE_NAME
from service.play.webhooks.recording import record
from service.play.webhooks.sending import TIMEOUT_SECONDS, Attempt, send
from service.play.webhooks.store import WebhookStore
from tests.live import free_port
from tests.slow_receivers import BODY_LATER, WHOLE_ANSWER, slow_receiver
from tests.test_webhooks import ACME, BETA, KEYS, key, wait_for

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def test_an_attempt_has_one_deadline_however_slowly_the_receiver_answers() -> None:
    """Receivers that send a byte every second (each read well within any per-read
    timeout): the status line and headers trickled, or the body after prompt headers.
    Each attempt ends at the deadline, 10 s after it started, as a failure, not when the
    receiver is done (25 s)."""
    found: dict[str, tuple[Attempt, float]] = {}

    def attempt(name: str, url: str) -> None:
        started = time.monotonic()
        sent = send(url, SECRET, "msg_1", "{}", allow={"127.0.0.1"})
        found[name] = (sent, time.monotonic() - started)

    with (
        slow_receiver(trickle=WHOLE_ANSWER) as headers,
        slow_receiver(first=BODY_LATER, trickle=b"x" * 64) as body,
    ):
        threads = [
            threading.Thread(target=attempt, args=("headers", headers.url())),
            threading.Thread(target=attempt, args=("body", body.url())),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(40)
        assert headers.requests == body.requests == 1
    for name, (sent, took) in found.items():
        assert 9.5 <= took <= 11.5, (name, took)
        assert not sent.delivered, name
        assert sent.error == "no whole answer within 10 s", (name, sent)
    assert found["body"][0].status == 200  # the headers came, the answer did not, in time
    assert TIMEOUT_SECONDS == 10


CLOCKED = {"first_dealer": 1, "seats": [{"name": "Ann"}, {"name": "CPU", "bot": "greedy"}]}


def register(client: FlaskClient, secret: str, url: str) -> str:
    made = client.post(
        "/v1/webhooks", json={"url": url, "events": ["game.created"]}, headers=key(secret)
    )
    assert made.status_code == 201, made.get_json()
    return str(made.get_json()["id"])


def parse_time(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_a_hanging_receiver_holds_no_clock_and_no_other_key_s_delivery(
    make_app: Callable[..., Flask],
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    """Key acme's receiver reads each delivery and never answers: every attempt to it
    lasts the whole deadline, and acme has a delivery waiting for each of its 4 games.
    Meanwhile key beta's delivery arrives within 3 s, and a person's turn clock in
    beta's game runs out and is played within 3 s of its deadline."""
    arrived: list[float] = []

    def handle(request: Request) -> Response:
        arrived.append(time.monotonic())
        return Response("ok")

    good = HTTPServer(host="127.0.0.1", port=free_port())
    good.expect_request("/hook", method="POST").respond_with_handler(handle)
    good.start()
    with slow_receiver(most=60) as hang:
        allow = f"127.0.0.1:{hang.port},127.0.0.1:{good.port}"
        app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, WEBHOOK_ALLOW_HOSTS=allow)
        client = app.test_client()
        register(client, ACME, hang.url())
        register(client, BETA, good.url_for("/hook"))
        start_worker()  # the clocks' and computer players'
        for _ in range(2):
            start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow)
        for _ in range(4):
            made = client.post("/v1/games", json=CLOCKED, headers=key(ACME))
            assert made.status_code == 201
        wait_for(lambda: hang.requests, 30, "the hanging receiver's first delivery")
        started = time.monotonic()
        made = client.post("/v1/games", json={"clock": 5, **CLOCKED}, headers=key(BETA))
        assert made.status_code == 201
        game_id = made.get_json()["id"]
        wait_for(lambda: arrived, 3, "beta's delivery")
        assert arrived[0] - started < 3
        view = client.get(f"/v1/games/{game_id}", headers=key(BETA)).get_json()
        deadline = parse_time(view["clock"]["deadline"])

        def timed_out() -> bool:
            log = client.get(f"/v1/games/{game_id}/events", headers=key(BETA)).get_json()
            return any(e.get("timeout") for e in log["events"])

        wait_for(timed_out, deadline - time.time() + 3, "the clock's move")
        assert time.time() < deadline + 3
        # acme's attempts: several at once, one a queue (4 games), never two of one game.
        assert 1 <= hang.most_at_once <= 4, hang.most_at_once
    good.clear()
    good.stop()


def test_a_redelivery_asked_for_40_times_at_once_is_made_once_and_charged_to_its_key(
    make_app: Callable[..., Flask],
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],
) -> None:
    """A delivery made, then asked for again 40 times within 0.3 s: the receiver gets it
    once more (one manual attempt in the log), and the key's cost budget counts the
    time its deliveries took."""
    arrived: list[str] = []

    def handle(request: Request) -> Response:
        arrived.append(request.headers["webhook-id"])
        return Response("ok")

    good = HTTPServer(host="127.0.0.1", port=free_port())
    good.expect_request("/hook", method="POST").respond_with_handler(handle)
    good.start()
    allow = f"127.0.0.1:{good.port}"
    app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, WEBHOOK_ALLOW_HOSTS=allow)
    client = app.test_client()
    endpoint_id = register(client, ACME, good.url_for("/hook"))
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, COST_BUDGET_SECONDS_PER_ADDRESS="60")
    assert client.post("/v1/games", json=CLOCKED, headers=key(ACME)).status_code == 201
    (message_id,) = wait_for(lambda: list(arrived), 30, "the delivery")
    url = f"/v1/webhooks/{endpoint_id}/deliveries/{message_id}"
    answers = [client.post(url + "/retry", headers=key(ACME)).status_code for _ in range(40)]
    assert set(answers) == {202}
    runner = webhook_runner("acme")
    with redis.Redis.from_url(redis_url) as connection:
        queue = rq.Queue(QUEUE_NAME, connection=connection)

        def idle() -> bool:
            running = queue.started_job_registry.count + queue.scheduled_job_registry.count
            return not (queue.count or running or connection.exists(runner))

        wait_for(lambda: len(arrived) >= 2, 30, "the redelivery")
        wait_for(idle, 60, "every webhook job done")
        spent = Budget(60).spent(connection, "key:acme", time.time())
    assert arrived == [message_id, message_id]
    delivery = client.get(url, headers=key(ACME)).get_json()
    assert [a["manual"] for a in delivery["attempts"]] == [False, True]
    assert spent > 0, "the deliveries' time is charged to the key"
    good.clear()
    good.stop()


def test_redeliveries_count_against_the_key_s_quota(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    """`WEBHOOK_REDELIVERY_LIMIT` a minute per key: past it, 429 problem+json with
    Retry-After (no worker runs: nothing is sent)."""
    app = make_app(
        REDIS_URL=redis_url,
        SERVICE_KEYS=KEYS,
        WEBHOOK_ALLOW_HOSTS="127.0.0.1:9",
        WEBHOOK_REDELIVERY_LIMIT=3,
    )
    client = app.test_client()
    endpoint_id = register(client, ACME, "http://127.0.0.1:9/hook")
    game_id = client.post("/v1/games", json=CLOCKED, headers=key(ACME)).get_json()["id"]
    store = app.extensions["scopa_store"]
    assert record(store, WebhookStore(store.redis, store.ttl), game_id, 10) == ("acme", 1)
    url = f"/v1/webhooks/{endpoint_id}/deliveries/msg_{game_id}.created/retry"
    answers = [client.post(url, headers=key(ACME)) for _ in range(4)]
    assert [a.status_code for a in answers] == [202, 202, 202, 429]
    problem = answers[-1].get_json()
    assert problem["type"] == "/problems/rate-limited" and answers[-1].headers["Retry-After"]
    assert client.post(url, headers=key(BETA)).status_code == 404  # another key's count


def test_webhook_workers_take_the_webhooks_queue_alone_and_every_way_to_run_starts_them(
    redis_url: str,
) -> None:
    """The clocks' and computer players' workers never take a webhook job; a webhook
    worker takes nothing else; `make run`, compose and the Kubernetes manifests each
    start two webhook workers beside the others."""
    with redis.Redis.from_url(redis_url) as connection:
        names = [q.name for q in queues_for(connection)]
        assert names == ["scopa-clock", "scopa-bots"]
        assert [q.name for q in queues_for(connection, only_webhooks=True)] == [QUEUE_NAME]
    root = Path(__file__).resolve().parent.parent
    run = (root / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert run.count("-m service.worker --only-webhooks") == 2
    assert run.count("-m service.worker'") == 1
    compose = yaml.safe_load((root / "deploy" / "docker-compose.yml").read_text())
    hooks = compose["services"]["webhooks"]
    assert hooks["command"] == ["python", "-m", "service.worker", "--only-webhooks"]
    assert hooks["deploy"]["replicas"] == "${WEBHOOK_WORKER_REPLICAS:-2}"
    k8s = yaml.safe_load((root / "deploy" / "k8s" / "webhooks-deployment.yaml").read_text())
    assert k8s["spec"]["replicas"] >= 2
    (container,) = k8s["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["python", "-m", "service.worker", "--only-webhooks"]
