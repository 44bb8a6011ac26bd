"""The gunicorn internals service/serving.py and service/request_reading.py build on are
the ones the installed gunicorn has, and it is a release pyproject.toml allows.

The worker extends gthread's ThreadWorker: it overrides some of its methods and calls
others, and reads gunicorn's own request parser. None of that is gunicorn's public API,
and it changes between releases (patch releases included), so pyproject.toml pins the
releases the worker was written for, deploy/requirements.lock installs one of them, and
this file fails when either drifts, or when an override or a call no longer matches what
the installed gunicorn defines."""

from __future__ import annotations

import importlib.metadata
import inspect
import logging
import re
import socket
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gunicorn import util
from gunicorn.config import Config
from gunicorn.http.parser import RequestParser
from gunicorn.http.unreader import Unreader
from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import TConn, ThreadWorker
from packaging.requirements import Requirement
from packaging.version import Version

from service.serving import ProblemThreadWorker

ROOT = Path(__file__).resolve().parent.parent

#: ThreadWorker's methods the worker overrides, with the parameters gunicorn calls them
#: with (the worker's override takes the same).
OVERRIDDEN = {
    "init_process": ["self"],
    "load_wsgi": ["self"],
    "enqueue_req": ["self", "conn"],
    "finish_request": ["self", "conn", "fs"],
    "murder_pending": ["self"],
    "handle_request": ["self", "req", "conn"],
    "handle_error": ["self", "req", "client", "addr", "exc"],
}

#: What the worker and the request buffer call of gunicorn's, with its parameters.
CALLED: list[tuple[str, Callable[..., Any], list[str]]] = [
    ("ThreadWorker.handle (calls handle_request)", ThreadWorker.handle, ["self", "conn"]),
    ("TConn", TConn, ["cfg", "sock", "client", "server"]),
    ("TConn.init", TConn.init, ["self"]),
    ("TConn.close", TConn.close, ["self", "graceful"]),
    ("Unreader.take_buffered", Unreader.take_buffered, ["self"]),
    ("Unreader.unread", Unreader.unread, ["self", "data"]),
    ("RequestParser", RequestParser, ["cfg", "source", "source_addr"]),
    ("util.close", util.close, ["sock"]),
    ("util.write_nonblock", util.write_nonblock, ["sock", "data", "chunked"]),
    (
        "negotiation.prior_knowledge_allowed",
        negotiation.prior_knowledge_allowed,
        ["cfg", "peer_addr"],
    ),
]


def parameters(function: Callable[..., Any]) -> list[str]:
    return list(inspect.signature(function).parameters)


def gunicorn_requirement() -> Requirement:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = [Requirement(r) for r in pyproject["project"]["dependencies"]]
    return next(r for r in found if r.name == "gunicorn")


def test_the_installed_and_the_locked_gunicorn_are_releases_the_pin_allows() -> None:
    pin = gunicorn_requirement()
    assert pin.specifier, "gunicorn is not pinned in pyproject.toml"
    installed = Version(importlib.metadata.version("gunicorn"))
    assert pin.specifier.contains(installed), f"gunicorn {installed} installed; pyproject: {pin}"
    lock = (ROOT / "deploy" / "requirements.lock").read_text()
    locked = re.search(r"^gunicorn==(\S+)", lock, re.M)
    assert locked, "deploy/requirements.lock does not pin gunicorn"
    assert pin.specifier.contains(Version(locked.group(1))), (
        f"deploy/requirements.lock pins gunicorn {locked.group(1)}; pyproject: {pin}"
    )
    # Within the pin, no release after the ones the worker was checked against.
    assert not pin.specifier.contains(Version("27.1.0"))


@pytest.mark.parametrize("name", sorted(OVERRIDDEN))
def test_each_override_matches_the_method_gunicorn_calls(name: str) -> None:
    assert callable(getattr(ThreadWorker, name, None)), f"ThreadWorker.{name} is gone"
    assert parameters(getattr(ThreadWorker, name)) == OVERRIDDEN[name]
    assert parameters(getattr(ProblemThreadWorker, name)) == OVERRIDDEN[name]


def test_every_override_is_listed() -> None:
    """A method the worker defines that ThreadWorker has too is an override: listed."""
    own = {n for n, v in vars(ProblemThreadWorker).items() if callable(v)}
    assert own & set(dir(ThreadWorker)) == set(OVERRIDDEN)


@pytest.mark.parametrize(("what", "function", "expected"), CALLED, ids=[c[0] for c in CALLED])
def test_what_is_called_has_the_parameters_it_is_called_with(
    what: str, function: Callable[..., Any], expected: list[str]
) -> None:
    assert parameters(function) == expected, what


def test_the_attributes_read_are_set_by_gunicorn() -> None:
    """The worker reads a ThreadWorker's nr_conns, alive, log, cfg (is_ssl, keepalive)
    and, once its process is set up, poller; a connection's sock, client, parser and
    initialized; a parsed request's headers, version and body."""
    cfg = Config()
    worker = ThreadWorker(0, 0, [], None, 30, cfg, logging.getLogger(__name__))
    try:
        for name in ("nr_conns", "alive", "log", "cfg", "poller"):
            assert hasattr(worker, name), name
        assert isinstance(worker.nr_conns, int)
    finally:
        worker.tmp.close()
    assert not cfg.is_ssl and cfg.keepalive == 2  # (no TLS, and its default)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        conn = TConn(cfg, ours, ("127.0.0.1", 1), ("127.0.0.1", 2))
        assert (conn.sock, conn.client, conn.parser, conn.initialized) == (
            ours,
            ("127.0.0.1", 1),
            None,
            False,
        )
    request = next(
        RequestParser(
            cfg, iter([b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab"]), None
        )
    )
    assert request.version == (1, 1)
    assert ("CONTENT-LENGTH", "2") in request.headers
    assert request.body.read(10) == b"ab"
