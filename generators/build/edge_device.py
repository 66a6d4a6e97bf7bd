"""One device's share of the peering edge: external ports, sessions, policy, origination."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from meetme.generators.build.edge_policy import PolicySet, build_policies
from meetme.generators.model import (
    Address,
    BfdTimers,
    BgpNeighbor,
    Interface,
    RpkiCache,
    StaticRoute,
)
from meetme.generators.platforms import PLATFORMS, Platform
from meetme.generators.resolve.edge_sessions import ExternalPort, ExternalSession
from meetme.generators.resolve.fabric import SiteFabric

from meetme.intent.schema import Device, Intent, Site


@dataclass
class EdgeDevice:
    interfaces: list[Interface] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    policies: PolicySet = field(default_factory=PolicySet)
    static_routes: list[StaticRoute] = field(default_factory=list)
    rpki_caches: list[RpkiCache] = field(default_factory=list)

    def networks(self, afi: str) -> list[str]:
        """Aggregates we originate: each anchored by a discard route."""
        return [r.prefix for r in self.static_routes if r.afi == afi and r.discard]


def edge_device(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> EdgeDevice:
    ports, sessions = fabric.edge.of_device(name)
    result = EdgeDevice()
    if not ports and not sessions:
        return result
    platform = PLATFORMS[device.platform]
    result.interfaces = _interfaces(ports, platform, site.underlay.mtu)
    edge = site.peering.edge
    rpki = bool(edge and edge.rpki_caches) and "rpki" in platform.capabilities
    if rpki and edge is not None:
        result.rpki_caches = [RpkiCache(address=c.address, port=c.port) for c in edge.rpki_caches]
    site_code = edge.site_code if edge is not None else 0
    result.policies, names = build_policies(
        intent.organisation.asn, site_code, sessions, rpki, lab=site.environment == "lab"
    )
    result.neighbors = [_neighbor(s, names[s], fabric.warning_pct) for s in sessions]
    if any(s.internet for s in sessions):
        result.static_routes = [
            StaticRoute(
                prefix=p,
                afi="ipv6" if ":" in p else "ipv4",
                discard=True,
                description="anchor for the aggregate we originate",
            )
            for p in intent.organisation.aggregates
        ]
    return result


def _interfaces(ports: list[ExternalPort], platform: Platform, parent_mtu: int) -> list[Interface]:
    interfaces = []
    parents = sorted({p.parent for p in ports if p.parent is not None})
    for parent in parents:
        interfaces.append(
            Interface(
                name=parent,
                kind="routed",
                description="carrier of cloud sub-interfaces",
                ip_mtu=parent_mtu,
                mtu=platform.mtu(parent_mtu),
            )
        )
    for port in ports:
        interfaces.append(
            Interface(
                name=port.name,
                kind="subinterface" if port.vlan is not None else "routed",
                description=port.description,
                vlan=port.vlan,
                parent=port.parent,
                ipv4=Address.of(port.ipv4) if port.ipv4 else None,
                ipv6=Address.of(port.ipv6) if port.ipv6 else None,
                ip_mtu=port.ip_mtu,
                mtu=platform.mtu(port.ip_mtu, subinterface=port.vlan is not None),
                speed_gbps=port.speed_gbps,
                urpf=_urpf(port, platform),
            )
        )
    return interfaces


def _urpf(port: ExternalPort, platform: Platform) -> Literal["loose"] | None:
    """Every addressed external port drops packets whose source has no route (RFC 3704 section
    2.3 loose mode, BCP 84): a transit, IX or cloud may send any of our prefixes back to us and
    an edge is multihomed, so strict mode would drop legitimate asymmetric traffic. Platforms
    without a verified form (NVUE 5.16) print none; docs/standards.md#edge-urpf."""
    if not platform.capabilities.urpf or not (port.ipv4 or port.ipv6):
        return None
    return "loose"


def _neighbor(s: ExternalSession, route_maps: tuple[str, str], warning_pct: int) -> BgpNeighbor:
    # a session's BFD always runs its own timers (the party's, or the intent's)
    timers = (
        BfdTimers(
            profile=f"BFD-{s.bfd_interval}MS-X{s.bfd_multiplier}",
            interval=s.bfd_interval,
            min_rx=s.bfd_interval,
            multiplier=s.bfd_multiplier,
        )
        if s.bfd
        else None
    )
    return BgpNeighbor(
        address=s.peer_address,
        afi=s.afi,
        remote_as=s.remote_as,
        description=s.description,
        local_interface=s.interface,
        peer_device=s.party,
        bfd=s.bfd,
        route_map_in=route_maps[0],
        route_map_out=route_maps[1],
        max_prefix=s.max_prefix,  # None only where EDGE-001 is waived: no limit is printed
        max_prefix_warning_pct=warning_pct,
        kind=s.kind,
        party=s.party,
        circuit=s.circuit,
        password=s.password,
        ttl_security=s.gtsm,
        enforce_first_as=s.enforce_first_as,
        bfd_timers=timers,
    )
