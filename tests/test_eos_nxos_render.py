"""Rendered Arista EOS and Cisco NX-OS configs, read back the way an engineer reads them.

Each file is parsed with ciscoconfparse2 (EOS with the IOS parser, NX-OS with its own); the
checks then walk the parsed blocks, not the raw text, so a line in the wrong block counts as
missing.
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT, lint_repo, replace_in
from meetme.generators.build.multihoming import lags_of
from meetme.generators.model import (
    BfdTimers,
    DeviceModel,
    Lag,
    RouteMapEntry,
    RpkiCache,
    StaticRoute,
)
from meetme.generators.render import RenderError, output_name, render_device

from meetme.core.problems import IntentError
from meetme.intent.loader import load_intent
from meetme.intent.schema_multihoming import Attachment
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
    # Only the platforms read here: another platform's template bug must not hide these results.
    mine = {name: m for name, m in models.items() if m.platform in PARSERS}
    return models, render_all(mine)


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
    """The unicast sessions; the EVPN overlay sessions are read by `eos_evpn_sessions`."""
    bgp = _router_bgp(r)
    overlay = {p.address for p in r.model.evpn.peers} if r.model.evpn else set()
    found: dict[str, Neighbor] = {}
    for line in _children(bgp, r"^   neighbor "):
        address, rest = line.split()[1], " ".join(line.split()[2:])
        if address in overlay:
            continue
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
    """The unicast sessions; the EVPN overlay sessions are read by `nxos_evpn_sessions`."""
    overlay = {p.address for p in r.model.evpn.peers} if r.model.evpn else set()
    found: dict[str, Neighbor] = {}
    for block in _router_bgp(r).children:
        if not (m := re.fullmatch(r"  neighbor (\S+)", block.text)) or m[1] in overlay:
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
    # The default VRF's sessions; a VRF's own (the handoff) are read by eos_vrf_sessions.
    intended = {n.address: n for n in r.model.bgp.neighbors if n.vrf is None}
    assert set(found) == set(intended)
    for address, n in found.items():
        assert n.remote_as is not None, address
        # BFD on every session but those to an IX (docs/standards.md#edge-policy: route
        # servers and bilateral IX peers run none unless the intent says they do).
        if intended[address].kind not in ("ix_rs", "ix_peer"):
            assert intended[address].bfd, address
        assert n.bfd == intended[address].bfd, address
        assert n.route_map_in and n.route_map_out, address
        assert n.prefix_limit is not None, address
        # Activated in its own address family only: a v6 session never carries v4 routes.
        assert n.activated_in == (_family(address),), address


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_prefix_limit_warns_at_the_intended_percentage(r: Rendered) -> None:
    found = neighbors_of(r)
    for intended in (n for n in r.model.bgp.neighbors if n.vrf is None):
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
    families = {af.text.split()[1]: af for af in _children_objs(bgp, r"^   address-family ")}
    for afi in ("ipv4", "ipv6"):
        for direction in ("in", "out"):
            wanted = rf"^      bgp missing-policy direction {direction} action deny$"
            assert _children(families[afi], wanted), (afi, direction)
    # Scoped to the unicast families: the EVPN sessions carry no route-map and keep their routes.
    assert not _children(bgp, r"^   bgp missing-policy ")
    if "evpn" in families:
        assert not _children(families["evpn"], r"missing-policy")
    assert _children(bgp, r"^   no bgp default ipv4-unicast$")


def _children_objs(parent: Any, pattern: str) -> list[Any]:
    return [c for c in parent.children if re.search(pattern, c.text)]


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


def _announces_nothing(model: DeviceModel, route_map: str) -> bool:
    """Whether the model's export route map denies in every clause."""
    (found,) = [m for m in model.route_maps if m.name == route_map]
    return all(e.action == "deny" for e in found.entries)


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_route_maps_and_prefix_lists_in_use_exist(r: Rendered) -> None:
    maps = route_map_matches(r)
    lists = prefix_lists(r)
    kinds = {n.address: n.kind for n in r.model.bgp.neighbors if n.vrf is None}
    for address, n in neighbors_of(r).items():
        keyword = "ip" if _family(address) == "ipv4" else "ipv6"
        for name in (n.route_map_in, n.route_map_out):
            assert name in maps, f"{address}: route-map {name} is not defined"
            if kinds[address] == "border_ibgp":
                # Between the two borders of a pair: the other border's whole table, bounded
                # by the session's prefix limit (border_pair.py), so one permit clause, no match.
                entries = r.parse.find_objects(rf"^route-map {re.escape(name)} ")
                assert [e.text for e in entries] == [f"route-map {name} permit 10"], name
                assert maps[name] == [], name
                continue
            if name == n.route_map_out and _announces_nothing(r.model, name):
                continue  # nothing of ours in this family (mel1's IPv4): every clause denies
            assert maps[name], f"route-map {name} matches nothing"
            for family, plist in maps[name]:
                # A v6 prefix-list in a v4 session's route-map would match nothing.
                assert family == keyword, f"{address}: {name} matches {family} {plist}"
                assert (family, plist) in lists, f"{name}: {family} prefix-list {plist} missing"


# --- Interfaces ----------------------------------------------------------------------------


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_routed_interfaces_have_mtu_and_name_their_peer(r: Rendered) -> None:
    models, _ = _example()
    # Fabric links; a port that only carries cloud sub-interfaces has no peer device.
    routed = {i.name: i for i in r.model.interfaces if i.kind == "routed" and i.peer is not None}
    blocks = {
        obj.text.split()[1]: obj
        for obj in r.parse.find_parent_objects(r"^interface ", r"^\s+no switchport$")
    }
    assert set(routed) <= set(blocks)
    for name, iface in routed.items():
        block = blocks[name]
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


# --- EOS peering edge ----------------------------------------------------------------------


def eos_session_lines(r: Rendered, address: str) -> list[str]:
    """Every `[no ]neighbor ADDRESS ...` line directly under `router bgp` or under one of its
    `vrf` blocks (a cloud session serving a tenant VRF), minus the prefix."""
    pattern = rf"^   (no )?neighbor {re.escape(address)} "
    in_vrf = rf"^      (no )?neighbor {re.escape(address)} "
    vrfs = [c for c in _router_bgp(r).children if c.text.startswith("   vrf ")]
    out = []
    lines = _children(_router_bgp(r), pattern) + [
        line for vrf in vrfs for line in _children(vrf, in_vrf)
    ]
    for line in lines:
        words = line.split()
        no = "no " if words[0] == "no" else ""
        out.append(no + " ".join(words[3:] if no else words[2:]))
    return out


def _eos(model: DeviceModel) -> Rendered:
    text = render_device(model)
    return Rendered(model, text, CiscoConfParse(text.splitlines(), syntax="ios"))


def _edge_variant(r: Rendered) -> Rendered:
    """The border leaf with what the example's AWS sessions do not exercise: an IPv6 IX route
    server session (GTSM, no first-AS check, no password, no BFD), an RPKI-invalid import clause
    and discard routes anchoring our aggregates."""
    model = r.model
    aws = next(n for n in model.bgp.neighbors if n.kind == "aws")
    rs = aws.model_copy(
        update={
            "address": "2001:db8:ffff::1",
            "afi": "ipv6",
            "kind": "ix_rs",
            "description": "ix_rs ix-syd/rs1 XC-IX-1",
            "party": "ix-syd/rs1",
            "peer_device": "ix-syd/rs1",
            "circuit": "XC-IX-1",
            "vrf": None,  # an IX sits in the default VRF (the clouds serve tenant VRFs)
            "password": None,
            "ttl_security": True,
            "enforce_first_as": False,
            "bfd": False,
            "bfd_timers": None,
        }
    )
    maps = list(model.route_maps)
    first = maps[-1]
    rpki = RouteMapEntry(
        seq=5, action="deny", description="RPKI origin validation invalid", match_rpki_invalid=True
    )
    maps[-1] = first.model_copy(update={"entries": [rpki, *first.entries]})
    statics = [
        StaticRoute(prefix="203.0.113.0/24", afi="ipv4", discard=True, description="aggregate"),
        StaticRoute(prefix="2001:db8:100::/40", afi="ipv6", discard=True, description="aggregate"),
    ]
    # an Internet session validates origins (the example's cloud-only border leaves do not)
    caches = [RpkiCache(address="10.9.0.11", port=3323), RpkiCache(address="10.9.0.12", port=3323)]
    bgp = model.bgp.model_copy(
        update={"neighbors": [*model.bgp.neighbors, rs], "rpki_caches": caches}
    )
    return _eos(model.model_copy(update={"bgp": bgp, "route_maps": maps, "static_routes": statics}))


EOS_BORDER = [r for r in EOS if any(n.external for n in r.model.bgp.neighbors)]
EOS_EDGE = [*EOS_BORDER, _edge_variant(EOS_BORDER[0])] if EOS_BORDER else []
EOS_EDGE_IDS = [*_ids(EOS_BORDER), "edge-variant"]


def test_the_example_has_eos_cloud_sessions() -> None:
    # The EOS edge tests below are vacuous without an external session on EOS.
    assert EOS_BORDER


@pytest.mark.parametrize("r", EOS_EDGE, ids=EOS_EDGE_IDS)
def test_eos_external_sessions_are_hardened(r: Rendered) -> None:
    found = eos_neighbors(r)
    for n in (n for n in r.model.bgp.neighbors if n.external):
        lines = eos_session_lines(r, n.address)
        assert f"remote-as {n.remote_as}" in lines, n.address
        assert f"description {n.description}" in lines, n.address
        assert n.party is not None and n.circuit is not None
        assert n.party in n.description and n.circuit in n.description
        assert f"route-map {n.route_map_in} in" in lines, n.address
        assert f"route-map {n.route_map_out} out" in lines, n.address
        limit = f"maximum-routes {n.max_prefix} warning-limit {n.max_prefix_warning_pct} percent"
        assert limit in lines, n.address
        assert (f"password 0 {n.password}" in lines) == (n.password is not None), n.address
        assert ("ttl maximum-hops 1" in lines) == n.ttl_security, n.address
        assert ("no enforce-first-as" in lines) == (not n.enforce_first_as), n.address
        assert ("bfd" in lines) == n.bfd, n.address
        timers = n.bfd_timers
        if timers is not None:
            expected = (
                f"bfd interval {timers.interval} min-rx {timers.min_rx} "
                f"multiplier {timers.multiplier}"
            )
            assert expected in lines, n.address
        else:
            assert not [line for line in lines if line.startswith("bfd interval")], n.address
        # Our tags stay inside: nothing asks EOS to send communities to an external party.
        assert not [line for line in lines if "send-community" in line], n.address
        if n.vrf is None:
            assert found[n.address].activated_in == (n.afi,), n.address
        else:  # activated in its VRF's family only (a cloud serving a tenant VRF)
            assert eos_vrf_activations(r, n.vrf)[n.address] == (n.afi,), n.address
            assert n.address not in found, n.address


