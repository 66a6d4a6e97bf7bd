"""Host attachments of one leaf: one LACP bond per host, dual-homed by MLAG (vPC on NX-OS) or
EVPN multihoming, or single-homed on a plain port or a one-leaf LACP bond.

Both leaves of a pair compute the same bond numbers, segment ids, ESIs, LACP system MAC, MLAG
domain and peer-link subnet from the attachment alone, so the two halves of every bond and of
the pair agree by construction.

The MLAG peer VLAN's /31 and /127 (EOS, NX-OS): the last link slot (links_per_device - 1) of
the lower device id's block of the p2p pools, the lower id taking the first address. MH-018
reports a fabric link given the same slot.

An EOS pair shares one VTEP address (no PIP): a route one leaf alone learns in a tenant VRF (a
cloud session there), or a link it alone has (a handoff or cloud sub-interface), would be sent
by the fabric to either leaf. Each such VRF gets a BGP session between the two leaves in the
VRF, over a VLAN of its own on the peer link (the VRF's `vlan:`), the peer VLAN's /31 and /127
reused in every VRF: Arista AVD eos_designs `mlag_ibgp_peering_vrfs`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from dataclasses import dataclass, field

from meetme.generators.build.edge_device import edge_device
from meetme.generators.build.edge_policy import LEARNED_EXTERNAL, SUFFIX
from meetme.generators.build.handoff import (
    DEFAULT_ROUTE,
    default_list,
    handed_off,
    handoff_families,
    handoff_of,
    remote_prefixes,
    tenant_entries,
)
from meetme.generators.model import (
    Address,
    BgpNeighbor,
    HostPort,
    Lag,
    Mlag,
    MlagVrfPeering,
    PeerLinkFamily,
    PeerLinkSession,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.edge_sessions import Afi, SiteEdge
from meetme.generators.resolve.fabric import SiteFabric
from meetme.generators.resolve.indexes import memo

from meetme.core import addresses
from meetme.intent.schema import Intent, Site
from meetme.intent.schema_multihoming import Attachment
from meetme.intent.schema_overlay import Vrf


def network_vlans(site: Site, names: list[str]) -> list[int]:
    """VLAN ids of the named networks (in any tenant); unknown names are the rules' to report."""
    vlans = set()
    for tenant in site.tenants.values():
        for name, network in tenant.networks.items():
            if name in names:
                vlans.add(network.vlan)
    return sorted(vlans)


def esi(attachment: Attachment, segment_id: int) -> str:
    """Type-0 ESI (RFC 7432 5): 00, the pair's LACP system MAC, the 3-byte segment id."""
    mac = (attachment.lacp_system_mac or "00:00:00:00:00:00").lower().split(":")
    tail = f"{segment_id:06x}"
    return ":".join(["00", *mac, tail[0:2], tail[2:4], tail[4:6]])


def attachments_of(site: Site, name: str) -> list[tuple[str, Attachment]]:
    """The attachments naming device `name` among their leaves, by name (indexed per site)."""

    def index() -> dict[str, list[tuple[str, Attachment]]]:
        found: dict[str, list[tuple[str, Attachment]]] = {}
        for att_name, attachment in sorted(site.attachments.items()):
            for leaf in dict.fromkeys(attachment.leaves):
                found.setdefault(leaf, []).append((att_name, attachment))
        return found

    return memo(site, "attachments_of", index).get(name, [])


def lags_of(site: Site, name: str) -> list[Lag]:
    platform = PLATFORMS[site.devices[name].platform]
    lags = []
    for att_name, attachment in attachments_of(site, name):
        if attachment.mode == "single" and not attachment.lacp:
            continue  # plain switch ports: host_ports_of
        vlans = network_vlans(site, attachment.networks)
        mac = attachment.lacp_system_mac.lower() if attachment.lacp_system_mac else None
        for index, port in enumerate(attachment.ports):
            number = attachment.lag_base + index
            segment = attachment.segment_base + index
            lags.append(
                Lag(
                    name=platform.lag_format.format(n=number),
                    number=number,
                    description=f"{att_name} host {index + 1} {attachment.mode}",
                    members=[port],
                    mtu=platform.l2_mtu(attachment.mtu),
                    vlans=vlans,
                    mode=attachment.mode,
                    segment_id=segment,
                    esi=esi(attachment, segment) if attachment.mode == "esi" else None,
                    lacp_system_mac=mac if attachment.mode != "single" else None,
                    access=attachment.access,
                )
            )
    return sorted(lags, key=lambda lag: lag.number)


