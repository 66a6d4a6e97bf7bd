"""ADDR-*: addressing and numbering (docs/standards.md#addr).

The rules read addresses and ASNs through generators.allocate and the resolved fabric, so they
check what is rendered, not only what is written.
"""

from __future__ import annotations

import ipaddress
import socket
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from meetme.generators.build.edge_policy import (
    BOGONS_V4,
    BOGONS_V6,
    GLOBAL_LONGEST,
    GLOBAL_SHORTEST,
)
from meetme.generators.build.underlay import loopback_pools, underlay_v6
from meetme.generators.model import DeviceModel, Interface
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.generators.resolve.indexes import memo
from meetme.generators.resolve.srv6 import locators
from meetme.validators.engine import Hit, Path_, SiteContext, finding_at, reported_elsewhere, rule
from meetme.validators.rules.peers import peer_asns

from meetme.core import addresses
from meetme.core.findings import Finding
from meetme.core.numbering import (
    Network,
    documentation_asn,
    documentation_prefix,
    is_private_asn,
    reserved_asn,
)
from meetme.core.problems import listed
from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Site
from meetme.intent.schema_base import Node

if TYPE_CHECKING:
    from meetme.generators.resolve.fabric import FabricLink, SiteFabric

ORG_ASN: Path_ = ("organisation", "asn")
PRIVATE_RANGES = "64512-65534 or 4200000000-4294967294"
POOL_KEYS = ("loopback_v4", "loopback_v6", "vtep_v4", "p2p_v4", "p2p_v6")


def _fabric(ctx: SiteContext) -> SiteFabric:
    return ctx.fabric


def _is_explicit(link: FabricLink) -> bool:
    return len(link.source) >= 2 and link.source[-2] == "links"


def _link_label(link: FabricLink) -> str:
    return (
        f"{link.a.device} {link.a.interface} - {link.b.device} {link.b.interface} ({link.origin})"
    )


@dataclass(frozen=True)
class Loopback:
    device: str
    device_id: int
    key: str  # the device field and pool it comes from: loopback_v4, loopback_v6, vtep_v4
    address: ipaddress.IPv4Interface | ipaddress.IPv6Interface
    explicit: bool  # written on the device, not drawn from the pool
    path: Path_

    @property
    def label(self) -> str:
        return f"{self.device} {self.key} {self.address}"


_MEMO = "rules.addr.loopbacks"


def _loopbacks(ctx: SiteContext) -> tuple[Loopback, ...]:
    """Every loopback of the site's devices, by device id; worked out once per site (ADDR-001,
    ADDR-002, ADDR-005 and ADDR-014 each read them all)."""
    return _loopbacks_of(ctx.site)


def _loopbacks_of(site: Site) -> tuple[Loopback, ...]:
    return memo(site, _MEMO, lambda: _site_loopbacks(site))


def _site_loopbacks(site: Site) -> tuple[Loopback, ...]:
    found = []
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        for key, allocator in (
            ("loopback_v4", allocate.loopback_v4),
            ("vtep_v4", allocate.vtep_v4),
            ("loopback_v6", allocate.loopback_v6),
        ):
            try:
                value = allocator(site, device)
            except PoolExhausted:
                continue  # ADDR-015 reports the id outside the pool
            if value is not None:
                found.append(
                    Loopback(
                        name,
                        device.id,
                        key,
                        addresses.interface(value),
                        getattr(device, key) is not None,
                        (*device.path, key),
                    )
                )
    return tuple(found)


def _duplicates(loopbacks: Iterable[Loopback]) -> Iterator[list[Loopback]]:
    """Groups of loopbacks sharing an address; pool-drawn ones first, so an override is the
    one reported."""
    by_address: dict[object, list[Loopback]] = defaultdict(list)
    for loopback in loopbacks:
        by_address[loopback.address.ip].append(loopback)
    for group in by_address.values():
        if len(group) > 1:
            yield sorted(group, key=lambda lo: (lo.explicit, lo.device_id))


@rule(
    "ADDR-001",
    "error",
    "Loopbacks are unique host addresses",
    "Duplicate loopbacks break BGP next-hop resolution and VXLAN tunnels; a loopback wider "
    "than /32 or /128 claims addresses of other devices. Router-id loopbacks that collide with "
    "each other are ADDR-002's finding.",
    "AVD single-dc-l3ls (Loopback0 router id, Loopback1 VTEP) https://github.com/aristanetworks/avd",
)
def loopbacks_unique(ctx: SiteContext) -> Iterator[Hit]:
    loopbacks = _loopbacks(ctx)
    for loopback in loopbacks:
        host = loopback.address.max_prefixlen
        if loopback.address.network.prefixlen != host:
            yield Hit(
                f"{loopback.label} is not a host address; write it as {loopback.address.ip}/{host}",
                loopback.path,
            )
    for group in _duplicates(loopbacks):
        for index, loopback in enumerate(group):
            earlier = [
                other for other in group[:index] if not other.key == loopback.key == "loopback_v4"
            ]
            if earlier:
                other = earlier[0]
                yield Hit(
                    f"{loopback.label} is also {other.device}'s {other.key}; give it an "
                    "address of its own",
                    loopback.path,
                )


@rule(
    "ADDR-002",
    "error",
    "BGP router ids are unique",
    "Duplicate BGP identifiers cause session and best-path anomalies. The router id is the "
    "device's loopback_v4 address.",
    "RFC 6286 https://www.rfc-editor.org/rfc/rfc6286",
)
def router_ids_unique(ctx: SiteContext) -> Iterator[Hit]:
    router_ids = [lo for lo in _loopbacks(ctx) if lo.key == "loopback_v4"]
    for group in _duplicates(router_ids):
        for loopback in group[1:]:
            yield Hit(
                f"router id {loopback.address.ip} of {loopback.device} is already "
                f"{group[0].device}'s; give {loopback.device} another loopback_v4",
                loopback.path,
            )


def _p2p_override_lengths(ctx: SiteContext, version: int, length: int) -> Iterator[Hit]:
    for link in _fabric(ctx).links:
        subnet = link.subnet_v4 if version == 4 else link.subnet_v6
        if subnet is not None and addresses.network(subnet).prefixlen != length:
            field = "ipv4" if version == 4 else "ipv6"
            yield Hit(
                f"link {_link_label(link)} uses {subnet}; internal point-to-point links "
                f"use /{length} unless the other side mandates a wider subnet",
                (*link.source, field),
            )


