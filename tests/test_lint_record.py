"""The lint record (meetme/record.py): `meetme lint` on the intent the last render linted,
unchanged, reads that lint's findings back; anything it depends on changed, it lints in full.

Whether the lint ran is seen from `meetme.pipeline.lint`, counted; what it printed is compared
with a full lint's, byte for byte, in every case.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import replace_in
from helpers import git
from typer.testing import CliRunner
from variants import LF4_MGMT  # aus1-lf4's management address: its own config only

from meetme import gitdiff, pipeline, record
from meetme.cli import app
from meetme.intent.loader import LoadedIntent, load_intent
from meetme.outputs import HASHES

runner = CliRunner()
COASTAL = "dci.circuits.syd-mel-coastal"  # DCI-009's object (a warning)


class Lints:
    """`pipeline.lint`, counted in a file: how many times a command worked the lint out, in
    this process or a forked one (`meetme diff` lints the base's side in one)."""

    def __init__(self, log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log = log
        real = pipeline.lint

        def counted(*args: Any, **kwargs: Any) -> pipeline.LintResult:
            with log.open("a", encoding="utf-8") as noted:
                noted.write(f"{args[0]}\n")
            return real(*args, **kwargs)

        monkeypatch.setattr(pipeline, "lint", counted)
        monkeypatch.setattr(gitdiff, "lint", counted)

    @property
    def count(self) -> int:
        return len(self.log.read_text(encoding="utf-8").splitlines()) if self.log.exists() else 0

    @count.setter
    def count(self, value: int) -> None:
        self.log.write_text("x\n" * value, encoding="utf-8")


@pytest.fixture
def lints(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Lints:
    return Lints(tmp_path / "lints.log", monkeypatch)


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
    assert "3 warning(s)" in lint()[1]


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
    assert "WAIVER-001" in text and "3 warning(s)" in text.splitlines()[-1]


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
    assert text.endswith("0 error(s), 3 warning(s)\n")  # the pipe is no intent file
    assert record.intent_key(example / "intent") is None


@pytest.fixture
def committed(example: Path) -> Path:
    """The example rendered and committed (the hash file kept out, as .gitignore does)."""
    render()
    (example / ".gitignore").write_text(f"{HASHES}\n")
    git(example, "init", "-q")
    git(example, "add", "-A")
    git(example, "commit", "-qm", "example intent, rendered")
    return example


def test_diff_against_the_intent_last_rendered_reads_the_bases_side_back(
    committed: Path, lints: Lints
) -> None:
    replace_in(committed / "intent/aus1/devices.yaml", *LF4_MGMT)
    lints.count = 0
    read_back = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1"])
    assert read_back.exit_code == 0, read_back.output
    assert lints.count == 1  # the working tree's side only
    full = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1", "--full"])
    assert lints.count == 3
    assert read_back.stdout == full.stdout
    assert "1 changed, 0 added, 0 removed, 33 unchanged" in read_back.stdout
    assert "+  ip address 192.168.10.114/24" in read_back.stdout


def test_diff_against_another_base_works_the_bases_side_out(committed: Path, lints: Lints) -> None:
    replace_in(committed / "intent/aus1/devices.yaml", *LF4_MGMT)
    git(committed, "commit", "-qam", "lf4 moved")
    render()  # the record is now of HEAD, not of HEAD~1
    lints.count = 0
    worked_out = runner.invoke(app, ["diff", "--base", "HEAD~1", "-j", "1"])
    assert lints.count == 2
    full = runner.invoke(app, ["diff", "--base", "HEAD~1", "-j", "1", "--full"])
    assert worked_out.stdout == full.stdout
    assert "+  ip address 192.168.10.114/24" in worked_out.stdout


def test_diff_reads_the_base_back_only_while_every_file_holds(
    committed: Path, lints: Lints
) -> None:
    replace_in(committed / "intent/aus1/devices.yaml", *LF4_MGMT)
    spine = committed / "rendered/aus1/aus1-sp1.cfg"
    spine.write_text(spine.read_text() + "! edited by hand\n")  # drift: not what was rendered
    lints.count = 0
    said = runner.invoke(app, ["diff", "--base", "HEAD", "-j", "1"])
    assert lints.count == 2
    assert "edited by hand" not in said.stdout
    assert "1 changed, 0 added, 0 removed, 33 unchanged" in said.stdout


def tree_stamps(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """(inode, modification time, bytes) of every file in the folder."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_render_of_the_intent_last_rendered_writes_nothing_and_says_what_a_render_says(
    example: Path, lints: Lints, monkeypatch: pytest.MonkeyPatch
) -> None:
    render()
    before = tree_stamps(example / "rendered")
    again = runner.invoke(app, ["render", "--jobs", "1"])
    assert (again.exit_code, lints.count) == (0, 1)
    assert tree_stamps(example / "rendered") == before
    monkeypatch.setattr(record, "_CODE", ["another meetme"])  # no record holds: worked out
    worked_out = runner.invoke(app, ["render", "--jobs", "1"])
    assert lints.count == 2
    assert again.stdout == worked_out.stdout
    assert again.stdout.endswith(
        "0 of 34 device(s) rendered anew, 0 file(s) written\nrendered 34 device(s) into rendered\n"
    )


@pytest.mark.parametrize(
    ("what", "edit"),
    [
        ("a rendered file", lambda r: (r / "aus1/aus1-sp1.cfg").write_text("hostname x\n")),
        ("a device's entry", lambda r: replace_in(r / HASHES, '"model": "', '"model": "0')),
        (
            "the marker",
            lambda r: (r / ".meetme-rendered").write_text(
                (r / ".meetme-rendered").read_text() + "aus1/aus1-gone.cfg\n"
            ),
        ),
    ],
)
def test_a_render_after_a_hand_edit_restores_what_it_writes(
    example: Path, lints: Lints, what: str, edit: Callable[[Path], None]
) -> None:
    render()
    written = {k: v[2] for k, v in tree_stamps(example / "rendered").items()}
    edit(example / "rendered")
    render()
    assert lints.count == 2, what  # worked out, not read back
    assert {k: v[2] for k, v in tree_stamps(example / "rendered").items()} == written


def test_a_render_still_refuses_a_folder_holding_a_file_of_someone_else(
    example: Path, lints: Lints
) -> None:
    render()
    (example / "rendered/aus1/notes.txt").write_text("mine\n")
    refused = runner.invoke(app, ["render"])
    assert refused.exit_code == 2
    assert (example / "rendered/aus1/notes.txt").read_text() == "mine\n"


def test_check_of_the_intent_last_rendered_reads_it_back_and_finds_what_check_finds(
    example: Path, lints: Lints
) -> None:
    render()
    clean = runner.invoke(app, ["check", "--jobs", "1"])
    assert (clean.exit_code, lints.count) == (0, 1)
    assert clean.stdout == "rendered: 34 file(s) match the intent\n"
    (example / "rendered/aus1/aus1-lf3.cfg").write_text("hostname aus1-lf3\n")
    changed = runner.invoke(app, ["check", "--jobs", "1"])
    assert (changed.exit_code, lints.count) == (1, 2)  # the record's files no longer hold
    assert changed.stdout.startswith("changed: rendered/aus1/aus1-lf3.cfg\n")
    render()
    (example / "rendered/aus1/aus1-lf3.cfg.orig").write_text("a stale copy\n")
    stale = runner.invoke(app, ["check", "--jobs", "1"])
    assert lints.count == 3  # read back: only the stale copy differs
    assert stale.exit_code == 1
    full = runner.invoke(app, ["check", "--jobs", "1", "--full"])
    assert (stale.exit_code, stale.stdout) == (full.exit_code, full.stdout)
    assert "stale: rendered/aus1/aus1-lf3.cfg.orig" in stale.stdout


def test_a_link_through_a_link_outside_the_folder_is_keyed_by_where_it_resolves(
    example: Path, lints: Lints, tmp_path: Path
) -> None:
    """intent/aus1/waivers.yaml -> OUTSIDE/hop -> intent/aus1/one.yaml: re-pointing the hop
    to another file of the folder changes what the loader reads but not the link's text; the
    record was read back and lint said what the old file said."""
    intent = example / "intent"
    (intent / "aus1/one.yaml").write_text("# one\n")
    (intent / "aus1/two.yaml").write_text("# two, the same intent\n")
    hop = tmp_path / "hop"
    hop.symlink_to(intent / "aus1/one.yaml")
    (intent / "aus1/waivers.yaml").symlink_to(hop)
    render()
    lint()
    assert lints.count == 1  # read back
    hop.unlink()
    hop.symlink_to(intent / "aus1/two.yaml")
    lint()
    assert lints.count == 2  # another file behind the same link text: worked out again


def test_a_key_file_left_empty_is_replaced_and_signing_works_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run killed between creating the key file and writing it (older meetme) left it
    empty: from then on nothing was signed or trusted, every render a full one, silently."""
    monkeypatch.setenv("MEETME_CACHE_DIR", str(tmp_path / "mine"))
    first = record.signing_key()
    assert first is not None and len(first) == 32
    assert record.signing_key() == first  # kept
    key_file = tmp_path / "mine/keys" / record.KEY_FILE
    key_file.write_bytes(b"")
    fresh = record.signing_key()
    assert fresh is not None and len(fresh) == 32 and fresh != first
    assert key_file.read_bytes() == fresh
    assert [p.name for p in key_file.parent.iterdir()] == [record.KEY_FILE]  # no debris
