"""Time the small commands an engineer runs by hand on the shipped example: wall and CPU.

    python benchmarks/small_commands.py --runs 5

Runs each command `--runs` times as its own process (start-up included: that is what a person
waits for) in the repository holding this script (or --repo), and prints the fastest run's
wall time and that run's CPU time (user + system, from resource.getrusage of the child). The
first run also fills the compiled-template cache (generators/render.py), as a person's first
run does; the fastest is a later one. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = [
    ["--help"],
    ["rules"],
    ["explain", "EDGE-001"],
    ["show", "aus1-lf1"],
    ["lint"],
]


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--repo", type=Path, default=REPO, help="run in this repository")
    args = parser.parse_args()
    figures = {}
    for command in COMMANDS:
        wall, cpu = min(_once(command, args.repo) for _ in range(args.runs))
        name = "meetme " + " ".join(command)
        figures[name] = {"wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3)}
        print(f"{name:28} {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
