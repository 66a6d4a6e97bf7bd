"""Evaluate a device model's routing policy against a route, as the router would.

Prefix lists: first matching entry decides; no match denies. Without ge/le an entry matches the
prefix exactly; `le N` widens to lengths up to N, `ge N` from N to the host length (both as on
EOS, NX-OS, IOS-XR prefix-sets and FRR). Route maps: the first clause whose matches all hold
decides; no clause matching denies. A clause's AS-path length match holds for a path of that
many ASNs or more. `evaluate_import` judges a session: BGP's own long-path drop (NX-OS) first,
then the import map. Used by tests and by `meetme` to show what a policy does.
`propagate` follows one route across the models' eBGP sessions, hop by hop, as the routers'
AS-path loop check and route maps would pass it on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, TypeVar

from meetme.generators.model import (
    AsPathList,
    BgpNeighbor,
    CommunityList,
    DeviceModel,
    PrefixList,
    PrefixListEntry,
    RouteMapEntry,
)

from meetme.core import addresses

_Named = TypeVar("_Named", PrefixList, AsPathList, CommunityList)


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
    version, bits, length, longest = _span(prefix)
    for entry in plist.entries:
        e_version, e_bits, e_length, _ = _span(entry.prefix)
        # inside the entry's prefix: the same family, at least as long, the same leading bits
        shift = longest - e_length
        if version != e_version or length < e_length or bits >> shift != e_bits >> shift:
            continue
        low, high = admitted_lengths(entry, e_length, longest)
        if low <= length <= high:
            return entry.action == "permit"
    return False


def admitted_lengths(entry: PrefixListEntry, length: int, longest: int) -> tuple[int, int]:
    """The prefix lengths a list entry whose prefix is `length` long admits, in a family whose
    longest is `longest`: ge to le; ge alone, up to the longest; neither, its own length."""
    low = entry.ge if entry.ge is not None else length
    high = entry.le if entry.le is not None else (longest if entry.ge is not None else length)
    return low, high


@lru_cache(maxsize=1 << 16)
def _span(prefix: str) -> tuple[int, int, int, int]:
    """(IP version, network address as a number, prefix length, the family's longest length):
    a prefix list's test in integer arithmetic, run for every route and entry of a site."""
    net = addresses.network(prefix)
    return net.version, int(net.network_address), net.prefixlen, net.max_prefixlen


def as_path_list_permits(alist: AsPathList, as_path: tuple[int, ...]) -> bool:
    # each ASN once: EDGE-013 asks about paths of 100 ASNs, nearly all one prepended ASN,
    # against bogon lists of many ranges
    asns = set(as_path)
    for entry in alist.entries:
        if any(entry.first <= asn <= entry.last for asn in asns):
            return entry.action == "permit"
    return False


def community_list_matches(clist: CommunityList, route: Route) -> bool:
    carried = route.large_communities if clist.kind == "large" else route.communities
    return any(value in carried for value in clist.communities)


def evaluate(model: DeviceModel, route_map: str, route: Route) -> Verdict:
    entry = deciding_clause(model, route_map, route)
    if entry is None:
        return Verdict(accepted=False, clause=None, description="no clause matched")
    return Verdict(
        accepted=entry.action == "permit",
        clause=entry.seq,
        description=entry.description or "",
        local_preference=entry.set_local_preference,
        large_communities=route.large_communities | set(entry.set_large_communities),
    )


def deciding_clause(model: DeviceModel, route_map: str, route: Route) -> RouteMapEntry | None:
    """The first clause whose matches all hold; None: the route falls off the end."""
    (rm,) = [m for m in model.route_maps if m.name == route_map]
    return next((e for e in rm.entries if _matches(model, e, route)), None)


def _matches(model: DeviceModel, entry: RouteMapEntry, route: Route) -> bool:
    """Whether every match of the clause holds (each list looked up by name where the clause
    names one: a device's lists are many, a clause's few)."""
    if entry.match_prefix_list is not None and not prefix_list_permits(
        _named(model.prefix_lists, entry.match_prefix_list), route.prefix
    ):
        return False
    if entry.match_as_path is not None and not as_path_list_permits(
        _named(model.as_path_lists, entry.match_as_path), route.as_path
    ):
        return False
    for name in (entry.match_community, entry.match_large_community):
        if name is not None and not community_list_matches(
            _named(model.community_lists, name), route
        ):
            return False
    if (
        entry.match_as_path_length_ge is not None
        and len(route.as_path) < entry.match_as_path_length_ge
    ):
        return False
    return not entry.match_rpki_invalid or route.rpki_invalid


def evaluate_import(model: DeviceModel, neighbor: BgpNeighbor, route: Route) -> Verdict:
    """What a session does with a route it receives: where the device's BGP drops long AS
    paths itself (NX-OS `maxas-limit`, `Bgp.drop_as_path_length`), an eBGP route that long is
    discarded before the import map sees it; otherwise the import map decides."""
    length = model.bgp.drop_as_path_length_in(neighbor.vrf)
    ebgp = neighbor.remote_as != model.bgp.asn
    if ebgp and length is not None and len(route.as_path) >= length:
        return Verdict(
            accepted=False,
            clause=None,
            description=f"BGP drops AS paths of {length} ASNs or more",
        )
    return evaluate(model, neighbor.route_map_in, route)


def _named(items: tuple[_Named, ...], name: str) -> _Named:
    return next(item for item in items if item.name == name)


class PolicyView:
    """What `propagate` reads of a set of models, read once: each device's sessions of a
    family, and route-map verdicts shared by the devices whose maps decide alike (every leaf
    of a fabric runs one underlay map): each (map with the lists it reads, prefix, and the AS
    path where the map reads one) is evaluated once. One view serves many prefixes."""

    def __init__(self, models: Mapping[str, DeviceModel]) -> None:
        self.models = models
        self._policies: dict[tuple[object, ...], int] = {}
        self._policy: dict[tuple[str, str], int] = {}
        self._reads_path: dict[int, bool] = {}
        self._memo: dict[tuple[int, str, tuple[int, ...] | None], bool] = {}
        self._out: dict[tuple[str, str, str], list[tuple[str, bool, str]]] = {}
        self._in: dict[tuple[str, str, str], dict[str, str]] = {}

    def sessions(self, name: str, afi: str, kind: str) -> list[tuple[str, bool, str]]:
        """(peer, next hop unchanged, the out-map toward it) of each session of `name`."""
        key = (name, afi, kind)
        if key not in self._out:
            self._out[key] = _sessions(self.models[name], afi, kind)
        return self._out[key]

    def in_map(self, name: str, afi: str, kind: str, sender: str) -> str | None:
        """The map `name` applies to what `sender` sends it ("" none); None: no session."""
        key = (name, afi, kind)
        if key not in self._in:
            found: dict[str, str] = {}
            for far, _, rm in _sessions(self.models[name], afi, kind, inbound=True):
                found.setdefault(far, rm)  # parallel sessions run one policy: the first's
            self._in[key] = found
        return self._in[key].get(sender)

    def policy(self, model: DeviceModel, route_map: str) -> int:
        """A number shared by the route maps that decide every route alike, on any device: the
        same clauses and the same lists they match on."""
        key = (model.hostname, route_map)
        number = self._policy.get(key)
        if number is None:
            (rm,) = [m for m in model.route_maps if m.name == route_map]
            read = {
                name
                for e in rm.entries
                for name in (
                    e.match_prefix_list,
                    e.match_as_path,
                    e.match_community,
                    e.match_large_community,
                )
                if name is not None
            }
            lists = tuple(
                item
                for group in (model.prefix_lists, model.as_path_lists, model.community_lists)
                for item in group
                if item.name in read
            )
            signature = (rm, lists)
            number = self._policy[key] = self._policies.setdefault(signature, len(self._policies))
            self._reads_path[number] = any(
                e.match_as_path or e.match_as_path_length_ge is not None for e in rm.entries
            )
        return number

    def accepts(
        self, model: DeviceModel, route_map: str, prefix: str, as_path: tuple[int, ...]
    ) -> bool:
        """evaluate(model, route_map, Route(prefix, as_path)).accepted, for many routes."""
        number = self.policy(model, route_map)
        key = (number, prefix, as_path if self._reads_path[number] else None)
        verdict = self._memo.get(key)
        if verdict is None:
            entry = deciding_clause(model, route_map, Route(prefix, as_path))
            verdict = self._memo[key] = entry is not None and entry.action == "permit"
        return verdict


@dataclass(frozen=True)
class Spread:
    """Where one route got to: each device's best (shortest) AS path, and the paths devices
    dropped because they held the device's own ASN (BGP's loop check, RFC 4271 9.1.2)."""

    paths: dict[str, tuple[int, ...]]
    loop_drops: dict[str, tuple[int, ...]]
    # overlay: whether the route still carries its origin's next hop (every route server on
    # the way kept it)
    next_hop_kept: dict[str, bool] = field(default_factory=dict)


def propagate(
    models: Mapping[str, DeviceModel],
    origin: str,
    prefix: str,
    sessions: Literal["underlay", "overlay"] = "underlay",
    view: PolicyView | None = None,
) -> Spread:
    """The route `prefix` that `origin` advertises, passed on breadth first (shortest AS path
    first, as BGP prefers it) over the default VRF's eBGP underlay sessions of its family, each
    through the sender's out-map and the receiver's in-map (an MLAG pair's peer-link session
    among them); or over the EVPN sessions, which carry no route maps. Each sender prepends
    its ASN toward an eBGP peer; a receiver drops a path holding its own. Between two devices
    of one ASN (an MLAG pair's iBGP) nothing is prepended and nothing learned that way is
    passed to another such peer. The borders' iBGP pair and external sessions are not
    followed. `view`: the models read once, shared by the calls for many prefixes (a view of
    `models` itself)."""
    afi = "ipv6" if ":" in prefix else "ipv4"
    view = view if view is not None else PolicyView(models)
    paths: dict[str, tuple[int, ...]] = {origin: ()}
    kept: dict[str, bool] = {origin: True}
    drops: dict[str, tuple[int, ...]] = {}
    over_ibgp: set[str] = set()  # learned from a peer of its own ASN
    frontier = [origin]
    while frontier:
        following: list[str] = []
        for sender in frontier:
            model = models[sender]
            for peer, unchanged, rm_out in view.sessions(sender, afi, sessions):
                receiver = models.get(peer)
                if receiver is None:
                    continue
                # iBGP (a pair of one ASN): no prepend, and what came over iBGP goes on to
                # eBGP peers only (RFC 4271 section 9.2)
                ibgp = receiver.bgp.asn == model.bgp.asn
                if ibgp and sender in over_ibgp:
                    continue
                path = paths[sender] if ibgp else (model.bgp.asn, *paths[sender])
                if rm_out and not view.accepts(model, rm_out, prefix, paths[sender]):
                    continue
                if receiver.bgp.asn in path:
                    drops.setdefault(peer, path)
                    continue
                if peer in paths:
                    continue
                # BGP's own long-path drop of the receiver's default VRF (NX-OS), eBGP only
                limit = receiver.bgp.drop_as_path_length_in(None)
                if not ibgp and limit is not None and len(path) >= limit:
                    continue
                back = view.in_map(peer, afi, sessions, sender)
                if back is None or (back and not view.accepts(receiver, back, prefix, path)):
                    continue
                paths[peer] = path
                kept[peer] = kept[sender] and (sender == origin or unchanged)
                if ibgp:
                    over_ibgp.add(peer)
                following.append(peer)
        frontier = following
    return Spread(paths, drops, kept)


def _sessions(
    model: DeviceModel, afi: str, kind: str, *, inbound: bool = False
) -> list[tuple[str, bool, str]]:
    """(peer device, next hop unchanged, the route map toward it ("" for none)) per session."""
    if kind == "overlay":
        peers = model.evpn.peers if model.evpn is not None else ()
        return [(p.peer_device, p.next_hop_unchanged, "") for p in peers]
    underlay: list[BgpNeighbor] = [
        n for n in model.bgp.neighbors if n.kind == "underlay" and n.vrf is None and n.afi == afi
    ]
    found = [
        (n.peer_device, False, n.route_map_in if inbound else n.route_map_out) for n in underlay
    ]
    # the MLAG pair's unnumbered session over the peer link (NVUE) carries the underlay's
    # families with the underlay's policies, beside the routed ports' sessions
    link = model.mlag.peer_link_session if model.mlag is not None else None
    if link is not None:
        found += [
            (link.peer_device, False, f.route_map_in if inbound else f.route_map_out)
            for f in link.families
            if f.afi == afi
        ]
    return found
