"""`meetme plan` and `meetme push` against three emulated EOS spines in two waves.

The real NAPALM `eos` driver talks eAPI to the emulators (tests/emulator), so what is checked
here is what an engineer would see on real boxes: running configs, the journal, the terminal.
Wave 1: aus1-sp1 and aus1-sp2; wave 2: aus1-sp3.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from deploy_helpers import APPLIED, push, runner
from emulator.lab import (
    BGP_KEY,
    SECRET_ENV,
    SPINES,
    USER_HASHES,
    Lab,
    journal,
    steps,
)

from meetme.cli import app


def test_clean_push_commits_all_three_and_journals_each_step(lab: Lab) -> None:
    rendered_before = {n: lab.rendered(n).read_bytes() for n in SPINES}
    code, output = push()
    assert code == 0, output

    for name in SPINES:
        emulator = lab.emulators[name]
        assert emulator.running_config() == lab.expected(name)
        assert emulator.startup_config() == lab.expected(name)  # confirmed and saved
        assert emulator.pending_timers() == []
    records = journal(lab.repo / "push.jsonl")
    for name in SPINES:
        assert steps(records, name) == APPLIED
        mine = [r for r in records if r["device"] == name]
        assert mine[0]["step"] == "connect" and "diff_sha256" not in mine[0]
        hashes = {r["diff_sha256"] for r in mine[4:]}  # diff, commit, post-checks, confirm
        assert len(hashes) == 1 and hashes.pop().startswith("sha256:")
        assert "+router bgp 4200009000" in mine[4]["diff"]
    assert all(r["ts"].endswith("Z") and r["run"] == records[0]["run"] for r in records)
    # wave 2 starts only once wave 1 is confirmed
    order = [(r["device"], r["step"]) for r in records]
    assert order.index(("aus1-sp3", "connect")) > max(
        order.index(("aus1-sp1", "confirm")), order.index(("aus1-sp2", "confirm"))
    )
    assert [r["step"] for r in records if r["device"] is None] == ["run-start", "run-end"]
    expected = len(lab.models["aus1-sp1"].bgp.neighbors)
    assert f"{expected}/{expected} BGP neighbours Established" in output
    # secrets: on the device, nowhere else
    assert f"password 0 {BGP_KEY}" in lab.emulators["aus1-sp1"].running_config()
    assert any(BGP_KEY in command for command in lab.emulators["aus1-sp1"].commands)
    assert BGP_KEY not in output and SECRET_ENV["MEETME_SECRET_LAB_ADMIN"] not in output
    journal_text = (lab.repo / "push.jsonl").read_text()
    assert BGP_KEY not in journal_text and "<<secret:bgp-aus1-br1>>" in journal_text
    assert "<<secret:bgp-aus1-br1>>" in output  # the diff shows the reference instead
    # The local users' hashes too: on the device (the replace keeps the logins), nowhere else.
    netops = USER_HASHES["aus1-netops-hash"]
    running = lab.emulators["aus1-sp1"].running_config()
    assert f"username netops privilege 15 role network-admin secret sha512 {netops}" in running
    assert "management api http-commands" in running  # eAPI survives its own replace
    assert not any(h in output or h in journal_text for h in USER_HASHES.values())
    assert {n: lab.rendered(n).read_bytes() for n in SPINES} == rendered_before
    assert not any(BGP_KEY in p.read_text() for p in (lab.repo / "rendered").rglob("*.cfg"))


def test_a_second_push_finds_nothing_to_change(lab: Lab) -> None:
    assert push()[0] == 0
    result = runner.invoke(app, ["push", "--stage", "lab"])  # the default journal this time
    assert result.exit_code == 0, result.output
    assert all(lab.emulators[n].pending_timers() == [] for n in SPINES)
    (written,) = (lab.repo / "journal").glob("*-push-lab.jsonl")
    assert f"journal: {Path('journal') / written.name}" in result.output
    second = journal(written)
    assert all(("commit", "ok") not in steps(second, n) for n in SPINES)
    assert all(("discard", "ok") in steps(second, n) for n in SPINES)
    assert "unchanged" in result.output


def test_rejected_command_on_wave_1_leaves_every_device_as_it_was(lab: Lab) -> None:
    router_id = lab.models["aus1-sp2"].bgp.router_id
    lab.emulators["aus1-sp2"].faults.reject = {f"router-id {router_id}"}
    code, output = push()
    assert code == 1, output

    assert lab.unchanged("aus1-sp1") and lab.unchanged("aus1-sp2")
    assert lab.untouched("aus1-sp3")
    for name in ("aus1-sp1", "aus1-sp2"):  # no session left open on the boxes either
        assert lab.emulators[name].sessions == {}
    records = journal(lab.repo / "push.jsonl")
    assert ("load", "failed") in steps(records, "aus1-sp2")
    load = next(r for r in records if r["step"] == "load" and r["status"] == "failed")
    assert load["device"] == "aus1-sp2" and "Invalid input" in load["detail"]
    assert f"router-id {router_id}" in load["detail"]
    assert ("discard", "ok") in steps(records, "aus1-sp1")
    assert ("commit", "ok") not in steps(records, "aus1-sp1")
    assert steps(records, "aus1-sp3") == [("skip", "skipped")]


def test_post_check_failure_rolls_the_device_back_and_stops(lab: Lab) -> None:
    peer = lab.models["aus1-sp1"].bgp.neighbors[0].address
    lab.emulators["aus1-sp1"].faults.bgp_down = {peer}
    code, output = push()
    assert code == 1, output

    assert lab.unchanged("aus1-sp1")
    assert any(e.endswith("(reverted)") for e in lab.emulators["aus1-sp1"].events)
    assert lab.untouched("aus1-sp3")
    records = journal(lab.repo / "push.jsonl")
    assert steps(records, "aus1-sp1")[-2:] == [("post-check", "failed"), ("rollback", "ok")]
    check = next(r for r in records if r["device"] == "aus1-sp1" and r["step"] == "post-check")
    total = len(lab.models["aus1-sp1"].bgp.neighbors)
    assert f"{peer} not Established" in check["detail"]
    assert f"{total - 1}/{total}" in check["detail"]
    # the other device of the wave went ahead on its own and passed
    assert steps(records, "aus1-sp2") == APPLIED
    assert steps(records, "aus1-sp3") == [("skip", "skipped")]
    assert "rolled-back" in output


def test_connection_dropped_during_commit_is_reverted_by_the_confirm_timer(lab: Lab) -> None:
    faults = lab.emulators["aus1-sp1"].faults
    # out of reach past the 2 s timer, and back well before meetme verifies (timer + 3 s
    # grace): with the lab's 1 s grace a busy machine's slow commit left 0.5 s between them
    faults.drop_on_commit, faults.unreachable_after_drop = True, 2.5
    lab.write_inventory(settings={"verify_grace": 3})
    started = time.monotonic()
    code, output = push("--confirm-timer", "2")
    assert code == 1, output
    assert time.monotonic() - started < 15

    emulator = lab.emulators["aus1-sp1"]
    assert lab.unchanged("aus1-sp1")
    assert [e.split()[0] for e in emulator.events if "timer" in e] == ["commit", "timer"]
    assert not any(e.endswith("(reverted)") for e in emulator.events)  # the timer, not meetme
    records = journal(lab.repo / "push.jsonl")
    sp1 = steps(records, "aus1-sp1")
    assert sp1[5:] == [
        ("commit", "failed"),
        ("rollback", "failed"),
        ("await-timer", "waiting"),
        ("verify", "ok"),
    ]
    verify = next(r for r in records if r["device"] == "aus1-sp1" and r["step"] == "verify")
    assert "reverted by its confirm timer" in verify["detail"]
    assert "exactly as before the push" in verify["detail"]
    assert lab.untouched("aus1-sp3")
    assert "reverted" in output


def test_plan_prints_each_diff_and_changes_nothing(lab: Lab) -> None:
    result = runner.invoke(app, ["plan", "--stage", "lab"])
    assert result.exit_code == 0, result.output
    for name in SPINES:
        assert lab.unchanged(name)
        assert lab.emulators[name].sessions == {}
        assert not any(e.startswith("commit") for e in lab.emulators[name].events)
        assert f"+   router-id {lab.models[name].bgp.router_id}" in result.output
    assert result.output.count("+router bgp 4200009000") == 3
    assert "<<secret:bgp-aus1-br1>>" in result.output and BGP_KEY not in result.output
    assert not (lab.repo / "journal").exists()


def test_dry_run_equals_plan(lab: Lab) -> None:
    plan = runner.invoke(app, ["plan", "--stage", "lab", "--format", "json"])
    dry = runner.invoke(app, ["push", "--stage", "lab", "--dry-run", "--format", "json"])
    assert plan.exit_code == dry.exit_code == 0, dry.output
    assert plan.stdout == dry.stdout
    assert '"status": "changes"' in plan.stdout
    assert all(lab.unchanged(n) for n in SPINES)
    assert not (lab.repo / "journal").exists()


def test_a_device_of_another_stage_is_refused(lab: Lab) -> None:
    lab.write_inventory(stages={"aus1-sp3": "canary"})
    result = runner.invoke(app, ["push", "--stage", "lab", "--device", "aus1-sp3"])
    assert result.exit_code == 2
    assert "aus1-sp3 is a canary device; refused for --stage lab" in result.output
    assert all(lab.untouched(n) for n in SPINES)

    code, output = push()  # the lab stage without sp3
    assert code == 0, output
    assert lab.untouched("aus1-sp3")
    assert lab.emulators["aus1-sp1"].running_config() == lab.expected("aus1-sp1")


def test_a_missing_secret_stops_before_any_device_is_touched(
    lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEETME_SECRET_BGP_AUS1_BR1")
    code, output = push()
    assert code == 2
    assert "rendered/aus1/aus1-sp1.cfg:" in output
    assert "export MEETME_SECRET_BGP_AUS1_BR1" in output
    assert all(lab.untouched(n) for n in SPINES)
    assert not (lab.repo / "push.jsonl").exists()


def test_a_push_that_would_switch_off_eapi_is_refused(lab: Lab) -> None:
    path = lab.rendered("aus1-sp2")
    stanza = (
        "management api http-commands\n   no shutdown\n   !\n   vrf default\n      shutdown\n"
        "   !\n   vrf MGMT\n      no shutdown\n!\n"
    )
    assert stanza in path.read_text()  # rendered from the model, no longer added by the lab
    path.write_text(path.read_text().replace(stanza, ""))
    code, output = push()
    assert code == 2
    assert "aus1-sp2: the rendered config has no 'management api http-commands'" in output
    assert all(lab.untouched(n) for n in SPINES)
    result = runner.invoke(app, ["plan", "--stage", "lab", "--device", "aus1-sp2"])
    assert result.exit_code == 0  # plan shows it: the diff removes the stanza
    assert "warning" in result.output and "-management api http-commands" in result.output
    assert lab.unchanged("aus1-sp2")
