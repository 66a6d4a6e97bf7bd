"""EVPN-*, the overlay: each rule passes on the example and fails on one realistic edit, at the
exact line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import (
    TENANTS,
    edit_tenants,
)
from typer.testing import CliRunner

from meetme.cli import app

LEAF_TO_SPINE_CUMULUS = (
    '        b: {role: spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}\n'
    "        speed: 400G\n"
    "      - name: leaf-to-spine-nxos"
)


def test_example_has_no_overlay_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


# --- EVPN-001: underlay MTU ------------------------------------------------------------------


def lower_leaf_spine_mtu(repo: Path, mtu: int) -> Path:
    links = repo / "intent/aus1/links.yaml"
    replace_in(
        links,
        LEAF_TO_SPINE_CUMULUS,
        LEAF_TO_SPINE_CUMULUS.replace("speed: 400G\n", f"speed: 400G\n        mtu: {mtu}\n"),
    )
    return links


def test_evpn001_link_rule_mtu_below_the_overlay_need(example: Path) -> None:
    links = lower_leaf_spine_mtu(example, 9000)  # the example's largest network MTU is 9000
    result = lint_repo(example)
    assert findings_of(result, "EVPN-001") == [
        f"intent/aus1/links.yaml:{line_of(links, 'mtu: 9000')}: IP MTU 9000 on fabric link "
        "aus1-lf1 swp61 - aus1-sp1 Ethernet9/1 and 15 more (rule leaf-to-spine-cumulus) is below "
        "9050: network gpu-tenant-a/gpu-a-compute-1 has mtu 9000 and VXLAN over IPv4 adds 50 "
        "bytes (the VTEPs strip the 802.1Q tag); VTEPs do not fragment, so larger frames are "
        "dropped. Set mtu to at least 9050"
    ]
    assert result.errors


def test_evpn001_mtu_with_exactly_the_overhead_passes(example: Path) -> None:
    lower_leaf_spine_mtu(example, 9050)
    assert findings_of(lint_repo(example), "EVPN-001") == []


def test_evpn001_cli_exits_1_at_the_lowered_mtu_line(example: Path) -> None:
    links = lower_leaf_spine_mtu(example, 9000)
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 1, result.output
    line = line_of(links, "mtu: 9000")
    # text output: the file, then `line:column  severity  rule  message` under it
    section = result.output.split("intent/aus1/links.yaml\n", 1)[1]
    assert re.search(rf"^\s+{line}:\d+\s+error\s+EVPN-001\s+IP MTU 9000 ", section, re.M)


def test_evpn001_site_underlay_mtu_is_reported_once_at_its_line(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "mtu: 9214", "mtu: 9000")
    result = lint_repo(example)
    # every link rule without an mtu of its own takes the site's: one finding, at that line
    assert findings_of(result, "EVPN-001") == [
        f"intent/aus1/site.yaml:{line_of(site, 'mtu: 9000')}: IP MTU 9000 on fabric link "
        "aus1-bl1 Ethernet1/1 - aus1-br1 HundredGigE0/0/0/8 and 63 more (rule "
        "border-leaf-to-border-eos, rule border-leaf-to-border-nxos, rule "
        "border-leaf-to-border-cumulus, rule leaf-to-spine-cumulus, rule leaf-to-spine-nxos, "
        "rule spine-to-border) is below 9050: network gpu-tenant-a/gpu-a-compute-1 has mtu "
        "9000 and VXLAN over IPv4 adds 50 bytes (the VTEPs strip the 802.1Q tag); VTEPs do not "
        "fragment, so larger frames are dropped. Set mtu to at least 9050"
    ]


def test_evpn001_explicit_link_mtu(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    links.write_text(
        links.read_text()  # after the border pair's explicit links
        + "      - a: {device: aus1-sp1, interface: Ethernet5/1}\n"
        + "        b: {device: aus1-br1, interface: FourHundredGigE0/0/0/30}\n"
        + "        index: 100\n"
        + "        speed: 400G\n"
        + "        mtu: 9000\n"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-001") == [
        f"intent/aus1/links.yaml:{line_of(links, 'mtu: 9000')}: IP MTU 9000 on fabric link "
        "aus1-sp1 Ethernet5/1 - aus1-br1 FourHundredGigE0/0/0/30 (link #2) is below 9050: "
        "network gpu-tenant-a/gpu-a-compute-1 has mtu 9000 and VXLAN over IPv4 adds 50 bytes "
        "(the VTEPs strip the 802.1Q tag); VTEPs do not fragment, so larger frames are dropped. "
        "Set mtu to at least 9050"
    ]


def test_evpn001_network_mtu_no_link_can_carry(example: Path) -> None:
    """The advice keeps to the links as written (the site's 9214 underlay): following it
    gives a clean lint, where 9166 (from the 9216 a link could take) failed the link check."""
    tenants = edit_tenants(
        example, "l2vni: 10101, gateway_v4", "l2vni: 10101, mtu: 9200, gateway_v4"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-001") == [
        f"{TENANTS}:{line_of(tenants, 'mtu: 9200')}: network gpu-tenant-a/gpu-a-compute-1 has "
        "mtu 9200: VXLAN over IPv4 adds 50 bytes, and no fabric link takes an IP MTU of 9250 "
        "(at most 9216; this site's links take 9214); lower the network's mtu to at most 9164"
    ]
    replace_in(tenants, "mtu: 9200", "mtu: 9164")
    assert findings_of(lint_repo(example), "EVPN-001") == []


# --- EVPN-002: VNI uniqueness; EVPN-015: VRF names -------------------------------------------


def test_evpn002_l2vni_reused(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 201, l2vni: 10201", "vlan: 201, l2vni: 10101")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-002") == [
        f"{TENANTS}:{line_of(tenants, 'storage-front-1:')}: L2VNI 10101 of network "
        "storage/storage-front-1 is already the L2VNI of network gpu-tenant-a/gpu-a-compute-1: "
        "one VNI is one segment fabric-wide, so their traffic would mix; choose an unused VNI"
    ]
    assert result.errors


def test_evpn002_l3vni_equal_to_an_l2vni(example: Path) -> None:
    tenants = edit_tenants(example, "{l3vni: 50010, vlan: 3010}", "{l3vni: 10104, vlan: 3010}")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-002") == [
        f"{TENANTS}:{line_of(tenants, 'l3vni: 10104')}: L3VNI 10104 of VRF storage of tenant "
        "storage is already the L2VNI of network gpu-tenant-a/gpu-a-compute-4: one VNI is one "
        "segment fabric-wide, so their traffic would mix; choose an unused VNI"
    ]


def test_evpn015_two_tenants_declare_one_vrf_name(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "          storage: {l3vni: 50010, vlan: 3010}\n",
        "          storage: {l3vni: 50010, vlan: 3010}\n          gpu-a: {l3vni: 50011}\n",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-015") == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a: {l3vni: 50011}')}: VRF gpu-a of tenant storage "
        "has the name of a VRF of tenant gpu-tenant-a: devices name VRFs without the tenant, so "
        "the two would be one VRF; rename one"
    ]


# --- EVPN-003: VLANs per switch; EVPN-016: reserved VLANs ------------------------------------


def test_evpn003_two_networks_one_vlan_on_shared_leaves(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 211, l2vni: 10211", "vlan: 111, l2vni: 10211")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-003") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 111, l2vni: 10211')}: VLAN 111 of network "
        "storage/storage-back-1 is also the VLAN of network gpu-tenant-a/gpu-a-oob-1 on "
        "aus1-lf1, aus1-lf2, aus1-lf3, aus1-lf4: one VLAN id is one bridge domain per switch; "
        "choose another VLAN id"
    ]
    assert result.errors


def test_evpn003_one_vlan_on_disjoint_racks_is_fine(example: Path) -> None:
    # gpu-a-compute-1 lives on dh1-r10 only, storage-front-1 on dh2-r10 only
    edit_tenants(example, "vlan: 201, l2vni: 10201", "vlan: 101, l2vni: 10201")
    assert findings_of(lint_repo(example), "EVPN-003") == []


def test_evpn003_network_vlan_equal_to_an_nxos_l3vni_carrier_vlan(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 202, l2vni: 10202", "vlan: 3010, l2vni: 10202")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-003") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 3010, l2vni: 10202')}: VLAN 3010 of network "
        "storage/storage-front-2 is also the VLAN of VRF storage of tenant storage (L3VNI "
        "carrier) on aus1-lf3, aus1-lf4: one VLAN id is one bridge domain per switch; choose "
        "another VLAN id"
    ]


def test_evpn016_vlan_in_the_nxos_reserved_range(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 203, l2vni: 10203", "vlan: 4000, l2vni: 10203")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-016") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 4000')}: VLAN 4000 of network "
        "storage/storage-front-3 is in 3968-4094, which Cisco NX-OS reserves for internal use, "
        "on aus1-lf3, aus1-lf4; choose a VLAN id outside it"
    ]


def test_evpn016_vlan_in_the_cumulus_reserved_range(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 103, l2vni: 10103", "vlan: 3800, l2vni: 10103")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-016") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 3800')}: VLAN 3800 of network "
        "gpu-tenant-a/gpu-a-compute-3 is in 3725-3999, which NVIDIA Cumulus Linux 5.16 (NVUE) "
        "reserves for internal use, on aus1-lf1, aus1-lf2, aus1-lf5, aus1-lf6; choose a VLAN "
        "id outside it"
    ]


@pytest.mark.parametrize(
    ("vlan", "reserved"), [(3967, False), (3968, True), (4094, True)]
)  # NX-OS reserves 3968-4094: the first id below it is free, both ends are in it
def test_evpn016_nxos_reserved_range_boundaries(example: Path, vlan: int, reserved: bool) -> None:
    edit_tenants(example, "vlan: 203, l2vni: 10203", f"vlan: {vlan}, l2vni: 10203")
    hits = findings_of(lint_repo(example), "EVPN-016")
    assert len(hits) == (1 if reserved else 0), hits
    assert all(f"VLAN {vlan} of network storage/storage-front-3 is in 3968-4094" in h for h in hits)


@pytest.mark.parametrize(
    ("vlan", "reserved"), [(3724, False), (3725, True), (3999, True), (4000, False)]
)  # Cumulus 5.x reserves 3725-3999
def test_evpn016_cumulus_reserved_range_boundaries(
    example: Path, vlan: int, reserved: bool
) -> None:
    edit_tenants(example, "vlan: 103, l2vni: 10103", f"vlan: {vlan}, l2vni: 10103")
    hits = findings_of(lint_repo(example), "EVPN-016")
    assert len(hits) == (1 if reserved else 0), hits


# --- EVPN-004: route targets -----------------------------------------------------------------


def test_evpn004_explicit_rt_of_another_vni(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "gateway_v4: 10.50.2.1/24,",
        'route_target: "65000:10101", gateway_v4: 10.50.2.1/24,',
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-004") == [
        f"{TENANTS}:{line_of(tenants, '65000:10101')}: route target 65000:10101 of network "
        "gpu-tenant-a/gpu-a-compute-2 (VNI 10102) is also the route target of network "
        "gpu-tenant-a/gpu-a-compute-1 (VNI 10101): VTEPs would import each one's routes into "
        "the other; give each VNI its own route target"
    ]
    assert result.errors


def test_evpn004_explicit_unique_rt_passes(example: Path) -> None:
    edit_tenants(
        example,
        "{l3vni: 50010, vlan: 3010}",
        '{l3vni: 50010, vlan: 3010, route_target: "65010:50010"}',
    )
    assert findings_of(lint_repo(example), "EVPN-004") == []


# --- EVPN-005: L3VNI of routed VRFs ----------------------------------------------------------


def test_evpn005_routed_vrf_without_l3vni(example: Path) -> None:
    tenants = edit_tenants(example, "storage: {l3vni: 50010, vlan: 3010}", "storage: {vlan: 3010}")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-005") == [
        f"{TENANTS}:{line_of(tenants, 'storage: {vlan: 3010}')}: VRF storage of tenant storage "
        "has networks with an anycast gateway (storage-front-1, storage-front-2, "
        "storage-front-3, storage-front-4) but no l3vni: symmetric IRB needs one to route "
        "between leaves; give the VRF an unused l3vni"
    ]
    assert result.errors


def test_evpn005_l2_only_vrf_needs_no_l3vni(example: Path) -> None:
    tenants = example / TENANTS
    replace_in(
        tenants,
        "storage: {l3vni: 50010, vlan: 3010}",
        "storage: {l3vni: 50010, vlan: 3010}\n          storage-l2: {}",
    )
    replace_in(tenants, "{vrf: storage, vlan: 211", "{vrf: storage-l2, vlan: 211")
    replace_in(tenants, "{vrf: storage, vlan: 212", "{vrf: storage-l2, vlan: 212")
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


# --- EVPN-006, EVPN-017, EVPN-018: gateways --------------------------------------------------


def test_evpn017_overlapping_gateways_in_one_vrf(example: Path) -> None:
    tenants = edit_tenants(example, "gateway_v4: 10.50.2.1/24", "gateway_v4: 10.50.1.129/25")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-017") == [
        f"{TENANTS}:{line_of(tenants, '10.50.1.129/25')}: gateway_v4 10.50.1.129/25 of network "
        "gpu-tenant-a/gpu-a-compute-2 overlaps 10.50.1.1/24 of network "
        "gpu-tenant-a/gpu-a-compute-1 in VRF gpu-a: the VRF would have two connected routes for "
        "the same hosts; give each network its own subnet"
    ]
    assert result.errors


def test_evpn017_same_subnet_in_another_vrf_is_fine(example: Path) -> None:
    edit_tenants(example, "gateway_v4: 10.60.1.1/24", "gateway_v4: 10.50.1.1/24")
    assert findings_of(lint_repo(example), "EVPN-017") == []


def test_evpn006_gateway_on_the_broadcast_address(example: Path) -> None:
    tenants = edit_tenants(example, "gateway_v4: 10.50.3.1/24", "gateway_v4: 10.50.3.255/24")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-006") == [
        f"{TENANTS}:{line_of(tenants, '10.50.3.255/24')}: gateway_v4 10.50.3.255/24 of network "
        "gpu-tenant-a/gpu-a-compute-3 is the subnet's broadcast address; use a host address "
        "such as 10.50.3.1"
    ]


def test_evpn006_gateway_on_the_network_address(example: Path) -> None:
    tenants = edit_tenants(example, "gateway_v4: 10.50.4.1/24", "gateway_v4: 10.50.4.0/24")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-006") == [
        f"{TENANTS}:{line_of(tenants, '10.50.4.0/24')}: gateway_v4 10.50.4.0/24 of network "
        "gpu-tenant-a/gpu-a-compute-4 is the subnet's network address; use a host address "
        "such as 10.50.4.1"
    ]


def test_evpn006_v6_gateway_on_the_subnet_router_anycast_address(example: Path) -> None:
    tenants = edit_tenants(example, '"2001:db8:50:1::1/64"', '"2001:db8:50:1::/64"')
    result = lint_repo(example)
    assert findings_of(result, "EVPN-006") == [
        f"{TENANTS}:{line_of(tenants, '2001:db8:50:1::/64')}: gateway_v6 2001:db8:50:1::/64 of "
        "network gpu-tenant-a/gpu-a-compute-1 is the Subnet-Router anycast address (RFC 4291 "
        "2.6.1); use a host address such as 2001:db8:50:1::1"
    ]


@pytest.mark.parametrize(
    ("mac", "problem"),
    [
        ("01:1c:73:00:00:99", "is a group (multicast) MAC: its first octet is odd (the IEEE 802 "
         "individual/group bit)"),
        ("ff:ff:ff:ff:ff:ff", "is the broadcast MAC"),
        # was clean (exit 0) and rendered as every VTEP's gateway MAC
        ("00:00:00:00:00:00", "is all zeros, no station's address"),
    ],
)  # fmt: skip
def test_evpn018_an_anycast_mac_no_station_may_own(example: Path, mac: str, problem: str) -> None:
    tenants = edit_tenants(example, '"00:1c:73:00:00:99"', f'"{mac}"')
    assert findings_of(lint_repo(example), "EVPN-018") == [
        f"{TENANTS}:{line_of(tenants, 'anycast_mac:')}: anycast_mac {mac} {problem}; use a "
        "unicast MAC (first octet even, e.g. 00:1c:73:00:00:99)"
    ]


@pytest.mark.parametrize(
    ("mac", "group"),
    [
        ("01:1c:73:00:00:99", True),
        ("03:00:00:00:00:01", True),
        ("02:1c:73:00:00:99", False),
        ("ff:ff:ff:ff:ff:ff", True),  # broadcast: every bit set, the group bit too
        ("00:00:00:00:00:00", True),  # all zeros: no station's address
        ("00:00:00:00:00:01", False),  # the lowest unicast MAC
    ],
)  # the group bit is the low bit of the first octet; a locally administered unicast MAC is fine
def test_evpn018_group_bit_boundary(example: Path, mac: str, group: bool) -> None:
    edit_tenants(example, '"00:1c:73:00:00:99"', f'"{mac}"')
    hits = findings_of(lint_repo(example), "EVPN-018")
    assert len(hits) == (1 if group else 0), hits


# --- EVPN-009, EVPN-019..021: platform, overlay mode, placement ------------------------------


def test_evpn019_ibgp_overlay_is_not_rendered(example: Path) -> None:
    tenants = edit_tenants(example, "mode: ebgp", "mode: ibgp")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-019") == [
        f"{TENANTS}:{line_of(tenants, 'mode: ibgp')}: evpn mode ibgp needs an IGP underlay "
        "(OSPF or IS-IS) to reach the route reflectors' loopbacks, and meetme renders an eBGP "
        "underlay only; set mode: ebgp"
    ]
    assert result.errors


def test_evpn020_network_named_on_a_spine(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10]}",
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10], leaves: [aus1-sp3]}",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-020") == [
        f"{TENANTS}:{line_of(tenants, 'aus1-sp3')}: network storage/storage-front-4 names "
        "aus1-sp3, a spine: only leaves and border leaves are VTEPs, so nothing would carry it "
        "there; name a leaf or a rack of leaves"
    ]


def test_evpn020_network_on_a_rack_without_leaves(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "gateway_v4: 10.60.3.1/24, racks: [dh2-r10]}",
        "gateway_v4: 10.60.3.1/24, racks: [dh2-r01]}",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-020") == [
        f"{TENANTS}:{line_of(tenants, 'dh2-r01')}: network storage/storage-front-3 is placed on "
        "rack dh2-r01, which holds no leaf or border leaf, so no device there carries it; name "
        "a rack of leaves"
    ]


@pytest.mark.parametrize(
    ("old", "new", "carried"),
    [
        (  # no rack, no leaf, no attachment: carried by nothing
            "gateway_v4: 10.60.3.1/24, racks: [dh2-r10]}",
            "gateway_v4: 10.60.3.1/24, racks: []}",
            False,
        ),
        (  # the same without the key at all
            "gateway_v4: 10.60.3.1/24, racks: [dh2-r10]}",
            "gateway_v4: 10.60.3.1/24}",
            False,
        ),
        (  # the boundary: one leaf named is enough
            "gateway_v4: 10.60.3.1/24, racks: [dh2-r10]}",
            "gateway_v4: 10.60.3.1/24, leaves: [aus1-lf3]}",
            True,
        ),
    ],
)
def test_evpn026_a_network_carried_by_no_leaf(
    example: Path, old: str, new: str, carried: bool
) -> None:
    """`racks: []` linted clean and rendered the network on no switch at all."""
    tenants = edit_tenants(example, old, new)
    expected = [
        f"{TENANTS}:{line_of(tenants, new)}: network storage/storage-front-3 is carried by no "
        "leaf: it names no rack and no leaf, so no switch renders its VLAN, VNI or gateway; "
        "place it on the racks whose leaves its hosts are cabled to (racks:), or remove it"
    ]
    assert findings_of(lint_repo(example), "EVPN-026") == ([] if carried else expected)


def test_evpn026_leaves_a_network_two_attachments_trunk_to_mh003(example: Path) -> None:
    """gpu-a-compute-3 off its racks is still trunked by two host attachments: MH-003 names
    each attachment's leaves (an error), and EVPN-026 says nothing more."""
    tenants = example / TENANTS
    text = tenants.read_text()
    line = next(t for t in text.splitlines() if "gpu-a-compute-3:" in t)
    tenants.write_text(text.replace(line, line.split(", racks:")[0] + "}"))
    result = lint_repo(example)
    assert findings_of(result, "EVPN-026") == []
    assert len(findings_of(result, "MH-003")) == 2


def test_evpn009_vtep_on_a_platform_without_evpn(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "role: border_leaf\n        platform: arista_eos",
        "role: border_leaf\n        platform: cisco_iosxr",
    )  # aus1-bl1
    # its AWS port takes the IOS-XR spelling: an EOS name on an IOS-XR box is refused at load
    replace_in(
        example / "intent/aus1/circuits.yaml",
        "device: aus1-bl1, interface: Ethernet9/1,",
        "device: aus1-bl1, interface: HundredGigE0/0/0/9,",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-009") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'platform: cisco_iosxr', 3)}: aus1-bl1 is "
        "a border_leaf in the EVPN-VXLAN fabric on Cisco IOS-XR, for which meetme renders no "
        "EVPN-VXLAN; use a platform that has it (Arista EOS, Cisco NX-OS, NVIDIA Cumulus Linux "
        "5.16 (NVUE))"
    ]


def test_evpn009_advises_only_platforms_on_which_the_role_renders(example: Path) -> None:
    """A spine is an EVPN route server: NVUE has EVPN but no form for keeping the VTEP's next
    hop (PLAT-007), so only EOS and NX-OS are named."""
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "aus1-sp1:\n        id: 11\n        role: spine\n        platform: arista_eos",
        "aus1-sp1:\n        id: 11\n        role: spine\n        platform: cisco_iosxr",
    )
    assert findings_of(lint_repo(example), "EVPN-009") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'platform: cisco_iosxr', 3)}: aus1-sp1 is "
        "a spine in the EVPN-VXLAN fabric on Cisco IOS-XR, for which meetme renders no "
        "EVPN-VXLAN; use a platform that has it (Arista EOS, Cisco NX-OS)"
    ]


