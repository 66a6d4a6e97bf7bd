"""CFG-006..009: a VTEP's EVPN services and a device's EVPN peers read back from its text.

The device model says which VLANs carry which L2VNI and which VRFs have an L3VNI; a template
that drops or mistypes one of those lines renders a config the device accepts and that
silently does not carry the network. Checked here, per platform, in the platform's words:

- EOS: `interface Vxlan1` / `vxlan vlan N vni V` and `vxlan vrf X vni V`; `router bgp` /
  `vrf X` / `route-target export evpn RT`.
- NX-OS: `vlan N` / `vn-segment V` and `interface nve1` / `member vni V` (L2VNI); `vrf context
  X` / `vni V`, its carrier `vlan` / `vn-segment V` and `member vni V associate-vrf` (L3VNI);
  `vrf context X` / `address-family AFI unicast` / `route-target export|both RT evpn`.
  `advertise l2vpn evpn` under `router bgp` / `vrf X` is not looked at: what the other VTEPs
  import by is the EVPN route target, so that is what the lint requires.
- NVUE: `bridge domain D vlan N vni V`; `vrf X evpn vni V` with `evpn state enabled`; `vrf X
  router bgp address-family AFI-unicast route-export to-evpn state enabled` and `vrf X router
  bgp route-export to-evpn route-target RT` (without it NVUE derives the RT from the per-leaf
  ASN, which differs on every leaf: EVPN-004).

CFG-009 reads each EVPN peer of the model (leaf or spine, VRF default) and its prefix limit:
- EOS: `router bgp` / `neighbor A maximum-routes N`, else `neighbor A peer group PG` and
  `neighbor PG maximum-routes N` at the same level.
- NX-OS: `router bgp` / `neighbor A` / `address-family l2vpn evpn` / `maximum-prefix N`.
  `inherit peer` / `peer-policy` templates are not followed: meetme prints the limit on the
  neighbour, so a template would be a finding to read, not a false pass.
- NVUE: `vrf default router bgp neighbor A address-family l2vpn-evpn prefix-limits inbound
  maximum N`, else the same under its `peer-group`.

A VRF's exports are checked for each address family it routes on the device: those of its
SVIs and of its handoff sessions (IPv4 when it has neither). One VLAN or VNI per line only: a
line mapping a range is not read (meetme's templates print one mapping per line).

Findings point at the line that maps the VLAN or VRF, or where it should have been: the VXLAN
or NVE block (the VRF's block for its exports), or line 1 when that block is missing too.
Cisco-style text is read with an indentation scan: nothing here needs ciscoconfparse2.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import yaml
from meetme.validators.config_lint import (
    EVPN_PEER_LIMIT,
    VLAN_MAPPED,
    VRF_EXPORTED,
    VRF_MAPPED,
    Value,
    normalise,
    nvue,
)

if TYPE_CHECKING:
    from meetme.generators.model import DeviceModel, Evpn, EvpnPeer

Hit = tuple[str, str, int, int]  # rule, message, line, column
Position = tuple[int, int]
TOP: Position = (1, 1)  # where a finding goes when the block it belongs in is missing


def check(model: DeviceModel, text: str) -> list[Hit]:
    """Every CFG-006..009 finding on one device's rendered text."""
    evpn = model.evpn
    if evpn is None:
        return []
    families = _families(model, evpn)
    services = evpn.vtep and bool(evpn.vlans or evpn.vrfs)
    hits: list[Hit] = []
    if model.platform in ("arista_eos", "cisco_nxos"):
        root = _tree(text)
        if model.platform == "arista_eos":
            hits += _eos(evpn, root) if evpn.vtep else []
            hits += _eos_peers(evpn.peers, root)
        else:
            hits += _nxos(evpn, families, root) if evpn.vtep else []
            hits += _nxos_peers(evpn.peers, root)
    elif model.platform == "nvidia_nvue":
        tree = nvue.compose(text)
        if isinstance(tree, Value):
            rule_id = VLAN_MAPPED if evpn.vlans else VRF_MAPPED if services else EVPN_PEER_LIMIT
            what = (
                f"{len(evpn.vlans)} VLAN(s) and {len(evpn.vrfs)} VRF(s)"
                if services
                else f"{len(evpn.peers)} EVPN peer(s)"
            )
            return [
                (
                    rule_id,
                    f"the rendered config cannot be read ({tree.text}); none of its {what} "
                    "could be checked",
                    tree.line,
                    tree.column,
                )
            ]
        trees = list(nvue.set_trees(tree))
        hits += _nvue(evpn, families, trees) if evpn.vtep else []
        hits += _nvue_peers(evpn.peers, trees)
    return hits  # meetme renders no EVPN on other platforms


