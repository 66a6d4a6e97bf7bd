"""The vendor-neutral device model: everything one box must be, fully resolved.

Templates read only this model and never compute; every value a template prints is decided here
or in the generators that fill it. `meetme show DEVICE` prints it as YAML.

Deeply immutable: every model is frozen and every collection a tuple, so a check or a template
cannot change what the next one reads.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, model_validator

from meetme.core import addresses

Afi = Literal["ipv4", "ipv6"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Address(Model):
    """An interface address in every spelling a platform may want."""

    ip: str  # 10.1.0.1
    prefixlen: int  # 31
    cidr: str  # 10.1.0.1/31

    @classmethod
    def of(cls, cidr: str) -> Address:
        # Most addresses are IPv4 already written as ipaddress writes them (the allocators'
        # output): those are taken as they are, the rest parsed. A third of building a model.
        canonical = _CANONICAL_V4.fullmatch(cidr)
        if canonical is not None:
            return cls(ip=canonical[1], prefixlen=int(canonical[2]), cidr=cidr)
        iface = addresses.interface(cidr)
        ip, prefixlen = str(iface.ip), iface.network.prefixlen
        # str(iface) would write the address out a second time (a sixth of building a model
        # with IPv6 links); the zone of a scoped address (fe80::1%eth0) is all it would add
        zone = getattr(iface, "scope_id", None)
        return cls(ip=ip, prefixlen=prefixlen, cidr=str(iface) if zone else f"{ip}/{prefixlen}")


_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"  # 0..255, no leading zero
_CANONICAL_V4 = re.compile(rf"({_OCTET}\.{_OCTET}\.{_OCTET}\.{_OCTET})/(3[0-2]|[12]?[0-9])")


# The longest BGP neighbor description every platform takes: NX-OS "up to 80 characters
# including spaces" (Cisco Nexus 5500 / NX-OS 6.x unicast routing command references,
# `neighbor`, description); NVUE `description` 1 to 80 (nvueschema v5_16, router bgp neighbor
# "neighbor description"). Descriptions are built from names of up to 63 characters each.
SESSION_DESCRIPTION_MAX = 80
_ELIDED = "..."


def fit_session_description(text: str) -> str:
    """`text` when it fits; else its start (the session's kind and party) and its end (the
    circuit or far device), the middle elided, in SESSION_DESCRIPTION_MAX characters."""
    if len(text) <= SESSION_DESCRIPTION_MAX:
        return text
    room = SESSION_DESCRIPTION_MAX - len(_ELIDED)
    head, tail = text[: room - room // 2].rstrip(), text[len(text) - room // 2 :].lstrip()
    return f"{head}{_ELIDED}{tail}"


# a BGP session's description, as every platform takes it
SessionDescription = Annotated[str, AfterValidator(fit_session_description)]


class PeerPort(Model):
    device: str
    interface: str


class PortSpeed(Model):
    """The speed a physical port must be told to run, where it is not the cage's native one
    (a 400G link in an 800G cage, a breakout sub-port): the rate and the electrical lanes it
    runs over (EOS `speed 400g-4`). Decided in generators/resolve/ports.py."""

    gbps: int
    lanes: int

    @property
    def mbps(self) -> int:
        """NX-OS `speed` takes Mb/s."""
        return self.gbps * 1000


class SubPortSpeed(Model):
    """An attachment's port (a host bond's member, a host port, an MLAG peer-link member) on a
    sub-port of a breakout the links make: the speed it must be told, as a link's sub-port is
    (those carry theirs on their Interface). Decided in generators/resolve/ports.py."""

    port: str
    speed: PortSpeed


class Breakout(Model):
    """One front-panel cage split into several interfaces (a 4x100G breakout), as each platform
    needs it said: the parent's name and numbers, the mode, and every sub-port the mode makes.
    Decided in generators/resolve/ports.py from the links' sub-ports and `breakout:`."""

    parent: str  # the cage as the platform names it whole: swp1, Ethernet1/1, Ethernet1, 0/0/0/16
    module: int  # the slot / module of the cage (fixed systems: NX-OS 1, IOS-XR 0/0/0 -> 0)
    port: int  # the cage's number
    count: int  # interfaces the cage is split into
    speed_gbps: int  # each one's speed
    lanes: int  # electrical lanes each one runs over
    sub_ports: tuple[str, ...]  # every interface the mode makes, in order
    # sub-ports no link uses, where the platform must still be told their speed (EOS: a lane
    # left at the cage's default speed would claim the lanes of the others)
    idle_sub_ports: tuple[str, ...] = ()

    @property
    def mode(self) -> str:
        """4x100G: the intent's spelling, for descriptions."""
        return f"{self.count}x{self.speed_gbps}G"


