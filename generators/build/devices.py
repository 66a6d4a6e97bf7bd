"""Intent + resolved site -> one vendor-neutral DeviceModel per device, assembled from its
features: underlay, overlay, multihoming, handoff, edge and management."""

from __future__ import annotations

import ipaddress
from collections.abc import Collection

from meetme.generators.build.border_pair import border_pair_of
from meetme.generators.build.edge_device import edge_device
from meetme.generators.build.edge_policy import LEARNED_EXTERNAL, learned_external
from meetme.generators.build.handoff import handoff_of
from meetme.generators.build.multihoming import (
    VrfPeeringParts,
    host_ports_of,
    lags_of,
    mlag_of,
    peer_link_session,
    peer_vlan_neighbors,
    vrf_connected_policy,
    vrf_peering_policies,
    vrf_peerings,
)
from meetme.generators.build.overlay import connected_route_maps, evpn_device
from meetme.generators.build.srv6 import dci_ports, fabric_locators, sid_filter, srv6_of
from meetme.generators.build.underlay import device_bfd, underlay_of, underlay_v6
from meetme.generators.model import (
    Address,
    Bgp,
    BgpNeighbor,
    CommunityList,
    DeviceModel,
    Interface,
    LocalUser,
    Management,
    Mlag,
    PeerLinkFamily,
)
from meetme.generators.platforms import PLATFORMS, PlatformInfo
from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import PoolExhausted
from meetme.generators.resolve.fabric import SiteFabric, natural_key
from meetme.generators.resolve.ports import unused_ports

from meetme.core import addresses
from meetme.core.problems import IntentError, Location, Problem
from meetme.core.secret_refs import placeholder, reference_name
from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Device, Intent, Site