def _families(model: DeviceModel, evpn: Evpn) -> dict[str, list[str]]:
    """VRF -> the address families it routes here: its SVIs' and its handoff sessions'."""
    found: dict[str, set[str]] = {vrf.name: set() for vrf in evpn.vrfs}
    for vlan in evpn.vlans:
        if vlan.svi is not None and vlan.vrf in found:
            if vlan.svi.ipv4 is not None or vlan.gateway_v4 is not None:
                found[vlan.vrf].add("ipv4")
            if vlan.svi.ipv6 is not None or vlan.gateway_v6 is not None:
                found[vlan.vrf].add("ipv6")
    for neighbor in model.bgp.neighbors:
        if neighbor.vrf in found:
            found[neighbor.vrf].add(neighbor.afi)
    return {name: sorted(afis or {"ipv4"}) for name, afis in found.items()}


# --- Cisco-style text: an indentation tree ---------------------------------------------------


@dataclass
class _Line:
    words: list[str]
    number: int
    column: int
    children: list[_Line]

    @property
    def at(self) -> Position:
        return self.number, self.column

    def child(self, *words: str) -> _Line | None:
        """The first child line that starts with these words."""
        return next((c for c in self.children if c.words[: len(words)] == list(words)), None)


def _tree(text: str) -> _Line:
    """The config as nested lines (comments and blank lines dropped); the root is not a line."""
    root = _Line([], 0, 0, [])
    stack: list[tuple[int, _Line]] = [(-1, root)]
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith(("!", "#")):
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        line = _Line(stripped.split(), number, indent + 1, [])
        stack[-1][1].children.append(line)
        stack.append((indent, line))
    return root


def _interface(root: _Line, name: str) -> _Line | None:
    """`interface NAME`, whatever the case the config spells the name in."""
    return next(
        (
            c
            for c in root.children
            if len(c.words) == 2 and c.words[0] == "interface" and c.words[1].lower() == name
        ),
        None,
    )


def _at(line: _Line | None) -> Position:
    return line.at if line is not None else TOP


# --- EOS -------------------------------------------------------------------------------------


