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

from meetme.generators.build.handoff import NORTH_MAX_LENGTH
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.overlay import (
    CARRIER_VLAN_PLATFORMS,
    Placed,
    PlacedVrf,
    VlanUse,
    _names,
    _platform,
    _vlan_uses,
    placed_networks,
    placed_vrfs,
)

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


# --- HANDOFF-002, HANDOFF-003: what the border leaves learn -------------------------------------


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


@rule(
    "HANDOFF-003",
    "error",
    "A VRF handed off from NX-OS border leaves has an L3VNI carrier VLAN",
    "NX-OS maps an L3VNI through a carrier VLAN, also on a border leaf that carries none of the "
    "VRF's networks but hands the VRF off; without it the VRF's routes never reach the border "
    "leaf.",
    "docs/standards.md#handoff-003 and docs/standards.md#evpn-021; docs/syntax.md#nxos-evpn "
    "(NX-OS L3VNI carrier VLAN)",
)
def handed_vrfs_have_carrier_vlan_on_nxos(ctx: SiteContext) -> Iterator[Hit]:
    nxos = _nxos(ctx)
    if not nxos:
        return
    for item in _handed(ctx):
        vrf = item.vrf.vrf
        if vrf.l3vni is not None and vrf.vlan is None:
            yield Hit(
                f"handoff VRF {item.name} ({item.vrf.label}) is carried by {_names(nxos)} on "
                f"Cisco NX-OS, which maps the L3VNI {vrf.l3vni} through a carrier VLAN: give "
                "the VRF a vlan (an id no network on those border leaves uses)",
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
                    f"{use.label} on {_names(shared)}: one VLAN id is one thing per switch; "
                    "choose another handoff vlan",
                    (*item.wanted.path, "vlan"),
                )


# --- HANDOFF-006..HANDOFF-009: what goes north --------------------------------------------------


def _exports(ctx: SiteContext) -> Iterator[tuple[Handed, str, ipaddress.IPv4Network, Path_]]:
    """Every IPv4 export_north entry of the handed-off VRFs (IPv6 ones are HANDOFF-006's)."""
    for item in _handed(ctx):
        for index, prefix in enumerate(item.wanted.export_north):
            network = ipaddress.ip_network(prefix)
            if isinstance(network, ipaddress.IPv4Network):
                yield item, prefix, network, (*item.wanted.path, "export_north", index)


@rule(
    "HANDOFF-006",
    "error",
    "Exports north are IPv4",
    "The handoff is IPv4 only (sub-interfaces on the links' /31s, IPv4 sessions): an IPv6 "
    "export_north would never be advertised.",
    f"docs/standards.md#handoff-006; RFC 4364 section 10 {RFC4364}",
)
def exports_ipv4(ctx: SiteContext) -> Iterator[Hit]:
    for item in _handed(ctx):
        for index, prefix in enumerate(item.wanted.export_north):
            if not isinstance(ipaddress.ip_network(prefix), ipaddress.IPv4Network):
                yield Hit(
                    f"export_north {prefix} of handoff VRF {item.name} is IPv6: the handoff is "
                    "IPv4 only (sub-interfaces on the links' /31s, IPv4 sessions), so it would "
                    "never be advertised; remove it",
                    (*item.wanted.path, "export_north", index),
                )


def _exported(prefix: ipaddress.IPv4Network, subnet: ipaddress.IPv4Network) -> bool:
    """Whether the handoff's northbound prefix-list entry for `prefix` permits `subnet`
    (generators/build/handoff.py: `le NORTH_MAX_LENGTH` below that length, else exact)."""
    if prefix.prefixlen < NORTH_MAX_LENGTH:
        return subnet.subnet_of(prefix) and subnet.prefixlen <= NORTH_MAX_LENGTH
    return subnet == prefix


