"""EVPN-*: each rule passes on the example and fails on one realistic edit, at the exact line."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError

TENANTS = "intent/aus1/tenants.yaml"
LEAF_TO_SPINE_CUMULUS = (
    '        b: {role: spine, interface: "Ethernet{n}/1", first: 9, peer_id_base: 101}\n'
    "        speed: 400G\n"
    "      - name: leaf-to-spine-nxos"
)


def edit_tenants(repo: Path, old: str, new: str) -> Path:
    tenants = repo / TENANTS
    replace_in(tenants, old, new)
    return tenants


def test_example_has_no_evpn_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


# --- EVPN-001: underlay MTU -----------------------------------------------------------------


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
        links.read_text()
        + "    links:\n"
        + "      - a: {device: aus1-sp1, interface: Ethernet5/1}\n"
        + "        b: {device: aus1-br1, interface: FourHundredGigE0/0/0/30}\n"
        + "        index: 100\n"
        + "        speed: 400G\n"
        + "        mtu: 9000\n"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-001") == [
        f"intent/aus1/links.yaml:{line_of(links, 'mtu: 9000')}: IP MTU 9000 on fabric link "
        "aus1-sp1 Ethernet5/1 - aus1-br1 FourHundredGigE0/0/0/30 (link #0) is below 9050: "
        "network gpu-tenant-a/gpu-a-compute-1 has mtu 9000 and VXLAN over IPv4 adds 50 bytes "
        "(the VTEPs strip the 802.1Q tag); VTEPs do not fragment, so larger frames are dropped. "
        "Set mtu to at least 9050"
    ]


def test_evpn001_network_mtu_no_link_can_carry(example: Path) -> None:
    tenants = edit_tenants(
        example, "l2vni: 10101, gateway_v4", "l2vni: 10101, mtu: 9200, gateway_v4"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-001") == [
        f"{TENANTS}:{line_of(tenants, 'mtu: 9200')}: network gpu-tenant-a/gpu-a-compute-1 has "
        "mtu 9200: VXLAN over IPv4 adds 50 bytes, and no fabric link takes an IP MTU of 9250 "
        "(at most 9216); lower the network's mtu to at most 9166"
    ]


# --- EVPN-002: VNI uniqueness -----------------------------------------------------------------


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


def test_evpn002_two_tenants_declare_one_vrf_name(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "          storage: {l3vni: 50010, vlan: 3010}\n",
        "          storage: {l3vni: 50010, vlan: 3010}\n          gpu-a: {l3vni: 50011}\n",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-002") == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a: {l3vni: 50011}')}: VRF gpu-a of tenant storage "
        "has the name of a VRF of tenant gpu-tenant-a: devices name VRFs without the tenant, so "
        "the two would be one VRF; rename one"
    ]


# --- EVPN-003: VLANs per switch -------------------------------------------------------------


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


def test_evpn003_vlan_in_the_nxos_reserved_range(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 203, l2vni: 10203", "vlan: 4000, l2vni: 10203")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-003") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 4000')}: VLAN 4000 of network "
        "storage/storage-front-3 is in 3968-4094, which Cisco NX-OS reserves for internal use, "
        "on aus1-lf3, aus1-lf4; choose a VLAN id outside it"
    ]


def test_evpn003_vlan_in_the_cumulus_reserved_range(example: Path) -> None:
    tenants = edit_tenants(example, "vlan: 103, l2vni: 10103", "vlan: 3800, l2vni: 10103")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-003") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 3800')}: VLAN 3800 of network "
        "gpu-tenant-a/gpu-a-compute-3 is in 3725-3999, which NVIDIA Cumulus Linux 5.16 (NVUE) "
        "reserves for internal use, on aus1-lf1, aus1-lf2, aus1-lf5, aus1-lf6; choose a VLAN "
        "id outside it"
    ]


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


# --- EVPN-005: L3VNI of routed VRFs ------------------------------------------------------------


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


# --- EVPN-006: gateways -----------------------------------------------------------------------


def test_evpn006_overlapping_gateways_in_one_vrf(example: Path) -> None:
    tenants = edit_tenants(example, "gateway_v4: 10.50.2.1/24", "gateway_v4: 10.50.1.129/25")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-006") == [
        f"{TENANTS}:{line_of(tenants, '10.50.1.129/25')}: gateway_v4 10.50.1.129/25 of network "
        "gpu-tenant-a/gpu-a-compute-2 overlaps 10.50.1.1/24 of network "
        "gpu-tenant-a/gpu-a-compute-1 in VRF gpu-a: the VRF would have two connected routes for "
        "the same hosts; give each network its own subnet"
    ]
    assert result.errors


def test_evpn006_same_subnet_in_another_vrf_is_fine(example: Path) -> None:
    edit_tenants(example, "gateway_v4: 10.60.1.1/24", "gateway_v4: 10.50.1.1/24")
    assert findings_of(lint_repo(example), "EVPN-006") == []


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


def test_evpn006_multicast_anycast_mac(example: Path) -> None:
    tenants = edit_tenants(example, '"00:1c:73:00:00:99"', '"01:1c:73:00:00:99"')
    result = lint_repo(example)
    assert findings_of(result, "EVPN-006") == [
        f"{TENANTS}:{line_of(tenants, 'anycast_mac:')}: anycast_mac 01:1c:73:00:00:99 is a "
        "group (multicast) address: its first octet is odd; use a unicast MAC (first octet "
        "even, e.g. 00:1c:73:00:00:99)"
    ]


# --- EVPN-009: platform, role and overlay mode ------------------------------------------------


def test_evpn009_ibgp_overlay_is_not_rendered(example: Path) -> None:
    tenants = edit_tenants(example, "mode: ebgp", "mode: ibgp")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-009") == [
        f"{TENANTS}:{line_of(tenants, 'mode: ibgp')}: evpn mode ibgp needs an IGP underlay "
        "(OSPF or IS-IS) to reach the route reflectors' loopbacks, and meetme renders an eBGP "
        "underlay only; set mode: ebgp"
    ]
    assert result.errors


def test_evpn009_network_named_on_a_spine(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10]}",
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10], leaves: [aus1-sp3]}",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-009") == [
        f"{TENANTS}:{line_of(tenants, 'aus1-sp3')}: network storage/storage-front-4 names "
        "aus1-sp3, a spine: only leaves and border leaves are VTEPs, so nothing would carry it "
        "there; name a leaf or a rack of leaves"
    ]


def test_evpn009_network_on_a_rack_without_leaves(example: Path) -> None:
    tenants = edit_tenants(
        example,
        "gateway_v4: 10.60.3.1/24, racks: [dh2-r10]}",
        "gateway_v4: 10.60.3.1/24, racks: [dh2-r01]}",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-009") == [
        f"{TENANTS}:{line_of(tenants, 'dh2-r01')}: network storage/storage-front-3 is placed on "
        "rack dh2-r01, which holds no leaf or border leaf, so no device there carries it; name "
        "a rack of leaves"
    ]


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


def test_evpn009_nxos_vrf_without_carrier_vlan(example: Path) -> None:
    tenants = edit_tenants(
        example, "storage: {l3vni: 50010, vlan: 3010}", "storage: {l3vni: 50010}"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-009") == [
        f"{TENANTS}:{line_of(tenants, 'storage: {l3vni: 50010}')}: VRF storage of tenant "
        "storage is carried by aus1-lf3, aus1-lf4 on Cisco NX-OS, which maps the L3VNI 50010 "
        "through a carrier VLAN: give the VRF a vlan (an id no network on those leaves uses)"
    ]


def test_evpn009_cumulus_only_vrf_needs_no_carrier_vlan(example: Path) -> None:
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {l3vni: 50001}")
    assert findings_of(lint_repo(example), "EVPN-009") == []  # gpu-a: Cumulus racks only


# --- EVPN-010: overlay settings and VTEP addresses ----------------------------------------------


def test_evpn010_no_vtep_pool(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    vtep_pool = "      vtep_v4: 10.0.1.0/24            # VTEP source of leaves and border leaves\n"
    replace_in(site, vtep_pool, "")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-010") == [
        f"intent/aus1/site.yaml:{line_of(site, 'pools:')}: VTEPs aus1-bl1, aus1-bl2, aus1-bl3, "
        "aus1-bl4, aus1-bl5, aus1-bl6, aus1-lf1, aus1-lf2, aus1-lf3, aus1-lf4, aus1-lf5, "
        "aus1-lf6 have no VTEP address: add pools.vtep_v4 (one /32 per device id) or give each "
        "of them vtep_v4"
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


# --- EVPN-008: host attachments ----------------------------------------------------------------

ATTACHMENTS = "intent/aus1/attachments.yaml"
MLAG_PAIR = "dh1-r10-gpu-hosts"
ESI_PAIR = "dh1-r11-gpu-hosts"


def edit_attachments(repo: Path, old: str, new: str) -> Path:
    attachments = repo / ATTACHMENTS
    replace_in(attachments, old, new)
    return attachments


def add_attachment(repo: Path, name: str, body: str) -> Path:
    """A further attachment, written between the example's two (so after the MLAG one)."""
    lines = "".join(f"        {line}\n" for line in textwrap.dedent(body).strip().splitlines())
    return edit_attachments(repo, f"      {ESI_PAIR}:", f"      {name}:\n{lines}      {ESI_PAIR}:")


