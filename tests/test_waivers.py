"""Waivers and the standards profile: accepted exceptions that expire, severities a team sets."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import borders_to, line_of, lint_repo, replace_in
from meetme.generators.platforms.support import GAP_RULES
from meetme.validators.engine import RULES, run_rules
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError
from meetme.pipeline import lint

runner = CliRunner()
BR2 = "sites.aus1.devices.aus1-br2"


def share_mdf(repo: Path) -> None:
    """Both borders in MDF-A: PHY-001 (and PHY-003, PHY-004) on aus1-br2."""
    devices = repo / "intent/aus1/devices.yaml"
    replace_in(devices, "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(devices, "rack: mdf-b-r01", "rack: mdf-a-r01")


def waive(repo: Path, *waivers: tuple[str, str, str], standards: str = "") -> Path:
    """Write intent/waivers.yaml with (rule, object, expires) entries."""
    text = "# accepted exceptions\nwaivers:\n"
    for rule, obj, expires in waivers:
        text += (
            f"  - rule: {rule}\n    object: {obj}\n    reason: MDF-B rebuild, CHG-1234\n"
            f"    owner: netops-aus\n    expires: {expires}\n"
        )
    path = repo / "intent/waivers.yaml"
    path.write_text(text + standards)
    return path


def lint_json(*args: str) -> tuple[int, list[dict[str, object]]]:
    result = runner.invoke(app, ["lint", "--format", "json", *args])
    return result.exit_code, json.loads(result.stdout)


def of(findings: list[dict[str, object]], rule: str) -> list[dict[str, object]]:
    return [f for f in findings if f["rule"] == rule]


def test_waived_finding_is_reported_as_waived_not_as_error(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    share_mdf(example)
    _, before = lint_json()
    errors = {(str(f["rule"]), str(f["path"])) for f in before if f["severity"] == "error"}
    assert ("PHY-001", f"{BR2}.room") in errors
    waive(example, *((rule, path, "2030-01-31") for rule, path in sorted(errors)))
    code, findings = lint_json()
    assert code == 0, findings  # every error is waived
    assert not [f for f in findings if f["severity"] == "error"]
    assert {(f["rule"], f["path"]) for f in findings if f["severity"] == "waived"} == errors


def test_expired_waiver_fails_lint_at_the_waivers_file_and_line(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    share_mdf(example)
    path = waive(example, ("PHY-001", BR2, "2026-02-28"))
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 1
    expires_line = line_of(path, "expires: 2026-02-28")
    assert f"  {expires_line}:5 " in result.stdout
    assert "WAIVER-001" in result.stdout and "expired on 2026-02-28" in result.stdout
    _, findings = lint_json()
    expired = of(findings, "WAIVER-001")
    assert [(f["file"], f["line"]) for f in expired] == [("intent/waivers.yaml", expires_line)]
    # no longer waived: the finding it covered is an error again
    assert {f["severity"] for f in of(findings, "PHY-001")} == {"error"}


def test_a_waiver_holds_through_its_expiry_day(example: Path) -> None:
    share_mdf(example)
    waive(example, ("PHY-001", BR2, "2026-02-28"))
    result = lint_repo(example)
    on_the_day = run_rules(result.loaded, dict(result.fabrics), datetime.date(2026, 2, 28))
    next_day = run_rules(result.loaded, dict(result.fabrics), datetime.date(2026, 3, 1))
    assert {f.severity for f in on_the_day if f.rule == "PHY-001"} == {"waived"}
    assert not any(f.rule == "WAIVER-001" for f in on_the_day)
    assert any(f.rule == "WAIVER-001" for f in next_day)


def test_waiver_matching_nothing_is_an_error(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    path = waive(example, ("PHY-001", BR2, "2030-01-31"))  # the example is clean
    code, findings = lint_json()
    assert code == 1
    unused = of(findings, "WAIVER-002")
    assert [(f["file"], f["line"]) for f in unused] == [
        ("intent/waivers.yaml", line_of(path, "- rule: PHY-001"))
    ]
    assert "matches no finding" in str(unused[0]["message"])


def test_object_is_a_path_prefix_on_dot_boundaries(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    share_mdf(example)
    waive(example, ("PHY-001", "sites.aus1.devices.aus1-br", "2030-01-31"))
    _, findings = lint_json()
    assert {f["severity"] for f in of(findings, "PHY-001")} == {"error"}  # not aus1-br2
    assert of(findings, "WAIVER-002")


def test_unknown_rule_in_waiver_or_profile_is_an_error(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    path = waive(
        example,
        ("PHY-099", BR2, "2030-01-31"),
        standards="standards:\n  severity:\n    ADDR-099: warning\n",
    )
    code, findings = lint_json()
    assert code == 1
    unknown = of(findings, "WAIVER-003")
    assert sorted(f["line"] for f in unknown) == [
        line_of(path, "- rule: PHY-099"),
        line_of(path, "ADDR-099: warning"),
    ]


def test_standards_profile_overrides_a_rules_severity(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    share_mdf(example)
    code, findings = lint_json()
    assert code == 1
    rules = sorted({str(f["rule"]) for f in findings if f["severity"] == "error"})
    profile = "".join(f"    {rule}: warning\n" for rule in rules)
    (example / "intent/standards.yaml").write_text(f"standards:\n  severity:\n{profile}")
    code, findings = lint_json()
    assert code == 0
    assert {f["severity"] for f in findings} == {"warning"}


def test_waiver_needs_owner_reason_and_a_real_date(example: Path) -> None:
    path = example / "intent/waivers.yaml"
    path.write_text(
        f"waivers:\n  - rule: PHY-001\n    object: {BR2}\n    reason: r\n    expires: 2030-02-30\n"
    )
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 2
    assert "intent/waivers.yaml:2:" in result.stderr and "owner" in result.stderr
    assert f"intent/waivers.yaml:{line_of(path, 'expires')}:" in result.stderr


def test_meetme_today_must_be_a_date(example: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEETME_TODAY", "tomorrow")
    with pytest.raises(ValueError, match="MEETME_TODAY"):
        lint(example / "intent")


def test_waiver_rules_are_in_the_catalogue(example: Path) -> None:
    listing = runner.invoke(app, ["rules"]).stdout
    for rule in ("WAIVER-001", "WAIVER-002", "WAIVER-003"):
        assert rule in listing
    explained = runner.invoke(app, ["explain", "waiver-001"])
    assert explained.exit_code == 0 and "expire" in explained.stdout


@pytest.mark.parametrize(
    ("expires", "refused"),
    [
        ("2099-12-31", False),
        ('"2099-12-31"', False),  # quoted: the same day
        ("4102444800", True),  # a Unix time (2100-01-01) pydantic would have taken as a day
        ("20991231", True),
        ('"20991231"', True),
        ("2099-12-31T10:00:00", True),  # a moment, not a day
    ],
)
def test_a_waiver_expires_on_a_day_written_as_a_day(
    example: Path, expires: str, refused: bool
) -> None:
    path = waive(example, ("PHY-001", "sites.aus1", expires))
    if not refused:
        lint_repo(example)  # no IntentError
        return
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    (only,) = caught.value.problems
    assert (only.location.file, only.location.line) == (
        "intent/waivers.yaml",
        line_of(path, "expires:"),
    )
    assert only.message == "waivers.0.expires: write the last day as YYYY-MM-DD, e.g. 2026-06-30"


@pytest.mark.parametrize("zone", ["Etc/GMT+12", "Pacific/Kiritimati"])  # UTC-12, UTC+14
def test_waivers_are_judged_on_the_utc_day_in_every_time_zone(
    zone: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two machines 26 hours apart in local time judge a waiver on one day: UTC's."""
    import time

    from meetme.core.findings import current_date

    monkeypatch.delenv("MEETME_TODAY", raising=False)
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        before = datetime.datetime.now(datetime.UTC).date()
        today = current_date()
        after = datetime.datetime.now(datetime.UTC).date()
        assert today in (before, after)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_platform_gap_takes_no_waiver_and_no_lower_severity(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A waived or lowered PLAT-* finding would pass lint and then fail render with exit 3
    (the renderer refuses a device with a gap): the gap stays an error, and the waiver or the
    override is a WAIVER-004 error at its own line; an override that keeps `error` is none."""
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    borders_to(example, "cisco_nxos", "N9K-C9364D-GX2A", "Ethernet1/{}")  # RPKI kept: PLAT-001
    _, before = lint_json()
    gaps = sorted({(str(f["rule"]), str(f["path"])) for f in before if f["rule"] == "PLAT-001"})
    assert gaps, "the NX-OS borders are asked for RPKI"
    path = waive(
        example,
        *((rule, obj, "2030-01-31") for rule, obj in gaps),
        standards="standards:\n  severity:\n    PLAT-001: warning\n    PLAT-007: error\n",
    )
    code, findings = lint_json()
    assert code == 1
    assert {f["severity"] for f in of(findings, "PLAT-001")} == {"error"}
    refused = of(findings, "WAIVER-004")
    assert sorted(int(str(f["line"])) for f in refused) == sorted(
        [*[line_of(path, "- rule: PLAT-001")] * len(gaps), line_of(path, "PLAT-001: warning")]
    )
    assert all("takes no waiver and no severity override" in str(f["message"]) for f in refused)
    assert not of(findings, "WAIVER-002")  # refused, not unused
    rendered = runner.invoke(app, ["render"])
    assert rendered.exit_code == 1, rendered.output  # lint's error, not an internal one
    assert "internal error" not in rendered.output


def _spine_on_iosxr(repo: Path) -> tuple[str, str]:
    """aus1-sp1 on IOS-XR, which renders no EVPN: EVPN-009 at the spine."""
    replace_in(
        repo / "intent/aus1/devices.yaml",
        "      aus1-sp1:\n        id: 11\n        role: spine\n        platform: arista_eos\n"
        "        model: 7060X6-64PE",
        "      aus1-sp1:\n        id: 11\n        role: spine\n        platform: cisco_iosxr\n"
        "        model: 8201-32FH",
    )
    return "EVPN-009", "sites.aus1.devices.aus1-sp1.platform"


def _esi_pair_on_nxos(repo: Path) -> tuple[str, str]:
    """aus1-lf5/lf6, the ESI pair, on NX-OS, which hosts no Ethernet segment: EVPN-011 at
    the attachment."""
    for leaf in ("aus1-lf5", "aus1-lf6"):
        replace_in(
            repo / "intent/aus1/devices.yaml",
            f"{leaf}:\n        id: 10{leaf[-1]}\n        role: leaf\n"
            "        platform: nvidia_nvue\n        model: SN5600",
            f"{leaf}:\n        id: 10{leaf[-1]}\n        role: leaf\n"
            "        platform: cisco_nxos\n        model: N9K-C9364D-GX2A",
        )
    replace_in(
        repo / "intent/aus1/attachments.yaml",
        "ports: [swp1, swp2, swp3, swp4]",
        "ports: [Ethernet1/1, Ethernet1/2, Ethernet1/3, Ethernet1/4]",
    )
    return "EVPN-011", "sites.aus1.attachments.dh1-r11-gpu-hosts.mode"


@pytest.mark.parametrize("gate", [_spine_on_iosxr, _esi_pair_on_nxos])
@pytest.mark.parametrize("how", ["waiver", "override"])
def test_a_platform_gate_of_the_design_rules_takes_no_waiver_and_no_lower_severity(
    example: Path,
    monkeypatch: pytest.MonkeyPatch,
    gate: Callable[[Path], tuple[str, str]],
    how: str,
) -> None:
    """A waived EVPN-009 rendered an IOS-XR spine with no EVPN while every leaf still peered
    with it, and a waived EVPN-011 an NX-OS leaf with an Ethernet segment NX-OS cannot host,
    both with lint, render and check at 0: each gate is closed like a PLAT-* gap, the gate
    stays an error and the waiver or override is WAIVER-004 at its line, and nothing renders."""
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    rule, path = gate(example)
    code, before = lint_json()
    assert code == 1
    assert [(f["path"], f["severity"]) for f in of(before, rule)] == [(path, "error")]
    if how == "waiver":
        written = waive(example, (rule, path, "2030-01-31"))
        at = line_of(written, f"- rule: {rule}")
    else:
        written = example / "intent/standards.yaml"
        written.write_text(f"standards:\n  severity:\n    {rule}: info\n")
        at = line_of(written, f"{rule}: info")
    code, findings = lint_json()
    assert code == 1
    assert [(f["path"], f["severity"]) for f in of(findings, rule)] == [(path, "error")]
    assert [(f["file"], f["line"]) for f in of(findings, "WAIVER-004")] == [
        (str(written.relative_to(example)), at)
    ]
    rendered = runner.invoke(app, ["render"])
    assert rendered.exit_code == 1, rendered.output  # the gate's error: nothing written
    assert not (example / "rendered").exists()


def test_a_design_rule_still_takes_a_waiver_and_an_override() -> None:
    """The boundary: only the platform gaps are closed to waivers."""
    assert RULES["PHY-001"].waivable and RULES["ADDR-003"].waivable
    assert not RULES["PLAT-001"].waivable and not RULES["PLAT-007"].waivable
    assert {r for r in GAP_RULES.values() if RULES[r].waivable} == set()


def test_a_waiver_written_twice_is_named_as_the_copy(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same waiver written twice: the first takes the finding, and the second was reported
    as matching no finding, as if its object were wrong; it names the waiver that covers it.
    A narrower waiver after a wider one of the same rule is the same case."""
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")
    share_mdf(example)
    room = f"{BR2}.room"
    circuits, hume = "dci.circuits", "dci.circuits.syd-mel-hume"  # DCI-009 warns on both
    path = waive(
        example,
        ("PHY-001", room, "2030-01-31"),
        ("PHY-001", room, "2030-01-31"),
        ("DCI-009", circuits, "2030-01-31"),
        ("DCI-009", hume, "2030-01-31"),
    )
    _, findings = lint_json()
    unused = [(f["line"], f["message"]) for f in of(findings, "WAIVER-002")]
    starts = [i + 1 for i, t in enumerate(path.read_text().splitlines()) if "- rule:" in t]
    assert unused == [
        (
            starts[1],
            f"waiver of PHY-001 on {room} (owner netops-aus) matches no finding: waiver 1 of "
            f"the list, of {room}, already covers every finding it would; remove it",
        ),
        (
            starts[3],
            f"waiver of DCI-009 on {hume} (owner netops-aus) matches no finding: waiver 3 of "
            f"the list, of {circuits}, already covers every finding it would; remove it",
        ),
    ]


def test_an_impossible_day_is_named_as_such(example: Path) -> None:
    """`expires: 2027-02-30` was refused in pydantic's words ("Input should be a valid date or
    datetime, day value is outside expected range"); the day before it is a date."""
    path = waive(example, ("PHY-001", BR2, "2027-02-30"))
    code, findings = lint_json()
    assert code == 2
    assert [(f["line"], f["message"]) for f in findings] == [
        (
            line_of(path, "expires:"),
            "waivers.0.expires: 2027-02-30 is no day of the calendar (day is out of range for "
            "month); write the last day as YYYY-MM-DD, e.g. 2026-06-30",
        )
    ]
    waive(example, ("PHY-001", BR2, "2027-02-28"))
    code, findings = lint_json()
    assert [f["rule"] for f in findings if f["severity"] == "error"] == ["WAIVER-002"]
