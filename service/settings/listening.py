"""Where the service listens, and with how many processes and threads: gunicorn's
settings (deploy/gunicorn.conf.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, setting


@dataclass(frozen=True)
class Listening(Section):
    """Listening and processes

    Attributes:
        host: the address gunicorn listens on: this machine only, unless set (`HOST=0.0.0.0 make
            run` for every interface, `::` for IPv6); put a buffering proxy with TLS in front then
            (the deploy guide)
        port: the port gunicorn listens on
        web_concurrency: gunicorn worker processes
        gunicorn_threads: threads per worker for ordinary requests (each worker has
            `STREAMS_PER_WORKER` more, for event streams)
    """

    host: str = setting(
        "127.0.0.1",
        key=None,
        shown_default="`127.0.0.1` (the image, compose and the Kubernetes pods: `0.0.0.0`)",
    )
    port: int = setting(8000, minimum=1, maximum=65535, key=None)
    web_concurrency: int = setting(2, minimum=1, key=None)
    gunicorn_threads: int = setting(4, minimum=1, key=None)
