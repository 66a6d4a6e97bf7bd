"""SRV6-*: the SRv6 domain (intent `srv6:`), its locators, what the DCI must carry for it, and
that its SIDs never leave it.

The domain spans sites, so the intent-level rules run once, in the first site's context (the
engine calls each rule once per site). SRV6-003 follows routes through the built device models
with the policy evaluator, like the FLOW rules, and SRV6-005 reads the ingress ACLs of the
models' external ports; `srv6_findings` is their entry point, which the pipeline calls beside
`flow_findings`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator
from itertools import combinations

from meetme.generators.build.handoff import AFIS, vrf_routes
from meetme.generators.build.links import pair_link
from meetme.generators.build.srv6 import dci_ip_mtu
from meetme.generators.model import DeviceModel
from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.gaps import srv6_locator
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import FabricLink
from meetme.generators.resolve.srv6 import (
    FORMATS,
    SRV6_SID_SPACE,
    block_of,
    locators,
    members,
)
from meetme.validators.engine import Hit, Path_, SiteContext, finding_at, rule
from meetme.validators.policy_eval import PolicyView, Route, evaluate, propagate

from meetme.core.addresses import FAMILY
from meetme.core.findings import Finding
from meetme.core.problems import listed
from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Intent
from meetme.intent.schema_srv6 import Srv6

SID_BLOCK_NEVER_LEAKS = "SRV6-003"
EDGE_DROPS_SIDS = "SRV6-005"
LOCATORS_CROSS_THE_FABRIC = "SRV6-006"
NO_LOOP_ACROSS_SITES = "SRV6-016"
# node uSIDs at E000 and above are local IDs (Cisco 8000 SRv6 guide, uSID local ID block from
# 0xE000; EOS `end usid` takes 0x1-0xDFFF): a site's byte is at most 0xDF
MAX_SITE_ID = 0xDF
MAX_DEVICE_ID = 0xFF  # the low byte of the node uSID
OUTER_IPV6 = 40  # H.Encaps: one outer IPv6 header (RFC 8986 section 5.1)
SRH_BYTES = 0  # one uSID carrier holds the whole path: no SRH (RFC 9800 section 4, H.Encaps.Red)


def _domain(ctx: SiteContext) -> Srv6 | None:
    intent = ctx.loaded.intent
    if intent.srv6 is None or ctx.name != min(intent.sites):
        return None
    return intent.srv6


@rule(
    "SRV6-001",
    "error",
    "Locators fit the uSID format, sit in one block and are unique",
    "uN forwarding matches the block and the 16-bit node uSID, shifts and looks up again: every "
    "node's locator must be exactly block + node uSID in one block of the format's length, "
    "unique in the domain, and its node uSID below the local-ID range (0xE000, where IOS-XR "
    "allocates service SIDs and above EOS's global range). meetme derives the node uSID from "
    "the site's id (high byte) and the device's id (low byte), so each must fit its byte; the "
    "block must overlap no other address plan.",
    "docs/standards.md#srv6-001",
)
def locators_fit(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    block_len = FORMATS[srv6.format][0]
    block = block_of(srv6)
    if block.prefixlen != block_len:
        yield Hit(
            f"SRv6 block {block} is a /{block.prefixlen}; the {srv6.format} format takes a "
            f"/{block_len} block",
            ("srv6", "block"),
        )
    seen: dict[int, str] = {}
    for site_name, entry in sorted(srv6.sites.items(), key=lambda kv: kv[1].path):
        if not 1 <= entry.id <= MAX_SITE_ID:
            yield Hit(
                f"site {site_name}'s SRv6 id {entry.id} is outside 1-{MAX_SITE_ID}: it is the "
                "high byte of every node uSID, which must stay below the local-ID range 0xE000",
                ("srv6", "sites", site_name, "id"),
            )
        elif entry.id in seen:
            yield Hit(
                f"sites {seen[entry.id]} and {site_name} share SRv6 id {entry.id}: their "
                "devices would take the same locators; give each site its own id",
                ("srv6", "sites", site_name, "id"),
            )
        seen.setdefault(entry.id, site_name)
        for name in members(intent, site_name):
            device = intent.sites[site_name].devices[name]
            if device.id > MAX_DEVICE_ID:
                yield Hit(
                    f"{name}'s id {device.id} does not fit the node uSID's low byte "
                    f"(1-{MAX_DEVICE_ID}): renumber it or leave it out of the SRv6 domain",
                    ("sites", site_name, "devices", name, "id"),
                )
    for where, prefix in _address_plan(intent):
        if block.overlaps(prefix):
            yield Hit(f"SRv6 block {block} overlaps {where} {prefix}", ("srv6", "block"))


def _address_plan(intent: Intent) -> Iterator[tuple[str, ipaddress.IPv6Network]]:
    for aggregate in intent.organisation.aggregates:
        net = ipaddress.ip_network(aggregate)
        if isinstance(net, ipaddress.IPv6Network):
            yield "the organisation's aggregate", net
    for site_name, site in sorted(intent.sites.items()):
        for pool in ("loopback_v6", "p2p_v6"):
            value = getattr(site.pools, pool)
            if value is not None:
                yield f"site {site_name}'s {pool} pool", ipaddress.IPv6Network(value)
    if intent.dci is not None and intent.dci.p2p_v6 is not None:
        yield "the DCI's p2p_v6 pool", ipaddress.IPv6Network(intent.dci.p2p_v6)


@rule(
    "SRV6-002",
    "error",
    "The DCI's MTU carries the largest tenant packet in its SRv6 encapsulation",
    "A tenant packet crossing to another site over SRv6 gains an outer IPv6 header (40 bytes) "
    "and, when its path needs more than one uSID carrier, a segment routing header (8 + 16 per "
    "segment; none here: one carrier holds the path). A DCI circuit whose IP MTU is smaller "
    "than the largest MTU of a VRF's networks plus that overhead drops or fragments exactly the "
    "large packets GPU and storage traffic sends; so does one through a third site that IS-IS "
    "may route the VRF over. Exactly fitting passes.",
    "docs/standards.md#srv6-002",
)
def dci_mtu_covers_encapsulation(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    intent = ctx.loaded.intent
    if srv6 is None or intent.dci is None:
        return
    joined = _joined(intent)
    for vrf, entry in sorted(srv6.vrfs.items()):
        tenant_mtu = _largest_mtu(intent, vrf, entry.sites)
        if tenant_mtu is None:
            continue
        need = tenant_mtu + OUTER_IPV6 + SRH_BYTES
        pairs = {frozenset(p) for p in combinations(entry.sites, 2)}
        for name, circuit in sorted(intent.dci.circuits.items()):
            ends = frozenset((circuit.a.site, circuit.b.site))
            # a circuit between two of its sites, or one through a third site that IS-IS
            # may route the VRF over (both ends in the domain, on a way between its sites)
            if ends not in pairs and not (ends in joined and _between(ends, entry.sites, joined)):
                continue
            mtu = dci_ip_mtu(intent, circuit)
            if mtu < need:
                where: Path_ = ("dci", "circuits", name)
                if circuit.mtu is not None:
                    where = (*where, "mtu")
                yield Hit(
                    f"DCI circuit {name} carries IP packets of {mtu} bytes, but VRF {vrf} rides "
                    f"it over SRv6 with networks of up to {tenant_mtu} bytes: {tenant_mtu} + "
                    f"{OUTER_IPV6} (outer IPv6) + {SRH_BYTES} (SRH) = {need}; raise the "
                    "circuit's mtu or lower the networks'",
                    where,
                )


def _joined(intent: Intent) -> set[frozenset[str]]:
    """The pairs of sites a DCI circuit with both ends in the SRv6 domain joins: where the
    borders' IS-IS runs between sites (DCI-009)."""
    inside = locators(intent)
    circuits = intent.dci.circuits.values() if intent.dci is not None else ()
    return {
        frozenset((c.a.site, c.b.site))
        for c in circuits
        if c.a.device in inside and c.b.device in inside and c.a.site != c.b.site
    }


