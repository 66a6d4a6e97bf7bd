"""The twin's layout, decided once from the device models: a namespace per device and per
emulated external party, a veth pair per fabric link, a bridge namespace per shared LAN (an
IX), and what each party announces. Pure data: `runtime` makes it real, `verify` reads it.

Only the default VRF is laid out: this kernel has no VRF devices, so a tenant VRF's
sub-interfaces and sessions (the VRF-lite handoff, the cloud attachments) are listed in
`unemulated_vrfs` and reported by `verify` instead of being half-built.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
from dataclasses import asdict, dataclass, field

from meetme.generators.model import BgpNeighbor, DeviceModel, Interface
from meetme.generators.resolve.edge_sessions import ExternalSession
from meetme.twin import parties
from meetme.twin.frr import render_frr, vrf_names
from meetme.twin.names import linux_name, namespace


@dataclass(frozen=True)
class Endpoint:
    node: str  # a device hostname or a party name
    ifname: str  # its Linux name inside the node's namespace


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
    kind: str  # "device" or "party"
    role: str  # the device's role, or the party's kind (transit, ix_rs ...)
    config: str  # frr.conf
    static: bool  # runs staticd (discard routes)


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


@dataclass
class Twin:
    site: str
    nodes: list[Node] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    party_plans: list[parties.PartyPlan] = field(default_factory=list)
    unemulated_vrfs: list[tuple[str, str]] = field(default_factory=list)  # (device, vrf)
    declared: list[Declared] = field(default_factory=list)
    router_ids: dict[str, str] = field(default_factory=dict)  # device -> loopback address
    uplinks: dict[str, int] = field(default_factory=dict)  # leaf -> its IPv4 underlay sessions

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Twin:
        raw = json.loads(text)
        twin = cls(raw["site"])
        twin.nodes = [Node(**n) for n in raw["nodes"]]
        twin.segments = [
            Segment(s["key"], tuple(Endpoint(**e) for e in s["endpoints"]), s["bridge_namespace"])
            for s in raw["segments"]
        ]
        twin.party_plans = [parties.PartyPlan.from_dict(p) for p in raw["party_plans"]]
        twin.unemulated_vrfs = [(d, v) for d, v in raw["unemulated_vrfs"]]
        twin.declared = [Declared(**d) for d in raw["declared"]]
        twin.router_ids = dict(raw["router_ids"])
        twin.uplinks = dict(raw["uplinks"])
        return twin

    def role(self, device: str) -> str:
        return self.node(device).role

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    @property
    def namespaces(self) -> list[str]:
        found = [n.namespace for n in self.nodes]
        return found + [s.bridge_namespace for s in self.segments if s.bridge_namespace]

    @property
    def digest(self) -> str:
        """Identifies the layout and every config: `verify` refuses a twin built from other
        intent."""
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


def _network(interface: Interface) -> str:
    address = interface.ipv4 or interface.ipv6
    assert address is not None  # only addressed interfaces reach here
    return str(ipaddress.ip_interface(address.cidr).network)


def plan(site: str, models: dict[str, DeviceModel], sessions: list[ExternalSession]) -> Twin:
    """The twin of one site from its device models and resolved external sessions."""
    twin = Twin(site)
    devices = {name: m for name, m in sorted(models.items()) if m.site == site}
    for name, model in devices.items():
        twin.nodes.append(
            Node(
                name,
                namespace(site, _node_name(site, name)),
                "device",
                model.role,
                render_frr(model),
                bool(model.discard_routes(None)),
            )
        )
        twin.unemulated_vrfs += [(name, vrf) for vrf in vrf_names(model)]
        twin.router_ids[name] = model.bgp.router_id
        twin.declared += _declared(model)
        if model.role == "leaf":
            twin.uplinks[name] = len([n for n in model.bgp.neighbors_v4 if n.kind == "underlay"])
    _fabric_links(twin, devices)
    _external_segments(twin, devices, sessions)
    return twin


def _fabric_links(twin: Twin, devices: dict[str, DeviceModel]) -> None:
    seen: set[tuple[tuple[str, str], tuple[str, str]]] = set()
    for name, model in devices.items():
        for port in _fabric_ports(model):
            assert port.peer is not None
            if port.peer.device not in devices:
                continue
            ends = tuple(sorted([(name, port.name), (port.peer.device, port.peer.interface)]))
            key = (ends[0], ends[1])
            if key in seen:
                continue
            seen.add(key)
            twin.segments.append(
                Segment(
                    f"{ends[0][0]}:{ends[0][1]}--{ends[1][0]}:{ends[1][1]}",
                    tuple(Endpoint(node, linux_name(ifname)) for node, ifname in ends),
                )
            )


def _external_segments(
    twin: Twin, devices: dict[str, DeviceModel], sessions: list[ExternalSession]
) -> None:
    """Each external port of the default VRF is a segment keyed by its subnet (both borders'
    IX ports share one); every party with a session on it joins it."""
    members: dict[str, list[Endpoint]] = {}
    party_ifaces: dict[str, dict[str, str]] = {}  # party -> segment key -> its ifname
    party_sessions: dict[str, list[tuple[ExternalSession, BgpNeighbor, Interface]]] = {}
    for name, model in devices.items():
        by_port = {i.name: i for i in model.interfaces}
        for n in model.bgp.default_vrf_neighbors:
            if not n.external or n.party is None:
                continue
            port = by_port.get(n.local_interface)
            if port is None or port.vrf is not None:
                continue
            key = _network(port)
            here = members.setdefault(key, [])
            own = Endpoint(name, linux_name(port.name))
            if own not in here:
                here.append(own)
            ifaces = party_ifaces.setdefault(n.party, {})
            if key not in ifaces:
                ifaces[key] = f"p{len(ifaces)}"
                here.append(Endpoint(n.party, ifaces[key]))
            session = next(
                (s for s in sessions if s.device == name and s.peer_address == n.address), None
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
    flood_done = False
    for party, found in sorted(party_sessions.items()):
        party_plan = parties.plan_party(
            party, found, devices, party_ifaces[party], flood=not flood_done
        )
        flood_done = flood_done or party_plan.flood_afi is not None
        twin.party_plans.append(party_plan)
        twin.nodes.append(
            Node(
                party,
                namespace(twin.site, "x-" + party),
                "party",
                party_plan.kind,
                parties.render_party(party_plan),
                False,
            )
        )


_FAMILY = {"ipv4": "ipv4Unicast", "ipv6": "ipv6Unicast"}


def _declared(model: DeviceModel) -> list[Declared]:
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
        )
        for n in model.bgp.neighbors
    ]
    for p in model.evpn.peers if model.evpn else ():
        found.append(
            Declared(
                model.hostname, p.address, "l2VpnEvpn", p.description, "evpn", peer=p.peer_device
            )
        )
    return found
