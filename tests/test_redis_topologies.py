"""The Redis topologies of ``tests/redis_topologies.py`` really work: a Redis Cluster
that spreads and serves keys over its masters, and a Sentinel set that fails over,
on purpose and when its master crashes, without losing what was written.

Each test starts its own processes; a test is skipped if ``redis-server`` (or, for the
cluster, ``redis-cli``) is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
import redis
from flask import Flask
from redis.cluster import RedisCluster
from redis.sentinel import Sentinel

from service.api.ratelimit import LIMIT_SETTINGS
from service.app import create_app
from service.play import keys
from tests.conftest import TEST_SECRET
from tests.devredis import RedisServer
from tests.redis_topologies import (
    RedisClusterProcesses,
    SentinelProcesses,
    TopologyUnavailable,
)
from tests.test_api_stream import AppStream, close_hub
from tests.test_key_events import (
    by_game,
    create,
    game_events,
    move,
    spectators_log,
    until_logged,
)
from tests.test_webhooks import KEYS, key

TopologyT = TypeVar("TopologyT", RedisClusterProcesses, SentinelProcesses)


def _started(make: Callable[[], TopologyT]) -> Iterator[TopologyT]:
    """Start a topology for one test (skip if a binary is missing) and stop it after."""
    topology = make()
    try:
        topology.start()
    except TopologyUnavailable as exc:
        pytest.skip(f"Redis topology unavailable: {exc}")
    try:
        yield topology
    finally:
        topology.stop()


@pytest.fixture
def cluster() -> Iterator[RedisClusterProcesses]:
    yield from _started(RedisClusterProcesses)


@pytest.fixture
def sentinels() -> Iterator[SentinelProcesses]:
    yield from _started(SentinelProcesses)


def _sentinel_client(topology: SentinelProcesses) -> Sentinel:
    return Sentinel(topology.sentinels, socket_timeout=2.0, decode_responses=True)


def _close(sentinel: Sentinel) -> None:
    for client in sentinel.sentinels:
        client.close()


# ---------------------------------------------------------------------- cluster
def cluster_app(cluster: RedisClusterProcesses, queue: RedisServer, **settings: Any) -> Flask:
    """The app on ``cluster``, its background queue on ``queue`` (rq needs one Redis),
    the limits off, with ``settings``."""
    return create_app(
        {
            "TESTING": True,
            "SERVER_SECRET": TEST_SECRET,
            "REDIS_URL": cluster.url,
            "QUEUE_REDIS_URL": queue.url,
            **dict.fromkeys(LIMIT_SETTINGS, 0),
            **settings,
        }
    )


def test_cluster_serves_keys_in_every_slot_range(cluster: RedisClusterProcesses) -> None:
    ports = cluster.ports
    assert len(ports) == 3 and len(cluster.nodes) == 3
    assert all(node.running for node in cluster.nodes)
    assert cluster.url == "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in ports)

    for port in ports:
        with redis.Redis(host="127.0.0.1", port=port) as node:
            info = node.execute_command("CLUSTER INFO")
            assert info["cluster_state"] == "ok"
            assert int(info["cluster_slots_assigned"]) == 16384

    client = RedisCluster(host="127.0.0.1", port=ports[0], decode_responses=True)
    try:
        keys = [f"match:{i}" for i in range(300)]
        owners = {client.get_node_from_key(key).port for key in keys}
        assert owners == set(ports), "the keys should land on every master"
        assert len({client.keyslot(key) for key in keys}) > 250
        for key in keys:
            client.set(key, key.upper())
        assert [client.get(key) for key in keys] == [key.upper() for key in keys]
    finally:
        client.close()


def test_a_keys_listing_works_on_a_cluster(cluster: RedisClusterProcesses) -> None:
    """A service key's listing indexes are in one slot per key (its name in braces), so
    a listing, its filters and its pages, and a deletion that takes a game out of them,
    work on a Redis Cluster; the games themselves are spread over the masters."""
    acme = "acme-secret-0123456789abcdefghijklmnopqrstuvwxyz"
    headers = {"Authorization": f"Bearer {acme}"}
    with RedisServer() as queue:
        app = cluster_app(cluster, queue, SERVICE_KEYS=f"acme={acme}")
        client = app.test_client()
        try:
            made = []
            for i in range(30):
                body = {"seats": [{"name": "A", "player_id": f"p{i % 3}"}, {"name": "B"}]}
                created = client.post("/v1/games", json=body, headers=headers)
                assert created.status_code == 201, created.get_json()
                made.append(created.get_json()["id"])
            seen, url = [], "/v1/games?limit=7"
            while url:
                page = client.get(url, headers=headers).get_json()
                seen += [game["id"] for game in page["games"]]
                url = page["next"]
            assert seen == made[::-1]
            listed = client.get("/v1/games?player_id=p1&limit=100", headers=headers).get_json()
            assert [g["id"] for g in listed["games"]] == made[1::3][::-1]
            client.post(f"/v1/games/{made[1]}/abort", json={"reason": "x"}, headers=headers)
            aborted = client.get("/v1/games?status=aborted", headers=headers).get_json()
            assert [g["id"] for g in aborted["games"]] == [made[1]]
            assert client.delete(f"/v1/games/{made[1]}", headers=headers).status_code == 204
            listed = client.get("/v1/games?player_id=p1&limit=100", headers=headers).get_json()
            assert [g["id"] for g in listed["games"]] == made[4::3][::-1]
        finally:
            app.extensions["scopa_store"].close()
    nodes = RedisCluster(host="127.0.0.1", port=cluster.ports[0])
    try:
        indexes = [keys.listing("acme"), *(keys.listing("acme", f"p{i}") for i in range(3))]
        assert len({nodes.keyslot(index) for index in indexes}) == 1
        assert len({nodes.get_node_from_key(keys.game(g)).name for g in made}) == 3
    finally:
        nodes.close()


def test_a_keys_stream_of_events_works_on_a_cluster(cluster: RedisClusterProcesses) -> None:
    """A key's feed (its stream, state and cursors, and its channel) is in the key's slot,
    its games spread over the masters: the stream gets each game's log in order, through
    the hub's shard subscription, and resumes from an id with nothing lost."""
    with RedisServer() as queue:
        app = cluster_app(cluster, queue, SERVICE_KEYS=KEYS, STREAM_KEEPALIVE_SECONDS=0.3)
        client = app.test_client()
        opened: list[AppStream] = []
        try:
            stream = AppStream(client.get("/v1/events", headers=key(), buffered=False))
            opened.append(stream)
            assert stream.next().event == "open"  # type: ignore[union-attr]
            games = [create(client) for _ in range(6)]
            for turn in range(12):
                move(client, games[turn % 6])
            logs = {g: spectators_log(client, g) for g in games}
            seen = stream.events(until_logged(sum(map(len, logs.values()))), timeout=15)
            assert by_game(seen) == logs
            middle = game_events(seen)[len(game_events(seen)) // 2]
            resume = {**key(), "Last-Event-ID": middle.id}
            again = AppStream(client.get("/v1/events", headers=resume, buffered=False))
            opened.append(again)
            again.next()
            rest = game_events(seen)[len(game_events(seen)) // 2 + 1 :]
            resumed = again.events(until_logged(len(rest)), timeout=15)
            assert [s.data for s in game_events(resumed)] == [s.data for s in rest]
        finally:
            for each in opened:
                each.close()
            close_hub(app)
            app.extensions["scopa_store"].close()
    nodes = RedisCluster(host="127.0.0.1", port=cluster.ports[0])
    try:
        assert len({nodes.get_node_from_key(keys.game(g)).name for g in games}) > 1
    finally:
        nodes.close()


# ---------------------------------------------------------------------- sentinel
def test_sentinel_failover_keeps_the_data(sentinels: SentinelProcesses) -> None:
    assert sentinels.service_name == "scopa"
    assert (
        sentinels.url
        == "redis+sentinel://"
        + ",".join(f"127.0.0.1:{p}" for p in sentinels.sentinel_ports)
        + "/scopa"
    )
    old = sentinels.master_port()

    sentinel = _sentinel_client(sentinels)
    try:
        master = sentinel.master_for("scopa")
        master.set("game:1", "in progress")
        # SENTINEL FAILOVER does not wait for the replica to catch up: make sure it has.
        assert master.wait(1, 5000) == 1
        master.close()
    finally:
        _close(sentinel)

    new = sentinels.failover()
    assert new != old
    assert sentinels.master_port() == new

    sentinel = _sentinel_client(sentinels)
    try:
        assert sentinel.discover_master("scopa") == ("127.0.0.1", new)
        master = sentinel.master_for("scopa")
        assert master.get("game:1") == "in progress"
        master.set("game:2", "after the failover")  # a master, not a read-only replica
        master.close()
    finally:
        _close(sentinel)
    with redis.Redis(host="127.0.0.1", port=old, decode_responses=True) as demoted:
        replication = demoted.info("replication")
        assert replication["role"] == "slave"
        assert replication["master_port"] == new


def test_sentinel_promotes_the_replica_when_the_master_dies(
    sentinels: SentinelProcesses,
) -> None:
    old = sentinels.master_port()
    with redis.Redis(host="127.0.0.1", port=old) as master:
        master.set("game:1", "saved")
        assert master.wait(1, 5000) == 1

    new, killed = sentinels.kill_master()
    assert new != old and killed.port == old and not killed.running
    with redis.Redis(host="127.0.0.1", port=new, decode_responses=True) as promoted:
        assert promoted.get("game:1") == "saved"

    sentinels.restart(killed)  # returns once it replicates from the new master
    assert killed.running
    with redis.Redis(host="127.0.0.1", port=old, decode_responses=True) as back:
        assert back.info("replication")["master_port"] == new
        assert back.get("game:1") == "saved"


def test_webhooks_are_delivered_from_games_on_the_cluster(
    cluster: RedisClusterProcesses, make_app: Callable[..., Any]
) -> None:
    """The webhooks' records of a service key are in one slot of the cluster (its name
    in braces), so their scripts run there: a key's endpoint registered on an app whose
    games are on the cluster receives its game's events from a worker (its queue on a
    Redis of its own, as rq needs), verified, in order; the delivery log says so."""
    from tests.devredis import RedisServer
    from tests.test_scale_out import worker
    from tests.test_webhooks import KEYS, Receiver, deliveries, key, position, register, wait_for

    client = RedisCluster(host="127.0.0.1", port=cluster.ports[0])
    try:
        slots = {
            client.keyslot(name)
            for name in (
                keys.webhook_endpoints("acme"),
                keys.webhook_cursors("acme"),
                keys.webhook_pending("acme"),
                keys.webhook_deliveries("acme", "ep_1"),
                keys.webhook_log("acme", "ep_1"),
                keys.webhook_queue("acme", "ep_1", "game"),
                keys.webhook_queues("acme", "ep_1"),
            )
        }
        assert len(slots) == 1
    finally:
        client.close()
    receiver = Receiver()
    allow = f"127.0.0.1:{receiver.port}"
    with RedisServer() as queue:
        app = make_app(
            REDIS_URL=cluster.url,
            QUEUE_REDIS_URL=queue.url,
            SERVICE_KEYS=KEYS,
            WEBHOOK_ALLOW_HOSTS=allow,
        )
        api = app.test_client()
        endpoint = register(api, receiver.url)
        receiver.load(endpoint["secret"])
        receiver.up()
        try:
            with worker(
                cluster.url, "--only-webhooks", QUEUE_REDIS_URL=queue.url, WEBHOOK_ALLOW_HOSTS=allow
            ):
                made = api.post(
                    "/v1/games",
                    json={"seats": [{"name": "A", "player_id": "u-a"}, {"name": "B"}]},
                    headers=key(),
                )
                assert made.status_code == 201
                game_id = made.get_json()["id"]
                moves = api.get(
                    f"/v1/games/{game_id}/legal-moves?as_seat=0", headers=key()
                ).get_json()
                seat = moves["seat"] if moves["moves"] else 1
                legal = api.get(
                    f"/v1/games/{game_id}/legal-moves?as_seat={seat}", headers=key()
                ).get_json()["moves"]
                played = api.post(
                    f"/v1/games/{game_id}/moves",
                    json={"card": legal[0]["card"], "capture": legal[0]["capture"]},
                    headers={**key(), "X-Seat": str(seat)},
                )
                assert played.status_code == 200, played.get_json()
                events = api.get(f"/v1/games/{game_id}/events", headers=key()).get_json()
                last = (len(events["events"]) - 1, 1)  # the turn after the move
                log = wait_for(
                    lambda: (
                        (found := deliveries(api, endpoint["id"]))
                        and position(found[-1]["id"]) == last
                        and all(d["status"] == "succeeded" for d in found)
                        and found
                    ),
                    30,
                    "the game's deliveries",
                )
        finally:
            receiver.down()
    ids = receiver.ids()
    assert ids == [d["id"] for d in log] and ids == sorted(ids, key=position)
    assert [d["type"] for d in log][:3] == ["game.created", "game.started", "turn.started"]
    assert receiver.received[0]["data"]["game"]["seats"][0]["player_id"] == "u-a"
