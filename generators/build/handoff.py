"""VRF-lite handoff between the border leaves and the border routers, and the tenant VRFs' way
to the Internet through the borders (docs/architecture.md#north-south).

On every link between a handing-off border leaf and a border router, each handed-off VRF gets an
802.1Q sub-interface on both ends, reusing the link's own /31 and /127 (the VRFs are separate
routing contexts), and an eBGP session in the VRF per family the link carries and the VRF has
something to carry in: prefixes to send north, or a default route to send south (`internet:
default` in a family the VRF routes; `carried_families`). A VRF carrying nothing in either family
gets nothing (HANDOFF-012 warns). The border leaf advertises the VRF's northbound prefixes
(their subnets, never host routes) and, when the VRF has Internet access, accepts only a default
route; the border router accepts only those prefixes.

Internet access (`internet: default`) is route leaking on the border: the tenant VRF imports
the default route from the Internet table (the default VRF), where it exists only while a
transit sends one — to this border or, over the border pair's iBGP, to the other — so a border
that has lost its way out stops offering one. The VRF's public prefixes are exported to the
Internet table, behind our aggregates, so the Internet reaches them.

A VRF that rides SRv6 to other sites (`srv6.vrfs`) reaches them through the borders too: the
VPN brings the other sites' northbound prefixes into the border's VRF, and the border hands
them south (and the border leaf takes them) ahead of the default route, so the sites reach each
other whatever `internet:` says and without the Internet's default (`remote_prefixes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from meetme.generators.build.overlay import families
from meetme.generators.model import (
    Address,
    Afi,
    BgpNeighbor,
    Interface,
    PlainVrf,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
    VrfLeak,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import SiteFabric

from meetme.core.addresses import FAMILY
from meetme.intent.schema import Device, Intent, Site
from meetme.intent.schema_handoff import HandoffVrf

# subnets of an exported prefix go north up to this length; host routes stay inside
NORTH_MAX_LENGTH: dict[str, int] = {"ipv4": 24, "ipv6": 64}
DEFAULT_ROUTE = {"ipv4": "0.0.0.0/0", "ipv6": "::/0"}
SUFFIX = {"ipv4": "V4", "ipv6": "V6"}
AFIS: tuple[Afi, ...] = ("ipv4", "ipv6")
# minutes before a handoff session torn down by its prefix limit is retried: a tenant that
# over-announces recovers by itself once fixed, and a flapping one is held down meanwhile
MAX_PREFIX_RESTART = 5


def vrf_tag(vrf: str) -> str:
    """How a VRF's policy names spell it (PL-HANDOFF-<TAG>-NORTH-V4): two VRFs of one tag
    would share policies (EVPN-025)."""
    return vrf.upper()


def default_list(afi: str) -> str:
    return f"PL-HANDOFF-DEFAULT-{SUFFIX[afi]}"


@dataclass
class HandoffParts:
    interfaces: list[Interface] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    prefix_lists: list[PrefixList] = field(default_factory=list)
    route_maps: list[RouteMap] = field(default_factory=list)
    vrfs: list[PlainVrf] = field(default_factory=list)  # on the border routers


def handed_off(site: Site, name: str) -> bool:
    return site.handoff is not None and name in site.handoff.border_leaves


def north_prefixes(vrf: HandoffVrf, afi: str) -> list[str]:
    """What the VRF sends north in one family: its exports, then its public prefixes."""
    wanted = [*vrf.export_north, *(p for p in vrf.public if p not in vrf.export_north)]
    return [p for p in wanted if (":" in p) == (afi == "ipv6")]


def remote_prefixes(intent: Intent, site_name: str, vrf_name: str, afi: str) -> list[str]:
    """What the VRF's other sites send north in one family, by site name (`sites:` is a set:
    writing it in another order changes no config): the routes the SRv6 VPN brings into this
    site's borders for it (none unless the VRF rides SRv6 to this site)."""
    srv6 = intent.srv6
    entry = srv6.vrfs.get(vrf_name) if srv6 is not None else None
    if entry is None or site_name not in entry.sites:
        return []
    found: list[str] = []
    for other in sorted(set(entry.sites)):
        handoff = intent.sites[other].handoff if other in intent.sites else None
        if other == site_name or handoff is None or vrf_name not in handoff.vrfs:
            continue  # SRV6-008 reports a site that does not hand the VRF off
        found += [p for p in north_prefixes(handoff.vrfs[vrf_name], afi) if p not in found]
    return found


