"""The twin end to end: `meetme twin up | verify | down` on the example, and broken designs
each failing the check it should, naming device and session. Needs root and FRR; skipped
without them unless MEETME_TWIN_REQUIRED=1 (CI), where their absence fails. One module, run
once: the whole example twin takes about a minute here. Its namespaces start with
MEETME_TWIN_PREFIX (`mt-` unless set), so a user's twin of the example on the same machine is
left alone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import gcp_dual_stack
from meetme.generators.model import BgpNeighbor, DeviceModel, RouteMap
from meetme.generators.resolve.edge_sessions import ExternalSession
from twin_helpers import PREFIX, require_twin
from variants import (
    border_on,
    borders_to_nxos,
    eos_mlag_pair_with_one_aws_leaf,
    without_pair_default_clause,
)

from meetme.pipeline import device_models, lint
from meetme.twin import names, runtime
from meetme.twin.topology import Twin, plan
from meetme.twin.verify import Result, Verifier

EXAMPLE = Path(__file__).resolve().parent.parent
require_twin()


OURS = f"{PREFIX}aus1-"


def meetme(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meetme", *args],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MEETME_TWIN_PREFIX": PREFIX},
    )


@pytest.fixture(autouse=True)
def own_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process twins use the module's prefix and state folder, as the commands do."""
    monkeypatch.setattr(names, "PREFIX", PREFIX)
    monkeypatch.setattr(runtime, "STATE_ROOT", Path(f"/run/meetme-twin-{PREFIX[:-1]}"))


def leftovers() -> tuple[list[str], list[str]]:
    """Namespaces and live processes of the site's twin still on the machine."""
    namespaces = sorted(ns for ns in runtime.netns_list() if ns.startswith(OURS))
    processes = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if OURS.encode() in cmdline:
                processes.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
    return namespaces, processes


@pytest.fixture
def clean() -> Iterator[None]:
    """Every test starts and ends with no twin of the site on the machine."""
    runtime.down("aus1")
    assert leftovers() == ([], [])
    yield
    runtime.down("aus1")
    assert leftovers() == ([], [])


