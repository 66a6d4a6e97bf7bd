"""Multihoming (`attachments:`): EVPN-008, EVPN-011, EVPN-012 and MH-*; each rule passes on the
example and fails on one realistic edit, at the exact line."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import (
    ATTACHMENTS,
    ESI_ON_THE_CUMULUS_BORDER_LEAVES,
    ESI_PAIR,
    MLAG_PAIR,
    MORE_MLAG_HOSTS,
    add_attachment,
    border_leaves_carry_storage_back_1,
    edit_attachments,
    edit_tenants,
)
from typer.testing import CliRunner

from meetme.cli import app
from meetme.core.problems import IntentError

FEATURE_RULES = ("EVPN-", "MH-")


def test_example_has_no_multihoming_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith(FEATURE_RULES)] == []


# --- EVPN-008, MH-001: the leaf pair ---------------------------------------------------------


def test_a_second_attachment_on_the_mlag_pair_is_fine(example: Path) -> None:
    # the same peer link, system MAC and anycast VTEP; ports and numbers of its own
    add_attachment(example, "dh1-r10-more-hosts", MORE_MLAG_HOSTS)
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith(FEATURE_RULES)] == []


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


def test_mh001_a_pair_of_two_platforms(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "platform: nvidia_nvue\n        model: SN5600\n        room: aus1-dh1\n"
        "        rack: dh1-r10\n        management: 192.168.10.102/24",
        "platform: cisco_nxos\n        model: SN5600\n        room: aus1-dh1\n"
        "        rack: dh1-r10\n        management: 192.168.10.102/24",
    )  # aus1-lf2
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "MH-001") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[aus1-lf1, aus1-lf2]')}: attachment {MLAG_PAIR} "
        "pairs aus1-lf1 (NVIDIA Cumulus Linux 5.16 (NVUE)) with aus1-lf2 (Cisco NX-OS): MLAG "
        "runs between two switches of one OS; pair two leaves of one platform"
    ]


# --- MH-002: the settings of the mode --------------------------------------------------------


def test_mh002_mlag_without_peer_link_and_anycast_vtep(example: Path) -> None:
    attachments = edit_attachments(
        example, "        peer_link: [swp57, swp58]", "        # no peer link"
    )
    replace_in(attachments, "        anycast_vtep: 10.0.1.201/32", "        # no anycast VTEP")
    at = f"{ATTACHMENTS}:{line_of(attachments, f'{MLAG_PAIR}:')}"
    assert findings_of(lint_repo(example), "MH-002") == [
        f"{at}: MLAG attachment {MLAG_PAIR} has no anycast_vtep: an MLAG pair is one VTEP to "
        "the fabric, so remote VTEPs see its hosts behind one shared address, not flapping "
        "between the two leaves'; give it a free address from pools.vtep_v4",
        f"{at}: MLAG attachment {MLAG_PAIR} has no peer_link: the pair synchronises over a peer "
        "link between the two leaves; list its ports (the same names on both)",
    ]


def test_mh002_esi_with_a_peer_link(example: Path) -> None:
    # the MLAG pair's peer link, copied into the ESI attachment
    attachments = edit_attachments(
        example,
        "leaves: [aus1-lf5, aus1-lf6]\n",
        "leaves: [aus1-lf5, aus1-lf6]\n        peer_link: [swp57, swp58]\n",
    )
    assert findings_of(lint_repo(example), "MH-002") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'swp57', 2)}: ESI attachment {ESI_PAIR} sets "
        "peer_link, an MLAG setting: EVPN multihoming has no peer link and each leaf keeps its "
        "own VTEP address; remove it (or use mode: mlag)"
    ]


# --- MH-003, MH-004: trunked networks --------------------------------------------------------


def test_mh003_trunked_network_missing_on_one_leaf(example: Path) -> None:
    edit_tenants(
        example,
        '"2001:db8:50:1::1/64", racks: [dh1-r10]}',
        '"2001:db8:50:1::1/64", leaves: [aus1-lf1]}',
    )
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "MH-003") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'networks: [gpu-a-compute-1')}: network "
        f"gpu-tenant-a/gpu-a-compute-1, trunked by attachment {MLAG_PAIR}, is not carried by "
        "aus1-lf2: the hosts' bonds there would trunk a VLAN with no VNI or gateway; add rack "
        "dh1-r10 to the network's racks (or the leaves to its leaves), or stop trunking it"
    ]
    assert findings_of(lint_repo(example), "MH-022") == []  # one message: MH-003's


def test_mh004_network_name_in_two_tenants(example: Path) -> None:
    edit_tenants(
        example,
        "        networks:\n          storage-front-1:",
        "        networks:\n          gpu-a-compute-1: {vrf: storage, vlan: 221, l2vni: 10221, "
        "racks: [dh2-r10]}\n          storage-front-1:",
    )
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "MH-004") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'networks: [gpu-a-compute-1')}: attachment "
        f"{MLAG_PAIR} trunks network gpu-a-compute-1, a name in tenants gpu-tenant-a and "
        "storage: attachments name networks without their tenant, so the hosts would get the "
        "VLANs of all of them; rename all but one of those networks"
    ]


# --- MH-022: a network on one leaf of an MLAG pair ----------------------------------------

OOB_2 = "gateway_v4: 10.51.2.1/24, mtu: 1500, racks: [dh1-r10, dh2-r10]}"


@pytest.mark.parametrize(
    ("leaves", "split"), [("[aus1-lf1]", True), ("[aus1-lf2, aus1-lf1]", False)]
)
def test_mh022_a_network_on_one_leaf_of_the_pair(example: Path, leaves: str, split: bool) -> None:
    """gpu-a-oob-2 off rack dh1-r10 (lf1 and lf2, one MLAG pair), then back on lf1 alone."""
    tenants = edit_tenants(
        example, OOB_2, f"gateway_v4: 10.51.2.1/24, mtu: 1500, racks: [dh2-r10], leaves: {leaves}}}"
    )
    found = findings_of(lint_repo(example), "MH-022")
    if not split:
        assert found == []
        return
    assert found == [
        f"intent/aus1/tenants.yaml:{line_of(tenants, 'gpu-a-oob-2:')}: network "
        "gpu-tenant-a/gpu-a-oob-2 is on aus1-lf1 but not on aus1-lf2, its MLAG peer: the pair "
        "is one VTEP (one anycast address), so about half the fabric's traffic for the network "
        "reaches aus1-lf2, which drops it; place the network on both leaves of the pair, or on "
        "neither"
    ]


def test_mh022_a_network_on_one_leaf_of_a_vpc_pair(example: Path) -> None:
    """mel1's NX-OS vPC pair lf103/lf104: a service network of gpu-b on lf104 alone."""
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(
        tenants,
        "        networks:\n",
        "        networks:\n          gpu-b-svc: {vrf: gpu-b, vlan: 106, l2vni: 11106, "
        "gateway_v4: 10.150.6.1/24, leaves: [mel1-lf104]}\n",
    )
    assert findings_of(lint_repo(example), "MH-022") == [
        f"intent/mel1/tenants.yaml:{line_of(tenants, 'gpu-b-svc:')}: network "
        "gpu-tenant-b/gpu-b-svc is on mel1-lf104 but not on mel1-lf103, its MLAG peer: the pair "
        "is one VTEP (one anycast address), so about half the fabric's traffic for the network "
        "reaches mel1-lf103, which drops it; place the network on both leaves of the pair, or "
        "on neither"
    ]