class Interface(Model):
    name: str
    kind: Literal["loopback", "routed", "subinterface", "management", "svi"]
    description: str
    vlan: int | None = None  # 802.1Q tag of a sub-interface (name is parent.vlan)
    parent: str | None = None  # the physical port of a sub-interface
    ipv4: Address | None = None
    ipv6: Address | None = None
    # a second IPv4 address (NX-OS vPC: the pair's anycast VTEP on the VTEP loopback)
    ipv4_secondary: Address | None = None
    vrf: str | None = None
    ip_mtu: int | None = None  # the IP MTU both ends must agree on (PHY-010)
    mtu: int | None = None  # the number the platform's own `mtu` command takes
    speed_gbps: int | None = None
    # the speed the port must be told, when it differs from its cage's native speed or it is
    # a breakout sub-port whose platform wants one; None: the cage's own (resolve/ports.py)
    port_speed: PortSpeed | None = None
    peer: PeerPort | None = None
    # unicast RPF on an external port (RFC 3704, BCP 84): "loose" = the source must have a
    # route (`reachable-via any`), for multihomed edges; None: not checked
    urpf: Literal["loose", "strict"] | None = None
    # ingress ACLs (by name, one per family) where the platform has no uRPF: they drop packets
    # claiming a source no outside party may use (RFC 3704 section 2.1, ingress ACL)
    acls_in: tuple[str, ...] = ()
    # on an IX peering LAN: nothing but IPv4, ARP and IPv6 may go onto it, no router
    # advertisement and no discovery protocol (AMS-IX "Allowed traffic" 2.2, 2.5, 2.6), so the
    # port is told to send none its platform sends unasked (docs/standards.md#edge-ix-port)
    exchange_lan: bool = False


class AclRule(Model):
    seq: int
    action: Literal["permit", "deny"]
    source: str | None  # a prefix; None: any source
    description: str
    destination: str | None = None  # a prefix; None: any destination


class Acl(Model):
    """An IP access list (first match wins; the last rule permits the rest)."""

    name: str
    afi: Afi
    rules: tuple[AclRule, ...]


class PrefixListEntry(Model):
    seq: int
    action: Literal["permit", "deny"]
    prefix: str
    ge: int | None = None
    le: int | None = None


class PrefixList(Model):
    name: str
    afi: Literal["ipv4", "ipv6"]
    entries: tuple[PrefixListEntry, ...]


class AsPathEntry(Model):
    """Matches a path that contains any ASN in [first, last]."""

    seq: int
    action: Literal["permit", "deny"]
    first: int
    last: int
    description: str


class AsPathList(Model):
    name: str
    entries: tuple[AsPathEntry, ...]


class CommunityList(Model):
    """Matches a route carrying any of these communities (standard `A:B` or large `A:B:C`)."""

    name: str
    kind: Literal["standard", "large"]
    communities: tuple[str, ...]


Branch = Literal["if", "elseif", "else", "always"]


class RouteMapEntry(Model):
    """One clause; every match given must hold (AND). First matching clause wins; a route no
    clause matches is denied."""

    seq: int
    action: Literal["permit", "deny"]
    description: str | None = None
    match_prefix_list: str | None = None
    match_as_path: str | None = None
    match_community: str | None = None  # a standard community list
    match_large_community: str | None = None
    match_rpki_invalid: bool = False
    # a route whose AS path holds this many ASNs or more (EDGE-013): IOS-XR `as-path length
    # ge N`, EOS `match as-path length >= N`, NVUE and FRR an AS-path regex of N ASNs; a
    # platform without the match drops such routes in BGP instead (Bgp.drop_as_path_length)
    match_as_path_length_ge: int | None = None
    # the family of `match_prefix_list` in a map serving both families (one policy per VRF,
    # EOS `leak routes ... subscribe-policy`); None: the map's own `afi`
    match_afi: Afi | None = None
    set_local_preference: int | None = None
    set_large_communities: tuple[str, ...] = ()  # added, not replaced

    @property
    def matches_everything(self) -> bool:
        return not (
            self.match_prefix_list
            or self.match_as_path
            or self.match_as_path_length_ge is not None
            or self.match_community
            or self.match_large_community
            or self.match_rpki_invalid
        )

    @model_validator(mode="after")
    def _one_as_path_match(self) -> RouteMapEntry:
        """NVUE and FRR print the length match as an AS-path list of their own, and a clause
        takes one `match as-path`: a clause matches an AS-path list or a length, not both."""
        if self.match_as_path is not None and self.match_as_path_length_ge is not None:
            raise ValueError(f"clause {self.seq} matches an AS-path list and a path length")
        return self


