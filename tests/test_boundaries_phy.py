"""LOC-001 (no test asserted it before): a device stands in the room of its rack
(docs/mutation.md)."""

from __future__ import annotations

from pathlib import Path

from conftest import findings_of, line_of, lint_repo, replace_in

DEVICES = "intent/aus1/devices.yaml"
ROOMS = "intent/aus1/rooms.yaml"
LINKS = "intent/aus1/links.yaml"


def _lf1_rack_line(devices: Path) -> int:
    return line_of(devices, "rack: dh1-r10")  # aus1-lf1 is the first device in dh1-r10


def test_loc001_device_in_a_rack_of_another_room(example: Path) -> None:
    devices = example / DEVICES
    line = _lf1_rack_line(devices)
    lines = devices.read_text().splitlines()
    lines[line - 1] = lines[line - 1].replace("dh1-r10", "dh2-r10")
    devices.write_text("\n".join(lines) + "\n")
    result = lint_repo(example)
    assert findings_of(result, "LOC-001") == [
        f"{DEVICES}:{line - 1}: aus1-lf1 is placed in aus1-dh1, but its rack dh2-r10 stands "
        "in aus1-dh2"
    ]
    assert result.errors


def test_loc001_rack_moved_flags_every_device_in_it(example: Path) -> None:
    replace_in(example / ROOMS, "dh1-r11: {room: aus1-dh1}", "dh1-r11: {room: aus1-dh2}")
    devices = example / DEVICES
    result = lint_repo(example)
    assert findings_of(result, "LOC-001") == [
        f"{DEVICES}:{line_of(devices, 'rack: dh1-r11', 1) - 1}: aus1-lf5 is placed in "
        "aus1-dh1, but its rack dh1-r11 stands in aus1-dh2",
        f"{DEVICES}:{line_of(devices, 'rack: dh1-r11', 2) - 1}: aus1-lf6 is placed in "
        "aus1-dh1, but its rack dh1-r11 stands in aus1-dh2",
    ]


def test_loc001_room_and_rack_moved_together_pass(example: Path) -> None:
    devices = example / DEVICES
    line = _lf1_rack_line(devices)
    lines = devices.read_text().splitlines()
    lines[line - 2] = lines[line - 2].replace("aus1-dh1", "aus1-dh2")
    lines[line - 1] = lines[line - 1].replace("dh1-r10", "dh2-r10")
    devices.write_text("\n".join(lines) + "\n")
    assert findings_of(lint_repo(example), "LOC-001") == []


# PHY-014 names at most four devices a link rule cables to themselves


SPINE_MESH = """\
      - name: spine-mesh
        a: {role: spine, interface: "Ethernet{n}/1", first: 40, peer_id_base: 11}
        b: {role: spine, interface: "Ethernet{n}/1", first: 50, peer_id_base: 11}
        speed: 400G
"""
SPINE_5 = (
    "      aus1-sp5: {id: 15, role: spine, platform: arista_eos, model: 7060X6-64PE, "
    "room: aus1-dh2, rack: dh2-r02, management: 192.168.10.25/24, power_feeds: [A, B]}\n"
)


def test_phy014_rule_meshing_five_spines_names_four_and_one_more(example: Path) -> None:
    links = example / LINKS
    replace_in(links, "    link_rules:\n", "    link_rules:\n" + SPINE_MESH)
    replace_in(example / DEVICES, "      # Leaves:", SPINE_5 + "      # Leaves:")
    assert findings_of(lint_repo(example), "PHY-014") == [
        f"{LINKS}:{line_of(links, 'first: 50')}: link rule spine-mesh selects aus1-sp1, "
        "aus1-sp2, aus1-sp3, aus1-sp4 and 1 more on both sides, so it cables each of them to "
        "itself; narrow one side (role or platform) so the two sides are different devices"
    ]


# PHY-001: border group members live in different MDFs (its family had no failing case)


def _move_br1(example: Path, room: str) -> Path:
    """aus1-br1 and a new rack for it into `room`."""
    replace_in(
        example / ROOMS,
        "      mdf-a-r01: {room: aus1-mdf-a}\n",
        f"      mdf-a-r01: {{room: aus1-mdf-a}}\n      new-r01: {{room: {room}}}\n",
    )
    devices = example / DEVICES
    replace_in(
        devices, "room: aus1-mdf-a\n        rack: mdf-a-r01", f"room: {room}\n        rack: new-r01"
    )
    return devices


