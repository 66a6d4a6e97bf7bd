"""What a rendered config says, read back into one neutral form that every CFG-* check reads.

One reader per platform family fills it: `cisco.py` (an indentation tree, EOS / IOS-XR / NX-OS
with a dialect table each) and `nvue.py` (the YAML node tree). Each rendered file is read once
per lint; the checks (`sessions.py`: CFG-001..005, `overlay.py`: CFG-006..009) compare the read
back with the device model and never look at the text. Positions are the config's own
(line, column), 1-based, so a finding points at the line an engineer reviews.

What the platforms spell differently stays in `Words`, one table per platform: the checks
phrase findings in the platform's own words (`maximum-routes` on EOS, `route-policy` on IOS-XR)
without knowing which platform they read.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any

Position = tuple[int, int]
TOP: Position = (1, 1)  # where a finding goes when the block it belongs in is missing
DEFAULT_VRF = "default"  # NVUE's name for it; a `router bgp` block's top level elsewhere
FAMILIES = ("ipv4", "ipv6", "evpn")  # the BGP address families read for every neighbour


@dataclass(frozen=True)
class Value:
    """A setting read from the config, with the config line (1-based) that sets it."""

    text: str
    line: int
    column: int

    @property
    def at(self) -> Position:
        return self.line, self.column


@dataclass
class Session:
    """What the config gives one neighbour in one address family, after inheritance."""

    line: int  # the neighbour's own line: findings about what is missing point here
    column: int
    prefix_limit: Value | None = None
    policy_in: Value | None = None
    policy_out: Value | None = None


@dataclass
class Neighbor:
    """A BGP neighbour of the config: where it is, and its settings by family (FAMILIES)."""

    at: Position
    families: dict[str, Session] = field(default_factory=dict)

    def family(self, name: str) -> Session:
        return self.families.get(name) or Session(*self.at)


@dataclass(frozen=True)
class Reference:
    """A name the config uses and must define: a route-map, prefix-list, AS-path list ..."""

    kind: str  # a key of ReadBack.defined, in the platform's own words (e.g. prefix-set)
    name: str
    line: int
    column: int
    where: str  # what refers to it, e.g. "route-map RM-X permit 10" or "neighbor 192.0.2.1"


@dataclass
class Mapping:
    """A VLAN's or VRF's VNI as the config maps it."""

    at: Position  # the mapping's line, block or key: where a missing VNI belongs
    vnis: list[Value]  # the VNIs it names, as written
    state: Value | None = None  # NVUE's `evpn state` of a VRF (Words.evpn_state)


@dataclass(frozen=True)
class Member:
    """A VNI the VTEP carries, where the platform lists them apart (NX-OS `member vni`)."""

    at: Position
    l3: bool  # an L3VNI (`associate-vrf`)


@dataclass
class Export:
    """What a VRF exports to EVPN in one family ("" when the platform sets it for all)."""

    at: Position  # the block the export lines are in, or where they belong
    targets: list[Value] = field(default_factory=list)
    state: Value | None = None  # NVUE's per-family `route-export to-evpn state`


@dataclass(frozen=True)
class Words:
    """How one platform spells what findings name; the check logic is the same for all."""

    limit: str  # the unicast prefix limit, e.g. maximum-prefix
    policy: str = "route-map"
    bgp_scope: str = "router bgp"  # where the default VRF's neighbours are
    evpn_limit: str = ""  # the EVPN session's limit and where it is looked for
    evpn_limit_where: str = ""
    vtep: str = ""  # the VXLAN interface, e.g. Vxlan1 ("" when there is none: NVUE)
    vlan_missing: str = ""  # str.format fields: what, id, vni, where, domain, name
    vlan_no_vni: str = ""
    vrf_missing: str = ""
    vrf_no_vni: str = ""
    member: str = ""  # a VNI listed on the VTEP; with l3 suffix for an L3VNI
    member_l3: str = ""
    carrier_vlan: bool = False  # an L3VNI rides a VLAN mapped like an L2VNI's (NX-OS)
    # a VRF's EVPN and its exports are off unless `state: enabled` (NVUE): what to call them
    evpn_state: str = ""
    export_state: str = ""
    vrf_missing_export: str = ""  # the exports live in the VRF's own block: missing with it
    export_block_missing: str = ""  # the VRF has no block for its exports at all (EOS)
    export_missing: str = ""  # a route-target export line the VRF lacks
    exports_per_family: bool = False  # route targets set per address family (NX-OS)


@dataclass(eq=False, slots=True)
class Block:
    """A Cisco-style configuration line and the lines indented under it."""

    text: str  # stripped
    line: int  # 1-based
    indent: int
    # No link up to the parent: a tree without cycles is freed as soon as the lint is done
    # with a config, not when the garbage collector next runs (the read-backs of a large site
    # would pile up until then). Walks that need the parent carry it (cisco._At.up).
    children: list[Block] = field(default_factory=list, repr=False)
    # A statement, not a `#` comment line (IOS-XR's in a route-policy): decided once here,
    # not each time a check lists a block's children (a 512-neighbour spine's, dozens of times).
    statement: bool = field(default=True, repr=False)
    _words: list[str] | None = field(default=None, repr=False, compare=False)

    def child(self, text: str) -> Block | None:
        return next((c for c in self.children if c.text == text), None)

    @property
    def words(self) -> list[str]:
        """The line split on whitespace, split once (the checks read it over and over; none
        changes the list)."""
        if self._words is None:
            self._words = self.text.split()
        return self._words


def blocks(text: str) -> list[Block]:
    """The top-level blocks of a Cisco-style config, children by indentation: a line's parent
    is the nearest line above it indented less. Blank lines and `!` comments are skipped."""
    root = Block("", 0, -1)
    stack = [root]
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] == "!":
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack[-1].indent >= indent:
            stack.pop()
        block = Block(stripped, number, indent, [], stripped[0] != "#")
        stack[-1].children.append(block)
        stack.append(block)
    return root.children


@dataclass
class ReadBack:
    """One rendered config, read back: its BGP sessions, policy objects and EVPN services."""

    words: Words
    unreadable: Value | None = None  # why the text could not be read at all, and where
    neighbors: dict[tuple[str, str], Neighbor] = field(default_factory=dict)  # (VRF, address)
    neighbors_at: Position = TOP  # where a missing default-VRF neighbour belongs
    defined: dict[str, set[str]] = field(default_factory=dict)  # kind -> names
    references: list[Reference] = field(default_factory=list)
    vtep_at: Position | None = None  # the VXLAN interface, when the config has one
    bridge_domain: str = "br_default"  # NVUE: the bridge domain VLANs belong in
    vlans: dict[str, Mapping] = field(default_factory=dict)  # VLAN id -> its L2VNI
    vlans_at: Position = TOP  # where a missing VLAN mapping belongs
    vrfs: dict[str, Mapping] = field(default_factory=dict)  # VRF -> its L3VNI
    vrfs_at: Position = TOP  # where a missing VRF mapping belongs
    members: dict[str, Member] | None = None  # VNI -> its `member vni` line; None: not listed
    exports: dict[tuple[str, str], Export] = field(default_factory=dict)  # (VRF, family)
    exports_at: Position = TOP  # where a VRF's missing export block belongs
    # The parsed text itself, for checks that read what the fields above do not hold (CFG-010,
    # CFG-011): Cisco-style top-level blocks; NVUE the YAML tree of each `- set:` item.
    blocks: list[Block] = field(default_factory=list, compare=False, repr=False)
    trees: list[Any] = field(default_factory=list, compare=False, repr=False)


def normalise(address: str) -> str:
    """One spelling per address, so 2001:DB8::1 in a config finds 2001:db8::1 in the model."""
    if ":" not in address and not address[:1].isdigit():
        return address  # a peer group's name: no address to parse
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address
