"""Start a private Pushpin (a GRIP proxy, Debian's ``pushpin``) in front of the service,
for ``make run``, the tests and the benchmarks: the event streams are then held by the
proxy, not by the service's threads (service/api/resources/events/grip.py).

Like :mod:`tests.devredis`, it takes free ports on 127.0.0.1 only (the client port it is
given, its publish port, its ZeroMQ sockets), keeps its files in a directory of its own,
and stops with its owner. It logs warnings only: at Pushpin's default level each request
is logged with its URL, and a stream's URL may hold a seat's token (``access_token``).

Python use::

    with PushpinServer(backend=8001, key=key) as proxy:
        ...  # clients at proxy.url; the service with proxy.service_env()

Command line (``make run``)::

    python -m tests.devpushpin --host 127.0.0.1 --port 8000 --dir .run/pushpin -- CMD [ARGS...]

starts Pushpin on the port, runs CMD with ``PORT`` set to a free port behind it and
``GRIP_KEY`` and ``GRIP_PUBLISH_URLS`` set for the service and its workers, forwards
SIGINT, SIGTERM and SIGHUP to CMD, and stops Pushpin when CMD exits. Without Pushpin (or
with ``STREAM_PROXY=none``) it runs CMD as it is, on the port: the service's threads then
hold the streams.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["PushpinServer", "find_pushpin"]

#: How long :meth:`PushpinServer.start` waits for the proxy to take requests.
START_TIMEOUT_SECONDS = 15.0

CONFIG = """\
[global]
include={{libdir}}/internal.conf
rundir={rundir}
ipc_prefix=scopa-
stats_connection_ttl=120

[runner]
services=condure,zurl,pushpin-proxy,pushpin-handler
http_port={host}:{port}
logdir={logdir}
log_level=1
client_buffer_size=8192
client_maxconn={maxconn}
condure_bin=condure
zurl_bin=zurl

[proxy]
routesfile={routes}
zurl_out_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in
zurl_out_stream_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-in-stream
zurl_in_specs=ipc://{{rundir}}/{{ipc_prefix}}zurl-out
debug=false
auto_cross_origin=false
accept_x_forwarded_protocol=false
set_x_forwarded_protocol=proto-only
x_forwarded_for=append
x_forwarded_for_trusted=
sig_iss=pushpin
sig_key={key}
updates_check=off

[handler]
push_in_spec=tcp://127.0.0.1:{push_in}
push_in_sub_specs=tcp://127.0.0.1:{push_in_sub}
push_in_sub_connect=false
push_in_http_addr=127.0.0.1
push_in_http_port={publish}
push_in_http_max_headers_size=10000
push_in_http_max_body_size=1000000
stats_spec=ipc://{{rundir}}/{{ipc_prefix}}stats
command_spec=tcp://127.0.0.1:{command}
message_rate={message_rate}
message_hwm=100000
message_wait=5000
id_cache_ttl=60
connection_subscription_max=20
subscription_linger=60
stats_subscription_ttl=60
stats_report_interval=10
stats_format=tnetstring
"""


def find_pushpin() -> str | None:
    """The ``pushpin`` on PATH, with the ``condure`` and ``zurl`` it runs; else None."""
    found = shutil.which("pushpin")
    if found is None or not (shutil.which("condure") and shutil.which("zurl")):
        return None
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PushpinServer:
    """A private Pushpin on ``port`` (free one if 0) routing every request to the service
    on ``backend`` (a port of 127.0.0.1), signing them with ``key``."""

    def __init__(
        self,
        backend: int,
        key: str,
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        directory: str | None = None,
        maxconn: int = 50_000,
        message_rate: int = 0,
    ) -> None:
        self.binary = find_pushpin()
        if self.binary is None:
            raise RuntimeError("pushpin is not installed (Debian: apt-get install pushpin)")
        self.backend, self.key = backend, key
        self.port = port or free_port()
        self.host = host
        self.publish_port = free_port()
        self._owned = directory is None
        self.directory = Path(directory or tempfile.mkdtemp(prefix="scopa-pushpin-")).resolve()
        self.maxconn, self.message_rate = maxconn, message_rate
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def publish_url(self) -> str:
        return f"http://127.0.0.1:{self.publish_port}"

    def service_env(self) -> dict[str, str]:
        """What the service (its instances and workers) needs to use this proxy."""
        return {"GRIP_KEY": self.key, "GRIP_PUBLISH_URLS": self.publish_url}

    def config(self) -> Path:
        """Write its configuration (and routes) in its directory; the config's path."""
        rundir, logdir = self.directory / "run", self.directory / "log"
        for folder in (rundir, logdir):
            folder.mkdir(parents=True, exist_ok=True)
        routes = self.directory / "routes"
        routes.write_text(f"* 127.0.0.1:{self.backend}\n")
        path = self.directory / "pushpin.conf"
        path.write_text(
            CONFIG.format(
                rundir=rundir,
                logdir=logdir,
                routes=routes,
                host=self.host,
                port=self.port,
                key=self.key,
                maxconn=self.maxconn,
                message_rate=self.message_rate,
                push_in=free_port(),
                push_in_sub=free_port(),
                publish=self.publish_port,
                command=free_port(),
            )
        )
        return path

    def command(self) -> list[str]:
        assert self.binary is not None
        return [self.binary, "--config", str(self.config())]

    def start(self) -> PushpinServer:
        self.process = subprocess.Popen(
            self.command(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # stopped as a group: its runner and its services
        )
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pushpin exited with {self.process.returncode}")
            if _listening(self.port) and _listening(self.publish_port):
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(
            f"pushpin did not listen on {self.port} within {START_TIMEOUT_SECONDS} s"
        )

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if self._owned:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PushpinServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.devpushpin", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="where clients connect")
    parser.add_argument("--port", type=int, required=True, help="where clients connect")
    parser.add_argument("--dir", required=True, help="its configuration and run files")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the service's command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (usage: ... -- CMD [ARGS...])")
    env = dict(os.environ, PORT=str(args.port))
    wanted = os.environ.get("STREAM_PROXY", "pushpin")
    if wanted == "none" or find_pushpin() is None:
        why = "STREAM_PROXY=none" if wanted == "none" else "no pushpin installed"
        print(f"devpushpin: {why}: the service's threads hold the streams", file=sys.stderr)
        return _supervise(command, env)
    backend = free_port()
    server = PushpinServer(
        backend, secrets.token_urlsafe(32), port=args.port, host=args.host, directory=args.dir
    )
    server.start()
    print(
        f"devpushpin: Pushpin on {args.host}:{args.port} holds the streams, "
        f"the service behind it on 127.0.0.1:{backend}",
        file=sys.stderr,
    )
    env.update(server.service_env(), PORT=str(backend), HOST="127.0.0.1")
    # Every request comes through Pushpin, which adds the client's X-Forwarded-For.
    env.setdefault("TRUSTED_PROXIES", "1")
    try:
        return _supervise(command, env)
    finally:
        server.stop()


def _supervise(command: list[str], env: dict[str, str]) -> int:
    """Run ``command``, forwarding SIGINT, SIGTERM and SIGHUP to it; its exit status."""
    child = subprocess.Popen(command, env=env)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
