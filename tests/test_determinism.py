"""The same intent renders byte-identical files whatever the process that renders it.

Two `meetme render` processes on two copies of the example differ in everything a machine may
differ in: the hash seed (the order a set or a dict of strings is walked in), the time zone,
the locale, the folder the repository sits in and its name, the folder the command is run
from, and one process or several. The files they write must be the same bytes, and the same
as the committed rendered/ folder. The hash file is left out: it is signed with this user's
key and names where the intent is (meetme/record.py), and it is never committed.

What the commands print is held to the same: `meetme lint` in the machine-readable formats CI
stores (json, sarif) and `meetme render`'s report, across hash seed, time zone and locale.
"""

from __future__ import annotations

import json
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


# Two machines as unlike as the environment can make them: every variable differs at once, so
# output that follows any of them (a set walked in hash order, a date or a sorting by the local
# zone or locale) differs between the two runs. $MEETME_TODAY is left unset: the day waivers are
# judged on must come from the clock, in UTC, not from the machine's zone.
MACHINES = (
    {"PYTHONHASHSEED": "0", "TZ": "UTC", "LC_ALL": "C"},
    {"PYTHONHASHSEED": "12345", "TZ": "Australia/Sydney", "LC_ALL": "C.UTF-8"},
)


def _run_all(runs: dict[str, tuple[Path, list[str], dict[str, str]]]) -> dict[str, bytes]:
    """Each run's stdout (bytes, as a CI job would store it), the runs side by side."""
    base = {k: v for k, v in os.environ.items() if k != "MEETME_TODAY"}
    started = {
        name: subprocess.Popen(
            [sys.executable, "-m", "meetme", *args],
            cwd=repo,
            env={**base, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name, (repo, args, env) in runs.items()
    }
    out: dict[str, bytes] = {}
    for name, process in started.items():
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, (name, stdout.decode(), stderr.decode())
        out[name] = stdout
    return out


def test_lint_reports_and_render_output_are_the_same_bytes_on_any_machine(
    tmp_path: Path,
) -> None:
    """`meetme lint --format json|sarif` and `meetme render` (what it prints and what it
    writes) on the shipped example, each in a fresh copy (nothing read back from an earlier
    run), under both machines."""
    runs: dict[str, tuple[Path, list[str], dict[str, str]]] = {}
    for m, env in enumerate(MACHINES):
        for command in (["lint", "--format", "json"], ["lint", "--format", "sarif"], ["render"]):
            repo = _copy(tmp_path / f"{command[-1]}-{m}")
            runs[f"{command[-1]}-{m}"] = (repo, command, env)
    out = _run_all(runs)
    for command in ("json", "sarif", "render"):
        assert out[f"{command}-0"] == out[f"{command}-1"], command
    # what the reports say, read by hand from intent/dci.yaml and intent/mel1/tenants.yaml:
    # the two dark DCI circuits, and mel1's gpu-b reaching the Internet from private IPv4
    findings = json.loads(out["json-0"])
    assert [(f["rule"], f["file"], f["line"]) for f in findings] == [
        ("DCI-009", "intent/dci.yaml", 9),
        ("DCI-009", "intent/dci.yaml", 21),
        ("HANDOFF-013", "intent/mel1/tenants.yaml", 28),
    ]
    (sarif_run,) = json.loads(out["sarif-0"])["runs"]
    assert [r["ruleId"] for r in sarif_run["results"]] == ["DCI-009", "DCI-009", "HANDOFF-013"]
    printed = out["render-0"].decode()
    assert "0 error(s), 3 warning(s)\n34 of 34 device(s) rendered anew" in printed
    written = [_files(runs[f"render-{m}"][0] / "rendered") for m in range(len(MACHINES))]
    assert written[0] == written[1]
    assert written[0] == _files(REPO / "rendered")
