"""PHY-002..007, PHY-010, PHY-013..015 and PHY-018: each rule passes on the example and fails on one
realistic edit."""

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

PHY_RULES = (
    *("PHY-002", "PHY-003", "PHY-004", "PHY-005", "PHY-006", "PHY-007", "PHY-010"),
    *("PHY-013", "PHY-014", "PHY-015", "PHY-018"),
)

# An extra 400G link between spine 1 and border 1, on free ports and a free address index.
SP1_BR1_LINK = """\
      - a: {device: aus1-sp1, interface: Ethernet5/1%s}
        b: {device: aus1-br1, interface: FourHundredGigE0/0/0/30%s}
        index: 100
        speed: 400G
"""


def add_link(repo: Path, a_extra: str = "", b_extra: str = "") -> Path:
    links = repo / "intent/aus1/links.yaml"
    links.write_text(links.read_text() + SP1_BR1_LINK % (a_extra, b_extra))
    return links


def test_example_has_no_phy_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in PHY_RULES] == []


def test_phy002_spine_on_one_feed(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "192.168.10.21/24\n        power_feeds: [A, B]",
        "192.168.10.21/24\n        power_feeds: [A]",
    )  # aus1-sp1
    result = lint_repo(example)
    line = line_of(devices, "power_feeds: [A]")
    assert findings_of(result, "PHY-002") == [
        f"intent/aus1/devices.yaml:{line}: spine aus1-sp1 is fed from A only; cable a PSU to "
        "feed B and record it in power_feeds"
    ]
    assert result.errors


@pytest.mark.parametrize("written", ["power_feeds: []", None])
def test_phy002_spine_with_no_feed_recorded(example: Path, written: str | None) -> None:
    """`power_feeds: []` read "is fed from  only", naming no feed; it is the same finding as
    no power_feeds at all."""
    devices = example / "intent/aus1/devices.yaml"
    old = "192.168.10.21/24\n        power_feeds: [A, B]"  # aus1-sp1
    replace_in(devices, old, "192.168.10.21/24" + (f"\n        {written}" if written else ""))
    line = line_of(devices, written) if written else line_of(devices, "aus1-sp1:")
    assert findings_of(lint_repo(example), "PHY-002") == [
        f"intent/aus1/devices.yaml:{line}: spine aus1-sp1 has no power_feeds recorded; cable "
        "its PSUs to feeds A and B and record power_feeds: [A, B]"
    ]


