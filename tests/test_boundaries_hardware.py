"""HW-001's port check (validators/data/hardware.yaml): the first and last port of every run of
cages and the first and last breakout sub-port or lane, each with its neighbour just outside
(docs/mutation.md). port_problem reads only a device's model and platform."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import findings_of, line_of, lint_repo
from meetme.validators.rules.hardware import port_problem


def _device(platform: str, model: str) -> Any:
    return SimpleNamespace(platform=platform, model=model)


IOSXR = _device("cisco_iosxr", "8201-32FH")
EOS = _device("arista_eos", "7280CR3-32P4")
NXOS = _device("cisco_nxos", "N9K-C9364D-GX2A")
NVUE = _device("nvidia_nvue", "SN5600")
EOS_RANGES = "a 7280CR3-32P4 has ports 1-32 (QSFP100), 33-36 (OSFP 400G)"
NXOS_RANGES = "a N9K-C9364D-GX2A has ports 1-64 (QSFP-DD 400G), 65-66 (SFP+)"


@pytest.mark.parametrize(
    ("device", "interface", "problem"),
    [
        # IOS-XR: ports 0-31, breakout sub-ports 0-3
        (IOSXR, "FourHundredGigE0/0/0/0", None),
        (IOSXR, "FourHundredGigE0/0/0/31", None),
        (IOSXR, "FourHundredGigE0/0/0/32", "a 8201-32FH has ports 0-31 (QSFP-DD 400G)"),
        (IOSXR, "HundredGigE0/0/0/31/0", None),
        (IOSXR, "HundredGigE0/0/0/31/3.100", None),
        (
            IOSXR,
            "HundredGigE0/0/0/31/4",
            "port 31 of a 8201-32FH (QSFP-DD 400G) has breakout sub-ports 0-3",
        ),
        # EOS: lanes 1-4 on ports 1-32, 1-8 on 33-36; a multi-lane cage is written with a lane
        (EOS, "Ethernet0/1", EOS_RANGES),
        (EOS, "Ethernet1/1", None),
        (EOS, "Ethernet32/4", None),
        (EOS, "Ethernet32/5", "port 32 of a 7280CR3-32P4 (QSFP100) has lanes 1-4"),
        (EOS, "Ethernet33/0", "port 33 of a 7280CR3-32P4 (OSFP 400G) has lanes 1-8"),
        (EOS, "Ethernet33/8", None),
        (EOS, "Ethernet36/1", None),
        (EOS, "Ethernet37/1", EOS_RANGES),
        (
            EOS,
            "Ethernet36",
            "port 36 of a 7280CR3-32P4 (OSFP 400G) is written with one of its lanes 1-8",
        ),
        # NX-OS: breakout sub-ports 1-4 on 1-64; the SFP+ ports 65-66 have none
        (NXOS, "Ethernet1/64/1", None),
        (NXOS, "Ethernet1/64/4", None),
        (
            NXOS,
            "Ethernet1/64/0",
            "port 64 of a N9K-C9364D-GX2A (QSFP-DD 400G) has breakout sub-ports 1-4",
        ),
        (NXOS, "Ethernet1/65", None),
        (NXOS, "Ethernet1/66", None),
        (NXOS, "Ethernet1/67", NXOS_RANGES),
        (NXOS, "Ethernet1/65/1", "port 65 of a N9K-C9364D-GX2A (SFP+) has no breakout sub-ports"),
        # Cumulus: swp1-64, breakout sub-ports 0-3
        (NVUE, "swp1", None),
        (NVUE, "swp64s0", None),
        (NVUE, "swp64s3", None),
        (NVUE, "swp64s4", "port 64 of a SN5600 (OSFP 800G) has breakout sub-ports 0-3"),
        (NVUE, "swp65", "a SN5600 has ports 1-64 (OSFP 800G)"),
    ],
)
def test_port_problem_at_the_ends_of_each_range(
    device: Any, interface: str, problem: str | None
) -> None:
    assert port_problem(device, interface) == problem


LINKS = "intent/aus1/links.yaml"


# HW-001 on an explicit link names the link by its number


def test_hw001_explicit_link_past_the_last_port(example: Path) -> None:
    links = example / LINKS
    links.write_text(
        links.read_text()
        # appended to the example's explicit links (the border pair's two)
        + "      - a: {device: aus1-lf1, interface: swp65}\n"
        + "        b: {device: aus1-lf2, interface: swp1}\n"
        + "        index: 64\n"
        + "        speed: 400G\n"
    )
    assert findings_of(lint_repo(example), "HW-001") == [
        f"{LINKS}:{line_of(links, 'swp65')}: explicit link #2 gives swp65 on aus1-lf1, but a "
        "SN5600 has ports 1-64 (OSFP 800G)"
    ]
