"""EVPN-008, MH-*: the multihoming rules at their edges (docs/mutation.md): which leaves of an
attachment count, and which line of a leaf list a finding points at."""

from __future__ import annotations

from pathlib import Path

from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import ATTACHMENTS, MLAG_PAIR, add_attachment, edit_attachments

FEATURE_RULES = ("EVPN-", "MH-")
LF2_ON_NVUE = (
    "platform: nvidia_nvue\n        model: SN5600\n        room: aus1-dh1\n"
    "        rack: dh1-r10\n        management: 192.168.10.102/24"
)


def _block_leaves(repo: Path, first: str, second: str) -> Path:
    """The MLAG pair's leaves written one a line, so that each index has a line of its own."""
    return edit_attachments(
        repo,
        "        leaves: [aus1-lf1, aus1-lf2]\n",
        f"        leaves:\n          - {first}\n          - {second}\n",
    )


def test_evpn008_leaf_named_twice_points_at_the_second_name(example: Path) -> None:
    attachments = _block_leaves(example, "aus1-lf1", "aus1-lf1")
    assert findings_of(lint_repo(example), "EVPN-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '- aus1-lf1', 2)}: attachment {MLAG_PAIR} names "
        "aus1-lf1 twice: a dual-homed host needs two different leaves; name the other leaf of "
        "the pair"
    ]


def test_mh001_two_platforms_points_at_the_second_leaf(example: Path) -> None:
    replace_in(
        example / "intent/aus1/devices.yaml",
        LF2_ON_NVUE,
        LF2_ON_NVUE.replace("nvidia_nvue", "cisco_nxos"),
    )  # aus1-lf2
    attachments = _block_leaves(example, "aus1-lf1", "aus1-lf2")
    assert findings_of(lint_repo(example), "MH-001") == [
        f"{ATTACHMENTS}:{line_of(attachments, '- aus1-lf2')}: attachment {MLAG_PAIR} pairs "
        "aus1-lf1 (NVIDIA Cumulus Linux 5.16 (NVUE)) with aus1-lf2 (Cisco NX-OS): MLAG runs "
        "between two switches of one OS; pair two leaves of one platform"
    ]


def test_a_spine_in_an_attachment_is_evpn008_only(example: Path) -> None:
    """A spine is no VTEP: EVPN-008 says so once, and no other check counts it as a leaf of
    the pair (no platform pair for MH-001, no missing network for MH-003, no EVPN-011)."""
    attachments = edit_attachments(
        example, "leaves: [aus1-lf5, aus1-lf6]", "leaves: [aus1-lf5, aus1-sp3]"
    )
    result = lint_repo(example)
    assert [
        f"{f.rule} {f.location.file}:{f.location.line}"
        for f in result.findings
        if f.rule.startswith(FEATURE_RULES)
    ] == [f"EVPN-008 {ATTACHMENTS}:{line_of(attachments, 'aus1-sp3')}"]


def test_mh006_bond_names_follow_the_first_leaf_of_the_pair(example: Path) -> None:
    """A pair across two platforms (MH-001's finding) whose bonds clash with the MLAG pair's on
    aus1-lf1: the bonds are named as the first leaf's platform names them."""
    attachments = add_attachment(
        example,
        "mixed-hosts",
        """
        mode: esi
        leaves: [aus1-lf1, aus1-lf3]
        ports: [swp5, swp6]
        lag_base: 12
        segment_base: 30
        lacp_system_mac: "44:38:39:ff:00:07"
        networks: [gpu-a-compute-1]
        """,
    )
    assert findings_of(lint_repo(example), "MH-006") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'lag_base: 12')}: bonds bond12, bond13 of "
        "attachment mixed-hosts on aus1-lf1 are also used by attachment "
        f"{MLAG_PAIR}: each host needs a bond of its own; choose a lag_base whose 2 numbers are "
        "free on those leaves",
    ]


def test_mh006_bond_names_of_a_pair_written_the_other_way(example: Path) -> None:
    attachments = add_attachment(
        example,
        "mixed-hosts",
        """
        mode: esi
        leaves: [aus1-lf3, aus1-lf1]
        ports: [swp5, swp6]
        lag_base: 12
        segment_base: 30
        lacp_system_mac: "44:38:39:ff:00:07"
        networks: [gpu-a-compute-1]
        """,
    )
    assert findings_of(lint_repo(example), "MH-006") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'lag_base: 12')}: bonds port-channel12, "
        "port-channel13 of attachment mixed-hosts on aus1-lf1 are also used by attachment "
        f"{MLAG_PAIR}: each host needs a bond of its own; choose a lag_base whose 2 numbers are "
        "free on those leaves",
    ]