def host_ports_of(site: Site, name: str) -> list[HostPort]:
    """Single-homed hosts on plain switch ports (`mode: single` without `lacp`)."""
    platform = PLATFORMS[site.devices[name].platform]
    ports = []
    for att_name, attachment in attachments_of(site, name):
        if attachment.mode != "single" or attachment.lacp:
            continue
        vlans = network_vlans(site, attachment.networks)
        for index, port in enumerate(attachment.ports):
            ports.append(
                HostPort(
                    name=port,
                    description=f"{att_name} host {index + 1} single",
                    mtu=platform.l2_mtu(attachment.mtu),
                    vlans=vlans,
                    access=attachment.access,
                )
            )
    return ports


def mlag_domain(site: Site, attachment: Attachment) -> int:
    """The pair's MLAG / vPC domain: the attachment's, else the lower device id of the pair."""
    if attachment.domain_id is not None:
        return attachment.domain_id
    return min(site.devices[leaf].id for leaf in attachment.leaves)


def peer_vlan_subnets(site: Site, leaves: list[str]) -> tuple[str, str | None]:
    """The /31 and /127 of an MLAG pair's peer VLAN: the last link slot of the lower id's block."""
    low = min(site.devices[leaf].id for leaf in leaves)
    return allocate.p2p_subnets(site, low, site.pools.links_per_device - 1)


def _pair_address(subnet: str, first: bool) -> tuple[str, str]:
    """(this end's address with length, the other end's address) in a /31 or /127."""
    net = addresses.network(subnet, strict=False)
    low, high = net.network_address, net.network_address + 1
    mine, theirs = (low, high) if first else (high, low)
    return f"{mine}/{net.prefixlen}", str(theirs)


def mlag_of(site: Site, name: str) -> Mlag | None:
    for _att_name, attachment in attachments_of(site, name):
        if attachment.mode != "mlag":
            continue
        if len(set(attachment.leaves)) != 2:
            continue  # not a pair: MH-017 / EVPN-008 report it
        peer = next(leaf for leaf in attachment.leaves if leaf != name)
        platform = PLATFORMS[site.devices[name].platform]
        mlag = Mlag(
            peer=peer,
            peer_link=platform.mlag_peer_link,
            peer_link_members=list(attachment.peer_link),
            system_mac=(attachment.lacp_system_mac or "").lower(),
            backup_address=site.devices[peer].management.split("/")[0],
            backup_vrf=platform.fixed_management_vrf or site.management.vrf,
            anycast_vtep=(
                attachment.anycast_vtep.split("/")[0] if attachment.anycast_vtep else None
            ),
            domain_id=mlag_domain(site, attachment),
            keepalive_source=site.devices[name].management.split("/")[0],
            # NX-OS: the shared address is a secondary on the leaf's own VTEP loopback, the
            # primary an address of this leaf alone to advertise type-5 routes from; NVUE: the
            # VXLAN source stays the leaf's own address beside `mlag shared-address`. EOS
            # sources VXLAN from the shared address itself: no address of its own (PLAT-028)
            advertise_pip=platform.mlag_vtep in ("loopback_secondary", "shared_address")
            and attachment.anycast_vtep is not None,
        )
        if platform.mlag_peer_vlan is None:
            return mlag
        v4, v6 = peer_vlan_subnets(site, attachment.leaves)
        first = site.devices[name].id < site.devices[peer].id
        mine4, theirs4 = _pair_address(v4, first)
        mine6 = _pair_address(v6, first) if v6 is not None and _underlay_v6(site) else None
        return mlag.model_copy(
            update={
                "peer_vlan": platform.mlag_peer_vlan,
                "peer_vlan_ipv4": Address.of(mine4),
                "peer_vlan_ipv6": Address.of(mine6[0]) if mine6 else None,
                "peer_vlan_mtu": platform.mtu(site.underlay.mtu),
                "peer_link_mtu": _peer_link_mtu(site, name) if platform.l2_mtus else None,
                "peer_address_v4": theirs4,
            }
        )
    return None


