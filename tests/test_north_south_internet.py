"""North-south, the Internet part: tenant VRFs get the default route leaked from the borders'
Internet table, their public prefixes go the other way, the border pair runs iBGP, IPv6 rides
the handoff, and the RPKI caches have a route (docs/architecture.md#north-south,
docs/standards.md#flow-003, #flow-005, #handoff-006, #handoff-010, #handoff-011)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ciscoconfparse2 import CiscoConfParse
from conftest import (
    findings_of,
    line_of,
    lint_repo,
    no_transit_sends_a_default,
    private_vrfs_online,
    replace_in,
)
from meetme.validators.policy_eval import Route, evaluate
from typer.testing import CliRunner

from meetme.cli import app
from meetme.pipeline import device_models

HANDOFF = "intent/aus1/attachments.yaml"
PEERING = "intent/aus1/peering.yaml"
LINKS = "intent/aus1/links.yaml"
runner = CliRunner()


def _rendered(example: Path, device: str) -> CiscoConfParse:
    assert runner.invoke(app, ["render"]).exit_code == 0
    text = (example / f"rendered/aus1/{device}.cfg").read_text()
    return CiscoConfParse(text.splitlines(), syntax="ios")


def _children(parse: CiscoConfParse, parent: str) -> list[str]:
    (obj,) = parse.find_objects(parent)
    return [c.text.strip() for c in obj.all_children]


def test_the_example_is_clean_of_flow_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.rule.startswith("FLOW-")] == []


def test_each_border_leaks_exactly_the_default_route_into_every_internet_vrf(
    example: Path,
) -> None:
    private_vrfs_online(example)
    models = device_models(lint_repo(example))
    for border in ("aus1-br1", "aus1-br2"):
        model = models[border]
        vrfs = {v.name: v for v in model.vrfs}
        assert sorted(vrfs) == ["gpu-a", "gpu-a-mgmt", "storage"]
        for name, afis in (("gpu-a", ("ipv4", "ipv6")), ("storage", ("ipv4",))):
            for afi in afis:
                leak = vrfs[name].leak(afi)
                assert leak is not None and leak.import_from_default is not None
                default = "::/0" if afi == "ipv6" else "0.0.0.0/0"
                other = "2001:db8:9::/48" if afi == "ipv6" else "8.8.8.0/24"
                assert evaluate(model, leak.import_from_default, Route(default)).accepted
                # the tenant gets a way out, not the Internet table
                assert not evaluate(model, leak.import_from_default, Route(other)).accepted
    parse = _rendered(example, "aus1-br1")
    assert "import from default-vrf route-policy RM-LEAK-GPU-A-FROM-DEFAULT-V4" in _children(
        parse, r"^vrf gpu-a$"
    )
    assert "export to default-vrf route-policy RM-LEAK-GPU-A-TO-DEFAULT-V6" in _children(
        parse, r"^vrf gpu-a$"
    )
    # storage has no public space: nothing of it reaches the Internet table
    assert not [c for c in _children(parse, r"^vrf storage$") if c.startswith("export")]


def test_public_prefixes_reach_the_internet_table_but_only_our_aggregates_leave(
    example: Path,
) -> None:
    models = device_models(lint_repo(example))
    br1 = models["aus1-br1"]
    (gpu,) = [v for v in br1.vrfs if v.name == "gpu-a"]
    leak = gpu.leak("ipv4")
    assert leak is not None and leak.export_to_default is not None
    assert evaluate(br1, leak.export_to_default, Route("198.51.100.128/26")).accepted
    # a private subnet of the same VRF stays inside
    assert not evaluate(br1, leak.export_to_default, Route("10.50.1.0/24")).accepted
    transit = next(n for n in br1.bgp.neighbors if n.kind == "transit" and n.afi == "ipv4")
    assert evaluate(br1, transit.route_map_out, Route("198.51.100.0/24")).accepted
    assert not evaluate(br1, transit.route_map_out, Route("198.51.100.128/26")).accepted
    # the border accepts the public prefix from the border leaves
    handoff = next(n for n in br1.bgp.in_vrf("gpu-a") if n.afi == "ipv4")
    assert evaluate(br1, handoff.route_map_in, Route("198.51.100.128/26")).accepted


def test_the_borders_run_ibgp_with_next_hop_self_over_their_own_links(example: Path) -> None:
    models = device_models(lint_repo(example))
    br1 = models["aus1-br1"]
    pair = [n for n in br1.bgp.neighbors if n.kind == "border_ibgp"]
    assert sorted((n.afi, n.address) for n in pair) == [
        ("ipv4", "10.1.1.1"),
        ("ipv4", "10.1.1.3"),
        ("ipv6", "2001:db8:0:1000::101"),
        ("ipv6", "2001:db8:0:1000::103"),
    ]
    assert all(n.remote_as == br1.bgp.asn and n.next_hop_self for n in pair)
    # the pair links carry no eBGP underlay session
    assert not [
        n for n in br1.bgp.neighbors if n.kind == "underlay" and n.peer_device == "aus1-br2"
    ]
    parse = _rendered(example, "aus1-br1")
    (bgp,) = parse.find_objects(r"^router bgp ")
    (nbr,) = [c for c in bgp.children if c.text.strip() == "neighbor 10.1.1.1"]
    lines = [c.text.strip() for c in nbr.all_children]
    assert "remote-as 64500" in lines and "next-hop-self" in lines


def test_ipv6_rides_the_handoff_where_the_vrf_routes_ipv6(example: Path) -> None:
    models = device_models(lint_repo(example))
    bl1 = models["aus1-bl1"]
    v6 = sorted(n.address for n in bl1.bgp.in_vrf("gpu-a") if n.afi == "ipv6")
    assert len(v6) == 4  # two links to each border
    # storage routes IPv4 only: no IPv6 session
    assert not [n for n in bl1.bgp.in_vrf("storage") if n.afi == "ipv6"]
    (sub,) = [i for i in models["aus1-br1"].interfaces if i.name == "HundredGigE0/0/0/8.3101"]
    assert sub.ipv6 is not None and sub.ipv6.cidr == "2001:db8:0:1000::1501/127"
    leaf_in = next(n for n in bl1.bgp.in_vrf("gpu-a") if n.afi == "ipv6").route_map_in
    assert evaluate(bl1, leaf_in, Route("::/0")).accepted
    assert not evaluate(bl1, leaf_in, Route("2001:db8:9::/48")).accepted


def test_a_vrf_without_internet_accepts_nothing_from_the_border(example: Path) -> None:
    private_vrfs_online(example)
    replace_in(
        example / HANDOFF,
        "storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: default,",
        "storage: {vlan: 3110, export_north: [10.60.0.0/16],",
    )
    models = device_models(lint_repo(example))
    bl1 = models["aus1-bl1"]
    leaf_in = next(n for n in bl1.bgp.in_vrf("storage")).route_map_in
    assert not evaluate(bl1, leaf_in, Route("0.0.0.0/0")).accepted
    br1 = models["aus1-br1"]
    (storage,) = [v for v in br1.vrfs if v.name == "storage"]
    assert storage.leaks == ()


def test_variant_no_transit_sends_a_default_is_flow003_per_border(example: Path) -> None:
    """A tenant VRF with Internet access on a border pair whose transits send no default."""
    private_vrfs_online(example)
    no_transit_sends_a_default(example)
    line = line_of(example / HANDOFF, "storage: {vlan: 3110")
    found = [f for f in findings_of(lint_repo(example), "FLOW-003") if "VRF storage" in f]
    assert found == [
        f"{HANDOFF}:{line}: VRF storage, {border}: no session of {border}'s Internet table "
        f"(nor of its pair's, over iBGP) admits a default route (0.0.0.0/0), so {border} has "
        f"none to give the VRF and the route stops at {border}: set `accept_default: true` on "
        "a transit that sends one, or set `internet: none`"
        for border in ("aus1-br1", "aus1-br2")
    ]
    assert runner.invoke(app, ["lint"]).exit_code == 1


def test_flow003_names_the_clause_that_drops_an_accepted_default(example: Path) -> None:
    """Both transits accept a default but are written with private ASNs (EDGE-010): their
    default routes die at the private-ASN clause, so `accept_default: true`, already set, is
    not the remedy FLOW-003 gives; it names that clause."""
    replace_in(example / PEERING, "asn: 64501\n", "asn: 64521\n")
    replace_in(example / PEERING, "asn: 64502\n", "asn: 64522\n")
    line = line_of(example / HANDOFF, "gpu-a:   {vlan: 3101")
    found = [f for f in findings_of(lint_repo(example), "FLOW-003") if "(0.0.0.0/0)" in f]
    assert found == [
        f"{HANDOFF}:{line}: VRF gpu-a, {border}: no session of {border}'s Internet table "
        f"(nor of its pair's, over iBGP) admits a default route (0.0.0.0/0), so {border} has "
        f"none to give the VRF and the route stops at {border}: the session to {peer} (transit "
        f"transit-a {circuit}) accepts a default route, but its import policy "
        "RM-TRANSIT-TRANSIT-A-IN-V4 drops it at clause 70, private ASN in the path (and 3 more "
        "sessions); mend what that clause refuses, or set `internet: none`"
        for border, peer, circuit in (
            ("aus1-br1", "192.0.2.0", "XC-TA-1"),
            ("aus1-br2", "192.0.2.2", "XC-TA-2"),
        )
    ]


def _one_transit_on_br1(example: Path) -> None:
    """transit-b sends no default; transit-a (which does) reaches br1 only."""
    replace_in(example / PEERING, "asn: 64502\n          accept_default: true", "asn: 64502")
    replace_in(
        example / PEERING,
        "            - {circuit: XC-TA-2, ipv4: 192.0.2.3/31, peer_ipv4: 192.0.2.2, "
        'ipv6: "2001:db8:a::3/127", peer_ipv6: "2001:db8:a::2"}\n',
        "",
    )


def test_a_border_without_a_default_of_its_own_gets_it_over_the_pair(example: Path) -> None:
    _one_transit_on_br1(example)
    result = lint_repo(example)
    assert findings_of(result, "FLOW-003") == []


def test_without_the_pair_links_the_border_without_transit_stops_the_default(
    example: Path,
) -> None:
    private_vrfs_online(example)
    _one_transit_on_br1(example)
    text = (example / LINKS).read_text()
    (example / LINKS).write_text(text[: text.index("    # The border pair's own links")])
    found = findings_of(lint_repo(example), "FLOW-003")
    assert found and all("aus1-br2: no session of aus1-br2's Internet table" in f for f in found)
    assert len(found) == 4  # gpu-a v4 and v6, gpu-a-mgmt, storage


def test_the_leak_policy_that_stops_the_default_is_named(example: Path) -> None:
    """A broken leak policy (the model edited as a template bug would) is the hop reported."""
    private_vrfs_online(example)
    from meetme.generators.model import RouteMapEntry
    from meetme.validators.rules.flow import flow_findings

    result = lint_repo(example)
    models = device_models(result)
    br1 = models["aus1-br1"]
    maps = tuple(
        rm.model_copy(
            update={"entries": (RouteMapEntry(seq=10, action="deny", description="all"),)}
        )
        if rm.name == "RM-LEAK-STORAGE-FROM-DEFAULT-V4"
        else rm
        for rm in br1.route_maps
    )
    models["aus1-br1"] = br1.model_copy(update={"route_maps": maps})
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-003"
    ]
    assert found == [
        "VRF storage, aus1-br1: the leak policy RM-LEAK-STORAGE-FROM-DEFAULT-V4 denies the "
        "default route (clause 10, all), so it stops at aus1-br1"
    ]


@pytest.mark.parametrize(
    ("address", "reachable"),
    [("10.9.0.254", True), ("10.9.1.1", False), ("10.8.255.255", False)],
)
def test_an_rpki_cache_needs_a_route_flow005(example: Path, address: str, reachable: bool) -> None:
    replace_in(example / PEERING, "address: 10.9.0.12", f"address: {address}")
    line = line_of(example / PEERING, f"address: {address}")
    found = findings_of(lint_repo(example), "FLOW-005")
    if reachable:
        assert found == []
        return
    assert [f.split(": ", 2)[:2] for f in found] == [
        [f"{PEERING}:{line}", f"default VRF, {border}"] for border in ("aus1-br1", "aus1-br2")
    ]
    assert all(f"RPKI cache {address} has no route on" in f for f in found)


def test_yesterdays_caches_without_the_services_lan_fail_flow005(example: Path) -> None:
    text = (example / PEERING).read_text()
    start = text.index("        services:")
    end = text.index("\n", text.index("aus1-br2: {interface: HundredGigE0/0/0/26")) + 1
    (example / PEERING).write_text(text[:start] + text[end:])
    assert len(findings_of(lint_repo(example), "FLOW-005")) == 4  # 2 caches x 2 borders
    assert runner.invoke(app, ["lint"]).exit_code == 1


def test_only_devices_with_an_internet_session_validate(example: Path) -> None:
    models = device_models(lint_repo(example))
    assert models["aus1-br1"].bgp.rpki_caches
    # bl1 has only cloud sessions: private space no ROA covers, and no route to the caches
    assert models["aus1-bl1"].bgp.rpki_caches == ()


def test_public_outside_our_aggregates_is_handoff010(example: Path) -> None:
    replace_in(example / HANDOFF, "public: [198.51.100.128/26,", "public: [192.0.2.128/26,")
    replace_in(
        example / "intent/aus1/tenants.yaml",
        "gateway_v4: 198.51.100.129/26",
        "gateway_v4: 192.0.2.129/26",
    )
    line = line_of(example / HANDOFF, "gpu-a:   {vlan: 3101")
    assert findings_of(lint_repo(example), "HANDOFF-010") == [
        f"{HANDOFF}:{line}: public 192.0.2.128/26 of handoff VRF gpu-a lies in none of our "
        "aggregates (198.51.100.0/24, 2001:db8:4000::/36): the Internet would never route it "
        "to us; use space inside an aggregate or add the aggregate"
    ]


def test_a_mistyped_public_prefix_is_reported_once_by_handoff010(example: Path) -> None:
    """public 198.51.101.128/26 for 198.51.100.128/26 (one digit): outside our aggregates,
    HANDOFF-010's. HANDOFF-007 reported it again at the same line, as an export matching none
    of the VRF's gateway subnets; space that is not ours is the cause, named once."""
    replace_in(example / HANDOFF, "public: [198.51.100.128/26,", "public: [198.51.101.128/26,")
    result = lint_repo(example)
    line = line_of(example / HANDOFF, "gpu-a:   {vlan: 3101")
    assert [(f.rule, f.location.line) for f in result.errors] == [("HANDOFF-010", line)]


