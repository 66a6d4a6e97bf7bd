"""Emulated external parties: each transit, IX route server, IX peer and PNI of the default
VRF is an FRR speaker in its own namespace, announcing a legitimate route of its kind and the
hostile ones an edge must reject (a bogon, our own aggregate, a too-specific, a default route
nobody agreed to, half the address space as a default in disguise, a transit's path of the
site's AS-path length limit beside one a single ASN shorter, which must pass); a transit
also sends what the other sites of our ASN announce, behind our ASN, which must pass (the
Internet is the only way there); every Internet party without an import allow-list sends a
route whose path holds our ASN once more than the standard lets the session take, which BGP's
loop check must drop; one IX peer per family floods past its prefix limit. What
each announcement must meet at our edge is written here, by the design standard, not read from
the policy under test.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from meetme.generators.build.edge_policy import TRANSIT_ASNS
from meetme.generators.model import BgpNeighbor, DeviceModel, Interface
from meetme.generators.resolve.edge_sessions import (
    CLOUD_KINDS,
    PEERING,
    ExternalSession,
    admitted,
)
from meetme.twin.frr import BFD_STRETCH, template

Afi = Literal["ipv4", "ipv6"]
Label = Literal[
    "legitimate",
    "agreed default",
    "bogon",
    "own aggregate",
    "too specific",
    "default route",
    "default in disguise",
    "route leak",
    "flood",
    "long path",
    "path under the limit",
    "other site's space",
    "our ASN in the path",
]

# A route of the kind's everyday business (prefix, AS path behind the party), per family.
# A route server is transparent (RFC 7947): its ASN is not in the path it passes on.
_LEGITIMATE: dict[str, dict[Afi, tuple[str, tuple[int, ...]]]] = {
    "transit": {"ipv4": ("1.1.1.0/24", (13335,)), "ipv6": ("2606:4700::/32", (13335,))},
    "ix_rs": {"ipv4": ("8.8.8.0/24", (15169,)), "ipv6": ("2001:4860::/32", (15169,))},
    "ix_peer": {"ipv4": ("9.9.9.0/24", ()), "ipv6": ("2620:fe::/48", ())},
    "pni": {"ipv4": ("151.101.0.0/16", ()), "ipv6": ("2a04:4e40::/32", ())},
    # a cloud sends its own networks (a VPC, a VNet, a VPC network's subnet)
    "aws": {"ipv4": ("172.31.0.0/16", ()), "ipv6": ("2600:1f14::/36", ())},
    "azure": {"ipv4": ("10.200.0.0/16", ()), "ipv6": ("fd00:200::/48", ())},
    "gcp": {"ipv4": ("10.128.0.0/20", ()), "ipv6": ("fd20:128::/48", ())},
}
CLOUDS = frozenset(CLOUD_KINDS)
_BOGON: dict[Afi, str] = {"ipv4": "100.64.0.0/10", "ipv6": "fc00::/7"}  # RFC 6598, RFC 4193
_DEFAULT: dict[Afi, str] = {"ipv4": "0.0.0.0/0", "ipv6": "::/0"}
# half the address space, shorter than anything allocated: beside its other half, a default
# route no `accept_default` clause sees, which every party's import must drop
_DISGUISED: dict[Afi, str] = {"ipv4": "128.0.0.0/1", "ipv6": "8000::/1"}
FLOOD_BEYOND = 10  # routes past the limit the flooding peer sends
# A peer's leak of a transit-free network's route (Level 3 space behind AS 3356, on NLNOG's
# no_transit_leaks list): peer-lock on every peering session drops it (docs/standards.md)
_LEAKED_TRANSIT = 3356
_LEAK: dict[Afi, str] = {"ipv4": "4.0.0.0/9", "ipv6": "2001:1900::/32"}
# A transit's routes with prepended paths (EDGE-013): one of the site's limit in ASNs, which
# every edge must drop, and one a single ASN shorter, which it must accept (Cloudflare space,
# prepended with Cloudflare's ASN: public, on no bogon or transit-free list)
_LONG: dict[Afi, str] = {"ipv4": "1.0.0.0/24", "ipv6": "2400:cb00::/32"}
_UNDER: dict[Afi, str] = {"ipv4": "104.16.0.0/13", "ipv6": "2a06:98c0::/29"}
_PREPENDED = 13335
# A route whose AS path holds our ASN (GitHub's space: public, on no bogon or transit-free
# list, sent by no other announcement here): BGP's loop check drops it (RFC 4271 9.1.2)
_POISONED: dict[Afi, str] = {"ipv4": "185.199.108.0/22", "ipv6": "2606:50c0::/32"}


@dataclass(frozen=True)
class Announcement:
    prefix: str
    afi: Afi
    path: tuple[int, ...]  # prepended behind the party's own ASN (none: it originates)
    label: Label

    @property
    def must_accept(self) -> bool:
        return self.label in (
            "legitimate",
            "agreed default",
            "path under the limit",
            "other site's space",
        )


@dataclass(frozen=True)
class PartySession:
    device: str  # our router
    our_address: str
    their_address: str
    afi: Afi
    our_asn: int
    ttl_security: bool
    export_prefixes: tuple[str, ...]  # exactly what we must send it, in this family
    vrf: str | None = None  # our end's tenant VRF (a cloud attachment)
    # our end's BFD timers (transmit ms, receive ms, multiplier): the party runs the same
    bfd: tuple[int, int, int] | None = None


@dataclass
class PartyPlan:
    name: str
    kind: str
    asn: int
    router_id: str
    interfaces: dict[str, list[str]]  # ifname -> addresses with length
    sessions: list[PartySession] = field(default_factory=list)
    announcements: list[Announcement] = field(default_factory=list)
    flood_afi: Afi | None = None
    flood_count: int = 0
    # a cloud answers pings on the first address of its own network in each family its
    # sessions carry (the tenant hosts' probe)
    loopbacks: list[str] = field(default_factory=list)

    @property
    def route_server(self) -> bool:
        return self.kind == "ix_rs"

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> PartyPlan:
        plan = cls(raw["name"], raw["kind"], raw["asn"], raw["router_id"], raw["interfaces"])
        plan.sessions = [
            PartySession(
                **{
                    **s,
                    "export_prefixes": tuple(s["export_prefixes"]),
                    "bfd": tuple(s["bfd"]) if s["bfd"] else None,
                }
            )
            for s in raw["sessions"]
        ]
        plan.announcements = [
            Announcement(a["prefix"], a["afi"], tuple(a["path"]), a["label"])
            for a in raw["announcements"]
        ]
        plan.flood_afi = raw["flood_afi"]
        plan.flood_count = raw["flood_count"]
        plan.loopbacks = raw["loopbacks"]
        return plan

    def afis(self) -> list[Afi]:
        return [afi for afi in ("ipv4", "ipv6") if any(s.afi == afi for s in self.sessions)]


def _afi(prefix: str) -> Afi:
    return "ipv4" if ipaddress.ip_network(prefix).version == 4 else "ipv6"


def _too_specific(prefix: str) -> str:
    net = ipaddress.ip_network(prefix)
    longer = 25 if net.version == 4 else 49
    return str(next(net.subnets(new_prefix=max(longer, net.prefixlen + 1))))


def flood_prefixes(count: int, afi: Afi = "ipv4") -> list[str]:
    """`count` distinct public prefixes that pass every edge filter: IPv4 /24s from
    20.0.0.0/14 onwards, IPv6 /32s from 2a00::/32 onwards (RIPE NCC space, within 2a00::/16
    for up to 65,536 of them; no other party announces there)."""
    if afi == "ipv6":
        return [f"2a00:{i:x}::/32" for i in range(count)]
    return [f"20.{i // 256}.{i % 256}.0/24" for i in range(count)]


def plan_party(
    name: str,
    found: list[tuple[ExternalSession, BgpNeighbor, Interface]],
    devices: dict[str, DeviceModel],
    ifaces: dict[str, str],
    *,
    flood: Collection[Afi] = (),
    bfd: bool = False,
) -> PartyPlan:
    """The speaker of one party: its addresses on each segment, its sessions toward our
    routers, and what it announces. `flood`: the families no party floods yet; an IX peer
    with limited sessions of one of them floods it (the first, IPv4 before IPv6), so each
    family's limit is proven by its own peer and that peer's other family stays up."""
    first = found[0][0]
    kind = first.kind
    interfaces: dict[str, list[str]] = {ifname: [] for ifname in ifaces.values()}
    sessions: list[PartySession] = []
    for session, neighbor, port in found:
        ifname = ifaces[segment_key(name, port)]
        ours = port.ipv4 if neighbor.afi == "ipv4" else port.ipv6
        assert ours is not None
        theirs = f"{neighbor.address}/{ours.prefixlen}"
        if theirs not in interfaces[ifname]:
            interfaces[ifname].append(theirs)
        sessions.append(
            PartySession(
                session.device,
                ours.ip,
                neighbor.address,
                neighbor.afi,
                devices[session.device].bgp.asn,
                neighbor.ttl_security,
                tuple(p for p in session.export_prefixes if _afi(p) == neighbor.afi),
                neighbor.vrf,
                _bfd(devices[session.device], neighbor) if bfd else None,
            )
        )
    v4 = [a.split("/")[0] for addrs in interfaces.values() for a in addrs if ":" not in a]
    party = PartyPlan(name, kind, first.remote_as, v4[0] if v4 else "10.255.255.1", interfaces)
    party.sessions = sessions
    for afi in party.afis():
        party.announcements += _announcements(kind, afi, found, devices[first.device].bgp.asn)
    if kind in CLOUDS:
        for afi in party.afis():
            legit = next((a for a in party.announcements if a.must_accept and a.afi == afi), None)
            if legit is not None:
                party.loopbacks.append(str(next(ipaddress.ip_network(legit.prefix).hosts())))
    for afi in ("ipv4", "ipv6"):
        limits = [s.max_prefix for s, _, _ in found if s.afi == afi and s.max_prefix]
        if afi in flood and kind == "ix_peer" and limits:
            party.flood_afi = afi
            party.flood_count = min(limits) + FLOOD_BEYOND
            break
    return party


def _bfd(device: DeviceModel, neighbor: BgpNeighbor) -> tuple[int, int, int] | None:
    timers = device.bgp.bfd_of(neighbor)
    return (timers.interval, timers.min_rx, timers.multiplier) if timers else None


def segment_key(party: str, port: Interface) -> str:
    """The segment of a party's circuit: its group (`ix-syd` of `ix-syd/rs1`) and our port's
    subnet, so both borders' IX ports share one LAN and two clouds' links never merge."""
    subnet = ipaddress.ip_interface(_cidr(port)).network
    return f"{party.split('/')[0]}:{subnet}"


def _cidr(port: Interface) -> str:
    address = port.ipv4 or port.ipv6
    assert address is not None
    return address.cidr


def _announcements(
    kind: str, afi: Afi, found: list[tuple[ExternalSession, BgpNeighbor, Interface]], asn: int
) -> list[Announcement]:
    """What the party sends in one family (`asn`: ours, behind which the other sites' space
    arrives)."""
    session = next(s for s, _, _ in found if s.afi == afi)
    allowed = [p for p in session.import_prefixes if _afi(p) == afi]
    legit, path = (allowed[0], ()) if allowed else _LEGITIMATE[kind][afi]
    routes = [Announcement(legit, afi, path, "legitimate")]
    if session.internet:  # Internet hygiene: a cloud's private networks are its business
        own = [p for p in session.export_prefixes if _afi(p) == afi]
        routes += [
            Announcement(_BOGON[afi], afi, path, "bogon"),
            Announcement(_too_specific(legit), afi, path, "too specific"),
            *(Announcement(p, afi, (), "own aggregate") for p in own),
        ]
        if not allowed:  # an allow-list would drop it first: the loop check is not reached
            # our ASN once more than the session may take: once where the standard keeps the
            # loop check, twice where it relaxes it for the other sites' space (allowas-in 1)
            times = 2 if admitted(session) else 1
            routes.append(Announcement(_POISONED[afi], afi, (asn,) * times, "our ASN in the path"))
    if kind == "transit":
        # what the other sites of our ASN announce, originated there: the Internet is this
        # site's only way to it, so it passes although its path holds our ASN (allowas-in)
        routes += [Announcement(p, afi, (asn,), "other site's space") for p in admitted(session)]
        # the path the party sends: its own ASN (BGP prepends it), then `path`; the limit is the
        # intent's (peering.edge.drop_as_path_length), not read from the policy under test
        limit = session.drop_as_path_length
        routes += [
            Announcement(_LONG[afi], afi, (_PREPENDED,) * (limit - 1), "long path"),
            Announcement(_UNDER[afi], afi, (_PREPENDED,) * (limit - 2), "path under the limit"),
        ]
    if kind in PEERING and session.remote_as not in TRANSIT_ASNS:
        routes.append(Announcement(_LEAK[afi], afi, (*path, _LEAKED_TRANSIT), "route leak"))
    # a party agreed to send a default (a transit with `accept_default`) sends one, the
    # tenants' way out; anyone else's default is hostile
    if session.accept_default:
        routes.append(Announcement(_DEFAULT[afi], afi, (), "agreed default"))
    else:
        routes.append(Announcement(_DEFAULT[afi], afi, path, "default route"))
    routes.append(Announcement(_DISGUISED[afi], afi, path, "default in disguise"))
    return routes


def render_party(party: PartyPlan) -> str:
    """The party's frr.conf."""
    flood = flood_prefixes(party.flood_count, party.flood_afi) if party.flood_afi else []
    text = template("party.j2").render(party=party, flood=flood, bfd_stretch=BFD_STRETCH)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