@rule(
    "ADDR-003",
    "warning",
    "IPv4 point-to-point links use /31",
    "A /31 halves address use and has no network or broadcast ambiguity. Cloud on-ramps "
    "mandate /30 or /29: such explicit link overrides are expected to show here.",
    "RFC 3021 https://www.rfc-editor.org/rfc/rfc3021",
)
def p2p_v4_is_31(ctx: SiteContext) -> Iterator[Hit]:
    yield from _p2p_override_lengths(ctx, 4, 31)


@rule(
    "ADDR-004",
    "warning",
    "IPv6 point-to-point links use /127",
    "A /127 mitigates ping-pong and neighbour-cache exhaustion on point-to-point links. Cloud "
    "on-ramps assign /125 or /126: such explicit link overrides are expected to show here.",
    "RFC 6164 https://www.rfc-editor.org/rfc/rfc6164",
)
def p2p_v6_is_127(ctx: SiteContext) -> Iterator[Hit]:
    yield from _p2p_override_lengths(ctx, 6, 127)


@dataclass(frozen=True)
class Allocation:
    network: Network
    label: str
    pool: str  # the pool it is drawn from
    path: Path_
    explicit: bool
    loopback: bool
    owner: str = ""  # a link's p2p subnets: the link, whose /31 and /127 share one line


def _allocations(ctx: SiteContext) -> list[Allocation]:
    found = [
        Allocation(lo.address.network, lo.label, lo.key, lo.path, lo.explicit, True)
        for lo in _loopbacks(ctx)
    ]
    for link in _fabric(ctx).links:
        for pool, field, subnet in (
            ("p2p_v4", "ipv4", link.subnet_v4),
            ("p2p_v6", "ipv6", link.subnet_v6),
        ):
            if subnet is None:
                continue
            explicit = _is_explicit(link)
            written = explicit and getattr(ctx.site.links[int(link.source[-1])], field)
            path = (*link.source, field if written else "index") if explicit else link.source
            found.append(
                Allocation(
                    addresses.network(subnet),
                    f"p2p {subnet} of {_link_label(link)}",
                    pool,
                    path,
                    explicit,
                    False,
                    _link_label(link),
                )
            )
    return found


def _pools(ctx: SiteContext) -> dict[str, Network]:
    pools = {}
    for key in POOL_KEYS:
        value = getattr(ctx.site.pools, key)
        if value is not None:
            pools[key] = ipaddress.ip_network(value)
    return pools


@rule(
    "ADDR-005",
    "error",
    "No overlapping allocations",
    "Overlaps cause wrong forwarding and flapping best paths. Pools must be disjoint; loopbacks, "
    "VTEPs and point-to-point subnets must not overlap each other nor a pool other than their "
    "own. Two loopbacks with one address are ADDR-001/002's finding.",
    "docs/standards.md#addr-005",
)
def no_overlapping_allocations(ctx: SiteContext) -> Iterator[Hit]:
    pools = _pools(ctx)
    yield from _pools_overlap(ctx, pools)
    allocations = _allocations(ctx)
    yield from _allocations_in_foreign_pools(allocations, pools)
    yield from _overlap_hits(_allocations_overlap(allocations))


def _overlap_hits(pairs: Iterable[tuple[Allocation, Allocation]]) -> Iterator[Hit]:
    """One finding per overlap, but one for a link whose /31 and /127 both overlap the same
    other link's at one line (an explicit link's index given twice): one fault, one message."""
    merged: dict[tuple[Path_, str, str], list[tuple[Allocation, Allocation]]] = {}
    for item, other in pairs:
        if item.owner and other.owner:
            merged.setdefault((item.path, item.owner, other.owner), []).append((item, other))
        else:
            merged[(item.path, item.label, other.label)] = [(item, other)]
    for group in merged.values():
        item, other = group[0]
        if len(group) == 1:
            yield Hit(
                f"{item.label} overlaps {other.label}; give one of them a free prefix", item.path
            )
            continue
        mine = " and ".join(str(i.network) for i, _ in group)
        theirs = " and ".join(str(o.network) for _, o in group)
        yield Hit(
            f"p2p {mine} of {item.owner} overlap p2p {theirs} of {other.owner}; give one of "
            "them free prefixes",
            item.path,
        )


def _pools_overlap(ctx: SiteContext, pools: dict[str, Network]) -> Iterator[Hit]:
    keys = list(pools)
    for index, key in enumerate(keys):
        for other in keys[:index]:
            if pools[key].version == pools[other].version and pools[key].overlaps(pools[other]):
                yield Hit(
                    f"pool {key} {pools[key]} overlaps pool {other} {pools[other]}; "
                    "pools must be disjoint",
                    (*ctx.site.pools.path, key),
                )


def _span(net: Network) -> tuple[int, int, int]:
    """(version, first, last address as integers): what `overlaps` compares, compared as
    integers (ipaddress's own `overlaps` tests four memberships, ~15,000 allocations times
    each pool at 1,040 devices)."""
    return net.version, int(net.network_address), int(net.broadcast_address)


def _spans_overlap(one: tuple[int, int, int], other: tuple[int, int, int]) -> bool:
    return one[0] == other[0] and one[1] <= other[2] and other[1] <= one[2]


def _span_inside(inner: tuple[int, int, int], outer: tuple[int, int, int]) -> bool:
    return inner[0] == outer[0] and outer[1] <= inner[1] and inner[2] <= outer[2]


def _allocations_in_foreign_pools(
    allocations: list[Allocation], pools: dict[str, Network]
) -> Iterator[Hit]:
    spans = {key: _span(pool) for key, pool in pools.items()}
    for item in allocations:
        own = spans.get(item.pool)
        span = _span(item.network)
        for key, pool in spans.items():
            if key == item.pool or not _spans_overlap(pool, span):
                continue
            if own is not None and _span_inside(span, own) and _spans_overlap(own, pool):
                continue  # the two pools overlap: reported once, on the pools
            yield Hit(
                f"{item.label} lies in pool {key} {pools[key]}; take it from outside that pool",
                item.path,
            )


