"""`meetme push` to the example's NVUE leaves: REST revisions, the confirm timer over SSH.

The adapter (deploy/nvue_rest.py) drives tests/emulator/nvue.py: a revision emptied and
root-patched with the rendered startup.yaml, the diff of two GETs, `nv config apply R
--confirm Ns -y` over SSH, the post-checks through the REST getters, then `--confirm-yes` and
a save, or `--confirm-no`. Every fault must leave the switch's applied config old or new, as
the emulator shows. Wave 1: aus1-lf1; wave 2: aus1-lf2.
"""

from __future__ import annotations

import copy
import gc
import re
import time
from typing import Any

import pytest
from deploy_helpers import APPLIED, is_new, push, runner, statuses
from emulator.lab import USER_HASHES, Lab, journal, steps

from meetme.cli import app


def test_clean_push_applies_with_a_confirm_timer_and_saves(nv_lab: Lab) -> None:
    code, output = push()
    assert code == 0, output

    records = journal(nv_lab.repo / "push.jsonl")
    for name in ("aus1-lf1", "aus1-lf2"):
        emulator = nv_lab.emulators[name]
        assert is_new(nv_lab, name) and emulator.pending_timers() == []
        assert steps(records, name) == APPLIED
        assert emulator.events == [
            "apply changeset/netops/1 confirm 30s",
            "confirm changeset/netops/1",
            "save",
        ]
    netops = USER_HASHES["aus1-netops-hash"]
    assert netops in nv_lab.emulators["aus1-lf1"].running_config()
    journal_text = (nv_lab.repo / "push.jsonl").read_text()
    assert netops not in output and netops not in journal_text
    assert "<<secret:aus1-netops-hash>>" in journal_text


def test_a_second_push_finds_nothing_to_change(nv_lab: Lab) -> None:
    assert push()[0] == 0
    code, states = statuses()
    assert code == 0
    assert states == {"aus1-lf1": "unchanged", "aus1-lf2": "unchanged"}
    assert all(nv_lab.emulators[n].revisions.keys() == {"changeset/netops/1"} for n in states)


def test_a_refused_patch_changes_nothing_and_stops_the_waves(nv_lab: Lab) -> None:
    nv_lab.emulators["aus1-lf1"].faults.reject = {"RM-UNDERLAY-V4-IN"}
    code, output = push()
    assert code == 1, output

    assert nv_lab.unchanged("aus1-lf1") and nv_lab.untouched("aus1-lf2")
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1") == [
        ("connect", "ok"),
        ("identity", "ok"),
        ("inspect", "ok"),
        ("load", "failed"),
    ]
    load = next(r for r in records if r["step"] == "load")
    assert "'RM-UNDERLAY-V4-IN' is not valid" in load["detail"]
    assert nv_lab.emulators["aus1-lf1"].revisions == {}  # the revision was dropped


def test_a_failed_post_check_reverts_with_confirm_no(nv_lab: Lab) -> None:
    peer = nv_lab.models["aus1-lf1"].bgp.neighbors[0].address
    nv_lab.emulators["aus1-lf1"].faults.bgp_down = {peer}
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf1": "rolled-back", "aus1-lf2": "skipped"}
    assert nv_lab.unchanged("aus1-lf1")
    assert "revert: confirm-no changeset/netops/1" in nv_lab.emulators["aus1-lf1"].events
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1")[-2:] == [("post-check", "failed"), ("rollback", "ok")]


def test_a_malformed_answer_fails_the_check_and_reverts(nv_lab: Lab) -> None:
    nv_lab.emulators["aus1-lf1"].faults.malformed = "/nvue_v1/vrf"
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf1": "rolled-back", "aus1-lf2": "skipped"}
    check = next(r for r in journal(nv_lab.repo / "push.jsonl") if r["step"] == "post-check")
    assert "get_bgp_neighbors failed" in check["detail"]
    assert nv_lab.unchanged("aus1-lf1")


def test_connection_dropped_during_the_apply_the_switch_timer_reverts(nv_lab: Lab) -> None:
    faults = nv_lab.emulators["aus1-lf1"].faults
    faults.drop_on_commit, faults.unreachable_after_drop = True, 1.0
    code, states = statuses("--confirm-timer", "2")
    assert code == 1
    assert states == {"aus1-lf1": "reverted", "aus1-lf2": "skipped"}
    emulator = nv_lab.emulators["aus1-lf1"]
    assert nv_lab.unchanged("aus1-lf1")
    assert "revert: confirm timer of changeset/netops/1" in emulator.events  # the switch
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1")[5:] == [
        ("commit", "failed"),
        ("rollback", "failed"),
        ("await-timer", "waiting"),
        ("verify", "ok"),
    ]


