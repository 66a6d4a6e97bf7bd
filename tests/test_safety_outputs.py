"""Issue #9, output paths: meetme writes only where it owns the path, and proves it.

`render` replaces only a folder that is absent, empty or marked `.meetme-rendered` with
nothing but the files the marker lists; reports never land in intent/, rendered/ or .git,
never through a symlink and never over a file meetme did not write. Every refusal is exit 2,
one line naming the path, and leaves the path byte-identical (its tree is hashed).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import tree_hash
from typer.testing import CliRunner

from meetme.cli import app
from meetme.outputs import HASHES, MARKER, MARKER_HEADER, is_lint_report, remember_written
from meetme.pipeline import write_rendered

REPO = Path(__file__).resolve().parent.parent
runner = CliRunner()


def refused(args: list[str], path: str, why: str) -> None:
    """The command exits 2 with one line naming `path` and the reason, and no traceback."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"meetme: refusing to write {path}: " in result.output
    assert why in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def rendered_files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


# --- the cases of the issue -----------------------------------------------------------------


def test_render_out_dot_refuses_and_leaves_the_repository_and_git_intact(example: Path) -> None:
    git(example, "init", "-q")
    (example / "NOTES.md").write_text("my notes\n")
    before = tree_hash(example)
    refused(["render", "--out", "."], ".", "holds the intent folder")
    assert tree_hash(example) == before


def test_render_out_a_repository_without_intent_inside_refuses(example: Path) -> None:
    other = example / "other-repo"
    other.mkdir()
    git(other, "init", "-q")
    before = tree_hash(other)
    refused(["render", "--out", "other-repo"], "other-repo", "it holds .git")
    assert tree_hash(other) == before


def test_render_out_intent_refuses_and_leaves_the_intent_intact(example: Path) -> None:
    before = tree_hash(example / "intent")
    refused(["render", "--out", "intent"], "intent", "it is the intent folder")
    refused(["render", "--out", "intent/aus1"], "intent/aus1", "inside the intent folder")
    refused(["render", "--out", "intent/new"], "intent/new", "inside the intent folder")
    assert tree_hash(example / "intent") == before
    assert not (example / "intent/new").exists()


def test_render_out_a_folder_holding_the_intent_refuses(example: Path) -> None:
    work = example / "work"
    shutil.move(example / "intent", work / "intent")
    before = tree_hash(work)
    refused(["render", "--intent", "work/intent", "--out", "work"], "work", "holds the intent")
    assert tree_hash(work) == before


def test_render_out_a_file_refuses_and_leaves_it_byte_identical(example: Path) -> None:
    notes = example / "NOTES.md"
    notes.write_text("# my notes\n")
    before = tree_hash(notes)
    refused(["render", "--out", "NOTES.md"], "NOTES.md", "it is a file, not a folder")
    assert tree_hash(notes) == before


def test_render_out_under_a_file_refuses(example: Path) -> None:
    notes = example / "NOTES.md"
    notes.write_text("# my notes\n")
    before = tree_hash(example)
    refused(["render", "--out", "NOTES.md/rendered"], "NOTES.md/rendered", "is not a folder")
    assert tree_hash(example) == before


def test_a_symlinked_rendered_folder_is_refused_and_its_target_kept(example: Path) -> None:
    elsewhere = example / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.txt").write_text("keep me\n")
    (elsewhere / MARKER).write_text(f"{MARKER_HEADER}\n")  # even a marker does not make it ours
    (example / "rendered").symlink_to(elsewhere)
    before, link_before = tree_hash(elsewhere), tree_hash(example / "rendered")
    refused(["render"], "rendered", "symbolic link")
    assert tree_hash(elsewhere) == before
    assert tree_hash(example / "rendered") == link_before


def test_lint_output_onto_an_intent_file_refuses_and_keeps_the_intent(example: Path) -> None:
    before = tree_hash(example / "intent")
    path = "intent/organisation.yaml"
    refused(["lint", "--output", path], path, "inside the intent folder")
    refused(["lint", "--format", "sarif", "-o", "intent/report.sarif"], "intent/report.sarif", "")
    assert tree_hash(example / "intent") == before


# --- what render accepts: absent, empty, its own -------------------------------------------


def test_render_into_an_absent_folder_with_absent_parents(example: Path) -> None:
    result = runner.invoke(app, ["render", "--out", "build/configs"])
    assert result.exit_code == 0, result.output
    assert (example / "build/configs/aus1/aus1-br1.cfg").is_file()


