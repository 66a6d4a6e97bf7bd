"""EVPN-VXLAN services for one device: its VLAN/VNI mappings, VRFs, anycast gateways, peers.

A leaf or border leaf is a VTEP; it carries the networks placed on its rack or named for it.
Spines carry EVPN routes between VTEPs (eBGP, next hop unchanged) and no VXLAN at all. In a
3-tier site (one with super-spines) the overlay follows the pods: a VTEP peers with the spines
of its own pod, a spine with every super-spine, and the super-spines pass routes between the
pods as the spines do inside one (route servers, next hop unchanged).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from meetme.generators.build.underlay import device_bfd
from meetme.generators.model import (
    Address,
    Afi,
    BgpNeighbor,
    Evpn,
    EvpnPeer,
    EvpnVlan,
    EvpnVrf,
    Interface,
    RouteMap,
    RouteMapEntry,
    StaticRoute,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.generators.resolve.fabric import SiteFabric
from meetme.generators.resolve.indexes import memo
from meetme.generators.resolve.placement import PlacedNetwork, svi_own_addresses, svi_owners

from meetme.intent.schema import Device, Intent, Site
from meetme.intent.schema_overlay import EvpnSettings

VTEP_ROLES = allocate.VTEP_ROLES
# EVPN route servers: where the VTEPs' eBGP EVPN sessions land, and (3-tier) the spines'
OVERLAY_ROLES = ("spine", "super_spine")
EVPN_MULTIHOP = 3  # loopback to loopback across one spine (AVD uses 3)
CONNECTED_ROUTE_MAP = "RM-EVPN-CONNECTED"  # NX-OS redistributes only through a route-map
NEXT_HOP_MAP = "RM-EVPN-NEXT-HOP-UNCHANGED"  # a route server's, where the platform needs a map


def route_target(settings: EvpnSettings, vni: int, override: str | None) -> str:
    return override or f"{settings.route_target_admin}:{vni}"


def families(afis: Iterable[str]) -> tuple[Afi, ...]:
    """Address families in print order: IPv4, then IPv6."""
    present = set(afis)
    return tuple(afi for afi in ("ipv4", "ipv6") if afi in present)


def evpn_device(
    intent: Intent,
    site: Site,
    name: str,
    device: Device,
    fabric: SiteFabric,
    neighbors: tuple[BgpNeighbor, ...],
    static_routes: Iterable[StaticRoute] = (),
) -> Evpn | None:
    """`neighbors`: the device's BGP sessions (those in a tenant VRF decide its families and
    place the VRF on the device); `static_routes`: its discard routes, those in a tenant VRF
    anchoring the aggregates the VRF originates."""
    settings = site.evpn
    if settings is None or device.role not in (*VTEP_ROLES, *OVERLAY_ROLES):
        return None
    platform = PLATFORMS[device.platform]
    router_id = fabric.router_ids[name]
    vtep = device.role in VTEP_ROLES
    vtep_address = allocate.vtep_v4(site, device) if vtep else None
    placed = fabric.placement.networks_of(name)
    unique_svi = "svi_needs_unique_address" in platform.capabilities
    vlans = [
        _vlan(
            settings,
            router_id,
            p,
            platform.svi_format,
            svi_owners(site, fabric.placement, p.tenant, p.name) if unique_svi else None,
            name,
        )
        for p in placed
    ]
    connected_map = (
        CONNECTED_ROUTE_MAP if "evpn_connected_needs_route_map" in platform.capabilities else None
    )
    vrf_names = sorted(
        {(p.tenant, p.network.vrf) for p in placed}
        | _handoff_vrfs(site, name)
        | _session_vrfs(site, neighbors)
    )
    anchors = [r for r in static_routes if r.vrf is not None and r.discard]
    vrfs = []
    for tenant, vrf_name in vrf_names:
        vrf = site.tenants[tenant].vrfs[vrf_name]
        if vrf.l3vni is None:
            continue  # EVPN-005 reports it; without an L3VNI the VRF routes locally only
        sessions = [n.afi for n in neighbors if n.vrf == vrf_name]
        gateways = [
            afi
            for v in vlans
            if v.vrf == vrf_name and v.svi is not None
            for afi, present in (
                ("ipv4", v.svi.ipv4 or v.gateway_v4),
                ("ipv6", v.svi.ipv6 or v.gateway_v6),
            )
            if present
        ]
        vrfs.append(
            EvpnVrf(
                name=vrf_name,
                vni=vrf.l3vni,
                vlan=vrf.vlan,
                rd=f"{router_id}:{vrf.l3vni}",
                route_target=route_target(settings, vrf.l3vni, vrf.route_target),
                connected_route_map=connected_map,
                address_families=families([*gateways, *sessions]) or ("ipv4",),
                session_families=families(sessions),
                maximum_paths=site.underlay.ecmp,
                multipath_relax=True,
                l3vni_mtu=_l3vni_mtu(site, vrf_name),
                networks_v4=tuple(
                    r.prefix for r in anchors if r.vrf == vrf_name and r.afi == "ipv4"
                ),
                networks_v6=tuple(
                    r.prefix for r in anchors if r.vrf == vrf_name and r.afi == "ipv6"
                ),
            )
        )
    peers = _peers(intent, site, name, device, fabric)
    return Evpn(
        vtep=vtep,
        source_interface=platform.loopback_names[1] if vtep else None,
        source_address=vtep_address.split("/")[0] if vtep_address else None,
        anycast_mac=settings.anycast_mac.lower(),
        arp_nd_suppression=True,
        vlans=vlans,
        vrfs=sorted(vrfs, key=lambda v: v.name),
        peers=peers,
        multihop_bfd=device_bfd(site),
        next_hop_map=NEXT_HOP_MAP
        if platform.next_hop_unchanged_form == "route_map"
        and any(p.next_hop_unchanged for p in peers)
        else None,
    )


def _l3vni_mtu(site: Site, vrf_name: str) -> int | None:
    """The largest MTU of the VRF's routed networks (those with a gateway) anywhere in the site:
    a packet routed into the L3VNI may come from, or go to, any of them. None without one."""
    mtus = [
        network.mtu
        for tenant in site.tenants.values()
        for network in tenant.networks.values()
        if network.vrf == vrf_name and (network.gateway_v4 or network.gateway_v6)
    ]
    return max(mtus, default=None)


def _vlan(
    settings: EvpnSettings,
    router_id: str,
    placed: PlacedNetwork,
    svi_format: str,
    owners: tuple[str, ...] | None,
    name: str,
) -> EvpnVlan:
    """`owners`: on platforms whose SVI needs an address of its own besides the anycast
    gateway, the network's leaves that need one (resolve/placement.py svi_owners): `name`, the
    k-th of them, takes the k-th address from the top of the subnet."""
    network = placed.network
    gateway_v4 = Address.of(network.gateway_v4) if network.gateway_v4 else None
    gateway_v6 = Address.of(network.gateway_v6) if network.gateway_v6 else None
    svi = None
    if gateway_v4 or gateway_v6:
        own_v4, own_v6 = gateway_v4, gateway_v6
        if owners is not None:
            own_v4 = _own_address(network.gateway_v4, owners, name)
            own_v6 = _own_address(network.gateway_v6, owners, name)
        svi = Interface(
            name=svi_format.format(vlan=network.vlan),
            kind="svi",
            description=f"{placed.tenant} {placed.name} anycast gateway",
            vrf=network.vrf,
            ipv4=own_v4,
            ipv6=own_v6,
            ip_mtu=network.mtu,
            mtu=network.mtu,
        )
    return EvpnVlan(
        id=network.vlan,
        name=f"{placed.tenant}_{placed.name}",
        vni=network.l2vni,
        vrf=network.vrf,
        rd=f"{router_id}:{network.l2vni}",
        route_target=route_target(settings, network.l2vni, network.route_target),
        svi=svi,
        gateway_v4=gateway_v4,
        gateway_v6=gateway_v6,
        router_advertisement=svi is not None
        and gateway_v6 is not None
        and network.router_advertisement,
    )


def _own_address(gateway: str | None, owners: tuple[str, ...], name: str) -> Address | None:
    """The leaf's own SVI address (docs/standards.md#evpn-023); EVPN-023 reports a subnet too
    small for them before any model is built."""
    if gateway is None:
        return None
    own = svi_own_addresses(gateway, len(owners))
    if own is None:
        raise PoolExhausted(
            f"subnet {ipaddress.ip_interface(gateway).network} has no room for the gateway and "
            f"an SVI address for each of {', '.join(owners)}; use a wider gateway subnet"
        )
    return Address.of(own[owners.index(name)])


def evpn_peer_names(site: Site, name: str) -> list[str]:
    """Every device `name` EVPN-peers with, by id. Two tiers: VTEPs and spines, each with every
    one of the other. With super-spines (RFC 7938 section 3.2, 5-stage): a VTEP with the spines
    of its own pod (a VTEP in no pod with the spines in none), or with the super-spines where
    its pod has no spine; a spine with the VTEPs of its pod and every super-spine. Each end
    derives the same session from the same rule, from one index of the site by role and pod
    (a scan of the site per device was quadratic)."""
    device = site.devices.get(name)
    if device is None:
        return []
    groups = memo(site, "evpn_peer_groups", lambda: _peer_groups(site))
    supers = bool(groups[("super_spine", "*")])
    served = not supers or device.pod in groups["pods_with_spines"]
    wanted: list[tuple[str, str | None]]
    if device.role in VTEP_ROLES:
        if not served:
            wanted = [("super_spine", "*")]
        else:
            wanted = [("spine", device.pod if supers else "*")]
    elif device.role == "spine":
        wanted = [("super_spine", "*"), ("vtep", device.pod if supers else "*")]
    elif device.role == "super_spine":
        wanted = [("spine", "*"), ("vtep", "unserved")]
    else:
        return []
    found = [peer for key in wanted for peer in groups.get(key, ())]
    found.sort(key=lambda peer: peer[0])
    return [peer_name for _, peer_name in found if peer_name != name]


def _peer_groups(site: Site) -> dict[object, Any]:
    """(role, pod or "*") -> [(id, name)] of the spines, super-spines and VTEPs (role "vtep");
    ("vtep", "unserved"): the VTEPs whose pod has no spine; "pods_with_spines"."""
    groups: dict[object, Any] = {("super_spine", "*"): [], ("spine", "*"): [], ("vtep", "*"): []}
    pods_with_spines = {d.pod for d in site.devices.values() if d.role == "spine"}
    groups["pods_with_spines"] = pods_with_spines
    for peer_name, d in site.devices.items():
        role = "vtep" if d.role in VTEP_ROLES else d.role
        if role not in ("vtep", "spine", "super_spine"):
            continue
        entry = (d.id, peer_name)
        groups[(role, "*")].append(entry)
        groups.setdefault((role, d.pod), []).append(entry)
        if role == "vtep" and d.pod not in pods_with_spines:
            groups.setdefault(("vtep", "unserved"), []).append(entry)
    return groups


def _peers(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> list[EvpnPeer]:
    """Loopback to loopback, to every device of evpn_peer_names. A route server (spine,
    super-spine) keeps the VTEP next hop on every session, toward VTEPs and route servers."""
    next_hop_unchanged = device.role in OVERLAY_ROLES
    source = PLATFORMS[device.platform].loopback_names[0]
    source_address = fabric.router_ids[name]
    settings = site.evpn
    assert settings is not None
    peers = []
    for peer_name in evpn_peer_names(site, name):
        peer = site.devices[peer_name]
        peers.append(
            EvpnPeer(
                address=fabric.router_ids[peer_name],
                remote_as=allocate.device_asn(intent, site, peer),
                description=f"evpn {peer_name}",
                peer_device=peer_name,
                update_source=source,
                update_source_address=source_address,
                ebgp_multihop=EVPN_MULTIHOP,
                max_routes=settings.max_routes,
                max_routes_warning_pct=fabric.warning_pct,
                next_hop_unchanged=next_hop_unchanged,
                # docs/standards.md#evpn-overlay-sessions: multihop BFD on every overlay
                # session; every community kind the platform can send, so graceful shutdown
                # (RFC 8326) and the large-community class tags survive the overlay
                bfd=True,
                send_communities=PLATFORMS[device.platform].send_communities,
            )
        )
    return peers


def connected_route_maps(evpn: Evpn | None) -> tuple[RouteMap, ...]:
    """The permit-all map that lets the VRF's connected subnets (its SVIs', and on a border leaf
    its handoff and cloud links') into BGP as type-5, where a platform needs one; as the
    platforms without one redistribute every connected subnet of the VRF."""
    if evpn is None or not any(v.connected_route_map == CONNECTED_ROUTE_MAP for v in evpn.vrfs):
        return ()
    return (
        RouteMap(
            name=CONNECTED_ROUTE_MAP,
            afi="ipv4",
            entries=[
                RouteMapEntry(
                    seq=10,
                    action="permit",
                    description="connected subnets of the VRF, as EVPN type-5",
                )
            ],
        ),
    )


def _handoff_vrfs(site: Site, name: str) -> set[tuple[str, str]]:
    """(tenant, VRF) of the VRFs a border leaf hands to the borders: it must carry them."""
    if site.handoff is None or name not in site.handoff.border_leaves:
        return set()
    return {
        (tenant_name, vrf_name)
        for tenant_name, tenant in site.tenants.items()
        for vrf_name in tenant.vrfs
        if vrf_name in site.handoff.vrfs
    }


def _session_vrfs(site: Site, neighbors: tuple[BgpNeighbor, ...]) -> set[tuple[str, str]]:
    """(tenant, VRF) of the tenant VRFs the device's BGP sessions sit in (a cloud attachment
    serving a tenant VRF on a border leaf): the device must carry them."""
    wanted = {n.vrf for n in neighbors if n.vrf is not None}
    return {
        (tenant_name, vrf_name)
        for tenant_name, tenant in site.tenants.items()
        for vrf_name in tenant.vrfs
        if vrf_name in wanted
    }
