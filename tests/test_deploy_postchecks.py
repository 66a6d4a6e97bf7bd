"""The post-checks from the device model on every platform: ports up at the rendered speed,
EVPN sessions Established and the remote VTEPs present. Each fault, injected in one
emulator, must roll that device back to its old config, stop the later waves, exit 1 and
journal the failed check with what the device said of each item.

The mixed lab: wave 1 aus1-sp2 (EOS), wave 2 aus1-lf1 (NVUE) and aus1-lf3 (NX-OS), wave 3
aus1-br1 (IOS-XR)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import _serve
from deploy_helpers import APPLIED, is_new, statuses
from emulator.lab import (
    SECRET_ENV,
    USER_HASHES,
    Lab,
    add_device,
    fabric_vteps,
    journal,
    new_lab,
    secret_env,
    steps,
)

WAVE = {"aus1-sp2": 1, "aus1-lf1": 2, "aus1-lf3": 2, "aus1-br1": 3}
PARTNER = {"aus1-lf1": "aus1-lf3", "aus1-lf3": "aus1-lf1"}  # the other device of wave 2


def _record(lab: Lab, device: str, step: str) -> dict[str, Any]:
    return next(
        r for r in journal(lab.repo / "push.jsonl") if r["device"] == device and r["step"] == step
    )


def _stopped_at(lab: Lab, device: str, check: str) -> None:
    """The device ran its checks up to `check`, which failed, and was rolled back to exactly
    its old config (the NX-OS 10.x leaf: by the switch's own commit-timeout, meetme not
    confirming); every later wave was skipped without a request."""
    code, states = statuses()
    assert code == 1
    by_timer = device == "aus1-lf3"
    assert states[device] == ("reverted" if by_timer else "rolled-back")
    for name, wave in WAVE.items():
        if wave < WAVE[device]:
            assert states[name] == "committed" and is_new(lab, name)
        elif wave > WAVE[device]:
            assert states[name] == "skipped" and lab.untouched(name)
    if device in PARTNER:  # started beside it: goes ahead on its own
        assert states[PARTNER[device]] == "committed"
    assert lab.unchanged(device)
    done = APPLIED[: APPLIED.index((check, "ok"))]
    back = [("await-timer", "waiting"), ("verify", "ok")] if by_timer else [("rollback", "ok")]
    assert steps(journal(lab.repo / "push.jsonl"), device) == [*done, (check, "failed"), *back]


# ---- ports at the rendered speed -----------------------------------------------------------


@pytest.mark.parametrize("device", list(WAVE))
def test_a_port_at_the_wrong_speed_rolls_back_and_stops_the_waves(
    mixed_lab: Lab, device: str
) -> None:
    port = next(i.name for i in mixed_lab.models[device].interfaces if i.speed_gbps == 400)
    mixed_lab.emulators[device].faults.wrong_speed = {port: 100_000}  # a 100G optic in the cage

    _stopped_at(mixed_lab, device, "post-check-ports")
    record = _record(mixed_lab, device, "post-check-ports")
    count = sum(1 for i in mixed_lab.models[device].interfaces if i.speed_gbps)
    assert record["detail"] == (
        f"{count - 1}/{count} ports up at the rendered speed after 1 s: "
        f"{port} at 100000 Mbit/s, rendered 400000 Mbit/s"
    )
    assert f"{port}: up at 100000 Mbit/s" in record["evidence"]
    assert len(record["evidence"]) == count  # every port, with what the device said of it


def test_every_port_is_read_at_its_speed_when_all_is_well(mixed_lab: Lab) -> None:
    code, states = statuses()
    assert code == 0 and set(states.values()) == {"committed"}
    for device in WAVE:
        record = _record(mixed_lab, device, "post-check-ports")
        ports = [(i.name, i.speed_gbps) for i in mixed_lab.models[device].interfaces]
        assert record["evidence"] == [f"{p}: up at {g * 1000} Mbit/s" for p, g in ports if g]
    assert "HundredGigE0/0/0/8: up at 100000 Mbit/s" in record["evidence"]  # br1's 100G port


# ---- EVPN sessions and remote VTEPs ----------------------------------------------------------


@pytest.mark.parametrize("device", ["aus1-lf1", "aus1-lf3"])
def test_a_missing_remote_vtep_rolls_back_and_stops_the_waves(mixed_lab: Lab, device: str) -> None:
    heard = sorted(fabric_vteps(mixed_lab.models, device))
    assert len(heard) == 4  # the site's other leaves with an L2VNI in common
    mixed_lab.emulators[device].faults.missing_vtep = {heard[0]}

    _stopped_at(mixed_lab, device, "post-check-evpn")
    record = _record(mixed_lab, device, "post-check-evpn")
    assert record["detail"].endswith(f"after 1 s: remote VTEP {heard[0]} absent")
    assert f"remote VTEP {heard[0]}: absent" in record["evidence"]
    assert [f"remote VTEP {a}: present" for a in heard[1:]] == record["evidence"][-3:]


def test_an_evpn_session_down_rolls_back_the_spine(mixed_lab: Lab) -> None:
    # the spine is no VTEP: its EVPN sessions to the leaves' loopbacks are what it must have
    peer = mixed_lab.models["aus1-sp2"].evpn.peers[0]  # type: ignore[union-attr]
    mixed_lab.emulators["aus1-sp2"].faults.bgp_down = {peer.address}

    _stopped_at(mixed_lab, "aus1-sp2", "post-check-evpn")
    record = _record(mixed_lab, "aus1-sp2", "post-check-evpn")
    assert record["detail"].endswith(f"EVPN session {peer.address} not Established")
    assert f"EVPN session {peer.address}: not Established" in record["evidence"]


def test_a_border_without_evpn_passes_the_overlay_check_on_nothing(mixed_lab: Lab) -> None:
    assert statuses()[0] == 0
    record = _record(mixed_lab, "aus1-br1", "post-check-evpn")
    assert record["detail"] == "no EVPN sessions or remote VTEPs in the device model"


# ---- an EOS VTEP: `show vxlan vtep` ----------------------------------------------------------

OTHER_VTEP = "10.0.1.250"  # a leaf of the lab's fabric sharing an L2VNI with aus1-bl1


@pytest.fixture
def eos_vtep_lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Lab]:
    """aus1-bl1 (wave 1) and aus1-bl2 (wave 2), EOS VTEPs behind eAPI emulators. The example
    gives its EOS VTEPs (the border leaves) no L2VNI in common with another leaf, so no remote
    VTEP is expected of them; here the fabric (the emulator) and the plan (the targets) both
    have one more VTEP that shares an L2VNI with bl1, so the EOS read is exercised."""
    lab = new_lab(
        tmp_path,
        waves={"aus1-bl1": 1, "aus1-bl2": 2},
        secrets={"aws-dx-aus1": "aws-Dx-key-88#q", **USER_HASHES},
    )
    for name in ("aus1-bl1", "aus1-bl2"):
        add_device(lab, name, "eos")
    lab.emulators["aus1-bl1"].vteps = {OTHER_VTEP}
    lab.write_inventory(settings={"check_neighbors": "underlay"})  # no cloud in the lab
    monkeypatch.setattr(
        "meetme.deploy.targets.expected_remote_vteps",
        lambda model, site: (OTHER_VTEP,) if model.hostname == "aus1-bl1" else (),
    )
    env = {**SECRET_ENV, **secret_env({"aws-dx-aus1": "aws-Dx-key-88#q"})}
    yield from _serve(lab, env, monkeypatch)


def test_an_eos_vtep_reads_show_vxlan_vtep(eos_vtep_lab: Lab) -> None:
    code, states = statuses()
    assert code == 0 and states == {"aus1-bl1": "committed", "aus1-bl2": "committed"}
    record = _record(eos_vtep_lab, "aus1-bl1", "post-check-evpn")
    assert f"remote VTEP {OTHER_VTEP}: present" in record["evidence"]
    assert "show vxlan vtep" in eos_vtep_lab.emulators["aus1-bl1"].commands


def test_an_eos_vtep_missing_its_remote_vtep_rolls_back(eos_vtep_lab: Lab) -> None:
    eos_vtep_lab.emulators["aus1-bl1"].faults.missing_vtep = {OTHER_VTEP}
    code, states = statuses()
    assert code == 1 and states == {"aus1-bl1": "rolled-back", "aus1-bl2": "skipped"}
    assert eos_vtep_lab.unchanged("aus1-bl1") and eos_vtep_lab.untouched("aus1-bl2")
    assert steps(journal(eos_vtep_lab.repo / "push.jsonl"), "aus1-bl1")[-2:] == [
        ("post-check-evpn", "failed"),
        ("rollback", "ok"),
    ]
    record = _record(eos_vtep_lab, "aus1-bl1", "post-check-evpn")
    assert f"remote VTEP {OTHER_VTEP}: absent" in record["evidence"]
