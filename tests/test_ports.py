"""Ports as the hardware has them: a port slower than its cage is told its speed, a cage split
into sub-ports is told its breakout, on every platform (docs/syntax.md, "Port speed and
breakout"); what a cage or platform cannot run is HW-004 / HW-005 at the intent line.

Expected lines are written by hand from the vendor forms; each test edits the example intent
the way a user would (a sub-port name, a `breakout:` on a link-rule side) and reads the
rendered text back.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from conftest import findings_of, line_of, lint_repo, replace_in
from variants import add

from meetme.pipeline import device_models, render_all

NVUE_RULE = 'a: {role: leaf, platform: nvidia_nvue, interface: "swp{n}", first: 61,'
NXOS_RULE = 'a: {role: leaf, platform: cisco_nxos, interface: "Ethernet1/{n}", first: 61,'
SPINE_TO_BORDER = 'a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 1}'
EOS_BL_TO_BORDER = (
    'b: {role: border, interface: "HundredGigE0/0/0/{n}", first: 8, peer_id_base: 21}'
)


def _rendered(repo: Path) -> dict[str, str]:
    result = lint_repo(repo)
    assert not result.errors, [f"{f.rule} {f.message}" for f in result.findings]
    files = render_all(device_models(result))
    return {path.split("/")[-1].split(".")[0]: text for path, text in files.items()}


def _block(text: str, header: str) -> list[str]:
    """The lines of the config block opened by `header`, up to the next `!` or blank line."""
    lines = text.splitlines()
    start = lines.index(header)
    block = []
    for line in lines[start + 1 :]:
        if not line.strip() or line.strip() == "!" or not line.startswith(" "):
            break
        block.append(line.strip())
    return block


def _nvue(text: str) -> dict[str, dict[str, object]]:
    interfaces: dict[str, dict[str, object]] = yaml.safe_load(text)[0]["set"]["interface"]
    return interfaces


# --- forced speeds on the example as shipped ------------------------------------------------


def test_400g_link_in_an_800g_osfp_cage_is_told_its_speed(example: Path) -> None:
    files = _rendered(example)
    # EOS 7060X6 spine (OSFP 800G, 8 lanes): 400G over 4 lanes
    assert _block(files["aus1-sp1"], "interface Ethernet1/1") == [
        "description p2p to aus1-br1 FourHundredGigE0/0/0/0",
        "no shutdown",
        "mtu 9214",
        "speed 400g-4",
        "no switchport",
        "ip address 10.1.11.0/31",
        "ipv6 address 2001:db8:0:1000::b00/127",
    ]
    # NVUE SN5600 leaf (OSFP 800G): link speed
    assert _nvue(files["aus1-lf1"])["swp61"]["link"] == {"mtu": 9214, "speed": "400G"}


def test_ports_at_their_cages_speed_are_told_nothing(example: Path) -> None:
    files = _rendered(example)
    # NX-OS 9364D-GX2A leaf at 400G in a 400G QSFP-DD cage; EOS 7280CR3 border leaf at 100G in
    # a QSFP100 cage; IOS-XR never: the optic sets the speed (HundredGigE0/0/0/8 at 100G)
    assert not [line for line in files["aus1-lf3"].splitlines() if "speed" in line]
    assert "   speed" not in files["aus1-bl1"]
    assert " speed" not in files["aus1-br1"].replace("speed-", "")
    assert "breakout" not in files["aus1-br1"] + files["aus1-lf3"]


# --- breakouts -------------------------------------------------------------------------------


def test_nxos_sub_ports_break_their_cage_out_and_the_eos_spine_forces_100g(
    example: Path,
) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        NXOS_RULE,
        'a: {role: leaf, platform: cisco_nxos, interface: "Ethernet1/{n}/1", first: 61,',
    )
    text = links.read_text()
    nxos_rule = text.index("name: leaf-to-spine-nxos")
    speed_at = text.index("speed: 400G", nxos_rule)
    links.write_text(text[:speed_at] + "speed: 100G" + text[speed_at + len("speed: 400G") :])
    files = _rendered(example)
    lines = files["aus1-lf3"].splitlines()
    # four uplinks on cages 61-64, each 4x100G, the first sub-port used
    assert [line for line in lines if line.startswith("interface breakout")] == [
        f"interface breakout module 1 port {port} map 100g-4x" for port in (61, 62, 63, 64)
    ]
    assert "interface Ethernet1/61/1" in lines
    assert "speed" not in "\n".join(_block(files["aus1-lf3"], "interface Ethernet1/61/1"))
    # the EOS spine's end of the same link: 100G over one of the OSFP's 8 lanes
    assert "speed 100g-1" in _block(files["aus1-sp1"], "interface Ethernet11/1")


def test_nvue_sub_port_breaks_its_cage_out(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        NVUE_RULE,
        'a: {role: leaf, platform: nvidia_nvue, interface: "swp{n}s0", first: 61,',
    )
    interfaces = _nvue(_rendered(example)["aus1-lf1"])
    # 400G sub-ports of an 800G cage: 2x, the parent listed with its breakout
    assert interfaces["swp61"] == {
        "type": "swp",
        "description": "breakout 2x400G",
        "link": {"breakout": {"2x": {}}},
    }
    assert interfaces["swp61s0"]["link"] == {"mtu": 9214, "speed": "400G"}
    assert "swp61s1" not in interfaces  # unused sub-ports are NVUE's defaults


def test_eos_breakout_written_on_a_rule_side_tells_every_lead_lane(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        SPINE_TO_BORDER,
        SPINE_TO_BORDER.removesuffix("}") + ", breakout: 2x400G}",
    )
    sp1 = _rendered(example)["aus1-sp1"]
    assert "speed 400g-4" in _block(sp1, "interface Ethernet1/1")
    # the cage's other sub-port (lanes 5-8) is told its speed too, or lane 1 claims all 8
    assert _block(sp1, "interface Ethernet1/5") == [
        "description unused sub-port of breakout 2x400G on Ethernet1",
        "shutdown",
        "speed 400g-4",
    ]


def test_iosxr_sub_port_breaks_its_optics_controller_out(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        EOS_BL_TO_BORDER,
        EOS_BL_TO_BORDER.replace("HundredGigE0/0/0/{n}", "HundredGigE0/0/0/{n}/0"),
    )
    br1 = _rendered(example)["aus1-br1"]
    assert _block(br1, "controller Optics0/0/0/8") == ["breakout 4x100"]
    assert "interface HundredGigE0/0/0/8/0" in br1.splitlines()


# --- what no cage or platform can run ---------------------------------------------------------


def test_hw004_speed_above_the_cage(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    text = links.read_text()
    rule = text.index("name: border-leaf-to-border-eos")
    at = text.index("speed: 100G", rule)
    links.write_text(text[:at] + "speed: 200G" + text[at + len("speed: 100G") :])
    result = lint_repo(example)
    line = line_of(links, "speed: 200G")
    hits = findings_of(result, "HW-004")
    assert (
        f"intent/aus1/links.yaml:{line}: aus1-bl1 Ethernet1/1 (7280CR3-32P4 QSFP100) runs at "
        "most 100G, the link asks 200G" in hits
    )
    assert result.errors


def test_hw004_breakout_past_the_cages_split(example: Path) -> None:
    """SN5600 cages split into at most 4: 4x200G is just inside, 8x100G just outside."""
    links = example / "intent/aus1/links.yaml"
    inside = (
        'a: {role: leaf, platform: nvidia_nvue, interface: "swp{n}s0", breakout: 4x, first: 61,'
    )
    replace_in(links, NVUE_RULE, inside)
    text = links.read_text()
    rule = text.index("name: leaf-to-spine-cumulus")
    at = text.index("speed: 400G", rule)
    links.write_text(text[:at] + "speed: 200G" + text[at + len("speed: 400G") :])
    assert findings_of(lint_repo(example), "HW-004") == []
    replace_in(links, "breakout: 4x,", "breakout: 8x100G,")
    result = lint_repo(example)
    line = line_of(links, "breakout: 8x100G")
    assert (
        f"intent/aus1/links.yaml:{line}: aus1-lf1 port 61 (SN5600 OSFP 800G, 8 lanes): "
        "breakout 8x100G: the cage splits into at most 4" in findings_of(result, "HW-004")
    )


def _set_rule_speed(links: Path, rule: str, old: str, new: str) -> None:
    text = links.read_text()
    at = text.index(f"speed: {old}", text.index(f"name: {rule}"))
    links.write_text(text[:at] + f"speed: {new}" + text[at + len(f"speed: {old}") :])


def test_hw005_nxos_has_no_map_for_a_breakout(example: Path) -> None:
    """NX-OS maps a port 2x200G (listed: clean) but not 4x40G (fits the 400G cage, no map)."""
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        NXOS_RULE,
        'a: {role: leaf, platform: cisco_nxos, interface: "Ethernet1/{n}/1", breakout: 2x200G,'
        " first: 61,",
    )
    _set_rule_speed(links, "leaf-to-spine-nxos", "400G", "200G")
    assert findings_of(lint_repo(example), "HW-005") == []
    replace_in(links, "breakout: 2x200G,", "breakout: 4x40G,")
    _set_rule_speed(links, "leaf-to-spine-nxos", "200G", "40G")
    result = lint_repo(example)
    line = line_of(links, "breakout: 4x40G")
    hits = findings_of(result, "HW-005")
    assert (
        f"intent/aus1/links.yaml:{line}: aus1-lf3 (cisco_nxos) port 61: Cisco NX-OS has no form "
        "for breakout 4x40G; it breaks a port out 4x10G, 4x25G, 2x50G, 4x50G, 2x100G, 4x100G, "
        "2x200G" in hits
    )
    assert findings_of(result, "HW-004") == []


def test_hw005_iosxr_name_says_another_speed(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(links, EOS_BL_TO_BORDER, EOS_BL_TO_BORDER.replace("HundredGigE", "FourHundredGigE"))
    result = lint_repo(example)
    line = line_of(links, 'FourHundredGigE0/0/0/{n}", first: 8')
    hits = findings_of(result, "HW-005")
    assert (
        f"intent/aus1/links.yaml:{line}: aus1-br1 (cisco_iosxr) FourHundredGigE0/0/0/8: Cisco "
        "IOS-XR names a port by its optic's speed, 400G, but the link runs 100G; write "
        "HundredGigE0/0/0/8" in hits
    )


def test_a_speed_above_an_iosxr_cage_is_reported_once_per_port(example: Path) -> None:
    """The spine-to-border rule at 800G: the borders' 400G cages cannot run it (HW-004). HW-005
    said so again of every port, that IOS-XR names it 400G, with advice to write
    EightHundredGigE0/0/0/N, a port an 8201-32FH does not have: one finding per port, HW-004's."""
    links = example / "intent/aus1/links.yaml"
    _set_rule_speed(links, "spine-to-border", "400G", "800G")
    result = lint_repo(example)
    assert findings_of(result, "HW-005") == []
    ports = [h.split(": ", 1)[1].split(" (")[0] for h in findings_of(result, "HW-004")]
    borders = ("aus1-br1", "aus1-br2")
    assert sorted(ports) == sorted(
        f"{border} FourHundredGigE0/0/0/{n}" for border in borders for n in range(8)
    )