def _between(ends: frozenset[str], sites: list[str], joined: set[frozenset[str]]) -> bool:
    """Whether the circuit between `ends` lies on a way from one of `sites` to another: with
    it taken out, one end still reaches one of the sites and the other end another one. A
    circuit to a site that leads nowhere else is on no such way."""
    rest = joined - {ends}
    one, other = sorted(ends)
    near = _sites_reached(one, rest) & set(sites)
    far = _sites_reached(other, rest) & set(sites)
    return bool(near) and bool(far) and len(near | far) >= 2


def _largest_mtu(intent: Intent, vrf: str, sites: Iterable[str]) -> int | None:
    mtus = [
        network.mtu
        for site_name in sites
        if site_name in intent.sites
        for tenant in intent.sites[site_name].tenants.values()
        for network in tenant.networks.values()
        if network.vrf == vrf
    ]
    return max(mtus, default=None)


def _border_in_domain(intent: Intent, site_name: str) -> bool:
    """Whether a border of the site holds a locator: the VRF's end there (SRV6-004)."""
    devices = intent.sites[site_name].devices
    return any(devices[n].role == "border" for n in members(intent, site_name))


@rule(
    "SRV6-004",
    "error",
    "Every site of an SRv6 VRF has a border in the domain",
    "A VRF rides SRv6 from a site's borders: they hold its VRF-lite handoff and its VPNv4/VPNv6 "
    "sessions to the other sites. A site named under a VRF's `sites:` none of whose borders "
    "takes a locator (`srv6.sites.<site>.devices`) has no end for it, and the VRF reaches "
    "nothing there while the intent reads as if it did.",
    "docs/standards.md#srv6-004",
)
def vrf_sites_have_borders(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    for vrf, entry in sorted(srv6.vrfs.items()):
        for index, site_name in enumerate(entry.sites):
            if site_name not in intent.sites or site_name not in srv6.sites:
                continue  # a wrong name is the reader's (exit 2)
            if not _border_in_domain(intent, site_name):
                yield Hit(
                    f"VRF {vrf} rides SRv6 to site {site_name}, but no border of "
                    f"{site_name} is in the SRv6 domain: list its borders under "
                    f"srv6.sites.{site_name}.devices (or drop that line for the default)",
                    ("srv6", "vrfs", vrf, "sites", index),
                )


@rule(
    "SRV6-007",
    "error",
    "Every SRv6 VRF has a route target of its own",
    "A VRF's route target is the organisation's ASN and the VRF's `id`, imported and exported "
    "on every border of its sites. Two VRFs with one id import each other's VPN routes: two "
    "tenants joined across sites, with nothing in any one config to show it.",
    "docs/standards.md#srv6-007; RFC 4364 section 4.3.1 (route targets select the VRFs a VPN "
    "route is imported into)",
)
def vrf_route_targets_unique(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    asn = ctx.loaded.intent.organisation.asn
    seen: dict[int, str] = {}
    for vrf, entry in srv6.vrfs.items():  # as written: the later one is renumbered
        first = seen.setdefault(entry.id, vrf)
        if first != vrf:
            yield Hit(
                f"VRFs {first} and {vrf} share SRv6 id {entry.id}: both would import and export "
                f"route target {asn}:{entry.id}, joining the two tenants across sites; give "
                f"{vrf} an id of its own",
                ("srv6", "vrfs", vrf, "id"),
            )


@rule(
    "SRV6-008",
    "error",
    "An SRv6 VRF joins different sites, each of which hands it to its fabric",
    "A VRF rides SRv6 between the VRF-lite handoffs of its sites: at each site the borders join "
    "the VPN to the handoff VRF of that name. A site listed twice joins nothing more; a site "
    "whose handoff does not carry the VRF renders no VRF there while the other sites still "
    "peer for it, so the VRF reaches nothing at that site.",
    "docs/standards.md#srv6-008",
)
def vrf_sites_hand_it_off(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    for vrf, entry in sorted(srv6.vrfs.items()):
        seen: set[str] = set()
        for index, site_name in enumerate(entry.sites):
            where = ("srv6", "vrfs", vrf, "sites", index)
            if site_name in seen:
                yield Hit(
                    f"VRF {vrf} lists site {site_name} twice: a VRF rides SRv6 between "
                    "different sites; remove the repeat",
                    where,
                )
                continue
            seen.add(site_name)
            site = intent.sites.get(site_name)
            if site is None:
                continue  # a wrong name is the reader's (exit 2)
            if site.handoff is None or vrf not in site.handoff.vrfs:
                yield Hit(
                    f"VRF {vrf} rides SRv6 to site {site_name}, but {site_name}'s handoff does "
                    f"not carry it: add {vrf} to sites.{site_name}.handoff.vrfs, or remove "
                    f"{site_name} from the VRF's sites",
                    where,
                )


@rule(
    "SRV6-009",
    "error",
    "DCI circuits inside the SRv6 domain join every site of an SRv6 VRF",
    "The borders' IS-IS runs over the DCI circuits whose two ends hold locators (DCI-009), and "
    "it is what carries the VPN sessions and the SIDs between sites. A VRF whose sites no "
    "chain of such circuits joins renders VPN sessions to loopbacks nothing can reach: they "
    "never come up and the VRF reaches nothing at the far site.",
    "docs/standards.md#srv6-009",
)
def vrf_sites_joined_by_dci(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    joined = _joined(intent)
    for vrf, entry in sorted(srv6.vrfs.items()):
        # a site with no border in the domain has no end for the VRF at all: SRV6-004's
        ends = [
            (index, name)
            for index, name in enumerate(entry.sites)
            if name in intent.sites and name in srv6.sites and _border_in_domain(intent, name)
        ]
        if not ends:
            continue
        first = ends[0][1]
        reached = _sites_reached(first, joined)
        for index, site_name in ends:
            if site_name in reached:
                continue
            yield Hit(
                f"VRF {vrf} rides SRv6 between {first} and {site_name}, but no DCI circuit "
                f"with both ends in the SRv6 domain joins {site_name} to {first}, directly or "
                "through other sites: its VPN sessions would never come up; add a circuit "
                "between their domain borders (dci.circuits)",
                ("srv6", "vrfs", vrf, "sites", index),
            )


def _sites_reached(start: str, joined: set[frozenset[str]]) -> set[str]:
    """The sites a chain of circuits joins to `start`, `start` included."""
    reached, frontier = {start}, [start]
    while frontier:
        here = frontier.pop()
        for pair in joined:
            if here in pair:
                for other in pair - reached:
                    reached.add(other)
                    frontier.append(other)
    return reached


@rule(
    "SRV6-010",
    "error",
    "Every border that hands an SRv6 VRF to the fabric is in the domain",
    "The border leaves send each handoff VRF's traffic to every border they are linked to. A "
    "border that carries the handoff of a VRF riding SRv6 but holds no locator has no VPN "
    "route to the other sites: the flows that hash to it follow its Internet default out of "
    "the site, or are dropped, while its partner carries the rest correctly.",
    "docs/standards.md#srv6-010",
)
def handoff_borders_in_domain(ctx: SiteContext) -> Iterator[Hit]:
    intent = ctx.loaded.intent
    srv6 = intent.srv6
    handoff = ctx.site.handoff
    if srv6 is None or handoff is None or ctx.name not in srv6.sites:
        return
    if srv6.sites[ctx.name].devices is None:
        return  # the default: every border is in
    riding = sorted(v for v, e in srv6.vrfs.items() if ctx.name in e.sites and v in handoff.vrfs)
    if not riding or not _border_in_domain(intent, ctx.name):
        return  # no such VRF, or no border in the domain at all: SRV6-004's
    inside = set(members(intent, ctx.name))
    devices = ctx.site.devices
    leaves = set(handoff.border_leaves)
    carrying = {
        end.device
        for link in ctx.fabric.links
        for end, other in ((link.a, link.b), (link.b, link.a))
        if other.device in leaves and devices[end.device].role == "border"
    }
    # what such a flow does there: a VRF with Internet access follows the default out of
    # the Internet edge, one without is dropped
    out = [v for v in riding if handoff.vrfs[v].internet == "default"]
    fate = " and ".join(
        part
        for part in (
            f"follow its Internet default ({listed(out)})" if out else "",
            f"are dropped ({listed([v for v in riding if v not in out])})"
            if len(out) < len(riding)
            else "",
        )
        if part
    )
    for border in sorted(carrying - inside):
        yield Hit(
            f"{border} carries the handoff of {listed(riding)} (riding SRv6 to other sites) "
            "but is outside the SRv6 domain: the flows the border leaves send it have no VPN "
            f"route and {fate}; list {border} in srv6.sites.{ctx.name}.devices",
            ("srv6", "sites", ctx.name, "devices"),
        )


@rule(
    "SRV6-011",
    "error",
    "The sites of an SRv6 VRF use address space of their own",
    "A VRF riding SRv6 is one routing table across its sites: each border prefers the route "
    "from its own border leaves (eBGP) to the far site's (iBGP VPN), so a subnet or an "
    "export_north prefix that two sites both hold is reachable from neither at the other, and "
    "one site's hosts shadow the other's.",
    "docs/standards.md#srv6-011; RFC 4364 section 4 (addresses unique within a VPN)",
)
def vrf_sites_apart(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    for vrf, entry in sorted(srv6.vrfs.items()):
        held: list[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network]] = []
        for site_name in dict.fromkeys(entry.sites):  # a repeat is SRV6-008's
            if site_name not in intent.sites:
                continue
            mine = list(_vrf_space(intent, site_name, vrf))
            for what, net, path in mine:
                clash = next(
                    (
                        (site, other)
                        for site, other in held
                        if other.version == net.version and other.overlaps(net)
                    ),
                    None,
                )
                if clash is not None:
                    yield Hit(
                        f"VRF {vrf} rides SRv6 between {clash[0]} and {site_name}, and "
                        f"{site_name}'s {what} {net} overlaps {clash[0]}'s {clash[1]}: each "
                        "border prefers its own site's route, so neither site reaches the "
                        f"other's; give {site_name} address space of its own",
                        path,
                    )
            held += [(site_name, net) for _, net, _ in mine]


def _vrf_space(
    intent: Intent, site_name: str, vrf: str
) -> Iterator[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network, Path_]]:
    """What the site holds of the VRF: its networks' subnets and its handoff's export_north."""
    site = intent.sites[site_name]
    for tenant in site.tenants.values():
        for name, network in tenant.networks.items():
            if network.vrf != vrf:
                continue
            for key in ("gateway_v4", "gateway_v6"):
                value = getattr(network, key)
                if value is not None:
                    subnet = ipaddress.ip_interface(value).network
                    yield f"network {name}", subnet, (*network.path, key)
    if site.handoff is None or vrf not in site.handoff.vrfs:
        return
    handoff = site.handoff.vrfs[vrf]
    for index, prefix in enumerate(handoff.export_north):
        yield "export_north", ipaddress.ip_network(prefix), (*handoff.path, "export_north", index)


@rule(
    "SRV6-012",
    "warning",
    "The sites of an SRv6 VRF route a family in common",
    "The VPN carries each family on its own (VPNv4, VPNv6): a VRF whose networks are IPv4 at "
    "one site and IPv6 at another has nothing the two ends can exchange, and rides SRv6 "
    "between them on paper only.",
    "docs/standards.md#srv6-012",
)
def vrf_sites_share_a_family(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    for vrf, entry in sorted(srv6.vrfs.items()):
        sites = [n for n in dict.fromkeys(entry.sites) if n in intent.sites]
        routed = {n: {afi for afi in AFIS if vrf_routes(intent.sites[n], vrf, afi)} for n in sites}
        first = next((n for n in sites if routed[n]), None)
        for index, site_name in enumerate(entry.sites):
            if first is None or site_name == first or not routed.get(site_name):
                continue  # a site with no network of the VRF: nothing to compare
            if not routed[site_name] & routed[first]:
                yield Hit(
                    f"VRF {vrf} rides SRv6 between {first} and {site_name}, but its networks "
                    f"route {_families(routed[first])} at {first} and "
                    f"{_families(routed[site_name])} at {site_name}: the two ends have no "
                    "family in common to exchange; give them networks of one family",
                    ("srv6", "vrfs", vrf, "sites", index),
                )


def _families(afis: Iterable[str]) -> str:
    return " and ".join(FAMILY[afi] for afi in sorted(afis))


@rule(
    "SRV6-013",
    "error",
    "The border pair links of the SRv6 domain carry the largest tenant packet in its SRv6 "
    "encapsulation",
    "The borders' IS-IS runs over the links between the two borders of a site when both are in "
    "the domain, so those links are on the way of the VRFs' SRv6 packets: a border whose own DCI "
    "circuit is down (the failure DCI-002 plans for) reaches the far site through its pair, and "
    "so does every flow through a site that has one border on the way (a third site between two "
    "sites of a VRF). Each such packet is a tenant packet plus 40 bytes of outer IPv6 (no SRH: "
    "one uSID carrier). A pair link whose IP MTU is below that drops exactly the large packets, "
    "while its BGP and IS-IS, which send small ones, stay up: the failover looks healthy and "
    "large transfers hang. EVPN-001 leaves these links out (they carry no VXLAN), and SRV6-002 "
    "checks the DCI circuits only. Exactly fitting passes.",
    "docs/standards.md#srv6-013",
)
def pair_links_carry_encapsulation(ctx: SiteContext) -> Iterator[Hit]:
    intent = ctx.loaded.intent
    srv6 = intent.srv6
    if srv6 is None or ctx.name not in srv6.sites:
        return
    joined = _joined(intent)
    riding: list[tuple[int, str]] = []  # (largest network MTU, VRF) of the VRFs crossing here
    for vrf, entry in sorted(srv6.vrfs.items()):
        tenant_mtu = _largest_mtu(intent, vrf, entry.sites)
        if tenant_mtu is None:
            continue
        through = any(ctx.name in ends and _between(ends, entry.sites, joined) for ends in joined)
        if ctx.name in entry.sites or through:
            riding.append((tenant_mtu, vrf))
    if not riding:
        return
    tenant_mtu = max(m for m, _ in riding)
    vrf = next(v for m, v in riding if m == tenant_mtu)  # the first by name of the largest
    need = tenant_mtu + OUTER_IPV6 + SRH_BYTES
    for link in _domain_pair_links(ctx):
        end = min((link.b, link.a), key=lambda e: e.ip_mtu)  # b first: as EVPN-001 points
        if end.ip_mtu >= need:
            continue
        yield Hit(
            f"border pair link {link.a.device} {link.a.interface} - {link.b.device} "
            f"{link.b.interface} carries IP packets of {end.ip_mtu} bytes, but the SRv6 "
            f"domain's IS-IS runs over it and VRF {vrf} crosses it over SRv6 with networks of "
            f"up to {tenant_mtu} bytes: {tenant_mtu} + {OUTER_IPV6} (outer IPv6) + {SRH_BYTES} "
            f"(SRH) = {need}, dropped whenever a border reaches the far site through its pair "
            f"(its own DCI circuit down); raise the link's mtu to at least {need} or lower the "
            "networks'",
            end.ip_mtu_source,
        )


@rule(
    "SRV6-015",
    "error",
    "A border pair link inside the SRv6 domain has IPv6 addresses",
    "meetme renders the borders' IS-IS over the links between a site's two borders when both "
    "hold locators, in its IPv6 topology only. IS-IS gives an IPv6 route the neighbour's "
    "link-local address as next hop, so a port with no IPv6 is in no IPv6 topology: no SRv6 "
    "packet crosses the pair, and a border whose DCI circuit is down, or a site between two "
    "sites of a VRF whose way in and way out land on different borders, has no way through "
    "while the IS-IS stanza reads as if it had one. DCI-012 asks the same of the DCI circuits.",
    "docs/standards.md#srv6-015",
)
def pair_links_in_domain_have_ipv6(ctx: SiteContext) -> Iterator[Hit]:
    intent = ctx.loaded.intent
    if intent.srv6 is None or ctx.name not in intent.srv6.sites:
        return
    for link in _domain_pair_links(ctx):
        if link.subnet_v6 is not None:
            continue
        yield Hit(
            f"border pair link {link.a.device} {link.a.interface} - {link.b.device} "
            f"{link.b.interface} has no IPv6 address (site {ctx.name} has no pools.p2p_v6 and "
            "the link sets no ipv6), but both borders hold SRv6 locators and the domain's IS-IS "
            "runs its IPv6 topology over it: no SRv6 packet can cross the pair, so a border "
            "whose DCI circuit is down reaches no other site through it; give site "
            f"{ctx.name} a pools.p2p_v6 or the link an ipv6",
            link.source,
        )


def _domain_pair_links(ctx: SiteContext) -> Iterator[FabricLink]:
    """The site's border pair links whose two ends hold locators: the links the domain's
    IS-IS runs over (generators/build/srv6.py)."""
    intent = ctx.loaded.intent
    inside = locators(intent)
    devices = ctx.site.devices
    for link in ctx.fabric.links:
        ends_inside = link.a.device in inside and link.b.device in inside
        if ends_inside and pair_link(intent, ctx.site, devices[link.a.device], link.b):
            yield link


@rule(
    "SRV6-014",
    "error",
    "Every border that carries an SRv6 VRF has an IPv6 loopback",
    "The VPN sessions that carry an SRv6 VRF between sites run between the borders' IPv6 "
    "loopbacks (iBGP with update-source Loopback0), and that address is the source of every "
    "packet the border encapsulates (IOS-XR `segment-routing srv6 encapsulation "
    "source-address`, which Cisco requires once SRv6 carries L3VPN). A border of the VRF "
    "without one gets no session from the other sites' borders, and its own sessions have no "
    "address to come from: the VRF reaches nothing across the sites, though each site's "
    "config looks complete.",
    "docs/standards.md#srv6-014",
)
def vrf_borders_have_ipv6_loopbacks(ctx: SiteContext) -> Iterator[Hit]:
    srv6 = _domain(ctx)
    if srv6 is None:
        return
    intent = ctx.loaded.intent
    for site_name in sorted({s for entry in srv6.vrfs.values() for s in entry.sites}):
        if site_name not in intent.sites or site_name not in srv6.sites:
            continue  # a wrong name is the reader's (exit 2)
        site = intent.sites[site_name]
        vrfs = sorted(v for v, e in srv6.vrfs.items() if site_name in e.sites)
        for name in members(intent, site_name):
            device = site.devices[name]
            if device.role != "border" or allocate.loopback_v6(site, device) is not None:
                continue
            yield Hit(
                f"{name} carries SRv6 {'VRF' if len(vrfs) == 1 else 'VRFs'} {listed(vrfs)} "
                f"but has no IPv6 loopback (site {site_name} has no pools.loopback_v6 and "
                f"{name} sets no loopback_v6): the VPN sessions between the sites' borders run "
                "between IPv6 loopbacks, which also source the SRv6 encapsulation, so the other "
                f"sites' borders render no session to {name} and its own never come up; give "
                f"site {site_name} a pools.loopback_v6",
                ("sites", site_name, "devices", name),
            )


rule(
    SID_BLOCK_NEVER_LEAKS,
    "error",
    "The SRv6 block never leaves the domain in BGP and is never accepted into it",
    "SRv6 trusts the domain: a packet from outside addressed to one of our SIDs would run our "
    "instructions (RFC 8402 section 8, RFC 8754 section 5.1). Neither the block nor any "
    "locator may be announced to a transit, IX, PNI or cloud, and none may be accepted from "
    "one (5f00::/16 belongs in every inbound bogon filter). Each external session's export and "
    "import policy is run on the block and every locator as the router would.",
    "docs/standards.md#srv6-003",
)(lambda _ctx: iter(()))  # run on the built models by srv6_findings


rule(
    EDGE_DROPS_SIDS,
    "error",
    "Every external port of an SRv6 domain member drops packets addressed to the SRv6 block",
    "A device that holds a locator executes any packet addressed to one of its SIDs, wherever "
    "the packet came from (RFC 8754 section 5.1, RFC 8986 section 9.3). Keeping the block out "
    "of BGP (SRV6-003) does not stop a transit, IX member, PNI or cloud from sending such "
    "packets anyway: every external port of a domain member that carries IPv6 needs an "
    "ingress filter whose first match for the block is a deny.",
    "docs/standards.md#srv6-005",
)(lambda _ctx: iter(()))


rule(
    LOCATORS_CROSS_THE_FABRIC,
    "error",
    "Every fabric member's locator reaches every device of its site's underlay",
    "A leaf in the domain holds static uN SIDs that the GPU NICs steer their packets through: "
    "each hop forwards a packet whose active uSID is that leaf's by a route to the leaf's "
    "locator (RFC 9800 section 4; the SID is installed as an IPv6 route, CLDOCS 'Segment "
    "Routing'). No IGP hands these locators out inside the fabric, so the eBGP underlay must: "
    "the member originates its locator and every underlay policy on the way lets it through. "
    "A device the route does not reach drops every packet steered through that leaf.",
    "docs/standards.md#srv6-006",
)(lambda _ctx: iter(()))


rule(
    NO_LOOP_ACROSS_SITES,
    "error",
    "The routes an SRv6 VRF carries between sites hold no ASN of a device that must learn them",
    "A VRF riding SRv6 joins the sites' BGP: a route of one site reaches the other with its "
    "whole AS path (the leaf that originates it, the spines and super-spines on the way, the "
    "border leaf, then the borders), and every border leaf, spine and leaf of the other site "
    "drops a route whose AS path holds its own ASN (RFC 4271 section 9.1.2; meetme renders no "
    "allowas-in). Two sites numbered from one plan (the same asn.base, the same shared spine "
    "ASN: a site copied from another) each pass their own lint, and the VRF carries nothing "
    "between them past the first device whose ASN the far site also uses. Each far site's "
    "routes are followed over its EVPN sessions to its border leaves (policy_eval.propagate), "
    "and each device of the near site that carries them (its border leaves and spines, the "
    "VTEPs of the VRF) is compared with what they hold.",
    "docs/standards.md#srv6-016; RFC 4271 section 9.1.2; RFC 7938 section 5.2.2 (ASNs reused "
    "across clusters need allowas-in)",
)(lambda _ctx: iter(()))


def srv6_findings(loaded: LoadedIntent, models: Iterable[DeviceModel]) -> list[Finding]:
    """SRV6-003, SRV6-005, SRV6-006 and SRV6-016 on the built models."""
    models = list(models)
    return (
        _sid_leaks(loaded, models)
        + _unfiltered_ports(loaded, models)
        + _stranded_locators(loaded, models)
        + _looped_routes(loaded, models)
    )


TRANSIT_ROLES = ("spine", "super_spine")  # carry every VTEP's routes, whatever its VRFs


def _looped_routes(loaded: LoadedIntent, models: list[DeviceModel]) -> list[Finding]:
    """SRV6-016: per SRv6 VRF and ordered pair of its sites, the ASNs the far site's routes of
    the VRF carry when its border leaves hand them to its borders, against the ASN of each
    device of the near site that must pass them on or hold them."""
    intent = loaded.intent
    if intent.srv6 is None:
        return []
    by_site: dict[str, dict[str, DeviceModel]] = {}
    for model in models:
        by_site.setdefault(model.site, {})[model.hostname] = model
    views = {site: PolicyView(mine) for site, mine in by_site.items()}
    found = []
    for vrf, entry in sorted(intent.srv6.vrfs.items()):
        sites = [s for s in dict.fromkeys(entry.sites) if _hands_off(intent, s, vrf, by_site)]
        held = {s: _asns_carried(intent, s, vrf, by_site[s], views[s]) for s in sites}
        for near in sites:
            needing = _needing(intent, near, vrf, by_site[near], views[near])
            for far in (s for s in sites if s != near):
                for asn, far_devices in sorted(held[far].items()):
                    clash = sorted(n for n in needing if by_site[near][n].bgp.asn == asn)
                    if not clash:
                        continue
                    found.append(
                        finding_at(
                            loaded,
                            NO_LOOP_ACROSS_SITES,
                            f"VRF {vrf} rides SRv6 from {far} to {near}, and {far}'s routes of "
                            f"it can arrive with AS paths holding ASN {asn} "
                            f"({listed(sorted(far_devices))}), which {listed(clash)} of "
                            f"{near} also {'runs' if len(clash) == 1 else 'run'}: BGP drops a "
                            "route whose AS path holds its own ASN (meetme renders no "
                            f"allowas-in), so {far}'s {vrf} prefixes stop there; give the two "
                            "sites ASNs of their own",
                            ("sites", near, "asn"),
                        )
                    )
    return found


def _hands_off(
    intent: Intent, site_name: str, vrf: str, by_site: dict[str, dict[str, DeviceModel]]
) -> bool:
    site = intent.sites.get(site_name)
    return (
        site_name in by_site
        and site is not None
        and site.handoff is not None
        and vrf in site.handoff.vrfs
    )


def _asns_carried(
    intent: Intent, site_name: str, vrf: str, mine: dict[str, DeviceModel], view: PolicyView
) -> dict[int, set[str]]:
    """Each ASN on the AS path of some route of the VRF as the site's border leaves hand it
    to the borders (theirs prepended), with the site's devices that run it."""
    handoff = intent.sites[site_name].handoff
    border_leaves = [b for b in handoff.border_leaves if b in mine] if handoff else []
    asns: set[int] = set()
    for origin in _origins(mine, vrf):  # EVPN sessions carry no route maps: one walk per VTEP
        spread = propagate(mine, origin, "0.0.0.0/0", "overlay", view=view)
        for leaf in border_leaves:
            if leaf in spread.paths:
                asns.update((mine[leaf].bgp.asn, *spread.paths[leaf]))
    held: dict[int, set[str]] = {}
    for name, model in mine.items():
        if model.bgp.asn in asns:
            held.setdefault(model.bgp.asn, set()).add(name)
    return held


def _origins(mine: dict[str, DeviceModel], vrf: str) -> list[str]:
    """Every VTEP with a gateway of the VRF: EVPN originates the VRF's subnets from them."""
    return sorted(
        name
        for name, model in mine.items()
        if model.evpn is not None
        and any(
            vlan.vrf == vrf and (vlan.gateway_v4 is not None or vlan.gateway_v6 is not None)
            for vlan in model.evpn.vlans
        )
    )


def _needing(
    intent: Intent, site_name: str, vrf: str, mine: dict[str, DeviceModel], view: PolicyView
) -> set[str]:
    """The site's devices another site's routes of the VRF must reach or pass: its border
    leaves, and every spine, super-spine and VTEP of the VRF their EVPN sessions reach."""
    handoff = intent.sites[site_name].handoff
    border_leaves = [b for b in handoff.border_leaves if b in mine] if handoff else []
    needing = set(border_leaves)
    for leaf in border_leaves:
        for name in propagate(mine, leaf, "0.0.0.0/0", "overlay", view=view).paths:
            model = mine[name]
            vrfs = {v.name for v in model.evpn.vrfs} if model.evpn else set()
            if model.role in TRANSIT_ROLES or vrf in vrfs:
                needing.add(name)
    return needing


def _locator_refused(model: DeviceModel) -> bool:
    """Whether PLAT-019 refuses the device's locator: its platform has no SRv6, its ASIC does
    not forward uSIDs, or it does not take the domain's format. Such a device holds no SID
    once deployed, so what SRV6-005 and SRV6-006 would say of its locator follows from that
    one refusal, which names the cause."""
    return any(srv6_locator(PLATFORMS[model.platform], model))


def _stranded_locators(loaded: LoadedIntent, models: list[DeviceModel]) -> list[Finding]:
    """SRV6-006: each fabric member's locator (a domain member that is not a border: static
    uN SIDs, no IGP), originated by the member into the IPv6 underlay and followed over every
    underlay session through its policies (policy_eval.propagate), reaches every device of the
    site that runs the underlay."""
    by_name = {m.hostname: m for m in models}
    sites: dict[str, tuple[dict[str, DeviceModel], PolicyView]] = {}
    found = []
    for name, locator in sorted(locators(loaded.intent).items()):
        member = by_name.get(name)
        if member is None or member.role == "border":
            continue
        if _locator_refused(member):
            continue  # a locator its platform cannot render is PLAT-019's: one report
        if not any(n.kind == "underlay" for n in member.bgp.neighbors):
            # no fabric link at all: its missing uplinks are TOPO-001's (leaves, spines),
            # TOPO-002's (super-spines) or PHY-006's (border leaves), the cause; one report
            continue
        if member.site not in sites:
            mine = {m.hostname: m for m in models if m.site == member.site}
            sites[member.site] = (mine, PolicyView(mine))  # read once for all its locators
        site, view = sites[member.site]
        path: Path_ = ("srv6", "sites", member.site, "devices")
        prefix = locator.prefix
        if prefix not in member.bgp.networks_v6:
            why = (
                "the site has no IPv6 underlay (pools loopback_v6 and p2p_v6) to carry it"
                if not member.bgp.runs_underlay("ipv6")
                else f"{name} does not originate it into the IPv6 underlay"
            )
            missing = sorted(n for n in site if n != name)
        else:
            reached = propagate(site, name, prefix, view=view).paths
            missing = sorted(
                n for n, m in site.items() if n not in reached and m.bgp.runs_underlay("ipv6")
            )
            why = "the underlay policies on the way do not let the locator through"
        if not missing:
            continue
        found.append(
            finding_at(
                loaded,
                LOCATORS_CROSS_THE_FABRIC,
                f"{name}'s locator {prefix} (its uN SID) is not routed on {listed(missing)}: "
                f"{why}; a device without the route drops every packet the NICs steer "
                f"through {name}",
                path,
            )
        )
    return found


def _unfiltered_ports(loaded: LoadedIntent, models: list[DeviceModel]) -> list[Finding]:
    """SRV6-005: every external port (a port an external BGP session runs over) of a device
    with a locator, when it has IPv6 and no ingress IPv6 ACL drops the whole block."""
    srv6 = loaded.intent.srv6
    if srv6 is None:
        return []
    block = block_of(srv6)
    found = []
    for model in models:
        if model.srv6 is None or _locator_refused(model):
            continue  # a locator its platform cannot render is PLAT-019's: one report
        parties: dict[str, set[str]] = {}
        for n in model.bgp.neighbors:
            if n.external:
                parties.setdefault(n.local_interface, set()).add(f"{n.kind} {n.party}")
        path: Path_ = ("srv6", "sites", model.site, "devices")
        for intf in model.interfaces:
            if intf.name not in parties or intf.ipv6 is None or _drops(model, intf.acls_in, block):
                continue
            found.append(
                finding_at(
                    loaded,
                    EDGE_DROPS_SIDS,
                    f"{model.hostname} {intf.name} (toward "
                    f"{', '.join(sorted(parties[intf.name]))}) forwards packets addressed to "
                    f"the SRv6 block {block}: no ingress IPv6 ACL on it drops them, so anyone "
                    f"outside can run {model.hostname}'s SIDs",
                    path,
                )
            )
    return found


def _drops(model: DeviceModel, names: Iterable[str], block: ipaddress.IPv6Network) -> bool:
    """Whether one of the ingress ACLs drops every packet to the block from any source: its
    first rule that can match such a packet denies them all (a permit, or a deny for some
    sources only, before it lets some through). A packet no rule matches is dropped only where
    the platform ends every ACL in a deny (Cumulus lets it through)."""
    acls = {acl.name: acl for acl in model.acls}
    unmatched_dropped = PLATFORMS[model.platform].acl_drops_unmatched
    for name in names:
        acl = acls.get(name)
        if acl is None or acl.afi != "ipv6" or not acl.rules:
            continue  # an empty ACL has no implicit deny (ASR 9000 XR ACL command reference)
        for entry in sorted(acl.rules, key=lambda r: r.seq):
            dst = ipaddress.IPv6Network(entry.destination) if entry.destination else None
            if dst is not None and not dst.overlaps(block):
                continue
            if entry.action == "permit":
                break
            if entry.source is None and (dst is None or block.subnet_of(dst)):
                return True
        else:
            if unmatched_dropped:
                return True  # nothing matched: the implicit deny at the end takes the block
    return False


def _sid_leaks(loaded: LoadedIntent, models: list[DeviceModel]) -> list[Finding]:
    """SRV6-003 on the built models: every external session's policies against the block and
    every locator of the domain."""
    srv6 = loaded.intent.srv6
    if srv6 is None:
        return []
    prefixes = [str(block_of(srv6)), *(loc.prefix for loc in locators(loaded.intent).values())]
    path: Path_ = ("srv6", "block") if srv6.block is not None else ("srv6",)
    found = []
    hint = (
        "" if block_of(srv6).subnet_of(SRV6_SID_SPACE) else
        "; draw the block from 5f00::/16 (RFC 9602), which every import policy drops as a bogon"
    )  # fmt: skip
    for model in models:
        # per device and direction: the sessions that let an SRv6 prefix through, and which
        leaks: dict[str, dict[str, set[str]]] = {"announces": {}, "accepts": {}}
        for n in model.bgp.neighbors:
            if not n.external or n.afi != "ipv6":
                continue
            for prefix in prefixes:
                for way, policy in (("announces", n.route_map_out), ("accepts", n.route_map_in)):
                    if evaluate(model, policy, Route(prefix)).accepted:
                        leaks[way].setdefault(n.description, set()).add(prefix)
        for way, sessions in leaks.items():
            if not sessions:
                continue
            leaked = sorted({p for ps in sessions.values() for p in ps}, key=_prefix_key)
            found.append(
                finding_at(
                    loaded,
                    SID_BLOCK_NEVER_LEAKS,
                    f"{model.hostname} {way} SRv6 prefixes {', '.join(leaked)} "
                    f"{'to' if way == 'announces' else 'from'} {', '.join(sorted(sessions))}: "
                    f"their {'export' if way == 'announces' else 'import'} policies let them "
                    f"through{hint}",
                    path,
                )
            )
    return found


def _prefix_key(prefix: str) -> tuple[int, int]:
    net = ipaddress.ip_network(prefix)
    return int(net.network_address), net.prefixlen
