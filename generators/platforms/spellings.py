"""Vendor spellings of neutral model values, registered as Jinja filters by the plug-ins that
write them so (`{{ evpn.anycast_mac | dotted_mac }}`)."""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

import yaml
from meetme.generators.platforms.aspath import length_list_name, length_regex, range_regexes


def dotted_mac(mac: str) -> str:
    """00:1c:73:00:00:99 -> 001c.7300.0099 (Cisco's dotted form)."""
    digits = mac.replace(":", "").replace(".", "").replace("-", "").lower()
    return ".".join(digits[i : i + 4] for i in range(0, 12, 4))


def eos_esi(esi: str) -> str:
    """00:44:38:39:ff:00:01:00:00:01 -> 0044:3839:ff00:0100:0001 (EOS `evpn ethernet-segment`
    `identifier`: the 10-byte ESI as five groups of four hex digits)."""
    digits = esi.replace(":", "").lower()
    return ":".join(digits[i : i + 4] for i in range(0, 20, 4))


def eos_rpki_cache_name(address: str) -> str:
    """10.9.0.12 -> RPKI-10-9-0-12, 2001:db8:9::12 -> RPKI-2001-db8-9--12: EOS `rpki cache NAME`
    takes a name (the address goes under `host`), and no source says one may hold ':'. Derived
    from the address, so adding, removing or reordering caches renames none of the others; the
    compressed forms keep distinct addresses apart (IPv4 never has '--', IPv6 always has more
    separators than IPv4)."""
    compressed = ipaddress.ip_address(address).compressed
    return "RPKI-" + compressed.replace(":", "-").replace(".", "-")


def netmask(cidr: str) -> str:
    """10.1.0.1/31 -> 255.255.255.254 (IOS-XR's `ipv4 address A MASK`)."""
    return str(ipaddress.ip_interface(cidr).netmask)


def as_path_regexes(entry: Any) -> list[str]:
    """An as-path entry's ASN range [first, last] as `_`-delimited regular expressions, for
    platforms whose as-path lists have no ranges (EOS, NX-OS, NVUE; IOS-XR for AS 0)."""
    return range_regexes(entry.first, entry.last)


def as_path_length_regex(length: int) -> str:
    """An AS path of `length` ASNs or more as a regular expression (NVUE, FRR)."""
    return length_regex(length)


def as_path_length_list(length: int) -> str:
    """The name of the AS-path list holding that regular expression."""
    return length_list_name(length)


def yaml_str(value: object) -> str:
    """A value as one single-quoted YAML scalar, quoted by the YAML library (a `'` doubled, no
    line folding): NVUE templates print every text value through it, never quote by hand."""
    text = str(value)
    # Fast path, same bytes: printable ASCII is never special to the emitter, which (with no
    # line width) writes it between single quotes with only each `'` doubled.
    if text.isascii() and text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return _yaml_quoted(text)


# A leaf's file prints a few hundred values and a fabric repeats most of them (VRFs, policy
# names, users); the library's dump costs ~0.1 ms each, a third of rendering an NVUE leaf.
@lru_cache(maxsize=1 << 16)
def _yaml_quoted(text: str) -> str:
    dumped: str = yaml.safe_dump(text, default_style="'", width=float("inf"), allow_unicode=True)
    return dumped.removesuffix("\n")
