"""The handoff feature: VRF-lite from the border leaves to the border routers, written under
`handoff:` (meetme.intent.schema_handoff), built by generators/build/handoff.py.

Each handed-off VRF gets an 802.1Q sub-interface and an eBGP session on every link between a
handoff border leaf and a border router. EVPN-013 (the devices are border leaves) keeps its
earlier id, which waivers and standards profiles name; every further check has a HANDOFF-* id of
its own, one check per id (docs/standards.md#handoff).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass

from meetme.generators.build.edge_policy import GLOBAL_LONGEST
from meetme.generators.build.handoff import NORTH_MAX_LENGTH, carried_families
from meetme.generators.resolve.edge_sessions import public_aggregates
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.addr import routable_aggregate
from meetme.validators.rules.overlay import (
    CARRIER_VLAN_PLATFORMS,
    Placed,
    PlacedVrf,
    VlanUse,
    _platform,
    _vlan_uses,
    placed_networks,
    placed_vrfs,
)

from meetme.core.problems import listed
from meetme.intent.schema_handoff import HandoffVrf

RFC4364 = "https://www.rfc-editor.org/rfc/rfc4364"
RFC9135 = "https://www.rfc-editor.org/rfc/rfc9135"

# --- EVPN-013, HANDOFF-001: the handoff's devices -----------------------------------------------


@rule(
    "EVPN-013",
    "error",
    "The border-leaf handoff runs on border leaves",
    "Each handed-off VRF rides a sub-interface of a link between a handoff border leaf and a "
    "border router; a leaf, spine or border named as a handoff border leaf has no such role in "
    "the fabric, and nothing would be handed off there.",
    f"docs/standards.md#evpn-013; RFC 4364 section 10 (option A, VRF-to-VRF) {RFC4364}",
)
def handoff_on_border_leaves(ctx: SiteContext) -> Iterator[Hit]:
    handoff = ctx.site.handoff
    if handoff is None:
        return
    for index, name in enumerate(handoff.border_leaves):
        device = ctx.site.devices.get(name)  # an unknown name: the reference check
        if device is not None and device.role != "border_leaf":
            yield Hit(
                f"handoff border leaf {name} is a {device.role}: the handoff runs on border "
                "leaves, over their links to the border routers; name a border_leaf",
                (*handoff.path, "border_leaves", index),
            )


def _cabled_to_borders(ctx: SiteContext, name: str) -> bool:
    site = ctx.site
    return any(site.devices[r.device].role == "border" for _, r, _ in ctx.fabric.links_of(name))


@rule(
    "HANDOFF-001",
    "error",
    "Every handoff border leaf is cabled to a border router",
    "Each handed-off VRF rides a sub-interface of a border-leaf-to-border link: a handoff "
    "border leaf with no link to a border router hands nothing off.",
    f"docs/standards.md#handoff-001; RFC 4364 section 10 (option A) {RFC4364}",
)
def handoff_border_leaves_cabled(ctx: SiteContext) -> Iterator[Hit]:
    handoff = ctx.site.handoff
    if handoff is None:
        return
    for index, name in enumerate(handoff.border_leaves):
        device = ctx.site.devices.get(name)
        if device is None or device.role != "border_leaf":
            continue  # unknown: the reference check; not a border leaf: EVPN-013
        borders = [n for n, d in ctx.site.devices.items() if d.role == "border"]
        if ctx.fabric.unnumbered_toward(name, borders):
            continue  # a link rule could not number its links there: PHY-016's finding
        if not _cabled_to_borders(ctx, name):
            yield Hit(
                f"handoff border leaf {name} has no link to a border router: each handed-off "
                "VRF rides a sub-interface of a border-leaf-to-border link, so nothing would be "
                "handed off there; cable it to the borders (link_rules or links) or remove it",
                (*handoff.path, "border_leaves", index),
            )


def _border_leaves(ctx: SiteContext) -> list[str]:
    """The handoff's border leaves that are border leaves cabled to the borders, once each."""
    handoff = ctx.site.handoff
    found: list[str] = []
    for name in handoff.border_leaves if handoff else []:
        device = ctx.site.devices.get(name)
        usable = device is not None and device.role == "border_leaf"
        if usable and name not in found and _cabled_to_borders(ctx, name):
            found.append(name)
    return found


@dataclass(frozen=True)
class Handed:
    """One handed-off VRF: its handoff settings and the tenant VRF it hands off."""

    name: str
    wanted: HandoffVrf
    vrf: PlacedVrf


