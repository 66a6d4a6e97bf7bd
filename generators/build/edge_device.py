"""One device's share of the peering edge: external ports, sessions, policy, origination."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Literal

from meetme.generators.build.edge_policy import (
    BOGONS_V4,
    BOGONS_V6,
    PolicySet,
    build_policies,
)
from meetme.generators.model import (
    Acl,
    AclRule,
    Address,
    AsPathLengthDrop,
    BfdTimers,
    BgpNeighbor,
    Interface,
    RpkiCache,
    StaticRoute,
)
from meetme.generators.platforms import PLATFORMS, Platform
from meetme.generators.resolve.edge_sessions import (
    ExternalPort,
    ExternalSession,
    public_aggregates,
)
from meetme.generators.resolve.fabric import SiteFabric
from meetme.generators.resolve.ports import PortPlan

from meetme.core import addresses
from meetme.core.numbering import documentation_prefix
from meetme.intent.schema import Device, Intent, Site


@dataclass
class EdgeDevice:
    interfaces: list[Interface] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    policies: PolicySet = field(default_factory=PolicySet)
    static_routes: list[StaticRoute] = field(default_factory=list)
    rpki_caches: list[RpkiCache] = field(default_factory=list)
    acls: list[Acl] = field(default_factory=list)
    drop_as_path_length: list[AsPathLengthDrop] = field(default_factory=list)

    def networks(self, afi: str, vrf: str | None = None) -> list[str]:
        """Aggregates we originate in a VRF (None: the default VRF), each anchored by a
        discard route."""
        return [r.prefix for r in self.static_routes if r.afi == afi and r.discard and r.vrf == vrf]


def edge_device(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> EdgeDevice:
    ports, sessions = fabric.edge.of_device(name)
    result = EdgeDevice()
    if not ports and not sessions:
        return result
    platform = PLATFORMS[device.platform]
    result.interfaces = _interfaces(ports, platform, site.underlay.mtu, fabric.ports, name)
    if not platform.capabilities.urpf:
        result.interfaces, result.acls = _ingress_acls(
            result.interfaces,
            sessions,
            list(public_aggregates(intent, site)),
            site.environment == "lab",
        )
    edge = site.peering.edge
    # origin validation guards the Internet table; a cloud sends private space, which no ROA
    # covers, so a device with only cloud sessions needs no cache (and no route to one)
    internet = any(s.internet for s in sessions)
    rpki = internet and bool(edge and edge.rpki_caches) and "rpki" in platform.capabilities
    if rpki and edge is not None:
        result.rpki_caches = [RpkiCache(address=c.address, port=c.port) for c in edge.rpki_caches]
    site_code = edge.site_code if edge is not None else 0
    # long AS paths (EDGE-013): a route-map clause where the platform matches the length, else
    # BGP's own limit in each VRF holding an external session (NX-OS `maxas-limit`)
    in_route_map = platform.drop_as_path_length == "route_map"
    result.policies, names = build_policies(
        intent.organisation.asn,
        site_code,
        sessions,
        rpki,
        lab=site.environment == "lab",
        length_in_route_map=in_route_map,
    )
    if not in_route_map:
        lengths: dict[str | None, int] = {}
        for s in sessions:
            lengths[s.vrf] = min(lengths.get(s.vrf, s.drop_as_path_length), s.drop_as_path_length)
        result.drop_as_path_length = [
            AsPathLengthDrop(vrf=vrf, length=length)
            for vrf, length in sorted(lengths.items(), key=lambda item: item[0] or "")
        ]
    result.neighbors = [_neighbor(s, names[s], fabric.warning_pct) for s in sessions]
    if internet:
        result.static_routes = [
            StaticRoute(
                prefix=p,
                afi="ipv6" if ":" in p else "ipv4",
                discard=True,
                description="anchor for the aggregate we originate",
            )
            for p in public_aggregates(intent, site)
        ]
    result.static_routes += _cloud_aggregates(site, sessions)
    return result


def vrf_subnets(site: Site) -> dict[str, list[ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    """Each VRF's subnets across the site: its networks' gateway subnets, by VRF name."""
    subnets: dict[str, list[ipaddress.IPv4Network | ipaddress.IPv6Network]] = {}
    for tenant in site.tenants.values():
        for network in tenant.networks.values():
            for gateway in (network.gateway_v4, network.gateway_v6):
                if gateway:
                    subnets.setdefault(network.vrf, []).append(
                        ipaddress.ip_interface(gateway).network
                    )
    return subnets


def _cloud_aggregates(site: Site, sessions: list[ExternalSession]) -> list[StaticRoute]:
    """The prefixes a private cloud attachment advertises, originated in the tenant VRF it
    serves: each one that holds at least one of that VRF's subnets (anywhere in the site) gets
    a discard route in the VRF, which `network` then originates. A prefix covering none of
    the VRF's subnets is not originated (it would announce space the VRF cannot reach):
    FLOW-001 reports it at its `advertise:` line."""
    subnets = vrf_subnets(site)
    routes: dict[tuple[str, str], StaticRoute] = {}
    for s in sessions:
        if s.vrf is None:
            continue
        for prefix in s.export_prefixes:
            aggregate = ipaddress.ip_network(prefix)
            if not any(
                net.version == aggregate.version and net.subnet_of(aggregate)  # type: ignore[arg-type]
                for net in subnets.get(s.vrf, [])
            ):
                continue
            routes.setdefault(
                (s.vrf, prefix),
                StaticRoute(
                    prefix=prefix,
                    afi="ipv6" if aggregate.version == 6 else "ipv4",
                    discard=True,
                    description=f"anchor for the aggregate {s.vrf} sends {s.kind}",
                    vrf=s.vrf,
                ),
            )
    return [routes[key] for key in sorted(routes)]


def _interfaces(
    ports: list[ExternalPort], platform: Platform, parent_mtu: int, plan: PortPlan, device: str
) -> list[Interface]:
    """The external ports; the physical one (a routed port, or a sub-interfaces' carrier) is
    told its circuit's speed where the plan says so (resolve/ports.py)."""
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
                port_speed=plan.speed_of(device, parent),
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
                port_speed=plan.speed_of(device, port.name) if port.vlan is None else None,
                urpf=_urpf(port, platform),
                vrf=port.vrf,
                exchange_lan=port.exchange_lan,
            )
        )
    return interfaces


