"""The corpus of broken intents in tests/broken/: each is reported where and as it says.

A case is one intent file, or a folder of them for problems that span files. Its `# expect:`
lines (the first line of the file, or in the folder's expect.txt) each give one problem as
`LOCATION KIND MESSAGE-FRAGMENT`, in the order `meetme lint` prints them (sorted by file and
line); `# expect: clean` marks the valid case. Each case starts from the minimal valid intent
(valid_minimal.yaml) and breaks one thing.

The case is copied to `<tmp>/intent/` and linted from `<tmp>`, so files print as `intent/...`,
exactly as for a user running `meetme lint` in their repository.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meetme.cli import app

CORPUS = Path(__file__).resolve().parent / "broken"
CASES = sorted(CORPUS.iterdir())
EXPECT = re.compile(r"^# expect: (\S+) (\S+) (.+)$")
PRINTED = re.compile(r"^(\S+:\d+:\d+): error\[([\w-]+)\]: (.*)$")
# run exactly as a user would, one interpreter per case: a handful, since each costs ~0.5 s
SUBPROCESS_CASES = (
    "valid_minimal.yaml",
    "yaml_syntax.yaml",
    "dangling_room.yaml",
    "several_problems",
    "empty_folder",
)


@dataclass(frozen=True)
class Expected:
    location: str
    kind: str
    fragment: str


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str


def expectations(case: Path) -> list[Expected] | None:
    """The problems a case expects, in order; None for the valid case."""
    text = (case / "expect.txt").read_text() if case.is_dir() else case.read_text()
    lines = [line for line in text.splitlines() if line.startswith("# expect:")]
    assert lines, f"{case.name} states no '# expect:' line"
    if case.is_file():
        assert text.startswith("# expect:"), f"{case.name}: the expectation is its first line"
    if lines == [line for line in lines if line.startswith("# expect: clean")]:
        return None
    found = [EXPECT.match(line) for line in lines]
    assert all(found), f"{case.name}: an expect line is not 'LOCATION KIND MESSAGE'"
    return [Expected(*m.groups()) for m in found if m]


def stage(case: Path, repo: Path) -> None:
    """Copy a case into repo/intent/ as the engineer's intent folder."""
    intent = repo / "intent"
    if case.is_dir():
        shutil.copytree(case, intent, ignore=shutil.ignore_patterns("expect.txt"))
    else:
        intent.mkdir()
        shutil.copy(case, intent / case.name)


def run_in_process(repo: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> Run:
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(app, ["lint", "--intent", "intent", *extra])
    # CliRunner catches exceptions: a crash must show up as one, not as a plain exit code
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"lint crashed: {result.exception!r}"
    )
    return Run(result.exit_code, result.stdout, result.stderr)


def run_subprocess(repo: Path) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "meetme", "lint", "--intent", "intent"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def check(case: Path, run: Run) -> None:
    assert "Traceback" not in run.stdout + run.stderr
    expected = expectations(case)
    if expected is None:
        assert run.exit_code == 0, run.stdout + run.stderr
        return
    assert run.exit_code == 2, run.stdout + run.stderr
    printed = [m.groups() for m in map(PRINTED.match, run.stderr.splitlines()) if m]
    assert len(printed) == len(expected), f"expected {len(expected)} problem(s):\n{run.stderr}"
    for (location, kind, message), want in zip(printed, expected, strict=True):
        assert (location, kind) == (want.location, want.kind), run.stderr
        assert want.fragment in message, f"{want.fragment!r} not in {message!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stage(case, tmp_path)
    check(case, run_in_process(tmp_path, monkeypatch))


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_case_as_a_user_runs_it(name: str, tmp_path: Path) -> None:
    case = CORPUS / name
    stage(case, tmp_path)
    check(case, run_subprocess(tmp_path))


def test_corpus_covers_the_problem_kinds() -> None:
    expected = [e for case in CASES for e in expectations(case) or []]
    assert len(CASES) >= 20
    kinds = {e.kind for e in expected}
    assert {
        "yaml-syntax",
        "duplicate-key",
        "yaml-tab",
        "yaml-ambiguous",
        "unknown-key",
        "wrong-type",
        "out-of-range",
        "bad-value",
        "dangling-name",
        "duplicate-name",
        "multi-document",
        "empty",
        "yaml-tag",
        "too-deep",
    } <= kinds
    assert any(expectations(case) is None for case in CASES), "no valid case"


def test_json_output_has_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stage(CORPUS / "several_problems", tmp_path)
    run = run_in_process(tmp_path, monkeypatch, "--format", "json")
    assert run.exit_code == 2
    problems = json.loads(run.stdout)
    assert [(p["file"], p["line"], p["column"], p["rule"]) for p in problems] == [
        ("intent/lab1.yaml", 12, 12, "out-of-range"),
        ("intent/lab1.yaml", 32, 9, "unknown-key"),
        ("intent/lab1.yaml", 35, 9, "duplicate-key"),
        ("intent/lab1.yaml", 43, 15, "dangling-name"),
        ("intent/organisation.yaml", 3, 8, "out-of-range"),
    ]
    assert all(p["severity"] == "error" and p["message"] for p in problems)


def test_a_yaml_11_boolean_is_one_message_whether_or_not_another_file_is_unreadable(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`accept_default: yes` is one mistake: its YAML 1.1 reading and the wrong type it makes
    are folded into one message. A tab in another file made the run take another road, which
    printed the two separately (the first advising to quote it, which is still no boolean)."""
    peering = example / "intent/aus1/peering.yaml"
    peering.write_text(
        peering.read_text().replace("accept_default: true", "accept_default: yes", 1)
    )
    monkeypatch.chdir(example)
    alone = CliRunner().invoke(app, ["lint"]).output.splitlines()
    with (example / "intent/aus1/rooms.yaml").open("a") as handle:
        handle.write("\t# a tab\n")
    beside = CliRunner().invoke(app, ["lint"]).output.splitlines()
    mine = [line for line in beside if line.startswith("intent/aus1/peering.yaml")]
    assert mine == [line for line in alone if line.startswith("intent/aus1/peering.yaml")]
    (message,) = mine
    assert "quote it" not in message and "expected true or false, got 'yes'" in message


def test_a_duplicate_id_is_reported_beside_an_unreadable_file(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two devices with one id in devices.yaml stay two whatever an unreadable clouds.yaml
    holds: the tab and the duplicate are both reported in one run. A dangling name is not
    (the unreadable file might define it)."""
    devices = example / "intent/aus1/devices.yaml"
    devices.write_text(devices.read_text().replace("id: 102\n", "id: 101\n", 1))
    devices.write_text(devices.read_text().replace("rack: dh2-r10\n", "rack: dh2-rXX\n", 1))
    with (example / "intent/aus1/clouds.yaml").open("a") as handle:
        handle.write("\t# a tab\n")
    monkeypatch.chdir(example)
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 2
    kinds = [
        line.split("error[")[1].split("]")[0]
        for line in result.output.splitlines()
        if "error[" in line
    ]
    assert kinds == ["yaml-tab", "duplicate-name"]
    assert "device id 101 is already used by 'aus1-lf1'" in result.output