def _allocations_overlap(allocations: list[Allocation]) -> Iterator[tuple[Allocation, Allocation]]:
    """One sweep over allocations sorted by first address: each one is compared with the
    widest-reaching one before it, so the check stays O(n log n) for large fabrics. Yields
    each overlapping allocation with the one it overlaps."""

    def key(item: Allocation) -> tuple[int, int, int, bool, str]:
        net = item.network
        return (
            net.version,
            int(net.network_address),
            -int(net.broadcast_address),
            item.explicit,
            item.label,
        )

    widest: Allocation | None = None
    for item in sorted(allocations, key=key):
        net = item.network
        if widest is None or widest.network.version != net.version:
            widest = item
            continue
        reach = int(widest.network.broadcast_address)
        if int(net.network_address) <= reach:
            same_loopback = item.loopback and widest.loopback and net == widest.network
            if not same_loopback:
                yield item, widest
        if int(net.broadcast_address) > reach:
            widest = item


# what a site pool numbers, and where that meets a tenant VRF (ADDR-023)
_POOL_MEETS_TENANTS = {
    "p2p_v4": (
        "the fabric links' /31s: the VRF-lite handoff reuses each border leaf's /31 inside every "
        "handed-off VRF (an EOS MLAG pair its peer VLAN's, in its VRF peerings), so a handoff "
        "sub-interface and the anycast gateway can hold one address in the network's VRF"
    ),
    "p2p_v6": (
        "the fabric links' /127s: the VRF-lite handoff reuses each border leaf's /127 inside "
        "every handed-off VRF (an EOS MLAG pair its peer VLAN's, in its VRF peerings), so a "
        "handoff sub-interface and the anycast gateway can hold one address in the network's VRF"
    ),
    "loopback_v4": (
        "the devices' router-id loopbacks, routed in the underlay: the tenant's hosts would hold "
        "the fabric's own addresses, which collide as soon as the subnet meets the default VRF "
        "(a public prefix is leaked to the Internet table)"
    ),
    "loopback_v6": (
        "the devices' IPv6 loopbacks, routed in the underlay: the tenant's hosts would hold the "
        "fabric's own addresses, which collide as soon as the subnet meets the default VRF (a "
        "public prefix is leaked to the Internet table)"
    ),
    "vtep_v4": (
        "the VTEP addresses and MLAG pairs' anycast VTEPs every tunnel ends on, routed in the "
        "underlay: the tenant's hosts would hold the fabric's tunnel endpoints, which collide as "
        "soon as the subnet meets the default VRF (a public prefix is leaked to the Internet table)"
    ),
}


@rule(
    "ADDR-023",
    "error",
    "A tenant network's subnet lies outside the site's own pools",
    "meetme numbers the fabric from the site's pools, and those numbers reach the tenant VRFs: "
    "the VRF-lite handoff reuses each border leaf's /31 and /127 of pools.p2p_v4 and p2p_v6 "
    "inside every handed-off VRF (an EOS MLAG pair its peer VLAN's in its VRF peerings), and "
    "loopbacks and VTEP addresses are routed in the underlay. A gateway subnet inside the p2p "
    "pool puts the anycast gateway and a border leaf's handoff sub-interface on one address in "
    "one VRF (10.21.21.1/24 on the leaves, 10.21.21.1/31 on the handoff port); inside the "
    "loopback or VTEP pools the tenant's hosts hold the fabric's own addresses. ADDR-005 keeps "
    "the pools and the fabric's allocations apart; this keeps the tenants out of them.",
    "docs/standards.md#addr-023; docs/architecture.md#north-south; RFC 4364 section 4 "
    "(addresses unique within a VPN) https://www.rfc-editor.org/rfc/rfc4364",
)
def tenant_subnets_outside_pools(ctx: SiteContext) -> Iterator[Hit]:
    written = _pools(ctx)
    pools = {key: _span(pool) for key, pool in written.items()}
    for tenant_name, tenant in ctx.site.tenants.items():
        for name, network in tenant.networks.items():
            for key in ("gateway_v4", "gateway_v6"):
                gateway = getattr(network, key)
                if gateway is None:
                    continue
                subnet = addresses.interface(gateway).network
                span = _span(subnet)
                for pool_key, pool in pools.items():
                    if not _spans_overlap(span, pool):
                        continue
                    yield Hit(
                        f"{key} {gateway} of network {tenant_name}/{name} (VRF {network.vrf}): "
                        f"its subnet {subnet} overlaps pools.{pool_key} {written[pool_key]}, "
                        f"from which meetme numbers {_POOL_MEETS_TENANTS[pool_key]}; give the "
                        "network a subnet outside the site's pools",
                        (*network.path, key),
                    )


@dataclass(frozen=True)
class AsnUse:
    who: str  # a device name, or "organisation <name>"
    asn: int
    role: str | None  # the device's role; None for the organisation itself


def asn_uses(ctx: SiteContext) -> dict[Path_, list[AsnUse]]:
    """Every configured ASN, keyed by where it is written: the organisation (which borders
    use), a device override, a shared role ASN, or the scheme's base (ASN = base + id)."""
    intent = ctx.loaded.intent
    scheme = ctx.site.asn
    uses: dict[Path_, list[AsnUse]] = defaultdict(list)
    uses[ORG_ASN].append(
        AsnUse(f"organisation {intent.organisation.name}", intent.organisation.asn, None)
    )
    for name, device in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        if device.asn is not None:
            path: Path_ = (*device.path, "asn")
        elif device.role == "border":
            continue  # configured with the organisation ASN, checked once as the organisation
        elif device.role in scheme.shared:
            path = (*scheme.path, "shared", device.role)
        else:
            path = (*scheme.path, "base")
        uses[path].append(AsnUse(name, allocate.device_asn(intent, ctx.site, device), device.role))
    return uses


LAST_ASN = 4294967295  # the largest four-octet AS number (RFC 6793)


def _listed(uses: list[AsnUse]) -> str:
    """'a, b (ASN 1)' when they share one ASN, else 'a (ASN 1), b (ASN 2)'; long lists cut."""
    if len({use.asn for use in uses}) == 1:
        return f"{listed([use.who for use in uses], 4)} (ASN {uses[0].asn})"
    return listed([f"{use.who} (ASN {use.asn})" for use in uses], 4)


def _public_internal(use: AsnUse) -> bool:
    """An internal device's ASN ADDR-006 reports: public (not private, not reserved: ADDR-007's,
    not past the last ASN). A border runs the organisation's ASN: ADDR-020's."""
    return (
        use.role is not None
        and use.role != "border"
        and use.asn <= LAST_ASN
        and not is_private_asn(use.asn)
        and reserved_asn(use.asn) is None
    )


