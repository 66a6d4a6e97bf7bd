"""Resolve the peering intent into external ports and eBGP sessions, one record each.

The same records feed the device models (edge_policy, build) and the EDGE/AWS/AZ/GCP rules,
so rules judge exactly what is rendered.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from meetme.core.providers import providers
from meetme.core.secret_refs import placeholder, reference_name
from meetme.intent.schema import Intent, Site
from meetme.intent.schema_clouds import AzureLink, CloudSession
from meetme.intent.schema_edge import (
    DROP_AS_PATH_LENGTH,
    DirectCircuit,
    IxNeighbor,
    SessionOptions,
)

Path_ = tuple[str | int, ...]
Kind = Literal["transit", "ix_rs", "ix_peer", "pni", "aws", "azure", "gcp"]
Afi = Literal["ipv4", "ipv6"]

# Local preference by relationship: the cheaper and closer the path, the higher (RFC 7454 §6).
LOCAL_PREFERENCE: dict[str, int] = {
    "transit": 100, "ix_rs": 150, "ix_peer": 160, "pni": 170,
    "aws": 200, "azure": 200, "gcp": 200,
}  # fmt: skip
# Large-community class values, ORG_ASN:1:<class> (docs/standards.md#edge-communities).
CLASS_VALUE: dict[str, int] = {
    "transit": 100, "ix_rs": 200, "ix_peer": 210, "pni": 300,
    "aws": 400, "azure": 410, "gcp": 420,
}  # fmt: skip
INTERNET_KINDS = ("transit", "ix_rs", "ix_peer", "pni")
CLOUD_KINDS = ("aws", "azure", "gcp")
# peering: settlement-free, so no transit-free network may stand behind the party (peer-lock)
PEERING = ("ix_rs", "ix_peer", "pni")


@dataclass(frozen=True)
class ExternalPort:
    """An interface facing an external party: a routed port or an 802.1Q sub-interface."""

    device: str
    name: str
    parent: str | None  # the physical port of a sub-interface
    vlan: int | None
    description: str
    ipv4: str | None  # our address with length
    ipv6: str | None
    ip_mtu: int
    speed_gbps: int | None
    source: Path_
    vrf: str | None = None  # the tenant VRF a private cloud attachment serves; None: default
    circuit: str | None = None  # the cross-connect it is on (None: the services LAN)
    exchange_lan: bool = False  # on an IX peering LAN, shared with the exchange's other members


@dataclass(frozen=True)
class ExternalSession:
    kind: Kind
    party: str
    circuit: str
    device: str
    interface: str
    afi: Afi
    local_address: str  # with length
    peer_address: str
    remote_as: int
    description: str
    max_prefix: int | None  # None: the intent gave none (rule EDGE-001 reports it)
    password: str | None  # placeholder text
    secret_name: str | None
    bfd: bool
    bfd_interval: int
    bfd_multiplier: int
    gtsm: bool
    enforce_first_as: bool
    accept_default: bool
    internet: bool  # full Internet hygiene (bogons, lengths, RPKI) applies
    import_prefixes: tuple[str, ...]  # explicit allow-list, empty = none
    export_prefixes: tuple[str, ...]  # what we advertise: aggregates or the cloud's list
    peer_lan: str | None  # an IX peering LAN, never accepted or advertised
    peer_lock: bool  # reject well-known transit ASNs in the path (BGP-011)
    private_asns_ok: bool  # the peer's own side uses private ASNs (cloud private)
    source: Path_  # intent path of the session's declaration
    vrf: str | None = None  # the tenant VRF a private cloud attachment serves; None: default
    # a route whose AS path holds this many ASNs or more is dropped (peering.edge, EDGE-013)
    drop_as_path_length: int = DROP_AS_PATH_LENGTH
    # Internet sessions: what the other sites announce to the Internet in this session's family
    # and it does not, and how many times our ASN may stand in an accepted route's AS path
    # (`with_other_sites`; 0 where the import allow-list admits none of it): the Internet is
    # this site's only way to them
    other_sites: tuple[str, ...] = ()
    allowas_in: int = 0


@dataclass
class SiteEdge:
    ports: list[ExternalPort] = field(default_factory=list)
    sessions: list[ExternalSession] = field(default_factory=list)

    def of_device(self, device: str) -> tuple[list[ExternalPort], list[ExternalSession]]:
        return (
            [p for p in self.ports if p.device == device],
            [s for s in self.sessions if s.device == device],
        )


def _afi(address: str) -> Afi:
    return "ipv4" if ipaddress.ip_address(address.split("/")[0]).version == 4 else "ipv6"


def public_aggregates(intent: Intent, site: Site) -> tuple[str, ...]:
    """What a site's borders originate and announce to the Internet: the organisation's
    aggregates, then the site's own (`sites.S.aggregates.public`), so that traffic for the
    site enters at the site. An organisation aggregate another site claims (writes among its
    own public ones) is that site's alone: announced from there only, since no site carries
    another's Internet routes (docs/architecture.md#site-aggregates)."""
    claimed = {
        aggregate
        for other in intent.sites.values()
        if other is not site
        for aggregate in other.aggregates.public
    }
    ours = [a for a in intent.organisation.aggregates if a not in claimed]
    return tuple(dict.fromkeys([*ours, *site.aggregates.public]))


