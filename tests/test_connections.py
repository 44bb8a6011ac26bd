"""REDIS_URL's forms (service/play/connections.py): each is read as documented, and a
URL of no known form is refused at start with a message naming the forms."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from redis.connection import SSLConnection

from service.app import create_app
from service.play.connections import Location, RedisUrlError, connect, parse
from service.play.queues import queue_connection
from tests.devredis import RedisServer
from tests.live import free_port

SECRET = "connections-test-secret-0123456789abcdefgh"


def test_one_redis_keeps_its_url() -> None:
    for url in (
        "redis://:pw@cache:6380/2",
        "rediss://user:pw@cache:6380/0",
        "unix:///run/r.sock?db=1",
    ):
        where = parse(url)
        assert where.kind == "single" and where.url == url and not where.clustered
    assert parse("rediss://cache:6380").tls and not parse("redis://cache").tls


def test_a_cluster_lists_its_seed_nodes_and_credentials() -> None:
    where = parse("redis+cluster://app:s%40cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002")
    assert where.kind == "cluster" and where.clustered and not where.tls
    assert where.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 7001), ("::1", 7002))
    assert (where.username, where.password) == ("app", "s@cret")
    assert parse("rediss+cluster://node:7000").tls
    # Credentials never show where the location is described (logs, errors).
    assert "s@cret" not in where.describe() and "s@cret" not in repr(where)


def test_a_sentinel_url_names_the_service_and_the_sentinels() -> None:
    where = parse("redis+sentinel://:pw@s1:26379,s2:26379,s3:26379/scopa/2?sentinel_password=sp")
    assert where == Location(
        "sentinel",
        where.url,
        nodes=(("s1", 26379), ("s2", 26379), ("s3", 26379)),
        service_name="scopa",
        db=2,
        password="pw",
        sentinel_password="sp",
    )
    assert parse("redis+sentinel://s1:26379/scopa").db == 0


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://cache:6379", "scheme 'http'"),
        ("redis+cluster://", "names no host:port"),
        ("redis+cluster://node", "is not host:port"),
        ("redis+cluster://node:7000/1", "only database 0"),
        ("redis+sentinel://s1:26379", "names the master's service"),
        ("redis+sentinel://s1:26379/scopa/x", "names the master's service"),
        ("redis://cache:port", "REDIS_URL"),
    ],
)
def test_a_url_of_no_known_form_is_refused_with_the_forms(url: str, says: str) -> None:
    with pytest.raises(RedisUrlError) as refused:
        parse(url)
    assert says in str(refused.value)
    with pytest.raises(RedisUrlError):
        create_app({"REDIS_URL": url, "SERVER_SECRET": SECRET})


def test_the_job_queue_cannot_be_on_a_cluster() -> None:
    """rq needs one Redis: a cluster's service names QUEUE_REDIS_URL as the way out."""
    with pytest.raises(RedisUrlError, match="QUEUE_REDIS_URL"):
        queue_connection("redis+cluster://127.0.0.1:7000", socket_timeout=1)
    with pytest.raises(RedisUrlError, match="QUEUE_REDIS_URL"):
        create_app(
            {
                "REDIS_URL": "redis://127.0.0.1:1/0",
                "QUEUE_REDIS_URL": "redis+cluster://127.0.0.1:7000",
                "SERVER_SECRET": SECRET,
            }
        )


def test_the_wait_for_replicas_must_fit_in_the_redis_timeout() -> None:
    """The wait for replicas (WAIT) is a Redis call: were it as long as the socket
    timeout, a replica's silence would read as Redis's own and open the breaker."""
    with pytest.raises(RuntimeError, match="REDIS_REPLICA_TIMEOUT_SECONDS"):
        create_app(
            {
                "REDIS_URL": "redis://127.0.0.1:1/0",
                "SERVER_SECRET": SECRET,
                "REDIS_MIN_REPLICAS": 1,
                "REDIS_TIMEOUT_SECONDS": 0.5,
                "REDIS_REPLICA_TIMEOUT_SECONDS": 0.5,
            }
        )


def test_the_service_starts_while_no_node_of_its_cluster_answers() -> None:
    """A cluster's client connects when it is made: made at start, it would stop the
    service while the cluster is away (a crash loop). It is made on first use instead:
    until a node answers, /readyz and every request that needs Redis are 503s."""
    nodes = ",".join(f"127.0.0.1:{free_port()}" for _ in range(3))
    app = create_app(
        {
            "REDIS_URL": f"redis+cluster://{nodes}",
            "QUEUE_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
            "SERVER_SECRET": SECRET,
            "REDIS_BREAKER_COOLDOWN_SECONDS": 0.1,
        }
    )
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    for answer in (
        client.get("/readyz"),
        client.post("/v1/games", json={"players": 2}),
        client.get("/v1/games/AAAAAAAAAAAAAAAAAAAAAA"),
    ):
        assert answer.status_code == 503, answer.get_data(as_text=True)
        assert answer.headers["Content-Type"] == "application/problem+json"
        assert answer.get_json()["type"] == "/problems/storage-unavailable"