def test_public_without_internet_is_handoff011(example: Path) -> None:
    replace_in(
        example / HANDOFF,
        "internet: default, public: [198.51.100.128/26",
        "public: [198.51.100.128/26",
    )
    assert [f.split(": ", 1)[1] for f in findings_of(lint_repo(example), "HANDOFF-011")] == [
        "handoff VRF gpu-a has public prefixes but `internet: none`: they would stop at the "
        "border; set `internet: default` or remove `public`"
    ]


def test_ipv6_north_over_ipv4_only_links_is_handoff006(example: Path) -> None:
    replace_in(example / "intent/aus1/site.yaml", "      p2p_v6: 2001:db8:0:1000::/52\n", "")
    found = findings_of(lint_repo(example), "HANDOFF-006")
    assert len(found) == 1  # the IPv6 public prefix of gpu-a
    assert all("is IPv6, but the handoff links" in f for f in found)


def test_an_export_policy_that_lets_more_out_is_flow004(example: Path) -> None:
    """The transit export edited to pass everything but learned routes, as a template or policy
    bug would: the handoff's default, the loopback and the tenant's public /26 would leak."""
    from meetme.generators.model import RouteMapEntry
    from meetme.validators.rules.flow import flow_findings

    result = lint_repo(example)
    models = device_models(result)
    br1 = models["aus1-br1"]
    name = "RM-TRANSIT-TRANSIT-A-OUT-V4"
    maps = tuple(
        rm.model_copy(
            update={
                "entries": (
                    rm.entries[0],
                    RouteMapEntry(seq=20, action="permit", description="everything"),
                )
            }
        )
        if rm.name == name
        else rm
        for rm in br1.route_maps
    )
    models["aus1-br1"] = br1.model_copy(update={"route_maps": maps})
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-004" and "192.0.2.0" in f.message
    ]
    leaked = sorted(m.split(" would also export ")[1].split(",")[0] for m in found)
    assert leaked == ["0.0.0.0/0", "10.0.0.1/32", "198.51.100.128/26"]
    assert all(f"export policy {name} passes it (clause 20, everything)" in m for m in found)
    # the untouched example exports exactly what is agreed
    assert [f for f in result.findings if f.rule == "FLOW-004"] == []