# --- MH-019: a VRF's L3VNI VLAN is not the NX-OS vPC pairs' peer VLAN (3967) -----------------


@pytest.mark.parametrize(("vlan", "clash"), [(3966, False), (3967, True)])
def test_mh019_an_l3vni_vlan_on_the_vpc_peer_vlan(example: Path, vlan: int, clash: bool) -> None:
    """mel1's gpu-b rides every NX-OS vPC pair: one finding for the VRF, naming them all."""
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(
        tenants,
        "gpu-b:      {l3vni: 51001, vlan: 3001}",
        f"gpu-b:      {{l3vni: 51001, vlan: {vlan}}}",
    )
    found = findings_of(lint_repo(example), "MH-019")
    if not clash:
        assert found == []
        return
    assert found == [
        f"intent/mel1/tenants.yaml:{line_of(tenants, 'vlan: 3967')}: VRF gpu-b of tenant "
        "gpu-tenant-b carries its L3VNI on VLAN 3967, the MLAG peer VLAN of mel1-lf101, "
        "mel1-lf102, mel1-lf103, mel1-lf104, mel1-lf201, mel1-lf202: one SVI cannot be both the "
        "VRF's and the pair's underlay backup path in the default VRF; give the VRF another VLAN"
    ]


# --- MH-023: an attachment's MTU carries its networks' packets --------------------------------