def test_phy002_border_rooms_share_a_ups(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(  # the MDF-B room block
        rooms,
        "kind: mdf\n        floor: 2\n        power: {A: ups-2a, B: ups-2b}",
        "kind: mdf\n        floor: 2\n        power: {A: ups-1a, B: ups-2b}",
    )
    result = lint_repo(example)
    line = line_of(rooms, "power: {A: ups-1a, B: ups-2b}")
    assert findings_of(result, "PHY-002") == [
        f"intent/aus1/rooms.yaml:{line}: border rooms aus1-mdf-a (aus1-br1) and aus1-mdf-b "
        "(aus1-br2) share UPS ups-1a, so one UPS fault hits both borders; feed aus1-mdf-b "
        "from other UPSes"
    ]
    assert result.errors


def test_phy002_spine_hall_feeds_a_and_b_from_one_ups(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(
        rooms,
        "floor: 1\n        power: {A: ups-1a, B: ups-1b}\n        cooling_zone: cdu-1",
        "floor: 1\n        power: {A: ups-1a, B: ups-1a}\n        cooling_zone: cdu-1",
    )
    result = lint_repo(example)
    assert findings_of(result, "PHY-002") == [
        f"intent/aus1/rooms.yaml:{line_of(rooms, 'B: ups-1a')}: room aus1-dh1 takes feeds A and "
        "B from the same UPS ups-1a, so one UPS fault drops aus1-sp1, aus1-sp2; give each feed "
        "its own UPS"
    ]
    assert result.errors


def test_phy003_border_rooms_on_one_cooling_loop(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(  # the MDF-B room block
        rooms,
        "power: {A: ups-2a, B: ups-2b}\n        cooling_zone: crah-2\n      aus1-dh1",
        "power: {A: ups-2a, B: ups-2b}\n        cooling_zone: crah-1\n      aus1-dh1",
    )
    result = lint_repo(example)
    line = line_of(rooms, "cooling_zone: crah-1", occurrence=3)  # mmr1, mdf-a, mdf-b
    assert findings_of(result, "PHY-003") == [
        f"intent/aus1/rooms.yaml:{line}: the border group: rooms aus1-mdf-a (aus1-br1) and "
        "aus1-mdf-b (aus1-br2) are both cooled by crah-1; move aus1-br2 or cool aus1-mdf-b "
        "from another loop",
        # the handoff's border leaves stand in the same two MDFs: their diversity goes too
        f"intent/aus1/rooms.yaml:{line}: the handoff's border leaves: rooms aus1-mdf-a "
        "(aus1-bl1) and aus1-mdf-b (aus1-bl2) are both cooled by crah-1; move aus1-bl2 or cool "
        "aus1-mdf-b from another loop",
    ]
    assert result.errors


def test_phy004_border_mdfs_on_one_floor(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(rooms, "kind: mdf\n        floor: 2", "kind: mdf\n        floor: 1")
    result = lint_repo(example)
    line = line_of(rooms, "floor: 1", occurrence=3)  # mmr1, mdf-a, mdf-b
    assert findings_of(result, "PHY-004") == [
        f"intent/aus1/rooms.yaml:{line}: the border group: aus1-br2 shares floor 1 with "
        "aus1-br1; members must not share a floor",
        f"intent/aus1/rooms.yaml:{line}: the handoff's border leaves: aus1-bl2 shares floor 1 "
        "with aus1-bl1; members must not share a floor",
    ]
    assert result.errors


def test_phy004_declared_leaf_pair_in_one_rack(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    site.write_text(
        site.read_text() + "    redundancy_groups:\n"
        "      leaf-pair: {members: [aus1-lf1, aus1-lf2]}\n"
    )
    devices = example / "intent/aus1/devices.yaml"
    result = lint_repo(example)
    room_line = line_of(devices, "room: aus1-dh1", occurrence=4)  # aus1-lf2's room
    # one rack, so one room, one cooling zone and one floor: one finding, of the room, whose
    # fix (another room) moves the rack and, here, the floor too
    assert [
        (f.rule, str(f.location), f.message) for f in result.errors if "leaf-pair" in f.message
    ] == [
        (
            "PHY-003",
            f"intent/aus1/devices.yaml:{room_line}:9",
            "redundancy group leaf-pair: aus1-lf2 shares room aus1-dh1 and so cooling zone "
            "cdu-1 with aus1-lf1; move aus1-lf2 to a room on another cooling loop",
        )
    ]
    assert findings_of(result, "PHY-004") == []


def test_phy004_tag_recorded_on_one_border_room_only(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(
        rooms,
        "cooling_zone: crah-1\n      aus1-mdf-b:",
        "cooling_zone: crah-1\n        failure_domains: {riser: r1}\n      aus1-mdf-b:",
    )
    devices = example / "intent/aus1/devices.yaml"
    result = lint_repo(example)
    assert findings_of(result, "PHY-004") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'aus1-br2:')}: the border group: diversity "
        "unproven: riser is recorded for aus1-br1 but not for aus1-br2; record riser on "
        "aus1-br2 or its room aus1-mdf-b",
        f"intent/aus1/devices.yaml:{line_of(devices, 'aus1-bl2:')}: the handoff's border "
        "leaves: diversity unproven: riser is recorded for aus1-bl1 but not for aus1-bl2; "
        "record riser on aus1-bl2 or its room aus1-mdf-b",
    ]
    assert result.errors


def test_phy005_two_transit_circuits_in_one_mmr(example: Path) -> None:
    xcs = example / "intent/aus1/cross_connects.yaml"
    xcs.write_text("""\
sites:
  aus1:
    cross_connects:
      transit-z-1:
        party: transit-z
        room: aus1-mmr1
        entrance: north
        device: aus1-br1
        interface: FourHundredGigE0/0/0/20
        speed: 400G
      transit-z-2:
        party: transit-z
        room: aus1-mmr1
        entrance: south
        device: aus1-br2
        interface: FourHundredGigE0/0/0/20
        speed: 400G
""")
    result = lint_repo(example)
    line = line_of(xcs, "room: aus1-mmr1", occurrence=2)
    assert findings_of(result, "PHY-005") == [
        f"intent/aus1/cross_connects.yaml:{line}: all 2 circuits to transit-z (transit-z-1, "
        "transit-z-2) use MMR aus1-mmr1; terminate one in another MMR, ideally on another "
        "floor"
    ]
    assert result.errors


def test_phy006_extra_uplink_to_one_border(example: Path) -> None:
    add_link(example)
    devices = example / "intent/aus1/devices.yaml"
    result = lint_repo(example)
    assert findings_of(result, "PHY-006") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'aus1-sp1:')}: spine aus1-sp1 uplinks "
        "unequally (aus1-br1 3x400G, aus1-br2 2x400G); give every border the same count and "
        "speed of links"
    ]
    assert result.errors