def test_hw004_eos_lane_that_leads_no_sub_port(example: Path) -> None:
    """2x400G on an 8-lane OSFP: lanes 1 and 5 lead its sub-ports (lane 5 just inside, lane 3
    outside)."""
    links = example / "intent/aus1/links.yaml"
    side = (
        'a: {role: spine, interface: "Ethernet{n}/5", first: 1, peer_id_base: 1, breakout: 2x400G}'
    )
    replace_in(links, SPINE_TO_BORDER, side)
    assert findings_of(lint_repo(example), "HW-004") == []
    replace_in(links, "Ethernet{n}/5", "Ethernet{n}/3")
    result = lint_repo(example)
    line = line_of(links, "Ethernet{n}/3")
    assert (
        f"intent/aus1/links.yaml:{line}: aus1-sp1 Ethernet1/3 is no sub-port of breakout "
        "2x400G; its sub-ports are Ethernet1/1, Ethernet1/5" in findings_of(result, "HW-004")
    )


# --- the circuits' ports: cross-connects and DCI ends ------------------------------------------

CIRCUITS = "intent/aus1/circuits.yaml"


def test_a_100g_cloud_circuit_in_a_400g_cage_is_told_its_speed(example: Path) -> None:
    """The Google circuits land on SN4700 QSFP-DD 400G cages of the NVUE border leaves: each
    carrier port is told 100G, as a fabric port is, or it comes up at 400G against a 100G
    circuit; its sub-interfaces are not (they have no link of their own)."""
    files = _rendered(example)
    for device in ("aus1-bl5", "aus1-bl6"):
        ports = _nvue(files[device])
        assert ports["swp9"]["link"] == {"mtu": 9214, "speed": "100G"}
        assert ports["swp10"]["link"] == {"mtu": 9214, "speed": "100G"}
        subs = [name for name in ports if name.startswith(("swp9.", "swp10."))]
        assert len(subs) == 2
        assert all("speed" not in ports[name]["link"] for name in subs)