def test_a_cluster_takes_no_replica_count() -> None:
    with pytest.raises(RuntimeError, match="REDIS_MIN_REPLICAS"):
        create_app(
            {
                "REDIS_URL": "redis+cluster://127.0.0.1:7000",
                "QUEUE_REDIS_URL": "redis://127.0.0.1:6379/0",
                "SERVER_SECRET": SECRET,
                "REDIS_MIN_REPLICAS": 1,
            }
        )


def test_a_redis_with_a_password_on_tcp_and_on_a_unix_socket(
    tmp_path: Any, make_app: Callable[..., Flask]
) -> None:
    """redis:// and unix:// with a password: the same Redis reached both ways, a match
    created through one and read through the other; a wrong password is a 503."""
    socket_path = tmp_path / "redis.sock"
    extra = ("--unixsocket", str(socket_path))
    with RedisServer(password="s3cret pass", extra_args=extra) as server:
        tcp = server.url
        assert tcp == f"redis://:s3cret%20pass@127.0.0.1:{server.port}/0"
        unix = f"unix://:s3cret%20pass@{socket_path}?db=0"
        created = make_app(REDIS_URL=tcp).test_client().post("/v1/games", json={"players": 2})
        assert created.status_code == 201
        game = created.get_json()["id"]
        over_unix = make_app(REDIS_URL=unix).test_client()
        assert over_unix.get("/readyz").status_code == 200
        assert over_unix.get(f"/v1/games/{game}").get_json()["id"] == game
        wrong = make_app(REDIS_URL=tcp.replace("s3cret", "wrong")).test_client()
        answer = wrong.get(f"/v1/games/{game}")
        assert answer.status_code == 503
        assert answer.headers["Content-Type"] == "application/problem+json"


def test_tls_settings_ride_in_the_query_of_a_cluster_or_sentinel_url() -> None:
    where = parse("rediss+cluster://n1:7000?ssl_ca_certs=/etc/ca.pem&ssl_check_hostname=false")
    assert where.tls and dict(where.tls_options) == {
        "ssl_ca_certs": "/etc/ca.pem",
        "ssl_check_hostname": False,
    }
    with pytest.raises(RedisUrlError, match="unknown query parameter"):
        parse("redis+cluster://n1:7000?ssl_ca_cert=/etc/ca.pem")  # (a typo)
    client = connect("rediss+sentinel://s1:26379/scopa?ssl_ca_certs=/etc/ca.pem")
    assert isinstance(client, redis.Redis)
    pool = client.connection_pool
    assert issubclass(pool.connection_class, SSLConnection)
    assert pool.connection_kwargs["ssl_ca_certs"] == "/etc/ca.pem"


@pytest.fixture
def certificates(tmp_path: Path) -> Path:
    """A CA and a certificate for 127.0.0.1 that it signed (openssl)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: the TLS test needs it to make certificates")

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=tmp_path, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
            "-out", "ca.crt", "-days", "2", "-subj", "/CN=Scopa test CA")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
            "-out", "server.csr", "-subj", "/CN=127.0.0.1")  # fmt: skip
    (tmp_path / "san").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "san")  # fmt: skip
    return tmp_path


def test_a_redis_over_tls(certificates: Path, make_app: Callable[..., Flask]) -> None:
    """rediss://: a match played on a Redis that speaks TLS, its certificate checked
    against the CA given in the URL; without that CA, the certificate is refused (503)."""
    port = free_port()
    tls = (
        "--tls-port", str(port),
        "--tls-cert-file", str(certificates / "server.crt"),
        "--tls-key-file", str(certificates / "server.key"),
        "--tls-ca-cert-file", str(certificates / "ca.crt"),
        "--tls-auth-clients", "no",
    )  # fmt: skip
    try:
        server = RedisServer(extra_args=tls).start()
    except RuntimeError as error:
        pytest.skip(f"this redis-server speaks no TLS: {error}")
    try:
        url = f"rediss://127.0.0.1:{port}/0?ssl_ca_certs={certificates / 'ca.crt'}"
        client = make_app(REDIS_URL=url).test_client()
        assert client.get("/readyz").status_code == 200
        created = client.post("/v1/games", json={"players": 2})
        assert created.status_code == 201
        game = created.get_json()["id"]
        seat = created.get_json()["seats"][0]["token"]
        view = client.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {seat}"})
        assert len(view.get_json()["hand"]) == 3
        untrusted = make_app(REDIS_URL=f"rediss://127.0.0.1:{port}/0").test_client()
        assert untrusted.get(f"/v1/games/{game}").status_code == 503
    finally:
        server.stop()