class _Collector:
    def __init__(self, intent: Intent, site_name: str, site: Site) -> None:
        self.intent = intent
        self.site = site
        self.base: Path_ = ("sites", site_name, "peering")
        self.edge = SiteEdge()
        self.aggregates = public_aggregates(intent, site)
        edge = site.peering.edge
        self.drop_as_path_length = (
            edge.drop_as_path_length if edge is not None else DROP_AS_PATH_LENGTH
        )

    def circuit_port(self, circuit: str) -> tuple[str, str, int]:
        xc = self.site.cross_connects[circuit]
        from meetme.intent.types import SPEED_GBPS

        return xc.device, xc.interface, SPEED_GBPS[xc.speed]

    def port(
        self,
        circuit: str,
        description: str,
        ipv4: str | None,
        ipv6: str | None,
        mtu: int,
        source: Path_,
        vlan: int | None = None,
        vrf: str | None = None,
        exchange_lan: bool = False,
    ) -> str:
        device, interface, speed = self.circuit_port(circuit)
        name = interface if vlan is None else f"{interface}.{vlan}"
        self.edge.ports.append(
            ExternalPort(
                device=device,
                name=name,
                parent=interface if vlan is not None else None,
                vlan=vlan,
                description=description,
                ipv4=ipv4,
                ipv6=ipv6,
                ip_mtu=mtu,
                speed_gbps=speed if vlan is None else None,
                source=source,
                vrf=vrf,
                circuit=circuit,
                exchange_lan=exchange_lan,
            )
        )
        return name

    def session(
        self,
        *,
        kind: Kind,
        party: str,
        circuit: str,
        interface: str,
        local: str,
        peer: str,
        remote_as: int,
        options: SessionOptions | None,
        max_prefix: int | None,
        source: Path_,
        bfd: tuple[bool, int, int],
        key: str | None = None,
        gtsm: bool = False,
        accept_default: bool = False,
        import_prefixes: tuple[str, ...] = (),
        export: tuple[str, ...] = (),
        peer_lan: str | None = None,
        enforce_first_as: bool = True,
        vrf: str | None = None,
    ) -> None:
        device = self.site.cross_connects[circuit].device
        key = key if options is None else options.key
        secret = reference_name(key) if key else None
        internet = kind in INTERNET_KINDS
        self.edge.sessions.append(
            ExternalSession(
                kind=kind,
                party=party,
                circuit=circuit,
                device=device,
                interface=interface,
                afi=_afi(peer),
                local_address=local,
                peer_address=peer,
                remote_as=remote_as,
                description=f"{kind} {party} {circuit}",
                max_prefix=max_prefix,
                password=placeholder(secret) if secret else None,
                secret_name=secret,
                bfd=bfd[0],
                bfd_interval=bfd[1],
                bfd_multiplier=bfd[2],
                gtsm=gtsm if options is None else options.gtsm,
                enforce_first_as=enforce_first_as,
                accept_default=accept_default,
                internet=internet,
                import_prefixes=import_prefixes,
                export_prefixes=export if export else (self.aggregates if internet else ()),
                peer_lan=peer_lan,
                # a route server passes its members' routes on (RFC 7947), a member's leak
                # with them: every peering session is peer-locked, not the bilateral ones only
                peer_lock=kind in PEERING,
                private_asns_ok=not internet,
                source=source,
                vrf=vrf,
                drop_as_path_length=self.drop_as_path_length,
            )
        )