def test_hw004_cross_connect_faster_than_its_port(example: Path) -> None:
    circuits = example / CIRCUITS
    replace_in(
        circuits, "interface: Ethernet1/9, speed: 100G}", "interface: Ethernet1/9, speed: 400G}"
    )
    result = lint_repo(example)
    line = line_of(circuits, "interface: Ethernet1/9, speed: 400G")
    assert findings_of(result, "HW-004") == [
        f"{CIRCUITS}:{line}: aus1-bl3 Ethernet1/9 (N9K-C93600CD-GX QSFP28 100G) runs at most "
        "100G, cross-connect XC-AZ-1 asks 400G"
    ]


def test_hw005_iosxr_cross_connect_on_a_port_named_for_another_optic(example: Path) -> None:
    circuits = example / CIRCUITS
    replace_in(
        circuits,
        "interface: HundredGigE0/0/0/20, speed: 100G}",
        "interface: HundredGigE0/0/0/20, speed: 400G}",
    )
    result = lint_repo(example)
    line = line_of(circuits, "HundredGigE0/0/0/20, speed: 400G")
    assert findings_of(result, "HW-005") == [
        f"{CIRCUITS}:{line}: aus1-br1 (cisco_iosxr) HundredGigE0/0/0/20: Cisco IOS-XR names a "
        "port by its optic's speed, 100G, but cross-connect XC-TA-1 runs 400G; write "
        "FourHundredGigE0/0/0/20"
    ]


