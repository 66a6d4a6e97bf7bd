"""Read BGP neighbours and policy objects from an NVUE startup.yaml, with line numbers.

The YAML is composed (not loaded) so every key keeps its position: a finding points at the
neighbour's key, or at the value that is wrong. Neighbours are keyed by (VRF, address): a
handoff session in a tenant VRF reuses the address of a neighbour in VRF default. A
neighbour's settings for its address family come from
`vrf.<vrf>.router.bgp.neighbor.<address>.address-family.<afi>-unicast`, then from its
`peer-group` (`vrf.<vrf>.router.bgp.peer-group.<name>`, same layout). Policy objects live under
`router.policy` (route-map, prefix-list, as-path-list, community-list, large-community-list).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

import yaml
from meetme.validators.config_lint import (
    ParsedConfig,
    Reference,
    Session,
    SessionKey,
    Value,
    normalise,
)

try:  # libyaml's composer keeps the same marks and is several times faster
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as Loader  # type: ignore[assignment]

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


# A VTEP border's text is composed for its BGP neighbours and again for its EVPN services
# (module evpn); callers only read the tree.
@lru_cache(maxsize=16)
def compose(text: str) -> yaml.Node | Value | None:
    """The YAML node tree, or why and where it cannot be read."""
    try:
        return yaml.compose(text, Loader=Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return Value(f"YAML: {exc.problem or exc.context}", line, column)


def parse(text: str, wanted: Mapping[SessionKey, str]) -> ParsedConfig:
    """`wanted`: (VRF, normalised address) -> the address family the model gives it."""
    parsed = ParsedConfig(limit_keyword="prefix-limits inbound maximum", policy_keyword="route-map")
    root = compose(text)
    if isinstance(root, Value):
        parsed.unreadable = root
        return parsed
    for tree in set_trees(root):
        _policies(tree, parsed)
        for vrf_key, vrf in items(get(tree, "vrf")):
            bgp = get(vrf, "router", "bgp")
            groups = {str(key.value): node for key, node in items(get(bgp, "peer-group"))}
            parsed.defined.setdefault("peer-group", set()).update(groups)
            for name, node in groups.items():
                _policy_references(node, f"peer-group {name}", parsed)
            for key, node in items(get(bgp, "neighbor")):
                _policy_references(node, f"neighbor {key.value}", parsed)
                group = scalar(get(node, "peer-group"))
                if group is not None and group.text != NO_POLICY:
                    parsed.references.append(
                        Reference(
                            "peer-group",
                            group.text,
                            group.line,
                            group.column,
                            f"neighbor {key.value}",
                        )
                    )
                wanted_key = (str(vrf_key.value), normalise(str(key.value)))
                if wanted_key not in wanted:
                    continue
                family = f"{wanted[wanted_key]}-unicast"
                holders = [node]
                if group is not None and group.text in groups:
                    holders.append(groups[group.text])
                session = Session(key.start_mark.line + 1, key.start_mark.column + 1)
                for holder in holders:  # the neighbour's own setting wins over its group's
                    afi = get(holder, "address-family", family)
                    session.prefix_limit = session.prefix_limit or scalar(
                        get(afi, "prefix-limits", "inbound", "maximum")
                    )
                    session.policy_in = session.policy_in or _route_map(afi, "inbound")
                    session.policy_out = session.policy_out or _route_map(afi, "outbound")
                parsed.sessions[wanted_key] = session
    return parsed


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


def _policies(tree: yaml.MappingNode, parsed: ParsedConfig) -> None:
    policy = get(tree, "router", "policy")
    for kind in POLICY_KINDS:
        parsed.defined.setdefault(kind, set()).update(
            str(key.value) for key, _ in items(get(policy, kind))
        )
    for name, route_map in items(get(policy, "route-map")):
        for seq, entry in items(get(route_map, "rule")):
            for key, value in items(get(entry, "match")):
                used_kind = MATCH_KINDS.get(str(key.value))
                used = scalar(value)
                if used_kind is not None and used is not None:
                    where = f"route-map {name.value} rule {seq.value}"
                    parsed.references.append(
                        Reference(used_kind, used.text, used.line, used.column, where)
                    )


def _policy_references(holder: yaml.Node, where: str, parsed: ParsedConfig) -> None:
    """Route-maps and AS-path lists a neighbour or peer group applies, in any family."""
    for _family, settings in items(get(holder, "address-family")):
        for direction in ("inbound", "outbound"):
            for key, kind in (("route-map", "route-map"), ("aspath-list", "as-path-list")):
                used = scalar(get(settings, "policy", direction, key))
                if used is not None and used.text != NO_POLICY:
                    parsed.references.append(
                        Reference(kind, used.text, used.line, used.column, where)
                    )
