"""LIMIT-*: prefix and route limits against what a session is built to carry, on the built
models.

A limit below what a session carries in normal operation is an outage, not a safeguard: every
such session exceeds it as soon as it comes up and is torn down (on IOS-XR without `restart`
it stays down until cleared by hand). The handoff's limits are raised to what their import
policies admit where they build them, the border pair's to what the other border holds
(build/border_pair.py); the underlay's limit is one number
for a whole site (`underlay.max_prefix`), so LIMIT-001 counts what the site's underlay carries
on the built models: every route a device originates and its underlay export policy passes,
as the receiving device's underlay import policy admits it (validators/policy_eval.py).
LIMIT-002 counts the EVPN routes a VTEP imports before any host: the flood lists and the
other VTEPs' IP prefix routes (gateway subnets, aggregates) of the VRFs it carries.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from meetme.generators.model import BgpNeighbor, DeviceModel
from meetme.validators.engine import finding_at, reported_elsewhere, rule
from meetme.validators.policy_eval import PolicyView, Route, evaluate

from meetme.core.addresses import FAMILY, interface
from meetme.core.findings import Finding
from meetme.intent.loader import LoadedIntent

UNDERLAY_LIMIT = "LIMIT-001"
EVPN_LIMIT = "LIMIT-002"


rule(
    UNDERLAY_LIMIT,
    "error",
    "Every underlay session's prefix limit holds the routes the site's underlay carries",
    "Each underlay session of a leaf carries every loopback, VTEP address and SRv6 locator the "
    "site's other devices advertise, so a site with N devices needs a limit of about N per "
    "family. `underlay.max_prefix` below that tears down every underlay session of the site "
    "the moment it converges, and with them every overlay session riding on the loopbacks.",
    "docs/standards.md#limit-001",
)(reported_elsewhere)  # from the device models: `limit_findings`


rule(
    EVPN_LIMIT,
    "error",
    "Every EVPN session's route limit holds the routes the fabric sends before any host",
    "Before a single host is learned, each VTEP receives an inclusive-multicast route (RFC "
    "7432 section 11.1) from every other VTEP for every L2VNI the two share, the flood list "
    "of each VNI, and an IP prefix route (RFC 9136) from every other VTEP for every gateway "
    "subnet and aggregate it originates in a VRF the two share. An overlay `max_routes` below "
    "that tears every EVPN session of the VTEP down as the fabric converges, and host "
    "(MAC/IP) routes only add to the count.",
    "docs/standards.md#limit-002",
)(reported_elsewhere)  # from the device models: `limit_findings`


@dataclass(frozen=True)
class _Need:
    device: str
    routes: int  # what the device learns over its underlay (or EVPN) sessions
    limit: int  # the lowest limit among those sessions


def limit_findings(loaded: LoadedIntent, models: Iterable[DeviceModel]) -> list[Finding]:
    """LIMIT-001 and LIMIT-002 per site: one finding each, naming the device that needs most."""
    by_site: dict[str, dict[str, DeviceModel]] = {}
    for model in models:
        by_site.setdefault(model.site, {})[model.hostname] = model
    found: list[Finding] = []
    for site, mine in sorted(by_site.items()):
        found += _underlay_limits(loaded, site, mine)
        found += _evpn_limits(loaded, site, mine)
    return found


def _underlay_limits(
    loaded: LoadedIntent, site: str, models: dict[str, DeviceModel]
) -> Iterator[Finding]:
    """LIMIT-001, per family."""
    view = PolicyView(models)  # the policies read once for the whole site
    for afi in ("ipv4", "ipv6"):
        worst = _most_short(_needs(models, view, afi))
        if worst is None:
            continue
        message = (
            f"site {site}: {worst.device} learns {worst.routes} {FAMILY[afi]} routes over each "
            "underlay session (the loopbacks, VTEP addresses and SRv6 locators the site's other "
            f"devices advertise) but its sessions accept {worst.limit} (underlay.max_prefix): "
            f"every such session exceeds its limit and is torn down; raise it to at least "
            f"{worst.routes}"
        )
        yield finding_at(loaded, UNDERLAY_LIMIT, message, ("sites", site, "underlay", "max_prefix"))


def _evpn_limits(
    loaded: LoadedIntent, site: str, models: dict[str, DeviceModel]
) -> Iterator[Finding]:
    """LIMIT-002."""
    worst = _most_short(_evpn_needs(models))
    if worst is None:
        return
    message = (
        f"site {site}: {worst.device} receives at least {worst.routes} EVPN routes over each "
        "overlay session before any host is learned (an inclusive-multicast route from every "
        "other VTEP for each L2VNI they share, and an IP prefix route from every other VTEP "
        "for each gateway subnet and aggregate it originates in a VRF they share) but its "
        f"sessions accept {worst.limit} "
        "(evpn.max_routes): every such session exceeds its limit and is torn down; raise it "
        f"to at least {worst.routes}, with room for the hosts' routes"
    )
    yield finding_at(loaded, EVPN_LIMIT, message, ("sites", site, "evpn", "max_routes"))


def _most_short(needs: Iterable[_Need]) -> _Need | None:
    """The device needing the most routes above its limit (the later name on a tie); None when
    every limit holds."""
    short = [n for n in needs if n.routes > n.limit]
    return max(short, key=lambda n: (n.routes, n.device)) if short else None


def _evpn_needs(models: dict[str, DeviceModel]) -> Iterator[_Need]:
    """Each VTEP with EVPN sessions: the routes it imports before any host, from every other
    VTEP: an inclusive-multicast route per L2VNI the two carry (the route target is the VNI's
    on every VTEP), and an IP prefix route per subnet the other originates in a VRF the two
    carry (the route target is the VRF's on every VTEP)."""
    vteps = {n: m for n, m in models.items() if m.evpn is not None and m.evpn.vtep}
    vnis = {name: {vlan.vni for vlan in m.evpn.vlans} for name, m in vteps.items() if m.evpn}
    prefixes = {name: _prefix_routes(m) for name, m in vteps.items()}
    carriers: dict[int, int] = {}  # VNI -> how many VTEPs carry it
    for carried in vnis.values():
        for vni in carried:
            carriers[vni] = carriers.get(vni, 0) + 1
    in_vrf: dict[str, int] = {}  # VRF -> the IP prefix routes all its VTEPs originate
    for originated in prefixes.values():
        for vrf, count in originated.items():
            in_vrf[vrf] = in_vrf.get(vrf, 0) + count
    for name, carried in sorted(vnis.items()):
        evpn = models[name].evpn
        if evpn is None or not evpn.peers:
            continue
        flood = sum(carriers[vni] - 1 for vni in carried)
        own = prefixes[name]
        type5 = sum(in_vrf[vrf] - count for vrf, count in own.items())
        yield _Need(name, flood + type5, min(p.max_routes for p in evpn.peers))


def _prefix_routes(model: DeviceModel) -> dict[str, int]:
    """VRF -> the IP prefix routes (RFC 9136) the VTEP originates in it before any host: each
    gateway subnet of its networks in the VRF, through the VRF's connected redistribution (every
    platform's templates redistribute them), and each aggregate it originates there. Each VRF
    it carries, with none too. A floor: its other connected subnets (handoff and cloud links)
    and what its sessions learn come on top."""
    evpn = model.evpn
    if evpn is None:
        return {}
    found: dict[str, set[str]] = {vrf.name: set() for vrf in evpn.vrfs}
    redistributes = {vrf.name: vrf.connected_route_map for vrf in evpn.vrfs}
    for vlan in evpn.vlans:
        if vlan.vrf not in found:
            continue  # a VRF it does not route here: no type-5 of it
        for gateway in (vlan.gateway_v4, vlan.gateway_v6):
            if gateway is None:
                continue
            subnet = str(interface(gateway.cidr).network)
            policy = redistributes[vlan.vrf]
            if policy is None or evaluate(model, policy, Route(subnet)).accepted:
                found[vlan.vrf].add(subnet)
    for vrf in evpn.vrfs:
        found[vrf.name] |= {*vrf.networks_v4, *vrf.networks_v6}
    return {vrf: len(subnets) for vrf, subnets in found.items()}


def _needs(models: dict[str, DeviceModel], view: PolicyView, afi: str) -> Iterator[_Need]:
    """Each device with limited underlay sessions of `afi`: the routes it learns over them.
    Devices whose import maps decide alike (every leaf of a fabric) share one count of what
    they admit, less what each advertises alone."""
    underlay = {name: _underlay(model, afi) for name, model in sorted(models.items())}
    origins: dict[str, set[str]] = {}  # advertised prefix -> the devices advertising it
    for name, model in sorted(models.items()):
        maps_out = {n.route_map_out for n in underlay[name]}
        for prefix in _networks(model, afi):
            if any(view.accepts(model, rm, prefix, ()) for rm in maps_out):
                origins.setdefault(prefix, set()).add(name)
    admitted: dict[frozenset[int], int] = {}
    for name, model in sorted(models.items()):
        sessions = underlay[name]
        limits = [n.max_prefix for n in sessions if n.max_prefix is not None]
        if not limits:
            continue
        maps_in = frozenset(n.route_map_in for n in sessions)
        group = frozenset(view.policy(model, rm) for rm in maps_in)
        if group not in admitted:
            admitted[group] = sum(
                1 for p in origins if any(view.accepts(model, rm, p, ()) for rm in maps_in)
            )
        # its own routes come back only with its own ASN in the path: dropped, not counted
        own = sum(
            1
            for p in _networks(model, afi)
            if origins.get(p) == {name} and any(view.accepts(model, rm, p, ()) for rm in maps_in)
        )
        yield _Need(name, admitted[group] - own, min(limits))


def _networks(model: DeviceModel, afi: str) -> tuple[str, ...]:
    return model.bgp.networks_v6 if afi == "ipv6" else model.bgp.networks_v4


def _underlay(model: DeviceModel, afi: str) -> list[BgpNeighbor]:
    return [n for n in model.bgp.neighbors if n.kind == "underlay" and n.afi == afi]
