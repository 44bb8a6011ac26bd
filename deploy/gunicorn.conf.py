"""Gunicorn settings for the Scopa service (used by `make run` and the Docker image).

The app is stateless (every match lives in Redis), so any number of workers and
replicas can serve any request.  Its settings come from the environment, read once here
(service.config.load: each declared once in service/settings/ and listed in
docs/configuration.md, `make docs`): here HOST, PORT, WEB_CONCURRENCY, GUNICORN_THREADS,
STREAMS_PER_WORKER, METRICS_PORT and PROMETHEUS_MULTIPROC_DIR, and for each worker's
reading of requests (service/serving.py) CLIENT_TIMEOUT_SECONDS, MAX_BODY_BYTES and
REQUEST_BUFFER_BYTES; every one is checked before the master forks. (Each worker's app
reads them once more as it is built, in that worker: `create_app()`.) Besides those,
PYTHONPATH is searched before the current directory, which gunicorn puts first on the
path: `make run` serves the mypyc build of the engine with PYTHONPATH=build/mypyc (see
below).

Event streams (GET /v1/games/{id}/stream) last minutes to an hour, each holding a thread
of its worker while it waits for the game's next commit (asleep: no CPU, no GIL). gthread
workers, rather than gevent's: a computer player's turn (up to BOT_TIME_LIMIT_SECONDS)
or a hint's search (up to 1 s) is CPU-bound Python; on a gevent worker it stops every
other request and stream of the worker until it ends, while threads take turns with it
every few milliseconds (the interpreter's switch interval). A worker refuses streams
beyond STREAMS_PER_WORKER (503), so GUNICORN_THREADS threads are always left for
ordinary requests.
"""

import os
import resource
import sys
import tempfile

# gunicorn puts its working directory first on sys.path (before reading this file), where
# the .py sources are, and imports the package from there (for worker_class and
# logger_class below) before its own `pythonpath` setting would apply. So the directories
# of PYTHONPATH are moved to the front here, in their order, before anything of the
# service is imported: the mypyc build of the engine that `make run` names there
# (build/mypyc, a compiled copy of the package) is what the master and every worker
# import. Without PYTHONPATH, nothing changes. (The image installs its build in
# site-packages instead.)
for _path in reversed([p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]):
    _path = os.path.abspath(_path)
    if _path in sys.path:
        sys.path.remove(_path)
    sys.path.insert(0, _path)

# (As _config: gunicorn takes a top-level name `config` for its own setting of that name.)
from service import config as _config  # noqa: E402 - after the path is set, above

# Every setting is read, and checked, here in the master before it forks (service/config.py
# declares them all: docs/configuration.md): a bad value stops gunicorn with one line
# naming it, rather than each worker failing to boot with a traceback. (What must hold
# together, such as a SERVER_SECRET, the app checks as it is built: service.config.check.)
try:
    _settings = _config.load()
except _config.ConfigError as _error:
    sys.exit(f"scopa: {_error}")

_host = _settings.host
bind = f"[{_host}]" if ":" in _host else _host  # an IPv6 address in brackets
bind += f":{_settings.port}"
workers = _settings.web_concurrency
# gthread's worker, each request read whole in its event loop before a thread serves it
# (slow clients cost a file descriptor, not a thread), gunicorn's own error pages (for
# requests that are not valid HTTP) sent as RFC 9457 problems: service/serving.py.
worker_class = "service.serving.ProblemThreadWorker"
# Connections a worker holds open (idle, being read, served); past it, it stops accepting.
# Slow or idle ones cost only a file descriptor each, so many: 450 slow-header, 450
# slow-body and 150 idle connects a second stay well under it (docs/reliability.md).
worker_connections = 4000
# As many file descriptors as that takes (the soft limit raised to the hard one, if lower).
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
_wanted = worker_connections + 1024
if _soft != resource.RLIM_INFINITY and _soft < _wanted:
    resource.setrlimit(
        resource.RLIMIT_NOFILE,
        (_wanted if _hard == resource.RLIM_INFINITY else min(_wanted, _hard), _hard),
    )
threads = _settings.gunicorn_threads + _settings.streams_per_worker