def _handed(ctx: SiteContext) -> list[Handed]:
    """The handed-off VRFs in file order; unknown VRF names are the reference check's."""
    handoff = ctx.site.handoff
    if handoff is None:
        return []
    vrfs: dict[str, PlacedVrf] = {}
    for placed in placed_vrfs(ctx, placed_networks(ctx)):
        vrfs.setdefault(placed.name, placed)  # a name in two tenants: EVPN-015
    found = sorted(
        (ctx.loaded.where(v.path), name, v) for name, v in handoff.vrfs.items() if name in vrfs
    )
    return [Handed(name, wanted, vrfs[name]) for _, name, wanted in found]


def _nxos(ctx: SiteContext) -> list[str]:
    return [d for d in _border_leaves(ctx) if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS]


# --- HANDOFF-002: what the border leaves learn (their NX-OS carrier VLAN: EVPN-021) ------------


@rule(
    "HANDOFF-002",
    "error",
    "A handed-off VRF has an L3VNI",
    "A border leaf learns the VRF's subnets from the leaves over its L3VNI (symmetric IRB); a "
    "VRF without one gives the border leaves nothing to hand to the borders.",
    f"docs/standards.md#handoff-002 and docs/standards.md#evpn-005; {RFC9135}",
)
def handed_vrfs_have_l3vni(ctx: SiteContext) -> Iterator[Hit]:
    for item in _handed(ctx):
        if item.vrf.vrf.l3vni is None:
            yield Hit(
                f"handoff VRF {item.name} ({item.vrf.label}) has no l3vni: the border leaves "
                "learn its subnets from the leaves over the L3VNI (symmetric IRB), so they "
                "would hand nothing to the borders; give the VRF an l3vni",
                item.wanted.path,
            )


# --- HANDOFF-004, HANDOFF-005: handoff VLANs ----------------------------------------------------


@rule(
    "HANDOFF-004",
    "error",
    "Each handed-off VRF has a VLAN of its own",
    "A VRF's handoff VLAN is its sub-interface <link>.<vlan> on every handoff link: two VRFs "
    "with one VLAN would need one sub-interface in two VRFs.",
    f"docs/standards.md#handoff-004; RFC 4364 section 10 (option A: one logical interface per "
    f"VRF) {RFC4364}",
)
def handoff_vlans_unique(ctx: SiteContext) -> Iterator[Hit]:
    first_vlan: dict[int, str] = {}
    for item in _handed(ctx):
        vlan = item.wanted.vlan
        earlier = first_vlan.setdefault(vlan, item.name)
        if earlier != item.name:
            yield Hit(
                f"vlan {vlan} of handoff VRF {item.name} is also the vlan of handoff VRF "
                f"{earlier}: both would be sub-interface <link>.{vlan} on every handoff "
                "link; give each VRF its own vlan",
                (*item.wanted.path, "vlan"),
            )


def _border_vlan_uses(ctx: SiteContext, handed: list[PlacedVrf], nxos: list[str]) -> list[VlanUse]:
    """VLANs the border leaves bridge: networks placed on them, L3VNI carrier VLANs of the VRFs
    they carry on NX-OS (those of their networks and the handed-off ones)."""
    uses = {u.label: u for u in _vlan_uses(ctx)}
    for vrf in handed:
        if vrf.vrf.vlan is None or vrf.vrf.l3vni is None or not nxos:
            continue
        label = f"{vrf.label} (L3VNI carrier)"
        known = uses.get(label)
        devices = tuple(dict.fromkeys([*(known.devices if known else ()), *nxos]))
        uses[label] = VlanUse(vrf.vrf.vlan, label, devices, (*vrf.vrf.path, "vlan"), vrf.at)
    return sorted(uses.values(), key=lambda u: u.at)


@rule(
    "HANDOFF-005",
    "error",
    "A handoff VLAN is no VLAN the border leaf bridges",
    "A handoff VLAN equal to a VLAN the border leaf bridges (a network's VLAN or an NX-OS L3VNI "
    "carrier VLAN) makes one id two things on the switch, as EVPN-003 forbids between networks, "
    "whatever a platform tolerates.",
    "docs/standards.md#handoff-005 and docs/standards.md#evpn-003; docs/syntax.md#nxos-evpn "
    "(NX-OS L3VNI carrier VLAN)",
)
def handoff_vlans_not_bridged(ctx: SiteContext) -> Iterator[Hit]:
    handed = _handed(ctx)
    border_leaves = _border_leaves(ctx)
    uses = _border_vlan_uses(ctx, [item.vrf for item in handed], _nxos(ctx))
    for item in handed:
        for use in uses:
            shared = [d for d in use.devices if d in border_leaves]
            if use.vlan == item.wanted.vlan and shared:
                yield Hit(
                    f"vlan {item.wanted.vlan} of handoff VRF {item.name} is also the VLAN of "
                    f"{use.label} on {listed(shared)}: one VLAN id is one thing per switch; "
                    "choose another handoff vlan",
                    (*item.wanted.path, "vlan"),
                )