MORE_MLAG_HOSTS = """
mode: mlag
leaves: [aus1-lf1, aus1-lf2]
ports: [swp5, swp6]
lag_base: 20
segment_base: 10
peer_link: [swp57, swp58]
anycast_vtep: 10.0.1.201/32
lacp_system_mac: "44:38:39:ff:00:01"
networks: [gpu-a-compute-1]
"""


def test_evpn008_a_second_attachment_on_the_mlag_pair_is_fine(example: Path) -> None:
    # the same peer link, system MAC and anycast VTEP; ports and numbers of its own
    add_attachment(example, "dh1-r10-more-hosts", MORE_MLAG_HOSTS)
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


def test_evpn008_one_leaf_named_twice(example: Path) -> None:
    attachments = edit_attachments(
        example, "leaves: [aus1-lf1, aus1-lf2]", "leaves: [aus1-lf1, aus1-lf1]"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[aus1-lf1, aus1-lf1]')}: attachment "
        f"{MLAG_PAIR} names aus1-lf1 twice: a dual-homed host needs two different leaves; name "
        "the other leaf of the pair"
    ]
    assert result.errors


def test_evpn008_a_leaf_that_is_no_vtep(example: Path) -> None:
    attachments = edit_attachments(
        example, "leaves: [aus1-lf5, aus1-lf6]", "leaves: [aus1-lf5, aus1-sp3]"
    )
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'aus1-sp3')}: attachment {ESI_PAIR} names "
        "aus1-sp3, a spine: hosts attach to leaves or border leaves, the VTEPs that carry their "
        "networks; name a leaf pair"
    ]