class RouteMap(Model):
    """A policy; IOS-XR renders it as an RPL route-policy with the same meaning."""

    name: str
    afi: Afi  # the family of its prefix-list matches, unless an entry says another
    entries: tuple[RouteMapEntry, ...]

    def match_family(self, entry: RouteMapEntry) -> Afi:
        """The family of the entry's prefix-list match (`match ip` or `match ipv6`)."""
        return entry.match_afi or self.afi

    @property
    def clauses(self) -> tuple[tuple[Branch, RouteMapEntry], ...]:
        """Each entry with its place in the policy read as one if/elseif/else chain: "if" opens
        a chain, "elseif" continues it, "else" is a match-everything clause that closes it,
        "always" such a clause with no chain before it. Decided here, not per template."""
        clauses: list[tuple[Branch, RouteMapEntry]] = []
        open_chain = False
        for entry in self.entries:
            if entry.matches_everything:
                clauses.append(("else" if open_chain else "always", entry))
            else:
                clauses.append(("elseif" if open_chain else "if", entry))
            open_chain = not entry.matches_everything
        return tuple(clauses)

    @property
    def fallthrough(self) -> Literal["chain", "all", "none"]:
        """What happens to a route no clause matches, as a chain must spell it: "chain" - the
        last chain is still open and denies it; "all" - there is no clause, every route is
        denied; "none" - a match-everything clause ends the policy."""
        if not self.entries:
            return "all"
        return "none" if self.entries[-1].matches_everything else "chain"


class StaticRoute(Model):
    prefix: str
    afi: Literal["ipv4", "ipv6"]
    discard: bool  # to Null0 / blackhole: anchors an aggregate we originate
    description: str
    vrf: str | None = None  # None: the default VRF; else a tenant VRF (a cloud's aggregate)


class RpkiCache(Model):
    address: str
    port: int


class AsPathLengthDrop(Model):
    """BGP's own drop of long AS paths in one VRF, before any route map (NX-OS `maxas-limit`,
    which has no route-map match for the length): every eBGP route of the VRF whose AS path
    holds `length` ASNs or more is discarded, whichever session it came from (EDGE-013)."""

    vrf: str | None  # None: the default VRF
    length: int

    @property
    def longest_accepted(self) -> int:
        """The longest path still accepted: the number NX-OS `maxas-limit` takes."""
        return self.length - 1


class BfdTimers(Model):
    profile: str  # the name platforms with BFD profiles (NVUE) give these timers
    interval: int
    min_rx: int
    multiplier: int


class BgpNeighbor(Model):
    address: str
    afi: Literal["ipv4", "ipv6"]
    remote_as: int
    description: SessionDescription
    local_interface: str
    peer_device: str
    bfd: bool
    route_map_in: str
    route_map_out: str
    max_prefix: int | None  # routes accepted before the session is reset; None: no limit
    max_prefix_warning_pct: int
    # minutes before a session the limit tore down is retried; None: it stays down until cleared
    max_prefix_restart: int | None = None
    kind: Literal[
        "underlay",
        "handoff",
        "border_ibgp",
        "mlag_vrf",
        "transit",
        "ix_rs",
        "ix_peer",
        "pni",
        "aws",
        "azure",
        "gcp",
    ] = "underlay"
    vrf: str | None = None  # None: the default VRF
    default_originate: bool = False  # send a default route (the border toward a tenant VRF)
    party: str | None = None  # the external party, e.g. transit-a
    circuit: str | None = None  # the cross-connect id the session rides on
    password: str | None = None  # a secret placeholder, never a value (meetme.core.secret_refs)
    ttl_security: bool = False  # GTSM: accept only TTL 255 (one hop)
    enforce_first_as: bool = True  # off toward IX route servers (RFC 7947)
    # routes whose AS path holds our own ASN up to this many times are accepted (0: none, BGP's
    # loop check): an Internet session's way to what the other sites of our ASN announce
    allowas_in: int = 0
    bfd_timers: BfdTimers | None = None  # per-session timers; None = the device's defaults
    # iBGP between the border pair: routes from the other border's transits keep their external
    # next hop, which this border cannot reach; it sends itself as the next hop instead
    next_hop_self: bool = False
    # the community attributes the session is told to send; (): the platform's default, no
    # line (nothing of ours to an outside party; IOS-XR and FRR send all of them over iBGP)
    send_communities: tuple[Literal["standard", "extended", "large"], ...] = ()

    @property
    def external(self) -> bool:
        return self.kind not in ("underlay", "handoff", "border_ibgp", "mlag_vrf")


