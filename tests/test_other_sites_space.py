"""The other sites of our ASN, reached through the Internet: a site's Internet sessions accept
what the other sites announce and it does not, although the routes' AS paths hold our ASN
(allowas-in), and its own-space filters leave that space out where one of our aggregates holds
it (docs/architecture.md#site-aggregates, docs/standards.md#edge-import).

The example: aus1 announces 198.51.100.0/24, 2001:db8:4000::/36 and 2001:db8:4000::/40; mel1
announces 2001:db8:4000::/36 and 2001:db8:4100::/40."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from conftest import borders_to, lint_repo
from meetme.generators.model import BgpNeighbor, DeviceModel
from meetme.generators.resolve.edge_sessions import SiteEdge, resolve_edge, with_other_sites
from meetme.validators.policy_eval import Route, evaluate_import

from meetme.intent.loader import load_intent
from meetme.pipeline import device_models
from meetme.twin.frr import render_frr

ORG_ASN = 64500


def _transit(model: DeviceModel, afi: str) -> BgpNeighbor:
    return next(n for n in model.bgp.neighbors if n.kind == "transit" and n.afi == afi)


def _accepted(model: DeviceModel, prefix: str) -> bool:
    """Whether the device's first transit of the prefix's family takes the prefix from the
    Internet, originated by our ASN behind the transit."""
    neighbor = _transit(model, "ipv6" if ":" in prefix else "ipv4")
    route = Route(prefix, as_path=(neighbor.remote_as, ORG_ASN))
    return evaluate_import(model, neighbor, route).accepted


def _edges(example: Path, *sites: str) -> dict[str, SiteEdge]:
    intent = load_intent(example / "intent").intent
    return {name: resolve_edge(intent, name, intent.sites[name]) for name in sites}


def test_each_site_accepts_what_only_the_other_site_announces(example: Path) -> None:
    edges = _edges(example, "aus1", "mel1")
    with_other_sites(edges)
    internet = {
        name: {(s.party, s.afi): (s.other_sites, s.allowas_in) for s in edge.sessions if s.internet}
        for name, edge in edges.items()
    }
    aus1, mel1 = internet["aus1"], internet["mel1"]
    # mel1 announces no IPv4: aus1's IPv4 sessions keep BGP's loop check
    assert {v for (_, afi), v in aus1.items() if afi == "ipv4"} == {((), 0)}
    assert aus1[("transit-a", "ipv6")] == (("2001:db8:4100::/40",), 1)
    assert aus1[("ix-syd/rs1", "ipv6")] == (("2001:db8:4100::/40",), 1)
    # the PNI's allow-list (2001:db8:c000::/36) admits none of mel1's space: no allowas-in
    assert aus1[("pni-cdn", "ipv6")] == (("2001:db8:4100::/40",), 0)
    # aus1 claims the organisation's IPv4 /24, which mel1 does not announce
    assert {v for (_, afi), v in mel1.items() if afi == "ipv4"} == {(("198.51.100.0/24",), 1)}
    assert {v for (_, afi), v in mel1.items() if afi == "ipv6"} == {(("2001:db8:4000::/40",), 1)}
    # a cloud's sessions carry the VRF's own business, never another site's Internet space
    clouds = [s for edge in edges.values() for s in edge.sessions if not s.internet]
    assert clouds and all(s.other_sites == () and s.allowas_in == 0 for s in clouds)


def test_an_allow_list_holding_the_other_sites_space_takes_it(example: Path) -> None:
    """Just inside: a PNI whose allow-list holds mel1's /40 gets allowas-in; just outside,
    one whose allow-list is the /40's neighbour does not."""
    for allowed, expected in (("2001:db8:4100::/40", 1), ("2001:db8:4200::/40", 0)):
        edges = _edges(example, "aus1", "mel1")
        edges["aus1"].sessions = [
            dataclasses.replace(s, import_prefixes=(allowed,)) if s.party == "pni-cdn" else s
            for s in edges["aus1"].sessions
        ]
        with_other_sites(edges)
        pnis = [s for s in edges["aus1"].sessions if s.party == "pni-cdn" and s.afi == "ipv6"]
        assert [s.allowas_in for s in pnis] == [expected, expected], allowed  # both borders


