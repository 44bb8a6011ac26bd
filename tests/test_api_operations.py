"""Operations: request ids, metrics, rate limits and quotas, and request bodies."""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from redis.crc import key_slot

from service.api import ratelimit
from service.api.observability import JsonFormatter
from service.play import hash_token
from service.play.budget import Budget
from service.play.queues import queue_for
from tests.bench import floor
from tests.conftest import TEST_SECRET
from tests.helpers import Table
from tests.live import LiveService, Player


class TestRequestIds:
    def test_a_sane_request_id_is_echoed(self, client: FlaskClient) -> None:
        response = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
        assert response.headers["X-Request-ID"] == "abc-123"

    @pytest.mark.parametrize("sent", ["", "x" * 200, "bad id", "a/b"])
    def test_otherwise_one_is_made(self, client: FlaskClient, sent: str) -> None:
        response = client.get("/healthz", headers={"X-Request-ID": sent})
        made = response.headers["X-Request-ID"]
        assert made != sent and len(made) == 16

    def test_errors_carry_one_too(self, client: FlaskClient) -> None:
        response = client.get("/v1/games/nope")
        assert response.status_code == 404 and response.headers["X-Request-ID"]


def test_log_lines_are_json_with_the_request_id() -> None:
    record = logging.makeLogRecord(
        {"name": "service.x", "levelname": "WARNING", "msg": "store %s", "args": ("down",)}
    )
    record.request_id = "r1"
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "store down" and line["request_id"] == "r1"
    assert line["level"] == "warning" and line["logger"] == "service.x"


def test_the_access_log_is_json_whatever_the_path(live_service: LiveService) -> None:
    path = '/v1/games/a%5C%22b%0A"c'  # a backslash, a quote, a newline, a bare quote
    url = live_service.url + path
    response = live_service.session.get(url, headers={"X-Request-ID": "access-log-1"})
    assert response.status_code == 404
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found = [line for line in live_service.log_text().splitlines() if "access-log-1" in line]
        if found:
            break
        time.sleep(0.05)
    assert len(found) == 1
    line = json.loads(found[0])
    assert line["request_id"] == "access-log-1" and line["status"] == 404
    assert line["path"] == '/v1/games/a\\"b\n"c' and line["method"] == "GET"
    assert line["bytes"] > 0 and line["duration_ms"] >= 0


def test_the_logs_never_name_a_card(live_service: LiveService) -> None:
    """A whole match with refused moves (cards in the bodies and in the answers), and
    expert hints: nothing of it reaches the log but routes, statuses and timings."""
    player = Player(live_service.url, live_service.session)
    player.create(seed=41, seats=[{"name": "A"}, {"name": "B", "bot": "expert"}])
    rng = random.Random(41)
    while (turn := player.view()["turn"]) is not None:
        hand = player.view(turn)["hand"]
        assert player.move(1 - turn, hand[0], None).status_code in (401, 409)
        absent = next(card for card in ("7D", "1C", "5S", "10B") if card not in hand)
        assert player.move(turn, absent, []).status_code == 422
        assert player.get("/hint", turn).status_code == 200
        move = rng.choice(player.legal_moves(turn))
        assert player.move(turn, move["card"], move["capture"]).status_code == 200
    assert live_service.card_mentions() == []
    assert live_service.log_text().count(player.game_id) > 100  # the log was read


def test_the_log_scan_finds_a_card_outside_the_path_and_request_id(tmp_path: Path) -> None:
    lines = [
        {"path": "/v1/games/7D/moves", "request_id": "10B", "status": 404},
        {"message": "refused 7D"},
    ]
    (tmp_path / "gunicorn.log").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert LiveService("redis://unused", workdir=str(tmp_path)).card_mentions() == [
        json.dumps(lines[1])
    ]


