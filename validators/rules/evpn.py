"""EVPN-*: EVPN-VXLAN fabric services over the tenants intent (docs/standards.md#evpn).

The rules place networks with generators.evpn.networks_of, so they judge exactly what is
rendered. Duplicates are reported at the later of the two nodes in file order, naming the
earlier one. What holds by construction has no rule: VNIs are 1-16,777,215 and VLAN ids 2-4094
(schema); one network is one VLAN and one VNI on all its VTEPs (EVPN-003 mapping consistency);
RDs are router-id:VNI and default RTs admin:VNI, identical on every VTEP (EVPN-004); a VRF has
one L3VNI on every VTEP carrying it (EVPN-005); one anycast MAC fabric-wide (EVPN-006); both
halves of a host bond get one bond number, segment id, ESI and LACP system MAC
(generators/attachments.py derives them from the attachment alone).
"""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import yaml
from meetme.generators.build.handoff import NORTH_MAX_LENGTH
from meetme.generators.build.multihoming import esi
from meetme.generators.build.overlay import OVERLAY_ROLES, VTEP_ROLES, networks_of, route_target
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from pydantic import TypeAdapter

from meetme.core.problems import Location
from meetme.intent.schema_evpn import Attachment, Network, Vrf
from meetme.intent.types import Mtu

if TYPE_CHECKING:
    from meetme.generators.resolve.fabric import FabricLink, LinkEndFacts

RFC7348 = "https://www.rfc-editor.org/rfc/rfc7348"
VXLAN_OVERHEAD_V4 = 50  # outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14 (RFC 7348 5)
MAX_IP_MTU: int = TypeAdapter(Mtu).json_schema()["maximum"]  # the largest mtu a link takes
# Platforms that map an L3VNI through a carrier VLAN (NX-OS `vlan N` / `vn-segment L3VNI` and
# an SVI in the VRF, docs/syntax.md#nxos-evpn). EOS (`vxlan vrf V vni N`) and NVUE (`vrf V evpn vni N`,
# which picks its own reserved VLAN) need none. Belongs in generators/platforms.py.
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