def test_evpn008_a_pair_of_two_platforms(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "platform: nvidia_nvue\n        model: SN5600\n        room: aus1-dh1\n"
        "        rack: dh1-r10\n        management: 192.168.10.102/24",
        "platform: cisco_nxos\n        model: SN5600\n        room: aus1-dh1\n"
        "        rack: dh1-r10\n        management: 192.168.10.102/24",
    )  # aus1-lf2
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[aus1-lf1, aus1-lf2]')}: attachment {MLAG_PAIR} "
        "pairs aus1-lf1 (NVIDIA Cumulus Linux 5.16 (NVUE)) with aus1-lf2 (Cisco NX-OS): MLAG "
        "runs between two switches of one OS; pair two leaves of one platform"
    ]


def test_evpn008_esi_and_mlag_on_one_pair(example: Path) -> None:
    attachments = add_attachment(
        example,
        "dh1-r10-esi-hosts",
        """
        mode: esi
        leaves: [aus1-lf1, aus1-lf2]
        ports: [swp5]
        lag_base: 20
        segment_base: 10
        lacp_system_mac: "02:00:00:00:10:01"
        networks: [gpu-a-compute-1]
        """,
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'mode: esi')}: attachment dh1-r10-esi-hosts "
        "attaches hosts to aus1-lf1, aus1-lf2 by ESI (EVPN multihoming), but attachment "
        f"{MLAG_PAIR} already does by MLAG: a leaf pair uses ESI or MLAG, never both (loops, "
        "duplicate BUM traffic or split LACP); use mode: mlag"
    ]
    assert result.errors


def test_evpn008_trunked_network_missing_on_one_leaf(example: Path) -> None:
    edit_tenants(
        example,
        '"2001:db8:50:1::1/64", racks: [dh1-r10]}',
        '"2001:db8:50:1::1/64", leaves: [aus1-lf1]}',
    )
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'networks: [gpu-a-compute-1')}: network "
        f"gpu-tenant-a/gpu-a-compute-1, trunked by attachment {MLAG_PAIR}, is not carried by "
        "aus1-lf2: the hosts' bonds there would trunk a VLAN with no VNI or gateway; add rack "
        "dh1-r10 to the network's racks (or the leaves to its leaves), or stop trunking it"
    ]


def test_evpn008_mlag_without_peer_link_and_anycast_vtep(example: Path) -> None:
    attachments = edit_attachments(
        example, "        peer_link: [swp57, swp58]", "        # no peer link"
    )
    replace_in(attachments, "        anycast_vtep: 10.0.1.201/32", "        # no anycast VTEP")
    at = f"{ATTACHMENTS}:{line_of(attachments, f'{MLAG_PAIR}:')}"
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{at}: MLAG attachment {MLAG_PAIR} has no anycast_vtep: an MLAG pair is one VTEP to "
        "the fabric, so remote VTEPs see its hosts behind one shared address, not flapping "
        "between the two leaves'; give it a free address from pools.vtep_v4",
        f"{at}: MLAG attachment {MLAG_PAIR} has no peer_link: the pair synchronises over a peer "
        "link between the two leaves; list its ports (the same names on both)",
    ]


