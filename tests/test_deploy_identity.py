"""The identity step: before anything is inspected or loaded, the device answering at the
inventory's address must name itself as the inventory's device (or the model's hostname).

Two devices whose addresses are swapped in the inventory would otherwise each get the
other's config, caught (if at all) only by the LLDP post-check. Every emulator answers the
hostname query with the hostname of the config it runs, as the real device does."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest
from deploy_helpers import APPLIED, is_new, statuses
from emulator.lab import Lab, journal, steps
from typer.testing import CliRunner

from meetme.cli import app

_ADDRESS = re.compile(r"(port: \d+, )(?:transport: http, )?(?:ssh_port: \d+, )?")


def swap_addresses(path: Path, first: str, second: str) -> None:
    """Swap the two devices' ports (and SSH ports) in the inventory: each name now points at
    the other's emulator, the copy-paste slip of two neighbouring inventory lines."""
    lines = path.read_text().splitlines()
    at = {
        name: next(i for i, x in enumerate(lines) if x.startswith(f"  {name}:"))
        for name in (first, second)
    }
    found = {name: _ADDRESS.search(lines[i]) for name, i in at.items()}
    assert all(found.values()), lines
    a, b = (found[n].group(0) for n in (first, second))  # type: ignore[union-attr]
    lines[at[first]] = lines[at[first]].replace(a, b, 1)
    lines[at[second]] = lines[at[second]].replace(b, a, 1)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    ("fixture", "first", "second"),
    [
        ("lab", "aus1-sp1", "aus1-sp2"),  # EOS, eAPI `show hostname`
        ("nx_lab", "aus1-lf3", "aus1-lf4"),  # NX-OS, NX-API `show hostname`
        ("xr_lab", "aus1-br1", "aus1-br2"),  # IOS-XR, NETCONF shellutil-oper host-name
        ("nv_lab", "aus1-lf1", "aus1-lf2"),  # NVUE, GET /nvue_v1/system
    ],
)
def test_swapped_addresses_stop_both_devices_before_any_load(
    fixture: str, first: str, second: str, request: pytest.FixtureRequest
) -> None:
    lab: Lab = request.getfixturevalue(fixture)
    path = lab.write_inventory(waves={first: 1, second: 1})  # one wave: both prepare
    swap_addresses(path, first, second)

    code, states = statuses()
    assert code == 1
    assert states[first] == "failed" and states[second] == "failed"
    records = journal(lab.repo / "push.jsonl")
    for name, other in ((first, second), (second, first)):
        assert steps(records, name) == [("connect", "ok"), ("identity", "failed")]
        identity = next(r for r in records if r["device"] == name and r["step"] == "identity")
        assert f"answers as '{other}', not as {name}" in identity["detail"]
        assert lab.unchanged(name) and lab.unchanged(other)  # nothing loaded or committed
    for name, emulator in lab.emulators.items():
        if hasattr(emulator, "files"):  # NX-OS: not even a candidate copied over SCP
            assert not [f for f in emulator.files if f.startswith("meetme-")], name
        if name not in (first, second):  # a later wave never starts
            assert states[name] == "skipped" and lab.untouched(name)


def test_a_correct_inventory_still_pushes_after_the_swap_is_fixed(lab: Lab) -> None:
    path = lab.write_inventory()
    correct = path.read_text()
    swap_addresses(path, "aus1-sp1", "aus1-sp2")
    assert statuses()[0] == 1
    # Stopped before any load, the push opened no config session and aborts none, neither
    # on closing nor later, when the collector reaches the closed driver (napalm's __del__
    # closes it again: that stray abort once stalled the next push's commit on this lab).
    gc.collect()
    for name in ("aus1-sp1", "aus1-sp2"):
        sent = lab.emulators[name].commands
        assert not [c for c in sent if c.startswith("configure session")], (name, sent)
    path.write_text(correct)
    code, states = statuses()
    assert code == 0, states
    assert set(states.values()) == {"committed"}
    records = journal(lab.repo / "push.jsonl")
    last = [r for r in records if r["run"] == records[-1]["run"]]
    for name in ("aus1-sp1", "aus1-sp2", "aus1-sp3"):
        assert steps(last, name) == APPLIED
        identity = next(r for r in last if r["device"] == name and r["step"] == "identity")
        assert identity["detail"] == f"the device answers as {name}"


