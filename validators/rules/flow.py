"""FLOW-*: where routes actually go, computed on the built device models.

The design-standard rules judge the intent; these follow routes through what each device will
run: its originated routes (aggregates with their discard anchors, SVI subnets), its sessions'
VRFs and the export policy of every session (validators/policy_eval.py evaluates it as the
router would). The pipeline runs them on every built model, like the PLAT-* gaps, and each
finding points at the intent line to change (docs/standards.md#flow-001).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from meetme.generators.build.edge_policy import DEFAULT_REFUSED, GLOBAL_LONGEST, GLOBAL_SHORTEST
from meetme.generators.build.handoff import AFIS, vrf_routes
from meetme.generators.build.overlay import VTEP_ROLES
from meetme.generators.model import BgpNeighbor, DeviceModel, PrefixListEntry
from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.base import GLOBAL_VRF
from meetme.generators.resolve.edge_sessions import CLOUD_KINDS, INTERNET_KINDS, ExternalSession
from meetme.generators.resolve.fabric import SiteFabric
from meetme.validators.engine import finding_at, reported_elsewhere, rule
from meetme.validators.policy_eval import (
    Route,
    Verdict,
    admitted_lengths,
    evaluate,
    evaluate_import,
)

from meetme.core import addresses
from meetme.core.findings import Finding
from meetme.core.numbering import documentation_prefix
from meetme.intent.loader import LoadedIntent

EXPORT_ORIGINATED = "FLOW-001"
SESSION_VRF_EXISTS = "FLOW-002"
DEFAULT_REACHES_TENANTS = "FLOW-003"
EXPORTS_EXACT = "FLOW-004"
RPKI_REACHABLE = "FLOW-005"
CLOUD_ROUTES_REACH = "FLOW-006"
ONE_LEAF_SUBNETS = "FLOW-007"
CUT_OFF_DEFAULT = "FLOW-008"
IMPORT_REACHES = "FLOW-009"
DEFAULT_ROUTE = {"ipv4": "0.0.0.0/0", "ipv6": "::/0"}
P2P_POOL = {"ipv4": "p2p_v4", "ipv6": "p2p_v6"}  # the pools the handoff links are numbered from

Path_ = tuple[str | int, ...]


rule(
    EXPORT_ORIGINATED,
    "error",
    "Every prefix exported to a cloud or the Internet is originated in the VRF it leaves from",
    "A session exports only what its device's BGP table holds in the session's VRF: a prefix "
    "agreed with a cloud (`advertise:`) or one of our aggregates sent to the Internet that "
    "nothing originates in that VRF on that device (no aggregate with its discard anchor, no "
    "SVI subnet of exactly that prefix), or that the session's own export policy denies, never "
    "leaves, and the lint of the intent alone cannot see it. A private cloud attachment without "
    "`vrf:` sits in the default VRF, the underlay, where no tenant prefix lives.",
    "docs/standards.md#flow-001",
)(reported_elsewhere)
rule(
    SESSION_VRF_EXISTS,
    "error",
    "Every BGP session's VRF exists on its device",
    "A session printed in a VRF the device does not carry has no routing table to live in: "
    "the platform rejects it or it never comes up. A tenant VRF that cannot be placed on the "
    "device (no L3VNI: it routes only where its networks are) leaves the session stranded.",
    "docs/standards.md#flow-002",
)(reported_elsewhere)


rule(
    DEFAULT_REACHES_TENANTS,
    "error",
    "A tenant VRF with Internet access gets the default route from every border",
    "`internet: default` promises each leaf of the VRF a default route through the borders, "
    "in each family the VRF routes (a network of it has a gateway in the family). "
    "It exists only where a border's Internet table has one (a transit, or the other border "
    "over the pair's iBGP, whose import policy admits it), the border leaks it into the VRF, "
    "and the handoff policies on both ends pass it; the border leaves then carry it to every "
    "leaf of the VRF over EVPN (one route target fabric-wide). A border where it stops leaves "
    "the tenant one border short of a way out, or with none, while lint of the intent alone "
    "looks clean.",
    "docs/standards.md#flow-003",
)(reported_elsewhere)
rule(
    EXPORTS_EXACT,
    "error",
    "Only our aggregates reach the Internet; only the agreed prefixes reach each cloud",
    "An export policy is an allow-list: every other route the session's VRF holds — the "
    "default route, other parties' routes, the VRF's own subnets and more specifics, "
    "loopbacks, a tenant's public more specifics — must stop at it. One that passes leaks "
    "tenant space to a cloud or de-aggregates us on the Internet (RFC 7454 section 6.2).",
    "docs/standards.md#flow-004",
)(reported_elsewhere)
rule(
    RPKI_REACHABLE,
    "error",
    "Every RPKI cache is reachable from the device that validates against it",
    "A router reaches its RPKI caches in its default VRF (no platform here is given another "
    "VRF for RTR): the cache address needs a connected subnet there (the services LAN) or a "
    "static route. The underlay carries loopbacks only and the Internet imports drop private "
    "space, so without one every route stays 'not found' and the `invalid` drop never fires, "
    "silently.",
    "docs/standards.md#flow-005",
)(reported_elsewhere)

rule(
    CLOUD_ROUTES_REACH,
    "error",
    "Every agreed cloud prefix reaches every leaf of the VRF it serves",
    "A cloud attachment's `receive:` prefixes (the VPC, VNet or VPC-network ranges agreed with "
    "the provider) are what the tenant pays the on-ramp for: each must pass the session's "
    "import policy on the border leaf, and the border leaf's VRF must share its route target "
    "with every leaf of the VRF, or the route stops at the border leaf. A border leaf of an "
    "EOS MLAG pair shares its VTEP address with the other leaf, which the fabric sends about "
    "half of the traffic: the route must cross to it over the pair's session in the VRF too.",
    "docs/standards.md#flow-006",
)(reported_elsewhere)


rule(
    ONE_LEAF_SUBNETS,
    "warning",
    "A subnet one leaf of a shared-VTEP pair alone holds is reachable from the fabric",
    "An EOS MLAG pair sources VXLAN from one shared address, the next hop of every EVPN "
    "type-5 route either leaf originates, and the fabric hashes traffic to it between both "
    "leaves. A connected subnet of one leaf alone in a tenant VRF (a handoff or cloud "
    "sub-interface's link) is redistributed into EVPN, and the other leaf has no route to it: "
    "about half of the traffic to those addresses (BGP to the far end's interface address, "
    "traceroute, monitoring) dies there unless the pair's BGP session in the VRF, over the "
    "peer link, carries the subnet to the other leaf: followed here through the connected "
    "redistribution, the sending leaf's export policy and the other leaf's import policy. "
    "A VRF without its `vlan:` or L3VNI has no such session. NX-OS vPC and NVUE MLAG "
    "advertise such routes from each leaf's own address (advertise-pip) and are not "
    "affected. A warning: tenant traffic to the Internet and the clouds follows routes both "
    "leaves hold.",
    "docs/standards.md#flow-007",
)(reported_elsewhere)


rule(
    CUT_OFF_DEFAULT,
    "error",
    "A leaf of a shared-VTEP pair cut off from the borders keeps the default route",
    "An EOS MLAG pair sources VXLAN from one shared address, and the fabric hashes a tenant's "
    "Internet traffic to it between both leaves. A leaf whose handoff links to the borders are "
    "down (or that has none) keeps its default route only over the pair's BGP session in the "
    "VRF, from the other leaf: through the other leaf's handoff import, its export to the pair "
    "and this leaf's import. The route arrives from the borders over eBGP, which carries only "
    "the communities the border's session is told to send (IOS-XR sends none to an eBGP "
    "neighbour without `send-community-ebgp`), so a pair policy that passes it by its class "
    "tag passes nothing there. Where it stops, about half of the VRF's Internet traffic is "
    "dropped as soon as one leaf loses its uplinks to the borders: the border failure the "
    "pair exists to survive.",
    "docs/standards.md#flow-008",
)(reported_elsewhere)


rule(
    IMPORT_REACHES,
    "error",
    "Every prefix agreed with an external party passes the session's whole import policy",
    "An Internet party's `import_prefixes` (and a default-VRF cloud attachment's `receive:`) "
    "is the session's allow-list: the prefixes agreed with the party, each with its more "
    "specifics. The import policy drops bogons, prefixes longer or shorter than the global "
    "table carries, our own address space, the default route and the IX peering LANs before "
    "it reads the allow-list, so an agreed prefix that is an IPv4 /25, a bogon or inside our "
    "aggregates accepts nothing: the party sends what was agreed and every route of it is "
    "dropped, while the intent reads as if it were accepted. Followed on the built models "
    "through the whole import policy at every length the allow-list entry admits; an entry "
    "some of whose routes pass is fine.",
    "docs/standards.md#flow-009",
)(reported_elsewhere)


@dataclass(frozen=True)
class _Flow:
    """A session's intent: where it is declared and what it exports."""

    source: Path_  # the declaration (a cloud attachment, an Internet party)
    vrf_path: Path_  # where its `vrf:` is written or would be
    export_paths: dict[str, Path_]  # exported prefix -> the intent line that asks for it
    vrf: str | None