class Bgp(Model):
    asn: int
    router_id: str
    maximum_paths: int
    bfd: BfdTimers
    networks_v4: tuple[str, ...] = ()
    networks_v6: tuple[str, ...] = ()
    neighbors: tuple[BgpNeighbor, ...] = ()
    rpki_caches: tuple[RpkiCache, ...] = ()  # RTR caches: origin validation
    # where the platform drops long AS paths in BGP instead of a route-map clause (NX-OS)
    drop_as_path_length: tuple[AsPathLengthDrop, ...] = ()
    # equal-length paths through different ASNs share load in the default VRF (RFC 7938 6.3):
    # an MLAG pair's anycast VTEP is originated by both leaves, each with its own ASN
    multipath_relax: bool = False

    @property
    def default_vrf_neighbors(self) -> tuple[BgpNeighbor, ...]:
        return tuple(n for n in self.neighbors if n.vrf is None)

    @property
    def neighbors_v4(self) -> tuple[BgpNeighbor, ...]:
        """IPv4 sessions of the default VRF (VRF sessions print inside their VRF)."""
        return tuple(n for n in self.default_vrf_neighbors if n.afi == "ipv4")

    @property
    def neighbors_v6(self) -> tuple[BgpNeighbor, ...]:
        """IPv6 sessions of the default VRF."""
        return tuple(n for n in self.default_vrf_neighbors if n.afi == "ipv6")

    def runs_underlay(self, afi: str) -> bool:
        """Whether the device has an underlay session of this family."""
        return any(n.kind == "underlay" and n.afi == afi for n in self.neighbors)

    @property
    def session_bfd_profiles(self) -> tuple[BfdTimers, ...]:
        """The distinct per-session BFD timer sets (a cloud's required timers), by name."""
        profiles = {n.bfd_timers for n in self.neighbors if n.bfd_timers is not None}
        return tuple(sorted(profiles, key=lambda timers: timers.profile))

    def bfd_of(self, neighbor: BgpNeighbor) -> BfdTimers | None:
        """The timers a session runs: its own, else the device's; None without BFD."""
        if not neighbor.bfd:
            return None
        return neighbor.bfd_timers or self.bfd

    def in_vrf(self, vrf: str) -> tuple[BgpNeighbor, ...]:
        """The sessions of one VRF."""
        return tuple(n for n in self.neighbors if n.vrf == vrf)

    def drop_as_path_length_in(self, vrf: str | None) -> int | None:
        """The AS-path length BGP itself drops eBGP routes at in a VRF (None: the default
        VRF); None: BGP drops none there (a route map may)."""
        return next((d.length for d in self.drop_as_path_length if d.vrf == vrf), None)


class LocalUser(Model):
    name: str
    roles: tuple[str, ...]  # the OS's role names (XR: user groups), in print order
    privilege: int | None = None  # EOS: the login's initial privilege level
    password_hash: str  # the placeholder of the hash secret, never a value


class Management(Model):
    interface: Interface
    gateway: str
    vrf: str
    users: tuple[LocalUser, ...] = ()  # sorted by name
    api: bool = False  # render the management API the push driver talks to
    # authorize each local user's commands by its role (EOS needs it said, docs/syntax.md#eos-aaa)
    role_authorization: bool = False
    ntp_servers: tuple[str, ...] = ()
    syslog_servers: tuple[str, ...] = ()
    # the prefixes management sessions may come from (where SSH cannot be bound to the VRF)
    clients: tuple[str, ...] = ()

    def clients_of(self, afi: str) -> tuple[str, ...]:
        return tuple(c for c in self.clients if (":" in c) == (afi == "ipv6"))


