"""Ctrl-C during `meetme push` and `meetme plan` (hunt-push 3), against the eAPI emulators.

A real SIGINT reaches the process at a chosen step (the emulator's `on_request` hook, in the
device's request thread). The first interrupt is acknowledged at once; the devices in flight
end as they would have (confirmed or rolled back; a candidate not yet committed is
discarded), nothing else starts, the table and the journal's run-end are there, exit 130.
The old tree said nothing, waited for the devices in flight, and left without either.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest
from deploy_helpers import APPLIED, is_new, runner
from emulator.lab import SPINES, Lab, journal, steps
from meetme.deploy.engine import Engine

from meetme.cli import app

NOTICE = (
    "interrupt received: finishing the devices in flight (each confirmed or rolled back; a "
    "candidate not yet committed is discarded); devices not started and later waves are "
    "skipped. Press Ctrl-C again to leave at once, leaving the devices in flight to their "
    "own confirm timers"
)


def ctrl_c_when(
    lab: Lab, device: str, monkeypatch: pytest.MonkeyPatch, sent: Callable[[list[str]], bool]
) -> threading.Event:
    """Send SIGINT to this process when `device` receives the first request `sent` picks, and
    hold that request until the engine has heard it: the test does not race the handler."""
    heard = threading.Event()
    done = threading.Event()
    original = getattr(Engine, "interrupt", None)

    def interrupt(self: Any) -> None:
        if original is not None:
            original(self)
        heard.set()

    # synchronisation only: on a tree without Engine.interrupt the hook waits out its bound
    monkeypatch.setattr("meetme.deploy.engine.Engine.interrupt", interrupt, raising=False)

    def hook(texts: list[str]) -> None:
        if done.is_set() or not sent(texts):
            return
        done.set()
        os.kill(os.getpid(), signal.SIGINT)
        heard.wait(5)

    lab.emulators[device].faults.on_request = hook
    return heard


def committing(texts: list[str]) -> bool:
    return any(t.startswith("configure session meetme-") and " commit timer " in t for t in texts)


def loading(texts: list[str]) -> bool:
    return "rollback clean-config" in texts


def run(command: str) -> tuple[int, str]:
    result = runner.invoke(app, [command, "--stage", "lab", "--journal", "run.jsonl"])
    return result.exit_code, result.output


@pytest.mark.parametrize("bgp_down", [False, True])
def test_ctrl_c_during_a_commit_finishes_that_device_and_starts_nothing_else(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, bgp_down: bool
) -> None:
    """One device at a time: ^C while aus1-sp1's commit is on its way. sp1 is in flight and
    ends as it would have (confirmed; rolled back when its BGP check fails); sp2, prepared
    in the same wave, is discarded uncommitted; wave 2 never starts."""
    lab.write_inventory(settings={"concurrency": 1})
    if bgp_down:
        peer = lab.models["aus1-sp1"].bgp.neighbors[0].address
        lab.emulators["aus1-sp1"].faults.bgp_down = {peer}
    heard = ctrl_c_when(lab, "aus1-sp1", monkeypatch, committing)

    code, output = run("push")

    assert code == 130, output
    assert NOTICE in " ".join(output.split())
    # said at once: before the device in flight had finished
    end = "rollback" if bgp_down else "confirm"
    assert output.index("interrupt received") < output.index(f"aus1-sp1       {end}")
    # the usual table, each device's end in it
    sp1 = "rolled-back" if bgp_down else "committed"
    rows = {line.split("│")[1].strip(): line for line in output.splitlines() if "│ aus1-sp" in line}
    assert sp1 in rows["aus1-sp1"]
    assert "skipped" in rows["aus1-sp2"] and "interrupted (Ctrl-C)" in rows["aus1-sp2"]
    assert "skipped" in rows["aus1-sp3"] and "interrupted (Ctrl-C)" in rows["aus1-sp3"]
    # the devices: sp1 as its own outcome says, the others exactly as they were
    if bgp_down:
        assert lab.unchanged("aus1-sp1")
    else:
        assert is_new(lab, "aus1-sp1") and lab.emulators["aus1-sp1"].pending_timers() == []
    assert lab.unchanged("aus1-sp2") and lab.unchanged("aus1-sp3")
    assert lab.untouched("aus1-sp3")
    # the journal: sp1 to its end, sp2's candidate discarded, sp3 skipped, then run-end
    records = journal(lab.repo / "run.jsonl")
    if bgp_down:
        assert steps(records, "aus1-sp1")[-2:] == [("post-check", "failed"), ("rollback", "ok")]
    else:
        assert steps(records, "aus1-sp1") == APPLIED
    assert steps(records, "aus1-sp2")[-1] == ("discard", "ok")
    assert steps(records, "aus1-sp3") == [("skip", "skipped")]
    sp3 = next(r for r in records if r["device"] == "aus1-sp3")
    assert sp3["detail"] == "interrupted (Ctrl-C): not started"
    last = records[-1]
    assert last["step"] == "run-end" and last["status"] == "interrupted"
    assert last["outcome"] == {sp1: 1, "skipped": 2}
    assert heard.is_set()


@pytest.mark.parametrize("command", ["push", "plan"])
def test_ctrl_c_during_a_load_discards_it_and_skips_the_devices_not_started(
    lab: Lab, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """^C while aus1-sp1 loads its candidate: sp1 finishes its diff and is discarded (push:
    nothing of the wave is committed), sp2 waiting behind the concurrency limit and wave 2
    are journaled `skip`. No device keeps a session."""
    lab.write_inventory(settings={"concurrency": 1})
    heard = ctrl_c_when(lab, "aus1-sp1", monkeypatch, loading)

    code, output = run(command)

    assert code == 130, output
    assert NOTICE in " ".join(output.split())
    assert f"meetme {command}" in output  # the table
    records = journal(lab.repo / "run.jsonl")
    assert steps(records, "aus1-sp1")[-3:] == [("load", "ok"), ("diff", "ok"), ("discard", "ok")]
    discard = next(r for r in records if r["device"] == "aus1-sp1" and r["step"] == "discard")
    if command == "push":
        assert discard["detail"] == "interrupted (Ctrl-C) before any commit of wave 1"
    for name in ("aus1-sp2", "aus1-sp3"):
        assert steps(records, name) == [("skip", "skipped")]
        assert lab.untouched(name)
    assert all(lab.unchanged(n) for n in SPINES)
    with lab.emulators["aus1-sp1"].lock:
        sessions = lab.emulators["aus1-sp1"].sessions.values()
        assert all(s.state == "completed" for s in sessions)
    last = records[-1]
    assert last["step"] == "run-end" and last["status"] == "interrupted"
    first = "changes" if command == "plan" else "discarded"
    assert last["outcome"] == {first: 1, "skipped": 2}
    assert heard.is_set()


def test_a_second_ctrl_c_leaves_at_once_with_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second interrupt does not wait for the devices in flight: it says so and leaves
    (their own confirm timers revert them; the journal names them for the next push)."""
    from meetme import deploy_cli

    class Engine:
        def __init__(self) -> None:
            self.interrupted = threading.Event()

        def interrupt(self) -> None:
            self.interrupted.set()

    left: list[int] = []

    def leave(code: int) -> None:
        left.append(code)

    monkeypatch.setattr(deploy_cli.os, "_exit", leave)
    handler = deploy_cli._interrupt_handler(Engine())  # type: ignore[arg-type]
    handler(signal.SIGINT, None)
    assert left == []
    assert "interrupt received" in capsys.readouterr().err
    handler(signal.SIGINT, None)
    assert left == [130]
    said = " ".join(capsys.readouterr().err.split())
    assert said == (
        "second interrupt: leaving now; the devices in flight are left to their confirm "
        "timers (the journal names them, and the next push finds them there)"
    )
