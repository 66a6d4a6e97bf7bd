"""ADDR-*: boundary cases and the cases that killed surviving mutants (docs/mutation.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

DEVICES = "intent/aus1/devices.yaml"


# ADDR-006: only a border running the organisation ASN is exempt from "internal ASNs are private"

ADDR006_TAIL = (
    ": not a private ASN; internal ASNs must be private (64512-65534 or 4200000000-4294967294)"
)


def _give_asn(devices: Path, management: str, asn: int) -> int:
    replace_in(
        devices, f"management: {management}\n", f"management: {management}\n        asn: {asn}\n"
    )
    return line_of(devices, f"asn: {asn}")


def test_addr006_leaf_with_the_organisation_asn_is_not_exempt(example: Path) -> None:
    devices = example / DEVICES
    line = _give_asn(devices, "192.168.10.103/24", 64500)
    assert findings_of(lint_repo(example), "ADDR-006") == [
        f"{DEVICES}:{line}: aus1-lf3 (ASN 64500){ADDR006_TAIL}"
    ]


def test_addr006_border_with_another_public_asn_is_not_exempt(example: Path) -> None:
    devices = example / DEVICES
    line = _give_asn(devices, "192.168.10.11/24", 64499)
    assert findings_of(lint_repo(example), "ADDR-006") == [
        f"{DEVICES}:{line}: aus1-br1 (ASN 64499){ADDR006_TAIL}"
    ]


def test_addr006_border_with_the_organisation_asn_written_out_is_exempt(example: Path) -> None:
    _give_asn(example / DEVICES, "192.168.10.11/24", 64500)
    assert findings_of(lint_repo(example), "ADDR-006") == []


# ADDR-006: the private ranges are 64512-65534 and 4200000000-4294967294 (RFC 6996)

SITE = "intent/aus1/site.yaml"
SPINES = "aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4"


@pytest.mark.parametrize(
    ("asn", "private"),
    [
        (64511, False),
        (64512, True),
        (65534, True),
        (4199999999, False),
        (4200000000, True),
        (4294967294, True),
    ],
)
def test_addr006_spine_asn_at_the_private_range_ends(
    example: Path, asn: int, private: bool
) -> None:
    site = example / SITE
    replace_in(site, "spine: 4200009000", f"spine: {asn}")
    expected = [f"{SITE}:{line_of(site, f'spine: {asn}')}: {SPINES} (ASN {asn}){ADDR006_TAIL}"]
    assert findings_of(lint_repo(example), "ADDR-006") == ([] if private else expected)