def flow_findings(
    loaded: LoadedIntent, fabrics: Mapping[str, SiteFabric], models: Iterable[DeviceModel]
) -> list[Finding]:
    built = list(models)
    by_name = {m.hostname: m for m in built}
    hits: list[tuple[str, str, Path_]] = []
    # a VRF name means one VRF per site: EVPN joins the sites' fabrics nowhere
    subnets = {site: _vrf_subnets(m for m in built if m.site == site) for site in fabrics}
    for model in built:
        fabric = fabrics.get(model.site)
        if fabric is None:
            continue
        flows = _flows(loaded, model, fabric.edge.sessions)
        hits += [
            *_session_vrfs(model, flows),
            *_exports(model, flows),
            *_exports_exact(model, flows, subnets[model.site]),
            *_rpki_reachable(model),
            *_imports_reach(loaded, model, fabric.edge.sessions),
        ]
    for site_name, site_fabric in sorted(fabrics.items()):
        mine = {n: m for n, m in by_name.items() if m.site == site_name}
        hits += [
            (CLOUD_ROUTES_REACH, message, path)
            for message, path in _cloud_routes(site_fabric.edge.sessions, mine)
        ]
        hits += [
            (DEFAULT_REACHES_TENANTS, message, path)
            for message, path in _defaults(loaded, site_name, mine)
        ]
        hits += [
            (CUT_OFF_DEFAULT, message, path)
            for message, path in _cut_off_defaults(loaded, site_name, mine)
        ]
    for model in built:
        hits += [(ONE_LEAF_SUBNETS, m, p) for m, p in _one_leaf_subnets(model, by_name)]
    return [finding_at(loaded, rule_id, message, path) for rule_id, message, path in hits]


def _one_leaf_subnets(
    model: DeviceModel, by_name: Mapping[str, DeviceModel]
) -> Iterator[tuple[str, Path_]]:
    """FLOW-007: per tenant VRF, the connected subnets of a leaf of a shared-VTEP pair (no
    advertise-pip) that the other leaf of the pair does not hold and has no route to from the
    pair's session in the VRF; link-local ones left out."""
    mlag = model.mlag
    if mlag is None or mlag.anycast_vtep is None or mlag.advertise_pip or model.evpn is None:
        return
    peer = by_name.get(mlag.peer)
    connected = {v.name: v.connected_route_map for v in model.evpn.vrfs}
    theirs = {
        str(addresses.interface(a.cidr).network)
        for i in (peer.interfaces if peer else ())
        for a in (i.ipv4, i.ipv6)
        if a is not None
    }
    lost: dict[str, list[str]] = {}
    why: dict[str, str] = {}
    for interface in model.interfaces:
        if interface.vrf not in connected:
            continue
        for address in (interface.ipv4, interface.ipv6):
            if address is None:
                continue
            subnet = addresses.interface(address.cidr).network
            if subnet.is_link_local or str(subnet) in theirs:
                continue
            stop = _not_shared(model, peer, interface.vrf, str(subnet), connected[interface.vrf])
            if stop is not None:
                lost.setdefault(interface.vrf, []).append(f"{subnet} ({interface.name})")
                why.setdefault(interface.vrf, stop)
    for vrf, subnets in sorted(lost.items()):
        yield (
            f"VRF {vrf}, {model.hostname}: its connected subnets {', '.join(subnets)} are EVPN "
            f"type-5 routes with the pair's shared VTEP {mlag.anycast_vtep} as next hop, and "
            f"{mlag.peer}, which the fabric sends about half of that traffic to, has no route "
            f"to them: {why[vrf]}. Traffic to these addresses (BGP to the far end's interface "
            "address, traceroute, monitoring) is lost half the time; tenant traffic to the "
            "Internet and the clouds is not (both leaves hold those routes)",
            ("sites", model.site, "devices", model.hostname),
        )


