"""Webhooks (docs/platforms.md, "Webhooks"): a service key's endpoints receive its games'
events, signed as the Standard Webhooks specification says, in order per game, retried
on the retry schedule, from the background workers only; never at an address the
service must not reach (SSRF), whatever a name resolves to."""

from __future__ import annotations

import functools
import os
import random
import re
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson
import pytest
import redis
import requests
from flask import Flask
from flask.testing import FlaskClient
from pytest_httpserver import HTTPServer
from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from werkzeug.serving import BaseWSGIServer, make_server

from service import config
from service.engine import Match
from service.play.game import Game
from service.play.store import GameStore
from service.play.webhooks import queueing as hook_queue
from service.play.webhooks.addresses import (
    RefusedAddressError,
    allowed_hosts,
    check_url,
    forbidden_reason,
)
from service.play.webhooks.events import EVENT_TYPES, messages_of
from service.play.webhooks.jobs import Tally
from service.play.webhooks.queueing import DEFAULT_RETRY_SCHEDULE, retry_schedule, span
from service.play.webhooks.recording import record
from service.play.webhooks.sending import Attempt, send, signed_headers
from service.play.webhooks.store import Message, WebhookStore
from tests.helpers import random_turn
from tests.live import CARD_CODE, ROOT, free_port
from tests.test_openapi import validator


@functools.cache
def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = orjson.loads((ROOT / "openapi" / "openapi.json").read_bytes())
    return spec


def conforms(body: dict[str, Any]) -> None:
    """A webhook body is as the spec's ``webhooks`` describes its type's (every field,
    nothing more). (A validator of its own each time: a receiver's threads may call it,
    and a validator is not to be shared between threads.)"""
    spec = _spec()
    described = spec["webhooks"][body["type"]]["post"]["requestBody"]["content"]
    errors = [
        str(e) for e in validator(spec, described["application/json"]["schema"]).iter_errors(body)
    ]
    assert not errors, (body["type"], errors[:3], body)


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
            # IPv6 forms that carry traffic to a refused IPv4 address.
            ("https://[2002:7f00:1::1]/", "a 6to4 address of 127.0.0.1, a loopback"),
            ("https://[2002:a9fe:a9fe::1]/", "6to4 address of 169.254.169.254, a cloud metadata"),
            ("https://[2002:a00:1::1]/", "6to4 address of 10.0.0.1, a private"),
            # Teredo: the client's address is the last 32 bits inverted (80ff:fffe).
            ("https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo address of 127.0.0.1"),
            ("https://[2001:0:4136:e378:8000:63bf:5601:5601]/", "Teredo address of 169.254.169"),
            ("https://[::ffff:169.254.169.254]/", "IPv4-mapped address of 169.254.169.254"),
            ("https://[::127.0.0.1]/", "IPv4-compatible address of 127.0.0.1"),
            ("https://[64:ff9b::a9fe:a9fe]/", "NAT64 address of 169.254.169.254"),
            ("https://[64:ff9b::7f00:1]/", "NAT64 address of 127.0.0.1"),
            # Port 0 is no port (it was taken for "none", and sent to 443).
            ("https://8.8.8.8:0/hook", "port is not a number from 1 to 65535"),
            ("https://8.8.8.8:000/hook", "port is not a number from 1 to 65535"),
            # Control characters, anywhere (urlsplit would drop CR, LF and tab silently).
            ("https://8.8.8.8/a\r\nX-Injected: 1", "control character"),
            ("https://8.8.8.8/a\tb", "control character"),
            ("https://8.8.8.8/a\x00b", "control character"),
            ("https://8.8.8.8/a\x7fb", "control character"),
            ("https://8.8.\n8.8/", "control character"),
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
        # A 6to4 address of a public IPv4 address is public.
        assert forbidden_reason("2002:808:808::1") is None
        with pytest.raises(RefusedAddressError, match="control character"):
            check_url("http://127.0.0.1:5000/x\r\n", allow)  # even for an allowed host

    def test_the_settings_are_checked_at_start(self) -> None:
        assert retry_schedule("") == DEFAULT_RETRY_SCHEDULE
        assert len(DEFAULT_RETRY_SCHEDULE) + 1 >= 6 and sum(DEFAULT_RETRY_SCHEDULE) >= 3600
        assert span(DEFAULT_RETRY_SCHEDULE) == "27 h 35 min 5 s"
        assert retry_schedule("1, 2,3") == (1, 2, 3)
        for bad in ("1,x", "0", ",".join(["1"] * 21), "86401"):
            with pytest.raises(config.ConfigError, match="WEBHOOK_RETRY_SCHEDULE"):
                config.load({"WEBHOOK_RETRY_SCHEDULE": bad})
        with pytest.raises(config.ConfigError, match="WEBHOOK_ALLOW_HOSTS"):
            config.load({"WEBHOOK_ALLOW_HOSTS": "http://x/"})


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


