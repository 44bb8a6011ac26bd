"""Where the games are: the Redis clients for a ``REDIS_URL``, whichever Redis it names.

One function, :func:`connect`, makes every client the service uses (the game store's,
the job queue's, the live subscriber's, the readiness check's), so a URL form works
everywhere or nowhere. The forms (``docs/reliability.md`` lists them for operators):

``redis://[[user]:password@]host[:port][/db]``
    one Redis (``rediss://`` for TLS);
``unix://[[user]:password@]/path/to/redis.sock[?db=N]``
    one Redis on a Unix socket;
``redis+cluster://[[user]:password@]host:port[,host:port...]``
    a Redis Cluster (``rediss+cluster://`` for TLS): any reachable node is enough to
    start, the client learns the others and follows the slots as they move. Every key
    of a game carries the game id as a hash tag (:mod:`.store`), so a move, which
    touches two keys in one script, stays in one slot and atomic;
``redis+sentinel://[[user]:password@]host:port[,host:port...]/service_name[/db]``
    the master that Redis Sentinel names ``service_name`` (``rediss+sentinel://`` for
    TLS to the sentinels and the master): each new connection asks the sentinels where
    the master is, so after a failover the clients reconnect to the new one. The URL's
    user and password are the master's; sentinels that ask for a password of their own
    take it as ``?sentinel_password=...``.

With TLS, the query takes redis-py's TLS settings: ``ssl_ca_certs`` (a CA file to trust),
``ssl_certfile`` and ``ssl_keyfile`` (a client certificate), ``ssl_cert_reqs``
(``required``, the default, or ``none``) and ``ssl_check_hostname`` (``true``/``false``),
as redis-py's own ``rediss://`` URLs do.

Clients are redis-py's own: ``Redis``, ``RedisCluster`` and ``Sentinel.master_for``.
``connection_class`` lets the caller wrap every connection (the circuit breaker of
``service/api/breaker.py`` does): it is given the class the form would use and returns
the class to use instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.connection import (
    SENTINEL,
    AbstractConnection,
    Connection,
    SSLConnection,
    UnixDomainSocketConnection,
)
from redis.exceptions import RedisClusterException
from redis.sentinel import Sentinel, SentinelManagedConnection

#: A client of any form: the game store, the queue and the subscriber take either.
Client = redis.Redis | RedisCluster
#: What a Redis call may raise when Redis is away or reshaping: redis-py's errors, and
#: the cluster client's own (no node reachable, a slot not covered), which are not
#: RedisErrors.
ERRORS: tuple[type[Exception], ...] = (redis.RedisError, RedisClusterException)
Wrapper = Callable[[type[AbstractConnection]], type[AbstractConnection]]

SINGLE_SCHEMES = ("redis", "rediss", "unix")
CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
SENTINEL_SCHEMES = ("redis+sentinel", "rediss+sentinel")
FORMS = (
    "redis://[[user]:password@]host[:port][/db], rediss://... (TLS), "
    "unix:///path/to/redis.sock[?db=N], "
    "redis+cluster://host:port[,host:port...] (a Redis Cluster), "
    "redis+sentinel://host:port[,host:port...]/service_name (Redis Sentinel)"
)


class SentinelMasterConnection(SentinelManagedConnection):
    """A connection to the master a Sentinel names, that asks the sentinels where the
    master is at every connection, and drops itself when a reply does not come in time.
    (redis-py's own asks them when a pool hands the connection out, but a connection
    that broke and reconnects by itself, as a thread's single-connection client does,
    reconnects to the address it had: after a failover, to the old master, now a
    replica that refuses every write.)"""

    def connect_check_health(
        self, check_health: bool = True, retry_socket_connect: bool = True
    ) -> None:
        # Called only to make a connection (one that is open returns before this).
        self.host, self.port = self.connection_pool.get_master_address()
        super().connect_check_health(
            check_health=check_health, retry_socket_connect=retry_socket_connect
        )

    def read_response(
        self,
        disable_decoding: bool = False,
        *,
        timeout: float | object = SENTINEL,
        disconnect_on_error: bool | None = True,
        push_request: bool | None = False,
    ) -> Any:
        # redis-py's SentinelManagedConnection defaults disconnect_on_error to False
        # (every other connection: True), so a read that timed out left its reply to
        # come on a connection that went back to the pool, and the next command there
        # read it as its own. Disconnecting drops the late reply with the socket.
        return super().read_response(
            disable_decoding=disable_decoding,
            timeout=timeout,
            disconnect_on_error=disconnect_on_error,
            push_request=push_request,
        )


class SentinelMasterSSLConnection(SentinelMasterConnection, SSLConnection):
    pass


class RedisUrlError(ValueError):
    """A ``REDIS_URL`` of no form the service knows; the message says which forms are."""


@dataclass(frozen=True)
class Location:
    """A parsed ``REDIS_URL``: which kind of Redis, and how to reach it."""

    kind: str  # "single", "cluster" or "sentinel"
    url: str
    tls: bool = False
    nodes: tuple[tuple[str, int], ...] = ()  # the cluster's seeds, or the sentinels
    service_name: str = ""
    db: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    sentinel_password: str | None = field(default=None, repr=False)
    #: redis-py's TLS settings from the query (cluster and Sentinel URLs).
    tls_options: tuple[tuple[str, str | bool], ...] = ()

    @property
    def clustered(self) -> bool:
        return self.kind == "cluster"

    def describe(self) -> str:
        """The location without its credentials, for logs and errors."""
        if self.kind == "single":
            parts = urlsplit(self.url)
            where = parts.hostname or parts.path
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{where}{port}"
        nodes = ",".join(f"{host}:{port}" for host, port in self.nodes)
        if self.kind == "cluster":
            return f"Redis Cluster at {nodes}"
        return f"the master {self.service_name!r} of the sentinels at {nodes}"


def parse(url: str) -> Location:
    """The :class:`Location` a ``REDIS_URL`` names; RedisUrlError if it names none."""
    try:
        parts = urlsplit(url)
    except ValueError as error:
        raise RedisUrlError(f"REDIS_URL is not a URL ({error}): use one of {FORMS}") from None
    scheme = parts.scheme.lower()
    if scheme in SINGLE_SCHEMES:
        try:
            redis.ConnectionPool.from_url(url)  # redis-py's own reading of the URL
        except ValueError as error:
            raise RedisUrlError(f"REDIS_URL: {error}; use one of {FORMS}") from None
        return Location("single", url, tls=scheme == "rediss")
    if scheme not in CLUSTER_SCHEMES + SENTINEL_SCHEMES:
        raise RedisUrlError(f"REDIS_URL has the scheme {parts.scheme!r}: use one of {FORMS}")
    credentials, _, hosts = parts.netloc.rpartition("@")
    username, _, password = credentials.partition(":")
    nodes = tuple(_node(item, url) for item in hosts.split(",") if item)
    if not nodes:
        raise RedisUrlError(f"REDIS_URL names no host:port: use one of {FORMS}")
    query = _query(parts.query)
    common: dict[str, Any] = {
        "tls": scheme.startswith("rediss"),
        "nodes": nodes,
        "username": unquote(username) or None,
        "password": unquote(password) or None,
        "tls_options": tuple(
            (name, TLS_QUERY[name](value)) for name, value in query.items() if name in TLS_QUERY
        ),
    }
    path = [segment for segment in parts.path.split("/") if segment]
    if scheme in CLUSTER_SCHEMES:
        return _cluster(url, path, common)
    return _sentinel(url, path, query.get("sentinel_password"), common)


def _query(text: str) -> dict[str, str]:
    """A cluster or Sentinel URL's query (the last value of each name); RedisUrlError
    for a name it does not take."""
    query = {name: values[-1] for name, values in parse_qs(text).items()}
    unknown = set(query) - set(TLS_QUERY) - {"sentinel_password"}
    if unknown:
        raise RedisUrlError(
            f"REDIS_URL: unknown query parameter(s) {sorted(unknown)}; a cluster or "
            f"Sentinel URL takes sentinel_password and {', '.join(TLS_QUERY)}"
        )
    return query


def _cluster(url: str, path: list[str], common: dict[str, Any]) -> Location:
    if path:
        raise RedisUrlError(
            "A Redis Cluster has only database 0: give redis+cluster://host:port[,...] "
            f"with no path (not /{'/'.join(path)})"
        )
    return Location("cluster", url, **common)


def _sentinel(
    url: str, path: list[str], sentinel_password: str | None, common: dict[str, Any]
) -> Location:
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise RedisUrlError(
            "A Sentinel URL names the master's service: "
            "redis+sentinel://host:port[,host:port...]/service_name[/db]"
        )
    return Location(
        "sentinel",
        url,
        service_name=unquote(path[0]),
        db=int(path[1]) if len(path) == 2 else 0,
        sentinel_password=sentinel_password,
        **common,
    )


def _flag(value: str) -> bool:
    if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        raise RedisUrlError(f"REDIS_URL: {value!r} is not true or false")
    return value.lower() in ("true", "1", "yes")


#: The TLS settings a cluster or Sentinel URL's query takes, and how each is read.
TLS_QUERY: dict[str, Callable[[str], str | bool]] = {
    "ssl_ca_certs": str,
    "ssl_certfile": str,
    "ssl_keyfile": str,
    "ssl_cert_reqs": str,
    "ssl_check_hostname": _flag,
}


def _node(item: str, url: str) -> tuple[str, int]:
    host, _, port = item.strip().rpartition(":")
    if not host or not port.isdigit():
        raise RedisUrlError(f"REDIS_URL: {item!r} is not host:port (in {FORMS})")
    return host.strip("[]"), int(port)


def connect(
    location: Location | str,
    *,
    decode_responses: bool = True,
    socket_timeout: float | None = None,
    socket_connect_timeout: float | None = None,
    retry: redis.retry.Retry | None = None,
    connection_class: Wrapper | None = None,
    **options: Any,
) -> Client:
    """A client of ``location``: ``redis.Redis`` for one Redis and for the master of a
    Sentinel service, ``RedisCluster`` for a cluster. ``options`` are redis-py's
    (``max_connections``, ``health_check_interval``, ``socket_keepalive``, ...)."""
    where = parse(location) if isinstance(location, str) else location
    wrap: Wrapper = connection_class or (lambda cls: cls)
    settings: dict[str, Any] = {
        "decode_responses": decode_responses,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_connect_timeout,
        **options,
    }
    if where.kind == "single":
        scheme = urlsplit(where.url).scheme.lower()
        base: type[AbstractConnection] = {
            "rediss": SSLConnection,
            "unix": UnixDomainSocketConnection,
        }.get(scheme, Connection)
        if retry is not None:
            settings["retry"] = retry
        pool = redis.ConnectionPool.from_url(where.url, connection_class=wrap(base), **settings)
        return redis.Redis(connection_pool=pool)
    credentials: dict[str, Any] = {"username": where.username, "password": where.password}
    tls: dict[str, Any] = dict(where.tls_options)
    if where.kind == "cluster":
        # Built from a URL: that is how RedisCluster hands connection_class to the
        # pools of the nodes it finds (TLS comes from the class, never from `ssl`,
        # which would replace the class).
        (host, port), *others = where.nodes
        return RedisCluster(
            url=f"redis://{host}:{port}",
            startup_nodes=[ClusterNode(h, p) for h, p in others],
            connection_class=wrap(SSLConnection if where.tls else Connection),
            retry=retry,
            **credentials,
            **tls,
            **settings,
        )
    sentinel_settings: dict[str, Any] = {
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": socket_connect_timeout,
        "password": where.sentinel_password,
    }
    if where.tls:
        sentinel_settings.update(ssl=True, **tls)  # (a Redis of its own per sentinel)
    sentinel = Sentinel(list(where.nodes), sentinel_kwargs=sentinel_settings)
    managed = SentinelMasterSSLConnection if where.tls else SentinelMasterConnection
    if retry is not None:
        settings["retry"] = retry
    return sentinel.master_for(
        where.service_name,
        connection_class=wrap(managed),
        db=where.db,
        **credentials,
        **tls,
        **settings,
    )


def close(client: Client) -> None:
    """Close every connection ``client`` holds (a later command reconnects)."""
    if isinstance(client, RedisCluster):
        client.disconnect_connection_pools()
    else:
        client.connection_pool.disconnect()
