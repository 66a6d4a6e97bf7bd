"""Read back Cisco-style text: IOS-XR, EOS and NX-OS, as an indentation tree of blocks.

The file is parsed once into an indentation tree (`readback.blocks`: a line's parent is the
nearest line above it indented less, which is all these platforms' hierarchy is; the config
lint read it with ciscoconfparse2 before, at ~30 us a line, about 60 % of a 1,000-device lint,
and the tree gave the same read-back on every rendered file). The checks walk `router bgp`
(where settings nest and are inherited) and, on VTEPs, the VXLAN interface, NX-OS's `vlan N`
and `vrf context X`; the CFG-010/011 checks walk the same tree. The names a config defines are
top-level lines, and what a route-map or route-policy uses is a line inside it: a line scan
reads them.

Neighbours are read in `router bgp` and in each of its `vrf NAME` blocks, and keyed by (VRF,
address): a handoff session in a tenant VRF reuses the address of a default-VRF neighbour. For
each neighbour, the settings of each address family are resolved the way the platform
inherits them, nearest first (groups and templates are defined at the `router bgp` level and
used from any VRF):
- IOS-XR: the neighbour's `address-family AFI unicast` block, its `use af-group`, then
  `use neighbor-group` (whose address family may `use af-group` in turn).
- EOS: `neighbor X ...` under the neighbour's address family, then at `router bgp` (or `vrf`)
  level, then the same for its `neighbor X peer group PG` (in the neighbour's VRF block, then
  at the `router bgp` level).
- NX-OS: the neighbour's `address-family AFI unicast` (`l2vpn evpn`) block, its `inherit
  peer-policy` templates, then `inherit peer` templates (their address family and their own
  inherits).
EVPN services: EOS `interface Vxlan1` / `vxlan vlan N vni V`, `vxlan vrf X vni V` and `router
bgp` / `vrf X` / `route-target export evpn RT`; NX-OS `vlan N` / `vn-segment V`, `interface
nve1` / `member vni V [associate-vrf]`, `vrf context X` / `vni V` and its `address-family AFI
unicast` / `route-target export|both RT evpn`. One VLAN or VNI per line: a line mapping a
range is not read (meetme's templates print one mapping per line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from meetme.validators.config_lint.readback import (
    DEFAULT_VRF,
    TOP,
    Block,
    Export,
    Mapping,
    Member,
    Neighbor,
    Position,
    ReadBack,
    Reference,
    Session,
    Value,
    Words,
    blocks,
    normalise,
)

Settings = dict[str, Value]  # "limit" | "in" | "out" -> where the config sets it


@dataclass(frozen=True)
class Dialect:
    syntax: str  # the dialect family: ios (EOS), nxos, iosxr
    words: Words
    families: dict[str, tuple[str, ...]]  # neutral family -> its `address-family` words
    blocks: Callable[[list[str]], bool]  # which top-level blocks (by words) to parse


def _vtep_block(name: str) -> Callable[[list[str]], bool]:
    def wanted(words: list[str]) -> bool:
        return words[:2] == ["router", "bgp"] or (
            len(words) == 2 and words[0] == "interface" and words[1].lower() == name
        )

    return wanted


def _nxos_block(words: list[str]) -> bool:
    return (
        _vtep_block("nve1")(words)
        or (len(words) == 2 and words[0] == "vlan")
        or (len(words) == 3 and words[:2] == ["vrf", "context"])
    )


DIALECTS = {
    "cisco_iosxr": Dialect(
        "iosxr",
        Words(limit="maximum-prefix", policy="route-policy"),
        {"ipv4": ("ipv4", "unicast"), "ipv6": ("ipv6", "unicast")},
        lambda words: words[:2] == ["router", "bgp"],
    ),
    "arista_eos": Dialect(
        "ios",
        Words(
            limit="maximum-routes",
            evpn_limit="maximum-routes",
            evpn_limit_where="on the neighbour or its peer group",
            vtep="Vxlan1",
            vlan_missing="{what} is not mapped to its VNI {vni}: no `vxlan vlan {id} vni {vni}` "
            "{where}",
            vrf_missing="{what} is not mapped to its L3VNI {vni}: no `vxlan vrf {name} vni {vni}` "
            "{where}",
            export_block_missing="VRF {name} does not export to EVPN: router bgp has no `vrf "
            "{name}` block with `route-target export evpn {rt}`",
            export_missing="`route-target export evpn {rt}` under `vrf {name}`",
        ),
        {"ipv4": ("ipv4",), "ipv6": ("ipv6",), "evpn": ("evpn",)},
        _vtep_block("vxlan1"),
    ),
    "cisco_nxos": Dialect(
        "nxos",
        Words(
            limit="maximum-prefix",
            evpn_limit="maximum-prefix",
            evpn_limit_where="under the neighbour's address-family l2vpn evpn",
            vtep="nve1",
            vlan_missing="{what} is not mapped to VNI {vni}: no `vlan {id}` with "
            "`vn-segment {vni}`",
            vlan_no_vni="{what} has no `vn-segment {vni}` under vlan {id}",
            vrf_missing="{what} is not mapped to its L3VNI {vni}: no `vrf context {name}` with "
            "`vni {vni}`",
            vrf_no_vni="{what} has no `vni {vni}` in its vrf context",
            member="member vni {vni}",
            member_l3="associate-vrf",
            carrier_vlan=True,
            export_missing="`route-target export {rt} evpn` under `vrf context {name}` / "
            "`address-family {afi} unicast`",
            exports_per_family=True,
        ),
        {"ipv4": ("ipv4", "unicast"), "ipv6": ("ipv6", "unicast"), "evpn": ("l2vpn", "evpn")},
        _nxos_block,
    ),
}
PLATFORMS = tuple(DIALECTS)


def read(text: str, platform: str) -> ReadBack:
    """The read-back of one rendered config of a Cisco-style platform (a key of DIALECTS)."""
    dialect = DIALECTS[platform]
    readback = ReadBack(dialect.words, blocks=blocks(text))
    lines = text.splitlines()
    if dialect.syntax == "iosxr":
        _scan(lines, readback, _XR_DEFINITIONS, _xr_uses)
    else:
        _scan(lines, readback, _IOS_DEFINITIONS, _route_map_uses)
    top = [_At(b) for b in readback.blocks if b.statement and dialect.blocks(b.words)]
    if not top:
        return readback
    bgp = next((b for b in top if b.words[:2] == ["router", "bgp"]), None)
    if bgp is not None:
        readback.neighbors_at = bgp.at
        if dialect.syntax == "iosxr":
            _iosxr(bgp, readback, dialect)
        elif dialect.syntax == "nxos":
            _nxos(bgp, readback, dialect)
        else:
            _eos(bgp, readback, dialect)
    vtep = next((b for b in top if b.words[0] == "interface"), None)
    if vtep is not None:
        readback.vtep_at = readback.vlans_at = readback.vrfs_at = vtep.at
    if platform == "arista_eos":
        _eos_services(vtep, bgp, readback)
    elif platform == "cisco_nxos":
        _nxos_services(vtep, top, readback)
    return readback


# --- the line scan: definitions, what policies use, where `router bgp` is --------------------

Uses = Callable[[str, str], Iterator[tuple[str, str]]]  # (owner, line) -> (kind, name)


def _scan(
    lines: list[str],
    readback: ReadBack,
    definitions: tuple[tuple[re.Pattern[str], str], ...],
    uses: Uses,
) -> None:
    """Record defined names (top-level lines) and policy references (lines inside them)."""
    owner = ""
    policy = False  # whether the owner is a policy whose lines can use names (`uses` says)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(("!", "#")):
            continue
        if not line[0].isspace():
            owner = stripped
            policy = owner.startswith(("route-map ", "route-policy "))
            for pattern, kind in definitions:
                match = pattern.match(stripped)
                if match is not None:
                    readback.defined.setdefault(kind, set()).add(match[1])
                    break
            continue
        if not policy:
            continue  # only a route-map's or route-policy's lines use names
        column = len(line) - len(line.lstrip()) + 1
        for kind, name in uses(owner, stripped):
            where = " ".join(owner.split()[:4])
            readback.references.append(Reference(kind, name, index + 1, column, where))


_XR_DEFINITIONS = tuple(
    (re.compile(kind + r"\s+([^\s(]+)"), kind)
    for kind in (
        "route-policy",
        "prefix-set",
        "as-path-set",
        "community-set",
        "large-community-set",
    )
)
_NAME = r"([A-Za-z_][\w.-]*)"  # a set name; inline sets start with '(' and are not references
_XR_REFERENCES = (
    (re.compile(r"\bdestination in\s+" + _NAME), "prefix-set"),
    (re.compile(r"\bas-path in\s+" + _NAME), "as-path-set"),
    (re.compile(r"(?<![\w-])community matches-(?:any|every)\s+" + _NAME), "community-set"),
    (re.compile(r"\blarge-community matches-(?:any|every)\s+" + _NAME), "large-community-set"),
    (re.compile(r"\bset community\s+" + _NAME), "community-set"),
    (re.compile(r"\bset large-community\s+" + _NAME), "large-community-set"),
    (re.compile(r"\bdelete community in\s+" + _NAME), "community-set"),
    (re.compile(r"\bapply\s+" + _NAME), "route-policy"),
)


def _xr_uses(owner: str, line: str) -> Iterator[tuple[str, str]]:
    if owner.startswith("route-policy "):
        for pattern, kind in _XR_REFERENCES:
            for match in pattern.finditer(line):
                yield kind, match[1]


_IOS_DEFINITIONS = (
    (re.compile(r"route-map\s+(\S+)"), "route-map"),
    (re.compile(r"ip prefix-list\s+(\S+)"), "ip prefix-list"),
    (re.compile(r"ipv6 prefix-list\s+(\S+)"), "ipv6 prefix-list"),
    (re.compile(r"ip as-path access-list\s+(\S+)"), "ip as-path access-list"),
    (
        re.compile(r"ip community-list\s+(?:(?:standard|expanded|regexp)\s+)?(\S+)"),
        "ip community-list",
    ),
    (
        re.compile(r"ip large-community-list\s+(?:(?:standard|expanded|regexp)\s+)?(\S+)"),
        "ip large-community-list",
    ),
)
_ROUTE_MAP_MATCHES = (
    (re.compile(r"match ip address prefix-list\s+(.+)"), "ip prefix-list"),
    (re.compile(r"match ipv6 address prefix-list\s+(.+)"), "ipv6 prefix-list"),
    # `match as-path length >= N` (EOS) compares the path's length and names no list
    (re.compile(r"match as-path\s+(?!length\b)(.+)"), "ip as-path access-list"),
    (re.compile(r"match community\s+(.+)"), "ip community-list"),
    (re.compile(r"match large-community\s+(.+)"), "ip large-community-list"),
    (re.compile(r"sub-route-map\s+(\S+)"), "route-map"),
)


def _route_map_uses(owner: str, line: str) -> Iterator[tuple[str, str]]:
    if owner.startswith("route-map "):
        for pattern, kind in _ROUTE_MAP_MATCHES:
            match = pattern.match(line)
            if match is not None:
                # NX-OS takes several names on one match line; `exact-match` is a keyword
                for name in match[1].split():
                    if name != "exact-match":
                        yield kind, name


# --- the parsed blocks ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _At:
    """A parsed line of the config (readback.Block), as the checks walk it."""

    block: Block
    up: _At | None = None  # the line it is indented under, as the walk came down

    @property
    def words(self) -> list[str]:
        return self.block.words

    @property
    def key(self) -> int:  # identifies a group or template on the inheritance path
        return self.block.line

    @property
    def at(self) -> Position:
        return self.block.line, self.block.indent + 1

    def children(self) -> list[_At]:
        return [_At(c, self) for c in self.block.children if c.statement]

    def child(self, *words: str) -> _At | None:
        """The first child line that starts with these words."""
        return next((c for c in self.children() if c.words[: len(words)] == list(words)), None)

    def descendants(self) -> Iterator[_At]:
        for child in self.children():
            yield child
            yield from child.descendants()

    def value(self, text: str) -> Value:
        return Value(text, *self.at)

    def reference(self, kind: str, name: str) -> Reference:
        return Reference(kind, name, *self.at, self.owner())

    def owner(self) -> str:
        """The neighbour, group or template this line belongs to, for messages."""
        current: _At | None = self
        while current is not None and current.block.indent > 0:
            words = current.words
            if words[0] in ("neighbor", "neighbor-group", "af-group", "template"):
                return " ".join(words[:3] if words[0] == "template" else words[:2])
            current = current.up
        return "router bgp"


def _merge(found: Settings, inherited: Settings) -> None:
    """What a group or template gives only counts where the nearer level said nothing."""
    for key, value in inherited.items():
        found.setdefault(key, value)


def _session(at: Position, settings: Settings) -> Session:
    return Session(*at, settings.get("limit"), settings.get("in"), settings.get("out"))


def _scopes(bgp: _At) -> list[tuple[str, _At]]:
    """`router bgp` and each of its `vrf NAME` blocks, by VRF: both may hold neighbours."""
    vrfs = [(c.words[1], c) for c in bgp.children() if c.words[0] == "vrf" and len(c.words) > 1]
    return [(DEFAULT_VRF, bgp), *vrfs]


# --- IOS-XR ----------------------------------------------------------------------------------


def _iosxr(bgp: _At, readback: ReadBack, dialect: Dialect) -> None:
    groups: dict[str, _At] = {}
    af_groups: dict[tuple[str, str], _At] = {}
    neighbors: list[tuple[str, _At]] = []
    for vrf, scope in _scopes(bgp):
        for child in scope.children():
            words = child.words
            if words[0] == "neighbor-group" and len(words) == 2:
                groups[words[1]] = child
            elif words[0] == "af-group" and len(words) >= 4:
                af_groups[(words[1], words[3])] = child  # af-group N address-family AFI ..
            elif words[0] == "neighbor" and len(words) == 2:
                neighbors.append((vrf, child))
    readback.defined.setdefault("neighbor-group", set()).update(groups)
    readback.defined.setdefault("af-group", set()).update(name for name, _ in af_groups)
    for line in bgp.descendants():
        words = line.words
        if words[0] == "route-policy" and len(words) >= 2:
            readback.references.append(line.reference("route-policy", words[1].split("(")[0]))
        elif words[:2] in (["use", "neighbor-group"], ["use", "af-group"]) and len(words) > 2:
            readback.references.append(line.reference(words[1], words[2]))

    def af_settings(block: _At, afi: str, seen: set[int]) -> Settings:
        found: Settings = {}
        seen.add(block.key)
        for child in block.children():
            words = child.words
            if words[0] == "maximum-prefix" and len(words) > 1:
                found.setdefault("limit", child.value(words[1]))
            elif words[0] == "route-policy" and len(words) >= 3 and words[-1] in ("in", "out"):
                found.setdefault(words[-1], child.value(words[1].split("(")[0]))
        for child in block.children():
            words = child.words
            if words[:2] == ["use", "af-group"] and len(words) > 2:
                group = af_groups.get((words[2], afi))
                if group is not None and group.key not in seen:
                    _merge(found, af_settings(group, afi, seen))
        return found

    def settings(holder: _At, afi: str, seen: set[int]) -> Settings:
        found: Settings = {}
        seen.add(holder.key)  # a group that (wrongly) uses itself must not loop
        for child in holder.children():
            if child.words[:3] == ["address-family", afi, "unicast"]:
                _merge(found, af_settings(child, afi, seen))
        for child in holder.children():
            words = child.words
            if words[:2] == ["use", "neighbor-group"] and len(words) > 2:
                group = groups.get(words[2])
                if group is not None and group.key not in seen:
                    _merge(found, settings(group, afi, seen))
        return found

    for vrf, line in neighbors:  # a neighbour written twice: the last one counts
        neighbor = Neighbor(line.at)
        for family in dialect.families:
            neighbor.families[family] = _session(line.at, settings(line, family, set()))
        readback.neighbors[(vrf, normalise(line.words[1]))] = neighbor


# --- EOS -------------------------------------------------------------------------------------


@dataclass
class _EosScope:
    """What one level (`router bgp`, or one `vrf NAME` block in it) says about neighbours."""

    groups: set[str]
    member_of: dict[str, _At]  # neighbour -> its `neighbor X peer group PG` line
    first: dict[str, _At]  # neighbour -> its first line, where findings point
    base: dict[str, Settings]  # settings at this level, by neighbour or group
    per_af: dict[tuple[str, str], Settings]  # (afi, neighbour or group) -> its family's


def _eos(bgp: _At, readback: ReadBack, dialect: Dialect) -> None:
    scopes = [(vrf, _eos_scope(block, readback)) for vrf, block in _scopes(bgp)]
    top = scopes[0][1]  # peer groups are defined here and used from any VRF (AVD vrf-lite)
    for vrf, scope in scopes:
        readback.defined.setdefault("peer group", set()).update(scope.groups)
        for name, line in scope.first.items():
            if name in scope.groups:
                continue
            # the neighbour before its group; its family before its level; a VRF's group
            # settings before the `router bgp` level's
            levels = [(scope, name)]
            if name in scope.member_of:
                group = scope.member_of[name].words[-1]
                levels += [(scope, group)] + ([(top, group)] if scope is not top else [])
            neighbor = readback.neighbors.setdefault((vrf, normalise(name)), Neighbor(line.at))
            for family, (afi,) in dialect.families.items():
                found: Settings = {}
                for level, holder in levels:
                    _merge(found, level.per_af.get((afi, holder), {}))
                    _merge(found, level.base.get(holder, {}))
                neighbor.families[family] = _session(line.at, found)


def _eos_scope(block: _At, readback: ReadBack) -> _EosScope:
    scope = _EosScope(set(), {}, {}, {}, {})
    for child in block.children():
        words = child.words
        if words[0] == "neighbor" and len(words) >= 3:
            name, rest = words[1], words[2:]
            if rest in (["peer", "group"], ["peer-group"]):
                scope.groups.add(name)
                continue
            if rest[:2] == ["peer", "group"] or rest[0] == "peer-group":
                scope.member_of[name] = child
                readback.references.append(child.reference("peer group", words[-1]))
            scope.first.setdefault(name, child)
            _eos_setting(child, scope.base.setdefault(name, {}), readback)
        elif words[0] == "address-family" and len(words) >= 2:
            for line in child.children():
                inner = line.words
                if inner[0] == "neighbor" and len(inner) >= 3:
                    per_af = scope.per_af.setdefault((words[1], inner[1]), {})
                    _eos_setting(line, per_af, readback)
    return scope


def _eos_setting(line: _At, store: Settings, readback: ReadBack) -> None:
    """`neighbor X route-map NAME in|out` and `neighbor X maximum-routes N ...`."""
    words = line.words
    if words[2] == "route-map" and len(words) >= 5 and words[4] in ("in", "out"):
        store.setdefault(words[4], line.value(words[3]))
        readback.references.append(line.reference("route-map", words[3]))
    elif words[2] == "maximum-routes" and len(words) >= 4:
        store.setdefault("limit", line.value(words[3]))


def _eos_services(vxlan: _At | None, bgp: _At | None, readback: ReadBack) -> None:
    """`vxlan vlan N vni V` and `vxlan vrf X vni V` on Vxlan1; each `router bgp` / `vrf X`'s
    `route-target export evpn RT` (for all the VRF's families)."""
    for line in vxlan.children() if vxlan is not None else []:
        words = line.words
        if len(words) == 5 and words[0] == "vxlan" and words[3] == "vni":
            mapping = Mapping(line.at, [line.value(words[4])])
            if words[1] == "vlan":
                readback.vlans.setdefault(words[2], mapping)
            elif words[1] == "vrf":
                readback.vrfs.setdefault(words[2], mapping)
    readback.exports_at = bgp.at if bgp is not None else TOP
    for block in bgp.children() if bgp is not None else []:
        if len(block.words) == 2 and block.words[0] == "vrf":
            targets = [
                c.value(c.words[3])
                for c in block.children()
                if len(c.words) == 4 and c.words[:3] == ["route-target", "export", "evpn"]
            ]
            readback.exports[(block.words[1], "")] = Export(block.at, targets)


# --- NX-OS -----------------------------------------------------------------------------------


def _nxos(bgp: _At, readback: ReadBack, dialect: Dialect) -> None:
    templates: dict[str, dict[str, _At]] = {"peer": {}, "peer-policy": {}}
    for child in bgp.children():
        words = child.words
        if words[0] == "template" and len(words) > 2 and words[1] in templates:
            templates[words[1]][words[2]] = child
    for kind, named in templates.items():
        readback.defined.setdefault(f"template {kind}", set()).update(named)
    for line in bgp.descendants():
        words = line.words
        if words[0] == "route-map" and len(words) >= 3 and words[2] in ("in", "out"):
            readback.references.append(line.reference("route-map", words[1]))
        elif words[0] == "inherit" and len(words) > 2 and words[1] in templates:
            readback.references.append(line.reference(f"template {words[1]}", words[2]))

    def inherited(holder: _At, kind: str, seen: set[int]) -> Iterator[_At]:
        """`inherit peer T` / `inherit peer-policy T SEQ`: templates fill what is not set."""
        for child in holder.children():
            words = child.words
            if words[:2] == ["inherit", kind] and len(words) > 2:
                template = templates[kind].get(words[2])
                if template is not None and template.key not in seen:
                    yield template

    def af_settings(block: _At, seen: set[int]) -> Settings:
        found: Settings = {}
        seen.add(block.key)
        for child in block.children():
            words = child.words
            if words[0] == "maximum-prefix" and len(words) > 1:
                found.setdefault("limit", child.value(words[1]))
            elif words[0] == "route-map" and len(words) >= 3 and words[2] in ("in", "out"):
                found.setdefault(words[2], child.value(words[1]))
        for template in inherited(block, "peer-policy", seen):
            _merge(found, af_settings(template, seen))
        return found

    def settings(holder: _At, family: tuple[str, ...], seen: set[int]) -> Settings:
        found: Settings = {}
        seen.add(holder.key)
        for child in holder.children():
            if tuple(child.words) == ("address-family", *family):
                _merge(found, af_settings(child, seen))
        for template in inherited(holder, "peer", seen):
            _merge(found, settings(template, family, seen))
        return found

    for vrf, scope in _scopes(bgp):
        for child in scope.children():
            words = child.words
            if words[0] == "neighbor" and len(words) >= 2:
                neighbor = Neighbor(child.at)  # written twice: the last one counts
                for family, spelled in dialect.families.items():
                    found = settings(child, spelled, set())
                    neighbor.families[family] = _session(child.at, found)
                readback.neighbors[(vrf, normalise(words[1]))] = neighbor


def _nxos_services(nve: _At | None, top: list[_At], readback: ReadBack) -> None:
    """`vlan N` / `vn-segment V`; `member vni V [associate-vrf]` on nve1; `vrf context X` /
    `vni V` and its families' `route-target export|both RT evpn`."""
    readback.members = {}
    for line in nve.children() if nve is not None else []:
        if len(line.words) >= 3 and line.words[:2] == ["member", "vni"]:
            member = Member(line.at, "associate-vrf" in line.words)
            readback.members.setdefault(line.words[2], member)
    readback.exports_at = readback.vrfs_at
    for block in top:
        words = block.words
        if len(words) == 2 and words[0] == "vlan" and words[1] not in readback.vlans:
            segment = block.child("vn-segment")
            vnis = [segment.value(segment.words[1])] if segment and len(segment.words) == 2 else []
            readback.vlans[words[1]] = Mapping(block.at, vnis)
        elif len(words) == 3 and words[:2] == ["vrf", "context"] and words[2] not in readback.vrfs:
            vni = block.child("vni")
            vnis = [vni.value(vni.words[1])] if vni is not None and len(vni.words) >= 2 else []
            readback.vrfs[words[2]] = Mapping(block.at, vnis)
            for afi in ("ipv4", "ipv6"):
                family = block.child("address-family", afi, "unicast")
                targets = [
                    c.value(c.words[2])
                    for c in (family.children() if family is not None else [])
                    if len(c.words) == 4
                    and c.words[0] == "route-target"
                    and c.words[1] in ("export", "both")
                    and c.words[3] == "evpn"
                ]
                at = family.at if family is not None else block.at
                readback.exports[(words[2], afi)] = Export(at, targets)