# --- HANDOFF-006..HANDOFF-009: what goes north --------------------------------------------------


Net = ipaddress.IPv4Network | ipaddress.IPv6Network


def _family(network: Net) -> str:
    return "ipv6" if network.version == 6 else "ipv4"


def _exports(ctx: SiteContext) -> Iterator[tuple[Handed, str, Net, Path_]]:
    """Every prefix a handed-off VRF sends north: its export_north, then its public ones."""
    for item in _handed(ctx):
        for key in ("export_north", "public"):
            for index, prefix in enumerate(getattr(item.wanted, key)):
                yield item, prefix, ipaddress.ip_network(prefix), (*item.wanted.path, key, index)


def _links_without_v6(ctx: SiteContext) -> list[str]:
    """The handoff links (border leaf side) with no IPv6 addresses to carry IPv6 sessions."""
    handoff = ctx.site.handoff
    missing = []
    for leaf in handoff.border_leaves if handoff else []:
        for local, remote, _ in ctx.fabric.links_of(leaf):
            peer = ctx.site.devices.get(remote.device)
            if peer is not None and peer.role == "border" and local.address_v6 is None:
                missing.append(f"{leaf} {local.interface}")
    return missing


@rule(
    "HANDOFF-006",
    "error",
    "IPv6 goes north only over links with IPv6",
    "An IPv6 prefix goes north over IPv6 sessions on the handoff links' /127s: where the site has "
    "no IPv6 link pool (pools.p2p_v6) the handoff links carry IPv4 only and the prefix would "
    "never be advertised.",
    f"docs/standards.md#handoff-006; RFC 4364 section 10 {RFC4364}",
)
def exports_have_their_family(ctx: SiteContext) -> Iterator[Hit]:
    missing = _links_without_v6(ctx)
    if not missing:
        return
    for item, text, network, path in _exports(ctx):
        if network.version == 6:
            yield Hit(
                f"{path[-2]} {text} of handoff VRF {item.name} is IPv6, but the handoff links "
                f"({listed(missing)}) have no IPv6 addresses, so it would never be advertised; "
                "give the site a pools.p2p_v6 or remove it",
                path,
            )


def _exported(prefix: Net, subnet: Net) -> bool:
    """Whether the handoff's northbound prefix-list entry for `prefix` permits `subnet`
    (generators/build/handoff.py: `le NORTH_MAX_LENGTH` below that length, else exact)."""
    if prefix.version != subnet.version:
        return False
    longest = NORTH_MAX_LENGTH[_family(prefix)]
    if prefix.prefixlen < longest:
        return subnet.subnet_of(prefix) and subnet.prefixlen <= longest  # type: ignore[arg-type]
    return subnet == prefix


def _gateway_subnets(vrf: PlacedVrf) -> list[tuple[Net, Placed]]:
    """The gateway subnets (both families) of the VRF's placed networks."""
    subnets: list[tuple[Net, Placed]] = []
    for placed in vrf.gateways:
        for gateway in (placed.network.gateway_v4, placed.network.gateway_v6):
            if placed.devices and gateway is not None:
                subnets.append((ipaddress.ip_interface(gateway).network, placed))
    return subnets


def _unplaced_subnets(vrf: PlacedVrf) -> list[Net]:
    """The gateway subnets of the VRF's networks that no leaf carries (EVPN-020's)."""
    return [
        ipaddress.ip_interface(gateway).network
        for placed in vrf.gateways
        if not placed.devices
        for gateway in (placed.network.gateway_v4, placed.network.gateway_v6)
        if gateway is not None
    ]


def _skipped(item: Handed, prefix: Net) -> list[tuple[Net, Placed]]:
    """The VRF's gateway subnets inside `prefix` that no northbound entry lets north."""
    entries = [ipaddress.ip_network(e) for e in (*item.wanted.export_north, *item.wanted.public)]
    return [
        (subnet, placed)
        for subnet, placed in _gateway_subnets(item.vrf)
        if subnet.version == prefix.version
        and subnet.subnet_of(prefix)  # type: ignore[arg-type]
        and not any(_exported(entry, subnet) for entry in entries)
    ]