def test_phy006_border_leaf_without_border_links(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    devices.write_text(
        devices.read_text()
        + """\
      aus1-bl9:
        id: 209
        role: border_leaf
        platform: cisco_iosxr
        model: 7060X6-64PE
        room: aus1-dh1
        rack: dh1-r10
        management: 192.168.10.201/24
"""
    )
    result = lint_repo(example)
    assert findings_of(result, "PHY-006") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'aus1-bl9:')}: border_leaf aus1-bl9 has no "
        "link to border aus1-br1, aus1-br2; link it to every border (a link rule or explicit "
        "links)"
    ]
    assert result.errors


def test_phy007_ends_at_different_speeds(example: Path) -> None:
    links = add_link(example, a_extra=", speed: 400G", b_extra=", speed: 100G")
    result = lint_repo(example)
    line = line_of(links, "device: aus1-br1, interface: FourHundredGigE0/0/0/30")
    assert findings_of(result, "PHY-007") == [
        f"intent/aus1/links.yaml:{line}: speed differs between aus1-sp1 Ethernet5/1 and "
        "aus1-br1 FourHundredGigE0/0/0/30 (400G vs 100G); set the same speed on both ends"
    ]
    assert result.errors


def test_phy007_breakout_on_one_end(example: Path) -> None:
    links = add_link(example, a_extra=", lanes: 4")
    result = lint_repo(example)
    line = line_of(links, "device: aus1-sp1, interface: Ethernet5/1")
    assert findings_of(result, "PHY-007") == [
        f"intent/aus1/links.yaml:{line}: lanes differs between aus1-sp1 Ethernet5/1 and "
        "aus1-br1 FourHundredGigE0/0/0/30 (4 vs unset); set the same lanes on both ends"
    ]
    assert result.errors


def test_phy010_mtu_lowered_on_one_end(example: Path) -> None:
    links = add_link(example, b_extra=", mtu: 9000")
    result = lint_repo(example)
    line = line_of(links, "device: aus1-br1, interface: FourHundredGigE0/0/0/30")
    assert findings_of(result, "PHY-010") == [
        f"intent/aus1/links.yaml:{line}: IP MTU differs between aus1-sp1 Ethernet5/1 and "
        "aus1-br1 FourHundredGigE0/0/0/30 (9214 vs 9000); set the same mtu on both ends"
    ]
    assert result.errors


# --- PHY-013: one physical port, one use ---------------------------------------------------

LINKS = "intent/aus1/links.yaml"
CIRCUITS = "intent/aus1/circuits.yaml"
ATTACHMENTS = "intent/aus1/attachments.yaml"


def append_links(repo: Path, *links: str) -> Path:
    """Explicit links (flow mappings) appended to links.yaml, after the border pair's two."""
    path = repo / LINKS
    body = "".join(f"      - {link}\n" for link in links)
    path.write_text(path.read_text() + body)
    return path


def leaf_link(a: str, b: str, index: int, a_dev: str = "aus1-lf1", b_dev: str = "aus1-lf2") -> str:
    return (
        f"{{a: {{device: {a_dev}, interface: {a}}}, b: {{device: {b_dev}, interface: {b}}}, "
        f"index: {index}, speed: 100G}}"
    )


def test_phy013_the_shipped_ix_port_clash(example: Path) -> None:
    """The example used to land the IX on FourHundredGigE0/0/0/16, which the border-leaf rule
    also cables to aus1-bl5 as HundredGigE0/0/0/16: one cage, two cables."""
    circuits = example / CIRCUITS
    replace_in(circuits, "FourHundredGigE0/0/0/23", "FourHundredGigE0/0/0/16", 2)
    result = lint_repo(example)
    rule_line = line_of(example / LINKS, 'interface: "HundredGigE0/0/0/{n}", first: 8', 3)
    first = line_of(circuits, "XC-IX-1:")
    second = line_of(circuits, "XC-IX-2:")
    column = circuits.read_text().splitlines()[first - 1].index("interface:") + 1
    assert findings_of(result, "PHY-013") == [
        f"{LINKS}:{rule_line}: aus1-br{n}: link rule border-leaf-to-border-cumulus to aus1-bl5 "
        f"uses HundredGigE0/0/0/16, but that is port 0/0/0/16, which cross-connect XC-IX-{n} "
        f"of ix-syd (at {CIRCUITS}:{line}:{column}) already uses as FourHundredGigE0/0/0/16 (an "
        "IOS-XR name carries the optic's speed, not another port); one port carries one "
        "cable: move one of them to a free port"
        for n, line in ((1, first), (2, second))
    ]
    assert result.errors