def test_evpn021_nxos_vrf_without_carrier_vlan(example: Path) -> None:
    tenants = edit_tenants(
        example, "storage: {l3vni: 50010, vlan: 3010}", "storage: {l3vni: 50010}"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-021") == [
        f"{TENANTS}:{line_of(tenants, 'storage: {l3vni: 50010}')}: VRF storage of tenant "
        "storage is carried by aus1-bl3, aus1-bl4, aus1-lf3, aus1-lf4 on Cisco NX-OS, which "
        "maps the L3VNI 50010 through a carrier VLAN: give the VRF a vlan (an id no network on "
        "those switches uses)"
    ]


def test_evpn021_cumulus_only_vrf_needs_no_carrier_vlan(example: Path) -> None:
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {l3vni: 50001}")
    # gpu-a on Cumulus racks only: its public network moves from the NX-OS rack to an
    # IPv6-only one on a Cumulus rack (a /26 leaves no per-leaf SVI address for NVUE ids > 62)
    edit_tenants(
        example,
        'gateway_v4: 198.51.100.129/26, gateway_v6: "2001:db8:4000:50::1/64", racks: [dh2-r10]',
        'gateway_v6: "2001:db8:4000:50::1/64", racks: [dh1-r10]',
    )
    replace_in(
        example / "intent/aus1/attachments.yaml", "public: [198.51.100.128/26, ", "public: ["
    )
    assert findings_of(lint_repo(example), "EVPN-021") == []