@pytest.mark.parametrize(("mtu", "short"), [(9000, False), (8999, True)])
def test_mh023_attachment_mtu_at_the_largest_network_mtu(
    example: Path, mtu: int, short: bool
) -> None:
    """The Cumulus pair's hosts trunk gpu-a-compute-1..4 (9000, the default) and gpu-a-oob-1
    (1500); the largest is the one named."""
    attachments = edit_attachments(
        example,
        '        lacp_system_mac: "44:38:39:ff:00:01"\n',
        f'        lacp_system_mac: "44:38:39:ff:00:01"\n        mtu: {mtu}\n',
    )
    found = findings_of(lint_repo(example), "MH-023")
    if not short:
        assert found == []
        return
    assert found == [
        f"{ATTACHMENTS}:{line_of(attachments, f'mtu: {mtu}')}: attachment {MLAG_PAIR} has mtu "
        "8999, below network gpu-a-compute-1's 9000, which it trunks: the hosts' ports drop "
        "every frame and packet larger than 8999 bytes; raise the attachment's mtu to at least "
        "9000, or lower the network's"
    ]


# --- MH-005..MH-007: ports, bonds and segment ids --------------------------------------------


def test_mh005_host_port_on_a_fabric_port(example: Path) -> None:
    attachments = edit_attachments(example, "[swp1, swp2, swp3, swp4]", "[swp1, swp2, swp3, swp61]")
    at = f"{ATTACHMENTS}:{line_of(attachments, 'swp61')}"
    tail = "one port carries one thing; use a free port"
    assert findings_of(lint_repo(example), "MH-005") == [
        f"{at}: host port swp61 of attachment {MLAG_PAIR} is on aus1-lf1 already the fabric "
        f"link aus1-lf1 swp61 - aus1-sp1 Ethernet9/1 (rule leaf-to-spine-cumulus): {tail}",
        f"{at}: host port swp61 of attachment {MLAG_PAIR} is on aus1-lf2 already the fabric "
        f"link aus1-lf2 swp61 - aus1-sp1 Ethernet10/1 (rule leaf-to-spine-cumulus): {tail}",
    ]


def test_mh005_host_port_is_a_peer_link_port(example: Path) -> None:
    attachments = edit_attachments(example, "[swp1, swp2, swp3, swp4]", "[swp1, swp2, swp3, swp57]")
    assert findings_of(lint_repo(example), "MH-005") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'peer_link:')}: peer-link port swp57 of "
        f"attachment {MLAG_PAIR} is already its host port: one port carries one thing; use a "
        "free port"
    ]