def test_a_100g_dci_circuit_in_a_400g_cage_is_told_its_speed(example: Path) -> None:
    """mel1's EOS border takes the 100G circuit in an 8-lane 400G OSFP cage: told 100G over
    two of the cage's 50G lanes (`speed 100g-2`, as a link without `lanes:` is); the misfit at
    the IOS-XR end (a FourHundredGigE port) is DCI-004's alone, in the circuit's words."""
    dci = example / "intent/dci.yaml"
    replace_in(
        dci, "      speed: 400G\n      latency_ms: 4.9", "      speed: 100G\n      latency_ms: 4.9"
    )
    result = lint_repo(example)
    # the IOS-XR end names a 400G optic (DCI-004), the circuit no longer carries the need
    assert sorted({f.rule for f in result.errors}) == ["DCI-002", "DCI-004"]
    assert findings_of(result, "HW-004") == []
    assert findings_of(result, "HW-005") == []
    port = next(i for i in device_models(result)["mel1-br2"].interfaces if i.name == "Ethernet35/1")
    assert port.port_speed is not None
    assert (port.port_speed.gbps, port.port_speed.lanes) == (100, 2)
    # the same circuit's other end, mel1-br1's, runs 400G still: told nothing
    other = next(
        i for i in device_models(result)["mel1-br1"].interfaces if i.name == "Ethernet35/1"
    )
    assert other.port_speed is None


# --- attachment ports on a breakout's free sub-ports ----------------------------------------
# A host or peer-link port asks no speed, so it breaks no cage out (HW-004 judges it against the
# plan the links make); on a free sub-port of a link's breakout it is told the breakout's speed,
# as the link's own sub-port is, or it would come up at the cage's default and not at all.

NVUE_SINGLE_ON_SUB_PORT = """
mode: single
leaves: [aus1-lf1]
ports: [swp63s1, swp20]
access: true
networks: [gpu-a-compute-1]
"""


