"""Port identity (validators/rules/ports.py, which PHY-013 compares ports by): how many numbers
name a port on each platform, one fewer and one more (docs/mutation.md)."""

from __future__ import annotations

import pytest
from meetme.validators.rules.ports import PortId, port_id


@pytest.mark.parametrize(
    ("platform", "name", "expected"),
    [
        # Cumulus: swpP, breakout swpPsS, sub-interface .U
        ("nvidia_nvue", "swp1", PortId((1,), None, None)),
        ("nvidia_nvue", "swp1s0", PortId((1,), 0, None)),
        ("nvidia_nvue", "swp01s3.100", PortId((1,), 3, 100)),
        ("nvidia_nvue", "swp1.0", PortId((1,), None, 0)),
        ("nvidia_nvue", "eth0", None),
        # EOS: EthernetP, EthernetP/L (fixed), EthernetS/P/L (modular); four numbers is nothing
        ("arista_eos", "Ethernet9", PortId((9,), None, None)),
        ("arista_eos", "Et09/1", PortId((9,), 1, None)),
        ("arista_eos", "Ethernet3/9/1.200", PortId((3, 9), 1, 200)),
        ("arista_eos", "Ethernet1/2/3/4", None),
        ("arista_eos", "Port-Channel1", None),
        # NX-OS: Ethernet1/P (two numbers), breakout Ethernet1/P/S (three); one or four: nothing
        ("cisco_nxos", "Ethernet1/9", PortId((1, 9), None, None)),
        ("cisco_nxos", "eth1/9/2.30", PortId((1, 9), 2, 30)),
        ("cisco_nxos", "Ethernet9", None),
        ("cisco_nxos", "Ethernet1/9/2/1", None),
        # IOS-XR: Type0/0/0/P (four numbers), breakout /S (five); three or six: nothing
        ("cisco_iosxr", "FourHundredGigE0/0/0/16", PortId((0, 0, 0, 16), None, None)),
        ("cisco_iosxr", "HundredGigE0/0/0/16/3.100", PortId((0, 0, 0, 16), 3, 100)),
        ("cisco_iosxr", "HundredGigE0/0/16", None),
        ("cisco_iosxr", "HundredGigE0/0/0/16/3/1", None),
        ("juniper_junos", "et-0/0/0", None),
    ],
)
def test_port_id_reads_each_platforms_numbering(
    platform: str, name: str, expected: PortId | None
) -> None:
    assert port_id(platform, name) == expected


@pytest.mark.parametrize(
    ("platform", "port", "text"),
    [
        ("nvidia_nvue", PortId((1,), None, 5), "swp1"),
        ("nvidia_nvue", PortId((1,), 0, None), "swp1s0"),
        ("arista_eos", PortId((9,), 1, None), "Ethernet9/1"),
        ("cisco_nxos", PortId((1, 9), None, None), "Ethernet1/9"),
        ("cisco_iosxr", PortId((0, 0, 0, 16), 0, 7), "0/0/0/16/0"),
    ],
)
def test_port_text_is_the_platforms_name_without_the_unit(
    platform: str, port: PortId, text: str
) -> None:
    assert port.text(platform) == text


def test_two_spellings_of_one_port_share_a_cage_and_differ_from_a_sub_port() -> None:
    a = port_id("cisco_iosxr", "FourHundredGigE0/0/0/16")
    b = port_id("cisco_iosxr", "HundredGigE0/0/0/16.10")
    c = port_id("cisco_iosxr", "HundredGigE0/0/0/16/0")
    assert a is not None and b is not None and c is not None
    assert a.cage == b.cage == ((0, 0, 0, 16), None)
    assert c.cage == ((0, 0, 0, 16), 0)
