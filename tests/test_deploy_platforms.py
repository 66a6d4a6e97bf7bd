"""`meetme plan` and `meetme push --stage lab` over all four platforms of the example at once:
an EOS spine (eAPI), an NVUE leaf (REST + SSH), an NX-OS leaf (NX-API + SCP) and an IOS-XR
border (NETCONF), each behind its emulator, in three waves (sp2; lf1 and lf3; br1)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from conftest import REPO
from emulator.lab import (
    NX_USER_HASHES,
    USER_HASHES,
    Lab,
    add_device,
    example_lint,
    example_models,
    journal,
    lab_rendered_files,
    new_lab,
    secret_env,
    steps,
)
from typer.testing import CliRunner

from meetme.cli import app

runner = CliRunner()
DEVICES = ("aus1-sp2", "aus1-lf1", "aus1-lf3", "aus1-br1")


def statuses(command: str, *extra: str) -> tuple[int, dict[str, str]]:
    result = runner.invoke(app, [command, "--stage", "lab", "--format", "json", *extra])
    table = json.loads(result.stdout[result.stdout.index("[") :])
    return result.exit_code, {r["device"]: r["status"] for r in table}


def test_plan_shows_a_diff_for_every_platform_and_changes_nothing(mixed_lab: Lab) -> None:
    code, states = statuses("plan")
    assert code == 0
    assert states == dict.fromkeys(DEVICES, "changes")
    assert all(mixed_lab.unchanged(n) for n in DEVICES)


def test_push_commits_every_platform_wave_by_wave(mixed_lab: Lab) -> None:
    code, states = statuses("push", "--journal", "push.jsonl")
    assert code == 0, states
    assert states == dict.fromkeys(DEVICES, "committed")
    for name in DEVICES:
        emulator = mixed_lab.emulators[name]
        assert emulator.running_config() == mixed_lab.expected(name), name
        assert emulator.startup_config() == mixed_lab.expected(name), name
        assert emulator.pending_timers() == []
    records = journal(mixed_lab.repo / "push.jsonl")
    assert all(steps(records, n)[-1] == ("confirm", "ok") for n in DEVICES)
    order = [(r["device"], r["step"]) for r in records]
    assert order.index(("aus1-lf1", "connect")) > order.index(("aus1-sp2", "confirm"))
    assert order.index(("aus1-br1", "connect")) > max(
        order.index(("aus1-lf1", "confirm")), order.index(("aus1-lf3", "confirm"))
    )


def test_a_failure_in_wave_2_leaves_each_device_old_or_new_and_stops_wave_3(
    mixed_lab: Lab,
) -> None:
    peer = mixed_lab.models["aus1-lf3"].bgp.neighbors[0].address
    mixed_lab.emulators["aus1-lf3"].faults.bgp_down = {peer}
    code, states = statuses("push", "--journal", "push.jsonl")
    assert code == 1
    assert states == {
        "aus1-sp2": "committed",
        "aus1-lf1": "committed",  # the other device of the wave went ahead on its own
        "aus1-lf3": "reverted",  # NX-OS 10.x: the switch's commit-timeout, not confirmed
        "aus1-br1": "skipped",
    }
    for name in ("aus1-sp2", "aus1-lf1"):
        assert mixed_lab.emulators[name].running_config() == mixed_lab.expected(name)
    assert mixed_lab.unchanged("aus1-lf3") and mixed_lab.untouched("aus1-br1")


def rendered_text(name: str) -> str:
    (path,) = (REPO / "rendered").glob(f"*/{name}.*")
    return path.read_text()


def _lab_secret(name: str) -> str:
    """A value for each secret the example's rendered files name: crypt hashes where the
    device takes one ($5$ for NX-OS's SHA-256 form, else $6$), else a session key."""
    if name.endswith("-hash-sha256"):
        return NX_USER_HASHES["aus1-netops-hash-sha256"]
    if name.endswith("-hash"):
        return USER_HASHES["aus1-netops-hash"]
    return f"{name}-Key-7q!x"


def test_push_covers_every_device_of_the_shipped_inventory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every device of both example sites, each behind the emulator of its inventory driver,
    in the shipped inventory's waves (aus1 1-7, mel1 8-17): `push --stage lab` commits each
    one wave after another and leaves each device on exactly its rendered config."""
    shipped = yaml.safe_load((REPO / "inventory.yaml").read_text())["devices"]
    plan = {n: (e["driver"], e["wave"]) for n, e in shipped.items() if e["stage"] == "lab"}
    assert set(plan) == set(example_models())  # the inventory covers every device
    named = sorted(
        set(re.findall(r"secret:([a-z0-9-]+)", " ".join(rendered_text(n) for n in plan)))
    )
    secrets = {n: _lab_secret(n) for n in named}
    lab = new_lab(
        tmp_path,
        waves={n: wave for n, (_, wave) in plan.items()},
        drivers={n: driver for n, (driver, _) in plan.items()},
        secrets=secrets,
    )
    try:
        for name, (driver, _) in plan.items():
            add_device(lab, name, driver)
        # as the shipped inventory says: the lab has no carriers, IXes or clouds
        assert (
            yaml.safe_load((REPO / "inventory.yaml").read_text())["settings"]["check_neighbors"]
            == "underlay"
        )
        lab.write_inventory(settings={"check_neighbors": "underlay"})
        monkeypatch.chdir(lab.repo)
        monkeypatch.setattr("meetme.pipeline.lint", lambda folder: example_lint())
        monkeypatch.setattr("meetme.pipeline.rendered_files", lab_rendered_files(lab))
        for variable, value in secret_env(secrets).items():
            monkeypatch.setenv(variable, value)
        code, states = statuses("push", "--journal", "push.jsonl")
        assert code == 0, [(n, s) for n, s in states.items() if s != "committed"]
        assert states == dict.fromkeys(plan, "committed")
        for name in plan:
            emulator = lab.emulators[name]
            assert emulator.running_config() == lab.expected(name), name
            assert emulator.pending_timers() == [], name
        records = journal(lab.repo / "push.jsonl")
        confirmed = [r["device"] for r in records if r["step"] == "confirm"]
        waves = [plan[n][1] for n in confirmed]
        assert waves == sorted(waves) and len(confirmed) == len(plan)  # wave after wave
        assert not any(v in json.dumps(records) for v in secrets.values())  # masked
    finally:
        lab.stop()
