"""MGMT-001..007, the management feature: management addressing that would lock a device out
after a replace push."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in

MGMT_RULES = tuple(f"MGMT-{n:03}" for n in range(1, 8))
DEVICES = "intent/aus1/devices.yaml"
SITE = "intent/aus1/site.yaml"
LF1 = "management: 192.168.10.101/24"  # aus1-lf1, the first NVUE leaf
LF3 = "management: 192.168.10.103/24"  # aus1-lf3, written after the borders


def set_management(repo: Path, old: str, new: str) -> Path:
    devices = repo / DEVICES
    replace_in(devices, old, f"management: {new}")
    return devices


def test_example_has_no_management_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in MGMT_RULES] == []


def test_mgmt001_leaf_given_the_border_address(example: Path) -> None:
    devices = set_management(example, LF3, "192.168.10.11/24")
    result = lint_repo(example)
    assert findings_of(result, "MGMT-001") == [
        f"{DEVICES}:{line_of(devices, 'management: 192.168.10.11/24', 2)}: aus1-lf3 has "
        "management address 192.168.10.11, already aus1-br1's; give each device an address of "
        "its own"
    ]
    assert result.errors


def test_mgmt001_same_address_with_another_length_is_still_one_address(example: Path) -> None:
    devices = set_management(example, LF3, "192.168.10.11/23")
    line = line_of(devices, "management: 192.168.10.11/23")
    assert [h.split(": ")[0] for h in findings_of(lint_repo(example), "MGMT-001")] == [
        f"{DEVICES}:{line}"
    ]


def test_mgmt001_neighbouring_address_is_fine(example: Path) -> None:
    set_management(example, LF3, "192.168.10.13/24")  # next to aus1-br2's .12
    assert findings_of(lint_repo(example), "MGMT-001") == []


def test_mgmt002_address_in_a_fabric_pool(example: Path) -> None:
    devices = set_management(example, LF1, "10.1.255.254/16")
    result = lint_repo(example)
    assert findings_of(result, "MGMT-002") == [
        f"{DEVICES}:{line_of(devices, '10.1.255.254/16')}: aus1-lf1's management address "
        "10.1.255.254 lies in pool p2p_v4 10.1.0.0/16; take it from the management network's "
        "own space"
    ]
    assert result.errors


def test_mgmt002_first_address_past_the_pool_is_outside(example: Path) -> None:
    set_management(example, LF1, "10.2.0.1/16")  # p2p_v4 is 10.1.0.0/16
    assert findings_of(lint_repo(example), "MGMT-002") == []


@pytest.mark.parametrize(
    ("address", "claimed"),
    [
        ("10.50.2.77/24", "network gpu-a-compute-2 10.50.2.0/24"),
        ("10.60.200.1/24", "handoff VRF storage's export_north 10.60.0.0/16"),
        ("203.0.113.200/24", "IX ix-syd's peering LAN 203.0.113.0/24"),
        (
            "169.254.10.6/30",
            "aus1-bl2 Ethernet9/1.101 (aws aws-syd/private-2 XC-AWS-2 vlan 101) 169.254.10.4/30",
        ),
    ],
)
def test_mgmt002_address_in_tenant_handoff_or_edge_space(
    example: Path, address: str, claimed: str
) -> None:
    set_management(example, LF1, address)
    hits = findings_of(lint_repo(example), "MGMT-002")
    ip = address.split("/")[0]
    assert [h.split(": ", 1)[1] for h in hits] == [
        f"aus1-lf1's management address {ip} lies in {claimed}; take it from the management "
        "network's own space"
    ]


def test_mgmt002_gateway_in_the_loopback_pool(example: Path) -> None:
    site = example / SITE
    replace_in(site, "gateway: 192.168.10.1", "gateway: 10.0.0.250")
    hits = findings_of(lint_repo(example), "MGMT-002")
    assert hits == [
        f"{SITE}:{line_of(site, 'gateway: 10.0.0.250')}: the management gateway 10.0.0.250 lies "
        "in pool loopback_v4 10.0.0.0/24; take it from the management network's own space"
    ]


def test_mgmt003_gateway_outside_the_device_subnet(example: Path) -> None:
    devices = set_management(example, LF1, "192.168.11.101/24")
    result = lint_repo(example)
    assert findings_of(result, "MGMT-003") == [
        f"{DEVICES}:{line_of(devices, '192.168.11.101/24')}: aus1-lf1's management address "
        "192.168.11.101/24 is on 192.168.11.0/24, which does not hold the management gateway "
        "192.168.10.1: the device has no route back to the jump host; correct the address or "
        "its length"
    ]
    assert result.errors


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("192.168.11.101/23", None),  # widened to /23, the subnet holds the gateway
        ("192.168.10.126/25", None),  # .0/25 holds .1
        ("192.168.10.129/25", "is on 192.168.10.128/25, which does not hold"),
        ("192.168.10.1/24", "is the management gateway 192.168.10.1 itself"),
        ("192.168.10.0/24", "is the network address of 192.168.10.0/24"),
        ("192.168.10.255/24", "is the broadcast address of 192.168.10.0/24"),
        ("192.168.10.254/24", None),
        ("192.168.10.0/30", "is the network address of 192.168.10.0/30"),
        ("192.168.10.0/31", None),  # RFC 3021: both addresses of a /31 are hosts
        ("192.168.10.1/32", "is the management gateway 192.168.10.1 itself"),
        ("192.168.10.2/32", "is on 192.168.10.2/32, which does not hold"),
        ("2001:db8:99::5/64", "is on 2001:db8:99::/64, which does not hold"),
    ],
)
def test_mgmt003_limits(example: Path, address: str, problem: str | None) -> None:
    set_management(example, LF1, address)
    hits = findings_of(lint_repo(example), "MGMT-003")
    if problem is None:
        assert hits == []
    else:
        assert len(hits) == 1 and f"management address {address} {problem}" in hits[0], hits


def test_mgmt004_an_ipv6_management_network_is_refused(example: Path) -> None:
    """meetme renders IPv4 management only: an IPv6 gateway and address would print
    `ip address fd00:10::21/64` and `ip route 0.0.0.0/0 fd00:10::1`, which devices refuse."""
    site = example / SITE
    replace_in(site, "gateway: 192.168.10.1", 'gateway: "fd00:10::1"')
    devices = set_management(example, LF1, '"fd00:10::101/64"')
    assert findings_of(lint_repo(example), "MGMT-004") == [
        f"{DEVICES}:{line_of(devices, 'fd00:10::101/64')}: aus1-lf1's management address "
        "fd00:10::101/64 is IPv6: meetme renders an IPv4 management network only; give it an "
        "IPv4 address",
        f"{SITE}:{line_of(site, 'fd00:10::1')}: the management gateway fd00:10::1 is IPv6: "
        "meetme renders an IPv4 management network only; give the management network IPv4 "
        "addresses",
    ]


@pytest.mark.parametrize(
    ("vrf", "refused"), [("default", True), ("Default", True), ("defaults", False)]
)
def test_mgmt006_the_management_vrf_is_not_the_global_table(
    example: Path, vrf: str, refused: bool
) -> None:
    """Was 16 CFG-010 findings in the rendered files of aus1's 8 EOS and IOS-XR devices (EOS
    `vrf instance default`, SSH and eAPI shut in the VRF they were meant to answer in), none
    at the intent line that must change."""
    site = example / SITE
    replace_in(site, "vrf: MGMT", f"vrf: {vrf}")
    result = lint_repo(example)
    expected = [
        f"{SITE}:{line_of(site, f'vrf: {vrf}')}: management VRF {vrf} is the global routing "
        "table: 8 device(s) (first: aus1-bl1) would put their management port, its default "
        "route and services beside the data plane; name a VRF of its own (such as MGMT)"
    ]
    assert findings_of(result, "MGMT-006") == (expected if refused else [])
    assert [f.rule for f in result.errors] == (["MGMT-006"] if refused else [])


@pytest.mark.parametrize(
    ("servers", "expected"),
    [
        ("[192.168.10.5, 192.168.10.6]", []),  # the example: on the management network
        (  # aus1-br1's loopback, in the loopback pool
            "[192.168.10.5, 10.0.0.1]",
            [
                "NTP server 10.0.0.1 lies in pool loopback_v4 10.0.0.0/24, which the data plane "
                "holds: the devices send to it out of their management port; name a server on "
                "the management network"
            ],
        ),
        (
            '[192.168.10.5, "2001:db8:ffff::123"]',
            [
                "NTP server 2001:db8:ffff::123 is IPv6, and the management VRF routes IPv4 only "
                "(its default route to the management gateway): name an IPv4 server"
            ],
        ),
    ],
)
def test_mgmt005_ntp_servers_the_management_network_reaches(
    example: Path, servers: str, expected: list[str]
) -> None:
    site = example / SITE
    replace_in(site, "ntp_servers: [192.168.10.5, 192.168.10.6]", f"ntp_servers: {servers}")
    at = line_of(site, "ntp_servers")
    assert findings_of(lint_repo(example), "MGMT-005") == [f"{SITE}:{at}: {m}" for m in expected]


def test_mgmt005_a_syslog_server_in_the_fabric_pool(example: Path) -> None:
    site = example / SITE
    replace_in(site, "syslog_servers: [192.168.10.7]", "syslog_servers: [10.1.0.9]")
    assert findings_of(lint_repo(example), "MGMT-005") == [
        f"{SITE}:{line_of(site, 'syslog_servers')}: syslog server 10.1.0.9 lies in pool p2p_v4 "
        "10.1.0.0/16, which the data plane holds: the devices send to it out of their "
        "management port; name a server on the management network"
    ]


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("operator", "the OS keeps that name for itself"),
        ("root", "the OS keeps that name for itself"),
        ("_svc", "a name must start with a letter or a digit"),
        ("operators", None),  # a reserved word's neighbour is just a name
        ("svc_", None),  # an underscore after the first character is fine
    ],
)
def test_plat023_nxos_refuses_reserved_user_names(
    example: Path, name: str, refused: str | None
) -> None:
    """NX-OS keeps system accounts' names and wants an alphanumeric first character: the
    user is refused on each NX-OS device, at the user's line; EOS, IOS-XR and NVUE take it."""
    site = example / SITE
    replace_in(site, "        monitor:\n", f"        {name}:\n")
    found = findings_of(lint_repo(example), "PLAT-023")
    nxos = ["aus1-bl3", "aus1-bl4", "aus1-lf3", "aus1-lf4"]
    assert found == (
        []
        if refused is None
        else [
            f"{SITE}:{line_of(site, f'{name}:')}: {device} (Cisco NX-OS) cannot render local "
            f"user {name}: {refused}; rename the user"
            for device in nxos
        ]
    )


