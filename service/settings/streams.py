"""Event streams: how long they last and how many may be open at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .declaring import Section, setting


@dataclass(frozen=True)
class Streams(Section):
    TITLE: ClassVar[str] = "Event streams"

    stream_keepalive_seconds: float = setting(
        15.0,
        minimum=0,
        above_minimum=True,
        meaning="an event stream sends a `: keep-alive` comment this often (and rereads "
        "the log: a game that expired ends its streams within this long)",
    )
    stream_max_seconds: float = setting(
        3600.0,
        minimum=0,
        above_minimum=True,
        meaning="an event stream ends after this long (`end`, `reconnect`); the client "
        "reconnects with `Last-Event-ID` and misses nothing",
    )
    stream_limit_per_address: int = setting(
        20,
        minimum=0,
        meaning="event streams open at once per client address (its prefix: "
        "`ADDRESS_PREFIX_V4`/`_V6`), over every instance (0: no limit); past it, 429",
    )
    stream_limit_per_game: int = setting(
        50,
        minimum=0,
        meaning="spectators' event streams (no seat token) open at once on one game, over "
        "every instance (0: no limit); past it, 429. Seats are not counted here: "
        "spectators never keep a game's players out",
    )
    stream_limit_per_seat: int = setting(
        4,
        minimum=0,
        meaning="event streams open at once with one seat's token (a player's tabs and "
        "devices; 0: no limit); past it, 429",
    )
    streams_per_worker: int = setting(
        200,
        minimum=0,
        meaning="event streams one worker holds at once, each on a thread of its own "
        "(`deploy/gunicorn.conf.py` gives each worker this many besides "
        "`GUNICORN_THREADS`); past it, 503 with `Retry-After`",
    )