def misnumbered(use: AsnUse, org_asn: int) -> bool:
    """Whether a rule here reports the ASN itself as wrong for the device: a public internal
    ASN (ADDR-006) or a border's other than the organisation's (ADDR-020). A rule comparing
    other numbers with ours leaves such an ASN alone: it is not ours to keep."""
    return _public_internal(use) or (use.role == "border" and use.asn != org_asn)


@rule(
    "ADDR-006",
    "error",
    "Internal ASNs are private",
    "Using someone else's public ASN inside the fabric breaks loop detection if routes ever "
    "meet the Internet. Internal means every device ASN but a border's, which is the "
    "organisation's (ADDR-020). Reserved ASNs are ADDR-007's finding.",
    "RFC 6996 https://www.rfc-editor.org/rfc/rfc6996",
)
def internal_asns_private(ctx: SiteContext) -> Iterator[Hit]:
    for path, uses in sorted(asn_uses(ctx).items(), key=lambda item: str(item[0])):
        # a base plus a device id can run past the last ASN: that is no ASN at all
        beyond = [use for use in uses if use.asn > LAST_ASN]
        if beyond:
            yield Hit(
                f"{_listed(beyond)}: not an ASN; ASNs end at {LAST_ASN} (RFC 6793), so lower "
                "the base the device ASNs are counted from",
                path,
            )
        public = [use for use in uses if _public_internal(use)]
        if public:
            yield Hit(
                f"{_listed(public)}: not a private ASN; internal ASNs must be private "
                f"({PRIVATE_RANGES})",
                path,
            )


@rule(
    "ADDR-007",
    "error",
    "Reserved ASNs are never configured",
    "ASN 0, AS_TRANS 23456, 65535, 4294967295 and 65552-131071 are not valid ASNs of any "
    "network; configuring one signals a typo or copied example. That holds for our own ASNs "
    "and for an external peer's (IX route servers and peers, transits, PNIs, AWS amazon_asn): "
    "`remote-as 0` renders, and the session never establishes (RFC 7607 forbids ASN 0 in "
    "OPEN). Google's Cloud Router ASN is GCP-001's, and a border's own `asn:` line "
    "ADDR-020's. Documentation ASNs (64496-64511, 65536-65551) are allowed in a lab and are "
    "ADDR-009's concern.",
    "RFC 7607 https://www.rfc-editor.org/rfc/rfc7607, RFC 6793 "
    "https://www.rfc-editor.org/rfc/rfc6793, RFC 7300 https://www.rfc-editor.org/rfc/rfc7300; "
    "https://bgpfilterguide.nlnog.net/guides/bogon_asns/",
)
def reserved_asns_unused(ctx: SiteContext) -> Iterator[Hit]:
    yield from _reserved_own_asns(ctx)
    yield from _reserved_peer_asns(ctx)


def _reserved_peer_asns(ctx: SiteContext) -> Iterator[Hit]:
    for peer in peer_asns(ctx):
        why = reserved_asn(peer.asn)
        if why is not None and peer.kind != "gcp":  # GCP-001 names the ASNs Google accepts
            yield Hit(
                f"{peer.label} has ASN {peer.asn}, a reserved ASN ({why}) that no network "
                "uses: the session would never establish; write the peer's real ASN",
                peer.path,
            )


def _not_borders(uses: list[AsnUse]) -> list[AsnUse]:
    """The uses but a border's `asn:` line: a border runs the organisation's ASN, checked
    once as the organisation's, and any other number on it is ADDR-020's, whatever range it
    falls in (the fix is removing the line, not choosing another number)."""
    return [use for use in uses if use.role != "border"]


def _reserved_own_asns(ctx: SiteContext) -> Iterator[Hit]:
    for path, uses in sorted(asn_uses(ctx).items(), key=lambda item: str(item[0])):
        reserved = [use for use in _not_borders(uses) if reserved_asn(use.asn) is not None]
        if reserved:
            yield Hit(
                f"{_listed(reserved)}: a reserved ASN ({reserved_asn(reserved[0].asn)}) that is "
                "never configured; "
                f"use a private ASN ({PRIVATE_RANGES}) inside, your public ASN at the "
                "border",
                path,
            )


@rule(
    "ADDR-008",
    "error",
    "The organisation originates from a public ASN",
    "Routes originated from a private ASN are dropped by filtered peers and make the "
    "organisation unaccountable in the global table.",
    "RFC 6996; https://bgpfilterguide.nlnog.net/guides/bogon_asns/",
)
def organisation_asn_public(ctx: SiteContext) -> Iterator[Hit]:
    organisation = ctx.loaded.intent.organisation
    if is_private_asn(organisation.asn):
        yield Hit(
            f"organisation {organisation.name} ASN {organisation.asn} is private "
            f"({PRIVATE_RANGES}); originate from the public ASN assigned to you",
            ORG_ASN,
        )


@rule(
    "ADDR-020",
    "error",
    "A border router runs the organisation's ASN",
    "Every session a border holds assumes it runs the organisation's ASN: transits, IX route "
    "servers and peers and PNIs are configured by the providers to expect it, other sites' "
    "borders peer with it in iBGP between loopbacks for the SRv6 VPN, and its pair partner in "
    "iBGP over the pair link. An `asn:` override on a border renders every one of those "
    "sessions from that ASN instead: the Internet sessions never establish, the VPN sessions "
    "become eBGP between loopbacks with no multihop and no policy, which never come up and, "
    "once up, would exchange nothing (RFC 8212), and a pair of two ASNs shares no Internet "
    "table (its link carries the underlay, loopbacks only). Whatever the number (a reserved, "
    "documentation or private one too), the fault is the line itself: this rule reports it, "
    "once, and ADDR-006, ADDR-007 and ADDR-009 leave it alone. A `border` entry in "
    "`asn.shared` with another ASN is reported too: meetme ignores it (a border runs the "
    "organisation's ASN), so the intent says one thing and the configs another.",
    "docs/standards.md#addr-020; RFC 4271 section 6.2 (an OPEN from an unexpected AS is "
    "refused: Bad Peer AS); RFC 4364 section 4.3.1 (iBGP between PEs); RFC 8212",
)
def border_runs_organisation_asn(ctx: SiteContext) -> Iterator[Hit]:
    intent = ctx.loaded.intent
    org_asn = intent.organisation.asn
    shared = ctx.site.asn.shared.get("border")
    if shared is not None and shared != org_asn:
        yield Hit(
            f"asn.shared gives site {ctx.name}'s borders ASN {shared}, but a border always runs "
            f"the organisation's ASN {org_asn}, which its Internet, pair and inter-site sessions "
            "expect: the value is ignored, and no config holds it; remove `border` from "
            "asn.shared",
            (*ctx.base, "asn", "shared", "border"),
        )
    for name, device in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        if device.role != "border" or device.asn is None or device.asn == org_asn:
            continue
        yield Hit(
            f"border {name} has ASN {device.asn}, not the organisation's ASN {org_asn}: "
            f"{'; '.join(_what_breaks(ctx, name, device.asn, org_asn))}; remove its asn: line",
            (*device.path, "asn"),
        )