def _peer_link_mtu(site: Site, name: str) -> int:
    """The L2 MTU the leaf's peer link needs: its largest host frame, or the routed backup
    VLAN's packets at the underlay MTU, whichever is larger, in a size the platform takes."""
    platform = PLATFORMS[site.devices[name].platform]
    largest = max([site.underlay.mtu, *(a.mtu for _, a in attachments_of(site, name))])
    return platform.l2_mtu(largest)


def _underlay_v6(site: Site) -> bool:
    """IPv6 underlay sessions run when both IPv6 pools exist (as build/underlay.py decides)."""
    return site.pools.loopback_v6 is not None and site.pools.p2p_v6 is not None


def peer_vlan_neighbors(
    intent: Intent,
    site: Site,
    name: str,
    mlag: Mlag,
    families: tuple[PeerLinkFamily, ...],
    warning_pct: int,
) -> list[BgpNeighbor]:
    """The pair's routed underlay adjacency over the peer VLAN, numbered (EOS, NX-OS), one
    session per family with the underlay's policies and limits. Arista's EVPN MLAG design peers
    the pair over the peer link so a leaf that loses its uplinks still reaches the fabric (AVD
    `MLAG-IPv4-UNDERLAY-PEER`); Cisco requires the same for vPC VTEPs ("a backup Layer 3 routing
    adjacency in between them over the vPC peer-link with the use of an interface vlan ... in
    the default VRF", Cisco TAC 214624). A pair sharing one ASN (`asn.shared_pairs`) peers by
    iBGP with next-hop-self, as AVD's MLAG peer group does."""
    if mlag.peer_vlan is None:
        return []
    remote_as = allocate.device_asn(intent, site, site.devices[mlag.peer])
    own_as = allocate.device_asn(intent, site, site.devices[name])
    addresses = _peer_addresses(mlag)
    neighbors = []
    for family in families:
        address = addresses.get(family.afi)
        if address is None:
            continue
        neighbors.append(
            BgpNeighbor(
                address=address,
                afi=family.afi,
                remote_as=remote_as,
                description=f"mlag peer {mlag.peer} Vlan{mlag.peer_vlan}",
                local_interface=f"Vlan{mlag.peer_vlan}",
                peer_device=mlag.peer,
                bfd=True,
                route_map_in=family.route_map_in,
                route_map_out=family.route_map_out,
                max_prefix=site.underlay.max_prefix,
                max_prefix_warning_pct=warning_pct,
                next_hop_self=own_as == remote_as,
            )
        )
    return neighbors


def _peer_addresses(mlag: Mlag) -> dict[str, str | None]:
    """The other leaf's addresses on the peer VLAN, per family (None: not numbered)."""
    found: dict[str, str | None] = {"ipv4": mlag.peer_address_v4, "ipv6": None}
    if mlag.peer_vlan_ipv6 is not None:
        net = ipaddress.ip_interface(mlag.peer_vlan_ipv6.cidr).network
        ends = (net.network_address, net.network_address + 1)
        found["ipv6"] = str(next(a for a in ends if str(a) != mlag.peer_vlan_ipv6.ip))
    return found


# the policy of the VRF sessions between the two leaves, per family: only routes an external
# party sent the pair (the class tag every import policy sets, edge_policy.LEARNED_EXTERNAL)
MLAG_VRF_POLICY = {afi: f"RM-MLAG-VRF-PEER-{sfx}" for afi, sfx in SUFFIX.items()}


def shares_vtep(mlag: Mlag) -> bool:
    """The pair's type-5 routes leave with the shared VTEP as next hop (EOS: no PIP), and the
    pair is numbered over a peer VLAN a VRF's peering can reuse."""
    return mlag.anycast_vtep is not None and not mlag.advertise_pip and mlag.peer_vlan is not None


def vrfs_learned_alone(edge: SiteEdge, leaves: tuple[str, ...]) -> dict[str, tuple[Afi, ...]]:
    """The tenant VRFs in which one of `leaves` holds an external session (a cloud attachment
    serving the VRF), with those sessions' families: what one leaf of a pair alone learns."""
    found: dict[str, set[Afi]] = {}
    for session in edge.sessions:
        if session.device in leaves and session.vrf is not None:
            found.setdefault(session.vrf, set()).add(session.afi)
    order: tuple[Afi, ...] = ("ipv4", "ipv6")
    return {vrf: tuple(afi for afi in order if afi in afis) for vrf, afis in sorted(found.items())}