def test_metrics_count_requests_moves_and_matches(
    make_app: Callable[..., Flask], redis_url: str
) -> None:
    client = make_app(REDIS_URL=redis_url, BOT_TIME_LIMIT_SECONDS=60).test_client()

    def value(text: str, prefix: str) -> float:
        lines = [line for line in text.splitlines() if line.startswith(prefix)]
        return sum(float(line.rsplit(" ", 1)[1]) for line in lines)

    before = client.get("/metrics").get_data(as_text=True)
    body = {"seed": 1, "seats": [{"name": "A", "bot": "greedy"}, {"name": "B", "bot": "random"}]}
    assert client.post("/v1/games", json=body).status_code == 201
    after = client.get("/metrics")
    assert after.mimetype == "text/plain"
    text = after.get_data(as_text=True)
    started = 'scopa_matches_started_total{variant="scopa"}'
    assert value(text, started) == value(before, started) + 1
    finished = 'scopa_matches_finished_total{variant="scopa"}'
    assert value(text, finished) == value(before, finished) + 1
    bots = 'scopa_moves_total{by="bot"}'
    assert value(text, bots) >= value(before, bots) + 36
    created = 'scopa_http_requests_total{method="POST",route="/v1/games",status="201"}'
    assert value(text, created) == value(before, created) + 1