def placed_networks(ctx: SiteContext) -> list[Placed]:
    """Every network of the site in file order, with the devices the generator places it on."""
    carriers: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, device in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        for placed in networks_of(ctx.site, name, device):
            carriers[placed.tenant, placed.name].append(name)
    found = [
        Placed(t, n, net, tuple(carriers[t, n]), ctx.loaded.where(net.path))
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


def _names(items: list[str] | tuple[str, ...]) -> str:
    return ", ".join(items)


# --- EVPN-001 -----------------------------------------------------------------------------


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
    fits = []
    for placed in carried:
        need = placed.network.mtu + VXLAN_OVERHEAD_V4
        if need > MAX_IP_MTU:
            yield Hit(
                f"{placed.label} has mtu {placed.network.mtu}: VXLAN over IPv4 adds "
                f"{VXLAN_OVERHEAD_V4} bytes, and no fabric link takes an IP MTU of {need} "
                f"(at most {MAX_IP_MTU}); lower the network's mtu to at most "
                f"{MAX_IP_MTU - VXLAN_OVERHEAD_V4}",
                (*placed.network.path, "mtu"),
            )
        else:
            fits.append(placed)
    if not fits:
        return
    largest = max(fits, key=lambda p: p.network.mtu)  # the first of equals, in file order
    need = largest.network.mtu + VXLAN_OVERHEAD_V4
    low: dict[tuple[Path_, int], list[FabricLink]] = defaultdict(list)
    for link in ctx.fabric.links:
        end = min((link.b, link.a), key=lambda e: e.ip_mtu)  # b first: as PHY-010 points
        if end.ip_mtu < need:
            low[_mtu_path(ctx, link, end), end.ip_mtu].append(link)
    for (path, mtu), links in sorted(low.items(), key=lambda item: ctx.loaded.where(item[0][0])):
        first = links[0]
        more = f" and {len(links) - 1} more" if len(links) > 1 else ""
        origins = _names(list(dict.fromkeys(link.origin for link in links)))
        yield Hit(
            f"IP MTU {mtu} on fabric link {first.a.device} {first.a.interface} - "
            f"{first.b.device} {first.b.interface}{more} ({origins}) is below {need}: "
            f"{largest.label} has mtu {largest.network.mtu} and VXLAN over IPv4 adds "
            f"{VXLAN_OVERHEAD_V4} bytes (the VTEPs strip the 802.1Q tag); VTEPs do not "
            f"fragment, so larger frames are dropped. Set mtu to at least {need}",
            path,
        )


def _mtu_path(ctx: SiteContext, link: FabricLink, end: LinkEndFacts) -> Path_:
    """Where the MTU of one end is written: the explicit end, the link or link rule, or the
    site's underlay default."""
    source = link.source
    if len(source) >= 2 and source[-2] == "links" and isinstance(source[-1], int):
        written = ctx.site.links[source[-1]]
        side, written_end = ("a", written.a) if end is link.a else ("b", written.b)
        if written_end.mtu is not None:
            return (*source, side, "mtu")
        if written.mtu is not None:
            return (*source, "mtu")
    elif (
        len(source) >= 2
        and source[-2] == "link_rules"
        and isinstance(source[-1], int)
        and ctx.site.link_rules[source[-1]].mtu is not None
    ):
        return (*source, "mtu")
    return (*ctx.base, "underlay", "mtu")


# --- EVPN-002 -----------------------------------------------------------------------------


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
    "Each VNI names one network or one VRF; VRF names are unique in a site",
    "A VNI is the fabric-wide identity of a segment: reusing it merges two broadcast domains or "
    "two VRFs, and an L2VNI equal to an L3VNI mixes bridged and routed traffic. Devices name "
    "VRFs without their tenant, so two tenants' VRFs of one name would become one VRF. (VNIs "
    "outside 1-16,777,215 are rejected by the schema.)",
    f"docs/standards.md#evpn-002; RFC 7348 section 5 (24-bit VNI); "
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
    tenant_of: dict[str, str] = {}
    for vrf in vrfs:
        other = tenant_of.setdefault(vrf.name, vrf.tenant)
        if other != vrf.tenant:
            yield Hit(
                f"VRF {vrf.name} of tenant {vrf.tenant} has the name of a VRF of tenant "
                f"{other}: devices name VRFs without the tenant, so the two would be one VRF; "
                "rename one",
                vrf.vrf.path,
            )


# --- EVPN-003 -----------------------------------------------------------------------------


@cache
def reserved_vlans() -> dict[str, Any]:
    text = resources.files("meetme.validators").joinpath("data/reserved_vlans.yaml").read_text()
    data: dict[str, Any] = yaml.safe_load(text)["platforms"]
    return data


@dataclass(frozen=True)
class VlanUse:
    vlan: int
    label: str
    devices: tuple[str, ...]
    path: Path_
    at: Location


def _vlan_uses(ctx: SiteContext) -> list[VlanUse]:
    """Network VLANs, and L3VNI carrier VLANs on the platforms that configure them."""
    networks = placed_networks(ctx)
    uses = [
        VlanUse(p.network.vlan, p.label, p.devices, (*p.network.path, "vlan"), p.at)
        for p in networks
    ]
    for vrf in placed_vrfs(ctx, networks):
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
    "A VLAN id is used once per switch and outside the platform's reserved VLANs",
    "A VLAN id is one bridge domain on a switch: two networks (or a network and an L3VNI carrier "
    "VLAN) with one id on a leaf would be bridged together, or the second mapping rejected. The "
    "same id on leaves that share no network is fine; the VNI is the fabric-wide identity. A "
    "VLAN inside the range a platform reserves for internal use is rejected (NX-OS) or overlaps "
    "internal traffic (Cumulus does not prevent it).",
    f"docs/standards.md#evpn-003; reserved ranges and their sources: validators/data/"
    "reserved_vlans.yaml; https://docs.nvidia.com/networking-ethernet-software/knowledge-base/"
    "Configuration-and-Usage/Network-Configuration/Reserved-VLAN-Range-and-Limitations/",
)
def vlans_unique_per_switch(ctx: SiteContext) -> Iterator[Hit]:
    uses = _vlan_uses(ctx)
    for index, use in enumerate(uses):
        for earlier in uses[:index]:
            shared = [d for d in use.devices if d in earlier.devices]
            if earlier.vlan == use.vlan and shared:
                yield Hit(
                    f"VLAN {use.vlan} of {use.label} is also the VLAN of {earlier.label} on "
                    f"{_names(shared)}: one VLAN id is one bridge domain per switch; choose "
                    "another VLAN id",
                    use.path,
                )
        by_platform: dict[str, list[str]] = defaultdict(list)
        for device in use.devices:
            by_platform[_platform(ctx, device)].append(device)
        for platform, devices in sorted(by_platform.items()):
            for low, high in reserved_vlans().get(platform, {}).get("ranges", []):
                if low <= use.vlan <= high:
                    yield Hit(
                        f"VLAN {use.vlan} of {use.label} is in {low}-{high}, which "
                        f"{PLATFORMS[platform].title} reserves for internal use, on "
                        f"{_names(devices)}; choose a VLAN id outside it",
                        use.path,
                    )


# --- EVPN-004 -----------------------------------------------------------------------------


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
    f"docs/standards.md#evpn-004; https://www.rfc-editor.org/rfc/rfc8365 section 5.1.2.1",
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


# --- EVPN-005 -----------------------------------------------------------------------------


@rule(
    "EVPN-005",
    "error",
    "Every VRF that routes in the overlay has an L3VNI",
    "Symmetric IRB routes between subnets and leaves over the VRF's L3VNI; without one the "
    "VRF's gateways route only locally and traffic to hosts behind other leaves is dropped "
    "(meetme renders no asymmetric IRB). VRFs whose networks have no gateway route nothing and "
    "need none.",
    f"docs/standards.md#evpn-005; https://www.rfc-editor.org/rfc/rfc9135",
)
def routed_vrfs_have_l3vni(ctx: SiteContext) -> Iterator[Hit]:
    for vrf in placed_vrfs(ctx, placed_networks(ctx)):
        if vrf.vrf.l3vni is None and vrf.gateways:
            names = _names([p.name for p in vrf.gateways])
            yield Hit(
                f"{vrf.label} has networks with an anycast gateway ({names}) but no l3vni: "
                "symmetric IRB needs one to route between leaves; give the VRF an unused "
                "l3vni",
                vrf.vrf.path,
            )