def handed_off_vrfs(
    intent: Intent, site_name: str, site: Site, leaves: tuple[str, ...]
) -> tuple[str, ...]:
    """The handoff VRFs with links on `leaves` (border leaves of the site's handoff): each leaf
    has its own links to the borders in them, subnets the other leaf of a pair does not hold."""
    handoff = site.handoff
    if handoff is None or not any(handed_off(site, leaf) for leaf in leaves):
        return ()
    return tuple(
        name
        for name, vrf in sorted(handoff.vrfs.items())
        if handoff_families(intent, site_name, site, name, vrf)
    )


def peered_vrfs(
    intent: Intent, site_name: str, site: Site, edge: SiteEdge, leaves: tuple[str, ...]
) -> dict[str, tuple[Afi, ...]]:
    """The tenant VRFs a shared-VTEP pair peers in, with the families it needs there: those
    in which one leaf alone learns routes (the families of its external sessions), and those
    in which each leaf has links of its own (its handoff links, numbered in IPv4 always and in
    IPv6 where the VRF's IPv6 sessions run: generators/build/handoff.py)."""
    found = {vrf: set(afis) for vrf, afis in vrfs_learned_alone(edge, leaves).items()}
    for name in handed_off_vrfs(intent, site_name, site, leaves):
        found.setdefault(name, set()).update(("ipv4", "ipv6"))
    order: tuple[Afi, ...] = ("ipv4", "ipv6")
    return {vrf: tuple(a for a in order if a in afis) for vrf, afis in sorted(found.items())}


def vrf_peering_vlans(
    intent: Intent, site_name: str, site: Site, edge: SiteEdge
) -> list[tuple[str, int, tuple[str, ...]]]:
    """(VRF, its peering VLAN, the pair's leaves) of every VRF peering `vrf_peerings` builds,
    read from the intent alone (the design rules check these VLANs before any model)."""
    found: list[tuple[str, int, tuple[str, ...]]] = []
    for _name, attachment in sorted(site.attachments.items()):
        leaves = tuple(dict.fromkeys(attachment.leaves))
        if attachment.mode != "mlag" or len(leaves) != 2 or attachment.anycast_vtep is None:
            continue
        if any(leaf not in site.devices for leaf in leaves):
            continue  # the rules on attachments report it
        names = {site.devices[leaf].platform for leaf in leaves}
        if len(names) != 1:
            continue
        platform = PLATFORMS[names.pop()]
        # the shared VTEP is the VXLAN source itself (EOS), not a secondary beside a PIP
        if platform.mlag_vtep != "loopback" or platform.mlag_peer_vlan is None:
            continue
        for vrf_name, afis in peered_vrfs(intent, site_name, site, edge, leaves).items():
            vrf = tenant_vrf(site, vrf_name)
            served = "ipv4" in afis or _underlay_v6(site)
            if vrf is not None and vrf.vlan is not None and vrf.l3vni is not None and served:
                found.append((vrf_name, vrf.vlan, leaves))
    return found


def tenant_vrf(site: Site, name: str) -> Vrf | None:
    """The tenant VRF called `name` (VRF names are one VRF per site)."""
    return next((t.vrfs[name] for _, t in sorted(site.tenants.items()) if name in t.vrfs), None)


@dataclass(frozen=True)
class VrfPeeringParts:
    """The VRF peerings of one leaf of a shared-VTEP pair (`vrf_peerings`)."""

    peerings: tuple[MlagVrfPeering, ...] = ()
    neighbors: tuple[BgpNeighbor, ...] = ()
    # the subnets of the peered VRFs one leaf of the pair holds and the other does not (its
    # handoff and cloud links), per family: the same on both leaves
    alone: dict[Afi, tuple[str, ...]] = field(default_factory=dict)
    # the prefixes the borders hand the pair from the peered handoff VRFs' other sites (SRv6),
    # per family: no class tag marks them, and a leaf cut off from both borders takes them
    # from the other
    other_sites: dict[Afi, tuple[str, ...]] = field(default_factory=dict)
    # the families in which a peered handoff VRF takes the borders' default route (`internet:
    # default`): it reaches the pair over eBGP, which carries no class tag (IOS-XR sends no
    # community to an eBGP neighbour; EOS and NX-OS only those a session is told to, and no
    # handoff session is), so the prefix crosses to a leaf cut off from the borders by name
    defaults: tuple[Afi, ...] = ()


