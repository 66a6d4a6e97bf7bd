"""Names that become config names: a tenant VRF never takes a name a platform keeps for itself
(EVPN-024), VRF names differ in more than case (EVPN-025), party names in more than case and
punctuation (EDGE-011), a VRF name fits every platform carrying it (PLAT-020), and so does every
prefix list named after a party, a circuit or a VRF (PLAT-025), and a device name is a hostname
its platform takes (PLAT-026). Each passes
on the example and fails on one realistic edit, at the exact line; just inside each limit
passes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import TENANTS

ATTACHMENTS = "intent/aus1/attachments.yaml"
DEVICES = "intent/aus1/devices.yaml"
PEERING = "intent/aus1/peering.yaml"


def rename_vrf(repo: Path, old: str, new: str) -> Path:
    """Rename a VRF everywhere the example names it: its tenant, its networks, its handoff."""
    tenants = repo / TENANTS
    replace_in(tenants, f"{old}:", f"{new}:")
    replace_in(tenants, f"vrf: {old},", f"vrf: {new},", count=2)
    replace_in(repo / ATTACHMENTS, f"{old}:", f"{new}:")
    return tenants


@pytest.mark.parametrize(
    ("name", "holder"),
    [
        ("default", "the global routing table"),
        # the site's is MGMT, NVUE's mgmt: both, and the spellings it matched without case
        (
            "Mgmt",
            "the site's management VRF (management.vrf) and of the management VRF of NVIDIA "
            "Cumulus Linux 5.16 (NVUE), compared without letter case (MGMT, mgmt)",
        ),
        ("management", "the management VRF of Cisco NX-OS"),
        (
            "ALL",
            "a word NVIDIA Cumulus Linux 5.16 (NVUE) keeps for itself, compared without letter "
            "case (all)",
        ),
    ],
)
def test_evpn024_reserved_vrf_name(example: Path, name: str, holder: str) -> None:
    tenants = rename_vrf(example, "gpu-a-mgmt", name)
    result = lint_repo(example)
    assert findings_of(result, "EVPN-024") == [
        f"{TENANTS}:{line_of(tenants, f'{name}: {{l3vni')}: VRF {name} of tenant gpu-tenant-a "
        f"takes the name of {holder}; rename the VRF"
    ]
    assert result.errors


def test_evpn024_a_name_that_only_starts_like_a_reserved_one_is_fine(example: Path) -> None:
    rename_vrf(example, "gpu-a-mgmt", "mgmt2")
    result = lint_repo(example)
    assert findings_of(result, "EVPN-024") == []
    assert not result.errors


def test_evpn025_vrf_names_differing_only_in_case(example: Path) -> None:
    tenants = example / TENANTS
    replace_in(
        tenants,
        "          gpu-a-mgmt: {l3vni: 50002, vlan: 3002}\n",
        "          gpu-a-mgmt: {l3vni: 50002, vlan: 3002}\n          STORAGE: {l3vni: 50011}\n",
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-025") == [
        f"{TENANTS}:{line_of(tenants, 'storage: {l3vni: 50010')}: VRF storage of tenant storage "
        "differs from VRF STORAGE only in letter case: their policies would share one name; "
        "rename one"
    ]


def test_edge011_party_names_differing_in_case_and_punctuation(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "eyeball-b: {asn: 64506", "Content_A: {asn: 64506")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-011") == [
        f"{PEERING}:{line_of(peering, 'Content_A:')}: party ix-syd/Content_A differs from "
        "party ix-syd/content-a only in letter case or in `-`, `_`, `.`: both would be named "
        "IX-SYD-CONTENT-A in the configs and share one policy; rename one"
    ]
    assert result.errors


def test_edge011_a_name_one_character_apart_is_fine(example: Path) -> None:
    replace_in(example / PEERING, "eyeball-b: {asn: 64506", "content-a2: {asn: 64506")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-011") == []


def test_plat020_vrf_name_longer_than_nvue_takes(example: Path) -> None:
    rename_vrf(example, "gpu-a-mgmt", "gpu-a-management")  # 16 characters
    result = lint_repo(example)
    found = findings_of(result, "PLAT-020")
    devices = example / DEVICES
    # the NVUE switches carrying the VRF: the MLAG pair of rack dh1-r10 (its other rack,
    # dh2-r10, has NX-OS and EOS leaves; it is handed off through the EOS border leaves),
    # each at its own platform line
    assert found == [
        f"{DEVICES}:{line_of(devices, 'platform: nvidia_nvue', n)}: {name} (NVIDIA Cumulus "
        "Linux 5.16 (NVUE)) cannot render VRF gpu-a-management: it takes 1 to 15 letters, "
        "digits, '-' and '_', starting with a letter (a Linux interface name; nvueschema "
        "v5_16 VrfName); rename the VRF"
        for n, name in ((1, "aus1-lf1"), (2, "aus1-lf2"))
    ]


def test_plat020_fifteen_characters_fit(example: Path) -> None:
    rename_vrf(example, "gpu-a-mgmt", "gpu-a-mgmt-0123")  # 15 characters
    result = lint_repo(example)
    assert findings_of(result, "PLAT-020") == []
    assert not result.errors


@pytest.mark.parametrize(("length", "refused"), [(32, False), (33, True)])
def test_plat020_nxos_takes_vrf_names_of_32_characters(
    example: Path, length: int, refused: bool
) -> None:
    """NX-OS's `vrf context` takes 32 characters: at 33 the NX-OS leaves of the VRF's racks are
    refused, each at its platform line; at 32 none is (NVUE's 15 refuse both)."""
    name = "gpu-a-mgmt-" + "x" * (length - 11)
    assert len(name) == length
    rename_vrf(example, "gpu-a-mgmt", name)
    found = [f for f in findings_of(lint_repo(example), "PLAT-020") if "(Cisco NX-OS)" in f]
    devices = example / DEVICES
    expected = [
        f"{DEVICES}:{line_of(devices, 'platform: cisco_nxos', n)}: {device} (Cisco NX-OS) "
        f"cannot render VRF {name}: it takes at most 32 characters (cisco.nxos nxos_vrf: VRF "
        "name max length 32); rename the VRF"
        for n, device in ((1, "aus1-lf3"), (2, "aus1-lf4"))
    ]
    assert found == (expected if refused else [])


CLOUDS = "intent/aus1/clouds.yaml"
CIRCUITS = "intent/aus1/circuits.yaml"


@pytest.mark.parametrize(("length", "refused"), [(36, False), (37, True)])
def test_plat025_nxos_takes_prefix_list_names_of_63_characters(
    example: Path, length: int, refused: bool
) -> None:
    """The Azure circuit's name is inside its prefix lists: PL-<CIRCUIT>-PRIVATE-OWN-ORLONGER-V4
    is 63 characters with a 36-character name, which NX-OS takes, and 64 with 37: then both
    NX-OS border leaves holding the sessions are refused, naming the list."""
    circuit = "er-syd-" + "x" * (length - 7)
    assert len(circuit) == length
    replace_in(example / CLOUDS, "        er-syd:\n", f"        {circuit}:\n")
    replace_in(example / CIRCUITS, "party: er-syd,", f"party: {circuit},", count=2)
    result = lint_repo(example)
    devices = example / DEVICES
    plist = f"PL-{circuit.upper()}-PRIVATE-OWN-ORLONGER-V4"
    assert len(plist) == length + 27
    expected = [
        f"{DEVICES}:{line_of(devices, 'platform: cisco_nxos', n)}: {device} (Cisco NX-OS) "
        f"cannot render prefix-list {plist}: 64 characters, and its name takes at most 63; "
        "shorten the name of the party, circuit or VRF it is named after"
        for n, device in ((3, "aus1-bl3"), (4, "aus1-bl4"))
    ]
    assert findings_of(result, "PLAT-025") == (expected if refused else [])
    assert bool(result.errors) == refused


@pytest.mark.parametrize(
    ("name", "refused"),
    [("aus1-lf2b", False), ("aus1_lf2", True), ("aus1.lf2", True), ("aus1-lf2-", True)],
)
def test_plat026_nvue_takes_one_dns_label_as_hostname(
    example: Path, name: str, refused: bool
) -> None:
    """An NVUE leaf's name is its `system hostname`: letters, digits and inner '-' only. The
    intent takes '_', '.' and a trailing '-' in names; NVUE refuses the file then."""
    for path in (example / "intent").rglob("*.yaml"):
        path.write_text(re.sub(r"\baus1-lf2\b(?![0-9])", name, path.read_text()))
    found = findings_of(lint_repo(example), "PLAT-026")
    devices = example / DEVICES
    expected = [
        f"{DEVICES}:{line_of(devices, 'platform: nvidia_nvue', 2)}: {name} (NVIDIA Cumulus "
        f"Linux 5.16 (NVUE)) cannot render hostname {name}: it takes 1 to 63 letters, digits "
        "and '-', neither first nor last (a DNS host label; nvueschema v5_16 Hostname, no "
        "dots); rename the device"
    ]
    assert found == (expected if refused else [])
