"""VRF-lite handoff between the border leaves and the border routers.

On every link between a handing-off border leaf and a border router, each handed-off VRF gets an
802.1Q sub-interface on both ends, reusing the link's own /31 (the VRFs are separate routing
contexts), and an eBGP session in the VRF. The border leaf advertises the VRF's northbound
prefixes (their subnets, never host routes) and accepts only a default route; the border router
accepts only those prefixes and will send that default route once its side of the VRF has an
exit (leaking into the Internet table or a cloud on-ramp: not modelled yet).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from meetme.generators.build.overlay import families
from meetme.generators.model import (
    Address,
    BgpNeighbor,
    Interface,
    PlainVrf,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import SiteFabric

from meetme.intent.schema import Device, Intent, Site

NORTH_MAX_LENGTH = 24  # subnets of an exported prefix go north; host routes stay inside
# minutes before a handoff session torn down by its prefix limit is retried: a tenant that
# over-announces recovers by itself once fixed, and a flapping one is held down meanwhile
MAX_PREFIX_RESTART = 5
DEFAULT_LIST = "PL-HANDOFF-DEFAULT-V4"


@dataclass
class HandoffParts:
    interfaces: list[Interface] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    prefix_lists: list[PrefixList] = field(default_factory=list)
    route_maps: list[RouteMap] = field(default_factory=list)
    vrfs: list[PlainVrf] = field(default_factory=list)  # on the border routers


def handed_off(site: Site, name: str) -> bool:
    return site.handoff is not None and name in site.handoff.border_leaves


def handoff_of(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> HandoffParts:
    parts = HandoffParts()
    handoff = site.handoff
    if handoff is None or device.role not in ("border", "border_leaf"):
        return parts
    platform = PLATFORMS[device.platform]
    on_border = device.role == "border"
    links = []
    for local, remote, _link in fabric.links_of(name):
        peer = site.devices[remote.device]
        leaf = remote.device if on_border else name
        if {device.role, peer.role} == {"border", "border_leaf"} and handed_off(site, leaf):
            links.append((local, remote, peer))
    if not links:
        return parts
    router_id = fabric.router_ids[name]
    parts.prefix_lists.append(
        PrefixList(
            name=DEFAULT_LIST,
            afi="ipv4",
            entries=[PrefixListEntry(seq=10, action="permit", prefix="0.0.0.0/0")],
        )
    )
    for vrf_name, vrf in sorted(handoff.vrfs.items()):
        north = f"PL-HANDOFF-{vrf_name.upper()}-NORTH-V4"
        parts.prefix_lists.append(
            PrefixList(
                name=north,
                afi="ipv4",
                entries=[
                    PrefixListEntry(
                        seq=10 * (i + 1),
                        action="permit",
                        prefix=p,
                        le=NORTH_MAX_LENGTH if int(p.split("/")[1]) < NORTH_MAX_LENGTH else None,
                    )
                    for i, p in enumerate(p for p in vrf.export_north if ":" not in p)
                ],
            )
        )
        rm_in, rm_out = (f"RM-HANDOFF-{vrf_name.upper()}-IN", f"RM-HANDOFF-{vrf_name.upper()}-OUT")
        accept, send = (north, DEFAULT_LIST) if on_border else (DEFAULT_LIST, north)
        accept_list = next(pl for pl in parts.prefix_lists if pl.name == accept)
        parts.route_maps += [
            RouteMap(
                name=rm_in,
                afi="ipv4",
                entries=[
                    RouteMapEntry(
                        seq=10,
                        action="permit",
                        match_prefix_list=accept,
                        description="the tenant's northbound prefixes"
                        if on_border
                        else "the default route from the border",
                    )
                ],
            ),
            RouteMap(
                name=rm_out,
                afi="ipv4",
                entries=[
                    RouteMapEntry(
                        seq=10,
                        action="permit",
                        match_prefix_list=send,
                        description="the default route toward the tenant"
                        if on_border
                        else "the VRF's northbound prefixes",
                    )
                ],
            ),
        ]
        sessions: list[BgpNeighbor] = []
        for local, remote, peer in links:
            sub = f"{local.interface}.{vrf.vlan}"
            far = f"{remote.device} {remote.interface}.{vrf.vlan}"
            parts.interfaces.append(
                Interface(
                    name=sub,
                    kind="subinterface",
                    parent=local.interface,
                    vlan=vrf.vlan,
                    description=f"handoff {vrf_name} to {far}",
                    vrf=vrf_name,
                    ipv4=Address.of(local.address_v4),
                    ip_mtu=local.ip_mtu,
                    mtu=platform.mtu(local.ip_mtu, subinterface=True),
                )
            )
            sessions.append(
                BgpNeighbor(
                    address=remote.address_v4.split("/")[0],
                    afi="ipv4",
                    remote_as=allocate.device_asn(intent, site, peer),
                    description=f"handoff {vrf_name} {remote.device} {remote.interface}",
                    local_interface=sub,
                    peer_device=remote.device,
                    bfd=True,
                    route_map_in=rm_in,
                    route_map_out=rm_out,
                    max_prefix=max(vrf.max_prefix, admitted(accept_list)),
                    max_prefix_warning_pct=fabric.warning_pct,
                    max_prefix_restart=MAX_PREFIX_RESTART,
                    kind="handoff",
                    vrf=vrf_name,
                    # Not yet: the border's VRF has no exit of its own (no leaking into the
                    # Internet table or an on-ramp), so a default sent south would draw traffic
                    # into a black hole. The templates print it once the VRF can forward it.
                    default_originate=False,
                )
            )
        parts.neighbors += sessions
        if on_border:
            parts.vrfs.append(
                PlainVrf(
                    name=vrf_name,
                    rd=f"{router_id}:{vrf.vlan}",
                    # IPv4 always: its sub-interfaces carry IPv4 addresses
                    address_families=families(["ipv4", *(n.afi for n in sessions)]),
                    # the VRF's prefixes arrive from every border leaf of the handoff, each
                    # with its own ASN: ECMP across them needs the AS-path relax
                    maximum_paths=site.underlay.ecmp,
                    multipath_relax=True,
                )
            )
    return parts


def admitted(prefix_list: PrefixList) -> int:
    """How many distinct prefixes the list's permit entries admit (each prefix and, with `le`,
    every more specific one up to that length): the least prefix limit that never resets a
    session announcing only what its import policy accepts."""
    total = 0
    for entry in prefix_list.entries:
        if entry.action != "permit":
            continue
        length = int(entry.prefix.split("/")[1])
        first = entry.ge if entry.ge is not None else length
        width = 128 if ":" in entry.prefix else 32  # `ge` alone reaches the host length
        last = entry.le if entry.le is not None else (width if entry.ge is not None else length)
        total += sum(2 ** (n - length) for n in range(first, last + 1))
    return total
