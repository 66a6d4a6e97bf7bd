"""`meetme diff --base REF`: the config change a merge request makes, without touching git state."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import EXAMPLE_INTENT, line_of, replace_in
from helpers import git
from typer.testing import CliRunner
from variants import LF4_MGMT

from meetme.cli import app

runner = CliRunner()


def git_state(repo: Path) -> tuple[str, str, str, dict[str, bytes]]:
    """The index's entries (mode, blob, stage, path), status, HEAD and every working-tree file.

    The entries rather than .git/index's bytes: `git status` itself may refresh the index's
    stat cache, which is not a change anyone could see."""
    tree = {
        p.relative_to(repo).as_posix(): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    index = git(repo, "ls-files", "--stage")
    return index, git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD"), tree


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose first commit is the example intent; cwd is set to it."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "example intent")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def diff(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["diff", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout + result.stderr


def test_diff_shows_exactly_the_changed_devices_and_leaves_git_untouched(repo: Path) -> None:
    replace_in(repo / "intent/aus1/devices.yaml", *LF4_MGMT)
    git(repo, "commit", "-qam", "move aus1-lf4's management address")
    before = git_state(repo)

    code, output = diff("--base", "HEAD~1", "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    assert report["summary"]["changed"] == ["aus1-lf4"]
    assert report["summary"]["added"] == report["summary"]["removed"] == []
    assert (report["summary"]["lines_added"], report["summary"]["lines_removed"]) == (1, 1)
    [device] = report["devices"]
    assert "-  ip address 192.168.10.104/24\n+  ip address 192.168.10.114/24\n" in device["diff"]

    code, output = diff("--base", "HEAD~1")
    assert code == 0
    assert "--- a/rendered/aus1/aus1-lf4.cfg" in output
    assert output.count("--- a/rendered/") == 1
    assert "1 changed, 0 added, 0 removed" in output
    assert git_state(repo) == before


def test_diff_reads_the_working_tree_and_keeps_the_index(repo: Path) -> None:
    replace_in(repo / "intent/aus1/devices.yaml", *LF4_MGMT)
    git(repo, "add", "intent/aus1/devices.yaml")  # staged ...
    replace_in(repo / "intent/aus1/site.yaml", "ecmp: 64", "ecmp: 32")  # ... and not staged
    before = git_state(repo)
    code, output = diff("--base", "HEAD", "--format", "json")
    assert code == 0, output
    changed = json.loads(output)["summary"]["changed"]
    assert "aus1-lf4" in changed and len(changed) > 1  # ecmp is in every device's BGP
    assert git_state(repo) == before


def test_markdown_comment_lists_devices_and_the_standards_impact(repo: Path) -> None:
    devices = repo / "intent/aus1/devices.yaml"
    replace_in(devices, "room: aus1-mdf-b", "room: aus1-mdf-a")
    replace_in(devices, "rack: mdf-b-r01", "rack: mdf-a-r01")
    replace_in(devices, *LF4_MGMT)
    code, output = diff("--base", "HEAD", "--format", "markdown")
    assert code == 0, output
    assert "| `aus1-lf4` | changed | 1 | 1 |" in output
    assert "<details><summary><code>aus1-lf4</code>" in output
    assert "```diff" in output
    assert "- New: **error** `PHY-001` at `intent/aus1/devices.yaml:" in output

    git(repo, "commit", "-qam", "both borders in MDF-A")
    git(repo, "revert", "--no-edit", "HEAD")
    code, output = diff("--base", "HEAD~1", "--format", "json")
    gone = json.loads(output)["impact"]["disappeared"]
    assert "PHY-001" in {f["rule"] for f in gone}
    assert {f["file"] for f in gone} <= {"intent/aus1/devices.yaml", "intent/aus1/rooms.yaml"}


def test_intent_new_since_the_base_shows_every_device_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "README").write_text("network repo\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "empty")
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    monkeypatch.chdir(tmp_path)
    code, output = diff("--base", "HEAD", "--format", "json")
    assert code == 0, output
    summary = json.loads(output)["summary"]
    assert summary["changed"] == summary["removed"] == []
    assert "aus1-br1" in summary["added"] and summary["lines_removed"] == 0


def test_unknown_ref_and_no_repository_exit_2(
    repo: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = diff("--base", "no-such-branch")
    assert code == 2 and "unknown ref no-such-branch; name a branch, tag or commit" in output
    elsewhere = tmp_path_factory.mktemp("plain")
    shutil.copytree(EXAMPLE_INTENT, elsewhere / "intent")
    monkeypatch.chdir(elsewhere)
    code, output = diff("--base", "HEAD")
    assert code == 2 and "is not in a git repository; diff compares the intent" in output
    assert "Traceback" not in output
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    code, output = diff("--base", "HEAD")
    assert code == 2 and "the repository has no commit yet; commit the intent first" in output


def _report(findings: int, devices: int) -> object:
    from meetme.core.findings import Finding
    from meetme.core.problems import Location
    from meetme.gitdiff import DeviceDiff, DiffReport

    appeared = [
        Finding(
            "WAIVER-002",
            "error",
            f"waiver {i} covers no finding: remove it <or> fix its object & rule",
            Location("intent/waivers.yaml", 2 + 5 * i, 5),
            f"waivers[{i}]",
        )
        for i in range(findings)
    ]
    diffs = [
        DeviceDiff(f"aus1-lf{i}", "changed", f"rendered/aus1/aus1-lf{i}.cfg", 1, 1, "-a\n+b\n")
        for i in range(devices)
    ]
    return DiffReport("HEAD", diffs, 0, appeared, [])


@pytest.mark.parametrize(("findings", "devices"), [(600, 0), (0, 3000), (10, 3)])
def test_the_markdown_comment_fits_githubs_limit_whatever_it_holds(
    findings: int, devices: int
) -> None:
    """GitHub refuses a comment over 65,536 characters; the table and the impact list count
    against the budget as the device diffs do, and what is left out is counted."""
    from meetme.gitdiff import markdown_report

    text = markdown_report(_report(findings, devices))  # type: ignore[arg-type]
    assert len(text) <= 65_536
    shown = text.count("- New: **error** `WAIVER-002`")
    rows = text.count("| changed |")
    if findings == 600:
        assert f"{findings - shown} finding(s) left out to fit a comment" in text
    elif devices == 3000:
        assert f"{devices - rows} device row(s) left out to fit a comment" in text
    else:
        assert shown == 10 and rows == 3 and "left out" not in text
    # text, not HTML: GitHub would drop <or> as a tag
    assert ("<or>" not in text and "&lt;or&gt; fix its object &amp; rule" in text) or not findings


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_an_unusable_intent_is_said_in_the_diffs_own_format(repo: Path, fmt: str) -> None:
    """CI posts the markdown as a comment and scripts read the JSON: both say why there is no
    diff, with each problem's place, and the run still exits 2."""
    (repo / "intent/aus1/x1.yaml").write_text("sites:\n  aus1:\n    bogus_key: 1\n")
    result = runner.invoke(app, ["diff", "--base", "HEAD", "--format", fmt])
    assert result.exit_code == 2
    if fmt == "json":
        [problem] = json.loads(result.stdout)["unusable"]
        assert (problem["file"], problem["line"], problem["column"]) == (
            "intent/aus1/x1.yaml",
            3,
            5,
        )
        assert problem["kind"] == "unknown-key"
    else:
        assert "**The intent is unusable** (1 problem(s))" in result.stdout
        assert "- `intent/aus1/x1.yaml:3:5` `unknown-key`: unknown key 'bogus_key'" in result.stdout
    assert "unknown key 'bogus_key'" in result.stderr  # the terminal's line as before