def _what_breaks(ctx: SiteContext, name: str, asn: int, org_asn: int) -> list[str]:
    """What a border running `asn` instead of the organisation's ASN loses, as rendered."""
    intent = ctx.loaded.intent
    parties = sorted({s.party for s in ctx.fabric.edge.sessions if s.device == name and s.internet})
    sessions = f"its sessions to {listed(parties, 4)}" if parties else "any Internet session"
    broken = [
        f"{sessions} would open from {asn} while the parties expect {org_asn}, so they never "
        "establish"
    ]
    partners = sorted(
        {
            remote.device
            for _local, remote, _link in ctx.fabric.links_of(name)
            if ctx.site.devices[remote.device].role == "border"
            and allocate.device_asn(intent, ctx.site, ctx.site.devices[remote.device]) != asn
        }
    )
    if partners:
        broken.append(
            f"the links to {listed(partners, 4)} carry the underlay instead of the border "
            "pair's iBGP, so the pair no longer shares its Internet table"
        )
    srv6 = intent.srv6
    if (
        srv6 is not None
        and name in locators(intent)
        and any(ctx.name in vrf.sites and len(set(vrf.sites)) > 1 for vrf in srv6.vrfs.values())
    ):
        broken.append(
            "the other sites' borders peer with it for the SRv6 VPN in eBGP between "
            "loopbacks, with no multihop and no policy, so no VPN route crosses"
        )
    return broken