def test_nvue_cloud_ports_drop_our_own_space_as_a_source(example: Path) -> None:
    """NVUE has no uRPF: an ingress ACL on every addressed external port instead."""
    import yaml

    assert runner.invoke(app, ["render"]).exit_code == 0
    tree = yaml.safe_load((example / "rendered/aus1/aus1-bl5.yaml").read_text())[0]["set"]
    acl = tree["acl"]["ACL-EDGE-CLOUD-IN-V4"]
    rules = [
        (r.get("match", {}).get("ip", {}).get("source-ip"), *r["action"])
        for r in acl["rule"].values()
    ]
    assert rules == [
        ("10.50.0.0/16", "deny"),
        ("198.51.100.0/24", "deny"),
        (None, "permit"),
    ]
    external = sorted(n for n, i in tree["interface"].items() if "acl" in i)
    assert external == ["swp10.303", "swp9.301"]  # bl5's two Google attachments
    # fabric ports carry none: the ACL is for what comes from outside
    assert all("acl" not in i for n, i in tree["interface"].items() if n.startswith("swp6"))


def test_an_internet_port_without_urpf_also_drops_bogon_sources() -> None:
    from meetme.generators.build.edge_device import _acl

    prod = _acl("ACL-EDGE-INTERNET-IN-V4", "ipv4", ["198.51.100.0/24"], internet=True, lab=False)
    denied = [r.source for r in prod.rules if r.action == "deny"]
    assert denied[0] == "198.51.100.0/24" and "10.0.0.0/8" in denied and "240.0.0.0/4" in denied
    assert prod.rules[-1].action == "permit" and prod.rules[-1].source is None
    # a lab keeps the documentation ranges usable (they stand in for real space)
    lab = _acl("ACL-EDGE-INTERNET-IN-V4", "ipv4", [], internet=True, lab=True)
    assert "203.0.113.0/24" not in [r.source for r in lab.rules]
    cloud = _acl("ACL-EDGE-CLOUD-IN-V4", "ipv4", ["10.50.0.0/16"], internet=False, lab=False)
    assert [r.source for r in cloud.rules] == ["10.50.0.0/16", None]


