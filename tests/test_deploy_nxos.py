"""`meetme push` to the example's NX-OS leaves through NX-API with a named checkpoint.

The adapter (deploy/nxos_checkpoint.py) copies the candidate over SCP and drives
tests/emulator/nxapi.py over NX-API JSON-RPC: checkpoint meetme-<run>, replace from the file,
post-checks through NAPALM's nxos getters, then save, or restore the checkpoint. NX-OS has no
timer here: meetme's own watchdog restores the checkpoint, retrying while the switch is out
of reach. Every fault must leave the running and the startup config either both old or both
new, as the emulator's state shows. Wave 1: aus1-lf3; wave 2: aus1-lf4.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest
from deploy_helpers import APPLIED, is_new, push, runner, statuses
from emulator.lab import NX_USER_HASHES, Lab, journal, steps

from meetme.cli import app


def nothing_left(lab: Lab, name: str) -> bool:
    """No meetme checkpoint and no candidate file (it holds secrets in clear) on the switch."""
    emulator = lab.emulators[name]
    with emulator.lock:
        files = [f for f in emulator.files if f.startswith("meetme-")]
        return emulator.checkpoints == {} and files == []


def test_clean_push_checkpoints_replaces_checks_and_saves(nx_lab: Lab) -> None:
    code, output = push()
    assert code == 0, output

    records = journal(nx_lab.repo / "push.jsonl")
    run = records[0]["run"]
    for name in ("aus1-lf3", "aus1-lf4"):
        emulator = nx_lab.emulators[name]
        assert is_new(nx_lab, name) and nothing_left(nx_lab, name)
        assert steps(records, name) == APPLIED
        assert emulator.events == [
            f"scp meetme-{run}.cfg",
            f"checkpoint meetme-{run}",
            f"replace from file meetme-{run}.cfg",
            "save",
            f"clear checkpoint meetme-{run}",
        ]
    order = [(r["device"], r["step"]) for r in records]
    assert order.index(("aus1-lf4", "connect")) > order.index(("aus1-lf3", "confirm"))
    # the user hashes reached the switch (over SCP), and nowhere else
    netops = NX_USER_HASHES["aus1-netops-hash-sha256"]
    assert f"password 5 {netops}" in nx_lab.emulators["aus1-lf3"].running_config()
    journal_text = (nx_lab.repo / "push.jsonl").read_text()
    for value in NX_USER_HASHES.values():
        assert value not in output and value not in journal_text


def test_a_second_push_finds_nothing_to_change(nx_lab: Lab) -> None:
    assert push()[0] == 0
    code, states = statuses()
    assert code == 0
    assert states == {"aus1-lf3": "unchanged", "aus1-lf4": "unchanged"}
    assert all(nothing_left(nx_lab, n) for n in ("aus1-lf3", "aus1-lf4"))


def test_a_refused_line_changes_nothing_and_stops_the_waves(nx_lab: Lab) -> None:
    nx_lab.emulators["aus1-lf3"].faults.reject = {"router-id 10.0.0.103"}
    code, output = push()
    assert code == 1, output

    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")
    assert nx_lab.untouched("aus1-lf4")
    records = journal(nx_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf3")[-2:] == [("commit", "failed"), ("rollback", "ok")]
    commit = next(r for r in records if r["step"] == "commit")
    assert "Rollback failed." in commit["detail"] and "router-id 10.0.0.103" in commit["detail"]
    rollback = next(r for r in records if r["step"] == "rollback")
    assert rollback["detail"] == "nothing to roll back: the device refused the replace"
    assert steps(records, "aus1-lf4") == [("skip", "skipped")]


def test_a_failed_post_check_restores_the_checkpoint(nx_lab: Lab) -> None:
    peer = nx_lab.models["aus1-lf3"].bgp.neighbors[0].address
    nx_lab.emulators["aus1-lf3"].faults.bgp_down = {peer}
    code, output = push()
    assert code == 1, output

    run = journal(nx_lab.repo / "push.jsonl")[0]["run"]
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")
    assert f"replace from checkpoint meetme-{run}" in nx_lab.emulators["aus1-lf3"].events
    records = journal(nx_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf3")[-3:] == [
        ("commit", "ok"),
        ("post-check", "failed"),
        ("rollback", "ok"),
    ]
    assert nx_lab.untouched("aus1-lf4")
    assert "rolled-back" in output


def test_a_malformed_answer_fails_the_check_and_restores_the_checkpoint(nx_lab: Lab) -> None:
    nx_lab.emulators["aus1-lf3"].faults.malformed = "show bgp all summary"
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "rolled-back", "aus1-lf4": "skipped"}
    check = next(r for r in journal(nx_lab.repo / "push.jsonl") if r["step"] == "post-check")
    assert check["status"] == "failed" and "get_bgp_neighbors failed" in check["detail"]
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")


def test_a_checkpoint_that_fails_before_the_replace_leaves_no_candidate_file(nx_lab: Lab) -> None:
    """The commit stops at its first command, `checkpoint meetme-<run>` (a malformed answer):
    nothing was replaced and no checkpoint taken. Dropping that checkpoint fails, and the
    candidate file, deleted after it, stayed on bootflash: with the secrets."""
    nx_lab.emulators["aus1-lf3"].faults.malformed = "checkpoint meetme-"
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "failed", "aus1-lf4": "skipped"}
    records = journal(nx_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf3")[-2:] == [("commit", "failed"), ("rollback", "ok")]
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")


@pytest.mark.parametrize("fault", ["commit", "confirm-before", "confirm-after"])
def test_a_connection_cut_off_is_restored_by_meetmes_watchdog(nx_lab: Lab, fault: str) -> None:
    faults = nx_lab.emulators["aus1-lf3"].faults
    faults.unreachable_after_drop = 1.5
    if fault == "commit":
        faults.drop_on_commit = True
    else:
        faults.drop_on_confirm = fault.split("-")[1]
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "rolled-back", "aus1-lf4": "skipped"}

    # running and startup both old, even where the save had already happened ("after")
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")
    records = journal(nx_lab.repo / "push.jsonl")
    phase = fault.split("-")[0]
    assert steps(records, "aus1-lf3")[-2:] == [(phase, "failed"), ("rollback", "ok")]
    rollback = next(r for r in records if r["step"] == "rollback")
    assert "restored checkpoint meetme-" in rollback["detail"] and "attempts" in rollback["detail"]
    assert nx_lab.untouched("aus1-lf4")


def test_a_switch_that_stays_out_of_reach_is_unknown_and_says_how_to_restore(
    nx_lab: Lab,
) -> None:
    nx_lab.write_inventory(settings={"confirm_timer": 3, "check_timeout": 1})
    faults = nx_lab.emulators["aus1-lf3"].faults
    faults.drop_on_commit, faults.unreachable_after_drop = True, 60
    code, states = statuses()
    assert code == 3
    assert states["aus1-lf3"] == "unknown"
    rollback = next(r for r in journal(nx_lab.repo / "push.jsonl") if r["step"] == "rollback")
    run = journal(nx_lab.repo / "push.jsonl")[0]["run"]
    assert f"`rollback running-config checkpoint meetme-{run}` restores it" in rollback["detail"]
    # as meetme said: the new config runs unsaved, the checkpoint is there to restore
    emulator = nx_lab.emulators["aus1-lf3"]
    assert emulator.running_config() == nx_lab.expected("aus1-lf3")
    assert emulator.startup_config() == nx_lab.normalise(nx_lab.initial["aus1-lf3"])
    assert f"meetme-{run}" in emulator.checkpoints


def test_a_slow_replace_is_waited_for_and_restored(nx_lab: Lab) -> None:
    nx_lab.write_inventory(settings={"connect_timeout": 2})
    nx_lab.emulators["aus1-lf3"].faults.slow_replace = 3
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "rolled-back", "aus1-lf4": "skipped"}
    commit = next(r for r in journal(nx_lab.repo / "push.jsonl") if r["step"] == "commit")
    assert commit["status"] == "failed" and "Timeout" in commit["detail"]
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")


def test_a_copy_whose_last_acknowledgement_is_lost_leaves_no_candidate_file(
    nx_lab: Lab,
) -> None:
    """The switch stored the candidate (the secrets in clear), then the SCP connection closed
    before its last acknowledgement: the load failed, and the file was left on bootflash:
    until the next push, because only a copy that had succeeded was deleted."""
    nx_lab.emulators["aus1-lf3"].faults.lose_scp_ack = True
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "failed", "aus1-lf4": "skipped"}
    records = journal(nx_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf3")[-1] == ("load", "failed")
    run = records[0]["run"]
    assert f"scp meetme-{run}.cfg" in nx_lab.emulators["aus1-lf3"].events  # it landed
    assert nx_lab.unchanged("aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")
    assert nx_lab.untouched("aus1-lf4")


def test_wrong_credentials_fail_at_connect_and_touch_nothing(
    nx_lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_SECRET_LAB_ADMIN", "Wr0ng-pass-Q7v!lab")
    code, output = push()
    assert code == 1, output
    records = journal(nx_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf3") == [("connect", "failed")]
    assert all(nx_lab.untouched(n) for n in nx_lab.emulators)
    assert "Wr0ng-pass-Q7v!lab" not in output


def test_a_push_killed_after_its_replace_is_found_and_cleaned_by_its_checkpoint(
    nx_lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt  # meetme dies while BGP is polled: nothing reverts NX-OS

    with monkeypatch.context() as patch:
        patch.setattr("meetme.deploy.engine.check_bgp", killed)
        first = runner.invoke(app, ["push", "--stage", "lab", "--journal", "push.jsonl"])
    assert first.exit_code != 0
    gc.collect()
    emulator = nx_lab.emulators["aus1-lf3"]
    assert emulator.running_config() == nx_lab.expected("aus1-lf3")  # in place, unsaved
    assert emulator.startup_config() == nx_lab.normalise(nx_lab.initial["aus1-lf3"])
    killed_run = journal(nx_lab.repo / "push.jsonl")[0]["run"]

    code, states = statuses()  # a retry: the diff is empty, yet it must not say unchanged
    assert code == 1
    assert states["aus1-lf3"] == "failed"
    inspect = [r for r in journal(nx_lab.repo / "push.jsonl") if r["step"] == "inspect"][-1]
    assert inspect["status"] == "failed"
    assert f"checkpoint meetme-{killed_run} holds the config before it" in inspect["detail"]
    assert not nx_lab.unchanged("aus1-lf3")  # the retry touched nothing but the leftover:
    with emulator.lock:  # the killed run's candidate (its secrets) is deleted all the same
        assert f"meetme-{killed_run}.cfg" not in emulator.files

    code, states = statuses("--clean-own-sessions")
    assert code == 0, states
    assert states == {"aus1-lf3": "committed", "aus1-lf4": "committed"}
    assert f"replace from checkpoint meetme-{killed_run}" in emulator.events
    assert is_new(nx_lab, "aus1-lf3") and nothing_left(nx_lab, "aus1-lf3")


# ---- NX-OS 9.3(1) and later: configure replace with the switch's commit-timeout -------------


def test_an_older_release_is_asked_and_gets_the_checkpoint_way(nx_lab: Lab) -> None:
    assert push()[0] == 0
    commands = nx_lab.emulators["aus1-lf3"].commands
    assert "show version" in commands
    assert not [c for c in commands if c.startswith("configure replace")]


def test_a_10x_switch_replaces_with_its_commit_timeout_and_commits(nx10_lab: Lab) -> None:
    code, output = push()
    assert code == 0, output
    records = journal(nx10_lab.repo / "push.jsonl")
    run = records[0]["run"]
    for name in ("aus1-lf3", "aus1-lf4"):
        emulator = nx10_lab.emulators[name]
        assert is_new(nx10_lab, name) and nothing_left(nx10_lab, name)
        assert emulator.pending_timers() == []
        assert steps(records, name) == APPLIED
        assert emulator.events == [  # no checkpoint: the switch holds the way back
            f"scp meetme-{run}.cfg",
            f"replace from file meetme-{run}.cfg commit-timeout 30",
            "configure replace commit",
            "save",
        ]
    commit = next(r for r in records if r["step"] == "commit")
    assert commit["detail"].startswith("configure replace commit-timeout 30 s")


def test_a_timer_outside_the_switchs_range_gets_the_checkpoint_way(nx10_lab: Lab) -> None:
    assert push("--confirm-timer", "29")[0] == 0  # commit-timeout takes 30 to 3600 s
    assert f"checkpoint meetme-{journal(nx10_lab.repo / 'push.jsonl')[0]['run']}" in (
        nx10_lab.emulators["aus1-lf3"].events
    )


def test_a_failed_post_check_on_10x_is_reverted_by_the_switchs_timer(nx10_lab: Lab) -> None:
    peer = nx10_lab.models["aus1-lf3"].bgp.neighbors[0].address
    nx10_lab.emulators["aus1-lf3"].faults.bgp_down = {peer}
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf3": "reverted", "aus1-lf4": "skipped"}
    assert nx10_lab.unchanged("aus1-lf3") and nothing_left(nx10_lab, "aus1-lf3")
    assert "revert: commit-timeout expired" in nx10_lab.emulators["aus1-lf3"].events
    assert "configure replace commit" not in nx10_lab.emulators["aus1-lf3"].commands
    tail = steps(journal(nx10_lab.repo / "push.jsonl"), "aus1-lf3")[-3:]
    assert tail == [("post-check", "failed"), ("await-timer", "waiting"), ("verify", "ok")]
    assert nx10_lab.untouched("aus1-lf4")


@pytest.mark.parametrize(
    ("fault", "status"),
    [("commit", "reverted"), ("confirm-before", "reverted"), ("confirm-after", "committed")],
)
def test_a_connection_cut_off_on_10x_leaves_old_or_new_and_says_which(
    nx10_lab: Lab, fault: str, status: str
) -> None:
    faults = nx10_lab.emulators["aus1-lf3"].faults
    faults.unreachable_after_drop = 1.5
    if fault == "commit":
        faults.drop_on_commit = True
    else:
        faults.drop_on_confirm = fault.split("-")[1]
    code, states = statuses()
    assert code == 1  # the waves stop either way
    assert states == {"aus1-lf3": status, "aus1-lf4": "skipped"}
    emulator = nx10_lab.emulators["aus1-lf3"]
    assert emulator.pending_timers() == []
    if status == "reverted":  # the switch's timer, not meetme, restored it
        assert nx10_lab.unchanged("aus1-lf3")
        assert "revert: commit-timeout expired" in emulator.events
    else:  # `configure replace commit` took effect; the save never came
        assert emulator.running_config() == nx10_lab.expected("aus1-lf3")
        assert emulator.startup_config() == nx10_lab.normalise(nx10_lab.initial["aus1-lf3"])
    tail = steps(journal(nx10_lab.repo / "push.jsonl"), "aus1-lf3")[-2:]
    assert tail == [("await-timer", "waiting"), ("verify", "ok")]
    assert nx10_lab.untouched("aus1-lf4")


@pytest.mark.parametrize("fixture", ["nx_lab", "nx10_lab"])
def test_a_candidate_file_a_killed_push_left_is_deleted_by_the_next_push(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    lab: Lab = request.getfixturevalue(fixture)
    emulator = lab.emulators["aus1-lf3"]
    leftover = "meetme-0123456789ab.cfg"  # what a push killed mid-way leaves on bootflash:
    secret = NX_USER_HASHES["aus1-monitor-hash-sha256"]
    # files meetme did not write, whatever their name looks like: left alone
    kept = ["meetme-notes.cfg", "old-meetme-0123456789ab.cfg", "meetme-0123456789ab.cfg.bak"]
    with emulator.lock:
        emulator.files[leftover] = [f"username monitor password 5 {secret} role network-operator"]
        for name in kept:
            emulator.files[name] = ["! someone's own file"]

    code, output = push()
    assert code == 0, output
    with emulator.lock:
        assert sorted(f for f in emulator.files if f.startswith("meetme-")) == sorted(
            f for f in kept if f.startswith("meetme-")
        )  # neither the leftover nor this push's own candidate
        assert all(name in emulator.files for name in kept) and emulator.checkpoints == {}
    assert is_new(lab, "aus1-lf3")
    records = journal(lab.repo / "push.jsonl")
    assert (
        steps(records, "aus1-lf3")
        == [
            *APPLIED[:2],  # connect, identity
            ("cleanup", "ok"),  # before the inspect: a device it stops keeps no secrets file
            *APPLIED[2:],
        ]
    )
    [cleanup] = [r for r in records if r["device"] == "aus1-lf3" and r["step"] == "cleanup"]
    assert f"deleted bootflash:{leftover}" in cleanup["detail"]
    assert steps(records, "aus1-lf4") == APPLIED  # nothing left there: no cleanup step
    assert secret not in output and secret not in (lab.repo / "push.jsonl").read_text()
