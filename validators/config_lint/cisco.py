"""Read BGP neighbours and policy objects from Cisco-style text: IOS-XR, EOS (parsed as `ios`)
and NX-OS.

The `router bgp` block, where settings nest and are inherited, is parsed with ciscoconfparse2.
Everything else the lint needs is flat: the names a config defines are top-level lines, and
what a route-map or route-policy uses is a line inside it, so a line scan reads them. Parsing
only the BGP block keeps `meetme lint` fast: ciscoconfparse2 needs ~0.2 ms per line and a
border's route-policies are a thousand lines.

Neighbours are read in `router bgp` and in each of its `vrf NAME` blocks, and keyed by (VRF,
address): a handoff session in a tenant VRF reuses the address of a default-VRF neighbour. For
each neighbour the model expects, the settings are resolved the way the platform inherits
them, nearest first (groups and templates are defined at the `router bgp` level and used from
any VRF):
- IOS-XR: the neighbour's `address-family AFI unicast` block, its `use af-group`, then
  `use neighbor-group` (whose address family may `use af-group` in turn).
- EOS: `neighbor X ...` under the neighbour's address family, then at `router bgp` (or `vrf`)
  level, then the same for its `neighbor X peer group PG` (in the neighbour's VRF block, then
  at the `router bgp` level).
- NX-OS: the neighbour's `address-family AFI unicast` block, its `inherit peer-policy`
  templates, then `inherit peer` templates (their address family and their own inherits).
Importing this module imports ciscoconfparse2 (~0.6 s): the package imports it lazily.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from meetme.validators.config_lint import (
    DEFAULT_VRF,
    ParsedConfig,
    Reference,
    Session,
    SessionKey,
    Value,
    normalise,
)
from meetme.validators.config_lint.ccp import CiscoConfParse

SYNTAX = {"arista_eos": "ios", "cisco_iosxr": "iosxr", "cisco_nxos": "nxos"}

Obj = Any  # ciscoconfparse2's line object (an untyped library)
Settings = dict[str, Value]  # "limit" | "in" | "out" -> where the config sets it


Wanted = Mapping[SessionKey, str]  # (VRF, normalised address) -> the model's address family


def parse(text: str, syntax: str, wanted: Wanted) -> ParsedConfig:
    """`wanted`: the neighbours the model has, with the address family it gives each."""
    lines = text.splitlines()
    if syntax == "iosxr":
        parsed = ParsedConfig(limit_keyword="maximum-prefix", policy_keyword="route-policy")
        spans = _scan(lines, parsed, _XR_DEFINITIONS, _xr_uses)
    else:
        keyword = "maximum-routes" if syntax == "ios" else "maximum-prefix"
        parsed = ParsedConfig(limit_keyword=keyword, policy_keyword="route-map")
        spans = _scan(lines, parsed, _IOS_DEFINITIONS, _route_map_uses)
    for start, end in spans:
        conf = CiscoConfParse(
            lines[start:end], syntax=syntax, loguru=False, ignore_blank_lines=False
        )
        bgp = _At(start, conf.objs[0])
        if syntax == "iosxr":
            _iosxr(bgp, parsed, wanted)
        elif syntax == "nxos":
            _nxos(bgp, parsed, wanted)
        else:
            _eos(bgp, parsed, wanted)
    return parsed


# --- the line scan: definitions, what policies use, where `router bgp` is --------------------

Uses = Callable[[str, str], Iterator[tuple[str, str]]]  # (owner, line) -> (kind, name)


def _scan(
    lines: list[str],
    parsed: ParsedConfig,
    definitions: tuple[tuple[re.Pattern[str], str], ...],
    uses: Uses,
) -> list[tuple[int, int]]:
    """Record defined names and policy references; return the `router bgp` blocks' spans."""
    spans: list[tuple[int, int]] = []
    owner = ""
    bgp_start: int | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(("!", "#")):
            continue
        if not line[0].isspace():
            if bgp_start is not None:
                spans.append((bgp_start, index))
                bgp_start = None
            owner = stripped
            if stripped.split()[:2] == ["router", "bgp"]:
                bgp_start = index
            for pattern, kind in definitions:
                match = pattern.match(stripped)
                if match is not None:
                    parsed.defined.setdefault(kind, set()).add(match[1])
                    break
            continue
        column = len(line) - len(line.lstrip()) + 1
        for kind, name in uses(owner, stripped):
            where = " ".join(owner.split()[:4])
            parsed.references.append(Reference(kind, name, index + 1, column, where))
    if bgp_start is not None:
        spans.append((bgp_start, len(lines)))
    return spans


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
    (re.compile(r"match as-path\s+(.+)"), "ip as-path access-list"),
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