def test_mh005_host_port_on_an_external_circuit_port(example: Path) -> None:
    border_leaves_carry_storage_back_1(example)
    body = ESI_ON_THE_CUMULUS_BORDER_LEAVES.replace("[swp20]", "[swp9]")
    attachments = add_attachment(example, "mdf-storage-hosts", body + "segment_base: 101\n")
    at = f"{ATTACHMENTS}:{line_of(attachments, '[swp9]')}"
    assert findings_of(lint_repo(example), "MH-005") == [
        f"{at}: host port swp9 of attachment mdf-storage-hosts is on aus1-bl5 already the "
        "external port swp9.301 (gcp gcp-ic/syd-ead1 XC-GCP-1 vlan 301): one port carries one "
        "thing; use a free port",
        f"{at}: host port swp9 of attachment mdf-storage-hosts is on aus1-bl6 already the "
        "external port swp9.302 (gcp gcp-ic/syd-ead2 XC-GCP-2 vlan 302): one port carries one "
        "thing; use a free port",
    ]


def test_mh005_mh006_mh007_two_attachments_share_a_port_bonds_and_segment_ids(
    example: Path,
) -> None:
    body = MORE_MLAG_HOSTS.replace("[swp5, swp6]", "[swp4, swp5]")
    body = body.replace("lag_base: 20", "lag_base: 12").replace(
        "segment_base: 10", "segment_base: 4"
    )
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    result = lint_repo(example)
    assert findings_of(result, "MH-005") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[swp4, swp5]')}: host port swp4 of attachment "
        "dh1-r10-more-hosts is on aus1-lf1, aus1-lf2 already the host port of attachment "
        f"{MLAG_PAIR}: one port carries one thing; use a free port",
    ]
    assert findings_of(result, "MH-006") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'lag_base: 12')}: bonds bond12, bond13 of "
        "attachment dh1-r10-more-hosts on aus1-lf1, aus1-lf2 are also used by attachment "
        f"{MLAG_PAIR}: each host needs a bond of its own; choose a lag_base whose 2 numbers are "
        "free on those leaves",
    ]
    assert findings_of(result, "MH-007") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'segment_base: 4')}: segment ids 4 of attachment "
        f"dh1-r10-more-hosts on aus1-lf1, aus1-lf2 are also used by attachment {MLAG_PAIR}: a "
        "leaf tells its hosts' bonds apart by them (MLAG id / Ethernet segment); choose a "
        "segment_base whose 2 numbers are free on those leaves",
    ]


@pytest.mark.parametrize(
    ("key", "base", "clash"),
    [
        ("lag_base", 13, "bonds bond13 "),  # the example's hosts take bonds 10-13
        ("lag_base", 14, None),
        ("segment_base", 4, "segment ids 4 "),  # and segment ids 1-4
        ("segment_base", 5, None),
    ],
)
def test_mh006_mh007_ranges_that_touch_do_not_clash(
    example: Path, key: str, base: int, clash: str | None
) -> None:
    body = MORE_MLAG_HOSTS.replace("lag_base: 20", "lag_base: 30").replace(
        "segment_base: 10", "segment_base: 30"
    )  # clear of the example's numbers, then one of the two moved to the boundary
    body = body.replace(f"{key}: 30", f"{key}: {base}")
    add_attachment(example, "dh1-r10-more-hosts", body)
    result = lint_repo(example)
    rule = "MH-006" if key == "lag_base" else "MH-007"
    hits = findings_of(result, rule)
    if clash is None:
        assert hits == []
    else:
        assert len(hits) == 1 and f"{clash}of attachment dh1-r10-more-hosts" in hits[0], hits
    other = "MH-007" if rule == "MH-006" else "MH-006"
    assert findings_of(result, other) == []


# --- MH-008..MH-010: one mode and one MLAG peer per leaf -------------------------------------


def test_mh008_esi_and_mlag_on_one_pair(example: Path) -> None:
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
    assert findings_of(result, "MH-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'mode: esi')}: attachment dh1-r10-esi-hosts "
        "attaches hosts to aus1-lf1, aus1-lf2 by ESI (EVPN multihoming), but attachment "
        f"{MLAG_PAIR} already does by MLAG: a leaf pair uses ESI or MLAG, never both (loops, "
        "duplicate BUM traffic or split LACP); use mode: mlag"
    ]
    assert result.errors


