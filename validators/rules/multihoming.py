"""The multihoming feature: hosts dual-homed to a leaf pair, written under `attachments:`
(meetme.intent.schema_multihoming), rendered by generators/build/multihoming.py.

EVPN-008 (a complete leaf pair), EVPN-011 (platform gate) and EVPN-012 (the MLAG anycast VTEP is
no device's address) keep their earlier ids, which waivers and standards profiles name; every
further check has an MH-* id of its own, one check per id (docs/standards.md#mh).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from meetme.generators.build.multihoming import (
    esi,
    network_vlans,
    peer_vlan_subnets,
    vrf_peering_vlans,
)
from meetme.generators.build.overlay import VTEP_ROLES
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.overlay import (
    CARRIER_VLAN_PLATFORMS,
    Placed,
    _platform,
    evpn_refused,
    placed_networks,
    placed_vrfs,
)

from meetme.core import addresses
from meetme.core.problems import Location, listed
from meetme.intent.schema_multihoming import Attachment

RFC7432 = "https://www.rfc-editor.org/rfc/rfc7432"
NVUE_MLAG = (
    "https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/"
    "MLAG/"
)
ACTIVE_ACTIVE = (
    "https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/Network-Virtualization/"
    "VXLAN-Active-Active-Mode"
)

MODE_TITLE = {"mlag": "MLAG", "esi": "ESI (EVPN multihoming)", "single": "single-homed ports"}
# generators/platforms/; single-homed ports need no capability beyond a VTEP's
MODE_CAPABILITY = {"mlag": "mlag", "esi": "esi_multihoming"}
LEAVES_OF_MODE = {"mlag": 2, "esi": 2, "single": 1}


@dataclass(frozen=True)
class Attached:
    """One host attachment of the site and where it is written."""

    name: str
    attachment: Attachment
    at: Location

    @property
    def label(self) -> str:
        return f"attachment {self.name}"

    @property
    def lags(self) -> range:
        return range(
            self.attachment.lag_base, self.attachment.lag_base + len(self.attachment.ports)
        )

    @property
    def segments(self) -> range:
        base = self.attachment.segment_base
        return range(base, base + len(self.attachment.ports))


def attachments(ctx: SiteContext) -> list[Attached]:
    found = [Attached(n, a, ctx.loaded.where(a.path)) for n, a in ctx.site.attachments.items()]
    return sorted(found, key=lambda a: (a.at, a.name))


def _vtep_leaves(ctx: SiteContext, item: Attached) -> list[str]:
    """The attachment's distinct leaves that exist and are VTEPs. Other names are reported once,
    as unknown (the reference check) or as no VTEP (EVPN-008), not again by every check."""
    found = []
    for leaf in dict.fromkeys(item.attachment.leaves):
        device = ctx.site.devices.get(leaf)
        if device is not None and device.role in VTEP_ROLES:
            found.append(leaf)
    return found


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


# --- EVPN-008, MH-001: the leaf pair ----------------------------------------------------------


@rule(
    "EVPN-008",
    "error",
    "A host attachment names two different leaves, both VTEPs",
    "A host dual-homed to a leaf pair (EVPN multihoming or MLAG) needs two different switches, "
    "and both must be VTEPs (leaves or border leaves) that carry the networks the host trunks; "
    "a spine or border has no host-facing VXLAN segments.",
    f"docs/standards.md#evpn-008; {RFC7432} sections 5 and 8",
)
def attachment_leaf_pairs(ctx: SiteContext) -> Iterator[Hit]:
    for item in attachments(ctx):
        a = item.attachment
        if len(a.leaves) != 2:  # a single leaf (mode single) or a count MH-017 reports
            first = second = None
        else:
            first, second = a.leaves
        if first is not None and first == second:
            yield Hit(
                f"{item.label} names {first} twice: a dual-homed host needs two different "
                "leaves; name the other leaf of the pair",
                (*a.path, "leaves", 1),
            )
            continue
        for index, leaf in enumerate(a.leaves):
            device = ctx.site.devices.get(leaf)
            if device is not None and device.role not in VTEP_ROLES:
                yield Hit(
                    f"{item.label} names {leaf}, a {device.role}: hosts attach to leaves or "
                    "border leaves, the VTEPs that carry their networks; name "
                    f"{'a leaf' if a.mode == 'single' else 'a leaf pair'}",
                    (*a.path, "leaves", index),
                )


@rule(
    "MH-001",
    "error",
    "The two leaves of a host attachment run one platform",
    "MLAG runs between two switches of one OS, and meetme renders an Ethernet segment's members "
    "from one platform only: the two must agree on designated-forwarder election and the LACP "
    "system the host sees.",
    f"docs/standards.md#mh-001; {RFC7432} section 8.5 (DF election); {NVUE_MLAG}",
)
def attachment_pairs_one_platform(ctx: SiteContext) -> Iterator[Hit]:
    refused = evpn_refused(ctx)
    for item in attachments(ctx):
        a = item.attachment
        if len(a.leaves) != 2:
            continue  # one leaf: nothing to pair
        first, second = a.leaves
        devices = [ctx.site.devices.get(leaf) for leaf in a.leaves]
        vteps = [d for d in devices if d is not None and d.role in VTEP_ROLES]
        if first == second or len(vteps) != 2 or vteps[0].platform == vteps[1].platform:
            continue  # a leaf named twice or no VTEP: EVPN-008
        if refused & {first, second}:
            continue  # a leaf on a platform with no VTEP at all: EVPN-009 names its platform
        why = (
            "MLAG runs between two switches of one OS"
            if a.mode == "mlag"
            else "meetme renders an Ethernet segment's members from one platform only (they "
            "must agree on DF election and the LACP system)"
        )
        titles = [PLATFORMS[d.platform].title for d in vteps]
        yield Hit(
            f"{item.label} pairs {first} ({titles[0]}) with {second} ({titles[1]}): {why}; "
            "pair two leaves of one platform",
            (*a.path, "leaves", 1),
        )


# --- MH-002: settings of the mode --------------------------------------------------------------

MLAG_NEEDS = {
    "peer_link": "the pair synchronises over a peer link between the two leaves; list its "
    "ports (the same names on both)",
    "anycast_vtep": "an MLAG pair is one VTEP to the fabric, so remote VTEPs see its hosts "
    "behind one shared address, not flapping between the two leaves'; give it a free address "
    "from pools.vtep_v4",
}


MLAG_ONLY = ("peer_link", "anycast_vtep", "domain_id")  # settings only MLAG reads


@rule(
    "MH-002",
    "error",
    "An attachment has the settings of its mode and no other mode's",
    "MLAG needs its peer link (the pair synchronises over it) and the pair's shared anycast VTEP "
    "(remote VTEPs see the hosts behind one address); MLAG and ESI bonds need the LACP system "
    "MAC both leaves present. EVPN multihoming has no peer link and each leaf keeps its own "
    "VTEP address; a single-homed host has no pair, so no system MAC, peer link or domain; "
    "`lacp` chooses between a plain port and a one-leaf port-channel, a choice dual-homed "
    "bonds do not have (always LACP). A setting of another mode renders nothing: a mistake.",
    f"docs/standards.md#mh-002; {NVUE_MLAG}; {ACTIVE_ACTIVE}; {RFC7432} section 8",
)
def attachment_mode_settings(ctx: SiteContext) -> Iterator[Hit]:
    for item in attachments(ctx):
        a = item.attachment
        if a.mode == "mlag":
            for key, why in MLAG_NEEDS.items():
                if not getattr(a, key):
                    yield Hit(f"MLAG {item.label} has no {key}: {why}", a.path)
        if a.mode in ("mlag", "esi") and a.lacp_system_mac is None:
            yield Hit(
                f"{MODE_TITLE[a.mode]} {item.label} has no lacp_system_mac: both leaves must "
                "present one LACP system to the host so its bond forms across them; give the "
                "pair a MAC of its own",
                a.path,
            )
        label = {"mlag": "MLAG", "esi": "ESI", "single": "single-homed"}[a.mode]
        for key in MLAG_ONLY:
            if a.mode != "mlag" and getattr(a, key):
                why = (
                    "EVPN multihoming has no peer link and each leaf keeps its own VTEP address"
                    if a.mode == "esi"
                    else "a single-homed host has no leaf pair"
                )
                yield Hit(
                    f"{label} {item.label} sets {key}, an MLAG setting: {why}; remove it (or "
                    "use mode: mlag)",
                    (*a.path, key),
                )
        if a.mode == "single" and a.lacp_system_mac is not None:
            yield Hit(
                f"{label} {item.label} sets lacp_system_mac, a setting of a leaf pair: a "
                "single-leaf bond presents the leaf's own LACP system; remove it",
                (*a.path, "lacp_system_mac"),
            )
        if a.mode != "single" and a.lacp is not None:
            yield Hit(
                f"{label} {item.label} sets lacp, a setting of mode: single: MLAG and ESI "
                "bonds are always LACP; remove it",
                (*a.path, "lacp"),
            )


# --- MH-003, MH-004: the networks a host trunks -------------------------------------------------


def _trunked(ctx: SiteContext) -> Iterator[tuple[Attached, int, str, list[str]]]:
    """Each network an attachment trunks: (attachment, index in its `networks:`, name, the
    tenants that have a network of that name; attachments name networks without one)."""
    owners: dict[str, list[str]] = defaultdict(list)
    for tenant_name, tenant in ctx.site.tenants.items():
        for net_name in tenant.networks:
            owners[net_name].append(tenant_name)
    for item in attachments(ctx):
        for index, name in enumerate(item.attachment.networks):
            yield item, index, name, owners.get(name, [])


@rule(
    "MH-003",
    "error",
    "Every network an attachment trunks is carried by both of its leaves",
    "Both leaves of a host's bond trunk the same VLANs; a network one leaf does not carry is a "
    "VLAN with no VNI or gateway on that side, so half of the host's flows are dropped.",
    f"docs/standards.md#mh-003; {RFC7432} section 8 (an Ethernet segment's links carry the same "
    "EVIs)",
)
def trunked_networks_on_both_leaves(ctx: SiteContext) -> Iterator[Hit]:
    placed: dict[tuple[str, str], Placed] = {(p.tenant, p.name): p for p in placed_networks(ctx)}
    for item, index, name, tenants in _trunked(ctx):
        if len(tenants) != 1:
            continue  # unknown: the reference check; ambiguous: MH-004
        network = placed[tenants[0], name]
        missing = [leaf for leaf in _vtep_leaves(ctx, item) if leaf not in network.device_set]
        if missing:
            racks = listed(sorted({str(ctx.site.devices[leaf].rack) for leaf in missing}))
            yield Hit(
                f"{network.label}, trunked by {item.label}, is not carried by "
                f"{listed(missing)}: the hosts' bonds there would trunk a VLAN with no VNI or "
                f"gateway; add rack {racks} to the network's racks (or the leaves to its "
                "leaves), or stop trunking it",
                (*item.attachment.path, "networks", index),
            )


@rule(
    "MH-004",
    "error",
    "A network an attachment trunks names one network of the site",
    "Attachments name networks without their tenant, so a name that several tenants use would "
    "give the hosts the VLANs of all of them: hosts of one tenant in another's segment.",
    "docs/standards.md#mh-004 and docs/standards.md#intent-consistency",
)
def trunked_network_names_unambiguous(ctx: SiteContext) -> Iterator[Hit]:
    for item, index, name, tenants in _trunked(ctx):
        if len(tenants) > 1:
            yield Hit(
                f"{item.label} trunks network {name}, a name in tenants "
                f"{' and '.join(tenants)}: attachments name networks without their tenant, "
                "so the hosts would get the VLANs of all of them; rename all but one of "
                "those networks",
                (*item.attachment.path, "networks", index),
            )


# --- MH-005: ports ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PortUse:
    kind: str  # "fabric", "external", "host" or "peer"
    text: str  # what the port already is, for the message


@rule(
    "MH-005",
    "error",
    "A host or peer-link port carries one thing",
    "A host port or peer-link port is one physical port: not a fabric link's port, not an "
    "external circuit's port, not another attachment's host port, and not listed twice in one "
    "attachment. Two configurations on one port are rejected or silently merged (one MLAG "
    "pair's peer link may be named by all of its attachments).",
    "docs/standards.md#mh-005 and docs/standards.md#phy-013",
)
def attachment_ports_free(ctx: SiteContext) -> Iterator[Hit]:
    found = attachments(ctx)
    fabric = ctx.fabric
    used: dict[tuple[str, str], PortUse] = {}
    for link in fabric.links:
        label = f"fabric link {link.a.device} {link.a.interface} - {link.b.device} "
        label += f"{link.b.interface} ({link.origin})"
        for end in (link.a, link.b):
            used[end.device, end.interface] = PortUse("fabric", label)
    for port in fabric.edge.ports:
        physical = (port.device, port.parent or port.name)
        used.setdefault(
            physical, PortUse("external", f"external port {port.name} ({port.description})")
        )
    for item in found:
        a = item.attachment
        leaves = _vtep_leaves(ctx, item)
        own: dict[str, str] = {}
        for key, kind, what in (
            ("ports", "host", "host port"),
            ("peer_link", "peer", "peer-link port"),
        ):
            for index, port in enumerate(getattr(a, key)):
                path = (*a.path, key, index)
                if port in own:
                    yield Hit(
                        f"{what} {port} of {item.label} is already its {own[port]}: one port "
                        "carries one thing; use a free port",
                        path,
                    )
                    continue
                own[port] = what
                clashes: dict[PortUse, list[str]] = defaultdict(list)
                for leaf in leaves:
                    earlier = used.get((leaf, port))
                    # one MLAG pair has one peer link, whichever attachments name it
                    if earlier is not None and not (kind == earlier.kind == "peer"):
                        clashes[earlier].append(leaf)
                for earlier, on in clashes.items():
                    yield Hit(
                        f"{what} {port} of {item.label} is on {listed(on)} already the "
                        f"{earlier.text}: one port carries one thing; use a free port",
                        path,
                    )
                for leaf in leaves:
                    used.setdefault((leaf, port), PortUse(kind, f"{what} of {item.label}"))


# --- MH-006, MH-007: bond numbers and segment ids -----------------------------------------------


def _number_clashes(ctx: SiteContext, key: str) -> Iterator[Hit]:
    """The numbers of `key` (lag_base: bonds; segment_base: MLAG id / ES local id) that two
    attachments take on one leaf, reported at the later attachment."""
    taken: dict[tuple[str, int], Attached] = {}
    for item in attachments(ctx):
        leaves = _vtep_leaves(ctx, item)
        a = item.attachment
        if not leaves or (a.mode == "single" and (key == "segment_base" or not a.lacp)):
            continue  # plain ports take no bond; a single-leaf bond no segment id
        numbers = item.lags if key == "lag_base" else item.segments
        clashes: dict[str, tuple[Attached, set[int], set[str]]] = {}
        for leaf in leaves:
            for number in numbers:
                earlier = taken.setdefault((leaf, number), item)
                if earlier is not item:
                    _, numbers_, leaves_ = clashes.setdefault(earlier.name, (earlier, set(), set()))
                    numbers_.add(number)
                    leaves_.add(leaf)
        for earlier, clash, on in clashes.values():
            first = sorted(clash)
            if key == "lag_base":
                lag_format = PLATFORMS[ctx.site.devices[leaves[0]].platform].lag_format
                what = "bonds " + ", ".join(lag_format.format(n=n) for n in first)
                why = "each host needs a bond of its own"
            else:
                what = f"segment ids {_numbers(first)}"
                why = "a leaf tells its hosts' bonds apart by them (MLAG id / Ethernet segment)"
            yield Hit(
                f"{what} of {item.label} on {listed([x for x in leaves if x in on])} are "
                f"also used by {earlier.label}: {why}; choose a {key} whose "
                f"{len(numbers)} numbers are free on those leaves",
                (*item.attachment.path, key),
            )


@rule(
    "MH-006",
    "error",
    "Bond numbers are unique per leaf",
    "Host i of an attachment gets bond (port-channel) lag_base + i on both leaves; two "
    "attachments whose ranges meet on a leaf would put two hosts in one bond.",
    f"docs/standards.md#mh-006; {NVUE_MLAG}",
)
def bond_numbers_unique(ctx: SiteContext) -> Iterator[Hit]:
    yield from _number_clashes(ctx, "lag_base")


@rule(
    "MH-007",
    "error",
    "Segment ids (MLAG id / Ethernet segment local id) are unique per leaf",
    "Host i of an attachment gets segment id segment_base + i: the MLAG id that pairs its two "
    "bonds, or the local id its ESI is built from. A leaf tells its hosts' bonds apart by it, "
    "so two attachments whose ranges meet on a leaf would merge two hosts' bonds.",
    f"docs/standards.md#mh-007; NVUE `bond mlag id` (unique per dual-connected bond) {NVUE_MLAG}; "
    f"{RFC7432} section 5",
)
def segment_ids_unique(ctx: SiteContext) -> Iterator[Hit]:
    yield from _number_clashes(ctx, "segment_base")


# --- MH-008..MH-010: one mode and one MLAG peer per leaf ---------------------------------------


def _mode_conflicts(ctx: SiteContext) -> dict[str, Attached]:
    """For each attachment whose leaf an earlier attachment uses in the other mode: that one."""
    first_on: dict[str, Attached] = {}
    conflicts: dict[str, Attached] = {}
    for item in attachments(ctx):
        leaves = _vtep_leaves(ctx, item)
        mode = item.attachment.mode
        if mode == "single":
            continue  # single-homed (orphan) ports sit beside either mode
        other = next(
            (
                first_on[leaf]
                for leaf in leaves
                if leaf in first_on and first_on[leaf].attachment.mode != mode
            ),
            None,
        )
        if other is not None:
            conflicts[item.name] = other
        for leaf in leaves:
            first_on.setdefault(leaf, item)
    return conflicts


@rule(
    "MH-008",
    "error",
    "A leaf attaches hosts by ESI or by MLAG, never both",
    "Mixing EVPN multihoming and MLAG on one leaf loops or duplicates BUM traffic and splits "
    "LACP: the two elect forwarders and present system MACs in different ways.",
    f"docs/standards.md#mh-008; {RFC7432} section 8; {ACTIVE_ACTIVE}",
)
def one_mode_per_leaf(ctx: SiteContext) -> Iterator[Hit]:
    conflicts = _mode_conflicts(ctx)
    for item in attachments(ctx):
        other = conflicts.get(item.name)
        if other is None:
            continue
        a = item.attachment
        shared = [leaf for leaf in _vtep_leaves(ctx, item) if leaf in other.attachment.leaves]
        yield Hit(
            f"{item.label} attaches hosts to {listed(shared)} by {MODE_TITLE[a.mode]}, but "
            f"{other.label} already does by {MODE_TITLE[other.attachment.mode]}: a leaf pair "
            "uses ESI or MLAG, never both (loops, duplicate BUM traffic or split LACP); use "
            f"mode: {other.attachment.mode}",
            (*a.path, "mode"),
        )


def _mlag_mates(ctx: SiteContext) -> Iterator[tuple[Attached, str, Attached]]:
    """Each MLAG attachment (not in a mode conflict, MH-008) with the earlier MLAG attachment on
    its first leaf that has one, and that leaf."""
    conflicts = _mode_conflicts(ctx)
    mlag_on: dict[str, Attached] = {}
    for item in attachments(ctx):
        if item.attachment.mode != "mlag":
            continue
        leaves = _vtep_leaves(ctx, item)
        if item.name not in conflicts:
            leaf = next((x for x in leaves if x in mlag_on), None)
            if leaf is not None:
                yield item, leaf, mlag_on[leaf]
        for leaf in leaves:
            mlag_on.setdefault(leaf, item)


@rule(
    "MH-009",
    "error",
    "A switch has one MLAG peer",
    "An MLAG pair is two switches joined by one peer link; a leaf in two MLAG attachments with "
    "different partners would need two peers, which no platform supports.",
    f"docs/standards.md#mh-009; {NVUE_MLAG}",
)
def one_mlag_peer(ctx: SiteContext) -> Iterator[Hit]:
    for item, leaf, earlier in _mlag_mates(ctx):
        a = item.attachment
        if set(earlier.attachment.leaves) != set(a.leaves):
            peer = next(x for x in a.leaves if x != leaf)
            their = next(x for x in earlier.attachment.leaves if x != leaf)
            yield Hit(
                f"{item.label} pairs {leaf} with {peer} by MLAG, but {earlier.label} pairs it "
                f"with {their}: a switch has one MLAG peer; attach these hosts to "
                f"{leaf} and {their}, or use another leaf",
                (*a.path, "leaves"),
            )


@rule(
    "MH-010",
    "error",
    "Attachments on one MLAG pair name one peer link and one system MAC",
    "An MLAG pair has one peer link and presents one LACP system MAC to every host; two "
    "attachments on the pair that disagree would configure the pair twice, differently.",
    f"docs/standards.md#mh-010; {NVUE_MLAG}",
)
def mlag_pair_settings_agree(ctx: SiteContext) -> Iterator[Hit]:
    for item, _, earlier in _mlag_mates(ctx):
        a = item.attachment
        if set(earlier.attachment.leaves) != set(a.leaves):
            continue  # two peers: MH-009
        for key, mine, theirs in (
            ("peer_link", sorted(a.peer_link), sorted(earlier.attachment.peer_link)),
            (
                "lacp_system_mac",
                (a.lacp_system_mac or "").lower(),
                (earlier.attachment.lacp_system_mac or "").lower(),
            ),
        ):
            if mine != theirs:
                text = listed(mine) if isinstance(mine, list) else mine
                other = listed(theirs) if isinstance(theirs, list) else theirs
                yield Hit(
                    f"{key} {text} of {item.label} differs from {other} of {earlier.label} on "
                    f"the same MLAG pair {listed(earlier.attachment.leaves)}: the pair has one "
                    f"peer link and one system MAC; write {other}",
                    (*a.path, key),
                )


# --- MH-011: ESIs ------------------------------------------------------------------------------


@rule(
    "MH-011",
    "error",
    "An ESI names one Ethernet segment fabric-wide",
    "Remote VTEPs treat every route with one ESI as one Ethernet segment (aliasing, mass "
    "withdrawal): two attachments on different leaf pairs with one ESI would be load-balanced "
    "and withdrawn as one. (On a shared leaf the clash is a segment id clash, MH-007.)",
    f"docs/standards.md#mh-011; {RFC7432} sections 5 and 8",
)
def esis_unique(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[str, tuple[Attached, int]] = {}
    for item in attachments(ctx):
        a = item.attachment
        if a.mode != "esi":
            continue
        reported: set[str] = set()
        for host, segment in enumerate(item.segments):
            value = esi(a, segment)
            earlier, their_host = seen.setdefault(value, (item, host))
            shared = set(a.leaves) & set(earlier.attachment.leaves)
            if earlier is item or shared or earlier.name in reported:
                continue
            reported.add(earlier.name)
            yield Hit(
                f"ESI {value} of host {host + 1} of {item.label} is also the ESI of host "
                f"{their_host + 1} of {earlier.label} on {listed(earlier.attachment.leaves)}: an "
                "ESI names one Ethernet segment fabric-wide, so remote VTEPs would treat the two "
                "as one; give the attachment its own lacp_system_mac or a segment_base range of "
                "its own",
                (*a.path, "lacp_system_mac"),
            )


# --- EVPN-011: platform gate ---------------------------------------------------------------


@rule(
    "EVPN-011",
    "error",
    "MLAG and ESI multihoming only on platforms that render them",
    "meetme refuses to render what a device cannot do (PLAT-003): it renders MLAG (bonds, "
    "peer link, anycast VTEP) and EVPN multihoming (ESI port-channels) only on the platforms "
    "whose templates have them; asking for either elsewhere names the platform. A leaf whose "
    "platform renders no VTEP at all is EVPN-009's, which names that cause once.",
    "docs/standards.md#platform-gate and docs/standards.md#evpn-011; generators/platforms/ "
    "capabilities mlag and "
    "esi_multihoming",
    waivable=False,  # a platform gate: WAIVER-004
)
def multihoming_where_renderable(ctx: SiteContext) -> Iterator[Hit]:
    refused = evpn_refused(ctx)  # a leaf on a platform with no VTEP at all: EVPN-009's, once
    for item in attachments(ctx):
        mode = item.attachment.mode
        if mode not in MODE_CAPABILITY:
            continue  # single-homed ports: every VTEP platform prints them
        capability = MODE_CAPABILITY[mode]
        by_platform: dict[str, list[str]] = defaultdict(list)
        for leaf in _vtep_leaves(ctx, item):
            if leaf not in refused:
                by_platform[_platform(ctx, leaf)].append(leaf)
        for platform, leaves in sorted(by_platform.items()):
            info = PLATFORMS[platform]
            if capability in info.capabilities:
                continue
            capable = listed(
                sorted(p.title for p in PLATFORMS.values() if capability in p.capabilities)
            )
            other = "esi" if mode == "mlag" else "mlag"
            instead = (
                f", or use mode: {other}, which {info.title} renders"
                if MODE_CAPABILITY[other] in info.capabilities
                else ""
            )
            reason = info.missing_reasons.get(capability)
            why = f" ({reason})" if reason else ""
            yield Hit(
                f"{item.label} asks for {MODE_TITLE[mode]} on {listed(leaves)}, {info.title}, "
                f"for which meetme renders no {MODE_TITLE[mode]}{why}; attach the hosts to "
                f"leaves of a platform that has it ({capable}){instead}",
                (*item.attachment.path, "mode"),
            )


# --- EVPN-012, MH-012..MH-015: the MLAG anycast VTEP -------------------------------------------

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _anycast_vteps(ctx: SiteContext) -> Iterator[tuple[Attached, ipaddress.IPv4Interface]]:
    """Each MLAG attachment that sets an anycast VTEP, with it (a missing one is MH-002's)."""
    for item in attachments(ctx):
        a = item.attachment
        if a.mode == "mlag" and a.anycast_vtep is not None:
            yield item, ipaddress.IPv4Interface(a.anycast_vtep)


def _device_addresses(ctx: SiteContext) -> dict[Address, str]:
    """Every device's loopback and VTEP address, with what it is."""
    site = ctx.site
    owned: dict[Address, str] = {}
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        for key, allocator in (
            ("loopback_v4", allocate.loopback_v4),
            ("vtep_v4", allocate.vtep_v4),
        ):
            try:
                value = allocator(site, device)
            except PoolExhausted:
                continue  # the device-model build reports it
            if value is not None:
                owned.setdefault(addresses.interface(value).ip, f"the {key} of {name}")
    return owned


def _text(item: Attached, vtep: ipaddress.IPv4Interface) -> str:
    return f"anycast_vtep {vtep.ip} of {item.label}"


@rule(
    "EVPN-012",
    "error",
    "An MLAG pair's anycast VTEP is no device's address",
    "The two leaves of an MLAG pair share one VTEP address on purpose (the ADDR-001 exception): "
    "remote VTEPs send the pair's traffic there. It must therefore be no device's loopback or "
    "VTEP address, or VXLAN meant for that device would land on the pair.",
    f"docs/standards.md#evpn-012, docs/standards.md#addr-001; VXLAN active-active mode (anycast "
    f"VTEP) {ACTIVE_ACTIVE}",
)
def anycast_vtep_not_a_device_address(ctx: SiteContext) -> Iterator[Hit]:
    owned = _device_addresses(ctx)
    for item, vtep in _anycast_vteps(ctx):
        if vtep.ip in owned:
            yield Hit(
                f"{_text(item, vtep)} is {owned[vtep.ip]}: VXLAN meant for that device would "
                "land on the pair; take an address no device uses from pools.vtep_v4",
                (*item.attachment.path, "anycast_vtep"),
            )


@rule(
    "MH-012",
    "error",
    "An MLAG pair's anycast VTEP is a host address (/32)",
    "The anycast VTEP is one address both leaves of the pair answer on, advertised as a host "
    "route like every VTEP loopback; a shorter prefix would claim a whole subnet of the "
    "fabric's loopback space.",
    f"docs/standards.md#mh-012 and docs/standards.md#addr-001; {ACTIVE_ACTIVE}",
)
def anycast_vtep_host_address(ctx: SiteContext) -> Iterator[Hit]:
    for item, vtep in _anycast_vteps(ctx):
        if vtep.network.prefixlen != 32:
            yield Hit(
                f"{_text(item, vtep)} is not a host address; write it as {vtep.ip}/32",
                (*item.attachment.path, "anycast_vtep"),
            )


@rule(
    "MH-013",
    "error",
    "An MLAG pair's anycast VTEP lies in the loopback or VTEP pool",
    "The underlay route-maps accept fabric loopbacks only (the loopback and VTEP pools), so an "
    "anycast VTEP outside them is never advertised and no VTEP learns a route to the pair.",
    f"docs/standards.md#mh-013; {ACTIVE_ACTIVE}",
)
def anycast_vtep_in_pool(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    owned = _device_addresses(ctx)
    pools = [
        (key, ipaddress.ip_network(pool))
        for key, pool in (("loopback_v4", site.pools.loopback_v4), ("vtep_v4", site.pools.vtep_v4))
        if pool is not None
    ]
    for item, vtep in _anycast_vteps(ctx):
        if vtep.ip in owned:
            continue  # a device's address: EVPN-012
        if pools and not any(vtep.ip in pool for _, pool in pools):
            pooled = " and ".join(f"{key} {pool}" for key, pool in pools)
            yield Hit(
                f"{_text(item, vtep)} is outside pools {pooled}: the underlay route-maps accept "
                "fabric loopbacks only, so no VTEP would learn a route to it; take a free "
                "address from pools.vtep_v4",
                (*item.attachment.path, "anycast_vtep"),
            )


@rule(
    "MH-014",
    "error",
    "Attachments on one MLAG pair name one anycast VTEP",
    "An MLAG pair is one VTEP to the fabric with one address; two attachments on the pair with "
    "different anycast VTEPs would configure the pair twice, differently.",
    f"docs/standards.md#mh-014; {ACTIVE_ACTIVE}",
)
def anycast_vtep_one_per_pair(ctx: SiteContext) -> Iterator[Hit]:
    by_pair: dict[frozenset[str], tuple[Attached, ipaddress.IPv4Interface]] = {}
    for item, vtep in _anycast_vteps(ctx):
        mate, address = by_pair.setdefault(frozenset(item.attachment.leaves), (item, vtep))
        if address.ip != vtep.ip:
            yield Hit(
                f"{_text(item, vtep)} differs from {address.ip} of {mate.label} on the same "
                f"MLAG pair {listed(mate.attachment.leaves)}: the pair is one VTEP with one "
                f"address; write {address.ip}",
                (*item.attachment.path, "anycast_vtep"),
            )


@rule(
    "MH-015",
    "error",
    "Two MLAG pairs never share an anycast VTEP",
    "Remote VTEPs send a pair's VXLAN traffic to its anycast VTEP; two pairs with one address "
    "would each receive the other's traffic.",
    f"docs/standards.md#mh-015; {ACTIVE_ACTIVE}",
)
def anycast_vtep_own_per_pair(ctx: SiteContext) -> Iterator[Hit]:
    by_address: dict[ipaddress.IPv4Address, Attached] = {}
    for item, vtep in _anycast_vteps(ctx):
        other = by_address.setdefault(vtep.ip, item)
        if frozenset(other.attachment.leaves) != frozenset(item.attachment.leaves):
            yield Hit(
                f"{_text(item, vtep)} is also the anycast VTEP of {other.label} on "
                f"{listed(other.attachment.leaves)}: two pairs with one VTEP address would "
                "receive each other's VXLAN traffic; give each pair its own",
                (*item.attachment.path, "anycast_vtep"),
            )


@rule(
    "MH-024",
    "error",
    "Two MLAG pairs never share a system MAC",
    "An MLAG pair's `lacp_system_mac` is the pair's identity: the LACP system id both leaves "
    "present to every host (NX-OS vPC `system-mac`) and, on NVUE, the MLAG `mac-address` and "
    "the EVPN anycast (router) MAC that goes with the pair's anycast VTEP. Two pairs with one "
    "MAC make remote VTEPs learn one router MAC behind two tunnel endpoints, and LACP partners "
    "see one system on two pairs. Attachments on one pair share it (MH-010); a leaf in two "
    "pairs is MH-009's. An ESI attachment's MAC is only part of its ESI and its hosts' LACP "
    "system id, never a router MAC, so it may repeat an MLAG pair's (ESIs are MH-011's).",
    f"docs/standards.md#mh-024; {NVUE_MLAG}; {ACTIVE_ACTIVE}",
)
def mlag_system_mac_own_per_pair(ctx: SiteContext) -> Iterator[Hit]:
    """Each clash once, at the first attachment (file order) of the later pair: a pair's MAC is
    its first attachment's, and its other attachments' differences are MH-010's."""
    pairs: dict[frozenset[str], tuple[Attached, str]] = {}
    for item in attachments(ctx):
        a = item.attachment
        if a.mode == "mlag" and a.lacp_system_mac is not None:
            pairs.setdefault(frozenset(a.leaves), (item, a.lacp_system_mac.lower()))
    seen: list[tuple[frozenset[str], Attached, str]] = []
    for leaves, (item, mac) in pairs.items():
        earlier = next(
            (other for pair, other, theirs in seen if theirs == mac and not pair & leaves), None
        )  # pairs sharing a leaf are MH-009's
        seen.append((leaves, item, mac))
        if earlier is None:
            continue
        yield Hit(
            f"lacp_system_mac {item.attachment.lacp_system_mac} of {item.label} on MLAG pair "
            f"{listed(item.attachment.leaves)} is also the system MAC of {earlier.label} on "
            f"MLAG pair {listed(earlier.attachment.leaves)}: it is each pair's LACP system id "
            "and, on NVUE, its EVPN router MAC, so remote VTEPs would learn one router MAC "
            "behind two anycast VTEPs and hosts would see one LACP system on two pairs; give "
            "each pair a MAC of its own",
            (*item.attachment.path, "lacp_system_mac"),
        )


# --- MH-016..MH-020: pairs, single-homed hosts, the peer VLAN ---------------------------------

CISCO_VPC = (
    "https://www.cisco.com/c/en/us/td/docs/dcn/nx-os/nexus9000/104x/configuration/interfaces/"
    "cisco-nexus-9000-series-nx-os-interfaces-configuration-guide-release-104x/"
    "m_configuring_vpcs_9x.html"
)
CISCO_INFRA_VLANS = (
    "https://cisco.com/c/en/us/support/docs/switches/nexus-9000-series-switches/"
    "214624-configure-system-nve-infra-vlans-in-vxla.html"
)


def _mlag_pairs(ctx: SiteContext) -> Iterator[tuple[Attached, list[str]]]:
    """Each MLAG attachment whose two leaves are distinct VTEPs of one platform (the others
    are EVPN-008's, MH-001's or MH-017's), with its leaves."""
    for item in attachments(ctx):
        leaves = _vtep_leaves(ctx, item)
        if item.attachment.mode != "mlag" or len(leaves) != 2:
            continue
        if len({ctx.site.devices[leaf].platform for leaf in leaves}) == 1:
            yield item, leaves


@rule(
    "MH-016",
    "error",
    "The two leaves of an MLAG pair reach each other's management address (one subnet)",
    "An MLAG pair tells a dead peer from a dead peer link by a heartbeat between the leaves' "
    "management addresses (NX-OS vPC peer-keepalive, which must be up before the peer link "
    "comes up; NVUE MLAG backup IP; EOS heartbeat): two management addresses in different "
    "subnets have no path on the out-of-band network, so a peer-link failure splits the pair. "
    "An address off the management gateway's subnet is MGMT-003's, which names it.",
    f"docs/standards.md#mh-016; {CISCO_VPC} (peer-keepalive link); {NVUE_MLAG} (backup IP)",
)
def mlag_keepalive_reachable(ctx: SiteContext) -> Iterator[Hit]:
    gateway = ipaddress.ip_address(ctx.site.management.gateway)
    for item, leaves in _mlag_pairs(ctx):
        subnets = {
            leaf: addresses.interface(ctx.site.devices[leaf].management).network for leaf in leaves
        }
        if any(net.version != gateway.version or gateway not in net for net in subnets.values()):
            continue  # a leaf's address off the gateway's subnet: MGMT-003 names it, the cause
        first, second = leaves
        if subnets[first] != subnets[second]:
            yield Hit(
                f"{item.label} pairs {first} (management {subnets[first]}) with {second} "
                f"(management {subnets[second]}): the pair's keepalive runs between the two "
                "management addresses, which need one subnet; move one leaf's management "
                "address into the other's subnet",
                (*item.attachment.path, "leaves"),
            )


@rule(
    "MH-017",
    "error",
    "An attachment names as many leaves as its mode needs",
    "MLAG and ESI dual-home each host to a leaf pair: two leaves. A single-homed host "
    "(`mode: single`) hangs off one leaf: a second leaf would render a port nobody bonds with.",
    "docs/standards.md#mh-017",
)
def attachment_leaf_count(ctx: SiteContext) -> Iterator[Hit]:
    for item in attachments(ctx):
        a = item.attachment
        wanted = LEAVES_OF_MODE[a.mode]
        if len(a.leaves) != wanted:
            instead = "mode: single" if len(a.leaves) == 1 else "mode: mlag or esi"
            yield Hit(
                f"{MODE_TITLE[a.mode]} {item.label} names {len(a.leaves)} "
                f"lea{'f' if len(a.leaves) == 1 else 'ves'}, its mode needs {wanted}; name "
                f"{wanted}, or use {instead}",
                (*a.path, "leaves"),
            )


def _peer_vlan_platform(ctx: SiteContext, leaves: list[str]) -> int | None:
    return PLATFORMS[ctx.site.devices[leaves[0]].platform].mlag_peer_vlan


@rule(
    "MH-018",
    "error",
    "An MLAG pair's peer-VLAN subnet is no fabric link's",
    "EOS and NX-OS pairs route over a VLAN on the peer link; its /31 and /127 are the last link "
    "slot (links_per_device - 1) of the pair's lower device id in the p2p pools. A fabric link "
    "given that slot (its index) would share the subnet with the peer VLAN: two interfaces with "
    "one address.",
    "docs/standards.md#mh-018 and docs/standards.md#addr-001",
)
def peer_vlan_subnet_free(ctx: SiteContext) -> Iterator[Hit]:
    by_subnet = {link.subnet_v4: link for link in ctx.fabric.links}
    for item, leaves in _mlag_pairs(ctx):
        if _peer_vlan_platform(ctx, leaves) is None:
            continue  # unnumbered (NVUE)
        try:
            v4, _ = peer_vlan_subnets(ctx.site, leaves)
        except PoolExhausted:
            continue  # the model build reports it
        link = by_subnet.get(v4)
        if link is not None:
            yield Hit(
                f"{item.label}'s peer VLAN takes {v4} (slot {ctx.site.pools.links_per_device - 1}"
                f" of the lower device id's block), which fabric link {link.a.device} "
                f"{link.a.interface} - {link.b.device} {link.b.interface} ({link.origin}) "
                "also has; give that link another index, or raise pools.links_per_device",
                (*item.attachment.path, "leaves"),
            )


@rule(
    "MH-019",
    "error",
    "An MLAG pair's peer VLAN carries no tenant network, no VRF's L3VNI and no VRF peering",
    "EOS and NX-OS pairs keep one VLAN for the routed adjacency over the peer link (EOS 4094, "
    "NX-OS 3967), local to the pair and in the default VRF; a tenant network on that VLAN on "
    "the pair would be bridged into the pair's underlay segment, and a VRF's L3VNI carrier "
    "VLAN there (NX-OS), or a VRF's peering between an EOS pair over its `vlan:`, would make "
    "the one SVI both the VRF's and the underlay's.",
    f"docs/standards.md#mh-019; {CISCO_INFRA_VLANS} (the backup SVI's VLAN is local to the pair, "
    "not stretched across the fabric, and in the default VRF)",
)
def peer_vlan_not_a_network(ctx: SiteContext) -> Iterator[Hit]:
    placed = placed_networks(ctx)
    carried = [
        (vrf, [d for d in vrf.devices if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS])
        for vrf in placed_vrfs(ctx, placed)
        if vrf.vrf.vlan is not None
    ]
    clashes: dict[int, set[str]] = defaultdict(set)  # VRF (index in carried) -> its leaves
    for item, leaves in _mlag_pairs(ctx):
        vlan = _peer_vlan_platform(ctx, leaves)
        if vlan is None:
            continue
        for index, (vrf, devices) in enumerate(carried):
            if vrf.vrf.vlan == vlan:
                clashes[index].update(set(leaves) & set(devices))
        for network in placed:
            if network.network.vlan != vlan:
                continue
            on = sorted(set(leaves) & set(network.devices))
            if on:
                yield Hit(
                    f"{network.label} uses VLAN {vlan} on {listed(on)}, the MLAG pair's peer "
                    f"VLAN ({item.label}): the pair routes its underlay adjacency there; give "
                    "the network another VLAN",
                    (*network.network.path, "vlan"),
                )
    for vrf_name, vlan, pair in vrf_peering_vlans(
        ctx.loaded.intent, ctx.name, ctx.site, ctx.fabric.edge
    ):
        if vlan == _peer_vlan_platform(ctx, list(pair)):
            vrf = next(v for v in placed_vrfs(ctx, placed) if v.name == vrf_name)
            yield Hit(
                f"{vrf.label} peers the MLAG pair {listed(list(pair))} in the VRF over its "
                f"VLAN {vlan}, the pair's peer VLAN: one SVI cannot be both the VRF's and the "
                "pair's underlay adjacency in the default VRF; give the VRF another VLAN",
                (*vrf.vrf.path, "vlan"),
            )
    for index, met in sorted(clashes.items()):
        vrf = carried[index][0]
        if met:  # one finding per VRF, naming every pair's leaves it meets
            yield Hit(
                f"{vrf.label} carries its L3VNI on VLAN {vrf.vrf.vlan}, the MLAG peer VLAN of "
                f"{listed(sorted(met, key=lambda d: ctx.site.devices[d].id))}: one SVI cannot be "
                "both the VRF's and the pair's underlay backup path in the default VRF; give "
                "the VRF another VLAN",
                (*vrf.vrf.path, "vlan"),
            )


@rule(
    "MH-022",
    "error",
    "A network on one leaf of an MLAG pair is on both",
    "An MLAG or vPC pair is one VTEP to the fabric: both leaves answer for its anycast VTEP "
    "address, which every route of either leaf carries as its next hop, and the spines spread "
    "the traffic for that address over both. A network placed on one leaf of the pair gets "
    "about half of the fabric's traffic for it delivered to the other, which has no VNI for it "
    "and drops it: a loss per flow that no session shows.",
    f"docs/standards.md#mh-022; {ACTIVE_ACTIVE}",
)
def networks_on_both_leaves_of_a_pair(ctx: SiteContext) -> Iterator[Hit]:
    pairs: set[tuple[str, str]] = set()
    trunked: set[tuple[tuple[str, str], str]] = set()  # MH-003's: named once, there
    for item, leaves in _mlag_pairs(ctx):
        pair = (min(leaves), max(leaves))
        pairs.add(pair)
        trunked.update((pair, name) for name in item.attachment.networks)
    for network in placed_networks(ctx):
        for pair in sorted(pairs):
            on = [leaf for leaf in pair if leaf in network.device_set]
            if len(on) != 1 or (pair, network.name) in trunked:
                continue
            (there,) = on
            (other,) = set(pair) - {there}
            key = "leaves" if there in network.network.leaves else "racks"
            yield Hit(
                f"{network.label} is on {there} but not on {other}, its MLAG peer: the pair "
                f"is one VTEP (one anycast address), so about half the fabric's traffic for "
                f"the network reaches {other}, which drops it; place the network on both "
                "leaves of the pair, or on neither",
                (*network.network.path, key),
            )


@rule(
    "MH-023",
    "error",
    "An attachment's MTU carries the largest packet of the networks it trunks",
    "A network's `mtu` is the largest IP packet its gateway routes and the VXLAN path carries "
    "(EVPN-001); the hosts reach it through the attachment's ports, whose `mtu` is the largest "
    "packet they pass. A port MTU below the network's drops every larger frame a host sends "
    "and every larger packet routed or bridged to it: pings and small requests work while "
    "RDMA, storage and bulk transfers hang.",
    "docs/standards.md#mh-023",
)
def attachment_mtu_carries_its_networks(ctx: SiteContext) -> Iterator[Hit]:
    largest: dict[Path_, tuple[int, str, Attached]] = {}  # attachment -> its largest network
    for item, _index, name, tenants in _trunked(ctx):
        if len(tenants) != 1:
            continue  # unknown: the reference check; ambiguous: MH-004
        mtu = ctx.site.tenants[tenants[0]].networks[name].mtu
        known = largest.get(item.attachment.path)
        if mtu > item.attachment.mtu and (known is None or mtu > known[0]):
            largest[item.attachment.path] = (mtu, name, item)
    for mtu, name, item in largest.values():
        a = item.attachment
        yield Hit(
            f"{item.label} has mtu {a.mtu}, below network {name}'s {mtu}, which it trunks: "
            f"the hosts' ports drop every frame and packet larger than {a.mtu} bytes; "
            f"raise the attachment's mtu to at least {mtu}, or lower the network's",
            (*a.path, "mtu"),
        )


@rule(
    "MH-020",
    "error",
    "An access attachment names exactly one network",
    "`access: true` gives each host one network untagged (an access port); an access port "
    "carries one VLAN, so more networks cannot be rendered and would be dropped silently.",
    "docs/standards.md#mh-020",
)
def access_one_network(ctx: SiteContext) -> Iterator[Hit]:
    for item in attachments(ctx):
        a = item.attachment
        if a.access and len(network_vlans(ctx.site, a.networks)) > 1:
            yield Hit(
                f"{item.label} is an access attachment with {len(a.networks)} networks: an "
                "access port carries one VLAN untagged; name one network, or drop access: "
                "true to trunk them tagged",
                (*a.path, "networks"),
            )


@rule(
    "MH-021",
    "error",
    "No host bond takes the number of its leaf's MLAG peer link",
    "EOS and NX-OS name the MLAG / vPC peer link as a port-channel (Port-Channel1000, "
    "port-channel1000); a host bond numbered the same on a leaf of the pair would configure "
    "one port-channel twice, merging a host into the peer link.",
    "docs/standards.md#mh-021",
)
def bonds_clear_of_the_peer_link(ctx: SiteContext) -> Iterator[Hit]:
    peer_links = {
        leaf: PLATFORMS[ctx.site.devices[leaf].platform].mlag_peer_link
        for item, leaves in _mlag_pairs(ctx)
        for leaf in leaves
    }
    for item in attachments(ctx):
        a = item.attachment
        if a.mode == "single" and not a.lacp:
            continue  # plain ports: no bond
        for leaf in _vtep_leaves(ctx, item):
            if leaf not in peer_links:
                continue
            lag_format = PLATFORMS[ctx.site.devices[leaf].platform].lag_format
            names = {lag_format.format(n=n) for n in item.lags}
            if peer_links[leaf] in names:
                yield Hit(
                    f"{item.label} numbers a host bond {peer_links[leaf]} on {leaf}, the name of "
                    "its MLAG peer link: one port-channel cannot be both; choose a lag_base "
                    "whose numbers stay clear of it",
                    (*a.path, "lag_base"),
                )
                break