def test_render_into_an_empty_folder(example: Path) -> None:
    (example / "rendered").mkdir()
    assert runner.invoke(app, ["render"]).exit_code == 0
    assert (example / "rendered/aus1/aus1-br1.cfg").is_file()


@pytest.mark.parametrize("mode", [0o2750, 0o700])
def test_render_keeps_the_access_the_user_gave_the_folder(example: Path, mode: int) -> None:
    """An empty folder made for the configs, then the rendered folder after a change: the
    folder that replaces it keeps its mode (a private 700, a setgid group 2750)."""
    out = example / "configs"
    out.mkdir()
    out.chmod(mode)
    assert runner.invoke(app, ["render", "--out", "configs"]).exit_code == 0
    assert (out.stat().st_mode & 0o7777) == mode
    devices = example / "intent/aus1/devices.yaml"
    devices.write_text(devices.read_text().replace("192.168.10.21/24", "192.168.10.99/24", 1))
    assert runner.invoke(app, ["render", "--out", "configs"]).exit_code == 0
    assert "192.168.10.99" in (out / "aus1/aus1-sp1.cfg").read_text()
    assert (out.stat().st_mode & 0o7777) == mode


def test_the_marker_lists_exactly_the_files_written_sorted(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    files = rendered_files(example / "rendered")
    lines = files.pop(MARKER).decode().splitlines()
    assert lines[0] == MARKER_HEADER
    assert lines[0].startswith("# meetme owns this folder")
    assert lines[1:] == sorted(files)
    sites = [name.split("/")[0] for name in lines[1:]]
    assert (sites.count("aus1"), sites.count("mel1")) == (18, 16)  # one file per device
    assert len(lines[1:]) == 34 + 1 and HASHES in lines  # and meetme's content hashes


def test_the_committed_marker_is_what_render_writes(example: Path) -> None:
    """`.ci/run` diffs a fresh render against the committed rendered/, marker included."""
    assert runner.invoke(app, ["render"]).exit_code == 0
    written = (example / "rendered" / MARKER).read_bytes()
    assert (REPO / "rendered" / MARKER).read_bytes() == written


def test_a_marked_folder_is_replaced_and_a_deleted_listed_file_comes_back(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    first = rendered_files(example / "rendered")
    (example / "rendered/aus1/aus1-sp1.cfg").unlink()  # listed, missing: still ours
    (example / "rendered/aus1/aus1-sp2.cfg").write_text("edited by hand\n")  # listed: ours
    assert runner.invoke(app, ["render"]).exit_code == 0
    assert rendered_files(example / "rendered") == first


def test_a_marked_folder_with_one_stray_file_is_refused(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    (example / "rendered/README.md").write_text("read me\n")
    before = tree_hash(example / "rendered")
    refused(["render"], "rendered", "it holds README.md, which meetme did not write")
    assert tree_hash(example / "rendered") == before


def test_a_marked_folder_with_a_stray_link_or_nested_file_is_refused(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    (example / "rendered/aus1/notes").mkdir()
    (example / "rendered/aus1/notes/todo.txt").write_text("todo\n")
    before = tree_hash(example / "rendered")
    refused(["render"], "rendered", "aus1/notes/todo.txt")
    shutil.rmtree(example / "rendered/aus1/notes")
    os.replace(example / "rendered/aus1/aus1-sp1.cfg", example / "sp1.cfg")
    (example / "rendered/aus1/aus1-sp1.cfg").symlink_to(example / "sp1.cfg")  # listed name
    before = tree_hash(example / "rendered")
    refused(["render"], "rendered", "aus1/aus1-sp1.cfg, which is not a regular file")
    assert tree_hash(example / "rendered") == before


def test_a_marked_folder_holding_an_empty_folder_of_the_users_is_refused(example: Path) -> None:
    """The swap took a user's empty folders (rendered/my-archive/2024) with it."""
    assert runner.invoke(app, ["render"]).exit_code == 0
    (example / "rendered/my-archive/2024").mkdir(parents=True)
    before = tree_hash(example / "rendered")
    refused(["render"], "rendered", "it holds the folder my-archive/, which meetme did not make")
    assert (example / "rendered/my-archive/2024").is_dir()
    assert tree_hash(example / "rendered") == before


def test_an_unmarked_or_falsely_marked_folder_is_refused(example: Path) -> None:
    folder = example / "rendered"
    folder.mkdir()
    (folder / "router.cfg").write_text("hostname mine\n")
    before = tree_hash(folder)
    refused(["render"], "rendered", "has no .meetme-rendered marker")
    (folder / MARKER).write_text("router.cfg\n")  # no header: not meetme's marker
    refused(["render"], "rendered", "has no .meetme-rendered marker")
    (folder / MARKER).unlink()
    (folder / MARKER).symlink_to(folder / "router.cfg")
    refused(["render"], "rendered", "has no .meetme-rendered marker")
    (folder / MARKER).unlink()
    assert tree_hash(folder) == before


def test_a_name_that_would_escape_the_folder_is_refused(example: Path) -> None:
    before = tree_hash(example)
    for name in ("../escape.cfg", "/etc/x.cfg", "aus1/../../x.cfg", MARKER, "a\nb", "a\u2028b"):
        with pytest.raises(Exception, match="not a plain file name inside the output folder"):
            write_rendered(example / "rendered", {name: "x\n"})
    assert tree_hash(example) == before


# --- check ------------------------------------------------------------------------------------


def test_check_ignores_the_marker_and_reports_a_stray_file_as_stale(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    clean = runner.invoke(app, ["check"])
    assert clean.exit_code == 0, clean.output
    assert ".meetme-rendered" not in clean.output
    (example / "rendered/README.md").write_text("read me\n")
    drift = runner.invoke(app, ["check"])
    assert drift.exit_code == 1
    assert "stale: rendered/README.md" in drift.output


def test_check_refuses_what_render_could_never_replace(example: Path) -> None:
    (example / "elsewhere").mkdir()
    (example / "rendered").symlink_to(example / "elsewhere")
    result = runner.invoke(app, ["check"])
    assert result.exit_code == 2
    assert "rendered: it is a symbolic link" in result.output
    (example / "rendered").unlink()
    (example / "rendered").mkdir()
    (example / "rendered/router.cfg").write_text("hostname mine\n")
    result = runner.invoke(app, ["check"])
    assert result.exit_code == 2
    assert "has no .meetme-rendered marker" in result.output


def test_check_never_reads_through_a_link_inside_rendered(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    secret = example / "secret.env"
    secret.write_text("TOKEN=abc\n")
    target = example / "rendered/aus1/aus1-sp1.cfg"
    target.unlink()
    target.symlink_to(secret)
    result = runner.invoke(app, ["check"])
    assert result.exit_code == 1
    assert "changed: rendered/aus1/aus1-sp1.cfg" in result.output
    assert "TOKEN" not in result.output


# --- the swap: never a moment without rendered/, its debris cleaned --------------------------

KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import meetme.outputs as outputs

    step, out = sys.argv[1], Path(sys.argv[2])
    real_exchange = outputs.exchange

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def exchange(first, second):
        if step == "before-swap":
            die()
        done = real_exchange(first, second)
        if step == "after-swap":
            die()
        return done

    outputs.exchange = exchange
    outputs.write_folder(out, {"aus1/new.cfg": "new\\n"}, None)
    """
)


def kill_render_at(step: str, out: Path) -> None:
    done = subprocess.run([sys.executable, "-c", KILLER, step, str(out)], check=False)
    assert done.returncode == -signal.SIGKILL


def debris(parent: Path) -> list[str]:
    return sorted(p.name.rsplit("-", 1)[0] for p in parent.iterdir() if p.name.startswith("."))


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")


@LINUX
@pytest.mark.parametrize(
    ("step", "content"),
    [("before-swap", {"aus1/old.cfg": b"old\n"}), ("after-swap", {"aus1/new.cfg": b"new\n"})],
)
def test_a_kill_during_the_swap_leaves_rendered_complete(
    tmp_path: Path, step: str, content: dict[str, bytes]
) -> None:
    out = tmp_path / "rendered"
    write_rendered(out, {"aus1/old.cfg": "old\n"})
    kill_render_at(step, out)
    files = rendered_files(out)
    assert files.pop(MARKER).decode().splitlines()[1:] == sorted(content)
    assert files == content
    assert debris(tmp_path) == [".rendered.new"]  # staged or retired: the marked leftover
    write_rendered(out, {"aus1/again.cfg": "again\n"})  # the next render cleans it
    assert debris(tmp_path) == []
    assert "aus1/again.cfg" in rendered_files(out)


@LINUX
def test_the_swap_exchanges_in_one_step_where_linux_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With renameat2 the old folder is never renamed away: rendered/ always exists."""
    out = tmp_path / "rendered"
    write_rendered(out, {"a.cfg": "1\n"})
    renames: list[tuple[str, str]] = []
    real_rename = os.rename
    monkeypatch.setattr(os, "rename", lambda a, b: renames.append((a, b)) or real_rename(a, b))
    write_rendered(out, {"a.cfg": "2\n"})
    assert renames == []
    assert (out / "a.cfg").read_text() == "2\n"


def test_without_renameat2_the_two_rename_fallback_still_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "rendered"
    write_rendered(out, {"a.cfg": "1\n", "b.cfg": "1\n"})
    monkeypatch.setattr("meetme.outputs.exchange", lambda first, second: False)
    write_rendered(out, {"a.cfg": "2\n"})
    assert rendered_files(out) == {MARKER: f"{MARKER_HEADER}\na.cfg\n".encode(), "a.cfg": b"2\n"}
    assert debris(tmp_path) == []


def test_debris_without_the_marker_is_left_alone(tmp_path: Path) -> None:
    users = tmp_path / ".rendered.new-mine"
    users.mkdir()
    (users / "work.txt").write_text("mine\n")
    empty = tmp_path / ".rendered.old-empty"
    empty.mkdir()
    ours = tmp_path / ".rendered.old-x"
    ours.mkdir()
    (ours / MARKER).write_text(f"{MARKER_HEADER}\na.cfg\n")
    (ours / "a.cfg").write_text("old\n")
    before = tree_hash(users)
    write_rendered(tmp_path / "rendered", {"a.cfg": "new\n"})
    assert tree_hash(users) == before
    assert not ours.exists() and not empty.exists()  # meetme's own and empty ones go


def test_gitignore_covers_the_debris_of_a_killed_render(tmp_path: Path) -> None:
    shutil.copy(REPO / ".gitignore", tmp_path / ".gitignore")
    git(tmp_path, "init", "-q")
    for name in (".rendered.new-k2j4x9/aus1/a.cfg", ".rendered.old-0abc_d/.meetme-rendered"):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=tmp_path, check=False)
        assert done.returncode == 0, name
    done = subprocess.run(["git", "check-ignore", "-q", "rendered/.meetme-rendered"], cwd=tmp_path)
    assert done.returncode == 1  # the marker itself is committed


# --- report outputs ---------------------------------------------------------------------------


def test_report_outputs_refuse_rendered_git_links_and_folders(example: Path) -> None:
    assert runner.invoke(app, ["render"]).exit_code == 0
    (example / ".git").mkdir()
    (example / "reports").mkdir()
    (example / "notes.txt").write_text("mine\n")
    (example / "link.sarif").symlink_to(example / "notes.txt")
    before = tree_hash(example)
    refused(["lint", "-o", "rendered/lint.json"], "rendered/lint.json", "inside the rendered")
    refused(["lint", "-o", ".git/lint.json"], ".git/lint.json", "inside .git")
    refused(["lint", "-o", "link.sarif"], "link.sarif", "it is a symbolic link")
    refused(["lint", "-o", "reports"], "reports", "it is a folder")
    refused(["schema", "--out", "intent/schema.json"], "intent/schema.json", "intent folder")
    refused(["schema", "--out", "notes.txt"], "notes.txt", "meetme did not write it")
    refused(["lint", "-o", "-"], "-", "not standard output")  # no file named - appears
    refused(["schema", "--out", "-"], "-", "not standard output")
    assert tree_hash(example) == before


def test_a_link_to_a_folder_inside_intent_does_not_smuggle_a_report_in(example: Path) -> None:
    (example / "out").symlink_to(example / "intent/aus1")
    before = tree_hash(example / "intent")
    refused(["lint", "-o", "out/lint.json"], "out/lint.json", "inside the intent folder")
    assert tree_hash(example / "intent") == before


@pytest.mark.parametrize(
    "mine",
    [
        "Meeting notes: keep these!\nask the carrier about XC-TA-2\n0 error(s), 0 warning(s)\n",
        "intent/aus1/site.yaml\nlooks like a heading, then notes\n\n1 error(s), 0 warning(s)\n",
        '{"$schema": "x", "version": "2.1.0", "runs": [{"tool": {"driver": {"name": "meetme"}}}],'
        ' "mydata": "precious"}\n',
        # a list of the user's, empty or with keys beyond a finding's; a summary line alone;
        # annotations of the user's own; a JUnit header over the user's document
        "[]\n",
        '[{"rule": 1, "severity": 1, "message": 1, "file": 1, "line": 1, "column": 1, "path": 1,'
        ' "mydata": "precious"}]\n',
        "0 error(s), 0 warning(s)\n",
        "::error my own annotation\n3 error(s), 1 warning(s)\n",
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="meetme lint" my="precious"/>\n',
    ],
)
def test_lint_output_leaves_a_file_that_only_looks_like_its_report(
    example: Path, mine: str
) -> None:
    """A notes file ending in a summary line, or a SARIF file of meetme's with data of the
    user's own, was overwritten."""
    (example / "mine.txt").write_text(mine)
    refused(["lint", "-o", "mine.txt"], "mine.txt", "did not write it")
    assert (example / "mine.txt").read_text() == mine


@pytest.mark.parametrize("first", ["json", "sarif", "junit", "github", "text"])
def test_lint_overwrites_its_own_report_in_any_format_but_not_a_users_file(
    example: Path, first: str
) -> None:
    report = example / "lint.out"
    result = runner.invoke(app, ["lint", "--format", first, "-o", "lint.out"])
    assert result.exit_code in (0, 1), result.output
    again = runner.invoke(app, ["lint", "--format", "sarif", "-o", "lint.out"])
    assert again.exit_code in (0, 1), again.output
    assert '"name": "meetme"' in report.read_text()
    report.write_text('{"runs": [{"tool": {"driver": {"name": "other"}}}]}\n')
    before = tree_hash(report)
    refused(["lint", "--format", first, "-o", "lint.out"], "lint.out", "did not write it")
    assert tree_hash(report) == before
    assert [p.name for p in example.iterdir() if p.name.startswith(".lint.out")] == []


def test_a_report_with_nothing_in_it_is_ours_by_the_record_only(tmp_path: Path) -> None:
    """`[]` or a summary line alone is what a clean lint writes and what a user's file may
    hold: meetme overwrites it only where it wrote exactly that text at that path."""
    report = tmp_path / "lint.json"
    report.write_text("[]\n")
    assert not is_lint_report(report)
    remember_written(report, "[]\n")
    assert is_lint_report(report)
    report.write_text("[]\n\n")  # edited since
    assert not is_lint_report(report)
    other = tmp_path / "other.json"  # the record is per path
    other.write_text("[]\n")
    assert not is_lint_report(other)


def test_schema_overwrites_its_own_file(example: Path) -> None:
    assert runner.invoke(app, ["schema", "--out", "schema.json"]).exit_code == 0
    assert runner.invoke(app, ["schema", "--whole", "--out", "schema.json"]).exit_code == 0
    assert "all files merged" in (example / "schema.json").read_text()


@pytest.mark.parametrize("command", ["plan", "push"])
def test_journal_naming_a_folder_or_a_foreign_file_is_refused_before_any_device(
    example: Path, command: str
) -> None:
    """The journal is checked first: no inventory, intent or device is read before."""
    (example / "journals").mkdir()
    (example / "inventory.yaml").write_text("devices: {}\n")
    before = tree_hash(example)
    base = [command, "--stage", "lab", "--journal"]
    refused([*base, "journals"], "journals", "it is a folder")
    refused([*base, "inventory.yaml"], "inventory.yaml", "meetme did not write it")
    refused([*base, "rendered/j.jsonl"], "rendered/j.jsonl", "inside the rendered folder")
    refused([*base, "intent/j.jsonl"], "intent/j.jsonl", "inside the intent folder")
    assert tree_hash(example) == before


def test_a_journal_meetme_wrote_is_appended_to(example: Path) -> None:
    from meetme.outputs import check_report_path, is_journal

    journal = example / "push.jsonl"
    record = '{"ts": "2024-01-01T00:00:00.000Z", "run": "r", "command": "plan", '
    record += '"stage": "lab", "wave": null, "device": null, "step": "run-start", "status": "ok"}'
    journal.write_text(record + "\n" + record[:20])  # a last line cut short by a kill
    check_report_path(journal, {}, is_journal)  # accepted: no exception
    journal.write_text(record + "\nTOKEN=abc\n")
    with pytest.raises(Exception, match="meetme did not write it"):
        check_report_path(journal, {}, is_journal)
    # a user's one line without a newline is no journal cut short: refused, never appended to
    journal.write_text("my notes, no newline at the end")
    with pytest.raises(Exception, match="meetme did not write it"):
        check_report_path(journal, {}, is_journal)
    journal.write_text("")  # empty: made for the journal (touch), taken
    check_report_path(journal, {}, is_journal)
