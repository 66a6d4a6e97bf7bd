"""Resolve the site: links from role rules and explicit links with addresses and MTUs, router
ids, network placement and the prefix-limit warning threshold.

The result is shared by the design-standard rules and the device-model builder, so both see
exactly the same links, allocations and decisions; each is made once, here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Literal

from meetme.generators.resolve import allocate
from meetme.generators.resolve.allocate import BeyondLinksPerDevice, PoolExhausted
from meetme.generators.resolve.edge_sessions import (
    ExternalPort,
    SiteEdge,
    resolve_edge,
    with_other_sites,
)
from meetme.generators.resolve.indexes import memo
from meetme.generators.resolve.placement import Placement, resolve_placement
from meetme.generators.resolve.ports import PortPlan, PortUse, plan_ports

from meetme.core.problems import IntentError, Problem
from meetme.intent.interfaces import sample
from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Device, Intent, Site
from meetme.intent.schema_edge import EdgeSettings
from meetme.intent.schema_underlay import Link, LinkRule, LinkRuleSide
from meetme.intent.types import SPEED_GBPS

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class LinkEndFacts:
    device: str
    interface: str
    speed_gbps: int
    ip_mtu: int
    lanes: int | None
    breakout: str | None
    address_v4: str  # host address with /31
    address_v6: str | None
    # where ip_mtu is written: the end, the link, the link rule, or the site's underlay default
    ip_mtu_source: Path_ = ()


@dataclass(frozen=True)
class FabricLink:
    a: LinkEndFacts
    b: LinkEndFacts
    subnet_v4: str
    subnet_v6: str | None
    source: Path_  # the intent path that caused it: a link rule or an explicit link
    origin: str  # "rule <name>" or "link #<i>"


EndPair = tuple["LinkEndFacts", "LinkEndFacts", "FabricLink"]


@dataclass(frozen=True)
class Conflict:
    """A cabling or addressing decision the intent leaves impossible, found while resolving: a
    design question the lint reports (PHY-016, PHY-017, ADDR-015), not unusable input, so one
    lint names it beside every other problem. The link or port it concerns is left out of the
    fabric; the lint's errors keep any model from being built."""

    kind: Literal["numbering", "duplicate-port", "pool"]
    path: Path_  # the intent value to change
    message: str
    device: str
    interface: str | None = None  # the port a duplicate-port conflict is about


@dataclass
class SiteFabric:
    name: str
    site: Site
    links: list[FabricLink] = field(default_factory=list)
    edge: SiteEdge = field(default_factory=SiteEdge)
    placement: Placement = field(default_factory=Placement)  # which VTEP carries which network
    router_ids: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # the prefix-limit warning threshold of every session the site's devices run (EDGE-002)
    warning_pct: int = field(default_factory=lambda: default_warning_pct())
    # what the link rules and circuits cannot be resolved to (reported by the lint)
    conflicts: list[Conflict] = field(default_factory=list)
    # the device pairs a link rule meant to cable but could not number (PHY-016): the rules
    # that judge which links a device has leave these pairs to PHY-016
    unnumbered: set[frozenset[str]] = field(default_factory=set)
    # the speed each fabric port is told and the cages broken out (resolve/ports.py)
    ports: PortPlan = field(default_factory=PortPlan)

    _index: dict[str, list[EndPair]] = field(default_factory=dict, repr=False)
    _indexed: int = field(default=-1, repr=False)  # len(links) when the index was built

    def links_of(self, device: str) -> list[EndPair]:
        """(local end, remote end, link) for every link touching `device`, in link order.
        Indexed once per resolved fabric: a scan per device would be quadratic in big sites."""
        if self._indexed != len(self.links):
            self._index = {}
            for link in self.links:
                self._index.setdefault(link.a.device, []).append((link.a, link.b, link))
                if link.b.device != link.a.device:
                    self._index.setdefault(link.b.device, []).append((link.b, link.a, link))
            self._indexed = len(self.links)
        return list(self._index.get(device, []))

    def unnumbered_toward(self, device: str, others: Iterable[str]) -> bool:
        """Whether a link rule meant to cable `device` to one of `others` and could not
        number the link (PHY-016 says so; its absence is no finding of its own)."""
        return any(frozenset((device, other)) in self.unnumbered for other in others)


