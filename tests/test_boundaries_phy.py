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