class EvpnVlan(Model):
    """An L2VNI: a VLAN mapped to a VNI, with its anycast gateway when the network routes."""

    id: int
    name: str
    vni: int
    vrf: str
    rd: str  # router-id:VNI, unique per VTEP (EVPN-004)
    route_target: str  # identical on every VTEP of the VNI
    # kind "svi", in the VRF. Its ipv4/ipv6 are the anycast gateway, except on platforms whose
    # virtual-router model needs a unique address per leaf as well (NVUE VRR): there ipv4/ipv6
    # are the leaf's own address and gateway_v4/v6 the shared anycast gateway.
    svi: Interface | None = None
    gateway_v4: Address | None = None
    gateway_v6: Address | None = None
    # the SVI sends IPv6 router advertisements: it has an IPv6 gateway and the intent's network
    # does not turn them off (`router_advertisement: false`); docs/syntax.md#nvue-evpn
    router_advertisement: bool = False


class EvpnVrf(Model):
    """An IP-VRF with its L3VNI: symmetric IRB (RFC 9135)."""

    name: str
    vni: int
    vlan: int | None  # the L3VNI carrier VLAN, for platforms that need one
    rd: str
    route_target: str
    connected_route_map: str | None = None  # redistributing SVI subnets as type-5 (NX-OS)
    # the families the VRF routes here (its gateways' and its sessions'; IPv4 when neither)
    address_families: tuple[Afi, ...] = ("ipv4",)
    session_families: tuple[Afi, ...] = ()  # those of its BGP sessions on this device
    # ECMP in the VRF: paths installed per prefix (the site's `underlay.ecmp`), and whether
    # equal-length AS paths through different ASNs count as equal (each leaf has its own ASN,
    # so the same prefix from two border leaves never has the same AS path)
    maximum_paths: int = 1
    multipath_relax: bool = False
    # the MTU of the L3VNI carrier SVI (NX-OS `interface VlanN`): the largest MTU of the VRF's
    # networks in the site, so a routed packet that fits a tenant SVI fits the L3VNI too
    l3vni_mtu: int | None = None
    # aggregates originated in the VRF here (`network`), each anchored by a discard route in
    # the VRF (`DeviceModel.static_routes` with this `vrf`): what a cloud it serves is sent
    networks_v4: tuple[str, ...] = ()
    networks_v6: tuple[str, ...] = ()

    def networks(self, afi: Afi) -> tuple[str, ...]:
        return self.networks_v4 if afi == "ipv4" else self.networks_v6

    @property
    def bgp_families(self) -> tuple[Afi, ...]:
        """The VRF's BGP families that need a block of their own here: those of its sessions
        and of the aggregates it originates."""
        return tuple(
            afi for afi in ("ipv4", "ipv6") if afi in self.session_families or self.networks(afi)
        )


class EvpnPeer(Model):
    """A BGP EVPN session over loopbacks: leaf to spine, or spine to leaf."""

    address: str
    remote_as: int
    description: SessionDescription
    peer_device: str
    update_source: str  # the local loopback interface
    update_source_address: str  # its address (NVUE names the source by address)
    ebgp_multihop: int
    max_routes: int  # EVPN routes accepted before the session is reset
    max_routes_warning_pct: int
    next_hop_unchanged: bool  # spines pass the VTEP next hop through untouched
    bfd: bool = False  # multihop BFD (RFC 5883) on the session, with `Evpn.multihop_bfd` timers
    # the community attributes the session sends: EVPN needs extended (route targets, router
    # MAC); standard and large carry graceful shutdown (RFC 8326) and our class tags
    send_communities: tuple[Literal["standard", "extended", "large"], ...] = ("extended",)


class Evpn(Model):
    vtep: bool  # False on spines: they carry EVPN routes but no VXLAN
    source_interface: str | None
    # the address VXLAN is sourced from, every route's next hop: an EOS MLAG leaf's is the
    # pair's shared address (its Loopback1 holds it), any other VTEP's its own
    source_address: str | None
    anycast_mac: str  # 00:1c:73:00:00:99
    arp_nd_suppression: bool
    vlans: tuple[EvpnVlan, ...] = ()
    vrfs: tuple[EvpnVrf, ...] = ()
    peers: tuple[EvpnPeer, ...] = ()
    multihop_bfd: BfdTimers | None = None  # timers of the peers' multihop BFD; None: no BFD
    # the outbound route map (one permit clause, next hop unchanged) a route server keeps the
    # VTEP next hop with, where its platform has no per-neighbour form (NX-OS); None elsewhere
    next_hop_map: str | None = None