@rule(
    "HANDOFF-007",
    "error",
    "Every export north matches a gateway subnet of its VRF",
    "Export north is an allow-list: an entry that matches none of the VRF's own gateway subnets "
    "the way the handoff prefix-list does (a shorter prefix takes subnets of it up to /24 in "
    "IPv4 and /64 in IPv6, a longer one itself only) exports nothing, which is a typo or a "
    "stale entry. It need not avoid other VRFs' subnets: overlapping tenant address space in "
    "separate VRFs is legitimate as long as one VRF exports it (HANDOFF-009). A public prefix "
    "outside our aggregates is HANDOFF-010's: not our space, whatever it matches.",
    "docs/standards.md#handoff-007 and docs/standards.md#edge-export (outbound is an "
    "allow-list); generators/build/handoff.py",
)
def exports_match_gateways(ctx: SiteContext) -> Iterator[Hit]:
    for item, text, prefix, path in _exports(ctx):
        if path[-2] == "public" and not _in_aggregates(ctx, prefix):
            continue  # not our space at all: HANDOFF-010 names that, the cause
        subnets = _gateway_subnets(item.vrf)
        if _skipped(item, prefix) or any(_exported(prefix, subnet) for subnet, _ in subnets):
            continue  # a subnet inside it that does not go north: HANDOFF-008
        if any(_exported(prefix, subnet) for subnet in _unplaced_subnets(item.vrf)):
            continue  # it matches a network on racks without a leaf: EVPN-020 names that
        own = listed([str(s) for s, _ in subnets]) if subnets else "it has none"
        yield Hit(
            f"{path[-2]} {text} of handoff VRF {item.name} matches none of the VRF's gateway "
            f"subnets ({own}): the border leaves would advertise nothing for it; write a "
            "prefix covering the subnets to export",
            path,
        )


@rule(
    "HANDOFF-008",
    "error",
    "Every gateway subnet inside an export north goes north",
    "The handoff prefix-list lets subnets of an exported prefix north up to /24 (IPv4) or /64 "
    "(IPv6; a longer export matches itself only), so host routes stay inside. A gateway subnet "
    "that lies in an export but is longer than that, or inside an export of its own length, would "
    "silently not go north.",
    "docs/standards.md#handoff-008 and docs/standards.md#edge-export; "
    "generators/build/handoff.py NORTH_MAX_LENGTH",
)
def exports_cover_their_subnets(ctx: SiteContext) -> Iterator[Hit]:
    for item, text, prefix, path in _exports(ctx):
        longest = NORTH_MAX_LENGTH[_family(prefix)]
        only = f"subnets of it up to /{longest}" if prefix.prefixlen < longest else f"{text} itself"
        # a public prefix is also what the borders leak into the Internet table, matched the
        # same way: only the subnet itself in `public` brings the Internet's traffic to it
        public = path[-2] == "public"
        for subnet, placed in _skipped(item, prefix):
            fix = (
                "nor reach the Internet; write it in public in that prefix's place"
                if public
                else f"add {subnet} to export_north"
            )
            yield Hit(
                f"gateway subnet {subnet} of {placed.label} lies in {path[-2]} {text} of "
                f"handoff VRF {item.name}, but the handoff exports {only}, so it would not go "
                f"north{' ' if public else '; '}{fix}",
                path,
            )


@rule(
    "HANDOFF-009",
    "error",
    "Exports north of two VRFs do not overlap",
    "The borders would learn the same addresses from two tenants' VRFs and route one's traffic "
    "to the other once the routes meet north of the border.",
    f"docs/standards.md#handoff-009 and docs/standards.md#edge-export; RFC 4364 section 10 "
    f"{RFC4364}",
)
def exports_disjoint(ctx: SiteContext) -> Iterator[Hit]:
    exports: list[tuple[str, Net]] = []
    for item, text, network, path in _exports(ctx):
        for other, theirs in exports:
            if (
                other != item.name
                and theirs.version == network.version
                and theirs.overlaps(network)
            ):
                yield Hit(
                    f"{path[-2]} {text} of handoff VRF {item.name} overlaps {theirs} of "
                    f"handoff VRF {other}: the borders would learn the same addresses from "
                    "two tenants' VRFs and route one's traffic to the other once they meet "
                    "north of the border; export disjoint prefixes",
                    path,
                )
        exports.append((item.name, network))