def _eos(evpn: Evpn, root: _Line) -> Iterator[Hit]:
    vxlan = _interface(root, "vxlan1")
    where = (
        "under interface Vxlan1" if vxlan is not None else "(the config has no interface Vxlan1)"
    )
    vlans: dict[str, _Line] = {}
    vrfs: dict[str, _Line] = {}
    for child in vxlan.children if vxlan is not None else []:
        words = child.words
        if len(words) == 5 and words[0] == "vxlan" and words[3] == "vni":
            if words[1] == "vlan":
                vlans.setdefault(words[2], child)
            elif words[1] == "vrf":
                vrfs.setdefault(words[2], child)
    for vlan in evpn.vlans:
        what = f"VLAN {vlan.id} ({vlan.name})"
        line = vlans.get(str(vlan.id))
        if line is None:
            yield (
                VLAN_MAPPED,
                f"{what} is not mapped to its VNI {vlan.vni}: no `vxlan vlan {vlan.id} vni "
                f"{vlan.vni}` {where}",
                *_at(vxlan),
            )
        elif line.words[4] != str(vlan.vni):
            yield (
                VLAN_MAPPED,
                f"{what} is mapped to VNI {line.words[4]}; the device model's is {vlan.vni}",
                *line.at,
            )
    for vrf in evpn.vrfs:
        what = f"VRF {vrf.name}"
        line = vrfs.get(vrf.name)
        if line is None:
            yield (
                VRF_MAPPED,
                f"{what} is not mapped to its L3VNI {vrf.vni}: no `vxlan vrf {vrf.name} vni "
                f"{vrf.vni}` {where}",
                *_at(vxlan),
            )
        elif line.words[4] != str(vrf.vni):
            yield (
                VRF_MAPPED,
                f"{what} is mapped to L3VNI {line.words[4]}; the device model's is {vrf.vni}",
                *line.at,
            )
    bgp = next((c for c in root.children if c.words[:2] == ["router", "bgp"]), None)
    blocks = {
        c.words[1]: c
        for c in (bgp.children if bgp else [])
        if len(c.words) == 2 and c.words[0] == "vrf"
    }
    for vrf in evpn.vrfs:
        block = blocks.get(vrf.name)
        wanted = f"`route-target export evpn {vrf.route_target}` under `vrf {vrf.name}`"
        if block is None:
            yield (
                VRF_EXPORTED,
                f"VRF {vrf.name} does not export to EVPN: router bgp has no `vrf {vrf.name}` "
                f"block with `route-target export evpn {vrf.route_target}`",
                *_at(bgp),
            )
            continue
        exports = [
            c
            for c in block.children
            if len(c.words) == 4 and c.words[:3] == ["route-target", "export", "evpn"]
        ]
        yield from _route_targets(
            vrf.name, vrf.route_target, [(c.words[3], c.at) for c in exports], wanted, block.at
        )


def _route_targets(
    vrf: str,
    route_target: str,
    exports: list[tuple[str, Position]],
    wanted: str,
    missing_at: Position,
    family: str = "",
) -> Iterator[Hit]:
    """CFG-008 for one VRF (and family): an export with the model's route target, or where."""
    if any(text == route_target for text, _ in exports):
        return
    if not exports:
        yield (
            VRF_EXPORTED,
            f"VRF {vrf} does not export{family} to EVPN: no {wanted}",
            *missing_at,
        )
        return
    text, position = exports[0]
    yield (
        VRF_EXPORTED,
        f"VRF {vrf} exports{family} to EVPN with route target {text}; the device model's is "
        f"{route_target}, which the other VTEPs import",
        *position,
    )


# --- NX-OS -----------------------------------------------------------------------------------