class Lag(Model):
    """A host-facing LACP bond / port-channel: dual-homed by MLAG (vPC on NX-OS) or EVPN
    multihoming, or on one leaf (`single`)."""

    name: str  # bond10, Port-Channel10, port-channel10
    number: int
    description: str
    members: tuple[str, ...]
    mtu: int
    vlans: tuple[int, ...]  # trunked, tagged; with `access`, the one untagged VLAN
    mode: Literal["mlag", "esi", "single"]
    segment_id: int  # MLAG id (vPC number), or the Ethernet segment's local id
    esi: str | None  # type-0 ESI, 00:..., identical on both leaves of the segment
    lacp_system_mac: str | None  # None: a single-leaf bond (the switch's own system id)
    access: bool = False  # the one VLAN untagged (access port) instead of a tagged trunk


class HostPort(Model):
    """A single-homed host on a plain switch port (no LACP): an access port or a trunk."""

    name: str  # swp1, Ethernet1/1, Ethernet9
    description: str
    mtu: int
    vlans: tuple[int, ...]  # trunked, tagged; with `access`, the one untagged VLAN
    access: bool = False


class PeerLinkFamily(Model):
    afi: Literal["ipv4", "ipv6"]
    route_map_in: str
    route_map_out: str


class PeerLinkSession(Model):
    """The routed adjacency between the two leaves of an MLAG pair, over the peer link's routed
    sub-interface: BGP unnumbered (IPv6 link-local, RFC 8950), no address to plan. With VRR, a
    leaf whose uplinks are down still forwards through its peer (NVIDIA MLAG, "Peer Link
    Routing")."""

    interface: str  # peerlink.4094
    remote_as: int
    description: SessionDescription
    peer_device: str
    families: tuple[PeerLinkFamily, ...]  # the underlay's unicast families and their policies
    evpn: bool  # the l2vpn-evpn family too (NVIDIA: with EVPN and MLAG)
    bfd: bool
    max_prefix: int | None  # unicast routes accepted per family before a reset; None: no limit
    max_routes: int | None  # EVPN routes accepted, when `evpn`
    max_prefix_warning_pct: int


class MlagVrfPeering(Model):
    """A tenant VRF's routed adjacency between the two leaves of an MLAG pair that share one
    VTEP address (EOS): a VLAN of the VRF's own on the peer link, an SVI in the VRF with the
    peer VLAN's /31 (and /127) again, and a BGP session in the VRF (`Bgp.neighbors`, kind
    `mlag_vrf`). A route one leaf alone learns in the VRF (its cloud session), and a link one
    leaf alone has in it (its handoff links), reach the other leaf, which the fabric sends
    about half of that traffic to (Arista AVD eos_designs `mlag_ibgp_peering_vrfs`)."""

    vrf: str
    vlan: int  # the VRF's own `vlan:` (AVD: base VLAN 3000 + VRF id - 1)
    ipv4: Address  # the peer VLAN's address, reused in every VRF (AVD)
    mtu: int
    ipv6: Address | None = None  # the peer VLAN's /127 address, where an IPv6 session runs


