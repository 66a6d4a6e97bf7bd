"""Address text parsed once per process.

A large site parses the same address strings many times over: the rules read every loopback
and p2p subnet (some of them three times per lint), the builders and the FLOW rules every
interface address of every model. ipaddress's objects are immutable, so one parse of a string
serves every caller; these are `ipaddress.ip_interface`, `ip_network` and `ip_address`
memoised on their text (a ValueError is raised again each time, never stored).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

Interface = ipaddress.IPv4Interface | ipaddress.IPv6Interface
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
FAMILY = {"ipv4": "IPv4", "ipv6": "IPv6"}  # an address family as messages and configs name it

# Bounded so a long-lived process (a test session) does not keep every address it ever saw;
# a 4,160-device site parses about 70,000 distinct strings.
_SIZE = 1 << 17


@lru_cache(maxsize=_SIZE)
def interface(text: str) -> Interface:
    """ipaddress.ip_interface(text)."""
    return ipaddress.ip_interface(text)


@lru_cache(maxsize=_SIZE)
def network(text: str, strict: bool = True) -> Network:
    """ipaddress.ip_network(text, strict)."""
    return ipaddress.ip_network(text, strict)


@lru_cache(maxsize=_SIZE)
def address(text: str) -> Address:
    """ipaddress.ip_address(text)."""
    return ipaddress.ip_address(text)


def excluding(outer: Network, holes: list[Network]) -> list[Network]:
    """The fewest prefixes that hold `outer` except every address of the `holes` inside it
    (the others are no part of it), in address order: `ipaddress`'s address_exclude, one
    hole after another."""
    parts = [outer]
    for hole in holes:
        if hole.version != outer.version or not hole.subnet_of(outer):  # type: ignore[arg-type]
            continue
        parts = [
            kept
            for part in parts
            if not part.subnet_of(hole)  # type: ignore[arg-type]
            for kept in (part.address_exclude(hole) if hole.subnet_of(part) else [part])  # type: ignore[arg-type]
        ]
    return sorted(parts)