def test_example_up_verify_down(clean: None, tmp_path: Path) -> None:
    first = meetme("twin", "up", "--site", "aus1")
    assert first.returncode == 0, first.stderr
    # 18 devices, 16 parties, the services LAN's host and 11 tenant networks' hosts; 32
    # tenant VRF namespaces, the IX LAN's and the services LAN's
    assert "twin aus1: up, 46 routers in 80 namespaces" in first.stdout
    again = meetme("twin", "up", "--site", "aus1")  # idempotent: nothing is built twice
    assert again.returncode == 0 and "already up" in again.stdout

    done = meetme("twin", "verify", "--json")
    report = json.loads(done.stdout)
    results = [Result(**r) for r in report["results"]]
    by_check: dict[str, list[Result]] = {}
    for r in results:
        by_check.setdefault(r.check, []).append(r)
    checks = [
        "sessions",
        "ecmp",
        "srv6-locators",
        "edge",
        "prefix-limit",
        "exports",
        "clouds",
        "tenant-vrfs",
        "north-south",
        "services",
        "hosts",
        "failover",
        "border-pair",
    ]
    assert list(by_check) == checks
    for check in checks:
        bad = [r.message for r in by_check[check] if not r.ok]
        assert by_check[check] and not bad, (check, bad)
    assert report["passed"] is True and done.returncode == 0
    assert report["skipped"] == []  # the pair's iBGP runs: border-pair is exercised
    # 460 sessions declared on 18 devices (the border pair's iBGP and each handoff VRF's
    # IPv4 and IPv6 sessions among them), but the flooded peers' sessions of the flooded
    # family (content-a's two IPv4, eyeball-b's two IPv6), which the prefix-limit check covers
    assert len(by_check["sessions"]) == 462 - 4
    assert any(
        r.message == "aus1-br1: session border pair aus1-br2 FourHundredGigE0/0/0/24 "
        "(2001:db8:0:1000::101, ipv6Unicast) is Established"
        for r in by_check["sessions"]
    )
    # the SRv6 leaves' locators (their uN SIDs) cross the fabric: every other device running
    # the IPv6 underlay, 17 of them, routes to each by BGP
    locators = {r.message for r in by_check["srv6-locators"]}
    assert len(by_check["srv6-locators"]) == 2 * 17
    assert "aus1-sp1: route to aus1-lf1's locator 5f00:0:165::/48: bgp" in locators
    assert "aus1-lf2: route to aus1-lf1's locator 5f00:0:165::/48: bgp" in locators
    assert "aus1-br1: route to aus1-lf2's locator 5f00:0:166::/48: bgp" in locators
    edge = {r.message for r in by_check["edge"]}
    assert "aus1-br1: session transit-a (192.0.2.0): bogon 100.64.0.0/10 rejected" in edge
    assert "aus1-br1: session transit-a (192.0.2.0): legitimate 1.1.1.0/24 accepted" in edge
    # the transits agreed to send a default (accept_default) and do; a PNI's is refused
    assert "aus1-br2: session transit-b (192.0.2.10): agreed default 0.0.0.0/0 accepted" in edge
    assert "aus1-br1: session transit-a (2001:db8:a::): agreed default ::/0 accepted" in edge
    assert "aus1-br1: session pni-cdn (192.0.2.16): default route 0.0.0.0/0 rejected" in edge
    assert "aus1-br2: session pni-cdn (192.0.2.18): own aggregate 198.51.100.0/24 rejected" in edge
    # mel1's /40 comes back through the Internet behind our own ASN and is taken; our /36 not
    assert (
        "aus1-br1: session transit-a (2001:db8:a::): other site's space 2001:db8:4100::/40 "
        "accepted" in edge
    )
    assert (
        "aus1-br1: session transit-a (2001:db8:a::): own aggregate 2001:db8:4000::/36 rejected"
        in edge
    )
    # a path holding our ASN: refused where the loop check stays (IPv4), and where IPv6 takes
    # our ASN once for mel1's space, refused with it twice; an IX route server's too
    assert (
        "aus1-br1: session transit-a (192.0.2.0): our ASN in the path 185.199.108.0/22 rejected"
        in edge
    )
    assert (
        "aus1-br1: session transit-a (2001:db8:a::): our ASN in the path 2606:50c0::/32 rejected"
        in edge
    )
    assert (
        "aus1-br2: session ix-syd/rs1 (203.0.113.1): our ASN in the path 185.199.108.0/22 "
        "rejected" in edge
    )
    # half the address space from a transit that may send a default: still refused, in FRR
    assert (
        "aus1-br1: session transit-a (192.0.2.0): default in disguise 128.0.0.0/1 rejected" in edge
    )
    assert (
        "aus1-br1: session transit-a (2001:db8:a::): default in disguise 8000::/1 rejected" in edge
    )
    assert not [m for m in edge if "default in disguise" in m and "rejected" not in m]
    flood = {r.message for r in by_check["prefix-limit"]}
    assert (
        "aus1-br1: session ix-syd/content-a (203.0.113.50, ipv4) sent 1210 routes past its "
        "limit and is Idle (PfxCt)" in flood
    )
    assert (
        "aus1-br2: session ix-syd/eyeball-b (2001:db8:ff00::60, ipv6) sent 2510 routes past "
        "its limit and is Idle (PfxCt)" in flood
    )
    # each flooding peer's other family is not flooded and stays up
    assert (
        "aus1-br1: session ix-syd/content-a (2001:db8:ff00::50, ipv6), not flooded, is "
        "Established" in flood
    )
    assert (
        "aus1-br1: session ix-syd/eyeball-b (203.0.113.60, ipv4), not flooded, is Established"
        in flood
    )
    # the public /26 is leaked into the Internet table, yet only our aggregates leave
    exports = {r.message for r in by_check["exports"]}
    assert (
        "aus1-br2: session transit-b (192.0.2.10) receives ['198.51.100.0/24'], agreed "
        "['198.51.100.0/24']" in exports
    )
    assert (
        "aus1-br1: session transit-a (2001:db8:a::) receives ['2001:db8:4000::/36', "
        "'2001:db8:4000::/40'], agreed ['2001:db8:4000::/36', '2001:db8:4000::/40']" in exports
    )
    clouds = {r.message for r in by_check["clouds"]}
    assert (
        "aus1-bl5: session gcp-ic/syd-ead1 (169.254.20.1) in VRF gpu-a receives "
        "['10.50.0.0/16'], agreed ['10.50.0.0/16']" in clouds
    )
    # every leaf's tenant VRF has the default (IPv6 too where the VRF has it) and its clouds
    tenants = {r.message for r in by_check["tenant-vrfs"]}
    assert "aus1-lf1: VRF gpu-a has the default route (ipv4)" in tenants
    assert "aus1-lf1: VRF gpu-a has the default route (ipv6)" in tenants
    # the private-only VRFs have `internet: none` (HANDOFF-013): proven to have no default
    none = "as no router puts one into it (internet: none)"
    assert f"aus1-lf3: VRF gpu-a-mgmt has no default route (ipv4), {none}" in tenants
    assert f"aus1-lf5: VRF storage has no default route (ipv4), {none}" in tenants
    assert not [m for m in tenants if "VRF storage has the default route" in m]
    assert "aus1-lf1: VRF gpu-a has aws-syd/private-1's 10.100.0.0/16" in tenants
    assert "aus1-lf3: VRF storage has er-syd/private's 10.110.0.0/16" in tenants
    # 6 leaves' VRFs: gpu-a (v4, v6, 4 cloud routes with 2 parties each ...) in all
    assert len(by_check["tenant-vrfs"]) == 74
    # ... through both borders: each border leaf learns it from br1 and br2
    north = {r.message for r in by_check["north-south"]}
    # the public /26 and /64 are in each border's Internet table, yet never leave alone
    # (exports above: the transits receive exactly the aggregates)
    leaked = {m for m in north if "Internet table" in m}
    assert leaked == {
        f"{br}: the Internet table holds VRF gpu-a's public {prefix} (leaked from the VRF)"
        for br in ("aus1-br1", "aus1-br2")
        for prefix in ("198.51.100.128/26", "2001:db8:4000:50::/64")
    }
    assert north - leaked == {
        *(
            f"{bl}: VRF gpu-a has the default route ({afi}) from aus1-br1, aus1-br2"
            for bl in ("aus1-bl1", "aus1-bl2")
            for afi in ("ipv4", "ipv6")
        ),
        *(
            f"{bl}: VRF {vrf} has no default route (ipv4), {none}"
            for bl in ("aus1-bl1", "aus1-bl2")
            for vrf in ("gpu-a-mgmt", "storage")
        ),
    }
    assert {r.message for r in by_check["services"]} == {
        f"{br}: RPKI cache {c} on the services LAN answers"
        for br in ("aus1-br1", "aus1-br2")
        for c in ("10.9.0.11", "10.9.0.12")
    }
    # packets through the fabric: host to host over the L3VNI, IPv6 too, and to a cloud
    hosts = {r.message for r in by_check["hosts"]}
    assert (
        "host gpu-tenant-a_gpu-a-compute-1 (10.50.1.10) reaches gpu-tenant-a_gpu-a-public "
        "(198.51.100.138)" in hosts
    )
    assert (
        "host gpu-tenant-a_gpu-a-public (2001:db8:4000:50::a) reaches "
        "gpu-tenant-a_gpu-a-compute-2 (2001:db8:50:2::a)" in hosts
    )
    assert (
        "host gpu-tenant-a_gpu-a-compute-1 (10.50.1.10) reaches gcp-ic/syd-ead1 (10.120.0.1)"
        in hosts
    )
    # a border's loss: the tenants keep their defaults through the other border (16, all
    # gpu-a's: 10 on the leaves, both families; 6 on the border leaves, both families on the
    # handoff's aus1-bl1 and aus1-bl2, IPv4 on aus1-bl5 and aus1-bl6), converging within the
    # hold time, judged once its peers' sessions to it are down and then over several clean
    # polls; the time is in the JSON report
    failover = [r.message for r in by_check["failover"]]
    assert [m.split(":")[0] for m in failover] == ["aus1-br1 stopped", "aus1-br2 stopped"]
    assert all("(16 default routes among them); converged in" in m for m in failover), failover
    assert all("its peers' sessions to it down after" in m for m in failover), failover
    assert all(0 < (r.seconds or 0) < 20 for r in by_check["failover"])
    # a border without its Internet sessions keeps the default over the pair's iBGP
    pair = by_check["border-pair"]
    assert [r.message.split(";")[0] for r in pair] == [
        f"{br} without its Internet sessions: its default routes ipv4 over the pair, "
        "ipv6 over the pair"
        for br in ("aus1-br1", "aus1-br2")
    ]
    assert all(0 < (r.seconds or 0) < 20 for r in pair)

    # the picture, only where asked: every session line green
    picture = tmp_path / "site.svg"
    drawn = meetme("twin", "verify", "--no-failover", "--svg", str(picture))
    assert drawn.returncode == 0, drawn.stdout
    text = picture.read_text()
    assert "checks pass</text>" in text and 'stroke="#c62828"' not in text
    # the pair's iBGP: both families on 2 links, 4 sessions, each seen from both ends
    assert "aus1-br1 - aus1-br2: 8/8 up" in text
    assert list(tmp_path.iterdir()) == [picture]

    # a twin built by another meetme version: verify refuses in one line, no traceback
    plan_file = Path(f"/run/meetme-twin-{PREFIX[:-1]}/aus1/twin.json")
    saved = plan_file.read_text()
    plan_file.write_text(saved.replace('"bfd":', '"bfd_renamed":'))
    stale = meetme("twin", "verify", "--no-failover")
    assert stale.returncode == 2 and stale.stderr.count("\n") == 1
    assert "was built by another meetme version; run `meetme twin up` again" in stale.stderr
    plan_file.write_text(saved)

    down = meetme("twin", "down")
    assert down.returncode == 0 and "twin aus1: down (" in down.stdout
    assert leftovers() == ([], [])
    gone = meetme("twin", "verify")
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1


