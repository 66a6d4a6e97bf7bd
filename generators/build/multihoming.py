"""Host attachments of one leaf: one LACP bond per host, dual-homed by MLAG or EVPN multihoming.

Both leaves of a pair compute the same bond numbers, segment ids, ESIs and LACP system MAC from
the attachment alone, so the two halves of every bond agree by construction.
"""

from __future__ import annotations

from meetme.generators.model import Lag, Mlag, PeerLinkFamily, PeerLinkSession
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate

from meetme.intent.schema import Intent, Site
from meetme.intent.schema_multihoming import Attachment


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
    mac = attachment.lacp_system_mac.lower().split(":")
    tail = f"{segment_id:06x}"
    return ":".join(["00", *mac, tail[0:2], tail[2:4], tail[4:6]])


def lags_of(site: Site, name: str) -> list[Lag]:
    platform = PLATFORMS[site.devices[name].platform]
    lags = []
    for att_name, attachment in sorted(site.attachments.items()):
        if name not in attachment.leaves:
            continue
        vlans = network_vlans(site, attachment.networks)
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
                    lacp_system_mac=attachment.lacp_system_mac.lower(),
                )
            )
    return sorted(lags, key=lambda lag: lag.number)


def mlag_of(site: Site, name: str) -> Mlag | None:
    for _att_name, attachment in sorted(site.attachments.items()):
        if attachment.mode != "mlag" or name not in attachment.leaves:
            continue
        peer = next(leaf for leaf in attachment.leaves if leaf != name)
        platform = PLATFORMS[site.devices[name].platform]
        return Mlag(
            peer=peer,
            peer_link=platform.mlag_peer_link,
            peer_link_members=list(attachment.peer_link),
            system_mac=attachment.lacp_system_mac.lower(),
            backup_address=site.devices[peer].management.split("/")[0],
            backup_vrf=platform.fixed_management_vrf or site.management.vrf,
            anycast_vtep=(
                attachment.anycast_vtep.split("/")[0] if attachment.anycast_vtep else None
            ),
        )
    return None


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
