"""The twin end to end: `meetme twin up | verify | down` on the example, and three broken
designs each failing the check it should, naming device and session. Needs root and FRR;
skipped without them unless MEETME_TWIN_REQUIRED=1 (CI), where their absence fails.
One module, run once: the whole example twin takes about half a minute here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from meetme.generators.model import DeviceModel, RouteMap

from meetme.pipeline import device_models, lint
from meetme.twin import runtime
from meetme.twin.topology import Twin, plan
from meetme.twin.verify import Result, Verifier

EXAMPLE = Path(__file__).resolve().parent.parent
REQUIRED = os.environ.get("MEETME_TWIN_REQUIRED") == "1"
WHY_NOT = runtime.refusal()

if WHY_NOT is not None:
    if REQUIRED:
        pytest.fail(f"MEETME_TWIN_REQUIRED=1 but {WHY_NOT}", pytrace=False)
    pytest.skip(WHY_NOT, allow_module_level=True)


def meetme(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meetme", *args],
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        timeout=600,
    )


def leftovers() -> tuple[list[str], list[str]]:
    """Namespaces and live processes of the site's twin still on the machine."""
    namespaces = sorted(ns for ns in runtime.netns_list() if ns.startswith("mm-aus1-"))
    processes = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmdline = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if b"mm-aus1-" in cmdline:
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


def test_example_up_verify_down(clean: None) -> None:
    first = meetme("twin", "up")
    assert first.returncode == 0, first.stderr
    assert "twin aus1: up, 25 routers in 26 namespaces" in first.stdout
    again = meetme("twin", "up")  # idempotent: nothing is built twice
    assert again.returncode == 0 and "already up" in again.stdout

    done = meetme("twin", "verify", "--json")
    report = json.loads(done.stdout)
    results = [Result(**r) for r in report["results"]]
    by_check: dict[str, list[Result]] = {}
    for r in results:
        by_check.setdefault(r.check, []).append(r)
    for check in ("sessions", "ecmp", "edge", "prefix-limit", "exports", "failover"):
        bad = [r.message for r in by_check[check] if not r.ok]
        assert by_check[check] and not bad, (check, bad)
    # 422 sessions declared on 18 devices, 42 of them in tenant VRFs (not emulated), and the
    # flooded peer's two IPv4 sessions, which the prefix-limit check covers
    assert len(by_check["sessions"]) == 422 - 42 - 2
    edge = {r.message for r in by_check["edge"]}
    assert "aus1-br1: session transit-a (192.0.2.0): bogon 100.64.0.0/10 rejected" in edge
    assert "aus1-br1: session transit-a (192.0.2.0): legitimate 1.1.1.0/24 accepted" in edge
    assert "aus1-br2: session pni-cdn (192.0.2.18): own aggregate 198.51.100.0/24 rejected" in edge
    flood = {r.message for r in by_check["prefix-limit"]}
    assert (
        "aus1-br1: session ix-syd/content-a (203.0.113.50, ipv4) sent 1210 routes past its "
        "limit and is Idle (PfxCt)" in flood
    )
    exports = {r.message for r in by_check["exports"]}
    assert (
        "aus1-br2: session transit-b (192.0.2.10) receives ['198.51.100.0/24'], agreed "
        "['198.51.100.0/24']" in exports
    )
    failover = [r.message for r in by_check["failover"]]
    assert [m.split(":")[0] for m in failover] == ["aus1-br1 stopped", "aus1-br2 stopped"]
    assert all("converged in" in m for m in failover)
    # north-south through tenant VRFs is not emulated on this kernel: it fails, saying why
    clouds = [r for r in by_check["clouds"] if not r.ok]
    assert any(
        r.device == "aus1-bl5" and "gcp-ic/syd-ead1" in r.subject and "VRF gpu-a" in r.message
        for r in clouds
    )
    tenants = {(r.device, r.subject) for r in by_check["tenant-vrfs"] if not r.ok}
    assert ("aus1-lf1", "VRF gpu-a") in tenants and ("aus1-lf3", "VRF storage") in tenants
    assert report["passed"] is False and done.returncode == 1

    down = meetme("twin", "down")
    assert down.returncode == 0 and "twin aus1: down (" in down.stdout
    assert leftovers() == ([], [])
    gone = meetme("twin", "verify")
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1


def example_models() -> tuple[dict[str, DeviceModel], list[object]]:
    result = lint(EXAMPLE / "intent")
    return dict(device_models(result)), list(result.fabrics["aus1"].edge.sessions)


def twin_of(models: dict[str, DeviceModel], sessions: list[object]) -> Twin:
    return plan("aus1", models, sessions)  # type: ignore[arg-type]


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


def test_import_policy_letting_a_bogon_in_fails_edge(clean: None) -> None:
    models, sessions = example_models()
    br1 = models["aus1-br1"]
    maps = tuple(
        _without_bogon_filter(m) if m.name == "RM-TRANSIT-TRANSIT-A-IN-V4" else m
        for m in br1.route_maps
    )
    models["aus1-br1"] = br1.model_copy(update={"route_maps": maps})
    twin = twin_of(models, sessions)
    runtime.up(twin)
    verifier = Verifier(twin)
    verifier.settle()
    bad = [r for r in verifier.edge_results() if not r.ok]
    assert [r.message for r in bad] == [
        "aus1-br1: session transit-a (192.0.2.0): bogon 100.64.0.0/10 accepted (must be rejected)"
    ]