# --- EVPN-010: overlay settings; EVPN-022: VTEP addresses ------------------------------------


def test_evpn022_no_vtep_pool(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    vtep_pool = "      vtep_v4: 10.0.1.0/24            # VTEP source of leaves and border leaves\n"
    replace_in(site, vtep_pool, "")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-022") == [
        f"intent/aus1/site.yaml:{line_of(site, 'pools:')}: VTEPs aus1-bl1, aus1-bl2, aus1-bl3, "
        "aus1-bl4, aus1-bl5, aus1-bl6, aus1-lf1, aus1-lf2 and 4 more have no VTEP address: "
        "add pools.vtep_v4 (one /32 per device id) or give each of them vtep_v4"
    ]
    assert result.errors


def test_evpn010_networks_without_evpn_settings(example: Path) -> None:
    tenants = example / TENANTS
    text = tenants.read_text()
    start, end = text.index("    evpn:\n"), text.index("    tenants:\n")
    tenants.write_text(text[:start] + text[end:])
    result = lint_repo(example)
    assert findings_of(result, "EVPN-010") == [
        f"{TENANTS}:{line_of(tenants, 'tenants:')}: site aus1 declares networks "
        "(gpu-a-compute-1, gpu-a-compute-2, gpu-a-compute-3, ...) but no evpn settings, so no "
        "device renders them; add evpn: {anycast_mac: ...} to the site"
    ]