def _gateway_subnets(vrf: PlacedVrf) -> list[tuple[ipaddress.IPv4Network, Placed]]:
    """The IPv4 gateway subnets of the VRF's placed networks."""
    subnets = []
    for placed in vrf.gateways:
        gateway = placed.network.gateway_v4
        if placed.devices and gateway is not None:
            subnets.append((ipaddress.IPv4Interface(gateway).network, placed))
    return subnets


def _skipped(
    item: Handed, prefix: ipaddress.IPv4Network
) -> list[tuple[ipaddress.IPv4Network, Placed]]:
    """The VRF's gateway subnets inside `prefix` that no export_north entry lets north."""
    entries = [
        n
        for n in (ipaddress.ip_network(e) for e in item.wanted.export_north)
        if isinstance(n, ipaddress.IPv4Network)
    ]
    return [
        (subnet, placed)
        for subnet, placed in _gateway_subnets(item.vrf)
        if subnet.subnet_of(prefix) and not any(_exported(entry, subnet) for entry in entries)
    ]


@rule(
    "HANDOFF-007",
    "error",
    "Every export north matches a gateway subnet of its VRF",
    "Export north is an allow-list: an entry that matches none of the VRF's own gateway subnets "
    f"the way the handoff prefix-list does (a shorter prefix takes subnets of it up to "
    f"/{NORTH_MAX_LENGTH}, a longer one itself only) exports nothing, which is a typo or a "
    "stale entry. It need not avoid other VRFs' subnets: overlapping tenant address space in "
    "separate VRFs is legitimate as long as one VRF exports it (HANDOFF-009).",
    "docs/standards.md#handoff-007 and docs/standards.md#edge-export (outbound is an "
    "allow-list); generators/build/handoff.py",
)
def exports_match_gateways(ctx: SiteContext) -> Iterator[Hit]:
    for item, text, prefix, path in _exports(ctx):
        subnets = _gateway_subnets(item.vrf)
        if _skipped(item, prefix) or any(_exported(prefix, subnet) for subnet, _ in subnets):
            continue  # a subnet inside it that does not go north: HANDOFF-008
        own = _names([str(s) for s, _ in subnets]) if subnets else "it has none"
        yield Hit(
            f"export_north {text} of handoff VRF {item.name} matches none of the VRF's gateway "
            f"subnets ({own}): the border leaves would advertise nothing for it; write a "
            "prefix covering the subnets to export",
            path,
        )


@rule(
    "HANDOFF-008",
    "error",
    "Every gateway subnet inside an export north goes north",
    f"The handoff prefix-list lets subnets of an exported prefix north up to /{NORTH_MAX_LENGTH} "
    "(a longer export matches itself only), so host routes stay inside. A gateway subnet that "
    "lies in an export but is longer than that, or inside an export of its own length, would "
    "silently not go north.",
    "docs/standards.md#handoff-008 and docs/standards.md#edge-export; "
    "generators/build/handoff.py NORTH_MAX_LENGTH",
)
def exports_cover_their_subnets(ctx: SiteContext) -> Iterator[Hit]:
    for item, text, prefix, path in _exports(ctx):
        only = (
            f"subnets of it up to /{NORTH_MAX_LENGTH}"
            if prefix.prefixlen < NORTH_MAX_LENGTH
            else f"{text} itself"
        )
        for subnet, placed in _skipped(item, prefix):
            yield Hit(
                f"gateway subnet {subnet} of {placed.label} lies in export_north {text} of "
                f"handoff VRF {item.name}, but the handoff exports {only}, so it would not go "
                f"north; add {subnet} to export_north",
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
    exports: list[tuple[str, ipaddress.IPv4Network]] = []
    for item, text, network, path in _exports(ctx):
        for other, theirs in exports:
            if other != item.name and theirs.overlaps(network):
                yield Hit(
                    f"export_north {text} of handoff VRF {item.name} overlaps {theirs} of "
                    f"handoff VRF {other}: the borders would learn the same addresses from "
                    "two tenants' VRFs and route one's traffic to the other once they meet "
                    "north of the border; export disjoint prefixes",
                    path,
                )
        exports.append((item.name, network))