def test_example_with_bfd_brings_every_bfd_session_up(clean: None) -> None:
    """`up --bfd`: bfdd beside bgpd, the model's profiles; every session the model runs BFD on
    (all but the IX's 16 of the 462, the EVPN sessions multihop) has its BFD session up."""
    assert meetme("twin", "up", "--site", "aus1", "--bfd").returncode == 0
    done = meetme("twin", "verify", "--no-failover", "--json")
    results = [Result(**r) for r in json.loads(done.stdout)["results"]]
    bfd = [r for r in results if r.check == "bfd"]
    assert len(bfd) == 446 and all(r.ok for r in bfd), [r.message for r in bfd if not r.ok]
    messages = {r.message for r in bfd}
    assert "aus1-bl5: BFD toward gcp gcp-ic/syd-ead1 XC-GCP-1 (169.254.20.1, VRF gpu-a) is up" in (
        messages
    )
    assert "aus1-lf1: BFD toward evpn aus1-sp1 (10.0.0.11) is up" in messages
    assert all(r.ok for r in results if r.check == "sessions")


def test_second_site_three_tiers_in_two_pods_routes_and_fails_over() -> None:
    """mel1 as shipped: EOS borders (their FRR rendering from the same models), super-spines
    as the pods' EVPN route servers, per-pod spine ASNs and NX-OS vPC pairs with their routed
    peer VLAN. Every check passes: hosts reach each other across the pods and the Internet
    default survives either border's loss."""
    runtime.down("mel1")
    try:
        assert meetme("twin", "up", "--site", "mel1").returncode == 0
        done = meetme("twin", "verify", "--site", "mel1", "--json")
        results = [Result(**r) for r in json.loads(done.stdout)["results"]]
        bad = [r.message for r in results if not r.ok]
        assert done.returncode == 0 and bad == [], bad
        by_check: dict[str, list[Result]] = {}
        for r in results:
            by_check.setdefault(r.check, []).append(r)
        # each vPC pair's backup routing session over Vlan3967, and a pod-1 leaf reaching a
        # pod-2 leaf's loopback over both its spines
        messages = {r.message for r in results}
        assert (
            "mel1-lf101: session mlag peer mel1-lf102 Vlan3967 (10.3.101.255, ipv4Unicast) is "
            "Established" in messages
        )
        assert "mel1-lf101: route to mel1-lf201 loopback 10.2.0.201/32 has 2 next hops" in (
            messages
        )
        assert "mel1-lf101: route to mel1-lf102 loopback 10.2.0.102/32 has 1 next hops" in (
            messages
        )
        assert [r.device for r in by_check["failover"]] == ["mel1-br1", "mel1-br2"]
        # 4 pings host to host (gpu-b: compute-1 and -2 in IPv4, compute-1 and the IPv6-only
        # front ends in IPv6), 5 to the hosts' anycast gateways and 10 to the border leaves
        # (each host, each family): storage, one network and no cloud, is crossed too
        assert len(by_check["hosts"]) == 4 + 5 + 10
        assert (
            "host storage_storage-front-1 (10.160.1.10) reaches its anycast gateway (10.160.1.1)"
            in messages
        )
        assert "host storage_storage-front-1 (10.160.1.10) reaches mel1-bl1 (10.3.31.0)" in (
            messages
        )
        # the default route in each handoff VRF and family at each border leaf (gpu-b in both
        # families, storage in IPv4: 2 x 3), and each border's one public prefix, gpu-b's IPv6
        # /64, once, though EOS names one leak map in both families (2 x 1)
        assert len(by_check["north-south"]) == 6 + 2
    finally:
        runtime.down("mel1")
    namespaces = [ns for ns in runtime.netns_list() if ns.startswith(f"{PREFIX}mel1-")]
    assert namespaces == []