def test_evpn008_esi_with_a_peer_link(example: Path) -> None:
    # the MLAG pair's peer link, copied into the ESI attachment
    attachments = edit_attachments(
        example,
        "leaves: [aus1-lf5, aus1-lf6]\n",
        "leaves: [aus1-lf5, aus1-lf6]\n        peer_link: [swp57, swp58]\n",
    )
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'swp57', 2)}: ESI attachment {ESI_PAIR} sets "
        "peer_link, an MLAG setting: EVPN multihoming has no peer link and each leaf keeps its "
        "own VTEP address; remove it (or use mode: mlag)"
    ]


def test_evpn008_host_port_on_a_fabric_port(example: Path) -> None:
    attachments = edit_attachments(example, "[swp1, swp2, swp3, swp4]", "[swp1, swp2, swp3, swp61]")
    at = f"{ATTACHMENTS}:{line_of(attachments, 'swp61')}"
    tail = "one port carries one thing; use a free port"
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{at}: host port swp61 of attachment {MLAG_PAIR} is on aus1-lf1 already the fabric "
        f"link aus1-lf1 swp61 - aus1-sp1 Ethernet9/1 (rule leaf-to-spine-cumulus): {tail}",
        f"{at}: host port swp61 of attachment {MLAG_PAIR} is on aus1-lf2 already the fabric "
        f"link aus1-lf2 swp61 - aus1-sp1 Ethernet10/1 (rule leaf-to-spine-cumulus): {tail}",
    ]


def test_evpn008_host_port_is_a_peer_link_port(example: Path) -> None:
    attachments = edit_attachments(example, "[swp1, swp2, swp3, swp4]", "[swp1, swp2, swp3, swp57]")
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'peer_link:')}: peer-link port swp57 of "
        f"attachment {MLAG_PAIR} is already its host port: one port carries one thing; use a "
        "free port"
    ]


def test_evpn008_two_attachments_share_a_port_bonds_and_segment_ids(example: Path) -> None:
    body = MORE_MLAG_HOSTS.replace("[swp5, swp6]", "[swp4, swp5]")
    body = body.replace("lag_base: 20", "lag_base: 12").replace(
        "segment_base: 10", "segment_base: 4"
    )
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[swp4, swp5]')}: host port swp4 of attachment "
        "dh1-r10-more-hosts is on aus1-lf1, aus1-lf2 already the host port of attachment "
        f"{MLAG_PAIR}: one port carries one thing; use a free port",
        f"{ATTACHMENTS}:{line_of(attachments, 'lag_base: 12')}: bonds bond12, bond13 of "
        "attachment dh1-r10-more-hosts on aus1-lf1, aus1-lf2 are also used by attachment "
        f"{MLAG_PAIR}: each host needs a bond of its own; choose a lag_base whose 2 numbers are "
        "free on those leaves",
        f"{ATTACHMENTS}:{line_of(attachments, 'segment_base: 4')}: segment ids 4 of attachment "
        f"dh1-r10-more-hosts on aus1-lf1, aus1-lf2 are also used by attachment {MLAG_PAIR}: a "
        "leaf tells its hosts' bonds apart by them (MLAG id / Ethernet segment); choose a "
        "segment_base whose 2 numbers are free on those leaves",
    ]


def test_evpn008_mlag_pair_with_two_peer_links_and_system_macs(example: Path) -> None:
    body = MORE_MLAG_HOSTS.replace("[swp57, swp58]", "[swp59, swp60]")
    body = body.replace('"44:38:39:ff:00:01"', '"44:38:39:ff:00:02"')
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'swp59')}: peer_link swp59, swp60 of attachment "
        "dh1-r10-more-hosts differs from swp57, swp58 of attachment dh1-r10-gpu-hosts on the "
        "same MLAG pair aus1-lf1, aus1-lf2: the pair has one peer link and one system MAC; "
        "write swp57, swp58",
        f"{ATTACHMENTS}:{line_of(attachments, '44:38:39:ff:00:02')}: lacp_system_mac "
        "44:38:39:ff:00:02 of attachment dh1-r10-more-hosts differs from 44:38:39:ff:00:01 of "
        "attachment dh1-r10-gpu-hosts on the same MLAG pair aus1-lf1, aus1-lf2: the pair has one "
        "peer link and one system MAC; write 44:38:39:ff:00:01",
    ]