@pytest.mark.parametrize(
    ("circuit", "old", "new", "rule_name", "side"),
    [
        ("XC-AWS-1", "Ethernet9/1", "Ethernet01/1", "border-leaf-to-border-eos", 1),
        ("XC-AZ-1", "Ethernet1/9", "Ethernet1/01", "border-leaf-to-border-nxos", 1),
    ],
)
def test_phy013_leading_zero_names_a_used_port(
    example: Path, circuit: str, old: str, new: str, rule_name: str, side: int
) -> None:
    """EOS and NX-OS read Ethernet01/1 as Ethernet1/1, the border leaf's first uplink."""
    circuits = example / CIRCUITS
    text = circuits.read_text()
    start = text.index(f"{circuit}:")
    end = text.index("\n", start)
    circuits.write_text(text[:start] + text[start:end].replace(old, new) + text[end:])
    hits = findings_of(lint_repo(example), "PHY-013")
    assert len(hits) == 1, hits
    where, message = hits[0].split(": ", 1)
    assert where == f"{LINKS}:{line_of(example / LINKS, f'name: {rule_name}') + side}"
    assert f"link rule {rule_name} to aus1-br1 uses Ethernet1/1" in message
    assert f"cross-connect {circuit} of " in message and f"already uses as {new}" in message


def test_phy013_breakout_sub_ports_of_a_host_port(example: Path) -> None:
    links = append_links(example, leaf_link("swp1s1", "swp1s1", 40))
    hits = findings_of(lint_repo(example), "PHY-013")
    line = line_of(links, "swp1s1")
    ports = line_of(example / ATTACHMENTS, "ports: [swp1, swp2")
    column = (example / ATTACHMENTS).read_text().splitlines()[ports - 1].index("swp1") + 1
    where = f"{ATTACHMENTS}:{ports}:{column}"
    assert hits == [
        f"{LINKS}:{line}: aus1-lf{n}: link #2 to aus1-lf{3 - n} uses swp1s1, but that is a "
        f"breakout sub-port of swp1, which attachment dh1-r10-gpu-hosts host port (at "
        f"{where}) uses whole; one port carries one cable: move one of them to a free port"
        for n in (1, 2)
    ]


def test_phy013_iosxr_breakout_of_a_port_used_whole(example: Path) -> None:
    links = append_links(
        example,
        "{a: {device: aus1-sp1, interface: Ethernet5/1}, b: {device: aus1-br1, interface: "
        "HundredGigE0/0/0/16/0}, index: 100, speed: 100G}",
    )
    hits = findings_of(lint_repo(example), "PHY-013")
    assert [h.split(": ", 1)[0] for h in hits] == [f"{LINKS}:{line_of(links, '0/0/0/16/0')}"]
    assert "that is a breakout sub-port of HundredGigE0/0/0/16, which link rule " in hits[0]


def test_phy013_second_cross_connect_on_a_cloud_carrier(example: Path) -> None:
    """Cloud VIFs ride sub-interfaces of XC-AWS-1's port; a second circuit cannot land there."""
    circuits = example / CIRCUITS
    circuits.write_text(
        circuits.read_text()
        + "      XC-NEW-1: {party: carrier-x, room: aus1-mmr1, entrance: north, device: "
        "aus1-bl1, interface: Ethernet09/1, speed: 100G}\n"
    )
    hits = findings_of(lint_repo(example), "PHY-013")
    assert [h.split(": ", 1)[0] for h in hits] == [f"{CIRCUITS}:{line_of(circuits, 'XC-NEW-1')}"]
    assert (
        "aus1-bl1: cross-connect XC-NEW-1 of carrier-x uses Ethernet09/1, but that is port "
        "Ethernet9/1, which cross-connect XC-AWS-1 of aws-syd"
    ) in hits[0]


