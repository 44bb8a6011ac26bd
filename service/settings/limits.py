"""Limits and quotas: per client address, seat token and service key
(service/api/ratelimit.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .declaring import Section, setting


@dataclass(frozen=True)
class Limits(Section):
    TITLE: ClassVar[str] = "Limits and quotas"

    rate_limit_per_address: int = setting(
        1200,
        minimum=0,
        meaning="requests a minute per client address (0: no limit; `service/api/ratelimit.py`)",
    )
    rate_limit_per_token: int = setting(
        300,
        minimum=0,
        meaning="requests a minute per seat token (0: no limit)",
    )
    hint_limit_per_address: int = setting(
        60,
        minimum=0,
        meaning="hints and move analyses a minute per client address (the two hint and "
        "the two analysis endpoints share it; 0: no limit)",
    )
    hint_limit_per_token: int = setting(
        30,
        minimum=0,
        meaning="the same per seat token",
    )
    reaction_limit_per_address: int = setting(
        120,
        minimum=0,
        meaning="reactions (emotes sent to a game's streams) a minute per client address "
        "(0: no limit)",
    )
    reaction_limit_per_token: int = setting(
        30,
        minimum=0,
        meaning="the same per seat token",
    )
    bot_limit_per_address: int = setting(
        60,
        minimum=0,
        meaning="computer-player turns a minute per client address: "
        "`POST /v1/games/{id}/bots`, creations and rematches with a computer seat (one "
        "each), and each computer player replying within a person's move (over the quota, "
        "they reply on a background worker instead; 0: no limit)",
    )
    bot_limit_per_token: int = setting(
        30,
        minimum=0,
        meaning="the same per seat token",
    )
    cost_budget_seconds_per_address: float = setting(
        7.0,
        minimum=0,
        meaning="seconds one address may cost in a sliding minute: the CPU of its costly "
        "requests (hints, analyses, position analyses, bots' turns, bots replying within "
        "its moves) and the background workers' time its games take; past it, its costly "
        "requests are 429, bots reply to its moves on a worker, and its games' jobs wait "
        "(0: no budget; `service/play/budget.py`)",
    )
    creation_limit_per_address: int = setting(
        600,
        minimum=0,
        meaning="games created an hour per client address (rematches count; 0: no limit)",
    )
    service_key_rate_limit: int = setting(
        12000,
        minimum=0,
        meaning="requests a minute per service key, wherever they come from (instead of "
        "the address's limit; the hint, bot and analysis quotas count per key at their "
        "per-address values; 0: no limit)",
    )
    service_key_creation_limit: int = setting(
        6000,
        minimum=0,
        meaning="games created an hour per service key (each game of a bulk creation "
        "counts; 0: no limit)",
    )
    analysis_limit_per_address: int = setting(
        300,
        minimum=0,
        meaning="`POST /v1/legal-moves` and `POST /v1/score` a minute per client address "
        "(0: no limit)",
    )
    export_limit_per_key: int = setting(
        30,
        minimum=0,
        meaning="`GET /v1/games/export` a minute per service key (0: no limit): each reads "
        "up to 1,000 records",
    )
    listing_limit_per_key: int = setting(
        600,
        minimum=0,
        meaning="`GET /v1/games` (a page of a listing) a minute per service key (0: no "
        "limit): each reads up to 1,000 games",
    )
    address_prefix_v4: int = setting(
        32,
        minimum=0,
        maximum=32,
        meaning="every per-address limit (requests, quotas, streams) counts the client's "
        "IPv4 network of this prefix length (32: the address itself; "
        "`service/api/addresses.py`)",
    )
    address_prefix_v6: int = setting(
        64,
        minimum=0,
        maximum=128,
        meaning="the same for IPv6: 64, any address of one /64 (a subscriber's) is one client",
    )
