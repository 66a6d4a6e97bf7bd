"""Read back an NVUE startup.yaml from its YAML node tree, with line numbers.

The YAML is composed (not loaded) so every key keeps its position: a finding points at the
neighbour's key, or at the value that is wrong. Neighbours are keyed by (VRF, address): a
handoff session in a tenant VRF reuses the address of a neighbour in VRF default. A
neighbour's settings for an address family come from
`vrf.<vrf>.router.bgp.neighbor.<address>.address-family.<family>` (ipv4-unicast, ipv6-unicast,
l2vpn-evpn), then from its `peer-group` (`vrf.<vrf>.router.bgp.peer-group.<name>`, same
layout). Policy objects live under `router.policy` (route-map, prefix-list, as-path-list,
community-list, large-community-list).

EVPN services: `bridge domain D vlan N vni V`; `vrf X evpn vni V` with `evpn state`; `vrf X
router bgp address-family AFI-unicast route-export to-evpn state` and `vrf X router bgp
route-export to-evpn route-target RT` (without it NVUE derives the RT from the per-leaf ASN,
which differs on every leaf: EVPN-004). A startup.yaml is a list of `- set:` items; the first
item that has a path wins, and a missing one is reported at the deepest key found.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from meetme.validators.config_lint.readback import (
    TOP,
    Export,
    Mapping,
    Neighbor,
    Position,
    ReadBack,
    Reference,
    Session,
    Value,
    Words,
    normalise,
)

try:  # libyaml's composer keeps the same marks and is several times faster
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as Loader  # type: ignore[assignment]


class _Composer(Loader):
    """Composes without resolving each plain scalar's type (int, bool, ...): the read-back
    reads every scalar as its text, and resolving them was a third of reading a leaf's file.
    `plain` resolves the few subtrees whose values are read as data."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            return UNRESOLVED
        return str(super().resolve(kind, value, implicit))  # type: ignore[no-untyped-call]

    # libyaml calls these back for every node; with no path resolvers registered (a
    # SafeLoader has none) the library's own return at once. A fifth of composing a file.
    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


UNRESOLVED = "!meetme-unresolved"
_RESOLVER = yaml.resolver.Resolver()

POLICY_KINDS = (
    "route-map",
    "prefix-list",
    "as-path-list",
    "community-list",
    "large-community-list",
)
# route-map rule `match` keys that name another policy object
MATCH_KINDS = {
    "ip-prefix-list": "prefix-list",
    "as-path-list": "as-path-list",
    "community-list": "community-list",
    "large-community-list": "large-community-list",
}
NO_POLICY = "none"  # NVUE's spelling of "no route-map here"


FAMILIES = {"ipv4": "ipv4-unicast", "ipv6": "ipv6-unicast", "evpn": "l2vpn-evpn"}
WORDS = Words(
    limit="prefix-limits inbound maximum",
    bgp_scope="vrf default router bgp",
    evpn_limit="address-family l2vpn-evpn prefix-limits inbound maximum",
    evpn_limit_where="on the neighbour or its peer-group",
    vlan_missing="{what} is not mapped to its VNI {vni}: no `bridge domain {domain} vlan {id} "
    "vni {vni}`",
    vlan_no_vni="{what} has no `vni {vni}` in its bridge domain",
    vrf_missing="{what} is not mapped to its L3VNI {vni}: no `vrf {name} evpn vni {vni}`",
    vrf_no_vni="{what} is not mapped to its L3VNI: no `vrf {name} evpn vni {vni}`",
    evpn_state="{what}'s EVPN (`vrf {name} evpn state`)",
    export_state="{what}'s {afi} export to EVPN (`vrf {name} router bgp address-family "
    "{afi}-unicast route-export to-evpn state`)",
    vrf_missing_export="{what} does not export to EVPN: no `vrf {name} router bgp`",
    export_missing="`vrf {name} router bgp route-export to-evpn route-target {rt}` (without it "
    "NVUE derives the target from the leaf's own ASN)",
)


