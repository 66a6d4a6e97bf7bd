"""Evaluate a device model's routing policy against a route, as the router would.

Prefix lists: first matching entry decides; no match denies. Without ge/le an entry matches the
prefix exactly; `le N` widens to lengths up to N, `ge N` from N to the host length (both as on
EOS, NX-OS, IOS-XR prefix-sets and FRR). Route maps: the first clause whose matches all hold
decides; no clause matching denies. Used by tests and by `meetme` to show what a policy does.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from meetme.generators.model import (
    AsPathList,
    CommunityList,
    DeviceModel,
    PrefixList,
    RouteMapEntry,
)


@dataclass(frozen=True)
class Route:
    prefix: str
    as_path: tuple[int, ...] = ()
    communities: frozenset[str] = frozenset()
    large_communities: frozenset[str] = frozenset()
    rpki_invalid: bool = False


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    clause: int | None  # the seq of the deciding clause; None = fell off the end (denied)
    description: str
    local_preference: int | None = None
    large_communities: frozenset[str] = field(default_factory=frozenset)


def prefix_list_permits(plist: PrefixList, prefix: str) -> bool:
    route = ipaddress.ip_network(prefix)
    for entry in plist.entries:
        net = ipaddress.ip_network(entry.prefix)
        if route.version != net.version or not route.subnet_of(net):  # type: ignore[arg-type]
            continue
        low = entry.ge if entry.ge is not None else net.prefixlen
        high = (
            entry.le
            if entry.le is not None
            else (route.max_prefixlen if entry.ge is not None else net.prefixlen)
        )
        if low <= route.prefixlen <= high:
            return entry.action == "permit"
    return False


def as_path_list_permits(alist: AsPathList, as_path: tuple[int, ...]) -> bool:
    for entry in alist.entries:
        if any(entry.first <= asn <= entry.last for asn in as_path):
            return entry.action == "permit"
    return False


def community_list_matches(clist: CommunityList, route: Route) -> bool:
    carried = route.large_communities if clist.kind == "large" else route.communities
    return any(value in carried for value in clist.communities)


def evaluate(model: DeviceModel, route_map: str, route: Route) -> Verdict:
    maps = {m.name: m for m in model.route_maps}
    for entry in maps[route_map].entries:
        if _matches(model, entry, route):
            return Verdict(
                accepted=entry.action == "permit",
                clause=entry.seq,
                description=entry.description or "",
                local_preference=entry.set_local_preference,
                large_communities=route.large_communities | set(entry.set_large_communities),
            )
    return Verdict(accepted=False, clause=None, description="no clause matched")


def _matches(model: DeviceModel, entry: RouteMapEntry, route: Route) -> bool:
    prefix_lists = {p.name: p for p in model.prefix_lists}
    as_paths = {a.name: a for a in model.as_path_lists}
    communities = {c.name: c for c in model.community_lists}
    checks = []
    if entry.match_prefix_list is not None:
        checks.append(prefix_list_permits(prefix_lists[entry.match_prefix_list], route.prefix))
    if entry.match_as_path is not None:
        checks.append(as_path_list_permits(as_paths[entry.match_as_path], route.as_path))
    if entry.match_community is not None:
        checks.append(community_list_matches(communities[entry.match_community], route))
    if entry.match_large_community is not None:
        checks.append(community_list_matches(communities[entry.match_large_community], route))
    if entry.match_rpki_invalid:
        checks.append(route.rpki_invalid)
    return all(checks)