def resolve_fabric(loaded: LoadedIntent) -> dict[str, SiteFabric]:
    problems: list[Problem] = []
    fabrics = {}
    for site_name, site in sorted(loaded.intent.sites.items()):
        fabric = SiteFabric(site_name, site)
        for rule_index, rule in enumerate(site.link_rules):
            _expand_rule(site, rule, ("sites", site_name, "link_rules", rule_index), fabric)
        for link_index, link in enumerate(site.links):
            _add_explicit(
                site,
                link,
                ("sites", site_name, "links", link_index),
                link_index,
                fabric,
            )
        fabric.edge = resolve_edge(loaded.intent, site_name, site)
        fabric.placement = resolve_placement(site)
        fabric.router_ids = _router_ids(site)
        fabric.warning_pct = warning_pct(site)
        _check_ports_unique(fabric, loaded)
        _check_edge(fabric, loaded, problems)
        _check_device_pools(site, fabric)
        fabric.links.sort(key=lambda lk: (lk.a.device, _natural(lk.a.interface)))
        uses = _port_uses(site, fabric.links) + _circuit_uses(loaded.intent, site_name, site)
        fabric.ports = plan_ports(site, uses)
        fabrics[site_name] = fabric
    if problems:
        raise IntentError(problems)
    with_other_sites({name: f.edge for name, f in fabrics.items()})
    return fabrics


def default_warning_pct() -> int:
    """The schema's default threshold: the one number when the intent gives none."""
    default = EdgeSettings.model_fields["max_prefix_warning_pct"].default
    assert isinstance(default, int)
    return default


def warning_pct(site: Site) -> int:
    """The intent's peering.edge.max_prefix_warning_pct, for underlay, overlay, handoff and
    edge sessions alike."""
    edge = site.peering.edge
    return edge.max_prefix_warning_pct if edge is not None else default_warning_pct()


def _router_ids(site: Site) -> Mapping[str, str]:
    """Device -> router id: its IPv4 loopback address. A device outside the pool has none (the
    pool check reports it)."""
    ids = {}
    for name, device in site.devices.items():
        try:
            ids[name] = allocate.loopback_v4(site, device).split("/")[0]
        except PoolExhausted:
            continue
    return MappingProxyType(ids)


# Every device sorts its ports and sessions by name, and a fabric repeats a few hundred port
# names over and over: each is split once.
@lru_cache(maxsize=1 << 14)
def _natural(name: str) -> tuple[object, ...]:
    """Sort Ethernet2/1 before Ethernet10/1."""
    parts: list[object] = []
    number = ""
    for char in name + " ":
        if char.isdigit():
            number += char
            continue
        if number:
            parts.append((0, int(number)))
            number = ""
        parts.append((1, char))
    return tuple(parts)


natural_key = _natural


def _side_devices(site: Site, side: LinkRuleSide) -> list[tuple[str, Device]]:
    """The devices a rule side selects, by id: from an index of the site by role, platform
    and pod (a site with a rule per pod scanned every device for every rule)."""
    return memo(site, "link_rule_sides", lambda: _sides_index(site)).get(
        (side.role, side.platform, side.pod), []
    )


def cabled_side_devices(
    site: Site, side: LinkRuleSide, other: LinkRuleSide
) -> list[tuple[str, Device]]:
    """The devices of `side` the rule cables to at least one device of `other`, by id: those
    it selects whose pod (if any) matches the pod of a device `other` selects (or that one
    has none), as `_expand_rule` pairs them. What the rule's port names apply to."""
    others = _side_devices(site, other)
    if not others:
        return []
    if any(d.pod is None for _, d in others):
        return _side_devices(site, side)
    pods = {d.pod for _, d in others}
    return [(n, d) for n, d in _side_devices(site, side) if d.pod is None or d.pod in pods]


def _sides_index(site: Site) -> dict[tuple[str, str | None, str | None], list[tuple[str, Device]]]:
    index: dict[tuple[str, str | None, str | None], list[tuple[str, Device]]] = {}
    for n, d in sorted(site.devices.items(), key=lambda item: item[1].id):
        for platform in (None, d.platform):
            for pod in (None, d.pod) if d.pod is not None else (None,):
                index.setdefault((d.role, platform, pod), []).append((n, d))
    return index


