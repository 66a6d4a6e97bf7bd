"""The twin's layout and refusals, without root: which namespaces, links and parties the
example becomes, what each party announces, and the one-line refusals of the commands."""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

import pytest
from conftest import gcp_dual_stack
from meetme.generators.model import PrefixListEntry
from typer.testing import CliRunner
from variants import eos_mlag_pair_with_one_aws_leaf

from meetme.cli import app
from meetme.pipeline import device_models, lint
from meetme.twin import names, runtime
from meetme.twin.parties import render_party
from meetme.twin.picture import svg
from meetme.twin.topology import Twin, _admitted, plan
from meetme.twin.verify import Result, Verifier

# the names as meetme gives them without MEETME_TWIN_PREFIX (conftest.default_twin_prefix)
pytestmark = pytest.mark.usefixtures("default_twin_prefix")

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"


@cache
def example_twin() -> Twin:
    result = lint(EXAMPLE)
    return plan("aus1", device_models(result), result.fabrics["aus1"].edge.sessions)


def test_one_namespace_per_device_and_party_under_the_fixed_prefix() -> None:
    twin = example_twin()
    devices = [n for n in twin.nodes if n.kind == "device"]
    parties = sorted(n.name for n in twin.nodes if n.kind == "party")
    assert len(devices) == 18
    assert parties == [
        "aws-syd/private-1",
        "aws-syd/private-2",
        "aws-syd/transit-1",
        "aws-syd/transit-2",
        "er-syd/private",
        "gcp-ic/mel-ead1",
        "gcp-ic/mel-ead2",
        "gcp-ic/syd-ead1",
        "gcp-ic/syd-ead2",
        "ix-syd/content-a",
        "ix-syd/eyeball-b",
        "ix-syd/rs1",
        "ix-syd/rs2",
        "pni-cdn",
        "transit-a",
        "transit-b",
    ]
    assert twin.node("aus1-br1").namespace == "mm-aus1-br1"
    assert twin.node("transit-a").namespace == "mm-aus1-x-transit-a"
    assert all(ns.startswith("mm-aus1-") for ns in twin.namespaces)
    # 18 devices, 16 parties, the IX LAN, the services LAN and its host, a host per routed
    # tenant network (11), and 32 tenant VRFs (a namespace each)
    assert len(set(twin.namespaces)) == len(twin.namespaces) == 18 + 16 + 1 + 2 + 11 + 32
    assert twin.namespaces_of(twin.node("aus1-lf1")) == [
        "mm-aus1-lf1",
        "mm-aus1-lf1.gpu-a",
        "mm-aus1-lf1.gpu-a-mgmt",
        "mm-aus1-lf1.storage",
    ]


def test_every_fabric_link_is_one_veth_pair_and_the_ix_lan_one_bridge() -> None:
    twin = example_twin()
    pairs = [s for s in twin.segments if s.bridge_namespace is None]
    # 4 spines x 2 borders x 2 + 6 leaves x 4 spines + 6 border leaves x 2 borders x 2
    # fabric links, the border pair's 2 links, the transits' and PNI's circuits (3 parties x
    # 2 borders), the VRF-lite handoff (2 border leaves x 4 links x 3 VRFs) and the cloud
    # attachments (10)
    assert len(pairs) == 16 + 24 + 24 + 2 + 6 + 24 + 10
    pair = [s.key for s in pairs if s.key.startswith("aus1-br1:") and "aus1-br2:" in s.key]
    assert pair == [
        "aus1-br1:FourHundredGigE0/0/0/24--aus1-br2:FourHundredGigE0/0/0/24",
        "aus1-br1:FourHundredGigE0/0/0/25--aus1-br2:FourHundredGigE0/0/0/25",
    ]
    ix = [s for s in twin.segments if s.key.startswith("ix-")]
    assert [(s.key, s.bridge_namespace) for s in ix] == [("ix-syd:203.0.113.0/24", "mm-aus1-lan0")]
    assert sorted(e.node for e in ix[0].endpoints) == [
        "aus1-br1",
        "aus1-br2",
        "ix-syd/content-a",
        "ix-syd/eyeball-b",
        "ix-syd/rs1",
        "ix-syd/rs2",
    ]


