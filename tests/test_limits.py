"""LIMIT-001 (an underlay prefix limit below what the underlay carries) at its boundary, and
lint reporting the model-level findings in the same run as the design errors.

The example's aus1 underlay, counted by hand from intent/aus1: 18 devices, each with an IPv4
router-id loopback (18 routes); 12 VTEPs (6 leaves, 6 border leaves), each with a VTEP
address, and lf1/lf2's shared anycast VTEP 10.0.1.201: 13 routes. 31 IPv4 routes in all; a
spine learns all but its own loopback: 30. IPv6: 18 loopbacks and the SRv6 locators of lf1
and lf2 (the borders' 2001:db8:4000::/36 aggregate is not an underlay route): 20; a spine
learns 19.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

from meetme.core.problems import IntentError

SITE = "intent/aus1/site.yaml"
LIMIT = "      max_prefix: 12000"


def _limit(example: Path, value: int) -> int:
    replace_in(example / SITE, LIMIT, f"      max_prefix: {value}")
    return line_of(example / SITE, f"max_prefix: {value}")


def _multicast_gateway_mac(example: Path) -> None:
    replace_in(example / "intent/aus1/tenants.yaml", '"00:1c:73:00:00:99"', '"01:1c:73:00:00:99"')


def _message(family: str, learned: int, limit: int) -> str:
    return (
        f"site aus1: aus1-sp4 learns {learned} {family} routes over each underlay session (the "
        "loopbacks, VTEP addresses and SRv6 locators the site's other devices advertise) but "
        f"its sessions accept {limit} (underlay.max_prefix): every such session exceeds its "
        f"limit and is torn down; raise it to at least {learned}"
    )


@pytest.mark.parametrize("limit", [30, 31])
def test_a_limit_that_holds_every_underlay_route_is_clean(example: Path, limit: int) -> None:
    _limit(example, limit)
    result = lint_repo(example)
    assert findings_of(result, "LIMIT-001") == []
    assert not result.errors


def test_one_route_short_tears_the_ipv4_underlay_down(example: Path) -> None:
    line = _limit(example, 29)
    result = lint_repo(example)
    assert findings_of(result, "LIMIT-001") == [f"{SITE}:{line}: {_message('IPv4', 30, 29)}"]
    assert [f.severity for f in result.findings if f.rule == "LIMIT-001"] == ["error"]


@pytest.mark.parametrize(
    ("limit", "families"),
    [(19, [("IPv4", 30)]), (18, [("IPv4", 30), ("IPv6", 19)])],
)
def test_each_family_is_counted_on_its_own(
    example: Path, limit: int, families: list[tuple[str, int]]
) -> None:
    line = _limit(example, limit)
    assert sorted(findings_of(lint_repo(example), "LIMIT-001")) == sorted(
        f"{SITE}:{line}: {_message(family, learned, limit)}" for family, learned in families
    )


def test_the_other_site_keeps_its_own_count(example: Path) -> None:
    """mel1 has its own underlay and limit: aus1's too-low limit says nothing of mel1."""
    _limit(example, 29)
    messages = findings_of(lint_repo(example), "LIMIT-001")
    assert len(messages) == 1 and "site aus1:" in messages[0]


def test_model_findings_come_in_the_same_run_as_design_errors(example: Path) -> None:
    """A design error (EVPN-018: a multicast anycast gateway MAC) no longer hides what the
    built models show (LIMIT-001): both are reported by one lint, and nothing is rendered."""
    line = _limit(example, 29)
    _multicast_gateway_mac(example)
    result = lint_repo(example)
    assert findings_of(result, "LIMIT-001") == [f"{SITE}:{line}: {_message('IPv4', 30, 29)}"]
    assert sorted({f.rule for f in result.errors}) == ["EVPN-018", "LIMIT-001"]
    assert result.models is None  # nothing was built for a render from this intent
    assert result.rendered == {}


