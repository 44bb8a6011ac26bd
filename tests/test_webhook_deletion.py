"""A deleted game's webhooks (docs/platforms.md, "A deleted game's deliveries"): every
event before the DELETE is delivered, its abort included, in order; then nothing of the
game is left in Redis, and the delivery log keeps no player id nor metadata of it."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import redis
from flask import Flask
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from service.play.keys import invitation, webhook_deliveries
from service.play.webhooks.deletion import emptied
from service.play.webhooks.events import EVENT_TYPES
from service.play.webhooks.store import WebhookStore
from tests.live import free_port
from tests.test_webhooks import ACME, wait_for

KEY = {"Authorization": f"Bearer {ACME}"}
SEATS = {
    "seats": [{"name": "Ana", "player_id": "u-ana-7"}, {"name": "Bo", "player_id": "u-bo-8"}],
    "metadata": {"tournament": "t-secret-9"},
}


def leading_to(connection: redis.Redis, game_id: str) -> list[bytes]:
    """The index entries that name the game in their value, not their key: the join
    codes' (service/play/invitations.py)."""
    return [
        key
        for key in connection.scan_iter(match=invitation("*"))
        if connection.get(key) == game_id.encode()
    ]


@pytest.mark.parametrize("open_seat", [False, True], ids=["playing", "waiting"])
def test_a_game_aborted_then_deleted_at_once_has_every_event_delivered_then_nothing_left(
    make_app: Callable[..., Flask],
    redis_url: str,
    start_worker: Callable[..., subprocess.Popen[bytes]],
    open_seat: bool,
) -> None:
    """Abort, then DELETE straight away: the endpoint that answers gets every event of
    the game in order, `game.aborted` last; the one whose receiver is down has its
    deliveries tried for a few seconds, then given up. 30 s after the 204, no Redis key
    names the game (nor, for a game aborted while it waited for people, leads to it by its
    join code: issue 36, item 5), and neither endpoint's delivery log holds its player ids, names or
    metadata (each delivery is still listed, with its status)."""
    received: list[dict[str, Any]] = []

    def handle(request: Request) -> Response:
        received.append(orjson.loads(request.get_data()))
        return Response("seen u-ana-7")  # (an answer that echoes what it was sent)

    good = HTTPServer(host="127.0.0.1", port=free_port())
    good.expect_request("/hook", method="POST").respond_with_handler(handle)
    good.start()
    down = free_port()  # nothing listens there
    allow = f"127.0.0.1:{good.port},127.0.0.1:{down}"
    app = make_app(REDIS_URL=redis_url, SERVICE_KEYS=f"acme={ACME}", WEBHOOK_ALLOW_HOSTS=allow)
    client = app.test_client()
    endpoints = []
    for url in (good.url_for("/hook"), f"http://127.0.0.1:{down}/hook"):
        made = client.post("/v1/webhooks", json={"url": url, "events": EVENT_TYPES}, headers=KEY)
        assert made.status_code == 201
        endpoints.append(made.get_json()["id"])
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, WEBHOOK_RETRY_SCHEDULE="3600")
    body = {**SEATS, "seats": [*SEATS["seats"], {"open": True}]} if open_seat else SEATS
    created = client.post("/v1/games", json=body, headers=KEY).get_json()
    game_id = created["id"]
    if open_seat:  # its join code leads to it, until the abort
        with redis.Redis.from_url(redis_url) as connection:
            assert leading_to(connection, game_id)
    # The down endpoint's first delivery failed: its next attempt is an hour away.
    wait_for(
        lambda: any(
            d["attempts"]
            for d in client.get(f"/v1/webhooks/{endpoints[1]}/deliveries", headers=KEY).get_json()[
                "deliveries"
            ]
        ),
        30,
        "the first attempt to the endpoint that is down",
    )
    aborted = client.post(f"/v1/games/{game_id}/abort", json={"reason": "test"}, headers=KEY)
    assert aborted.status_code == 200, aborted.get_json()
    assert client.delete(f"/v1/games/{game_id}", headers=KEY).status_code == 204
    deleted = time.monotonic()
    kinds = wait_for(
        lambda: (found := [e["type"] for e in received]) and found[-1] == "game.aborted" and found,
        10,
        "game.aborted delivered",
    )
    assert kinds[0] == "game.created" and kinds.count("game.aborted") == 1
    ids = [e["id"] for e in received]
    assert ids == sorted(
        ids, key=lambda i: (-1, 0) if i.endswith(".created") else (int(i.split(".")[1]), 0)
    )
    secrets = (b"u-ana-7", b"u-bo-8", b"t-secret-9", b"Ana")

    def left(connection: redis.Redis) -> list[str]:
        """What Redis still holds of the game: keys naming it, index entries leading to
        it, and its player ids, names or metadata in the webhooks' hashes (the delivery
        logs). The sweep scrubs the logs right after it drops the last queue."""
        values = b"".join(
            orjson.dumps({k.decode(): v.decode() for k, v in connection.hgetall(k).items()})
            for k in connection.scan_iter(match="scopa:hooks:*")
            if connection.type(k) == b"hash"
        )
        return [
            *(k.decode() for k in connection.scan_iter(match=f"*{game_id}*")),
            *(k.decode() for k in leading_to(connection, game_id)),
            *(s.decode() for s in secrets if s in values),
        ]

    with redis.Redis.from_url(redis_url) as connection:
        wait_for(
            lambda: not left(connection),
            30 - (time.monotonic() - deleted),
            "nothing of the game left in Redis: no key naming it, no index entry leading "
            "to it, no player id, name or metadata of it in a delivery log",
        )
    for endpoint_id, status in zip(endpoints, ("succeeded", "failed"), strict=True):
        log = client.get(f"/v1/webhooks/{endpoint_id}/deliveries", headers=KEY).get_json()
        shown = [d for d in log["deliveries"] if d["game"] == game_id]
        assert {d["type"] for d in shown} >= {"game.created", "game.aborted"}
        assert {d["status"] for d in shown} == {status}
        text = orjson.dumps(shown)
        assert b"u-ana-7" not in text and b"t-secret-9" not in text and b"Ana" not in text
        assert all(d["payload"]["data"] == {"game": {"id": game_id}} for d in shown)
    good.clear()
    good.stop()


