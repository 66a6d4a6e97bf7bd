"""The VRF-lite handoff renders a family only where it carries something: prefixes to send
north in it, or the default route to send south (`internet: default` in a family the VRF
routes). An IPv6-only VRF gets no IPv4 sessions, prefix lists, route maps or leaks, on any
platform of the borders or the border leaves; an `internet: none` VRF exporting no IPv6
prefix gets no IPv6 sessions; a VRF carrying nothing gets nothing and HANDOFF-012
(docs/architecture.md#north-south, docs/standards.md#handoff-012, #flow-003)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import (
    EXAMPLE_INTENT,
    findings_of,
    line_of,
    lint_repo,
    no_transit_sends_a_default,
    private_vrfs_online,
    replace_in,
)
from meetme.generators.model import DeviceModel
from meetme.generators.render import render_device
from typer.testing import CliRunner
from variants import borders_to_eos, borders_to_nxos, front_ends_private

from meetme.cli import app
from meetme.pipeline import LintResult, device_models, lint, rendered_files

TENANTS = "intent/aus1/tenants.yaml"
HANDOFF = "intent/aus1/attachments.yaml"
PEERING = "intent/aus1/peering.yaml"
BORDERS = ("aus1-br1", "aus1-br2")


def _afis(model: DeviceModel, vrf: str) -> list[str]:
    """The families of the model's handoff sessions in the VRF, one per session, sorted."""
    return sorted(n.afi for n in model.bgp.in_vrf(vrf) if n.kind == "handoff")


def _v6_only_mgmt(repo: Path) -> None:
    """gpu-a-mgmt routes IPv6 only and exports an IPv6 prefix north; Internet access stays."""
    replace_in(repo / TENANTS, "gateway_v4: 10.51.1.1/24", 'gateway_v6: "2001:db8:51:1::1/64"')
    replace_in(repo / TENANTS, "gateway_v4: 10.51.2.1/24", 'gateway_v6: "2001:db8:51:2::1/64"')
    replace_in(repo / HANDOFF, "export_north: [10.51.0.0/16]", 'export_north: ["2001:db8:51::/48"]')


def _border_leaves(*names: str) -> Callable[[Path], None]:
    def move(repo: Path) -> None:
        replace_in(
            repo / HANDOFF,
            "border_leaves: [aus1-bl1, aus1-bl2]",
            f"border_leaves: [{', '.join(names)}]",
        )

    return move


SCENARIOS: dict[str, tuple[Callable[[Path], None], tuple[str, str]]] = {
    # (what moves, the handoff border leaves); the example: EOS border leaves, IOS-XR borders
    "eos-leaves-iosxr-borders": (lambda repo: None, ("aus1-bl1", "aus1-bl2")),
    "nxos-leaves": (_border_leaves("aus1-bl3", "aus1-bl4"), ("aus1-bl3", "aus1-bl4")),
    "nvue-leaves": (_border_leaves("aus1-bl5", "aus1-bl6"), ("aus1-bl5", "aus1-bl6")),
    "eos-borders": (borders_to_eos, ("aus1-bl1", "aus1-bl2")),
    "nxos-borders": (borders_to_nxos, ("aus1-bl1", "aus1-bl2")),
}