# --- EVPN-014: VNIs fit the RD ---------------------------------------------------------------


def test_evpn014_a_vni_above_the_rd_range(example: Path) -> None:
    tenants = example / "intent/aus1/tenants.yaml"
    replace_in(tenants, "l2vni: 10101,", "l2vni: 100101,")
    replace_in(tenants, "gpu-a:      {l3vni: 50001,", "gpu-a:      {l3vni: 70001,")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-014") == [
        f"intent/aus1/tenants.yaml:{line_of(tenants, 'l3vni: 70001')}: VRF gpu-a of gpu-tenant-a: "
        "L3VNI 70001 does not fit the RD router-id:VNI (at most 65535); choose a VNI up to 65535",
        f"intent/aus1/tenants.yaml:{line_of(tenants, 'l2vni: 100101')}: network gpu-a-compute-1 "
        "of gpu-tenant-a: L2VNI 100101 does not fit the RD router-id:VNI (at most 65535); "
        "choose a VNI up to 65535",
    ]
    assert result.errors


@pytest.mark.parametrize(("vni", "fits"), [(65535, True), (65536, False)])
def test_evpn014_rd_boundary(example: Path, vni: int, fits: bool) -> None:
    edit_tenants(example, "l2vni: 10101,", f"l2vni: {vni},")
    hits = findings_of(lint_repo(example), "EVPN-014")
    assert len(hits) == (0 if fits else 1), hits
    assert all(f"L2VNI {vni} does not fit the RD router-id:VNI" in h for h in hits)