def test_parties_announce_legitimate_and_hostile_routes_and_one_peer_floods() -> None:
    parties = {p.name: p for p in example_twin().party_plans}
    transit = parties["transit-a"]
    labels = {(a.prefix, a.label) for a in transit.announcements}
    assert ("1.1.1.0/24", "legitimate") in labels
    assert ("100.64.0.0/10", "bogon") in labels
    assert ("198.51.100.0/24", "own aggregate") in labels
    assert ("2001:db8:4000::/36", "own aggregate") in labels
    assert ("1.1.1.0/25", "too specific") in labels
    # transit-a agreed to send a default (accept_default): it does, and it is legitimate
    assert ("0.0.0.0/0", "agreed default") in labels
    assert ("0.0.0.0/0", "default route") not in labels
    # the PNI's legitimate route is its agreed allow-list
    pni = {(a.prefix, a.label) for a in parties["pni-cdn"].announcements}
    assert ("192.0.2.0/24", "legitimate") in pni
    assert ("0.0.0.0/0", "default route") in pni  # a PNI's default is hostile
    # every party sends half the address space, which no import may take for a route: the
    # transit that may send a default too, in both families
    assert ("128.0.0.0/1", "default in disguise") in labels
    assert ("128.0.0.0/1", "default in disguise") in pni
    assert {a.prefix for a in transit.announcements if a.label == "default in disguise"} == {
        "128.0.0.0/1",
        "8000::/1",
    }
    assert not next(a for a in transit.announcements if a.prefix == "8000::/1").must_accept
    # every peering party leaks a transit-free network's route, which peer-lock drops; a
    # route server passes it on behind its member, as it passes the member's own routes
    leaks = {
        name: [(a.prefix, a.path) for a in party.announcements if a.label == "route leak"]
        for name, party in parties.items()
    }
    assert leaks["pni-cdn"] == [("4.0.0.0/9", (3356,)), ("2001:1900::/32", (3356,))]
    assert leaks["ix-syd/rs1"] == [
        ("4.0.0.0/9", (15169, 3356)),
        ("2001:1900::/32", (15169, 3356)),
    ]
    assert leaks["transit-a"] == []  # a transit sends us transit-free networks' routes
    # every Internet party without an allow-list sends a path holding our ASN (64500): once
    # where the session keeps BGP's loop check (aus1's IPv4: mel1 announces no IPv4), twice
    # where it takes our ASN once for mel1's IPv6 /40 (allowas-in 1); the PNI's allow-list
    # would drop it before the loop check, so it sends none
    poisoned = {
        name: [(a.prefix, a.path) for a in party.announcements if a.label == "our ASN in the path"]
        for name, party in parties.items()
    }
    for name in ("transit-a", "transit-b", "ix-syd/rs1", "ix-syd/content-a"):
        assert poisoned[name] == [
            ("185.199.108.0/22", (64500,)),
            ("2606:50c0::/32", (64500, 64500)),
        ], name
    assert poisoned["pni-cdn"] == []
    assert not next(a for a in transit.announcements if a.prefix == "185.199.108.0/22").must_accept
    # each family's limit is flooded by its own IX peer: content-a's IPv4 (max_prefix_v4:
    # 1200), then eyeball-b, the next peer, its IPv6 (max_prefix_v6: 2500)
    flooding = [p for p in parties.values() if p.flood_afi]
    assert sorted((p.name, p.flood_afi, p.flood_count) for p in flooding) == [
        ("ix-syd/content-a", "ipv4", 1200 + 10),
        ("ix-syd/eyeball-b", "ipv6", 2500 + 10),
    ]
    config = example_twin().node("ix-syd/content-a").config
    assert "  network 20.4.185.0/24" in config  # the 1210th /24
    assert "  network 20.4.186.0/24" not in config
    assert "2a00:" not in config  # its IPv6 sessions carry only its own routes
    eyeball = example_twin().node("ix-syd/eyeball-b").config
    assert "  network 2a00:9cd::/32" in eyeball  # the 2510th /32
    assert "  network 2a00:9ce::/32" not in eyeball
    assert "  network 20.0.0.0/24" not in eyeball
    rs = example_twin().node("ix-syd/rs1").config
    assert "  neighbor 203.0.113.10 route-server-client" in rs


