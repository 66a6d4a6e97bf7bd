"""Time every stage of lint + render on a generated intent; print a table, write JSON.

    python benchmarks/run.py --devices 1040 --json bench-1040.json

Writes the intent with make_intent.py into a temporary folder (or reads --intent DIR), then runs
the stages `meetme render` runs, in its order, through the same functions: load, resolve, rules
(the design-standard rules, then PLAT-* and FLOW-* on the built models), build (device models),
render, config lint (CFG-*) and write (rendered/ swapped in). Each stage's wall time and the
process's peak RSS after it (resource.getrusage) go to the JSON with devices/s and ms/device
over the whole run. A measurement, not a test: nothing here fails on time; it exits 1 when the
intent does not lint clean (the figures of a refused intent describe nothing).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

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
    from meetme.validators.rules.flow import flow_findings
    from meetme.validators.rules.platform import has_gaps, platform_findings

    from meetme.core.gc_tuning import tune_gc
    from meetme.intent.loader import display_path, load_intent
    from meetme.pipeline import write_rendered

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
    findings += stage(
        "rules",
        lambda: [
            *platform_findings(loaded, models.values()),
            *flow_findings(loaded, fabrics, models.values()),
        ],
    )
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1040)
    parser.add_argument("--intent", type=Path, help="an intent folder instead of a generated one")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="meetme-bench-") as tmp:
        intent = args.intent or make_intent(args.devices, Path(tmp))
        result = measure(intent, Path(tmp) / "rendered")
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
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if result["errors"]:
        print(f"the intent has {result['errors']} error(s): not a valid benchmark", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