def link_subnets(intent: Intent, site: Site, name: str, fabric: SiteFabric) -> set[tuple[str, str]]:
    """(VRF, subnet) of every tenant-VRF link of the leaf: its handoff and cloud links, the
    connected subnets one leaf has of its own (networks are on both leaves of a pair: MH-022);
    link-local ones left out (they mean nothing off the link)."""
    device = site.devices[name]
    interfaces = (
        *handoff_of(intent, site, name, device, fabric).interfaces,
        *edge_device(intent, site, name, device, fabric).interfaces,
    )
    found: set[tuple[str, str]] = set()
    for interface in interfaces:
        for address in (interface.ipv4, interface.ipv6):
            if interface.vrf is None or address is None:
                continue
            subnet = addresses.interface(address.cidr).network
            if not subnet.is_link_local:
                found.add((interface.vrf, str(subnet)))
    return found


def vrf_peerings(
    intent: Intent, site_name: str, site: Site, name: str, mlag: Mlag, fabric: SiteFabric
) -> VrfPeeringParts:
    """Each tenant VRF of `peered_vrfs`: its VLAN on the peer link with the peer VLAN's
    addresses, and the session to the other leaf in it, per family of the VRF's external
    sessions and of the links one leaf alone has in it (IPv6 where the peer VLAN has a /127).
    The VLAN is the VRF's own `vlan:` (the L3VNI carrier on NX-OS, unprinted on EOS); a VRF
    without one gets no peering: PLAT-028 refuses its external sessions, FLOW-007 names the
    links. The same ASN on both leaves (`asn.shared_pairs`) makes it iBGP with next-hop-self,
    as AVD's MLAG peer group; the default, an ASN per leaf, eBGP, whose next hop is the
    sender already."""
    if not shares_vtep(mlag) or mlag.peer_vlan_ipv4 is None or mlag.peer_vlan_mtu is None:
        return VrfPeeringParts()
    remote_as = allocate.device_asn(intent, site, site.devices[mlag.peer])
    own_as = allocate.device_asn(intent, site, site.devices[name])
    peer_addresses = _peer_addresses(mlag)
    wanted = peered_vrfs(intent, site_name, site, fabric.edge, (name, mlag.peer))
    sessions = vrfs_learned_alone(fabric.edge, (name, mlag.peer))
    # what one leaf holds and the other does not: each leaf's own links
    alone = link_subnets(intent, site, name, fabric) ^ link_subnets(intent, site, mlag.peer, fabric)
    peerings: list[MlagVrfPeering] = []
    neighbors: list[BgpNeighbor] = []
    carried: set[tuple[Afi, str]] = set()
    for vrf_name in wanted:
        vrf = tenant_vrf(site, vrf_name)
        subnets = sorted(subnet for v, subnet in alone if v == vrf_name)
        afis = {*sessions.get(vrf_name, ()), *(_family(subnet) for subnet in subnets)}
        served = [a for a in ("ipv4", "ipv6") if a in afis and peer_addresses.get(a) is not None]
        if vrf is None or vrf.vlan is None or vrf.l3vni is None or not served:
            continue
        carried |= {(_family(subnet), subnet) for subnet in subnets if _family(subnet) in served}
        peerings.append(
            MlagVrfPeering(
                vrf=vrf_name,
                vlan=vrf.vlan,
                ipv4=mlag.peer_vlan_ipv4,
                mtu=mlag.peer_vlan_mtu,
                ipv6=mlag.peer_vlan_ipv6 if "ipv6" in served else None,
            )
        )
        for afi in served:
            neighbors.append(
                BgpNeighbor(
                    address=str(peer_addresses[afi]),
                    afi=afi,
                    remote_as=remote_as,
                    description=f"mlag peer {mlag.peer} Vlan{vrf.vlan}",
                    local_interface=f"Vlan{vrf.vlan}",
                    peer_device=mlag.peer,
                    bfd=True,
                    route_map_in=MLAG_VRF_POLICY[afi],
                    route_map_out=MLAG_VRF_POLICY[afi],
                    max_prefix=site.underlay.max_prefix,
                    max_prefix_warning_pct=fabric.warning_pct,
                    kind="mlag_vrf",
                    vrf=vrf_name,
                    next_hop_self=own_as == remote_as,
                    # the class tags cross, so the other leaf never re-advertises the routes
                    # to a party of its own either (their export policies deny the tag)
                    send_communities=("standard", "extended", "large"),
                )
            )
    families: tuple[Afi, ...] = ("ipv4", "ipv6")
    by_family = {
        afi: tuple(sorted((s for a, s in carried if a == afi), key=_subnet_key)) for afi in families
    }
    running = {(n.vrf, n.afi) for n in neighbors}
    elsewhere: dict[Afi, list[str]] = {afi: [] for afi in families}
    defaults: set[Afi] = set()
    for vrf_name in handed_off_vrfs(intent, site_name, site, (name, mlag.peer)):
        handed = site.handoff.vrfs[vrf_name] if site.handoff is not None else None
        carried_in = handoff_families(intent, site_name, site, vrf_name, handed) if handed else ()
        for afi in families:
            if (vrf_name, afi) in running:  # a session in the VRF and family to take them over
                fresh = remote_prefixes(intent, site_name, vrf_name, afi)
                elsewhere[afi] += [p for p in fresh if p not in elsewhere[afi]]
                if handed is not None and handed.internet == "default" and afi in carried_in:
                    defaults.add(afi)
    return VrfPeeringParts(
        tuple(peerings),
        tuple(neighbors),
        {a: s for a, s in by_family.items() if s},
        {a: tuple(p) for a, p in elsewhere.items() if p},
        tuple(a for a in families if a in defaults),
    )