# What verify checks on aus1 with its borders moved; neither border platform validates
# origins here (PLAT-001), so no RPKI cache sits on the services LAN and `services` has no
# subject; NVUE borders cannot run the VRF-lite handoff (PLAT-003): no north-south either.
BORDER_CHECKS = ["sessions", "ecmp", "srv6-locators", "edge", "prefix-limit", "exports", "clouds",
                 "tenant-vrfs", "north-south", "hosts", "failover", "border-pair"]  # fmt: skip


@pytest.mark.parametrize(
    ("move", "platform", "port", "checks"),
    [
        (borders_to_nxos, "cisco_nxos", "Ethernet1/25", BORDER_CHECKS),
        (
            border_on("nvidia_nvue"),
            "nvidia_nvue",
            "swp25",
            [c for c in BORDER_CHECKS if c != "north-south"],
        ),
    ],
    ids=["nxos-with-handoff", "nvue-without-handoff"],
)
def test_borders_on_another_platform_route_and_fail_over(
    clean: None,
    tmp_path: Path,
    move: Callable[[Path], None],
    platform: str,
    port: str,
    checks: list[str],
) -> None:
    """aus1's borders moved off IOS-XR (tests/variants.py), rendered to FRR from their own
    models with the platform's own behaviour (which communities a session sends unasked):
    every check passes, both borders fail over and each keeps the Internet over the pair."""
    shutil.copytree(EXAMPLE / "intent", tmp_path / "intent")
    move(tmp_path)
    result = lint(tmp_path / "intent")
    assert not result.errors, [f.message for f in result.errors]
    models = dict(device_models(result))
    assert {models[b].platform for b in ("aus1-br1", "aus1-br2")} == {platform}
    twin = plan("aus1", models, list(result.fabrics["aus1"].edge.sessions))
    runtime.up(twin)
    results = list(Verifier(twin).run())
    assert [r.message for r in results if not r.ok] == []
    by_check: dict[str, list[Result]] = {}
    for r in results:
        by_check.setdefault(r.check, []).append(r)
    assert list(by_check) == checks
    messages = {r.message for r in results}
    # the pair's iBGP on the moved port (IOS-XR's FourHundredGigE0/0/0/24 is port 25 here)
    assert (
        f"aus1-br1: session border pair aus1-br2 {port} (2001:db8:0:1000::101, ipv6Unicast) "
        "is Established" in messages
    )
    assert [r.device for r in by_check["failover"]] == ["aus1-br1", "aus1-br2"]
    assert [r.device for r in by_check["border-pair"]] == ["aus1-br1", "aus1-br2"]