def test_mh009_a_leaf_with_two_mlag_peers(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl5]}",
    )  # gpu-a-oob-1 also on aus1-bl5
    body = MORE_MLAG_HOSTS.replace("[aus1-lf1, aus1-lf2]", "[aus1-lf1, aus1-bl5]")
    body = body.replace("[swp5, swp6]", "[swp40]").replace("[gpu-a-compute-1]", "[gpu-a-oob-1]")
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "MH-009") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[aus1-lf1, aus1-bl5]')}: attachment "
        "dh1-r10-more-hosts pairs aus1-lf1 with aus1-bl5 by MLAG, but attachment "
        f"{MLAG_PAIR} pairs it with aus1-lf2: a switch has one MLAG peer; attach these hosts "
        "to aus1-lf1 and aus1-lf2, or use another leaf"
    ]


def test_mh010_mlag_pair_with_two_peer_links_and_system_macs(example: Path) -> None:
    body = MORE_MLAG_HOSTS.replace("[swp57, swp58]", "[swp59, swp60]")
    body = body.replace('"44:38:39:ff:00:01"', '"44:38:39:ff:00:02"')
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "MH-010") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'swp59')}: peer_link swp59, swp60 of attachment "
        "dh1-r10-more-hosts differs from swp57, swp58 of attachment dh1-r10-gpu-hosts on the "
        "same MLAG pair aus1-lf1, aus1-lf2: the pair has one peer link and one system MAC; "
        "write swp57, swp58",
        f"{ATTACHMENTS}:{line_of(attachments, '44:38:39:ff:00:02')}: lacp_system_mac "
        "44:38:39:ff:00:02 of attachment dh1-r10-more-hosts differs from 44:38:39:ff:00:01 of "
        "attachment dh1-r10-gpu-hosts on the same MLAG pair aus1-lf1, aus1-lf2: the pair has one "
        "peer link and one system MAC; write 44:38:39:ff:00:01",
    ]


# --- MH-011: ESIs ----------------------------------------------------------------------------


def test_mh011_esi_of_another_segment(example: Path) -> None:
    # the same LACP system MAC and segment ids as the example's ESI hosts: the same ESIs
    border_leaves_carry_storage_back_1(example)
    attachments = add_attachment(example, "mdf-storage-hosts", ESI_ON_THE_CUMULUS_BORDER_LEAVES)
    assert findings_of(lint_repo(example), "MH-011") == [
        f"{ATTACHMENTS}:{line_of(attachments, '44:38:39:ff:00:02', 2)}: ESI "
        f"00:44:38:39:ff:00:02:00:00:01 of host 1 of attachment {ESI_PAIR} is also the "
        "ESI of host 1 of attachment mdf-storage-hosts on aus1-bl5, aus1-bl6: an ESI names one "
        "Ethernet segment fabric-wide, so remote VTEPs would treat the two as one; give the "
        "attachment its own lacp_system_mac or a segment_base range of its own"
    ]


def test_mh011_esi_with_segment_ids_of_its_own_is_fine(example: Path) -> None:
    border_leaves_carry_storage_back_1(example)
    add_attachment(
        example, "mdf-storage-hosts", ESI_ON_THE_CUMULUS_BORDER_LEAVES + "segment_base: 101\n"
    )
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith(FEATURE_RULES)] == []


# --- EVPN-011: MLAG / ESI only where rendered ------------------------------------------------


NXOS_HOSTS = """
leaves: [aus1-lf3, aus1-lf4]
ports: [Ethernet1/1, Ethernet1/2, Ethernet1/3, Ethernet1/4]
lacp_system_mac: "02:00:00:00:10:03"
networks: [storage-back-1, storage-back-2]
"""


