"""The underlay of one device: loopbacks, routed fabric links and their eBGP sessions (RFC 7938),
with the prefix lists and route maps those sessions apply: loopbacks only, and the locators of
the SRv6 domain members inside the fabric."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from meetme.generators.build.links import pair_link, routed_port
from meetme.generators.model import (
    Address,
    Afi,
    BfdTimers,
    BgpNeighbor,
    Interface,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import SiteFabric, natural_key

from meetme.intent.schema import Device, Intent, Site

BFD_PROFILE = "BFD-UNDERLAY"
PL_LOOPBACKS_V4 = "PL-LOOPBACKS-V4"
PL_LOOPBACKS_V6 = "PL-LOOPBACKS-V6"
PL_SRV6_LOCATORS_V6 = "PL-SRV6-LOCATORS-V6"
RM_UNDERLAY_V4_IN = "RM-UNDERLAY-V4-IN"
RM_UNDERLAY_V4_OUT = "RM-UNDERLAY-V4-OUT"
RM_UNDERLAY_V6_IN = "RM-UNDERLAY-V6-IN"
RM_UNDERLAY_V6_OUT = "RM-UNDERLAY-V6-OUT"


@dataclass(frozen=True)
class Underlay:
    loopbacks: tuple[Interface, ...]
    interfaces: tuple[Interface, ...]
    neighbors: tuple[BgpNeighbor, ...]
    prefix_lists: tuple[PrefixList, ...]
    route_maps: tuple[RouteMap, ...]


def device_bfd(site: Site) -> BfdTimers:
    """The device's BFD timers: every session without timers of its own runs these."""
    return BfdTimers(
        profile=BFD_PROFILE,
        interval=site.underlay.bfd.interval,
        min_rx=site.underlay.bfd.interval,
        multiplier=site.underlay.bfd.multiplier,
    )


def underlay_v6(site: Site) -> bool:
    """IPv6 underlay sessions run when both IPv6 pools exist (loopbacks to carry, links)."""
    return site.pools.loopback_v6 is not None and site.pools.p2p_v6 is not None


def underlay_of(
    intent: Intent,
    site: Site,
    name: str,
    device: Device,
    fabric: SiteFabric,
    locators: tuple[str, ...] = (),
) -> Underlay:
    """`locators`: the SRv6 locators of the site's fabric members (build/srv6.py
    fabric_locators), which the IPv6 underlay carries beside the loopbacks."""
    has_v6 = underlay_v6(site)
    interfaces, neighbors = _fabric_links(intent, site, name, device, fabric)
    carried = locators if has_v6 else ()
    return Underlay(
        loopbacks=_loopbacks(site, device),
        interfaces=interfaces,
        neighbors=neighbors,
        prefix_lists=_prefix_lists(site, carried),
        route_maps=_route_maps(has_v6, bool(carried)),
    )


def _loopbacks(site: Site, device: Device) -> tuple[Interface, ...]:
    names = PLATFORMS[device.platform].loopback_names
    v6 = allocate.loopback_v6(site, device)
    loopbacks = [
        Interface(
            name=names[0],
            kind="loopback",
            description="router-id",
            ipv4=Address.of(allocate.loopback_v4(site, device)),
            ipv6=Address.of(v6) if v6 else None,
        )
    ]
    vtep = allocate.vtep_v4(site, device)
    if vtep is not None:
        loopbacks.append(
            Interface(
                name=names[1],
                kind="loopback",
                description="VXLAN tunnel source",
                ipv4=Address.of(vtep),
            )
        )
    return tuple(loopbacks)