def _expand_rule(site: Site, rule: LinkRule, path: Path_, fabric: SiteFabric) -> None:
    """The links of one rule. A device whose id puts a port below `first` (an id under the
    other side's peer_id_base), or whose links fall outside the p2p pools, is a numbering
    conflict: typically a device given a role or platform the rule's numbering was not laid
    out for. Two devices of two different pods are never paired."""
    mtu = rule.mtu or site.underlay.mtu
    mtu_source = (*path, "mtu") if rule.mtu is not None else (*path[:2], "underlay", "mtu")
    speed = SPEED_GBPS[rule.speed]
    reported: set[tuple[str, str]] = set()  # one conflict per device and cause, not per port
    for a_name, a_dev in _side_devices(site, rule.a):
        for b_name, b_dev in _side_devices(site, rule.b):
            if a_dev.pod is not None and b_dev.pod is not None and a_dev.pod != b_dev.pod:
                continue  # a rule cables a pod's devices to their own pod's only
            for k in range(rule.count):
                a_n = rule.a.first + (b_dev.id - rule.a.peer_id_base) * rule.count + k
                b_n = rule.b.first + (a_dev.id - rule.b.peer_id_base) * rule.count + k
                if a_n < rule.a.first or b_n < rule.b.first:
                    fabric.unnumbered.add(frozenset((a_name, b_name)))
                    low_dev, low_side = (b_name, "a") if a_n < rule.a.first else (a_name, "b")
                    if (low_dev, "low") not in reported:
                        reported.add((low_dev, "low"))
                        fabric.conflicts.append(
                            Conflict(
                                "numbering",
                                (*path, low_side, "peer_id_base"),
                                f"link rule '{rule.name}': device '{low_dev}' (id "
                                f"{site.devices[low_dev].id}) has an id below "
                                f"{low_side}.peer_id_base ({getattr(rule, low_side).peer_id_base})"
                                ", so its port number would be negative",
                                low_dev,
                            )
                        )
                    continue
                index = a_n - rule.a.first
                try:
                    v4, v6 = allocate.p2p_subnets(site, a_dev.id, index)
                except PoolExhausted as exc:
                    fabric.unnumbered.add(frozenset((a_name, b_name)))
                    if (a_name, "pool") not in reported:  # one conflict per device, not per port
                        reported.add((a_name, "pool"))
                        fabric.conflicts.append(
                            Conflict(
                                "numbering",
                                (*path, "a"),
                                f"link rule '{rule.name}': the links of {a_name} (id "
                                f"{a_dev.id}) fall outside the p2p pools ({exc}); "
                                f"{_pool_advice(exc)}",
                                a_name,
                            )
                        )
                    continue
                # plain replacement: str.format would run any other field the text held
                a_end = _end(
                    a_name,
                    sample(rule.a.interface, a_n),
                    speed,
                    mtu,
                    rule.a.lanes,
                    rule.a.breakout,
                    v4,
                    v6,
                    0,
                )
                b_end = _end(
                    b_name,
                    sample(rule.b.interface, b_n),
                    speed,
                    mtu,
                    rule.b.lanes,
                    rule.b.breakout,
                    v4,
                    v6,
                    1,
                )
                a_end = dataclasses.replace(a_end, ip_mtu_source=mtu_source)
                b_end = dataclasses.replace(b_end, ip_mtu_source=mtu_source)
                fabric.links.append(FabricLink(a_end, b_end, v4, v6, path, f"rule {rule.name}"))


