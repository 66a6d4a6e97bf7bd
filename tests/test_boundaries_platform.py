"""PLAT-*: the platform gate at its edges (docs/mutation.md): PLAT-001's intent check (which
devices, with or without RTR caches), where a gap finding points, and `has_gaps`."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import borders_to, findings_of, line_of, lint_repo, replace_in
from meetme.generators.model import DeviceModel, PrefixListEntry
from meetme.generators.platforms import PLATFORMS
from meetme.validators.rules.platform import has_gaps, platform_findings
from variants import borders_to_nxos

from meetme.pipeline import LintResult, device_models

DEVICES = "intent/aus1/devices.yaml"
PEERING = "intent/aus1/peering.yaml"
SITE = "intent/aus1/site.yaml"
PARTIES = (
    "ix-syd/content-a, ix-syd/eyeball-b, ix-syd/rs1, ix-syd/rs2, pni-cdn, transit-a, transit-b"
)
RPKI_CACHES = (
    "        rpki_caches:                       # two independent RTR caches (BGP-012) "
    "on the services LAN\n"
    "          - {address: 10.9.0.11, port: 3323}\n"
    "          - {address: 10.9.0.12, port: 3323}\n"
)


# --- PLAT-001 on the intent: RTR caches on a platform without RPKI -----------------------------


def test_plat001_nxos_borders_with_internet_sessions_and_caches(example: Path) -> None:
    """Only the borders hold Internet sessions: the NX-OS leaves and border leaves, which
    have none, are not named."""
    borders_to(example, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")
    line = line_of(example / PEERING, "rpki_caches:")
    assert findings_of(lint_repo(example), "PLAT-001") == [
        f"{PEERING}:{line}: {border} (Cisco NX-OS) cannot render RPKI origin validation toward "
        f"{PARTIES}: no verified RTR cache or origin-validation form"
        for border in ("aus1-br1", "aus1-br2")
    ]


def test_plat001_nxos_borders_without_rtr_caches(example: Path) -> None:
    """No RTR caches: nothing asks for origin validation, so NX-OS borders are fine."""
    borders_to(example, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")
    replace_in(example / PEERING, RPKI_CACHES, "")
    assert findings_of(lint_repo(example), "PLAT-001") == []


def test_plat001_xr_borders_with_caches(example: Path) -> None:
    """IOS-XR validates origins: the example's borders raise no PLAT-001."""
    assert findings_of(lint_repo(example), "PLAT-001") == []


# --- a gap with an intent line of its own: PLAT-015, NX-OS multihop BFD ------------------------


@pytest.mark.parametrize(("interval", "gap"), [(999, False), (1000, True)])
def test_plat015_points_at_the_bfd_interval_not_the_platform_line(
    example: Path, interval: int, gap: bool
) -> None:
    site = example / SITE
    replace_in(site, "bfd: {interval: 300,", f"bfd: {{interval: {interval},")
    line = line_of(site, "bfd: {interval:")
    expected = (
        [
            f"{SITE}:{line}: {vtep} (Cisco NX-OS) cannot render multihop BFD every 1000 ms on "
            "the EVPN sessions: NX-OS takes 250-999 ms"
            for vtep in ("aus1-bl3", "aus1-bl4", "aus1-lf3", "aus1-lf4")
        ]
        if gap
        else []
    )
    assert sorted(findings_of(lint_repo(example), "PLAT-015")) == expected


# --- PLAT-029: ECMP within the multipath command's range; PLAT-030: NX-OS single-hop BFD ---------


@pytest.mark.parametrize(("ecmp", "gap"), [(256, False), (257, True)])
def test_plat029_nvue_takes_at_most_256_paths(example: Path, ecmp: int, gap: bool) -> None:
    """NVUE 5.16's `multipaths ebgp` is 1-256; the intent allows 512. The other platforms'
    ranges are unverified, so they raise nothing."""
    site = example / SITE
    replace_in(site, "ecmp: 64", f"ecmp: {ecmp}")
    line = line_of(site, f"ecmp: {ecmp}")
    expected = (
        [
            f"{SITE}:{line}: {device} (NVIDIA Cumulus Linux 5.16 (NVUE)) cannot render ECMP "
            "over 257 paths: its BGP multipath command takes 1-256"
            for device in ("aus1-bl5", "aus1-bl6", "aus1-lf1", "aus1-lf2", "aus1-lf5", "aus1-lf6")
        ]
        if gap
        else []
    )
    assert sorted(findings_of(lint_repo(example), "PLAT-029")) == expected


