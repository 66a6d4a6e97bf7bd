"""`meetme lint --format text|json|sarif|junit|github`: what CI and a reviewer read."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import line_of, replace_in
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
BR2 = "sites.aus1.devices.aus1-br2"


ROOMS = "intent/aus1/rooms.yaml"


def break_border_pair(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both borders in one MDF (PHY-001, waived on aus1-br2 until 2030), and aus1-mdf-b, where
    the handoff's aus1-bl2 stands, moved to aus1-bl1's floor and cooling loop: PHY-003 (an
    error) and PHY-004 (demoted to a warning by the standards profile), both in rooms.yaml."""
    devices = repo / "intent/aus1/devices.yaml"
    replace_in(devices, "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(devices, "rack: mdf-b-r01", "rack: mdf-a-r01")
    replace_in(
        repo / ROOMS,
        "        floor: 2\n        power: {A: ups-2a, B: ups-2b}\n        cooling_zone: crah-2\n"
        "      aus1-dh1",
        "        floor: 1\n        power: {A: ups-2a, B: ups-2b}\n        cooling_zone: crah-1\n"
        "      aus1-dh1",
    )
    (repo / "intent/waivers.yaml").write_text(
        "waivers:\n"
        "  - rule: PHY-001\n"
        f"    object: {BR2}\n"
        "    reason: MDF-B rebuild, CHG-1234\n"
        "    owner: netops-aus\n"
        "    expires: 2030-01-31\n"
        "standards:\n"
        "  severity: {PHY-004: warning}\n"
    )
    monkeypatch.setenv("MEETME_TODAY", "2026-03-01")


def lint(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["lint", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout


def test_sarif_validates_against_the_sarif_2_1_0_schema(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_border_pair(example, monkeypatch)
    code, output = lint("--format", "sarif")
    assert code == 1
    log = json.loads(output)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)

    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    phy001 = next(r for r in rules if r["id"] == "PHY-001")
    assert phy001["shortDescription"]["text"] == "Border group members live in different MDFs"
    assert "fire suppression" in phy001["fullDescription"]["text"]  # the rationale
    assert phy001["helpUri"].startswith("https://")  # the source's link
    assert "Source:" in phy001["help"]["text"]

    by_rule = {r["ruleId"]: r for r in run["results"]}
    error = by_rule["PHY-003"]
    assert error["level"] == "error"
    assert rules[error["ruleIndex"]]["id"] == "PHY-003"
    physical = error["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == ROOMS
    # aus1-mdf-b's cooling_zone, after aus1-mmr1's and aus1-mdf-a's
    assert physical["region"]["startLine"] == line_of(example / ROOMS, "cooling_zone: crah-1", 3)
    assert physical["region"]["startColumn"] == 9
    assert by_rule["PHY-004"]["level"] == "warning"  # the profile's override

    waived = by_rule["PHY-001"]
    assert waived["suppressions"][0]["status"] == "accepted"
    assert "CHG-1234" in waived["suppressions"][0]["justification"]


def test_sarif_of_unusable_intent_still_validates(example: Path) -> None:
    replace_in(example / "intent/aus1/devices.yaml", "platform: cisco_iosxr", "platfrom: x")
    code, output = lint("--format", "sarif")
    assert code == 2
    log = json.loads(output)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    assert {r["ruleId"] for r in log["runs"][0]["results"]} == {"unknown-key"}


@pytest.mark.parametrize("fmt", ["sarif", "junit", "github", "json"])
def test_a_malformed_today_is_reported_in_the_format_asked_for(
    example: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """CI parses the report it asked for: a day that is no day is one error in that format
    (exit 2), not a line on stderr and an empty report."""
    monkeypatch.setenv("MEETME_TODAY", "2026-02-30")
    code, output = lint("--format", fmt)
    assert code == 2
    said = "MEETME_TODAY='2026-02-30' is not a date (YYYY-MM-DD)"
    if fmt == "sarif":
        log = json.loads(output)
        jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
        (result,) = log["runs"][0]["results"]
        assert result["ruleId"] == "bad-today" and said in result["message"]["text"]
    elif fmt == "junit":
        (failure,) = ET.fromstring(output).iter("failure")
        assert said in (failure.get("message") or "")
    elif fmt == "github":
        assert output.startswith("::error file=environment,line=1,col=1,title=bad-today::")
        assert said in output
    else:
        (finding,) = json.loads(output)
        assert (finding["rule"], finding["file"]) == ("bad-today", "environment")
        assert finding["message"].startswith(said)
    assert not (example / "rendered").exists()


def test_junit_has_one_test_case_per_rule_and_object(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_border_pair(example, monkeypatch)
    code, output = lint("--format", "junit")
    assert code == 1
    root = ET.fromstring(output)
    assert root.tag == "testsuites"
    cases = list(root.iter("testcase"))
    keys = [(c.get("classname"), c.get("name")) for c in cases]
    assert len(keys) == len(set(keys))  # rule x object is unique
    case = {key: c for key, c in zip(keys, cases, strict=True)}
    assert case["meetme.PHY-001", f"{BR2}.room"].find("skipped") is not None  # waived
    failure = case["meetme.PHY-003", "sites.aus1.rooms.aus1-mdf-b.cooling_zone"].find("failure")
    assert failure is not None and f"{ROOMS}:" in (failure.text or "")
    assert case["meetme.ADDR-001", "all objects"].find("failure") is None  # clean rule
    failures = sum(c.find("failure") is not None for c in cases)
    assert root.get("failures") == str(failures) and failures >= 1
    assert root.get("tests") == str(len(cases))


def test_github_annotations_carry_file_line_and_column(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_border_pair(example, monkeypatch)
    code, output = lint("--format", "github")
    assert code == 1
    command = re.compile(
        r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=(.+?)::(.+)$"
    )
    annotations = [m.groups() for m in map(command.match, output.splitlines()) if m]
    line = line_of(example / ROOMS, "cooling_zone: crah-1", 3)
    assert ("error", ROOMS, str(line), "9") in [a[:4] for a in annotations]
    titles = {a[4]: a[0] for a in annotations}
    assert titles["PHY-001 Border group members live in different MDFs (waived)"] == "notice"
    assert any(t.startswith("PHY-004") and level == "warning" for t, level in titles.items())


def test_github_escapes_what_would_end_a_command() -> None:
    from meetme.core.findings import Finding
    from meetme.core.problems import Location
    from meetme.report import github

    finding = Finding("X-001", "error", "50% done\nnext", Location("a,b:c.yaml", 3, 4), "p")
    line = github([finding], []).splitlines()[0]
    assert line == "::error file=a%2Cb%3Ac.yaml,line=3,col=4,title=X-001::50%25 done%0Anext"


def test_text_groups_findings_by_file_with_a_summary(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_border_pair(example, monkeypatch)
    code, output = lint()
    assert code == 1
    lines = output.splitlines()

    def under(file: str) -> list[str]:
        heading = lines.index(file)
        return lines[heading + 1 : lines.index("", heading)]

    line = line_of(example / ROOMS, "cooling_zone: crah-1", 3)
    rooms = under(ROOMS)
    assert any(re.match(rf"  {line}:9 +error +PHY-003 ", entry) for entry in rooms), rooms
    devices = under("intent/aus1/devices.yaml")
    assert any("waived by intent/waivers.yaml:2 (owner netops-aus" in e for e in devices)
    assert re.fullmatch(r"\d+ error\(s\), \d+ warning\(s\), 1 waived", lines[-1])


def test_json_keeps_its_shape_and_adds_the_waiver(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    break_border_pair(example, monkeypatch)
    _, output = lint("--format", "json")
    findings = json.loads(output)
    waived = next(f for f in findings if f["rule"] == "PHY-001")
    assert waived["severity"] == "waived"
    assert waived["waiver"] == {
        "file": "intent/waivers.yaml",
        "line": 2,
        "owner": "netops-aus",
        "reason": "MDF-B rebuild, CHG-1234",
        "expires": "2030-01-31",
        "severity": "error",
    }


def test_output_option_writes_the_report_to_a_file(example: Path) -> None:
    code, output = lint("--format", "sarif", "--output", "reports/meetme.sarif")
    assert code == 0
    log = json.loads((example / "reports/meetme.sarif").read_text())
    _, findings = lint("--format", "json")
    assert len(log["runs"][0]["results"]) == len(json.loads(findings))
    assert output.startswith("reports/meetme.sarif: sarif report, 0 error(s)")


def test_sarif_gives_each_finding_of_one_object_its_own_fingerprint() -> None:
    """Code scanning merges results of one fingerprint into one alert: four different routes
    missing on one VRF are four alerts; the same finding on another line is still one."""
    from meetme.validators.engine import RULES

    from meetme.core.findings import Finding
    from meetme.core.problems import Location
    from meetme.report import sarif

    path = "sites.aus1.handoff.vrfs.gpu-a.internet"
    found = [
        Finding(
            "FLOW-003", "error", f"VRF gpu-a, {br}: no route ({p})", Location("t.yaml", 3, 5), path
        )
        for br in ("aus1-br1", "aus1-br2")
        for p in ("0.0.0.0/0", "::/0")
    ]
    moved = Finding(found[0].rule, "error", found[0].message, Location("t.yaml", 9, 5), path)
    results = sarif([*found, moved], [RULES["FLOW-003"]])["runs"][0]["results"]  # type: ignore[index]
    prints = [r["partialFingerprints"]["meetmeObject/v2"] for r in results]
    assert len(set(prints[:4])) == 4
    assert prints[4] == prints[0]


def test_sarif_rule_help_keeps_angle_brackets_as_text() -> None:
    from meetme.validators.engine import RULES

    from meetme.report import sarif

    rules = list(RULES.values())
    driver = sarif([], rules)["runs"][0]["tool"]["driver"]  # type: ignore[index]
    helps = [r["help"]["markdown"] for r in driver["rules"]]
    assert not any(re.search(r"<[a-z]", text) for text in helps)
    assert any("&lt;" in text for text in helps)  # e.g. HANDOFF-004's sub-interface <link>.<vlan>


@pytest.mark.parametrize("stand", ["intent/aus1", "..", "."])
def test_ci_formats_name_files_from_the_git_root_wherever_meetme_ran(
    example: Path, monkeypatch: pytest.MonkeyPatch, stand: str
) -> None:
    """CI annotations and code scanning read paths from the repository root; the terminal's
    text names them from where one stands."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(example)], check=True)
    break_border_pair(example, monkeypatch)
    monkeypatch.chdir(example / stand)
    repo = [] if stand != ".." else [example.name]
    _, sarif_text = lint("--format", "sarif", *repo)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(sarif_text)["runs"][0]["results"]
    }
    _, annotations = lint("--format", "github", *repo)
    _, junit_text = lint("--format", "junit", *repo)
    cases = ET.fromstring(junit_text).iter("testcase")
    for files in (
        uris,
        set(re.findall(r"file=([^,]+),", annotations)),
        {file for case in cases if (file := case.get("file"))},
    ):
        assert "intent/aus1/devices.yaml" in files and "intent/dci.yaml" in files
        assert all(file.startswith("intent/") for file in files), files
    _, text = lint(*repo)
    shown = {"intent/aus1": "devices.yaml", "..": f"{example.name}/intent/aus1/devices.yaml"}
    assert shown.get(stand, "intent/aus1/devices.yaml") in text.splitlines()


def test_ci_formats_outside_a_git_work_tree_are_the_same_from_any_folder(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository that is no git work tree (an unpacked archive, a CI cache): the CI formats
    name every file from the folder holding intent/, so the report is the same bytes from the
    root, from intent/aus1 and from / naming REPO; never this machine's file:///tmp/... nor a
    path from where meetme ran."""
    assert not any((folder / ".git").exists() for folder in (example, *example.parents))
    break_border_pair(example, monkeypatch)
    reports = []
    for stand, repo in ((example, []), (example / "intent/aus1", []), (Path("/"), [str(example)])):
        monkeypatch.chdir(stand)
        reports.append(
            {fmt: lint("--format", fmt, *repo)[1] for fmt in ("sarif", "junit", "github")}
        )
    assert reports[1] == reports[0] and reports[2] == reports[0]

    report = reports[0]
    log = json.loads(report["sarif"])
    results = log["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    files = {"intent/aus1/devices.yaml", "intent/aus1/rooms.yaml", "intent/dci.yaml"}
    files.add("intent/mel1/tenants.yaml")  # the example's HANDOFF-013 warning
    assert uris == files
    (waived,) = [r for r in results if "suppressions" in r]
    waiver = waived["suppressions"][0]["location"]["physicalLocation"]["artifactLocation"]
    assert waiver["uri"] == "intent/waivers.yaml"
    assert set(re.findall(r"file=([^,]+),", report["github"])) == files
    cases = ET.fromstring(report["junit"]).iter("testcase")
    assert {file for case in cases if (file := case.get("file"))} == files