def _clean(result: LintResult) -> None:
    """No error, and no handoff, flow or rendered-config finding at all but HANDOFF-013 (the
    private-only VRFs these tests put online have no public source)."""
    assert [f.message for f in result.findings if f.severity == "error"] == []
    noisy = [
        f
        for f in result.findings
        if f.rule.startswith(("HANDOFF-", "FLOW-", "CFG-")) and f.rule != "HANDOFF-013"
    ]
    assert noisy == []


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_an_ipv6_only_vrf_hands_off_ipv6_only(example: Path, scenario: str) -> None:
    private_vrfs_online(example)
    move, leaves = SCENARIOS[scenario]
    move(example)
    _v6_only_mgmt(example)
    result = lint_repo(example)
    _clean(result)  # FLOW-003 too: no IPv4 default is promised to an IPv6-only VRF
    models = device_models(result)
    for name in (*leaves, *BORDERS):
        model = models[name]
        sessions = [n for n in model.bgp.in_vrf("gpu-a-mgmt") if n.kind == "handoff"]
        # two links to each border (from each border leaf): four IPv6 sessions, no IPv4 one
        assert sorted(n.afi for n in sessions) == ["ipv6"] * 4, name
        policies = [p.name for p in (*model.prefix_lists, *model.route_maps)]
        assert [p for p in policies if "GPU-A-MGMT" in p and p.endswith("-V4")] == [], name
        assert "PL-HANDOFF-GPU-A-MGMT-NORTH-V6" in policies, name
        # the sub-interfaces keep the links' IPv4 /31 (harmless) and carry the /127
        subs = [i for i in model.interfaces if i.name.endswith(".3102")]
        assert len(subs) == 4 and all(i.ipv4 and i.ipv6 for i in subs), name
    for border in BORDERS:
        (vrf,) = [v for v in models[border].vrfs if v.name == "gpu-a-mgmt"]
        assert vrf.address_families == ("ipv6",)
        assert [leak.afi for leak in vrf.leaks] == ["ipv6"]
        leak_maps = [
            m for m in models[border].route_maps if m.name.startswith("RM-LEAK-GPU-A-MGMT")
        ]
        # per family (IOS-XR, NX-OS) or one per VRF (EOS): an IPv6 entry only either way
        assert leak_maps and all(
            e.match_prefix_list == "PL-HANDOFF-DEFAULT-V6" for m in leak_maps for e in m.entries
        )
    # the dual-stack gpu-a is as before: both families, both leaks
    (gpu,) = [v for v in models["aus1-br1"].vrfs if v.name == "gpu-a"]
    assert gpu.address_families == ("ipv4", "ipv6")
    assert [leak.afi for leak in gpu.leaks] == ["ipv4", "ipv6"]
    # and in the configs an engineer pastes: nothing of the VRF's IPv4 handoff anywhere
    files = rendered_files(result)
    for path, text in files.items():
        for v4 in (
            "GPU-A-MGMT-NORTH-V4",
            "GPU-A-MGMT-IN-V4",
            "GPU-A-MGMT-OUT-V4",
            "MGMT-FROM-DEFAULT-V4",
        ):
            assert v4 not in text, (path, v4)
    for name in (*leaves, *BORDERS):
        (text,) = [t for p, t in files.items() if Path(p).stem == name]
        assert "PL-HANDOFF-GPU-A-MGMT-NORTH-V6" in text, name


def test_the_iosxr_border_defines_an_ipv6_only_vrf_with_its_ipv4_link_addresses(
    example: Path,
) -> None:
    private_vrfs_online(example)
    _v6_only_mgmt(example)
    text = rendered_files(lint_repo(example))["aus1/aus1-br1.cfg"]
    # the VRF keeps IPv4 for its sub-interfaces' /31s; only IPv6 imports the default
    assert (
        "vrf gpu-a-mgmt\n"
        " address-family ipv4 unicast\n"
        " !\n"
        " address-family ipv6 unicast\n"
        "  import from default-vrf route-policy RM-LEAK-GPU-A-MGMT-FROM-DEFAULT-V6\n"
        " !\n"
        "!\n"
    ) in text
    # under router bgp: the IPv6 family only
    bgp = text[text.index(" vrf gpu-a-mgmt\n  rd ") :]
    bgp = bgp[: bgp.index("\n !\n")]
    assert "address-family ipv4" not in bgp
    assert bgp.startswith(
        " vrf gpu-a-mgmt\n"
        "  rd 10.0.0.1:3102\n"
        "  bgp bestpath as-path multipath-relax\n"
        "  address-family ipv6 unicast\n"
        "   maximum-paths ebgp 64\n"
        "  !\n"
        "  neighbor 2001:db8:0:1000::1500\n"
    )


def test_a_dual_stack_vrf_keeps_both_families(example: Path) -> None:
    private_vrfs_online(example)
    models = device_models(lint_repo(example))
    bl1 = models["aus1-bl1"]
    assert _afis(bl1, "gpu-a") == ["ipv4"] * 4 + ["ipv6"] * 4
    # IPv4-only VRFs with Internet access: IPv4 only, as before
    for vrf in ("gpu-a-mgmt", "storage"):
        assert _afis(bl1, vrf) == ["ipv4"] * 4
        (plain,) = [v for v in models["aus1-br1"].vrfs if v.name == vrf]
        assert plain.address_families == ("ipv4",)
        assert [leak.afi for leak in plain.leaks] == ["ipv4"]


