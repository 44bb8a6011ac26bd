"""Scaling out (docs/reliability.md, "Scaling out"): matches played through two service
instances at once, every request going to the other instance than the last, on a real
3-master Redis Cluster; and on a master and replica watched by three Sentinels, failed
over in the middle of the matches.

Everything is real: redis-server processes on loopback ports (tests/redis_topologies.py),
gunicorn instances as deployed (tests/live.py), and a background worker that plays the
computer players. Where redis-server or redis-cli is missing, these tests skip.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import redis
import requests
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.api import ratelimit
from service.api.breaker import GuardedConnection
from service.engine.replay import comparable, replay
from service.play import GameStore, connections, hash_token, keys
from tests.devredis import RedisServer
from tests.live import DEFAULT_ENV, ROOT, LiveService

topologies = pytest.importorskip("tests.redis_topologies")

#: How long one match may take, the computer players' included.
MATCH_SECONDS = 120.0

#: The matches each test plays at once: people only, and people with computer players
#: whose moves the background worker plays.
MATCHES: list[dict[str, Any]] = [
    {"variant": "scopa", "players": 2, "target": 11},
    {"variant": "scopone_scientifico", "players": 4},
    {"variant": "escoba", "players": 3, "target": 15},
    {"variant": "scopa_di_quindici", "players": 2, "target": 11},
    {"seats": [{"name": "Ana"}, {"name": "Cpu", "bot": "expert"}], "target": 11},
    {"seats": [{"name": f"Cpu{i}", "bot": "greedy"} for i in range(4)], "target": 11},
]


#: The games created, beyond the matches, to see them spread over the masters.
SPREAD_GAMES = 60


class Table:
    """Plays one match as all its people, sending each request to the next instance in
    turn. A 503 (the only answer a failover may give) is retried after its Retry-After,
    with the same Idempotency-Key for a move; any other failure fails the test."""

    def __init__(self, bases: list[str], rng: random.Random, statuses: Counter[int]) -> None:
        self.bases = bases
        self.rng = rng
        self.statuses = statuses
        self.http = requests.Session()
        self.sent = 0
        self.game_id = ""
        self.tokens: list[str] = []
        self.people: set[int] = set()
        #: The latest version a move was answered with: no view may show an older one
        #: (a move acknowledged, then lost in a failover, would).
        self.acknowledged = 0

    def send(
        self, method: str, path: str, *, seat: int | None = None, body: Any = None
    ) -> dict[str, Any]:
        headers = {"Idempotency-Key": uuid.uuid4().hex} if method == "POST" else {}
        if seat is not None:
            headers["Authorization"] = f"Bearer {self.tokens[seat]}"
        deadline = time.monotonic() + 30
        while True:
            base = self.bases[self.sent % len(self.bases)]
            self.sent += 1
            response = self.http.request(
                method, base + path, json=body, headers=headers, timeout=30
            )
            self.statuses[response.status_code] += 1
            if response.status_code != 503:
                assert response.status_code in (200, 201, 202), (method, path, response.text)
                answer: dict[str, Any] = response.json()
                return answer
            assert response.headers["Content-Type"] == "application/problem+json"
            assert time.monotonic() < deadline, f"503 for 30 s: {response.text}"
            time.sleep(min(1.0, int(response.headers["Retry-After"])))

    def play(self, setup: dict[str, Any]) -> dict[str, Any]:
        """Play the match ``setup`` creates to its end; its final view."""
        created = self.send("POST", "/v1/games", body=setup)
        self.game_id = created["id"]
        self.tokens = [seat["token"] for seat in created["seats"]]
        self.people = {seat["seat"] for seat in created["seats"] if not seat.get("bot")}
        deadline = time.monotonic() + MATCH_SECONDS
        while time.monotonic() < deadline:
            view = self.send("GET", f"/v1/games/{self.game_id}")
            assert view["version"] >= self.acknowledged, (self.game_id, view["version"])
            if view["status"] == "finished":
                return view
            turn = view["turn"]
            if turn not in self.people:
                time.sleep(0.05)  # a computer player's turn: the worker plays it
                continue
            moves = self.send("GET", f"/v1/games/{self.game_id}/legal-moves", seat=turn)
            move = self.rng.choice(moves["moves"])
            body = {"card": move["card"], "capture": move["capture"]}
            moved = self.send("POST", f"/v1/games/{self.game_id}/moves", seat=turn, body=body)
            self.acknowledged = max(self.acknowledged, moved["state"]["version"])
        raise AssertionError(f"match {self.game_id} not over in {MATCH_SECONDS:.0f} s")


def play_all(
    bases: list[str], during: Callable[[], None] | None = None
) -> tuple[list[tuple[str, dict[str, Any]]], Counter[int]]:
    """Play :data:`MATCHES` at once, one thread each, through ``bases``; call ``during``
    once the matches are under way. The games' ids and final views, and the statuses."""
    statuses: Counter[int] = Counter()
    finished: list[tuple[str, dict[str, Any]]] = []
    errors: list[BaseException] = []
    started = threading.Barrier(len(MATCHES) + 1)

    def one(index: int) -> None:
        table = Table(bases, random.Random(index), statuses)
        try:
            started.wait()
            view = table.play(MATCHES[index])
            finished.append((table.game_id, view))
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(MATCHES))]
    for thread in threads:
        thread.start()
    started.wait()
    if during is not None:
        # Once the matches are under way: each created, and a few requests answered each.
        give_up = time.monotonic() + 30
        while statuses[201] < len(MATCHES) or statuses[200] < 5 * len(MATCHES):
            assert not errors and time.monotonic() < give_up, (errors, statuses)
            time.sleep(0.01)
        during()
    for thread in threads:
        thread.join(timeout=MATCH_SECONDS + 60)
    assert not errors, errors
    assert len(finished) == len(MATCHES)
    return finished, statuses