def example_models() -> tuple[dict[str, DeviceModel], list[ExternalSession]]:
    result = lint(EXAMPLE / "intent")
    return dict(device_models(result)), list(result.fabrics["aus1"].edge.sessions)


def twin_of(models: dict[str, DeviceModel], sessions: list[ExternalSession]) -> Twin:
    return plan("aus1", models, sessions)


def _unlink(models: dict[str, DeviceModel], a: str, b: str) -> None:
    """Remove every link (and its sessions) between devices a and b from both models."""
    for one, other in ((a, b), (b, a)):
        m = models[one]
        interfaces = tuple(i for i in m.interfaces if not (i.peer and i.peer.device == other))
        neighbors = tuple(n for n in m.bgp.neighbors if n.peer_device != other)
        models[one] = m.model_copy(
            update={
                "interfaces": interfaces,
                "bgp": m.bgp.model_copy(update={"neighbors": neighbors}),
            }
        )


def test_spine_homed_to_one_border_fails_failover(clean: None) -> None:
    models, sessions = example_models()
    _unlink(models, "aus1-sp1", "aus1-br2")
    twin = twin_of(models, sessions)
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    assert all(r.ok for r in verifier.session_results())  # before any failure all is well
    results = verifier.failover_results()
    bad = [r for r in results if not r.ok]
    assert bad and all(r.check == "failover" for r in bad)
    # stopping br1 cuts sp1 off from every border leaf: its EVPN sessions to them go down
    assert any(
        r.device == "aus1-sp1"
        and r.subject.startswith("evpn aus1-bl1 (10.0.0.21")
        and "with aus1-br1 stopped" in r.message
        for r in bad
    ), [r.message for r in bad]
    assert not any("with aus1-br2 stopped" in r.message for r in bad)


def _without_bogon_filter(route_map: RouteMap) -> RouteMap:
    entries = tuple(e for e in route_map.entries if e.description != "bogon prefixes")
    assert len(entries) == len(route_map.entries) - 1
    return route_map.model_copy(update={"entries": entries})


def _edge_results_with(map_name: str, edit: Callable[[RouteMap], RouteMap]) -> list[Result]:
    """The twin's edge checks with one of aus1-br1's route maps edited."""
    models, sessions = example_models()
    br1 = models["aus1-br1"]
    maps = tuple(edit(m) if m.name == map_name else m for m in br1.route_maps)
    models["aus1-br1"] = br1.model_copy(update={"route_maps": maps})
    twin = twin_of(models, sessions)
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    return list(verifier.edge_results())


def test_import_policy_letting_a_bogon_in_fails_edge(clean: None) -> None:
    results = _edge_results_with("RM-TRANSIT-TRANSIT-A-IN-V4", _without_bogon_filter)
    bad = [r for r in results if not r.ok]
    assert [r.message for r in bad] == [
        "aus1-br1: session transit-a (192.0.2.0): bogon 100.64.0.0/10 accepted (must be rejected)"
    ]


def test_long_paths_are_dropped_at_the_limit_in_frr(clean: None) -> None:
    """EDGE-013 on FRR 8.4: each transit sends a route with a path of the site's limit (100
    ASNs) and one a single ASN shorter; the regex AS-path list the FRR templates print for the
    length match drops the first and passes the second. The length clause taken out of
    aus1-br1's IPv4 transit-a import: that one session lets the long path in, and the edge
    check names it."""
    results = _edge_results_with(
        "RM-TRANSIT-TRANSIT-A-IN-V4",
        lambda m: m.model_copy(
            update={"entries": tuple(e for e in m.entries if e.match_as_path_length_ge is None)}
        ),
    )
    edge = {r.message for r in results}
    assert "aus1-br1: session transit-a (2001:db8:a::): long path 2400:cb00::/32 rejected" in edge
    assert "aus1-br2: session transit-b (192.0.2.10): long path 1.0.0.0/24 rejected" in edge
    assert (
        "aus1-br1: session transit-a (192.0.2.0): path under the limit 104.16.0.0/13 accepted"
        in edge
    )
    assert (
        "aus1-br2: session transit-b (2001:db8:b::2): path under the limit 2a06:98c0::/29 "
        "accepted" in edge
    )
    assert [r.message for r in results if not r.ok] == [
        "aus1-br1: session transit-a (192.0.2.0): long path 1.0.0.0/24 accepted (must be rejected)"
    ]


