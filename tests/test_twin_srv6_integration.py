"""Two sites' twin at once, with a tenant VRF over SRv6 between them: `meetme twin up --site
aus1 --site mel1` cables the DCI circuits, and `verify` finds each border's `storage` VRF
holding the other site's prefixes received over VPNv4 with a SID inside the sending border's
locator, both ways, and every border leaf and leaf of `storage` holding the other site's
prefixes (srv6-south). Control plane only (docs/twin.md "SRv6"). Needs root and FRR, skipped
without them unless MEETME_TWIN_REQUIRED=1; namespaces under MEETME_TWIN_PREFIX (`mt-`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import lint_repo, mel1_borders_to_iosxr, private_vrfs_online
from twin_helpers import PREFIX, require_twin
from variants import eos_mlag_pair_with_one_aws_leaf

from meetme.pipeline import device_models
from meetme.twin import names, runtime
from meetme.twin.topology import Twin, plan

require_twin()


# (border, far border) -> (a prefix the far site's border leaves hand its border in storage,
# the far border's locator): hand-written from the intents (tenants.yaml, srv6 ids)
EXPECTED = {
    ("aus1-br1", "mel1-br1"): ("10.160.1.0/24", "5f00:0:201::/48"),
    ("aus1-br1", "mel1-br2"): ("10.160.1.0/24", "5f00:0:202::/48"),
    ("aus1-br2", "mel1-br1"): ("10.160.1.0/24", "5f00:0:201::/48"),
    ("aus1-br2", "mel1-br2"): ("10.160.1.0/24", "5f00:0:202::/48"),
    ("mel1-br1", "aus1-br1"): ("10.60.1.0/24", "5f00:0:101::/48"),
    ("mel1-br1", "aus1-br2"): ("10.60.1.0/24", "5f00:0:102::/48"),
    ("mel1-br2", "aus1-br1"): ("10.60.1.0/24", "5f00:0:101::/48"),
    ("mel1-br2", "aus1-br2"): ("10.60.1.0/24", "5f00:0:102::/48"),
}


# device -> the other site's storage prefixes it must hold (hand-written from tenants.yaml:
# mel1's one storage network, aus1's four /24s under its 10.60.0.0/16 aggregate)
MEL1 = ["10.160.1.0/24"]
AUS1 = ["10.60.0.0/16", "10.60.1.0/24", "10.60.2.0/24", "10.60.3.0/24", "10.60.4.0/24"]
SOUTH = {
    **{f"aus1-bl{n}": MEL1 for n in range(1, 5)},
    **{f"aus1-lf{n}": MEL1 for n in range(1, 7)},
    **{f"mel1-bl{n}": AUS1 for n in (1, 2)},
    **{f"mel1-lf{n}": AUS1 for n in (101, 102, 103, 104, 201, 202)},
}


def meetme(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meetme", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MEETME_TWIN_PREFIX": PREFIX},
    )


def ours() -> list[str]:
    return sorted(
        ns for ns in runtime.netns_list() if ns.startswith((f"{PREFIX}aus1-", f"{PREFIX}mel1-"))
    )


def test_two_sites_carry_storage_over_srv6_with_sids_both_ways(example: Path) -> None:
    private_vrfs_online(example)  # storage with a default route too: the leak FRR cannot run
    mel1_borders_to_iosxr(example)
    assert lint_repo(example).errors == []
    try:
        up = meetme(example, "twin", "up", "--site", "aus1", "--site", "mel1")
        assert up.returncode == 0, up.stderr
        assert "twin aus1 + mel1: 2 DCI circuit(s) cabled (2 new)" in up.stdout
        done = meetme(
            example, "twin", "verify", "--site", "aus1", "--site", "mel1", "--no-failover", "--json"
        )
        report = json.loads(done.stdout)
        assert report["sites"] == ["aus1", "mel1"]
        srv6 = [r for r in report["results"] if r["check"] == "srv6-vpn"]
        # per border and far border: the IPv4 and IPv6 VPN sessions and the VRF's IPv4 routes
        assert len(srv6) == 3 * len(EXPECTED), [r["message"] for r in srv6]
        assert [r["message"] for r in srv6 if not r["ok"]] == []
        for (border, far), (prefix, locator) in EXPECTED.items():
            (vrf,) = [r for r in srv6 if r["device"] == border and r["subject"].startswith(
                f"VRF storage ipv4 from {far}")]  # fmt: skip
            assert f"SIDs in its locator {locator}: " in vrf["message"]
            assert f"{prefix} SID {locator.split('/')[0]}" in vrf["message"]
        # and south: every border leaf and leaf of storage holds what the other site sends
        # north (aus1's aggregate and /24s; mel1's /24), over the handoff and EVPN
        south = {r["device"]: r for r in report["results"] if r["check"] == "srv6-south"}
        assert sorted(south) == sorted(SOUTH), [r["message"] for r in south.values()]
        for device, prefixes in SOUTH.items():
            assert south[device]["ok"], south[device]["message"]
            assert south[device]["message"].endswith(": " + ", ".join(prefixes))
        assert any("no tenant packet crosses SRv6" in n for n in report["notes"])
        # what the twin cannot run fails and says why: the Internet leak into storage (FRR 8.4
        # refuses `import vrf` beside VPN import/export), nothing else
        failed = [r for r in report["results"] if not r["ok"]]
        assert failed
        assert [
            r["message"]
            for r in failed
            if not (
                r["check"] in ("tenant-vrfs", "north-south")
                and r["subject"] == "VRF storage 0.0.0.0/0"
                and "FRR 8.4 refuses `import vrf`" in r["message"]
            )
        ] == []
        assert done.returncode == 1
    finally:
        down = meetme(example, "twin", "down", "--site", "aus1", "--site", "mel1")
        assert down.returncode == 0, down.stderr
    assert ours() == []


def test_an_eos_border_leaf_cut_off_from_the_borders_keeps_the_other_sites_routes(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aus1-bl1 and aus1-bl2 as an EOS MLAG pair sharing one VTEP (the AWS border leaves,
    tests/test_mlag_vrf_peering.py), `storage` over SRv6 to mel1. Both leaves learn mel1's
    storage prefixes from the borders over their handoff sessions, and the fabric sends
    either leaf half the traffic for them. With bl1's links to both borders cut, bl1 still
    routes mel1's 10.160.1.0/24, over the pair's session in storage (Vlan3010): the route
    carries no class tag (it is a tenant's, from the other site), and the pair's sessions pass
    the VRF's other sites' prefixes by name (PL-MLAG-OTHER-SITES-V4)."""
    eos_mlag_pair_with_one_aws_leaf(example)
    mel1_borders_to_iosxr(example)
    result = lint_repo(example)
    assert result.errors == []
    monkeypatch.setattr(names, "PREFIX", PREFIX)
    twin = plan("aus1", dict(device_models(result)), list(result.fabrics["aus1"].edge.sessions))
    try:
        up = meetme(example, "twin", "up", "--site", "aus1", "--site", "mel1")
        assert up.returncode == 0, up.stderr
        done = meetme(
            example, "twin", "verify", "--site", "aus1", "--site", "mel1", "--no-failover", "--json"
        )
        south = {
            r["device"]: r for r in json.loads(done.stdout)["results"] if r["check"] == "srv6-south"
        }
        assert south["aus1-bl1"]["ok"], south["aus1-bl1"]["message"]
        cut = sorted(
            end.ifname
            for segment in twin.segments
            if any(e.node in ("aus1-br1", "aus1-br2") for e in segment.endpoints)
            for end in segment.endpoints
            if end.node == "aus1-bl1"
        )
        runtime.set_links(Twin.namespaces_of(twin.node("aus1-bl1")), False, only=cut)
        ns = twin.node("aus1-bl1").namespace
        via: list[str] = []
        for _ in range(60):
            raw = runtime.vtysh_json(ns, "show ip route vrf storage 10.160.1.0/24 json") or {}
            assert isinstance(raw, dict)
            via = sorted(
                h.get("interfaceName", "")
                for e in raw.get("10.160.1.0/24", [])
                if e.get("selected")
                for h in e.get("nexthops", [])
                if h.get("active")
            )
            if via == ["vlan3010"]:
                break
            time.sleep(1)
        assert via == ["vlan3010"]
    finally:
        down = meetme(example, "twin", "down", "--site", "aus1", "--site", "mel1")
        assert down.returncode == 0, down.stderr
    assert ours() == []
