"""Rendered Arista EOS and Cisco NX-OS configs, read back the way an engineer reads them.

Each file is parsed with ciscoconfparse2 (EOS with the IOS parser, NX-OS with its own); the
checks then walk the parsed blocks, not the raw text, so a line in the wrong block counts as
missing.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT
from meetme.generators.model import DeviceModel
from meetme.generators.render import output_name

from meetme.pipeline import device_models, lint, render_all

# platform -> (ciscoconfparse2 syntax, indentation step of one block level)
PARSERS: dict[str, tuple[str, int]] = {"arista_eos": ("ios", 3), "cisco_nxos": ("nxos", 2)}


@dataclass(frozen=True)
class Rendered:
    model: DeviceModel
    text: str
    parse: CiscoConfParse

    @property
    def platform(self) -> str:
        return self.model.platform


@cache
def _example() -> tuple[dict[str, DeviceModel], dict[str, str]]:
    models = device_models(lint(EXAMPLE_INTENT))
    return models, render_all(models)


def _rendered(platform: str) -> list[Rendered]:
    models, files = _example()
    syntax = PARSERS[platform][0]
    out = []
    for model in models.values():
        if model.platform != platform:
            continue
        text = files[output_name(model)]
        out.append(Rendered(model, text, CiscoConfParse(text.splitlines(), syntax=syntax)))
    return out


def _all_rendered() -> list[Rendered]:
    return [r for platform in PARSERS for r in _rendered(platform)]


def _ids(items: list[Rendered]) -> list[str]:
    return [r.model.hostname for r in items]


ALL = _all_rendered()
EOS = _rendered("arista_eos")
NXOS = _rendered("cisco_nxos")


def test_the_example_has_devices_of_both_platforms() -> None:
    # Every parametrised test below is vacuous without them.
    assert EOS and NXOS


def unplaced_lines(parse: CiscoConfParse, step: int) -> list[str]:
    """Lines the parser could not hang under a parent one indentation step up."""
    bad = []
    for obj in parse.objs:
        if obj.indent == 0 or obj.is_comment:
            continue
        parent = obj.parent
        if parent is obj or obj.indent - parent.indent != step:
            bad.append(f"line {obj.linenum + 1}: {obj.text!r}")
    return bad


def test_unplaced_lines_flags_a_misindented_line() -> None:
    parse = CiscoConfParse(["router bgp 65000", "   router-id 10.0.0.1", "     bfd"], syntax="ios")
    assert unplaced_lines(parse, 3) == ["line 3: '     bfd'"]
    parse = CiscoConfParse(["  orphan", "hostname x"], syntax="nxos")
    assert unplaced_lines(parse, 2) == ["line 1: '  orphan'"]


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_every_line_sits_in_a_block(r: Rendered) -> None:
    step = PARSERS[r.platform][1]
    assert len(list(r.parse.objs)) == len(r.text.splitlines())
    assert unplaced_lines(r.parse, step) == []
    assert r.parse.find_objects(rf"^hostname {re.escape(r.model.hostname)}$")


# --- BGP neighbors -------------------------------------------------------------------------


def _children(parent: Any, pattern: str) -> list[str]:
    """Stripped text of the direct children of a parsed line that match `pattern`."""
    return [c.text.strip() for c in parent.children if re.search(pattern, c.text)]


def _router_bgp(r: Rendered) -> Any:
    (bgp,) = r.parse.find_objects(rf"^router bgp {r.model.bgp.asn}$")
    return bgp


def _family(address: str) -> str:
    return f"ipv{ipaddress.ip_address(address).version}"


@dataclass
class Neighbor:
    remote_as: str | None = None
    bfd: bool = False
    route_map_in: str | None = None
    route_map_out: str | None = None
    prefix_limit: str | None = None
    activated_in: tuple[str, ...] = ()


def eos_neighbors(r: Rendered) -> dict[str, Neighbor]:
    bgp = _router_bgp(r)
    found: dict[str, Neighbor] = {}
    for line in _children(bgp, r"^   neighbor "):
        address, rest = line.split()[1], " ".join(line.split()[2:])
        n = found.setdefault(address, Neighbor())
        if m := re.fullmatch(r"remote-as (\d+)", rest):
            n.remote_as = m[1]
        elif rest == "bfd":
            n.bfd = True
        elif m := re.fullmatch(r"route-map (\S+) (in|out)", rest):
            if m[2] == "in":
                n.route_map_in = m[1]
            else:
                n.route_map_out = m[1]
        elif m := re.fullmatch(r"maximum-routes (\d+ warning-limit \d+ percent)", rest):
            n.prefix_limit = m[1]
    for af in bgp.children:
        if m := re.fullmatch(r"\s+address-family (ipv4|ipv6)", af.text):
            for line in _children(af, r"^      neighbor \S+ activate$"):
                n = found.setdefault(line.split()[1], Neighbor())
                n.activated_in += (m[1],)
    return found


def nxos_neighbors(r: Rendered) -> dict[str, Neighbor]:
    found: dict[str, Neighbor] = {}
    for block in _router_bgp(r).children:
        if not (m := re.fullmatch(r"  neighbor (\S+)", block.text)):
            continue
        n = found.setdefault(m[1], Neighbor())
        for child in block.children:
            text = child.text.strip()
            if mm := re.fullmatch(r"remote-as (\d+)", text):
                n.remote_as = mm[1]
            elif text == "bfd":
                n.bfd = True
            elif mm := re.fullmatch(r"address-family (ipv4|ipv6) unicast", text):
                n.activated_in += (mm[1],)
                for line in _children(child, r"^      "):
                    if rm := re.fullmatch(r"route-map (\S+) (in|out)", line):
                        if rm[2] == "in":
                            n.route_map_in = rm[1]
                        else:
                            n.route_map_out = rm[1]
                    elif pl := re.fullmatch(r"maximum-prefix (\d+ \d+)", line):
                        n.prefix_limit = pl[1]
    return found


def neighbors_of(r: Rendered) -> dict[str, Neighbor]:
    return eos_neighbors(r) if r.platform == "arista_eos" else nxos_neighbors(r)


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_every_bgp_neighbor_is_fully_protected(r: Rendered) -> None:
    found = neighbors_of(r)
    assert set(found) == {n.address for n in r.model.bgp.neighbors}
    for address, n in found.items():
        assert n.remote_as is not None, address
        assert n.bfd, address
        assert n.route_map_in and n.route_map_out, address
        assert n.prefix_limit is not None, address
        # Activated in its own address family only: a v6 session never carries v4 routes.
        assert n.activated_in == (_family(address),), address


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_prefix_limit_warns_at_the_intended_percentage(r: Rendered) -> None:
    found = neighbors_of(r)
    for intended in r.model.bgp.neighbors:
        limit = found[intended.address].prefix_limit
        expected = f"{intended.max_prefix} {intended.max_prefix_warning_pct}"
        if r.platform == "arista_eos":
            # Without `percent` EOS reads the warning limit as a route count.
            expected = (
                f"{intended.max_prefix} warning-limit {intended.max_prefix_warning_pct} percent"
            )
        assert limit == expected, intended.address


@pytest.mark.parametrize("r", EOS, ids=_ids(EOS))
def test_eos_denies_routes_on_sessions_without_policy(r: Rendered) -> None:
    bgp = _router_bgp(r)
    for direction in ("in", "out"):
        assert _children(bgp, rf"^   bgp missing-policy direction {direction} action deny$")
    assert _children(bgp, r"^   no bgp default ipv4-unicast$")


# --- Routing policy ------------------------------------------------------------------------


def route_map_matches(r: Rendered) -> dict[str, list[tuple[str, str]]]:
    """route-map name -> [(family keyword 'ip'|'ipv6', prefix-list name)] over all its entries."""
    out: dict[str, list[tuple[str, str]]] = {}
    for entry in r.parse.find_objects(r"^route-map \S+ (permit|deny) \d+$"):
        name = entry.text.split()[1]
        out.setdefault(name, [])
        for line in _children(entry, r"^\s+match (ip|ipv6) address prefix-list "):
            words = line.split()
            out[name].append((words[1], words[-1]))
    return out


def prefix_lists(r: Rendered) -> set[tuple[str, str]]:
    """(family keyword, name) of every prefix-list that has at least one entry."""
    found = set()
    for obj in r.parse.find_objects(r"^(ip|ipv6) prefix-list \S+"):
        words = obj.text.split()
        has_entries = " seq " in obj.text or _children(obj, r"^\s+seq \d+ (permit|deny) ")
        if has_entries:
            found.add((words[0], words[2]))
    return found


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_route_maps_and_prefix_lists_in_use_exist(r: Rendered) -> None:
    maps = route_map_matches(r)
    lists = prefix_lists(r)
    for address, n in neighbors_of(r).items():
        keyword = "ip" if _family(address) == "ipv4" else "ipv6"
        for name in (n.route_map_in, n.route_map_out):
            assert name in maps, f"{address}: route-map {name} is not defined"
            assert maps[name], f"route-map {name} matches nothing"
            for family, plist in maps[name]:
                # A v6 prefix-list in a v4 session's route-map would match nothing.
                assert family == keyword, f"{address}: {name} matches {family} {plist}"
                assert (family, plist) in lists, f"{name}: {family} prefix-list {plist} missing"


# --- Interfaces ----------------------------------------------------------------------------


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_routed_interfaces_have_mtu_and_name_their_peer(r: Rendered) -> None:
    models, _ = _example()
    routed = {i.name: i for i in r.model.interfaces if i.kind == "routed"}
    blocks = {
        obj.text.split()[1]: obj
        for obj in r.parse.find_parent_objects(r"^interface ", r"^\s+no switchport$")
    }
    assert set(blocks) == set(routed)
    for name, block in blocks.items():
        iface = routed[name]
        assert _children(block, rf"^\s+mtu {iface.mtu}$"), name
        (description,) = _children(block, r"^\s+description ")
        assert iface.peer is not None
        peer_model = models[iface.peer.device]
        assert iface.peer.interface in {i.name for i in peer_model.interfaces}
        words = description.split()
        assert iface.peer.device in words and iface.peer.interface in words, description
        assert _children(block, r"^\s+no shutdown$"), name
        assert iface.ipv4 is not None and iface.ipv6 is not None
        assert _children(block, rf"^\s+ip address {re.escape(iface.ipv4.cidr)}$"), name
        assert _children(block, rf"^\s+ipv6 address {re.escape(iface.ipv6.cidr)}$"), name


@pytest.mark.parametrize("r", NXOS, ids=_ids(NXOS))
def test_nxos_bfd_interfaces_do_not_send_redirects(r: Rendered) -> None:
    # NX-OS BFD echo needs ICMP redirects off on the interface (Cisco TAC doc 221944).
    bfd_ports = {n.local_interface for n in r.model.bgp.neighbors if n.bfd}
    for name in bfd_ports:
        (block,) = r.parse.find_objects(rf"^interface {re.escape(name)}$")
        assert _children(block, r"^  no ip redirects$"), name
        assert _children(block, r"^  no ipv6 redirects$"), name


# --- Management ----------------------------------------------------------------------------


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_management_lives_in_its_vrf_with_a_default_route(r: Rendered) -> None:
    mgmt = r.model.management
    (block,) = r.parse.find_objects(rf"^interface {re.escape(mgmt.interface.name)}$")
    assert mgmt.interface.ipv4 is not None
    assert _children(block, rf"^\s+ip address {re.escape(mgmt.interface.ipv4.cidr)}$")
    if r.platform == "arista_eos":
        assert _children(block, rf"^   vrf {mgmt.vrf}$")
        assert r.parse.find_objects(rf"^vrf instance {mgmt.vrf}$")
        assert r.parse.find_objects(
            rf"^ip route vrf {mgmt.vrf} 0\.0\.0\.0/0 {re.escape(mgmt.gateway)}$"
        )
    else:
        assert _children(block, rf"^  vrf member {mgmt.vrf}$")
        (context,) = r.parse.find_objects(rf"^vrf context {mgmt.vrf}$")
        assert _children(context, rf"^  ip route 0\.0\.0\.0/0 {re.escape(mgmt.gateway)}$")