# --- EVPN-006 -----------------------------------------------------------------------------

Gateway = ipaddress.IPv4Interface | ipaddress.IPv6Interface


@rule(
    "EVPN-006",
    "error",
    "Anycast gateways are usable host addresses of non-overlapping subnets",
    "Two networks of one VRF with overlapping gateway subnets give the VRF two connected routes "
    "for the same hosts; a gateway on the subnet's network or broadcast address (IPv4) or on "
    "the Subnet-Router anycast address (IPv6, RFC 4291 2.6.1) is rejected or unreachable. The "
    "anycast MAC is one unicast MAC fabric-wide: a group (multicast) MAC cannot be a gateway "
    "MAC.",
    f"docs/standards.md#evpn-006; https://www.rfc-editor.org/rfc/rfc4291 section 2.6.1; "
    "IEEE 802 group/individual bit",
)
def gateways_valid(ctx: SiteContext) -> Iterator[Hit]:
    settings = ctx.site.evpn
    if settings is not None and int(settings.anycast_mac.split(":")[0], 16) & 1:
        yield Hit(
            f"anycast_mac {settings.anycast_mac} is a group (multicast) address: its first "
            "octet is odd; use a unicast MAC (first octet even, e.g. 00:1c:73:00:00:99)",
            (*settings.path, "anycast_mac"),
        )
    seen: dict[tuple[str, str], list[tuple[Gateway, Placed]]] = defaultdict(list)
    for placed in placed_networks(ctx):
        for key in ("gateway_v4", "gateway_v6"):
            text = getattr(placed.network, key)
            if text is None:
                continue
            gateway = ipaddress.ip_interface(text)
            path = (*placed.network.path, key)
            problem = _unusable(gateway)
            if problem:
                yield Hit(f"{key} {text} of {placed.label} is {problem}", path)
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


# --- EVPN-009 -----------------------------------------------------------------------------