def test_phy013_two_session_circuits_on_one_port_in_one_lint(example: Path) -> None:
    """Both circuits carry sessions: the clash is PHY-013's finding at the circuit, reported
    with the rest of the intent (it was exit 2 at the session, and nothing else was said)."""
    circuits = example / CIRCUITS
    replace_in(
        circuits,
        "device: aus1-br1, interface: HundredGigE0/0/0/22",
        "device: aus1-br1, interface: HundredGigE0/0/0/21",
    )
    lines = circuits.read_text().splitlines()
    line, earlier = line_of(circuits, "XC-PNI-1:"), line_of(circuits, "XC-TB-1:")
    column = lines[earlier - 1].index("interface:") + 1  # where XC-TB-1 names the port
    assert findings_of(lint_repo(example), "PHY-013") == [
        f"{CIRCUITS}:{line}: aus1-br1: cross-connect XC-PNI-1 of pni-cdn uses "
        "HundredGigE0/0/0/21, but cross-connect XC-TB-1 of transit-b (at "
        f"{CIRCUITS}:{earlier}:{column}) already uses HundredGigE0/0/0/21; one port carries "
        "one cable: move one of them to a free port"
    ]


def test_one_circuit_named_by_two_sessions_is_unusable(example: Path) -> None:
    """One circuit twice in a party's list: two sessions on one port that no cabling rule
    sees, so the resolver refuses it at the second session."""
    from meetme.core.problems import IntentError

    peering = example / "intent/aus1/peering.yaml"
    replace_in(
        peering,
        "{circuit: XC-PNI-2, ipv4: 192.0.2.19/31",
        "{circuit: XC-PNI-1, ipv4: 192.0.2.19/31",
    )
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    first = line_of(peering, "{circuit: XC-PNI-1, ipv4: 192.0.2.17/31")
    assert [(str(p.location), p.message) for p in caught.value.problems] == [
        (
            f"intent/aus1/peering.yaml:{first + 1}:15",
            f"aus1-br1 HundredGigE0/0/0/22 is already used at intent/aus1/peering.yaml:{first}:15",
        )
    ]


def test_phy013_fabric_sub_interface_on_a_cloud_carrier(example: Path) -> None:
    links = append_links(
        example, leaf_link("Ethernet9/1.3999", "Ethernet9/1.3999", 40, "aus1-bl1", "aus1-bl2")
    )
    hits = findings_of(lint_repo(example), "PHY-013")
    assert [h.split(": ", 1)[0] for h in hits] == [f"{LINKS}:{line_of(links, '3999')}"] * 2


def test_phy013_distinct_sub_ports_and_sub_interfaces_share_a_cage(example: Path) -> None:
    """Fine: two breakout sub-ports of one port; tagged sub-interfaces with their own VLANs;
    a routed port with a tagged sub-interface to the same device (a VRF-lite link)."""
    append_links(
        example,
        leaf_link("swp40s0", "swp40s0", 40),
        leaf_link("swp40s1", "swp40s1", 41),
        leaf_link("swp41.10", "swp41.10", 42),
        leaf_link("swp41.20", "swp41.20", 43),
        leaf_link("swp42", "swp42", 44),
        leaf_link("swp42.30", "swp42.30", 45),
    )
    assert findings_of(lint_repo(example), "PHY-013") == []


def test_phy013_untagged_and_tagged_to_different_devices_clash(example: Path) -> None:
    links = append_links(
        example,
        leaf_link("swp42", "swp42", 44),
        leaf_link("swp42.30", "swp42", 45, b_dev="aus1-lf5"),
    )
    hits = findings_of(lint_repo(example), "PHY-013")
    assert [h.split(": ", 1)[0] for h in hits] == [f"{LINKS}:{line_of(links, 'swp42.30')}"]


# --- PHY-014: no self-links -----------------------------------------------------------------


def test_phy014_explicit_link_to_itself(example: Path) -> None:
    links = append_links(example, leaf_link("swp40", "swp41", 40, b_dev="aus1-lf1"))
    result = lint_repo(example)
    assert findings_of(result, "PHY-014") == [
        f"{LINKS}:{line_of(links, 'swp41')}: link #2 joins aus1-lf1 swp40 to swp41 on the same "
        "device; a link needs another device at its b end"
    ]
    assert result.errors


LEAF_MESH = """\
      - name: leaf-mesh
        a: {role: leaf, platform: nvidia_nvue, interface: "swp{n}", first: 40, peer_id_base: 101}
        b: {role: leaf, platform: %s, interface: "%s", first: 50, peer_id_base: 101}
        speed: 100G
"""