@pytest.mark.parametrize(("interval", "gap"), [(999, False), (1000, True)])
def test_plat030_nxos_borders_take_bfd_up_to_999_ms(
    example: Path, interval: int, gap: bool
) -> None:
    """NX-OS borders run no multihop BFD (PLAT-015's): their global single-hop timers are
    PLAT-030's, at the same line; the NX-OS VTEPs keep PLAT-015 alone for it."""
    borders_to_nxos(example)
    site = example / SITE
    replace_in(site, "bfd: {interval: 300,", f"bfd: {{interval: {interval},")
    line = line_of(site, "bfd: {interval:")
    expected = (
        [
            f"{SITE}:{line}: {border} (Cisco NX-OS) cannot render BFD every 1000 ms (the "
            "underlay's timers): NX-OS takes 50-999 ms"
            for border in ("aus1-br1", "aus1-br2")
        ]
        if gap
        else []
    )
    result = lint_repo(example)
    assert sorted(findings_of(result, "PLAT-030")) == expected
    assert len(findings_of(result, "PLAT-015")) == (4 if gap else 0)


def test_plat030_a_cloud_sessions_1000_ms_on_nxos(models: dict[str, DeviceModel]) -> None:
    """Google Cloud Router's BFD takes 1000 ms and up, printed on the session's interface: on
    NX-OS no such timer exists. 999 is the boundary."""
    leaf = models["aus1-lf3"]  # NX-OS
    first = next(n for n in leaf.bgp.neighbors if n.bfd)
    for interval, found in ((999, False), (1000, True)):
        timers = leaf.bgp.bfd.model_copy(update={"interval": interval, "min_rx": interval})
        session = first.model_copy(update={"bfd_timers": timers, "description": "gcp ic-1"})
        bgp = leaf.bgp.model_copy(update={"neighbors": (session, *leaf.bgp.neighbors[1:])})
        gaps = [
            (g.feature, g.detail)
            for g in PLATFORMS["cisco_nxos"].gaps(leaf.model_copy(update={"bgp": bgp}))
            if g.rule == "PLAT-030"
        ]
        assert gaps == (
            [
                (
                    "BFD every 1000 ms on 1 session(s) (first: gcp ic-1)",
                    "NX-OS takes 50-999 ms; put the session on another platform, or give the "
                    "party timers NX-OS takes where it allows them",
                )
            ]
            if found
            else []
        )


# --- platform_findings and has_gaps on device models --------------------------------------------


@pytest.fixture(scope="module")
def example_lint() -> LintResult:
    return lint_repo(Path(__file__).resolve().parent.parent)


@pytest.fixture(scope="module")
def models(example_lint: LintResult) -> dict[str, DeviceModel]:
    return device_models(example_lint)


def _with_deny(model: DeviceModel) -> DeviceModel:
    """A deny entry in the first prefix list: PLAT-004 on IOS-XR, nothing on EOS."""
    first = model.prefix_lists[0]
    entry = PrefixListEntry(seq=5, action="deny", prefix="192.0.2.0/24")
    changed = first.model_copy(update={"entries": [entry, *first.entries]})
    return model.model_copy(update={"prefix_lists": [changed, *model.prefix_lists[1:]]})


def test_has_gaps(models: dict[str, DeviceModel]) -> None:
    border = models["aus1-br1"]
    assert has_gaps(border) is False  # a known platform, nothing it cannot print
    assert has_gaps(_with_deny(border)) is True
    assert has_gaps(_with_deny(border).model_copy(update={"platform": "no_such_os"})) is False


def test_platform_findings_of_known_and_unknown_platforms(
    example_lint: LintResult, models: dict[str, DeviceModel]
) -> None:
    """A gap on a known platform is a finding at the device's platform line; a model of an
    unknown platform (the schema's business) is skipped, not a crash."""
    denied = _with_deny(models["aus1-br1"])
    unknown = denied.model_copy(update={"hostname": "aus1-br2", "platform": "no_such_os"})
    repo = Path(__file__).resolve().parent.parent
    found = platform_findings(example_lint.loaded, [unknown, denied, models["aus1-sp1"]])
    assert [
        (f.rule, f.location.file.endswith(DEVICES), f.location.line, f.path, f.message)
        for f in found
    ] == [
        (
            "PLAT-004",
            True,
            line_of(repo / DEVICES, "platform: cisco_iosxr"),
            "sites.aus1.devices.aus1-br1.platform",
            f"aus1-br1 (Cisco IOS-XR) cannot render prefix list {denied.prefix_lists[0].name} 5: "
            "a deny entry",
        )
    ]