def plain(node: yaml.Node) -> Any:
    """The plain data of a node of the tree, as yaml.safe_load gives it."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.ScalarNode) and current.tag == UNRESOLVED:
            implicit = (current.style is None, current.style is not None)
            current.tag = _RESOLVER.resolve(yaml.ScalarNode, current.value, implicit)  # type: ignore[no-untyped-call]
        elif isinstance(current, yaml.MappingNode):
            stack.extend(n for pair in current.value for n in pair)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return yaml.constructor.SafeConstructor().construct_document(node)


def compose(text: str) -> yaml.Node | Value | None:
    """The YAML node tree, or why and where it cannot be read."""
    try:
        return yaml.compose(text, Loader=_Composer)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return Value(f"YAML: {exc.problem or exc.context}", line, column)


def read(text: str) -> ReadBack:
    """The read-back of one rendered startup.yaml."""
    readback = ReadBack(WORDS)
    root = compose(text)
    if isinstance(root, Value):
        readback.unreadable = root
        return readback
    trees = readback.trees = list(set_trees(root))
    for tree in trees:
        _policies(tree, readback)
        for vrf_key, vrf in items(get(tree, "vrf")):
            _neighbors(str(vrf_key.value), get(vrf, "router", "bgp"), readback)
    readback.neighbors_at = _path_in(trees, "vrf", "default", "router", "bgp", "neighbor")[1]
    _bridge(trees, readback)
    _vrfs(trees, readback)
    return readback


def _neighbors(vrf: str, bgp: yaml.Node | None, readback: ReadBack) -> None:
    groups = {str(key.value): node for key, node in items(get(bgp, "peer-group"))}
    readback.defined.setdefault("peer-group", set()).update(groups)
    for name, node in groups.items():
        _policy_references(node, f"peer-group {name}", readback)
    for key, node in items(get(bgp, "neighbor")):
        _policy_references(node, f"neighbor {key.value}", readback)
        group = scalar(get(node, "peer-group"))
        if group is not None and group.text != NO_POLICY:
            where = f"neighbor {key.value}"
            reference = Reference("peer-group", group.text, group.line, group.column, where)
            readback.references.append(reference)
        holders = [node]
        if group is not None and group.text in groups:
            holders.append(groups[group.text])
        at = _key_at(key)
        neighbor = readback.neighbors.setdefault((vrf, normalise(str(key.value))), Neighbor(at))
        for family, spelled in FAMILIES.items():
            session = Session(*at)
            for holder in holders:  # the neighbour's own setting wins over its group's
                afi = get(holder, "address-family", spelled)
                session.prefix_limit = session.prefix_limit or scalar(
                    get(afi, "prefix-limits", "inbound", "maximum")
                )
                session.policy_in = session.policy_in or _route_map(afi, "inbound")
                session.policy_out = session.policy_out or _route_map(afi, "outbound")
            neighbor.families.setdefault(family, session)


def _bridge(trees: list[yaml.MappingNode], readback: ReadBack) -> None:
    """Each VLAN of the bridge domains, with its VNIs; where a missing one belongs."""
    domains = [(k, v) for tree in trees for k, v in items(get(tree, "bridge", "domain"))]
    for _, domain in domains:
        for key, node in items(get(domain, "vlan")):
            vnis = [Value(str(k.value), *_key_at(k)) for k, _ in items(get(node, "vni"))]
            readback.vlans.setdefault(str(key.value), Mapping(_key_at(key), vnis))
    if domains:
        # the first bridge domain's `vlan:` (or the domain), else `nve:`
        found = (_path(value, "vlan")[1] for _, value in domains)
        readback.vlans_at = next((at for at in found if at is not None), _key_at(domains[0][0]))
        readback.bridge_domain = str(domains[0][0].value)
    else:
        readback.vlans_at = _path_in(trees, "nve")[1]


def _vrfs(trees: list[yaml.MappingNode], readback: ReadBack) -> None:
    """Each VRF's L3VNI and EVPN state, and its exports to EVPN."""
    readback.vrfs_at = readback.exports_at = _path_in(trees, "vrf")[1]
    for tree in trees:
        for key, node in items(get(tree, "vrf")):
            name = str(key.value)
            if name in readback.vrfs:
                continue
            at = _key_at(key)
            evpn, evpn_at = _path(node, "evpn")
            vnis = [Value(str(k.value), *_key_at(k)) for k, _ in items(get(evpn, "vni"))]
            readback.vrfs[name] = Mapping(evpn_at or at, vnis, scalar(get(evpn, "state")))
            bgp, bgp_at = _path(node, "router", "bgp")
            for afi in ("ipv4", "ipv6"):
                export, export_at = _path(
                    bgp, "address-family", f"{afi}-unicast", "route-export", "to-evpn"
                )
                state = scalar(get(export, "state"))
                readback.exports[(name, afi)] = Export(export_at or bgp_at or at, state=state)
            targets, targets_at = _path(bgp, "route-export", "to-evpn", "route-target")
            found = [Value(str(k.value), *_key_at(k)) for k, _ in items(targets)]
            readback.exports[(name, "")] = Export(targets_at or bgp_at or at, found)