def test_nvue_hosts_on_free_sub_ports_are_told_the_breakouts_speed(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    replace_in(
        links,
        NVUE_RULE,
        'a: {role: leaf, platform: nvidia_nvue, interface: "swp{n}s0", first: 61,',
    )
    # the MLAG pair's first host bond and a peer-link member on the 2x400G cages' free
    # sub-ports, and a single-homed access port beside a whole port
    replace_in(
        example / "intent/aus1/attachments.yaml",
        "ports: [swp1, swp2, swp3, swp4]\n        peer_link: [swp57, swp58]",
        "ports: [swp61s1, swp2, swp3, swp4]\n        peer_link: [swp62s1, swp58]",
    )
    add(example, "lf1-single", NVUE_SINGLE_ON_SUB_PORT)
    interfaces = _nvue(_rendered(example)["aus1-lf1"])
    assert interfaces["swp61s1"] == {
        "type": "swp",
        "description": "bond10 member: dh1-r10-gpu-hosts host 1 mlag",
        "link": {"speed": "400G"},
    }
    assert interfaces["swp62s1"]["link"] == {"speed": "400G"}  # the peer link's member
    assert interfaces["swp63s1"]["link"] == {"mtu": 9214, "speed": "400G"}  # access port
    # whole ports at their cage's speed are told none
    assert "link" not in interfaces["swp2"]
    assert "link" not in interfaces["swp58"]
    assert interfaces["swp20"]["link"] == {"mtu": 9214}


# --- cages nothing uses: shut (docs/syntax.md#unused-ports) -----------------------------------


def _interfaces(text: str) -> list[str]:
    return [line.split()[1] for line in text.splitlines() if line.startswith("interface ")]


def test_every_free_cage_of_an_eos_spine_is_shut_once(example: Path) -> None:
    """aus1-sp1 (7060X6-64PE, 64 OSFP cages): Ethernet1-4/1 go to the borders, 9-14/1 to the
    leaves; each of the other 54 is rendered once, shut, named with its first lane; no cage
    is printed twice and none is left unsaid (EOS would leave it an enabled switchport)."""
    text = _rendered(example)["aus1-sp1"]
    cages = [name for name in _interfaces(text) if name.startswith("Ethernet")]
    assert sorted(cages) == sorted(f"Ethernet{n}/1" for n in range(1, 65))
    free = [n for n in range(1, 65) if n not in (1, 2, 3, 4, 9, 10, 11, 12, 13, 14)]
    for n in free:
        assert _block(text, f"interface Ethernet{n}/1") == ["description unused", "shutdown"]
    assert "shutdown" not in _block(text, "interface Ethernet9/1")


def test_a_port_a_link_rule_no_longer_cables_is_shut(example: Path) -> None:
    """One link per spine and border instead of two: each spine's Ethernet3/1 and 4/1 are
    freed, and are rendered shut rather than dropped from the config (a replace push would
    leave them live at EOS's defaults)."""
    replace_in(
        example / "intent/aus1/links.yaml",
        "first: 0, peer_id_base: 11}\n        count: 2\n",
        "first: 0, peer_id_base: 11}\n        count: 1\n",
    )
    text = _rendered(example)["aus1-sp1"]
    for n in (3, 4):
        assert _block(text, f"interface Ethernet{n}/1") == ["description unused", "shutdown"]
    assert "description p2p to aus1-br1 FourHundredGigE0/0/0/0" in _block(
        text, "interface Ethernet1/1"
    )


def test_nxos_shuts_its_free_cages_and_nvue_and_iosxr_say_nothing(example: Path) -> None:
    """aus1-lf3 (N9K-C9364D-GX2A: 64 QSFP-DD and 2 SFP+): the free cages, the SFP+ ones too,
    as Ethernet1/P; a sub-interface marks its cage used. NVUE leaves down what it is not
    told, and IOS-XR has no layer 2 to bridge: neither prints an unused port."""
    files = _rendered(example)
    text = files["aus1-lf3"]
    blocks = {name: _block(text, f"interface {name}") for name in set(_interfaces(text))}
    shut = {name for name, block in blocks.items() if block == ["description unused", "shutdown"]}
    used = {n.split(".")[0] for n in blocks if n.startswith("Ethernet1/") and n not in shut}
    assert {"Ethernet1/65", "Ethernet1/66"} <= shut
    assert shut.isdisjoint(used)
    assert shut | used == {f"Ethernet1/{port}" for port in range(1, 67)}
    assert "unused" not in files["aus1-lf1"] and "unused" not in files["aus1-br1"]
