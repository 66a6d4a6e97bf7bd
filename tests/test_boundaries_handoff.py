"""EVPN-013, HANDOFF-*: the handoff rules at their edges (docs/mutation.md): which devices count
as handoff border leaves, which VLANs they bridge, what an export of exactly /24 lets north."""

from __future__ import annotations

from pathlib import Path

from conftest import findings_of, line_of, lint_repo
from overlay_edits import ATTACHMENTS, edit_attachments, edit_tenants

FEATURE_RULES = ("EVPN-013", "HANDOFF-")
BORDER_LEAVES = "border_leaves: [aus1-bl1, aus1-bl2]"
AUS1 = "intent/aus1/"  # the edits' site (mel1's gpu-b has a HANDOFF-013 warning of its own)


def test_a_leaf_among_the_handoff_border_leaves_is_evpn013_only(example: Path) -> None:
    """aus1-lf1 carries gpu-a-oob-1 (VLAN 111), the handoff VLAN of gpu-a here: a leaf named in
    the handoff is EVPN-013's finding alone; it is not cabled to the borders (no HANDOFF-001) and
    does not bridge the handoff VLAN (no HANDOFF-005)."""
    attachments = edit_attachments(
        example, BORDER_LEAVES, "border_leaves: [aus1-bl1, aus1-bl2, aus1-lf1]"
    )
    edit_attachments(example, "gpu-a:   {vlan: 3101", "gpu-a:   {vlan: 111")
    result = lint_repo(example)
    assert [
        f"{f.rule} {f.location.file}:{f.location.line}: {f.message}"
        for f in result.findings
        if f.rule.startswith(FEATURE_RULES) and f.location.file.startswith(AUS1)
    ] == [
        f"EVPN-013 {ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}: handoff border leaf "
        "aus1-lf1 is a leaf: the handoff runs on border leaves, over their links to the border "
        "routers; name a border_leaf"
    ]


def test_handoff005_vlan_of_a_vrf_without_l3vni_is_no_carrier_vlan(example: Path) -> None:
    """On NX-OS border leaves only an L3VNI has a carrier VLAN: a VRF with a vlan but no l3vni
    (HANDOFF-002's finding) bridges nothing there, so another handoff VRF may use that id."""
    edit_attachments(example, BORDER_LEAVES, "border_leaves: [aus1-bl3, aus1-bl4]")
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {vlan: 3001}")
    edit_attachments(example, "storage: {vlan: 3110", "storage: {vlan: 3001")
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-005") == []
    assert [
        f.rule
        for f in result.findings
        if f.rule.startswith("HANDOFF-") and f.location.file.startswith(AUS1)
    ] == ["HANDOFF-002"]


def test_handoff005_vrf_vlans_on_eos_border_leaves_are_no_carrier_vlans(example: Path) -> None:
    """EOS maps no L3VNI through a VLAN: a handoff vlan equal to a VRF's vlan is fine there."""
    edit_attachments(example, "storage: {vlan: 3110", "storage: {vlan: 3001")
    assert findings_of(lint_repo(example), "HANDOFF-005") == []


def test_handoff008_an_export_of_exactly_24_lets_itself_north_only(example: Path) -> None:
    edit_tenants(example, "gateway_v4: 10.50.4.1/24", "gateway_v4: 10.50.4.1/25")
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", "export_north: [10.50.0.0/16, 10.50.4.0/24]"
    )
    at = f"{ATTACHMENTS}:{line_of(attachments, '10.50.4.0/24')}"
    assert findings_of(lint_repo(example), "HANDOFF-008") == [
        f"{at}: gateway subnet 10.50.4.0/25 of network gpu-tenant-a/gpu-a-compute-4 lies in "
        "export_north 10.50.0.0/16 of handoff VRF gpu-a, but the handoff exports subnets of it "
        "up to /24, so it would not go north; add 10.50.4.0/25 to export_north",
        f"{at}: gateway subnet 10.50.4.0/25 of network gpu-tenant-a/gpu-a-compute-4 lies in "
        "export_north 10.50.4.0/24 of handoff VRF gpu-a, but the handoff exports 10.50.4.0/24 "
        "itself, so it would not go north; add 10.50.4.0/25 to export_north",
    ]


def test_handoff008_a_network_no_leaf_carries_has_nothing_to_export(example: Path) -> None:
    """gpu-a-compute-4 placed on a rack without leaves (EVPN-020): no border leaf learns its
    subnet, so its /25 is no HANDOFF-008 finding."""
    edit_tenants(
        example,
        "gateway_v4: 10.50.4.1/24, racks: [dh1-r10, dh1-r11]}",
        "gateway_v4: 10.50.4.1/25, racks: [dh1-r01]}",
    )
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-008") == []
    assert [f.rule for f in result.findings if f.rule.startswith("EVPN-020")] == ["EVPN-020"]