@rule(
    "EVPN-009",
    "error",
    "EVPN-VXLAN only where the platform, role and overlay mode can render it",
    "meetme refuses to render what a device cannot do (PLAT-003): networks live on leaves and "
    "border leaves (VTEPs) only, on platforms with EVPN-VXLAN support; NX-OS maps an L3VNI "
    "through a carrier VLAN; the overlay is eBGP over the eBGP underlay, since an iBGP overlay "
    "needs an IGP underlay that meetme does not render.",
    "docs/standards.md#platform-gate and docs/standards.md#evpn-overlay-sessions; docs/syntax.md#nxos-evpn (NX-OS L3VNI carrier VLAN); "
    "generators/platforms.py capabilities",
)
def evpn_where_renderable(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    settings = site.evpn
    if settings is not None and settings.mode == "ibgp":
        yield Hit(
            "evpn mode ibgp needs an IGP underlay (OSPF or IS-IS) to reach the route "
            "reflectors' loopbacks, and meetme renders an eBGP underlay only; set mode: ebgp",
            (*settings.path, "mode"),
        )
    networks = placed_networks(ctx)
    for placed in networks:
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
            in_rack = [d for d in site.devices.values() if d.rack == rack]
            if rack in site.racks and not any(d.role in VTEP_ROLES for d in in_rack):
                yield Hit(
                    f"{placed.label} is placed on rack {rack}, which holds no leaf or border "
                    "leaf, so no device there carries it; name a rack of leaves",
                    (*base, "racks", index),
                )
    carrying = {d for p in networks for d in p.devices}
    capable = _names(sorted(p.title for p in PLATFORMS.values() if "evpn_vxlan" in p.capabilities))
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        in_overlay = settings is not None and device.role in (*VTEP_ROLES, *OVERLAY_ROLES)
        platform = PLATFORMS[device.platform]
        if (in_overlay or name in carrying) and "evpn_vxlan" not in platform.capabilities:
            yield Hit(
                f"{name} is a {device.role} in the EVPN-VXLAN fabric on {platform.title}, for "
                f"which meetme renders no EVPN-VXLAN; use a platform that has it ({capable})",
                (*device.path, "platform"),
            )
    for vrf in placed_vrfs(ctx, networks):
        nxos = [d for d in vrf.devices if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS]
        if vrf.vrf.l3vni is not None and vrf.vrf.vlan is None and nxos:
            yield Hit(
                f"{vrf.label} is carried by {_names(nxos)} on Cisco NX-OS, which maps the "
                f"L3VNI {vrf.vrf.l3vni} through a carrier VLAN: give the VRF a vlan (an id no "
                "network on those leaves uses)",
                vrf.vrf.path,
            )


# --- EVPN-010 -----------------------------------------------------------------------------


@rule(
    "EVPN-010",
    "error",
    "A site with networks has overlay settings, and every VTEP a VTEP address",
    "Without the site's evpn settings no device renders its networks; a VTEP without a VTEP "
    "loopback address has no VXLAN source, so no tunnel comes up.",
    f"docs/standards.md#evpn (prerequisites); RFC 7348 section 4 (VTEP)",
)
def vteps_addressed(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    networks = placed_networks(ctx)
    if site.evpn is None:
        if networks:
            yield Hit(
                f"site {ctx.name} declares networks ({_names([p.name for p in networks][:3])}"
                f"{', ...' if len(networks) > 3 else ''}) but no evpn settings, so no device "
                "renders them; add evpn: {anycast_mac: ...} to the site",
                (*ctx.base, "tenants"),
            )
        return
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
            f"VTEPs {_names(missing)} have no VTEP address: add pools.vtep_v4 (one /32 per "
            "device id) or give each of them vtep_v4",
            site.pools.path,
        )


# --- EVPN-008, EVPN-011, EVPN-012: host attachments -------------------------------------------

MODE_TITLE = {"mlag": "MLAG", "esi": "ESI (EVPN multihoming)"}
MODE_CAPABILITY = {"mlag": "mlag", "esi": "esi_multihoming"}  # generators/platforms.py


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


@rule(
    "EVPN-008",
    "error",
    "Host attachments are complete pairs: ESI or MLAG, every network on both leaves",
    "A host dual-homed to a leaf pair uses EVPN multihoming (ESI, RFC 7432 all-active) or MLAG, "
    "never both on one leaf: mixing them loops or duplicates BUM traffic and splits LACP. Both "
    "leaves are VTEPs of one platform and carry every network the hosts trunk, or the host's "
    "bond has a VLAN with no VNI on one side. MLAG needs its peer link and the pair's shared "
    "anycast VTEP, which ESI does not use. A host port is one port: not a fabric port, the peer "
    "link or another attachment's port; bond numbers and segment ids (MLAG id / Ethernet "
    "segment) are unique per leaf; ESIs are unique fabric-wide; an MLAG pair has one peer "
    "link and one system MAC; attachments name networks without their tenant, so the name "
    "must be unambiguous.",
    f"docs/standards.md#evpn-008; https://www.rfc-editor.org/rfc/rfc7432 sections 5 and 8; NVUE "
    "`bond mlag id` (unique per dual-connected bond, same on both peers) "
    "https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/"
    "MLAG/; VXLAN active-active (MLAG anycast VTEP) https://docs.nvidia.com/networking-ethernet-"
    "software/cumulus-linux/Network-Virtualization/VXLAN-Active-Active-Mode",
)
def multihoming_complete(ctx: SiteContext) -> Iterator[Hit]:
    found = attachments(ctx)
    placed = {(p.tenant, p.name): p for p in placed_networks(ctx)}
    owners: dict[str, list[str]] = defaultdict(list)
    for tenant_name, tenant in ctx.site.tenants.items():
        for net_name in tenant.networks:
            owners[net_name].append(tenant_name)
    for item in found:
        yield from _pair_hits(ctx, item)
        yield from _mode_setting_hits(item)
        yield from _trunk_hits(ctx, item, placed, owners)
    yield from _port_hits(ctx, found)
    yield from _number_hits(ctx, found)
    yield from _pair_mode_hits(ctx, found)
    yield from _esi_hits(found)


def _pair_hits(ctx: SiteContext, item: Attached) -> Iterator[Hit]:
    a = item.attachment
    first, second = a.leaves
    if first == second:
        yield Hit(
            f"{item.label} names {first} twice: a dual-homed host needs two different leaves; "
            "name the other leaf of the pair",
            (*a.path, "leaves", 1),
        )
        return
    devices = [ctx.site.devices.get(leaf) for leaf in a.leaves]
    for index, device in enumerate(devices):
        if device is not None and device.role not in VTEP_ROLES:
            yield Hit(
                f"{item.label} names {a.leaves[index]}, a {device.role}: hosts attach to "
                "leaves or border leaves, the VTEPs that carry their networks; name a leaf pair",
                (*a.path, "leaves", index),
            )
    vteps = [d for d in devices if d is not None and d.role in VTEP_ROLES]
    if len(vteps) == 2 and vteps[0].platform != vteps[1].platform:
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


MLAG_NEEDS = {
    "peer_link": "the pair synchronises over a peer link between the two leaves; list its "
    "ports (the same names on both)",
    "anycast_vtep": "an MLAG pair is one VTEP to the fabric, so remote VTEPs see its hosts "
    "behind one shared address, not flapping between the two leaves'; give it a free address "
    "from pools.vtep_v4",
}


def _mode_setting_hits(item: Attached) -> Iterator[Hit]:
    a = item.attachment
    for key, why in MLAG_NEEDS.items():
        if a.mode == "mlag" and not getattr(a, key):
            yield Hit(f"MLAG {item.label} has no {key}: {why}", a.path)
        elif a.mode == "esi" and getattr(a, key):
            yield Hit(
                f"ESI {item.label} sets {key}, an MLAG setting: EVPN multihoming has no peer "
                "link and each leaf keeps its own VTEP address; remove it (or use mode: mlag)",
                (*a.path, key),
            )


def _trunk_hits(
    ctx: SiteContext,
    item: Attached,
    placed: dict[tuple[str, str], Placed],
    owners: dict[str, list[str]],
) -> Iterator[Hit]:
    leaves = _vtep_leaves(ctx, item)
    for index, name in enumerate(item.attachment.networks):
        path = (*item.attachment.path, "networks", index)
        tenants = owners.get(name, [])
        if len(tenants) > 1:
            yield Hit(
                f"{item.label} trunks network {name}, a name in tenants {' and '.join(tenants)}: "
                "attachments name networks without their tenant, so the hosts would get the "
                "VLANs of all of them; rename all but one of those networks",
                path,
            )
            continue
        if not tenants:
            continue  # an unknown name: the reference check reports it
        network = placed[tenants[0], name]
        missing = [leaf for leaf in leaves if leaf not in network.devices]
        if missing:
            racks = _names(sorted({str(ctx.site.devices[leaf].rack) for leaf in missing}))
            yield Hit(
                f"{network.label}, trunked by {item.label}, is not carried by "
                f"{_names(missing)}: the hosts' bonds there would trunk a VLAN with no VNI or "
                f"gateway; add rack {racks} to the network's racks (or the leaves to its "
                "leaves), or stop trunking it",
                path,
            )


@dataclass(frozen=True)
class PortUse:
    kind: str  # "fabric", "external", "host" or "peer"
    text: str  # what the port already is, for the message


def _port_hits(ctx: SiteContext, found: list[Attached]) -> Iterator[Hit]:
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
                        f"{what} {port} of {item.label} is on {_names(on)} already the "
                        f"{earlier.text}: one port carries one thing; use a free port",
                        path,
                    )
                for leaf in leaves:
                    used.setdefault((leaf, port), PortUse(kind, f"{what} of {item.label}"))