def test_evpn011_esi_on_nxos(example: Path) -> None:
    # Nexus 9000 -EX and later cannot host an Ethernet segment: refused with the reason, naming
    # the devices, the platform and the feature, and vPC offered instead
    attachments = add_attachment(example, "dh2-r10-storage-hosts", "mode: esi\n" + NXOS_HOSTS)
    result = lint_repo(example)
    assert findings_of(result, "EVPN-011") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'mode: esi')}: attachment dh2-r10-storage-hosts "
        "asks for ESI (EVPN multihoming) on aus1-lf3, aus1-lf4, Cisco NX-OS, for which meetme "
        "renders no ESI (EVPN multihoming) (Nexus 9000 -EX and later only resolve remote ESI "
        "routes and cannot host an Ethernet segment, Cisco NX-OS VXLAN Configuration Guide "
        "10.4(x); vPC is the NX-OS answer); attach the hosts to leaves of a platform that has "
        "it (Arista EOS, NVIDIA Cumulus Linux 5.16 (NVUE)), or use mode: mlag, which Cisco "
        "NX-OS renders"
    ]
    assert result.errors


def test_mlag_on_nxos_is_vpc_and_lints_clean(example: Path) -> None:
    # `mode: mlag` on NX-OS leaves renders as vPC: no EVPN-011 any more, no finding at all
    body = "mode: mlag\npeer_link: [Ethernet1/49, Ethernet1/50]\nanycast_vtep: 10.0.1.202/32\n"
    add_attachment(example, "dh2-r10-storage-hosts", body + NXOS_HOSTS)
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []


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
    assert [f for f in result.findings if f.rule.startswith(FEATURE_RULES)] == []


# --- EVPN-012, MH-012..MH-015: the MLAG anycast VTEP -----------------------------------------


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


def test_mh013_anycast_vtep_outside_the_loopback_pools(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.9.9.9/32")
    assert findings_of(lint_repo(example), "MH-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.9.9.9 of "
        f"attachment {MLAG_PAIR} is outside pools loopback_v4 10.0.0.0/24 and vtep_v4 "
        "10.0.1.0/24: the underlay route-maps accept fabric loopbacks only, so no VTEP would "
        "learn a route to it; take a free address from pools.vtep_v4"
    ]


def test_mh012_anycast_vtep_not_a_host_address(example: Path) -> None:
    attachments = set_anycast_vtep(example, "10.0.1.201/24")
    assert findings_of(lint_repo(example), "MH-012") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'anycast_vtep:')}: anycast_vtep 10.0.1.201 of "
        f"attachment {MLAG_PAIR} is not a host address; write it as 10.0.1.201/32"
    ]


@pytest.mark.parametrize(("length", "host"), [(32, True), (31, False)])
def test_mh012_host_address_boundary(example: Path, length: int, host: bool) -> None:
    set_anycast_vtep(example, f"10.0.1.201/{length}")
    hits = findings_of(lint_repo(example), "MH-012")
    assert len(hits) == (0 if host else 1), hits


@pytest.mark.parametrize(
    ("address", "inside"), [("10.0.1.255", True), ("10.0.2.0", False), ("10.0.0.255", True)]
)  # the vtep_v4 pool is 10.0.1.0/24 and loopback_v4 10.0.0.0/24: their last addresses and the
# first one past them
def test_mh013_pool_boundary(example: Path, address: str, inside: bool) -> None:
    set_anycast_vtep(example, f"{address}/32")
    hits = findings_of(lint_repo(example), "MH-013")
    assert len(hits) == (0 if inside else 1), hits


def test_mh014_two_anycast_vteps_on_one_pair(example: Path) -> None:
    body = MORE_MLAG_HOSTS.replace("10.0.1.201/32", "10.0.1.202/32")
    attachments = add_attachment(example, "dh1-r10-more-hosts", body)
    assert findings_of(lint_repo(example), "MH-014") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.0.1.202')}: anycast_vtep 10.0.1.202 of "
        f"attachment dh1-r10-more-hosts differs from 10.0.1.201 of attachment {MLAG_PAIR} on "
        "the same MLAG pair aus1-lf1, aus1-lf2: the pair is one VTEP with one address; write "
        "10.0.1.201"
    ]