def with_other_sites(edges: Mapping[str, SiteEdge]) -> None:
    """Give every Internet session what the other sites announce to the Internet in its family
    and it does not (a public aggregate another site claims, an organisation aggregate claimed
    there): the sites share one ASN and no site carries another's Internet routes, so the
    Internet is the only way there. The session accepts those routes although their AS paths
    hold our ASN (`allowas_in`), and its own-space filters leave them out where one of our
    aggregates holds them (edge_policy._own_space; docs/architecture.md#site-aggregates)."""
    announced = {
        name: {
            ipaddress.ip_network(p) for s in edge.sessions if s.internet for p in s.export_prefixes
        }
        for name, edge in edges.items()
    }
    for name, edge in edges.items():
        for index, session in enumerate(edge.sessions):
            if not session.internet:
                continue
            ours = {ipaddress.ip_network(p) for p in session.export_prefixes}
            family = 4 if session.afi == "ipv4" else 6
            theirs = {
                p
                for other, prefixes in announced.items()
                if other != name
                for p in prefixes
                if p.version == family
            } - ours
            if theirs:
                ordered = tuple(str(n) for n in sorted(theirs))
                session = dataclasses.replace(session, other_sites=ordered)
                # the loop check stays where the import allow-list (a PNI's) admits none of it
                allowas_in = 1 if admitted(session) else 0
                edge.sessions[index] = dataclasses.replace(session, allowas_in=allowas_in)


def admitted(session: ExternalSession) -> list[str]:
    """The other sites' space (`other_sites`) the session's import allow-list, where it has
    one, can let in."""
    allowed = [ipaddress.ip_network(p) for p in session.import_prefixes]

    def inside(prefix: str) -> bool:
        net = ipaddress.ip_network(prefix)
        return any(net.version == a.version and net.subnet_of(a) for a in allowed)  # type: ignore[arg-type]

    return [p for p in session.other_sites if not allowed or inside(p)]


def resolve_edge(intent: Intent, site_name: str, site: Site) -> SiteEdge:
    c = _Collector(intent, site_name, site)
    internet_bfd = providers()["internet"]["bfd"]
    _ixes(c, internet_bfd)
    _direct(c, internet_bfd)
    _aws(c)
    _azure(c)
    _gcp(c)
    _services(c)
    c.edge.ports.sort(key=lambda p: (p.device, p.name))
    c.edge.sessions.sort(key=lambda s: (s.device, s.afi, s.kind, s.party, s.peer_address))
    return c.edge