def _number_hits(ctx: SiteContext, found: list[Attached]) -> Iterator[Hit]:
    """Bond numbers and segment ids (MLAG id / ES local id) of two attachments on one leaf."""
    taken: dict[tuple[str, str, int], Attached] = {}
    for item in found:
        leaves = _vtep_leaves(ctx, item)
        if not leaves:
            continue
        lag_format = PLATFORMS[ctx.site.devices[leaves[0]].platform].lag_format
        for key, numbers, kind in (
            ("lag_base", item.lags, "bond"),
            ("segment_base", item.segments, "segment id"),
        ):
            clashes: dict[str, tuple[Attached, set[int], set[str]]] = {}
            for leaf in leaves:
                for number in numbers:
                    earlier = taken.setdefault((key, leaf, number), item)
                    if earlier is not item:
                        _, numbers_, leaves_ = clashes.setdefault(
                            earlier.name, (earlier, set(), set())
                        )
                        numbers_.add(number)
                        leaves_.add(leaf)
            for earlier, clash, on in clashes.values():
                first = sorted(clash)
                if kind == "bond":
                    what = "bonds " + ", ".join(lag_format.format(n=n) for n in first)
                    why = "each host needs a bond of its own"
                else:
                    what = f"segment ids {_numbers(first)}"
                    why = "a leaf tells its hosts' bonds apart by them (MLAG id / Ethernet segment)"
                yield Hit(
                    f"{what} of {item.label} on {_names([x for x in leaves if x in on])} are "
                    f"also used by {earlier.label}: {why}; choose a {key} whose "
                    f"{len(numbers)} numbers are free on those leaves",
                    (*item.attachment.path, key),
                )


def _pair_mode_hits(ctx: SiteContext, found: list[Attached]) -> Iterator[Hit]:
    """One mode per leaf; an MLAG leaf has one peer, one peer link and one system MAC."""
    first_on: dict[str, Attached] = {}
    mlag_on: dict[str, Attached] = {}
    for item in found:
        a = item.attachment
        leaves = _vtep_leaves(ctx, item)
        other = next(
            (
                first_on[leaf]
                for leaf in leaves
                if leaf in first_on and first_on[leaf].attachment.mode != a.mode
            ),
            None,
        )
        if other is not None:
            shared = [leaf for leaf in leaves if leaf in other.attachment.leaves]
            yield Hit(
                f"{item.label} attaches hosts to {_names(shared)} by {MODE_TITLE[a.mode]}, but "
                f"{other.label} already does by {MODE_TITLE[other.attachment.mode]}: a leaf pair "
                "uses ESI or MLAG, never both (loops, duplicate BUM traffic or split LACP); use "
                f"mode: {other.attachment.mode}",
                (*a.path, "mode"),
            )
        elif a.mode == "mlag":
            yield from _mlag_peer_hits(item, leaves, mlag_on)
        for leaf in leaves:
            first_on.setdefault(leaf, item)
            if a.mode == "mlag":
                mlag_on.setdefault(leaf, item)