def _in_aggregates(ctx: SiteContext, network: Net) -> bool:
    """Whether a prefix lies inside one of the organisation's aggregates (HANDOFF-010)."""
    return any(
        a.version == network.version and network.subnet_of(a)  # type: ignore[arg-type]
        for a in (ipaddress.ip_network(x) for x in ctx.loaded.intent.organisation.aggregates)
    )


@rule(
    "HANDOFF-010",
    "error",
    "A VRF's public prefixes lie inside our aggregates",
    "The Internet receives our aggregates only: a public prefix is reachable from the Internet "
    "as a more specific of one, leaked into the borders' Internet table. One outside every "
    "aggregate would be routed to nobody, and is not ours to announce.",
    "docs/standards.md#handoff-010; RFC 7454 section 6.2",
)
def public_inside_aggregates(ctx: SiteContext) -> Iterator[Hit]:
    aggregates = [ipaddress.ip_network(a) for a in ctx.loaded.intent.organisation.aggregates]
    for item in _handed(ctx):
        for index, prefix in enumerate(item.wanted.public):
            if _in_aggregates(ctx, ipaddress.ip_network(prefix)):
                continue
            yield Hit(
                f"public {prefix} of handoff VRF {item.name} lies in none of our aggregates "
                f"({listed([str(a) for a in aggregates]) or 'none'}): the Internet would never "
                "route it to us; use space inside an aggregate or add the aggregate",
                (*item.wanted.path, "public", index),
            )


@rule(
    "HANDOFF-011",
    "error",
    "Public prefixes come with Internet access",
    "A VRF's public prefixes are leaked into the Internet table only when the VRF has "
    "`internet: default`; with `internet: none` they go north and stop at the border.",
    "docs/standards.md#handoff-011",
)
def public_needs_internet(ctx: SiteContext) -> Iterator[Hit]:
    for item in _handed(ctx):
        if item.wanted.public and item.wanted.internet != "default":
            yield Hit(
                f"handoff VRF {item.name} has public prefixes but `internet: none`: they would "
                "stop at the border; set `internet: default` or remove `public`",
                (*item.wanted.path, "public"),
            )


@rule(
    "HANDOFF-012",
    "warning",
    "A handed-off VRF carries something in some family",
    "A handoff session in a family carries the VRF's prefixes north or the default route south "
    "(`internet: default`, in a family the VRF routes): a VRF with nothing to export north in "
    "either family and no Internet access would get sub-interfaces and sessions on every "
    "handoff link that exchange nothing, so none are rendered for it; the handoff of such a "
    "VRF is a design that does nothing, a forgotten export_north or internet setting.",
    "docs/standards.md#handoff-012; generators/build/handoff.py",
)
def handed_vrfs_carry_something(ctx: SiteContext) -> Iterator[Hit]:
    for item in _handed(ctx):
        if not carried_families(ctx.site, item.name, item.wanted):
            yield Hit(
                f"handoff VRF {item.name} of site {ctx.name} has nothing to hand off: no "
                "export_north or public prefix to send north and `internet: none`, so its "
                "sessions would exchange nothing in either family and none are rendered; "
                "export the VRF's subnets north, set `internet: default`, or remove it from "
                "the handoff",
                item.wanted.path,
            )


@rule(
    "HANDOFF-013",
    "warning",
    "Internet access comes with a public source to answer",
    "`internet: default` sends the VRF a default route in each family one of its networks has a "
    "gateway in. Its hosts then send to the Internet from their own addresses, and the Internet "
    "answers only addresses we announce: a family in which the VRF has no `public` prefix sends "
    "packets whose replies never come back (meetme renders no NAT). Such a default route is a "
    "promise of Internet access that cannot be kept, in a design that lints clean.",
    "docs/standards.md#handoff-013; RFC 1918 section 3 https://www.rfc-editor.org/rfc/rfc1918",
)
def internet_has_public_sources(ctx: SiteContext) -> Iterator[Hit]:
    for item in _handed(ctx):
        if item.wanted.internet != "default":
            continue
        public = [ipaddress.ip_network(p) for p in item.wanted.public]
        for version, family in ((4, "IPv4"), (6, "IPv6")):
            subnets = [str(s) for s, _ in _gateway_subnets(item.vrf) if s.version == version]
            if subnets and not any(p.version == version for p in public):
                yield Hit(
                    f"handoff VRF {item.name} of site {ctx.name} has `internet: default` but "
                    f"no public {family} prefix: its hosts ({listed(subnets)}) would get a "
                    f"default route and reach the Internet from addresses we do not announce, "
                    "so no reply comes back; list the VRF's public subnets under `public`, or "
                    "set `internet: none` (a NAT beyond meetme's configs: waive this finding)",
                    (*item.wanted.path, "internet"),
                )