def _nxos(evpn: Evpn, families: dict[str, list[str]], root: _Line) -> Iterator[Hit]:
    nve = _interface(root, "nve1")
    members: dict[str, _Line] = {}
    for line in nve.children if nve is not None else []:
        if len(line.words) >= 3 and line.words[:2] == ["member", "vni"]:
            members.setdefault(line.words[2], line)
    vlans: dict[str, _Line] = {}
    contexts: dict[str, _Line] = {}
    for line in root.children:
        words = line.words
        if len(words) == 2 and words[0] == "vlan":
            vlans.setdefault(words[1], line)
        elif len(words) == 3 and words[:2] == ["vrf", "context"]:
            contexts.setdefault(words[2], line)
    nve_at = _at(nve)
    in_nve = "under interface nve1" if nve is not None else "(the config has no interface nve1)"

    def segment(rule_id: str, what: str, vlan_id: int, vni: int) -> Iterator[Hit]:
        block = vlans.get(str(vlan_id))
        segment = block.child("vn-segment") if block is not None else None
        if block is None:
            yield (
                rule_id,
                f"{what} is not mapped to VNI {vni}: no `vlan {vlan_id}` with `vn-segment {vni}`",
                *nve_at,
            )
        elif segment is None or len(segment.words) != 2:
            yield rule_id, f"{what} has no `vn-segment {vni}` under vlan {vlan_id}", *block.at
        elif segment.words[1] != str(vni):
            yield (
                rule_id,
                f"{what} is mapped to VNI {segment.words[1]}; the device model's is {vni}",
                *segment.at,
            )

    def member(rule_id: str, what: str, vni: int, l3: bool) -> Iterator[Hit]:
        line = members.get(str(vni))
        command = f"member vni {vni}" + (" associate-vrf" if l3 else "")
        if line is None:
            yield rule_id, f"{what}: VNI {vni} is not on the VTEP, no `{command}` {in_nve}", *nve_at
        elif ("associate-vrf" in line.words) != l3:
            role = "an L3VNI (associate-vrf)" if l3 else "an L2VNI (without associate-vrf)"
            yield rule_id, f"{what}: VNI {vni} must be {role}: `{command}`", *line.at

    for vlan in evpn.vlans:
        what = f"VLAN {vlan.id} ({vlan.name})"
        yield from segment(VLAN_MAPPED, what, vlan.id, vlan.vni)
        yield from member(VLAN_MAPPED, what, vlan.vni, l3=False)
    for vrf in evpn.vrfs:
        what = f"VRF {vrf.name}"
        context = contexts.get(vrf.name)
        vni = context.child("vni") if context is not None else None
        if context is None:
            yield (
                VRF_MAPPED,
                f"{what} is not mapped to its L3VNI {vrf.vni}: no `vrf context {vrf.name}` "
                f"with `vni {vrf.vni}`",
                *nve_at,
            )
        elif vni is None or len(vni.words) < 2:
            yield VRF_MAPPED, f"{what} has no `vni {vrf.vni}` in its vrf context", *context.at
        elif vni.words[1] != str(vrf.vni):
            yield (
                VRF_MAPPED,
                f"{what} is mapped to L3VNI {vni.words[1]}; the device model's is {vrf.vni}",
                *vni.at,
            )
        if vrf.vlan is not None:
            carrier = f"{what}'s L3VNI carrier VLAN {vrf.vlan}"
            yield from segment(VRF_MAPPED, carrier, vrf.vlan, vrf.vni)
        yield from member(VRF_MAPPED, what, vrf.vni, l3=True)
        for afi in families[vrf.name]:
            family = context.child("address-family", afi, "unicast") if context else None
            exports = [
                (c.words[2], c.at)
                for c in (family.children if family is not None else [])
                if len(c.words) == 4
                and c.words[0] == "route-target"
                and c.words[1] in ("export", "both")
                and c.words[3] == "evpn"
            ]
            yield from _route_targets(
                vrf.name,
                vrf.route_target,
                exports,
                f"`route-target export {vrf.route_target} evpn` under `vrf context {vrf.name}` "
                f"/ `address-family {afi} unicast`",
                _at(family or context or nve),
                f" {afi}",
            )


# --- NVUE ------------------------------------------------------------------------------------


def _nvue(
    evpn: Evpn, families: dict[str, list[str]], trees: list[yaml.MappingNode]
) -> Iterator[Hit]:
    domains = [
        (key, value)
        for tree in trees
        for key, value in nvue.items(nvue.get(tree, "bridge", "domain"))
    ]
    for vlan in evpn.vlans:
        what = f"VLAN {vlan.id} ({vlan.name})"
        found = [_path(value, "vlan", str(vlan.id)) for _, value in domains]
        mapped = next(((node, at) for node, at in found if node is not None), None)
        if mapped is None:
            # where it belongs: the first bridge domain's `vlan:` (or the domain), else `nve:`
            if domains:
                at = next((at for _, at in found if at is not None), _key_at(domains[0][0]))
            else:
                at = _path_in(trees, "nve")[1]
            domain = str(domains[0][0].value) if domains else "br_default"
            yield (
                VLAN_MAPPED,
                f"{what} is not mapped to its VNI {vlan.vni}: no `bridge domain {domain} vlan "
                f"{vlan.id} vni {vlan.vni}`",
                *at,
            )
            continue
        node, vlan_at = mapped
        vnis = list(nvue.items(nvue.get(node, "vni")))
        if any(str(key.value) == str(vlan.vni) for key, _ in vnis):
            continue
        if vnis:
            yield (
                VLAN_MAPPED,
                f"{what} is mapped to VNI {vnis[0][0].value}; the device model's is {vlan.vni}",
                *_key_at(vnis[0][0]),
            )
        else:
            yield (
                VLAN_MAPPED,
                f"{what} has no `vni {vlan.vni}` in its bridge domain",
                *(vlan_at or TOP),
            )
    for vrf in evpn.vrfs:
        yield from _nvue_vrf(vrf.name, vrf.vni, vrf.route_target, families[vrf.name], trees)


