"""PHY-002..007 and PHY-010: each rule passes on the example and fails on one realistic edit."""

from pathlib import Path

from conftest import findings_of, line_of, lint_repo, replace_in

PHY_RULES = ("PHY-002", "PHY-003", "PHY-004", "PHY-005", "PHY-006", "PHY-007", "PHY-010")

# An extra 400G link between spine 1 and border 1, on free ports and a free address index.
SP1_BR1_LINK = """\
    links:
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
        "from another loop"
    ]
    assert result.errors


def test_phy004_border_mdfs_on_one_floor(example: Path) -> None:
    rooms = example / "intent/aus1/rooms.yaml"
    replace_in(rooms, "kind: mdf\n        floor: 2", "kind: mdf\n        floor: 1")
    result = lint_repo(example)
    line = line_of(rooms, "floor: 1", occurrence=3)  # mmr1, mdf-a, mdf-b
    assert findings_of(result, "PHY-004") == [
        f"intent/aus1/rooms.yaml:{line}: the border group: aus1-br2 shares floor 1 with "
        "aus1-br1; members must not share a floor"
    ]
    assert result.errors


def test_phy004_declared_leaf_pair_in_one_rack(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    site.write_text(
        site.read_text() + "    redundancy_groups:\n"
        "      leaf-pair: {members: [aus1-lf1, aus1-lf2]}\n"
    )
    devices = example / "intent/aus1/devices.yaml"
    rooms = example / "intent/aus1/rooms.yaml"
    result = lint_repo(example)
    rack_line = line_of(devices, "rack: dh1-r10", occurrence=2)  # aus1-lf2's rack
    floor_line = line_of(rooms, "floor: 1", occurrence=3)  # aus1-dh1's floor
    assert findings_of(result, "PHY-004") == [
        f"intent/aus1/devices.yaml:{rack_line}: redundancy group leaf-pair: aus1-lf2 shares "
        "rack dh1-r10 with aus1-lf1; members must not share a rack",
        f"intent/aus1/rooms.yaml:{floor_line}: redundancy group leaf-pair: aus1-lf2 shares "
        "floor 1 with aus1-lf1; members must not share a floor",
    ]
    assert result.errors


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
        "aus1-br2 or its room aus1-mdf-b"
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
