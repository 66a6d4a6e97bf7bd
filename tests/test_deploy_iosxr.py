"""`meetme push` to the example's two IOS-XR borders through NETCONF (issue #14, item 1).

The adapter (deploy/iosxr_netconf.py) drives tests/emulator/netconf.py through ncclient over
SSH: candidate lock, edit-config, validate, confirmed commit with a confirm-timeout, the
confirming commit or cancel-commit; the post-checks read the emulator through NAPALM's
iosxr_netconf getters. Every fault must leave each router on its old or its new config, as
the emulator's own state shows. Wave 1: aus1-br1; wave 2: aus1-br2.
"""

from __future__ import annotations

import time

import pytest
from deploy_helpers import APPLIED, push, runner
from emulator import netconf
from emulator.lab import USER_HASHES, XR_SECRETS, Lab, journal, steps

from meetme.cli import app


def clean(lab: Lab, name: str) -> bool:
    """No lock, no uncommitted candidate, no confirmed commit left on the router."""
    emulator = lab.emulators[name]
    with emulator.lock:
        return emulator.lock_holder is None and emulator.candidate is None and not emulator.pending


def test_clean_push_commits_both_borders_with_a_confirmed_commit(xr_lab: Lab) -> None:
    code, output = push()
    assert code == 0, output

    records = journal(xr_lab.repo / "push.jsonl")
    for name in ("aus1-br1", "aus1-br2"):
        emulator = xr_lab.emulators[name]
        assert emulator.running_config() == xr_lab.expected(name)
        assert clean(xr_lab, name)
        assert steps(records, name) == APPLIED
        commits = [e for e in emulator.events if e.startswith(("commit", "confirm"))]
        assert commits == ["commit confirmed session 1 timeout 30", "confirm session 1"]
    order = [(r["device"], r["step"]) for r in records]
    assert order.index(("aus1-br2", "connect")) > order.index(("aus1-br1", "confirm"))
    bgp = next(r for r in records if r["device"] == "aus1-br1" and r["step"] == "post-check")
    total = len(xr_lab.models["aus1-br1"].bgp.neighbors)
    assert bgp["detail"] == f"{total}/{total} BGP neighbours Established"
    # secrets: on the router, nowhere else; the diff shows the references
    running = xr_lab.emulators["aus1-br1"].running_config()
    assert f"password clear {XR_SECRETS['transit-a']}" in running
    assert f"secret 10 {USER_HASHES['aus1-netops-hash']}" in running
    journal_text = (xr_lab.repo / "push.jsonl").read_text()
    for value in [*XR_SECRETS.values(), *USER_HASHES.values()]:
        assert value not in output and value not in journal_text
    assert "<<secret:transit-a>>" in journal_text


def test_a_second_push_finds_nothing_to_change(xr_lab: Lab) -> None:
    assert push()[0] == 0
    code, output = push()
    assert code == 0, output
    second = [r for r in journal(xr_lab.repo / "push.jsonl") if r["run"] != _first_run(xr_lab)]
    for name in ("aus1-br1", "aus1-br2"):
        assert steps(second, name) == [
            ("connect", "ok"),
            ("identity", "ok"),
            ("inspect", "ok"),
            ("load", "ok"),
            ("diff", "ok"),
            ("discard", "ok"),
        ]
        assert clean(xr_lab, name)
    assert "unchanged" in output


def _first_run(lab: Lab) -> str:
    return str(journal(lab.repo / "push.jsonl")[0]["run"])


def test_a_refused_line_changes_nothing_and_stops_the_waves(xr_lab: Lab) -> None:
    xr_lab.emulators["aus1-br1"].faults.reject = {"bgp router-id 10.0.0.1"}
    code, output = push()
    assert code == 1, output

    assert xr_lab.unchanged("aus1-br1") and clean(xr_lab, "aus1-br1")
    assert xr_lab.untouched("aus1-br2")
    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1") == [
        ("connect", "ok"),
        ("identity", "ok"),
        ("inspect", "ok"),
        ("load", "failed"),
    ]
    load = next(r for r in records if r["step"] == "load")
    assert "Invalid input detected" in load["detail"] and "bgp router-id 10.0.0.1" in load["detail"]
    assert steps(records, "aus1-br2") == [("skip", "skipped")]