def test_mh015_one_anycast_vtep_on_two_pairs(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl5, aus1-bl6]}",
    )  # gpu-a-oob-1 also on the Cumulus border leaves
    body = MORE_MLAG_HOSTS.replace("[aus1-lf1, aus1-lf2]", "[aus1-bl5, aus1-bl6]")
    body = body.replace("[swp5, swp6]", "[swp40]").replace("[gpu-a-compute-1]", "[gpu-a-oob-1]")
    attachments = add_attachment(example, "mdf-hosts", body)
    result = lint_repo(example)
    assert findings_of(result, "MH-015") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.0.1.201', 2)}: anycast_vtep 10.0.1.201 of "
        "attachment mdf-hosts is also the anycast VTEP of attachment "
        f"{MLAG_PAIR} on aus1-lf1, aus1-lf2: two pairs with one VTEP address would receive "
        "each other's VXLAN traffic; give each pair its own"
    ]
    assert findings_of(result, "EVPN-008") == []
    assert findings_of(result, "MH-009") == []  # a second, separate MLAG pair is fine


# --- references: names the attachments and the handoff use -----------------------------------


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
            "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2 and 10 more)",
        ),
        (
            ATTACHMENTS,
            line_of(attachments, "storage-back-9"),
            "dangling-name",
            "unknown network 'storage-back-9'; did you mean 'storage-back-2'? (known: "
            "gpu-a-compute-1, gpu-a-compute-2, gpu-a-compute-3, gpu-a-compute-4, gpu-a-oob-1, "
            "gpu-a-oob-2, gpu-a-public, storage-back-1 and 5 more)",
        ),
        (
            ATTACHMENTS,
            line_of(attachments, "aus1-bl9"),
            "dangling-name",
            "unknown device 'aus1-bl9'; did you mean 'aus1-bl6'? (known: aus1-bl1, aus1-bl2, "
            "aus1-bl3, aus1-bl4, aus1-bl5, aus1-bl6, aus1-br1, aus1-br2 and 10 more)",
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


@pytest.mark.parametrize(
    ("mac", "problem"),
    [
        (
            "01:00:5e:00:00:01",
            "is a group (multicast) MAC: its first octet is odd (the IEEE 802 individual/group "
            "bit)",
        ),
        (
            "03:00:00:00:00:00",
            "is a group (multicast) MAC: its first octet is odd (the IEEE 802 individual/group "
            "bit)",
        ),
        ("ff:ff:ff:ff:ff:ff", "is the broadcast MAC"),
        ("FF:FF:FF:FF:FF:FF", "is the broadcast MAC"),
        ("00:00:00:00:00:00", "is all zeros, no station's address"),
        ("00:00:00:00:00:01", None),  # the lowest unicast MAC
        ("02:00:00:00:00:00", None),  # locally administered, unicast
        ("fe:ff:ff:ff:ff:ff", None),  # the highest unicast MAC
    ],
)
def test_lacp_system_mac_is_a_unicast_mac(example: Path, mac: str, problem: str | None) -> None:
    """A group, broadcast or all-zeros LACP system MAC was clean (exit 0) and rendered as the
    pair's MLAG / ES system id; it is refused at the value when the intent is read."""
    attachments = edit_attachments(example, '"44:38:39:ff:00:01"', f'"{mac}"')
    if problem is None:
        lint_repo(example)  # loads: the rules read it
        return
    with pytest.raises(IntentError) as raised:
        lint_repo(example)
    (only,) = raised.value.problems
    line = line_of(attachments, mac)
    column = attachments.read_text().splitlines()[line - 1].index(f'"{mac}"') + 1
    assert (only.location.file, only.location.line, only.location.column, only.kind) == (
        ATTACHMENTS,
        line,
        column,
        "bad-value",
    )
    assert only.message == (
        f"sites.aus1.attachments.dh1-r10-gpu-hosts.lacp_system_mac: '{mac}' {problem}; an LACP "
        "system MAC is a unicast MAC: first octet even, e.g. 02:00:00:00:00:01 (locally "
        "administered)"
    )
