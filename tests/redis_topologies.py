"""Real Redis topologies (Cluster, Sentinel) built from private ``redis-server`` processes.

The project's single-server tests use :class:`tests.devredis.RedisServer`; this module
assembles several of those into the two high-availability set-ups the service can be
pointed at, for tests and benchmarks:

* :class:`RedisClusterProcesses` -- a Redis Cluster of N masters (and optionally one
  replica each), created with ``redis-cli --cluster create``;
  its :attr:`~RedisClusterProcesses.url` is ``redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...``.
* :class:`SentinelProcesses` -- a master, one replica and three sentinels monitoring
  them under the service name ``scopa``, with helpers to fail over on purpose
  (:meth:`~SentinelProcesses.failover`) or by crashing the master
  (:meth:`~SentinelProcesses.kill_master`);
  its :attr:`~SentinelProcesses.url` is ``redis+sentinel://127.0.0.1:s1,...,/scopa``.

Everything listens on 127.0.0.1 on free ports, keeps its files in one temporary
directory per topology (a sub-directory per process, each with its
``redis-server.log``), writes no RDB snapshots nor append-only files, and dies with the
process that started it (see :func:`tests.devredis._die_with_parent`).  Waits poll for
the awaited condition with short sleeps up to a deadline, and a timeout raises a
``RuntimeError`` quoting the state seen last and the tail of the processes' logs.

If ``redis-server`` (or, for a cluster, ``redis-cli``) is missing, :class:`TopologyUnavailable`
is raised, so that tests can skip::

    try:
        cluster = RedisClusterProcesses().start()
    except TopologyUnavailable as exc:
        pytest.skip(str(exc))

The sentinel process is ``redis-server <sentinel.conf> --sentinel`` (no separate
``redis-sentinel`` binary is needed); its configuration file lives in its own directory
because sentinel rewrites it.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import redis

from tests.devredis import RedisServer, _die_with_parent, _free_port, find_redis_server

__all__ = [
    "CLUSTER_READY_TIMEOUT_SECONDS",
    "SENTINEL_READY_TIMEOUT_SECONDS",
    "RedisClusterProcesses",
    "SentinelProcesses",
    "TopologyUnavailable",
]

#: How long :meth:`RedisClusterProcesses.start` waits for ``cluster_state:ok`` everywhere.
CLUSTER_READY_TIMEOUT_SECONDS = 20.0
#: How long :meth:`SentinelProcesses.start` waits for replication and sentinel discovery.
SENTINEL_READY_TIMEOUT_SECONDS = 20.0

_HOST = "127.0.0.1"
_POLL_SECONDS = 0.05
#: Redis Cluster's bus listens on the client port + 10000, which must be a valid port.
_CLUSTER_BUS_OFFSET = 10000
_CLUSTER_SLOTS = 16384
_START_ATTEMPTS = 3
#: A master waits 5 s by default before a diskless full sync, in case more replicas
#: come; with one replica per master that only delays every (re)sync.
_FAST_REPLICATION = ("--repl-diskless-sync-delay", "0")

T = TypeVar("T")


class TopologyUnavailable(RuntimeError):
    """A binary the topology needs (``redis-server``, ``redis-cli``) is not installed."""


# ---------------------------------------------------------------------- helpers
def _redis_server_binary() -> str:
    """:func:`find_redis_server`, raising :class:`TopologyUnavailable` if there is none."""
    try:
        return find_redis_server()
    except RuntimeError as exc:
        raise TopologyUnavailable(str(exc)) from exc


def _redis_cli_binary() -> str:
    """Path of ``redis-cli`` (on ``PATH``); :class:`TopologyUnavailable` if missing."""
    found = shutil.which("redis-cli")
    if found is None:
        raise TopologyUnavailable(
            "No redis-cli on PATH: it is needed to create a Redis Cluster "
            "(`redis-cli --cluster create`); install it, e.g. 'apt-get install redis-tools'."
        )
    return found


def _client(port: int) -> redis.Redis:
    """A short-lived client of 127.0.0.1:``port`` that fails fast; close it after use."""
    return redis.Redis(
        host=_HOST,
        port=port,
        decode_responses=True,
        socket_timeout=1.0,
        socket_connect_timeout=1.0,
    )


def _query(port: int, *args: str) -> Any:
    """Run one command on 127.0.0.1:``port``; None if the server is down or refuses it."""
    try:
        with _client(port) as client:
            return client.execute_command(*args)
    except (redis.RedisError, OSError):
        return None


def _info(port: int, section: str) -> dict[str, str]:
    """``INFO <section>`` of 127.0.0.1:``port`` as a dict of strings; {} if unreachable."""
    return _parse_info(_query(port, "INFO", section))


def _parse_info(reply: Any) -> dict[str, str]:
    """An ``INFO``-style reply (``key:value`` lines, or redis-py's dict of it) as strings."""
    if isinstance(reply, dict):  # redis-py parses INFO (values may be ints)
        return {str(key): str(value) for key, value in reply.items()}
    if isinstance(reply, str):
        return dict(
            line.split(":", 1)
            for line in reply.splitlines()
            if ":" in line and not line.startswith("#")
        )
    return {}


def _pairs(flat: Any) -> dict[str, str]:
    """A sentinel reply such as ``SENTINEL MASTER``'s flat [key, value, ...] list as a dict."""
    if isinstance(flat, dict):
        return {str(key): str(value) for key, value in flat.items()}
    if isinstance(flat, list):
        return {str(flat[i]): str(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}
    return {}


def _wait_for(
    condition: Callable[[], T | None],
    timeout: float,
    what: str,
    diagnose: Callable[[], str],
) -> T:
    """Poll ``condition`` until it returns something other than None/False; return that.

    Raises:
        RuntimeError: after ``timeout`` seconds, with ``what`` (what was awaited) and the
            output of ``diagnose()`` (the state seen last, log tails) in the message.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result is not None and result is not False:
            return result
        if time.monotonic() >= deadline:
            raise RuntimeError(f"Timed out after {timeout:.0f}s waiting for {what}.\n{diagnose()}")
        time.sleep(_POLL_SECONDS)


def _logs(servers: Sequence[RedisServer], lines: int = 15) -> str:
    """The tail of each server's log (``redis-server.log`` in its directory)."""
    parts = []
    for server in servers:
        path = server.log_path
        if path is None:
            continue
        parts.append(f"--- {path} (port {server.port}):\n{server._log_tail(path, lines)}")
    return "\n".join(parts)


def _port_is_free(port: int) -> bool:
    """True if nothing listens on 127.0.0.1:``port`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((_HOST, port))
        except OSError:
            return False
        return True


def _free_cluster_port() -> int:
    """A free port ``p`` whose cluster bus port ``p + 10000`` is a valid, free port too."""
    for _ in range(200):
        port = _free_port()
        if port + _CLUSTER_BUS_OFFSET <= 65535 and _port_is_free(port + _CLUSTER_BUS_OFFSET):
            return port
    raise RuntimeError("Could not find a free port p with p + 10000 free too on 127.0.0.1")


def _start_server(make: Callable[[int], RedisServer], pick_port: Callable[[], int]) -> RedisServer:
    """Start ``make(port)`` on a port from ``pick_port()``, retrying on a fresh port if it
    fails (another process may grab a free port before redis-server binds it)."""
    for attempt in range(_START_ATTEMPTS):
        server = make(pick_port())
        try:
            return server.start()
        except RuntimeError:
            if attempt == _START_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


class _Topology:
    """What both topologies share: a temporary directory, processes, context management."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self.base_dir: Path | None = None
        self._servers: list[RedisServer] = []

    def _make_base_dir(self) -> Path:
        self.base_dir = Path(tempfile.mkdtemp(prefix=self._prefix))
        return self.base_dir

    def _subdir(self, name: str) -> str:
        assert self.base_dir is not None
        path = self.base_dir / name
        path.mkdir()
        return str(path)

    def stop(self) -> None:
        """Stop every process (SIGTERM, SIGKILL if need be) and remove the directory.

        Safe to call twice, and after a failed start.
        """
        servers, self._servers = self._servers, []
        for server in servers:
            server.stop()
        if self.base_dir is not None:
            shutil.rmtree(self.base_dir, ignore_errors=True)
            self.base_dir = None

    def _logs(self) -> str:
        return _logs(self._servers)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


# ---------------------------------------------------------------------- cluster
class RedisClusterProcesses(_Topology):
    """A Redis Cluster on 127.0.0.1; usable as a context manager.

    :meth:`start` launches ``masters`` ``redis-server`` processes (``masters * 2`` with
    ``replicas=1``) in cluster mode, each in its own directory with its own
    ``nodes.conf``, joins them with ``redis-cli --cluster create`` (the slots spread
    evenly over the masters), and returns once every node reports ``cluster_state:ok``,
    knows all the others and sees the same slot map (and, with replicas, every replica
    is in sync with its master).

    Args:
        masters: number of masters (at least 3, as ``redis-cli`` requires).
        replicas: replicas per master, 0 or 1.
        node_timeout_ms: ``cluster-node-timeout``.

    Raises (from :meth:`start`):
        TopologyUnavailable: ``redis-server`` or ``redis-cli`` is missing.
        RuntimeError: a node did not start, ``redis-cli`` failed, or the cluster was not
            ready within :data:`CLUSTER_READY_TIMEOUT_SECONDS` (with logs in the message).
    """

    def __init__(self, masters: int = 3, replicas: int = 0, node_timeout_ms: int = 2000) -> None:
        if masters < 3:
            raise ValueError("a Redis Cluster needs at least 3 masters")
        if replicas not in (0, 1):
            raise ValueError("replicas must be 0 or 1")
        super().__init__("redis-cluster-")
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms

    # ------------------------------------------------------------------ properties
    @property
    def nodes(self) -> list[RedisServer]:
        """The node processes, in the order given to ``redis-cli --cluster create``
        (with replicas, ``redis-cli`` decides which nodes become replicas)."""
        return list(self._servers)

    @property
    def ports(self) -> list[int]:
        """The nodes' client ports, in :attr:`nodes` order."""
        return [server.port for server in self._servers if server.port is not None]

    @property
    def url(self) -> str:
        """``redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...``: every node, as seeds."""
        if not self._servers:
            raise RuntimeError("RedisClusterProcesses.url is only known after start()")
        return "redis+cluster://" + ",".join(f"{_HOST}:{port}" for port in self.ports)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> RedisClusterProcesses:
        """Launch the nodes, create the cluster and wait until it is healthy; return self."""
        if self._servers:
            raise RuntimeError("the cluster is already running")
        binary = _redis_server_binary()
        cli = _redis_cli_binary()
        self._make_base_dir()
        try:
            total = self.masters * (1 + self.replicas)
            for index in range(total):
                self._servers.append(self._start_node(binary, self._subdir(f"node-{index}")))
            self._create(cli)
            self._wait_ready(total)
        except BaseException:
            self.stop()
            raise
        return self

    def __enter__(self) -> RedisClusterProcesses:
        return self.start()

    def __repr__(self) -> str:
        return f"<RedisClusterProcesses ports={self.ports} dir={self.base_dir}>"

    # ------------------------------------------------------------------ internals
    def _start_node(self, binary: str, data_dir: str) -> RedisServer:
        def make(port: int) -> RedisServer:
            server = RedisServer(
                port=port,
                data_dir=data_dir,
                extra_args=(
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", str(Path(data_dir) / "nodes.conf"),
                    "--cluster-node-timeout", str(self.node_timeout_ms),
                    *_FAST_REPLICATION,
                    "--loglevel", "notice",
                ),
            )  # fmt: skip
            server.binary = binary
            return server

        return _start_server(make, _free_cluster_port)

    def _create(self, cli: str) -> None:
        """``redis-cli --cluster create`` over all the nodes."""
        command = [
            cli, "--cluster", "create",
            *(f"{_HOST}:{port}" for port in self.ports),
            "--cluster-replicas", str(self.replicas),
            "--cluster-yes",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=CLUSTER_READY_TIMEOUT_SECONDS,
                preexec_fn=_die_with_parent(),
            )
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(
                f"`{' '.join(command)}` did not finish within {exc.timeout:.0f}s.\n"
                f"Output:\n{exc.stdout!r}\n{self._logs()}"
            ) from exc
        if done.returncode != 0:
            raise RuntimeError(
                f"`{' '.join(command)}` failed with status {done.returncode}.\n"
                f"Output:\n{done.stdout}{done.stderr}\n{self._logs()}"
            )

    def _slot_map(self, port: int) -> frozenset[tuple[int, int, int]] | None:
        """``CLUSTER SLOTS`` of one node as {(first, last, master port)}; None if unknown."""
        reply = _query(port, "CLUSTER", "SLOTS")
        if reply is None:
            return None
        ranges: set[tuple[int, int, int]] = set()
        if isinstance(reply, dict):  # redis-py: {(first, last): {"primary": (host, port)...}}
            for (first, last), owners in reply.items():
                ranges.add((int(first), int(last), int(owners["primary"][1])))
        else:
            for entry in reply:
                ranges.add((int(entry[0]), int(entry[1]), int(entry[2][1])))
        return frozenset(ranges)

    def _state(self) -> dict[int, tuple[dict[str, str], frozenset[tuple[int, int, int]] | None]]:
        """Every node's ``CLUSTER INFO`` and slot map."""
        state = {}
        for port in self.ports:
            info = _parse_info(_query(port, "CLUSTER", "INFO"))
            state[port] = (info, self._slot_map(port))
        return state

    def _wait_ready(self, total: int) -> None:
        """Until every node says ``cluster_state:ok``, knows ``total`` nodes, and all see
        the same map covering the 16384 slots; with replicas, until each is in sync."""

        def healthy() -> bool:
            maps = set()
            for info, slot_map in self._state().values():
                if (
                    info.get("cluster_state") != "ok"
                    or info.get("cluster_slots_assigned") != str(_CLUSTER_SLOTS)
                    or info.get("cluster_known_nodes") != str(total)
                    or not slot_map
                ):
                    return False
                maps.add(slot_map)
            if len(maps) != 1:
                return False
            (slot_map,) = maps
            if sum(last - first + 1 for first, last, _ in slot_map) != _CLUSTER_SLOTS:
                return False
            if self.replicas:
                for port in self.ports:
                    replication = _info(port, "replication")
                    if replication.get("role") == "slave" and (
                        replication.get("master_link_status") != "up"
                    ):
                        return False
            return True

        def diagnose() -> str:
            lines = [
                f"  {port}: cluster_state={info.get('cluster_state')} "
                f"known_nodes={info.get('cluster_known_nodes')} "
                f"slots_assigned={info.get('cluster_slots_assigned')} slots={sorted(m or ())}"
                for port, (info, m) in self._state().items()
            ]
            return "Last state seen:\n" + "\n".join(lines) + "\n" + self._logs()

        _wait_for(healthy, CLUSTER_READY_TIMEOUT_SECONDS, "the cluster to be ready", diagnose)


# ---------------------------------------------------------------------- sentinel
class _SentinelServer(RedisServer):
    """A sentinel: ``redis-server <config> --sentinel`` plus :class:`RedisServer`'s options.

    The configuration file (written by :class:`SentinelProcesses`) must come first on
    the command line and be writable: sentinel rewrites it with what it learns.
    """

    def __init__(self, config_file: str, port: int, data_dir: str) -> None:
        super().__init__(port=port, data_dir=data_dir, extra_args=("--loglevel", "notice"))
        self.config_file = config_file

    def _command(self) -> list[str]:
        binary, *options = super()._command()
        return [binary, self.config_file, "--sentinel", *options]


class SentinelProcesses(_Topology):
    """A Redis master, ``replicas`` replicas (one unless told) and three sentinels on
    127.0.0.1; a context manager.

    The sentinels monitor the master as :attr:`service_name` (``"scopa"``) with quorum 2,
    ``down-after-milliseconds 1000`` and ``failover-timeout 5000``.  :meth:`start`
    returns once the replicas are in sync and every sentinel sees the two others and a
    healthy replica, so :meth:`failover` or :meth:`kill_master` work right away.

    Note that sentinel refuses to fail the same master over again within
    ``2 * failover-timeout`` (10 s) of an earlier attempt.

    Raises (from :meth:`start`):
        TopologyUnavailable: ``redis-server`` is missing.
        RuntimeError: a process did not start, or the set was not ready within
            :data:`SENTINEL_READY_TIMEOUT_SECONDS` (with logs in the message).
    """

    service_name = "scopa"
    #: ``down-after-milliseconds``: how long a silent master takes to be deemed down.
    down_after_ms = 1000
    #: ``failover-timeout``.
    failover_timeout_ms = 5000
    quorum = 2

    def __init__(self, sentinels: int = 3, replicas: int = 1) -> None:
        if sentinels < self.quorum:
            raise ValueError(f"need at least {self.quorum} sentinels for quorum {self.quorum}")
        if replicas < 1:
            raise ValueError("a failover needs at least one replica")
        super().__init__("redis-sentinel-")
        self.sentinel_count = sentinels
        self.replica_count = replicas
        self._data: list[RedisServer] = []  # the master, then the replicas, in start order
        self._sentinels: list[RedisServer] = []

    # ------------------------------------------------------------------ properties
    @property
    def sentinel_ports(self) -> list[int]:
        """The sentinels' ports."""
        return [server.port for server in self._sentinels if server.port is not None]

    @property
    def sentinels(self) -> list[tuple[str, int]]:
        """``[(host, port), ...]`` of the sentinels, as ``redis.Sentinel`` takes them."""
        return [(_HOST, port) for port in self.sentinel_ports]

    @property
    def data_servers(self) -> list[RedisServer]:
        """The data servers (the first started as master, the others as its replicas;
        their roles change with failovers: ask :meth:`master_port`)."""
        return list(self._data)

    @property
    def url(self) -> str:
        """``redis+sentinel://127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3/scopa``."""
        if not self._sentinels:
            raise RuntimeError("SentinelProcesses.url is only known after start()")
        hosts = ",".join(f"{_HOST}:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{self.service_name}"

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> SentinelProcesses:
        """Launch the master, its replica and the sentinels; wait until all is in place."""
        if self._servers:
            raise RuntimeError("the sentinel set is already running")
        binary = _redis_server_binary()
        self._make_base_dir()
        try:
            master = self._start_data_server(binary, "master", ())
            assert master.port is not None
            for index in range(self.replica_count):
                follow = ("--replicaof", _HOST, str(master.port))
                self._start_data_server(binary, f"replica-{index}", follow)
            self._wait_replicas_in_sync(master.port, SENTINEL_READY_TIMEOUT_SECONDS)
            for index in range(self.sentinel_count):
                self._start_sentinel(binary, f"sentinel-{index}", master.port)
            self._wait_sentinels_ready(master.port, SENTINEL_READY_TIMEOUT_SECONDS)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the sentinels, then the data servers; remove the directory. Idempotent."""
        self._servers = [*self._sentinels, *self._data]  # sentinels first: no failover
        self._sentinels = []
        self._data = []
        super().stop()

    def __enter__(self) -> SentinelProcesses:
        return self.start()

    def __repr__(self) -> str:
        return (
            f"<SentinelProcesses data={[s.port for s in self._data]} "
            f"sentinels={self.sentinel_ports} dir={self.base_dir}>"
        )

    # ------------------------------------------------------------------ queries
    def master_port(self) -> int:
        """The master's port according to a sentinel (``SENTINEL GET-MASTER-ADDR-BY-NAME``).

        Raises:
            RuntimeError: no sentinel answered.
        """
        for port in self.sentinel_ports:
            address = self._master_addr(port)
            if address is not None:
                return address
        raise RuntimeError(f"no sentinel of {self.sentinel_ports} knows the master")

    def server_on(self, port: int) -> RedisServer:
        """The data server listening on ``port``."""
        for server in self._data:
            if server.port == port:
                return server
        raise KeyError(f"no data server on port {port}")

    # ------------------------------------------------------------------ failures
    def failover(self, timeout: float = 20.0, demote_old_master: bool = True) -> int:
        """Fail over on purpose (``SENTINEL FAILOVER scopa``); return the new master's port.

        Returns once every sentinel reports the new master, it says ``role:master``, and
        the old master has become its replica with ``master_link_status:up``.

        The sentinels turn the old master into a replica only when they have seen it
        claim to be a master for 8 s after the switch (and its next ``INFO``, every
        10 s), so that alone makes a failover take ~11 s.  With ``demote_old_master``
        (the default) this method sends the old master that same ``REPLICAOF <new
        master>`` itself as soon as the sentinels agree on the new master; pass False to
        wait for the sentinels to do it.

        Raises:
            RuntimeError: the sentinel refused, or the above did not happen in ``timeout``.
        """
        old = self.master_port()
        deadline = time.monotonic() + timeout
        asked = self.sentinel_ports[0]
        try:
            with _client(asked) as client:
                client.execute_command("SENTINEL", "FAILOVER", self.service_name)
        except redis.RedisError as exc:
            raise RuntimeError(
                f"SENTINEL FAILOVER {self.service_name} on {asked} failed: {exc}"
            ) from exc
        new = self._wait_new_master(old, deadline)
        if demote_old_master:
            # What the sentinels will do too (+convert-to-slave); an error is left to them.
            _query(old, "REPLICAOF", _HOST, str(new))
        # Every other data server replicates from the new master (the sentinels
        # reconfigure the other replicas at once, the old master later).
        self._wait_replicas_in_sync(new, max(deadline - time.monotonic(), 0.0))
        return new

    def kill_master(self, timeout: float = 30.0) -> tuple[int, RedisServer]:
        """SIGKILL the master; wait until the sentinels promoted its replica.

        Returns ``(new master port, the killed server)``, once every sentinel reports the
        new master and it says ``role:master``.  Bring the killed server back with
        :meth:`restart`.

        Raises:
            RuntimeError: no new master within ``timeout`` seconds.
        """
        old = self.master_port()
        deadline = time.monotonic() + timeout
        server = self.server_on(old)
        process = server._process
        if process is None or process.poll() is not None:
            raise RuntimeError(f"the master on port {old} is not running")
        process.kill()
        process.wait()
        return self._wait_new_master(old, deadline), server

    def restart(
        self,
        server: RedisServer,
        timeout: float = 30.0,
        wait: bool = True,
        demote: bool = True,
    ) -> None:
        """Start a killed (or stopped) data server again, on the same port and directory.

        It comes back with its original arguments and an empty data set; the sentinels
        then make it a replica of the current master, but only ~10 s after they first
        see it (as in :meth:`failover`).  With ``demote`` (the default) this method
        sends it that ``REPLICAOF <current master>`` itself right away.  With ``wait``
        (the default), return only once it is that master's replica with
        ``master_link_status:up``.

        Raises:
            RuntimeError: it did not start, or (``wait``) was not in sync in ``timeout``.
        """
        if server not in self._data:
            raise ValueError(f"{server!r} is not a data server of this set")
        server.restart()
        assert server.port is not None
        master = self.master_port()
        if demote and master != server.port:
            _query(server.port, "REPLICAOF", _HOST, str(master))
        if wait:
            self._wait_replicas_in_sync(master, timeout, ports=[server.port])

    # ------------------------------------------------------------------ internals
    def _start_data_server(self, binary: str, name: str, extra: Sequence[str]) -> RedisServer:
        data_dir = self._subdir(name)

        def make(port: int) -> RedisServer:
            server = RedisServer(
                port=port,
                data_dir=data_dir,
                extra_args=(*extra, *_FAST_REPLICATION, "--loglevel", "notice"),
            )
            server.binary = binary
            return server

        server = _start_server(make, _free_port)
        self._data.append(server)
        self._servers.append(server)
        return server

    def _start_sentinel(self, binary: str, name: str, master_port: int) -> RedisServer:
        data_dir = self._subdir(name)
        config = Path(data_dir) / "sentinel.conf"

        def make(port: int) -> RedisServer:
            # logfile "" (stdout) is where RedisServer collects it: <dir>/redis-server.log.
            config.write_text(
                f"port {port}\n"
                f"bind {_HOST}\n"
                f'dir "{data_dir}"\n'
                'logfile ""\n'
                f"sentinel monitor {self.service_name} {_HOST} {master_port} {self.quorum}\n"
                f"sentinel down-after-milliseconds {self.service_name} {self.down_after_ms}\n"
                f"sentinel failover-timeout {self.service_name} {self.failover_timeout_ms}\n"
                f"sentinel parallel-syncs {self.service_name} 1\n"
            )
            server = _SentinelServer(str(config), port, data_dir)
            server.binary = binary
            return server

        server = _start_server(make, _free_port)
        self._sentinels.append(server)
        self._servers.append(server)
        return server

    def _master_addr(self, sentinel_port: int) -> int | None:
        reply = _query(sentinel_port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.service_name)
        if isinstance(reply, list | tuple) and len(reply) == 2:
            return int(reply[1])
        return None

    def _sentinel_view(self, sentinel_port: int) -> str:
        master = _pairs(_query(sentinel_port, "SENTINEL", "MASTER", self.service_name))
        replicas = _query(sentinel_port, "SENTINEL", "REPLICAS", self.service_name) or []
        described = [
            f"{r.get('port')}[{r.get('flags')} link={r.get('master-link-status')}]"
            for r in map(_pairs, replicas)
        ]
        return (
            f"  sentinel {sentinel_port}: master {master.get('port')} "
            f"flags={master.get('flags')} other-sentinels={master.get('num-other-sentinels')} "
            f"replicas={described}"
        )

    def _diagnose(self) -> str:
        lines = [self._sentinel_view(port) for port in self.sentinel_ports]
        for server in self._data:
            if server.port is not None:
                info = _info(server.port, "replication")
                lines.append(
                    f"  server {server.port}: role={info.get('role')} "
                    f"master_port={info.get('master_port')} "
                    f"link={info.get('master_link_status')}"
                )
        return "Last state seen:\n" + "\n".join(lines) + "\n" + self._logs()

    def _wait_replicas_in_sync(
        self, master_port: int, timeout: float, ports: Sequence[int] | None = None
    ) -> None:
        """Until each of ``ports`` (default: every data server but the master) is a
        replica of ``master_port`` with ``master_link_status:up``."""
        if ports is None:
            ports = [s.port for s in self._data if s.port is not None and s.port != master_port]

        def in_sync() -> bool:
            for port in ports:
                info = _info(port, "replication")
                if (
                    info.get("role") != "slave"
                    or info.get("master_port") != str(master_port)
                    or info.get("master_link_status") != "up"
                ):
                    return False
            return True

        _wait_for(
            in_sync,
            timeout,
            f"{list(ports)} to replicate from the master on {master_port}",
            self._diagnose,
        )

    def _wait_sentinels_ready(self, master_port: int, timeout: float) -> None:
        """Until every sentinel sees the master healthy, the other sentinels, and every
        replica connected and in sync (what a failover needs)."""
        others = str(self.sentinel_count - 1)
        replicas = {s.port for s in self._data if s.port is not None and s.port != master_port}

        def ready() -> bool:
            for port in self.sentinel_ports:
                master = _pairs(_query(port, "SENTINEL", "MASTER", self.service_name))
                if (
                    master.get("port") != str(master_port)
                    or master.get("flags") != "master"
                    or master.get("num-other-sentinels") != others
                ):
                    return False
                seen = {
                    int(r["port"])
                    for r in map(
                        _pairs, _query(port, "SENTINEL", "REPLICAS", self.service_name) or []
                    )
                    if r.get("flags") == "slave" and r.get("master-link-status") == "ok"
                }
                if not replicas <= seen:
                    return False
            return True

        _wait_for(ready, timeout, "the sentinels to be ready", self._diagnose)

    def _wait_new_master(self, old_port: int, deadline: float) -> int:
        """Until every sentinel names the same master other than ``old_port``, and that
        server says ``role:master``; return its port."""

        def promoted() -> int | None:
            seen = {self._master_addr(port) for port in self.sentinel_ports}
            if len(seen) != 1:
                return None
            (new,) = seen
            if new is None or new == old_port:
                return None
            if _info(new, "replication").get("role") != "master":
                return None
            return new

        return _wait_for(
            promoted,
            max(deadline - time.monotonic(), 0.0),
            f"the sentinels to promote a new master in place of {old_port}",
            self._diagnose,
        )