def test_evpn008_a_leaf_with_two_mlag_peers(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl5]}",
    )  # gpu-a-oob-1 also on aus1-bl5
    body = MORE_MLAG_HOSTS.replace("[aus1-lf1, aus1-lf2]", "[aus1-lf1, aus1-bl5]")
    body = body.replace("[swp5, swp6]", "[swp40]").replace("[gpu-a-compute-1]", "[gpu-a-oob-1]")
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[aus1-lf1, aus1-bl5]')}: attachment "
        "dh1-r10-more-hosts pairs aus1-lf1 with aus1-bl5 by MLAG, but attachment "
        f"{MLAG_PAIR} pairs it with aus1-lf2: a switch has one MLAG peer; attach these hosts "
        "to aus1-lf1 and aus1-lf2, or use another leaf"
    ]


def test_evpn008_network_name_in_two_tenants(example: Path) -> None:
    edit_tenants(
        example,
        "        networks:\n          storage-front-1:",
        "        networks:\n          gpu-a-compute-1: {vrf: storage, vlan: 221, l2vni: 10221, "
        "racks: [dh2-r10]}\n          storage-front-1:",
    )
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'networks: [gpu-a-compute-1')}: attachment "
        f"{MLAG_PAIR} trunks network gpu-a-compute-1, a name in tenants gpu-tenant-a and "
        "storage: attachments name networks without their tenant, so the hosts would get the "
        "VLANs of all of them; rename all but one of those networks"
    ]


ESI_ON_THE_CUMULUS_BORDER_LEAVES = """
mode: esi
leaves: [aus1-bl5, aus1-bl6]
ports: [swp20]
lacp_system_mac: "44:38:39:ff:00:02"
networks: [storage-back-1]
"""


def border_leaves_carry_storage_back_1(repo: Path) -> None:
    edit_tenants(
        repo,
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10]}",
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10], leaves: [aus1-bl5, aus1-bl6]}",
    )


def test_evpn008_esi_of_another_segment(example: Path) -> None:
    # the same LACP system MAC and segment ids as the example's ESI hosts: the same ESIs
    border_leaves_carry_storage_back_1(example)
    attachments = add_attachment(example, "mdf-storage-hosts", ESI_ON_THE_CUMULUS_BORDER_LEAVES)
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '44:38:39:ff:00:02', 2)}: ESI "
        f"00:44:38:39:ff:00:02:00:00:01 of host 1 of attachment {ESI_PAIR} is also the "
        "ESI of host 1 of attachment mdf-storage-hosts on aus1-bl5, aus1-bl6: an ESI names one "
        "Ethernet segment fabric-wide, so remote VTEPs would treat the two as one; give the "
        "attachment its own lacp_system_mac or a segment_base range of its own"
    ]


def test_evpn008_esi_with_segment_ids_of_its_own_is_fine(example: Path) -> None:
    border_leaves_carry_storage_back_1(example)
    add_attachment(
        example, "mdf-storage-hosts", ESI_ON_THE_CUMULUS_BORDER_LEAVES + "segment_base: 101\n"
    )
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


# --- EVPN-011: MLAG / ESI only where rendered ---------------------------------------------------


NXOS_HOSTS = """
leaves: [aus1-lf3, aus1-lf4]
ports: [Ethernet1/1, Ethernet1/2, Ethernet1/3, Ethernet1/4]
lacp_system_mac: "02:00:00:00:10:03"
networks: [storage-back-1, storage-back-2]
"""


def test_evpn011_esi_on_nxos(example: Path) -> None:
    # Nexus 9000 -EX and later cannot host an Ethernet segment (generators/platforms.py)
    attachments = add_attachment(example, "dh2-r10-storage-hosts", "mode: esi\n" + NXOS_HOSTS)
    result = lint_repo(example)
    assert findings_of(result, "EVPN-011") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'mode: esi')}: attachment dh2-r10-storage-hosts "
        "asks for ESI (EVPN multihoming) on aus1-lf3, aus1-lf4, Cisco NX-OS, for which meetme "
        "renders no ESI (EVPN multihoming); attach the hosts to leaves of a platform that has "
        "it (NVIDIA Cumulus Linux 5.16 (NVUE))"
    ]
    assert result.errors


def test_evpn011_mlag_on_nxos(example: Path) -> None:
    body = "mode: mlag\npeer_link: [Ethernet1/49, Ethernet1/50]\nanycast_vtep: 10.0.1.202/32\n"
    attachments = add_attachment(example, "dh2-r10-storage-hosts", body + NXOS_HOSTS)
    result = lint_repo(example)
    assert findings_of(result, "EVPN-011") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'mode: mlag', 2)}: attachment "
        "dh2-r10-storage-hosts asks for MLAG on aus1-lf3, aus1-lf4, Cisco NX-OS, for which "
        "meetme renders no MLAG; attach the hosts to leaves of a platform that has it (NVIDIA "
        "Cumulus Linux 5.16 (NVUE))"
    ]
    assert result.errors