def _add_explicit(
    site: Site,
    link: Link,
    path: Path_,
    link_index: int,
    fabric: SiteFabric,
) -> None:
    a_dev = site.devices[link.a.device]
    try:
        v4, v6 = _explicit_subnets(site, link, a_dev.id)
    except PoolExhausted as exc:
        fabric.conflicts.append(
            Conflict(
                "pool",
                (*path, "index"),
                f"link #{link_index} ({link.a.device} {link.a.interface} - {link.b.device} "
                f"{link.b.interface}) has no p2p subnet: {exc}; lower its index, "
                + (
                    f"raise links_per_device to at least {exc.needed}"
                    if isinstance(exc, BeyondLinksPerDevice)
                    else "widen the p2p pools"
                )
                + " or give the link ipv4 (and ipv6) of its own",
                link.a.device,
            )
        )
        return
    ends = []
    for offset, (side, end) in enumerate((("a", link.a), ("b", link.b))):
        speed = SPEED_GBPS[end.speed or link.speed or "1G"]
        mtu = end.mtu or link.mtu or site.underlay.mtu
        mtu_source = (
            (*path, side, "mtu")
            if end.mtu is not None
            else (*path, "mtu")
            if link.mtu is not None
            else (*path[:2], "underlay", "mtu")
        )
        facts = _end(end.device, end.interface, speed, mtu, end.lanes, end.breakout, v4, v6, offset)
        ends.append(dataclasses.replace(facts, ip_mtu_source=mtu_source))
    fabric.links.append(FabricLink(ends[0], ends[1], v4, v6, path, f"link #{link_index}"))


def _explicit_subnets(site: Site, link: Link, a_device_id: int) -> tuple[str, str | None]:
    """The link's own subnets, each it leaves out drawn from the p2p pools by its index; a
    link that writes every subnet its site numbers draws nothing, so no pool can be short."""
    if link.ipv4 is not None and (link.ipv6 is not None or site.pools.p2p_v6 is None):
        return link.ipv4, link.ipv6
    v4, v6 = allocate.p2p_subnets(site, a_device_id, link.index)
    return link.ipv4 or v4, link.ipv6 or v6


def _port_uses(site: Site, links: list[FabricLink]) -> list[PortUse]:
    """Each link end with where its interface, speed and breakout are written."""
    uses = []
    for link in links:
        source = link.source
        explicit = len(source) >= 2 and source[-2] == "links"
        for side, end in (("a", link.a), ("b", link.b)):
            if explicit:
                written = site.links[int(source[-1])]
                end_intent = written.a if side == "a" else written.b
                where: Path_ = (*source, side, "interface")
                speed_where = (
                    (*source, side, "speed") if end_intent.speed is not None else (*source, "speed")
                )
                breakout_where = (
                    (*source, side, "breakout") if end_intent.breakout is not None else where
                )
            else:  # a link rule: its a-side devices are always the links' a ends
                rule = site.link_rules[int(source[-1])]
                where = (*source, side)
                speed_where = (*source, "speed")
                rule_side = rule.a if side == "a" else rule.b
                breakout_where = (*where, "breakout") if rule_side.breakout is not None else where
            uses.append(
                PortUse(
                    end.device,
                    end.interface,
                    end.speed_gbps,
                    end.lanes,
                    end.breakout,
                    where,
                    speed_where,
                    breakout_where,
                )
            )
    return uses


def _circuit_uses(intent: Intent, site_name: str, site: Site) -> list[PortUse]:
    """The circuits' ports: each cross-connect, and each DCI end in this site. Their speed is
    the circuit's, told to the port as a link's is (a 100G circuit in a 400G cage). A DCI end's
    misfit is DCI-004's to report, in the circuit's words."""
    base: Path_ = ("sites", site_name, "cross_connects")
    uses = [
        PortUse(
            xc.device,
            xc.interface,
            SPEED_GBPS[xc.speed],
            None,
            None,
            (*base, name, "interface"),
            (*base, name, "speed"),
            (*base, name, "interface"),
            what=f"cross-connect {name}",
        )
        for name, xc in sorted(site.cross_connects.items())
    ]
    for name, circuit in sorted(intent.dci.circuits.items()) if intent.dci else ():
        for side, end in (("a", circuit.a), ("b", circuit.b)):
            if end.site == site_name:
                where: Path_ = ("dci", "circuits", name, side, "interface")
                uses.append(
                    PortUse(
                        end.device,
                        end.interface,
                        SPEED_GBPS[circuit.speed],
                        None,
                        None,
                        where,
                        ("dci", "circuits", name, "speed"),
                        where,
                        what=f"DCI circuit {name}",
                        reported=False,
                    )
                )
    return uses