def test_a_waiver_gone_since_the_base_is_named_as_the_working_tree_names_it(repo: Path) -> None:
    """The base's side lints in a temporary folder: its waived findings named the waiver at
    /tmp/meetme-diff-XXXX/intent/waivers.yaml, another path on every run."""
    (repo / "intent/waivers.yaml").write_text(
        "waivers:\n  - rule: DCI-009\n    object: dci.circuits.syd-mel-coastal\n"
        "    reason: dark until SRv6 reaches mel1\n    owner: netops-aus\n"
        "    expires: 2099-03-31\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "waive DCI-009")
    (repo / "intent/waivers.yaml").unlink()
    code, text = diff("--full", "--base", "HEAD")
    assert code == 0, text
    assert "waived by intent/waivers.yaml:2 (owner netops-aus" in text
    assert "meetme-diff-" not in text
    code, data = diff("--full", "--base", "HEAD", "--format", "json")
    gone = json.loads(data)["impact"]["disappeared"]
    assert [f["waiver"]["file"] for f in gone if "waiver" in f] == ["intent/waivers.yaml"]


@pytest.mark.parametrize("side", ["working tree", "base"])
def test_a_device_its_platform_cannot_print_is_a_finding_not_an_internal_error(
    repo: Path, side: str
) -> None:
    """A local user named `root` is one NX-OS keeps for itself (PLAT-023): `lint` says so for
    each NX-OS device, and `diff` printed `internal error: a template failed` (exit 3, "a bug
    in meetme") because it rendered those devices anyway. The finding says it once per
    device, on whichever side has it; the devices are left out of the comparison, the rest
    are compared."""
    site = repo / "intent/aus1/site.yaml"
    replace_in(site, "        monitor:\n", "        root:\n")
    if side == "base":
        git(repo, "commit", "-qam", "a user named root")
        replace_in(site, "        root:\n", "        monitor:\n")
    devices = repo / "intent/aus1/devices.yaml"
    replace_in(devices, "management: 192.168.10.101/24", "management: 192.168.10.111/24")
    code, output = diff("--base", "HEAD", "--format", "json")
    assert code == 0, output
    report = json.loads(output)
    nxos = ["aus1-bl3", "aus1-bl4", "aus1-lf3", "aus1-lf4"]
    findings = report["impact"]["appeared" if side == "working tree" else "disappeared"]
    named = sorted(f["message"].split(" ")[0] for f in findings if f["rule"] == "PLAT-023")
    assert named == nxos
    assert report["summary"]["not_compared"] == nxos
    # every other device compared (the user is on each); the NX-OS ones neither "removed"
    # nor "added"
    assert report["summary"]["added"] == report["summary"]["removed"] == []
    changed = report["summary"]["changed"]
    assert "aus1-lf1" in changed and not set(changed) & set(nxos)
    code, output = diff("--base", "HEAD")
    assert code == 0, output
    assert "internal error" not in output and "Traceback" not in output
    assert "4 device(s) not compared (aus1-bl3, aus1-bl4, aus1-lf3, aus1-lf4)" in output
    code, output = diff("--base", "HEAD", "--format", "markdown")
    assert code == 0, output
    assert "4 device(s) not compared (`aus1-bl3`, `aus1-bl4`, `aus1-lf3`, `aus1-lf4`)" in output


def test_an_ipv6_address_among_a_route_servers_ipv4_is_unusable_not_an_internal_error(
    repo: Path,
) -> None:
    """An IX route server's IPv6 address pasted into its `ipv4:` list made a session whose
    family (the address's) was not its list's: lint said EDGE-008, and `diff`, which renders
    the models of an intent the rules refuse, ended with `internal error: ValueError at
    edge_policy.py` (two PL-IXLAN-...-V6 lists). The list's family is checked where it is
    written: one problem at its line and column, exit 2, on every command."""
    peering = repo / "intent/aus1/peering.yaml"
    replace_in(peering, "ipv4: [203.0.113.1]", 'ipv4: ["2001:db8:ff00::1"]')
    line = line_of(peering, 'ipv4: ["2001:db8:ff00::1"]')
    column = peering.read_text().splitlines()[line - 1].index('"2001:db8:ff00::1"') + 1
    message = (
        f"intent/aus1/peering.yaml:{line}:{column}: error[bad-value]: "
        "sites.aus1.peering.ixes.ix-syd.route_servers.rs1.ipv4.0: '2001:db8:ff00::1' is IPv6; "
        "an IPv4 address is required"
    )
    for command in (["lint"], ["diff", "--base", "HEAD"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert message in result.stderr, result.stderr
        assert "internal error" not in result.output and "Traceback" not in result.output


def test_an_unusable_base_is_said_first_not_after_every_device_as_added(repo: Path) -> None:
    """A broken commit, fixed in the working tree: every device reads as added because the
    base rendered none. That is said before the diffs (text) or the device table (markdown),
    and in the summary, not after thousands of lines (found by a day-2 review)."""
    bad = repo / "intent/aus1/x1.yaml"
    bad.write_text("sites:\n  aus1:\n    bogus_key: 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "broken")
    bad.unlink()
    code, output = diff("--base", "HEAD")
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == (
        "the intent at HEAD is unusable (1 problem(s)); it is compared as if it rendered no device:"
    )
    assert lines[1].startswith("  intent/aus1/x1.yaml:3:5: ")
    assert lines[-1].startswith(
        "against HEAD (unusable: compared as if it rendered no device): 0 changed, 34 added"
    )
    code, comment = diff("--base", "HEAD", "--format", "markdown")
    assert code == 0
    assert comment.index("The intent at `HEAD` is unusable") < comment.index("| device |")
