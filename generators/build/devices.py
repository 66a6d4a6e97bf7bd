"""Intent + resolved fabric -> one vendor-neutral DeviceModel per device."""

from __future__ import annotations

import ipaddress

from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Device, Intent, Site

from meetme.core.problems import IntentError, Location, Problem
from meetme.core.secret_refs import placeholder, reference_name

from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.generators.build.multihoming import lags_of, mlag_of
from meetme.generators.build.edge_device import edge_device
from meetme.generators.build.overlay import connected_route_maps, evpn_device
from meetme.generators.resolve.fabric import SiteFabric, natural_key
from meetme.generators.build.handoff import handoff_of
from meetme.generators.model import (
    Address,
    BfdTimers,
    Bgp,
    BgpNeighbor,
    DeviceModel,
    Interface,
    LocalUser,
    Management,
    PeerPort,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS, PlatformInfo

UNDERLAY_WARNING_PCT = 80  # docs/standards.md#edge-002: warning threshold inside 75-90 %

BFD_PROFILE = "BFD-UNDERLAY"
PL_LOOPBACKS_V4 = "PL-LOOPBACKS-V4"
PL_LOOPBACKS_V6 = "PL-LOOPBACKS-V6"
RM_UNDERLAY_V4_IN = "RM-UNDERLAY-V4-IN"
RM_UNDERLAY_V4_OUT = "RM-UNDERLAY-V4-OUT"
RM_UNDERLAY_V6_IN = "RM-UNDERLAY-V6-IN"
RM_UNDERLAY_V6_OUT = "RM-UNDERLAY-V6-OUT"


def address(cidr: str) -> Address:
    return Address.of(cidr)


def build_models(loaded: LoadedIntent, fabrics: dict[str, SiteFabric]) -> dict[str, DeviceModel]:
    """Every device of every site, keyed by device name."""
    problems: list[Problem] = []
    models: dict[str, DeviceModel] = {}
    intent = loaded.intent
    for site_name, site in sorted(intent.sites.items()):
        for name, device in sorted(site.devices.items()):
            try:
                models[name] = build_device(
                    intent,
                    site_name,
                    site,
                    name,
                    device,
                    fabrics[site_name],
                    str(loaded.where(device.path)),
                )
            except PoolExhausted as exc:
                problems.append(
                    Problem(loaded.where((*device.path, "id")), f"{name}: {exc}", "pool-exhausted")
                )
    if problems:
        raise IntentError(problems)
    return models


def build_device(
    intent: Intent,
    site_name: str,
    site: Site,
    name: str,
    device: Device,
    fabric: SiteFabric,
    source: str,
) -> DeviceModel:
    platform = PLATFORMS[device.platform]
    loopbacks = _loopbacks(site, device, platform.loopback_names)
    interfaces, neighbors = _fabric_interfaces(intent, site, name, device, fabric)
    edge = edge_device(intent, site, name, device, fabric)
    handoff = handoff_of(intent, site, name, device, fabric)
    interfaces = sorted(
        interfaces + edge.interfaces + handoff.interfaces, key=lambda i: natural_key(i.name)
    )
    router_id = allocate.loopback_v4(site, device).split("/")[0]
    management = Management(
        interface=Interface(
            name=platform.management_interface,
            kind="management",
            description="out-of-band management",
            ipv4=address(device.management),
            vrf=platform.fixed_management_vrf or site.management.vrf,
        ),
        gateway=site.management.gateway,
        vrf=platform.fixed_management_vrf or site.management.vrf,
        users=_local_users(site, name, platform, source),
        api=site.management.api,
        ntp_servers=site.management.ntp_servers,
        syslog_servers=site.management.syslog_servers,
    )
    has_v6 = underlay_v6(site)
    mlag = mlag_of(site, name)
    bgp = Bgp(
        asn=allocate.device_asn(intent, site, device),
        router_id=router_id,
        maximum_paths=site.underlay.ecmp,
        bfd=BfdTimers(
            profile=BFD_PROFILE,
            interval=site.underlay.bfd.interval,
            min_rx=site.underlay.bfd.interval,
            multiplier=site.underlay.bfd.multiplier,
        ),
        networks_v4=sorted(
            [
                *(lo.ipv4.cidr for lo in loopbacks if lo.ipv4),
                *edge.networks("ipv4"),
                *([f"{mlag.anycast_vtep}/32"] if mlag and mlag.anycast_vtep else []),
            ],
            key=_ip_key,
        ),
        networks_v6=sorted(
            [*(lo.ipv6.cidr for lo in loopbacks if lo.ipv6), *edge.networks("ipv6")], key=_ip_key
        ),
        neighbors=neighbors + handoff.neighbors + edge.neighbors,
        rpki_caches=edge.rpki_caches,
    )
    evpn = evpn_device(intent, site, name, device)
    return DeviceModel(
        hostname=name,
        site=site_name,
        role=device.role,
        platform=device.platform,
        hardware_model=device.model,
        source=source,
        management=management,
        loopbacks=loopbacks,
        interfaces=interfaces,
        prefix_lists=_prefix_lists(site, has_v6)
        + handoff.prefix_lists
        + list(edge.policies.prefix_lists.values()),
        as_path_lists=list(edge.policies.as_path_lists.values()),
        community_lists=list(edge.policies.community_lists.values()),
        route_maps=_route_maps(has_v6)
        + handoff.route_maps
        + list(edge.policies.route_maps.values())
        + connected_route_maps(evpn),
        static_routes=edge.static_routes,
        bgp=bgp,
        evpn=evpn,
        lags=lags_of(site, name),
        mlag=mlag,
        vrfs=handoff.vrfs,
    )


def _local_users(site: Site, name: str, platform: PlatformInfo, source: str) -> list[LocalUser]:
    """The site's users as this OS writes them; only placeholders of the hash secrets."""
    users = []
    for user_name, user in sorted(site.management.users.items()):
        reference = user.password_hash
        if platform.local_users.password_hash == "sha256_crypt":
            if user.password_hash_sha256 is None:
                raise IntentError([_missing_sha256(name, user_name, platform, source)])
            reference = user.password_hash_sha256
        role = platform.local_users.role(user.role)
        users.append(
            LocalUser(
                name=user_name,
                roles=list(role.names),
                privilege=role.privilege,
                password_hash=placeholder(reference_name(reference)),
            )
        )
    return users


def _missing_sha256(name: str, user: str, platform: PlatformInfo, source: str) -> Problem:
    # Reported at the device (its platform is what needs the hash); the user is named.
    file, line, column = source.rsplit(":", 2)
    return Problem(
        Location(file, int(line), int(column)),
        f"{name} runs {platform.title}, which takes only a SHA-256-crypt ($5$) password hash: "
        f"give user {user} a password_hash_sha256: secret:NAME under the site's management.users",
        "missing-password-hash",
    )


def underlay_v6(site: Site) -> bool:
    """IPv6 underlay sessions run when both IPv6 pools exist (loopbacks to carry, links)."""
    return site.pools.loopback_v6 is not None and site.pools.p2p_v6 is not None


def _ip_key(cidr: str) -> tuple[int, int]:
    iface = ipaddress.ip_interface(cidr)
    return iface.version, int(iface.ip)


def _loopbacks(site: Site, device: Device, names: tuple[str, str]) -> list[Interface]:
    v6 = allocate.loopback_v6(site, device)
    loopbacks = [
        Interface(
            name=names[0],
            kind="loopback",
            description="router-id",
            ipv4=address(allocate.loopback_v4(site, device)),
            ipv6=address(v6) if v6 else None,
        )
    ]
    vtep = allocate.vtep_v4(site, device)
    if vtep is not None:
        loopbacks.append(
            Interface(
                name=names[1],
                kind="loopback",
                description="VXLAN tunnel source",
                ipv4=address(vtep),
            )
        )
    return loopbacks


def _fabric_interfaces(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> tuple[list[Interface], list[BgpNeighbor]]:
    platform = PLATFORMS[device.platform]
    interfaces: list[Interface] = []
    neighbors: list[BgpNeighbor] = []
    for local, remote, _link in fabric.links_of(name):
        peer = site.devices[remote.device]
        far = f"{remote.device} {remote.interface}"
        interfaces.append(
            Interface(
                name=local.interface,
                kind="routed",
                description=f"p2p to {far}",
                ipv4=address(local.address_v4),
                ipv6=address(local.address_v6) if local.address_v6 else None,
                ip_mtu=local.ip_mtu,
                mtu=local.ip_mtu + platform.mtu_overhead,
                speed_gbps=local.speed_gbps,
                peer=PeerPort(device=remote.device, interface=remote.interface),
            )
        )
        remote_as = allocate.device_asn(intent, site, peer)
        sessions = [("ipv4", remote.address_v4, RM_UNDERLAY_V4_IN, RM_UNDERLAY_V4_OUT)]
        if remote.address_v6 is not None and underlay_v6(site):
            sessions.append(("ipv6", remote.address_v6, RM_UNDERLAY_V6_IN, RM_UNDERLAY_V6_OUT))
        for afi, peer_address, rm_in, rm_out in sessions:
            neighbors.append(
                BgpNeighbor(
                    address=peer_address.split("/")[0],
                    afi=afi,
                    remote_as=remote_as,
                    description=f"underlay {far}",
                    local_interface=local.interface,
                    peer_device=remote.device,
                    bfd=True,
                    route_map_in=rm_in,
                    route_map_out=rm_out,
                    max_prefix=site.underlay.max_prefix,
                    max_prefix_warning_pct=UNDERLAY_WARNING_PCT,
                )
            )
    interfaces.sort(key=lambda i: natural_key(i.name))
    neighbors.sort(key=lambda n: (n.afi, natural_key(n.local_interface)))
    return interfaces, neighbors


def _prefix_lists(site: Site, has_v6: bool) -> list[PrefixList]:
    """The underlay carries loopbacks only: router ids and VTEP sources."""
    v4 = [PrefixListEntry(seq=10, action="permit", prefix=site.pools.loopback_v4, le=32)]
    if site.pools.vtep_v4 is not None:
        v4.append(PrefixListEntry(seq=20, action="permit", prefix=site.pools.vtep_v4, le=32))
    lists = [PrefixList(name=PL_LOOPBACKS_V4, afi="ipv4", entries=v4)]
    if has_v6 and site.pools.loopback_v6 is not None:  # has_v6 implies it; mypy needs it
        lists.append(
            PrefixList(
                name=PL_LOOPBACKS_V6,
                afi="ipv6",
                entries=[
                    PrefixListEntry(seq=10, action="permit", prefix=site.pools.loopback_v6, le=128)
                ],
            )
        )
    return lists


def _route_maps(has_v6: bool) -> list[RouteMap]:
    maps = []
    families = [("ipv4", PL_LOOPBACKS_V4, RM_UNDERLAY_V4_IN, RM_UNDERLAY_V4_OUT)]
    if has_v6:
        families.append(("ipv6", PL_LOOPBACKS_V6, RM_UNDERLAY_V6_IN, RM_UNDERLAY_V6_OUT))
    for afi, prefix_list, rm_in, rm_out in families:
        for rm_name, what in ((rm_in, "accept"), (rm_out, "advertise")):
            maps.append(
                RouteMap(
                    name=rm_name,
                    afi=afi,
                    entries=[
                        RouteMapEntry(
                            seq=10,
                            action="permit",
                            match_prefix_list=prefix_list,
                            description=f"{what} fabric loopbacks only",
                        ),
                    ],
                )
            )
    return maps