def _neighbors_edited(
    model: DeviceModel, edit: Callable[[BgpNeighbor], BgpNeighbor]
) -> DeviceModel:
    """`model` with `edit` applied to each of its BGP neighbours."""
    neighbors = tuple(edit(n) for n in model.bgp.neighbors)
    return model.model_copy(update={"bgp": model.bgp.model_copy(update={"neighbors": neighbors})})


def _settled(models: dict[str, DeviceModel], sessions: list[ExternalSession]) -> Verifier:
    """A verifier of the twin of `models`, up and settled."""
    twin = twin_of(models, sessions)
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    return verifier


def test_a_loop_check_relaxed_beyond_the_standard_fails_edge(clean: None) -> None:
    """BGP's loop check is proven kept, not only relaxed: aus1-br1's IPv4 session to transit-a
    (where mel1 announces nothing, so the standard keeps the check) made to take our ASN once,
    and its IPv6 one (which takes it once for mel1's /40) twice: each lets the path holding
    our ASN in, and the edge check names exactly those two sessions."""
    models, sessions = example_models()
    times = {"192.0.2.0": 1, "2001:db8:a::": 2}
    # the standard's: the loop check kept on IPv4, our ASN taken once on IPv6
    assert [
        (n.address, n.allowas_in) for n in models["aus1-br1"].bgp.neighbors if n.address in times
    ] == [("192.0.2.0", 0), ("2001:db8:a::", 1)]
    models["aus1-br1"] = _neighbors_edited(
        models["aus1-br1"],
        lambda n: (
            n.model_copy(update={"allowas_in": times[n.address]}) if n.address in times else n
        ),
    )
    verifier = _settled(models, sessions)
    assert sorted(r.message for r in verifier.edge_results() if not r.ok) == [
        "aus1-br1: session transit-a (192.0.2.0): our ASN in the path 185.199.108.0/22 "
        "accepted (must be rejected)",
        "aus1-br1: session transit-a (2001:db8:a::): our ASN in the path 2606:50c0::/32 "
        "accepted (must be rejected)",
    ]


def test_an_ipv6_limit_above_the_flood_fails_prefix_limit(clean: None) -> None:
    """eyeball-b floods 2,510 IPv6 routes, 10 past its agreed 2,500 (max_prefix_v6); aus1-br2's
    limit on that session raised to 2,600 lets them all in, and the prefix-limit check names
    that one session; aus1-br1's, at 2,500, is torn down as it must be."""
    models, sessions = example_models()
    models["aus1-br2"] = _neighbors_edited(
        models["aus1-br2"],
        lambda n: (
            n.model_copy(update={"max_prefix": 2600}) if n.address == "2001:db8:ff00::60" else n
        ),
    )
    results = _settled(models, sessions).flood_results()
    assert [r.message for r in results if not r.ok] == [
        "aus1-br2: session ix-syd/eyeball-b (2001:db8:ff00::60, ipv6) sent 2510 routes past its "
        "limit and is Established (must be torn down by the limit)"
    ]
    assert (
        "aus1-br1: session ix-syd/eyeball-b (2001:db8:ff00::60, ipv6) sent 2510 routes past its "
        "limit and is Idle (PfxCt)" in {r.message for r in results}
    )


def test_cloud_attachment_in_the_wrong_vrf_fails_clouds(clean: None) -> None:
    """AWS private-1 serves gpu-a; put its sub-interface and session in storage on bl1."""
    models, sessions = example_models()
    bl1 = models["aus1-bl1"]
    interfaces = tuple(
        i.model_copy(update={"vrf": "storage"}) if i.name == "Ethernet9/1.101" else i
        for i in bl1.interfaces
    )
    neighbors = tuple(
        n.model_copy(update={"vrf": "storage"}) if n.address == "169.254.10.2" else n
        for n in bl1.bgp.neighbors
    )
    models["aus1-bl1"] = bl1.model_copy(
        update={
            "interfaces": interfaces,
            "bgp": bl1.bgp.model_copy(update={"neighbors": neighbors}),
        }
    )
    sessions = [
        replace(s, vrf="storage") if s.peer_address == "169.254.10.2" else s for s in sessions
    ]
    twin = twin_of(models, sessions)
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    assert all(r.ok for r in verifier.session_results())  # the session itself comes up
    bad = [r.message for r in verifier.cloud_results() if not r.ok]
    assert bad == [
        "aus1-bl1: session aws-syd/private-1 (169.254.10.2) in VRF storage receives [], "
        "agreed ['10.50.0.0/16']; extra [], missing ['10.50.0.0/16']"
    ]


def test_a_config_frr_refuses_stops_up_and_leaves_nothing(clean: None) -> None:
    models, sessions = example_models()
    twin = twin_of(models, sessions)
    sp1 = twin.node("aus1-sp1")
    broken = replace(sp1, config=sp1.config.replace(" bgp router-id", " bgp router-identity", 1))
    twin.nodes[twin.nodes.index(sp1)] = broken
    with pytest.raises(runtime.TwinRefused) as refused:
        runtime.up(twin)
    assert str(refused.value).startswith("meetme twin: aus1-sp1: FRR refused its config: ")
    assert str(refused.value).endswith("; nothing was left running")
    assert leftovers() == ([], [])
    assert not runtime.state_path("aus1").exists()


