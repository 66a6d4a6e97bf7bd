"""HW-001/HW-002/HW-003: every rendered interface is a front-panel port of the device's
hardware, and the hardware runs the device's platform."""

from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLE_INTENT, findings_of, line_of, lint_repo, move_device, replace_in
from meetme.validators.rules.hardware import NAMING, hardware

from meetme.core.problems import IntentError


def test_example_has_no_hardware_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("HW-")] == []


def test_catalogue_covers_the_example_and_adds_up() -> None:
    models = hardware()["models"]
    devices = yaml.safe_load((EXAMPLE_INTENT / "aus1/devices.yaml").read_text())
    used = {d["model"] for d in devices["sites"]["aus1"]["devices"].values()}
    assert used <= set(models)
    for name, spec in models.items():
        assert spec["platform"] in NAMING, name
        assert spec["source"], name
        assert spec["ports"] == sum(g["last"] - g["first"] + 1 for g in spec["groups"]), name


def test_link_rule_first_past_the_last_port(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    # spines take 4 ports for the 2 borders: first 62 gives 62..65 on a 64-port 7060X6
    replace_in(
        links,
        'a: {role: spine, interface: "Ethernet{n}/1", first: 1,',
        'a: {role: spine, interface: "Ethernet{n}/1", first: 62,',
    )
    result = lint_repo(example)
    line = line_of(links, "first: 62")
    assert findings_of(result, "HW-001") == [
        f"intent/aus1/links.yaml:{line}: link rule spine-to-border gives Ethernet65/1 on "
        "aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4, but a 7060X6-64PE has ports 1-64 (OSFP 800G)"
    ]
    assert result.errors


def test_attachment_port_past_the_last_port(example: Path) -> None:
    attachments = example / "intent/aus1/attachments.yaml"
    replace_in(attachments, "[swp1, swp2, swp3, swp4]", "[swp1, swp2, swp3, swp65]")
    result = lint_repo(example)
    line = line_of(attachments, "swp65")
    assert findings_of(result, "HW-001") == [
        f"intent/aus1/attachments.yaml:{line}: attachment dh1-r10-gpu-hosts port gives swp65 "
        "on aus1-lf1, aus1-lf2, but a SN5600 has ports 1-64 (OSFP 800G)"
    ]


def test_misspelt_interface_on_eos_is_refused_at_load(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    # the first of the two leaf-to-spine rules: spine ends of the Cumulus leaves
    replace_in(
        links,
        'b: {role: spine, interface: "Ethernet{n}/1", first: 9,',
        'b: {role: spine, interface: "Eth{n}", first: 9,',
    )
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    line = line_of(links, '"Eth{n}"')
    assert [str(p) for p in caught.value.problems] == [
        f"intent/aus1/links.yaml:{line}:37: error[bad-interface]: link rule side b, with n=9: "
        "'Eth9' is not an interface name on arista_eos; write Ethernet<port>[/<lane>] "
        "(modular: Ethernet<slot>/<port>/<lane>) or Port-Channel<N>"
    ]


def test_lane_past_the_cage_on_eos(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        'b: {role: spine, interface: "Ethernet{n}/1", first: 9,',
        'b: {role: spine, interface: "Ethernet{n}/9", first: 9,',
    )
    result = lint_repo(example)
    line = line_of(links, '"Ethernet{n}/9"')
    assert findings_of(result, "HW-001") == [
        f"intent/aus1/links.yaml:{line}: link rule leaf-to-spine-cumulus gives Ethernet{port}/9 "
        "on aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4, but port "
        f"{port} of a 7060X6-64PE (OSFP 800G) has lanes 1-8"
        for port in (10, 13, 14, 9)
    ]


def test_eos_port_without_its_lane(example: Path) -> None:
    circuits = example / "intent/aus1/circuits.yaml"
    replace_in(
        circuits,
        "device: aus1-bl1, interface: Ethernet9/1,",
        "device: aus1-bl1, interface: Ethernet9,",
    )
    result = lint_repo(example)
    line = line_of(circuits, "interface: Ethernet9,")
    assert findings_of(result, "HW-001") == [
        f"intent/aus1/circuits.yaml:{line}: cross-connect XC-AWS-1 gives Ethernet9 on aus1-bl1, "
        "but port 9 of a 7280CR3-32P4 (QSFP100) is written with one of its lanes 1-4"
    ]


def test_unknown_model_is_a_warning_and_skips_the_ports(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(devices, "model: SN4700", "model: SN4800")  # aus1-bl5
    circuits = example / "intent/aus1/circuits.yaml"
    replace_in(
        circuits, "device: aus1-bl5, interface: swp9,", "device: aus1-bl5, interface: swp99,"
    )
    result = lint_repo(example)
    line = line_of(devices, "model: SN4800")
    assert findings_of(result, "HW-002") == [
        f"intent/aus1/devices.yaml:{line}: aus1-bl5: hardware model SN4800 is not in "
        "validators/data/hardware.yaml, so its port numbers are unchecked; add the model with "
        "its front-panel ports and datasheet"
    ]
    assert {f.severity for f in result.findings if f.rule == "HW-002"} == {"warning"}
    assert findings_of(result, "HW-001") == []


def test_a_model_of_another_platform_is_an_error_at_the_model(example: Path) -> None:
    """A leaf moved to EOS keeps its NX-OS hardware: HW-003, an error (was a HW-002 warning,
    which let such a device render with exit 0)."""
    devices = example / "intent/aus1/devices.yaml"
    text = devices.read_text()
    block = text.index("  aus1-lf3:")
    devices.write_text(
        text[:block] + text[block:].replace("platform: cisco_nxos", "platform: arista_eos", 1)
    )
    result = lint_repo(example)
    line = line_of(devices, "model: N9K-C9364D-GX2A")  # lf3's, the first of the two
    assert findings_of(result, "HW-003") == [
        f"intent/aus1/devices.yaml:{line}: aus1-lf3: the N9K-C9364D-GX2A runs cisco_nxos "
        "(validators/data/hardware.yaml), not arista_eos; give the device a model that runs "
        "arista_eos, or the platform its model runs"
    ]
    assert {f.severity for f in result.findings if f.rule == "HW-003"} == {"error"}
    assert findings_of(result, "HW-002") == []


def test_a_model_of_the_devices_platform_is_no_hw_003(example: Path) -> None:
    """The boundary: the same move with an EOS model raises none."""
    devices = example / "intent/aus1/devices.yaml"
    text = devices.read_text()
    block = text.index("  aus1-lf3:")
    moved = text[block:].replace("platform: cisco_nxos", "platform: arista_eos", 1)
    moved = moved.replace("model: N9K-C9364D-GX2A", "model: 7060X6-64PE", 1)
    devices.write_text(text[:block] + moved)
    assert findings_of(lint_repo(example), "HW-003") == []


def test_a_lane_past_the_cage_blames_only_its_own_name(example: Path) -> None:
    """aus1-bl3 moved to EOS with its Azure cross-connect left at NX-OS's Ethernet1/9: EOS
    reads lane 9 of cage 1, which a 4-lane QSFP100 has not (HW-001). That name no longer makes
    cage 1 a breakout, so the shared, correct border link rule on port 1 is not blamed (HW-004
    told the user to change it, which would break the other EOS border leaves)."""
    move_device(example, "aus1", "aus1-bl3", "arista_eos", "7280CR3-32P4")
    circuits = example / "intent/aus1/circuits.yaml"
    result = lint_repo(example)
    assert findings_of(result, "HW-001") == [
        f"intent/aus1/circuits.yaml:{line_of(circuits, 'XC-AZ-1')}: cross-connect XC-AZ-1 gives "
        "Ethernet1/9 on aus1-bl3, but port 1 of a 7280CR3-32P4 (QSFP100) has lanes 1-4"
    ]
    assert findings_of(result, "HW-004") == []