def eos_vrf_activations(r: Rendered, vrf: str) -> dict[str, tuple[str, ...]]:
    """Neighbor -> the families it is activated in, inside `router bgp` / `vrf VRF`."""
    (block,) = [c for c in _router_bgp(r).children if c.text == f"   vrf {vrf}"]
    found: dict[str, tuple[str, ...]] = {}
    for af in block.children:
        if m := re.fullmatch(r"\s+address-family (ipv4|ipv6)", af.text):
            for line in _children(af, r"^         neighbor \S+ activate$"):
                found[line.split()[1]] = (*found.get(line.split()[1], ()), m[1])
    return found


@pytest.mark.parametrize("r", EOS_EDGE, ids=EOS_EDGE_IDS)
def test_eos_passwords_are_placeholders_only(r: Rendered) -> None:
    expected = {n.address: n.password for n in r.model.bgp.neighbors if n.password}
    assert expected
    printed = {}
    for line in r.text.splitlines():
        if m := re.fullmatch(r"\s*neighbor (\S+) password (.*)", line):
            printed[m[1]] = m[2]
    assert printed == {address: f"0 {secret}" for address, secret in expected.items()}
    for value in printed.values():
        # Type 0 followed by the marked placeholder, never a key (and never a type-7 string).
        assert re.fullmatch(r"0 <<secret:[A-Za-z0-9_.-]+>>", value), value


def _route_map_blocks(r: Rendered) -> dict[tuple[str, int], Any]:
    out = {}
    for obj in r.parse.find_objects(r"^route-map \S+ (permit|deny) \d+$"):
        _, name, _, seq = obj.text.split()
        out[(name, int(seq))] = obj
    return out


@pytest.mark.parametrize("r", EOS_EDGE, ids=EOS_EDGE_IDS)
def test_eos_route_map_clauses_print_every_match_and_set(r: Rendered) -> None:
    blocks = _route_map_blocks(r)
    assert len(blocks) == sum(len(rm.entries) for rm in r.model.route_maps)
    for rm in r.model.route_maps:
        for e in rm.entries:
            block = blocks[(rm.name, e.seq)]
            assert block.text.split()[2] == e.action
            # A VRF leak map serves both families, each clause its own (`match_afi`).
            family = "ip" if (e.match_afi or rm.afi) == "ipv4" else "ipv6"
            want = set()
            if e.match_prefix_list:
                want.add(f"match {family} address prefix-list {e.match_prefix_list}")
            if e.match_as_path:
                want.add(f"match as-path {e.match_as_path}")
            if e.match_as_path_length_ge is not None:  # EDGE-013
                want.add(f"match as-path length >= {e.match_as_path_length_ge}")
            if e.match_community:
                want.add(f"match community {e.match_community}")
            if e.match_large_community:
                want.add(f"match large-community {e.match_large_community}")
            if e.match_rpki_invalid:
                want.add("match origin-as validity invalid")
            if e.set_local_preference is not None:
                want.add(f"set local-preference {e.set_local_preference}")
            if e.set_large_communities:
                # `additive`: the tags are added to what the route carries, never replace it.
                want.add(f"set large-community {' '.join(e.set_large_communities)} additive")
            got = set(_children(block, r"^   (match|set) "))
            assert got == want, (rm.name, e.seq)


def test_eos_vrf_leak_policy_matches_each_family_in_its_own_clause() -> None:
    """EOS takes one `subscribe-policy` per leaked VRF, serving IPv4 and IPv6 alike: each
    family's prefix-list sits in a clause of its own, `match ip` or `match ipv6`."""
    (r,) = [r for r in EOS_BORDER if r.model.hostname == "mel1-br1"]
    blocks = _route_map_blocks(r)
    # the default route in, in both families
    assert _children(blocks[("RM-LEAK-GPU-B-FROM-DEFAULT", 10)], r"^   match ") == [
        "match ip address prefix-list PL-HANDOFF-DEFAULT-V4"
    ]
    assert _children(blocks[("RM-LEAK-GPU-B-FROM-DEFAULT", 20)], r"^   match ") == [
        "match ipv6 address prefix-list PL-HANDOFF-DEFAULT-V6"
    ]
    assert ("RM-LEAK-GPU-B-FROM-DEFAULT", 30) not in blocks
    # the public prefixes out: gpu-b has IPv6 ones only (the organisation's IPv4 is aus1's)
    assert _children(blocks[("RM-LEAK-GPU-B-TO-DEFAULT", 10)], r"^   match ") == [
        "match ipv6 address prefix-list PL-HANDOFF-GPU-B-PUBLIC-V6"
    ]
    assert ("RM-LEAK-GPU-B-TO-DEFAULT", 20) not in blocks


@pytest.mark.parametrize("r", EOS_EDGE, ids=EOS_EDGE_IDS)
def test_eos_lists_used_by_route_maps_are_defined(r: Rendered) -> None:
    as_paths = {o.text.split()[3] for o in r.parse.find_objects(r"^ip as-path access-list ")}
    standard = {o.text.split()[2] for o in r.parse.find_objects(r"^ip community-list \S+ permit ")}
    large = {o.text.split()[2] for o in r.parse.find_objects(r"^ip large-community-list \S+ ")}
    used = 0
    for block in _route_map_blocks(r).values():
        for line in _children(block, r"^   match (as-path|community|large-community) "):
            if line.startswith("match as-path length "):
                continue  # a comparison of the path's length, no list (EDGE-013)
            kind, name = line.split()[1:3]
            defined = {"as-path": as_paths, "community": standard, "large-community": large}
            assert name in defined[kind], line
            used += 1
    assert used
    # The model's AS-path regexes are digit regexes: EOS must read them in string mode.
    assert r.parse.find_objects(r"^ip as-path regex-mode string$")
    # One line per community: values on one line would all have to be present (AND).
    for cl in r.model.community_lists:
        keyword = "community-list" if cl.kind == "standard" else "large-community-list"
        lines = [o.text for o in r.parse.find_objects(rf"^ip {keyword} {cl.name} permit ")]
        assert lines == [f"ip {keyword} {cl.name} permit {c}" for c in cl.communities]


def _eos_string_regex(regex: str) -> re.Pattern[str]:
    """An EOS string-mode AS-path regex as Python reads it: `_` is a delimiter or either end."""
    return re.compile(regex.replace("_", r"(?:^|$|[ ,{}()])"))


@pytest.mark.parametrize("r", EOS_BORDER, ids=_ids(EOS_BORDER))
def test_eos_as_path_lists_match_exactly_the_intended_asns(r: Rendered) -> None:
    _assert_as_path_lists_exact(
        r, r"^ip as-path access-list \S+ permit \S+ any$", _eos_string_regex
    )


@pytest.mark.parametrize("r", EOS_BORDER, ids=_ids(EOS_BORDER))
def test_eos_cloud_subinterfaces_are_tagged_under_a_routed_parent(r: Rendered) -> None:
    subs = [i for i in r.model.interfaces if i.kind == "subinterface"]
    assert subs
    for iface in subs:
        (block,) = r.parse.find_objects(rf"^interface {re.escape(iface.name)}$")
        assert _children(block, rf"^   encapsulation dot1q vlan {iface.vlan}$"), iface.name
        assert _children(block, rf"^   mtu {iface.mtu}$"), iface.name
        assert not _children(block, r"switchport"), iface.name
        assert iface.ipv4 is not None
        assert _children(block, rf"^   ip address {re.escape(iface.ipv4.cidr)}$"), iface.name
        parent_name = iface.name.rsplit(".", 1)[0]
        (parent,) = r.parse.find_objects(rf"^interface {re.escape(parent_name)}$")
        assert _children(parent, r"^   no switchport$"), parent_name
    # Each external session leaves through an interface whose subnet holds the neighbor.
    by_name = {i.name: i for i in r.model.interfaces}
    for n in (n for n in r.model.bgp.neighbors if n.external):
        local = by_name[n.local_interface]
        cidr = local.ipv4 if n.afi == "ipv4" else local.ipv6
        assert cidr is not None
        network = ipaddress.ip_interface(cidr.cidr).network
        assert ipaddress.ip_address(n.address) in network, n.address


CLOUD_KINDS = ("aws", "azure", "gcp")
EOS_CLOUD_ONLY = [
    r for r in EOS_BORDER if all(n.kind in CLOUD_KINDS for n in r.model.bgp.neighbors if n.external)
]
# Borders with Internet sessions (transit, IX, PNI): mel1's EOS borders.
EOS_INTERNET = [r for r in EOS_BORDER if r not in EOS_CLOUD_ONLY]


def test_eos_cloud_only_border_leaves_validate_no_origins() -> None:
    """A cloud sends private space no ROA covers: no RTR cache, no `rpki` lines."""
    assert {r.model.hostname for r in EOS_CLOUD_ONLY} == {"aus1-bl1", "aus1-bl2"}
    for r in EOS_CLOUD_ONLY:
        assert r.model.bgp.rpki_caches == ()
        assert not [c for c in _router_bgp(r).children if "rpki" in c.text], r.model.hostname


@pytest.mark.parametrize(
    "r", [*EOS_INTERNET, *EOS_EDGE[-1:]], ids=[*_ids(EOS_INTERNET), *EOS_EDGE_IDS[-1:]]
)
def test_eos_rpki_caches_feed_origin_validation(r: Rendered) -> None:
    bgp = _router_bgp(r)
    caches = r.model.bgp.rpki_caches
    assert caches
    named = {  # the example's (mel1's services LAN) and the edge variant's caches
        "10.9.2.11": "RPKI-10-9-2-11",
        "10.9.2.12": "RPKI-10-9-2-12",
        "10.9.0.11": "RPKI-10-9-0-11",
        "10.9.0.12": "RPKI-10-9-0-12",
    }
    for rpki in caches:
        (block,) = [c for c in bgp.children if c.text == f"   rpki cache {named[rpki.address]}"]
        assert _children(block, rf"^      host {re.escape(rpki.address)} port {rpki.port}$")
    (validation,) = [c for c in bgp.children if c.text == "   rpki origin-validation"]
    assert _children(validation, r"^      ebgp local$")


def test_eos_rpki_caches_are_named_without_colons() -> None:
    """An IPv6 cache's address goes under `host`; its name holds no ':' (hunt-ipv6 9), and
    each name follows its own address, not its place in the list."""
    base = EOS_BORDER[0].model
    caches = [
        RpkiCache(address="2001:db8:9:2::12", port=3323),
        RpkiCache(address="10.9.0.11", port=323),
        RpkiCache(address="2001:db8:9:2:0:0:0:13", port=3323),  # written uncompressed
    ]
    r = _eos(base.model_copy(update={"bgp": base.bgp.model_copy(update={"rpki_caches": caches})}))
    blocks = [c for c in _router_bgp(r).children if c.text.startswith("   rpki cache ")]
    assert [(c.text, [k.text for k in c.children]) for c in blocks] == [
        ("   rpki cache RPKI-2001-db8-9-2--12", ["      host 2001:db8:9:2::12 port 3323"]),
        ("   rpki cache RPKI-10-9-0-11", ["      host 10.9.0.11 port 323"]),
        ("   rpki cache RPKI-2001-db8-9-2--13", ["      host 2001:db8:9:2:0:0:0:13 port 3323"]),
    ]