def test_a_failed_post_check_cancels_the_confirmed_commit(xr_lab: Lab) -> None:
    peer = xr_lab.models["aus1-br1"].bgp.neighbors[0].address
    xr_lab.emulators["aus1-br1"].faults.bgp_down = {peer}
    code, output = push()
    assert code == 1, output

    emulator = xr_lab.emulators["aus1-br1"]
    assert xr_lab.unchanged("aus1-br1") and clean(xr_lab, "aus1-br1")
    assert "revert: cancel-commit session 1" in emulator.events  # meetme, not the timer
    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1")[-3:] == [
        ("commit", "ok"),
        ("post-check", "failed"),
        ("rollback", "ok"),
    ]
    check = next(r for r in records if r["step"] == "post-check")
    assert f"{peer} not Established" in check["detail"]
    assert xr_lab.untouched("aus1-br2")
    assert "rolled-back" in output


def test_a_miscabled_port_fails_the_link_check_and_rolls_back(xr_lab: Lab) -> None:
    port = next(i for i in xr_lab.models["aus1-br1"].interfaces if i.peer and i.kind == "routed")
    xr_lab.emulators["aus1-br1"].faults.miscabled = {port.name: ("aus1-sp9", "Ethernet9/1")}
    code, output = push()
    assert code == 1, output

    assert xr_lab.unchanged("aus1-br1")
    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1")[-2:] == [("post-check-links", "failed"), ("rollback", "ok")]
    links = next(r for r in records if r["step"] == "post-check-links")
    assert f"{port.name}: LLDP hears aus1-sp9:Ethernet9/1" in links["detail"]


def test_connection_dropped_during_commit_the_router_reverts_and_meetme_verifies(
    xr_lab: Lab,
) -> None:
    faults = xr_lab.emulators["aus1-br1"].faults
    faults.drop_on_commit, faults.unreachable_after_drop = True, 1.0
    code, output = push("--confirm-timer", "2")
    assert code == 1, output

    emulator = xr_lab.emulators["aus1-br1"]
    assert xr_lab.unchanged("aus1-br1") and clean(xr_lab, "aus1-br1")
    # RFC 6241 §8.4.1: the end of the committing session reverted it, before any timer
    assert "revert: session 1 ended before its confirm" in emulator.events
    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1")[5:] == [
        ("commit", "failed"),
        ("rollback", "failed"),
        ("await-timer", "waiting"),
        ("verify", "ok"),
    ]
    verify = next(r for r in records if r["step"] == "verify")
    assert "exactly as before the push" in verify["detail"]
    assert xr_lab.untouched("aus1-br2")
    assert "reverted" in output


@pytest.mark.parametrize(
    ("when", "status", "config"),
    [("before", "reverted", "old"), ("after", "committed", "new")],
)
def test_connection_dropped_during_confirm_leaves_old_or_new_and_says_which(
    xr_lab: Lab, when: str, status: str, config: str
) -> None:
    faults = xr_lab.emulators["aus1-br1"].faults
    faults.drop_on_confirm, faults.unreachable_after_drop = when, 1.0
    args = ["--journal", "push.jsonl", "--confirm-timer", "2", "--format", "json"]
    result = runner.invoke(app, ["push", "--stage", "lab", *args])
    assert result.exit_code == 1, result.output  # the waves stop either way

    if config == "old":
        assert xr_lab.unchanged("aus1-br1")
    else:
        assert xr_lab.emulators["aus1-br1"].running_config() == xr_lab.expected("aus1-br1")
    assert clean(xr_lab, "aus1-br1")
    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1")[-4:] == [
        ("post-check-evpn", "ok"),
        ("confirm", "failed"),
        ("await-timer", "waiting"),
        ("verify", "ok"),
    ]
    assert f'"status": "{status}"' in result.stdout
    assert xr_lab.untouched("aus1-br2")


def test_a_slow_router_times_the_load_out_and_leaves_nothing_behind(xr_lab: Lab) -> None:
    xr_lab.write_inventory(settings={"connect_timeout": 2})
    xr_lab.emulators["aus1-br1"].faults.slow_edit = 3.5
    started = time.monotonic()
    code, output = push()
    assert code == 1, output

    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1") == [
        ("connect", "ok"),
        ("identity", "ok"),
        ("inspect", "ok"),
        ("load", "failed"),
        ("cleanup", "ok"),
    ]
    load = next(r for r in records if r["step"] == "load")
    assert "TimeoutExpiredError" in load["detail"]
    deadline = started + 30  # the router finishes the edit, then drops it with the session
    while not clean(xr_lab, "aus1-br1") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert xr_lab.unchanged("aus1-br1") and clean(xr_lab, "aus1-br1")
    xr_lab.write_inventory()
    assert push()[0] == 0  # nothing left locks the next push out


