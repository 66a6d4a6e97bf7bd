"""A push that stops early, at any step and on any platform, leaves nothing of itself on the
device: no open or pending EOS config session, no NX-OS checkpoint or candidate file (it
holds the run's secrets in clear), no IOS-XR candidate, lock or confirmed commit, no NVUE
revision or apply awaiting its confirm; and the device runs its old config.

Each step is made to fail on one device, in the way that leaves the most behind: the device
did the work and only its answer was lost (`lost`), or the device never got it (`refused`);
the BGP post-check fails as with a peer down (the rollback then has to leave nothing either).
The other device of the lab shares its wave where the stop falls before any commit, so that
it is prepared and then discarded; it goes alone in wave 2 otherwise. The per-platform tests
(test_deploy_<platform>.py) cover the device's own faults; this file covers every stop with
the same look at every platform."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from deploy_helpers import statuses
from emulator.lab import Lab, journal, steps
from meetme.deploy.checks import CheckResult
from meetme.deploy.engine import Engine

LABS = [  # fixture, the device that fails, the other device of the lab
    ("lab", "aus1-sp1", "aus1-sp2"),  # EOS over eAPI
    ("nx_lab", "aus1-lf3", "aus1-lf4"),  # NX-OS before 9.3: checkpoint and candidate file
    ("xr_lab", "aus1-br1", "aus1-br2"),  # IOS-XR over NETCONF
    ("nv_lab", "aus1-lf1", "aus1-lf2"),  # NVUE REST, the confirm over SSH
]
# (the driver method that fails, how, the journal step that fails, before any commit)
STOPS = [
    ("load_replace_candidate", "refused", "load", True),
    ("load_replace_candidate", "lost", "load", True),
    ("compare_config", "lost", "diff", True),
    ("commit_config", "refused", "commit", False),
    ("commit_config", "lost", "commit", False),
    ("check_bgp", "failed", "post-check", False),  # the engine's check, not a driver method
]


def leftovers(lab: Lab, name: str) -> list[str]:
    """What of a push is still on the device, by the emulator's own state."""
    emulator = lab.emulators[name]
    found = [f"timer {t}" for t in emulator.pending_timers()]
    with emulator.lock:
        if hasattr(emulator, "sessions"):  # EOS
            found += [f"session {n} {s.state}" for n, s in emulator.sessions.items()]
            found = [x for x in found if not x.endswith(" completed")]
        if hasattr(emulator, "checkpoints"):  # NX-OS
            found += [f"checkpoint {n}" for n in emulator.checkpoints]
            found += [f"file {f}" for f in emulator.files if f.startswith("meetme-")]
        if hasattr(emulator, "lock_holder"):  # IOS-XR
            if emulator.lock_holder is not None:
                found.append(f"lock of session {emulator.lock_holder}")
            if emulator.candidate is not None:
                found.append("uncommitted candidate")
        if hasattr(emulator, "revisions"):  # NVUE
            found += [
                f"revision {n}" for n, r in emulator.revisions.items() if r["state"] == "pending"
            ]
    return found


def fail_at(
    monkeypatch: pytest.MonkeyPatch, device: str, method: str, how: str
) -> Callable[[], int]:
    """`device`'s driver fails `method` every time: `refused` before sending anything,
    `lost` after the device did it; `check_bgp`: the BGP post-check fails (a peer down).
    Returns how often it failed."""
    real_open = Engine._open
    failed = []
    if method == "check_bgp":

        def check(*args: Any, **kwargs: Any) -> CheckResult:
            failed.append(method)
            return CheckResult(False, "0/1 BGP neighbours Established after 1 s: a peer down", 1)

        monkeypatch.setattr("meetme.deploy.engine.check_bgp", check)
        return lambda: len(failed)

    def open_(self: Engine, target: Any) -> Any:
        driver = real_open(self, target)
        if target.name == device:
            real = getattr(driver, method)

            def broken(*args: Any, **kwargs: Any) -> Any:
                if how == "lost":
                    real(*args, **kwargs)
                failed.append(method)
                raise ConnectionResetError(f"{method}: the connection broke ({how})")

            setattr(driver, method, broken)
        return driver

    monkeypatch.setattr(Engine, "_open", open_)
    return lambda: len(failed)


@pytest.mark.parametrize(("method", "how", "step", "before_commit"), STOPS)
@pytest.mark.parametrize(("fixture", "device", "other"), LABS)
def test_a_push_that_stops_early_leaves_nothing_on_the_device(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    fixture: str,
    device: str,
    other: str,
    method: str,
    how: str,
    step: str,
    before_commit: bool,
) -> None:
    lab: Lab = request.getfixturevalue(fixture)
    # an EOS load cut off watches 3 x connect_timeout for its session to appear (engine.
    # _clean_after_lost_load): 5 s keeps that short and still spares a busy machine
    lab.write_inventory(
        waves={device: 1, other: 1 if before_commit else 2}, settings={"connect_timeout": 5}
    )
    failures = fail_at(monkeypatch, device, method, how)

    code, states = statuses()

    assert code == 1, states
    assert failures() >= 1
    records = journal(lab.repo / "push.jsonl")
    assert (step, "failed") in steps(records, device)
    if before_commit:  # the other one was prepared in the same wave, then discarded
        assert (states[device], states[other]) == ("failed", "discarded"), states
        assert steps(records, other)[-1] == ("discard", "ok")
    else:
        assert states[device] in ("failed", "rolled-back"), states
        assert states[other] == "skipped" and lab.untouched(other)
    for name in lab.emulators.keys() - {device, other}:  # a later wave never starts
        assert states[name] == "skipped" and lab.untouched(name)
    # the router drops a NETCONF session's candidate and lock when it notices the end of
    # that session, in its own time: wait for that, as long as a lost load may take
    deadline = time.monotonic() + 30
    while leftovers(lab, device) and time.monotonic() < deadline:
        time.sleep(0.1)
    for name in (device, other):
        assert leftovers(lab, name) == [], name
        assert lab.unchanged(name), name