def _mel1_default_only(repo: Path) -> None:
    """mel1 before its IX is live, its transits agreed to send a default only: every Internet
    session's limit is 10 routes per family."""
    shutil.copytree(EXAMPLE / "intent", repo / "intent")
    peering = repo / "intent/mel1/peering.yaml"
    text = peering.read_text()
    ixes = text[text.index("      ixes:") : text.index("      transits:")]
    text = text.replace(ixes, "").replace("1500000", "10").replace("300000", "10")
    peering.write_text(text)


def test_a_pair_whose_transits_send_a_default_only_stays_up(tmp_path: Path) -> None:
    """The border pair carries the other border's loopbacks, VTEPs, aggregate and leaked
    public prefixes as well as its Internet table: a limit of the Internet table's size
    alone (10 routes here) tears the pair down as it converges. mel1 announces the IPv6 /36
    and its own /40 but no IPv4 aggregate (the organisation's /24 is aus1's), and leaks a
    public /64 only: one route more in IPv6 than in IPv4's 12,013 and two more than before."""
    _mel1_default_only(tmp_path)
    result = lint(tmp_path / "intent")
    assert not result.errors, [f.message for f in result.errors]
    models = dict(device_models(result))
    assert {
        (n.afi, n.max_prefix) for n in models["mel1-br1"].bgp.neighbors if n.kind == "border_ibgp"
    } == {("ipv4", 12013), ("ipv6", 12016)}
    twin = plan("mel1", models, list(result.fabrics["mel1"].edge.sessions))
    runtime.down("mel1")
    try:
        runtime.up(twin)
        verifier = Verifier(twin)
        verifier.settle()
        pair = [r for r in verifier.session_results() if "border pair" in r.subject]
        assert len(pair) == 8 and all(r.ok for r in pair), [r.message for r in pair]
    finally:
        runtime.down("mel1")


def test_a_dual_stack_cloud_is_reached_over_ipv6_from_the_hosts(
    clean: None, tmp_path: Path
) -> None:
    """gcp-ic dual-stack (conftest.gcp_dual_stack): its IPv6 sessions come up in gpu-a, each
    receives exactly gpu-a's IPv6 aggregate, and every host with an IPv6 address that
    aggregate covers pings the cloud's IPv6 address, across the fabric and back."""
    shutil.copytree(EXAMPLE / "intent", tmp_path / "intent")
    gcp_dual_stack(tmp_path)
    result = lint(tmp_path / "intent")
    assert not result.errors, [f.message for f in result.errors]
    twin = plan("aus1", dict(device_models(result)), list(result.fabrics["aus1"].edge.sessions))
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    sessions = verifier.session_results()
    assert all(r.ok for r in sessions), [r.message for r in sessions if not r.ok]
    attachments = ("syd-ead1", "syd-ead2", "mel-ead1", "mel-ead2")
    v6_clouds = {r.message for r in verifier.cloud_results() if "2001:db8:ff20:" in r.subject}
    assert v6_clouds == {
        f"aus1-bl{5 + i % 2}: session gcp-ic/{a} (2001:db8:ff20:{i + 1}::1) in VRF gpu-a "
        "receives ['2001:db8:50::/48'], agreed ['2001:db8:50::/48']"
        for i, a in enumerate(attachments)
    }
    to_cloud = [r for r in verifier.host_results() if "(2001:db8:120::1)" in r.message]
    assert {r.message for r in to_cloud} == {
        f"host gpu-tenant-a_gpu-a-compute-{n} (2001:db8:50:{n}::a) reaches gcp-ic/{a} "
        "(2001:db8:120::1)"
        for n in (1, 2)
        for a in attachments
    }