def _not_shared(
    model: DeviceModel, peer: DeviceModel | None, vrf: str, subnet: str, connected: str | None
) -> str | None:
    """Why the pair's session in `vrf` does not bring `subnet`, connected on `model`, to
    `peer` (None: it does): the connected redistribution, then each side's policy."""
    afi = "ipv6" if ":" in subnet else "ipv4"
    route = Route(subnet)
    if connected is not None and not evaluate(model, connected, route).accepted:
        return f"{connected} keeps it out of BGP"
    ours = _vrf_session(model, vrf, afi)
    theirs = _vrf_session(peer, vrf, afi) if peer is not None else None
    if ours is None or theirs is None or peer is None:
        return (
            f"the pair has no {addresses.FAMILY[afi]} BGP session in VRF {vrf} over the peer "
            "link, which needs the VRF's `vlan:` and L3VNI, and for IPv6 the peer VLAN's /127"
        )
    if not evaluate(model, ours.route_map_out, route).accepted:
        return f"{model.hostname} does not send it: {ours.route_map_out} denies it"
    sent = Route(subnet, as_path=() if ours.remote_as == model.bgp.asn else (model.bgp.asn,))
    if not evaluate(peer, theirs.route_map_in, sent).accepted:
        return f"{peer.hostname} does not take it: {theirs.route_map_in} denies it"
    return None


def _vrf_session(model: DeviceModel, vrf: str, afi: str) -> BgpNeighbor | None:
    """The session of an MLAG pair's leaf to the other in `vrf` and family `afi`."""
    return next((n for n in model.bgp.in_vrf(vrf) if n.kind == "mlag_vrf" and n.afi == afi), None)


def _defaults(
    loaded: LoadedIntent, site_name: str, models: Mapping[str, DeviceModel]
) -> Iterator[tuple[str, Path_]]:
    """Follow each Internet-facing handoff VRF's default route from the borders' Internet
    tables to the border leaves, in each family the VRF routes; report the first hop where it
    stops."""
    site = loaded.intent.sites[site_name]
    border_leaves = site.handoff.border_leaves if site.handoff is not None else []
    # an organisation aggregate that is the default route (ADDR-021's error, which says what
    # to fix) has every import drop the default as our own space: not this rule's to report
    owned = {_afi(str(a)) for a in _claimed_everything(loaded) if a.prefixlen == 0}
    for vrf_name, afi, path in _promised_defaults(loaded, site_name):
        if afi in owned:
            continue
        # the border leaves' sessions of this VRF and family, grouped by border
        by_border: dict[str, list[tuple[DeviceModel, BgpNeighbor]]] = {}
        for leaf in border_leaves:
            model = models.get(leaf)
            for n in model.bgp.in_vrf(vrf_name) if model else ():
                if n.kind == "handoff" and n.afi == afi:
                    by_border.setdefault(n.peer_device, []).append((model, n))  # type: ignore[arg-type]
        if not by_border and any(leaf in models for leaf in border_leaves):
            family = addresses.FAMILY[afi]
            yield (
                (
                    f"VRF {vrf_name}: it routes {family}, but no border leaf of the handoff "
                    f"has an {family} session in it, so no default route "
                    f"({DEFAULT_ROUTE[afi]}) reaches it: give the handoff links {family} "
                    f"addresses (pools.{P2P_POOL[afi]}) or drop the VRF's {family} gateways"
                ),
                path,
            )
            continue
        for border, sessions in sorted(by_border.items()):
            if border not in models:
                continue
            stop = _default_at_border(models, border, vrf_name, afi)
            for leaf_model, n in sessions:
                if stop is None:
                    stop = _default_to_leaf(models, border, leaf_model, n, vrf_name, afi)
                if stop is not None:
                    yield f"VRF {vrf_name}, {stop}", path
                    break


def _claimed_everything(loaded: LoadedIntent) -> list[addresses.Network]:
    """The organisation aggregates shorter than the Internet's table carries, the default
    route included: ADDR-021's errors. Every import policy drops what they hold as our own
    space, so the routes they swallow are that finding's, not a flow rule's too."""
    found = (ipaddress.ip_network(a) for a in loaded.intent.organisation.aggregates)
    return [a for a in found if a.prefixlen < GLOBAL_SHORTEST[_afi(str(a))]]


def _promised_defaults(loaded: LoadedIntent, site_name: str) -> Iterator[tuple[str, str, Path_]]:
    """(VRF, family, its `internet:` path) of each handoff VRF promising a default route, in
    each family the VRF routes: only there is one promised (an IPv6-only VRF has no IPv4
    handoff, generators/build/handoff.py carried_families)."""
    site = loaded.intent.sites[site_name]
    if site.handoff is None:
        return
    for vrf_name, vrf in sorted(site.handoff.vrfs.items()):
        if vrf.internet != "default":
            continue
        path: Path_ = ("sites", site_name, "handoff", "vrfs", vrf_name, "internet")
        for afi in (a for a in AFIS if vrf_routes(site, vrf_name, a)):
            yield vrf_name, afi, path


def _cut_off_defaults(
    loaded: LoadedIntent, site_name: str, models: Mapping[str, DeviceModel]
) -> Iterator[tuple[str, Path_]]:
    """FLOW-008: for each leaf of a shared-VTEP pair and each VRF of the handoff that promises
    a default route, in each family the VRF routes, follow the default route the other leaf
    takes from a border over the pair's session in the VRF. A border that has none, or that
    the handoff stops, is FLOW-003's; a VRF the pair cannot peer in is FLOW-007's."""
    for vrf_name, afi, path in _promised_defaults(loaded, site_name):
        for leaf in sorted(models.values(), key=lambda m: m.hostname):
            stop = _default_over_the_pair(models, leaf, vrf_name, afi)
            if stop is not None:
                yield f"VRF {vrf_name}, {leaf.hostname}: {stop}", path