def _gpu_a_without_internet(repo: Path) -> None:
    """gpu-a routes IPv6 (three networks have an IPv6 gateway) but exports IPv4 only."""
    replace_in(
        repo / HANDOFF,
        'internet: default, public: [198.51.100.128/26, "2001:db8:4000:50::/64"]',
        "internet: none",
    )
    front_ends_private(repo)


def test_an_internet_none_vrf_without_ipv6_exports_runs_no_ipv6_sessions(example: Path) -> None:
    _gpu_a_without_internet(example)
    result = lint_repo(example)
    _clean(result)
    models = device_models(result)
    for name in ("aus1-bl1", "aus1-bl2", *BORDERS):
        model = models[name]
        assert _afis(model, "gpu-a") == ["ipv4"] * 4, name
        policies = [p.name for p in (*model.prefix_lists, *model.route_maps)]
        assert [p for p in policies if "-GPU-A-" in p and p.endswith("-V6")] == [], name
        assert "PL-HANDOFF-GPU-A-NORTH-V4" in policies, name
        subs = [i for i in model.interfaces if i.name.endswith(".3101")]
        assert len(subs) == 4 and all(i.ipv4 and i.ipv6 is None for i in subs), name
    (plain,) = [v for v in models["aus1-br1"].vrfs if v.name == "gpu-a"]
    assert plain.address_families == ("ipv4",) and plain.leaks == ()
    text = rendered_files(result)["aus1/aus1-bl1.cfg"]
    assert "PL-HANDOFF-GPU-A-NORTH-V6" not in text and "PL-HANDOFF-GPU-A-NORTH-V4" in text


def test_an_ipv6_export_brings_the_ipv6_sessions_back(example: Path) -> None:
    """The boundary: one IPv6 prefix to send north is something to carry."""
    _gpu_a_without_internet(example)
    replace_in(
        example / HANDOFF,
        "export_north: [10.50.0.0/16]",
        'export_north: [10.50.0.0/16, "2001:db8:50::/48"]',
    )
    result = lint_repo(example)
    _clean(result)
    bl1 = device_models(result)["aus1-bl1"]
    assert _afis(bl1, "gpu-a") == ["ipv4"] * 4 + ["ipv6"] * 4


def test_a_vrf_carrying_nothing_is_handoff012_and_renders_nothing(example: Path) -> None:
    private_vrfs_online(example)
    replace_in(
        example / HANDOFF,
        "storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: default,",
        "storage: {vlan: 3110, internet: none,",
    )
    result = lint_repo(example)
    line = line_of(example / HANDOFF, "storage: {vlan: 3110")
    assert findings_of(result, "HANDOFF-012") == [
        f"{HANDOFF}:{line}: handoff VRF storage of site aus1 has nothing to hand off: no "
        "export_north or public prefix to send north and `internet: none`, so its sessions "
        "would exchange nothing in either family and none are rendered; export the VRF's "
        "subnets north, set `internet: default`, or remove it from the handoff"
    ]
    (finding,) = [f for f in result.findings if f.rule == "HANDOFF-012"]
    assert finding.severity == "warning"
    assert finding.path == "sites.aus1.handoff.vrfs.storage"
    assert result.errors == []
    models = device_models(result)
    for name in ("aus1-bl1", "aus1-bl2", *BORDERS):
        model = models[name]
        assert [n for n in model.bgp.neighbors if n.kind == "handoff" and n.vrf == "storage"] == []
        assert [i.name for i in model.interfaces if i.name.endswith(".3110")] == []
        policies = [p.name for p in (*model.prefix_lists, *model.route_maps)]
        assert [p for p in policies if "STORAGE" in p] == [], name
    assert "storage" not in [v.name for v in models["aus1-br1"].vrfs]
    # the other VRFs hand off as before
    assert _afis(models["aus1-bl1"], "gpu-a-mgmt") == ["ipv4"] * 4
    assert CliRunner().invoke(app, ["lint"]).exit_code == 0  # a warning


