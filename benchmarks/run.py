"""Time every stage of lint + render on a generated intent, and the commands a user runs on it.

    python benchmarks/run.py --devices 1040 --json bench-1040.json

Writes the intent with make_intent.py into a temporary folder (or reads --intent DIR), then runs
the stages `meetme render` runs, in its order, through the same functions: load, resolve, rules
(the design-standard rules, then PLAT, FLOW, SRV6 and LIMIT on the built models), build (device
models), render, config lint (CFG-*) and write (rendered/ swapped in). Each stage's wall time
and the process's peak RSS after it (resource.getrusage) go to the JSON with devices/s and
ms/device over the whole run.

Then the commands, each as its own `meetme` process (start-up included) in a throw-away git
repository holding the intent, `--runs` times, the fastest run kept:
- `render` from scratch (no rendered/ yet), with the default --jobs (the cores), and the peak
  RSS of the largest process it ran (resource.getrusage of the children);
- `render` again with nothing changed;
- `render` after a one-leaf change: one leaf's management address moved to a free address of
  its network (an EVPN-multihomed or single-homed leaf, whose address no other device's config
  carries: meetme has no free-text device description), and how many files it rewrote;
- `diff --base HEAD` after that change, before it is rendered.

A measurement, not a test: nothing here fails on time; it exits 1 when the intent does not
lint clean (the figures of a refused intent describe nothing).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_intent import make_intent

STAGES = ("load", "resolve", "rules", "build", "render", "config lint", "write")
T = TypeVar("T")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def measure(
    intent: Path, out: Path, profile: Callable[[str, Callable[[], Any]], Any] | None = None
) -> dict[str, Any]:
    """Run every stage on `intent`, writing into `out`; the figures of each. `profile`, when
    given, runs each stage's work (with its name) instead: a profiler's hook."""
    # imported here: importing meetme is start-up, which `meetme` pays once and we report apart
    started = time.perf_counter()
    from meetme.generators.build.devices import build_models
    from meetme.generators.render import output_name, render
    from meetme.generators.resolve.fabric import resolve_fabric
    from meetme.validators.config_lint import RenderedConfig, lint_configs, needs_lint
    from meetme.validators.engine import run_rules
    from meetme.validators.rules import catalogue  # noqa: F401  (registers the rules)
    from meetme.validators.rules.platform import has_gaps

    from meetme.core.gc_tuning import tune_gc
    from meetme.intent.loader import display_path, load_intent
    from meetme.pipeline import model_findings, write_rendered

    tune_gc()  # as the `meetme` command does at start
    imports = time.perf_counter() - started
    stages: dict[str, dict[str, float]] = {}

    def stage(name: str, work: Callable[[], T]) -> T:
        start, cpu = time.perf_counter(), time.process_time()
        value = profile(name, work) if profile else work()
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        before = stages.get(name, {"seconds": 0.0, "cpu_seconds": 0.0})
        stages[name] = {
            "seconds": before["seconds"] + seconds,
            "cpu_seconds": before["cpu_seconds"] + cpu,
            "peak_rss_mb": round(_peak_mb(), 1),
        }
        return value

    loaded = stage("load", lambda: load_intent(intent))
    fabrics = stage("resolve", lambda: resolve_fabric(loaded))
    findings = stage("rules", lambda: run_rules(loaded, dict(fabrics)))
    models = stage("build", lambda: build_models(loaded, fabrics))
    findings += stage("rules", lambda: model_findings(loaded, fabrics, models))
    files: dict[str, str] = {}
    configs: list[RenderedConfig] = []

    def render_every_device() -> None:
        for model in models.values():
            device_files = render(model)
            files.update(device_files)
            if needs_lint(model) and not has_gaps(model):
                main = output_name(model)
                shown = display_path(out / main)
                configs.append(RenderedConfig(model, shown, device_files[main]))

    stage("render", render_every_device)
    severity = loaded.intent.standards.severity
    findings += stage("config lint", lambda: lint_configs(configs, severity))
    stage("write", lambda: write_rendered(out, files))
    total = sum(s["seconds"] for s in stages.values())
    devices = len(models)
    return {
        "devices": devices,
        "files": len(files),
        "errors": sum(1 for f in findings if f.severity == "error"),
        "warnings": sum(1 for f in findings if f.severity == "warning"),
        "imports_seconds": round(imports, 3),
        "stages": {
            name: {key: round(value, 3) for key, value in s.items()} for name, s in stages.items()
        },
        "total_seconds": round(total, 3),
        # CPU time of this process: on a machine others load, closer to the work than wall
        "total_cpu_seconds": round(sum(s["cpu_seconds"] for s in stages.values()), 3),
        "devices_per_second": round(devices / total, 1),
        "ms_per_device": round(1000 * total / devices, 2),
        "peak_rss_mb": round(_peak_mb(), 1),
        "python": platform.python_version(),
    }


def _meetme(repo: Path, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, str]:
    """Run `meetme ARGS` in `repo`: its wall time and output; an exit code other than `ok`
    (a refused intent, say) stops the benchmark with meetme's message."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "meetme", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"meetme {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return wall, done.stdout


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.*")}