def test_eos_discard_routes_anchor_the_originated_aggregates() -> None:
    r = _edge_variant(EOS_BORDER[0])
    for route in r.model.static_routes:
        family = "ip" if route.afi == "ipv4" else "ipv6"
        assert r.parse.find_objects(rf"^{family} route {re.escape(route.prefix)} Null0$")


def test_eos_bfd_timers_follow_the_session_not_the_device() -> None:
    base = EOS_BORDER[0].model
    aws = next(n for n in base.bgp.neighbors if n.kind == "aws")
    slow = BfdTimers(profile="BFD-AWS", interval=1000, min_rx=900, multiplier=5)
    neighbors = [
        n.model_copy(update={"bfd_timers": slow}) if n is aws else n for n in base.bgp.neighbors
    ]
    r = _eos(base.model_copy(update={"bgp": base.bgp.model_copy(update={"neighbors": neighbors})}))
    assert "bfd interval 1000 min-rx 900 multiplier 5" in eos_session_lines(r, aws.address)
    # The device default stays the underlay's.
    (bfd,) = r.parse.find_objects(r"^router bfd$")
    timers = base.bgp.bfd
    assert _children(
        bfd,
        rf"^   interval {timers.interval} min-rx {timers.min_rx} "
        rf"multiplier {timers.multiplier} default$",
    )


# --- NX-OS peering edge --------------------------------------------------------------------


def _nxos(model: DeviceModel) -> Rendered:
    text = render_device(model)
    return Rendered(model, text, CiscoConfParse(text.splitlines(), syntax="nxos"))


def nxos_session(r: Rendered, address: str) -> tuple[list[str], dict[str, list[str]]]:
    """(lines directly under `neighbor ADDRESS`, {address family: its lines}), stripped."""
    bgp = _router_bgp(r)
    vrfs = [c for c in bgp.children if c.text.startswith("  vrf ")]
    (block,) = [c for c in bgp.children if c.text == f"  neighbor {address}"] + [
        c for vrf in vrfs for c in vrf.children if c.text == f"    neighbor {address}"
    ]
    lines = [c.text.strip() for c in block.children]
    families = {
        c.text.split()[1]: [g.text.strip() for g in c.children]
        for c in block.children
        if c.text.strip().startswith("address-family ")
    }
    return lines, families


def _nxos_edge_variant(r: Rendered) -> Rendered:
    """The border leaf with what the example's Azure sessions do not exercise: a password, an
    IPv6 IX route-server session (GTSM, no first-AS check, no BFD) and discard routes."""
    model = r.model
    azure = next(n for n in model.bgp.neighbors if n.kind == "azure")
    keyed = azure.model_copy(update={"password": "<<secret:azure-er-syd-private>>"})
    rs = azure.model_copy(
        update={
            "address": "2001:db8:ffff::1",
            "afi": "ipv6",
            "kind": "ix_rs",
            "description": "ix_rs ix-syd/rs1 XC-IX-1",
            "party": "ix-syd/rs1",
            "peer_device": "ix-syd/rs1",
            "circuit": "XC-IX-1",
            "vrf": None,  # an IX sits in the default VRF (the clouds serve tenant VRFs)
            "ttl_security": True,
            "enforce_first_as": False,
            "bfd": False,
            "bfd_timers": None,
        }
    )
    neighbors = [keyed if n is azure else n for n in model.bgp.neighbors] + [rs]
    statics = [
        StaticRoute(prefix="203.0.113.0/24", afi="ipv4", discard=True, description="aggregate"),
        StaticRoute(prefix="2001:db8:100::/40", afi="ipv6", discard=True, description="aggregate"),
    ]
    bgp = model.bgp.model_copy(update={"neighbors": neighbors})
    return _nxos(model.model_copy(update={"bgp": bgp, "static_routes": statics}))


NXOS_BORDER = [r for r in NXOS if any(n.external for n in r.model.bgp.neighbors)]
NXOS_EDGE = [*NXOS_BORDER, _nxos_edge_variant(NXOS_BORDER[0])] if NXOS_BORDER else []
NXOS_EDGE_IDS = [*_ids(NXOS_BORDER), "edge-variant"]


def test_the_example_has_nxos_cloud_sessions() -> None:
    # The NX-OS edge tests below are vacuous without an external session on NX-OS.
    assert NXOS_BORDER


@pytest.mark.parametrize("r", NXOS_EDGE, ids=NXOS_EDGE_IDS)
def test_nxos_external_sessions_are_hardened(r: Rendered) -> None:
    for n in (n for n in r.model.bgp.neighbors if n.external):
        lines, families = nxos_session(r, n.address)
        assert f"remote-as {n.remote_as}" in lines, n.address
        assert f"description {n.description}" in lines, n.address
        assert n.party is not None and n.circuit is not None
        assert n.party in n.description and n.circuit in n.description
        # NX-OS takes at most 80 characters of neighbor description.
        assert len(n.description) <= 80, n.address
        assert (f"password 0 {n.password}" in lines) == (n.password is not None), n.address
        assert ("ttl-security hops 1" in lines) == n.ttl_security, n.address
        assert ("bfd" in lines) == n.bfd, n.address
        # The session carries its own address family only.
        assert list(families) == [n.afi], n.address
        af = families[n.afi]
        assert f"route-map {n.route_map_in} in" in af, n.address
        assert f"route-map {n.route_map_out} out" in af, n.address
        assert f"maximum-prefix {n.max_prefix} {n.max_prefix_warning_pct}" in af, n.address
        # Our tags stay inside: nothing asks NX-OS to send communities to an external party.
        assert not [line for line in af if "send-community" in line], n.address
    # NX-OS has no per-neighbor BFD timers: a session's own sit on the interface carrying it.
    wanted: dict[str, set[str]] = {}
    for n in r.model.bgp.neighbors:
        timer_lines = wanted.setdefault(n.local_interface, set())
        if n.bfd and (t := n.bfd_timers) is not None:
            timer_lines.add(
                f"bfd interval {t.interval} min_rx {t.min_rx} multiplier {t.multiplier}"
            )
    for name, timer_lines in wanted.items():
        (iface,) = r.parse.find_objects(rf"^interface {re.escape(name)}$")
        assert _children(iface, r"^  bfd interval ") == sorted(timer_lines), name
    # The first-AS check can only be switched off for the whole process, and only when a
    # session needs it.
    needed = any(not n.enforce_first_as for n in r.model.bgp.neighbors)
    assert bool(_children(_router_bgp(r), r"^  no enforce-first-as$")) == needed


def test_nxos_passwords_are_placeholders_only() -> None:
    r = _nxos_edge_variant(NXOS_BORDER[0])
    expected = {n.address: n.password for n in r.model.bgp.neighbors if n.password}
    assert expected
    printed = {}
    bgp = _router_bgp(r)
    blocks = [
        *bgp.children,
        *(c for v in bgp.children if v.text.startswith("  vrf ") for c in v.children),
    ]
    for block in blocks:
        for line in _children(block, r"^\s+password "):
            printed[block.text.split()[1]] = line.split(maxsplit=1)[1]
    assert printed == {address: f"0 {secret}" for address, secret in expected.items()}
    for value in printed.values():
        # Type 0 followed by the marked placeholder, never a key (nor a type-3/7 string).
        assert re.fullmatch(r"0 <<secret:[A-Za-z0-9_.-]+>>", value), value


@pytest.mark.parametrize("r", NXOS_EDGE, ids=NXOS_EDGE_IDS)
def test_nxos_route_map_clauses_print_every_match_and_set(r: Rendered) -> None:
    blocks = _route_map_blocks(r)
    assert len(blocks) == sum(len(rm.entries) for rm in r.model.route_maps)
    for rm in r.model.route_maps:
        for e in rm.entries:
            block = blocks[(rm.name, e.seq)]
            assert block.text.split()[2] == e.action
            # A VRF leak map serves both families, each clause its own (`match_afi`).
            family = "ip" if (e.match_afi or rm.afi) == "ipv4" else "ipv6"
            want = set()
            if e.match_prefix_list:
                want.add(f"match {family} address prefix-list {e.match_prefix_list}")
            if e.match_as_path:
                want.add(f"match as-path {e.match_as_path}")
            if e.match_community:
                want.add(f"match community {e.match_community}")
            if e.match_large_community:
                want.add(f"match large-community {e.match_large_community}")
            if e.set_local_preference is not None:
                want.add(f"set local-preference {e.set_local_preference}")
            if e.set_large_communities:
                # `additive`: the tags are added to what the route carries, never replace it.
                want.add(f"set large-community {' '.join(e.set_large_communities)} additive")
            assert set(_children(block, r"^  (match|set) ")) == want, (rm.name, e.seq)


@pytest.mark.parametrize("r", NXOS_BORDER, ids=_ids(NXOS_BORDER))
def test_nxos_drops_long_paths_with_maxas_limit_in_each_vrf_of_an_external_session(
    r: Rendered,
) -> None:
    """NX-OS has no route-map length match (EDGE-013): no clause of the model matches the
    length; `maxas-limit N-1` sits in the `router bgp` / `vrf NAME` block (or `router bgp`
    itself for the default VRF) of every VRF holding an external session, and nowhere else."""
    assert not any(e.match_as_path_length_ge for rm in r.model.route_maps for e in rm.entries)
    vrfs = {n.vrf for n in r.model.bgp.neighbors if n.external}
    assert {d.vrf for d in r.model.bgp.drop_as_path_length} == vrfs
    (bgp,) = r.parse.find_objects(r"^router bgp ")
    found = {}
    for drop in r.model.bgp.drop_as_path_length:
        if drop.vrf is None:
            block = bgp
        else:
            (block,) = _children_objs(bgp, rf"^  vrf {re.escape(drop.vrf)}$")
        found[drop.vrf] = _children(block, r"^\s+maxas-limit ")
        assert found[drop.vrf] == [f"maxas-limit {drop.length - 1}"], drop
    everywhere = [o for o in r.parse.find_objects(r"^\s+maxas-limit ")]
    assert len(everywhere) == len(found)