def test_evpn011_cumulus_renders_mlag_and_esi(example: Path) -> None:
    # the two Cumulus pairs swap modes: the MLAG pair goes ESI, the ESI pair MLAG
    attachments = edit_attachments(example, "mode: mlag", "mode: esi")
    replace_in(attachments, "        peer_link: [swp57, swp58]", "        # no peer link")
    replace_in(attachments, "        anycast_vtep: 10.0.1.201/32", "        # no anycast VTEP")
    replace_in(
        attachments,
        "        mode: esi\n        leaves: [aus1-lf5, aus1-lf6]\n",
        "        mode: mlag\n        leaves: [aus1-lf5, aus1-lf6]\n"
        "        peer_link: [swp57, swp58]\n        anycast_vtep: 10.0.1.202/32\n",
    )
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith("EVPN-")] == []


# --- EVPN-012: the MLAG anycast VTEP -------------------------------------------------------------


def set_anycast_vtep(repo: Path, address: str) -> Path:
    return edit_attachments(repo, "anycast_vtep: 10.0.1.201/32", f"anycast_vtep: {address}")


def test_evpn012_anycast_vtep_is_a_leafs_vtep_address(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.0.1.101/32")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.0.1.101 of "
        f"attachment {MLAG_PAIR} is the vtep_v4 of aus1-lf1: VXLAN meant for that device would "
        "land on the pair; take an address no device uses from pools.vtep_v4"
    ]
    assert result.errors


def test_evpn012_anycast_vtep_is_a_router_id(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.0.0.21/32")
    assert findings_of(lint_repo(example), "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.0.0.21 of "
        f"attachment {MLAG_PAIR} is the loopback_v4 of aus1-bl1: VXLAN meant for that device "
        "would land on the pair; take an address no device uses from pools.vtep_v4"
    ]


def test_evpn012_anycast_vtep_outside_the_loopback_pools(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.9.9.9/32")
    assert findings_of(lint_repo(example), "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.9.9.9 of "
        f"attachment {MLAG_PAIR} is outside pools loopback_v4 10.0.0.0/24 and vtep_v4 "
        "10.0.1.0/24: the underlay route-maps accept fabric loopbacks only, so no VTEP would "
        "learn a route to it; take a free address from pools.vtep_v4"
    ]


def test_evpn012_anycast_vtep_not_a_host_address(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.0.1.201/24")
    assert findings_of(lint_repo(example), "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.0.1.201 of "
        f"attachment {MLAG_PAIR} is not a host address; write it as 10.0.1.201/32"
    ]


def test_evpn012_two_anycast_vteps_on_one_pair(example: Path) -> None:
    body = MORE_MLAG_HOSTS.replace("10.0.1.201/32", "10.0.1.202/32")
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.0.1.202')}: anycast_vtep 10.0.1.202 of "
        f"attachment dh1-r10-more-hosts differs from 10.0.1.201 of attachment {MLAG_PAIR} on "
        "the same MLAG pair aus1-lf1, aus1-lf2: the pair is one VTEP with one address; write "
        "10.0.1.201"
    ]


def test_evpn012_one_anycast_vtep_on_two_pairs(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl5, aus1-bl6]}",
    )  # gpu-a-oob-1 also on the Cumulus border leaves
    body = MORE_MLAG_HOSTS.replace("[aus1-lf1, aus1-lf2]", "[aus1-bl5, aus1-bl6]")
    body = body.replace("[swp5, swp6]", "[swp40]").replace("[gpu-a-compute-1]", "[gpu-a-oob-1]")
    attachments = add_attachment(example, "mdf-hosts", body)
    result = lint_repo(example)
    assert findings_of(result, "EVPN-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.0.1.201', 2)}: anycast_vtep 10.0.1.201 of "
        "attachment mdf-hosts is also the anycast VTEP of attachment "
        f"{MLAG_PAIR} on aus1-lf1, aus1-lf2: two pairs with one VTEP address would receive "
        "each other's VXLAN traffic; give each pair its own"
    ]
    assert findings_of(result, "EVPN-008") == []  # a second, separate MLAG pair is fine


# --- EVPN-013: the border-leaf handoff -----------------------------------------------------------


def test_evpn013_handoff_from_a_leaf(example: Path) -> None:
    attachments = edit_attachments(
        example, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1, aus1-lf1]"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}: handoff border leaf aus1-lf1 "
        "is a leaf: the handoff runs on border leaves, over their links to the border routers; "
        "name a border_leaf"
    ]
    assert result.errors