def test_internet_alone_is_something_to_carry(example: Path) -> None:
    """The boundary: nothing north but a default south is no HANDOFF-012, in IPv4 only (the
    family storage routes)."""
    private_vrfs_online(example)
    replace_in(
        example / HANDOFF,
        "storage: {vlan: 3110, export_north: [10.60.0.0/16], internet: default,",
        "storage: {vlan: 3110, internet: default,",
    )
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-012") == []
    bl1 = device_models(result)["aus1-bl1"]
    assert _afis(bl1, "storage") == ["ipv4"] * 4


def test_flow003_follows_an_ipv6_only_vrf_in_ipv6_only(example: Path) -> None:
    """No transit sends a default: the IPv6-only VRF misses ::/0, and is not told about an
    IPv4 default it was never promised."""
    private_vrfs_online(example)
    _v6_only_mgmt(example)
    no_transit_sends_a_default(example)
    line = line_of(example / HANDOFF, "gpu-a-mgmt: {vlan: 3102")
    found = [f for f in findings_of(lint_repo(example), "FLOW-003") if "VRF gpu-a-mgmt" in f]
    assert found == [
        f"{HANDOFF}:{line}: VRF gpu-a-mgmt, {border}: no session of {border}'s Internet table "
        f"(nor of its pair's, over iBGP) admits a default route (::/0), so {border} has "
        f"none to give the VRF and the route stops at {border}: set `accept_default: true` on "
        "a transit that sends one, or set `internet: none`"
        for border in BORDERS
    ]


def test_flow003_a_vrf_routing_ipv6_over_ipv4_only_handoff_links(example: Path) -> None:
    """Without pools.p2p_v6 the handoff links carry IPv4 only: gpu-a (dual-stack, internet:
    default, its IPv6 public prefix removed so HANDOFF-006 has nothing to say) gets no IPv6
    session, so its IPv6 hosts have no default route. It linted clean. IPv4 stays quiet, and so
    do gpu-a-mgmt and storage, which route IPv4 only."""
    replace_in(example / "intent/aus1/site.yaml", "      p2p_v6: 2001:db8:0:1000::/52\n", "")
    replace_in(example / HANDOFF, ', "2001:db8:4000:50::/64"]', "]")
    line = line_of(example / HANDOFF, "gpu-a:   {vlan: 3101")
    assert findings_of(lint_repo(example), "FLOW-003") == [
        f"{HANDOFF}:{line}: VRF gpu-a: it routes IPv6, but no border leaf of the handoff has an "
        "IPv6 session in it, so no default route (::/0) reaches it: give the handoff links IPv6 "
        "addresses (pools.p2p_v6) or drop the VRF's IPv6 gateways"
    ]


@pytest.mark.parametrize(
    ("export", "limit"),
    [
        # /48 le 64: 2**17 - 1 prefixes, all of them admitted
        ("2001:db8:51::/48", 131_071),
        # /40 le 64: 2**25 - 1 = 33,554,431 admitted, more than IOS-XR is given: the intent's
        # bound, 10,000,000 (it rendered maximum-prefix 33554431; a /32, 8589934591)
        ("2001:db8::/40", 10_000_000),
    ],
)
def test_the_borders_raised_handoff_limit_stops_at_what_the_platform_takes(
    example: Path, export: str, limit: int
) -> None:
    _v6_only_mgmt(example)
    replace_in(example / HANDOFF, '"2001:db8:51::/48"', f'"{export}"')
    model = device_models(lint_repo(example))["aus1-br1"]
    limits = {n.max_prefix for n in model.bgp.in_vrf("gpu-a-mgmt") if n.kind == "handoff"}
    assert limits == {limit}
    assert f"maximum-prefix {limit} 80 restart 5" in render_device(model)


def test_a_handoff_limit_is_raised_to_what_the_import_list_admits() -> None:
    """README's figure: gpu-a's `max_prefix: 10` on the borders' sessions is 512 in IPv4
    (10.50.0.0/16 to /24 is 511 prefixes, and the public /26) and stays 10 in IPv6, whose
    list admits fewer."""
    border = device_models(lint(EXAMPLE_INTENT))["aus1-br1"]
    limits = {
        (n.afi, n.max_prefix)
        for n in border.bgp.neighbors
        if n.kind == "handoff" and n.vrf == "gpu-a"
    }
    assert limits == {("ipv4", 512), ("ipv6", 10)}
