"""GET /v1/games: a service key's games, newest first, filtered, a page at a time.

The key's indexes (service/play/listing.py) give its games' ids in creation order; the
filters on what changes (status) and what the index does not hold (variant, metadata)
are checked on the games themselves, read a batch at a time: a listing says what the
games say now, whatever raced it. A request reads at most :data:`MAX_SCANNED` games, so
a page of a rare filter may hold fewer games than asked for, with a ``next`` link to go
on from where it stopped.
"""

from __future__ import annotations

import base64
import binascii
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlencode

from flask import request

from ....play import Game, keys
from ....play.listing import Position
from ...context import store
from ...problems import Problem, ProblemType
from ...service_keys import require_key
from . import answers

#: What a scan keeps of each game it lets through (a listing's summary, an export's id).
T = TypeVar("T")

#: The most index entries one request reads (its cost is bounded whatever the filters).
MAX_SCANNED = 1000
#: Games read from Redis at a time.
BATCH = 100
#: An index entry whose game is missing is pruned once it is this old (a game is
#: indexed just before it is committed: a younger one may be on its way).
PRUNE_AFTER_MS = 60_000


def page(query: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The page ``query`` asks for of the requesting key's games, and its headers (the
    next page's ``Link``)."""
    owner = require_key()
    key = keys.listing(owner, query.get("player_id"))
    bounds = _ms(query.get("created_before"), -1), _ms(query.get("created_after"), 1)
    found, following = scan(key, query, bounds, query["limit"], answers.summary_of)
    return {"games": found, "next": following}, link(following)


def link(following: str | None) -> dict[str, str]:
    """The ``Link`` header naming the next page (none on the last)."""
    return {"Link": f'<{following}>; rel="next"'} if following else {}


def scan(
    key: str,
    query: dict[str, Any],
    bounds: tuple[int | None, int | None],
    limit: int,
    keep: Callable[[Game], T],
    accept: Callable[[Game], bool] = lambda game: True,
) -> tuple[list[T], str | None]:
    """What ``keep`` makes of each game of the index ``key`` that ``query``'s filters
    (``status``, ``variant``, ``metadata``, ``ids``) and ``accept`` let through, newest
    first, from its ``cursor``, created within ``bounds`` (the newest and oldest score,
    inclusive), at most ``limit``; and the next page's URL when the index may hold more
    (the same query from the last game read), else None."""
    start = position_of(query["cursor"]) if "cursor" in query else None
    found, last, more = _scan(key, query, start, bounds, limit, keep, accept)
    return found, next_url(last) if more and last is not None else None


def _scan(
    key: str,
    query: dict[str, Any],
    start: Position | None,
    bounds: tuple[int | None, int | None],
    limit: int,
    keep: Callable[[Game], T],
    accept: Callable[[Game], bool],
) -> tuple[list[T], Position | None, bool]:
    """The games kept; the last position read; whether the index may hold more."""
    index = store().index
    walk = index.walk(key, start=start, newest_ms=bounds[0], oldest_ms=bounds[1])
    found: list[T] = []
    last, scanned = start, 0
    now_ms = time.time() * 1000
    while scanned < MAX_SCANNED:
        batch = [p for _, p in zip(range(min(BATCH, MAX_SCANNED - scanned)), walk, strict=False)]
        if not batch:
            return found, last, False
        scanned += len(batch)
        games = store().load_many([p.game_id for p in batch])
        index.prune(
            key,
            [
                position.game_id
                for position, game in zip(batch, games, strict=True)
                if game is None and position.score < now_ms - PRUNE_AFTER_MS
            ],
        )
        for read, (position, game) in enumerate(zip(batch, games, strict=True), 1):
            last = position
            if game is not None and _matches(game, query) and accept(game):
                found.append(keep(game))
                if len(found) == limit:  # more: the rest of the batch, or of the index
                    return found, last, read < len(batch) or next(walk, None) is not None
    return found, last, True


def _matches(game: Game, query: dict[str, Any]) -> bool:
    if "ids" in query and game.id not in query["ids"]:
        return False
    if "status" in query and game.status != query["status"]:
        return False
    if "variant" in query and answers.variant_of(game) != query["variant"]:
        return False
    wanted: dict[str, str] = query.get("metadata", {})
    return all(game.metadata.get(k) == v for k, v in wanted.items())


def _ms(moment: datetime | None, step: int) -> int | None:
    """A filter's time as an index score (whole milliseconds): the first after it
    (``step`` 1) or the last before it (-1); the bounds are exclusive."""
    if moment is None:
        return None
    ms = moment.timestamp() * 1000
    return math.floor(ms) + 1 if step > 0 else math.ceil(ms) - 1


def position_of(text: str) -> Position:
    """The position a ``cursor`` names, a creation time (ms) and an id (422 if it is none
    a listing gave): a key's games', or its tournaments'."""
    try:
        score, _, game_id = base64.urlsafe_b64decode(text.encode() + b"==").decode().partition(":")
        if not game_id or not score.isdigit():
            raise ValueError(text)
        return Position(int(score), game_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise Problem(
            422,
            ProblemType.VALIDATION,
            "This cursor is not one a listing gave: follow the `next` link as it is.",
            errors={"cursor": ["Not a listing's cursor."]},
        ) from None


def next_url(last: Position) -> str:
    """The URL of the page after ``last`` (its cursor as :func:`position_of` reads it)."""
    cursor = base64.urlsafe_b64encode(f"{last.score}:{last.game_id}".encode()).decode()
    return page_url(cursor.rstrip("="))


def page_url(cursor: str) -> str:
    """This request's URL with ``cursor`` for its ``cursor`` (a listing's next page)."""
    params = [(k, v) for k, v in request.args.items(multi=True) if k != "cursor"]
    params.append(("cursor", cursor))
    return f"{request.path}?{urlencode(params)}"
