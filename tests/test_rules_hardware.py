"""HW-001/HW-002/HW-003: every rendered interface is a front-panel port of the device's
hardware, and the hardware runs the device's platform; HW-004 on attachment ports: a host port
is a port its cage's plan makes (the rest of HW-004 and HW-005: tests/test_ports.py)."""

from pathlib import Path

import pytest
import yaml
from conftest import EXAMPLE_INTENT, findings_of, line_of, lint_repo, move_device, replace_in
from meetme.validators.rules.hardware import NAMING, hardware
from variants import EOS_MLAG, STORAGE_ON_EOS, TENANTS, add

from meetme.core.problems import IntentError
from meetme.pipeline import LintResult, device_models, render_all


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


# --- HW-004 on attachment ports: a host port asks no speed, so it breaks no cage out ---------

MEL1_ATTACHMENTS = "intent/mel1/attachments.yaml"
MEL1_HOSTS = "ports: [Ethernet1/1, Ethernet1/2, Ethernet1/3, Ethernet1/4]"  # lf101/lf102's first
# port 40 of the vPC pair mel1-lf101/lf102 broken out 4x100G by a link on its sub-port 1
MEL1_BREAKOUT_LINK = (
    "      - {a: {device: mel1-lf101, interface: Ethernet1/40/1, breakout: 4x100G}, "
    "b: {device: mel1-lf102, interface: Ethernet1/40/1, breakout: 4x100G}, index: 40, "
    "speed: 100G}\n"
)
AUS1_ATTACHMENTS = "intent/aus1/attachments.yaml"
# port 33 (OSFP 400G, 8 lanes) of the EOS border leaves aus1-bl1/bl2, by a link on lane 1
BL_LINK = (
    "      - {a: {device: aus1-bl1, interface: Ethernet33/1%s}, b: {device: aus1-bl2, "
    "interface: Ethernet33/1%s}, index: 40, speed: %s}\n"
)


def hw004(result: LintResult) -> list[str]:
    """'file:line:column: message' of every HW-004 finding, in location order."""
    found = [f for f in result.findings if f.rule == "HW-004"]
    return [f"{f.location}: {f.message}" for f in sorted(found, key=lambda f: str(f.location))]


def at(path: Path, needle: str, port: str) -> str:
    """file:line:column of `port` on the line holding `needle` (a flow list's item)."""
    line = line_of(path, needle)
    column = path.read_text().splitlines()[line - 1].index(port) + 1
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}:{line}:{column}"


def mel1_hosts_on(repo: Path, *ports: str) -> Path:
    """The first NX-OS vPC attachment of mel1 (mel1-lf101 and mel1-lf102) cabled to `ports`."""
    attachments = repo / MEL1_ATTACHMENTS
    replace_in(attachments, MEL1_HOSTS, f"ports: [{', '.join(ports)}]")
    return attachments


def eos_mlag_on(repo: Path, *ports: str) -> Path:
    """The EOS border leaves aus1-bl1/bl2 as an MLAG pair (tests/variants.py) with `ports`."""
    body = EOS_MLAG.replace("ports: [Ethernet20/1, Ethernet21/1]", f"ports: [{', '.join(ports)}]")
    replace_in(repo / TENANTS, *STORAGE_ON_EOS)
    return add(repo, "mdf-eos-mlag", body)


def test_hw004_host_on_sub_ports_of_an_unbroken_nxos_cage(example: Path) -> None:
    """The user's case: NX-OS Ethernet1/5/1 renders as an interface of a breakout nothing
    asks (no `interface breakout ... port 5`): it does not exist on the switch."""
    attachments = mel1_hosts_on(
        example, "Ethernet1/1", "Ethernet1/2", "Ethernet1/5/1", "Ethernet1/5/2"
    )
    result = lint_repo(example)
    assert hw004(result) == [
        f"{at(attachments, 'Ethernet1/5/1', port)}: {leaf} (cisco_nxos) {port}, attachment "
        f"mel1-dh1-r10-gpu-hosts host port, is breakout sub-port {sub} of port 5 "
        "(N9K-C9364D-GX2A QSFP-DD 400G), which nothing breaks out (meetme breaks a cage out "
        f"only for its links and circuits): Ethernet1/5 runs whole and {port} does not exist; "
        "cable the host to a whole port, or to a free sub-port of a cage a link breaks out"
        for port, sub in (("Ethernet1/5/1", 1), ("Ethernet1/5/2", 2))
        for leaf in ("mel1-lf101", "mel1-lf102")
    ]
    assert result.errors


def test_hw004_host_on_a_free_sub_port_of_a_cage_the_links_break_out_nxos(
    example: Path,
) -> None:
    """The boundary: the link breaks port 40 out 4x100G, so Ethernet1/40/2 exists and the
    host's port-channel takes it; the same sub-port of port 41, which nothing breaks out, does
    not."""
    links = example / "intent/mel1/links.yaml"
    links.write_text(links.read_text() + MEL1_BREAKOUT_LINK)
    attachments = mel1_hosts_on(
        example, "Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/40/2"
    )
    result = lint_repo(example)
    assert result.errors == []
    model = device_models(result)["mel1-lf101"]
    assert [(b.port, b.mode, b.sub_ports[1]) for b in model.breakouts] == [
        (40, "4x100G", "Ethernet1/40/2")
    ]
    assert any("Ethernet1/40/2" in lag.members for lag in model.lags)

    replace_in(attachments, "Ethernet1/3, Ethernet1/40/2", "Ethernet1/41/2, Ethernet1/40/2")
    hits = hw004(lint_repo(example))
    assert [h.split(": ", 1)[0] for h in hits] == [at(attachments, "41/2", "Ethernet1/41/2")] * 2
    assert "mel1-lf101 (cisco_nxos) Ethernet1/41/2, attachment mel1-dh1-r10-gpu-hosts " in hits[0]
    assert "is breakout sub-port 2 of port 41 (N9K-C9364D-GX2A QSFP-DD 400G), which " in hits[0]