def _fabric_links(
    intent: Intent,
    site: Site,
    name: str,
    device: Device,
    fabric: SiteFabric,
) -> tuple[tuple[Interface, ...], tuple[BgpNeighbor, ...]]:
    platform = PLATFORMS[device.platform]
    interfaces: list[Interface] = []
    neighbors: list[BgpNeighbor] = []
    for local, remote, _link in fabric.links_of(name):
        if pair_link(intent, site, device, remote):
            continue  # the border pair's own link: iBGP, built by border_pair
        peer = site.devices[remote.device]
        far = f"{remote.device} {remote.interface}"
        speed = fabric.ports.speed_of(name, local.interface)
        interfaces.append(routed_port(local, remote, platform, f"p2p to {far}", speed))
        remote_as = allocate.device_asn(intent, site, peer)
        sessions = [("ipv4", remote.address_v4, RM_UNDERLAY_V4_IN, RM_UNDERLAY_V4_OUT)]
        if remote.address_v6 is not None and underlay_v6(site):
            sessions.append(("ipv6", remote.address_v6, RM_UNDERLAY_V6_IN, RM_UNDERLAY_V6_OUT))
        for afi, peer_address, rm_in, rm_out in sessions:
            neighbors.append(
                BgpNeighbor(
                    address=peer_address.split("/")[0],
                    afi=afi,
                    remote_as=remote_as,
                    description=f"underlay {far}",
                    local_interface=local.interface,
                    peer_device=remote.device,
                    bfd=True,
                    route_map_in=rm_in,
                    route_map_out=rm_out,
                    max_prefix=site.underlay.max_prefix,
                    max_prefix_warning_pct=fabric.warning_pct,
                )
            )
    interfaces.sort(key=lambda i: natural_key(i.name))
    neighbors.sort(key=lambda n: (n.afi, natural_key(n.local_interface)))
    return tuple(interfaces), tuple(neighbors)


_LOOPBACK_LISTS: tuple[tuple[str, Afi, int, int], ...] = (
    (PL_LOOPBACKS_V4, "ipv4", 4, 32),
    (PL_LOOPBACKS_V6, "ipv6", 6, 128),
)


def loopback_pools(site: Site) -> dict[int, tuple[str, ...]]:
    """The pools whose addresses the underlay's route maps pass, by IP version: the router-id
    loopbacks and VTEP sources of the site's devices (ADDR-017 holds every device to them)."""
    pools = site.pools
    v4 = (pools.loopback_v4, *([pools.vtep_v4] if pools.vtep_v4 is not None else []))
    v6 = (pools.loopback_v6,) if underlay_v6(site) and pools.loopback_v6 is not None else ()
    return {4: v4, 6: v6}


def _prefix_lists(site: Site, locators: tuple[str, ...]) -> tuple[PrefixList, ...]:
    """The underlay carries loopbacks (router ids and VTEP sources) and the fabric's SRv6
    locators, each exactly: nothing else of the SID block."""
    pools = loopback_pools(site)
    lists = [
        PrefixList(
            name=name,
            afi=afi,
            entries=[
                PrefixListEntry(seq=10 * (i + 1), action="permit", prefix=pool, le=longest)
                for i, pool in enumerate(pools[version])
            ],
        )
        for name, afi, version, longest in _LOOPBACK_LISTS
        if pools[version]
    ]
    if locators:
        entries = [
            PrefixListEntry(seq=10 * (i + 1), action="permit", prefix=prefix)
            for i, prefix in enumerate(locators)
        ]
        lists.append(PrefixList(name=PL_SRV6_LOCATORS_V6, afi="ipv6", entries=entries))
    return tuple(lists)


@cache  # the same for every device of a site: built once (the models are immutable, so shared)
def _route_maps(has_v6: bool, srv6_locators: bool) -> tuple[RouteMap, ...]:
    maps = []
    families = [("ipv4", PL_LOOPBACKS_V4, RM_UNDERLAY_V4_IN, RM_UNDERLAY_V4_OUT)]
    if has_v6:
        families.append(("ipv6", PL_LOOPBACKS_V6, RM_UNDERLAY_V6_IN, RM_UNDERLAY_V6_OUT))
    for afi, prefix_list, rm_in, rm_out in families:
        for rm_name, what in ((rm_in, "accept"), (rm_out, "advertise")):
            entries = [
                RouteMapEntry(
                    seq=10,
                    action="permit",
                    match_prefix_list=prefix_list,
                    description=f"{what} fabric loopbacks only",
                ),
            ]
            if afi == "ipv6" and srv6_locators:
                entries.append(
                    RouteMapEntry(
                        seq=20,
                        action="permit",
                        match_prefix_list=PL_SRV6_LOCATORS_V6,
                        description=f"{what} the fabric's SRv6 locators (static uN SIDs)",
                    )
                )
            maps.append(RouteMap(name=rm_name, afi=afi, entries=entries))
    return tuple(maps)
