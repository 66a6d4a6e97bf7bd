"""Issue #9, no traceback ever: every command under a read-only, full or forbidden disk.

Root ignores chmod, so the faults are injected: inside the test's folder every primitive that
creates or changes a file (os.open for writing, open(), os.write, os.mkdir, os.rename,
os.replace, the rename-exchange) raises OSError(errno). Each command then ends with exit 2 and
`meetme: cannot write PATH: <strerror>` when it had to write, exactly as without the fault when
it had not, never with a traceback, and leaves the folder exactly as it was.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from emulator.lab import SPINES, Lab
from helpers import tree_hash
from typer.testing import CliRunner

from meetme import outputs
from meetme.cli import app, main

runner = CliRunner()
FAULTS = [errno.EROFS, errno.ENOSPC, errno.EACCES]
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class Disk:
    """Makes writes under `root` fail with `code` (monkeypatched; undone after the test)."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = str(root.resolve())
        self.monkeypatch = monkeypatch

    def inside(self, path: Any) -> bool:
        if isinstance(path, int):  # a descriptor: where does it point?
            path = os.readlink(f"/proc/self/fd/{path}")
        return os.path.abspath(os.fsdecode(path)).startswith(self.root)

    def fail(self, code: int, reads: bool = False) -> None:
        def guard(real: Callable[..., Any], writes: Callable[..., bool]) -> Callable[..., Any]:
            def call(*args: Any, **kwargs: Any) -> Any:
                if self.inside(args[0]) and (reads or writes(*args, **kwargs)):
                    raise OSError(code, os.strerror(code), os.fsdecode(args[0]))
                return real(*args, **kwargs)

            return call

        def write_mode(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> bool:
            return any(c in mode for c in "wax+")

        def write_flags(path: Any, flags: int, *args: Any, **kwargs: Any) -> bool:
            return bool(flags & _WRITE_FLAGS)

        def always(*args: Any, **kwargs: Any) -> bool:
            return True

        patch = self.monkeypatch.setattr
        patch(os, "open", guard(os.open, write_flags))
        patch(io, "open", guard(io.open, write_mode))
        patch("builtins.open", guard(open, write_mode))
        for name in ("write", "mkdir", "rename", "replace"):
            patch(os, name, guard(getattr(os, name), always))
        patch(outputs, "exchange", guard(outputs.exchange, always))


@pytest.fixture
def disk(example: Path, monkeypatch: pytest.MonkeyPatch) -> Disk:
    return Disk(example, monkeypatch)


def run(args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def prepared(example: Path) -> None:
    """A rendered folder and a report to overwrite, so every command has its inputs."""
    assert run(["render"])[0] == 0
    assert run(["lint", "--format", "sarif", "-o", "lint.sarif"])[0] in (0, 1)


WRITERS = {
    "lint -o": (["lint", "--format", "sarif", "-o", "lint.sarif"], "lint.sarif"),
    "render": (["render"], "rendered"),
    "render --out new": (["render", "--out", "build/new"], "build/new"),
    "schema --out": (["schema", "--out", "schema.json"], "schema.json"),
}
READERS = {
    "lint": ["lint"],
    "check": ["check"],
    "show": ["show", "aus1-br1"],
    "rules": ["rules"],
    "explain": ["explain", "ADDR-001"],
    "lint --format json": ["lint", "--format", "json"],
}


@pytest.mark.parametrize("code", FAULTS, ids=errno.errorcode.get)
@pytest.mark.parametrize("name", WRITERS)
def test_a_command_that_writes_exits_2_naming_the_path(
    example: Path, disk: Disk, code: int, name: str
) -> None:
    prepared(example)
    args, path = WRITERS[name]
    if name == "render":  # something to write: an unchanged file is not written again
        moved_gateway(example)
    before = tree_hash(example)
    disk.fail(code)
    exit_code, output = run(args)
    assert exit_code == 2, output
    assert f"meetme: cannot write {path}: {os.strerror(code)}" in output
    assert tree_hash(example) == before


@pytest.mark.parametrize("code", FAULTS, ids=errno.errorcode.get)
@pytest.mark.parametrize("name", READERS)
def test_a_command_that_only_reads_is_unaffected(
    example: Path, disk: Disk, code: int, name: str
) -> None:
    prepared(example)
    expected = run(READERS[name])
    before = tree_hash(example)
    disk.fail(code)
    assert run(READERS[name]) == expected
    assert tree_hash(example) == before


@pytest.mark.parametrize("args", [["lint"], ["render"], ["check"], ["show", "aus1-br1"]])
def test_unreadable_intent_is_exit_2_naming_the_file(
    example: Path, disk: Disk, args: list[str]
) -> None:
    prepared(example)
    before = tree_hash(example)
    disk.root = str((example / "intent").resolve())
    disk.fail(errno.EACCES, reads=True)
    exit_code, output = run(args)
    assert exit_code == 2, output
    # the loader names each file it could not read; anything else says `cannot read PATH`
    assert "intent/aus1/devices.yaml" in output or "meetme: cannot read intent" in output
    assert "Permission denied" in output
    disk.monkeypatch.undo()  # reading is allowed again, to compare
    assert tree_hash(example) == before


@pytest.mark.parametrize("code", FAULTS, ids=errno.errorcode.get)
def test_diff_with_an_unwritable_temporary_folder(
    example: Path, disk: Disk, code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import tempfile

    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "intent"]):
        subprocess.run(["git", *args], cwd=example, check=True, capture_output=True)
    (example / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(example / "tmp"))
    before = tree_hash(example)
    disk.fail(code)
    exit_code, output = run(["diff"])
    assert exit_code == 2, output
    assert f"meetme: cannot write {example / 'tmp'}" in output
    assert os.strerror(code) in output
    assert tree_hash(example) == before


# --- a disk that fills up half-way -------------------------------------------------------------


def moved_gateway(example: Path) -> None:
    """An intent change that rewrites all 18 of aus1's configs (their management route)."""
    site = example / "intent/aus1/site.yaml"
    site.write_text(
        site.read_text().replace("gateway: 192.168.10.1\n", "gateway: 192.168.10.254\n")
    )


def test_a_disk_filling_up_during_render_leaves_rendered_as_it_was(
    example: Path, disk: Disk, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared(example)
    moved_gateway(example)
    before = tree_hash(example)
    real_create = outputs.create_file
    written: list[Path] = []

    def create_file(path: Path, data: bytes) -> None:
        if len(written) == 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(path)
        real_create(path, data)

    monkeypatch.setattr(outputs, "create_file", create_file)
    exit_code, output = run(["render"])
    assert exit_code == 2
    assert "meetme: cannot write rendered: No space left on device" in output
    assert len(written) == 5  # the staging folder had files when it was removed
    assert tree_hash(example) == before


def test_a_disk_filling_up_while_writing_a_report_keeps_the_old_report(
    example: Path, disk: Disk, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepared(example)
    before = tree_hash(example)
    real_write = os.write

    def write(fd: int, data: Any) -> int:
        if disk.inside(fd):  # the first chunk lands, then the disk is full
            monkeypatch.setattr(os, "write", disk_full)
            return real_write(fd, bytes(data)[:100])
        return real_write(fd, data)

    def disk_full(fd: int, data: Any) -> int:
        if disk.inside(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    exit_code, output = run(["lint", "--format", "sarif", "-o", "lint.sarif"])
    assert exit_code == 2
    assert "meetme: cannot write lint.sarif: No space left on device" in output
    assert tree_hash(example) == before  # the old report whole, no temporary file


def test_a_report_into_new_folders_removes_them_on_failure(example: Path, disk: Disk) -> None:
    before = tree_hash(example)
    real_write = os.write

    def write(fd: int, data: Any) -> int:
        if disk.inside(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    disk.monkeypatch.setattr(os, "write", write)
    exit_code, output = run(["schema", "--out", "reports/editor/schema.json"])
    assert exit_code == 2, output
    assert tree_hash(example) == before


# --- plan and push: the journal ----------------------------------------------------------------


@pytest.mark.parametrize("code", FAULTS, ids=errno.errorcode.get)
@pytest.mark.parametrize(
    ("args", "path"),
    [
        (["plan", "--journal", "plan.jsonl"], "plan.jsonl"),
        (["push", "--journal", "push.jsonl"], "push.jsonl"),
        (["push"], "journal/"),  # the default journal/<time>-push-lab.jsonl
    ],
)
def test_plan_and_push_with_an_unwritable_journal_touch_no_device(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, code: int, args: list[str], path: str
) -> None:
    before = tree_hash(lab.repo)
    Disk(lab.repo, monkeypatch).fail(code)
    exit_code, output = run([*args, "--stage", "lab"])
    assert exit_code == 2, output
    assert f"meetme: cannot write {path}" in output
    assert os.strerror(code) in output
    assert all(lab.untouched(name) for name in SPINES)
    assert tree_hash(lab.repo) == before


# --- what escapes a command ----------------------------------------------------------------------


def test_an_unexpected_exception_is_exit_3_in_one_line(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise KeyError("TOKEN=abc")

    monkeypatch.setattr("meetme.pipeline.lint", broken)
    exit_code, output = run(["lint"])
    assert exit_code == 3
    # where in meetme it surfaced (the innermost meetme frame), never the exception's text
    assert re.fullmatch(
        r"meetme: internal error: KeyError at cli\.py:\d+; this is a bug in meetme "
        r"\(set MEETME_DEBUG=1 to see the traceback\)\n",
        output,
    )
    assert "TOKEN" not in output  # a value in the message could be anything: a secret
    monkeypatch.setenv("MEETME_DEBUG", "1")
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 3
    assert "Traceback" in result.output and "TOKEN=abc" in result.output


@pytest.mark.parametrize("error", [RecursionError, MemoryError])
def test_too_deep_or_too_large_is_exit_2(
    example: Path, monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    def deep(*args: Any, **kwargs: Any) -> None:
        raise error()

    monkeypatch.setattr("meetme.pipeline.lint", deep)
    assert run(["render"]) == (2, "meetme: input too large or too deeply nested\n")


def test_the_script_reports_a_full_standard_output(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """`meetme rules > /dev/full`: the buffered text fails only at the last flush."""
    alone = runner.invoke(app, ["explain", "ADDR-002"])
    full = open(os.devnull, "w")  # noqa: SIM115 - replaced below, closed by the flush

    def flush() -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(full, "flush", flush)
    monkeypatch.setattr(sys, "stdout", full)
    monkeypatch.setattr(sys, "argv", ["meetme", "rules"])
    monkeypatch.setattr(os, "dup2", lambda *args: None)  # keep pytest's own descriptors
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 2
    assert "meetme: cannot write standard output: No space left on device" in capfd.readouterr().err
    # the text that could not be written is gone: the consoles outlive a command, and the
    # next command of this process prints its own text only (it began with `rules`' first
    # line, which failed a later test in another order)
    after = runner.invoke(app, ["explain", "ADDR-002"])
    assert (after.exit_code, after.stdout) == (alone.exit_code, alone.stdout)


@pytest.mark.parametrize(
    ("failing", "code", "says"),
    [
        ("run-start", 2, "meetme: cannot write plan.jsonl: No space left on device\n"),
        ("connect", 3, "the devices' state is unknown: check each device of this run by hand"),
    ],
)
def test_a_journal_that_fills_the_disk_mid_run(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, failing: str, code: int, says: str
) -> None:
    """Before any device step nothing happened: exit 2; after one, the journal no longer
    tells what the devices did: exit 3 (unknown), never a traceback."""
    from meetme.deploy import journal

    real_fsync = os.fsync
    seen: list[str] = []

    def fsync(fd: int) -> None:  # the record just written is the journal's last line
        step = json.loads((lab.repo / "plan.jsonl").read_text().splitlines()[-1])["step"]
        seen.append(step)
        if step == failing:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(journal.os, "fsync", fsync)
    exit_code, output = run(["plan", "--stage", "lab", "--journal", "plan.jsonl"])
    assert exit_code == code, output
    assert says in output
    assert failing in seen
    assert all(lab.unchanged(name) for name in SPINES)