def add_rule(repo: Path, text: str) -> Path:
    links = repo / LINKS
    replace_in(links, "    link_rules:\n", "    link_rules:\n" + text)
    return links


def test_phy014_rule_selecting_the_same_devices_on_both_sides(example: Path) -> None:
    links = add_rule(example, LEAF_MESH % ("nvidia_nvue", "swp{n}"))
    result = lint_repo(example)
    assert findings_of(result, "PHY-014") == [
        f"{LINKS}:{line_of(links, 'first: 50')}: link rule leaf-mesh selects aus1-lf1, "
        "aus1-lf2, aus1-lf5, aus1-lf6 on both sides, so it cables each of them to itself; "
        "narrow one side (role or platform) so the two sides are different devices"
    ]


def test_phy014_same_role_other_platform_is_no_self_link(example: Path) -> None:
    add_rule(example, LEAF_MESH % ("cisco_nxos", "Ethernet1/{n}"))
    assert findings_of(lint_repo(example), "PHY-014") == []


# --- PHY-015: unique link rule names --------------------------------------------------------


def test_phy015_two_rules_of_one_name(example: Path) -> None:
    links = example / LINKS
    replace_in(links, "- name: leaf-to-spine-nxos", "- name: leaf-to-spine-cumulus")
    result = lint_repo(example)
    first = line_of(links, "- name: leaf-to-spine-cumulus")
    assert findings_of(result, "PHY-015") == [
        f"{LINKS}:{line_of(links, '- name: leaf-to-spine-cumulus', 2)}: link rule #2 is named "
        f"leaf-to-spine-cumulus, like link rule #1 at {LINKS}:{first}:9; give it a name of "
        "its own"
    ]
    assert result.errors


def test_phy015_names_differing_by_a_suffix_are_distinct(example: Path) -> None:
    replace_in(example / LINKS, "- name: leaf-to-spine-nxos", "- name: leaf-to-spine-cumulus-2")
    assert findings_of(lint_repo(example), "PHY-015") == []


# --- PHY-018: a cable ends on a whole port ----------------------------------------------------

UNTAGGED = (
    "meetme tags only the sub-interfaces whose VLAN the intent gives (a handoff VRF's, a cloud "
    "attachment's `vlan:`) and would render this one untagged, with {port} itself "
    "unconfigured; write the port, {port}"
)


def test_phy018_sub_interfaces_on_a_link_a_dci_end_and_host_ports(example: Path) -> None:
    links = add_link(example, b_extra=".7")  # aus1-br1 FourHundredGigE0/0/0/30.7
    dci = example / "intent/dci.yaml"
    replace_in(
        dci, "interface: FourHundredGigE0/0/0/27,", "interface: FourHundredGigE0/0/0/27.100,"
    )
    attachments = example / "intent/aus1/attachments.yaml"
    replace_in(attachments, "ports: [swp1,", "ports: [swp1.5,")
    result = lint_repo(example)
    br1 = "FourHundredGigE0/0/0/30"
    assert findings_of(result, "PHY-018") == [
        f"intent/aus1/attachments.yaml:{line_of(attachments, 'swp1.5')}: aus1-lf1 swp1.5 is "
        "sub-interface 5 of swp1: " + UNTAGGED.format(port="swp1"),
        f"intent/aus1/attachments.yaml:{line_of(attachments, 'swp1.5')}: aus1-lf2 swp1.5 is "
        "sub-interface 5 of swp1: " + UNTAGGED.format(port="swp1"),
        f"{LINKS}:{line_of(links, br1 + '.7')}: aus1-br1 {br1}.7 is sub-interface 7 of {br1}: "
        + UNTAGGED.format(port=br1),
        f"intent/dci.yaml:{line_of(dci, '0/0/0/27.100')}: aus1-br1 FourHundredGigE0/0/0/27.100 "
        "is sub-interface 100 of FourHundredGigE0/0/0/27: "
        + UNTAGGED.format(port="FourHundredGigE0/0/0/27"),
    ]
    assert result.errors


def test_phy018_whole_ports_and_the_meetme_made_sub_interfaces_pass(example: Path) -> None:
    # the example's handoff and cloud attachments render sub-interfaces from their `vlan:`
    result = lint_repo(example)
    assert findings_of(result, "PHY-018") == []
    assert result.errors == []
    subs = {i.name for m in (result.models or {}).values() for i in m.interfaces if "." in i.name}
    assert "HundredGigE0/0/0/8.3110" in subs  # aus1-br1's handoff of storage (VLAN 3110)