def test_an_attempt_that_ends_after_the_sweep_keeps_the_delivery_emptied(redis_url: str) -> None:
    """An attempt still running when its deleted game's drain ran out (a slow receiver)
    settles after the sweep emptied the delivery: the log keeps the emptied delivery,
    not the names its attempt carried (docs/platforms.md, "A deleted game's deliveries")."""
    owner, endpoint_id, game_id = "acme", "ep_1", "g_1"
    message_id = f"msg_{game_id}.1.turn"
    body = {"id": message_id, "type": "turn.started", "timestamp": "t", "data": {"name": "Ana"}}
    sent = {
        "id": message_id,
        "game": game_id,
        "type": "turn.started",
        "body": orjson.dumps(body).decode(),
        "status": "pending",
        "next_attempt_at": None,
        "attempts": [],
    }
    with redis.Redis.from_url(redis_url) as connection:
        hooks = WebhookStore(connection, 3600)
        key = webhook_deliveries(owner, endpoint_id)
        connection.hset(key, message_id, orjson.dumps(sent))
        hooks.settle(owner, endpoint_id, sent | {"status": "failed"}, leaves=False)
        assert hooks.delivery(owner, endpoint_id, message_id)["status"] == "failed"
        hooks.rewrite_deliveries(owner, endpoint_id, f"msg_{game_id}.*", emptied)
        late = sent | {"status": "succeeded", "attempts": [{"answer": "Ana's seat"}]}
        hooks.settle(owner, endpoint_id, late, leaves=True)
        kept = connection.hget(key, message_id)
    assert kept is not None and b"Ana" not in kept
    assert orjson.loads(kept)["game_deleted"] is True
