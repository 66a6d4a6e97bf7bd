"""`--jobs N`: render, check and the config lint across processes, byte for byte a serial run.

The bigger intent is the example with 44 more leaves (78 devices): enough for every worker to
get several shares, small enough to render four times in a few seconds.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLE_INTENT, after_report, replace_in
from meetme.generators.platforms import PLATFORMS
from meetme.validators.engine import RULES, Hit
from typer.testing import CliRunner

from meetme import devicework, pipeline
from meetme.cli import app

runner = CliRunner()
EXTRA_LEAVES = range(107, 151)  # aus1-lf7..lf50: the spines' ports 15..58 of 64
NXOS_LIMIT = "{{ i }}      maximum-prefix {{ n.max_prefix }}"  # the underlay/edge prefix limit


@pytest.fixture
def big(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository holding the example intent with 44 more leaves in aus1 (78 devices)."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    devices = tmp_path / "intent/aus1/devices.yaml"
    lines = [devices.read_text().rstrip("\n")]
    for number in EXTRA_LEAVES:
        nvue = number % 2 == 1
        lines.append(
            f"      aus1-lf{number - 100}: {{id: {number}, role: leaf, "
            f"platform: {'nvidia_nvue' if nvue else 'cisco_nxos'}, "
            f"model: {'SN5600' if nvue else 'N9K-C9364D-GX2A'}, "
            f"room: {'aus1-dh1' if nvue else 'aus1-dh2'}, "
            f"rack: {'dh1-r10' if nvue else 'dh2-r10'}, management: 192.168.10.{number}/24}}"
        )
    devices.write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_parallel_render_lint_and_check_are_byte_identical_to_serial(big: Path) -> None:
    serial = invoke("render", "--jobs", "1", "--out", "serial")
    parallel = invoke("render", "--jobs", "2", "--out", "parallel")
    assert serial[0] == 0
    assert after_report(serial[1]) == (
        "78 of 78 device(s) rendered anew, 78 file(s) written\nrendered 78 device(s) into serial\n"
    )
    assert parallel == (serial[0], serial[1].replace("into serial", "into parallel"))
    assert tree(big / "serial") == tree(big / "parallel")  # the hash files included
    assert len(tree(big / "serial")) == 78 + 2
    assert invoke("check", "--jobs", "3", "--full", "--out", "serial") == (
        0,
        "serial: 78 file(s) match the intent\n",
    )
    assert invoke("lint", "--jobs", "2", "--format", "json") == invoke(
        "lint", "--jobs", "1", "--format", "json"
    )


def test_the_256_device_benchmark_intent_renders_byte_identical_in_one_and_two_processes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 16's acceptance: the benchmark's realistic site (every leaf platform, MLAG, vPC,
    # ESI and single-homed hosts, the example's edge, mel1, DCI and SRv6), not only the example
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from make_intent import make_intent

    make_intent(256, tmp_path)
    monkeypatch.chdir(tmp_path)
    code, output = invoke("render", "--jobs", "1", "--out", "serial")
    assert code == 0
    lines = output.splitlines()
    # the example's own warnings (its DCI circuits to mel1 carry no routing; mel1's gpu-b
    # reaches the Internet from private IPv4), then the tally
    assert [line.split()[2] for line in lines if "warning" in line.split()[1:2]] == [
        "DCI-009",
        "DCI-009",
        "HANDOFF-013",
    ]
    assert lines[-3:] == [
        "0 error(s), 3 warning(s)",
        "256 of 256 device(s) rendered anew, 256 file(s) written",
        "rendered 256 device(s) into serial",
    ]
    assert invoke("render", "--jobs", "2", "--out", "parallel")[0] == 0
    assert tree(tmp_path / "serial") == tree(tmp_path / "parallel")  # hash files included
    assert len(tree(tmp_path / "serial")) == 256 + 2


def test_findings_of_the_config_lint_are_the_same_in_any_number_of_processes(
    big: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A template bug on every NX-OS device: CFG-001 on 34 devices, whatever --jobs says."""
    source = Path(__file__).resolve().parents[1] / "templates" / "cisco_nxos"
    copy = tmp_path / "nxos-templates"
    shutil.copytree(source, copy)
    bgp = copy / "bgp.j2"
    assert NXOS_LIMIT in bgp.read_text()
    bgp.write_text(bgp.read_text().replace(NXOS_LIMIT, "{{ i }}      ! no limit"))
    plugin = dataclasses.replace(PLATFORMS["cisco_nxos"], templates=copy)
    monkeypatch.setitem(PLATFORMS, "cisco_nxos", plugin)

    code, serial = invoke("lint", "--jobs", "1")
    assert code == 1
    assert serial.count("CFG-001") >= 34
    assert invoke("lint", "--jobs", "3") == (1, serial)
    assert invoke("render", "--jobs", "2")[1] == invoke("render", "--jobs", "1")[1]
    assert not (big / "rendered").exists()