def test_a_services_port_on_a_port_already_cabled_is_phy013(example: Path) -> None:
    """HundredGigE0/0/0/24 and FourHundredGigE0/0/0/24 are one IOS-XR port (the name carries
    the optic's speed): the services LAN cannot share the border pair's link."""
    replace_in(
        example / PEERING,
        "aus1-br1: {interface: HundredGigE0/0/0/26",
        "aus1-br1: {interface: HundredGigE0/0/0/24",
    )
    line = line_of(example / PEERING, "aus1-br1: {interface: HundredGigE0/0/0/24")
    found = findings_of(lint_repo(example), "PHY-013")
    assert [f.split(": ", 2)[:2] for f in found] == [[f"{PEERING}:{line}", "aus1-br1"]]
    assert "link #0 to aus1-br2" in found[0]


def test_a_services_port_past_the_last_port_is_hw001(example: Path) -> None:
    replace_in(
        example / PEERING,
        "aus1-br2: {interface: HundredGigE0/0/0/26",
        "aus1-br2: {interface: HundredGigE0/0/0/32",
    )
    found = findings_of(lint_repo(example), "HW-001")
    line = line_of(example / PEERING, "HundredGigE0/0/0/32")
    assert len(found) == 1 and found[0].startswith(f"{PEERING}:{line}:")
    assert "HundredGigE0/0/0/32" in found[0]


