"""Limits and quotas: per client address, seat token and service key
(service/api/ratelimit.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .declaring import Section, nonnegative


@dataclass(frozen=True)
class Limits(Section):
    """Limits and quotas

    Attributes:
        rate_limit_per_address: requests a minute per client address (0: no limit;
            `service/api/ratelimit.py`)
        rate_limit_per_token: requests a minute per seat token (0: no limit)
        hint_limit_per_address: hints and move analyses a minute per client address (the two hint
            and the two analysis endpoints share it; 0: no limit)
        hint_limit_per_token: the same per seat token
        reaction_limit_per_address: reactions (emotes sent to a game's streams) a minute per client
            address (0: no limit)
        reaction_limit_per_token: the same per seat token
        bot_limit_per_address: computer-player turns a minute per client address: `POST
            /v1/games/{id}/bots`, creations and rematches with a computer seat (one each), and each
            computer player replying within a person's move (over the quota, they reply on a
            background worker instead; 0: no limit)
        bot_limit_per_token: the same per seat token
        cost_budget_seconds_per_address: seconds one address may cost in a sliding minute: the CPU
            of its costly requests (hints, analyses, position analyses, bots' turns, bots replying
            within its moves) and the background workers' time its games take; past it, its costly
            requests are 429, bots reply to its moves on a worker, and its games' jobs wait (0: no
            budget; `service/play/budget.py`)
        creation_limit_per_address: games created an hour per client address (rematches count; 0: no
            limit)
        service_key_rate_limit: requests a minute per service key, wherever they come from (instead
            of the address's limit; the hint, bot and analysis quotas count per key at their
            per-address values; 0: no limit)
        service_key_creation_limit: games created an hour per service key (each game of a bulk
            creation counts; 0: no limit)
        analysis_limit_per_address: `POST /v1/legal-moves` and `POST /v1/score` a minute per client
            address (0: no limit)
        invitation_limit_per_address: `GET /v1/invitations/{code}` (a game found by its join
            code alone) a minute per client address, found or not (0: no limit)
        export_limit_per_key: `GET /v1/games/export` a minute per service key (0: no limit): each
            reads up to 1,000 records
        listing_limit_per_key: `GET /v1/games` (a page of a listing) a minute per service key (0: no
            limit): each reads up to 1,000 games
        address_prefix_v4: every per-address limit (requests, quotas, streams) counts the client's
            IPv4 network of this prefix length (32: the address itself; `service/api/addresses.py`)
        address_prefix_v6: the same for IPv6: 64, any address of one /64 (a subscriber's) is one
            client
    """

    rate_limit_per_address: int = nonnegative(1200)
    rate_limit_per_token: int = nonnegative(300)
    hint_limit_per_address: int = nonnegative(60)
    hint_limit_per_token: int = nonnegative(30)
    reaction_limit_per_address: int = nonnegative(120)
    reaction_limit_per_token: int = nonnegative(30)
    bot_limit_per_address: int = nonnegative(60)
    bot_limit_per_token: int = nonnegative(30)
    cost_budget_seconds_per_address: float = nonnegative(7.0)
    creation_limit_per_address: int = nonnegative(600)
    service_key_rate_limit: int = nonnegative(12000)
    service_key_creation_limit: int = nonnegative(6000)
    analysis_limit_per_address: int = nonnegative(300)
    invitation_limit_per_address: int = nonnegative(30)
    export_limit_per_key: int = nonnegative(30)
    listing_limit_per_key: int = nonnegative(600)
    address_prefix_v4: int = nonnegative(32, maximum=32)
    address_prefix_v6: int = nonnegative(64, maximum=128)