def tenant_entries(prefixes: list[str], afi: str) -> list[PrefixListEntry]:
    """A handoff prefix list's entries for tenant prefixes (north, or the other sites' handed
    south): each prefix and the longer ones inside it, up to NORTH_MAX_LENGTH."""
    longest = NORTH_MAX_LENGTH[afi]
    return [
        PrefixListEntry(
            seq=10 * (i + 1),
            action="permit",
            prefix=p,
            le=longest if int(p.split("/")[1]) < longest else None,
        )
        for i, p in enumerate(prefixes)
    ]


def vrf_routes(site: Site, vrf_name: str, afi: str) -> bool:
    """Whether any network of the VRF has a gateway in this family."""
    return any(
        (network.gateway_v6 if afi == "ipv6" else network.gateway_v4) is not None
        for tenant in site.tenants.values()
        for network in tenant.networks.values()
        if network.vrf == vrf_name
    )


def carried_families(site: Site, vrf_name: str, vrf: HandoffVrf) -> tuple[Afi, ...]:
    """The families the VRF's handoff carries something in: prefixes to send north in it, or
    a default route to send south (`internet: default` in a family the VRF routes). Only these
    get handoff sessions, policies and leaks; a VRF with none hands off nothing (HANDOFF-012)."""
    internet = vrf.internet == "default"
    return tuple(
        afi
        for afi in AFIS
        if north_prefixes(vrf, afi) or (internet and vrf_routes(site, vrf_name, afi))
    )


def handoff_families(
    intent: Intent, site_name: str, site: Site, vrf_name: str, vrf: HandoffVrf
) -> tuple[Afi, ...]:
    """The families the VRF's handoff links and sessions run in: those it carries something
    in, and a family with only the VRF's other sites' prefixes to hand south."""
    own = carried_families(site, vrf_name, vrf)
    return tuple(
        afi for afi in AFIS if afi in own or remote_prefixes(intent, site_name, vrf_name, afi)
    )


def _one(
    name: str, afi: Afi, action: Literal["permit", "deny"], description: str, match: str | None
) -> RouteMap:
    return RouteMap(
        name=name,
        afi=afi,
        entries=[
            RouteMapEntry(
                seq=10,
                action=action,
                match_prefix_list=match,
                description=description,
            )
        ],
    )


def _south(
    name: str, afi: Afi, on_border: bool, default: str | None, remote: str | None
) -> RouteMap:
    """The policy of what goes south, out of the border or into the border leaf: the VRF's
    other sites' prefixes (SRv6), then the default route or nothing."""
    way_out = (
        _one(
            name,
            afi,
            "permit",
            "the default route toward the tenant"
            if on_border
            else "the default route from the border",
            default,
        )
        if default
        else _one(
            name, afi, "deny", "nothing: the VRF has no Internet access (internet: none)", None
        )
    )
    if remote is None:
        return way_out
    sites = RouteMapEntry(
        seq=10,
        action="permit",
        match_prefix_list=remote,
        description="the VRF's prefixes at its other sites, over SRv6",
    )
    last = way_out.entries[0].model_copy(update={"seq": 20})
    return RouteMap(name=name, afi=afi, entries=[sites, last])