def _family(subnet: str) -> Afi:
    return "ipv6" if ":" in subnet else "ipv4"


def _subnet_key(subnet: str) -> tuple[int, int]:
    network = addresses.network(subnet)
    return int(network.network_address), network.prefixlen


# the subnets of the peered VRFs one leaf of the pair alone holds, per family (VrfPeeringParts)
ONE_LEAF_LINKS = {afi: f"PL-MLAG-ONE-LEAF-LINKS-{sfx}" for afi, sfx in SUFFIX.items()}
# the peered handoff VRFs' other sites' prefixes, per family (VrfPeeringParts)
OTHER_SITES = {afi: f"PL-MLAG-OTHER-SITES-{sfx}" for afi, sfx in SUFFIX.items()}
# the borders' default route, per family: the handoff's own list (VrfPeeringParts.defaults)
DEFAULT_LISTS = {afi: default_list(afi) for afi in SUFFIX}


def vrf_peering_policies(
    parts: VrfPeeringParts, present: Collection[str] = ()
) -> tuple[tuple[PrefixList, ...], tuple[RouteMap, ...]]:
    """The prefix lists and route maps of the VRF sessions between the pair: routes an external
    party sent, the links one leaf alone holds (each leaf's own connected subnets, which
    the fabric sends to either leaf with the shared VTEP as next hop), the VRFs' other sites
    and the borders' default route. `present`: prefix lists the device already has (the
    handoff's default-route list on a leaf with handoff links), not written twice."""
    afis = sorted({n.afi for n in parts.neighbors})
    lists = tuple(
        PrefixList(
            name=ONE_LEAF_LINKS[afi],
            afi=afi,
            entries=[
                PrefixListEntry(seq=10 * (i + 1), action="permit", prefix=subnet)
                for i, subnet in enumerate(parts.alone[afi])
            ],
        )
        for afi in afis
        if parts.alone.get(afi)
    )
    sites = tuple(
        PrefixList(
            name=OTHER_SITES[afi],
            afi=afi,
            # as the handoff import takes them: each prefix with its longer ones
            entries=tenant_entries(list(parts.other_sites[afi]), afi),
        )
        for afi in afis
        if parts.other_sites.get(afi)
    )
    defaults = tuple(
        PrefixList(
            name=default_list(afi),
            afi=afi,
            # as the handoff builds it: the default route alone
            entries=[PrefixListEntry(seq=10, action="permit", prefix=DEFAULT_ROUTE[afi])],
        )
        for afi in afis
        if afi in parts.defaults
    )
    listed = {(pl.name, pl.afi) for pl in (*lists, *sites, *defaults)}
    maps = []
    for afi in afis:
        entries = [
            RouteMapEntry(
                seq=10,
                action="permit",
                description="what an external party sent the pair",
                match_large_community=LEARNED_EXTERNAL,
            )
        ]
        for seq, names, description in (
            (20, ONE_LEAF_LINKS, "a link one leaf of the pair alone holds"),
            (30, OTHER_SITES, "the VRFs' other sites, for a leaf cut off from the borders"),
            (40, DEFAULT_LISTS, "the borders' default route, for a leaf cut off from them"),
        ):
            if (names[afi], afi) in listed:
                entries.append(
                    RouteMapEntry(
                        seq=seq,
                        action="permit",
                        description=description,
                        match_prefix_list=names[afi],
                    )
                )
        maps.append(RouteMap(name=MLAG_VRF_POLICY[afi], afi=afi, entries=entries))
    kept = tuple(pl for pl in defaults if pl.name not in present)
    return (*lists, *sites, *kept), tuple(maps)