@pytest.mark.parametrize(
    ("network", "refused"),
    [
        ("s" * 24, False),  # storage_ + 24 = 32 characters: what NX-OS's `name` takes
        ("s" * 25, True),  # 33: one too many
    ],
)
def test_plat024_nxos_refuses_a_vlan_name_over_32_characters(
    example: Path, network: str, refused: bool
) -> None:
    """A fabric VLAN is named tenant_network; NX-OS takes 32 characters without `system vlan
    long-name` (not printed): each NX-OS leaf carrying the VLAN is refused at its platform line,
    once, and a name of exactly 32 characters is not refused anywhere."""
    mel1 = example / "intent" / "mel1"
    replace_in(mel1 / "tenants.yaml", "storage-front-1:", f"{network}:")
    replace_in(mel1 / "attachments.yaml", "storage-front-1", network, count=3)
    found = findings_of(lint_repo(example), "PLAT-024")
    devices = mel1 / "devices.yaml"
    # every NX-OS leaf of mel1 (pods 1 and 2) serves a rack of the network
    nxos = ["mel1-lf101", "mel1-lf102", "mel1-lf103", "mel1-lf104", "mel1-lf201", "mel1-lf202"]
    expected = [
        f"intent/mel1/devices.yaml:{line_of(devices, 'platform: cisco_nxos', n + 1)}: {device} "
        f"(Cisco NX-OS) cannot render VLAN 201 name storage_{network}: 33 characters, and its "
        "`name` takes at most 32; shorten the tenant's or the network's name"
        for n, device in enumerate(nxos)
    ]
    assert found == (expected if refused else [])