def _default_over_the_pair(
    models: Mapping[str, DeviceModel], leaf: DeviceModel, vrf: str, afi: str
) -> str | None:
    """Why `leaf`, cut off from the borders, has no default route in `vrf` from its MLAG peer
    (None: it has, or nothing here to follow)."""
    mlag = leaf.mlag
    peer = models.get(mlag.peer) if mlag is not None else None
    if mlag is None or peer is None or mlag.anycast_vtep is None or mlag.advertise_pip:
        return None
    ours, theirs = _vrf_session(leaf, vrf, afi), _vrf_session(peer, vrf, afi)
    if ours is None or theirs is None:
        return None  # no session in the VRF: FLOW-007 names the VRF
    route = _default_from_a_border(models, peer, vrf, afi)
    if route is None:
        return None  # the peer gets none itself: FLOW-003
    handoff = any(n.kind == "handoff" and n.afi == afi for n in leaf.bgp.in_vrf(vrf))
    alone = (
        "cut off from the borders (its handoff links down)"
        if handoff
        else "with no handoff link of its own"
    )
    lost = (
        f"it has no default route ({DEFAULT_ROUTE[afi]}) {alone}, while the fabric still "
        f"sends it about half of the VRF's Internet traffic (the pair's shared VTEP "
        f"{mlag.anycast_vtep}): "
    )
    sent = evaluate(peer, theirs.route_map_out, route)
    if not sent.accepted:
        return (
            f"{lost}{peer.hostname} does not send it the default route it takes from the "
            f"borders ({theirs.route_map_out}, {_clause(sent)})"
        )
    tags = sent.large_communities if _sends_large(peer, theirs) else frozenset()
    crossed = Route(
        prefix=route.prefix,
        as_path=route.as_path if ours.remote_as == leaf.bgp.asn else (peer.bgp.asn, *route.as_path),
        large_communities=tags,
    )
    taken = evaluate(leaf, ours.route_map_in, crossed)
    if not taken.accepted:
        return (
            f"{lost}it does not take the default route from {peer.hostname} "
            f"({ours.route_map_in}, {_clause(taken)})"
        )
    return None


def _default_from_a_border(
    models: Mapping[str, DeviceModel], leaf: DeviceModel, vrf: str, afi: str
) -> Route | None:
    """The default route as `leaf` holds it in `vrf` from its first handoff session that brings
    it (FLOW-003's path), with the tags it holds it with: the border's class tag only where
    the border sends large communities on that session (Platform.sends_communities_unasked),
    and what the leaf's import sets; None when no session brings it."""
    for n in leaf.bgp.in_vrf(vrf):
        border = models.get(n.peer_device or "")
        if n.kind != "handoff" or n.afi != afi or border is None:
            continue
        if _default_at_border(models, border.hostname, vrf, afi) is not None:
            continue
        if _default_to_leaf(models, border.hostname, leaf, n, vrf, afi) is not None:
            continue
        back = next(
            (m for m in border.bgp.in_vrf(vrf) if m.peer_device == leaf.hostname and m.afi == afi),
            None,
        )
        held = _internet_default(border, afi)
        tags = held.large_communities if held and back and _sends_large(border, back) else ()
        arrived = Route(DEFAULT_ROUTE[afi], (border.bgp.asn,), large_communities=frozenset(tags))
        taken = evaluate(leaf, n.route_map_in, arrived)
        return Route(arrived.prefix, arrived.as_path, large_communities=taken.large_communities)
    return None


def _sends_large(model: DeviceModel, n: BgpNeighbor) -> bool:
    """Whether the device sends large communities (our class tags) on session `n`."""
    platform = PLATFORMS[model.platform]
    return "large" in platform.communities_sent(n.send_communities, n.remote_as == model.bgp.asn)


def _cloud_routes(
    sessions: list[ExternalSession], models: Mapping[str, DeviceModel]
) -> Iterator[tuple[str, Path_]]:
    """Each agreed cloud prefix passes its session's import policy and reaches every VTEP of
    the VRF over the VRF's one route target."""
    for s in sessions:
        model = models.get(s.device)
        if model is None or s.kind not in CLOUD_KINDS or s.vrf is None or not s.import_prefixes:
            continue
        declared = s.source[:-1] if s.kind == "azure" else s.source
        n = next((m for m in model.bgp.in_vrf(s.vrf) if m.address == s.peer_address), None)
        own = next((v for v in model.evpn.vrfs if v.name == s.vrf), None) if model.evpn else None
        if n is None or own is None:
            continue  # no session or no VRF to follow: FLOW-002
        for index, prefix in enumerate(s.import_prefixes):
            if _afi(prefix) != s.afi:
                continue
            path: Path_ = (*declared, "receive", index)
            where = f"VRF {s.vrf}, {model.hostname}"
            verdict = evaluate(model, n.route_map_in, Route(prefix=prefix, as_path=(s.remote_as,)))
            if not verdict.accepted:
                yield (
                    f"{where}: {_party(n)} drops the agreed {prefix} at its import policy "
                    f"{n.route_map_in} ({_clause(verdict)}), so the route stops at "
                    f"{model.hostname}",
                    path,
                )
                continue
            stop = _across_the_pair(models, model, s, verdict, prefix)
            if stop is not None:
                yield f"{where}: {stop}", path
                continue
            for leaf in sorted(models.values(), key=lambda m: m.hostname):
                theirs = (
                    next((v for v in leaf.evpn.vrfs if v.name == s.vrf), None)
                    if leaf.evpn
                    else None
                )
                if theirs is not None and theirs.route_target != own.route_target:
                    yield (
                        f"{where}: {leaf.hostname} imports VRF {s.vrf} with route target "
                        f"{theirs.route_target}, {model.hostname} exports "
                        f"{own.route_target}, so {prefix} stops at {model.hostname}",
                        path,
                    )


def _across_the_pair(
    models: Mapping[str, DeviceModel],
    model: DeviceModel,
    s: ExternalSession,
    verdict: Verdict,
    prefix: str,
) -> str | None:
    """Where the border leaf shares its VTEP address with an MLAG peer (EOS), the fabric sends
    about half of the traffic for the route to the peer: the route must cross to it over the
    pair's session in the VRF, through this leaf's export and the peer's import policy. None
    when it does, or when there is no such session (PLAT-028 refuses that design)."""
    mlag = model.mlag
    peer = models.get(mlag.peer) if mlag is not None else None
    if mlag is None or peer is None or mlag.anycast_vtep is None or mlag.advertise_pip:
        return None
    if s.vrf is None:
        return None
    out = next((n for n in model.bgp.in_vrf(s.vrf) if _pair_session(n, s.afi)), None)
    back = next((n for n in peer.bgp.in_vrf(s.vrf) if _pair_session(n, s.afi)), None)
    if out is None or back is None:
        return None
    learned = Route(
        prefix=prefix, as_path=(s.remote_as,), large_communities=verdict.large_communities
    )
    sent = evaluate(model, out.route_map_out, learned)
    if not sent.accepted:
        return (
            f"its session to MLAG peer {peer.hostname} in the VRF does not send {prefix} "
            f"(export policy {out.route_map_out}, {_clause(sent)}), so {peer.hostname}, which "
            f"shares the VTEP {mlag.anycast_vtep}, drops the traffic the fabric sends it"
        )
    path = (s.remote_as,) if back.remote_as == peer.bgp.asn else (model.bgp.asn, s.remote_as)
    crossed = Route(prefix=prefix, as_path=path, large_communities=sent.large_communities)
    taken = evaluate(peer, back.route_map_in, crossed)
    if not taken.accepted:
        return (
            f"{peer.hostname}, which shares the VTEP {mlag.anycast_vtep}, drops {prefix} from "
            f"its MLAG peer at {back.route_map_in} ({_clause(taken)}), and with it the "
            "traffic the fabric sends it"
        )
    return None