def _ixes(c: _Collector, timers: dict[str, int]) -> None:
    for ix_name, ix in sorted(c.site.peering.ixes.items()):
        ix_path = (*c.base, "ixes", ix_name)
        lans = {"ipv4": ix.lan_v4, "ipv6": ix.lan_v6}
        for index, port in enumerate(ix.ports):
            interface = c.port(
                port.circuit,
                f"ix {ix_name} {port.circuit}",
                port.ipv4,
                port.ipv6,
                1500,
                (*ix_path, "ports", index),
                exchange_lan=True,
            )
            local = {"ipv4": port.ipv4, "ipv6": port.ipv6}
            groups: list[tuple[Kind, dict[str, IxNeighbor], str]] = [
                ("ix_rs", ix.route_servers, "route_servers"),
                ("ix_peer", ix.peers, "peers"),
            ]
            for kind, neighbors, key in groups:
                for name, neighbor in sorted(neighbors.items()):
                    for afi, addresses, limit in (
                        ("ipv4", neighbor.ipv4, neighbor.max_prefix_v4),
                        ("ipv6", neighbor.ipv6, neighbor.max_prefix_v6),
                    ):
                        local_address = local[afi]
                        if local_address is None:
                            continue
                        for address in addresses:
                            c.session(
                                kind=kind,
                                party=f"{ix_name}/{name}",
                                circuit=port.circuit,
                                interface=interface,
                                local=local_address,
                                peer=address,
                                remote_as=neighbor.asn,
                                options=neighbor,
                                max_prefix=limit,
                                source=(*ix_path, key, name),
                                bfd=(neighbor.bfd, timers["interval"], timers["multiplier"]),
                                import_prefixes=tuple(neighbor.import_prefixes),
                                peer_lan=lans[afi],
                                enforce_first_as=kind != "ix_rs",  # RS do not prepend (RFC 7947)
                            )


def _direct(c: _Collector, timers: dict[str, int]) -> None:
    parties: list[tuple[Kind, str, dict]] = [  # type: ignore[type-arg]
        ("transit", "transits", c.site.peering.transits),
        ("pni", "pnis", c.site.peering.pnis),
    ]
    for kind, key, collection in parties:
        for name, party in sorted(collection.items()):
            path = (*c.base, key, name)
            circuit: DirectCircuit
            for index, circuit in enumerate(party.circuits):
                interface = c.port(
                    circuit.circuit,
                    f"{kind} {name} {circuit.circuit}",
                    circuit.ipv4,
                    circuit.ipv6,
                    1500,
                    (*path, "circuits", index),
                )
                families = [
                    ("ipv4", circuit.ipv4, circuit.peer_ipv4, party.max_prefix_v4),
                    ("ipv6", circuit.ipv6, circuit.peer_ipv6, party.max_prefix_v6),
                ]
                for _afi_name, local, peer, limit in families:
                    if local is None or peer is None:
                        continue
                    c.session(
                        kind=kind,
                        party=name,
                        circuit=circuit.circuit,
                        interface=interface,
                        local=local,
                        peer=peer,
                        remote_as=party.asn,
                        options=party,
                        max_prefix=limit,
                        source=path,
                        bfd=(party.bfd, timers["interval"], timers["multiplier"]),
                        accept_default=party.accept_default,
                        import_prefixes=tuple(getattr(party, "import_prefixes", ())),
                    )


def _cloud_sessions(
    c: _Collector,
    kind: Kind,
    party: str,
    session: CloudSession,
    path: Path_,
    remote_as: int,
    key: str | None,
    max_prefix: tuple[int, int | None],
    export: tuple[str, ...],
    bfd: tuple[bool, int, int],
    vrf: str | None,
    receive: tuple[str, ...] = (),
) -> None:
    interface = c.port(
        session.circuit,
        f"{kind} {party} {session.circuit} vlan {session.vlan}",
        session.ipv4,
        session.ipv6,
        session.mtu,
        path,
        vlan=session.vlan,
        vrf=vrf,
    )
    v4, v6 = max_prefix  # the limit of both families, and IPv6's own where the intent gives one
    for local, peer, limit in (
        (session.ipv4, session.peer_ipv4, v4),
        (session.ipv6, session.peer_ipv6, v4 if v6 is None else v6),
    ):
        if local is None or peer is None:
            continue
        c.session(
            kind=kind,
            party=party,
            circuit=session.circuit,
            interface=interface,
            local=local,
            peer=peer,
            remote_as=remote_as,
            options=None,
            max_prefix=limit,
            source=path,
            bfd=bfd,
            key=key,
            export=export,
            vrf=vrf,
            import_prefixes=receive,
        )