def assert_ended_correctly(
    url: str, finished: list[tuple[str, dict[str, Any]]], bases: list[str]
) -> None:
    """Each match is over with a winner, its stored state is the replay of its event
    log, and every instance serves the same log."""
    store = GameStore(connections.connect(url), 60)
    try:
        for game_id, view in finished:
            assert view["status"] == "finished" and view["turn"] is None
            scores = [team["score"] for team in view["teams"]]
            assert scores[view["winner"]] == max(scores) and scores.count(max(scores)) == 1
            _, events = store.events(game_id)
            stored = store.load(game_id)
            assert comparable(replay(events).to_dict()) == comparable(stored.match.to_dict())
            assert events[-1]["type"] == "match_over"
            logs = [requests.get(f"{b}/v1/games/{game_id}/events", timeout=30) for b in bases]
            assert [r.status_code for r in logs] == [200] * len(bases)
            assert len({len(r.json()["events"]) for r in logs}) == 1
            assert len(logs[0].json()["events"]) == len(events)
    finally:
        store.close()


@contextlib.contextmanager
def worker(redis_url: str, *args: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m service.worker`` (with ``args``): plays the computer players' moves
    (``--only-webhooks``: delivers webhooks)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "service.worker", *args],
        cwd=ROOT,
        env={
            **os.environ,
            **DEFAULT_ENV,
            "REDIS_URL": redis_url,
            "BOT_SLICE_SECONDS": "1",
            # No budget per address: every match here comes from 127.0.0.1, and a job
            # waiting out a failover's timeouts must not put the others off.
            "COST_BUDGET_SECONDS_PER_ADDRESS": "0",
            **env,
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


@contextlib.contextmanager
def instances(count: int, redis_url: str, **env: str) -> Iterator[list[LiveService]]:
    services = [LiveService(redis_url, WEB_CONCURRENCY="1", **env) for _ in range(count)]
    try:
        for service in services:
            service.start()
        yield services
    finally:
        for service in services:
            service.stop()
            service.close()


def started(make: Callable[[], Any]) -> Any:
    try:
        return make().start()
    except topologies.TopologyUnavailable as missing:
        pytest.skip(str(missing))


# -- a Redis Cluster ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    found = started(topologies.RedisClusterProcesses)
    try:
        yield found
    finally:
        found.stop()


def test_matches_play_through_two_instances_on_a_redis_cluster(cluster: Any) -> None:
    """Requests alternate between two instances; the games spread over the three
    masters; every match ends correctly, and nothing answers anything but success."""
    with RedisServer() as queue, contextlib.ExitStack() as stack:
        services = stack.enter_context(instances(2, cluster.url, QUEUE_REDIS_URL=queue.url))
        stack.enter_context(worker(cluster.url, QUEUE_REDIS_URL=queue.url))
        bases = [service.url for service in services]
        finished, statuses = play_all(bases)
        assert set(statuses) <= {200, 201}, statuses
        assert_ended_correctly(cluster.url, finished, bases)
        # Enough more games that each of the three masters holds some: the ids are
        # random, and six alone all land on one master once in 243 runs; sixty
        # miss one master once in ten billion.
        table = Table(bases, random.Random(0), statuses)
        created = [
            table.send("POST", "/v1/games", body={"variant": "scopa", "players": 2})["id"]
            for _ in range(SPREAD_GAMES)
        ]
        for service in services:
            assert not service.server_errors(), service.log_tail()
    # The games are spread over the cluster: each master holds some, and each is there.
    client = connections.connect(cluster.url)
    assert isinstance(client, connections.RedisCluster)
    game_ids = [game_id for game_id, _ in finished] + created
    holders = {client.get_node_from_key(keys.game(game_id)).name for game_id in game_ids}
    assert len(holders) == 3, holders
    assert all(client.exists(keys.game(game_id)) == 1 for game_id in game_ids)
    connections.close(client)


def test_a_stream_on_one_instance_hears_moves_made_on_the_other(cluster: Any) -> None:
    """The stream fan-out on a cluster: each commit publishes on the game's shard
    channel, on the master that holds the game's slot, and the subscriber of the other
    instance hears it there: the moves made on one instance reach a stream on the other
    at once, not at its next keep-alive (a minute away here). So does a reaction, on its
    sibling shard channel in the same slot."""
    with RedisServer() as queue, contextlib.ExitStack() as stack:
        one, other = stack.enter_context(
            instances(
                2,
                cluster.url,
                QUEUE_REDIS_URL=queue.url,
                STREAM_MAX_SECONDS="60",
                STREAM_KEEPALIVE_SECONDS="60",
            )
        )
        table = Table([one.url], random.Random(7), Counter())
        created = table.send("POST", "/v1/games", body={"players": 2})
        table.game_id, table.tokens = created["id"], [s["token"] for s in created["seats"]]
        game = f"/v1/games/{table.game_id}"
        heard: list[tuple[float, dict[str, Any]]] = []
        reactions: list[dict[str, Any]] = []
        ready = threading.Event()

        def listen() -> None:
            with requests.get(f"{other.url}{game}/stream", stream=True, timeout=60) as stream:
                assert stream.status_code == 200
                kind = None
                for line in stream.iter_lines(decode_unicode=True):
                    if line.startswith("event: "):
                        kind = line[7:]
                        ready.set()
                    elif line.startswith("data: ") and kind == "reaction":
                        reactions.append(json.loads(line[6:]))
                    elif line.startswith("data: ") and ready.is_set():
                        heard.append((time.monotonic(), json.loads(line[6:])))
                    elif not line:
                        kind = None
                    moved = sum(event.get("type") == "move" for _, event in heard)
                    if moved >= 3 and reactions:
                        return

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert ready.wait(10), "no state event on the stream"
        # Until the other instance's subscriber has taken up the game's shard channel (on
        # the master of its slot, which counts its own subscribers).
        client = connections.connect(cluster.url)
        assert isinstance(client, connections.RedisCluster)
        channel = keys.game_log_channel(table.game_id)
        holder = client.get_node_from_key(channel)
        connections.close(client)
        with redis.Redis(host=holder.host, port=holder.port) as master:
            give_up = time.monotonic() + 10
            for taken_up in (channel, keys.game_reactions_channel(table.game_id)):
                while master.pubsub_shardnumsub(taken_up)[0][1] < 1:
                    assert time.monotonic() < give_up, f"the subscriber never took up {taken_up}"
                    time.sleep(0.01)
        sent: list[float] = []
        for _ in range(3):
            view = table.send("GET", game)
            moves = table.send("GET", f"{game}/legal-moves", seat=view["turn"])
            move = moves["moves"][0]
            body = {"card": move["card"], "capture": move["capture"]}
            table.send("POST", f"{game}/moves", seat=view["turn"], body=body)
            sent.append(time.monotonic())
        reacted = table.send("POST", f"{game}/reactions", seat=0, body={"emote": "wow"})
        listener.join(10)
        assert reactions == [reacted], reactions
        moves_heard = [(at, event) for at, event in heard if event.get("type") == "move"]
        assert len(moves_heard) == 3, heard
        lags = [at - made for (at, _), made in zip(moves_heard, sent, strict=True)]
        assert max(lags) < 5.0, lags  # woken by the shard channel, not the keep-alive


# -- Sentinel ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sentinels() -> Iterator[Any]:
    # Two replicas: once one is promoted, the other replicates from it at once, so that
    # REDIS_MIN_REPLICAS=1 holds again within a second or two.
    found = started(lambda: topologies.SentinelProcesses(replicas=2))
    try:
        yield found
    finally:
        found.stop()


def test_matches_survive_the_master_s_death_and_a_sentinel_failover(sentinels: Any) -> None:
    """The master is killed in the middle of the matches, and the sentinels promote a
    replica. Meanwhile requests are answered 503 with Retry-After, and nothing else;
    play resumes on the new master through both instances and the worker; no move
    answered 200 is lost (each write reached a replica first: REDIS_MIN_REPLICAS=1), and
    no match is."""
    before = sentinels.master_port()
    after: list[int] = []
    killed: list[Any] = []

    def kill() -> None:
        promoted, server = sentinels.kill_master()
        after.append(promoted)
        killed.append(server)

    with contextlib.ExitStack() as stack:
        replicated = {"REDIS_MIN_REPLICAS": "1"}
        services = stack.enter_context(instances(2, sentinels.url, **replicated))
        stack.enter_context(worker(sentinels.url, **replicated))  # its queue is there too
        bases = [service.url for service in services]
        finished, statuses = play_all(bases, during=kill)
        assert after and after[0] != before
        assert set(statuses) <= {200, 201, 503}, statuses
        assert statuses[503], "no request met the failover: it came too late to test"
        assert_ended_correctly(sentinels.url, finished, bases)
        for service in services:
            failures = [line for line in service.server_errors() if '"status": 503' not in line]
            assert not failures, service.log_tail()
    sentinels.restart(killed[0])  # back, as a replica of the new master
    print(f"master {before} killed, {after[0]} promoted: {dict(statuses)}")


def test_every_node_s_connections_ask_the_breaker(
    cluster: Any, make_app: Callable[..., Any]
) -> None:
    """On a cluster, the connections to each node the client learns of are guarded by
    the worker's circuit breaker, as one Redis's are (service/api/breaker.py)."""
    with RedisServer() as queue:
        app = make_app(REDIS_URL=cluster.url, QUEUE_REDIS_URL=queue.url)
        client = app.extensions["scopa_store"].shared
        assert isinstance(client, connections.RedisCluster)
        nodes = client.get_nodes()
        assert len(nodes) == 3
        for node in nodes:
            made = node.redis_connection.connection_pool.connection_class
            assert issubclass(made, GuardedConnection)
            assert made.breaker is app.extensions["scopa_breaker"]


def test_the_rate_limits_count_on_a_cluster(
    cluster: Any, make_app: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of a request's checks is a script on its two counters, which share a slot,
    sent in one cluster pipeline (to each node its checks fall on): the limits count
    and refuse on a cluster as on one Redis. (A script the cluster pipeline could not
    send would fail open: every request let through.) The limiter's clock is set by
    hand: no window ends in the middle."""
    minute = 29_000_000
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: 60 * minute + 30.0))
    with RedisServer() as queue:
        app = make_app(
            REDIS_URL=cluster.url,
            QUEUE_REDIS_URL=queue.url,
            RATE_LIMIT_PER_ADDRESS=6,
            RATE_LIMIT_PER_TOKEN=3,
        )
        client = app.test_client()
        here = {"REMOTE_ADDR": "198.51.100.30"}  # an address no other test here uses
        created = client.post("/v1/games", json={}, environ_base=here).get_json()
        url = f"/v1/games/{created['id']}"
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        reads = [client.get(url, headers=auth, environ_base=here).status_code for _ in range(4)]
        assert reads == [200, 200, 200, 429]  # the token's limit
        others = [client.get("/v1/variants", environ_base=here).status_code for _ in range(3)]
        assert others == [200, 200, 429]  # the address's: 1 + 3 + 2 (the refused not counted)
        shared = connections.connect(cluster.url)
        token = hash_token(created["seats"][0]["token"])[:32]
        for who, count in (("a:198.51.100.30/32", 6), (f"t:{token}", 3)):
            key = f"scopa:rate:{{requests:{who}}}:{minute}"
            assert (int(shared.get(key)), 0 < shared.ttl(key) <= 120) == (count, True), key
        connections.close(shared)


def test_a_cluster_takes_no_replica_count(cluster: Any) -> None:
    """A cluster fails over by itself: REDIS_MIN_REPLICAS is for one Redis or Sentinel."""
    client = connections.connect(cluster.url)
    with pytest.raises(ValueError, match="REDIS_MIN_REPLICAS"):
        GameStore(client, 60, replicas=1)
    connections.close(client)


# -- replicas: what REDIS_MIN_REPLICAS asks ----------------------------------------------


def test_a_master_without_its_replicas_serves_nothing(make_app: Callable[..., Any]) -> None:
    """With REDIS_MIN_REPLICAS=1, a Redis that has no replica (as an old master has once
    a Sentinel promoted its replica) is not used: a read is answered 503, and a write
    503 saying it may be stored. With a replica, both go through."""
    with RedisServer(extra_args=("--repl-diskless-sync-delay", "0")) as master:
        app = make_app(
            REDIS_URL=master.url, REDIS_MIN_REPLICAS=1, REDIS_REPLICA_TIMEOUT_SECONDS=0.1
        )
        client = app.test_client()
        created = client.post("/v1/games", json={"players": 2})
        assert created.status_code == 503
        assert created.headers["Content-Type"] == "application/problem+json"
        assert "may still be stored" in created.get_json()["detail"]
        assert int(created.headers["Retry-After"]) >= 1
        with RedisServer(extra_args=("--replicaof", "127.0.0.1", str(master.port))):
            wait_until_replicating(master)
            created = client.post("/v1/games", json={"players": 2})
            assert created.status_code == 201, created.get_json()
            game = created.get_json()["id"]
            assert client.get(f"/v1/games/{game}").status_code == 200
        # The replica gone: the game is there, but this master is not to be trusted.
        answer = client.get(f"/v1/games/{game}")
        assert answer.status_code == 503
        assert "Nothing was changed" in answer.get_json()["detail"]


def wait_until_caught_up(master: redis.Redis) -> None:
    """Until every replica of ``master`` has all it wrote (the runbook's second step,
    docs/reliability.md: a write a replica acknowledged is then on whichever replica
    the sentinels promote, however far behind the others were when writes stopped)."""
    deadline = time.monotonic() + 5
    while True:
        info = master.info("replication")
        replicas = [info[f"slave{i}"] for i in range(int(info["connected_slaves"]))]
        if all(r["offset"] >= info["master_repl_offset"] for r in replicas):
            return
        assert time.monotonic() < deadline, f"the replicas did not catch up: {info}"
        time.sleep(0.01)


def wait_until_replicating(master: RedisServer) -> None:
    """Until a write to ``master`` is acknowledged by a replica (a new replica starts
    acknowledging about a second after its master counts it online)."""
    deadline = time.monotonic() + 10
    with redis.Redis.from_url(master.url) as client:
        client.set("replicated", 1)
        while not client.wait(1, 100):
            assert time.monotonic() < deadline, "the replica did not catch up"


def test_a_planned_failover_after_a_write_pause_loses_nothing(sentinels: Any) -> None:
    """The planned switch of docs/reliability.md: writes to the master paused, then
    SENTINEL FAILOVER, the old master made a replica by the sentinels in their own time.
    Meanwhile requests get 503 and nothing else; no move answered is lost."""
    before = sentinels.master_port()
    after: list[int] = []

    def switch() -> None:
        with redis.Redis(port=before, decode_responses=True) as master:
            master.execute_command("CLIENT", "PAUSE", 5000, "WRITE")
            wait_until_caught_up(master)
        # (The sentinels make the old master a replica some 10 s after the switch.)
        after.append(sentinels.failover(timeout=40, demote_old_master=False))

    with contextlib.ExitStack() as stack:
        replicated = {"REDIS_MIN_REPLICAS": "1"}
        services = stack.enter_context(instances(2, sentinels.url, **replicated))
        stack.enter_context(worker(sentinels.url, **replicated))
        bases = [service.url for service in services]
        finished, statuses = play_all(bases, during=switch)
        assert after and after[0] != before
        assert set(statuses) <= {200, 201, 503}, statuses
        assert_ended_correctly(sentinels.url, finished, bases)
    print(f"planned switch {before} -> {after[0]}: {dict(statuses)}")


def test_a_reply_that_came_too_late_is_never_read_as_the_next_one(sentinels: Any) -> None:
    """A read that times out on a connection to Sentinel's master drops the connection:
    the late reply goes with it, and the next command gets its own. (redis-py's own
    Sentinel connection kept it: the next command read the late reply as its own, an
    HMGET getting a WAIT's count in the failover test.)"""
    # As the app's: a broken connection is retried, a timeout is not.
    retry = Retry(NoBackoff(), 2, supported_errors=(redis.exceptions.ConnectionError,))
    client = connections.connect(sentinels.url, socket_timeout=0.2, retry=retry)
    assert isinstance(client, redis.Redis)
    client.set("late-reply-test", "its own value")
    with pytest.raises(redis.exceptions.TimeoutError), client.pipeline(False) as pipe:
        pipe.get("late-reply-test")
        pipe.blpop(["nothing-comes-here"], timeout=1)  # answers nil after 1 s: too late
        pipe.execute()
    time.sleep(1.2)  # the nil has come by now, to whichever connection asked
    for _ in range(3):  # (the pool hands out the connection the pipeline gave back)
        assert client.get("late-reply-test") == "its own value"
    connections.close(client)
