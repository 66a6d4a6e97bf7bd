"""PHY-013's judgement of two uses of one port (validators/rules/cabling.py), case by case:
which pairs can share one cable and how a clash is worded (docs/mutation.md)."""

from __future__ import annotations

import pytest
from meetme.validators.rules.cabling import PortUse, _relation, _shares_cable
from meetme.validators.rules.ports import port_id

from meetme.core.problems import Location

AT = Location("intent/aus1/links.yaml", 7, 9)
WHERE = f"first (at {AT})"


def use(
    name: str, kind: str = "link", far: str = "aus1-sp1", platform: str = "nvidia_nvue"
) -> PortUse:
    port = port_id(platform, name)
    assert port is not None, name
    return PortUse("aus1-lf1", platform, name, port, kind, "first", far, ())


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        (use("swp1", "peer-link"), use("swp1", "peer-link"), True),  # a pair's one peer link
        (use("swp1", "peer-link"), use("swp1", "host"), False),
        (use("swp1", "host"), use("swp1", "peer-link"), False),
        (use("swp1.10"), use("swp1.20"), True),  # sub-interfaces with their own VLANs
        (use("swp1.10"), use("swp1.10", far="aus1-sp2"), False),  # one VLAN twice
        (use("swp1"), use("swp1"), False),  # two untagged uses
        (use("swp1"), use("swp1.10"), True),  # VRF-lite: routed port + tagged, same device
        (use("swp1.10"), use("swp1"), True),
        (use("swp1"), use("swp1.10", far="aus1-sp2"), False),  # ... to another device
        (use("swp1", "cross-connect", far="x"), use("swp1.10", "link", far="x"), False),
        (use("swp1", "link", far="x"), use("swp1.10", "cross-connect", far="x"), False),
    ],
)
def test_shares_cable(first: PortUse, second: PortUse, shared: bool) -> None:
    assert _shares_cable(first, second) is shared


IOSXR = "cisco_iosxr"


@pytest.mark.parametrize(
    ("first", "second", "relation"),
    [
        (use("swp1", "host"), use("swp1", "host"), None),  # MH-005 reports one name twice
        (use("swp1"), use("swp1", "host"), None),
        (use("swp1"), use("swp1"), f"{WHERE} already uses swp1"),
        (use("swp1.10"), use("swp1.10", far="aus1-sp2"), f"{WHERE} already uses swp1.10"),
        (use("swp1"), use("swp1.10", far="aus1-sp2"), f"{WHERE} already uses swp1"),
        (use("swp1.10"), use("swp1", far="aus1-sp2"), f"{WHERE} already uses swp1.10"),
        (
            use("FourHundredGigE0/0/0/16", platform=IOSXR),
            use("HundredGigE0/0/0/16", platform=IOSXR),
            f"that is port 0/0/0/16, which {WHERE} already uses as FourHundredGigE0/0/0/16 "
            "(an IOS-XR name carries the optic's speed, not another port)",
        ),
        (
            use("HundredGigE0/0/0/16", platform=IOSXR),
            use("hundredgige0/0/0/016", platform=IOSXR),
            f"that is port 0/0/0/16, which {WHERE} already uses as HundredGigE0/0/0/16",
        ),
        (
            use("Ethernet09/1", platform="arista_eos"),
            use("Ethernet9/1", platform="arista_eos"),
            f"that is port Ethernet9/1, which {WHERE} already uses as Ethernet09/1",
        ),
        (
            use("swp1"),
            use("swp1s0"),
            f"that is a breakout sub-port of swp1, which {WHERE} uses whole",
        ),
        (
            use("swp1s0"),
            use("swp1"),
            f"{WHERE} uses its breakout sub-port swp1s0: a port is split or used whole",
        ),
        (use("swp1s0"), use("swp1s1"), None),
    ],
)
def test_relation(first: PortUse, second: PortUse, relation: str | None) -> None:
    assert _relation(first, second, AT) == relation