def _pair_session(n: BgpNeighbor, afi: str) -> bool:
    return n.kind == "mlag_vrf" and n.afi == afi


def _internet_default(model: DeviceModel, afi: str) -> Route | None:
    """The default route as this border's Internet table holds it: from an Internet session
    whose import policy admits it (with the attributes that policy sets)."""
    for n in model.bgp.default_vrf_neighbors:
        if n.kind not in INTERNET_KINDS or n.afi != afi:
            continue
        route = Route(prefix=DEFAULT_ROUTE[afi], as_path=(n.remote_as,))
        verdict = evaluate(model, n.route_map_in, route)
        if verdict.accepted:
            return Route(
                prefix=route.prefix,
                as_path=route.as_path,
                large_communities=verdict.large_communities,
            )
    return None


def _with_pair(models: Mapping[str, DeviceModel], border: str) -> list[DeviceModel]:
    """The border's model, then its iBGP pair's (each once, however many sessions join them)."""
    pair = dict.fromkeys(
        n.peer_device for n in models[border].bgp.default_vrf_neighbors if n.kind == "border_ibgp"
    )
    return [models[name] for name in (border, *pair) if name in models]


def _defaults_refused(
    models: Mapping[str, DeviceModel], border: str, afi: str
) -> list[tuple[BgpNeighbor, Verdict]]:
    """The Internet sessions of the border and its iBGP pair, in family `afi`, that accept a
    default route (`accept_default`: their import policy has no clause refusing the default
    itself) but drop it at another clause (a private ASN, say): there the remedy is that
    clause's, not `accept_default`."""
    refused = []
    for model in _with_pair(models, border):
        for n in model.bgp.default_vrf_neighbors:
            if n.kind not in INTERNET_KINDS or n.afi != afi:
                continue
            route = Route(prefix=DEFAULT_ROUTE[afi], as_path=(n.remote_as,))
            verdict = evaluate(model, n.route_map_in, route)
            if not verdict.accepted and verdict.description != DEFAULT_REFUSED:
                refused.append((n, verdict))
    return refused


def _senders_without_family(models: Mapping[str, DeviceModel], border: str, afi: str) -> list[str]:
    """The parties whose sessions to the border or its iBGP pair admit a default route in the
    other family but that have no session of `afi` there: the default `afi` lacks for want
    of a session, not of `accept_default`."""
    other = "ipv4" if afi == "ipv6" else "ipv6"
    senders: set[str] = set()
    parties: set[str] = set()
    for model in _with_pair(models, border):
        for n in model.bgp.default_vrf_neighbors:
            if n.kind not in INTERNET_KINDS or n.party is None:
                continue
            if n.afi == afi:
                parties.add(n.party)
            elif (
                n.afi == other
                and evaluate(
                    model,
                    n.route_map_in,
                    Route(prefix=DEFAULT_ROUTE[other], as_path=(n.remote_as,)),
                ).accepted
            ):
                senders.add(n.party)
    return sorted(senders - parties)


def _default_at_border(
    models: Mapping[str, DeviceModel], border: str, vrf_name: str, afi: str
) -> str | None:
    """None when the border holds the default route in the VRF; else where and why not."""
    model = models.get(border)
    if model is None:
        return None  # judged where the whole site is built (a partial set has no border)
    route = _internet_default(model, afi)
    if route is None:  # over the pair's iBGP, from the other border's Internet table
        for n in model.bgp.default_vrf_neighbors:
            other = models.get(n.peer_device)
            if n.kind != "border_ibgp" or n.afi != afi or other is None:
                continue
            theirs = _internet_default(other, afi)
            if theirs is None:
                continue
            back = next(
                (
                    m
                    for m in other.bgp.default_vrf_neighbors
                    if m.peer_device == border and m.afi == afi
                ),
                None,
            )
            if back is None or not evaluate(other, back.route_map_out, theirs).accepted:
                continue
            if evaluate(model, n.route_map_in, theirs).accepted:
                route = theirs
                break
    if route is None:
        missing = _senders_without_family(models, border, afi)
        if missing:
            sent_in = addresses.FAMILY["ipv4" if afi == "ipv6" else "ipv6"]
            family = addresses.FAMILY[afi]
            many = len(missing) > 1
            return (
                f"{border}: {', '.join(missing)} send{'' if many else 's'} {border} (or its "
                f"pair, over iBGP) a default route in {sent_in} but ha{'ve' if many else 's'} "
                f"no {family} session, so no {DEFAULT_ROUTE[afi]} reaches {border}'s Internet "
                f"table and the route stops at {border}: give {'them' if many else 'it'} an "
                f"{family} session (`{afi}` and `peer_{afi}` on {'their' if many else 'its'} "
                "circuits), or set `internet: none`"
            )
    if route is None:
        unheard = (
            f"{border}: no session of {border}'s Internet table (nor of its pair's, over iBGP) "
            f"admits a default route ({DEFAULT_ROUTE[afi]}), so {border} has none to give the "
            f"VRF and the route stops at {border}"
        )
        refused = _defaults_refused(models, border, afi)
        if refused:
            (n, verdict), more = refused[0], len(refused) - 1
            also = f" (and {more} more session{'s' if more > 1 else ''})" if more else ""
            return (
                f"{unheard}: {_party(n)} accepts a default route, but its import policy "
                f"{n.route_map_in} drops it at {_clause(verdict)}{also}; mend what that "
                "clause refuses, or set `internet: none`"
            )
        return (
            f"{unheard}: set `accept_default: true` on a transit that sends one, or set "
            "`internet: none`"
        )
    plain = next((v for v in model.vrfs if v.name == vrf_name), None)
    leak = plain.leak(afi) if plain is not None else None
    if leak is None or leak.import_from_default is None:
        return (
            f"{border}: VRF {vrf_name} does not import from {border}'s Internet table, so the "
            f"default route stops at {border}"
        )
    verdict = evaluate(model, leak.import_from_default, route)
    if not verdict.accepted:
        return (
            f"{border}: the leak policy {leak.import_from_default} denies the default route "
            f"({_clause(verdict)}), so it stops at {border}"
        )
    return None