@pytest.mark.parametrize("r", NXOS_BORDER, ids=_ids(NXOS_BORDER))
def test_nxos_lists_used_by_route_maps_are_defined(r: Rendered) -> None:
    as_paths = {o.text.split()[3] for o in r.parse.find_objects(r"^ip as-path access-list ")}
    standard = {o.text.split()[3] for o in r.parse.find_objects(r"^ip community-list standard ")}
    large = {o.text.split()[3] for o in r.parse.find_objects(r"^ip large-community-list standard ")}
    defined = {"as-path": as_paths, "community": standard, "large-community": large}
    used = set()
    for block in _route_map_blocks(r).values():
        for line in _children(block, r"^  match (as-path|community|large-community) "):
            kind, name = line.split()[1:3]
            assert name in defined[kind], line
            used.add(kind)
    assert used == set(defined)
    # One line per community: values on one line would all have to be present (AND).
    for cl in r.model.community_lists:
        keyword = "community-list" if cl.kind == "standard" else "large-community-list"
        lines = [o.text for o in r.parse.find_objects(rf"^ip {keyword} standard {cl.name} ")]
        assert lines == [f"ip {keyword} standard {cl.name} permit {c}" for c in cl.communities]


def _nxos_as_path_regex(quoted: str) -> re.Pattern[str]:
    """An NX-OS AS-path regex as Python reads it: `_` is a delimiter or either end."""
    assert quoted.startswith('"') and quoted.endswith('"'), quoted
    return re.compile(quoted[1:-1].replace("_", r"(?:^|$|[ ,{}()])"))


@pytest.mark.parametrize("r", NXOS_BORDER, ids=_ids(NXOS_BORDER))
def test_nxos_as_path_lists_match_exactly_the_intended_asns(r: Rendered) -> None:
    _assert_as_path_lists_exact(r, r"^ip as-path access-list \S+ permit \S+$", _nxos_as_path_regex)


@pytest.mark.parametrize("r", NXOS_BORDER, ids=_ids(NXOS_BORDER))
def test_nxos_cloud_subinterfaces_are_tagged_under_a_routed_parent(r: Rendered) -> None:
    subs = [i for i in r.model.interfaces if i.kind == "subinterface"]
    assert subs
    order = [o.text.split()[1] for o in r.parse.find_objects(r"^interface ")]
    for iface in subs:
        (block,) = r.parse.find_objects(rf"^interface {re.escape(iface.name)}$")
        assert _children(block, rf"^  encapsulation dot1q {iface.vlan}$"), iface.name
        assert _children(block, rf"^  mtu {iface.mtu}$"), iface.name
        assert not _children(block, r"switchport"), iface.name
        assert iface.ipv4 is not None
        assert _children(block, rf"^  ip address {re.escape(iface.ipv4.cidr)}$"), iface.name
        assert _children(block, r"^  no ip redirects$"), iface.name
        assert _children(block, r"^  no shutdown$"), iface.name
        parent_name = iface.name.rsplit(".", 1)[0]
        (parent,) = r.parse.find_objects(rf"^interface {re.escape(parent_name)}$")
        assert _children(parent, r"^  no switchport$"), parent_name
        # The parent must be Layer 3 before a sub-interface can be created on it.
        assert order.index(parent_name) < order.index(iface.name), iface.name
    # Each external session leaves through an interface whose subnet holds the neighbor.
    by_name = {i.name: i for i in r.model.interfaces}
    for n in (n for n in r.model.bgp.neighbors if n.external):
        local = by_name[n.local_interface]
        cidr = local.ipv4 if n.afi == "ipv4" else local.ipv6
        assert cidr is not None
        assert ipaddress.ip_address(n.address) in ipaddress.ip_interface(cidr.cidr).network


def test_nxos_discard_routes_anchor_the_originated_aggregates() -> None:
    r = _nxos_edge_variant(NXOS_BORDER[0])
    assert r.model.static_routes
    for route in r.model.static_routes:
        family = "ip" if route.afi == "ipv4" else "ipv6"
        assert r.parse.find_objects(rf"^{family} route {re.escape(route.prefix)} Null0$")


def test_nxos_bfd_timers_follow_the_session_not_the_device() -> None:
    base = NXOS_BORDER[0].model
    azure = next(n for n in base.bgp.neighbors if n.kind == "azure")
    # NX-OS takes 50-999 ms (PLAT-030): the slowest it prints
    slow = BfdTimers(profile="BFD-AZURE", interval=999, min_rx=900, multiplier=5)
    neighbors = [
        n.model_copy(update={"bfd_timers": slow}) if n is azure else n for n in base.bgp.neighbors
    ]
    r = _nxos(base.model_copy(update={"bgp": base.bgp.model_copy(update={"neighbors": neighbors})}))
    (iface,) = r.parse.find_objects(rf"^interface {re.escape(azure.local_interface)}$")
    assert _children(iface, r"^  bfd interval ") == ["bfd interval 999 min_rx 900 multiplier 5"]
    # The device default stays the underlay's, and fabric ports keep it.
    timers = base.bgp.bfd
    assert r.parse.find_objects(
        rf"^bfd interval {timers.interval} min_rx {timers.min_rx} multiplier {timers.multiplier}$"
    )
    for underlay in (n for n in base.bgp.neighbors if not n.external):
        (port,) = r.parse.find_objects(rf"^interface {re.escape(underlay.local_interface)}$")
        assert not _children(port, r"^  bfd interval "), underlay.local_interface


def _with_rpki_clause(model: DeviceModel) -> DeviceModel:
    maps = list(model.route_maps)
    rpki = RouteMapEntry(seq=5, action="deny", match_rpki_invalid=True)
    maps[-1] = maps[-1].model_copy(update={"entries": [rpki, *maps[-1].entries]})
    return model.model_copy(update={"route_maps": maps})


def _with_caches(model: DeviceModel) -> DeviceModel:
    bgp = model.bgp.model_copy(update={"rpki_caches": [RpkiCache(address="10.9.0.11", port=323)]})
    return model.model_copy(update={"bgp": bgp})


def _with_routed_static(model: DeviceModel) -> DeviceModel:
    route = StaticRoute(prefix="203.0.113.0/24", afi="ipv4", discard=False, description="x")
    return model.model_copy(update={"static_routes": [route]})


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_with_rpki_clause, "PLAT-001 "),
        (_with_caches, "PLAT-001 "),
        (_with_routed_static, "PLAT-002 "),
    ],
    ids=["rpki-match", "rpki-cache", "static-next-hop"],
)
def test_nxos_refuses_what_it_cannot_print(
    change: Callable[[DeviceModel], DeviceModel], named: str
) -> None:
    # A deny clause without its RPKI match would deny every route; an unverified command or a
    # guessed next hop is worse than no config at all.
    with pytest.raises(RenderError, match=named):
        render_device(change(NXOS_BORDER[0].model))


# --- Management plane: what a replace push must not remove ---------------------------------

MGMT_EXPECTED: dict[str, Callable[[DeviceModel], list[str]]] = {
    # Top-level lines each platform prints for NTP, syslog and users, in the model's order.
    "arista_eos": lambda m: [
        *(f"ntp server vrf {m.management.vrf} {s}" for s in m.management.ntp_servers),
        *(f"logging vrf {m.management.vrf} host {s}" for s in m.management.syslog_servers),
        *(
            f"username {u.name} privilege {u.privilege} role {' '.join(u.roles)} "
            f"secret sha512 {u.password_hash}"
            for u in m.management.users
        ),
    ],
    "cisco_nxos": lambda m: [
        *(f"ntp server {s} use-vrf {m.management.vrf}" for s in m.management.ntp_servers),
        *(f"logging server {s} 6 use-vrf {m.management.vrf}" for s in m.management.syslog_servers),
        *(
            f"username {u.name} password 5 {u.password_hash} role {' '.join(u.roles)}"
            for u in m.management.users
        ),
    ],
}
MGMT_TOP = r"^(ntp server|logging (vrf|server)|username) "


def _management_api_present(r: Rendered) -> bool:
    """The API stanza, checked block by block; False only when none of it is printed."""
    vrf = r.model.management.vrf
    if r.platform == "cisco_nxos":
        lines = [o.text for o in r.parse.find_objects(r"^(feature (nxapi|scp-server)|nxapi )")]
        if not lines:
            return False
        assert lines == ["feature nxapi", f"nxapi use-vrf {vrf}", "feature scp-server"]
        return True
    # SSH always, in the management VRF only (shut in the default VRF)
    (ssh,) = r.parse.find_objects(r"^management ssh$")
    (ssh_vrf,) = [c for c in ssh.children if c.text == f"   vrf {vrf}"]
    assert _children(ssh_vrf, r"^      no shutdown$")
    (ssh_default,) = [c for c in ssh.children if c.text == "   vrf default"]
    assert _children(ssh_default, r"^      shutdown$")
    apis = r.parse.find_objects(r"^management api http-commands$")
    if not apis:
        return False
    (api,) = apis
    assert _children(api, r"^   no shutdown$")
    (api_vrf,) = [c for c in api.children if c.text == f"   vrf {vrf}"]
    assert _children(api_vrf, r"^      no shutdown$")
    (api_default,) = [c for c in api.children if c.text == "   vrf default"]
    assert _children(api_default, r"^      shutdown$")
    return True


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_management_plane_follows_the_model(r: Rendered) -> None:
    mgmt = r.model.management
    # The example carries all of it: a replace push keeps logins, the API, time and logs.
    assert mgmt.users and mgmt.api and mgmt.ntp_servers and mgmt.syslog_servers
    printed = [o.text for o in r.parse.find_objects(MGMT_TOP)]
    assert printed == MGMT_EXPECTED[r.platform](r.model)
    assert _management_api_present(r)


def test_management_plane_changes_with_the_model() -> None:
    # Other users and servers, API off: the templates print what the model says, nothing more.
    for r in (EOS[0], NXOS[0]):
        user = r.model.management.users[0].model_copy(
            update={"name": "breakglass", "password_hash": "<<secret:bg-hash>>"}
        )
        mgmt = r.model.management.model_copy(
            update={
                "users": [user],
                "api": False,
                "ntp_servers": ["192.0.2.123"],
                "syslog_servers": [],
            }
        )
        model = r.model.model_copy(update={"management": mgmt})
        text = render_device(model)
        changed = Rendered(
            model, text, CiscoConfParse(text.splitlines(), syntax=PARSERS[r.platform][0])
        )
        printed = [o.text for o in changed.parse.find_objects(MGMT_TOP)]
        assert printed == MGMT_EXPECTED[r.platform](model)
        assert len(printed) == 2 and "breakglass" in printed[1]
        assert not _management_api_present(changed)


