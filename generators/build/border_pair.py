"""iBGP between the border routers of a pair, over their direct links.

The borders share one ASN, so neither can learn the other's routes through the fabric (AS-path
loop detection drops them) and a border whose transits fail would have no way out. One iBGP
session per family on every direct border-to-border link carries each border's Internet table
to the other; `next-hop-self` replaces the transit's next hop, which the other border cannot
reach, with the link address, which it can. Either border then keeps the default route and the
Internet table while the other still has a transit (docs/architecture.md#north-south).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from meetme.generators.build.handoff import admitted, tenant_entries
from meetme.generators.build.links import pair_link, routed_port
from meetme.generators.model import (
    Afi,
    BgpNeighbor,
    Interface,
    PrefixList,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.edge_sessions import public_aggregates
from meetme.generators.resolve.fabric import SiteFabric

from meetme.intent.schema import Device, Intent, Site

SUFFIX = {"ipv4": "V4", "ipv6": "V6"}
# the routes a device of the fabric originates into the underlay itself, at most: its loopback,
# its VTEP's (or the anycast VTEP of its pair) and its SRv6 locator
OWN_ROUTES = 3


@dataclass
class BorderPair:
    interfaces: list[Interface] = field(default_factory=list)
    neighbors: list[BgpNeighbor] = field(default_factory=list)
    route_maps: list[RouteMap] = field(default_factory=list)


def border_pair_of(
    intent: Intent, site: Site, name: str, device: Device, fabric: SiteFabric
) -> BorderPair:
    result = BorderPair()
    platform = PLATFORMS[device.platform]
    asn = allocate.device_asn(intent, site, device)
    for local, remote, _link in fabric.links_of(name):
        if not pair_link(intent, site, device, remote):
            continue
        far = f"{remote.device} {remote.interface}"
        speed = fabric.ports.speed_of(name, local.interface)
        result.interfaces.append(
            routed_port(local, remote, platform, f"border pair link to {far}", speed)
        )
        families: tuple[tuple[Afi, str | None], ...] = (
            ("ipv4", remote.address_v4),
            ("ipv6", remote.address_v6),
        )
        for afi, address in families:
            if address is None:
                continue
            rm_in, rm_out = (f"RM-BORDER-IBGP-{d}-{SUFFIX[afi]}" for d in ("IN", "OUT"))
            if not any(rm.name == rm_in for rm in result.route_maps):
                result.route_maps += [
                    _pass_all(rm_in, afi, "everything the other border holds"),
                    _pass_all(rm_out, afi, "everything this border holds"),
                ]
            result.neighbors.append(
                BgpNeighbor(
                    address=address.split("/")[0],
                    afi=afi,
                    remote_as=asn,
                    description=f"border pair {far}",
                    local_interface=local.interface,
                    peer_device=remote.device,
                    bfd=True,
                    route_map_in=rm_in,
                    route_map_out=rm_out,
                    # everything the other border holds, no more: a leak still resets it
                    max_prefix=_table_limit(intent, site, fabric, afi),
                    max_prefix_warning_pct=fabric.warning_pct,
                    max_prefix_restart=5,
                    kind="border_ibgp",
                    next_hop_self=True,
                    # the other border acts on our tags (class, graceful shutdown, RFC 8326)
                    # as on its own: every community kind the platform can send
                    send_communities=platform.send_communities,
                )
            )
    return result


def _pass_all(name: str, afi: str, description: str) -> RouteMap:
    return RouteMap(
        name=name,
        afi=afi,
        entries=[RouteMapEntry(seq=10, action="permit", description=description)],
    )


def _table_limit(intent: Intent, site: Site, fabric: SiteFabric, afi: Afi) -> int | None:
    """What the other border sends over the pair in one family, which passes all of it: its
    Internet table, as large as the largest table a party of the site may send (the parties'
    tables overlap); the site's underlay routes, which LIMIT-001 holds under
    `underlay.max_prefix` on every session, and the few a device originates itself; the
    aggregates it anchors; and the tenants' public prefixes it leaks from their VRFs. Without
    the last three, a site whose transits send a default only resets the pair as it converges.
    None when no Internet session has a limit (EDGE-001 reports it). Not capped at what the
    platform's command takes: a smaller limit would reset the pair, so PLAT-022 names it."""
    limits = [
        s.max_prefix
        for s in fabric.edge.sessions
        if s.internet and s.afi == afi and s.max_prefix is not None
    ]
    if not limits:
        return None
    aggregates = [p for p in public_aggregates(intent, site) if (":" in p) == (afi == "ipv6")]
    handoff = site.handoff.vrfs.values() if site.handoff else ()
    public = [
        p
        for vrf in handoff
        if vrf.internet == "default"
        for p in vrf.public
        if (":" in p) == (afi == "ipv6")
    ]
    leaked = admitted(PrefixList(name="public", afi=afi, entries=tenant_entries(public, afi)))
    return max(limits) + site.underlay.max_prefix + OWN_ROUTES + len(aggregates) + leaked