def _nvue_vrf(
    name: str, vni: int, route_target: str, afis: list[str], trees: list[yaml.MappingNode]
) -> Iterator[Hit]:
    what = f"VRF {name}"
    node, at = _path_in(trees, "vrf", name)
    if node is None:
        yield (
            VRF_MAPPED,
            f"{what} is not mapped to its L3VNI {vni}: no `vrf {name} evpn vni {vni}`",
            *at,
        )
        yield (
            VRF_EXPORTED,
            f"{what} does not export to EVPN: no `vrf {name} router bgp`",
            *at,
        )
        return
    evpn, evpn_at = _path(node, "evpn")
    vnis = list(nvue.items(nvue.get(evpn, "vni")))
    if not vnis:
        yield (
            VRF_MAPPED,
            f"{what} is not mapped to its L3VNI: no `vrf {name} evpn vni {vni}`",
            *(evpn_at or at),
        )
    elif not any(str(key.value) == str(vni) for key, _ in vnis):
        yield (
            VRF_MAPPED,
            f"{what} is mapped to L3VNI {vnis[0][0].value}; the device model's is {vni}",
            *_key_at(vnis[0][0]),
        )
    yield from _enabled(VRF_MAPPED, f"{what}'s EVPN (`vrf {name} evpn state`)", evpn, evpn_at or at)
    bgp, bgp_at = _path(node, "router", "bgp")
    bgp_at = bgp_at or at
    for afi in afis:
        export, export_at = _path(
            bgp, "address-family", f"{afi}-unicast", "route-export", "to-evpn"
        )
        yield from _enabled(
            VRF_EXPORTED,
            f"{what}'s {afi} export to EVPN (`vrf {name} router bgp address-family {afi}-unicast "
            "route-export to-evpn state`)",
            export,
            export_at or bgp_at,
        )
    targets, targets_at = _path(bgp, "route-export", "to-evpn", "route-target")
    yield from _route_targets(
        name,
        route_target,
        [(str(key.value), _key_at(key)) for key, _ in nvue.items(targets)],
        f"`vrf {name} router bgp route-export to-evpn route-target {route_target}` (without it "
        "NVUE derives the target from the leaf's own ASN)",
        targets_at or bgp_at,
    )


def _enabled(rule_id: str, what: str, node: yaml.Node | None, at: Position) -> Iterator[Hit]:
    """NVUE's `state: enabled`; the features checked here are disabled by default (schema)."""
    state = nvue.scalar(nvue.get(node, "state"))
    if state is None:
        yield rule_id, f"{what} is not set: disabled by default, it must be enabled", *at
    elif state.text != "enabled":
        yield rule_id, f"{what} is {state.text}; it must be enabled", state.line, state.column


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


# --- CFG-009: EVPN peers and their prefix limit ----------------------------------------------


def _peer_limit(
    peer: EvpnPeer, limit: tuple[str, Position] | None, keyword: str, where: str, at: Position
) -> Iterator[Hit]:
    """One configured peer: `limit` is the value the config gives it and where, if any."""
    who = f"EVPN peer {peer.address} ({peer.peer_device})"
    if limit is None:
        yield EVPN_PEER_LIMIT, f"{who} has no prefix limit: no `{keyword}` {where}", *at
        return
    text, position = limit
    if not text.isdigit() or int(text) == 0:
        wrong = f"{who} has {keyword} {text}, which is no limit"
    elif int(text) != peer.max_routes:
        wrong = f"{who} has {keyword} {text}"
    else:
        return
    yield EVPN_PEER_LIMIT, f"{wrong}; the device model's is {peer.max_routes}", *position


def _peer_missing(peer: EvpnPeer, scope: str, at: Position) -> Hit:
    return (
        EVPN_PEER_LIMIT,
        f"EVPN peer {peer.address} ({peer.peer_device}) of the device model is not configured "
        f"in {scope}",
        *at,
    )