def test_a_device_renamed_by_hand_is_stopped_at_identity(lab: Lab) -> None:
    emulator = lab.emulators["aus1-sp3"]
    with emulator.lock:  # someone renamed the box by hand: it no longer says who it is
        emulator.running.children[0].line = "hostname spare-box"
    code, states = statuses()
    assert code == 1
    assert states["aus1-sp3"] == "failed"
    records = journal(lab.repo / "push.jsonl")
    identity = next(r for r in records if r["device"] == "aus1-sp3" and r["step"] == "identity")
    assert "answers as 'spare-box', not as aus1-sp3" in identity["detail"]
    assert steps(records, "aus1-sp3") == [("connect", "ok"), ("identity", "failed")]


def _answers_as(path: Path, device: str, name: str) -> None:
    """Give `device`'s inventory entry `answers_as: name`."""
    text = path.read_text()
    entry = f"  {device}: {{"
    assert entry in text
    path.write_text(text.replace(entry, f"{entry}answers_as: {name}, ", 1))


def test_a_new_box_answering_as_its_answers_as_is_pushed_and_renamed(lab: Lab) -> None:
    """First provisioning: the box still answers with its factory name; the inventory says
    so for that device alone, the push goes on and the box is renamed by it."""
    emulator = lab.emulators["aus1-sp3"]
    with emulator.lock:
        emulator.running.children[0].line = "hostname localhost"
    _answers_as(lab.write_inventory(), "aus1-sp3", "localhost")

    code, states = statuses()
    assert code == 0, states
    assert set(states.values()) == {"committed"}
    assert is_new(lab, "aus1-sp3")  # renamed aus1-sp3 by the push
    records = journal(lab.repo / "push.jsonl")
    identity = next(r for r in records if r["device"] == "aus1-sp3" and r["step"] == "identity")
    assert identity["detail"] == (
        "the device answers as localhost, the inventory's answers_as (a freshly provisioned "
        "box): this push renames it aus1-sp3"
    )
    assert identity["answers_as"] == "localhost"

    # answers_as left in place: the renamed box now answers with its own name
    code, states = statuses()
    assert code == 0 and states["aus1-sp3"] == "unchanged", states
    last = journal(lab.repo / "push.jsonl")[-20:]
    assert any(
        r["device"] == "aus1-sp3" and r.get("detail") == "the device answers as aus1-sp3"
        for r in last
    )


def test_answers_as_is_one_name_for_one_device(lab: Lab) -> None:
    """A box answering with another name than the one given is still stopped, and another
    device's answers_as does not cover it."""
    emulator = lab.emulators["aus1-sp3"]
    with emulator.lock:
        emulator.running.children[0].line = "hostname spare-box"
    path = lab.write_inventory()
    _answers_as(path, "aus1-sp3", "localhost")
    _answers_as(path, "aus1-sp2", "spare-box")

    code, states = statuses()
    assert code == 1 and states["aus1-sp3"] == "failed", states
    records = journal(lab.repo / "push.jsonl")
    identity = next(r for r in records if r["device"] == "aus1-sp3" and r["step"] == "identity")
    assert (
        "answers as 'spare-box', not as aus1-sp3 or localhost (answers_as)" in (identity["detail"])
    )
    assert steps(records, "aus1-sp3") == [("connect", "ok"), ("identity", "failed")]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "aus1-sp2",
            "aus1-sp3 answers_as aus1-sp2, another device of this inventory: a device "
            "answering as aus1-sp2 at aus1-sp3's address is aus1-sp2 (swapped addresses), "
            "never a new box; give the name the new box answers with",
        ),
        (  # its FQDN, as a device with a domain name answers
            "AUS1-SP2.lab.example.",
            "aus1-sp3 answers_as aus1-sp2, another device of this inventory: a device "
            "answering as aus1-sp2 at aus1-sp3's address is aus1-sp2 (swapped addresses), "
            "never a new box; give the name the new box answers with",
        ),
        ("'switch 1'", "answers_as 'switch 1' is not a host name (letters, digits, '-' and '.')"),
    ],
)
def test_an_answers_as_that_could_hide_a_swap_is_refused(
    lab: Lab, value: str, message: str
) -> None:
    path = lab.write_inventory()
    _answers_as(path, "aus1-sp3", value)
    line = next(i for i, x in enumerate(path.read_text().splitlines(), 1) if "aus1-sp3:" in x)
    result = CliRunner().invoke(app, ["plan", "--stage", "lab"])
    assert result.exit_code == 2, result.output
    assert f"inventory.yaml:{line}:" in result.output
    assert message in result.output
    assert all(lab.untouched(name) for name in lab.emulators)