@rule(
    "HANDOFF-014",
    "error",
    "Public prefixes are longer than the aggregates we anchor",
    "Each border anchors every aggregate it announces (the organisation's and its site's "
    "public ones) with a discard route, and a VRF's public prefix reaches the Internet table "
    "as a route leaked from the VRF. Where an aggregate is as long as the public prefix or "
    "longer, the static discard route wins (administrative distance 1 against BGP's), and the "
    "Internet's traffic for those addresses is dropped at the border, while the leak still "
    "looks right in the config.",
    "docs/standards.md#handoff-014; RFC 4632 section 5.1 (longest match) "
    "https://www.rfc-editor.org/rfc/rfc4632",
)
def public_longer_than_aggregates(ctx: SiteContext) -> Iterator[Hit]:
    anchored = [ipaddress.ip_network(a) for a in public_aggregates(ctx.loaded.intent, ctx.site)]
    for item in _handed(ctx):
        for index, prefix in enumerate(item.wanted.public):
            network = ipaddress.ip_network(prefix)
            over = [
                str(a)
                for a in anchored
                if a.version == network.version
                and a.overlaps(network)
                and a.prefixlen >= network.prefixlen
            ]
            if over:
                yield Hit(
                    f"public {prefix} of handoff VRF {item.name} is no more specific than "
                    f"aggregate {listed(over)}, which site {ctx.name}'s borders anchor with a "
                    "discard route: that route beats the one leaked from the VRF, and the "
                    "Internet's traffic for it would be dropped at the border; keep public "
                    "prefixes longer than every aggregate over them",
                    (*item.wanted.path, "public", index),
                )


@rule(
    "HANDOFF-015",
    "error",
    "No public prefix is handed off at two sites",
    "Every site's borders announce the organisation's aggregates and leak their own VRFs' "
    "public prefixes into their Internet table: a public prefix handed off at two sites is "
    "reached at whichever site the Internet's traffic enters, and delivered to that site's "
    "tenant, another tenant's hosts where the VRFs differ. (A VRF riding SRv6 between the two "
    "sites is SRV6-011's.)",
    "docs/standards.md#handoff-015",
)
def public_at_one_site(ctx: SiteContext) -> Iterator[Hit]:
    """Each overlapping pair once, at the site whose name sorts later."""
    intent = ctx.loaded.intent
    mine = [
        (i.name, p, i.wanted.path, n) for i in _handed(ctx) for n, p in enumerate(i.wanted.public)
    ]
    for other_name, other in sorted(intent.sites.items()):
        if other_name >= ctx.name:
            break
        theirs = [
            (name, prefix)
            for name, vrf in (other.handoff.vrfs.items() if other.handoff else ())
            for prefix in vrf.public
        ]
        for vrf, prefix, path, index in mine:
            network = ipaddress.ip_network(prefix)
            for their_vrf, their_prefix in theirs:
                if vrf == their_vrf and _rides_srv6(ctx, vrf, other_name):
                    continue
                if network.overlaps(ipaddress.ip_network(their_prefix)):
                    yield Hit(
                        f"public {prefix} of handoff VRF {vrf} of site {ctx.name} overlaps "
                        f"public {their_prefix} of handoff VRF {their_vrf} of site "
                        f"{other_name}: the Internet would deliver its traffic to whichever "
                        "site it enters, to that site's tenant; give each site's tenants "
                        "public space of their own",
                        (*path, "public", index),
                    )


@rule(
    "HANDOFF-017",
    "error",
    "A site's public aggregate holds no other site's public prefix",
    "A site's public aggregate (`sites.S.aggregates.public`) is announced from its borders "
    "only, more specific than the organisation's aggregate every site announces: the Internet "
    "sends every address inside it to this site. Another site's `public` prefix there is "
    "drawn to borders that never leak it into their Internet table (each border leaks its own "
    "site's handoff VRFs' public prefixes), and the aggregate's discard anchor drops it, "
    "whichever site's edge is up.",
    "docs/standards.md#handoff-017; RFC 4632 section 5.1 (longest match) "
    "https://www.rfc-editor.org/rfc/rfc4632",
)
def site_aggregates_hold_own_public(ctx: SiteContext) -> Iterator[Hit]:
    """At this site's aggregate, each other site's public prefix that overlaps it."""
    for index, written in enumerate(ctx.site.aggregates.public):
        aggregate = ipaddress.ip_network(written)
        for other_name, other in sorted(ctx.loaded.intent.sites.items()):
            if other_name == ctx.name or other.handoff is None:
                continue
            for vrf, wanted in sorted(other.handoff.vrfs.items()):
                for prefix in wanted.public:
                    if not aggregate.overlaps(ipaddress.ip_network(prefix)):
                        continue
                    yield Hit(
                        f"site {ctx.name}'s public aggregate {written} overlaps public "
                        f"{prefix} of handoff VRF {vrf} of site {other_name}: the Internet "
                        f"would send that tenant's traffic to {ctx.name}'s borders, which do "
                        "not leak it and drop it at the aggregate's discard route; keep each "
                        "site's aggregates clear of the other sites' public prefixes",
                        (*ctx.base, "aggregates", "public", index),
                    )