def test_evpn013_border_leaves_not_cabled_to_the_borders(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    text = links.read_text()
    start = text.index("      - name: border-leaf-to-border-eos")
    end = text.index("      - name: border-leaf-to-border-nxos")
    links.write_text(text[:start] + text[end:])
    attachments = example / ATTACHMENTS
    at = f"{ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}"
    why = (
        "has no link to a border router: each handed-off VRF rides a sub-interface of a "
        "border-leaf-to-border link, so nothing would be handed off there; cable it to the "
        "borders (link_rules or links) or remove it"
    )
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{at}: handoff border leaf aus1-bl1 {why}",
        f"{at}: handoff border leaf aus1-bl2 {why}",
    ]


def test_evpn013_handed_off_vrf_without_l3vni(example: Path) -> None:
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {vlan: 3001}")
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'gpu-a:   {vlan: 3101')}: handoff VRF gpu-a (VRF "
        "gpu-a of tenant gpu-tenant-a) has no l3vni: the border leaves learn its subnets from "
        "the leaves over the L3VNI (symmetric IRB), so they would hand nothing to the borders; "
        "give the VRF an l3vni"
    ]


def handoff_from_the_nxos_border_leaves(repo: Path) -> Path:
    return edit_attachments(
        repo, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl3, aus1-bl4]"
    )


def test_evpn013_nxos_border_leaves_need_the_carrier_vlan(example: Path) -> None:
    attachments = handoff_from_the_nxos_border_leaves(example)
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {l3vni: 50001}")
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'gpu-a:   {vlan: 3101')}: handoff VRF gpu-a (VRF "
        "gpu-a of tenant gpu-tenant-a) is carried by aus1-bl3, aus1-bl4 on Cisco NX-OS, which "
        "maps the L3VNI 50001 through a carrier VLAN: give the VRF a vlan (an id no network on "
        "those border leaves uses)"
    ]


def test_evpn013_two_vrfs_with_one_handoff_vlan(example: Path) -> None:
    attachments = edit_attachments(example, "storage: {vlan: 3110", "storage: {vlan: 3101")
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'storage: {vlan: 3101')}: vlan 3101 of handoff "
        "VRF storage is also the vlan of handoff VRF gpu-a: both would be sub-interface "
        "<link>.3101 on every handoff link; give each VRF its own vlan"
    ]


def test_evpn013_handoff_vlan_bridged_on_the_border_leaves(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl1, aus1-bl2]}",
    )  # gpu-a-oob-1 (VLAN 111) also on the handoff border leaves
    attachments = edit_attachments(example, "gpu-a:   {vlan: 3101", "gpu-a:   {vlan: 111")
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, '{vlan: 111')}: vlan 111 of handoff VRF gpu-a is "
        "also the VLAN of network gpu-tenant-a/gpu-a-oob-1 on aus1-bl1, aus1-bl2: one VLAN id "
        "is one thing per switch; choose another handoff vlan"
    ]


def test_evpn013_handoff_vlan_of_a_network_elsewhere_is_fine(example: Path) -> None:
    edit_attachments(example, "gpu-a:   {vlan: 3101", "gpu-a:   {vlan: 111")  # on dh1/dh2 only
    assert findings_of(lint_repo(example), "EVPN-013") == []


def test_evpn013_handoff_vlan_is_an_nxos_carrier_vlan(example: Path) -> None:
    attachments = handoff_from_the_nxos_border_leaves(example)
    replace_in(attachments, "storage: {vlan: 3110", "storage: {vlan: 3001")
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'storage: {vlan: 3001')}: vlan 3001 of handoff "
        "VRF storage is also the VLAN of VRF gpu-a of tenant gpu-tenant-a (L3VNI carrier) on "
        "aus1-bl3, aus1-bl4: one VLAN id is one thing per switch; choose another handoff vlan"
    ]


def test_evpn013_ipv6_export(example: Path) -> None:
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", 'export_north: [10.50.0.0/16, "2001:db8:50::/48"]'
    )
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, '2001:db8:50::/48')}: export_north "
        "2001:db8:50::/48 of handoff VRF gpu-a is IPv6: the handoff is IPv4 only (sub-interfaces "
        "on the links' /31s, IPv4 sessions), so it would never be advertised; remove it"
    ]


def test_evpn013_export_matching_no_gateway_subnet(example: Path) -> None:
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", "export_north: [10.70.0.0/16]"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.70.0.0/16')}: export_north 10.70.0.0/16 of "
        "handoff VRF gpu-a matches none of the VRF's gateway subnets (10.50.1.0/24, "
        "10.50.2.0/24, 10.50.3.0/24, 10.50.4.0/24): the border leaves would advertise nothing "
        "for it; write a prefix covering the subnets to export"
    ]
    assert result.errors