class TestRateLimits:
    def test_per_address(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=3).test_client()
        statuses = [client.post("/v1/legal-moves", json={"hand": ["1D"]}).status_code]
        statuses += [client.get("/v1/variants").status_code for _ in range(3)]
        assert statuses == [200, 200, 200, 429]
        limited = client.get("/v1/variants")
        assert limited.mimetype == "application/problem+json"
        assert limited.get_json()["type"] == "/problems/rate-limited"
        assert 1 <= int(limited.headers["Retry-After"]) <= 2 * 60  # sliding: two windows at most
        # Probes are never limited.
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").status_code == 200

    def test_a_window_slides_twice_the_limit_across_its_boundary_is_refused(
        self, make_app: Callable[..., Flask], redis_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Fixed windows let a client send the limit at the end of one minute and again
        at the start of the next: twice the limit within two seconds. The sliding window
        counts the previous minute too, weighted by how much of it the last 60 s still
        cover (issue 26, item 9). The clock is the limiter's, set by hand."""
        clock = [60 * 29_000_000 + 58.5]  # 1.5 s before a minute's end
        monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: clock[0]))
        client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=5).test_client()

        def burst(count: int) -> list[int]:
            return [client.get("/v1/variants").status_code for _ in range(count)]

        assert burst(5) == [200] * 5
        clock[0] += 2.0  # 0.5 s into the next minute
        refused = client.get("/v1/variants")
        assert refused.status_code == 429
        # It fits once enough of the previous minute has slid out: 5 * (1 - f) + 1 <= 5,
        # f >= 0.2, 12 s into this minute, 11.5 s from now.
        assert int(refused.headers["Retry-After"]) == 12
        assert burst(20) == [429] * 20  # refused requests do not count
        clock[0] += 11.0  # 11.5 s in: 5 * (1 - 0.19) + 1 > 5
        assert burst(1) == [429]
        clock[0] += 1.0  # 12.5 s in: room for one
        assert burst(2) == [200, 429]
        clock[0] = 60 * 29_000_000 + 60 * 2 + 30  # the next minute, half-way
        # The minute before (1 request) weighs half: 0.5 + 4 <= 5, and no more.
        assert burst(5) == [200] * 4 + [429]

    def test_per_token(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        app = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_TOKEN=2)
        table = Table(app.test_client())
        table.create(seed=1)
        assert table.client.get(table.url(), headers=table.auth(0)).status_code == 200
        assert table.client.get(table.url(), headers=table.auth(0)).status_code == 200
        assert table.client.get(table.url(), headers=table.auth(0)).status_code == 429
        # Another seat's token has its own allowance; no token, no token limit.
        assert table.client.get(table.url(), headers=table.auth(1)).status_code == 200
        assert table.client.get(table.url()).status_code == 200

    def test_a_token_sent_as_access_token_is_counted_as_the_same_token(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        app = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_TOKEN=2)
        table = Table(app.test_client())
        table.create(seed=1)
        assert table.client.get(table.url(), headers=table.auth(0)).status_code == 200
        assert table.client.get(table.url(), headers=table.auth(0)).status_code == 200
        stream = table.client.get(
            table.url("/stream"), query_string={"access_token": table.tokens[0]}
        )
        assert stream.status_code == 429

    def test_only_the_exact_probe_paths_are_exempt(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=2).test_client()
        statuses = [client.get(path).status_code for path in ("/docs-123", "/healthzz", "/x")]
        assert statuses == [404, 404, 429]
        assert client.get("/healthz").status_code == 200  # still exempt

    def test_an_address_counts_as_its_network_prefix(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """Every address of an IPv6 /64 is one client (ADDRESS_PREFIX_V6); an IPv4
        address, written plainly or mapped into IPv6, is its own (ADDRESS_PREFIX_V4)."""
        client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=2).test_client()

        def status(address: str) -> int:
            return client.get("/v1/variants", environ_base={"REMOTE_ADDR": address}).status_code

        assert [status("2001:db8:a:b::1"), status("2001:db8:a:b:ffff:ffff:ffff:ffff")] == [
            200,
            200,
        ]
        limited = client.get("/v1/variants", environ_base={"REMOTE_ADDR": "2001:db8:a:b::99"})
        assert limited.status_code == 429
        assert "this address" in limited.get_json()["detail"]
        assert status("2001:db8:a:c::1") == 200  # the next /64 is another client
        assert [status("192.0.2.7"), status("::ffff:192.0.2.7"), status("192.0.2.7")] == [
            200,
            200,
            429,
        ]
        assert status("192.0.2.8") == 200

    def test_the_prefixes_are_settings(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        client = make_app(
            REDIS_URL=redis_url,
            RATE_LIMIT_PER_ADDRESS=1,
            ADDRESS_PREFIX_V4=24,
            ADDRESS_PREFIX_V6=128,
        ).test_client()

        def status(address: str) -> int:
            return client.get("/v1/variants", environ_base={"REMOTE_ADDR": address}).status_code

        assert [status("198.51.100.1"), status("198.51.100.200")] == [200, 429]
        assert [status("2001:db8:d::1"), status("2001:db8:d::2")] == [200, 200]
        for wrong in ({"ADDRESS_PREFIX_V4": 33}, {"ADDRESS_PREFIX_V6": -1}):
            with pytest.raises(RuntimeError, match="prefix length"):
                make_app(REDIS_URL=redis_url, **wrong)

    @pytest.mark.parametrize(
        "spelling", ["Bearer {}", "bearer {}", "BEARER   {}", "  Bearer {}  ", "Bearer\t{}"]
    )
    def test_the_token_is_counted_however_the_header_is_spelled(
        self, make_app: Callable[..., Flask], redis_url: str, spelling: str
    ) -> None:
        """One token, one allowance: the scheme's case and the spaces do not make a new
        client."""
        app = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_TOKEN=2)
        table = Table(app.test_client())
        table.create(seed=1)
        plain = {"Authorization": f"Bearer {table.tokens[0]}"}
        odd = {"Authorization": spelling.format(table.tokens[0])}
        assert table.client.get(table.url(), headers=plain).status_code == 200
        assert table.client.get(table.url(), headers=odd).status_code == 200
        assert table.client.get(table.url(), headers=odd).status_code == 429

    def test_a_check_s_counters_share_a_slot_and_every_one_expires(
        self, make_app: Callable[..., Flask], redis_url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A check is one script on two counters, this window's and the previous one's:
        the quota and the identity in one hash tag put both in one Redis Cluster slot.
        Every counter has a TTL of two windows at most (it is read in the next window),
        refused requests taken off included, and a refusal never makes a counter."""
        minute = 29_000_000
        clock = [60 * minute + 30.0]
        monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: clock[0]))
        app = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=5, RATE_LIMIT_PER_TOKEN=3)
        table = Table(app.test_client())
        table.create(seed=1)
        reads = [table.client.get(table.url(), headers=table.auth(0)) for _ in range(4)]
        assert [r.status_code for r in reads] == [200, 200, 200, 429]  # the token's 3
        clock[0] += 60.0  # the next minute: its counters read the last minute's
        later = [table.client.get("/v1/variants").status_code for _ in range(4)]
        assert later == [200, 200, 200, 429]  # 4 * 0.5 + 4 > 5
        connection = redis.Redis.from_url(redis_url, decode_responses=True)
        address = "{requests:a:127.0.0.1/32}"
        token = f"{{requests:t:{hash_token(table.tokens[0])[:32]}}}"
        counters = {
            key: int(connection.get(key) or 0) for key in connection.scan_iter("scopa:rate:*")
        }
        assert counters == {
            f"scopa:rate:{address}:{minute}": 4,  # the creation and three reads
            f"scopa:rate:{token}:{minute}": 3,
            f"scopa:rate:{address}:{minute + 1}": 3,
        }
        for key in counters:
            assert 0 < connection.ttl(key) <= 120, key
            stem, _, window = key.rpartition(":")
            before = f"{stem}:{int(window) - 1}"  # the window this one reads
            assert key_slot(before.encode()) == key_slot(key.encode()), key
        # A refused request's count is taken off only a counter that is there.
        gone = f"scopa:rate:{address}:{minute + 2}"
        assert connection.eval(ratelimit.UNCOUNT_SCRIPT, 1, gone) == 0
        assert not connection.exists(gone)
        connection.close()

    def test_a_redis_that_forgot_its_scripts_still_counts(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """A Redis restarted or flushed of its scripts (SCRIPT FLUSH) has not got the
        limiter's script: each check sends its text, and it counts on."""
        client = make_app(REDIS_URL=redis_url, RATE_LIMIT_PER_ADDRESS=3).test_client()
        assert client.get("/v1/variants").status_code == 200
        with redis.Redis.from_url(redis_url) as connection:
            connection.script_flush()
            assert connection.script_exists(
                hashlib.sha1(ratelimit.COUNT_SCRIPT.encode()).hexdigest()
            ) == [False]
        assert [client.get("/v1/variants").status_code for _ in range(3)] == [200, 200, 429]


class TestQuotas:
    """Expensive operations have quotas of their own (service/api/ratelimit.py)."""

    def test_hints(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, HINT_LIMIT_PER_ADDRESS=2).test_client()
        body = {"hand": ["7D", "3C", "10S"], "table": ["3B", "4D", "1S", "6C"]}
        statuses = [client.post("/v1/hint", json=body).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        limited = client.post("/v1/hint", json=body)
        assert "hints" in limited.get_json()["detail"] and int(limited.headers["Retry-After"]) >= 1
        # Cheap requests are not charged to the quota.
        assert client.post("/v1/legal-moves", json={"hand": ["1D"]}).status_code == 200

    def test_hints_per_token(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        app = make_app(REDIS_URL=redis_url, HINT_LIMIT_PER_TOKEN=1)
        table = Table(app.test_client())
        table.create(seed=1)
        turn = table.view()["turn"]
        assert table.client.get(table.url("/hint"), headers=table.auth(turn)).status_code == 200
        again = table.client.get(table.url("/hint"), headers=table.auth(turn))
        assert again.status_code == 429

    def test_creations_per_address(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, CREATION_LIMIT_PER_ADDRESS=2).test_client()
        statuses = [client.post("/v1/games", json={}).status_code for _ in range(3)]
        assert statuses == [201, 201, 429]
        limited = client.post("/v1/games", json={})
        assert "games created" in limited.get_json()["detail"]
        assert 1 <= int(limited.headers["Retry-After"]) <= 2 * 3600  # two windows at most

    def test_a_refused_creation_spends_no_creation(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """A creation's quota is counted with the request, before its body is read (one
        round trip), and given back when the command is refused before it spends it: an
        invalid body, a name the text rules refuse, a key's field sent without a key."""
        client = make_app(REDIS_URL=redis_url, CREATION_LIMIT_PER_ADDRESS=2).test_client()
        refused = [
            client.post("/v1/games", json={"target": "eleven"}),
            client.post("/v1/games", json={"seats": [{"name": "\u202eAnn"}, {"bot": "random"}]}),
            client.post("/v1/games", json={"metadata": {"round": "1"}}),
        ]
        assert [r.status_code for r in refused] == [422, 422, 422]
        statuses = [client.post("/v1/games", json={}).status_code for _ in range(3)]
        assert statuses == [201, 201, 429]
        with redis.Redis.from_url(redis_url) as connection:
            counts = [
                int(connection.get(key) or 0) for key in connection.keys("scopa:rate:{creations:*")
            ]
        assert counts == [2]  # the two creations made; the refused ones given back

    def test_computer_players(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, BOT_LIMIT_PER_ADDRESS=1).test_client()
        bots = {"seats": [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}]}
        assert client.post("/v1/games", json={"seed": 2, **bots}).status_code == 201
        assert client.post("/v1/games", json={"seed": 2, **bots}).status_code == 429
        assert client.post("/v1/games", json={}).status_code == 201  # no computer seat

    @pytest.mark.parametrize("setting", ["BOT_LIMIT_PER_ADDRESS", "BOT_LIMIT_PER_TOKEN"])
    def test_computer_players_replying_to_a_move(
        self, make_app: Callable[..., Flask], redis_url: str, setting: str
    ) -> None:
        """Each computer player replying within a person's move is a turn of the `bots`
        quota (the creation was one, per address); over it, the move is played and the
        replies are left to a background worker."""
        client = make_app(REDIS_URL=redis_url, **{setting: 4}).test_client()
        table = Table(client)
        seats = [{"name": "Ann"}] + [{"name": f"Cpu{i}", "bot": "random"} for i in range(3)]
        table.create(seed=3, first_dealer=3, seats=seats)
        first = table.legal_moves(0)[0]
        replied = table.move(0, first["card"], first["capture"]).get_json()
        assert [e["seat"] for e in replied["events"] if e["type"] == "move"] == [1, 2, 3]
        second = table.legal_moves(0)[0]
        alone = table.move(0, second["card"], second["capture"])
        assert alone.status_code == 200
        assert [e for e in alone.get_json()["events"] if e["type"] == "move"] == []
        assert alone.get_json()["state"]["turn"] == 1
        with redis.Redis.from_url(redis_url) as connection:
            assert queue_for(connection).count == 1, "the replies are left to a worker"

    def test_rematches_are_creations(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        """A rematch creates a game: it counts against `creations` (and `bots`, with
        computer players) of the address that asks."""
        table = Table(make_app(REDIS_URL=redis_url).test_client())
        table.create(seed=4, target=1, seats=[{"name": "Ann"}, {"name": "Cpu", "bot": "random"}])
        table.play_to_end(random.Random(4))
        for setting in ("CREATION_LIMIT_PER_ADDRESS", "BOT_LIMIT_PER_ADDRESS"):
            limited = make_app(REDIS_URL=redis_url, **{setting: 1}).test_client()
            spent = limited.post("/v1/games", json={"seats": [{"name": "A"}, {"bot": "random"}]})
            assert spent.status_code == 201
            refused = limited.post(table.url("/rematch"), headers=table.auth(0))
            assert refused.status_code == 429, refused.get_json()
            with redis.Redis.from_url(redis_url) as connection:
                connection.delete(*connection.keys("scopa:rate:*"))
        created = table.client.post(table.url("/rematch"), headers=table.auth(0))
        assert created.status_code == 201

    def test_an_address_that_spent_its_cost_budget(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        """What an address's requests cost in CPU (and its games on the workers) counts
        against one budget a minute: once it is spent, its costly requests are 429 and
        computer players reply to its moves on a worker, while its moves and views go on
        (issue 26, items 3, 5 and 6)."""
        client = make_app(REDIS_URL=redis_url, COST_BUDGET_SECONDS_PER_ADDRESS=0.2).test_client()
        who, budget = "a:127.0.0.1/32", Budget(0.2)
        connection = redis.Redis.from_url(redis_url)
        assert client.get("/v1/variants").status_code == 200
        assert budget.spent(connection, who, time.time()) == 0  # cheap: not charged
        table = Table(client)
        seats = [{"name": "Ann"}] + [{"name": f"Cpu{i}", "bot": "random"} for i in range(3)]
        table.create(seed=3, first_dealer=3, seats=seats)
        body = {"hand": ["7D", "3C", "10S"], "table": ["3B", "4D", "1S", "6C"]}
        statuses = []
        while 429 not in statuses:
            statuses.append(client.post("/v1/hint", json=body).status_code)
            assert len(statuses) < 100, "the budget was never spent"
        assert set(statuses[:-1]) == {200}
        refused = client.post("/v1/legal-moves", json={"hand": ["1D"]})  # costly too
        assert refused.status_code == 429
        assert "computing" in refused.get_json()["detail"]
        assert int(refused.headers["Retry-After"]) >= 1
        assert budget.spent(connection, who, time.time()) >= 0.2
        # Moves and views go on; the computer players reply on a worker.
        assert table.view(0)["turn"] == 0
        first = table.legal_moves(0)[0]
        moved = table.move(0, first["card"], first["capture"])
        assert moved.status_code == 200
        assert [e for e in moved.get_json()["events"] if e["type"] == "move"] == []
        assert queue_for(connection).count == 1, "the replies are left to a worker"
        connection.close()

    def test_position_analyses(self, make_app: Callable[..., Flask], redis_url: str) -> None:
        client = make_app(REDIS_URL=redis_url, ANALYSIS_LIMIT_PER_ADDRESS=2).test_client()
        statuses = [client.post("/v1/legal-moves", json={"hand": ["1D"]}).status_code]
        statuses += [client.post("/v1/score", json={"piles": [[], []]}).status_code]
        statuses += [client.post("/v1/legal-moves", json={"hand": ["1D"]}).status_code]
        assert statuses == [200, 200, 429]
        assert client.get("/v1/variants").status_code == 200  # not an analysis


def test_made_up_methods_share_one_metric_label(client: FlaskClient) -> None:
    """Metric labels come from fixed sets: 300 invented methods add one series, not 300."""
    for n in range(300):
        assert client.open("/v1/variants", method=f"BREW{n}").status_code == 405
    text = client.get("/metrics").get_data(as_text=True)
    assert "BREW" not in text
    assert 'method="other",route="unmatched",status="405"' in text


def test_an_oversized_chunked_body_is_a_413(live_service: LiveService) -> None:
    """A body sent in chunks, with no Content-Length, is held to the same 64 KiB."""

    def send(body: bytes) -> tuple[int, dict[str, Any]]:
        connection = http.client.HTTPConnection("127.0.0.1", live_service.port, timeout=10)
        connection.putrequest("POST", "/v1/games")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Transfer-Encoding", "chunked")
        connection.endheaders()
        for start in range(0, len(body), 8192):
            chunk = body[start : start + 8192]
            connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        connection.send(b"0\r\n\r\n")
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
        return response.status, answer

    huge = json.dumps({"seats": [{"name": "x" * 40}] * 3000}).encode()
    status, answer = send(huge)
    assert status == 413 and answer["status"] == 413
    status, answer = send(json.dumps({"seed": 4}).encode())
    assert status == 201 and answer["state"]["status"] == "playing"


class TestLoadTestFloor:
    """The load test's floor endpoint (tests/bench/floor.py) is served only by the load
    test's own app, never by the service."""

    def test_absent_by_default(self, client: FlaskClient) -> None:
        response = client.post("/_loadtest/floor/x", json={})
        assert response.status_code == 404
        assert response.mimetype == "application/problem+json"
        assert not any("_loadtest" in path for path in client.get("/openapi.json").json["paths"])

    def test_one_get_and_one_set_when_asked_for(
        self, make_app: Callable[..., Flask], redis_url: str
    ) -> None:
        config = {"TESTING": True, "REDIS_URL": redis_url, "SERVER_SECRET": TEST_SECRET}
        bench = floor.create_app(config).test_client()
        first = bench.post("/_loadtest/floor/x", json={"n": 1})
        assert first.status_code == 200 and first.json == {"key": "x", "seen": False}
        assert bench.post("/_loadtest/floor/x", json={"n": 2}).json["seen"] is True
        assert not any("_loadtest" in path for path in bench.get("/openapi.json").json["paths"])
        bench.application.extensions["scopa_store"].close()