def _ingress_acls(
    interfaces: list[Interface],
    sessions: list[ExternalSession],
    aggregates: list[str],
    lab: bool,
) -> tuple[list[Interface], list[Acl]]:
    """Where the platform has no uRPF (NVUE 5.16), an ingress ACL on each addressed external
    port does the part of BCP 84 that matters at an edge (RFC 3704 section 2.1): a packet from
    outside may not claim our own space as its source — our aggregates and every prefix we
    announce from this device — and on an Internet port not a bogon either. A cloud's
    private space is legitimate, so cloud ports drop only our own."""
    exported = {*aggregates, *(p for s in sessions for p in s.export_prefixes)}
    # what other sites announce inside our aggregates is reached through the Internet: its
    # hosts' packets come in here (edge_policy._own_space)
    holes = [addresses.network(h) for h in sorted({h for s in sessions for h in s.other_sites})]
    own = sorted(
        {str(part) for p in exported for part in addresses.excluding(addresses.network(p), holes)},
        key=_prefix_key,
    )
    internet_ports = {s.interface for s in sessions if s.internet}
    acls: dict[str, Acl] = {}
    result = []
    for intf in interfaces:
        names: list[str] = []
        for afi, address in (("ipv4", intf.ipv4), ("ipv6", intf.ipv6)):
            if address is None:
                continue
            internet = intf.name in internet_ports
            kind, suffix = "INTERNET" if internet else "CLOUD", "V4" if afi == "ipv4" else "V6"
            name = f"ACL-EDGE-{kind}-IN-{suffix}"
            if name not in acls:
                acls[name] = _acl(name, afi, own, internet, lab)
            names.append(name)
        result.append(intf.model_copy(update={"acls_in": tuple(names)}) if names else intf)
    return result, [acls[key] for key in sorted(acls)]


def _acl(name: str, afi: str, own: list[str], internet: bool, lab: bool) -> Acl:
    v6 = afi == "ipv6"
    denied = [(p, "our own address space") for p in own if (":" in p) == v6]
    if internet:
        bogons = BOGONS_V6 if v6 else BOGONS_V4
        denied += [
            (p, "a bogon source")
            for p in bogons
            if not (lab and documentation_prefix(ipaddress.ip_network(p)))
        ]
    rules = [
        AclRule(seq=10 * (i + 1), action="deny", source=p, description=why)
        for i, (p, why) in enumerate(denied)
    ]
    rules.append(
        AclRule(seq=10 * (len(rules) + 1), action="permit", source=None, description="the rest")
    )
    return Acl(name=name, afi=afi, rules=rules)


def _prefix_key(prefix: str) -> tuple[int, int, int]:
    net = ipaddress.ip_network(prefix)
    return net.version, int(net.network_address), net.prefixlen


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
        allowas_in=s.allowas_in,
        bfd_timers=timers,
        vrf=s.vrf,
    )