def build_models(
    loaded: LoadedIntent, fabrics: dict[str, SiteFabric], only: Collection[str] | None = None
) -> dict[str, DeviceModel]:
    """Every device of every site (or the devices named in `only`), keyed by device name.
    An address a pool cannot hold (the lint's ADDR-015) leaves devices without the loopbacks
    their peers are built from: those make the intent unusable here, as a model of it would
    be wrong (`show`, `diff` and the pipeline's model findings of a refused design)."""
    problems: list[Problem] = [
        Problem(loaded.where(conflict.path), conflict.message, "pool-exhausted")
        for fabric in fabrics.values()
        for conflict in fabric.conflicts
        if conflict.kind == "pool"
    ]
    if problems:
        raise IntentError(problems)
    models: dict[str, DeviceModel] = {}
    intent = loaded.intent
    for site_name, site in sorted(intent.sites.items()):
        for name, device in sorted(site.devices.items()):
            if only is not None and name not in only:
                continue
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
    lags = lags_of(site, name)
    carried = fabric_locators(intent, site_name)  # the fabric's SRv6 locators
    underlay = underlay_of(intent, site, name, device, fabric, tuple(carried.values()))
    loopbacks = underlay.loopbacks
    edge = edge_device(intent, site, name, device, fabric)
    handoff = handoff_of(intent, site, name, device, fabric)
    pair = border_pair_of(intent, site, name, device, fabric)
    interfaces = sorted(
        underlay.interfaces
        + tuple(pair.interfaces)
        + tuple(edge.interfaces)
        + tuple(handoff.interfaces)
        + tuple(dci_ports(intent, name, device, fabric.ports)),
        key=lambda i: natural_key(i.name),
    )
    # an SRv6 domain member's external ports drop packets addressed to the block (SRV6-005)
    interfaces, acls = sid_filter(
        intent, name, device, interfaces, edge.acls, {n.local_interface for n in edge.neighbors}
    )
    management = Management(
        interface=Interface(
            name=platform.management_interface,
            kind="management",
            description="out-of-band management",
            ipv4=Address.of(device.management),
            vrf=platform.fixed_management_vrf or site.management.vrf,
        ),
        gateway=site.management.gateway,
        vrf=platform.fixed_management_vrf or site.management.vrf,
        users=_local_users(site, name, platform, source),
        api=site.management.api,
        # local users get their roles enforced wherever there are any
        role_authorization=bool(site.management.users),
        ntp_servers=site.management.ntp_servers,
        syslog_servers=site.management.syslog_servers,
        clients=site.management.clients or [str(ipaddress.ip_interface(device.management).network)],
    )
    mlag = mlag_of(site, name)
    # the pair's routed adjacency over the peer link carries the underlay's families and policies
    policies: dict[str, PeerLinkFamily] = {}
    for n in underlay.neighbors:
        policies.setdefault(
            n.afi,
            PeerLinkFamily(afi=n.afi, route_map_in=n.route_map_in, route_map_out=n.route_map_out),
        )
    families = tuple(policies[afi] for afi in ("ipv4", "ipv6") if afi in policies)
    mlag_neighbors: tuple[BgpNeighbor, ...] = ()
    peering = VrfPeeringParts()
    if mlag is not None:
        mlag_neighbors = tuple(
            peer_vlan_neighbors(intent, site, name, mlag, families, fabric.warning_pct)
        )
        # a tenant VRF's routes one leaf alone learns reach the other over the peer link (EOS)
        peering = vrf_peerings(intent, site_name, site, name, mlag, fabric)
        mlag = mlag.model_copy(update={"vrf_peerings": peering.peerings})
        mlag_neighbors += peering.neighbors
        loopbacks = _with_anycast_vtep(loopbacks, platform, mlag.anycast_vtep)
    neighbors = (
        underlay.neighbors
        + mlag_neighbors
        + tuple(pair.neighbors)
        + tuple(handoff.neighbors)
        + tuple(edge.neighbors)
    )
    bgp = Bgp(
        asn=allocate.device_asn(intent, site, device),
        router_id=fabric.router_ids[name],
        maximum_paths=site.underlay.ecmp,
        # the fabric's switches; a border's default VRF holds the Internet table, whose paths
        # through different transits are not made equal behind the operator's back
        multipath_relax=device.role != "border",
        bfd=device_bfd(site),
        networks_v4=sorted(
            {
                *(lo.ipv4.cidr for lo in loopbacks if lo.ipv4),
                *edge.networks("ipv4"),
                *([f"{mlag.anycast_vtep}/32"] if mlag and mlag.anycast_vtep else []),
            },
            key=_ip_key,
        ),
        networks_v6=sorted(
            [
                *(lo.ipv6.cidr for lo in loopbacks if lo.ipv6),
                *edge.networks("ipv6"),
                # a fabric member originates its locator into the IPv6 underlay: the route its
                # static uN SID installs (CLDOCS 5.14 "Segment Routing": SIDs "are installed as
                # IPv6 routes into the RIB and FIB"), which no IGP hands out in the fabric
                *([carried[name]] if name in carried and underlay_v6(site) else []),
            ],
            key=_ip_key,
        ),
        neighbors=neighbors,
        rpki_caches=edge.rpki_caches,
        drop_as_path_length=tuple(edge.drop_as_path_length),
    )
    evpn = evpn_device(intent, site, name, device, fabric, neighbors, edge.static_routes)
    shared = mlag.anycast_vtep if mlag is not None and platform.mlag_vtep == "loopback" else None
    if evpn is not None and evpn.vtep and shared is not None:
        # the VTEP loopback holds the pair's address (_with_anycast_vtep): VXLAN leaves from it
        evpn = evpn.model_copy(update={"source_address": shared})
    peering_lists, peering_maps = vrf_connected_policy(mlag) if mlag else ((), ())
    session_lists, session_maps = vrf_peering_policies(
        peering, {pl.name for pl in handoff.prefix_lists}
    )
    if evpn is not None and peering_maps:
        peered = {p.vrf for p in mlag.vrf_peerings} if mlag else set()
        evpn = evpn.model_copy(
            update={
                "vrfs": tuple(
                    v.model_copy(update={"connected_route_map": peering_maps[0].name})
                    if v.name in peered
                    else v
                    for v in evpn.vrfs
                )
            }
        )
    if mlag is not None and mlag.peer_vlan is None:
        # unnumbered over the peer link's own sub-interface (NVUE peerlink.4094)
        mlag = mlag.model_copy(
            update={
                "peer_link_session": peer_link_session(
                    intent, site, mlag, families, evpn is not None, fabric.warning_pct
                )
            }
        )
    host_ports = host_ports_of(site, name)
    breakouts = fabric.ports.breakouts_of(name)
    used = [
        *(i.name for i in interfaces),
        *(member for lag in lags for member in lag.members),
        *(port.name for port in host_ports),
        *(mlag.peer_link_members if mlag is not None else ()),
        *(sub for breakout in breakouts for sub in breakout.sub_ports),
    ]
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
        prefix_lists=(
            *underlay.prefix_lists,
            *handoff.prefix_lists,
            *edge.policies.prefix_lists.values(),
            *peering_lists,
            *session_lists,
        ),
        as_path_lists=tuple(edge.policies.as_path_lists.values()),
        community_lists=_community_lists(intent, edge.policies.community_lists, mlag),
        route_maps=(
            *underlay.route_maps,
            *pair.route_maps,
            *handoff.route_maps,
            *edge.policies.route_maps.values(),
            *session_maps,
            *peering_maps,
            *connected_route_maps(evpn),
        ),
        static_routes=edge.static_routes,
        bgp=bgp,
        evpn=evpn,
        lags=lags,
        host_ports=host_ports,
        mlag=mlag,
        vrfs=handoff.vrfs,
        acls=acls,
        breakouts=breakouts,
        unused_ports=unused_ports(device.model, platform, used),
        host_speeds=fabric.ports.host_speeds_of(name),
        srv6=srv6_of(intent, site_name, name, device, fabric),
    )


