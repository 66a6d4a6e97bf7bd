"""EVPN-*: the overlay feature, EVPN-VXLAN fabric services over the `evpn:` and `tenants:`
intent (docs/standards.md#evpn): VNIs, VLANs, VRFs, route targets, gateways, the underlay MTU
VXLAN needs, and which platforms and roles can carry it. Multihoming (`attachments:`) is
multihoming.py (EVPN-008, EVPN-011, EVPN-012, MH-*), the VRF-lite handoff handoff.py (EVPN-013,
HANDOFF-*); both read the placement helpers here.

The rules read network placement from the resolved fabric (generators/resolve/placement.py),
the one the device builder reads, so they judge exactly what is rendered. Duplicates are
reported at the later of the two nodes in file order, naming the earlier one. What holds by
construction has no rule: VNIs are 1-16,777,215 and VLAN ids 2-4094 (schema); one network is
one VLAN and one VNI on all its VTEPs (docs/standards.md#evpn-vni-mapping); RDs are
router-id:VNI and default RTs admin:VNI, identical on every VTEP (EVPN-004); a VRF has one L3VNI
on every VTEP carrying it (EVPN-005); one anycast MAC fabric-wide (EVPN-018); both halves of a
host bond get one bond number, segment id, ESI and LACP system MAC
(generators/build/multihoming.py derives them from the attachment alone).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, get_args

from meetme.generators.build.handoff import vrf_tag
from meetme.generators.build.multihoming import vrf_peering_vlans
from meetme.generators.build.overlay import OVERLAY_ROLES, VTEP_ROLES, route_target
from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.base import GLOBAL_VRF
from meetme.generators.platforms.support import renders
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.generators.resolve.placement import svi_own_addresses, svi_owners
from meetme.validators.engine import Hit, Path_, SiteContext, rule

from meetme.core.datafiles import read_data
from meetme.core.problems import Location, listed
from meetme.intent.schema_overlay import Network, Vrf, mac_problem
from meetme.intent.types import Mtu

if TYPE_CHECKING:
    from meetme.generators.resolve.fabric import FabricLink

RFC7348 = "https://www.rfc-editor.org/rfc/rfc7348"
VXLAN_OVERHEAD_V4 = 50  # outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14 (RFC 7348 5)
# The largest mtu a link takes, read from the type's own bound (one place holds the limit;
# no TypeAdapter and JSON schema built at import: that cost every command ~10 ms).
MAX_IP_MTU: int = next(int(m.le) for m in get_args(Mtu)[1].metadata if hasattr(m, "le"))
# Platforms that map an L3VNI through a carrier VLAN (NX-OS `vlan N` / `vn-segment L3VNI` and
# an SVI in the VRF, docs/syntax.md#nxos-evpn). EOS (`vxlan vrf V vni N`) and NVUE
# (`vrf V evpn vni N`, which picks its own reserved VLAN) need none. Belongs in
# generators/platforms/.
CARRIER_VLAN_PLATFORMS = frozenset({"cisco_nxos"})


@dataclass(frozen=True)
class Placed:
    """One network of the site and the VTEPs that carry it."""

    tenant: str
    name: str
    network: Network
    devices: tuple[str, ...]  # by device id
    at: Location  # where the network is written: orders "first" and "second"

    @property
    def label(self) -> str:
        return f"network {self.tenant}/{self.name}"

    @cached_property
    def device_set(self) -> frozenset[str]:
        """`devices` for membership tests: a network on every rack has thousands."""
        return frozenset(self.devices)


def placed_networks(ctx: SiteContext) -> list[Placed]:
    """Every network of the site in file order, with the VTEPs the resolved placement puts it
    on (the one the device builder reads)."""
    placement = ctx.fabric.placement
    found = [
        Placed(t, n, net, placement.vteps_of(t, n), ctx.loaded.where(net.path))
        for t, tenant in ctx.site.tenants.items()
        for n, net in tenant.networks.items()
    ]
    return sorted(found, key=lambda p: (p.at, p.tenant, p.name))


@dataclass(frozen=True)
class PlacedVrf:
    tenant: str
    name: str
    vrf: Vrf
    devices: tuple[str, ...]  # VTEPs carrying one of its networks, by device id
    gateways: tuple[Placed, ...]  # its networks with an anycast gateway
    at: Location

    @property
    def label(self) -> str:
        return f"VRF {self.name} of tenant {self.tenant}"


def placed_vrfs(ctx: SiteContext, networks: list[Placed]) -> list[PlacedVrf]:
    ids = {name: device.id for name, device in ctx.site.devices.items()}
    found = []
    for t, tenant in ctx.site.tenants.items():
        for name, vrf in tenant.vrfs.items():
            mine = [p for p in networks if p.tenant == t and p.network.vrf == name]
            devices = sorted({d for p in mine for d in p.devices}, key=ids.__getitem__)
            gateways = tuple(p for p in mine if p.network.gateway_v4 or p.network.gateway_v6)
            found.append(
                PlacedVrf(t, name, vrf, tuple(devices), gateways, ctx.loaded.where(vrf.path))
            )
    return sorted(found, key=lambda v: (v.at, v.tenant, v.name))


# --- EVPN-001 ---------------------------------------------------------------------------------


@rule(
    "EVPN-001",
    "error",
    "Underlay MTU covers the VXLAN overhead on every fabric link",
    "VTEPs do not fragment VXLAN packets: a tenant frame larger than the underlay MTU minus the "
    f"{VXLAN_OVERHEAD_V4}-byte IPv4 VXLAN overhead is silently dropped (small pings work, large "
    "transfers hang). Every fabric link of a site with networks is checked: VXLAN between leaves "
    "crosses the spines, and between leaves and border leaves also the borders. Our VTEPs strip "
    "the 802.1Q tag before encapsulating (RFC 7348 6.1), so no 4 bytes are added for it.",
    f"docs/standards.md#evpn-001; {RFC7348} sections 4.3, 5 and 6.1",
)
def underlay_mtu_covers_vxlan(ctx: SiteContext) -> Iterator[Hit]:
    carried = [p for p in placed_networks(ctx) if p.devices]
    # each VXLAN-carrying link's lower end: b first, as PHY-010 points
    ends = [
        (link, min((link.b, link.a), key=lambda e: e.ip_mtu))
        for link in ctx.fabric.links
        # the border pair's own link: Internet traffic, never VXLAN
        if {ctx.site.devices[e.device].role for e in (link.a, link.b)} != {"border"}
    ]
    # what the fabric takes as written: the advice for a network no link can carry keeps to it
    # (the site's 9214 underlay, not the 9216 a link could be raised to)
    takes = min((end.ip_mtu for _, end in ends), default=MAX_IP_MTU)
    fits = []
    for placed in carried:
        need = placed.network.mtu + VXLAN_OVERHEAD_V4
        if need > MAX_IP_MTU:
            site = f"; this site's links take {takes}" if takes < MAX_IP_MTU else ""
            yield Hit(
                f"{placed.label} has mtu {placed.network.mtu}: VXLAN over IPv4 adds "
                f"{VXLAN_OVERHEAD_V4} bytes, and no fabric link takes an IP MTU of {need} "
                f"(at most {MAX_IP_MTU}{site}); lower the network's mtu to at most "
                f"{min(takes, MAX_IP_MTU) - VXLAN_OVERHEAD_V4}",
                (*placed.network.path, "mtu"),
            )
        else:
            fits.append(placed)
    if not fits:
        return
    largest = max(fits, key=lambda p: p.network.mtu)  # the first of equals, in file order
    need = largest.network.mtu + VXLAN_OVERHEAD_V4
    low: dict[tuple[Path_, int], list[FabricLink]] = defaultdict(list)
    for link, end in ends:
        if end.ip_mtu < need:
            low[end.ip_mtu_source, end.ip_mtu].append(link)
    for (path, mtu), links in sorted(low.items(), key=lambda item: ctx.loaded.where(item[0][0])):
        first = links[0]
        more = f" and {len(links) - 1} more" if len(links) > 1 else ""
        origins = listed(list(dict.fromkeys(link.origin for link in links)))
        yield Hit(
            f"IP MTU {mtu} on fabric link {first.a.device} {first.a.interface} - "
            f"{first.b.device} {first.b.interface}{more} ({origins}) is below {need}: "
            f"{largest.label} has mtu {largest.network.mtu} and VXLAN over IPv4 adds "
            f"{VXLAN_OVERHEAD_V4} bytes (the VTEPs strip the 802.1Q tag); VTEPs do not "
            f"fragment, so larger frames are dropped. Set mtu to at least {need}",
            path,
        )


# --- EVPN-002, EVPN-015 -----------------------------------------------------------------------


@dataclass(frozen=True)
class VniUse:
    kind: str  # "L2VNI" or "L3VNI"
    vni: int
    label: str
    path: Path_
    at: Location


@rule(
    "EVPN-002",
    "error",
    "Each VNI names one network or one VRF",
    "A VNI is the fabric-wide identity of a segment: reusing it merges two broadcast domains or "
    "two VRFs, and an L2VNI equal to an L3VNI mixes bridged and routed traffic. (VNIs outside "
    "1-16,777,215 are rejected by the schema.)",
    "docs/standards.md#evpn-002; RFC 7348 section 5 (24-bit VNI); "
    "https://www.rfc-editor.org/rfc/rfc8365",
)
def vnis_unique(ctx: SiteContext) -> Iterator[Hit]:
    networks = placed_networks(ctx)
    vrfs = placed_vrfs(ctx, networks)
    uses = [
        VniUse("L2VNI", p.network.l2vni, p.label, (*p.network.path, "l2vni"), p.at)
        for p in networks
    ] + [
        VniUse("L3VNI", v.vrf.l3vni, v.label, (*v.vrf.path, "l3vni"), v.at)
        for v in vrfs
        if v.vrf.l3vni is not None
    ]
    first: dict[int, VniUse] = {}
    for use in sorted(uses, key=lambda u: u.at):
        earlier = first.setdefault(use.vni, use)
        if earlier is not use:
            yield Hit(
                f"{use.kind} {use.vni} of {use.label} is already the {earlier.kind} of "
                f"{earlier.label}: one VNI is one segment fabric-wide, so their traffic would "
                "mix; choose an unused VNI",
                use.path,
            )


@rule(
    "EVPN-015",
    "error",
    "A VRF name belongs to one tenant in a site",
    "Devices name VRFs without their tenant, so two tenants' VRFs of one name would become one "
    "VRF on every VTEP carrying both: their routes merge and the tenants reach each other.",
    "docs/standards.md#evpn-015; https://www.rfc-editor.org/rfc/rfc9135 (one IP-VRF per tenant)",
)
def vrf_names_unique(ctx: SiteContext) -> Iterator[Hit]:
    tenant_of: dict[str, str] = {}
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        other = tenant_of.setdefault(vrf.name, vrf.tenant)
        if other != vrf.tenant:
            yield Hit(
                f"VRF {vrf.name} of tenant {vrf.tenant} has the name of a VRF of tenant "
                f"{other}: devices name VRFs without the tenant, so the two would be one VRF; "
                "rename one",
                vrf.vrf.path,
            )


@rule(
    "EVPN-024",
    "error",
    "A tenant VRF does not take a name a platform keeps for itself",
    "`default` is every platform's global table; the site's `management.vrf` and the "
    "management VRFs of NX-OS (`management`) and Cumulus Linux (`mgmt`) hold the out-of-band "
    "port; NVUE keeps words such as `all` and `none`. A tenant VRF of such a name merges the "
    "tenant into that table (its SVIs join the management VRF and EVPN exports the "
    "out-of-band subnet) or the platform refuses the file. Names are compared without case "
    "and against every platform, so an intent stays portable.",
    "docs/standards.md#evpn-024; Cisco NX-OS Unicast Routing Configuration Guide, "
    '"Configuring Layer 3 Virtualization" (default and management VRFs); CLDOCS "Management '
    'VRF" (mgmt); CLDOCS 5.13 "NVUE Format Reference" (Reserved Names)',
)
def vrf_names_not_reserved(ctx: SiteContext) -> Iterator[Hit]:
    reserved = _reserved_vrf_names(ctx.site.management.vrf)
    for t, tenant in sorted(ctx.site.tenants.items()):
        for name, vrf in sorted(tenant.vrfs.items()):
            holders = reserved.get(name.lower())
            if holders is None:
                continue
            spelt = [written for written, _ in holders if written != name]
            case = f", compared without letter case ({', '.join(spelt)})" if spelt else ""
            held = " and of ".join(holder for _, holder in holders)
            yield Hit(
                f"VRF {name} of tenant {t} takes the name of {held}{case}; rename the VRF",
                vrf.path,
            )


def _reserved_vrf_names(management_vrf: str) -> dict[str, list[tuple[str, str]]]:
    """Lower-case name -> each thing holding it, as written: the global table, management
    VRFs, reserved words."""
    reserved: dict[str, list[tuple[str, str]]] = defaultdict(list)
    reserved[GLOBAL_VRF].append((GLOBAL_VRF, "the global routing table"))
    reserved[management_vrf.lower()].append(
        (management_vrf, "the site's management VRF (management.vrf)")
    )
    for platform in sorted(PLATFORMS.values(), key=lambda p: p.name):
        if platform.fixed_management_vrf is not None:
            vrf = platform.fixed_management_vrf
            reserved[vrf.lower()].append((vrf, f"the management VRF of {platform.title}"))
        for word in platform.reserved_vrf_names:
            reserved[word.lower()].append((word, f"a word {platform.title} keeps for itself"))
    return dict(reserved)


@rule(
    "EVPN-025",
    "error",
    "VRF names of a site differ in more than letter case",
    "Devices name a VRF's policies after it in capitals (RM-HANDOFF-GPU-A-IN-V4), so two VRFs "
    "whose names differ only in case would share one prefix list and route map: the second "
    "VRF would be filtered with the first one's prefixes.",
    "docs/standards.md#evpn-025",
)
def vrf_names_differ_in_more_than_case(ctx: SiteContext) -> Iterator[Hit]:
    first: dict[str, str] = {}
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        earlier = first.setdefault(vrf_tag(vrf.name), vrf.name)
        if earlier != vrf.name:
            yield Hit(
                f"VRF {vrf.name} of tenant {vrf.tenant} differs from VRF {earlier} only in "
                "letter case: their policies would share one name; rename one",
                vrf.vrf.path,
            )


# --- EVPN-003, EVPN-016 -----------------------------------------------------------------------


@cache
def reserved_vlans() -> dict[str, Any]:
    data: dict[str, Any] = read_data("reserved_vlans.yaml")["platforms"]
    return data


@dataclass(frozen=True)
class VlanUse:
    vlan: int
    label: str
    devices: tuple[str, ...]
    path: Path_
    at: Location


def _vlan_uses(ctx: SiteContext) -> list[VlanUse]:
    """Network VLANs, L3VNI carrier VLANs on the platforms that configure them, and the VLANs
    of VRF peerings over an MLAG peer link (EOS pairs sharing one VTEP)."""
    networks = placed_networks(ctx)
    uses = [
        VlanUse(p.network.vlan, p.label, p.devices, (*p.network.path, "vlan"), p.at)
        for p in networks
    ]
    vrfs = placed_vrfs(ctx, networks)
    by_name = {v.name: v for v in vrfs}
    for vrf_name, vlan, leaves in vrf_peering_vlans(
        ctx.loaded.intent, ctx.name, ctx.site, ctx.fabric.edge
    ):
        placed = by_name[vrf_name]
        uses.append(
            VlanUse(
                vlan,
                f"{placed.label} (its session between the MLAG pair, over the peer link)",
                leaves,
                (*placed.vrf.path, "vlan"),
                placed.at,
            )
        )
    for vrf in vrfs:
        devices = tuple(d for d in vrf.devices if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS)
        if vrf.vrf.vlan is not None and vrf.vrf.l3vni is not None and devices:
            uses.append(
                VlanUse(
                    vrf.vrf.vlan,
                    f"{vrf.label} (L3VNI carrier)",
                    devices,
                    (*vrf.vrf.path, "vlan"),
                    vrf.at,
                )
            )
    return sorted(uses, key=lambda u: u.at)


def _platform(ctx: SiteContext, device: str) -> str:
    return str(ctx.site.devices[device].platform)


@rule(
    "EVPN-003",
    "error",
    "A VLAN id is used once per switch",
    "A VLAN id is one bridge domain on a switch: two networks (or a network and an L3VNI carrier "
    "VLAN, or the VLAN an EOS MLAG pair peers a VRF over) with one id on a leaf would be bridged "
    "together, or the second mapping rejected. The "
    "same id on leaves that share no network is fine; the VNI is the fabric-wide identity.",
    "docs/standards.md#evpn-003; IEEE 802.1Q (a VLAN id names one bridged network on a bridge)",
)
def vlans_unique_per_switch(ctx: SiteContext) -> Iterator[Hit]:
    uses = _vlan_uses(ctx)
    for index, use in enumerate(uses):
        for earlier in uses[:index]:
            if earlier.vlan != use.vlan:
                continue
            on_earlier = set(earlier.devices)
            shared = [d for d in use.devices if d in on_earlier]
            if shared:
                yield Hit(
                    f"VLAN {use.vlan} of {use.label} is also the VLAN of {earlier.label} on "
                    f"{listed(shared)}: one VLAN id is one bridge domain per switch; choose "
                    "another VLAN id",
                    use.path,
                )


@rule(
    "EVPN-016",
    "error",
    "A VLAN id lies outside the platform's reserved VLANs",
    "A VLAN inside the range a platform reserves for internal use is rejected (NX-OS) or "
    "overlaps internal traffic (Cumulus does not prevent it), on every switch of that platform "
    "that carries it.",
    "docs/standards.md#evpn-016; reserved ranges and their sources: validators/data/"
    "reserved_vlans.yaml; https://docs.nvidia.com/networking-ethernet-software/knowledge-base/"
    "Configuration-and-Usage/Network-Configuration/Reserved-VLAN-Range-and-Limitations/",
)
def vlans_outside_reserved(ctx: SiteContext) -> Iterator[Hit]:
    for use in _vlan_uses(ctx):
        by_platform: dict[str, list[str]] = defaultdict(list)
        for device in use.devices:
            by_platform[_platform(ctx, device)].append(device)
        for platform, devices in sorted(by_platform.items()):
            for low, high in reserved_vlans().get(platform, {}).get("ranges", []):
                if low <= use.vlan <= high:
                    yield Hit(
                        f"VLAN {use.vlan} of {use.label} is in {low}-{high}, which "
                        f"{PLATFORMS[platform].title} reserves for internal use, on "
                        f"{listed(devices)}; choose a VLAN id outside it",
                        use.path,
                    )


# --- EVPN-004 ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RtUse:
    rt: str
    vni: int
    explicit: bool
    label: str
    path: Path_  # the explicit route_target, else the VNI it derives from
    at: Location


@rule(
    "EVPN-004",
    "error",
    "A route target belongs to one VNI",
    "Every VTEP imports the routes whose RT it carries: an explicit route_target equal to the "
    "RT of another VNI (explicit or the admin:VNI default) leaks that segment's MAC/IP routes "
    "into this one. (RDs are router-id:VNI and RTs identical on every VTEP by construction.)",
    "docs/standards.md#evpn-004; https://www.rfc-editor.org/rfc/rfc8365 section 5.1.2.1",
)
def route_targets_unique(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.evpn
    if settings is None:
        return
    networks = placed_networks(ctx)
    uses = [
        _rt_use(
            settings,
            p.network.l2vni,
            p.network.route_target,
            p.label,
            p.network.path,
            "l2vni",
            p.at,
        )
        for p in networks
    ] + [
        _rt_use(settings, v.vrf.l3vni, v.vrf.route_target, v.label, v.vrf.path, "l3vni", v.at)
        for v in placed_vrfs(ctx, networks)
        if v.vrf.l3vni is not None
    ]
    by_rt: dict[str, list[RtUse]] = defaultdict(list)
    for use in sorted(uses, key=lambda u: u.at):
        by_rt[use.rt].append(use)
    for rt, group in by_rt.items():
        if len({u.vni for u in group}) < 2:
            continue  # one VNI (a duplicate VNI is EVPN-002's finding)
        owner = next((u for u in group if not u.explicit), group[0])  # the default owns it
        for use in group:
            if use.vni != owner.vni and use.explicit:
                yield Hit(
                    f"route target {rt} of {use.label} (VNI {use.vni}) is also the route "
                    f"target of {owner.label} (VNI {owner.vni}): VTEPs would import each "
                    "one's routes into the other; give each VNI its own route target",
                    use.path,
                )


def _rt_use(
    settings: Any,
    vni: int,
    override: str | None,
    label: str,
    path: Path_,
    vni_key: str,
    at: Location,
) -> RtUse:
    where = (*path, "route_target") if override else (*path, vni_key)
    return RtUse(route_target(settings, vni, override), vni, override is not None, label, where, at)


# --- EVPN-005 ---------------------------------------------------------------------------------


@rule(
    "EVPN-005",
    "error",
    "Every VRF that routes in the overlay has an L3VNI",
    "Symmetric IRB routes between subnets and leaves over the VRF's L3VNI; without one the "
    "VRF's gateways route only locally and traffic to hosts behind other leaves is dropped "
    "(meetme renders no asymmetric IRB). VRFs whose networks have no gateway route nothing and "
    "need none.",
    "docs/standards.md#evpn-005; https://www.rfc-editor.org/rfc/rfc9135",
)
def routed_vrfs_have_l3vni(ctx: SiteContext) -> Iterator[Hit]:
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        if vrf.vrf.l3vni is None and vrf.gateways:
            names = listed([p.name for p in vrf.gateways])
            yield Hit(
                f"{vrf.label} has networks with an anycast gateway ({names}) but no l3vni: "
                "symmetric IRB needs one to route between leaves; give the VRF an unused "
                "l3vni",
                vrf.vrf.path,
            )


# --- EVPN-006, EVPN-017, EVPN-018 -------------------------------------------------------------

Gateway = ipaddress.IPv4Interface | ipaddress.IPv6Interface


@rule(
    "EVPN-006",
    "error",
    "Anycast gateways are usable host addresses",
    "A gateway on the subnet's network or broadcast address (IPv4, subnets up to /30) or on the "
    "Subnet-Router anycast address (IPv6, RFC 4291 2.6.1, subnets up to /126) is rejected or "
    "unreachable.",
    "docs/standards.md#evpn-006; https://www.rfc-editor.org/rfc/rfc4291 section 2.6.1; "
    "https://www.rfc-editor.org/rfc/rfc1122 section 3.2.1.3",
)
def gateways_usable(ctx: SiteContext) -> Iterator[Hit]:
    for placed, key, text, gateway in _gateways(ctx):
        problem = _unusable(gateway)
        if problem:
            yield Hit(f"{key} {text} of {placed.label} is {problem}", (*placed.network.path, key))


def _gateways(ctx: SiteContext) -> Iterator[tuple[Placed, str, str, Gateway]]:
    """Every anycast gateway of the site's networks, in file order."""
    for placed in placed_networks(ctx):
        for key in ("gateway_v4", "gateway_v6"):
            text = getattr(placed.network, key)
            if text is not None:
                yield placed, key, text, ipaddress.ip_interface(text)