def test_evpn013_gateway_subnet_longer_than_the_handoff_exports(example: Path) -> None:
    edit_tenants(example, "gateway_v4: 10.50.4.1/24", "gateway_v4: 10.50.4.1/25")
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.50.0.0/16')}: gateway subnet 10.50.4.0/25 of "
        "network gpu-tenant-a/gpu-a-compute-4 lies in export_north 10.50.0.0/16 of handoff VRF "
        "gpu-a, but the handoff exports subnets of it up to /24, so it would not go north; add "
        "10.50.4.0/25 to export_north"
    ]
    # as its own entry it is exported exactly, and overlapping its own VRF's export is fine
    replace_in(
        attachments, "export_north: [10.50.0.0/16]", "export_north: [10.50.0.0/16, 10.50.4.0/25]"
    )
    assert findings_of(lint_repo(example), "EVPN-013") == []


def test_evpn013_exports_of_two_vrfs_overlap(example: Path) -> None:
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", "export_north: [10.0.0.0/8]"
    )
    assert findings_of(lint_repo(example), "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.60.0.0/16')}: export_north 10.60.0.0/16 of "
        "handoff VRF storage overlaps 10.0.0.0/8 of handoff VRF gpu-a: the borders would learn "
        "the same addresses from two tenants' VRFs and route one's traffic to the other once "
        "they meet north of the border; export disjoint prefixes"
    ]


# --- references: names the attachments and the handoff use -------------------------------------


def test_unknown_names_in_attachments_and_handoff_are_unusable_intent(example: Path) -> None:
    attachments = edit_attachments(example, "[aus1-lf5, aus1-lf6]", "[aus1-lf5, aus1-lf7]")
    replace_in(attachments, "gpu-a-compute-4, storage-back-1]", "gpu-a-compute-4, storage-back-9]")
    replace_in(attachments, "[aus1-bl1, aus1-bl2]", "[aus1-bl1, aus1-bl9]")
    replace_in(attachments, "storage: {vlan: 3110", "storag: {vlan: 3110")
    with pytest.raises(IntentError) as raised:
        lint_repo(example)
    assert [
        (p.location.file, p.location.line, p.kind, p.message) for p in raised.value.problems
    ] == [
        (
            ATTACHMENTS,
            line_of(attachments, "aus1-lf7"),
            "dangling-name",
            "unknown device 'aus1-lf7'; did you mean 'aus1-lf6'? (known: aus1-bl1, aus1-bl2, "
            "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2)",
        ),
        (
            ATTACHMENTS,
            line_of(attachments, "storage-back-9"),
            "dangling-name",
            "unknown network 'storage-back-9'; did you mean 'storage-back-2'? (known: "
            "gpu-a-compute-1, gpu-a-compute-2, gpu-a-compute-3, gpu-a-compute-4, gpu-a-oob-1, "
            "gpu-a-oob-2, storage-back-1, storage-back-2)",
        ),
        (
            ATTACHMENTS,
            line_of(attachments, "aus1-bl9"),
            "dangling-name",
            "unknown device 'aus1-bl9'; did you mean 'aus1-bl6'? (known: aus1-bl1, aus1-bl2, "
            "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2)",
        ),
        (
            ATTACHMENTS,
            line_of(attachments, "storag:"),
            "dangling-name",
            "unknown VRF 'storag'; did you mean 'storage'? (known: gpu-a, gpu-a-mgmt, storage)",
        ),
    ]
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 2, result.output


def test_evpn008_host_port_on_an_external_circuit_port(example: Path) -> None:
    border_leaves_carry_storage_back_1(example)
    body = ESI_ON_THE_CUMULUS_BORDER_LEAVES.replace("[swp20]", "[swp9]")
    attachments = add_attachment(example, "mdf-storage-hosts", body + "segment_base: 101\n")
    at = f"{ATTACHMENTS}:{line_of(attachments, '[swp9]')}"
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{at}: host port swp9 of attachment mdf-storage-hosts is on aus1-bl5 already the "
        "external port swp9.301 (gcp gcp-ic/syd-ead1 XC-GCP-1 vlan 301): one port carries one "
        "thing; use a free port",
        f"{at}: host port swp9 of attachment mdf-storage-hosts is on aus1-bl6 already the "
        "external port swp9.302 (gcp gcp-ic/syd-ead2 XC-GCP-2 vlan 302): one port carries one "
        "thing; use a free port",
    ]


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