def _default_to_leaf(
    models: Mapping[str, DeviceModel],
    border: str,
    leaf: DeviceModel,
    n: BgpNeighbor,
    vrf_name: str,
    afi: str,
) -> str | None:
    """None when the border's handoff session sends the default route and the border leaf's
    session `n` accepts it; else where and why not."""
    model = models[border]
    own = next((i for i in leaf.interfaces if i.name == n.local_interface), None)
    address = (own.ipv6 if afi == "ipv6" else own.ipv4) if own is not None else None
    back = next(
        (m for m in model.bgp.in_vrf(vrf_name) if address and m.address == address.ip),
        None,
    )
    route = Route(prefix=DEFAULT_ROUTE[afi], as_path=(model.bgp.asn,))
    if back is not None:
        verdict = evaluate(model, back.route_map_out, route)
        if not verdict.accepted:
            return (
                f"{border}: its handoff policy {back.route_map_out} toward {leaf.hostname} "
                f"denies the default route ({_clause(verdict)}), so it stops at {border}"
            )
    verdict = evaluate(leaf, n.route_map_in, route)
    if not verdict.accepted:
        return (
            f"{leaf.hostname}: its handoff policy {n.route_map_in} from {border} denies the "
            f"default route ({_clause(verdict)}), so it stops at {leaf.hostname}"
        )
    return None


def _clause(verdict: Verdict) -> str:
    return (
        f"clause {verdict.clause}, {verdict.description}"
        if verdict.clause is not None
        else "no clause matches it"
    )


def _vrf_subnets(models: Iterable[DeviceModel]) -> dict[str, set[str]]:
    """Every tenant VRF's gateway subnets anywhere in the fabric: EVPN brings them to each
    VTEP of the VRF, the border leaves included."""
    subnets: dict[str, set[str]] = {}
    for model in models:
        for vlan in model.evpn.vlans if model.evpn else ():
            for address in (vlan.gateway_v4, vlan.gateway_v6):
                if address is not None:
                    subnets.setdefault(vlan.vrf, set()).add(_net(address.cidr))
    return subnets


def _candidates(model: DeviceModel, vrf: str | None, subnets: set[str]) -> list[Route]:
    """Routes a session's VRF holds besides the agreed ones: each must stop at its export."""
    external = frozenset({f"{model.bgp.asn}:1:100"})  # as a transit tags what it sends
    routes = [
        Route(prefix="0.0.0.0/0", as_path=(64496,), large_communities=external),
        Route(prefix="::/0", as_path=(64496,), large_communities=external),
        Route(prefix="0.0.0.0/0", as_path=(model.bgp.asn,)),  # the handoff's default
        Route(prefix="::/0", as_path=(model.bgp.asn,)),
    ]
    origins = _originated(model, vrf) | subnets
    if vrf is None:
        origins |= {_net(lo.ipv4.cidr) for lo in model.loopbacks if lo.ipv4}
        for plain in model.vrfs:  # a tenant's public more specifics, leaked in
            for leak in plain.leaks:
                if leak.export_to_default is None:
                    continue
                for rm in model.route_maps:
                    if rm.name != leak.export_to_default:
                        continue
                    lists = {e.match_prefix_list for e in rm.entries if e.match_prefix_list}
                    origins |= {
                        e.prefix
                        for pl in model.prefix_lists
                        if pl.name in lists
                        for e in pl.entries
                    }
    routes += [Route(prefix=p, as_path=()) for p in sorted(origins)]
    return routes


def _exports_exact(
    model: DeviceModel, flows: dict[tuple[str, str | None], _Flow], subnets: dict[str, set[str]]
) -> Iterator[tuple[str, str, Path_]]:
    for n in model.bgp.neighbors:
        flow = flows.get((n.address, n.vrf))
        if flow is None or n.kind not in (*CLOUD_KINDS, *INTERNET_KINDS):
            continue
        agreed = {_net(p) for p in flow.export_paths}
        vrf_subnets = subnets.get(n.vrf, set()) if n.vrf is not None else set()
        for route in _candidates(model, n.vrf, vrf_subnets):
            if _afi(route.prefix) != n.afi or _net(route.prefix) in agreed:
                continue
            verdict = evaluate(model, n.route_map_out, route)
            if verdict.accepted:
                yield (
                    EXPORTS_EXACT,
                    f"VRF {n.vrf or GLOBAL_VRF}, {model.hostname}: {_party(n)} would also "
                    f"export {route.prefix}, which is not agreed for it: its export policy "
                    f"{n.route_map_out} passes it ({_clause(verdict)}); the route leaks at "
                    f"{model.hostname}",
                    flow.source,
                )


def _rpki_reachable(model: DeviceModel) -> Iterator[tuple[str, str, Path_]]:
    """Each RPKI cache has a connected subnet or a static route in the default VRF."""
    if not model.bgp.rpki_caches:
        return  # most devices validate nothing: no subnet to parse
    if model.role != "border":
        return  # an Internet circuit off the borders: EDGE-014 says where it belongs
    covering = [
        addresses.interface(address.cidr).network
        for i in (*model.loopbacks, *model.interfaces)
        if i.vrf is None and i.kind != "management"
        for address in (i.ipv4, i.ipv6)
        if address is not None and address.prefixlen < (32 if ":" not in address.ip else 128)
    ]
    covering += [
        ipaddress.ip_network(r.prefix)
        for r in model.static_routes
        if r.vrf is None and not r.discard
    ]
    for index, cache in enumerate(model.bgp.rpki_caches):
        address = ipaddress.ip_address(cache.address)
        if any(address.version == net.version and address in net for net in covering):
            continue
        yield (
            RPKI_REACHABLE,
            f"default VRF, {model.hostname}: RPKI cache {cache.address} has no route on "
            f"{model.hostname} (no connected subnet or static route covers it in the default "
            "VRF; the underlay carries loopbacks only and the Internet imports drop private "
            "space), so every route stays 'not found' and the invalid drop never fires: put "
            "the cache on the services LAN (peering.edge.services) or give the border a port "
            "on its subnet",
            ("sites", model.site, "peering", "edge", "rpki_caches", index, "address"),
        )