def test_jobs_travel_pickled_where_workers_cannot_be_forked(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("render", "--jobs", "1", "--out", "serial")[0] == 0
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    assert invoke("render", "--jobs", "2", "--out", "pickled")[0] == 0
    assert tree(example / "serial") == tree(example / "pickled")


def fail_on(hostname: str, exc: BaseException) -> Any:
    real = devicework.lint_configs

    def lint_configs(configs: Any, *args: Any) -> Any:
        configs = list(configs)
        if any(c.model.hostname == hostname for c in configs):
            raise exc
        return real(configs, *args)

    return lint_configs


# aus1-lf3 is the first NX-OS device, aus1-lf4 another: both rendered in a worker
@pytest.mark.parametrize("device", ["aus1-lf3", "aus1-lf4"])
def test_a_bug_in_a_worker_ends_as_it_does_serially(
    example: Path, monkeypatch: pytest.MonkeyPatch, device: str
) -> None:
    monkeypatch.setattr(devicework, "lint_configs", fail_on(device, KeyError("TOKEN=abc")))
    serial = invoke("render", "--jobs", "1")
    assert serial[0] == 3
    assert serial[1].startswith("meetme: internal error: KeyError at devicework.py:")
    assert "TOKEN" not in serial[1] and "Traceback" not in serial[1]
    for jobs in ("2", "4"):
        assert invoke("render", "--jobs", jobs) == serial
        assert invoke("check", "--jobs", jobs) == serial
    assert not (example / "rendered").exists()


# a field no model has fails while a worker renders; a syntax error already while the
# templates are compiled before the fork
@pytest.mark.parametrize(
    ("broken", "said"),
    [("{{ device.no_such_field }}\n", "no_such_field"), ("{% if %}\n", "an expression, got")],
)
def test_a_template_failure_in_a_worker_ends_as_it_does_serially(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str, said: str
) -> None:
    copy = tmp_path / "nxos-templates"
    shutil.copytree(Path(__file__).resolve().parents[1] / "templates" / "cisco_nxos", copy)
    (copy / "overlay_services.j2").write_text(broken)
    plugin = dataclasses.replace(PLATFORMS["cisco_nxos"], templates=copy)
    monkeypatch.setitem(PLATFORMS, "cisco_nxos", plugin)
    serial = invoke("render", "--jobs", "1")
    assert serial[0] == 3
    assert "internal error: a template failed: aus1-bl3 (cisco_nxos)" in serial[1]
    assert said in serial[1]
    assert invoke("render", "--jobs", "2") == serial
    assert invoke("lint", "--jobs", "2") == invoke("lint", "--jobs", "1")


def dies_in_a_child(real: Callable[..., Any]) -> Callable[..., Any]:
    """`real`, except that a process forked from this one dies calling it, as the kernel's
    OOM killer would end it."""
    parent = os.getpid()

    def call(*args: Any) -> Any:
        if os.getpid() != parent:
            os._exit(9)
        return real(*args)

    return call


def test_a_worker_that_dies_is_redone_in_this_process(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("render", "--jobs", "1", "--out", "serial")[0] == 0
    monkeypatch.setattr(devicework, "lint_configs", dies_in_a_child(devicework.lint_configs))
    assert invoke("render", "--jobs", "2", "--out", "parallel")[0] == 0
    assert tree(example / "serial") == tree(example / "parallel")


@pytest.mark.parametrize(
    ("devices", "jobs", "cores", "workers"),
    [
        (31, None, 4, 1),  # one worker's share of 16 short of two: not worth a process
        (32, None, 4, 2),
        (1000, None, 4, 4),  # the cores
        (1000, None, None, 1),  # cores unknown
        (2, 8, 4, 2),  # asked for: never more workers than devices
        (5, 3, 1, 3),  # asked for: more than the cores if so asked
        (0, None, 4, 1),
    ],
)
def test_how_many_workers(
    monkeypatch: pytest.MonkeyPatch, devices: int, jobs: int | None, cores: int | None, workers: int
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert devicework.workers_for(devices, jobs) == workers


def test_jobs_must_be_at_least_one(example: Path) -> None:
    code, output = invoke("render", "--jobs", "0")
    assert code == 2
    assert "--jobs" in output


def forced(severity: str) -> Any:
    """TOPO-001 replaced by a rule that always finds one problem of `severity`."""
    rule = RULES["TOPO-001"]

    def check(ctx: Any) -> Iterator[Hit]:
        yield Hit(f"forced {severity}", (*ctx.base, "devices", "aus1-lf1"))

    return dataclasses.replace(rule, severity=severity, check=check)


def models_fail(*args: Any) -> Any:
    raise KeyError("a model built from intent the rules refused")


@pytest.mark.parametrize("severity", ["error", "warning"])
def test_the_rules_beside_the_model_build_gate_it_as_serially(
    big: Path, monkeypatch: pytest.MonkeyPatch, severity: str
) -> None:
    """With workers the rules run in a process of their own while the models are built: an
    error they find still ends the run before any model counts (the failing build is never
    reported); a warning lets the build's failure through, as it does serially."""
    monkeypatch.setitem(RULES, "TOPO-001", forced(severity))
    monkeypatch.setattr(pipeline, "build_models", models_fail)
    serial = invoke("render", "--jobs", "1")
    assert serial[0] == (1 if severity == "error" else 3), serial
    assert ("forced error" in serial[1]) == (severity == "error")
    assert invoke("render", "--jobs", "2") == serial
    assert invoke("lint", "--jobs", "2") == invoke("lint", "--jobs", "1")


def test_a_bug_in_the_rules_beside_the_build_ends_as_it_does_serially(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = RULES["TOPO-001"]

    def check(ctx: Any) -> Iterator[Hit]:
        raise KeyError("TOKEN=abc")

    monkeypatch.setitem(RULES, "TOPO-001", dataclasses.replace(rule, check=check))
    serial = invoke("render", "--jobs", "1")
    assert serial[0] == 3
    assert serial[1].startswith("meetme: internal error: KeyError at ")
    assert invoke("render", "--jobs", "2") == serial


def test_rules_whose_process_dies_are_run_again_here(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("render", "--jobs", "1", "--out", "serial")[0] == 0
    rule = RULES["TOPO-001"]
    monkeypatch.setitem(
        RULES, "TOPO-001", dataclasses.replace(rule, check=dies_in_a_child(rule.check))
    )
    assert invoke("render", "--jobs", "2", "--out", "parallel")[0] == 0
    assert tree(big / "serial") == tree(big / "parallel")


def test_model_findings_beside_the_render_gate_it_as_serially(big: Path) -> None:
    """With workers the model findings (here LIMIT-001: an underlay prefix limit below the
    routes every session learns) run in a process of their own while the devices are
    rendered: the same findings, and the run still ends before anything is written."""
    replace_in(big / "intent/aus1/site.yaml", "max_prefix: 12000", "max_prefix: 100")
    code, serial = invoke("lint", "--jobs", "1")
    assert code == 1 and "error    LIMIT-001" in serial, serial
    assert invoke("lint", "--jobs", "2") == (1, serial)
    assert invoke("render", "--jobs", "2") == invoke("render", "--jobs", "1")
    assert not (big / "rendered").exists()


def test_a_bug_in_the_model_findings_beside_the_render_ends_as_it_does_serially(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def findings(*args: Any) -> Any:
        raise KeyError("TOKEN=abc")

    monkeypatch.setattr(pipeline, "model_findings", findings)
    serial = invoke("render", "--jobs", "1")
    assert serial[0] == 3
    assert serial[1].startswith("meetme: internal error: KeyError at ")
    assert invoke("render", "--jobs", "2") == serial
    assert not (big / "rendered").exists()


def test_model_findings_whose_process_dies_are_worked_out_again_here(
    big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert invoke("render", "--jobs", "1", "--out", "serial")[0] == 0
    monkeypatch.setattr(pipeline, "model_findings", dies_in_a_child(pipeline.model_findings))
    assert invoke("render", "--jobs", "2", "--out", "parallel")[0] == 0
    assert tree(big / "serial") == tree(big / "parallel")
