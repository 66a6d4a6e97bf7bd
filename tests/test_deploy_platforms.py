"""`meetme plan` and `meetme push --stage lab` over all four platforms of the example at once:
an EOS spine (eAPI), an NVUE leaf (REST + SSH), an NX-OS leaf (NX-API + SCP) and an IOS-XR
border (NETCONF), each behind its emulator, in three waves (sp2; lf1 and lf3; br1)."""

from __future__ import annotations

import json

from emulator.lab import Lab, journal, steps
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
        "aus1-lf3": "rolled-back",
        "aus1-br1": "skipped",
    }
    for name in ("aus1-sp2", "aus1-lf1"):
        assert mixed_lab.emulators[name].running_config() == mixed_lab.expected(name)
    assert mixed_lab.unchanged("aus1-lf3") and mixed_lab.untouched("aus1-br1")