def handoff_of(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> HandoffParts:
    parts = HandoffParts()
    handoff = site.handoff
    if handoff is None or device.role not in ("border", "border_leaf"):
        return parts
    platform = PLATFORMS[device.platform]
    on_border = device.role == "border"
    links = []
    for local, remote, _link in fabric.links_of(name):
        peer = site.devices[remote.device]
        leaf = remote.device if on_border else name
        if {device.role, peer.role} == {"border", "border_leaf"} and handed_off(site, leaf):
            links.append((local, remote, peer))
    if not links:
        return parts
    router_id = fabric.router_ids[name]
    per_vrf = platform.vrf_leak_policies == "per_vrf"
    lists: dict[str, PrefixList] = {}

    def prefix_list(list_name: str, afi: Afi, prefixes: list[str], exact: bool = False) -> str:
        entries = (
            [
                PrefixListEntry(seq=10 * (i + 1), action="permit", prefix=p)
                for i, p in enumerate(prefixes)
            ]
            if exact
            else tenant_entries(prefixes, afi)
        )
        lists.setdefault(list_name, PrefixList(name=list_name, afi=afi, entries=entries))
        return list_name

    for vrf_name, vrf in sorted(handoff.vrfs.items()):
        tag = vrf_tag(vrf_name)
        internet = vrf.internet == "default"
        sessions: list[BgpNeighbor] = []
        leaks: list[VrfLeak] = []
        # (family, default-route list, public-prefix list) of each family the VRF leaks in
        leak_lists: list[tuple[Afi, str, str | None]] = []
        elsewhere = {afi: remote_prefixes(intent, fabric.name, vrf_name, afi) for afi in AFIS}
        carried = handoff_families(intent, fabric.name, site, vrf_name, vrf)
        if not carried:
            continue  # nothing north, no way out: HANDOFF-012, no idle sessions
        for afi in carried:
            north = north_prefixes(vrf, afi)
            sfx = SUFFIX[afi]
            north_list = prefix_list(f"PL-HANDOFF-{tag}-NORTH-{sfx}", afi, north) if north else None
            default = (
                prefix_list(default_list(afi), afi, [DEFAULT_ROUTE[afi]], exact=True)
                if internet
                else None
            )
            rm_in, rm_out = f"RM-HANDOFF-{tag}-IN-{sfx}", f"RM-HANDOFF-{tag}-OUT-{sfx}"
            tenant = (
                _one(
                    rm_in if on_border else rm_out,
                    afi,
                    "permit",
                    "the tenant's northbound prefixes",
                    north_list,
                )
                if north
                # carried for the default or the other sites' prefixes alone
                else _one(
                    rm_in if on_border else rm_out,
                    afi,
                    "deny",
                    "nothing: the VRF sends nothing north in this family",
                    None,
                )
            )
            sites = (
                prefix_list(f"PL-HANDOFF-{tag}-SITES-{sfx}", afi, elsewhere[afi])
                if elsewhere[afi]
                else None
            )
            way_out = _south(rm_out if on_border else rm_in, afi, on_border, default, sites)
            parts.route_maps += sorted([tenant, way_out], key=lambda rm: rm.name)
            accepted = [lists[n] for n in ((north_list,) if on_border else (default, sites)) if n]
            for local, remote, peer in links:
                remote_address = remote.address_v6 if afi == "ipv6" else remote.address_v4
                local_address = local.address_v6 if afi == "ipv6" else local.address_v4
                if remote_address is None or local_address is None:
                    continue
                sessions.append(
                    BgpNeighbor(
                        address=remote_address.split("/")[0],
                        afi=afi,
                        remote_as=allocate.device_asn(intent, site, peer),
                        description=f"handoff {vrf_name} {remote.device} {remote.interface}",
                        local_interface=f"{local.interface}.{vrf.vlan}",
                        peer_device=remote.device,
                        bfd=True,
                        route_map_in=rm_in,
                        route_map_out=rm_out,
                        # at least what the import policy admits, so routes it accepts never
                        # reset the session; at most what the platform takes (an IPv6
                        # /48 le 64 admits 131,071, a /32 billions)
                        max_prefix=max(
                            vrf.max_prefix_v6
                            if afi == "ipv6" and vrf.max_prefix_v6 is not None
                            else vrf.max_prefix,
                            min(sum(map(admitted, accepted)), platform.max_prefix_limit),
                        ),
                        max_prefix_warning_pct=fabric.warning_pct,
                        max_prefix_restart=MAX_PREFIX_RESTART,
                        kind="handoff",
                        vrf=vrf_name,
                    )
                )
            if on_border and default is not None:
                public = [p for p in vrf.public if (":" in p) == (afi == "ipv6")]
                public_list = (
                    prefix_list(f"PL-HANDOFF-{tag}-PUBLIC-{sfx}", afi, public) if public else None
                )
                leak_lists.append((afi, default, public_list))
                if not per_vrf:
                    parts.route_maps += _leak_maps(tag, [leak_lists[-1]], sfx)
        if leak_lists:
            leaks = _leaks(tag, leak_lists, per_vrf)
            if per_vrf:
                parts.route_maps += _leak_maps(tag, leak_lists, "")
        for local, remote, _peer in links:
            sub, far = f"{local.interface}.{vrf.vlan}", f"{remote.device} {remote.interface}"
            v6 = any(n.afi == "ipv6" and n.local_interface == sub for n in sessions)
            parts.interfaces.append(
                Interface(
                    name=sub,
                    kind="subinterface",
                    parent=local.interface,
                    vlan=vrf.vlan,
                    description=f"handoff {vrf_name} to {far}.{vrf.vlan}",
                    vrf=vrf_name,
                    ipv4=Address.of(local.address_v4),
                    ipv6=Address.of(local.address_v6) if v6 and local.address_v6 else None,
                    ip_mtu=local.ip_mtu,
                    mtu=platform.mtu(local.ip_mtu, subinterface=True),
                )
            )
        parts.neighbors += sessions
        if on_border:
            parts.vrfs.append(
                PlainVrf(
                    name=vrf_name,
                    rd=f"{router_id}:{vrf.vlan}",
                    # the families its sessions carry (IPv6 rides the links' /127s); the
                    # IPv4 link addresses of its sub-interfaces need no IPv4 BGP family
                    address_families=families(n.afi for n in sessions),
                    # the VRF's prefixes arrive from every border leaf of the handoff, each
                    # with its own ASN: ECMP across them needs the AS-path relax
                    maximum_paths=site.underlay.ecmp,
                    multipath_relax=True,
                    leaks=leaks,
                )
            )
    parts.prefix_lists = [lists[key] for key in sorted(lists)]
    return parts


def _leak_name(tag: str, direction: str, sfx: str) -> str:
    return f"RM-LEAK-{tag}-{direction}-DEFAULT" + (f"-{sfx}" if sfx else "")


def _leaks(tag: str, lists: list[tuple[Afi, str, str | None]], per_vrf: bool) -> list[VrfLeak]:
    """Each family's leak: the default route in, the public prefixes (where it has some) out,
    through its own policies or, per VRF, through the VRF's one policy each way."""
    return [
        VrfLeak(
            afi=afi,
            import_from_default=_leak_name(tag, "FROM", "" if per_vrf else SUFFIX[afi]),
            export_to_default=(
                _leak_name(tag, "TO", "" if per_vrf else SUFFIX[afi]) if public else None
            ),
        )
        for afi, _default, public in lists
    ]


def _leak_maps(tag: str, lists: list[tuple[Afi, str, str | None]], sfx: str) -> list[RouteMap]:
    """The leak policies of the families in `lists`: one family's pair (`sfx` V4/V6), or the
    VRF's one pair serving every family (`sfx` ""), an entry per family naming its family."""
    combined = not sfx

    def policy(name: str, description: str, matches: list[tuple[Afi, str]]) -> RouteMap:
        return RouteMap(
            name=name,
            afi=matches[0][0],
            entries=[
                RouteMapEntry(
                    seq=10 * (i + 1),
                    action="permit",
                    match_prefix_list=match,
                    match_afi=afi if combined else None,
                    description=f"{description}{f' ({FAMILY[afi]})' if combined else ''}",
                )
                for i, (afi, match) in enumerate(matches)
            ],
        )

    maps = []
    public = [(afi, p) for afi, _, p in lists if p is not None]
    if public:
        maps.append(policy(_leak_name(tag, "TO", sfx), "the tenant's public prefixes", public))
    defaults = [(afi, d) for afi, d, _ in lists]
    into = _leak_name(tag, "FROM", sfx)
    maps.append(policy(into, "the default route of the Internet table", defaults))
    return maps


def admitted(prefix_list: PrefixList) -> int:
    """How many distinct prefixes the list's permit entries admit (each prefix and, with `le`,
    every more specific one up to that length): the least prefix limit that never resets a
    session announcing only what its import policy accepts."""
    total = 0
    for entry in prefix_list.entries:
        if entry.action != "permit":
            continue
        length = int(entry.prefix.split("/")[1])
        first = entry.ge if entry.ge is not None else length
        width = 128 if ":" in entry.prefix else 32  # `ge` alone reaches the host length
        last = entry.le if entry.le is not None else (width if entry.ge is not None else length)
        total += sum(2 ** (n - length) for n in range(first, last + 1))
    return total
