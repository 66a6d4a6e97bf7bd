"""The twin's layout, decided once from the device models: a namespace per device and per
emulated external party, a veth pair per fabric link, a bridge namespace per shared LAN (an
IX), and what each party announces. Pure data: `runtime` makes it real, `verify` reads it.

This kernel has no VRF devices, so a tenant VRF is a namespace of its own,
`<device namespace>.<vrf>`, run by FRR's namespace VRF backend (`zebra -n`): its
sub-interfaces (the VRF-lite handoff, the cloud attachments) are veth pairs in it and its
L3VNI a VXLAN device and a bridge in it (`runtime`).
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from dataclasses import asdict, dataclass, field, replace

from meetme.generators.model import (
    BgpNeighbor,
    DeviceModel,
    Interface,
    PrefixList,
    PrefixListEntry,
)
from meetme.generators.resolve.edge_sessions import ExternalSession
from meetme.twin import parties
from meetme.twin.frr import bfd_profiles, gateway_svis, render_frr, vrf_names
from meetme.twin.names import linux_name, namespace
from meetme.validators.policy_eval import prefix_list_permits


@dataclass(frozen=True)
class Endpoint:
    node: str  # a device hostname or a party name
    ifname: str  # its Linux name inside the node's namespace
    vrf: str | None = None  # in the node's namespace of this tenant VRF


@dataclass(frozen=True)
class Segment:
    """One layer-2 segment: two endpoints are a veth pair; more share a bridge in a namespace
    of their own (`bridge_namespace`)."""

    key: str
    endpoints: tuple[Endpoint, ...]
    bridge_namespace: str | None = None


@dataclass(frozen=True)
class Node:
    name: str
    namespace: str
    kind: str  # "device", "party" or "host" (no router: addresses and a gateway)
    role: str  # the device's role, the party's kind (transit, ix_rs ...), the host's use
    config: str  # frr.conf ("" for a host)
    static: bool  # runs staticd (discard routes)
    vrfs: tuple[str, ...] = ()  # tenant VRFs: a namespace each (vrf_namespace)
    l3vnis: tuple[tuple[str, int], ...] = ()  # (VRF, L3VNI) of a VTEP: VXLAN device + bridge
    vtep: str | None = None  # the VXLAN source address
    bfd: bool = False  # runs bfdd (a session of it has BFD)
    addresses: tuple[tuple[str, str], ...] = ()  # a host's (ifname, address/length)
    gateways: tuple[str, ...] = ()  # a host's default routes (one per family)
    # a VTEP's gateway SVI addresses, (VRF, ifname, address/length), put in the kernel before
    # zebra starts: FRR 8.4 given an SVI's own and anycast addresses of one subnet through its
    # config now and then never installs the subnet's connected route (seen: the leaf's tenant
    # networks missing from EVPN, hosts unreachable); addresses it finds at start it installs
    svi_addresses: tuple[tuple[str, str, str], ...] = ()
    isis: bool = False  # runs isisd: an SRv6 border's IS-IS (templates/frr/srv6.j2)
    # the L3VNI bridges' MAC, FRR's router MAC, where a VTEP shares its address with another
    # (an EOS MLAG pair: `vxlan virtual-router encapsulation mac-address mlag-system-id`, so
    # a packet either leaf receives for the shared VTEP is addressed to its own MAC); None:
    # the kernel's
    router_mac: str | None = None


def vrf_namespace(node_namespace: str, vrf: str) -> str:
    """The namespace that is tenant VRF `vrf` of a device (FRR knows it by the VRF's name)."""
    return f"{node_namespace}.{vrf}"


@dataclass(frozen=True)
class Declared:
    """A BGP session the device model declares, as `show bgp summary json` files it."""

    device: str
    address: str
    family: str  # ipv4Unicast, ipv6Unicast or l2VpnEvpn
    description: str
    kind: str  # underlay, handoff, transit ... or evpn
    party: str | None = None
    vrf: str | None = None
    peer: str | None = None  # the device or party at the other end
    bfd: bool = False  # BFD runs on it


@dataclass(frozen=True)
class Srv6Border:
    """What a border of the SRv6 domain promises the other sites' borders (`verify`'s srv6-vpn
    check): its locator, its VPN sessions and the VRFs it exports with its route distinguisher."""

    device: str
    locator: str  # the prefix every SID it allocates lies in
    peers: tuple[tuple[str, str], ...]  # (the far border's loopback, the far border)
    vrfs: tuple[tuple[str, str, tuple[str, ...]], ...]  # (VRF, its RD, its address families)


@dataclass(frozen=True)
class DciLink:
    """A DCI circuit between the borders of two sites' twins: a veth pair from one site's
    namespace to the other's, made once both are up (`runtime.connect`)."""

    key: str
    a: Endpoint  # node: the namespace; ifname: its Linux name there
    b: Endpoint


@dataclass
class Twin:
    site: str
    nodes: list[Node] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    party_plans: list[parties.PartyPlan] = field(default_factory=list)
    # (leaf, EVPN VRF, its address families)
    tenant_vrfs: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    # (border leaf, EVPN VRF, its address families): the exits' own tenant VRFs, which a
    # border's loss must leave whole as it leaves the leaves' (the failover check)
    exit_vrfs: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    declared: list[Declared] = field(default_factory=list)
    router_ids: dict[str, str] = field(default_factory=dict)  # device -> loopback address
    uplinks: dict[str, int] = field(default_factory=dict)  # leaf -> its IPv4 underlay sessions
    # VRF -> family -> the devices that put a default route of that family into it: a leak
    # from their Internet table (`import_from_default`) or a `default_originate` session; only
    # in the families the VRF's handoff carries (an IPv6-only VRF gets no IPv4 default)
    default_origins: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    vrf_exits: dict[str, list[str]] = field(default_factory=dict)  # VRF -> its border leaves
    # device -> (VRF, address/length) of its own links in tenant VRFs (a handoff or cloud
    # sub-interface's): their subnets a leaf's VRF loses with the device, by design (`verify`'s
    # failover); a border leaf's an address a host pings over the L3VNI (`hosts`)
    vrf_addresses: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    bfd: bool = False  # BFD runs (`up --bfd`)
    # border -> (VRF, prefix) its export leak must put into the Internet table
    public: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    srv6: list[Srv6Border] = field(default_factory=list)  # the borders carrying SRv6 VRFs
    # VRF over SRv6 -> what its other sites send north, which this site's borders hand its
    # border leaves and EVPN every leaf of the VRF (`verify`'s srv6-south)
    srv6_south: dict[str, list[str]] = field(default_factory=dict)
    # VRFs over SRv6 whose Internet leak (`import_from_default`) the twin cannot run: FRR 8.4
    # refuses `import vrf` in a VRF that imports or exports VPN routes (templates/frr/bgp.j2)
    unleaked: list[str] = field(default_factory=list)
    # SRv6 fabric member -> its locator, and the devices running the IPv6 underlay, each of
    # which must route to every such locator (`verify`'s srv6-locators)
    locators: dict[str, str] = field(default_factory=dict)
    v6_underlay: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Twin:
        raw = json.loads(text)
        twin = cls(raw["site"])
        twin.nodes = [
            Node(
                **{
                    **n,
                    "vrfs": tuple(n["vrfs"]),
                    "l3vnis": tuple((v, vni) for v, vni in n["l3vnis"]),
                    "addresses": tuple((i, a) for i, a in n["addresses"]),
                    "gateways": tuple(n["gateways"]),
                    "svi_addresses": tuple((v, i, a) for v, i, a in n["svi_addresses"]),
                }
            )
            for n in raw["nodes"]
        ]
        twin.segments = [
            Segment(s["key"], tuple(Endpoint(**e) for e in s["endpoints"]), s["bridge_namespace"])
            for s in raw["segments"]
        ]
        twin.party_plans = [parties.PartyPlan.from_dict(p) for p in raw["party_plans"]]
        twin.tenant_vrfs = [(d, v, tuple(f)) for d, v, f in raw["tenant_vrfs"]]
        # absent from a twin brought up before the exits' VRFs were recorded
        twin.exit_vrfs = [(d, v, tuple(f)) for d, v, f in raw.get("exit_vrfs", [])]
        twin.declared = [Declared(**d) for d in raw["declared"]]
        twin.router_ids = dict(raw["router_ids"])
        twin.uplinks = dict(raw["uplinks"])
        twin.default_origins = {
            vrf: {afi: list(devices) for afi, devices in by_afi.items()}
            for vrf, by_afi in raw["default_origins"].items()
        }
        twin.vrf_exits = {k: list(v) for k, v in raw["vrf_exits"].items()}
        twin.vrf_addresses = {k: [(v, a) for v, a in x] for k, x in raw["vrf_addresses"].items()}
        twin.bfd = bool(raw["bfd"])
        twin.public = {k: [(v, p) for v, p in pairs] for k, pairs in raw["public"].items()}
        twin.unleaked = list(raw["unleaked"])
        twin.locators = dict(raw["locators"])
        twin.v6_underlay = list(raw["v6_underlay"])
        south = raw.get("srv6_south", {})  # absent in a twin brought up by an older meetme
        twin.srv6_south = {vrf: list(prefixes) for vrf, prefixes in south.items()}
        twin.srv6 = [
            Srv6Border(
                b["device"],
                b["locator"],
                tuple((a, d) for a, d in b["peers"]),
                tuple((v, rd, tuple(f)) for v, rd, f in b["vrfs"]),
            )
            for b in raw["srv6"]
        ]
        return twin

    def role(self, device: str) -> str:
        return self.node(device).role

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    @property
    def namespaces(self) -> list[str]:
        """Every namespace, each device's before its VRFs', each once (a tenant network's
        host is its segment's bridge namespace too)."""
        found = [ns for n in self.nodes for ns in self.namespaces_of(n)]
        found += [s.bridge_namespace for s in self.segments if s.bridge_namespace]
        return list(dict.fromkeys(found))

    @staticmethod
    def namespaces_of(node: Node) -> list[str]:
        return [node.namespace] + [vrf_namespace(node.namespace, v) for v in node.vrfs]

    def namespace_of(self, end: Endpoint) -> str:
        ns = self.node(end.node).namespace
        return vrf_namespace(ns, end.vrf) if end.vrf else ns

    @property
    def digest(self) -> str:
        """Identifies the layout and every config: `up` rebuilds a twin whose digest differs
        and leaves one that matches alone."""
        text = json.dumps(
            [[asdict(n) for n in self.nodes], [asdict(s) for s in self.segments]], sort_keys=True
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _node_name(site: str, hostname: str) -> str:
    return hostname.removeprefix(f"{site}-")


def _fabric_ports(model: DeviceModel) -> list[Interface]:
    return [
        i for i in model.interfaces if i.kind == "routed" and i.peer is not None and i.vrf is None
    ]


def plan(
    site: str,
    models: dict[str, DeviceModel],
    sessions: list[ExternalSession],
    bfd: bool = False,
) -> Twin:
    """The twin of one site from its device models and resolved external sessions; with
    `bfd`, every session the model runs BFD on runs it (bfdd)."""
    twin = Twin(site, bfd=bfd)
    devices = {name: m for name, m in sorted(models.items()) if m.site == site}
    subnets = _vrf_subnets(devices)
    for name, model in devices.items():
        twin.nodes.append(
            Node(
                name,
                namespace(site, _node_name(site, name)),
                "device",
                model.role,
                render_frr(model, bfd),
                bool(model.static_routes) or bool(model.srv6 and model.srv6.static_sids),
                tuple(vrf_names(model)),
                _l3vnis(model),
                model.evpn.source_address if model.evpn and model.evpn.vtep else None,
                bfd and bool(bfd_profiles(model)),
                svi_addresses=_svi_addresses(model),
                isis=bool(model.srv6 and model.srv6.isis_instance),
            )
        )
        if model.role == "leaf" and model.evpn:
            twin.tenant_vrfs += [(name, v.name, v.address_families) for v in model.evpn.vrfs]
        if model.role == "border_leaf" and model.evpn:
            twin.exit_vrfs += [(name, v.name, v.address_families) for v in model.evpn.vrfs]
        if model.role == "border_leaf":
            for vrf in vrf_names(model):
                twin.vrf_exits.setdefault(vrf, []).append(name)
        origins = {(n.vrf, n.afi) for n in model.bgp.neighbors if n.default_originate and n.vrf}
        origins |= {(v.name, x.afi) for v in model.vrfs for x in v.leaks if x.import_from_default}
        for vrf, afi in sorted(origins):
            twin.default_origins.setdefault(vrf, {}).setdefault(afi, []).append(name)
        if _public(model, subnets):
            twin.public[name] = _public(model, subnets)
        twin.vrf_addresses[name] = _vrf_addresses(model)
        twin.router_ids[name] = model.bgp.router_id
        if model.srv6 is not None and model.srv6.static_sids:
            twin.locators[name] = model.srv6.prefix
        if model.bgp.runs_underlay("ipv6"):
            twin.v6_underlay.append(name)
        if model.srv6 is not None and model.srv6.peers:
            twin.srv6.append(_srv6_border(model))
            for carried in model.srv6.vrfs:
                south = twin.srv6_south.setdefault(carried.name, [])
                south += [p for p in carried.remote_prefixes if p not in south]
            twin.unleaked += [
                v.name
                for v in model.vrfs
                if model.srv6.vrf(v.name) and v.imports_from_default and v.name not in twin.unleaked
            ]
        twin.declared += _declared(model, bfd)
        if model.role == "leaf":
            # the MLAG / vPC peer's session over the peer VLAN is a backup path, not an uplink
            pair = model.mlag.peer if model.mlag else None
            twin.uplinks[name] = len(
                [
                    n
                    for n in model.bgp.neighbors_v4
                    if n.kind == "underlay" and n.peer_device != pair
                ]
            )
    _shared_router_macs(twin)
    _fabric_links(twin, devices)
    _peer_vlans(twin, devices)
    _external_segments(twin, devices, sessions)
    _services_lan(twin, devices)
    _tenant_hosts(twin, devices)
    return twin


def _shared_router_macs(twin: Twin) -> None:
    """VTEPs sharing one address share one router MAC, made of that address (02: locally
    administered, then its four bytes): a remote VTEP knows the address by one MAC."""
    vteps = [n.vtep for n in twin.nodes if n.vtep]
    twin.nodes = [
        replace(n, router_mac="02:00:" + ipaddress.IPv4Address(n.vtep).packed.hex(":"))
        if n.vtep and vteps.count(n.vtep) > 1
        else n
        for n in twin.nodes
    ]


def _srv6_border(model: DeviceModel) -> Srv6Border:
    assert model.srv6 is not None
    families = {v.name: (v.rd, v.address_families) for v in model.vrfs}
    return Srv6Border(
        model.hostname,
        model.srv6.prefix,
        tuple((p.address, p.peer_device) for p in model.srv6.peers),
        tuple((v.name, *families[v.name]) for v in model.srv6.vrfs if v.name in families),
    )


def dci_links(sites: list[str], models: dict[str, DeviceModel]) -> list[DciLink]:
    """A veth pair per DCI port pair between two of `sites` (the model's DCI ports: routed
    ports whose peer is a device of another site)."""
    found: dict[tuple[tuple[str, str], tuple[str, str]], DciLink] = {}
    for name, model in sorted(models.items()):
        if model.site not in sites:
            continue
        for port in model.interfaces:
            far = models.get(port.peer.device) if port.peer else None
            if port.kind != "routed" or far is None or far.site == model.site:
                continue
            if far.site not in sites or port.vrf is not None:
                continue
            assert port.peer is not None
            ends = sorted([(name, port.name), (far.hostname, port.peer.interface)])
            a, b = (
                Endpoint(namespace(models[h].site, _node_name(models[h].site, h)), linux_name(i))
                for h, i in ends
            )
            key = (ends[0], ends[1])
            found.setdefault(
                key, DciLink(f"{ends[0][0]}:{ends[0][1]}--{ends[1][0]}:{ends[1][1]}", a, b)
            )
    return list(found.values())


def _svi_addresses(model: DeviceModel) -> tuple[tuple[str, str, str], ...]:
    found: list[tuple[str, str, str]] = []
    for svi, v4, v6 in gateway_svis(model):
        own = [a.cidr for a in (svi.ipv4, svi.ipv6) if a is not None]
        found += [(svi.vrf or "", linux_name(svi.name), a) for a in [*own, v4, v6] if a]
    return tuple(found)


HOST_OFFSET = 10  # a network's host: its 10th address (the gateway is the 1st)


def _tenant_hosts(twin: Twin, devices: dict[str, DeviceModel]) -> None:
    """A host per routed tenant network: its namespace holds a bridge (the network's one L2
    segment) with every VTEP's gateway SVI of it as a port, and the host's own address on the
    bridge, its default routes toward the anycast gateways."""
    networks: dict[str, tuple[str, list[Endpoint], list[str]]] = {}
    for name, model in devices.items():
        if model.evpn is None or not model.evpn.vtep:
            continue
        for vlan in model.evpn.vlans:
            if vlan.svi is None:
                continue
            cidrs = [
                a.cidr
                for a in (vlan.gateway_v4 or vlan.svi.ipv4, vlan.gateway_v6 or vlan.svi.ipv6)
                if a
            ]
            if not cidrs:
                continue
            _, ends, seen = networks.setdefault(vlan.name, (vlan.vrf, [], []))
            ends.append(Endpoint(name, linux_name(vlan.svi.name), vlan.vrf))
            seen += [c for c in cidrs if c not in seen]
    for network, (vrf, ends, gateways) in sorted(networks.items()):
        host_ns = namespace(twin.site, "h-" + network)
        addresses = []
        for gateway in gateways:
            net = ipaddress.ip_interface(gateway).network
            addresses.append(("br0", f"{net[HOST_OFFSET]}/{net.prefixlen}"))
        twin.nodes.append(
            Node(
                network,
                host_ns,
                "host",
                vrf,
                "",
                False,
                addresses=tuple(addresses),
                gateways=tuple(g.split("/")[0] for g in gateways),
            )
        )
        twin.segments.append(Segment(f"network:{network}", tuple(ends), host_ns))


SERVICES = "services"  # the host holding the RPKI caches' addresses on the services LAN


def _services_lan(twin: Twin, devices: dict[str, DeviceModel]) -> None:
    """The MDF services LAN: every device port whose subnet holds an RPKI cache joins one
    bridge with a host that answers on each cache's address (no RTR server runs: the caches
    prove reachability, FLOW-005's promise, not validation)."""
    ports: list[tuple[str, Interface]] = []
    caches: set[str] = set()
    for name, model in devices.items():
        for port in model.interfaces:
            if port.kind != "routed" or port.vrf or port.peer or port.ipv4 is None:
                continue
            subnet = ipaddress.ip_interface(port.ipv4.cidr).network
            inside = {
                c.address
                for c in model.bgp.rpki_caches
                if ipaddress.ip_address(c.address) in subnet
            }
            if inside:
                ports.append((name, port))
                caches |= {f"{c}/{subnet.prefixlen}" for c in inside}
    if not ports:
        return
    gateway = ports[0][1].ipv4
    assert gateway is not None
    twin.nodes.append(
        Node(
            SERVICES,
            namespace(twin.site, "h-" + SERVICES),
            "host",
            "rpki caches",
            "",
            False,
            addresses=tuple(("p0", c) for c in sorted(caches)),
            gateways=(gateway.ip,),
        )
    )
    ends = [Endpoint(name, linux_name(port.name)) for name, port in ports]
    twin.segments.append(
        Segment(
            f"{SERVICES}:{ipaddress.ip_interface(gateway.cidr).network}",
            (*ends, Endpoint(SERVICES, "p0")),
            namespace(twin.site, "lan-" + SERVICES) if len(ends) > 1 else None,
        )
    )


def _vrf_subnets(devices: dict[str, DeviceModel]) -> dict[str, list[str]]:
    """Tenant VRF -> the subnets of its gateway SVIs on the site's VTEPs: what the border
    leaves hand north, each a route of its own."""
    found: dict[str, list[str]] = {}
    for model in devices.values():
        for vrf, _, address in _svi_addresses(model):
            subnet = str(ipaddress.ip_interface(address).network)
            if subnet not in found.setdefault(vrf, []):
                found[vrf].append(subnet)
    return found


def _public(model: DeviceModel, subnets: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(VRF, prefix) each export leak's policy permits by its prefix-lists (a VRF's public
    prefixes, bound for the Internet table). An entry with a range (`2001:db8:4000:50::/60
    le 64`, a public prefix covering its subnets) leaks the VRF's subnets it admits, each a
    route of its own (nothing originates the covering prefix): those are what the Internet
    table must hold; one admitting none is expected as written, so that it fails."""
    maps = {m.name: m for m in model.route_maps}
    lists = {pl.name: pl for pl in model.prefix_lists}
    found = []
    for vrf in model.vrfs:
        for leak in vrf.leaks:
            route_map = maps.get(leak.export_to_default or "")
            for entry in route_map.entries if route_map else ():
                pl = lists.get(entry.match_prefix_list or "")
                if entry.action == "permit" and pl is not None:
                    for e in pl.entries:
                        if e.action == "permit":
                            admitted = _admitted(e, subnets.get(vrf.name, []))
                            found += [(vrf.name, p) for p in admitted or [e.prefix]]
    return list(dict.fromkeys(found))  # EOS: one dual-family map serves both AFIs' leaks


def _admitted(entry: PrefixListEntry, subnets: list[str]) -> list[str]:
    """The subnets a prefix-list entry with a length range admits (as the policy evaluator
    matches it); an exact entry, itself."""
    if entry.ge is None and entry.le is None:
        return [entry.prefix]
    afi = "ipv6" if ":" in entry.prefix else "ipv4"
    alone = PrefixList(name="admitted", afi=afi, entries=(entry,))
    return [subnet for subnet in subnets if prefix_list_permits(alone, subnet)]


def _vrf_addresses(model: DeviceModel) -> list[tuple[str, str]]:
    return [
        (i.vrf, a.cidr)
        for i in model.interfaces
        if i.vrf and i.kind in ("routed", "subinterface")
        for a in (i.ipv4, i.ipv6)
        if a is not None
    ]


def _l3vnis(model: DeviceModel) -> tuple[tuple[str, int], ...]:
    if model.evpn is None or not model.evpn.vtep:
        return ()
    return tuple((v.name, v.vni) for v in model.evpn.vrfs)


def _fabric_links(twin: Twin, devices: dict[str, DeviceModel]) -> None:
    """A veth pair per fabric link, and per VRF-lite sub-interface pair riding one (each
    sub-interface its own pair: no 802.1Q sub-interfaces on this kernel)."""
    seen: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    for name, model in devices.items():
        by_name = {i.name: i for i in model.interfaces}
        for port in _fabric_ports(model) + _handoff_ports(model):
            parent = by_name[port.parent] if port.parent else port
            assert parent.peer is not None
            other = devices.get(parent.peer.device)
            if other is None:
                continue
            far_name = parent.peer.interface + (f".{port.vlan}" if port.parent else "")
            far = next((i for i in other.interfaces if i.name == far_name), None)
            if far is None or far.vrf != port.vrf:
                continue
            ends = tuple(sorted([(name, port.name), (other.hostname, far.name)]))
            key = (ends[0], ends[1])
            if key in seen:
                continue
            seen.add(key)
            twin.segments.append(
                Segment(
                    f"{ends[0][0]}:{ends[0][1]}--{ends[1][0]}:{ends[1][1]}",
                    tuple(Endpoint(node, linux_name(i), port.vrf) for node, i in ends),
                )
            )


def _peer_vlans(twin: Twin, devices: dict[str, DeviceModel]) -> None:
    """A veth pair per MLAG / vPC pair's routed peer VLAN (EOS Vlan4094, NX-OS Vlan3967), and
    per tenant VRF an EOS pair peers in (Mlag.vrf_peerings): on the devices an SVI over the
    peer link, here the pair's own link (no VLANs on this kernel)."""
    for name, model in devices.items():
        mlag = model.mlag
        if mlag is None or mlag.peer_vlan is None or mlag.peer not in devices or mlag.peer < name:
            continue
        ifname = linux_name(f"Vlan{mlag.peer_vlan}")
        twin.segments.append(
            Segment(
                f"{name}:Vlan{mlag.peer_vlan}--{mlag.peer}:Vlan{mlag.peer_vlan}",
                (Endpoint(name, ifname, None), Endpoint(mlag.peer, ifname, None)),
            )
        )
        # an EOS pair's VLAN per peered tenant VRF: its own link, in the VRF on both ends
        theirs = devices[mlag.peer].mlag
        peered = {(p.vrf, p.vlan) for p in theirs.vrf_peerings} if theirs else set()
        for p in mlag.vrf_peerings:
            if (p.vrf, p.vlan) not in peered:
                continue  # built alike on both leaves; a half is nothing to link
            ifname = linux_name(f"Vlan{p.vlan}")
            twin.segments.append(
                Segment(
                    f"{name}:Vlan{p.vlan}--{mlag.peer}:Vlan{p.vlan}",
                    (Endpoint(name, ifname, p.vrf), Endpoint(mlag.peer, ifname, p.vrf)),
                )
            )


def _handoff_ports(model: DeviceModel) -> list[Interface]:
    """Sub-interfaces in a tenant VRF whose parent is a fabric link (the VRF-lite handoff)."""
    parents = {i.name for i in _fabric_ports(model)}
    return [
        i
        for i in model.interfaces
        if i.kind == "subinterface" and i.vrf and i.parent in parents and (i.ipv4 or i.ipv6)
    ]


def _external_segments(
    twin: Twin, devices: dict[str, DeviceModel], sessions: list[ExternalSession]
) -> None:
    """Each external port (in any VRF) is a segment (`parties.segment_key`); every party with
    a session on it joins it."""
    members: dict[str, list[Endpoint]] = {}
    party_ifaces: dict[str, dict[str, str]] = {}  # party -> segment key -> its ifname
    party_sessions: dict[str, list[tuple[ExternalSession, BgpNeighbor, Interface]]] = {}
    for name, model in devices.items():
        by_port = {i.name: i for i in model.interfaces}
        for n in model.bgp.neighbors:
            if not n.external or n.party is None:
                continue
            port = by_port.get(n.local_interface)
            if port is None or port.vrf != n.vrf:
                continue
            key = parties.segment_key(n.party, port)
            here = members.setdefault(key, [])
            own = Endpoint(name, linux_name(port.name), port.vrf)
            if own not in here:
                here.append(own)
            ifaces = party_ifaces.setdefault(n.party, {})
            if key not in ifaces:
                ifaces[key] = f"p{len(ifaces)}"
                here.append(Endpoint(n.party, ifaces[key]))
            session = next(
                (
                    s
                    for s in sessions
                    if s.device == name and s.peer_address == n.address and s.vrf == n.vrf
                ),
                None,
            )
            if session is not None:
                party_sessions.setdefault(n.party, []).append((session, n, port))
    lan = 0
    for key, endpoints in sorted(members.items()):
        bridge = None
        if len(endpoints) > 2:
            bridge = namespace(twin.site, f"lan{lan}")
            lan += 1
        twin.segments.append(Segment(key, tuple(endpoints), bridge))
    unflooded: set[parties.Afi] = {"ipv4", "ipv6"}  # each family's prefix limit, flooded once
    for party, found in sorted(party_sessions.items()):
        party_plan = parties.plan_party(
            party, found, devices, party_ifaces[party], flood=unflooded, bfd=twin.bfd
        )
        if party_plan.flood_afi:
            unflooded.discard(party_plan.flood_afi)
        twin.party_plans.append(party_plan)
        twin.nodes.append(
            Node(
                party,
                namespace(twin.site, "x-" + party),
                "party",
                party_plan.kind,
                parties.render_party(party_plan),
                False,
                bfd=any(s.bfd for s in party_plan.sessions),
            )
        )


_FAMILY = {"ipv4": "ipv4Unicast", "ipv6": "ipv6Unicast"}


def _declared(model: DeviceModel, bfd: bool) -> list[Declared]:
    found = [
        Declared(
            model.hostname,
            n.address,
            _FAMILY[n.afi],
            n.description,
            n.kind,
            n.party,
            n.vrf,
            n.peer_device,
            bfd and model.bgp.bfd_of(n) is not None,
        )
        for n in model.bgp.neighbors
    ]
    multihop = bfd and bool(model.evpn and model.evpn.multihop_bfd)
    for p in model.evpn.peers if model.evpn else ():
        found.append(
            Declared(
                model.hostname,
                p.address,
                "l2VpnEvpn",
                p.description,
                "evpn",
                peer=p.peer_device,
                bfd=p.bfd and multihop,
            )
        )
    return found
