"""The CLI as a user meets it: exit codes, atomic output, the pre-merge gate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import replace_in
from helpers import runner, snapshot

from meetme.cli import app
from meetme.core.problems import listed

DEVICES = [
    "aus1-br1",
    "aus1-br2",
    "aus1-sp1",
    "aus1-sp2",
    "aus1-sp3",
    "aus1-sp4",
    "aus1-lf1",
    "aus1-lf2",
    "aus1-lf3",
    "aus1-lf4",
    "aus1-lf5",
    "aus1-lf6",
    *(f"aus1-bl{n}" for n in range(1, 7)),
]
# The second example site: 3-tier, two pods (intent/mel1/devices.yaml).
MEL1_DEVICES = [
    "mel1-br1",
    "mel1-br2",
    "mel1-ss1",
    "mel1-ss2",
    "mel1-sp11",
    "mel1-sp12",
    "mel1-sp21",
    "mel1-sp22",
    "mel1-lf101",
    "mel1-lf102",
    "mel1-lf103",
    "mel1-lf104",
    "mel1-lf201",
    "mel1-lf202",
    "mel1-bl1",
    "mel1-bl2",
]


def test_render_writes_one_file_per_device_and_is_repeatable(example: Path) -> None:
    first = runner.invoke(app, ["render"])
    assert first.exit_code == 0, first.output
    files = snapshot(example / "rendered")
    assert sorted(Path(name).stem for name in files) == sorted(DEVICES + MEL1_DEVICES)
    # each device's file sits in its own site's folder
    assert all(name.startswith(f"{Path(name).stem[:4]}/") for name in files)
    assert {name.split("/")[0] for name in files} == {"aus1", "mel1"}

    second = runner.invoke(app, ["render"])
    assert second.exit_code == 0
    assert snapshot(example / "rendered") == files


def test_render_refuses_to_write_when_lint_has_errors(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    before = snapshot(example / "rendered")
    replace_in(example / "intent/aus1/devices.yaml", "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(example / "intent/aus1/devices.yaml", "rack: mdf-b-r01", "rack: mdf-a-r01")
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 1
    assert "PHY-001" in result.output
    assert snapshot(example / "rendered") == before


def test_check_with_lint_errors_says_it_compared_nothing(example: Path) -> None:
    """`check` never writes: with lint errors it says what it did not do in its own words,
    while render keeps its own."""
    assert runner.invoke(app, ["render"]).exit_code == 0
    replace_in(example / "intent/aus1/devices.yaml", "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(example / "intent/aus1/devices.yaml", "rack: mdf-b-r01", "rack: mdf-a-r01")
    checked = runner.invoke(app, ["check"])
    assert (checked.exit_code, checked.stderr) == (
        1,
        "lint found errors; render would refuse this intent, so nothing was compared.\n",
    )
    assert "PHY-001" in checked.stdout
    rendered = runner.invoke(app, ["render"])
    assert (rendered.exit_code, rendered.stderr) == (1, "lint found errors; nothing was written.\n")


def test_unusable_intent_exits_2_and_leaves_output_alone(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    before = snapshot(example / "rendered")
    replace_in(example / "intent/aus1/devices.yaml", "rack: dh1-r10", "rack: dh1-r99")
    result = runner.invoke(app, ["render"])
    assert result.exit_code == 2
    assert "intent/aus1/devices.yaml:" in result.output
    assert "unknown rack 'dh1-r99'" in result.output
    assert snapshot(example / "rendered") == before


def test_render_removes_files_of_deleted_devices(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    devices = example / "intent/aus1/devices.yaml"
    text = devices.read_text()
    start = text.index("      aus1-sp4:")
    end = text.index("      # Leaves")
    devices.write_text(text[:start] + text[end:])
    assert runner.invoke(app, ["render"]).exit_code == 0
    assert not (example / "rendered/aus1/aus1-sp4.cfg").exists()
    assert (example / "rendered/aus1/aus1-sp3.cfg").exists()


def test_check_names_changed_missing_and_stale_files(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    assert runner.invoke(app, ["check"]).exit_code == 0

    out = example / "rendered/aus1"
    (out / "aus1-sp1.cfg").write_text("hostname hand-edited\n")
    (out / "aus1-br2.cfg").unlink()
    (out / "aus1-old.cfg").write_text("hostname gone\n")
    result = runner.invoke(app, ["check"])
    assert result.exit_code == 1
    assert "changed: rendered/aus1/aus1-sp1.cfg" in result.output
    assert "missing: rendered/aus1/aus1-br2.cfg" in result.output
    assert "stale: rendered/aus1/aus1-old.cfg" in result.output


def test_lint_json_lists_findings_with_positions(example: Path) -> None:
    replace_in(example / "intent/aus1/devices.yaml", "room: aus1-mdf-b", "room: aus1-mdf-a")
    result = runner.invoke(app, ["lint", "--format", "json"])
    assert result.exit_code == 1
    findings = json.loads(result.stdout)
    phy = [f for f in findings if f["rule"] == "PHY-001"]
    assert phy and set(phy[0]) == {"rule", "severity", "message", "file", "line", "column", "path"}
    assert phy[0]["file"] == "intent/aus1/devices.yaml"
    assert phy[0]["path"] == "sites.aus1.devices.aus1-br2.room"


def test_show_prints_the_device_model(example: Path) -> None:
    result = runner.invoke(app, ["show", "aus1-sp1"])
    assert result.exit_code == 0
    assert "hostname: aus1-sp1" in result.stdout
    assert "router_id: 10.0.0.11" in result.stdout
    missing = runner.invoke(app, ["show", "aus1-nope"])
    assert missing.exit_code == 2


def test_show_of_an_unknown_device_names_a_few_and_counts_the_rest(example: Path) -> None:
    """A 1,000-device site must not print every name: the closest one, the first eight of
    the example's 34 and how many more."""
    missing = runner.invoke(app, ["show", "aus1-sp9"])
    assert missing.exit_code == 2
    assert missing.stdout == ""
    assert " ".join(missing.stderr.split()) == (
        "unknown device 'aus1-sp9'; did you mean 'aus1-sp4'? (known: aus1-bl1, aus1-bl2, "
        "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2 and 26 more)"
    )


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("aus1-nope", ""),  # shares the site prefix only: no spine is meant
        ("aus1-sp", "; did you mean 'aus1-sp4'?"),  # one character short
        ("AUS1-LF1", "; did you mean 'aus1-lf1'?"),  # another letter case
        ("aus1-fl1", "; did you mean 'aus1-lf1'?"),  # two neighbours swapped
    ],
)
def test_show_offers_a_name_only_a_typo_away(example: Path, name: str, hint: str) -> None:
    missing = runner.invoke(app, ["show", name])
    assert missing.exit_code == 2
    assert " ".join(missing.stderr.split()).startswith(f"unknown device '{name}'{hint} (known:")


