"""Metrics, logs and the engine each process runs."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, nonnegative, setting

#: LOG_LEVEL's values (any case), the logging module's levels.
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class Operations(Section):
    """Metrics, logs and the engine

    Attributes:
        metrics_port: serve `/metrics` on this port (gunicorn's master, every worker added up) and
            not on `PORT`; without it (`make run`), `/metrics` is on `PORT`, counted by the
            per-address limit
        prometheus_multiproc_dir: a writable directory for the workers' metrics files (in
            Kubernetes, an `emptyDir`); its `*.db` files are removed when gunicorn starts
        log_level: the service's JSON logs on stderr (gunicorn's access log is JSON on stdout); any
            case
        scopa_engine: the engine every process must run, else it refuses to start. Each logs the one
            it runs at start (`engine: compiled (mypyc, ...)` or `engine: pure Python (no compiled
            build on the path)`), and `/metrics` has it as `scopa_engine_info{build="mypyc"}` (or
            `"python"`)
    """

    metrics_port: int = nonnegative(
        0, maximum=65535, shown_default="none (the image, compose and the manifests: `9100`)"
    )
    prometheus_multiproc_dir: str = setting(
        "", key=None, shown_default="a fresh temporary directory"
    )
    log_level: str = setting("INFO", key=None, choices=LOG_LEVELS, any_case=True)
    scopa_engine: str = setting(
        "",
        key=None,
        choices=("compiled", "python"),
        shown_default="none (`make run` sets it to the engine it chose; the image, `compiled`)",
    )