@pytest.mark.parametrize(("when", "status"), [("before", "reverted"), ("after", "committed")])
def test_connection_dropped_during_the_confirm_leaves_old_or_new_and_says_which(
    nv_lab: Lab, when: str, status: str
) -> None:
    faults = nv_lab.emulators["aus1-lf1"].faults
    faults.drop_on_confirm, faults.unreachable_after_drop = when, 1.0
    code, states = statuses("--confirm-timer", "2")
    assert code == 1  # the waves stop either way
    assert states == {"aus1-lf1": status, "aus1-lf2": "skipped"}
    emulator = nv_lab.emulators["aus1-lf1"]
    if status == "reverted":
        assert nv_lab.unchanged("aus1-lf1")
    else:  # confirmed, not saved: the save never came
        assert emulator.running_config() == nv_lab.expected("aus1-lf1")
        assert emulator.pending_timers() == []
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1")[-3:] == [
        ("confirm", "failed"),
        ("await-timer", "waiting"),
        ("verify", "ok"),
    ]


def test_a_slow_switch_times_the_load_out_and_applies_nothing(nv_lab: Lab) -> None:
    nv_lab.write_inventory(settings={"connect_timeout": 2})
    nv_lab.emulators["aus1-lf1"].faults.slow_patch = 3
    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf1": "failed", "aus1-lf2": "skipped"}
    load = next(r for r in journal(nv_lab.repo / "push.jsonl") if r["step"] == "load")
    assert load["status"] == "failed" and "Timeout" in load["detail"]
    time.sleep(1.5)  # the switch finishes the PATCH into a revision nobody applies
    assert nv_lab.unchanged("aus1-lf1")


def test_wrong_credentials_fail_at_connect_and_touch_nothing(
    nv_lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEETME_SECRET_LAB_ADMIN", "Wr0ng-pass-Q7v!lab")
    code, output = push()
    assert code == 1, output
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1") == [("connect", "failed")]
    assert "401 Unauthorized" in records[1]["detail"]
    assert all(nv_lab.unchanged(n) for n in nv_lab.emulators)
    assert "Wr0ng-pass-Q7v!lab" not in output


def test_a_retry_while_the_switch_timer_runs_never_says_unchanged(
    nv_lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt  # meetme dies while BGP is polled; the timer runs on

    with monkeypatch.context() as patch:
        patch.setattr("meetme.deploy.engine.check_bgp", killed)
        first = runner.invoke(app, ["push", "--stage", "lab", "--journal", "push.jsonl"])
    assert first.exit_code != 0
    gc.collect()
    emulator = nv_lab.emulators["aus1-lf1"]
    assert emulator.pending_timers() == ["changeset/netops/1"]

    code, states = statuses()  # at once: the diff is empty, and must not read "unchanged"
    assert code == 1
    assert states["aus1-lf1"] == "failed"
    inspect = [r for r in journal(nv_lab.repo / "push.jsonl") if r["step"] == "inspect"][-1]
    assert "push again after that" in inspect["detail"]
    assert emulator.pending_timers() == ["changeset/netops/1"]  # the retry touched nothing


def test_someone_elses_apply_awaiting_its_confirm_is_named_and_left_alone(nv_lab: Lab) -> None:
    emulator = nv_lab.emulators["aus1-lf1"]
    with emulator.lock:  # a colleague's `nv config apply --confirm 600s`, not yet confirmed
        emulator.revisions["changeset/alice/7"] = {
            "state": "pending",
            # her change (a new banner), not another name: the switch is still aus1-lf1
            "config": {
                **copy.deepcopy(emulator.applied),
                "system": {**emulator.applied["system"], "message": {"pre-login": "alice"}},
            },
        }
    assert emulator.nv("nv config apply changeset/alice/7 --confirm 600s -y")[0] == 0
    before = emulator.running_config()

    code, states = statuses()
    assert code == 1
    assert states == {"aus1-lf1": "failed", "aus1-lf2": "skipped"}
    records = journal(nv_lab.repo / "push.jsonl")
    assert steps(records, "aus1-lf1") == [
        ("connect", "ok"),
        ("identity", "ok"),
        ("inspect", "failed"),
    ]
    inspect = next(r for r in records if r["step"] == "inspect")
    assert re.search(
        r"an apply awaiting its confirm \(changeset/alice/7: (600|5\d\d) seconds left before the "
        r"automatic rollback\)",
        inspect["detail"],
    )
    # untouched: the colleague's apply still runs, meetme opened no revision of its own
    assert emulator.running_config() == before
    assert emulator.pending_timers() == ["changeset/alice/7"]
    assert set(emulator.revisions) == {"changeset/alice/7"}
    assert nv_lab.untouched("aus1-lf2")


def test_the_confirm_status_is_asked_before_every_push(nv_lab: Lab) -> None:
    assert push()[0] == 0
    inspect = next(r for r in journal(nv_lab.repo / "push.jsonl") if r["step"] == "inspect")
    assert inspect["detail"] == "no apply awaiting its confirm (nv config apply --confirm-status)"
    commands = nv_lab.emulators["aus1-lf1"].commands
    assert commands.index("nv config apply --confirm-status") < commands.index(
        "POST /nvue_v1/revision"
    )