def _aws(c: _Collector) -> None:
    facts = providers()["aws"]
    for name, aws in sorted(c.site.peering.aws.items()):
        for vif_name, vif in sorted(aws.vifs.items()):
            _cloud_sessions(
                c,
                "aws",
                f"{name}/{vif_name}",
                vif,
                (*c.base, "aws", name, "vifs", vif_name),
                vif.amazon_asn,
                vif.key,
                (vif.max_prefix, vif.max_prefix_v6),
                tuple(vif.advertise),
                (True, facts["bfd"]["interval"], facts["bfd"]["multiplier"]),
                vif.vrf,
                tuple(vif.receive),
            )


def _azure(c: _Collector) -> None:
    facts = providers()["azure"]
    for name, azure in sorted(c.site.peering.azure.items()):
        for peering_name, peering in sorted(azure.peerings.items()):
            links: list[tuple[str, AzureLink]] = [("primary", peering.primary)]
            if peering.secondary is not None:
                links.append(("secondary", peering.secondary))
            for role, link in links:
                session = CloudSession(
                    circuit=link.circuit,
                    vlan=link.vlan,
                    mtu=peering.mtu,
                    ipv4=_nth_host(link.ipv4, 1),
                    peer_ipv4=_nth_host(link.ipv4, 2).split("/")[0],
                    ipv6=_nth_host(link.ipv6, 1) if link.ipv6 else None,
                    peer_ipv6=_nth_host(link.ipv6, 2).split("/")[0] if link.ipv6 else None,
                )
                _cloud_sessions(
                    c,
                    "azure",
                    f"{name}/{peering_name}",
                    session,
                    (*c.base, "azure", name, "peerings", peering_name, role),
                    facts["microsoft_asn"],
                    peering.key,
                    (peering.max_prefix, peering.max_prefix_v6),
                    tuple(peering.advertise),
                    (True, facts["bfd"]["interval"], facts["bfd"]["multiplier"]),
                    peering.vrf,
                    tuple(peering.receive),
                )


def _gcp(c: _Collector) -> None:
    facts = providers()["gcp"]
    for name, gcp in sorted(c.site.peering.gcp.items()):
        for attachment_name, attachment in sorted(gcp.attachments.items()):
            _cloud_sessions(
                c,
                "gcp",
                f"{name}/{attachment_name}",
                attachment,
                (*c.base, "gcp", name, "attachments", attachment_name),
                gcp.cloud_router_asn,
                attachment.key,
                (attachment.max_prefix, attachment.max_prefix_v6),
                tuple(attachment.advertise),
                (True, gcp.bfd_interval, facts["bfd_multiplier"]),
                attachment.vrf,
                tuple(attachment.receive),
            )


def _services(c: _Collector) -> None:
    """Each border's port on the in-band services LAN (RPKI validators): a routed port in the
    default VRF with no session, so the LAN is a connected route there."""
    edge = c.site.peering.edge
    if edge is None:
        return
    for device, port in sorted(edge.services.items()):
        c.edge.ports.append(
            ExternalPort(
                device=device,
                name=port.interface,
                parent=None,
                vlan=None,
                description="services LAN (RPKI validators)",
                ipv4=port.ipv4,
                ipv6=port.ipv6,
                ip_mtu=1500,
                speed_gbps=None,  # the LAN's switch sets it; the port auto-negotiates
                source=(*c.base, "edge", "services", device, "interface"),
            )
        )


def _nth_host(subnet: str, n: int) -> str:
    """Azure: the customer takes the first usable address of each /30 (/126), Microsoft the
    second (expressroute-routing)."""
    net = ipaddress.ip_network(subnet)
    return f"{net.network_address + n}/{net.prefixlen}"