def test_an_eos_mlag_pair_with_a_cloud_on_one_leaf_carries_its_routes_to_both(
    clean: None, tmp_path: Path
) -> None:
    """aus1-bl1 and aus1-bl2 as an EOS MLAG pair sharing one VTEP address, AWS on bl1 alone
    (tests/test_mlag_vrf_peering.py): the pair peers in gpu-a and storage over VLANs of their
    own, so every leaf holds the AWS ranges and every host reaches the cloud, whichever leaf
    of the pair the fabric sends it to; and in gpu-a-mgmt too, so that each leaf's own handoff
    links, which the fabric sends to either leaf, reach the other: every host reaches every
    handoff address of the pair (before, those pings reached bl2 half the time and died)."""
    shutil.copytree(EXAMPLE / "intent", tmp_path / "intent")
    eos_mlag_pair_with_one_aws_leaf(tmp_path)
    result = lint(tmp_path / "intent")
    assert not result.errors, [f.message for f in result.errors]
    twin = plan("aus1", dict(device_models(result)), list(result.fabrics["aus1"].edge.sessions))
    # one VXLAN source and one router MAC for the pair, as EOS sources both from Loopback1
    pair = [twin.node("aus1-bl1"), twin.node("aus1-bl2")]
    assert {(n.vtep, n.router_mac) for n in pair} == {("10.0.1.211", "02:00:0a:00:01:d3")}
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    sessions = verifier.session_results()
    assert all(r.ok for r in sessions), [r.message for r in sessions if not r.ok]
    assert {r.message for r in sessions if "mlag peer" in r.message and "VRF" in r.message} == {
        f"{leaf}: session mlag peer {peer} Vlan{vlan} ({address}, {family}, VRF {vrf}) "
        "is Established"
        for leaf, peer, end in (("aus1-bl1", "aus1-bl2", "5"), ("aus1-bl2", "aus1-bl1", "4"))
        for vlan, vrf, address, family in (
            (3001, "gpu-a", f"10.1.21.25{end}", "ipv4Unicast"),
            (3001, "gpu-a", f"2001:db8:0:1000::15f{'f' if end == '5' else 'e'}", "ipv6Unicast"),
            (3002, "gpu-a-mgmt", f"10.1.21.25{end}", "ipv4Unicast"),
            (3010, "storage", f"10.1.21.25{end}", "ipv4Unicast"),
        )
    }
    tenants = verifier.tenant_results()
    assert all(r.ok for r in tenants), [r.message for r in tenants if not r.ok]
    assert "aus1-lf1: VRF gpu-a has aws-syd/private-1's 10.100.0.0/16" in {
        r.message for r in tenants
    }
    hosts = verifier.host_results()
    assert all(r.ok for r in hosts), [r.message for r in hosts if not r.ok]
    # the handoff addresses of both leaves, each leaf's own
    assert {"10.1.21.0", "10.1.22.0"} <= {
        r.message.split("(")[-1].rstrip(")") for r in hosts if "reaches aus1-bl" in r.message
    }
    to_aws = [r for r in hosts if "aws-syd/" in r.message]
    assert {r.message for r in to_aws} == {
        *(
            f"host gpu-tenant-a_gpu-a-compute-{n} (10.50.{n}.10) reaches aws-syd/private-1 "
            "(10.100.0.1)"
            for n in (1, 2, 3, 4)
        ),
        *(
            f"host storage_storage-front-{n} (10.60.{n}.10) reaches aws-syd/transit-1 (10.101.0.1)"
            for n in (1, 2, 3, 4)
        ),
    }

    # each leaf in turn cut off from both borders (`verify`'s mlag-pair check): the fabric
    # still sends it half the traffic for the pair's routes (the type-5 routes carry the
    # shared VTEP, so the other leaf's EVPN copies are no use to it), and it keeps every route
    # of its tenant VRFs: the borders' default crosses the pair's sessions by the handoff's
    # default-route list (it arrives over eBGP with no class tag: the twin's IOS-XR borders
    # send none, as the devices do), the other leaf's links by name
    cut_off = verifier.mlag_results()
    assert [(r.device, r.ok) for r in cut_off] == [("aus1-bl1", True), ("aus1-bl2", True)], [
        r.message for r in cut_off
    ]
    # 16 interfaces: its 4 links to the borders and their 12 handoff sub-interfaces (3 VRFs)
    assert re.fullmatch(
        r"aus1-bl1 cut off from the borders \(16 interfaces down\): its tenant VRFs keep all "
        r"\d+ routes, those of the borders over aus1-bl2; stable after [\d.]+ s",
        cut_off[0].message,
    )


def test_an_eos_mlag_pair_passing_the_default_by_its_class_tag_loses_it_when_cut_off(
    clean: None, tmp_path: Path
) -> None:
    """The pair's VRF policy as this project first built it: without its clause for the
    borders' default route (RM-MLAG-VRF-PEER-V4/-V6 seq 40), the route could cross only by
    its class tag, which the borders never send over the eBGP handoff (IOS-XR sends no
    community to an eBGP neighbour, and the twin's FRR now sends what the device would). Each
    leaf cut off from the borders then loses 0.0.0.0/0 and ::/0 of gpu-a: the twin shows what
    FLOW-008 reads off the models (tests/test_mlag_vrf_peering.py)."""
    shutil.copytree(EXAMPLE / "intent", tmp_path / "intent")
    eos_mlag_pair_with_one_aws_leaf(tmp_path)
    result = lint(tmp_path / "intent")
    assert not result.errors, [f.message for f in result.errors]
    models = dict(device_models(result))
    for leaf in ("aus1-bl1", "aus1-bl2"):
        models[leaf] = without_pair_default_clause(models[leaf])
    twin = plan("aus1", models, list(result.fabrics["aus1"].edge.sessions))
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    cut_off = verifier.mlag_results()
    assert [(r.device, r.ok) for r in cut_off] == [("aus1-bl1", False), ("aus1-bl2", False)]
    for r in cut_off:
        assert r.message == (
            f"{r.device} cut off from the borders (16 interfaces down): its tenant VRFs lost "
            "VRF gpu-a 0.0.0.0/0, VRF gpu-a ::/0"
        ), r.message