class KeepAliveReceiver:
    """A receiver on 127.0.0.1 speaking ``version``: it notes each delivery's id and the
    peer (client address and port) it came from; with ``drop_idle``, it closes each
    connection once it answered, without saying so (as one closing idle connections)."""

    def __init__(self, version: str, *, drop_idle: bool = False) -> None:
        self.ids: list[str] = []
        self.peers: list[tuple[str, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = version

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.ids.append(self.headers["webhook-id"])
                receiver.peers.append(self.client_address)
                self.send_response(204)
                self.end_headers()
                self.close_connection = self.close_connection or drop_idle

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks"
        self.allow = {f"127.0.0.1:{self.server.server_port}"}

    def __enter__(self) -> KeepAliveReceiver:
        serve = functools.partial(self.server.serve_forever, poll_interval=0.05)
        threading.Thread(target=serve, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


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

    def test_no_redirect_is_followed_and_an_error_is_a_failure(self, receiver: HTTPServer) -> None:
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

    @pytest.mark.parametrize("version", ["HTTP/1.1", "HTTP/1.0"])
    def test_a_receiver_that_keeps_connections_open_gets_one_for_many(self, version: str) -> None:
        """A connection kept open by the receiver carries the next attempts (no new
        handshake per delivery); an HTTP/1.0 receiver gets a connection an attempt."""
        with KeepAliveReceiver(version) as receiver:
            for n in range(20):
                attempt = send(receiver.url, SECRET, f"msg_{n}", "{}", allow=receiver.allow)
                assert attempt.delivered, attempt
        assert receiver.ids == [f"msg_{n}" for n in range(20)]
        assert len(set(receiver.peers)) == (1 if version == "HTTP/1.1" else 20)

    def test_a_kept_connection_the_receiver_closed_is_replaced_at_once(self) -> None:
        """A receiver that closes its idle connections without saying so: the attempt
        on the kept one fails, and is made again at once on a new one, delivered once."""
        with KeepAliveReceiver("HTTP/1.1", drop_idle=True) as receiver:
            for n in range(5):
                attempt = send(receiver.url, SECRET, f"msg_{n}", "{}", allow=receiver.allow)
                assert attempt.delivered, attempt
        assert receiver.ids == [f"msg_{n}" for n in range(5)]
        assert len(set(receiver.peers)) == 5

    def test_a_turn_is_charged_its_cpu_and_its_slow_attempts_at_most_its_length(self) -> None:
        """What a run's turn costs its key (service/play/webhooks/jobs.py): prompt
        attempts cost only the CPU spent; a slow one its whole time, within the turn's."""
        tally = Tally()
        prompt = Attempt(at=0.0, status=204, error=None, duration_ms=5)
        for _ in range(100):
            tally.count(prompt)
        cpu = time.process_time()
        while time.process_time() - cpu < 0.05:  # some CPU, as attempts spend it
            pass
        assert 0.04 <= tally.seconds() < 0.5
        began = time.monotonic()
        tally.count(Attempt(at=0.0, status=None, error="no answer", duration_ms=10_000))
        assert tally.seconds() <= time.monotonic() - began + 0.5  # at most the turn's length
        time.sleep(0.2)
        assert tally.seconds() >= 0.2  # the slow attempt's time, as the turn lasts

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
        for message in messages:
            conforms(orjson.loads(message.body))
        again = messages_of(game, events, 0, created=True, now=2.0)
        assert [m.id for m in messages] == [m.id for m in again]
        assert len({m.id for m in messages}) == len(messages)
        kinds = [m.type for m in messages]
        assert kinds[:2] == ["game.created", "game.started"] and kinds[-1] == "game.over"
        assert kinds.count("hand.over") == len(match.hand_scores) and set(kinds) <= set(EVENT_TYPES)
        statuses = {m.type: orjson.loads(m.body)["data"]["game"]["status"] for m in messages}
        assert statuses["game.created"] == statuses["hand.over"] == "playing"
        assert statuses["game.over"] == "finished"
        for message in messages:
            assert not CARD_CODE.search(message.body), (variant, message.body)
            body = orjson.loads(message.body)
            assert body["data"]["game"]["seats"][0]["player_id"] == "p0"
            assert body["data"]["game"]["metadata"] == {"round": "3"}
            # Each seat says its side: a receiver needs no other event to know teams.
            sides = [seat["team"] for seat in body["data"]["game"]["seats"]]
            assert sides == match.teams, (variant, sides)
        # The winners by seat and player id, as the match's teams make them.
        over = orjson.loads(messages[-1].body)["data"]
        assert over["winner"] == match.winner
        assert over["winners"] == [
            {"seat": seat, "player_id": game.player_id(seat)}
            for seat in range(match.players)
            if match.teams[seat] == match.winner
        ]
        assert len(over["winners"]) == (2 if variant == "scopone" else 1)
        # Every turn has its message, however much of the log one read holds (here all of
        # it): the seat that took it and its hand, in the log's order (docs/platforms.md).
        taken = []
        passed = False
        hand = 1  # the hands are numbered from 1: one more than those over
        for position, event in enumerate(events):
            if passed and event["type"] in ("move", "declaration"):
                taken.append((f"msg_g1.{position - 1}.turn", event["seat"], hand))
                passed = False
            passed = passed or event["type"] in ("match_started", "deal", "move")
            hand += event["type"] == "hand_over"
        turns = [orjson.loads(m.body) for m in messages if m.type == "turn.started"]
        told = [(t["id"], t["data"]["seat"], t["data"]["hand"]) for t in turns]
        assert told == taken
        assert len(told) == sum(1 for event in events if event["type"] == "move")  # one a turn


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
            ("https://[2002:a9fe:a9fe::1]/hook", "6to4 address of 169.254.169.254"),
            ("https://8.8.8.8:0/hook", "port"),
            ("https://8.8.8.8/hook\r\nHost: evil", "control character"),
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

    def test_every_turn_has_its_turn_started_however_often_the_log_is_read(
        self, keyed: Callable[..., FlaskClient], redis_url: str
    ) -> None:
        """Two games dealt alike (one seed) and played alike to their end by a key: one's
        log read after every move, the other's only after every fifth (as a worker behind
        a relay faster than it reads): each has one turn.started a move, of the same ids
        (docs/platforms.md, "Events"), and the commits queue one job for the key, not one
        a move."""
        client = keyed(WEBHOOK_ALLOW_HOSTS="127.0.0.1:9")
        endpoint = register(client, "http://127.0.0.1:9/hook", ["turn.started"])
        connection = redis.Redis.from_url(redis_url, decode_responses=True)
        store, hooks = GameStore(connection, 600), WebhookStore(connection, 600)
        body = {"seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": 7, "target": 1}
        ids = [client.post("/v1/games", json=body, headers=key()).get_json()["id"] for _ in "ab"]
        moves, playing = 0, True
        while playing:
            for every, game_id in zip((1, 5), ids, strict=True):
                url = f"/v1/games/{game_id}"
                seat = client.get(url, headers=key()).get_json()["turn"]
                legal = client.get(f"{url}/legal-moves?as_seat={seat}", headers=key())
                move = {k: legal.get_json()["moves"][0][k] for k in ("card", "capture")}
                played = client.post(
                    f"{url}/moves", json=move, headers={**key(), "X-Seat": str(seat)}
                )
                assert played.status_code == 200, played.get_json()
                playing = played.get_json()["state"]["status"] == "playing"
                if (moves + 1) % every == 0 or not playing:
                    record(store, hooks, game_id, 10_000)
            moves += 1
        # The ids past the game's: msg_<game>.<n>.turn, n where each turn began.
        told = [
            [i.split(".", 1)[1] for i in hooks.queue("acme", endpoint["id"], game_id)]
            for game_id in ids
        ]
        assert told[0] == told[1]
        assert len(told[0]) == moves and all(i.endswith(".turn") for i in told[0])
        # Nothing read them here (no worker): the first commit woke the key's run, one
        # job, and every commit after it of either game found the run on.
        jobs = hook_queue.queue_for(redis.Redis.from_url(redis_url)).get_job_ids()
        assert len(jobs) == 1 and jobs[0].startswith("hooks-run-")


# -- end to end: the API, a real worker and a real receiver --------------------------------

#: How long the receiver is down mid-match (the issue's outage), and the retry schedule
#: the worker runs with: its retries come at 1, 3, 7, 15, 31 and 63 s after the first
#: failure, so the one after the outage comes a second or so after the receiver is back.
OUTAGE_SECONDS = 30.0
SHORT_SCHEDULE = "1,2,4,8,16,32"


def readme_receiver() -> str:
    """The webhook receiver of docs/platforms.md's walk through a round, as it is written."""
    readme = (ROOT / "docs" / "platforms.md").read_text()
    section = readme[readme.index("### Webhooks for the round") :]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


class Receiver:
    """A platform's webhook endpoint: the receiver of docs/platforms.md (a Flask app verifying each
    delivery with the ``standardwebhooks`` package), served on a fixed port of
    127.0.0.1; it keeps what it handled, and can go down (its socket closed) and come
    back."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[dict[str, Any]] = []
        self.answers: list[int] = []
        self.server: BaseWSGIServer | None = None
        self.thread: threading.Thread | None = None
        self.code: dict[str, Any] = {"__name__": "readme_receiver"}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/scopa/webhooks"

    def load(self, secret: str) -> None:
        """Run the receiver's code (docs/platforms.md) with the endpoint's secret; what it
        handles is kept."""
        os.environ["SCOPA_WEBHOOK_SECRET"] = secret
        try:
            exec(compile(readme_receiver(), "docs/platforms.md", "exec"), self.code)
        finally:
            del os.environ["SCOPA_WEBHOOK_SECRET"]
        self.code["handle"] = self._handled
        app = self.code["app"]
        app.after_request(self._answered)

    def _handled(self, event: dict[str, Any]) -> None:
        conforms(event)  # every delivery a receiver of the suite gets, against the spec
        self.received.append(event)

    def _answered(self, response: Any) -> Any:
        self.answers.append(response.status_code)
        return response

    def up(self) -> None:
        if self.server is not None:
            return
        self.server = make_server("127.0.0.1", self.port, self.code["app"], threaded=True)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def down(self) -> None:
        """Stop, and close the listening socket: a connection is refused at once."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            assert self.thread is not None
            self.thread.join(10)
            self.server = None

    def ids(self) -> list[str]:
        """The ids of the events handled, in the order handled (each once: the receiver's
        code drops a duplicate)."""
        return [event["id"] for event in self.received]


def register(client: FlaskClient, url: str, events: list[str] | None = None) -> dict[str, Any]:
    made = client.post(
        "/v1/webhooks", json={"url": url, "events": events or list(EVENT_TYPES)}, headers=key()
    )
    assert made.status_code == 201, made.get_json()
    endpoint: dict[str, Any] = made.get_json()
    return endpoint


def registered(
    keyed: Callable[..., FlaskClient], events: list[str] | None = None
) -> tuple[Receiver, str, FlaskClient, dict[str, Any]]:
    """The docs' receiver on a free port (not up yet) and its host, which a client of the
    key acme allows (http, loopback); the key's endpoint there, for ``events`` (all of
    them), whose secret the receiver verifies with."""
    receiver = Receiver()
    allow = f"127.0.0.1:{receiver.port}"
    client = keyed(WEBHOOK_ALLOW_HOSTS=allow)
    endpoint = register(client, receiver.url, events)
    receiver.load(endpoint["secret"])
    return receiver, allow, client, endpoint


def deliveries(client: FlaskClient, endpoint_id: str) -> list[dict[str, Any]]:
    """Every delivery of the endpoint's log, oldest first (paging through ``next``)."""
    found: list[dict[str, Any]] = []
    url: str | None = f"/v1/webhooks/{endpoint_id}/deliveries?limit=7"
    while url is not None:
        page = client.get(url, headers=key()).get_json()
        found += page["deliveries"]
        url = page["next"]
    return found[::-1]


def play_a_turn(
    client: FlaskClient, game_id: str, tokens: list[str | None], rng: random.Random
) -> str:
    """The person to play plays a random legal move (the computer player replies within
    the request); returns the match's status after it."""
    game = client.get(f"/v1/games/{game_id}", headers=key()).get_json()
    if game["status"] != "playing":
        return str(game["status"])
    token = tokens[game["turn"]]
    assert token is not None, "the computer player replies within the request"
    auth = {"Authorization": f"Bearer {token}"}
    moves = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth).get_json()["moves"]
    move = rng.choice(moves)
    played = client.post(
        f"/v1/games/{game_id}/moves",
        json={"card": move["card"], "capture": move["capture"]},
        headers=auth,
    )
    assert played.status_code == 200, played.get_json()
    return str(played.get_json()["state"]["status"])


def position(message_id: str) -> tuple[int, int]:
    """Where a message's event is in its game's log (its creation first, a turn after
    the events it follows)."""
    tail = message_id.split(".", 1)[1]
    if tail == "created":
        return (-1, 0)
    number, _, turn = tail.partition(".")
    return (int(number), 1 if turn else 0)


def test_a_receiver_down_for_30_s_still_gets_every_delivery_in_order(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """A whole match played by two seats and a computer player, its endpoint's receiver
    down for 30 s in the middle: once it is back, it has every delivery, each verified
    by the standardwebhooks package, in the order of the game's log; the delivery log
    says each succeeded, and shows the attempts that failed meanwhile."""
    receiver, allow, client, endpoint = registered(keyed)
    receiver.up()
    start_worker(
        "--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, WEBHOOK_RETRY_SCHEDULE=SHORT_SCHEDULE
    )
    created = client.post(
        "/v1/games",
        json={
            "target": 3,
            "seats": [
                {"name": "Ana", "player_id": "u-ana"},
                {"name": "Bo", "player_id": "u-bo"},
                {"name": "Cleo", "bot": "random"},
            ],
            "metadata": {"round": "1"},
        },
        headers=key(),
    ).get_json()
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    rng = random.Random(29)
    try:
        wait_for(lambda: receiver.ids(), 30, "the first delivery")
        for _ in range(4):  # each turn's deliveries received before the next turn
            handled = len(receiver.ids())
            play_a_turn(client, game_id, tokens, rng)
            wait_for(lambda h=handled: len(receiver.ids()) > h, 30, "the turn's deliveries")
        receiver.down()
        went_down = time.monotonic()
        while play_a_turn(client, game_id, tokens, rng) == "playing":
            pass
        # The outage itself: the receiver stays down this long, whatever happens.
        time.sleep(max(0.0, went_down + OUTAGE_SECONDS - time.monotonic()))
    finally:
        receiver.up()
    log = wait_for(
        lambda: (
            (found := deliveries(client, endpoint["id"]))
            and all(d["status"] == "succeeded" for d in found)
            and found[-1]["type"] == "game.over"
            and found
        ),
        90,
        "every delivery succeeding",
    )
    ids = receiver.ids()
    assert ids == [d["id"] for d in log], "every delivery handled once, in the log's order"
    assert [position(i) for i in ids] == sorted(position(i) for i in ids)
    assert set(receiver.answers) == {204}, "every delivery's signature verified"
    failed = [a for d in log for a in d["attempts"] if a["error"]]
    # (an attempt under way as the receiver went down saw its connection closed)
    outage = ("could not connect", "the connection was closed before an answer")
    assert failed and all(a["error"] in outage for a in failed)
    assert all(d["attempts"][-1]["status"] == 204 for d in log)
    kinds = [d["type"] for d in log]
    assert kinds[:2] == ["game.created", "game.started"] and kinds[-1] == "game.over"
    assert "hand.over" in kinds and "turn.started" in kinds
    for event in receiver.received:
        assert not CARD_CODE.search(orjson.dumps(event).decode()), event
        game = event["data"]["game"]
        assert [s["player_id"] for s in game["seats"]] == ["u-ana", "u-bo", None]
        assert game["metadata"] == {"round": "1"}
    over = receiver.received[-1]
    final = client.get(f"/v1/games/{game_id}", headers=key()).get_json()
    assert over["type"] == "game.over" and over["data"]["winner"] == final["winner"]
    # The platform asks for one again: the same id, verified, dropped by the receiver.
    answered = len(receiver.answers)
    again = client.post(f"/v1/webhooks/{endpoint['id']}/deliveries/{ids[0]}/retry", headers=key())
    assert again.status_code == 202 and again.get_json()["id"] == ids[0]
    wait_for(lambda: len(receiver.answers) > answered, 30, "the redelivery")
    assert receiver.ids() == ids
    # The log records the attempt once the receiver's answer is read: a moment after.
    redelivered = wait_for(
        lambda: (
            (
                found := client.get(
                    f"/v1/webhooks/{endpoint['id']}/deliveries/{ids[0]}", headers=key()
                ).get_json()
            )
            and len(found["attempts"]) > len(log[0]["attempts"])
            and found
        ),
        30,
        "the redelivery's attempt in the log",
    )
    assert redelivered["attempts"][-1]["manual"] is True
    assert redelivered["attempts"][-1]["status"] == 204
    # A body changed on the way, or signed with another secret, is refused by the verifier.
    sent = {"id": "msg_x", "type": "ping", "timestamp": "t", "data": {"endpoint": "ep_x"}}
    body = orjson.dumps(sent).decode()
    now = datetime.now(UTC)
    headers = signed_headers(endpoint["secret"], "msg_x", body, now)
    forged = signed_headers("whsec_" + "A" * 43, "msg_x", body, now)
    post = functools.partial(requests.post, receiver.url, timeout=10)
    assert post(data=body.replace("ep_x", "ep_y"), headers=headers).status_code == 400
    assert post(data=body, headers=forged).status_code == 400
    assert post(data=body, headers=headers).status_code == 204
    receiver.down()


def test_an_address_refused_at_delivery_disables_the_endpoint(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """Endpoints registered while the operator allowed their hosts, delivered to by a
    worker that no longer allows them: a loopback address, a name that resolves to one,
    the metadata address. Nothing is sent; each delivery is refused on every attempt,
    then given up, and its endpoint disabled, saying why."""
    receiver = Receiver()
    receiver.load(SECRET)
    receiver.up()
    port = receiver.port
    urls = {
        f"https://127.0.0.1:{port}/hook": "127.0.0.1 is a loopback address",
        f"https://localhost:{port}/hook": "localhost resolves to",
        "https://169.254.169.254/hook": "169.254.169.254 is a cloud metadata address",
    }
    allow = f"127.0.0.1:{port},localhost:{port},169.254.169.254"
    client = keyed(WEBHOOK_ALLOW_HOSTS=allow)
    endpoints = {url: register(client, url, ["game.created"]) for url in urls}
    start_worker("--only-webhooks", WEBHOOK_RETRY_SCHEDULE="1")  # one retry, then given up
    made = client.post("/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}, headers=key())
    assert made.status_code == 201
    try:
        for url, says in urls.items():
            endpoint_id = endpoints[url]["id"]
            shown = wait_for(
                lambda e=endpoint_id: (
                    (found := client.get(f"/v1/webhooks/{e}", headers=key()).get_json())["disabled"]
                    and found
                ),
                30,
                f"{url} disabled",
            )
            assert "failed 2 attempts over 1 s" in shown["disabled_reason"]
            assert says in shown["disabled_reason"]
            (delivery,) = deliveries(client, endpoint_id)
            assert delivery["status"] == "failed" and len(delivery["attempts"]) == 2
            assert all(a["error"].startswith("refused: ") for a in delivery["attempts"])
            assert all(says in a["error"] for a in delivery["attempts"])
        assert not receiver.answers
    finally:
        receiver.down()


def test_a_disabled_endpoint_enabled_again_gets_what_waited_in_order(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """A receiver down: the game's first delivery fails its two attempts and the endpoint is
    disabled, and the moves made meanwhile wait. PATCH ``enabled`` true once the receiver is
    back: every event that waited arrives, in the game's order, from where they stopped (the
    one given up stays failed); PATCH ``enabled`` false: the next wait again, and ``events``
    narrows what is recorded from then on (docs/platforms.md, "Managing an endpoint")."""
    receiver, allow, client, endpoint = registered(keyed)
    url = f"/v1/webhooks/{endpoint['id']}"
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow, WEBHOOK_RETRY_SCHEDULE="1")
    created = client.post(
        "/v1/games", json={"seats": [{"name": "Ana"}, {"name": "Bo"}]}, headers=key()
    ).get_json()
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    wait_for(
        lambda: client.get(url, headers=key()).get_json()["disabled"], 30, "the endpoint disabled"
    )
    rng = random.Random(5)
    for _ in range(3):
        play_a_turn(client, game_id, tokens, rng)
    receiver.up()
    try:
        enabled = client.patch(url, json={"enabled": True}, headers=key())
        assert enabled.status_code == 200, enabled.get_json()
        assert enabled.get_json()["disabled"] is False
        assert enabled.get_json()["disabled_reason"] is None
        ids = wait_for(
            lambda: (
                (found := receiver.ids())
                and found[-1].endswith(".turn")
                and len(found) >= 4
                and found
            ),
            30,
            "the deliveries that waited",
        )
        assert ids == sorted(ids, key=position)
        assert f"msg_{game_id}.created" not in ids  # given up before: it stays failed
        assert [d["status"] for d in deliveries(client, endpoint["id"])][0] == "failed"
        # Every failed delivery since before the game, sent again in one request.
        since = (datetime.now(UTC) - timedelta(minutes=5)).isoformat()
        recovered = client.post(f"{url}/recover", json={"since": since}, headers=key())
        assert recovered.status_code == 202, recovered.get_json()
        assert recovered.get_json() == {"deliveries": [f"msg_{game_id}.created"]}
        wait_for(lambda: f"msg_{game_id}.created" in receiver.ids(), 30, "the recovery")
        later = datetime.now(UTC).isoformat()
        none = client.post(f"{url}/recover", json={"since": later}, headers=key())
        assert none.get_json() == {"deliveries": []}
        # Disabled by the key: what comes next waits; only game.over is recorded from now.
        off = client.patch(url, json={"enabled": False, "events": ["game.over"]}, headers=key())
        assert off.get_json()["disabled_reason"] == "disabled by its key"
        assert off.get_json()["events"] == ["game.over"]
        handled = len(receiver.ids())
        play_a_turn(client, game_id, tokens, rng)
        assert client.patch(url, json={"enabled": True}, headers=key()).status_code == 200
        abort = client.post(f"/v1/games/{game_id}/abort", json={"reason": "x"}, headers=key())
        assert abort.status_code == 200
        recorded = wait_for(
            lambda: (
                (found := deliveries(client, endpoint["id"]))
                and all(d["status"] != "pending" for d in found)
                and found
            ),
            30,
            "every delivery made",
        )
        assert len(receiver.ids()) == handled  # neither the turn nor the abort was asked for
        assert all(d["type"] != "game.aborted" for d in recorded)
    finally:
        receiver.down()


def test_a_test_message_is_a_signed_ping_in_the_delivery_log(
    keyed: Callable[..., FlaskClient], start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """POST /v1/webhooks/{id}/test: the receiver gets a ping it verifies (the endpoint's id
    in its data, no game), the delivery log lists it as succeeded; to a disabled endpoint
    too; another key's endpoint is a 404."""
    receiver, allow, client, endpoint = registered(keyed)
    receiver.up()
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow)
    url = f"/v1/webhooks/{endpoint['id']}"
    try:
        for enabled in (True, False):
            assert client.patch(url, json={"enabled": enabled}, headers=key()).status_code == 200
            asked = client.post(f"{url}/test", headers=key())
            assert asked.status_code == 202, asked.get_json()
            delivery = asked.get_json()
            assert delivery["type"] == "ping" and delivery["game"] is None
            assert delivery["payload"]["data"] == {"endpoint": endpoint["id"]}
            got = wait_for(
                lambda d=delivery: [e for e in receiver.received if e["id"] == d["id"]],
                30,
                "the ping",
            )
            assert got == [delivery["payload"]]  # verified by the receiver's code
            shown = wait_for(
                lambda d=delivery: (
                    (found := client.get(f"{url}/deliveries/{d['id']}", headers=key()).get_json())[
                        "status"
                    ]
                    == "succeeded"
                    and found
                ),
                30,
                "the ping's delivery succeeded",
            )
            assert shown["attempts"][-1]["status"] == 204 and shown["attempts"][-1]["manual"]
        assert client.post(f"{url}/test", headers=key(BETA)).status_code == 404
    finally:
        receiver.down()


def test_a_rotated_secret_signs_beside_the_old_one_for_the_overlap(
    keyed: Callable[..., FlaskClient],
    start_worker: Callable[..., subprocess.Popen[bytes]],
    receiver: HTTPServer,
) -> None:
    """POST /v1/webhooks/{id}/secret: a new secret, shown once. During the overlap each
    delivery has two signatures, and a receiver verifying with the old secret or the new
    one accepts it; rotated again with no overlap, only the newest verifies."""
    receiver.expect_request("/hook", method="POST").respond_with_data("", status=204)
    allow = f"127.0.0.1:{receiver.port}"
    client = keyed(WEBHOOK_ALLOW_HOSTS=allow)
    endpoint = register(client, receiver.url_for("/hook"), ["game.created"])
    url = f"/v1/webhooks/{endpoint['id']}"
    rotated = client.post(f"{url}/secret", json={}, headers=key())
    assert rotated.status_code == 200, rotated.get_json()
    new = rotated.get_json()
    assert new["secret"] != endpoint["secret"] and new["secret"].startswith("whsec_")
    overlap = datetime.fromisoformat(new["previous_secret_expires_at"]) - datetime.now(UTC)
    assert 86000 < overlap.total_seconds() <= 86400  # a day by default
    assert "secret" not in client.get(url, headers=key()).get_json()
    start_worker("--only-webhooks", WEBHOOK_ALLOW_HOSTS=allow)

    def delivered(count: int) -> tuple[str, dict[str, str]]:
        client.post("/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]}, headers=key())
        wait_for(lambda: len(receiver.log) >= count, 30, f"delivery {count}")
        request = receiver.log[count - 1][0]
        return request.get_data(as_text=True), dict(request.headers)

    data, headers = delivered(1)
    assert len(headers["Webhook-Signature"].split(" ")) == 2
    for secret in (endpoint["secret"], new["secret"]):
        assert Webhook(secret).verify(data, headers)["type"] == "game.created"
    again = client.post(f"{url}/secret", json={"overlap_seconds": 0}, headers=key()).get_json()
    assert again["previous_secret_expires_at"] is None
    data, headers = delivered(2)
    assert Webhook(again["secret"]).verify(data, headers)["type"] == "game.created"
    for old in (endpoint["secret"], new["secret"]):
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(data, headers)
    refused = client.post(f"{url}/secret", json={"overlap_seconds": 10**7}, headers=key())
    assert refused.status_code == 422
    assert client.post("/v1/webhooks/ep_none/secret", json={}, headers=key()).status_code == 404


def test_the_records_move_on_once_and_bound_what_waits(redis_url: str) -> None:
    """A game's log becomes deliveries once (a dispatch that read an old cursor writes
    nothing); a queue gives its head only, and loses it only when it is settled; an
    endpoint with as many deliveries waiting as allowed gets no more."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    hooks = WebhookStore(client, 60)
    try:
        endpoint = hooks.add_endpoint("acme", "https://8.8.8.8/", ["game.over"], most=2)
        first = [Message(f"msg_g.{n}", "game.over", "g", "{}") for n in range(2)]
        assert hooks.dispatch("acme", "g", "", "2", {endpoint.id: first}, 3) == [0]
        assert hooks.dispatch("acme", "g", "", "3", {endpoint.id: first}, 3) is None
        assert hooks.cursor("acme", "g") == "2"
        head = hooks.head("acme", endpoint.id, "g")
        assert head is not None and head["id"] == "msg_g.0"
        # Over the most waiting (3): refused whole, the cursor still moves on.
        more = [Message(f"msg_g.{n}", "game.over", "g", "{}") for n in (2, 3)]
        assert hooks.dispatch("acme", "g", "2", "4", {endpoint.id: more}, 3) == [-1]
        assert hooks.settle("acme", endpoint.id, {**head, "status": "succeeded"}, leaves=True) == 1
        assert hooks.head("acme", endpoint.id, "g")["id"] == "msg_g.1"  # type: ignore[index]
        assert [d["id"] for d in hooks.deliveries("acme", endpoint.id)] == ["msg_g.1", "msg_g.0"]
        assert hooks.delivery("acme", endpoint.id, "msg_g.0")["status"] == "succeeded"  # type: ignore[index]
        assert hooks.delete_endpoint("acme", endpoint.id)
        assert not client.keys(f"scopa:hooks:{{acme}}:*:{endpoint.id}*")
    finally:
        client.close()


def test_a_request_sends_no_webhook_it_queues_a_job(keyed: Callable[..., FlaskClient]) -> None:
    """With no worker running, a game's changes reach no endpoint: a commit of a key with
    endpoints marks its game unread and queues the key's run's job on the webhooks' queue
    unless the run is on (it will read the commit's events too), and sends nothing
    itself; a game without an owner, or an owner without endpoints, queues none."""
    receiver = Receiver()
    receiver.load(SECRET)
    receiver.up()
    try:
        client = keyed(WEBHOOK_ALLOW_HOSTS=f"127.0.0.1:{receiver.port}")
        app = client.application
        queue = hook_queue.queue_for(app.extensions["scopa_bot_queue"].connection)
        seats = {"seats": [{"name": "A"}, {"name": "B"}]}
        assert client.post("/v1/games", json=seats, headers=key(BETA)).status_code == 201
        assert client.post("/v1/games", json=seats).status_code == 201
        assert queue.count == 0
        register(client, receiver.url)
        made = client.post("/v1/games", json=seats, headers=key())
        game_id = made.get_json()["id"]
        view = client.get(f"/v1/games/{game_id}?as_seat=0", headers=key()).get_json()
        seat = view["turn"]
        legal = client.get(
            f"/v1/games/{game_id}/legal-moves?as_seat={seat}", headers=key()
        ).get_json()["moves"]
        moved = client.post(
            f"/v1/games/{game_id}/moves",
            json={"card": legal[0]["card"], "capture": legal[0]["capture"]},
            headers={**key(), "X-Seat": str(seat)},
        )
        assert moved.status_code == 200
        (job,) = queue.job_ids  # the key's run, woken by the creation; on for the move
        assert job.startswith("hooks-run-")
        assert not receiver.answers
    finally:
        receiver.down()
