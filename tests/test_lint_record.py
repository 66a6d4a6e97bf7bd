"""The lint record (meetme/record.py): `meetme lint` on the intent the last render linted,
unchanged, reads that lint's findings back; anything it depends on changed, it lints in full.

Whether the lint ran is seen from `meetme.pipeline.lint`, counted; what it printed is compared
with a full lint's, byte for byte, in every case.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import replace_in
from typer.testing import CliRunner

from meetme import pipeline, record
from meetme.cli import app
from meetme.intent.loader import LoadedIntent, load_intent
from meetme.outputs import HASHES

runner = CliRunner()
COASTAL = "dci.circuits.syd-mel-coastal"  # DCI-009's object (a warning)


class Lints:
    """`pipeline.lint`, counted: how many times a command worked the lint out."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = pipeline.lint

        def counted(*args: object, **kwargs: object) -> pipeline.LintResult:
            self.count += 1
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(pipeline, "lint", counted)


@pytest.fixture
def lints(monkeypatch: pytest.MonkeyPatch) -> Lints:
    return Lints(monkeypatch)


def render() -> None:
    result = runner.invoke(app, ["render", "--jobs", "1"])
    assert result.exit_code == 0, result.output


def lint(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["lint", "--jobs", "1", *args])
    return result.exit_code, result.stdout


def full_lint(example: Path, *args: str) -> tuple[int, str]:
    """What linting says with no record to read (the hash file moved away meanwhile)."""
    hashes = example / "rendered" / HASHES
    kept = hashes.read_bytes()
    hashes.unlink()
    try:
        return lint(*args)
    finally:
        hashes.write_bytes(kept)


def the_record(example: Path) -> dict[str, object] | None:
    found = json.loads((example / "rendered" / HASHES).read_text()).get(record.RECORD)
    return found if isinstance(found, dict) else None


def test_lint_after_a_render_reads_the_record_and_says_what_linting_says(
    example: Path, lints: Lints
) -> None:
    render()
    assert lints.count == 1
    for fmt in ("text", "json", "sarif"):
        again = lint("--format", fmt)
        assert lints.count == 1, fmt  # read back, not worked out
        assert again == full_lint(example, "--format", fmt)
        assert lints.count == 2
        lints.count = 1
    assert "2 warning(s)" in lint()[1]


def test_any_change_under_the_intent_folder_lints_in_full_and_undoing_it_reads_back(
    example: Path, lints: Lints
) -> None:
    render()
    devices = example / "intent/aus1/devices.yaml"
    original = devices.read_text()
    devices.write_text(original + "# a comment changes nothing the lint says, but it is new\n")
    assert lint() == full_lint(example)
    assert lints.count == 3  # render, then both lints worked it out
    devices.write_text(original)
    (example / "intent/notes.txt").write_text("not intent, but in its folder\n")
    lint()
    assert lints.count == 4
    (example / "intent/notes.txt").unlink()
    lint()
    assert lints.count == 4  # the intent the render linted, byte for byte


def test_a_change_that_moves_a_finding_is_reported_where_it_now_is(
    example: Path, lints: Lints
) -> None:
    render()
    dci = example / "intent/dci.yaml"
    dci.write_text("# one line more: every DCI-009 finding one line down\n" + dci.read_text())
    code, text = lint()
    assert (code, lints.count) == (0, 2)
    assert "  10:5  warning  DCI-009" in text and "  22:5  warning  DCI-009" in text


def test_a_hand_edited_record_is_not_read_back(example: Path, lints: Lints) -> None:
    render()
    hashes = example / "rendered" / HASHES
    text = hashes.read_text()
    assert text.count("carries no routing") == 2
    hashes.write_text(text.replace("carries no routing", "is fine"))
    code, said = lint()
    assert lints.count == 2
    assert (code, said) == full_lint(example)
    assert "carries no routing" in said and "is fine" not in said


def test_the_day_waivers_are_judged_on_is_part_of_the_key(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    (example / "intent/waivers.yaml").write_text(
        f"waivers:\n  - rule: DCI-009\n    object: {COASTAL}\n    reason: MEL rebuild, CHG-7\n"
        "    owner: netops-mel\n    expires: 2026-06-30\n"
    )
    monkeypatch.setenv("MEETME_TODAY", "2026-06-30")  # the waiver's last day
    render()
    waived = lint("--format", "json")
    assert lints.count == 1
    assert waived == full_lint(example, "--format", "json")
    found = json.loads(waived[1])
    assert [f["waiver"]["owner"] for f in found if "waiver" in f] == ["netops-mel"]
    monkeypatch.setenv("MEETME_TODAY", "2026-07-01")  # the day after: expired
    code, text = lint()
    assert (code, lints.count) == (1, 3)  # an expired waiver is an error of its own
    assert "WAIVER-001" in text and "2 warning(s)" in text.splitlines()[-1]


def test_another_working_directory_names_files_from_where_it_is(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    render()
    (example / "docs").mkdir()
    monkeypatch.chdir(example / "docs")
    code, text = lint("..")
    assert (code, lints.count) == (0, 2)
    # outside the working directory a file is named in full (the record says intent/dci.yaml)
    assert text.startswith(f"{example / 'intent/dci.yaml'}\n")


def test_meetmes_own_code_is_part_of_the_key(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    render()
    monkeypatch.setattr(record, "_CODE", ["the digest of another meetme"])
    lint()
    assert lints.count == 2


def test_a_render_that_sees_the_intent_change_while_it_runs_records_nothing(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = load_intent

    def edited_meanwhile(folder: Path) -> LoadedIntent:
        loaded = real(folder)
        replace_in(example / "intent/dci.yaml", "circuits:", "circuits:  # edited meanwhile")
        return loaded

    monkeypatch.setattr("meetme.pipeline.load_intent", edited_meanwhile)
    render()
    assert the_record(example) is None
    monkeypatch.setattr("meetme.pipeline.load_intent", real)
    lint()
    assert lints.count == 2


def test_without_a_private_folder_nothing_is_read_back(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_CACHE_DIR", "")
    render()
    found = the_record(example)
    assert found is not None and found["mac"] == ""
    lint()
    assert lints.count == 2


def test_an_intent_folder_holding_a_device_file_is_linted_in_full(
    example: Path, lints: Lints
) -> None:
    render()
    os.mkfifo(example / "intent/a-pipe")
    code, text = lint()
    assert (code, lints.count) == (0, 2)
    assert text.endswith("0 error(s), 2 warning(s)\n")  # the pipe is no intent file
    assert record.intent_key(example / "intent") is None