def test_every_session_toward_a_party_is_mirrored_on_its_speaker() -> None:
    parties = {p.name: p for p in example_twin().party_plans}
    transit = parties["transit-b"]
    assert sorted((s.device, s.their_address, s.our_address) for s in transit.sessions) == [
        ("aus1-br1", "192.0.2.8", "192.0.2.9"),
        ("aus1-br1", "2001:db8:b::", "2001:db8:b::1"),
        ("aus1-br2", "192.0.2.10", "192.0.2.11"),
        ("aus1-br2", "2001:db8:b::2", "2001:db8:b::3"),
    ]
    assert parties["ix-syd/content-a"].sessions[0].ttl_security  # GTSM on both ends
    assert transit.sessions[0].bfd is None  # no BFD without `up --bfd`
    assert not example_twin().node("transit-b").bfd


def test_with_bfd_each_party_runs_it_with_our_timers() -> None:
    result = lint(EXAMPLE)
    twin = plan("aus1", device_models(result), result.fabrics["aus1"].edge.sessions, bfd=True)
    transit = next(p for p in twin.party_plans if p.name == "transit-b")
    assert transit.sessions[0].bfd == (300, 300, 3)
    config = twin.node("transit-b").config  # intervals stretched like ours
    assert " profile TWIN-300-300-3\n  detect-multiplier 3\n  receive-interval 3000\n" in config
    assert " neighbor 192.0.2.9 bfd profile TWIN-300-300-3" in config
    assert twin.node("transit-b").bfd and twin.node("aus1-lf1").bfd
    assert not twin.node("ix-syd/rs1").bfd and " bfd" not in twin.node("ix-syd/rs1").config
    assert twin.digest != example_twin().digest  # switching BFD rebuilds the twin


def test_each_border_expects_the_public_prefixes_its_export_leaks_permit() -> None:
    twin = example_twin()
    expected = [("gpu-a", "198.51.100.128/26"), ("gpu-a", "2001:db8:4000:50::/64")]
    assert twin.public == {"aus1-br1": expected, "aus1-br2": expected}


def test_a_public_prefix_covering_its_subnet_expects_the_subnet_it_leaks(tmp_path: Path) -> None:
    """`public: [2001:db8:4000:50::/60]` covering the /64 gateway subnet lints clean (HANDOFF-007
    takes a covering prefix) and leaks the /64 through `/60 le 64`; nothing originates the /60,
    so the Internet table holds the /64 and the twin expects it, not the /60 as written."""
    shutil.copytree(EXAMPLE, tmp_path / "intent")
    path = tmp_path / "intent" / "aus1" / "attachments.yaml"
    text = path.read_text()
    assert '"2001:db8:4000:50::/64"]' in text
    path.write_text(text.replace('"2001:db8:4000:50::/64"]', '"2001:db8:4000:50::/60"]'))
    result = lint(tmp_path / "intent")
    assert not [f for f in result.findings if f.severity == "error"]
    twin = plan("aus1", device_models(result), result.fabrics["aus1"].edge.sessions)
    expected = [("gpu-a", "198.51.100.128/26"), ("gpu-a", "2001:db8:4000:50::/64")]
    assert twin.public == {"aus1-br1": expected, "aus1-br2": expected}