def _rides_srv6(ctx: SiteContext, vrf: str, other_site: str) -> bool:
    """Whether the VRF rides SRv6 between this site and `other_site` (then SRV6-011 judges
    their address space)."""
    srv6 = ctx.loaded.intent.srv6
    entry = srv6.vrfs.get(vrf) if srv6 is not None else None
    return entry is not None and {ctx.name, other_site} <= set(entry.sites)


@rule(
    "HANDOFF-016",
    "warning",
    "The handoff runs on at least two border leaves",
    "The VRF-lite handoff is the tenants' only way north: to the Internet, to the clouds "
    "behind the borders and to the other sites. On one border leaf, that leaf's failure or "
    "reload withdraws every handed-off VRF's default route and takes the public prefixes out "
    "of the borders' Internet tables, while both borders stay up. Two border leaves are "
    "kept apart like the borders (PHY-003, PHY-004).",
    "docs/standards.md#handoff-016",
)
def handoff_on_two_border_leaves(ctx: SiteContext) -> Iterator[Hit]:
    handoff = ctx.site.handoff
    if handoff is not None and len(set(handoff.border_leaves)) == 1:
        (leaf,) = set(handoff.border_leaves)
        yield Hit(
            f"the handoff of site {ctx.name} runs on {leaf} alone: its failure would cut "
            "every handed-off VRF off from the borders; add a second border leaf, in another "
            "room and cooling zone",
            (*handoff.path, "border_leaves"),
        )


@rule(
    "HANDOFF-018",
    "error",
    "A tenant subnet in our announced space is a public prefix of its VRF's handoff",
    "Every border announces the organisation's aggregates (and its site's public ones) and "
    "anchors each with a discard route; it leaks into its Internet table only the `public` "
    "prefixes of its own site's handoff VRFs. A tenant subnet numbered from that announced "
    "space but in no such prefix draws the Internet's traffic to the borders, which drop it "
    "at the aggregate's discard route; its hosts' own packets, sent from addresses nothing "
    "routes back, get no reply. A VRF in no handoff has no way north at all. The design lints "
    "clean and the tenant is cut off from the Internet it was numbered for.",
    "docs/standards.md#handoff-018; RFC 4632 section 5.1 (longest match) "
    "https://www.rfc-editor.org/rfc/rfc4632",
)
def announced_subnets_are_public(ctx: SiteContext) -> Iterator[Hit]:
    """At each gateway inside an announced aggregate that no `public` prefix of its VRF's
    handoff holds (here, or at a site the VRF rides SRv6 to)."""
    written = (ipaddress.ip_network(a) for a in public_aggregates(ctx.loaded.intent, ctx.site))
    announced = [a for a in written if routable_aggregate(a)]  # the rest: ADDR-021's
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        public = _public_of(ctx, vrf.name)
        if any(not any(_holds(a, p) for a in announced) for p in public):
            continue  # a public prefix outside our space, mistyped perhaps: HANDOFF-010's
        handed = ctx.site.handoff is not None and vrf.name in ctx.site.handoff.vrfs
        for placed in vrf.gateways:
            for key in ("gateway_v4", "gateway_v6"):
                gateway = getattr(placed.network, key)
                if gateway is None or not placed.devices:
                    continue
                subnet = ipaddress.ip_interface(gateway).network
                inside = [a for a in announced if _holds(a, subnet)]
                # inside a public prefix that does not match it: HANDOFF-008's, at that prefix
                if not inside or any(_holds(p, subnet) for p in public):
                    continue
                if handed:
                    fix = f"add {subnet} to the VRF's handoff `public`"
                    why = f"no `public` prefix of handoff VRF {vrf.name} holds it"
                else:
                    fix = (
                        f"hand VRF {vrf.name} off (`handoff.vrfs`) with `internet: default` "
                        f"and `public: [{subnet}]`"
                    )
                    why = f"VRF {vrf.name} is in no handoff of site {ctx.name}"
                yield Hit(
                    f"{placed.label} has gateway {gateway} in {inside[0]}, which the borders "
                    f"announce, but {why}: the Internet's traffic for {subnet} stops at the "
                    "borders' discard route and its hosts get no reply; "
                    f"{fix}, or number the network from private space",
                    (*placed.network.path, key),
                )