def test_wrong_credentials_fail_at_connect_and_touch_nothing(
    xr_lab: Lab, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "Wr0ng-pass-Q7v!lab"
    monkeypatch.setenv("MEETME_SECRET_LAB_ADMIN", wrong)
    code, output = push()
    assert code == 1, output

    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1") == [("connect", "failed")]
    assert "AuthenticationError" in records[1]["detail"]
    assert all(xr_lab.untouched(n) and xr_lab.unchanged(n) for n in xr_lab.emulators)
    assert wrong not in output and wrong not in (xr_lab.repo / "push.jsonl").read_text()


def test_a_malformed_reply_fails_the_device_before_any_commit(xr_lab: Lab) -> None:
    xr_lab.write_inventory(settings={"connect_timeout": 2})
    xr_lab.emulators["aus1-br1"].faults.malformed = "get-cli-config-diff"
    code, output = push()
    assert code == 1, output

    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1")[-1] == ("diff", "failed")
    assert not any(e.startswith("commit") for e in xr_lab.emulators["aus1-br1"].events)
    deadline = time.monotonic() + 30
    while not clean(xr_lab, "aus1-br1") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert xr_lab.unchanged("aus1-br1") and clean(xr_lab, "aus1-br1")
    assert xr_lab.untouched("aus1-br2")


def test_someone_elses_lock_is_named_before_any_change(xr_lab: Lab) -> None:
    emulator = xr_lab.emulators["aus1-br1"]
    with emulator.lock:
        emulator.lock_holder = 41  # an engineer's NETCONF session, editing the candidate
    code, output = push()
    assert code == 1, output

    records = journal(xr_lab.repo / "push.jsonl")
    assert steps(records, "aus1-br1") == [
        ("connect", "ok"),
        ("identity", "ok"),
        ("inspect", "failed"),
    ]
    inspect = next(r for r in records if r["step"] == "inspect")
    assert "locked by NETCONF session 41" in inspect["detail"]
    assert xr_lab.unchanged("aus1-br1") and emulator.lock_holder == 41
    assert not any(c.endswith(("edit-config", "commit")) for c in emulator.commands)
    assert xr_lab.untouched("aus1-br2")


# ---- RFC 6242 framing: base:1.1 chunks when both sides offer them, else ]]>]]> ---------------


def test_the_push_goes_over_netconf_1_1_chunked_framing(xr_lab: Lab) -> None:
    code, output = push()
    assert code == 0, output
    for name in ("aus1-br1", "aus1-br2"):
        emulator = xr_lab.emulators[name]
        assert emulator.running_config() == xr_lab.expected(name) and clean(xr_lab, name)
        # every session of the push (and of its post-check getters) agreed on chunks
        assert emulator.framings and set(emulator.framings) == {"1.1"}
    diff = next(r for r in journal(xr_lab.repo / "push.jsonl") if r["step"] == "diff")["diff"]
    assert len(diff) > netconf.CHUNK  # the diff's reply came in several chunks


def test_a_router_offering_only_base_1_0_is_spoken_to_with_end_of_message_markers(
    xr_lab: Lab,
) -> None:
    for emulator in xr_lab.emulators.values():
        emulator.base11 = False
    assert push()[0] == 0
    for name in ("aus1-br1", "aus1-br2"):
        emulator = xr_lab.emulators[name]
        assert emulator.running_config() == xr_lab.expected(name)
        assert emulator.framings and set(emulator.framings) == {"1.0"}


def test_a_broken_chunk_header_ends_the_session() -> None:
    # the emulator's own reader, against the RFC's example and a header it must refuse
    class Feed:
        def __init__(self, data: bytes) -> None:
            self.data = data

        def recv(self, size: int) -> bytes:
            part, self.data = self.data[:3], self.data[3:]  # a few bytes at a time
            return part

    rfc_example = b'\n#4\n<rpc\n#18\n message-id="102"\n\n##\n<next'
    feed = Feed(rfc_example)
    message, rest = netconf._read_chunked(feed, b"")  # type: ignore[arg-type]
    assert message == b'<rpc message-id="102"\n' and rest + feed.data == b"<next"
    with pytest.raises(netconf.FramingError):
        netconf._read_chunked(Feed(b"\n#04\n<rpc"), b"")  # type: ignore[arg-type]