def test_hw004_host_on_the_whole_of_a_cage_the_links_break_out_nxos(example: Path) -> None:
    """Ethernet1/40 names no interface once port 40 runs 4x100G; PHY-013 reports the link's
    sub-port at the link, this is the finding at the host's port."""
    links = example / "intent/mel1/links.yaml"
    links.write_text(links.read_text() + MEL1_BREAKOUT_LINK)
    attachments = mel1_hosts_on(
        example, "Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/40"
    )
    result = lint_repo(example)
    assert hw004(result) == [
        f"{at(attachments, 'Ethernet1/40', 'Ethernet1/40')}: {leaf} (cisco_nxos) Ethernet1/40, "
        "attachment mel1-dh1-r10-gpu-hosts host port, names the whole cage, which the links on "
        "it break out 4x100G (port 40, N9K-C9364D-GX2A QSFP-DD 400G); its sub-ports are "
        "Ethernet1/40/1, Ethernet1/40/2, Ethernet1/40/3, Ethernet1/40/4: cable the host to one "
        "no link uses, or to another port"
        for leaf in ("mel1-lf101", "mel1-lf102")
    ]


def test_hw004_eos_host_on_a_whole_cage_and_one_of_its_lanes(example: Path) -> None:
    """`ports: [Ethernet20/1, Ethernet20/3]` on an unbroken QSFP100 cage: Ethernet20/1 runs the
    cage whole (it passes: a plain port), and lane 3 stays inactive."""
    attachments = eos_mlag_on(example, "Ethernet20/1", "Ethernet20/3")
    result = lint_repo(example)
    assert hw004(result) == [
        f"{at(attachments, 'Ethernet20/3', 'Ethernet20/3')}: {leaf} (arista_eos) Ethernet20/3, "
        "attachment mdf-eos-mlag host port, is lane 3 of port 20 (7280CR3-32P4 QSFP100), which "
        "nothing breaks out (meetme breaks a cage out only for its links and circuits): "
        "Ethernet20/1 runs the whole cage and Ethernet20/3 stays inactive; cable the host to a "
        "whole port, or to a free sub-port of a cage a link breaks out"
        for leaf in ("aus1-bl1", "aus1-bl2")
    ]
    assert findings_of(result, "PHY-013") == []  # EOS lanes: not PHY-013's


def test_hw004_eos_host_on_a_lane_of_a_cage_a_link_runs_whole(example: Path) -> None:
    """A 400G link runs port 33 whole on lane 1, so the host's Ethernet33/5 stays inactive."""
    links = example / "intent/aus1/links.yaml"
    links.write_text(links.read_text() + BL_LINK % ("", "", "400G"))
    attachments = eos_mlag_on(example, "Ethernet20/1", "Ethernet33/5")
    result = lint_repo(example)
    hits = hw004(result)
    assert [h.split(": ", 1)[0] for h in hits] == [
        at(attachments, "Ethernet33/5", "Ethernet33/5")
    ] * 2
    assert (
        "aus1-bl1 (arista_eos) Ethernet33/5, attachment mdf-eos-mlag host port, is lane 5 "
        in hits[0]
    )
    assert "Ethernet33/1 runs the whole cage and Ethernet33/5 stays inactive" in hits[0]


def test_hw004_eos_host_on_lanes_of_a_cage_the_links_break_out(example: Path) -> None:
    """The boundary on EOS: the link breaks port 33 out 2x200G (sub-ports Ethernet33/1, /5), so
    lane 5 leads a sub-port (meetme tells it its speed) and lane 3 leads none."""
    links = example / "intent/aus1/links.yaml"
    links.write_text(
        links.read_text() + BL_LINK % (", breakout: 2x200G", ", breakout: 2x200G", "200G")
    )
    attachments = eos_mlag_on(example, "Ethernet33/5", "Ethernet33/3")
    result = lint_repo(example)
    assert hw004(result) == [
        f"{at(attachments, 'Ethernet33/3', 'Ethernet33/3')}: {leaf} (arista_eos) Ethernet33/3, "
        "attachment mdf-eos-mlag host port, is no sub-port of breakout 2x200G, which the links "
        "on its cage run (port 33, 7280CR3-32P4 OSFP 400G); its sub-ports are Ethernet33/1, "
        "Ethernet33/5: cable the host to one no link uses, or to another port"
        for leaf in ("aus1-bl1", "aus1-bl2")
    ]
    model = device_models(result)["aus1-bl1"]
    # the host's lane is no idle sub-port: the host's member port is told the speed, once
    assert [(b.port, b.mode, b.idle_sub_ports) for b in model.breakouts] == [(33, "2x200G", ())]
    (config,) = render_all({"aus1-bl1": model}).values()
    assert config.count("interface Ethernet33/5\n") == 1
    assert (
        "interface Ethernet33/5\n"
        "   description mdf-eos-mlag host 1 mlag\n"
        "   no shutdown\n"
        "   speed 200g-4\n"  # docs/syntax.md#eos-ports
        "   channel-group 10 mode active\n!\n"
    ) in config