class Mlag(Model):
    """One leaf's half of an MLAG pair (vPC on NX-OS)."""

    peer: str  # the other leaf of the pair
    peer_link: str
    peer_link_members: tuple[str, ...]
    system_mac: str
    backup_address: str  # the peer's management address, for the MLAG heartbeat
    backup_vrf: str
    anycast_vtep: str | None  # the VTEP address the pair shares
    peer_link_session: PeerLinkSession | None = None
    domain_id: int = 1  # EOS `domain-id`, NX-OS `vpc domain`
    # EOS and NX-OS: the routed VLAN over the peer link (EOS: the MLAG control SVI and the
    # pair's underlay session; NX-OS: the backup routing SVI) with its /31 and /127
    peer_vlan: int | None = None
    peer_vlan_ipv4: Address | None = None
    peer_vlan_ipv6: Address | None = None
    peer_vlan_mtu: int | None = None
    # NX-OS: the peer link's L2 MTU, what crosses it when a leaf loses a host or its uplinks
    # (the hosts' frames and the backup VLAN's routed packets); its ports stay at 1500 unless
    # told (TAC 118994). None: the platform's peer link carries jumbo frames as it is
    peer_link_mtu: int | None = None
    peer_address_v4: str | None = None  # the other leaf's address on the peer VLAN
    keepalive_source: str | None = None  # this leaf's management address (NX-OS keepalive)
    # type-5 routes carry this leaf's own VTEP address (PIP), not the shared one, with the
    # leaf's own router MAC: a prefix one leaf alone learns (a cloud session, a leaf's own
    # route) is not sent to its peer to die. NX-OS vPC: advertise-pip with advertise
    # virtual-rmac; NVUE: evpn route-advertise nexthop-setting system-ip-mac (its default)
    advertise_pip: bool = False
    # EOS: the tenant VRFs whose routes one leaf alone can learn (an external session in the
    # VRF on either leaf) or that hold links one leaf alone has (a pair of border leaves'
    # handoff VRFs), each peered over a VLAN of its own on the peer link
    vrf_peerings: tuple[MlagVrfPeering, ...] = ()


class VrfLeak(Model):
    """Routes shared between a plain VRF and the default VRF (the Internet table), one family:
    each direction through its own policy, None where nothing crosses that way."""

    afi: Afi
    import_from_default: str | None  # e.g. the default route, into the tenant VRF
    export_to_default: str | None  # e.g. the tenant's public prefixes, into the Internet table


class PlainVrf(Model):
    """A VRF without EVPN (the border routers' end of the VRF-lite handoff)."""

    name: str
    rd: str
    # the families the VRF routes here in BGP: its handoff sessions' families (its
    # sub-interfaces keep their IPv4 link addresses in any case)
    address_families: tuple[Afi, ...] = ("ipv4",)
    # ECMP in the VRF (see EvpnVrf): the handoff reaches the border over several border
    # leaves, each with its own ASN
    maximum_paths: int = 1
    multipath_relax: bool = False
    leaks: tuple[VrfLeak, ...] = ()

    def leak(self, afi: str) -> VrfLeak | None:
        return next((leak for leak in self.leaks if leak.afi == afi), None)

    @property
    def imports_from_default(self) -> tuple[str, ...]:
        """The distinct import policies of its leaks (one on a platform with one policy per
        VRF and direction, EOS `leak routes`), in family order."""
        return tuple(
            dict.fromkeys(x.import_from_default for x in self.leaks if x.import_from_default)
        )

    @property
    def exports_to_default(self) -> tuple[str, ...]:
        """The distinct export policies of its leaks, in family order."""
        return tuple(dict.fromkeys(x.export_to_default for x in self.leaks if x.export_to_default))


class Srv6Vrf(Model):
    """A tenant VRF carried to other sites over SRv6: its route target on both ends (the same
    in every site), one uDT SID per VRF from the locator (`alloc mode per-vrf`)."""

    name: str
    route_target: str  # ASN:N
    sites: tuple[str, ...]  # the other sites it reaches
    # what those sites send north (both families), which this border hands its border leaves
    # (generators/build/handoff.py `remote_prefixes`, longer prefixes admitted up to the
    # handoff's NORTH_MAX_LENGTH): what every leaf of the VRF must receive from them
    remote_prefixes: tuple[str, ...] = ()


class Srv6Peer(Model):
    """An iBGP VPNv4/VPNv6 session to a border of another site, over the loopbacks."""

    address: str  # the remote border's IPv6 loopback
    remote_as: int
    description: SessionDescription
    peer_device: str
    update_source: str  # the local loopback's name


class IsisInterface(Model):
    name: str
    passive: bool = False  # a loopback: advertised, no adjacency
    # BFD on the adjacency (the site's underlay timers): a DCI wave or a pair link that fails
    # with its port up is detected in BFD's time, not IS-IS's hold time; None on a loopback
    bfd: BfdTimers | None = None


class Srv6StaticSid(Model):
    sid: str  # the locator prefix for uN
    behavior: Literal["uN"]