@rule(
    "EVPN-017",
    "error",
    "Gateway subnets of one VRF do not overlap",
    "Two networks of one VRF with overlapping gateway subnets give the VRF two connected routes "
    "for the same hosts: traffic to some of them leaves by the wrong network. The same subnet in "
    "two VRFs is fine; they are separate routing tables.",
    "docs/standards.md#evpn-017; https://www.rfc-editor.org/rfc/rfc4364 section 2 (per-VRF "
    "address spaces)",
)
def gateway_subnets_disjoint(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[tuple[str, str], list[tuple[Gateway, Placed]]] = defaultdict(list)
    for placed, key, text, gateway in _gateways(ctx):
        path = (*placed.network.path, key)
        vrf = (placed.tenant, placed.network.vrf)
        for other, earlier in seen[vrf]:
            if other.version == gateway.version and other.network.overlaps(gateway.network):
                yield Hit(
                    f"{key} {text} of {placed.label} overlaps {other} of {earlier.label} "
                    f"in VRF {placed.network.vrf}: the VRF would have two connected routes "
                    "for the same hosts; give each network its own subnet",
                    path,
                )
        seen[vrf].append((gateway, placed))


@rule(
    "EVPN-018",
    "error",
    "The anycast gateway MAC is a unicast MAC",
    "The anycast MAC is the one gateway MAC every VTEP answers with, fabric-wide: a group "
    "(multicast) MAC, first octet odd (broadcast is one), cannot be a host's gateway MAC, and "
    "all zeros is no station's address.",
    "docs/standards.md#evpn-018; IEEE Std 802 individual/group address bit; "
    "https://www.rfc-editor.org/rfc/rfc9135 section 4.1 (anycast gateway MAC)",
)
def anycast_mac_unicast(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.evpn
    if settings is None:
        return
    problem = mac_problem(settings.anycast_mac)
    if problem is None:
        return
    yield Hit(
        f"anycast_mac {settings.anycast_mac} {problem}; use a unicast MAC (first octet even, "
        "e.g. 00:1c:73:00:00:99)",
        (*settings.path, "anycast_mac"),
    )


def _unusable(gateway: Gateway) -> str | None:
    net = gateway.network
    if isinstance(gateway, ipaddress.IPv4Interface) and net.prefixlen <= 30:
        if gateway.ip == net.network_address:
            return "the subnet's network address; use a host address such as " + str(
                net.network_address + 1
            )
        if gateway.ip == net.broadcast_address:
            return "the subnet's broadcast address; use a host address such as " + str(
                net.network_address + 1
            )
    v6 = isinstance(gateway, ipaddress.IPv6Interface)
    if v6 and net.prefixlen <= 126 and gateway.ip == net.network_address:
        return (
            "the Subnet-Router anycast address (RFC 4291 2.6.1); use a host address "
            f"such as {net.network_address + 1}"
        )
    return None


# --- EVPN-009, EVPN-019..021: where the overlay can run ---------------------------------------


def evpn_refused(ctx: SiteContext) -> set[str]:
    """The devices EVPN-009 reports: in the overlay (a VTEP, spine or super-spine of a site
    with overlay settings) or carrying a network, on a platform with no EVPN-VXLAN. What such a
    device would do as a VTEP (host bonds, MLAG, ESI) is not reported again elsewhere: the
    platform is the one cause, and EVPN-009 names it at the device's platform line."""
    settings = ctx.site.evpn
    carrying = {d for p in placed_networks(ctx) for d in p.devices}
    return {
        name
        for name, device in ctx.site.devices.items()
        if (
            (settings is not None and device.role in (*VTEP_ROLES, *OVERLAY_ROLES))
            or name in carrying
        )
        and not PLATFORMS[device.platform].capabilities.evpn_vxlan
    }


@rule(
    "EVPN-009",
    "error",
    "EVPN-VXLAN only on platforms that render it",
    "meetme refuses to render what a device cannot do (PLAT-003): a VTEP, a spine or "
    "super-spine (the EVPN route servers) of a site with overlay settings, or a device a "
    "network is placed on must run a platform whose templates render EVPN-VXLAN; elsewhere "
    "the finding names the platform.",
    "docs/standards.md#platform-gate and docs/standards.md#evpn-009; generators/platforms/ "
    "capability evpn_vxlan",
    waivable=False,  # a platform gate: WAIVER-004
)
def evpn_where_renderable(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    refused = evpn_refused(ctx)
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        platform = PLATFORMS[device.platform]
        if name in refused:
            # only platforms on which the device's role renders whole (a spine on NX-OS has
            # EVPN but no route-server form, PLAT-007): the advice must not fail again
            capable = listed(
                sorted(
                    p.title
                    for p in PLATFORMS.values()
                    if p.capabilities.evpn_vxlan and renders(p, device.role)
                )
            )
            yield Hit(
                f"{name} is a {device.role} in the EVPN-VXLAN fabric on {platform.title}, for "
                f"which meetme renders no EVPN-VXLAN; use a platform that has it ({capable})",
                (*device.path, "platform"),
            )


@rule(
    "EVPN-019",
    "error",
    "The overlay runs eBGP over the eBGP underlay",
    "An iBGP overlay needs an IGP underlay (OSPF or IS-IS) to reach the route reflectors' "
    "loopbacks, and meetme renders an eBGP underlay only (RFC 7938), so an ibgp overlay would "
    "have no sessions that come up.",
    "docs/standards.md#evpn-019 and docs/standards.md#evpn-overlay-sessions; "
    "https://www.rfc-editor.org/rfc/rfc7938; https://www.rfc-editor.org/rfc/rfc8365 section 5",
)
def overlay_mode_ebgp(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.evpn
    if settings is not None and settings.mode == "ibgp":
        yield Hit(
            "evpn mode ibgp needs an IGP underlay (OSPF or IS-IS) to reach the route "
            "reflectors' loopbacks, and meetme renders an eBGP underlay only; set mode: ebgp",
            (*settings.path, "mode"),
        )


@rule(
    "EVPN-020",
    "error",
    "Networks are placed on VTEPs: leaves, border leaves and racks of them",
    "Only leaves and border leaves are VTEPs: a network that names a spine or border, or a rack "
    "that holds no leaf, is carried by nothing there, and hosts in that rack get no segment.",
    "docs/standards.md#evpn-020; https://www.rfc-editor.org/rfc/rfc7348 section 4 (VTEP)",
)
def networks_on_vteps(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    vtep_racks = {d.rack for d in site.devices.values() if d.role in VTEP_ROLES}
    for placed in placed_networks(ctx):
        base = placed.network.path
        for index, leaf in enumerate(placed.network.leaves):
            device = site.devices.get(leaf)  # unknown names: the reference check
            if device is not None and device.role not in VTEP_ROLES:
                yield Hit(
                    f"{placed.label} names {leaf}, a {device.role}: only leaves and border "
                    "leaves are VTEPs, so nothing would carry it there; name a leaf or a rack "
                    "of leaves",
                    (*base, "leaves", index),
                )
        for index, rack in enumerate(placed.network.racks):
            if rack in site.racks and rack not in vtep_racks:
                yield Hit(
                    f"{placed.label} is placed on rack {rack}, which holds no leaf or border "
                    "leaf, so no device there carries it; name a rack of leaves",
                    (*base, "racks", index),
                )


@rule(
    "EVPN-026",
    "warning",
    "Every network is carried by some VTEP",
    "A network carried by no leaf (it names no rack and no leaf) renders nothing: no VLAN, no "
    "VNI, no gateway on any switch, and its hosts have no segment to join, while the intent "
    "lists it beside the networks that work. A warning: a network written before its racks "
    "are cabled is a plan, not a fault. A network that names a rack or device that carries "
    "nothing is EVPN-020's, and one a host attachment trunks is MH-003's error.",
    "docs/standards.md#evpn-026",
)
def networks_carried_somewhere(ctx: SiteContext) -> Iterator[Hit]:
    trunked = {name for a in ctx.site.attachments.values() for name in a.networks}  # MH-003's
    for placed in placed_networks(ctx):
        network = placed.network
        if placed.devices or network.racks or network.leaves or placed.name in trunked:
            continue
        yield Hit(
            f"{placed.label} is carried by no leaf: it names no rack and no leaf, so no switch "
            "renders its VLAN, VNI or gateway; place it on the racks whose leaves its hosts "
            "are cabled to (racks:), or remove it",
            network.path,
        )


@rule(
    "EVPN-021",
    "error",
    "A VRF carried on NX-OS has an L3VNI carrier VLAN",
    "NX-OS maps an L3VNI through a carrier VLAN (`vlan N` / `vn-segment L3VNI` and an SVI in the "
    "VRF); without one the VRF's routes between leaves have no VNI there. EOS and NVUE need none.",
    "docs/standards.md#evpn-021; docs/syntax.md#nxos-evpn (NX-OS L3VNI carrier VLAN)",
)
def nxos_vrfs_have_carrier_vlan(ctx: SiteContext) -> Iterator[Hit]:
    """Once per VRF, naming every NX-OS switch that carries it: the model's gap (PLAT-008,
    one per switch) is left out of a run where this fired."""
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        if vrf.vrf.l3vni is None or vrf.vrf.vlan is not None:
            continue
        nxos = [d for d in _carriers(ctx, vrf) if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS]
        if nxos:
            yield Hit(
                f"{vrf.label} is carried by {listed(nxos)} on Cisco NX-OS, which maps the "
                f"L3VNI {vrf.vrf.l3vni} through a carrier VLAN: give the VRF a vlan (an id no "
                "network on those switches uses)",
                vrf.vrf.path,
            )


def _carriers(ctx: SiteContext, vrf: PlacedVrf) -> list[str]:
    """The VTEPs whose models carry the VRF, by device id, as build/overlay.py evpn_device
    places it: the leaves of its networks, the handoff's border leaves when it is handed off,
    and the switches with a session in it (a cloud attachment on a border leaf)."""
    site = ctx.site
    found = set(vrf.devices)
    if site.handoff is not None and vrf.name in site.handoff.vrfs:
        found.update(site.handoff.border_leaves)
    found.update(s.device for s in ctx.fabric.edge.sessions if s.vrf == vrf.name)
    vteps = [d for d in found if d in site.devices and site.devices[d].role in VTEP_ROLES]
    return sorted(vteps, key=lambda d: site.devices[d].id)


# --- EVPN-010, EVPN-022: prerequisites --------------------------------------------------------


@rule(
    "EVPN-010",
    "error",
    "A site with networks has overlay settings",
    "Without the site's evpn settings (the anycast MAC, the overlay's sessions) no device "
    "renders its networks: they are silently missing from every config.",
    "docs/standards.md#evpn-010; https://www.rfc-editor.org/rfc/rfc8365",
)
def networks_have_overlay_settings(ctx: SiteContext) -> Iterator[Hit]:
    networks = placed_networks(ctx)
    if ctx.site.evpn is None and networks:
        yield Hit(
            f"site {ctx.name} declares networks ({listed([p.name for p in networks][:3])}"
            f"{', ...' if len(networks) > 3 else ''}) but no evpn settings, so no device "
            "renders them; add evpn: {anycast_mac: ...} to the site",
            (*ctx.base, "tenants"),
        )


@rule(
    "EVPN-022",
    "error",
    "Every VTEP of a site with overlay settings has a VTEP address",
    "A VTEP without a VTEP loopback address has no VXLAN source, so no tunnel to or from it "
    "comes up.",
    "docs/standards.md#evpn-022; https://www.rfc-editor.org/rfc/rfc7348 section 4 (VTEP)",
)
def vteps_addressed(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    if site.evpn is None:
        return  # EVPN-010 reports networks without overlay settings
    missing = []
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        if device.role not in VTEP_ROLES:
            continue
        try:
            address = allocate.vtep_v4(site, device)
        except PoolExhausted:
            continue  # the pool is too small: ADDR-* reports it
        if address is None:
            missing.append(name)
    if missing:
        yield Hit(
            f"VTEPs {listed(missing)} have no VTEP address: add pools.vtep_v4 (one /32 per "
            "device id) or give each of them vtep_v4",
            site.pools.path,
        )


# --- EVPN-014 ---------------------------------------------------------------------------------

RD_ASSIGNED_MAX = 65535  # a type-1 RD is IP:n with a 2-byte assigned number (RFC 4364 4.2)


@rule(
    "EVPN-014",
    "error",
    "VNIs fit the route distinguisher router-id:VNI",
    "meetme writes each VTEP's RDs as router-id:VNI, a type-1 route distinguisher whose assigned "
    f"number is 2 bytes, so a VNI above {RD_ASSIGNED_MAX} gives an RD every platform rejects.",
    "docs/standards.md#evpn-014; https://www.rfc-editor.org/rfc/rfc4364 section 4.2",
)
def vnis_fit_the_rd(ctx: SiteContext) -> Iterator[Hit]:
    for tenant_name, tenant in sorted(ctx.site.tenants.items()):
        for vrf_name, vrf in sorted(tenant.vrfs.items()):
            if vrf.l3vni is not None and vrf.l3vni > RD_ASSIGNED_MAX:
                yield Hit(
                    f"VRF {vrf_name} of {tenant_name}: L3VNI {vrf.l3vni} does not fit the RD "
                    f"router-id:VNI (at most {RD_ASSIGNED_MAX}); choose a VNI up to "
                    f"{RD_ASSIGNED_MAX}",
                    (*vrf.path, "l3vni"),
                )
        for net_name, network in sorted(tenant.networks.items()):
            if network.l2vni > RD_ASSIGNED_MAX:
                yield Hit(
                    f"network {net_name} of {tenant_name}: L2VNI {network.l2vni} does not fit "
                    f"the RD router-id:VNI (at most {RD_ASSIGNED_MAX}); choose a VNI up to "
                    f"{RD_ASSIGNED_MAX}",
                    (*network.path, "l2vni"),
                )


@rule(
    "EVPN-023",
    "error",
    "A routed network's subnet holds its gateway and an SVI address for each leaf that needs one",
    "On platforms whose SVI needs an address of its own besides the anycast gateway (NVUE VRR "
    "sends its ARP requests from it), each leaf carrying the network takes one, counted from "
    "the top of the subnet by the leaf's place among those leaves (by device id), so any "
    "prefix length works and the hosts keep everything below. A subnet with fewer host "
    "addresses than the gateway plus those leaves cannot be rendered.",
    "docs/standards.md#evpn-023; docs/syntax.md#nvue-evpn (VRR)",
)
def svi_addresses_fit(ctx: SiteContext) -> Iterator[Hit]:
    for placed, key, text, gateway in _gateways(ctx):
        owners = svi_owners(ctx.site, ctx.fabric.placement, placed.tenant, placed.name)
        if owners and svi_own_addresses(text, len(owners)) is None:
            yield Hit(
                f"{key} {text} of {placed.label}: {gateway.network} holds "
                f"{_hosts(gateway)} host addresses, but the gateway and an SVI address for each "
                f"of {listed(list(owners))} need {len(owners) + 1}; use a wider subnet",
                (*placed.network.path, key),
            )


def _hosts(gateway: Gateway) -> int:
    """Host addresses of the gateway's subnet: IPv4 without network and broadcast, IPv6 without
    the subnet-router anycast address (as resolve/placement.py svi_own_addresses counts)."""
    net = gateway.network
    return max(0, net.num_addresses - (2 if net.version == 4 else 1))
