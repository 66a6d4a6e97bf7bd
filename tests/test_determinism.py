"""The same intent renders byte-identical files whatever the process that renders it.

Two `meetme render` processes on two copies of the example differ in everything a machine may
differ in: the hash seed (the order a set or a dict of strings is walked in), the time zone,
the locale, the folder the repository sits in and its name, the folder the command is run
from, and one process or several. The files they write must be the same bytes, and the same
as the committed rendered/ folder. The hash file is left out: it is signed with this user's
key and names where the intent is (meetme/record.py), and it is never committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLE_INTENT, REPO

from meetme.outputs import HASHES


def _render(repo: Path, run_from: Path, env: dict[str, str], jobs: str) -> dict[str, bytes]:
    """Every file `meetme render` writes into repo/rendered, by relative name."""
    done = subprocess.run(
        [sys.executable, "-m", "meetme", "render", "--full", "--jobs", jobs],
        cwd=run_from,
        env={**os.environ, "MEETME_TODAY": "2026-06-01", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return _files(repo / "rendered")


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of a rendered folder by relative name, but the per-user hash file."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != HASHES
    }


def _copy(target: Path) -> Path:
    shutil.copytree(EXAMPLE_INTENT, target / "intent")
    return target


def test_two_machines_render_the_same_bytes(tmp_path: Path) -> None:
    first = _copy(tmp_path / "a" / "meetme-site")
    second = _copy(tmp_path / "b" / "another name with spaces" / "repo")
    one = _render(
        first,
        first,
        {"PYTHONHASHSEED": "0", "TZ": "UTC", "LC_ALL": "C"},
        jobs="1",
    )
    other = _render(
        second,
        second / "intent" / "aus1",  # found upward from a subfolder, as git finds its tree
        {"PYTHONHASHSEED": "4242", "TZ": "Pacific/Chatham", "LC_ALL": "C.UTF-8"},
        jobs="2",
    )
    assert len(one) > 30  # every device of both sites, and the marker
    assert sorted(one) == sorted(other)
    differing = [name for name in one if one[name] != other[name]]
    assert differing == []
    assert one == _files(REPO / "rendered")