# Each worker listens on a socket of its own (SO_REUSEPORT) and the kernel spreads new
# connections over them. With the one socket they would share, whichever worker was
# idle when a burst of keep-alive connections arrived took them all: `make loadtest`
# found all 32 of its connections on one worker and the other worker idle.
reuse_port = True

timeout = 30
graceful_timeout = 30
keepalive = 5

# Log requests and errors to stdout/stderr; the platform collects them.
accesslog = "-"
errorlog = "-"

# Each worker builds its own app (and its own Redis connection pool) after the fork.
preload_app = False

# Gunicorn >= 25.1 opens a control socket for `gunicornc` at a fixed per-user path
# ($XDG_RUNTIME_DIR or ~/.gunicorn/gunicorn.ctl), which several instances on one machine
# would share.  Nothing here uses it.  (Older gunicorns ignore this unknown setting.)
control_socket_disable = True

# Access log: one JSON object per request, with the X-Request-ID the app answered with
# (see AccessLogger: no query string and no user agent, nothing a client sends but the path).
logger_class = "service.api.observability.AccessLogger"

# Gunicorn's own log lines as JSON too, in the app's format.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "service.api.observability.JsonFormatter"},
        "plain": {"format": "%(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "stream": "ext://sys.stdout",
        },
        "error": {
            "class": "logging.StreamHandler",
            "formatter": "json",
            "stream": "ext://sys.stderr",
        },
    },
    "root": {"level": "INFO", "handlers": ["error"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["error"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
}


# Prometheus metrics from every worker, added up at /metrics (see service/api/observability.py).
# A fresh directory per start, unless the environment names one.
if not _settings.prometheus_multiproc_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="scopa-metrics-")


def on_starting(server):
    # Refused where another process listens on the port (a second `make run`): with
    # reuse_port, both would serve it, each a share of the connections.
    from service.serving import taken

    if in_use := taken(server.cfg.bind):
        raise RuntimeError(  # (gunicorn prints it as "Error: ..." and exits with 1)
            f"{', '.join(in_use)} is in use: another process listens there (a service "
            "started before?). Stop it, or serve on another port (PORT=8001 make run)."
        )
    # A directory the environment names may outlive a run (an emptyDir survives a
    # container's restart): the files of processes long gone would be added in again.
    metrics_dir = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    os.makedirs(metrics_dir, exist_ok=True)
    for name in os.listdir(metrics_dir):
        if name.endswith(".db"):
            os.remove(os.path.join(metrics_dir, name))


def when_ready(server):
    # With reuse_port the master holds no socket, so gunicorn's own "Listening at:" line
    # names none: say where the workers listen.
    server.log.info("listening at %s (a socket a worker)", ", ".join(server.cfg.bind))
    # METRICS_PORT: /metrics on a port of its own, served by the master (a thread of its),
    # so that only the scraper reaches it; the app then serves no /metrics on PORT.
    port = _settings.metrics_port
    if not port:
        return
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    # On HOST too: 127.0.0.1 unless set (the image and the manifests set 0.0.0.0).
    start_http_server(port, addr=_host, registry=registry)
    server.log.info("metrics on port %s", port)


def child_exit(server, worker):  # noqa: ARG001 - gunicorn's hook signature
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_fork(server, worker):  # noqa: ARG001 - gunicorn's hook signature
    # The worker reads its requests with the settings read above (service/serving.py).
    worker.settings = _settings


def post_worker_init(worker):  # noqa: ARG001 - gunicorn's hook signature
    # Everything the worker built to serve (the app, its schemas, the libraries: some
    # 60,000 objects) lives as long as the worker: frozen, out of the garbage collector's
    # sight, a full collection no longer walks it. Unfrozen, each full collection paused
    # the worker, every thread of it, for 16 ms or more, several times a minute under load,
    # and every request in flight in it waited as long.
    import gc

    gc.freeze()
    _end_streams_on_sigterm()


def _end_streams_on_sigterm():
    """SIGTERM (a graceful stop) first ends the worker's event streams, each with an
    `end` event that has its client reconnect elsewhere with Last-Event-ID; else the
    worker would wait for them the whole graceful_timeout."""
    import signal

    from service.play import live

    graceful = signal.getsignal(signal.SIGTERM)

    def stop(signum, frame):
        live.stop_all()
        if callable(graceful):
            graceful(signum, frame)

    signal.signal(signal.SIGTERM, stop)