def _community_lists(
    intent: Intent, lists: dict[str, CommunityList], mlag: Mlag | None
) -> tuple[CommunityList, ...]:
    """The edge policies' community lists, and the external-route tag the MLAG pair's VRF
    sessions match on a leaf without an external session of its own."""
    if mlag is None or not mlag.vrf_peerings or LEARNED_EXTERNAL in lists:
        return tuple(lists.values())
    return (*lists.values(), learned_external(intent.organisation.asn))


def _with_anycast_vtep(
    loopbacks: tuple[Interface, ...], platform: PlatformInfo, anycast: str | None
) -> tuple[Interface, ...]:
    """The MLAG pair's shared VTEP on the VTEP loopback, as the platform needs it: EOS sources
    VXLAN from Loopback1 carrying the shared address on both leaves (AVD's MLAG VTEPs: one
    Loopback1 address per pair); NX-OS vPC keeps the leaf's own address and adds the shared one
    as secondary ("For VPC, the loopback interface has 2 IP addresses ... The secondary IP
    address on loopback is necessary because the interface NVE uses it for the VTEP IP
    address", Cisco NX-OS VXLAN Configuration Guide, Guidelines and Limitations for VXLAN);
    NVUE prints it under `nve vxlan mlag` (templates) and leaves the loopback alone."""
    if anycast is None or platform.mlag_vtep == "shared_address":
        return loopbacks
    vtep_name = platform.loopback_names[1]
    shared = Address.of(f"{anycast}/32")
    out = []
    for lo in loopbacks:
        if lo.name == vtep_name and lo.ipv4 is not None:
            if platform.mlag_vtep == "loopback":
                lo = lo.model_copy(
                    update={"ipv4": shared, "description": "VXLAN tunnel source, MLAG pair shared"}
                )
            else:
                lo = lo.model_copy(update={"ipv4_secondary": shared})
        out.append(lo)
    return tuple(out)


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


def _ip_key(cidr: str) -> tuple[int, int]:
    iface = addresses.interface(cidr)
    return iface.version, int(iface.ip)
