"""The benchmark at its smallest size: its intent is a valid site, and run.py reports every stage.

A smoke test, never a timed one: figures on a shared machine are not a pass/fail criterion.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from meetme.intent.yaml_source import MAX_NODES_PER_RUN, Budget, read_file
from meetme.pipeline import lint

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
# the edge (10), the example's mel1 (16), one pod's two spines and 12 leaves of two platforms
SMALLEST = 40

sys.path.insert(0, str(BENCH))
from make_intent import MIN_DEVICES, device_count, make_intent  # noqa: E402


def test_generated_intent_lints_clean_with_the_examples_feature_set(tmp_path: Path) -> None:
    intent = make_intent(SMALLEST, tmp_path)
    result = lint(intent)
    # the example's own warnings: its DCI circuits to mel1 carry no routing, and mel1's gpu-b
    # reaches the Internet from private IPv4
    assert [(f.rule, Path(f.location.file), f.location.line) for f in result.findings] == [
        ("DCI-009", intent / "dci.yaml", 9),
        ("DCI-009", intent / "dci.yaml", 21),
        ("HANDOFF-013", intent / "mel1/tenants.yaml", 28),
    ]
    assert device_count(intent) == SMALLEST == len(result.models or {})
    models = [m for m in (result.models or {}).values() if m.site == "aus1"]
    assert len(models) == SMALLEST - 16
    roles = {m.role for m in models}
    assert roles == {"border", "super_spine", "spine", "leaf", "border_leaf"}
    leaf_platforms = {m.platform for m in models if m.role == "leaf"}
    assert leaf_platforms == {"nvidia_nvue", "cisco_nxos"}  # the first pod's two
    # the SRv6 domain: aus1's IOS-XR borders take locators; the circuits to mel1 are there
    assert sorted(m.hostname for m in models if m.srv6 is not None) == ["aus1-br1", "aus1-br2"]
    assert result.loaded.intent.dci is not None and result.loaded.intent.dci.circuits
    assert set(result.loaded.intent.sites) == {"aus1", "mel1"}
    site = result.loaded.intent.sites["aus1"]
    modes = {a.mode for a in site.attachments.values()}
    assert modes == {"mlag", "esi"}
    assert site.handoff is not None and site.handoff.border_leaves == ["aus1-bl1", "aus1-bl2"]
    assert site.peering.ixes and site.peering.transits and site.peering.pnis
    assert site.peering.aws and site.peering.azure and site.peering.gcp


def test_an_odd_leaf_is_single_homed_and_every_leaf_platform_appears(tmp_path: Path) -> None:
    # the smallest two-pod site: 10 + 16 (mel1) + 2 x 2 spines + 2 x 63 leaves, each pod's
    # 63 = 32 + 31
    intent = make_intent(156, tmp_path)
    result = lint(intent)
    assert result.errors == []
    site = result.loaded.intent.sites["aus1"]
    assert "single" in {a.mode for a in site.attachments.values()}
    models = (result.models or {}).values()
    leaf_platforms = {m.platform for m in models if m.role == "leaf" and m.site == "aus1"}
    assert leaf_platforms == {"nvidia_nvue", "cisco_nxos", "arista_eos"}


def test_below_the_smallest_fabric_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="at least"):
        make_intent(MIN_DEVICES - 1, tmp_path)


def test_run_reports_every_stage(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            "--devices",
            str(SMALLEST),
            "--json",
            str(out),
            "--runs",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    assert list(figures["stages"]) == [
        "load", "resolve", "rules", "build", "render", "config lint", "write",
    ]  # fmt: skip
    assert figures["devices"] == SMALLEST
    assert figures["errors"] == 0
    assert figures["files"] >= SMALLEST
    for stage in figures["stages"].values():
        assert stage["seconds"] >= 0 and stage["cpu_seconds"] >= 0 and stage["peak_rss_mb"] > 0
    for key in ("total_seconds", "total_cpu_seconds", "devices_per_second", "ms_per_device"):
        assert figures[key] > 0
    assert figures["command"] == (
        f"python benchmarks/run.py --devices {SMALLEST} --json {out} --runs 1"
    )
    commands = figures["commands"]
    for key in (
        "render_fresh_seconds", "render_unchanged_seconds", "render_one_leaf_change_seconds",
        "diff_base_head_seconds", "render_fresh_peak_rss_mb",
    ):  # fmt: skip
        assert commands[key] > 0
    # the one-leaf change rewrites exactly that leaf's file (an EVPN-multihomed NVUE leaf)
    [rewritten] = commands["render_one_leaf_change_files_rewritten"]
    leaf = rewritten.removeprefix("aus1/").removesuffix(".yaml")
    assert commands["one_leaf_change"].startswith("intent/aus1/devices.yaml: management: ")
    assert leaf.startswith("aus1-lf")


def test_the_value_limit_holds_twice_the_largest_benchmarked_site(tmp_path: Path) -> None:
    """The reader's bound on values (an alias bomb's fence) must not refuse a real large site:
    the 4,160-device intent is read, and a site twice its size would be too."""
    intent = make_intent(4160, tmp_path)
    budget = Budget()
    for path in sorted(intent.rglob("*.yaml")):
        source, problems = read_file(path, path.name, budget)
        assert source is not None and problems == [], problems
    used = MAX_NODES_PER_RUN - budget.nodes
    assert used > 140_000 and 2 * used <= MAX_NODES_PER_RUN