def _key_at(key: yaml.Node) -> Position:
    return key.start_mark.line + 1, key.start_mark.column + 1


def _path(node: yaml.Node | None, *keys: str) -> tuple[yaml.Node | None, Position | None]:
    """The node at `keys` (None when missing) and the position of the deepest key found."""
    at: Position | None = None
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return None, at
        entry = next(((k, v) for k, v in node.value if k.value == key), None)
        if entry is None:
            return None, at
        at = _key_at(entry[0])
        node = entry[1]
    return node, at


def _path_in(trees: list[yaml.MappingNode], *keys: str) -> tuple[yaml.Node | None, Position]:
    """`_path` over every `- set:` item: the first that has it, else the first partial match."""
    partial: Position | None = None
    for tree in trees:
        node, at = _path(tree, *keys)
        if node is not None:
            return node, at or TOP
        partial = partial or at
    return None, partial or TOP


def set_trees(root: yaml.Node | None) -> Iterator[yaml.MappingNode]:
    """The `set:` mapping of each `- set: ...` item (a startup.yaml is a list of them)."""
    if isinstance(root, yaml.SequenceNode):
        for item in root.value:
            tree = get(item, "set")
            if isinstance(tree, yaml.MappingNode):
                yield tree


def get(node: yaml.Node | None, *keys: str) -> yaml.Node | None:
    for key in keys:
        if not isinstance(node, yaml.MappingNode):
            return None
        node = next((v for k, v in node.value if k.value == key), None)
    return node


def items(node: yaml.Node | None) -> Iterator[tuple[yaml.ScalarNode, yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                yield key, value


def scalar(node: yaml.Node | None) -> Value | None:
    if not isinstance(node, yaml.ScalarNode) or node.value in ("", "~", "null"):
        return None
    return Value(str(node.value), node.start_mark.line + 1, node.start_mark.column + 1)


def _route_map(family: yaml.Node | None, direction: str) -> Value | None:
    value = scalar(get(family, "policy", direction, "route-map"))
    return None if value is None or value.text == NO_POLICY else value


def _policies(tree: yaml.MappingNode, readback: ReadBack) -> None:
    policy = get(tree, "router", "policy")
    for kind in POLICY_KINDS:
        readback.defined.setdefault(kind, set()).update(
            str(key.value) for key, _ in items(get(policy, kind))
        )
    for name, route_map in items(get(policy, "route-map")):
        for seq, entry in items(get(route_map, "rule")):
            for key, value in items(get(entry, "match")):
                used_kind = MATCH_KINDS.get(str(key.value))
                used = scalar(value)
                if used_kind is not None and used is not None:
                    where = f"route-map {name.value} rule {seq.value}"
                    readback.references.append(
                        Reference(used_kind, used.text, used.line, used.column, where)
                    )


def _policy_references(holder: yaml.Node, where: str, readback: ReadBack) -> None:
    """Route-maps and AS-path lists a neighbour or peer group applies, in any family."""
    for _family, settings in items(get(holder, "address-family")):
        for direction in ("inbound", "outbound"):
            for key, kind in (("route-map", "route-map"), ("aspath-list", "as-path-list")):
                used = scalar(get(settings, "policy", direction, key))
                if used is not None and used.text != NO_POLICY:
                    readback.references.append(
                        Reference(kind, used.text, used.line, used.column, where)
                    )
