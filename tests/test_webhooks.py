"""Webhooks (docs/platforms.md, "Webhooks"): a service key's endpoints receive its games'
events, signed as the Standard Webhooks specification says, in order per game, retried
on the retry schedule, from the background workers only; never at an address the
service must not reach (SSRF), whatever a name resolves to."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient
from pytest_httpserver import HTTPServer
from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from werkzeug import Request, Response

from service import config
from service.engine import Match
from service.play.game import Game
from service.play.webhooks.addresses import (
    RefusedAddressError,
    allowed_hosts,
    check_url,
    forbidden_reason,
)
from service.play.webhooks.events import EVENT_TYPES, messages_of
from service.play.webhooks.queueing import DEFAULT_RETRY_SCHEDULE, retry_schedule, span
from service.play.webhooks.sending import send
from tests.conftest import TEST_SECRET
from tests.helpers import random_turn
from tests.live import CARD_CODE, ROOT, free_port

ACME = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
BETA = "beta-secret-0123456789abcdefghijklmnopqrstuvwxyz"
KEYS = f"acme={ACME},beta={BETA}"
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


def key(secret: str = ACME) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def wait_for(predicate: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while not (found := predicate()):
        assert time.monotonic() < deadline, f"{what}: not within {seconds:g} s"
        time.sleep(0.05)
    return found


# -- where webhooks may go ---------------------------------------------------------------


class TestAddresses:
    @pytest.mark.parametrize(
        ("url", "says"),
        [
            ("https://127.0.0.1/hook", "127.0.0.1 is a loopback address"),
            ("https://169.254.169.254/latest/meta-data", "a cloud metadata address"),
            ("https://[fd00:ec2::254]/", "a cloud metadata address"),
            ("https://[::1]:8443/", "loopback"),
            ("https://[::ffff:127.0.0.1]/", "loopback"),
            ("https://10.1.2.3/", "a private address"),
            ("https://192.168.0.10/", "a private address"),
            ("https://169.254.10.1/", "a link-local address"),
            ("https://100.64.0.1/", "not a public address"),
            ("https://0.0.0.0/", "a private address"),
            # A name is refused for what it resolves to: localhost, everywhere, 127.0.0.1.
            ("https://localhost/hook", "localhost resolves to"),
            ("http://8.8.8.8/hook", "must be https://"),
            ("ftp://8.8.8.8/hook", "https://host/path"),
            ("https://user:pw@8.8.8.8/", "user name or password"),
            ("https://8.8.8.8:99999/", "port"),
            ("https://8.8.8.8/#x", "fragment"),
        ],
    )
    def test_refused(self, url: str, says: str) -> None:
        with pytest.raises(RefusedAddressError, match=re.escape(says)):
            check_url(url)

    def test_a_name_is_checked_for_every_address_it_resolves_to(self) -> None:
        def rebinding(host: str, port: int) -> list[str]:
            return ["93.184.215.14", "169.254.169.254"]

        with pytest.raises(RefusedAddressError, match="resolves to 169.254.169.254"):
            check_url("https://hooks.example/x", resolver=rebinding)
        target = check_url("https://hooks.example:8443/x?a=1", resolver=lambda h, p: ["8.8.4.4"])
        assert (target.address, target.host, target.port, target.path) == (
            "8.8.4.4",
            "hooks.example",
            8443,
            "/x?a=1",
        )

    def test_allowed_hosts_may_be_http_and_loopback(self) -> None:
        allow = allowed_hosts(" 127.0.0.1:5000 , Hooks.Test ")
        assert allow == {"127.0.0.1:5000", "hooks.test"}
        assert check_url("http://127.0.0.1:5000/x", allow).address == "127.0.0.1"
        assert check_url("http://hooks.test/x", allow).host == "hooks.test"
        with pytest.raises(RefusedAddressError):  # another port is not allowed
            check_url("http://127.0.0.1:5001/x", allow)
        for bad in ("a/b", "u@h", "h:port"):
            with pytest.raises(ValueError):
                allowed_hosts(bad)
        assert forbidden_reason("8.8.8.8") is None

    def test_the_settings_are_checked_at_start(self) -> None:
        assert retry_schedule("") == DEFAULT_RETRY_SCHEDULE
        assert len(DEFAULT_RETRY_SCHEDULE) + 1 >= 6 and sum(DEFAULT_RETRY_SCHEDULE) >= 3600
        assert span(DEFAULT_RETRY_SCHEDULE) == "27 h 35 min 5 s"
        assert retry_schedule("1, 2,3") == (1, 2, 3)
        for bad in ("1,x", "0", ",".join(["1"] * 21), "86401"):
            with pytest.raises(config.ConfigError, match="WEBHOOK_RETRY_SCHEDULE"):
                config.from_env({"WEBHOOK_RETRY_SCHEDULE": bad})
        with pytest.raises(config.ConfigError, match="WEBHOOK_ALLOW_HOSTS"):
            config.from_env({"WEBHOOK_ALLOW_HOSTS": "http://x/"})


# -- one attempt -----------------------------------------------------------------------


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    """An HTTP server on a free port of 127.0.0.1 that answers as a test tells it."""
    server = HTTPServer(host="127.0.0.1", port=free_port())
    server.start()
    try:
        yield server
    finally:
        server.clear()
        if server.is_running():
            server.stop()


class TestSending:
    def test_a_delivery_is_signed_and_a_bad_signature_is_rejected(
        self, receiver: HTTPServer
    ) -> None:
        receiver.expect_request("/hook", method="POST").respond_with_data("ok" * 5000)
        allow = {f"127.0.0.1:{receiver.port}"}
        body = orjson.dumps({"type": "game.over", "data": {"winner": 0}}).decode()
        attempt = send(receiver.url_for("/hook"), SECRET, "msg_1", body, allow=allow)
        assert attempt.delivered and attempt.status == 200
        assert attempt.answer == "ok" * 100  # 4 KiB read at most; 200 characters kept
        (request, _), *_ = receiver.log
        headers = dict(request.headers)
        data = request.get_data(as_text=True)
        assert headers["Webhook-Id"] == "msg_1" and headers["Content-Type"] == "application/json"
        assert Webhook(SECRET).verify(data, headers) == {"type": "game.over", "data": {"winner": 0}}
        with pytest.raises(WebhookVerificationError):  # a body changed on the way
            Webhook(SECRET).verify(data.replace("0", "1"), headers)
        with pytest.raises(WebhookVerificationError):  # signed with another secret
            Webhook("whsec_" + "A" * 43).verify(data, headers)
        with pytest.raises(WebhookVerificationError):  # a signature replayed for another id
            Webhook(SECRET).verify(data, {**headers, "Webhook-Id": "msg_2"})

    def test_no_redirect_is_followed_and_an_error_is_a_failure(
        self, receiver: HTTPServer
    ) -> None:
        receiver.expect_request("/moved").respond_with_data(
            "", status=302, headers={"Location": receiver.url_for("/hook")}
        )
        receiver.expect_request("/broken").respond_with_data("no", status=500)
        allow = {f"127.0.0.1:{receiver.port}"}
        moved = send(receiver.url_for("/moved"), SECRET, "msg_1", "{}", allow=allow)
        assert (moved.delivered, moved.status, moved.error) == (False, 302, "answered HTTP 302")
        broken = send(receiver.url_for("/broken"), SECRET, "msg_1", "{}", allow=allow)
        assert (broken.status, broken.error) == (500, "answered HTTP 500")
        assert [r.path for r, _ in receiver.log] == ["/moved", "/broken"]  # never /hook

    def test_a_forbidden_address_is_refused_at_delivery_without_connecting(
        self, receiver: HTTPServer
    ) -> None:
        receiver.expect_request("/hook").respond_with_data("ok")
        port = receiver.port
        # Registered when the operator allowed it, no longer allowed now.
        attempt = send(f"http://127.0.0.1:{port}/hook", SECRET, "msg_1", "{}")
        assert attempt.error is not None and "must be https://" in attempt.error
        attempt = send(f"https://127.0.0.1:{port}/hook", SECRET, "msg_1", "{}")
        assert attempt.error == "refused: 127.0.0.1 is a loopback address"
        # A name resolved now, to a loopback address (localhost does, everywhere)...
        attempt = send(f"https://localhost:{port}/hook", SECRET, "msg_1", "{}")
        assert attempt.error is not None and "localhost resolves to" in attempt.error
        # ... or to the metadata address (the resolution a DNS rebinding would give).
        attempt = send(
            "https://hooks.example/hook",
            SECRET,
            "msg_1",
            "{}",
            resolver=lambda host, port: ["169.254.169.254"],
        )
        assert attempt.error == (
            "refused: hooks.example resolves to 169.254.169.254, which is a cloud metadata address"
        )
        assert not receiver.log

    def test_no_answer_within_the_timeout_is_a_failure(self) -> None:
        attempt = send(f"http://127.0.0.1:{free_port()}/", SECRET, "m", "{}", allow={"127.0.0.1"})
        assert attempt.status is None and attempt.error == "could not connect"


# -- the events ----------------------------------------------------------------------------


def test_the_events_of_a_match_name_no_card_and_keep_their_ids() -> None:
    """Every event of whole matches of every variant: no card in any message, each id
    once, the types in the order of the log, and the same ids read again."""
    for variant in ("scopa", "scopone", "cirulla", "escoba"):
        rng = random.Random(variant)
        match, events = Match.new(variant=variant, seed=rng.randrange(10**6))
        while match.status == "playing":
            events += random_turn(match, rng)
        game = Game(
            id="g1",
            version=2,
            match=match,
            bots=(None,) * match.players,
            token_hashes=(None,) * match.players,
            owner="acme",
            player_ids=("p0",) + (None,) * (match.players - 1),
            metadata={"round": "3"},
        )
        messages = messages_of(game, events, 0, created=True, now=1.0)
        again = messages_of(game, events, 0, created=True, now=2.0)
        assert [m.id for m in messages] == [m.id for m in again]
        assert len({m.id for m in messages}) == len(messages)
        kinds = [m.type for m in messages]
        assert kinds[:2] == ["game.created", "game.started"] and kinds[-1] == "game.over"
        assert kinds.count("hand.over") == len(match.hand_scores) and set(kinds) <= set(EVENT_TYPES)
        for message in messages:
            assert not CARD_CODE.search(message.body), (variant, message.body)
            body = orjson.loads(message.body)
            assert body["data"]["game"]["seats"][0]["player_id"] == "p0"
            assert body["data"]["game"]["metadata"] == {"round": "3"}
        # A turn passes: its message says whose; half the log read at once gives one.
        half = len(events) // 2
        first = messages_of(game, events[:half], 0, created=False, now=1.0)
        assert [m.type for m in first].count("turn.started") <= 1


# -- the API ---------------------------------------------------------------------------------


@pytest.fixture
def keyed(make_app: Callable[..., Flask], redis_url: str) -> Callable[..., FlaskClient]:
    def make(**settings: Any) -> FlaskClient:
        return make_app(REDIS_URL=redis_url, SERVICE_KEYS=KEYS, **settings).test_client()

    return make


class TestTheApi:
    def test_an_endpoint_is_registered_listed_and_deleted_by_its_key_only(
        self, keyed: Callable[..., FlaskClient]
    ) -> None:
        client = keyed(WEBHOOK_ALLOW_HOSTS="127.0.0.1:9", WEBHOOK_MAX_ENDPOINTS=2)
        body = {"url": "http://127.0.0.1:9/hook", "events": ["game.over", "game.over"]}
        made = client.post("/v1/webhooks", json=body, headers=key())
        assert made.status_code == 201, made.get_json()
        endpoint = made.get_json()
        assert endpoint["secret"].startswith("whsec_") and endpoint["events"] == ["game.over"]
        assert Webhook(endpoint["secret"])  # a secret the verifier takes
        assert endpoint["disabled"] is False and endpoint["disabled_reason"] is None
        listed = client.get("/v1/webhooks", headers=key()).get_json()["endpoints"]
        assert [e["id"] for e in listed] == [endpoint["id"]] and "secret" not in listed[0]
        url = f"/v1/webhooks/{endpoint['id']}"
        assert client.get(url, headers=key()).get_json()["url"] == body["url"]
        # Another key sees none of it; a seat token or nothing is not a key.
        assert client.get("/v1/webhooks", headers=key(BETA)).get_json() == {"endpoints": []}
        assert client.get(url, headers=key(BETA)).status_code == 404
        assert client.delete(url, headers=key(BETA)).status_code == 404
        assert client.get("/v1/webhooks").status_code == 401
        assert client.get("/v1/webhooks", headers=key("a-seat-token")).status_code == 401
        assert client.get(url + "/deliveries", headers=key()).get_json() == {
            "deliveries": [],
            "next": None,
        }
        # As many endpoints as the setting allows, then 409.
        assert client.post("/v1/webhooks", json=body, headers=key()).status_code == 201
        refused = client.post("/v1/webhooks", json=body, headers=key())
        assert refused.status_code == 409
        assert refused.get_json()["type"] == "/problems/too-many-webhooks"
        assert client.delete(url, headers=key()).status_code == 204
        assert client.get(url, headers=key()).status_code == 404
        assert client.post("/v1/webhooks", json=body, headers=key()).status_code == 201

    @pytest.mark.parametrize(
        ("url", "says"),
        [
            ("https://127.0.0.1:9/hook", "loopback"),
            ("https://169.254.169.254/latest/meta-data/", "metadata"),
            ("https://localhost/hook", "localhost resolves to"),
            ("http://127.0.0.1:9/hook", "https://"),
        ],
    )
    def test_a_url_it_must_not_reach_is_refused_at_registration(
        self, keyed: Callable[..., FlaskClient], url: str, says: str
    ) -> None:
        client = keyed()
        refused = client.post(
            "/v1/webhooks", json={"url": url, "events": ["game.over"]}, headers=key()
        )
        assert refused.status_code == 422
        problem = refused.get_json()
        assert problem["type"] == "/problems/webhook-url-refused" and says in problem["detail"]
        assert client.get("/v1/webhooks", headers=key()).get_json() == {"endpoints": []}

    def test_a_bad_body_is_a_validation_problem(self, keyed: Callable[..., FlaskClient]) -> None:
        client = keyed()
        for body in (
            {"url": "https://8.8.8.8/"},
            {"url": "x", "events": []},
            {"url": "https://8.8.8.8/", "events": ["card.played"]},
        ):
            answer = client.post("/v1/webhooks", json=body, headers=key())
            assert answer.status_code == 422, body