# --- the parsed `router bgp` block -----------------------------------------------------------


@dataclass(frozen=True)
class _At:
    """A ciscoconfparse2 line object, and where its block starts in the whole file."""

    offset: int
    obj: Obj

    @property
    def words(self) -> list[str]:
        return list(self.obj.text.split())

    @property
    def key(self) -> int:  # identifies a group or template on the inheritance path
        return int(self.obj.linenum)

    def children(self) -> list[_At]:
        return [_At(self.offset, c) for c in self.obj.children if _statement(c.text)]

    def descendants(self) -> Iterator[_At]:
        for child in self.children():
            yield child
            yield from child.descendants()

    def value(self, text: str) -> Value:
        return Value(text, self.offset + self.obj.linenum + 1, self.obj.indent + 1)

    def reference(self, kind: str, name: str) -> Reference:
        return Reference(kind, name, *self._position(), self.owner())

    def session(self, settings: Settings) -> Session:
        return Session(
            *self._position(), settings.get("limit"), settings.get("in"), settings.get("out")
        )

    def owner(self) -> str:
        """The neighbour, group or template this line belongs to, for messages."""
        current = self.obj
        while current.indent > 0:
            words = current.text.split()
            if words[0] in ("neighbor", "neighbor-group", "af-group", "template"):
                return " ".join(words[:3] if words[0] == "template" else words[:2])
            current = current.parent
        return "router bgp"

    def _position(self) -> tuple[int, int]:
        return self.offset + self.obj.linenum + 1, self.obj.indent + 1


