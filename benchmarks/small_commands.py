"""Time the small commands an engineer runs by hand on the shipped example: wall and CPU.

    python benchmarks/small_commands.py --runs 5

Runs each command `--runs` times as its own process (start-up included: that is what a person
waits for) in the repository holding this script (or --repo), and prints the fastest run's
wall time and that run's CPU time (user + system, from resource.getrusage of the child). The
first run also fills the compiled-template cache (generators/render.py), as a person's first
run does; the fastest is a later one.

Then `meetme lint` three ways on a copy of the repository's intent, rendered once there
(untimed): unchanged since that render (the lint record is read back, meetme/record.py);
after a one-line edit (a comment appended to one intent file: everything is worked out again,
and the devices' content hashes still spare the config lint); and with no hash file at all,
as on a fresh clone (every device rendered and linted). A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = [
    ["--help"],
    ["rules"],
    ["explain", "EDGE-001"],
    ["show", "aus1-lf1"],
]  # and `lint`, three ways (lint_three_ways)


def _once(args: list[str], repo: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "meetme", *args],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def lint_three_ways(repo: Path, runs: int) -> dict[str, tuple[float, float]]:
    """`meetme lint` unchanged since a render, after a one-line edit, and with no hash file."""
    timed: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="meetme-small-") as tmp:
        copy = Path(tmp)
        shutil.copytree(repo / "intent", copy / "intent")
        subprocess.run(
            [sys.executable, "-m", "meetme", "render"],
            cwd=copy,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        timed["meetme lint (unchanged)"] = min(_once(["lint"], copy) for _ in range(runs))
        edited = sorted((copy / "intent").rglob("*.yaml"))[0]
        with edited.open("a", encoding="utf-8") as handle:
            handle.write("# one line more, as an edit\n")
        timed["meetme lint (one-line edit)"] = min(_once(["lint"], copy) for _ in range(runs))
        (copy / "rendered" / ".meetme-hashes.json").unlink()
        timed["meetme lint (no hash file)"] = min(_once(["lint"], copy) for _ in range(runs))
    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--repo", type=Path, default=REPO, help="run in this repository")
    args = parser.parse_args()
    figures = {}
    timed = {
        "meetme " + " ".join(c): min(_once(c, args.repo) for _ in range(args.runs))
        for c in COMMANDS
    }
    timed.update(lint_three_ways(args.repo, args.runs))
    for name, (wall, cpu) in timed.items():
        figures[name] = {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3)}
        print(f"{name:30} {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
