"""The push engine's paths for drivers without commit-confirm, and the BGP post-check.

The EOS path runs end to end against the eAPI emulator (test_deploy_push.py), IOS-XR NETCONF
against the NETCONF emulator (test_deploy_iosxr.py); for NAPALM's drivers without a timer a
recording stand-in shows which calls the engine makes: a rollback is an explicit call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from emulator.lab import example_models
from meetme.deploy.checks import Expected, check_bgp
from meetme.deploy.engine import Engine
from meetme.deploy.inventory import Credentials, DeviceEntry, Settings
from meetme.deploy.journal import Journal, interrupted_devices
from meetme.deploy.secret_store import SecretStore
from meetme.deploy.targets import Target

SETTINGS = Settings(confirm_timer=30, check_timeout=0.3, check_interval=0.1, verify_grace=0)


class FakeDriver:
    """Records NAPALM calls; `fail` names a method that raises, `bgp_up` the peer state."""

    def __init__(self, model_peers: dict[str, int], fail: str = "", bgp_up: bool = True) -> None:
        self.calls: list[str] = []
        self.peers = model_peers
        self.fail = fail
        self.bgp_up = bgp_up
        self.hostname = ""  # the device the fake plays (run() names it)

    def _call(self, name: str) -> None:
        self.calls.append(name)
        if name == self.fail:
            raise RuntimeError(f"{name} went wrong")

    def get_facts(self) -> dict[str, Any]:  # the identity step reads the hostname
        return {"hostname": self.hostname}

    def load_replace_candidate(self, config: str) -> None:
        self._call("load_replace_candidate")

    def compare_config(self) -> str:
        self._call("compare_config")
        return "+hostname changed"

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if revert_in is not None:  # as napalm's nxos and iosxr drivers do
            raise NotImplementedError("Commit confirm has not been implemented on this platform.")
        self._call("commit_config")

    def get_bgp_neighbors(self) -> dict[str, Any]:
        self._call("get_bgp_neighbors")
        peers = {a: {"remote_as": asn, "is_up": self.bgp_up} for a, asn in self.peers.items()}
        return {"global": {"router_id": "10.0.0.1", "peers": peers}}

    def rollback(self) -> None:
        self._call("rollback")

    def has_pending_commit(self) -> bool:
        self._call("has_pending_commit")
        return False

    def confirm_commit(self) -> None:
        self._call("confirm_commit")

    def discard_config(self) -> None:
        self._call("discard_config")

    def close(self) -> None:
        self._call("close")


def run(driver_name: str, device: str, **fake: Any) -> tuple[FakeDriver, Engine, Journal]:
    model = example_models()[device]
    peers = {n.address: n.remote_as for n in model.bgp.neighbors}
    if model.evpn is not None:  # the EVPN sessions, Established like the rest
        peers |= {p.address: p.remote_as for p in model.evpn.peers}
    driver = FakeDriver(peers, **fake)
    driver.hostname = model.hostname
    credentials = Credentials(username="u", password="secret:p")
    first = DeviceEntry.model_validate(
        {"host": "127.0.0.1", "driver": driver_name, "stage": "lab", "wave": 1}
    )
    second = first.model_copy(update={"wave": 2})
    target = Target(device, first, model, Path("x.cfg"), "hostname x\n", credentials)
    later = Target("later", second, model, Path("y.cfg"), "", credentials)
    store = SecretStore({"p": "pw"})
    journal = Journal(None, store, {"run": "t", "command": "push", "stage": "lab"})

    def factory(t: Target, username: str, password: str, timeout: int) -> FakeDriver:
        assert password == "pw"  # resolved from secret:p
        return driver

    engine = Engine([target, later], SETTINGS, store, journal, factory, sleep=lambda s: None)
    engine.push()
    return driver, engine, journal


def test_nxos_commits_without_a_timer_and_checks_bgp() -> None:
    driver, engine, _ = run("nxos_ssh", "aus1-lf3")
    assert driver.calls[:3] == ["load_replace_candidate", "compare_config", "commit_config"]
    assert "confirm_commit" not in driver.calls and "rollback" not in driver.calls
    assert engine.results["aus1-lf3"].status == "committed"
    assert engine.results["later"].status == "committed"  # same fake, second wave


def test_nxos_post_check_failure_is_an_explicit_rollback() -> None:
    driver, engine, journal = run("nxos_ssh", "aus1-lf3", bgp_up=False)
    assert "rollback" in driver.calls
    assert engine.results["aus1-lf3"].status == "rolled-back"
    assert engine.results["later"].status == "skipped"
    rollback = next(r for r in journal.records if r["step"] == "rollback")
    assert rollback["detail"] == "previous configuration restored"


def test_iosxr_commit_failure_is_left_for_a_person_not_rolled_back() -> None:
    # NAPALM's XML-agent driver (`iosxr`) has no confirm timer, and its rollback restores the
    # last commit, which may not be ours (`iosxr_netconf` is meetme's adapter with one:
    # tests/test_deploy_iosxr.py)
    driver, engine, _ = run("iosxr", "aus1-br1", fail="commit_config")
    assert "rollback" not in driver.calls
    assert engine.results["aus1-br1"].status == "unknown"
    assert engine.results["later"].status == "skipped"


def test_a_failed_rollback_without_a_timer_is_unknown() -> None:
    _, engine, journal = run("nxos_ssh", "aus1-lf3", bgp_up=False, fail="rollback")
    assert engine.results["aus1-lf3"].status == "unknown"
    assert "restore the device by hand" in engine.results["aus1-lf3"].detail
    assert ("rollback", "failed") in [(r["step"], r["status"]) for r in journal.records]


class Peers:
    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = answers

    def get_bgp_neighbors(self) -> dict[str, Any]:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def test_post_check_waits_for_sessions_to_come_up() -> None:
    # spelled differently by the device and the model: still the same neighbour
    driver = Peers(
        [
            {"global": {"peers": {"2001:DB8::1": {"remote_as": 65000, "is_up": False}}}},
            {"global": {"peers": {"2001:db8:0::1": {"remote_as": 65000, "is_up": True}}}},
        ]
    )
    result = check_bgp(driver, [Expected("2001:db8::1", 65000)], 5, 0.01)
    assert result.ok and result.polls == 2


@pytest.mark.parametrize(
    ("peers", "expected"),
    [
        ({"10.0.0.1": {"remote_as": 65001, "is_up": True}}, "remote AS 65001 != 65000"),
        ({}, "10.0.0.1 missing"),
        ({"10.0.0.1": {"remote_as": 65000, "is_up": False}}, "10.0.0.1 not Established"),
    ],
)
def test_post_check_names_what_is_wrong(peers: dict[str, Any], expected: str) -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    result = check_bgp(
        Peers([{"global": {"peers": peers}}]),
        [Expected("10.0.0.1", 65000)],
        timeout=1,
        interval=0.25,
        clock=lambda: now[0],
        sleep=sleep,
    )
    assert not result.ok and expected in result.detail and result.polls == 5


def test_an_nxos_rollback_patch_is_counted_by_its_commands() -> None:
    """NX-OS diffs are the commands of `show diff rollback-patch`, with no `+`/`-`: counting
    only those markers said +0 -0 for a device about to be replaced."""
    from meetme.deploy.engine import diff_counts

    patch = (
        "Collecting Running-Config\n#Generating Rollback Patch\n!!\nno interface loopback9\n"
        "interface Ethernet1/1\n  no description old\n  description new\n"
        "username netops password 5 <<hidden>> role network-admin"
    )
    assert diff_counts(patch) == (3, 2)
    empty = "Collecting Running-Config\n#Generating Rollback Patch\nRollback Patch is Empty"
    assert diff_counts(empty) == (0, 0)
    assert diff_counts("+ hostname a\n- hostname b\n+ description c") == (2, 1)


def test_a_device_stopped_at_identity_keeps_the_journals_memory_of_an_interrupted_push(
    tmp_path: Path,
) -> None:
    model = example_models()["aus1-lf3"]
    driver = FakeDriver({})
    driver.hostname = "aus1-lf4"  # the address answers as another device
    entry = DeviceEntry.model_validate(
        {"host": "127.0.0.1", "driver": "nxos_ssh", "stage": "lab", "wave": 1}
    )
    credentials = Credentials(username="u", password="secret:p")
    target = Target("aus1-lf3", entry, model, Path("x.cfg"), "hostname x\n", credentials)
    store = SecretStore({"p": "pw"})
    path = tmp_path / "j.jsonl"
    journal_ = Journal(path, store, {"run": "t2", "command": "push", "stage": "lab"})
    earlier = "run t1 stopped after commit ok at 2026-01-01T00:00:00Z with no confirm or rollback"
    engine = Engine(
        [target],
        SETTINGS,
        store,
        journal_,
        lambda *a: driver,
        sleep=lambda s: None,
        previous={"aus1-lf3": earlier},
    )
    [result] = engine.push()
    assert result.status == "failed" and result.detail.startswith("identity: ")
    assert "answers as 'aus1-lf4', not as aus1-lf3" in result.detail
    assert driver.calls == ["close"]  # nothing loaded
    journal_.close()
    assert interrupted_devices([path], "lab") == {"aus1-lf3": earlier}  # the next run knows