def _statement(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith(("!", "#"))


def _merge(found: Settings, inherited: Settings) -> None:
    """What a group or template gives only counts where the nearer level said nothing."""
    for key, value in inherited.items():
        found.setdefault(key, value)


def _scopes(bgp: _At) -> list[tuple[str, _At]]:
    """`router bgp` and each of its `vrf NAME` blocks, by VRF: both may hold neighbours."""
    vrfs = [(c.words[1], c) for c in bgp.children() if c.words[0] == "vrf" and len(c.words) > 1]
    return [(DEFAULT_VRF, bgp), *vrfs]


# --- IOS-XR ----------------------------------------------------------------------------------


def _iosxr(bgp: _At, parsed: ParsedConfig, wanted: Wanted) -> None:
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
    parsed.defined.setdefault("neighbor-group", set()).update(groups)
    parsed.defined.setdefault("af-group", set()).update(name for name, _ in af_groups)
    for line in bgp.descendants():
        words = line.words
        if words[0] == "route-policy" and len(words) >= 2:
            parsed.references.append(line.reference("route-policy", words[1].split("(")[0]))
        elif words[:2] in (["use", "neighbor-group"], ["use", "af-group"]) and len(words) > 2:
            parsed.references.append(line.reference(words[1], words[2]))

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

    for vrf, neighbor in neighbors:
        key = (vrf, normalise(neighbor.words[1]))
        if key in wanted:
            parsed.sessions[key] = neighbor.session(settings(neighbor, wanted[key], set()))


# --- EOS -------------------------------------------------------------------------------------


@dataclass
class _EosScope:
    """What one level (`router bgp`, or one `vrf NAME` block in it) says about neighbours."""

    groups: set[str]
    member_of: dict[str, _At]  # neighbour -> its `neighbor X peer group PG` line
    first: dict[str, _At]  # neighbour -> its first line, where findings point
    base: dict[str, Settings]  # settings at this level, by neighbour or group
    per_af: dict[tuple[str, str], Settings]  # (afi, neighbour or group) -> its family's


def _eos(bgp: _At, parsed: ParsedConfig, wanted: Wanted) -> None:
    scopes = [(vrf, _eos_scope(block, parsed)) for vrf, block in _scopes(bgp)]
    top = scopes[0][1]  # peer groups are defined here and used from any VRF (AVD vrf-lite)
    for vrf, scope in scopes:
        parsed.defined.setdefault("peer group", set()).update(scope.groups)
        for name, line in scope.first.items():
            key = (vrf, normalise(name))
            if key not in wanted or name in scope.groups:
                continue
            afi = wanted[key]
            # the neighbour before its group; its family before its level; a VRF's group
            # settings before the `router bgp` level's
            levels = [(scope, name)]
            if name in scope.member_of:
                group = scope.member_of[name].words[-1]
                levels += [(scope, group)] + ([(top, group)] if scope is not top else [])
            found: Settings = {}
            for level, holder in levels:
                _merge(found, level.per_af.get((afi, holder), {}))
                _merge(found, level.base.get(holder, {}))
            parsed.sessions[key] = line.session(found)


def _eos_scope(block: _At, parsed: ParsedConfig) -> _EosScope:
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
                parsed.references.append(child.reference("peer group", words[-1]))
            scope.first.setdefault(name, child)
            _eos_setting(child, scope.base.setdefault(name, {}), parsed)
        elif words[0] == "address-family" and len(words) >= 2:
            for line in child.children():
                inner = line.words
                if inner[0] == "neighbor" and len(inner) >= 3:
                    _eos_setting(line, scope.per_af.setdefault((words[1], inner[1]), {}), parsed)
    return scope


def _eos_setting(line: _At, store: Settings, parsed: ParsedConfig) -> None:
    """`neighbor X route-map NAME in|out` and `neighbor X maximum-routes N ...`."""
    words = line.words
    if words[2] == "route-map" and len(words) >= 5 and words[4] in ("in", "out"):
        store.setdefault(words[4], line.value(words[3]))
        parsed.references.append(line.reference("route-map", words[3]))
    elif words[2] == "maximum-routes" and len(words) >= 4:
        store.setdefault("limit", line.value(words[3]))


# --- NX-OS -----------------------------------------------------------------------------------


def _nxos(bgp: _At, parsed: ParsedConfig, wanted: Wanted) -> None:
    templates: dict[str, dict[str, _At]] = {"peer": {}, "peer-policy": {}}
    for child in bgp.children():
        words = child.words
        if words[0] == "template" and len(words) > 2 and words[1] in templates:
            templates[words[1]][words[2]] = child
    for kind, named in templates.items():
        parsed.defined.setdefault(f"template {kind}", set()).update(named)
    for line in bgp.descendants():
        words = line.words
        if words[0] == "route-map" and len(words) >= 3 and words[2] in ("in", "out"):
            parsed.references.append(line.reference("route-map", words[1]))
        elif words[0] == "inherit" and len(words) > 2 and words[1] in templates:
            parsed.references.append(line.reference(f"template {words[1]}", words[2]))

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

    def settings(holder: _At, afi: str, seen: set[int]) -> Settings:
        found: Settings = {}
        seen.add(holder.key)
        for child in holder.children():
            if child.words[:3] == ["address-family", afi, "unicast"]:
                _merge(found, af_settings(child, seen))
        for template in inherited(holder, "peer", seen):
            _merge(found, settings(template, afi, seen))
        return found

    for vrf, scope in _scopes(bgp):
        for child in scope.children():
            words = child.words
            if words[0] == "neighbor" and len(words) >= 2:
                key = (vrf, normalise(words[1]))
                if key in wanted:
                    parsed.sessions[key] = child.session(settings(child, wanted[key], set()))