class Srv6(Model):
    """One device's part of the SRv6 domain (generators/build/srv6.py)."""

    locator: str  # its name
    prefix: str  # block + node uSID, e.g. 5f00:0:101::/48
    block_len: int
    node_len: int
    func_len: int
    format: str  # F3216
    source_address: str | None = None  # H.Encaps outer source: the IPv6 loopback
    isis_instance: str | None = None  # None: no IS-IS (static SIDs only)
    isis_net: str | None = None
    isis_interfaces: tuple[IsisInterface, ...] = ()
    peers: tuple[Srv6Peer, ...] = ()
    vrfs: tuple[Srv6Vrf, ...] = ()
    static_sids: tuple[Srv6StaticSid, ...] = ()

    @property
    def l3vpn(self) -> bool:
        return bool(self.vrfs)

    def vrf(self, name: str) -> Srv6Vrf | None:
        return next((v for v in self.vrfs if v.name == name), None)


class DeviceModel(Model):
    hostname: str
    site: str
    role: str
    platform: str
    hardware_model: str
    source: str  # file:line:column where the device is declared
    management: Management
    loopbacks: tuple[Interface, ...]
    interfaces: tuple[Interface, ...]
    prefix_lists: tuple[PrefixList, ...]
    as_path_lists: tuple[AsPathList, ...] = ()
    community_lists: tuple[CommunityList, ...] = ()
    route_maps: tuple[RouteMap, ...]
    static_routes: tuple[StaticRoute, ...] = ()
    bgp: Bgp
    evpn: Evpn | None = None
    lags: tuple[Lag, ...] = ()
    host_ports: tuple[HostPort, ...] = ()  # single-homed hosts on plain switch ports
    mlag: Mlag | None = None
    vrfs: tuple[PlainVrf, ...] = ()
    acls: tuple[Acl, ...] = ()
    breakouts: tuple[Breakout, ...] = ()  # cages split into sub-ports, by port number
    # front-panel cages no interface, bond, host or breakout uses, as the platform names the
    # whole port, in port order: rendered shut (PortForms.shut_unused)
    unused_ports: tuple[str, ...] = ()
    host_speeds: tuple[SubPortSpeed, ...] = ()  # attachment ports told a breakout's speed
    srv6: Srv6 | None = None  # its part of the SRv6 domain, if any

    @property
    def as_path_lengths(self) -> tuple[int, ...]:
        """The AS-path lengths the route maps' clauses match, ascending: the AS-path lists
        NVUE and FRR print for them (they have no length match)."""
        found = {
            e.match_as_path_length_ge
            for rm in self.route_maps
            for e in rm.entries
            if e.match_as_path_length_ge is not None
        }
        return tuple(sorted(found))

    def vrf_routes(self, afi: str) -> bool:
        """Whether a plain VRF routes this family (IOS-XR needs the family and its VPN family
        under `router bgp` before a VRF may configure it)."""
        return any(afi in v.address_families for v in self.vrfs)

    def leaks_into_default(self, afi: str) -> bool:
        """Whether a plain VRF exports routes of this family into the default VRF."""
        return any((leak := v.leak(afi)) and leak.export_to_default for v in self.vrfs)

    def discard_routes(self, vrf: str | None = None) -> tuple[StaticRoute, ...]:
        """The discard routes of one VRF (None: the default VRF), each printed in that VRF only."""
        return tuple(r for r in self.static_routes if r.discard and r.vrf == vrf)

    def host_speed(self, port: str) -> PortSpeed | None:
        """The speed an attachment's port must be told (a breakout's sub-port), else None."""
        return next((h.speed for h in self.host_speeds if h.port == port), None)

    @property
    def host_vlans(self) -> tuple[int, ...]:
        """The VLANs the device's host bonds and host ports carry, ascending."""
        found = {v for lag in self.lags for v in lag.vlans}
        found |= {v for port in self.host_ports for v in port.vlans}
        return tuple(sorted(found))

    @property
    def esi_multihoming(self) -> bool:
        """The device hosts EVPN Ethernet segments (it isolates them if it loses the fabric)."""
        return any(lag.mode == "esi" for lag in self.lags)

    @property
    def multihoming_uplinks(self) -> frozenset[str]:
        """The fabric links (routed, to a peer device) whose loss isolates the device's EVPN
        Ethernet segments; none without segments."""
        if not self.esi_multihoming:
            return frozenset()
        return frozenset(i.name for i in self.interfaces if i.kind == "routed" and i.peer)