def test_show_of_a_name_holding_a_line_break_prints_it_escaped(example: Path) -> None:
    """The name comes from the shell as typed: it never reaches the terminal as two lines."""
    missing = runner.invoke(app, ["show", "aus1-lf1\nhostname evil"])
    assert missing.exit_code == 2
    assert missing.stderr.startswith("unknown device 'aus1-lf1\\nhostname evil'")
    assert "\nhostname evil" not in missing.stderr


@pytest.mark.parametrize(
    ("count", "most", "expected"),
    [
        (0, 8, ""),
        (1, 8, "d0"),
        (8, 8, "d0, d1, d2, d3, d4, d5, d6, d7"),  # the most named in full
        (9, 8, "d0, d1, d2, d3, d4, d5, d6, d7 and 1 more"),  # one past it
        (3, 3, "d0, d1, d2"),
        (4, 3, "d0, d1, d2 and 1 more"),
        (1040, 8, "d0, d1, d2, d3, d4, d5, d6, d7 and 1032 more"),
    ],
)
def test_a_message_names_at_most_a_few(count: int, most: int, expected: str) -> None:
    assert listed([f"d{n}" for n in range(count)], most) == expected


def test_rules_and_explain(example: Path) -> None:
    listing = runner.invoke(app, ["rules"])
    assert listing.exit_code == 0 and "PHY-001" in listing.output
    explained = runner.invoke(app, ["explain", "phy-001"])
    assert explained.exit_code == 0 and "Why:" in explained.output
    assert runner.invoke(app, ["explain", "NOPE-1"]).exit_code == 2


def test_cli_entry_point_reports_without_traceback(example: Path) -> None:
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: no")
    done = subprocess.run(
        [sys.executable, "-m", "meetme", "render"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "intent/aus1/site.yaml:4:18" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (example / "rendered").exists()


@pytest.mark.parametrize("after", [0.05, 0.1, 0.15, 0.2, 0.3])
def test_ctrl_c_while_meetme_is_still_loading_ends_quietly(example: Path, after: float) -> None:
    """^C in the first tenths of a second (the CLI still importing) printed a traceback."""
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "meetme", "lint"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert "Traceback" not in stderr
    # 130 once Python handles SIGINT; killed by it (-2) if it came before; 0/1 if lint won
    assert process.returncode in (130, -signal.SIGINT, 0, 1), stderr