@pytest.mark.parametrize(
    ("gateway", "what"),
    [("192.168.10.0", "network address"), ("192.168.10.255", "broadcast address")],
)
def test_mgmt003_gateway_is_the_subnets_network_or_broadcast_address(
    example: Path, gateway: str, what: str
) -> None:
    """Was clean: every device's default route pointed at an address no host answers on. One
    finding at the gateway, not one per device of the subnet."""
    site = example / SITE
    replace_in(site, "gateway: 192.168.10.1", f"gateway: {gateway}")
    result = lint_repo(example)
    assert findings_of(result, "MGMT-003") == [
        f"{SITE}:{line_of(site, f'gateway: {gateway}')}: the management gateway {gateway} is "
        f"the {what} of 192.168.10.0/24 (aus1-br1's management subnet), no host address: the "
        "devices' default route would point at it; make the gateway a host address of the "
        "subnet, e.g. 192.168.10.1"
    ]
    assert result.errors


@pytest.mark.parametrize(("length", "found"), [("/23", False), ("/24", True)])
def test_mgmt003_gateway_broadcast_limits(example: Path, length: str, found: bool) -> None:
    """192.168.10.255 is a host of 192.168.10.0/23 and the broadcast address of the /24."""
    replace_in(example / SITE, "gateway: 192.168.10.1", "gateway: 192.168.10.255")
    devices = example / DEVICES
    count = devices.read_text().count("/24")
    assert count == 18
    replace_in(devices, "/24", length, count)
    hits = findings_of(lint_repo(example), "MGMT-003")
    assert len(hits) == found and all("broadcast address of 192.168.10.0/24" in h for h in hits)