def test_a_default_the_transits_send_only_in_ipv4_names_the_missing_ipv6_sessions(
    example: Path,
) -> None:
    """Both transits send a default (`accept_default: true`) but over IPv4 only: the advice
    was to set `accept_default: true`, already set; it names the transits and their missing
    IPv6 sessions instead. IPv4, which they do carry, stays clean."""
    peering = example / "intent/aus1/peering.yaml"
    text = re.sub(
        r', ipv6: "2001:db8:[ab]::\d?/127", peer_ipv6: "2001:db8:[ab]::\d?"',
        "",
        peering.read_text(),
    )
    assert text.count("XC-T") == 4 and "2001:db8:a::" not in text and "2001:db8:b::" not in text
    peering.write_text(text)
    found = findings_of(lint_repo(example), "FLOW-003")
    assert found, "gpu-a promises an IPv6 default"
    assert all("(::/0)" not in f or "transit-a, transit-b send aus1-br" in f for f in found)
    assert all("0.0.0.0/0" not in f for f in found)
    first = next(f for f in found if "aus1-br1" in f)
    assert (
        "aus1-br1: transit-a, transit-b send aus1-br1 (or its pair, over iBGP) a default route "
        "in IPv4 but have no IPv6 session, so no ::/0 reaches aus1-br1's Internet table and the "
        "route stops at aus1-br1: give them an IPv6 session (`ipv6` and `peer_ipv6` on "
        "their circuits), or set `internet: none`"
    ) in first


def test_one_transit_without_its_ipv6_session_is_named_in_the_singular(example: Path) -> None:
    """transit-a alone sends a default (transit-b is told to send none) and has no IPv6
    session: the message names it, in the singular."""
    peering = example / "intent/aus1/peering.yaml"
    text = re.sub(
        r', ipv6: "2001:db8:a::\d?/127", peer_ipv6: "2001:db8:a::\d?"', "", peering.read_text()
    )
    peering.write_text(text.replace("asn: 64502\n          accept_default: true", "asn: 64502"))
    first = next(f for f in findings_of(lint_repo(example), "FLOW-003") if "::/0" in f)
    assert (
        "aus1-br1: transit-a sends aus1-br1 (or its pair, over iBGP) a default route in IPv4 "
        "but has no IPv6 session, so no ::/0 reaches aus1-br1's Internet table and the route "
        "stops at aus1-br1: give it an IPv6 session (`ipv6` and `peer_ipv6` on its circuits), "
        "or set `internet: none`"
    ) in first
