"""Stable allocation: every number derives from a device id or a link index, never list order.

Adding a device or a link therefore never renumbers what exists, and a one-line intent change
gives a small config diff.
"""

from __future__ import annotations

import ipaddress
from functools import cache, lru_cache

from meetme.intent.schema import Device, Intent, Site

PER_DEVICE_ASN_ROLES = ("leaf", "border_leaf")
VTEP_ROLES = ("leaf", "border_leaf")


class PoolExhausted(ValueError):
    """An id or index does not fit the pool it draws from."""


class BeyondLinksPerDevice(PoolExhausted):
    """A link index past the device's block of the p2p pools: the block, not the pool, is short."""

    def __init__(self, index: int, links_per_device: int) -> None:
        super().__init__(f"link index {index} is beyond links_per_device ({links_per_device})")
        self.needed = index + 1  # the links_per_device that holds it


@cache
def _network(pool: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(pool)


# Memoised: resolve, the rules and the builders each ask for the same loopbacks and link
# addresses (31,000 calls, 16,000 distinct at 1,040 devices), and writing an IPv6 address out
# is slow; bounded like meetme.core.addresses. PoolExhausted is raised again, never stored.
@lru_cache(maxsize=1 << 17)
def nth_address(pool: str, offset: int, prefixlen: int) -> str:
    """Address `offset` of `pool`, written with `prefixlen`, or PoolExhausted."""
    net = _network(pool)
    if offset >= net.num_addresses:
        raise PoolExhausted(
            f"offset {offset} is outside pool {pool} ({net.num_addresses} addresses)"
        )
    return f"{net.network_address + offset}/{prefixlen}"


def loopback_v4(site: Site, device: Device) -> str:
    if device.loopback_v4 is not None:
        return device.loopback_v4
    return nth_address(site.pools.loopback_v4, device.id, 32)


def loopback_v6(site: Site, device: Device) -> str | None:
    if device.loopback_v6 is not None:
        return device.loopback_v6
    if site.pools.loopback_v6 is None:
        return None
    return nth_address(site.pools.loopback_v6, device.id, 128)


def vtep_v4(site: Site, device: Device) -> str | None:
    if device.vtep_v4 is not None:
        return device.vtep_v4
    if site.pools.vtep_v4 is None or device.role not in VTEP_ROLES:
        return None
    return nth_address(site.pools.vtep_v4, device.id, 32)


def device_asn(intent: Intent, site: Site, device: Device) -> int:
    """Override, else the organisation's ASN on borders, a pod spine's pod ASN, a shared role
    ASN, or base + id."""
    if device.asn is not None:
        return device.asn
    if device.role == "border":
        return intent.organisation.asn
    if (
        device.role == "spine"
        and device.pod is not None
        and (site.pods[device.pod].asn is not None or "spine" in site.asn.shared)
    ):
        return pod_spine_asn(site, device.pod)
    if device.role in site.asn.shared:
        return site.asn.shared[device.role]
    return site.asn.base + device.id


def pod_spine_asn(site: Site, pod_name: str) -> int:
    """The ASN a pod's spines share by default (RFC 7938 5.2.1: one per pod's tier 2, so a
    route from another pod passes a spine's loop check): the pod's own `asn`, else the spines'
    shared ASN + pod id. Derived from the pod id, it stays put when a pod is added. Without
    asn.shared.spine a spine keeps base + its id (TOPO-004 reports the pod's ASNs)."""
    pod = site.pods[pod_name]
    if pod.asn is not None:
        return pod.asn
    return site.asn.shared["spine"] + pod.id


def p2p_subnets(site: Site, a_device_id: int, index: int) -> tuple[str, str | None]:
    """The /31 and /127 of link `index` in device a's block of the p2p pools."""
    if index >= site.pools.links_per_device:
        raise BeyondLinksPerDevice(index, site.pools.links_per_device)
    slot = a_device_id * site.pools.links_per_device + index
    v4 = nth_address(site.pools.p2p_v4, slot * 2, 31)
    v6 = None if site.pools.p2p_v6 is None else nth_address(site.pools.p2p_v6, slot * 2, 127)
    return v4, v6