def test_mgmt003_gateway_on_a_31_has_no_broadcast_address(example: Path) -> None:
    """RFC 3021: 192.168.10.1, the gateway, is the last address of aus1-lf1's /31, a host."""
    set_management(example, LF1, "192.168.10.0/31")
    assert findings_of(lint_repo(example), "MGMT-003") == []


NETOPS = """        netops:
          role: admin
          password_hash: "secret:aus1-netops-hash"
          password_hash_sha256: "secret:aus1-netops-hash-sha256"
"""
MONITOR = """        monitor:
          role: operator
          password_hash: "secret:aus1-monitor-hash"
          password_hash_sha256: "secret:aus1-monitor-hash-sha256"
"""
NO_ONE = (
    "meetme renders no other login (no TACACS+ or RADIUS), so once a rendered config replaces "
    "a device's, no one can log in to change it but at the console; add an admin, e.g. netops: "
    '{role: admin, password_hash: "secret:NAME"}'
)


@pytest.mark.parametrize(
    ("old", "new", "written", "what"),
    [
        (NETOPS + MONITOR, "", "users: {}", "name no login"),
        (
            NETOPS,
            "",
            "users:",
            "name only operators (monitor), who cannot change a config",
        ),
        (
            MONITOR,
            MONITOR.replace("role: operator", "role: admin"),
            None,
            None,
        ),  # the boundary: one admin, whoever else is listed, is enough
    ],
)
def test_mgmt007_a_site_keeps_a_local_admin_login(
    example: Path, old: str, new: str, written: str | None, what: str | None
) -> None:
    """`users: {}` linted, rendered and checked clean into configs with no username line at
    all: a replace of any device's config removed every login, the push's own too."""
    site = example / SITE
    replace_in(site, old, new)
    if written == "users: {}":
        replace_in(site, "      users:\n", "      users: {}\n")
    found = findings_of(lint_repo(example), "MGMT-007")
    if what is None:
        assert found == []
        return
    assert found == [
        f"{SITE}:{line_of(site, written)}: site aus1's management.users {what}: {NO_ONE}"
    ]


def test_mgmt007_a_site_without_users_written_is_reported_at_management(example: Path) -> None:
    site = example / SITE
    replace_in(site, "      users:\n" + NETOPS + MONITOR, "")
    assert findings_of(lint_repo(example), "MGMT-007") == [
        f"{SITE}:{line_of(site, 'management:')}: site aus1's management.users name no login: "
        f"{NO_ONE}"
    ]