def test_a_ranged_entry_admits_the_subnets_within_its_lengths_only() -> None:
    entry = PrefixListEntry(seq=10, action="permit", prefix="10.0.0.0/16", le=24)
    subnets = ["10.0.0.0/16", "10.0.1.0/24", "10.0.2.0/25", "10.1.0.0/24", "2001:db8::/64"]
    assert _admitted(entry, subnets) == ["10.0.0.0/16", "10.0.1.0/24"]  # /16 to /24, inside
    at_least = PrefixListEntry(seq=10, action="permit", prefix="10.0.0.0/16", ge=17, le=24)
    assert _admitted(at_least, subnets) == ["10.0.1.0/24"]
    exact = PrefixListEntry(seq=10, action="permit", prefix="10.0.0.0/16")
    assert _admitted(exact, subnets) == ["10.0.0.0/16"]  # as written, present or not
    assert _admitted(entry, ["10.0.2.0/25"]) == []  # none: the plan expects the entry itself


def test_the_plan_survives_its_state_file() -> None:
    twin = example_twin()
    assert Twin.from_json(twin.to_json()).to_json() == twin.to_json()


def test_refuses_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert runtime.refusal() == (
        "meetme twin: needs root (network namespaces and FRR daemons); run it as root"
    )


def test_refuses_without_frr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(runtime, "FRR_DIR", tmp_path)
    (tmp_path / "zebra").write_text("")  # one daemon present, two missing
    why = runtime.refusal()
    assert why is not None and why.startswith(
        "meetme twin: FRRouting is not installed (staticd, bfdd, isisd, bgpd"
    )