def _router_bgp(root: _Line) -> _Line | None:
    return next((c for c in root.children if c.words[:2] == ["router", "bgp"]), None)


def _eos_peers(peers: list[EvpnPeer], root: _Line) -> Iterator[Hit]:
    bgp = _router_bgp(root)
    first: dict[str, _Line] = {}  # normalised neighbour -> its first line
    group_of: dict[str, str] = {}  # normalised neighbour -> its peer group
    limits: dict[str, _Line] = {}  # neighbour or group, as written -> `maximum-routes` line
    for line in bgp.children if bgp is not None else []:
        words = line.words
        if words[0] != "neighbor" or len(words) < 3:
            continue
        name = normalise(words[1])
        first.setdefault(name, line)
        if words[2:] in (["peer", "group", words[-1]], ["peer-group", words[-1]]):
            # `neighbor A peer group PG`; `neighbor PG peer group` (no name) defines PG
            group_of.setdefault(name, words[-1])
        elif words[2] == "maximum-routes" and len(words) >= 4:
            limits.setdefault(name, line)
    for peer in peers:
        address = normalise(peer.address)
        neighbor = first.get(address)
        if neighbor is None:
            yield _peer_missing(peer, "router bgp", _at(bgp))
            continue
        found = limits.get(address) or limits.get(group_of.get(address, ""))
        yield from _peer_limit(
            peer,
            (found.words[3], found.at) if found is not None else None,
            "maximum-routes",
            "on the neighbour or its peer group",
            neighbor.at,
        )


def _nxos_peers(peers: list[EvpnPeer], root: _Line) -> Iterator[Hit]:
    bgp = _router_bgp(root)
    neighbors: dict[str, _Line] = {}
    for line in bgp.children if bgp is not None else []:
        if len(line.words) >= 2 and line.words[0] == "neighbor":
            neighbors.setdefault(normalise(line.words[1]), line)
    for peer in peers:
        neighbor = neighbors.get(normalise(peer.address))
        if neighbor is None:
            yield _peer_missing(peer, "router bgp", _at(bgp))
            continue
        family = neighbor.child("address-family", "l2vpn", "evpn")
        found = family.child("maximum-prefix") if family is not None else None
        yield from _peer_limit(
            peer,
            (found.words[1], found.at) if found is not None and len(found.words) > 1 else None,
            "maximum-prefix",
            "under the neighbour's address-family l2vpn evpn",
            neighbor.at,
        )


def _nvue_peers(peers: list[EvpnPeer], trees: list[yaml.MappingNode]) -> Iterator[Hit]:
    neighbors: dict[str, tuple[yaml.ScalarNode, yaml.Node]] = {}
    groups: dict[str, yaml.Node] = {}
    for tree in trees:
        bgp = nvue.get(tree, "vrf", "default", "router", "bgp")
        for key, node in nvue.items(nvue.get(bgp, "neighbor")):
            neighbors.setdefault(normalise(str(key.value)), (key, node))
        for key, node in nvue.items(nvue.get(bgp, "peer-group")):
            groups.setdefault(str(key.value), node)
    limit = ("address-family", "l2vpn-evpn", "prefix-limits", "inbound", "maximum")
    for peer in peers:
        entry = neighbors.get(normalise(peer.address))
        if entry is None:
            at = _path_in(trees, "vrf", "default", "router", "bgp", "neighbor")[1]
            yield _peer_missing(peer, "vrf default router bgp", at)
            continue
        key, node = entry
        group = nvue.scalar(nvue.get(node, "peer-group"))
        holders = [node] + ([groups[group.text]] if group and group.text in groups else [])
        found = next(
            (v for v in (nvue.scalar(nvue.get(h, *limit)) for h in holders) if v is not None),
            None,
        )
        yield from _peer_limit(
            peer,
            (found.text, (found.line, found.column)) if found is not None else None,
            "address-family l2vpn-evpn prefix-limits inbound maximum",
            "on the neighbour or its peer-group",
            _key_at(key),
        )