def _written_prefixes(node: object, path: Path_) -> Iterator[tuple[Network, str, Path_]]:
    """Every IP address or prefix written anywhere under `node`, with its path."""
    if isinstance(node, Node):
        for field in type(node).model_fields:
            yield from _written_prefixes(getattr(node, field), (*path, field))
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _written_prefixes(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _written_prefixes(value, (*path, index))
    elif isinstance(node, str):
        try:
            network = ipaddress.ip_interface(node).network
        except ValueError:
            return
        yield network, node, path


@rule(
    "ADDR-009",
    "error",
    "No documentation prefixes or ASNs in production",
    "Copy-pasted examples reaching production are a classic outage source. Allowed when the "
    "site's environment is lab. A border's own `asn:` line is ADDR-020's, whatever its number.",
    "RFC 5737, RFC 3849, RFC 9637, RFC 5398 https://bgpfilterguide.nlnog.net/guides/bogon_prefixes/",
)
def no_documentation_numbers_in_production(ctx: SiteContext) -> Iterator[Hit]:
    if ctx.site.environment != "production":
        return
    intent = ctx.loaded.intent
    for node, path in ((intent.organisation, ("organisation",)), (ctx.site, ctx.base)):
        for network, written, where in _written_prefixes(node, path):
            found = documentation_prefix(network)
            if found is not None:
                yield Hit(
                    f"{written} is in documentation range {found[0]} ({found[1]}); "
                    "production configs must not use it: use your own address space",
                    where,
                )
    for path, uses in sorted(asn_uses(ctx).items(), key=lambda item: str(item[0])):
        documentation = [
            use for use in _not_borders(uses) if documentation_asn(use.asn) is not None
        ]
        if documentation:
            yield Hit(
                f"{_listed(documentation)}: a documentation ASN "
                f"({documentation_asn(documentation[0].asn)}); "
                "production configs must not use it: use a private ASN inside, your public "
                "ASN at the border",
                path,
            )
    yield from _documentation_peer_asns(ctx)


def _documentation_peer_asns(ctx: SiteContext) -> Iterator[Hit]:
    """Peer ASNs written in the peering intent: each `asn` key that holds a documentation ASN."""
    for network_path, value in _asn_keys(ctx.site.peering, (*ctx.base, "peering")):
        why = documentation_asn(value)
        if why is not None:
            yield Hit(
                f"peer ASN {value} is a documentation ASN ({why}); production configs must "
                "not use it: write the peer's real ASN",
                network_path,
            )


def _asn_keys(node: object, path: Path_) -> Iterator[tuple[Path_, int]]:
    """(path, value) of every ASN-valued field (`asn`, `amazon_asn`, `cloud_router_asn`)."""
    if isinstance(node, Node):
        for field in type(node).model_fields:
            value = getattr(node, field)
            if field.endswith("asn") and isinstance(value, int):
                yield (*path, field), value
            else:
                yield from _asn_keys(value, (*path, field))
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _asn_keys(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _asn_keys(value, (*path, index))


# private-use space a site's private aggregate may take when the organisation declares none
PRIVATE_USE = tuple(
    ipaddress.ip_network(p) for p in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)


@rule(
    "ADDR-012",
    "error",
    "A site's aggregates lie inside the organisation's",
    "A site's public aggregate is announced from its borders beside the organisation's "
    "aggregates as a more specific of one of them: outside them it is space the organisation "
    "does not hold (no ROA of ours covers it, and the other sites' filters do not know it as "
    "our own). A private aggregate outside the organisation's private space (or outside "
    "private-use space, when none is declared) collides with someone's public addresses.",
    "docs/standards.md#addr-012",
)
def site_aggregates_inside_organisation(ctx: SiteContext) -> Iterator[Hit]:
    organisation = ctx.loaded.intent.organisation
    public = [ipaddress.ip_network(a) for a in organisation.aggregates]
    private = [ipaddress.ip_network(a) for a in organisation.private_aggregates]
    kinds = (
        ("public", public, "the organisation's aggregates", "organisation.aggregates"),
        (
            "private",
            private or list(PRIVATE_USE),
            "the organisation's private_aggregates" if private else "private-use space",
            "organisation.private_aggregates" if private else "RFC 1918 / RFC 4193",
        ),
    )
    for kind, holders, where, hint in kinds:
        for index, written in enumerate(getattr(ctx.site.aggregates, kind)):
            net = ipaddress.ip_network(written)
            if any(net.version == h.version and net.subnet_of(h) for h in holders):  # type: ignore[arg-type]
                continue
            named = ", ".join(str(h) for h in holders) or "none"
            yield Hit(
                f"site {ctx.name}'s {kind} aggregate {written} lies in none of {where} "
                f"({named}): take it from {hint} or widen them",
                (*ctx.base, "aggregates", kind, index),
            )


@rule(
    "ADDR-013",
    "error",
    "No two sites' aggregates overlap",
    "A site's aggregates are its own: announced from its borders (public) and planned from "
    "(private). Two sites claiming overlapping space send the Internet two origins for the "
    "same addresses, and the traffic lands at whichever site is closer to the sender.",
    "docs/standards.md#addr-013",
)
def site_aggregates_disjoint(ctx: SiteContext) -> Iterator[Hit]:
    """Each overlapping pair once, at the site whose name sorts later."""
    for kind in ("public", "private"):
        for index, written in enumerate(getattr(ctx.site.aggregates, kind)):
            net = ipaddress.ip_network(written)
            for other_name, other in sorted(ctx.loaded.intent.sites.items()):
                if other_name >= ctx.name:
                    break
                for other_kind in ("public", "private"):
                    for theirs in getattr(other.aggregates, other_kind):
                        if net.overlaps(ipaddress.ip_network(theirs)):
                            yield Hit(
                                f"site {ctx.name}'s {kind} aggregate {written} overlaps site "
                                f"{other_name}'s {other_kind} aggregate {theirs}: give each "
                                "site its own part of the organisation's space",
                                (*ctx.base, "aggregates", kind, index),
                            )


@rule(
    "ADDR-016",
    "warning",
    "A site's public aggregates are short enough for the Internet's table",
    "A site's public aggregate draws the site's own traffic in at its borders only if the "
    "Internet carries it, and transits and peers drop IPv4 longer than /24 and IPv6 longer "
    "than /48 (RFC 7454 section 6.1.3), as meetme's own import policy does: a longer site "
    "aggregate is announced and dropped one hop away, and the site's traffic keeps entering "
    "wherever the organisation's aggregate draws it.",
    "docs/standards.md#addr-016; RFC 7454 section 6.1.3 https://www.rfc-editor.org/rfc/rfc7454",
)
def site_aggregates_globally_routed(ctx: SiteContext) -> Iterator[Hit]:
    for index, written in enumerate(ctx.site.aggregates.public):
        net = ipaddress.ip_network(written)
        longest = GLOBAL_LONGEST["ipv6" if net.version == 6 else "ipv4"]
        if net.prefixlen > longest:
            yield Hit(
                f"site {ctx.name}'s public aggregate {written} is longer than /{longest}, "
                "which transits and peers drop: it would draw no traffic to the site; "
                f"announce a /{longest} or shorter, or leave the site to the organisation's "
                "aggregates",
                (*ctx.base, "aggregates", "public", index),
            )


# the bogon ranges an aggregate must stay clear of: documentation ranges are ADDR-009's (refused
# in production, allowed in a lab, where the edge policy lets them through as well)
_AGGREGATE_BOGONS = tuple(
    net
    for net in (ipaddress.ip_network(p) for p in (*BOGONS_V4, *BOGONS_V6))
    if documentation_prefix(net) is None
)


@rule(
    "ADDR-021",
    "error",
    "The organisation's aggregates are routable public space: no bogon, no default route, "
    "not too long",
    "Every border originates each of `organisation.aggregates` (a discard route and a "
    "`network` statement) and announces it to every transit, IX and PNI. An aggregate that is "
    "or lies inside a bogon range (private-use, shared, loopback, link-local, multicast, "
    "reserved space) is dropped by every party's import filter, ours included, and draws no "
    "traffic; one that holds a bogon range claims addresses no one may route. A default "
    "route, or anything shorter than an RIR's largest allocation (IPv4 /8, IPv6 /16), is a "
    "default route in disguise: the parties drop it, and one that took it would send us "
    "everyone's traffic. One longer than the Internet's table carries (IPv4 /24, IPv6 /48) "
    "is dropped by every party's import filter as well. Documentation ranges are ADDR-009's: "
    "allowed in a lab, refused in production.",
    "docs/standards.md#addr-021; docs/standards.md#edge-import; NLNOG bogon prefixes "
    "https://bgpfilterguide.nlnog.net/guides/bogon_prefixes/",
)
def organisation_aggregates_routable(ctx: SiteContext) -> Iterator[Hit]:
    """Each faulty aggregate once: its message names no site, so the engine keeps one of the
    sites' identical findings."""
    announced = (
        "every border originates it (a discard route and a `network` statement) and announces "
        "it to every transit, IX and PNI"
    )
    for index, written in enumerate(ctx.loaded.intent.organisation.aggregates):
        problem = _unroutable(ipaddress.ip_network(written), announced)
        if problem is not None:
            yield Hit(
                f"organisation aggregate {written} {problem}",
                ("organisation", "aggregates", index),
            )


def routable_aggregate(net: Network) -> bool:
    """Whether an organisation aggregate is one ADDR-021 lets through: what it refuses (a
    bogon, a default route, anything too short or too long) draws no traffic of its own, and
    a rule judging what lies inside it would only repeat that finding."""
    return _unroutable(net, "") is None


def _too_long(net: Network, announced: str) -> str | None:
    longest = GLOBAL_LONGEST["ipv6" if net.version == 6 else "ipv4"]
    if net.prefixlen <= longest:
        return None
    return (
        f"is longer than /{longest}, the longest prefix the Internet's table carries: "
        f"{announced}, whose import filters drop it (ours too, "
        "docs/standards.md#edge-import), so it draws no traffic; announce "
        f"a block of /{longest} or shorter that holds it"
    )


def _unroutable(net: Network, announced: str) -> str | None:
    """What makes an aggregate unfit for the Internet's table, with what to do; None: nothing.
    The default route first, then a bogon range it is or lies in (fc00::/7 is shorter than
    the shortest length too: its bogon names it better), then the length, then a bogon range
    it holds."""
    too_long = _too_long(net, announced)
    if net.prefixlen == 0:
        return (
            f"is a default route: {announced}, which would draw the whole Internet's traffic "
            "to us, and every party's import filter drops it; list the address blocks the "
            "organisation holds, and take a default route from a transit (accept_default: "
            "true) where the tenants need one"
        )
    bogons = [b for b in _AGGREGATE_BOGONS if b.version == net.version and net.overlaps(b)]
    for bogon in (b for b in bogons if _is_within(net, b)):
        fix = (
            "move it to organisation.private_aggregates, which is never announced"
            if any(_is_within(net, p) for p in PRIVATE_USE)
            else "list only public address blocks the organisation holds"
        )
        return (
            f"{'is' if net == bogon else 'lies inside'} the bogon range {bogon}: {announced}, "
            "whose import filters drop bogons (ours too, docs/standards.md#edge-import), so "
            f"it draws no traffic; {fix}"
        )
    shortest = GLOBAL_SHORTEST["ipv6" if net.version == 6 else "ipv4"]
    if net.prefixlen < shortest:
        return (
            f"is shorter than /{shortest}, the shortest prefix the Internet's table carries "
            f"(an RIR's largest allocation): {announced}, and every party's import filter "
            "drops it as a default route in disguise; list the address blocks the "
            "organisation holds instead"
        )
    if too_long is not None:
        return too_long
    if bogons:  # each held by the aggregate
        return (
            f"holds the bogon range {bogons[0]}: {announced}, claiming the bogon's addresses as "
            "ours (the parties' filters drop the bogon range itself, not an aggregate holding "
            "it); list only public address blocks the organisation holds, none of them "
            "holding a bogon range"
        )
    return None


def _is_within(net: Network, holder: Network) -> bool:
    return net.version == holder.version and net.subnet_of(holder)  # type: ignore[arg-type]


@rule(
    "ADDR-017",
    "error",
    "A loopback or VTEP address written on a device lies in a pool the underlay advertises",
    "The underlay's route maps pass the site's loopback and VTEP pools only (PL-LOOPBACKS-V4 "
    "and -V6, out of every device and into every other), so an address written on a device "
    "outside them is originated and dropped at once. With its router-id loopback outside, "
    "the device's EVPN sessions, which run between loopbacks, never come up; with its VTEP "
    "address outside, no VTEP resolves the next hop of its routes and every tunnel to it is "
    "dead, while every underlay session looks healthy.",
    "docs/standards.md#addr-017",
)
def own_loopbacks_in_pools(ctx: SiteContext) -> Iterator[Hit]:
    pools = {
        version: [addresses.network(pool) for pool in written]
        for version, written in loopback_pools(ctx.site).items()
    }
    for loopback in _loopbacks(ctx):
        passed = pools[loopback.address.version]
        if not loopback.explicit or not passed:
            continue  # drawn from its pool; or a family the underlay does not run (ADDR-019)
        if any(loopback.address.ip in pool for pool in passed):
            continue
        lost = {
            "loopback_v4": "its EVPN sessions, between loopbacks, never come up",
            "vtep_v4": "no VTEP resolves the next hop of its routes: every tunnel to it is dead",
        }.get(loopback.key, "no other device reaches it")
        own = loopback.key if getattr(ctx.site.pools, loopback.key) else "loopback_v4"
        yield Hit(
            f"{loopback.label} is outside {listed([str(p) for p in passed])}, the pools the "
            f"underlay's route maps pass: it is never advertised, and {lost}; take a free "
            f"address of pools.{own}, or widen that pool",
            loopback.path,
        )


@rule(
    "ADDR-019",
    "warning",
    "IPv6 loopbacks come with an IPv6 underlay",
    "A device's IPv6 loopback is originated into BGP's IPv6 family, but the underlay runs IPv6 "
    "sessions only when the site has both a loopback_v6 and a p2p_v6 pool. With the loopback "
    "and no IPv6 underlay the /128 is configured and announced to no one: no session carries "
    "it and no other device reaches it. Harmless until an IPv6 service (an SRv6 source, IPv6 "
    "management, IPv6 EVPN peering) is pointed at it, and then silently dead.",
    "docs/standards.md#addr-019",
)
def v6_loopbacks_need_v6_underlay(ctx: SiteContext) -> Iterator[Hit]:
    """One warning per site: at its loopback_v6 pool, else at the first device that writes one."""
    if underlay_v6(ctx.site):
        return
    pools = ctx.site.pools
    missing = " and ".join(
        f"pools.{key}" for key in ("loopback_v6", "p2p_v6") if getattr(pools, key) is None
    )
    tail = (
        f"but without {missing} the underlay runs no IPv6 sessions: they are originated into "
        "BGP and no session carries them, so no other device reaches them"
    )
    if pools.loopback_v6 is not None:
        yield Hit(
            f"site {ctx.name}'s pools.loopback_v6 {pools.loopback_v6} gives every device an "
            f"IPv6 loopback, {tail}; add pools.p2p_v6 (a /127 per fabric link), or drop "
            "pools.loopback_v6",
            (*ctx.base, "pools", "loopback_v6"),
        )
        return
    # without the pool, only the devices that write their own have one
    written = [lo for lo in _loopbacks(ctx) if lo.key == "loopback_v6"]
    if written:
        yield Hit(
            f"site {ctx.name} has IPv6 loopbacks on its devices "
            f"({listed([lo.label for lo in written])}), {tail}; add {missing}, or drop the "
            "devices' loopback_v6",
            written[0].path,
        )


@rule(
    "ADDR-014",
    "error",
    "Loopbacks are unique across the organisation's sites",
    "Sites route to each other: the SRv6 domain runs IS-IS and iBGP between the borders of "
    "its sites, and DCI circuits join them. A loopback repeated in another site gives two "
    "borders one router id and one IS-IS system id in one domain (sessions refused, RFC 6286; "
    "adjacencies flapping), and a border peering with its own address. Site aggregates are "
    "disjoint already (ADDR-013); a site's pools need not lie in them, so this checks the "
    "addresses themselves.",
    "docs/standards.md#addr-014; RFC 6286 https://www.rfc-editor.org/rfc/rfc6286",
)
def loopbacks_unique_across_sites(ctx: SiteContext) -> Iterator[Hit]:
    """Each repeated address once, at the site whose name sorts later."""
    for other_name, other in sorted(ctx.loaded.intent.sites.items()):
        if other_name >= ctx.name:
            break
        theirs = {lo.address.ip: lo for lo in _loopbacks_of(other)}
        for loopback in _loopbacks(ctx):
            earlier = theirs.get(loopback.address.ip)
            if earlier is not None:
                yield Hit(
                    f"{loopback.label} is also site {other_name}'s {earlier.device} "
                    f"{earlier.key}: the sites route to each other; give it an address of "
                    "its own",
                    loopback.path,
                )


@rule(
    "ADDR-015",
    "error",
    "Every address drawn from a pool lies inside it",
    "A device's loopbacks and VTEP address are its pool's network address plus its id, and an "
    "explicit link's /31 and /127 come from its a-side device's block of the p2p pools. An id "
    "or a link index past the end of its pool has no address: the device would have no router "
    "id or VTEP, the link no subnet. Reported as a finding, so one lint names it beside every "
    "other problem of the intent; link rules whose numbering runs out are PHY-016's finding.",
    "docs/standards.md#addr-015",
)
def drawn_addresses_inside_pools(ctx: SiteContext) -> Iterator[Hit]:
    for conflict in ctx.fabric.conflicts:
        if conflict.kind == "pool":
            yield Hit(conflict.message, conflict.path)


OVERLAP = "ADDR-018"

rule(
    OVERLAP,
    "error",
    "No two interfaces of a device hold overlapping subnets in one VRF",
    "A device routes each VRF by its connected subnets; two interfaces whose subnets overlap "
    "in one VRF (a DCI pool drawn across the services LAN, a transit's /31 repeated on another "
    "port) give it one address or one subnet twice. IOS-XR accepts the commit and then brings "
    "one of the interfaces down by its conflict policy; others refuse the second address or "
    "route the subnet out of the wrong port. Read on the built models, so every source of an "
    "address counts: pools, links, circuits, the services LAN and the DCI. Two fabric links "
    "on one subnet are ADDR-005's, which names both links where the fault is written.",
    "docs/standards.md#addr-018; Cisco IOS XR 'Implementing Network Stack IPv4 and IPv6' "
    "(IP address conflicts) https://cisco.com/c/en/us/td/docs/iosxr/ncs5000/ip-addresses/76x/"
    "b-ip-addresses-cg-ncs5000-76x/m-implementing-network-stack-ipv4-and-ipv6-ncs5000.html",
)(reported_elsewhere)  # from the device models: `overlap_findings`


def overlap_findings(
    loaded: LoadedIntent,
    models: Iterable[DeviceModel],
    fabrics: Mapping[str, SiteFabric] | None = None,
) -> list[Finding]:
    """ADDR-018: each device's first overlapping pair of subnets per VRF, at the device. Two
    fabric links' subnets are left out: ADDR-005 compares every link's /31 and /127 with every
    other allocation and names both links where the fault is written (an explicit link's
    index given twice, say), so the devices at either end would only repeat it."""
    found = []
    fabric_subnets = {site: _link_spans(fabric) for site, fabric in (fabrics or {}).items()}
    for model in sorted(models, key=lambda m: (m.site, m.hostname)):
        clash = _first_overlap(model, fabric_subnets.get(model.site, frozenset()))
        if clash is None:
            continue
        (one, one_net), (other, other_net), vrf = clash
        where = "the default VRF" if vrf is None else f"VRF {vrf}"
        found.append(
            finding_at(
                loaded,
                OVERLAP,
                f"{model.hostname}: {other.name} ({other.description}) {other_net} overlaps "
                f"{one.name} ({one.description}) {one_net} in {where}: the device would hold "
                "one subnet on two interfaces and bring one down or route out of the wrong "
                "one; number them apart (a pool or circuit address drawn across the other)",
                ("sites", model.site, "devices", model.hostname),
            )
        )
    return found


Addressed = tuple[Interface, ipaddress.IPv4Interface | ipaddress.IPv6Interface]


def _link_spans(fabric: SiteFabric) -> frozenset[tuple[int, int, int]]:
    """(bits, first, last) of every fabric link's subnets, as `_first_overlap` compares them."""
    spans = set()
    for link in fabric.links:
        for subnet in (link.subnet_v4, link.subnet_v6):
            if subnet:
                net = addresses.network(subnet)
                spans.add((net.max_prefixlen, int(net.network_address), int(net.broadcast_address)))
    return frozenset(spans)


def _first_overlap(
    model: DeviceModel, links: frozenset[tuple[int, int, int]] = frozenset()
) -> tuple[Addressed, Addressed, str | None] | None:
    """The first two addresses (in interface order: the later one first, then the earlier)
    whose subnets overlap in one VRF, but for two fabric links' subnets (`links`: ADDR-005's).
    Two CIDR blocks overlap only when one holds the other, so a sweep in address order with a
    stack of the blocks still open finds every such pair in n log n (a spine has hundreds of
    ports: comparing every pair took 0.6 s at 1,040 devices, parsing each address with
    ipaddress half as long again)."""
    by_vrf: dict[tuple[str | None, int], list[_Block]] = defaultdict(list)
    order = 0
    for interface in [*model.loopbacks, *model.interfaces, model.management.interface]:
        for address in (interface.ipv4, interface.ipv6, interface.ipv4_secondary):
            if address is None:
                continue
            family = socket.AF_INET6 if ":" in address.ip else socket.AF_INET
            bits = 128 if family == socket.AF_INET6 else 32
            host = int.from_bytes(socket.inet_pton(family, address.ip.split("%")[0]), "big")
            size = 1 << (bits - address.prefixlen)
            first = host & ~(size - 1)
            by_vrf[(interface.vrf, bits)].append(
                _Block(first, first + size - 1, order, interface, address.cidr)
            )
            order += 1
    best: tuple[_Block, _Block] | None = None  # (later, earlier) in interface order
    for (_vrf, bits), blocks in by_vrf.items():
        open_blocks: list[_Block] = []
        # by first address, the larger block first: a block follows every block holding it
        for block in sorted(blocks, key=lambda b: (b.first, -b.last, b.order)):
            while open_blocks and open_blocks[-1].last < block.first:
                open_blocks.pop()
            for holder in open_blocks:  # each holds `block`
                if holder.interface.name == block.interface.name:
                    continue  # one interface's own addresses: not a clash between two
                if (bits, holder.first, holder.last) in links and (
                    bits,
                    block.first,
                    block.last,
                ) in links:
                    continue  # two fabric links: ADDR-005 names both, where it is written
                pair = (holder, block) if holder.order > block.order else (block, holder)
                if best is None or (pair[0].order, pair[1].order) < (
                    best[0].order,
                    best[1].order,
                ):
                    best = pair
            open_blocks.append(block)
    if best is None:
        return None
    later, earlier = best
    return (
        (earlier.interface, addresses.interface(earlier.cidr)),
        (later.interface, addresses.interface(later.cidr)),
        later.interface.vrf,
    )


@dataclass(frozen=True)
class _Block:
    """One interface address as the range of its subnet, and its place in interface order."""

    first: int
    last: int
    order: int
    interface: Interface
    cidr: str