@rule(
    "HANDOFF-019",
    "error",
    "A site's public prefix lies under an aggregate its site alone announces",
    "Each border leaks into its Internet table the `public` prefixes of its own site's handoff "
    "VRFs only: no site carries another's Internet routes. The Internet sends a public "
    "prefix's traffic to every site that announces the longest of our aggregates holding "
    "it; when other sites announce that aggregate too, the part of the traffic that enters "
    "there meets their discard route for it and is dropped, while every edge is up and each "
    "site lints clean. A site aggregate holding the prefix (`sites.S.aggregates.public`, no "
    "longer than the Internet's table carries), or an organisation aggregate the site claims "
    "by writing it there, is announced from that site alone.",
    "docs/standards.md#handoff-019; docs/architecture.md#site-aggregates; RFC 4632 section "
    "5.1 (longest match) https://www.rfc-editor.org/rfc/rfc4632",
)
def public_prefixes_drawn_to_their_site(ctx: SiteContext) -> Iterator[Hit]:
    """At each leaked public prefix whose longest announced holder other sites announce too.
    One that no aggregate holds is HANDOFF-010's; one under another site's aggregate alone,
    HANDOFF-017's; one no site leaks (`internet: none`), HANDOFF-011's."""
    announced = _announcers(ctx)
    for item in _handed(ctx):
        if item.wanted.internet != "default":
            continue
        for index, prefix in enumerate(item.wanted.public):
            net = ipaddress.ip_network(prefix)
            holders = [a for a in announced if _holds(a, net)]
            if not holders:
                continue
            longest = max(holders, key=lambda a: a.prefixlen)
            others = sorted(announced[longest] - {ctx.name})
            if ctx.name not in announced[longest] or not others:
                continue
            own = f"sites.{ctx.name}.aggregates.public"
            if longest.prefixlen >= GLOBAL_LONGEST["ipv6" if net.version == 6 else "ipv4"]:
                # nothing longer would be carried: the site can only take the whole block
                fix = f"claim {longest} for site {ctx.name} by writing it in {own}"
            else:
                fix = (
                    f"give site {ctx.name} a public aggregate of its own inside {longest} "
                    f"that holds it ({own}), or claim {longest} by writing it there"
                )
            yield Hit(
                f"public {prefix} of handoff VRF {item.name} lies under {longest}, which "
                f"{listed(others)} announce{'s' if len(others) == 1 else ''} as well: the "
                f"Internet's traffic for it that enters at {listed(others)} meets the discard "
                f"route for {longest} there and is dropped (no site carries another's Internet "
                f"routes); {fix}",
                (*item.wanted.path, "public", index),
            )


def _announcers(ctx: SiteContext) -> dict[Net, set[str]]:
    """Each prefix the sites announce to an Internet party that the Internet carries (the
    rest are ADDR-016's and ADDR-021's), with the sites that announce it."""
    found: dict[Net, set[str]] = {}
    for name, fabric in ctx.fabrics.items():
        for session in fabric.edge.sessions:
            if not session.internet:
                continue
            for written in session.export_prefixes:
                net = ipaddress.ip_network(written)
                if routable_aggregate(net):
                    found.setdefault(net, set()).add(name)
    return found


def _holds(outer: Net, inner: Net) -> bool:
    return outer.version == inner.version and inner.subnet_of(outer)  # type: ignore[arg-type]


def _public_of(ctx: SiteContext, vrf: str) -> list[Net]:
    """The `public` prefixes handed off for VRF `vrf`: this site's handoff's, and those of any
    site the VRF rides SRv6 to (its border leaks them, and the VPN carries the traffic on)."""
    found: list[Net] = []
    for name, site in ctx.loaded.intent.sites.items():
        if site.handoff is None or vrf not in site.handoff.vrfs:
            continue
        if name == ctx.name or _rides_srv6(ctx, vrf, name):
            found += [ipaddress.ip_network(p) for p in site.handoff.vrfs[vrf].public]
    return found