def _imports_reach(
    loaded: LoadedIntent, model: DeviceModel, sessions: list[ExternalSession]
) -> Iterator[tuple[str, str, Path_]]:
    """FLOW-009: each permit entry of an external session's allow-list (its `import_prefixes`,
    or a default-VRF cloud attachment's `receive:`) of which no route, at any length the entry
    admits, passes the session's whole import policy. A tenant VRF's cloud prefixes are
    FLOW-006's; a documentation prefix in production is ADDR-009's, at the same line; a route
    dropped for its AS path, not its prefix, is the party's ASN's problem, not the entry's."""
    production = loaded.intent.sites[model.site].environment == "production"
    claimed = _claimed_everything(loaded)
    mine = {(s.peer_address, s.vrf): s for s in sessions if s.device == model.hostname}
    for n in model.bgp.neighbors:
        s = mine.get((n.address, n.vrf))
        if s is None or not s.import_prefixes or n.kind not in (*CLOUD_KINDS, *INTERNET_KINDS):
            continue
        if n.kind in CLOUD_KINDS and n.vrf is not None:
            continue  # FLOW-006 follows it to every leaf of the VRF
        declared = s.source[:-1] if s.kind == "azure" else s.source
        key = "receive" if n.kind in CLOUD_KINDS else "import_prefixes"
        written = {_net(p): i for i, p in enumerate(s.import_prefixes)}
        for allow, entry in _allow_list(model, n.route_map_in):
            net = addresses.network(entry.prefix)
            if production and documentation_prefix(net):
                continue  # ADDR-009: no documentation prefix in production
            if any(net.version == a.version and net.subnet_of(a) for a in claimed):  # type: ignore[arg-type]
                continue  # our own space by an aggregate ADDR-021 refuses
            stops = _no_route_passes(model, n, entry)
            if stops is None:
                continue
            index = written.get(_net(entry.prefix))
            afi = _afi(entry.prefix)
            shortest, longest = GLOBAL_SHORTEST[afi], GLOBAL_LONGEST[afi]
            takes = (
                f"{addresses.FAMILY[afi]} /{shortest} to /{longest}, "
                if n.kind in INTERNET_KINDS
                else ""
            )
            yield (
                IMPORT_REACHES,
                f"VRF {n.vrf or GLOBAL_VRF}, {model.hostname}: {_party(n)} is to accept "
                f"{entry.prefix} (its allow-list {allow} permits {_entry_range(entry)}), but "
                f"its import policy {n.route_map_in} drops every route of it, at "
                f"{' and '.join(stops)}; the route stops at {model.hostname}: agree with "
                f"{s.party} prefixes the import policy takes ({takes}outside the bogon ranges, "
                f"our own address space and the IX peering LANs), or remove it from {key}",
                (*declared, key, index) if index is not None else declared,
            )


def _allow_list(model: DeviceModel, route_map: str) -> list[tuple[str, PrefixListEntry]]:
    """(list name, entry) of each permit entry of the prefix lists the import policy's permit
    clauses match on: what the session's intent promises to accept."""
    (rm,) = [m for m in model.route_maps if m.name == route_map]
    names = dict.fromkeys(
        e.match_prefix_list for e in rm.entries if e.action == "permit" and e.match_prefix_list
    )
    return [
        (pl.name, e)
        for name in names
        for pl in model.prefix_lists
        if pl.name == name
        for e in pl.entries
        if e.action == "permit"
    ]


def _no_route_passes(
    model: DeviceModel, n: BgpNeighbor, entry: PrefixListEntry
) -> list[str] | None:
    """The clauses of session `n`'s import policy that drop every route of the allow-list
    `entry` (first the entry's own prefix), or None when one passes, or one is dropped for
    something other than its prefix (an AS-path clause: the party's ASN, EDGE-010's)."""
    (rm,) = [m for m in model.route_maps if m.name == n.route_map_in]
    by_seq = {e.seq: e for e in rm.entries}
    read = {e.match_prefix_list for e in rm.entries if e.match_prefix_list}
    bounds = [
        (addresses.network(e.prefix), *_lengths(e))
        for pl in model.prefix_lists
        if pl.name in read
        for e in pl.entries
    ]
    stops: list[str] = []
    for prefix in _entry_routes(entry, bounds):
        verdict = evaluate_import(model, n, Route(prefix=prefix, as_path=(n.remote_as,)))
        if verdict.accepted:
            return None
        clause = by_seq.get(verdict.clause) if verdict.clause is not None else None
        if verdict.clause is not None and (clause is None or clause.match_prefix_list is None):
            return None
        stop = (
            f"clause {verdict.clause} ({verdict.description})"
            if verdict.clause is not None
            else verdict.description
        )
        stops = list(dict.fromkeys([*stops, stop]))
    return stops or None


Bound = tuple[addresses.Network, int, int]  # a prefix list entry: its prefix, lengths it admits


def _lengths(entry: PrefixListEntry) -> tuple[int, int]:
    """The prefix lengths a prefix list entry admits, as the evaluator reads ge and le, from
    no shorter than its own prefix."""
    net = addresses.network(entry.prefix)
    low, high = admitted_lengths(entry, net.prefixlen, net.max_prefixlen)
    return max(low, net.prefixlen), high


def _entry_range(entry: PrefixListEntry) -> str:
    ge = f" ge {entry.ge}" if entry.ge is not None else ""
    le = f" le {entry.le}" if entry.le is not None else ""
    return f"{entry.prefix}{ge}{le}"


def _entry_routes(entry: PrefixListEntry, bounds: list[Bound]) -> Iterator[str]:
    """One route of each kind the entry admits, as the policy's prefix lists tell routes
    apart, the entry's own prefix first: a route's verdict depends on its length and on which
    list entries hold it, so per length where some entry's bounds change, one route per
    region (the entry's prefix, or a list entry's prefix inside it) outside the regions
    nested in it."""
    net = addresses.network(entry.prefix)
    low, high = _lengths(entry)
    cuts = {low} | {c for b, lo, hi in bounds for c in (b.prefixlen, lo, hi + 1) if low < c <= high}
    seen: set[str] = set()
    for length in sorted(cuts):
        inside = [
            b for b, _, _ in bounds if net.prefixlen < b.prefixlen <= length and _within(b, net)
        ]
        for region in dict.fromkeys([net, *inside]):
            rest = _outside(region, [b for b in inside if b != region and _within(b, region)])
            if not rest:
                continue
            route = str(addresses.network(f"{rest[0].network_address}/{length}"))
            if route not in seen:
                seen.add(route)
                yield route


