"""MH-024: two MLAG pairs never share a system MAC (the pair's LACP system id, and on NVUE its
EVPN router MAC); attachments on one pair share it (MH-010), and an ESI attachment may repeat
an MLAG pair's MAC."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import (
    ATTACHMENTS,
    MLAG_PAIR,
    MORE_MLAG_HOSTS,
    add_attachment,
    edit_attachments,
    edit_tenants,
)

MEL1 = "intent/mel1/attachments.yaml"
# mel1's three vPC pairs: lf101/102 02:00:00:be:00:01, lf103/104 :02, lf201/202 :03
R11_MAC = '"02:00:00:be:00:02"'


def _mel1_r11_mac(repo: Path, mac: str) -> Path:
    attachments = repo / MEL1
    replace_in(attachments, f"lacp_system_mac: {R11_MAC}", f'lacp_system_mac: "{mac}"')
    return attachments


def _second_cumulus_pair(repo: Path, mac: str) -> Path:
    """An MLAG pair on the Cumulus border leaves aus1-bl5/bl6 (gpu-a-oob-1 carried there),
    with its own anycast VTEP and `mac` for system MAC."""
    edit_tenants(
        repo,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl5, aus1-bl6]}",
    )
    body = MORE_MLAG_HOSTS.replace("[aus1-lf1, aus1-lf2]", "[aus1-bl5, aus1-bl6]")
    body = body.replace("[swp5, swp6]", "[swp40]").replace("[gpu-a-compute-1]", "[gpu-a-oob-1]")
    body = body.replace("10.0.1.201/32", "10.0.1.202/32")
    body = body.replace('"44:38:39:ff:00:01"', f'"{mac}"')
    return add_attachment(repo, "mdf-hosts", body)


def test_example_has_no_mh024_findings(example: Path) -> None:
    assert findings_of(lint_repo(example), "MH-024") == []


def test_mh024_two_vpc_pairs_with_one_system_mac(example: Path) -> None:
    attachments = _mel1_r11_mac(example, "02:00:00:be:00:01")
    result = lint_repo(example)
    assert findings_of(result, "MH-024") == [
        f"{MEL1}:{line_of(attachments, '02:00:00:be:00:01', 2)}: lacp_system_mac "
        "02:00:00:be:00:01 of attachment mel1-dh1-r11-gpu-hosts on MLAG pair mel1-lf103, "
        "mel1-lf104 is also the system MAC of attachment mel1-dh1-r10-gpu-hosts on MLAG pair "
        "mel1-lf101, mel1-lf102: it is each pair's LACP system id and, on NVUE, its EVPN router "
        "MAC, so remote VTEPs would learn one router MAC behind two anycast VTEPs and hosts "
        "would see one LACP system on two pairs; give each pair a MAC of its own"
    ]
    assert result.errors


def test_mh024_two_cumulus_pairs_with_one_router_mac(example: Path) -> None:
    """The NVUE case: the second pair's `mlag mac-address` and `anycast-mac` would be the
    first's."""
    attachments = _second_cumulus_pair(example, "44:38:39:FF:00:01")  # the case differs only
    result = lint_repo(example)
    assert findings_of(result, "MH-024") == [
        f"{ATTACHMENTS}:{line_of(attachments, '44:38:39:FF:00:01')}: lacp_system_mac "
        f"44:38:39:FF:00:01 of attachment mdf-hosts on MLAG pair aus1-bl5, aus1-bl6 is also the "
        f"system MAC of attachment {MLAG_PAIR} on MLAG pair aus1-lf1, aus1-lf2: it is each "
        "pair's LACP system id and, on NVUE, its EVPN router MAC, so remote VTEPs would learn "
        "one router MAC behind two anycast VTEPs and hosts would see one LACP system on two "
        "pairs; give each pair a MAC of its own"
    ]
    assert findings_of(result, "MH-010") == []  # different pairs: not MH-010's
    assert findings_of(result, "MH-015") == []  # an anycast VTEP of its own


def test_mh024_three_pairs_one_mac_each_later_pair_once(example: Path) -> None:
    replace_in(example / MEL1, '"02:00:00:be:00:03"', '"02:00:00:be:00:01"')
    attachments = _mel1_r11_mac(example, "02:00:00:be:00:01")
    hits = findings_of(lint_repo(example), "MH-024")
    assert [h.split(":")[1] for h in hits] == [
        str(line_of(attachments, "02:00:00:be:00:01", 2)),
        str(line_of(attachments, "02:00:00:be:00:01", 3)),
    ]
    assert all("also the system MAC of attachment mel1-dh1-r10-gpu-hosts " in h for h in hits)


@pytest.mark.parametrize(
    ("mac", "clash"),
    [
        ("02:00:00:be:00:01", True),  # the lf101/102 pair's
        ("02:00:00:BE:00:01", True),  # the same MAC, written in capitals
        ("02:00:00:be:00:00", False),  # one below it
        ("02:00:00:be:00:04", False),  # one past the last pair's
    ],
)
def test_mh024_mac_boundary(example: Path, mac: str, clash: bool) -> None:
    _mel1_r11_mac(example, mac)
    hits = findings_of(lint_repo(example), "MH-024")
    assert len(hits) == (1 if clash else 0), hits


def test_mh024_attachments_on_one_pair_share_its_mac(example: Path) -> None:
    add_attachment(example, "dh1-r10-more-hosts", MORE_MLAG_HOSTS)
    assert findings_of(lint_repo(example), "MH-024") == []


def test_mh024_an_esi_attachment_may_repeat_an_mlag_pairs_mac(example: Path) -> None:
    """An ESI's MAC is part of its ESI and its hosts' LACP system id, never a router MAC: the
    ESI pair repeating the MLAG pair's MAC breaks nothing."""
    edit_attachments(
        example,
        'lacp_system_mac: "44:38:39:ff:00:02"',
        'lacp_system_mac: "44:38:39:ff:00:01"',
    )
    result = lint_repo(example)
    assert findings_of(result, "MH-024") == []
    assert findings_of(result, "MH-011") == []