def test_phy001_border_in_a_meet_me_room(example: Path) -> None:
    devices = _move_br1(example, "aus1-mmr1")
    assert findings_of(lint_repo(example), "PHY-001") == [
        f"{DEVICES}:{line_of(devices, 'room: aus1-mmr1')}: border aus1-br1 is in aus1-mmr1, a "
        "mmr, not an MDF: meetme's standard stands each border in an MDF of its own and leaves "
        "the MMRs to the carriers' cross-connects; move it to an MDF (a room of `kind: mdf`)"
    ]


def test_phy001_both_borders_in_one_mdf(example: Path) -> None:
    devices = _move_br1(example, "aus1-mdf-b")
    assert findings_of(lint_repo(example), "PHY-001") == [
        f"{DEVICES}:{line_of(devices, 'room: aus1-mdf-b', 2)}: border aus1-br2 shares MDF "
        "aus1-mdf-b with aus1-br1"
    ]


def test_phy001_a_leaf_outside_an_mdf_is_fine(example: Path) -> None:
    assert findings_of(lint_repo(example), "PHY-001") == []


# PHY-005: a party with a single circuit has no redundancy to check (EDGE-004 warns instead)


def test_phy005_single_circuit_party_is_not_judged(example: Path) -> None:
    circuits = example / "intent/aus1/circuits.yaml"
    text = circuits.read_text()
    circuits.write_text("".join(line for line in text.splitlines(True) if "XC-PNI-2:" not in line))
    peering = example / "intent/aus1/peering.yaml"
    text = peering.read_text()
    peering.write_text("".join(line for line in text.splitlines(True) if "XC-PNI-2," not in line))
    result = lint_repo(example)
    assert findings_of(result, "PHY-005") == []
    assert len(findings_of(result, "EDGE-004")) == 1


# PHY-006: without super-spines, every spine uplinks to the borders, linked or not


def test_phy006_spine_that_no_link_rule_reaches(example: Path) -> None:
    replace_in(
        example / LINKS,
        'a: {role: spine, interface: "Ethernet{n}/1", first: 1, peer_id_base: 1}',
        'a: {role: spine, platform: arista_eos, interface: "Ethernet{n}/1", first: 1, '
        "peer_id_base: 1}",
    )
    devices = example / DEVICES
    replace_in(
        devices,
        "      # Leaves:",
        "      aus1-sp5: {id: 15, role: spine, platform: cisco_nxos, model: N9K-C9364D-GX2A, "
        "room: aus1-dh2, rack: dh2-r02, management: 192.168.10.25/24, power_feeds: [A, B]}\n"
        "      # Leaves:",
    )
    assert findings_of(lint_repo(example), "PHY-006") == [
        f"{DEVICES}:{line_of(devices, 'aus1-sp5:')}: spine aus1-sp5 has no link to border "
        "aus1-br1, aus1-br2; link it to every border (a link rule or explicit links)"
    ]


# PHY-004 names the first member a third one shares a failure domain with


def test_phy004_two_of_three_members_in_rooms_on_one_floor(example: Path) -> None:
    """aus1-lf1 (aus1-dh1) and aus1-bl1 (aus1-mdf-a) stand in two rooms on floor 1, aus1-lf3
    (aus1-dh2) on floor 2: one shared floor, at the later member's room; none in one room."""
    rooms = example / ROOMS
    rooms.write_text(
        rooms.read_text()
        + "    redundancy_groups:\n      trio: {members: [aus1-lf1, aus1-bl1, aus1-lf3]}\n"
    )
    floor = f"{ROOMS}:{line_of(rooms, 'floor: 1', 2)}: redundancy group trio:"  # aus1-mdf-a's
    assert findings_of(lint_repo(example), "PHY-004") == [
        f"{floor} aus1-bl1 shares floor 1 with aus1-lf1; members must not share a floor",
    ]


def test_phy004_leaves_the_floor_and_rack_of_one_room_to_phy003(example: Path) -> None:
    """aus1-lf1, aus1-lf2 (one rack) and aus1-lf5, all in aus1-dh1: their rack and floor come
    with the room, which PHY-003 names for each; moving them apart moves the rest."""
    rooms = example / ROOMS
    rooms.write_text(
        rooms.read_text()
        + "    redundancy_groups:\n      trio: {members: [aus1-lf1, aus1-lf2, aus1-lf5]}\n"
    )
    result = lint_repo(example)
    assert findings_of(result, "PHY-004") == []
    assert [m.split(": ", 2)[2].split(" shares ")[0] for m in findings_of(result, "PHY-003")] == [
        "aus1-lf2",
        "aus1-lf5",
    ]
