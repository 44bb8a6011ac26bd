"""Who a request comes from, as the per-address limits count it: the client's address
widened to its network prefix (``ADDRESS_PREFIX_V4``, default /32: the address itself;
``ADDRESS_PREFIX_V6``, default /64: one IPv6 subscriber is usually given a whole /64, and
each of its 2**64 addresses would otherwise count apart). Every per-address limit keys on
:func:`client_key`: the rate limits and quotas (service/api/ratelimit.py) and the streams
open at once (service/api/resources/events/stream.py)."""

from __future__ import annotations

import functools
import ipaddress

from flask import request

from ..config import Settings
from .settings import settings


def client_key(address: str | None = None) -> str:
    """The network ``address`` belongs to (default: the request's client address, after
    ``TRUSTED_PROXIES``), as ``<network>/<prefix>``; an IPv4 address mapped into IPv6
    (``::ffff:192.0.2.1``) counts as the IPv4 address it is. Something that is not an IP
    address (a Unix socket's peer) is its own key."""
    raw = str(request.remote_addr if address is None else address)
    if len(raw) > MAX_ADDRESS_LENGTH:  # no IP address: its own key, and not cached
        return raw
    prefixes = settings()
    return network_of(raw, prefixes.address_prefix_v4, prefixes.address_prefix_v6)


#: Longer than any IP address's text (45 characters, and a zone's name): what
#: :func:`network_of` keeps stays small whatever a misconfigured proxy passes on.
MAX_ADDRESS_LENGTH = 64


@functools.lru_cache(maxsize=4096)
def network_of(address: str, prefix_v4: int, prefix_v6: int) -> str:
    """:func:`client_key`'s answer for ``address`` under these prefixes, worked out once
    for each of the addresses seen last (parsing an address costs more than the rest of a
    request's rate limiting)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = int(prefix_v4 if ip.version == 4 else prefix_v6)
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def check_settings(config: Settings) -> None:
    """Refuse to start with a prefix its family cannot have (else every request would
    fail to be counted): a test's settings are taken as given."""
    for setting, value, bits in (
        ("ADDRESS_PREFIX_V4", config.address_prefix_v4, 32),
        ("ADDRESS_PREFIX_V6", config.address_prefix_v6, 128),
    ):
        if not isinstance(value, int) or not 0 <= value <= bits:
            raise RuntimeError(f"{setting} must be a prefix length from 0 to {bits}, not {value!r}")