@pytest.mark.parametrize("command", ["up", "verify", "down"])
def test_commands_refuse_in_one_line_with_exit_2(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    done = CliRunner().invoke(app, ["twin", command])
    assert done.exit_code == 2
    assert done.output.strip().splitlines() == [
        "meetme twin: needs root (network namespaces and FRR daemons); run it as root"
    ]


@pytest.mark.parametrize("command", ["up", "verify", "down"])
@pytest.mark.parametrize(
    ("given", "example"),
    [
        ("mt", "mt-"),  # no dash: the likely slip
        ("MT-", "mt-"),  # not lower case
        ("a-", "mt-"),  # 1: too short
        ("abcdefg-", "mt-"),  # 7: too long
        ("m\nt-", "mt-"),  # a control character is shown escaped, on the one line
    ],
)
def test_an_invalid_prefix_is_refused_in_one_line_before_anything_else(
    command: str, given: str, example: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prefix that is no prefix is not quietly `mm-`: that would point `up` and `down` at
    the user's own twin. Nothing runs: the machine's refusal, were it reached, says otherwise."""
    monkeypatch.setenv("MEETME_TWIN_PREFIX", given)
    monkeypatch.setattr(runtime, "refusal", lambda: "meetme twin: not reached")
    done = CliRunner().invoke(app, ["twin", command])
    assert done.exit_code == 2
    shown = given.replace("\n", "\\n")
    assert done.output.strip().splitlines() == [
        f"meetme twin: MEETME_TWIN_PREFIX='{shown}' is not a namespace prefix: it needs 2 to 6 "
        f"of a-z and 0-9, then '-' (such as '{example}'); set one, or unset it for the "
        "default 'mm-'; nothing was done"
    ]


@pytest.mark.parametrize("given", [None, "", "mm-", "mt-", "ab-", "abcdef-", "a1b2-"])
def test_a_valid_or_unset_prefix_is_no_problem(
    given: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if given is None:
        monkeypatch.delenv("MEETME_TWIN_PREFIX", raising=False)
    else:
        monkeypatch.setenv("MEETME_TWIN_PREFIX", given)
    assert names.prefix_problem() is None
    assert names._prefix() == (given or "mm-")


@pytest.mark.parametrize("command", ["up", "verify", "down"])
def test_one_command_per_site_at_a_time(
    command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(runtime, "refusal", lambda: None)  # root and FRR are not needed here
    monkeypatch.setattr(runtime, "STATE_ROOT", tmp_path)
    (tmp_path / "aus1").mkdir()
    (tmp_path / "aus1" / "state.json").write_text(
        '{"site": "aus1", "digest": "x", "namespaces": [], "processes": []}'
    )
    (tmp_path / "aus1" / "twin.json").write_text(example_twin().to_json())
    monkeypatch.setattr(runtime, "alive", lambda state: True)
    with runtime.site_lock("aus1"):  # another meetme is working on the twin
        done = CliRunner().invoke(app, ["twin", command, "--site", "aus1"])
    assert done.exit_code == 2, done.output
    assert done.output.strip().splitlines()[-1] == (
        "meetme twin: another `meetme twin` command is working on the twin of aus1; "
        "run this one when it has finished"
    )
    with runtime.site_lock("aus1"):  # the lock is free again once the holder is done
        pass


def test_tenant_vrfs_are_namespaces_with_their_l3vni_and_handoff_pairs() -> None:
    twin = example_twin()
    leaf = twin.node("aus1-lf5")
    assert leaf.vrfs == ("gpu-a", "storage")
    assert leaf.l3vnis == (("gpu-a", 50001), ("storage", 50010))
    assert leaf.vtep == "10.0.1.105"
    border = twin.node("aus1-br1")
    assert border.vrfs == ("gpu-a", "gpu-a-mgmt", "storage")
    assert border.l3vnis == ()  # VRF-lite only
    handoff = next(s for s in twin.segments if s.key.startswith("aus1-bl1:Ethernet1/1.3101"))
    assert [(e.node, e.ifname, e.vrf) for e in handoff.endpoints] == [
        ("aus1-bl1", "e1-1.3101", "gpu-a"),
        ("aus1-br1", "hu0-0-0-8.3101", "gpu-a"),
    ]
    assert twin.namespace_of(handoff.endpoints[1]) == "mm-aus1-br1.gpu-a"
    aws = next(p for p in twin.party_plans if p.name == "aws-syd/private-1")
    assert [(s.device, s.vrf, s.export_prefixes) for s in aws.sessions] == [
        ("aus1-bl1", "gpu-a", ("10.50.0.0/16",))
    ]
    # a cloud announces the range agreed with it (`receive:`) and, hostile, a default route
    # and half the address space (a default in disguise)
    assert [(a.prefix, a.label) for a in aws.announcements] == [
        ("10.100.0.0/16", "legitimate"),
        ("0.0.0.0/0", "default route"),
        ("128.0.0.0/1", "default in disguise"),
    ]


def test_services_lan_joins_both_borders_and_a_host_on_every_rpki_cache() -> None:
    twin = example_twin()
    lan = next(s for s in twin.segments if s.key.startswith("services:"))
    assert lan.key == "services:10.9.0.0/24" and lan.bridge_namespace == "mm-aus1-lan-services"
    assert [(e.node, e.ifname) for e in lan.endpoints] == [
        ("aus1-br1", "hu0-0-0-26"),
        ("aus1-br2", "hu0-0-0-26"),
        ("services", "p0"),
    ]
    host = twin.node("services")
    assert (host.kind, host.config) == ("host", "")  # no router runs there
    assert host.addresses == (("p0", "10.9.0.11/24"), ("p0", "10.9.0.12/24"))


def test_a_host_per_routed_tenant_network_on_a_bridge_with_every_gateway_svi() -> None:
    twin = example_twin()
    hosts = {n.name: n for n in twin.nodes if n.kind == "host" and n.name != "services"}
    # 11 networks with a gateway; storage-back-1/2 route nowhere and get none
    assert len(hosts) == 11 and not any("storage-back" in name for name in hosts)
    public = hosts["gpu-tenant-a_gpu-a-public"]
    assert public.role == "gpu-a"  # its VRF
    assert public.addresses == (("br0", "198.51.100.138/26"), ("br0", "2001:db8:4000:50::a/64"))
    assert public.gateways == ("198.51.100.129", "2001:db8:4000:50::1")
    segment = next(s for s in twin.segments if s.key == "network:gpu-tenant-a_gpu-a-public")
    assert segment.bridge_namespace == public.namespace  # the host holds the bridge
    assert [(e.node, e.ifname, e.vrf) for e in segment.endpoints] == [
        ("aus1-lf3", "vlan105", "gpu-a"),
        ("aus1-lf4", "vlan105", "gpu-a"),
    ]
    # an NVUE leaf's SVI keeps its own address and the anycast gateway (VRR)
    compute = hosts["gpu-tenant-a_gpu-a-compute-1"]
    assert compute.gateways == ("10.50.1.1", "2001:db8:50:1::1")
    # ... both are in the kernel of the leaf's VRF namespace before zebra starts (FRR 8.4,
    # given both of one subnet through its config, at times installed no connected route)
    lf1 = next(n for n in twin.nodes if n.name == "aus1-lf1")
    assert [a for a in lf1.svi_addresses if a[1] == "vlan101"] == [
        ("gpu-a", "vlan101", "10.50.1.254/24"),
        ("gpu-a", "vlan101", "2001:db8:50:1:ffff:ffff:ffff:ffff/64"),
        ("gpu-a", "vlan101", "10.50.1.1/24"),
        ("gpu-a", "vlan101", "2001:db8:50:1::1/64"),
    ]


def _session(device: str, peer: str, ok: bool, n: int = 1) -> Result:
    state = "Established" if ok else "Idle, not Established"
    return Result("sessions", ok, device, f"s{n}", f"{device}: session s{n} is {state}", peer=peer)


def test_picture_draws_a_line_per_pair_red_where_a_session_is_down() -> None:
    twin = example_twin()
    results = [
        _session("aus1-lf1", "aus1-sp1", True, 1),
        _session("aus1-sp1", "aus1-lf1", False, 2),  # the same pair, seen from the spine
        _session("aus1-br1", "transit-a", True),
        Result("hosts", True, "gpu-tenant-a_gpu-a-public", "x", "host reaches x"),
    ]
    text = svg(twin, results)
    assert text.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert "twin aus1: 3/4 checks pass" in text
    lines = [line for line in text.splitlines() if line.startswith("<line")]
    assert len(lines) == 2  # lf1-sp1 (both sessions on one line) and br1-transit-a
    bad = next(line for line in lines if "aus1-lf1 - aus1-sp1" in line)
    assert 'stroke="#c62828"' in bad and "1/2 up" in bad
    assert "aus1-sp1: session s2 is Idle, not Established" in text  # in the tooltip
    good = next(line for line in lines if "aus1-br1 - transit-a" in line)
    assert 'stroke="#2e7d32"' in good
    # the spine's box is red (a check about it failed), the leaf's is not
    assert text.count('stroke="#c62828" stroke-width="2.5"/>') == 1
    assert ">sp1</text>" in text and ">gpu-tenant-a_gpu-…</text>" in text
    assert svg(twin, results) == text  # the same run draws the same bytes


def test_each_srv6_leaf_stands_a_discard_route_in_for_its_uN_sid() -> None:
    """FRR 8.4 has no static SIDs: the twin gives the SID's route as a discard route, so BGP
    originates the locator as the switch does, and every device of the IPv6 underlay is asked
    to hold it."""
    twin = example_twin()
    assert twin.locators == {"aus1-lf1": "5f00:0:165::/48", "aus1-lf2": "5f00:0:166::/48"}
    assert len(twin.v6_underlay) == 18 and "aus1-sp1" in twin.v6_underlay
    lf1 = twin.node("aus1-lf1")
    assert lf1.static  # staticd runs for it
    lines = lf1.config.splitlines()
    assert "ipv6 route 5f00:0:165::/48 blackhole" in lines
    assert "  network 5f00:0:165::/48" in lines
    assert not any(
        "5f00:0:165::/48 blackhole" in line for line in twin.node("aus1-lf2").config.splitlines()
    )


def test_srv6_locators_fails_where_a_device_has_no_bgp_route_to_one() -> None:
    twin = example_twin()

    def query(namespace: str, command: str) -> dict[str, list[dict[str, object]]]:
        prefix = command.split()[3]
        if namespace == twin.node("aus1-sp2").namespace and prefix == "5f00:0:166::/48":
            return {}
        return {prefix: [{"selected": True, "protocol": "bgp"}]}

    results = Verifier(twin, query).locator_results()
    assert len(results) == 2 * 17
    bad = [r.message for r in results if not r.ok]
    assert bad == [
        "aus1-sp2: route to aus1-lf2's locator 5f00:0:166::/48: none, expected one learned by BGP"
    ]


def test_a_dual_stack_cloud_answers_on_an_address_of_each_family(tmp_path: Path) -> None:
    """gcp-ic's attachments carry IPv6 beside IPv4: the emulated Cloud Router holds the first
    address of each family's agreed range on its loopback, so the tenant hosts' pings prove
    the way there and back in both."""
    shutil.copytree(EXAMPLE, tmp_path / "intent")
    gcp_dual_stack(tmp_path)
    result = lint(tmp_path / "intent")
    assert not [f for f in result.findings if f.severity == "error"]
    twin = plan("aus1", device_models(result), result.fabrics["aus1"].edge.sessions)
    gcp = next(p for p in twin.party_plans if p.name == "gcp-ic/syd-ead1")
    assert gcp.loopbacks == ["10.120.0.1", "2001:db8:120::1"]
    conf = render_party(gcp)
    assert (
        "interface lo\n ip address 10.120.0.1/32\n ipv6 address 2001:db8:120::1/128\nexit\n" in conf
    )
    # an IPv4-only cloud: one address
    aws = next(p for p in twin.party_plans if p.name == "aws-syd/private-1")
    assert aws.loopbacks == ["10.100.0.1"]
    assert "interface lo\n ip address 10.100.0.1/32\nexit\n" in render_party(aws)


def test_an_eos_mlag_pair_sources_vxlan_from_its_shared_address_with_one_router_mac(
    tmp_path: Path,
) -> None:
    """EOS sources VXLAN from Loopback1, which holds the pair's shared address, and both
    leaves encapsulate with one router MAC (`vxlan virtual-router encapsulation mac-address
    mlag-system-id`): the model's source address is the shared one, and the twin gives both
    leaves that VTEP and one MAC. NVUE's MLAG pair keeps its own addresses (advertise-pip)."""
    shutil.copytree(EXAMPLE, tmp_path / "intent")
    eos_mlag_pair_with_one_aws_leaf(tmp_path)
    result = lint(tmp_path / "intent")
    assert not [f for f in result.findings if f.severity == "error"]
    models = device_models(result)
    evpn = models["aus1-bl1"].evpn
    assert evpn is not None and evpn.source_address == "10.0.1.211"
    twin = plan("aus1", models, result.fabrics["aus1"].edge.sessions)
    assert [(n.vtep, n.router_mac) for n in (twin.node("aus1-bl1"), twin.node("aus1-bl2"))] == [
        ("10.0.1.211", "02:00:0a:00:01:d3")
    ] * 2
    assert [(n.vtep, n.router_mac) for n in (twin.node("aus1-lf1"), twin.node("aus1-lf2"))] == [
        ("10.0.1.101", None),
        ("10.0.1.102", None),
    ]
