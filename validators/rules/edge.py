"""EDGE-*: eBGP edge hygiene over the peering intent (docs/standards.md#edge).

The rules read the resolved sessions (generators.edge_sessions), so they judge exactly the
sessions that are rendered; every finding points at the intent node an engineer edits (the
session's `source`). Provider and standard numbers come from validators/data/providers.yaml.
Import and export policies, first-AS enforcement and descriptions are generated for every
session and cannot be missing, so no rule checks them.
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from meetme.generators.build.edge_policy import GLOBAL_SHORTEST, party_tag
from meetme.generators.build.handoff import vrf_routes
from meetme.generators.model import BgpNeighbor, DeviceModel
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve.edge_sessions import CLOUD_KINDS, INTERNET_KINDS
from meetme.generators.resolve.fabric import SiteFabric
from meetme.validators.engine import Hit, Path_, SiteContext, finding_at, reported_elsewhere, rule
from meetme.validators.policy_eval import Route, evaluate_import
from meetme.validators.rules.addr import asn_uses, misnumbered
from meetme.validators.rules.peers import peer_asns

from meetme.core.addresses import FAMILY, Address
from meetme.core.findings import Finding
from meetme.core.numbering import is_private_asn, reserved_asn
from meetme.core.problems import listed
from meetme.core.providers import providers
from meetme.intent.loader import LoadedIntent

if TYPE_CHECKING:
    from meetme.generators.resolve.edge_sessions import ExternalPort, ExternalSession, SiteEdge

    from meetme.intent.schema_edge import IxNeighbor, Pni

KIND_LABEL = {
    "transit": "transit", "ix_rs": "IX route server", "ix_peer": "IX peer", "pni": "PNI",
    "aws": "AWS VIF", "azure": "Azure peering", "gcp": "Google attachment",
}  # fmt: skip
AUTHENTICATED_KINDS = ("transit", "pni", "ix_peer")  # route servers: the IX decides
DIRECT_KINDS = {"transits": "transit", "pnis": "PNI"}  # intent key: label
RFC7454 = "https://www.rfc-editor.org/rfc/rfc7454"
# titles quote the data file, so `meetme rules` and docs/rules.md follow it
_WARNING_PCT = providers()["internet"]["max_prefix_warning_pct"]
_RPKI_CACHES = providers()["internet"]["rpki_min_caches"]["value"]


def edge_of(ctx: SiteContext) -> SiteEdge:
    return ctx.fabric.edge


def peering_path(ctx: SiteContext) -> Path_:
    return (*ctx.base, "peering")


def label(session: ExternalSession) -> str:
    return f"{KIND_LABEL[session.kind]} {session.party}"


def by_source(sessions: list[ExternalSession]) -> dict[Path_, list[ExternalSession]]:
    """Sessions grouped by the intent node that declares them, in session order."""
    grouped: dict[Path_, list[ExternalSession]] = defaultdict(list)
    for session in sessions:
        grouped[session.source].append(session)
    return grouped


@rule(
    "EDGE-001",
    "error",
    "Every external session has a prefix limit for each address family",
    "A peer that leaks a full table (or a de-aggregated one) into a session without a limit "
    "fills the RIB and FIB and propagates the leak; the limit tears the session down first.",
    f"docs/standards.md#edge-001; RFC 7454 section 8 {RFC7454}; PeeringDB info_prefixes4/6 "
    "https://www.peeringdb.com",
)
def max_prefix_on_every_session(ctx: SiteContext) -> Iterator[Hit]:
    missing: dict[tuple[Path_, str], list[ExternalSession]] = defaultdict(list)
    for session in edge_of(ctx).sessions:
        if session.max_prefix is None:
            missing[(session.source, session.afi)].append(session)
    for (source, afi), sessions in missing.items():
        first = sessions[0]
        field = "max_prefix_v4" if afi == "ipv4" else "max_prefix_v6"
        peers = listed(sorted({s.peer_address for s in sessions}))
        devices = listed(sorted({s.device for s in sessions}))
        if first.kind == "transit":
            advice = "the full Internet table of that family plus 20-50 % headroom"
        else:
            advice = f"the peer's PeeringDB info_prefixes{afi[-1]} plus about 20 % headroom"
        yield Hit(
            f"{label(first)} has {FAMILY[afi]} sessions ({peers} on {devices}) but no "
            f"{field}: a leak from it would be accepted without limit; set {field} to "
            f"{advice}",
            source,
        )


@rule(
    "EDGE-002",
    "error",
    f"The prefix-limit warning threshold is between {_WARNING_PCT['min']} and "
    f"{_WARNING_PCT['max']} %",
    "Below the range the warning fires on a peer's normal growth and is ignored; above it the "
    "session is torn down before anyone can react to the warning.",
    f"docs/standards.md#edge-002; RFC 7454 section 8 {RFC7454}",
)
def max_prefix_warning_threshold(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.peering.edge
    if settings is None or not edge_of(ctx).sessions:
        return
    bounds = providers()["internet"]["max_prefix_warning_pct"]
    pct = settings.max_prefix_warning_pct
    if not bounds["min"] <= pct <= bounds["max"]:
        why = (
            "warns on every normal growth of a peer"
            if pct < bounds["min"]
            else "leaves no time to act before the session is torn down"
        )
        yield Hit(
            f"max_prefix_warning_pct {pct} {why}; choose a value from {bounds['min']} to "
            f"{bounds['max']}",
            (*peering_path(ctx), "edge", "max_prefix_warning_pct"),
        )


@rule(
    "EDGE-003",
    "warning",
    "Transit, PNI and bilateral IX sessions are authenticated",
    "Without TCP-MD5 (or TCP-AO) an off-path attacker who guesses the ports can reset or "
    "inject into the session. Where the peer refuses a key, waive the finding for that peer.",
    "docs/standards.md#edge-003; RFC 7454 section 5.1 https://www.rfc-editor.org/rfc/rfc7454; "
    "RFC 5925 https://www.rfc-editor.org/rfc/rfc5925",
)
def internet_sessions_authenticated(ctx: SiteContext) -> Iterator[Hit]:
    for source, sessions in by_source(edge_of(ctx).sessions).items():
        first = sessions[0]
        if first.kind in AUTHENTICATED_KINDS and first.secret_name is None:
            yield Hit(
                f"{label(first)} (AS{first.remote_as}) has no key; agree a TCP-MD5 key with "
                "the peer and set key: secret:NAME, or waive this finding if the peer "
                "refuses authentication",
                source,
            )


@rule(
    "EDGE-004",
    "warning",
    "Every IX, transit and PNI party has more than one circuit",
    "With a single circuit, one cross-connect cut, optic or border failure (or maintenance) "
    "takes the whole party away. Cloud parties are checked by AWS-004, AZ-001 and GCP-004.",
    "docs/standards.md#phy-005 and docs/standards.md#cloud-redundancy; "
    "https://docs.aws.amazon.com/directconnect/latest/UserGuide/maximum_resiliency.html",
)
def party_has_redundant_circuits(ctx: SiteContext) -> Iterator[Hit]:
    peering = ctx.site.peering
    parties: list[tuple[str, str, list[str], Path_]] = []
    for name, ix in sorted(peering.ixes.items()):
        parties.append(("IX", name, [p.circuit for p in ix.ports], (*ix.path, "ports")))
    for key, kind_label in DIRECT_KINDS.items():
        for name, party in sorted(getattr(peering, key).items()):
            circuits = [c.circuit for c in party.circuits]
            parties.append((kind_label, name, circuits, (*party.path, "circuits")))
    for kind_label, name, circuits, path in parties:
        distinct = sorted(set(circuits))
        if len(distinct) == 1:
            xc = ctx.site.cross_connects.get(distinct[0])
            where = f" ({xc.room}, {xc.device})" if xc is not None else ""
            yield Hit(
                f"{kind_label} {name} rides a single circuit {distinct[0]}{where}; one "
                "cross-connect or border failure cuts the site off from it: order a second "
                "circuit through the other MMR to the other border",
                path,
            )


@rule(
    "EDGE-005",
    "warning",
    "Every cloud attachment advertises something",
    "An on-ramp whose export list is empty advertises no route: the cloud has no path back to "
    "us, and traffic from it fails or takes the Internet.",
    "docs/standards.md#edge-export (export to clouds permits only the prefixes declared for the "
    "attachment); https://docs.aws.amazon.com/directconnect/latest/UserGuide/routing-and-bgp.html",
)
def cloud_sessions_advertise(ctx: SiteContext) -> Iterator[Hit]:
    for source, sessions in by_source(edge_of(ctx).sessions).items():
        first = sessions[0]
        if first.kind in CLOUD_KINDS and not first.export_prefixes:
            path = source[:-1] if first.kind == "azure" else source  # the peering, not a link
            yield Hit(
                f"{label(first)} advertises nothing: the export policy permits no route, so "
                "the cloud learns no path back to us; list our prefixes for it in advertise",
                path,
            )


@rule(
    "EDGE-006",
    "warning",
    "Transit and PNI sessions run BFD",
    "Without BFD a silent failure (a dead optic behind a media converter, a carrier fault) "
    "blackholes traffic until the BGP hold timer expires, typically 90-180 s.",
    "docs/standards.md#edge-006; RFC 5880 https://www.rfc-editor.org/rfc/rfc5880",
)
def direct_sessions_run_bfd(ctx: SiteContext) -> Iterator[Hit]:
    for key, kind_label in DIRECT_KINDS.items():
        for name, party in sorted(getattr(ctx.site.peering, key).items()):
            if not party.bfd:
                yield Hit(
                    f"{kind_label} {name} runs without BFD: a silent circuit failure "
                    "blackholes traffic until the hold timer expires; set bfd: true once the "
                    "provider enables it on its side",
                    (*party.path, "bfd"),
                )


@rule(
    "EDGE-007",
    "error",
    f"Routers validate route origins against at least {_RPKI_CACHES} RPKI caches",
    "Without a cache every route is NotFound and RPKI-invalid hijacks are accepted; with one "
    "cache, its failure or maintenance silently turns route-origin validation off.",
    "docs/standards.md#edge-007; RFC 6811 https://www.rfc-editor.org/rfc/rfc6811; MANRS Action 1 "
    "https://manrs.org/cdn-cloud-providers/actions/",
)
def rpki_caches(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.peering.edge
    if settings is None or not any(s.internet for s in edge_of(ctx).sessions):
        return
    needed = providers()["internet"]["rpki_min_caches"]["value"]
    caches = sorted(str(c.address) for c in settings.rpki_caches)  # one per address (schema)
    if len(caches) < needed:
        have = f"only {listed(caches)}" if caches else "none"
        yield Hit(
            f"the Internet sessions validate route origins against {len(caches)} RPKI "
            f"cache(s) ({have}); list at least {needed} independent RTR caches in rpki_caches"
            + _no_rpki_platform(ctx),
            (*peering_path(ctx), "edge", "rpki_caches") if caches else settings.path,
        )


def _no_rpki_platform(ctx: SiteContext) -> str:
    """Where the Internet-facing devices' platforms cannot validate origins (PLAT-001), the
    standard cannot be met by listing caches: say so, and what remains."""
    devices = sorted({s.device for s in edge_of(ctx).sessions if s.internet})
    unable = [
        d
        for d in devices
        if (p := PLATFORMS.get(ctx.site.devices[d].platform)) is not None
        and not p.capabilities.rpki
    ]
    if not unable:
        return ""
    titles = sorted({PLATFORMS[ctx.site.devices[d].platform].title for d in unable})
    return (
        f"; but {listed(unable)} run {listed(titles)}, which cannot validate origins "
        "(PLAT-001): move them to a platform that can, or waive this rule with the reason "
        "(waivers:), accepting RPKI-invalid routes there"
    )


@rule(
    "EDGE-008",
    "error",
    "Every session's peer address is on our interface's subnet; neither end is its network or "
    "broadcast address",
    "A single-hop eBGP peer outside the connected subnet (or equal to our own address, or the "
    "subnet's network or broadcast address) is never reached: the session stays down. Our own "
    "address on an external port (a cloud VIF or attachment, transit, PNI or IX port) is a "
    "host of its subnet too: the network or broadcast address of an IPv4 subnet up to /30 is "
    "no host's (a /31 has neither, RFC 3021), and the device refuses it or the provider's end "
    "never answers it. Two of our ports on one LAN (the services LAN, an IX's peering LAN: "
    "one subnet in one VRF) never share an address: both would answer ARP for it, and "
    "sessions and RPKI would reach one border or the other at random.",
    "meetme intent consistency (single-hop eBGP, docs/standards.md#edge-gtsm: directly connected "
    "sessions; RFC 4271 https://www.rfc-editor.org/rfc/rfc4271); RFC 1122 section 3.2.1.3 "
    "(network and broadcast addresses) https://www.rfc-editor.org/rfc/rfc1122; RFC 3021 "
    "https://www.rfc-editor.org/rfc/rfc3021",
)
def peer_on_connected_subnet(ctx: SiteContext) -> Iterator[Hit]:
    off_lan = list(_ix_addresses_off_lan(ctx))  # EDGE-015's: reported there alone
    yield from _ours_unusable(ctx, {path for off in off_lan for path in off.paths})
    yield from _ours_twice(ctx)
    edge = edge_of(ctx)
    ports: dict[tuple[str, str], ExternalPort] = {(p.device, p.name): p for p in edge.ports}
    seen: set[tuple[Path_, str]] = set()
    for session in edge.sessions:
        ours = ipaddress.ip_interface(session.local_address)
        peer = ipaddress.ip_address(session.peer_address)
        ix = session.party.split("/")[0]
        if session.peer_lan is not None and any(
            off.ix == ix and {session.local_address, session.peer_address} & off.addresses
            for off in off_lan
        ):
            continue  # an end off the IX's peering LAN: EDGE-015 names it, at that address
        net = ours.network
        problem = None
        if peer not in net:
            problem = f"is not on our subnet {net}"
        elif peer == ours.ip:
            problem = "is our own address"
        elif (
            net.version == 4
            and net.prefixlen <= 30
            and peer
            in (
                net.network_address,
                net.broadcast_address,
            )
        ):
            problem = f"is the network or broadcast address of {net}"
        if problem is None:
            continue
        path = _peer_written(session, ports.get((session.device, session.interface)))
        if (path, session.peer_address) in seen:
            continue
        seen.add((path, session.peer_address))
        yield Hit(
            f"{label(session)} peer {session.peer_address} {problem} ({session.local_address} "
            f"on {session.device} {session.interface}); the session would never come up: "
            "correct the peer or our address",
            path,
        )


# Session kinds whose intent mapping holds the peer address under peer_ipv4 / peer_ipv6
_PEER_KEYED = ("aws", "gcp")
# ... and those whose circuits (`circuits:`, one entry each) hold it
_CIRCUIT_PEER_KEYED = ("transit", "pni")


def _peer_written(session: ExternalSession, port: ExternalPort | None) -> Path_:
    """Where the intent gives the session's peer address, as near as the session knows it.
    IX neighbours are declared apart from the port (their record); a cloud session's peer is
    its own key (peer_ipv4, peer_ipv6), a transit's or PNI's its circuit's; other sessions'
    (Azure's, worked out from the subnet) on the circuit's line."""
    if session.kind in _PEER_KEYED:
        return (*session.source, f"peer_{session.afi}")
    if session.kind in _CIRCUIT_PEER_KEYED and port is not None:
        return (*port.source, f"peer_{session.afi}")
    if session.kind.startswith("ix") or port is None:
        return session.source
    return port.source


def _ours_unusable(ctx: SiteContext, off_lan: set[Path_]) -> Iterator[Hit]:
    """EDGE-008's own-address half: our address on an external port that is the network or
    broadcast address of its subnet (IPv4 up to /30; a /31 has neither, RFC 3021). An IX port
    address off the peering LAN (`off_lan`) is EDGE-015's: moving it onto the LAN is the fix."""
    edge = edge_of(ctx)
    peers: dict[tuple[str, str], set[str]] = defaultdict(set)
    for session in edge.sessions:
        peers[(session.device, session.interface)].add(session.peer_address)
    for port in edge.ports:
        for key in ("ipv4", "ipv6"):
            text = getattr(port, key)
            if text is None:
                continue
            ours = ipaddress.ip_interface(text)
            net = ours.network
            if net.version != 4 or net.prefixlen > 30:
                continue
            if ours.ip == net.network_address:
                what = "network"
            elif ours.ip == net.broadcast_address:
                what = "broadcast"
            else:
                continue
            # the services LAN's source is its `interface`; its address is beside it
            owner = port.source[:-1] if port.source[-1] == "interface" else port.source
            if (*owner, key) in off_lan:
                continue
            taken = peers[(port.device, port.name)]
            host = next((h for h in net.hosts() if str(h) not in taken), net[1])
            yield Hit(
                f"our address {text} on {port.device} {port.name} ({port.description}) is the "
                f"{what} address of {net}, no host's: the session over it would never come up; "
                f"use a host address of the subnet, e.g. {host}/{net.prefixlen}",
                (*owner, key),
            )


class OffLan(NamedTuple):
    """EDGE-015's finding: IX addresses outside their IX's peering LAN of that family."""

    ix: str
    addresses: frozenset[str]  # as written: ours with their length, neighbours' bare
    paths: frozenset[Path_]  # where each of them is written
    message: str
    path: Path_  # where the finding is


_OURS_OFF = (
    "the border has no connected route to the route servers and peers there, so no session "
    "over the port comes up"
)
_THEIRS_OFF = "it is on no port of ours, so its sessions never come up"


def _ix_addresses_off_lan(ctx: SiteContext) -> Iterator[OffLan]:
    """Each IX address outside its IX's peering LAN of that family (our ports' and the route
    servers' and peers'), at the address; or, when not one of a family's is inside, the LAN
    itself, once. An IX with no lan_v6 has no IPv6 neighbour (the schema): nothing to judge."""
    for ix_name, ix in sorted(ctx.site.peering.ixes.items()):
        for afi, key, lan in (("ipv4", "lan_v4", ix.lan_v4), ("ipv6", "lan_v6", ix.lan_v6)):
            if lan is None:
                continue
            outside = f"is outside the IX's peering LAN ({key} {lan})"
            fix = f"give it an address inside {lan}"
            found: list[tuple[str, str, Path_]] = []  # address, its message, where
            for port in ix.ports:
                address = getattr(port, afi)
                if address is not None:
                    xc = ctx.site.cross_connects.get(port.circuit)
                    on = f"{xc.device} {xc.interface}" if xc is not None else "its device"
                    what = f"our address {address} on {on} (IX {ix_name}, {port.circuit})"
                    message = f"{what} {outside}: {_OURS_OFF}; {fix}"
                    found.append((address, message, (*port.path, afi)))
            for kind, neighbors in (("route server", ix.route_servers), ("peer", ix.peers)):
                for name, neighbor in sorted(neighbors.items()):
                    for index, address in enumerate(getattr(neighbor, afi)):
                        what = f"IX {ix_name} {kind} {name}'s address {address}"
                        message = f"{what} {outside}: {_THEIRS_OFF}; {fix}"
                        found.append((address, message, (*neighbor.path, afi, index)))
            network = ipaddress.ip_network(lan)
            off = [f for f in found if ipaddress.ip_interface(f[0]).ip not in network]
            if not off:
                continue
            if len(off) == len(found) > 1:  # all of them agree: the LAN is the one to correct
                yield OffLan(
                    ix_name,
                    frozenset(a for a, _, _ in off),
                    frozenset(p for _, _, p in off),
                    f"IX {ix_name}'s {key} {lan} holds none of its {len(off)} {afi} addresses "
                    f"(ours and the route servers' and peers', e.g. {off[0][0]}): the imports "
                    "would drop routes to the wrong LAN and let the real one in; give the IX's "
                    f"peering LAN as {key}",
                    (*ix.path, key),
                )
                continue
            for address, message, path in off:
                yield OffLan(ix_name, frozenset({address}), frozenset({path}), message, path)


@rule(
    "EDGE-015",
    "error",
    "Our IX ports and the IX's route servers and peers are on the IX's peering LAN",
    "An IX is one shared LAN: our border's port address and every route server's and peer's "
    "address lie inside its `lan_v4` (IPv6: `lan_v6`). A port address outside it gives the "
    "border no connected route to the route servers and peers, and a neighbour's address "
    "outside it is on no port of ours: the intent parses and renders, and nothing routes. When "
    "not one address of a family is inside, the LAN is the typo (the imports would drop routes "
    "to the wrong LAN), reported once at it. The sessions that cannot come up because of it "
    "are this rule's finding, not also EDGE-008's.",
    "docs/standards.md#edge-015; RFC 7947 section 2 (route servers on the IXP's shared "
    "layer-2 network) https://www.rfc-editor.org/rfc/rfc7947",
)
def ix_addresses_on_the_lan(ctx: SiteContext) -> Iterator[Hit]:
    for off in _ix_addresses_off_lan(ctx):
        yield Hit(off.message, off.path)


@rule(
    "EDGE-016",
    "error",
    "No two external parties reached over one port share a neighbour address",
    "A device knows a BGP neighbour by its address in a VRF (`neighbor ADDRESS ...` on every "
    "platform): two parties given one address on one LAN (a route server's entry copied under "
    "a new name, a bilateral peer given a route server's address) are one neighbour in the "
    "config, where the later's ASN, key and policies replace the earlier's or the device "
    "refuses the second. The intent parses and renders, and one party's sessions are silently "
    "gone. At the later party's address (in session order: device, family, kind, name), once "
    "for the devices it is on. One address over two ports of a device is on both ports' "
    "subnets, ADDR-018's (two interfaces in one subnet), or off one of them, EDGE-008's.",
    "docs/standards.md#edge-016; meetme intent consistency (one session per party and "
    "address, docs/standards.md#intent-consistency)",
)
def one_party_per_neighbour_address(ctx: SiteContext) -> Iterator[Hit]:
    edge = edge_of(ctx)
    ports = {(p.device, p.name): p for p in edge.ports}
    first: dict[tuple[str, str, Address], ExternalSession] = {}  # device, port, peer
    clashes: dict[tuple[Path_, str], tuple[ExternalSession, ExternalSession, list[str]]] = {}
    for session in edge.sessions:
        peer = ipaddress.ip_address(session.peer_address)
        earlier = first.setdefault((session.device, session.interface, peer), session)
        if earlier is session:
            continue
        path = _peer_item(ctx, session, ports.get((session.device, session.interface)))
        _, _, devices = clashes.setdefault((path, session.peer_address), (earlier, session, []))
        if session.device not in devices:
            devices.append(session.device)
    for (path, address), (earlier, later, devices) in clashes.items():
        where = "the default VRF" if later.vrf is None else f"VRF {later.vrf}"
        yield Hit(
            f"{label(later)}'s address {address} is {label(earlier)}'s too, on "
            f"{', '.join(devices)} in {where}: a device holds one BGP neighbour per address, "
            "so the config would merge the two and one party's session is lost; give each "
            "party its own address, or remove the copy",
            path,
        )


@rule(
    "EDGE-017",
    "error",
    "No import allow-list entry is shorter than an RIR's largest allocation",
    "An Internet party's `import_prefixes` is the session's allow-list: each entry admits "
    "itself and its more specifics. An entry shorter than IPv4 /8 or IPv6 /16, the largest "
    "block an RIR allocates, admits every route inside it (0.0.0.0/0: the whole Internet "
    "table), so a PNI or IX peer that leaks its transits' routes is stopped by its prefix "
    "limit alone, and the intent still reads as if an allow-list held. The import drops the "
    "entry's own prefix (a default route in disguise) and FLOW-009 stays quiet, as its more "
    "specifics pass. No IRR-generated list holds one: it is a placeholder or a typo. At the "
    "entry.",
    "docs/standards.md#edge-017; RFC 7454 section 6.2 (explicit prefix filters built from "
    "the registries) https://www.rfc-editor.org/rfc/rfc7454",
)
def allow_list_entries_are_allocations(ctx: SiteContext) -> Iterator[Hit]:
    peering = ctx.site.peering
    parties: list[tuple[str, IxNeighbor | Pni]] = [
        (f"IX {ix_name} {kind} {name}", neighbor)
        for ix_name, ix in sorted(peering.ixes.items())
        for kind, neighbors in (("route server", ix.route_servers), ("peer", ix.peers))
        for name, neighbor in sorted(neighbors.items())
    ]
    parties += [(f"PNI {name}", pni) for name, pni in sorted(peering.pnis.items())]
    for what, party in parties:
        for index, prefix in enumerate(party.import_prefixes):
            net = ipaddress.ip_network(prefix)
            shortest = GLOBAL_SHORTEST["ipv6" if net.version == 6 else "ipv4"]
            if net.prefixlen >= shortest:
                continue
            everything = ", the whole Internet table" if net.prefixlen == 0 else ""
            yield Hit(
                f"{what}'s import_prefixes entry {prefix} is shorter than /{shortest}, the "
                f"largest block an RIR allocates: it admits every route inside it{everything}, "
                "so the allow-list no longer limits what the party sends; list the prefixes "
                "agreed with the party (from its IRR as-set)",
                (*party.path, "import_prefixes", index),
            )


@rule(
    "EDGE-018",
    "warning",
    "Every IX has a route server or a peer",
    "An IX's ports are rendered (addresses on the peering LAN, the edge's ingress filters) "
    "whatever neighbours it lists; with no route server and no peer, no session runs over "
    "them, and the intent reads as if the site peered there. A warning: the ports may be "
    "cabled before the first session is agreed. At the IX.",
    "docs/standards.md#edge-018",
)
def ix_has_a_neighbour(ctx: SiteContext) -> Iterator[Hit]:
    for name, ix in sorted(ctx.site.peering.ixes.items()):
        if ix.route_servers or ix.peers:
            continue
        yield Hit(
            f"IX {name} lists no route server and no peer: its {len(ix.ports)} port(s) are "
            "rendered on the peering LAN, and no BGP session runs over them; add its route "
            "servers (route_servers:) or bilateral peers (peers:), or remove the IX",
            ix.path,
        )


def _peer_item(ctx: SiteContext, session: ExternalSession, port: ExternalPort | None) -> Path_:
    """Where the session's peer address is written: an IX neighbour's in its list, the others'
    where `_peer_written` finds them."""
    if not session.kind.startswith("ix"):
        return _peer_written(session, port)
    ix_name, name = session.party.split("/", 1)  # resolve/edge_sessions.py: IX/NEIGHBOUR
    ix = ctx.site.peering.ixes[ix_name]
    neighbour = (ix.route_servers if session.kind == "ix_rs" else ix.peers)[name]
    peer = ipaddress.ip_address(session.peer_address)
    written = [ipaddress.ip_address(a) for a in getattr(neighbour, session.afi)]
    return (*session.source, session.afi, written.index(peer))


def _ours_twice(ctx: SiteContext) -> Iterator[Hit]:
    """EDGE-008's third half: one address of ours on two external ports of one LAN (the same
    subnet in the same VRF), at the later port's address. Link-local subnets are left out: a
    cloud's 169.254.x /30 on two circuits is two links, not one LAN."""
    first: dict[tuple[str | None, str], ExternalPort] = {}
    for port in edge_of(ctx).ports:
        for key in ("ipv4", "ipv6"):
            text = getattr(port, key)
            if text is None:
                continue
            ours = ipaddress.ip_interface(text)
            if ours.is_link_local:
                continue
            earlier = first.setdefault((port.vrf, str(ours)), port)
            if earlier is port or (earlier.device, earlier.name) == (port.device, port.name):
                continue
            owner = port.source[:-1] if port.source[-1] == "interface" else port.source
            yield Hit(
                f"our address {text} is on {earlier.device} {earlier.name} "
                f"({earlier.description}) and again on {port.device} {port.name} "
                f"({port.description}), one LAN: both would answer for it; give each port its "
                "own address",
                (*owner, key),
            )


def _fabric_asns(ctx: SiteContext) -> dict[int, str]:
    """ASN -> who runs it here: the organisation (the borders) and every device of the site,
    less an ASN the ADDR rules report as the device's own mistake (a public internal ASN,
    ADDR-006; a border's other than the organisation's, ADDR-020): a peer that has it is then
    not the one to correct."""
    owners: dict[int, list[str]] = defaultdict(list)
    org_asn = ctx.loaded.intent.organisation.asn
    for uses in asn_uses(ctx).values():
        for use in uses:
            if not misnumbered(use, org_asn):
                owners[use.asn].append(use.who)
    return {asn: listed(sorted(set(who)), 3) for asn, who in owners.items()}


@rule(
    "EDGE-009",
    "error",
    "No external peer has our organisation's ASN or an ASN of the site's fabric",
    "A transit, PNI, IX or cloud peer configured with our own ASN makes the session iBGP, so "
    "none of the eBGP policy applies; with a fabric device's ASN, every route the peer sends "
    "carries that ASN, and the device drops it as a loop (and the peer drops ours). Either is "
    "a typo or a copied line, never a design. Azure's ASN is Microsoft's (AZ-003). A fabric "
    "ASN ADDR-006 or ADDR-020 reports as the device's own mistake is compared with no peer.",
    "RFC 4271 section 9.1.2 (AS_PATH loop detection) https://www.rfc-editor.org/rfc/rfc4271; "
    f"RFC 7454 section 6 {RFC7454}",
)
def peer_asn_not_ours(ctx: SiteContext) -> Iterator[Hit]:
    ours = _fabric_asns(ctx)
    for peer in peer_asns(ctx):
        who = ours.get(peer.asn)
        if who is not None and reserved_asn(peer.asn) is None:  # reserved: ADDR-007's
            yield Hit(
                f"{peer.label} has ASN {peer.asn}, which {who} already runs here: the session "
                "would be iBGP or drop every route as a loop; write the peer's own ASN",
                peer.path,
            )


# The parties whose own ASN heads every path they send (IX route servers do not prepend theirs,
# RFC 7947); the Internet import policy drops any path holding a private ASN.
_FIRST_AS_KINDS = ("transit", "pni", "ix_peer")


@rule(
    "EDGE-010",
    "error",
    "Transits, PNIs and bilateral IX peers have public ASNs",
    "A private ASN (RFC 6996) is never seen on the Internet, so a transit or peer that "
    "claims one is a typo, or a party that will leak its private ASN into our table. Every "
    "path such a peer sends starts with its own ASN, and the import policy meetme generates "
    "for Internet sessions drops paths holding a private ASN: the session would accept "
    "nothing. Cloud on-ramps (AWS amazon_asn, Google's Cloud Router) may use private ASNs; "
    "in a lab, documentation ASNs (RFC 5398) stand in for real peers.",
    "RFC 6996 https://www.rfc-editor.org/rfc/rfc6996; "
    "https://bgpfilterguide.nlnog.net/guides/bogon_asns/",
)
def internet_peer_asn_public(ctx: SiteContext) -> Iterator[Hit]:
    for peer in peer_asns(ctx):
        if peer.kind in _FIRST_AS_KINDS and is_private_asn(peer.asn):
            yield Hit(
                f"{peer.label} has ASN {peer.asn}, a private ASN (RFC 6996): every route it "
                "sends would be dropped by the private-ASN filter; write the peer's public ASN "
                "(PeeringDB lists it)",
                peer.path,
            )


@rule(
    "EDGE-011",
    "error",
    "Party names of a site differ in more than letter case and punctuation",
    "Devices name a party's policies after it in capitals with `-` for `_`, `.` and `/` "
    "(RM-PNI-PNI-CDN-IN-V4, PL-PNI-CDN-IN-V4), so two parties whose names differ only there "
    "would share one route map and prefix list: the second party would be filtered with the "
    "first one's allow-list, accepting what it should not and dropping what was agreed.",
    "docs/standards.md#edge-011",
)
def party_names_distinct(ctx: SiteContext) -> Iterator[Hit]:
    named: dict[str, Path_] = {}  # every party, and each IX by itself (its peering LAN list)
    for session in edge_of(ctx).sessions:
        named.setdefault(session.party, session.source)
        if "/" in session.party:  # an IX's route server or peer: ix/name
            ix = session.party.split("/")[0]
            named.setdefault(ix, (*peering_path(ctx), "ixes", ix))
    first: dict[str, str] = {}
    for name, path in sorted(named.items(), key=lambda item: ctx.loaded.where(item[1])):
        earlier = first.setdefault(party_tag(name), name)
        if earlier != name:
            yield Hit(
                f"party {name} differs from party {earlier} only in letter case or in `-`, `_`, "
                f"`.`: both would be named {party_tag(name)} in the configs and share one "
                "policy; rename one",
                path,
            )


def internet_circuits_off_borders(ctx: SiteContext) -> dict[str, ExternalSession]:
    """Circuit -> its first Internet party's session, for each circuit of an Internet party
    that lands on a device other than a border (EDGE-014: where it lands is the problem, so
    what follows from it there, its port's name or RPKI on that platform, is not another)."""
    found: dict[str, ExternalSession] = {}
    for session in edge_of(ctx).sessions:
        if session.kind not in INTERNET_KINDS or session.circuit in found:
            continue
        if ctx.site.devices[session.device].role != "border":
            found[session.circuit] = session
    return found


@rule(
    "EDGE-014",
    "error",
    "An Internet party's circuit lands on a border router",
    "Transits, IXes and PNIs peer in the borders' default VRF, the Internet table, which the "
    "edge policy, RPKI, the aggregates and the handoff's leaks are built around. A circuit on "
    "a spine, leaf or border leaf puts a full table and the edge sessions into that device's "
    "underlay, whose route maps carry loopbacks only, with none of the borders' protections, "
    "and the tenants' default route never sees it.",
    "docs/standards.md#edge-014",
)
def internet_circuits_on_borders(ctx: SiteContext) -> Iterator[Hit]:
    for session in internet_circuits_off_borders(ctx).values():
        role = ctx.site.devices[session.device].role
        borders = sorted(n for n, d in ctx.site.devices.items() if d.role == "border")
        yield Hit(
            f"{label(session)} is on circuit {session.circuit}, which lands on "
            f"{session.device}, a {role}: the Internet's parties peer on the border routers; "
            f"land it on one of {', '.join(borders) or 'the borders (none defined)'}",
            (*ctx.site.cross_connects[session.circuit].path, "device"),
        )


@rule(
    "EDGE-012",
    "warning",
    "The tenants' default route comes in over two circuits on two borders",
    "A VRF with `internet: default` leaves the site by the borders' default route, which only "
    "a transit or PNI with `accept_default` sends. When every such session rides one circuit, "
    "or circuits landing on one border, one cross-connect cut or one border failure leaves "
    "every such VRF without a way out, however many other parties the site peers with.",
    "docs/standards.md#edge-012",
)
def tenant_default_survives_one_failure(ctx: SiteContext) -> Iterator[Hit]:
    """Per family the VRFs route: a circuit carries a family's default only where it has an
    address of that family. Both families short in the same way are one finding."""
    site = ctx.site
    if site.handoff is None:
        return
    # (circuits, borders) -> each family short on exactly these: (family, VRFs, parties, path)
    short: dict[tuple[tuple[str, ...], tuple[str, ...]], list[tuple[str, list[str], str, Path_]]]
    short = {}
    for afi in ("ipv4", "ipv6"):
        vrfs = sorted(
            name
            for name, vrf in site.handoff.vrfs.items()
            if vrf.internet == "default" and vrf_routes(site, name, afi)
        )
        sources = _default_sources(ctx, afi)
        if not vrfs or not sources:  # no default at all: FLOW-003 names the VRFs
            continue
        circuits = tuple(sorted({circuit for _, circuit, _, _ in sources}))
        borders = tuple(sorted({border for _, _, border, _ in sources if border is not None}))
        if len(circuits) > 1 and len(borders) > 1:
            continue
        parties = ", ".join(sorted({party for party, _, _, _ in sources}))
        short.setdefault((circuits, borders), []).append((afi, vrfs, parties, sources[0][3]))
    for (circuits, borders), families in short.items():
        vrfs = sorted({vrf for _, names, _, _ in families for vrf in names})
        _, _, parties, path = families[0]  # the same circuits: the same parties
        afis = [afi for afi, _, _, _ in families]
        if len(circuits) == 1:
            how = f"over one circuit {circuits[0]}{f' on {borders[0]}' if borders else ''}"
            cut = "one cross-connect or border failure"
        else:
            how = f"over circuits {', '.join(circuits)}, all on {borders[0]}"
            cut = "one border failure"
        family = "" if len(afis) == 2 else f"{FAMILY[afis[0]]} "
        yield Hit(
            f"the {family}default route of every internet: default VRF ({', '.join(vrfs)}) "
            f"comes from {parties} {how}: {cut} leaves them without a way out; set "
            f"accept_default on a transit or PNI with a{'n ' + family if family else ' '}"
            "circuit on the other border",
            path,
        )


def _default_sources(ctx: SiteContext, afi: str) -> list[tuple[str, str, str | None, Path_]]:
    """(party, circuit, border, where accept_default is written): every circuit that carries
    an `accept_default` session of this family."""
    site = ctx.site
    sources: list[tuple[str, str, str | None, Path_]] = []
    for key, kind_label in DIRECT_KINDS.items():
        for name, party in sorted(getattr(site.peering, key).items()):
            if not party.accept_default:
                continue
            for circuit in party.circuits:
                if (circuit.ipv6 if afi == "ipv6" else circuit.ipv4) is None:
                    continue
                xc = site.cross_connects.get(circuit.circuit)
                border = xc.device if xc is not None else None
                path = (*party.path, "accept_default")
                sources.append((f"{kind_label} {name}", circuit.circuit, border, path))
    return sources


LONG_PATHS = "EDGE-013"
rule(
    LONG_PATHS,
    "error",
    "Every external session drops routes whose AS path reaches the site's length limit",
    "A route with an absurdly long AS path (hundreds of prepends) has no business reason and "
    "has crashed routers and blown up update sizes; a legitimate path is a few ASNs long. "
    "Every transit, IX, PNI and cloud session must drop a route whose AS path holds "
    "`peering.edge.drop_as_path_length` ASNs (default 100) or more, by its import policy or, "
    "where the platform has no length match (NX-OS), by BGP's own limit in the session's VRF. "
    "Judged on the built device model, as the router would: a route of that length that the "
    "session would otherwise accept must be dropped.",
    "docs/standards.md#edge-013; https://bgpfilterguide.nlnog.net/guides/long_paths/",
)(reported_elsewhere)

# a public route the import policies accept, when the session names no allow-list of its own
_LONG_PATH_SAMPLE = {"ipv4": "1.1.1.0/24", "ipv6": "2606:4700::/32"}
_FILLER_ASN = 13335  # a public ASN, on no bogon or transit-free list: prepends behind the peer


def long_path_findings(
    loaded: LoadedIntent, fabrics: Mapping[str, SiteFabric], models: Iterable[DeviceModel]
) -> list[Finding]:
    """EDGE-013 on the built models: each external session, given a route it accepts with a
    path one ASN short of the limit, drops the same route with a path of the limit's length."""
    found = []
    built = list(models)
    # a peer with our own ASN or a fabric device's is EDGE-009's: its session is iBGP or
    # loops, and what it would accept is that finding's, not this one's
    ours: dict[str, set[int]] = defaultdict(lambda: {loaded.intent.organisation.asn})
    for model in built:
        ours[model.site].add(model.bgp.asn)
    for model in built:
        fabric = fabrics.get(model.site)
        if fabric is None:
            continue
        sessions = {
            (s.peer_address, s.vrf): s for s in fabric.edge.sessions if s.device == model.hostname
        }
        for n in model.bgp.neighbors:
            s = sessions.get((n.address, n.vrf))
            if not n.external or s is None or n.remote_as in ours[model.site]:
                continue
            message = _accepts_long_path(model, n, s)
            if message is not None:
                found.append(finding_at(loaded, LONG_PATHS, message, s.source))
    return found


def _accepts_long_path(model: DeviceModel, n: BgpNeighbor, s: ExternalSession) -> str | None:
    allowed = [p for p in s.import_prefixes if (":" in p) == (n.afi == "ipv6")]
    prefix = allowed[0] if allowed else _LONG_PATH_SAMPLE[n.afi]
    limit = s.drop_as_path_length
    short = Route(prefix, as_path=(n.remote_as, *[_FILLER_ASN] * (limit - 2)))
    if not evaluate_import(model, n, short).accepted:
        return None  # the session accepts nothing of the kind: no length to judge
    verdict = evaluate_import(model, n, Route(prefix, as_path=(*short.as_path, _FILLER_ASN)))
    if not verdict.accepted:
        return None
    where = f"VRF {n.vrf}" if n.vrf else "the default VRF"
    return (
        f"{model.hostname}: {KIND_LABEL.get(n.kind, n.kind)} {s.party} ({n.address}) accepts "
        f"{prefix} with an AS path of {limit} ASNs (peering.edge.drop_as_path_length: {limit}): "
        f"neither its import policy {n.route_map_in} (clause {verdict.clause}: "
        f"{verdict.description}) nor BGP in {where} drops it"
    )