def _within(net: addresses.Network, holder: addresses.Network) -> bool:
    return net.version == holder.version and net.subnet_of(holder)  # type: ignore[arg-type]


def _outside(region: addresses.Network, nested: list[addresses.Network]) -> list[addresses.Network]:
    """The parts of `region` outside every network of `nested` (each inside it), lowest
    first."""
    parts = [region]
    for hole in nested:
        kept: list[addresses.Network] = []
        for part in parts:
            if _within(part, hole):
                continue
            if _within(hole, part):
                kept += part.address_exclude(hole)  # type: ignore[arg-type]
            else:
                kept.append(part)
        parts = kept
    return sorted(parts, key=lambda p: (int(p.network_address), p.prefixlen))


def _flows(
    loaded: LoadedIntent, model: DeviceModel, sessions: list[ExternalSession]
) -> dict[tuple[str, str | None], _Flow]:
    """(peer address, VRF) -> the intent behind each external session of the device."""
    flows: dict[tuple[str, str | None], _Flow] = {}
    aggregates = loaded.intent.organisation.aggregates
    for s in sessions:
        if s.device != model.hostname:
            continue
        # an Azure session's source is its link (primary/secondary); vrf and advertise are
        # written on the peering above it
        declared = s.source[:-1] if s.kind == "azure" else s.source
        if s.kind in CLOUD_KINDS:
            exports = {p: (*declared, "advertise", i) for i, p in enumerate(s.export_prefixes)}
        else:
            exports = {p: ("organisation", "aggregates", i) for i, p in enumerate(aggregates)}
            for i, p in enumerate(loaded.intent.sites[model.site].aggregates.public):
                exports.setdefault(p, ("sites", model.site, "aggregates", "public", i))
            exports = {p: exports.get(p, declared) for p in s.export_prefixes}
        flows[(s.peer_address, s.vrf)] = _Flow(
            source=declared, vrf_path=(*declared, "vrf"), export_paths=exports, vrf=s.vrf
        )
    return flows


def _device_vrfs(model: DeviceModel) -> set[str]:
    names = {v.name for v in model.vrfs}
    if model.evpn is not None:
        names |= {v.name for v in model.evpn.vrfs}
    return names


def _session_vrfs(
    model: DeviceModel, flows: dict[tuple[str, str | None], _Flow]
) -> Iterator[tuple[str, str, Path_]]:
    known = _device_vrfs(model)
    device_path: Path_ = ("sites", model.site, "devices", model.hostname)
    for n in model.bgp.neighbors:
        if n.vrf is None or n.vrf in known:
            continue
        flow = flows.get((n.address, n.vrf))
        if flow is not None:
            path = flow.vrf_path
        elif n.kind == "handoff":
            path = ("sites", model.site, "handoff", "vrfs", n.vrf)
        else:
            path = device_path
        yield (
            SESSION_VRF_EXISTS,
            f"VRF {n.vrf}, {model.hostname}: the session to {n.address} ({n.description}) sits "
            f"in VRF {n.vrf}, which {model.hostname} does not carry (a tenant VRF without an "
            f"L3VNI is placed only where its networks are); the route stops at "
            f"{model.hostname}: give the VRF an l3vni or serve another VRF",
            path,
        )


def _originated(model: DeviceModel, vrf: str | None) -> set[str]:
    """The prefixes the device itself puts into BGP in a VRF: `network` aggregates (each with
    its discard anchor or loopback) and, in a tenant VRF, its SVI subnets."""
    if vrf is None:
        return {_net(p) for p in (*model.bgp.networks_v4, *model.bgp.networks_v6)}
    origins: set[str] = set()
    if model.evpn is not None:
        for evrf in model.evpn.vrfs:
            if evrf.name == vrf:
                origins |= {_net(p) for p in (*evrf.networks_v4, *evrf.networks_v6)}
        for vlan in model.evpn.vlans:
            if vlan.svi is None or vlan.vrf != vrf:
                continue
            for address in (vlan.gateway_v4, vlan.gateway_v6, vlan.svi.ipv4, vlan.svi.ipv6):
                if address is not None:
                    origins.add(_net(address.cidr))
    return origins


def _exports(
    model: DeviceModel, flows: dict[tuple[str, str | None], _Flow]
) -> Iterator[tuple[str, str, Path_]]:
    for n in model.bgp.neighbors:
        if n.kind not in (*CLOUD_KINDS, *INTERNET_KINDS):
            continue
        flow = flows.get((n.address, n.vrf))
        if flow is None:
            continue
        if n.kind in CLOUD_KINDS and n.vrf is not None and model.role not in VTEP_ROLES:
            continue  # a private cloud circuit off the VTEPs: CLOUD-009 says where it belongs
        vrf_name = n.vrf or GLOBAL_VRF
        origins = _originated(model, n.vrf)
        for prefix, path in flow.export_paths.items():
            if _afi(prefix) != n.afi:
                continue
            where = f"VRF {vrf_name}, {model.hostname}"
            if _net(prefix) not in origins:
                hint = (
                    "name the tenant VRF it serves (vrf: NAME), whose subnets the prefix covers"
                    if n.kind in CLOUD_KINDS and n.vrf is None
                    else f"advertise only prefixes that hold subnets of VRF {vrf_name}"
                    if n.kind in CLOUD_KINDS
                    else "originate it (an aggregate with a discard anchor)"
                )
                yield (
                    EXPORT_ORIGINATED,
                    f"{where}: {_party(n)} exports {prefix}, which nothing originates in VRF "
                    f"{vrf_name} on {model.hostname} (no aggregate with a discard anchor, no "
                    f"SVI subnet); the route stops at {model.hostname}: {hint}",
                    flow.source if n.kind in CLOUD_KINDS and n.vrf is None else path,
                )
                continue
            verdict = evaluate(model, n.route_map_out, Route(prefix=prefix))
            if not verdict.accepted:
                clause = (
                    f"clause {verdict.clause} ({verdict.description})"
                    if verdict.clause is not None
                    else "no clause matches it"
                )
                yield (
                    EXPORT_ORIGINATED,
                    f"{where}: {_party(n)} should export {prefix}, originated in VRF "
                    f"{vrf_name}, but its export policy {n.route_map_out} denies it at "
                    f"{clause}; the route stops at {model.hostname}",
                    path,
                )


def _party(n: BgpNeighbor) -> str:
    return f"the session to {n.address} ({n.description})"


def _net(prefix: str) -> str:
    return str(addresses.interface(prefix).network)


def _afi(prefix: str) -> str:
    return "ipv6" if ":" in prefix else "ipv4"
