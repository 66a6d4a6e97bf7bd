"""Resolve the SRv6 domain: the block, and one uSID locator per participating device.

A locator is block + node uSID, where the node uSID is the site's id (high byte) and the
device's id (low byte): derived only from ids that never change, so adding a site or a device
moves no locator, SID or address of any other (tests/test_srv6_intent.py derives a third site).
The rules (SRV6-001) report ids that do not fit; here they are computed as written.
"""

from __future__ import annotations

import ipaddress
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from meetme.intent.schema import Intent
from meetme.intent.schema_srv6 import Srv6

# RFC 9602: IANA's space for SRv6 SIDs
SRV6_SID_SPACE = ipaddress.IPv6Network("5f00::/16")
# format -> (block bits, node uSID bits, function bits)
FORMATS: dict[str, tuple[int, int, int]] = {"F3216": (32, 16, 0), "F1616": (16, 16, 0)}
LOCATOR_NAME = "MAIN"


@dataclass(frozen=True)
class Locator:
    site: str
    device: str
    node_usid: int  # site id x 256 + device id
    prefix: str  # 5f00:0:101::/48
    block_len: int
    node_len: int
    func_len: int
    name: str = LOCATOR_NAME

    @property
    def usid_hex(self) -> str:
        return f"0x{self.node_usid:04x}"


def block_of(srv6: Srv6) -> ipaddress.IPv6Network:
    """The declared block, or the first block of the format's length in 5f00::/16."""
    if srv6.block is not None:
        return ipaddress.IPv6Network(srv6.block, strict=False)
    return next(SRV6_SID_SPACE.subnets(new_prefix=FORMATS[srv6.format][0]))


def node_usid(site_id: int, device_id: int) -> int:
    return site_id * 256 + device_id


def members(intent: Intent, site_name: str) -> list[str]:
    """The devices of one site that take a locator: as listed, else the site's borders."""
    srv6 = intent.srv6
    if srv6 is None or site_name not in srv6.sites or site_name not in intent.sites:
        return []
    listed = srv6.sites[site_name].devices
    devices = intent.sites[site_name].devices
    if listed is None:
        return sorted(n for n, d in devices.items() if d.role == "border")
    return [n for n in dict.fromkeys(listed) if n in devices]


# The last intent's locators: every builder asks once per device, and working them out again
# for each of 1,040 devices was 3 % of a render. Kept while the intent, its SRv6 domain and
# its sites are the very objects they were worked out from (a test's model_copy is new).
_LAST: tuple[weakref.ref[Intent], tuple[int, int], Mapping[str, Locator]] | None = None


def locators(intent: Intent) -> Mapping[str, Locator]:
    """Every participating device's locator, by device name (read-only: shared by callers)."""
    global _LAST
    stamp = (id(intent.srv6), id(intent.sites))
    if _LAST is not None and _LAST[0]() is intent and _LAST[1] == stamp:
        return _LAST[2]
    found = MappingProxyType(_locators(intent))
    _LAST = (weakref.ref(intent), stamp, found)
    return found


def _locators(intent: Intent) -> dict[str, Locator]:
    srv6 = intent.srv6
    if srv6 is None:
        return {}
    block = block_of(srv6)
    block_len, node_len, func_len = FORMATS[srv6.format]
    found: dict[str, Locator] = {}
    for site_name, entry in sorted(srv6.sites.items()):
        for name in members(intent, site_name):
            device = intent.sites[site_name].devices[name]
            usid = node_usid(entry.id, device.id)
            base = int(block.network_address) + (usid << (128 - block_len - node_len))
            prefix = ipaddress.IPv6Network((base % 2**128, block_len + node_len), strict=False)
            found[name] = Locator(
                site=site_name,
                device=name,
                node_usid=usid,
                prefix=str(prefix),
                block_len=block_len,
                node_len=node_len,
                func_len=func_len,
            )
    return found


def vrf_sites(intent: Intent, site_name: str) -> dict[str, tuple[str, ...]]:
    """The tenant VRFs of one site that ride SRv6, each with the other sites it reaches."""
    if intent.srv6 is None:
        return {}
    return {
        vrf: tuple(sorted(s for s in entry.sites if s != site_name))
        for vrf, entry in sorted(intent.srv6.vrfs.items())
        if site_name in entry.sites
    }