def _mlag_peer_hits(
    item: Attached, leaves: list[str], mlag_on: dict[str, Attached]
) -> Iterator[Hit]:
    a = item.attachment
    for leaf in leaves:
        earlier = mlag_on.get(leaf)
        if earlier is None:
            continue
        if set(earlier.attachment.leaves) != set(a.leaves):
            peer = next(x for x in a.leaves if x != leaf)
            their = next(x for x in earlier.attachment.leaves if x != leaf)
            yield Hit(
                f"{item.label} pairs {leaf} with {peer} by MLAG, but {earlier.label} pairs it "
                f"with {their}: a switch has one MLAG peer; attach these hosts to "
                f"{leaf} and {their}, or use another leaf",
                (*a.path, "leaves"),
            )
            return
        for key, mine, theirs in (
            ("peer_link", sorted(a.peer_link), sorted(earlier.attachment.peer_link)),
            (
                "lacp_system_mac",
                a.lacp_system_mac.lower(),
                earlier.attachment.lacp_system_mac.lower(),
            ),
        ):
            if mine != theirs:
                text = _names(mine) if isinstance(mine, list) else mine
                other = _names(theirs) if isinstance(theirs, list) else theirs
                yield Hit(
                    f"{key} {text} of {item.label} differs from {other} of {earlier.label} on "
                    f"the same MLAG pair {_names(earlier.attachment.leaves)}: the pair has one "
                    f"peer link and one system MAC; write {other}",
                    (*a.path, key),
                )
        return


def _esi_hits(found: list[Attached]) -> Iterator[Hit]:
    """ESIs name Ethernet segments fabric-wide. On a shared leaf a clash is also a segment id
    clash, reported as such."""
    seen: dict[str, tuple[Attached, int]] = {}
    for item in found:
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
                f"{their_host + 1} of {earlier.label} on {_names(earlier.attachment.leaves)}: an "
                "ESI names one Ethernet segment fabric-wide, so remote VTEPs would treat the two "
                "as one; give the attachment its own lacp_system_mac or a segment_base range of "
                "its own",
                (*a.path, "lacp_system_mac"),
            )


@rule(
    "EVPN-011",
    "error",
    "MLAG and ESI multihoming only on platforms that render them",
    "meetme refuses to render what a device cannot do (PLAT-003): it renders MLAG (bonds, "
    "peer link, anycast VTEP) and EVPN multihoming (ESI port-channels) only on the platforms "
    "whose templates have them; asking for either elsewhere names the platform.",
    "docs/standards.md#platform-gate and docs/standards.md#evpn-008; generators/platforms.py capabilities mlag and "
    "esi_multihoming",
)
def multihoming_where_renderable(ctx: SiteContext) -> Iterator[Hit]:
    for item in attachments(ctx):
        mode = item.attachment.mode
        capability = MODE_CAPABILITY[mode]
        by_platform: dict[str, list[str]] = defaultdict(list)
        for leaf in _vtep_leaves(ctx, item):
            by_platform[_platform(ctx, leaf)].append(leaf)
        for platform, leaves in sorted(by_platform.items()):
            info = PLATFORMS[platform]
            if capability in info.capabilities:
                continue
            capable = _names(
                sorted(p.title for p in PLATFORMS.values() if capability in p.capabilities)
            )
            other = "esi" if mode == "mlag" else "mlag"
            instead = (
                f", or use mode: {other}, which {info.title} renders"
                if MODE_CAPABILITY[other] in info.capabilities
                else ""
            )
            yield Hit(
                f"{item.label} asks for {MODE_TITLE[mode]} on {_names(leaves)}, {info.title}, "
                f"for which meetme renders no {MODE_TITLE[mode]}; attach the hosts to leaves "
                f"of a platform that has it ({capable}){instead}",
                (*item.attachment.path, "mode"),
            )