@pytest.mark.parametrize("r", ALL, ids=_ids(ALL))
def test_user_passwords_are_hash_placeholders_only(r: Rendered) -> None:
    site = lint(EXAMPLE_INTENT).loaded.intent.sites[r.model.site]
    printed = {}
    for obj in r.parse.find_objects(r"^username "):
        words = obj.text.split()
        keyword = "sha512" if r.platform == "arista_eos" else "5"
        printed[words[1]] = words[words.index(keyword) + 1]
    assert sorted(printed) == sorted(site.management.users)
    for name, user in site.management.users.items():
        # NX-OS takes the SHA-256-crypt secret, EOS the SHA-512-crypt one; never a value.
        wanted = user.password_hash_sha256 if r.platform == "cisco_nxos" else user.password_hash
        assert wanted is not None
        assert printed[name] == f"<<{wanted}>>", name
        assert re.fullmatch(r"<<secret:[A-Za-z0-9._-]+>>", printed[name])
    assert "$6$" not in r.text and "$5$" not in r.text


def test_nxos_needs_a_sha256_hash_for_every_user(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    replace_in(site, '          password_hash_sha256: "secret:aus1-monitor-hash-sha256"\n', "")
    with pytest.raises(IntentError) as raised:
        lint_repo(example)
    (problem,) = raised.value.problems
    assert problem.kind == "missing-password-hash"
    assert "user monitor" in problem.message and "password_hash_sha256" in problem.message
    assert problem.location.file == "intent/aus1/devices.yaml"  # the NX-OS device's line


def test_a_literal_password_hash_is_refused_without_echo(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    pasted = "$6$Zx9salt$notAreferenceButAhash"
    replace_in(site, '"secret:aus1-netops-hash"', f"'{pasted}'")
    with pytest.raises(IntentError) as raised:
        lint_repo(example)
    messages = [str(p) for p in raised.value.problems]
    assert any("must be a secret reference" in m for m in messages), messages
    assert not any(pasted in m for m in messages)


# --- EOS EVPN-VXLAN ------------------------------------------------------------------------


@cache
def _eos_evpn_variant() -> Rendered:
    """The EOS border leaf aus1-bl1 with every network of the example placed on it (`leaves:`),
    built by the real generators: the example's border leaves carry no networks yet."""
    with tempfile.TemporaryDirectory() as tmp:
        intent = Path(tmp) / "intent"
        shutil.copytree(EXAMPLE_INTENT, intent)
        tenants_file = intent / "aus1" / "tenants.yaml"
        data = yaml.safe_load(tenants_file.read_text())
        for tenant in data["sites"]["aus1"]["tenants"].values():
            for network in tenant["networks"].values():
                network["leaves"] = ["aus1-bl1", "aus1-bl2"]
        tenants_file.write_text(yaml.safe_dump(data, sort_keys=False))
        model = device_models(lint(intent, configs=False))["aus1-bl1"]
    return _eos(model)


EOS_EVPN = [r for r in EOS if r.model.evpn is not None]
EOS_VTEPS = [r for r in EOS_EVPN if r.model.evpn and r.model.evpn.vtep]
EOS_VTEP_CASES = [*EOS_VTEPS, _eos_evpn_variant()]
EOS_VTEP_IDS = [*_ids(EOS_VTEPS), "bl1-with-networks"]


def _evpn(r: Rendered) -> Any:
    assert r.model.evpn is not None
    return r.model.evpn


def test_the_eos_evpn_cases_are_not_vacuous() -> None:
    spines = [r for r in EOS_EVPN if not _evpn(r).vtep]
    assert spines and EOS_VTEPS
    evpn = _evpn(_eos_evpn_variant())
    assert evpn.vtep and evpn.vrfs and len(evpn.vlans) >= 10
    svis = [v.svi for v in evpn.vlans if v.svi is not None]
    assert any(s.ipv6 for s in svis) and any(s.ipv4 and not s.ipv6 for s in svis)
    assert any(v.svi is None for v in evpn.vlans)  # a bridged-only network


def _af(r: Rendered, afi: str) -> Any | None:
    found = [c for c in _router_bgp(r).children if c.text == f"   address-family {afi}"]
    assert len(found) <= 1
    return found[0] if found else None


@pytest.mark.parametrize("r", [*EOS_EVPN, _eos_evpn_variant()], ids=[*_ids(EOS_EVPN), "variant"])
def test_eos_evpn_peers_are_multihop_loopback_sessions(r: Rendered) -> None:
    evpn = _evpn(r)
    assert evpn.peers
    evpn_af = _af(r, "evpn")
    assert evpn_af is not None
    activated = _children(evpn_af, r"^      neighbor \S+ activate$")
    assert activated == [f"neighbor {p.address} activate" for p in evpn.peers]
    for p in evpn.peers:
        lines = eos_session_lines(r, p.address)
        assert f"remote-as {p.remote_as}" in lines, p.address
        assert f"update-source {p.update_source}" in lines, p.address
        assert f"ebgp-multihop {p.ebgp_multihop}" in lines, p.address
        assert f"description {p.description}" in lines, p.address
        # Route targets and the router MAC are extended communities: without them no import
        # (graceful shutdown and class tags ride standard and large: test_overlay_fixes.py).
        assert "send-community standard extended large" in lines, p.address
        # A route server (a spine; in a 3-tier site also a super-spine, between the pods)
        # passes the VTEP next hop through; a VTEP never rewrites it either way.
        assert ("next-hop-unchanged" in lines) == p.next_hop_unchanged, p.address
        assert p.next_hop_unchanged == (r.model.role in ("spine", "super_spine")), p.address
        # No unicast policy on the overlay: the loopback-only underlay maps would drop EVPN.
        assert not [line for line in lines if line.startswith("route-map")], p.address
        for afi in ("ipv4", "ipv6"):
            af = _af(r, afi)
            assert af is not None
            assert not _children(af, rf"^      neighbor {re.escape(p.address)} activate$"), afi
    # The update source exists and holds the address the peers dial.
    (source,) = {p.update_source for p in evpn.peers}
    loopback = next(lo for lo in r.model.loopbacks if lo.name == source)
    assert loopback.ipv4 is not None and loopback.ipv4.ip == r.model.bgp.router_id


@pytest.mark.parametrize(
    "r", [r for r in EOS_EVPN if not _evpn(r).vtep], ids=lambda r: r.model.hostname
)
def test_eos_spines_carry_evpn_routes_but_no_vxlan(r: Rendered) -> None:
    assert not r.parse.find_objects(r"^interface (Vxlan|Vlan)")
    assert not r.parse.find_objects(r"^(vlan \d+|ip virtual-router |vrf instance (?!MGMT$))")
    assert not _children(_router_bgp(r), r"^   (vlan|vrf) ")


def _block(r: Rendered, text: str) -> Any:
    (obj,) = r.parse.find_objects(rf"^{re.escape(text)}$")
    return obj


@pytest.mark.parametrize("r", EOS_VTEP_CASES, ids=EOS_VTEP_IDS)
def test_eos_vtep_maps_every_vlan_and_vrf(r: Rendered) -> None:
    evpn = _evpn(r)
    assert unplaced_lines(r.parse, 3) == []
    vxlan = _block(r, "interface Vxlan1")
    assert _children(vxlan, r"^   vxlan source-interface ") == [
        f"vxlan source-interface {evpn.source_interface}"
    ]
    source = next(lo for lo in r.model.loopbacks if lo.name == evpn.source_interface)
    assert source.ipv4 is not None and source.ipv4.ip == evpn.source_address
    assert _children(vxlan, r"^   vxlan udp-port ") == ["vxlan udp-port 4789"]
    # Every VLAN of the model is mapped to its VNI, and nothing else is.
    assert _children(vxlan, r"^   vxlan vlan ") == [
        f"vxlan vlan {v.id} vni {v.vni}" for v in evpn.vlans
    ]
    assert _children(vxlan, r"^   vxlan vrf ") == [
        f"vxlan vrf {v.name} vni {v.vni}" for v in evpn.vrfs
    ]
    bgp = _router_bgp(r)
    for v in evpn.vlans:
        assert _children(_block(r, f"vlan {v.id}"), r"^   name ") == [f"name {v.name}"]
        (mac_vrf,) = [c for c in bgp.children if c.text == f"   vlan {v.id}"]
        assert [c.text.strip() for c in mac_vrf.children] == [
            f"rd {v.rd}",
            f"route-target both {v.route_target}",
            "redistribute learned",
        ], v.id
    # Symmetric IRB: each VRF routes, maps its L3VNI and imports/exports its RT in EVPN.
    routing = {o.text for o in r.parse.find_objects(r"^(ip routing|ipv6 unicast-routing) vrf ")}
    for v in evpn.vrfs:
        assert r.parse.find_objects(rf"^vrf instance {re.escape(v.name)}$")
        assert {f"ip routing vrf {v.name}", f"ipv6 unicast-routing vrf {v.name}"} <= routing
        (ip_vrf,) = [c for c in bgp.children if c.text == f"   vrf {v.name}"]
        # The VRF's own sessions and families (the handoff) are read by eos_vrf_sessions.
        own = ("neighbor ", "address-family ", "!")
        assert [c.text.strip() for c in ip_vrf.children if not c.text.strip().startswith(own)] == [
            f"rd {v.rd}",
            f"route-target import evpn {v.route_target}",
            f"route-target export evpn {v.route_target}",
            f"maximum-paths {v.maximum_paths} ecmp {v.maximum_paths}",
            "redistribute connected",
        ], v.name
    # An RD names one VTEP: router-id first, so two leaves never collide (EVPN-004).
    for rd in [v.rd for v in evpn.vlans] + [v.rd for v in evpn.vrfs]:
        assert rd.split(":")[0] == r.model.bgp.router_id


@pytest.mark.parametrize("r", EOS_VTEP_CASES, ids=EOS_VTEP_IDS)
def test_eos_svis_are_anycast_gateways_in_their_vrf(r: Rendered) -> None:
    evpn = _evpn(r)
    macs = [o.text for o in r.parse.find_objects(r"^ip virtual-router mac-address ")]
    assert macs == [f"ip virtual-router mac-address {evpn.anycast_mac}"]
    order = [o.text for o in r.parse.objs if o.indent == 0]
    mapped_vrfs = {v.name for v in evpn.vrfs}
    svis = [v.svi for v in evpn.vlans if v.svi is not None]
    printed = {o.text.split()[1] for o in r.parse.find_objects(r"^interface Vlan\d+$")}
    assert printed == {s.name for s in svis}
    for svi in svis:
        block = _block(r, f"interface {svi.name}")
        lines = [c.text.strip() for c in block.children]
        # A routed SVI needs its VRF's L3VNI, else inter-subnet traffic is black-holed.
        assert svi.vrf in mapped_vrfs, svi.name
        # EOS drops an interface's addresses when its VRF changes: `vrf` comes first.
        assert lines.index(f"vrf {svi.vrf}") < min(
            i for i, line in enumerate(lines) if "address" in line
        ), svi.name
        assert order.index(f"vrf instance {svi.vrf}") < order.index(f"interface {svi.name}")
        want = []
        if svi.ipv4:
            want.append(f"ip address virtual {svi.ipv4.cidr}")
        if svi.ipv6:
            want.append(f"ipv6 address virtual {svi.ipv6.cidr}")
            assert "ipv6 enable" in lines, svi.name
        assert [line for line in lines if " address " in f" {line}"] == want, svi.name
        assert (f"mtu {svi.mtu}" in lines) == (svi.mtu is not None), svi.name
        assert "no shutdown" in lines, svi.name


# --- NX-OS EVPN-VXLAN ----------------------------------------------------------------------

NXOS_VTEPS = [r for r in NXOS if r.model.evpn is not None and r.model.evpn.vtep]


def _nxos_evpn(r: Rendered) -> Any:
    assert r.model.evpn is not None
    return r.model.evpn


def _nxos_block(r: Rendered, text: str) -> Any:
    """The one top-level block whose line is exactly `text`."""
    (block,) = [o for o in r.parse.objs if o.indent == 0 and o.text == text]
    return block


def _nxos_lines(block: Any) -> list[str]:
    return [c.text.strip() for c in block.children]


def _nxos_top(r: Rendered) -> list[str]:
    return [o.text for o in r.parse.objs if o.indent == 0]


def _nxos_gateway_vtep() -> Rendered:
    """An NX-OS VTEP carrying routed networks (the existence test below guards it)."""
    return next(r for r in NXOS_VTEPS if any(v.svi for v in _nxos_evpn(r).vlans))


def test_the_example_has_nxos_vteps_with_routed_and_bridged_networks() -> None:
    # The NX-OS EVPN tests below are vacuous without VTEPs carrying both kinds of network.
    vlans = [v for r in NXOS_VTEPS for v in _nxos_evpn(r).vlans]
    assert any(v.svi is not None for v in vlans) and any(v.svi is None for v in vlans)
    assert any(_nxos_evpn(r).vrfs for r in NXOS_VTEPS)


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_vtep_maps_every_vlan_to_its_vni(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    for vlan in evpn.vlans:
        assert _nxos_lines(_nxos_block(r, f"vlan {vlan.id}")) == [
            f"name {vlan.name}",
            f"vn-segment {vlan.vni}",
        ]
    nve = _nxos_block(r, "interface nve1")
    members = {c.text.strip(): _nxos_lines(c) for c in nve.children if "member vni" in c.text}
    # Exactly the model's VNIs on the VTEP: a stray one would bridge a VLAN it does not carry.
    assert list(members) == [
        *(f"member vni {v.vni}" for v in evpn.vlans),
        *(f"member vni {v.vni} associate-vrf" for v in evpn.vrfs),
    ]
    for vlan in evpn.vlans:
        replication = members[f"member vni {vlan.vni}"]
        assert "ingress-replication protocol bgp" in replication, vlan.vni
        # NX-OS suppresses ARP only where the VTEP is the VNI's anycast gateway.
        assert ("suppress-arp" in replication) == (vlan.svi is not None), vlan.vni
    if not evpn.vlans:
        assert not r.parse.find_objects(r"^evpn$")
        return
    section = _nxos_block(r, "evpn")
    vnis = {c.text.strip(): _nxos_lines(c) for c in section.children}
    assert list(vnis) == [f"vni {v.vni} l2" for v in evpn.vlans]
    for vlan in evpn.vlans:
        assert vnis[f"vni {vlan.vni} l2"] == [
            f"rd {vlan.rd}",
            f"route-target import {vlan.route_target}",
            f"route-target export {vlan.route_target}",
        ]


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_vrfs_route_over_their_l3vni_and_exchange_its_rt_in_evpn(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    contexts = {o.text.split()[2] for o in r.parse.find_objects(r"^vrf context \S+$")}
    assert contexts == {v.name for v in evpn.vrfs} | {r.model.management.vrf}
    bgp_vrfs = {
        c.text.split()[1]: c for c in _router_bgp(r).children if c.text.startswith("  vrf ")
    }
    assert set(bgp_vrfs) == {v.name for v in evpn.vrfs}
    for vrf in evpn.vrfs:
        assert _nxos_lines(_nxos_block(r, f"vlan {vrf.vlan}")) == [f"vn-segment {vrf.vni}"]
        context = _nxos_block(r, f"vrf context {vrf.name}")
        lines = _nxos_lines(context)
        assert f"vni {vrf.vni}" in lines and f"rd {vrf.rd}" in lines, vrf.name
        families = {c.text.strip(): _nxos_lines(c) for c in context.children if c.children}
        for family in ("ipv4", "ipv6"):
            # Without the `evpn` keyword the target would not apply to EVPN routes.
            assert families[f"address-family {family} unicast"] == [
                f"route-target import {vrf.route_target} evpn",
                f"route-target export {vrf.route_target} evpn",
            ], (vrf.name, family)
        svi = _nxos_lines(_nxos_block(r, f"interface Vlan{vrf.vlan}"))
        assert f"vrf member {vrf.name}" in svi and "ip forward" in svi, vrf.name
        # IPv6 over the L3VNI needs IPv6 on its SVI, with no address of its own (Cisco's
        # 10.3(x) VXLAN guide pairs it with `ip forward`); an IPv4-only VRF's SVI has none
        v6 = "ipv6 address use-link-local-only"
        assert (v6 in svi) == ("ipv6" in vrf.address_families), vrf.name
        assert "no shutdown" in svi
        assert [line for line in svi if "address" in line] in ([], [v6]), vrf.name
        in_bgp = {
            c.text.strip(): _nxos_lines(c)
            for c in bgp_vrfs[vrf.name].children
            if c.text.strip().startswith("address-family ")
        }
        # type-5: the VRF's BGP table is advertised, SVI subnets enter it through the map
        redistribute = f"redistribute direct route-map {vrf.connected_route_map}"
        for family in ("ipv4", "ipv6"):
            assert in_bgp[f"address-family {family} unicast"] == [
                "advertise l2vpn evpn",
                redistribute,
                f"maximum-paths {vrf.maximum_paths}",  # ECMP: test_overlay_fixes.py
                # the aggregates the VRF originates for a cloud it serves (test_north_south.py)
                *(f"network {p}" for p in vrf.networks(family)),  # type: ignore[arg-type]
            ], vrf.name
        assert r.parse.find_objects(rf"^route-map {vrf.connected_route_map} permit \d+$")


def _dotted_by_hand(mac: str) -> str:
    """aa:bb:cc:dd:ee:ff -> aabb.ccdd.eeff, written out here rather than taken from meetme."""
    h = mac.split(":")
    return f"{h[0]}{h[1]}.{h[2]}{h[3]}.{h[4]}{h[5]}"


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_svis_are_the_fabric_wide_anycast_gateway(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    # One MAC fabric-wide (each example site its own), in Cisco's dotted form.
    mac, dotted = {
        "aus1": ("00:1c:73:00:00:99", r"001c\.7300\.0099"),
        "mel1": ("00:1c:73:00:01:99", r"001c\.7300\.0199"),
    }[r.model.site]
    assert evpn.anycast_mac == mac
    assert r.parse.find_objects(rf"^fabric forwarding anycast-gateway-mac {dotted}$")
    svis = [v.svi for v in evpn.vlans if v.svi is not None]
    l3vni_svis = {f"Vlan{v.vlan}" for v in evpn.vrfs}
    printed = {o.text.split()[1] for o in r.parse.find_objects(r"^interface Vlan\d+$")}
    # A vPC leaf also routes over its peer link (the backup routing SVI): no gateway, no
    # anycast MAC on it.
    mlag = r.model.mlag
    backup = {f"Vlan{mlag.peer_vlan}"} if mlag is not None and mlag.peer_vlan else set()
    for name in backup:
        assert "fabric forwarding mode anycast-gateway" not in _nxos_lines(
            _nxos_block(r, f"interface {name}")
        ), name
    # A bridged-only network gets no gateway.
    assert printed == {s.name for s in svis} | l3vni_svis | backup
    for svi in svis:
        lines = _nxos_lines(_nxos_block(r, f"interface {svi.name}"))
        assert "fabric forwarding mode anycast-gateway" in lines, svi.name
        assert "no shutdown" in lines, svi.name
        assert (f"mtu {svi.mtu}" in lines) == (svi.mtu is not None), svi.name
        want = []
        if svi.ipv4:
            want.append(f"ip address {svi.ipv4.cidr}")
        if svi.ipv6:
            want.append(f"ipv6 address {svi.ipv6.cidr}")
        assert [line for line in lines if " address " in f" {line}"] == want, svi.name
        # Joining a VRF wipes an NX-OS interface's addresses: `vrf member` comes first.
        assert lines.index(f"vrf member {svi.vrf}") < lines.index(want[0]), svi.name
        # Routed: its VRF has an L3VNI on this VTEP, else inter-subnet traffic is dropped.
        assert svi.vrf in {v.name for v in evpn.vrfs}, svi.name


def test_nxos_ipv6_gateway_is_an_anycast_gateway_too() -> None:
    from meetme.generators.model import Address

    vtep = _nxos_gateway_vtep()
    model, evpn = vtep.model, _nxos_evpn(vtep)
    first = next(v for v in evpn.vlans if v.svi is not None)
    svi = first.svi.model_copy(update={"ipv6": Address.of("2001:db8:60:1::1/64")})
    vlans = [v.model_copy(update={"svi": svi}) if v is first else v for v in evpn.vlans]
    r = _nxos(model.model_copy(update={"evpn": evpn.model_copy(update={"vlans": vlans})}))
    lines = _nxos_lines(_nxos_block(r, f"interface {svi.name}"))
    assert "ipv6 address 2001:db8:60:1::1/64" in lines
    assert "fabric forwarding mode anycast-gateway" in lines
    context = _nxos_block(r, f"vrf context {svi.vrf}")
    families = {c.text.strip(): _nxos_lines(c) for c in context.children if c.children}
    assert "address-family ipv6 unicast" in families


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_vxlan_is_sourced_from_an_advertised_vtep_loopback(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    top = _nxos_top(r)
    for line in ("feature interface-vlan", "feature vn-segment-vlan-based", "feature nv overlay"):
        assert line in top, line
    assert "nv overlay evpn" in top
    nve = _nxos_lines(_nxos_block(r, "interface nve1"))
    assert "host-reachability protocol bgp" in nve and "no shutdown" in nve
    assert f"source-interface {evpn.source_interface}" in nve
    loopback = _nxos_lines(_nxos_block(r, f"interface {evpn.source_interface}"))
    assert f"ip address {evpn.source_address}/32" in loopback
    # Remote VTEPs reach the tunnel source only if the underlay advertises it.
    assert f"{evpn.source_address}/32" in r.model.bgp.networks_v4
    # A dedicated loopback, not the BGP router-id one (Cisco VXLAN guide best practice).
    assert evpn.source_address != r.model.bgp.router_id


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_evpn_peers_are_multihop_loopback_sessions_carrying_evpn_only(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    assert evpn.peers
    loopbacks = {lo.name for lo in r.model.loopbacks}
    for peer in evpn.peers:
        lines, families = nxos_session(r, peer.address)
        assert f"remote-as {peer.remote_as}" in lines, peer.address
        assert f"description {peer.description}" in lines, peer.address
        assert f"update-source {peer.update_source}" in lines, peer.address
        assert peer.update_source in loopbacks, peer.address
        assert f"ebgp-multihop {peer.ebgp_multihop}" in lines, peer.address
        # EVPN only: no IPv4/IPv6 routes, so the loopback-only underlay policy never applies.
        assert list(families) == ["l2vpn"], peer.address
        assert "address-family l2vpn evpn" in lines, peer.address
        af = families["l2vpn"]
        # Route targets and the router MAC are extended communities.
        assert "send-community" in af and "send-community extended" in af, peer.address
        assert not [line for line in af if line.startswith("route-map ")], peer.address
        # The prefix limit every BGP session carries: exactly one, the model's.
        limits = [line for line in af if line.startswith("maximum-prefix ")]
        assert limits == [f"maximum-prefix {peer.max_routes} {peer.max_routes_warning_pct}"], (
            peer.address
        )
    # An overlay session is never also an underlay one.
    assert not {p.address for p in evpn.peers} & {n.address for n in r.model.bgp.neighbors}


@pytest.mark.parametrize("r", NXOS_VTEPS, ids=_ids(NXOS_VTEPS))
def test_nxos_evpn_config_pastes_in_dependency_order(r: Rendered) -> None:
    evpn = _nxos_evpn(r)
    top = _nxos_top(r)
    features = top.index("nv overlay evpn")
    assert top.index("feature interface-vlan") < features < top.index("interface nve1")
    # the HMM feature before the distributed anycast gateway that runs on it
    gateway = next(
        i for i, line in enumerate(top) if line.startswith("fabric forwarding anycast-gateway-mac")
    )
    assert features < top.index("feature fabric forwarding") < gateway
    assert features < top.index(f"router bgp {r.model.bgp.asn}")
    assert top.index(f"interface {evpn.source_interface}") < top.index("interface nve1")
    for vlan in evpn.vlans:
        if vlan.svi is not None:
            svi = top.index(f"interface {vlan.svi.name}")
            # The VRF must exist before an interface can join it.
            assert top.index(f"vrf context {vlan.svi.vrf}") < svi, vlan.id
            assert top.index(f"vlan {vlan.id}") < svi, vlan.id
    for vrf in evpn.vrfs:
        # `associate-vrf` needs the VRF's `vni`.
        assert top.index(f"vrf context {vrf.name}") < top.index("interface nve1"), vrf.name
    if evpn.vlans:
        assert top.index(f"router bgp {r.model.bgp.asn}") < top.index("evpn")


def test_nxos_device_without_evpn_prints_no_overlay() -> None:
    # No host port-channels either: their Ethernet segments need EVPN (refused without it).
    r = _nxos(_nxos_gateway_vtep().model.model_copy(update={"evpn": None, "lags": []}))
    overlay = (
        r"^(feature (nv overlay|vn-segment-vlan-based|interface-vlan|fabric forwarding)|nv "
        r"overlay|evpn$|vlan "
        r"|fabric forwarding|interface (nve|Vlan))"
    )
    assert not r.parse.find_objects(overlay)
    assert not [c for c in _router_bgp(r).children if c.text.startswith("  vrf ")]


def _without_carrier_vlan(model: DeviceModel) -> DeviceModel:
    assert model.evpn is not None
    vrfs = [model.evpn.vrfs[0].model_copy(update={"vlan": None}), *model.evpn.vrfs[1:]]
    return model.model_copy(update={"evpn": model.evpn.model_copy(update={"vrfs": vrfs})})


def _as_spine(model: DeviceModel) -> DeviceModel:
    assert model.evpn is not None
    peers = [p.model_copy(update={"next_hop_unchanged": True}) for p in model.evpn.peers]
    evpn = model.evpn.model_copy(update={"vtep": False, "vlans": [], "vrfs": [], "peers": peers})
    return model.model_copy(update={"role": "spine", "evpn": evpn, "lags": []})


def test_nxos_refuses_evpn_it_cannot_print() -> None:
    # An L3VNI without its VLAN would be left unmapped.
    vtep = _nxos_gateway_vtep()
    with pytest.raises(RenderError, match="PLAT-008 "):
        render_device(_without_carrier_vlan(vtep.model))


def test_an_nxos_spine_model_without_its_next_hop_map_is_refused() -> None:
    """A spine that rewrote the next hop to itself would attract all VXLAN traffic and drop
    it: a route server's sessions print the map the model names, and a model naming none (a
    builder that forgot it) is refused before a template prints `route-map None out`."""
    vtep = _nxos_gateway_vtep()
    with pytest.raises(RenderError, match="PLAT-007 "):
        render_device(_as_spine(vtep.model))


# --- NX-OS EVPN multihoming (ESI) host port-channels --------------------------------------
# The example asks for ESI on Cumulus only: NX-OS has no esi_multihoming capability (Nexus 9000
# -EX and later cannot host an Ethernet segment, generators/platforms/), so EVPN-011 refuses
# it in intent. templates/cisco_nxos/multihoming.j2 stays for when that is settled, and is read here
# on aus1-lf3/lf4 given the host port-channels the generator builds for an ESI attachment.

NXOS_ESI_HOSTS = Attachment(
    mode="esi",
    leaves=["aus1-lf3", "aus1-lf4"],
    ports=["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4"],
    lacp_system_mac="02:00:00:00:10:03",
    networks=["storage-back-1", "storage-back-2"],
)


def _with_lags(model: DeviceModel, lags: tuple[Lag, ...]) -> DeviceModel:
    """The model with these host bonds, whose member ports are no longer unused."""
    members = {m for lag in lags for m in lag.members}
    unused = tuple(p for p in model.unused_ports if p not in members)
    return model.model_copy(update={"lags": lags, "unused_ports": unused})


def _nxos_esi_pair() -> list[Rendered]:
    # Past the lint gate on purpose: the example's models, plus the Lag objects
    # generators/attachments.py derives from the attachment (numbers, ESIs, MTU, VLANs).
    models, _ = _example()
    site = load_intent(EXAMPLE_INTENT).intent.sites["aus1"]
    attachments = {**site.attachments, "dh2-r10-storage-hosts": NXOS_ESI_HOSTS}
    site = site.model_copy(update={"attachments": attachments})
    return [_nxos(_with_lags(models[name], lags_of(site, name))) for name in NXOS_ESI_HOSTS.leaves]


NXOS_ESI = _nxos_esi_pair()
NXOS_ESI_IDS = [f"{hostname}-with-esi" for hostname in _ids(NXOS_ESI)]


def _vlan_ids(allowed: str) -> set[int]:
    """The VLAN ids of a `switchport trunk allowed vlan` list such as `10,20-22`."""
    ids: set[int] = set()
    for part in allowed.split(","):
        first, _, last = part.partition("-")
        ids.update(range(int(first), int(last or first) + 1))
    return ids


def _trunk(lines: list[str]) -> set[int]:
    (allowed,) = [x for x in lines if x.startswith("switchport trunk allowed vlan ")]
    return _vlan_ids(allowed.split()[-1])


def _segment(r: Rendered, lag_name: str) -> tuple[str, list[str]]:
    """(the `ethernet-segment` line under the port-channel, the lines under it)."""
    block = _nxos_block(r, f"interface {lag_name}")
    (segment,) = [c for c in block.children if c.text.strip().startswith("ethernet-segment")]
    return segment.text.strip(), _nxos_lines(segment)


def test_the_nxos_esi_cases_are_not_vacuous() -> None:
    # The ESI tests below are vacuous without two NX-OS leaves sharing ESI port-channels; the
    # example's own NX-OS leaves have none (EVPN-011), only vPC ones (mel1).
    assert not [lag for r in NXOS for lag in r.model.lags if lag.mode != "mlag"]
    assert [r.platform for r in NXOS_ESI] == ["cisco_nxos", "cisco_nxos"]
    for r in NXOS_ESI:
        assert len(r.model.lags) == len(NXOS_ESI_HOSTS.ports)
        assert all(lag.mode == "esi" and lag.vlans for lag in r.model.lags)


@pytest.mark.parametrize("r", NXOS_ESI, ids=NXOS_ESI_IDS)
def test_nxos_esi_port_channels_trunk_the_model_vlans_to_their_members(r: Rendered) -> None:
    printed = {o.text.split()[1] for o in r.parse.find_objects(r"^interface port-channel\d+$")}
    # Exactly the model's host port-channels: a stray one would bridge a host it does not know.
    assert printed == {lag.name for lag in r.model.lags}
    for lag in r.model.lags:
        channel = _nxos_lines(_nxos_block(r, f"interface {lag.name}"))
        for line in ("switchport", "switchport mode trunk", f"mtu {lag.mtu}", "no shutdown"):
            assert line in channel, (lag.name, line)
        assert f"description {lag.description}" in channel, lag.name
        assert _trunk(channel) == set(lag.vlans), lag.name
        assert _segment(r, lag.name) == (
            f"ethernet-segment {lag.segment_id}",
            [f"system-mac {_dotted_by_hand(lag.lacp_system_mac)}"],
        )
        assert lag.members
        for member in lag.members:
            lines = _nxos_lines(_nxos_block(r, f"interface {member}"))
            assert f"channel-group {lag.number} mode active" in lines, member
            # NX-OS adds a port to a channel only if mode, VLANs and MTU match the channel's.
            assert "switchport mode trunk" in lines and _trunk(lines) == set(lag.vlans), member
            assert f"mtu {lag.mtu}" in lines and "no shutdown" in lines, member
            assert "no switchport" not in lines, member
        # The channel exists before its members join it.
        top = _nxos_top(r)
        assert all(
            top.index(f"interface {lag.name}") < top.index(f"interface {m}") for m in lag.members
        ), lag.name


def test_nxos_esi_leaves_of_a_pair_print_the_same_segments() -> None:
    # Both halves of a host's bond must show the host one LACP system and one segment, or the
    # host's LACP splits the bond and EVPN sees two single-homed segments.
    def segments(r: Rendered) -> dict[str, tuple[str, list[str], set[int]]]:
        return {
            lag.name: (
                *_segment(r, lag.name),
                _trunk(_nxos_lines(_nxos_block(r, f"interface {lag.name}"))),
            )
            for lag in r.model.lags
        }

    for r in NXOS_ESI:
        peers = [
            p
            for p in NXOS_ESI
            if p is not r and {x.name for x in p.model.lags} & {x.name for x in r.model.lags}
        ]
        assert peers, r.model.hostname
        mine = segments(r)
        for peer in peers:
            theirs = segments(peer)
            for name in mine.keys() & theirs.keys():
                assert mine[name] == theirs[name], (r.model.hostname, peer.model.hostname, name)


def _fabric_uplinks(r: Rendered) -> set[str]:
    return {i.name for i in r.model.interfaces if i.kind == "routed" and i.peer is not None}


@pytest.mark.parametrize("r", [*NXOS, *NXOS_ESI], ids=[*_ids(NXOS), *NXOS_ESI_IDS])
def test_nxos_esi_global_config_only_where_there_are_esi_port_channels(r: Rendered) -> None:
    has_esi = any(lag.mode == "esi" for lag in r.model.lags)
    top = _nxos_top(r)
    assert ("evpn esi multihoming" in top) == has_esi
    assert ("feature lacp" in top) == bool(r.model.lags)
    tracked = {
        o.text.split()[1]
        for o in r.parse.find_objects(r"^interface ")
        if "evpn multihoming core-tracking" in _nxos_lines(o)
    }
    # Every fabric uplink is tracked, so a leaf cut off from the spines suspends its segments.
    assert tracked == (_fabric_uplinks(r) if has_esi else set())
    if has_esi:
        assert _fabric_uplinks(r)
        # EVPN first, then multihoming, then the segments and the ports it tracks.
        assert top.index("nv overlay evpn") < top.index("evpn esi multihoming")
        first = min(
            top.index(f"interface {x}") for x in {*tracked, *(g.name for g in r.model.lags)}
        )
        assert top.index("evpn esi multihoming") < first
        assert top.index("feature lacp") < first


def test_nxos_leaf_without_host_port_channels_prints_no_multihoming() -> None:
    r = _nxos(NXOS_ESI[0].model.model_copy(update={"lags": []}))
    assert not r.parse.find_objects(
        r"^(feature lacp|evpn esi multihoming|interface port-channel)|channel-group|"
        r"ethernet-segment|core-tracking"
    )


def _lag_change(**update: Any) -> Callable[[DeviceModel], DeviceModel]:
    def change(model: DeviceModel) -> DeviceModel:
        lags = [model.lags[0].model_copy(update=update), *model.lags[1:]]
        return model.model_copy(update={"lags": lags})

    return change


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_lag_change(vlans=[]), "PLAT-011 "),
        (
            lambda m: m.model_copy(update={"evpn": None}),
            "PLAT-010 ",
        ),
    ],
    ids=["trunk-without-vlans", "segment-without-evpn"],
)
def test_nxos_refuses_host_port_channels_it_cannot_print(
    change: Callable[[DeviceModel], DeviceModel], named: str
) -> None:
    # An empty allowed-VLAN list is an incomplete command; an Ethernet
    # segment without the BGP EVPN control plane is never advertised.
    with pytest.raises(RenderError, match=named):
        render_device(change(NXOS_ESI[0].model))


@pytest.mark.parametrize("r", NXOS_ESI, ids=NXOS_ESI_IDS)
def test_nxos_switchport_mtu_is_one_nexus_accepts(r: Rendered) -> None:
    # Nexus 9000 takes a Layer 2 port MTU of 1500 or the system jumbo MTU only ("ERROR: MTU can
    # only be default or system jumbo MTU", Cisco TAC 118994); none is printed, so 9216.
    for lag in r.model.lags:
        assert lag.mtu in (1500, 9216), lag.name


# --- VRF-lite handoff on the EOS border leaves -----------------------------------------------


@dataclass
class VrfSessions:
    sessions: dict[str, Neighbor]
    descriptions: dict[str, str]
    originate: set[str]  # addresses sent a default route
    families: dict[str, list[str]]  # address family -> its lines


def eos_vrf_sessions(r: Rendered, vrf: str) -> VrfSessions:
    """The sessions inside `vrf NAME` under router bgp, and that VRF's address families."""
    blocks = [c for c in _router_bgp(r).children if c.text == f"   vrf {vrf}"]
    assert len(blocks) == 1, f"{vrf}: {len(blocks)} vrf blocks"  # merged with the EVPN one
    found = VrfSessions({}, {}, set(), {})
    for line in _children(blocks[0], r"^      neighbor "):
        address, rest = line.split()[1], " ".join(line.split()[2:])
        n = found.sessions.setdefault(address, Neighbor())
        if m := re.fullmatch(r"remote-as (\d+)", rest):
            n.remote_as = m[1]
        elif m := re.fullmatch(r"description (.+)", rest):
            found.descriptions[address] = m[1]
        elif rest == "bfd":
            n.bfd = True
        elif m := re.fullmatch(r"route-map (\S+) (in|out)", rest):
            if m[2] == "in":
                n.route_map_in = m[1]
            else:
                n.route_map_out = m[1]
        elif m := re.fullmatch(r"maximum-routes (\d+ warning-limit \d+ percent)", rest):
            n.prefix_limit = m[1]
        elif rest == "default-originate always":
            found.originate.add(address)
    for af in blocks[0].children:
        if m := re.fullmatch(r"      address-family (ipv4|ipv6)", af.text):
            found.families[m[1]] = [c.text.strip() for c in af.children]
            for line in found.families[m[1]]:
                if a := re.fullmatch(r"neighbor (\S+) activate", line):
                    n = found.sessions.setdefault(a[1], Neighbor())
                    n.activated_in += (m[1],)
    return found


EOS_HANDOFF = [r for r in EOS if any(n.vrf for n in r.model.bgp.neighbors)]


def test_the_example_hands_off_vrfs_from_eos_border_leaves() -> None:
    assert EOS_HANDOFF  # the handoff tests below are vacuous without one


@pytest.mark.parametrize("r", EOS_HANDOFF, ids=_ids(EOS_HANDOFF))
def test_eos_handoff_sessions_sit_in_their_vrf(r: Rendered) -> None:
    vrfs = sorted({n.vrf for n in r.model.bgp.neighbors if n.vrf is not None})
    top_descriptions = _children(_router_bgp(r), r"^   neighbor \S+ description ")
    for vrf in vrfs:
        found = eos_vrf_sessions(r, vrf)
        intended = [n for n in r.model.bgp.neighbors if n.vrf == vrf]
        assert sorted(found.sessions) == sorted(n.address for n in intended), vrf
        for n in intended:
            where = f"{vrf} {n.address}"
            s = found.sessions[n.address]
            assert s.remote_as == str(n.remote_as), where
            assert found.descriptions[n.address] == n.description, where
            assert s.bfd, where
            assert (s.route_map_in, s.route_map_out) == (n.route_map_in, n.route_map_out), where
            limit = f"{n.max_prefix} warning-limit {n.max_prefix_warning_pct} percent"
            assert s.prefix_limit == limit, where
            # `no bgp default ipv4-unicast`: activated in the VRF's family, or it stays idle.
            assert s.activated_in == (n.afi,), where
            # The leaf takes the default route; only the border router originates one.
            assert (n.address in found.originate) == n.default_originate, where
            assert not n.default_originate, where
            # Not also printed in the default VRF, where the same address is an underlay peer.
            assert f"neighbor {n.address} description {n.description}" not in top_descriptions
        for afi, lines in found.families.items():
            for direction in ("in", "out"):
                wanted = f"bgp missing-policy direction {direction} action deny"
                assert wanted in lines, f"{vrf} {afi}"


@pytest.mark.parametrize("r", EOS_HANDOFF, ids=_ids(EOS_HANDOFF))
def test_eos_handoff_subinterfaces_are_in_their_vrf(r: Rendered) -> None:
    subs = [i for i in r.model.interfaces if i.kind == "subinterface" and i.vrf is not None]
    assert subs
    sessions = [n for n in r.model.bgp.neighbors if n.vrf is not None]
    for sub in subs:
        assert sub.ipv4 is not None and sub.parent is not None
        lines = _children(_block(r, f"interface {sub.name}"), r".")
        assert f"encapsulation dot1q vlan {sub.vlan}" in lines, sub.name
        assert f"mtu {sub.mtu}" in lines, sub.name
        # EOS takes the VRF before the address it holds.
        assert lines.index(f"vrf {sub.vrf}") < lines.index(f"ip address {sub.ipv4.cidr}")
        assert "no switchport" in _children(_block(r, f"interface {sub.parent}"), r".")
    for n in sessions:
        (sub,) = [i for i in subs if i.name == n.local_interface]
        local = sub.ipv6 if n.afi == "ipv6" else sub.ipv4
        assert sub.vrf == n.vrf and local is not None, n.address
        assert ipaddress.ip_address(n.address) in ipaddress.ip_interface(local.cidr).network


def test_eos_default_originate_is_sent_from_the_vrf() -> None:
    """The example's border leaves receive the default route; a session told to send one
    prints `default-originate always` (unconditional, like XR's) in its VRF block only."""
    r = EOS_HANDOFF[0]
    first = next(n for n in r.model.bgp.neighbors if n.vrf is not None)
    neighbors = [
        n.model_copy(update={"default_originate": True}) if n is first else n
        for n in r.model.bgp.neighbors
    ]
    changed = _eos(
        r.model.model_copy(update={"bgp": r.model.bgp.model_copy(update={"neighbors": neighbors})})
    )
    assert first.vrf is not None
    assert eos_vrf_sessions(changed, first.vrf).originate == {first.address}
    assert len(changed.parse.find_objects(r"default-originate")) == 1


def test_eos_session_in_a_vrf_without_evpn_fails_the_render() -> None:
    """VRF sessions are printed inside the EVPN `vrf` block; one in a VRF the device has no
    such block for would vanish, so the render stops instead."""
    model = EOS_HANDOFF[0].model
    neighbors = [
        n.model_copy(update={"vrf": "nowhere"}) if n.vrf is not None else n
        for n in model.bgp.neighbors
    ]
    broken = model.model_copy(update={"bgp": model.bgp.model_copy(update={"neighbors": neighbors})})
    with pytest.raises(RenderError, match="PLAT-003 "):
        render_device(broken)


def _assert_as_path_lists_exact(
    r: Rendered, line: str, compile_regex: Callable[[str], re.Pattern[str]]
) -> None:
    """Each printed as-path list matches exactly its ASN ranges: probed at and around each
    range's edges inside a path between two public ASNs that no list holds (not the
    transit-free networks of AS-TRANSIT-FREE, which would match every probe)."""
    printed: dict[str, list[re.Pattern[str]]] = {}
    for obj in r.parse.find_objects(line):
        name, regex = obj.text.split()[3], obj.text.split()[5]
        printed.setdefault(name, []).append(compile_regex(regex))
    assert set(printed) == {al.name for al in r.model.as_path_lists}
    for al in r.model.as_path_lists:
        ranges = [(e.first, e.last) for e in al.entries]
        probes = {a for first, last in ranges for a in (first - 1, first, last, last + 1)}
        for asn in sorted(a for a in probes if 0 <= a <= 4294967295):
            path = f"13335 {asn} 15169"
            matched = any(p.search(path) for p in printed[al.name])
            assert matched == any(f <= asn <= t for f, t in ranges), (al.name, asn)
