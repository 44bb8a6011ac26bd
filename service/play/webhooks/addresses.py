"""Where a webhook may be sent: the one check of an endpoint's URL, made when it is
registered and again before every delivery, after DNS resolution (SSRF).

A URL is ``https://`` unless its host (or host:port) is among the operator's allowed
hosts (``WEBHOOK_ALLOW_HOSTS``, for development and tests), which may also be ``http://``
and loopback. Any other host must resolve only to public addresses: never loopback,
private (RFC 1918, unique local), link-local, shared (CGNAT), multicast, reserved or
unspecified, nor a cloud's metadata address (169.254.169.254, fd00:ec2::254); nor an
IPv6 address that carries such an IPv4 address to it (IPv4-mapped and -compatible,
6to4's 2002::/16, Teredo's 2001::/32, NAT64's 64:ff9b::/96). A URL has a port from 1 to
65535 (or none), and no control character (CR, LF, ...) anywhere. The
delivery then connects to the address that was checked, not to the name again, so a
name that resolves elsewhere the second time (DNS rebinding) changes nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

#: Resolves a host name to its addresses (strings); :func:`resolve` by default.
Resolver = Callable[[str, int], Sequence[str]]
#: The longest URL an endpoint may have.
MAX_URL_LENGTH = 2048
#: Cloud metadata services: link-local or unique local already, named for the message.
METADATA = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)


class RefusedAddressError(ValueError):
    """A webhook URL the service does not send to; the message says why, in words a
    platform can act on."""


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the URL's parts and the checked address to connect to."""

    scheme: str
    host: str
    port: int
    #: The path and query to request ("/" when the URL has none).
    path: str
    #: The address the connection is made to (the host itself when it is allowed).
    address: str


def allowed_hosts(value: str) -> frozenset[str]:
    """``WEBHOOK_ALLOW_HOSTS`` (comma-separated ``host`` or ``host:port``) as a set, lower
    case; ValueError if an entry is not a host name, an address or one with a port."""
    hosts = set()
    for part in value.split(","):
        entry = part.strip().lower()
        if not entry:
            continue
        probe = urlsplit(f"http://{entry}")
        try:
            probe.port  # noqa: B018 - raises ValueError for a port that is not one
        except ValueError:
            raise ValueError(f"{entry!r} is not a host or host:port") from None
        if not probe.hostname or probe.netloc != entry or any(c in entry for c in "/@?# "):
            raise ValueError(f"{entry!r} is not a host or host:port")
        hosts.add(entry)
    return frozenset(hosts)


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (the system's resolver)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


#: NAT64's well-known prefix (RFC 6052): the IPv4 address in its last 32 bits.
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 address carries traffic to, and the form that does
    (IPv4-mapped, 6to4, Teredo's client, NAT64, IPv4-compatible); None if it carries none."""
    if ip.ipv4_mapped is not None:
        return "an IPv4-mapped address", ip.ipv4_mapped
    if ip.sixtofour is not None:
        return "a 6to4 address", ip.sixtofour
    if ip.teredo is not None:
        return "a Teredo address", ip.teredo[1]
    last = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in NAT64:
        return "a NAT64 address", last
    if int(ip) >> 32 == 0 and int(ip) > 1:  # ::a.b.c.d (deprecated, RFC 4291)
        return "an IPv4-compatible address", last
    return None


def forbidden_reason(address: str) -> str | None:
    """Why the service never sends to ``address``, or None if it may."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and (carried := embedded(ip)) is not None:
        form, inner = carried
        reason = _reason(inner)
        if reason is not None:
            return f"{form} of {inner}, {reason}"
    return _reason(ip)


def _reason(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if ip in METADATA:
        return "a cloud metadata address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_private:
        return "a private address"
    if ip.is_multicast or ip.is_unspecified or ip.is_reserved or not ip.is_global:
        return "not a public address"
    return None


def _split(url: str) -> tuple[SplitResult, str, int]:
    if len(url) > MAX_URL_LENGTH:
        raise RefusedAddressError(f"the URL is longer than {MAX_URL_LENGTH} characters")
    if any(unicodedata.category(c) == "Cc" for c in url):
        raise RefusedAddressError("the URL must not hold a control character (CR, LF, tab, ...)")
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise RefusedAddressError("the URL must be https://host/path")
    if parts.username is not None or parts.password is not None:
        raise RefusedAddressError("the URL must not hold a user name or password")
    if parts.fragment:
        raise RefusedAddressError("the URL must not have a #fragment")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    elif not 1 <= port <= 65535:
        raise RefusedAddressError("the URL's port is not a number from 1 to 65535")
    return parts, parts.hostname.lower(), port


def check_url(
    url: str, allow: Collection[str] = frozenset(), *, resolver: Resolver = resolve
) -> Target:
    """Where a webhook for ``url`` goes, checked: RefusedAddressError says why not.
    Hosts in ``allow`` (``host`` or ``host:port``, lower case) may be http:// and any
    address; every other host must be https:// and resolve (``resolver``) only to
    public addresses, of which the first is the one to connect to."""
    parts, host, port = _split(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    netloc = f"[{host}]" if ":" in host else host
    if host in allow or f"{netloc}:{port}" in allow:
        return Target(parts.scheme, host, port, path, host)
    if parts.scheme != "https":
        raise RefusedAddressError(
            "the URL must be https:// (http:// only for a host the operator allows in "
            "WEBHOOK_ALLOW_HOSTS)"
        )
    try:
        addresses, literal = [str(ipaddress.ip_address(host))], True
    except ValueError:
        addresses, literal = [], False
    if not literal:
        try:
            addresses = list(resolver(host, port))
        except (OSError, UnicodeError):
            addresses = []
        if not addresses:
            raise RefusedAddressError(f"the host {host} does not resolve")
    for address in addresses:
        reason = forbidden_reason(address)
        if reason is not None:
            said = f"{host} is" if literal else f"{host} resolves to {address}, which is"
            raise RefusedAddressError(f"{said} {reason}")
    return Target(parts.scheme, host, port, path, addresses[0])