def test_a_model_the_design_errors_break_leaves_the_design_errors_alone(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a design error breaks what the builders take for granted, the run reports the
    design errors as before, and no traceback."""
    import meetme.pipeline as pipeline

    def broken(*_args: object) -> object:
        raise KeyError("a device the design error left out")

    _limit(example, 29)
    _multicast_gateway_mac(example)
    monkeypatch.setattr(pipeline, "build_models", broken)
    result = lint_repo(example)
    assert sorted({f.rule for f in result.errors}) == ["EVPN-018"]


def test_a_waiver_covers_a_model_finding(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Waivers and the standards profile judge every finding of the run, the model findings
    too: a waived LIMIT-001 is reported as waived, its waiver is used (no WAIVER-002), and the
    lint passes; a severity override turns it into a warning the same way."""
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    _limit(example, 29)
    waivers = example / "intent/waivers.yaml"
    waivers.write_text(
        "waivers:\n"
        "  - rule: LIMIT-001\n    object: sites.aus1.underlay.max_prefix\n"
        "    reason: lab site, sessions cleared by hand\n    owner: netops-aus\n"
        "    expires: 2026-06-30\n"
    )
    result = lint_repo(example)
    assert [(f.rule, f.severity) for f in result.findings if f.rule == "LIMIT-001"] == [
        ("LIMIT-001", "waived")
    ]
    assert [f.rule for f in result.findings if f.rule.startswith("WAIVER-")] == []
    assert not result.errors
    waivers.write_text("standards:\n  severity:\n    LIMIT-001: warning\n")
    result = lint_repo(example)
    assert [(f.rule, f.severity) for f in result.findings if f.rule == "LIMIT-001"] == [
        ("LIMIT-001", "warning")
    ]
    assert not result.errors


# --- LIMIT-002: the overlay's route limit -------------------------------------------------------
# aus1's VTEPs by hand (intent/aus1/tenants.yaml: each network's racks, and the leaves of those
# racks): lf1 and lf2 carry 10101-10104, 10111, 10112, 10211, 10212. Other VTEPs on each:
# 10101 and 10102 lf2 only (1 each); 10103 and 10104 lf2, lf5, lf6 (3 each); 10111, 10112 and
# 10212 lf2, lf3, lf4 (3 each); 10211 lf2-lf6 (5). lf1 imports 1+1+3+3+3+3+3+5 = 22 inclusive-
# multicast routes before any host.
# IP prefix routes, one per gateway subnet (each family) and aggregate a VTEP originates in a
# VRF: gpu-a's compute-1 and -2 (both families, dh1-r10) and -3, -4 (IPv4, dh1-r10 and dh1-r11)
# give lf1, lf2 6 each and lf5, lf6 2; gpu-a-public (both, dh2-r10) lf3, lf4 2; the AWS border
# leaves bl1, bl2 and the GCP ones bl5, bl6 originate 10.50.0.0/16 (clouds.yaml `advertise:`):
# gpu-a 24 in all. gpu-a-mgmt's oob-1, -2 (dh1-r10, dh2-r10): 2 each on lf1-lf4, 8. storage's
# front-1..4 (dh2-r10): 4 each on lf3, lf4, and 10.60.0.0/16 on the AWS (bl1, bl2) and Azure
# (bl3, bl4) border leaves: 12. lf1 carries all three VRFs: (24 - 6) + (8 - 2) + (12 - 0) = 36
# more, 58 in all; lf2 the same, and ties go to the later name.

TENANTS = "intent/aus1/tenants.yaml"
EVPN_BLOCK = '      anycast_mac: "00:1c:73:00:00:99"  # one gateway MAC fabric-wide\n'


def _max_routes(example: Path, value: int) -> int:
    replace_in(example / TENANTS, EVPN_BLOCK, f"{EVPN_BLOCK}      max_routes: {value}\n")
    return line_of(example / TENANTS, f"max_routes: {value}")


@pytest.mark.parametrize("limit", [58, 59])
def test_an_evpn_limit_that_holds_the_flood_lists_is_clean(example: Path, limit: int) -> None:
    _max_routes(example, limit)
    assert findings_of(lint_repo(example), "LIMIT-002") == []


def test_one_route_short_tears_the_overlay_down(example: Path) -> None:
    line = _max_routes(example, 57)
    assert findings_of(lint_repo(example), "LIMIT-002") == [
        f"{TENANTS}:{line}: site aus1: aus1-lf2 receives at least 58 EVPN routes over each "
        "overlay session before any host is learned (an inclusive-multicast route from every "
        "other VTEP for each L2VNI they share, and an IP prefix route from every other VTEP "
        "for each gateway subnet and aggregate it originates in a VRF they share) but its "
        "sessions accept 57 (evpn.max_routes): every such session exceeds its limit and is "
        "torn down; raise it to at least 58, with room for the hosts' routes"
    ]


# --- the bounds of a limit: the intent's, and NX-OS's (PLAT-022) -------------------------------


@pytest.mark.parametrize(("value", "refused"), [(10_000_000, False), (10_000_001, True)])
def test_the_underlay_limit_has_the_bound_of_every_other_limit(
    example: Path, value: int, refused: bool
) -> None:
    """It had none: 4294967296 rendered on every platform, past what any of them takes."""
    replace_in(example / SITE, LIMIT, f"      max_prefix: {value}")
    if not refused:
        lint_repo(example)
        return
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    assert [p.message for p in caught.value.problems] == [
        "sites.aus1.underlay.max_prefix: must be between 1 and 10000000, got 10000001"
    ]


@pytest.mark.parametrize(("value", "refused"), [(300_000, False), (300_001, True)])
def test_nxos_takes_prefix_limits_up_to_300000(example: Path, value: int, refused: bool) -> None:
    """aus1's NX-OS devices (lf3, lf4, bl3, bl4) each refuse the underlay limit once, at their
    platform line; lf3 names its 8 underlay sessions (4 spines, IPv4 and IPv6)."""
    _limit(example, value)
    found = findings_of(lint_repo(example), "PLAT-022")
    if not refused:
        assert found == []
        return
    devices = example / "intent/aus1/devices.yaml"
    assert found[0] == (
        f"intent/aus1/devices.yaml:{line_of(devices, 'platform: cisco_nxos')}: aus1-lf3 (Cisco "
        "NX-OS) cannot render prefix limit 300001 on 8 session(s) (first: underlay aus1-sp1 "
        "Ethernet11/1): it takes 1-300000; lower the limit, or put what needs more on another "
        "platform"
    )
    assert [m.split(" (Cisco NX-OS)")[0].split(": ")[1] for m in found] == [
        "aus1-lf3",
        "aus1-lf4",
        "aus1-bl3",
        "aus1-bl4",
    ]