def _pool_advice(exc: PoolExhausted) -> str:
    """How to make a rule's links fit: a longer block per device, or pools that hold them."""
    if isinstance(exc, BeyondLinksPerDevice):
        # every device's block grows with it: the pools must still hold the highest id's
        return (
            f"raise links_per_device to at least {exc.needed} (widening the pools if they no "
            "longer hold every device's block)"
        )
    return "widen the pools or lower links_per_device"


def _end(
    device: str,
    interface: str,
    speed: int,
    mtu: int,
    lanes: int | None,
    breakout: str | None,
    v4: str,
    v6: str | None,
    offset: int,
) -> LinkEndFacts:
    return LinkEndFacts(
        device,
        interface,
        speed,
        mtu,
        lanes,
        breakout,
        _host(v4, offset),
        None if v6 is None else _host(v6, offset),
    )


def _host(subnet: str, offset: int) -> str:
    """Host `offset` of a p2p subnet; subnets wider than /31 or /127 skip the network address."""
    length = int(subnet.split("/")[1])
    point_to_point = length in (31, 127)
    return allocate.nth_address(subnet, offset if point_to_point else offset + 1, length)


def _check_ports_unique(fabric: SiteFabric, loaded: LoadedIntent) -> None:
    seen: dict[tuple[str, str], FabricLink] = {}
    for link in fabric.links:
        for end in (link.a, link.b):
            key = (end.device, end.interface)
            if key in seen:
                fabric.conflicts.append(
                    Conflict(
                        "duplicate-port",
                        link.source,
                        f"{end.device} {end.interface} is already used by {seen[key].origin} "
                        f"(at {loaded.where(seen[key].source)}); a port carries one link",
                        end.device,
                        end.interface,
                    )
                )
            else:
                seen[key] = link


def _check_device_pools(site: Site, fabric: SiteFabric) -> None:
    """Every device's id must fit the loopback pools it draws from (ADDR-015 reports it)."""
    for name, device in sorted(site.devices.items()):
        for key, allocator in (
            ("loopback_v4", allocate.loopback_v4),
            ("loopback_v6", allocate.loopback_v6),
            ("vtep_v4", allocate.vtep_v4),
        ):
            try:
                allocator(site, device)
            except PoolExhausted as exc:
                fabric.conflicts.append(
                    Conflict(
                        "pool",
                        (*device.path, "id"),
                        f"{name} (id {device.id}) has no {key} address: {exc}; widen "
                        f"pools.{key}, give the device a lower id or its own {key}",
                        name,
                    )
                )


def _two_circuits(one: ExternalPort, other: ExternalPort) -> bool:
    return None not in (one.circuit, other.circuit) and one.circuit != other.circuit


def _check_edge(fabric: SiteFabric, loaded: LoadedIntent, problems: list[Problem]) -> None:
    """External ports must not reuse fabric ports; sessions need the site's edge settings."""
    fabric_ports = {
        (end.device, end.interface): link for link in fabric.links for end in (link.a, link.b)
    }
    seen: dict[tuple[str, str], ExternalPort] = {}
    for port in fabric.edge.ports:
        physical = (port.device, port.parent or port.name)
        if physical in fabric_ports:
            fabric.conflicts.append(
                Conflict(
                    "duplicate-port",
                    port.source,
                    f"{port.device} {physical[1]} carries fabric {fabric_ports[physical].origin}; "
                    "an external circuit needs a port of its own",
                    port.device,
                    physical[1],
                )
            )
        key = (port.device, port.name)
        earlier = seen.setdefault(key, port)
        # two cross-connects cabled to one port are PHY-013's finding, at the circuits, with
        # every other problem of the intent; one circuit used twice over has no other report
        if earlier is not port and not _two_circuits(earlier, port):
            problems.append(
                Problem(
                    loaded.where(port.source),
                    f"{port.device} {port.name} is already used at {loaded.where(earlier.source)}",
                    "duplicate-port",
                )
            )
    if fabric.edge.sessions and fabric.site.peering.edge is None:
        problems.append(
            Problem(
                loaded.where(("sites", fabric.name, "peering")),
                "external sessions need `peering: edge: {site_code: N}` (the location value of "
                "our large communities)",
                "missing-key",
            )
        )