# a peered VRF redistributes its connected subnets through this map, which keeps the pair's
# peering subnet out of EVPN (it is the same in every VRF and means nothing off the pair)
VRF_CONNECTED_POLICY = "RM-VRF-CONNECTED"
PEERING_SUBNETS = {afi: f"PL-MLAG-PEER-VRFS-{sfx}" for afi, sfx in SUFFIX.items()}


def vrf_connected_policy(mlag: Mlag) -> tuple[tuple[PrefixList, ...], tuple[RouteMap, ...]]:
    """The prefix lists and the route map of a peered VRF's connected redistribution: every
    connected subnet as an EVPN type-5 route but the pair's peering /31 (and /127)."""
    if not mlag.vrf_peerings:
        return (), ()
    subnets: dict[Afi, str] = {"ipv4": mlag.vrf_peerings[0].ipv4.cidr}
    v6 = next((p.ipv6 for p in mlag.vrf_peerings if p.ipv6 is not None), None)
    if v6 is not None:
        subnets["ipv6"] = v6.cidr
    lists = tuple(
        PrefixList(
            name=PEERING_SUBNETS[afi],
            afi=afi,
            entries=[
                PrefixListEntry(
                    seq=10,
                    action="permit",
                    prefix=str(ipaddress.ip_interface(cidr).network),
                )
            ],
        )
        for afi, cidr in subnets.items()
    )
    entries = [
        RouteMapEntry(
            seq=10 * (index + 1),
            action="deny",
            description="the MLAG pair's peering subnet stays on the pair",
            match_prefix_list=pl.name,
            match_afi=pl.afi,
        )
        for index, pl in enumerate(lists)
    ]
    entries.append(
        RouteMapEntry(
            seq=10 * (len(lists) + 1),
            action="permit",
            description="connected subnets of the VRF, as EVPN type-5",
        )
    )
    return lists, (RouteMap(name=VRF_CONNECTED_POLICY, afi="ipv4", entries=entries),)


PEER_LINK_VLAN = 4094  # NVUE's fixed peer-link VLAN: its routed sub-interface is peerlink.4094


def peer_link_session(
    intent: Intent,
    site: Site,
    mlag: Mlag,
    families: tuple[PeerLinkFamily, ...],
    evpn: bool,
    warning_pct: int,
) -> PeerLinkSession:
    """The pair's routed adjacency over the peer link (NVIDIA MLAG "Peer Link Routing": with VRR,
    a leaf that loses its uplinks forwards through its peer; with EVPN the session carries the
    EVPN family too). It carries the underlay's families with the underlay's policies and
    limits: the loopbacks and VTEP addresses, nothing else."""
    settings = site.evpn
    return PeerLinkSession(
        interface=f"{mlag.peer_link}.{PEER_LINK_VLAN}",
        remote_as=allocate.device_asn(intent, site, site.devices[mlag.peer]),
        description=f"mlag peer link to {mlag.peer}",
        peer_device=mlag.peer,
        families=families,
        evpn=evpn,
        bfd=True,
        max_prefix=site.underlay.max_prefix,
        max_routes=settings.max_routes if evpn and settings is not None else None,
        max_prefix_warning_pct=warning_pct,
    )