def one_leaf_change(intent: Path) -> tuple[Path, str, str]:
    """(file, old text, new text): one leaf's management address moved to a free one."""
    devices: dict[str, tuple[Path, dict[str, Any]]] = {}
    homed: dict[str, str] = {}  # leaf -> the attachment mode it serves
    for path in sorted(intent.rglob("*.yaml")):
        for site in (yaml.safe_load(path.read_text()) or {}).get("sites", {}).values():
            for name, device in (site.get("devices") or {}).items():
                devices[name] = (path, device)
            for attachment in (site.get("attachments") or {}).values():
                for leaf in attachment.get("leaves", []):
                    homed.setdefault(leaf, attachment.get("mode", ""))
    leaves = [n for n, (_, d) in sorted(devices.items()) if d.get("role") == "leaf"]
    leaf = next((n for n in leaves if homed.get(n) in ("esi", "single")), leaves[0])
    path, device = devices[leaf]
    old = ipaddress.ip_interface(device["management"])
    used = {ipaddress.ip_interface(d["management"]).ip for _, d in devices.values()}
    free = next(a for a in reversed(list(old.network.hosts())) if a not in used)
    before = f"management: {old}"
    return path, before, f"management: {free}/{old.network.prefixlen}"


def measure_commands(intent: Path, work: Path, runs: int) -> dict[str, Any]:
    """The `meetme` commands' wall times (fastest of `runs`) in a git repository in `work`."""
    repo = work / "repo"
    shutil.copytree(intent, repo / "intent")
    (repo / ".gitignore").write_text(".meetme-hashes.json\n")  # as the shipped repository
    _git(repo, "init", "-q")
    rendered = repo / "rendered"
    fresh: list[float] = []
    for _ in range(runs):
        shutil.rmtree(rendered, ignore_errors=True)
        fresh.append(_meetme(repo, "render")[0])
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.net", "commit", "-qm", ".")
    unchanged = [_meetme(repo, "render")[0] for _ in range(runs)]
    path, old, new = one_leaf_change(repo / "intent")
    text = path.read_text()
    assert text.count(old) == 1, old
    changed, diffs, rewritten = [], [], set()
    for _ in range(runs):
        path.write_text(text.replace(old, new))
        diffs.append(_meetme(repo, "diff", "--base", "HEAD", ok=(0, 1))[0])
        before = _files(rendered)
        changed.append(_meetme(repo, "render")[0])
        after = _files(rendered)
        rewritten = {f for f in after if after[f] != before.get(f)} - {".meetme-hashes.json"}
        path.write_text(text)
        _meetme(repo, "render")  # back to the commit, untimed
    return {
        "render_fresh_seconds": round(min(fresh), 3),
        "render_fresh_peak_rss_mb": round(peak_mb, 1),
        "render_unchanged_seconds": round(min(unchanged), 3),
        "render_one_leaf_change_seconds": round(min(changed), 3),
        "render_one_leaf_change_files_rewritten": sorted(rewritten),
        "diff_base_head_seconds": round(min(diffs), 3),
        "one_leaf_change": f"{path.relative_to(repo)}: {old} -> {new}",
        "cores": os.cpu_count(),
        "runs": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1040)
    parser.add_argument("--intent", type=Path, help="an intent folder instead of a generated one")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (fastest kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="meetme-bench-") as tmp:
        intent = args.intent or make_intent(args.devices, Path(tmp))
        # the commands first, from a small process: a child's peak RSS counts the memory of
        # the process that started it (exec records the old address space's peak)
        commands = measure_commands(intent, Path(tmp), args.runs)
        result = measure(intent, Path(tmp) / "rendered")
        if not result["errors"]:
            result["commands"] = commands
    result["command"] = " ".join(["python", "benchmarks/run.py", *sys.argv[1:]])
    for name in STAGES:
        s = result["stages"][name]
        print(
            f"{name:12} {s['seconds']:8.2f} s  CPU {s['cpu_seconds']:7.2f} s  "
            f"peak RSS {s['peak_rss_mb']:7.0f} MB"
        )
    print(
        f"{'total':12} {result['total_seconds']:8.2f} s  CPU {result['total_cpu_seconds']:7.2f} s  "
        f"{result['devices']} devices, "
        f"{result['devices_per_second']:.0f} devices/s, {result['ms_per_device']:.2f} ms/device, "
        f"peak RSS {result['peak_rss_mb']:.0f} MB"
    )
    if "commands" in result:
        c = result["commands"]
        print(
            f"meetme render: {c['render_fresh_seconds']:.2f} s from scratch "
            f"(peak RSS {c['render_fresh_peak_rss_mb']:.0f} MB), "
            f"{c['render_unchanged_seconds']:.2f} s unchanged, "
            f"{c['render_one_leaf_change_seconds']:.2f} s after a one-leaf change "
            f"({len(c['render_one_leaf_change_files_rewritten'])} file(s) rewritten); "
            f"meetme diff --base HEAD: {c['diff_base_head_seconds']:.2f} s"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if result["errors"]:
        print(f"the intent has {result['errors']} error(s): not a valid benchmark", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
