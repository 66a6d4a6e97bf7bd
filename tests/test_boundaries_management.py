"""MGMT-002, MGMT-003: the management rules at their edges (docs/mutation.md): an explicit link's
own subnet is claimed space, and IPv6 management addresses on an IPv6 management network."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from typer.testing import CliRunner

from meetme.cli import app

DEVICES = "intent/aus1/devices.yaml"
SITE = "intent/aus1/site.yaml"
LINKS = "intent/aus1/links.yaml"
LF1 = "management: 192.168.10.101/24"  # aus1-lf1


def _explicit_link(repo: Path, ipv4: str) -> None:
    links = repo / LINKS
    links.write_text(
        links.read_text()
        # appended to the example's explicit links (the border pair's two)
        + "      - a: {device: aus1-sp1, interface: Ethernet5/1}\n"
        + "        b: {device: aus1-br1, interface: FourHundredGigE0/0/0/30}\n"
        + "        index: 100\n"
        + "        speed: 400G\n"
        + f"        ipv4: {ipv4}\n"
    )


@pytest.mark.parametrize(
    ("address", "claimed"),
    [
        ("192.168.10.200/24", True),  # the /31's first address
        ("192.168.10.201/24", True),  # and its last
        ("192.168.10.202/24", False),  # the next address is the management network's
    ],
)
def test_mgmt002_address_in_an_explicit_links_own_subnet(
    example: Path, address: str, claimed: bool
) -> None:
    """A link written out with its own ipv4 takes that /31 outside the p2p pool: the space is
    claimed like a pool (a rule-made link's subnet is the pool's, claimed as the pool)."""
    _explicit_link(example, "192.168.10.200/31")
    devices = example / DEVICES
    replace_in(devices, LF1, f"management: {address}")
    ip = address.split("/")[0]
    expected = (
        [
            f"{DEVICES}:{line_of(devices, address)}: aus1-lf1's management address {ip} lies in "
            "the link aus1-sp1 Ethernet5/1 - aus1-br1 FourHundredGigE0/0/0/30 "
            "192.168.10.200/31; take it from the management network's own space"
        ]
        if claimed
        else []
    )
    assert findings_of(lint_repo(example), "MGMT-002") == expected


def test_mgmt002_address_in_the_p2p_pool_is_reported_once(example: Path) -> None:
    """Rule-made links take their subnets from p2p_v4: the pool is reported, not each link."""
    devices = example / DEVICES
    replace_in(devices, LF1, "management: 10.1.0.1/16")  # a leaf-spine /31 of the pool
    assert findings_of(lint_repo(example), "MGMT-002") == [
        f"{DEVICES}:{line_of(devices, '10.1.0.1/16')}: aus1-lf1's management address 10.1.0.1 "
        "lies in pool p2p_v4 10.1.0.0/16; take it from the management network's own space"
    ]


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("2001:db8:99::/64", "is the subnet-router anycast address of 2001:db8:99::/64"),
        ("2001:db8:99::/126", "is the subnet-router anycast address of 2001:db8:99::/126"),
        ("2001:db8:99::/127", None),  # RFC 6164: both addresses of a /127 are usable
        ("2001:db8:99::2/126", None),  # a host of the /126 that holds the gateway
        ("2001:db8:99::1/64", "is the management gateway 2001:db8:99::1 itself"),
    ],
)
def test_mgmt003_ipv6_management_limits(example: Path, address: str, problem: str | None) -> None:
    """An IPv6 management network (gateway 2001:db8:99::1): aus1-lf1's address at the
    subnet-router anycast address of a /64, a /126 and a /127."""
    replace_in(example / SITE, "gateway: 192.168.10.1", 'gateway: "2001:db8:99::1"')
    devices = example / DEVICES
    replace_in(devices, LF1, f'management: "{address}"')
    hits = [
        h
        for h in findings_of(lint_repo(example), "MGMT-003")
        if h.startswith(f"{DEVICES}:{line_of(devices, address)}: ")
    ]
    expected = (
        []
        if problem is None
        else [
            f"{DEVICES}:{line_of(devices, address)}: aus1-lf1's management address {address} "
            f"{problem}; correct the address or its length"
        ]
    )
    assert hits == expected


def _load_problems(repo: Path) -> list[str]:
    """`meetme lint`'s problems, which stop it before any rule (exit 2)."""
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code in (0, 1, 2), result.output
    return [line for line in result.stderr.splitlines() if ": error[" in line]


def test_a_management_address_of_length_0_is_refused_at_the_value(example: Path) -> None:
    """Was clean: IOS-XR rendered `ipv4 address 192.168.10.11 0.0.0.0`, every destination on
    the management link and none sent to the gateway."""
    devices = set_management_line(
        example, "management: 192.168.10.11/24", "management: 192.168.10.11/0"
    )
    line = line_of(devices, "192.168.10.11/0")
    assert _load_problems(example) == [
        f"{DEVICES}:{line}:21: error[bad-value]: sites.aus1.devices.aus1-br1.management: "
        "'192.168.10.11/0': a /0 management subnet spans 0.0.0.0/0, so every destination would "
        "be on the management link and none sent to the gateway; write the management "
        "subnet's own length, at least /8, e.g. 192.168.10.11/24"
    ]


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("192.168.10.101/7", True),  # 192.168.0.0/7
        ("192.168.10.101/8", False),  # the shortest: 192.0.0.0/8 holds the gateway
        ("192.168.10.101/31", False),  # MGMT-003's: .100/31 does not hold .1
    ],
)
def test_management_length_limits(example: Path, address: str, refused: bool) -> None:
    set_management_line(example, LF1, f"management: {address}")
    problems = _load_problems(example)
    if refused:
        assert (
            len(problems) == 1 and f"'{address}': a /7 management subnet spans " in (problems[0])
        ), problems
    else:
        assert problems == []


def set_management_line(repo: Path, old: str, new: str) -> Path:
    devices = repo / DEVICES
    replace_in(devices, old, new)
    return devices
