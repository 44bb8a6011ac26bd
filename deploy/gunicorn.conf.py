"""Gunicorn settings for the Scopa service (used by `make run` and the Docker image).

The app is stateless (every match lives in Redis), so any number of workers and
replicas can serve any request.  Tunables come from the environment:

    PORT              port to listen on, on all interfaces (default 8000)
    WEB_CONCURRENCY   worker processes (default 2)
    GUNICORN_THREADS  threads per worker (default 4)
"""

import os

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "4"))

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