def test_a_site_alone_keeps_bgps_loop_check(example: Path) -> None:
    edges = _edges(example, "aus1")
    with_other_sites(edges)
    assert all(s.other_sites == () and s.allowas_in == 0 for s in edges["aus1"].sessions)


def test_sister_sites_announcing_the_same_aggregates_keep_the_loop_check(example: Path) -> None:
    edges = _edges(example, "aus1", "mel1")
    aus1 = next(s for s in edges["aus1"].sessions if s.internet).export_prefixes
    edges["mel1"].sessions = [
        dataclasses.replace(s, export_prefixes=aus1) if s.internet else s
        for s in edges["mel1"].sessions
    ]
    with_other_sites(edges)
    assert all(s.allowas_in == 0 for edge in edges.values() for s in edge.sessions)


def test_a_site_without_an_internet_edge_announces_nothing_to_reach(example: Path) -> None:
    edges = _edges(example, "aus1", "mel1")
    edges["mel1"] = SiteEdge(
        edges["mel1"].ports, [s for s in edges["mel1"].sessions if not s.internet]
    )
    with_other_sites(edges)
    assert all(s.allowas_in == 0 for s in edges["aus1"].sessions)


def test_the_other_sites_space_passes_the_import_and_ours_does_not(example: Path) -> None:
    models = device_models(lint_repo(example))
    aus1, mel1 = models["aus1-br1"], models["mel1-br1"]
    assert _transit(aus1, "ipv6").allowas_in == 1
    assert _transit(mel1, "ipv4").allowas_in == 1
    # mel1's /40 and its more specifics down to the longest the Internet carries (/48)
    assert _accepted(aus1, "2001:db8:4100::/40")
    assert _accepted(aus1, "2001:db8:41ff::/48")
    assert not _accepted(aus1, "2001:db8:41ff:8000::/49")  # too long for the global table
    # our own: the organisation's /36, our /40, and every prefix that spans both sites
    for ours in (
        "2001:db8:4000::/36",
        "2001:db8:4000::/37",
        "2001:db8:4000::/39",
        "2001:db8:4000::/40",
        "2001:db8:40ff::/48",
        "2001:db8:4200::/39",
        "2001:db8:4800::/37",
        "2001:db8:4fff::/48",
    ):
        assert not _accepted(aus1, ours), ours
    # the other way round, in both families: aus1's IPv4 /24 is not mel1's space at all
    assert _accepted(mel1, "198.51.100.0/24")
    assert _accepted(mel1, "2001:db8:4000::/40")
    assert not _accepted(mel1, "2001:db8:4100::/40")
    assert not _accepted(mel1, "2001:db8:4000::/36")
    assert not _accepted(mel1, "2001:db8:4000::/38")


def test_the_twins_border_accepts_our_asn_once_from_its_transits(example: Path) -> None:
    models = device_models(lint_repo(example))
    text = render_frr(models["aus1-br1"])
    transits = [n for n in models["aus1-br1"].bgp.neighbors if n.kind == "transit"]
    assert [n.allowas_in for n in transits] == [0, 0, 1, 1]  # IPv4 first: mel1 has none
    for n in transits:
        if n.allowas_in:
            assert f"  neighbor {n.address} allowas-in 1\n" in text
    # an IX route server's or a cloud's session keeps the loop check where the model says so
    for n in models["aus1-br1"].bgp.neighbors:
        if n.allowas_in == 0:
            assert f"neighbor {n.address} allowas-in" not in text


def test_an_nvue_borders_source_filter_lets_the_other_sites_hosts_in(example: Path) -> None:
    """NVUE has no uRPF: its ingress ACL drops sources in our own space. Packets from mel1's
    hosts reach aus1 through the Internet, so mel1's /40 is no part of that space there."""
    borders_to(example, "nvidia_nvue", "SN5600", "swp{}")
    model = device_models(lint_repo(example))["aus1-br1"]
    (acl,) = [a for a in model.acls if a.name == "ACL-EDGE-INTERNET-IN-V6"]
    denied = [r.source for r in acl.rules if r.description == "our own address space"]
    assert denied == [
        "2001:db8:4000::/40",
        "2001:db8:4200::/39",
        "2001:db8:4400::/38",
        "2001:db8:4800::/37",
    ]
