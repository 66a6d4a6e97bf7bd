"""Special-purpose ASN and prefix ranges, with the RFC that sets each.

Why each matters: docs/standards.md#numbering."""

from __future__ import annotations

import ipaddress
from typing import NamedTuple

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class AsnRange(NamedTuple):
    first: int
    last: int
    why: str

    def holds(self, asn: int) -> bool:
        return self.first <= asn <= self.last


PRIVATE_ASNS = (
    AsnRange(64512, 65534, "private use, RFC 6996"),
    AsnRange(4200000000, 4294967294, "private use, RFC 6996"),
)

# Never configured anywhere: not an AS at all, or held back by IANA.
RESERVED_ASNS = (
    AsnRange(0, 0, "reserved, RFC 7607"),
    AsnRange(23456, 23456, "AS_TRANS, RFC 6793"),
    AsnRange(65535, 65535, "last 16-bit ASN, reserved by RFC 7300"),
    AsnRange(65552, 131071, "reserved by IANA"),
    AsnRange(4294967295, 4294967295, "last 32-bit ASN, reserved by RFC 7300"),
)

DOCUMENTATION_ASNS = (
    AsnRange(64496, 64511, "documentation, RFC 5398"),
    AsnRange(65536, 65551, "documentation, RFC 5398"),
)

DOCUMENTATION_PREFIXES: tuple[tuple[Network, str], ...] = (
    (ipaddress.ip_network("192.0.2.0/24"), "TEST-NET-1, RFC 5737"),
    (ipaddress.ip_network("198.51.100.0/24"), "TEST-NET-2, RFC 5737"),
    (ipaddress.ip_network("203.0.113.0/24"), "TEST-NET-3, RFC 5737"),
    (ipaddress.ip_network("2001:db8::/32"), "documentation, RFC 3849"),
    (ipaddress.ip_network("3fff::/20"), "documentation, RFC 9637"),
)


def _why(asn: int, ranges: tuple[AsnRange, ...]) -> str | None:
    return next((r.why for r in ranges if r.holds(asn)), None)


def is_private_asn(asn: int) -> bool:
    return _why(asn, PRIVATE_ASNS) is not None


def reserved_asn(asn: int) -> str | None:
    """Why `asn` must never be configured, or None."""
    return _why(asn, RESERVED_ASNS)


def documentation_asn(asn: int) -> str | None:
    return _why(asn, DOCUMENTATION_ASNS)


def documentation_prefix(network: Network) -> tuple[Network, str] | None:
    """The documentation range `network` overlaps (either way round), or None."""
    for doc, why in DOCUMENTATION_PREFIXES:
        if doc.version == network.version and doc.overlaps(network):
            return doc, why
    return None