@rule(
    "EVPN-012",
    "error",
    "An MLAG pair's anycast VTEP is its own: one per pair, no device's address",
    "The two leaves of an MLAG pair share one VTEP address on purpose (the ADDR-001 exception): "
    "remote VTEPs send the pair's traffic there. It must therefore be no device's loopback or "
    "VTEP address (VXLAN meant for that device would land on the pair), not another pair's, "
    "one address for the whole pair, a host address, and inside the loopback or VTEP pool, "
    "since the underlay route-maps accept fabric loopbacks only.",
    f"docs/standards.md#evpn-008, docs/standards.md#addr-001; VXLAN active-active mode (anycast VTEP) https://docs."
    "nvidia.com/networking-ethernet-software/cumulus-linux/Network-Virtualization/VXLAN-Active-"
    "Active-Mode",
)
def anycast_vteps_unique(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    owned: dict[ipaddress.IPv4Address | ipaddress.IPv6Address, str] = {}
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
                owned.setdefault(ipaddress.ip_interface(value).ip, f"the {key} of {name}")
    pools = [
        (key, ipaddress.ip_network(pool))
        for key, pool in (("loopback_v4", site.pools.loopback_v4), ("vtep_v4", site.pools.vtep_v4))
        if pool is not None
    ]
    by_pair: dict[frozenset[str], tuple[Attached, ipaddress.IPv4Interface]] = {}
    by_address: dict[ipaddress.IPv4Address, Attached] = {}
    for item in attachments(ctx):
        a = item.attachment
        if a.mode != "mlag" or a.anycast_vtep is None:
            continue  # EVPN-008 reports a missing or misplaced one
        vtep = ipaddress.IPv4Interface(a.anycast_vtep)
        path = (*a.path, "anycast_vtep")
        text = f"anycast_vtep {vtep.ip} of {item.label}"
        if vtep.network.prefixlen != 32:
            yield Hit(f"{text} is not a host address; write it as {vtep.ip}/32", path)
        if vtep.ip in owned:
            yield Hit(
                f"{text} is {owned[vtep.ip]}: VXLAN meant for that device would land on the "
                "pair; take an address no device uses from pools.vtep_v4",
                path,
            )
        elif pools and not any(vtep.ip in pool for _, pool in pools):
            listed = " and ".join(f"{key} {pool}" for key, pool in pools)
            yield Hit(
                f"{text} is outside pools {listed}: the underlay route-maps accept fabric "
                "loopbacks only, so no VTEP would learn a route to it; take a free address "
                "from pools.vtep_v4",
                path,
            )
        pair = frozenset(a.leaves)
        mate, address = by_pair.setdefault(pair, (item, vtep))
        if address.ip != vtep.ip:
            yield Hit(
                f"{text} differs from {address.ip} of {mate.label} on the same MLAG pair "
                f"{_names(mate.attachment.leaves)}: the pair is one VTEP with one address; "
                f"write {address.ip}",
                path,
            )
        other = by_address.setdefault(vtep.ip, item)
        if frozenset(other.attachment.leaves) != pair:
            yield Hit(
                f"{text} is also the anycast VTEP of {other.label} on "
                f"{_names(other.attachment.leaves)}: two pairs with one VTEP address would "
                "receive each other's VXLAN traffic; give each pair its own",
                path,
            )


# --- EVPN-013: border-leaf handoff -------------------------------------------------------------


@rule(
    "EVPN-013",
    "error",
    "The border-leaf handoff runs on border leaves and exports what its VRFs route",
    "Each handed-off VRF gets an 802.1Q sub-interface and an eBGP session on every link between "
    "a handoff border leaf and a border router, so the named devices must be border leaves "
    "cabled to the borders. A border leaf learns the VRF's subnets from the leaves over its "
    "L3VNI (symmetric IRB), and NX-OS maps that L3VNI through a carrier VLAN. Two VRFs with "
    "one VLAN would need one sub-interface; a handoff VLAN equal to a VLAN the border leaf "
    "bridges makes one id two things on the switch (as EVPN-003, whatever a platform "
    "tolerates). export_north must match at least one of the VRF's own gateway subnets the "
    f"way the handoff prefix-list does (a shorter prefix takes subnets of it up to /"
    f"{NORTH_MAX_LENGTH}, a longer one itself only), or it exports nothing; a subnet inside it "
    "that the prefix-list skips does not go north; exports of two VRFs must not overlap, or "
    "the borders learn the same addresses from two tenants; the handoff is IPv4 only. An "
    "export is not required to avoid other VRFs' gateway subnets: overlapping tenant address "
    "space in separate VRFs is legitimate as long as only one VRF exports it.",
    f"docs/standards.md#evpn-003, docs/standards.md#evpn-005; docs/standards.md#edge-export (outbound is an allow-list); "
    "docs/syntax.md#nxos-evpn (NX-OS L3VNI carrier VLAN); generators/handoff.py",
)
def handoff_sound(ctx: SiteContext) -> Iterator[Hit]:
    site = ctx.site
    handoff = site.handoff
    if handoff is None:
        return
    fabric = ctx.fabric
    border_leaves = []
    for index, name in enumerate(handoff.border_leaves):
        device = site.devices.get(name)
        if device is None:
            continue  # an unknown name: the reference check reports it
        path = (*handoff.path, "border_leaves", index)
        if device.role != "border_leaf":
            yield Hit(
                f"handoff border leaf {name} is a {device.role}: the handoff runs on border "
                "leaves, over their links to the border routers; name a border_leaf",
                path,
            )
        elif not any(site.devices[r.device].role == "border" for _, r, _ in fabric.links_of(name)):
            yield Hit(
                f"handoff border leaf {name} has no link to a border router: each handed-off "
                "VRF rides a sub-interface of a border-leaf-to-border link, so nothing would be "
                "handed off there; cable it to the borders (link_rules or links) or remove it",
                path,
            )
        elif name not in border_leaves:
            border_leaves.append(name)
    networks = placed_networks(ctx)
    vrfs: dict[str, PlacedVrf] = {}
    for placed in placed_vrfs(ctx, networks):
        vrfs.setdefault(placed.name, placed)  # a name in two tenants: EVPN-002
    handed = sorted(
        (ctx.loaded.where(v.path), name, v) for name, v in handoff.vrfs.items() if name in vrfs
    )  # unknown VRF names: the reference check
    nxos = [d for d in border_leaves if _platform(ctx, d) in CARRIER_VLAN_PLATFORMS]
    uses = _border_vlan_uses(ctx, [vrfs[name] for _, name, _ in handed], nxos)
    first_vlan: dict[int, str] = {}
    exports: list[tuple[str, ipaddress.IPv4Network]] = []
    for _, name, wanted in handed:
        vrf = vrfs[name]
        if vrf.vrf.l3vni is None:
            yield Hit(
                f"handoff VRF {name} ({vrf.label}) has no l3vni: the border leaves learn its "
                "subnets from the leaves over the L3VNI (symmetric IRB), so they would hand "
                "nothing to the borders; give the VRF an l3vni",
                wanted.path,
            )
        elif nxos and vrf.vrf.vlan is None:
            yield Hit(
                f"handoff VRF {name} ({vrf.label}) is carried by {_names(nxos)} on Cisco "
                f"NX-OS, which maps the L3VNI {vrf.vrf.l3vni} through a carrier VLAN: give the "
                "VRF a vlan (an id no network on those border leaves uses)",
                wanted.path,
            )
        vlan_path = (*wanted.path, "vlan")
        earlier = first_vlan.setdefault(wanted.vlan, name)
        if earlier != name:
            yield Hit(
                f"vlan {wanted.vlan} of handoff VRF {name} is also the vlan of handoff VRF "
                f"{earlier}: both would be sub-interface <link>.{wanted.vlan} on every handoff "
                "link; give each VRF its own vlan",
                vlan_path,
            )
        for use in uses:
            shared = [d for d in use.devices if d in border_leaves]
            if use.vlan == wanted.vlan and shared:
                yield Hit(
                    f"vlan {wanted.vlan} of handoff VRF {name} is also the VLAN of {use.label} "
                    f"on {_names(shared)}: one VLAN id is one thing per switch; choose another "
                    "handoff vlan",
                    vlan_path,
                )
        for index, prefix in enumerate(wanted.export_north):
            path = (*wanted.path, "export_north", index)
            network = ipaddress.ip_network(prefix)
            if not isinstance(network, ipaddress.IPv4Network):
                yield Hit(
                    f"export_north {prefix} of handoff VRF {name} is IPv6: the handoff is IPv4 "
                    "only (sub-interfaces on the links' /31s, IPv4 sessions), so it would never "
                    "be advertised; remove it",
                    path,
                )
                continue
            yield from _export_hits(name, vrf, wanted.export_north, network, prefix, path)
            for other, theirs in exports:
                if other != name and theirs.overlaps(network):
                    yield Hit(
                        f"export_north {prefix} of handoff VRF {name} overlaps {theirs} of "
                        f"handoff VRF {other}: the borders would learn the same addresses from "
                        "two tenants' VRFs and route one's traffic to the other once they meet "
                        "north of the border; export disjoint prefixes",
                        path,
                    )
            exports.append((name, network))


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


def _exports(prefix: ipaddress.IPv4Network, subnet: ipaddress.IPv4Network) -> bool:
    """Whether the handoff's northbound prefix-list entry for `prefix` permits `subnet`
    (generators/handoff.py: `le NORTH_MAX_LENGTH` below that length, else exact)."""
    if prefix.prefixlen < NORTH_MAX_LENGTH:
        return subnet.subnet_of(prefix) and subnet.prefixlen <= NORTH_MAX_LENGTH
    return subnet == prefix


def _export_hits(
    name: str,
    vrf: PlacedVrf,
    export_north: list[str],
    prefix: ipaddress.IPv4Network,
    text: str,
    path: Path_,
) -> Iterator[Hit]:
    subnets: list[tuple[ipaddress.IPv4Network, Placed]] = []
    for placed in vrf.gateways:
        gateway = placed.network.gateway_v4
        if placed.devices and gateway is not None:
            subnets.append((ipaddress.IPv4Interface(gateway).network, placed))
    networks = [ipaddress.ip_network(entry) for entry in export_north]
    entries = [n for n in networks if isinstance(n, ipaddress.IPv4Network)]
    skipped = [
        (subnet, placed)
        for subnet, placed in subnets
        if subnet.subnet_of(prefix) and not any(_exports(entry, subnet) for entry in entries)
    ]
    if not skipped and not any(_exports(prefix, subnet) for subnet, _ in subnets):
        own = _names([str(s) for s, _ in subnets]) if subnets else "it has none"
        yield Hit(
            f"export_north {text} of handoff VRF {name} matches none of the VRF's gateway "
            f"subnets ({own}): the border leaves would advertise nothing for it; write a "
            "prefix covering the subnets to export",
            path,
        )
    for subnet, placed in skipped:
        only = (
            f"subnets of it up to /{NORTH_MAX_LENGTH}"
            if prefix.prefixlen < NORTH_MAX_LENGTH
            else f"{text} itself"
        )
        yield Hit(
            f"gateway subnet {subnet} of {placed.label} lies in export_north {text} of "
            f"handoff VRF {name}, but the handoff exports {only}, so it would not go "
            f"north; add {subnet} to export_north",
            path,
        )


RD_ASSIGNED_MAX = 65535  # a type-1 RD is IP:n with a 2-byte assigned number (RFC 4364 4.2)


@rule(
    "EVPN-014",
    "error",
    "VNIs fit the route distinguisher router-id:VNI",
    "meetme writes each VTEP's RDs as router-id:VNI, a type-1 route distinguisher whose assigned "
    f"number is 2 bytes, so a VNI above {RD_ASSIGNED_MAX} gives an RD every platform rejects.",
    f"docs/standards.md#evpn-004; https://www.rfc-editor.org/rfc/rfc4364 section 4.2",
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
