"""EVPN-*: the overlay rules just inside and just outside their limits (docs/mutation.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from overlay_edits import TENANTS, edit_tenants

from meetme.core.problems import IntentError

SITE = "intent/aus1/site.yaml"
LINKS = "intent/aus1/links.yaml"


# --- EVPN-001: the largest network MTU a fabric link can carry --------------------------------


@pytest.mark.parametrize(("mtu", "carried"), [(9166, True), (9167, False)])
def test_evpn001_network_mtu_at_the_largest_ip_mtu_less_the_overhead(
    example: Path, mtu: int, carried: bool
) -> None:
    # every fabric link at the largest IP MTU (9216), so only the network's own limit speaks
    replace_in(example / SITE, "mtu: 9214", "mtu: 9216")
    tenants = edit_tenants(
        example, "l2vni: 10101, gateway_v4", f"l2vni: 10101, mtu: {mtu}, gateway_v4"
    )
    expected = (
        []
        if carried
        else [
            f"{TENANTS}:{line_of(tenants, 'mtu: 9167')}: network gpu-tenant-a/gpu-a-compute-1 "
            "has mtu 9167: VXLAN over IPv4 adds 50 bytes, and no fabric link takes an IP MTU of "
            "9217 (at most 9216); lower the network's mtu to at most 9166"
        ]
    )
    assert findings_of(lint_repo(example), "EVPN-001") == expected


def _explicit_links_on_the_site_mtu(repo: Path, how_many: int) -> Path:
    """Every link rule at 9214 of its own, the site's underlay mtu at 9000, and `how_many`
    explicit spine-border links without an mtu: only those take the site's 9000."""
    links = repo / LINKS
    text = links.read_text()
    for speed in ("speed: 400G\n", "speed: 100G\n"):
        text = text.replace(speed, f"{speed}        mtu: 9214\n")
    text = text.replace("speed: 400G}", "speed: 400G, mtu: 9214}")  # the border pair's links
    # appended to the example's explicit links (the border pair's links #0 and #1)
    for k in range(how_many):
        text += (
            f"      - a: {{device: aus1-sp1, interface: Ethernet{5 + k}/1}}\n"
            f"        b: {{device: aus1-br1, interface: FourHundredGigE0/0/0/{30 + k}}}\n"
            f"        index: {100 + k}\n"
            "        speed: 400G\n"
        )
    links.write_text(text)
    site = repo / SITE
    replace_in(site, "mtu: 9214", "mtu: 9000")
    return site


@pytest.mark.parametrize(
    ("how_many", "more", "origins"),
    [(1, "", "link #2"), (2, " and 1 more", "link #2, link #3")],
)
def test_evpn001_one_low_link_is_named_alone_two_are_one_and_1_more(
    example: Path, how_many: int, more: str, origins: str
) -> None:
    site = _explicit_links_on_the_site_mtu(example, how_many)
    assert findings_of(lint_repo(example), "EVPN-001") == [
        f"{SITE}:{line_of(site, 'mtu: 9000')}: IP MTU 9000 on fabric link aus1-sp1 Ethernet5/1 "
        f"- aus1-br1 FourHundredGigE0/0/0/30{more} ({origins}) is below 9050: network "
        "gpu-tenant-a/gpu-a-compute-1 has mtu 9000 and VXLAN over IPv4 adds 50 bytes (the VTEPs "
        "strip the 802.1Q tag); VTEPs do not fragment, so larger frames are dropped. Set mtu to "
        "at least 9050"
    ]


# --- EVPN-004: route targets shared by VNIs ---------------------------------------------------


def test_evpn004_two_explicit_route_targets_report_the_later_one_only(example: Path) -> None:
    """No default route target in the group: the first use in the file owns it, and only the
    other one is reported (never a network against itself)."""
    edit_tenants(
        example,
        "l2vni: 10101, gateway_v4",
        'l2vni: 10101, route_target: "65000:7", gateway_v4',
    )
    tenants = edit_tenants(
        example,
        "l2vni: 10102, gateway_v4",
        'l2vni: 10102, route_target: "65000:7", gateway_v4',
    )
    assert findings_of(lint_repo(example), "EVPN-004") == [
        f"{TENANTS}:{line_of(tenants, '65000:7', 2)}: route target 65000:7 of network "
        "gpu-tenant-a/gpu-a-compute-2 (VNI 10102) is also the route target of network "
        "gpu-tenant-a/gpu-a-compute-1 (VNI 10101): VTEPs would import each one's routes into "
        "the other; give each VNI its own route target"
    ]


def test_evpn004_network_route_target_equal_to_a_vrf_default(example: Path) -> None:
    """An L3VNI's default route target (65000:50001 of VRF gpu-a) is taken too."""
    tenants = edit_tenants(
        example,
        "l2vni: 10102, gateway_v4",
        'l2vni: 10102, route_target: "65000:50001", gateway_v4',
    )
    assert findings_of(lint_repo(example), "EVPN-004") == [
        f"{TENANTS}:{line_of(tenants, '65000:50001')}: route target 65000:50001 of network "
        "gpu-tenant-a/gpu-a-compute-2 (VNI 10102) is also the route target of VRF gpu-a "
        "of tenant gpu-tenant-a (VNI 50001): VTEPs would import each one's routes into the other; "
        "give each VNI its own route target"
    ]


# --- EVPN-006: gateway addresses ----------------------------------------------------------------


V6_COMPUTE_1 = 'gateway_v6: "2001:db8:50:1::1/64", racks: [dh1-r10]'


@pytest.mark.parametrize(
    ("old", "new", "value", "problem"),
    [
        # IPv4: a /30 has a network address, a /31 (RFC 3021) has none
        (
            "gateway_v4: 10.50.4.1/24",
            "gateway_v4: 10.50.4.0/30",
            "10.50.4.0/30",
            "is the subnet's network address; use a host address such as 10.50.4.1",
        ),
        ("gateway_v4: 10.50.4.1/24", "gateway_v4: 10.50.4.0/31", "10.50.4.0/31", None),
        # IPv6: a /126 has a Subnet-Router anycast address, a /127 (RFC 6164) has none. A /127
        # leaves no per-leaf SVI address (pool-exhausted), so it is placed on a rack without
        # leaves (EVPN-020's finding), where the gateway is still checked.
        (
            V6_COMPUTE_1,
            'gateway_v6: "2001:db8:50:1::/126", racks: [dh1-r10]',
            "2001:db8:50:1::/126",
            "is the Subnet-Router anycast address (RFC 4291 2.6.1); use a host address such as "
            "2001:db8:50:1::1",
        ),
        (
            V6_COMPUTE_1,
            'gateway_v6: "2001:db8:50:1::/127", racks: [dh1-r01]',
            "2001:db8:50:1::/127",
            None,
        ),
        # an IPv6 subnet as short as an IPv4 /30 is still IPv6: the IPv6 wording
        (
            V6_COMPUTE_1,
            'gateway_v6: "2001:db8::/30", racks: [dh1-r10]',
            "2001:db8::/30",
            "is the Subnet-Router anycast address (RFC 4291 2.6.1); use a host address such as "
            "2001:db8::1",
        ),
    ],
)
def test_evpn006_gateway_address_limits(
    example: Path, old: str, new: str, value: str, problem: str | None
) -> None:
    tenants = edit_tenants(example, old, new)
    key = new.split(":")[0]
    network = "gpu-a-compute-1" if key == "gateway_v6" else "gpu-a-compute-4"
    expected = (
        []
        if problem is None
        else [
            f"{TENANTS}:{line_of(tenants, value)}: {key} {value} of network "
            f"gpu-tenant-a/{network} {problem}"
        ]
    )
    assert findings_of(lint_repo(example), "EVPN-006") == expected


# --- EVPN-018: the group bit, read as hexadecimal ---------------------------------------------


@pytest.mark.parametrize(
    ("octet", "group"),
    [("10", False), ("11", True), ("0e", False), ("0f", True), ("fe", False)],
)  # 0x10 is even (16) though "10" would be odd in base 15 or 17
def test_evpn018_first_octet_is_hexadecimal(example: Path, octet: str, group: bool) -> None:
    mac = f"{octet}:1c:73:00:00:99"
    tenants = edit_tenants(example, '"00:1c:73:00:00:99"', f'"{mac}"')
    expected = (
        [
            f"{TENANTS}:{line_of(tenants, 'anycast_mac:')}: anycast_mac {mac} is a group "
            "(multicast) MAC: its first octet is odd (the IEEE 802 individual/group bit); use a "
            "unicast MAC (first octet even, e.g. 00:1c:73:00:00:99)"
        ]
        if group
        else []
    )
    assert findings_of(lint_repo(example), "EVPN-018") == expected


# --- EVPN-020: networks named on leaves --------------------------------------------------------


def test_evpn020_network_named_on_a_leaf_and_an_unknown_device(example: Path) -> None:
    """A leaf is a VTEP (no finding); an unknown name is the reference check's, not EVPN-020's."""
    edit_tenants(
        example,
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10]}",
        "gateway_v4: 10.60.4.1/24, racks: [dh2-r10], leaves: [aus1-lf3, aus1-bl1]}",
    )
    assert findings_of(lint_repo(example), "EVPN-020") == []


# --- EVPN-014: the L3VNI at the RD's limit ----------------------------------------------------


@pytest.mark.parametrize(("vni", "fits"), [(65535, True), (65536, False)])
def test_evpn014_l3vni_rd_boundary(example: Path, vni: int, fits: bool) -> None:
    tenants = edit_tenants(example, "gpu-a:      {l3vni: 50001,", f"gpu-a:      {{l3vni: {vni},")
    expected = (
        []
        if fits
        else [
            f"{TENANTS}:{line_of(tenants, 'l3vni: 65536')}: VRF gpu-a of gpu-tenant-a: L3VNI "
            "65536 does not fit the RD router-id:VNI (at most 65535); choose a VNI up to 65535"
        ]
    )
    assert findings_of(lint_repo(example), "EVPN-014") == expected


# --- EVPN-010: three networks named, a fourth is "..." ----------------------------------------


def _only_networks(repo: Path, kept: int) -> Path:
    """The site without evpn settings and with only its first `kept` networks; both
    attachments trunk gpu-a-compute-1 only."""
    tenants = repo / TENANTS
    text = tenants.read_text()
    start, end = text.index("    evpn:\n"), text.index("    tenants:\n")
    lines, seen = [], 0
    for line in (text[:start] + text[end:]).splitlines(keepends=True):
        if "{vrf:" in line:
            seen += 1
            if seen > kept:
                continue
        lines.append(line)
    for i, line in enumerate(lines):  # a tenant left without networks: an empty mapping
        if line.endswith("networks:\n") and (i + 1 == len(lines) or "{vrf:" not in lines[i + 1]):
            lines[i] = line.replace("networks:", "networks: {}")
    tenants.write_text("".join(lines))
    attachments = repo / "intent/aus1/attachments.yaml"
    attachments.write_text(
        re.sub(r"networks: \[.*\]", "networks: [gpu-a-compute-1]", attachments.read_text())
    )
    return tenants


@pytest.mark.parametrize(
    ("kept", "listed"),
    [
        (3, "gpu-a-compute-1, gpu-a-compute-2, gpu-a-compute-3"),
        (4, "gpu-a-compute-1, gpu-a-compute-2, gpu-a-compute-3, ..."),
    ],
)
def test_evpn010_names_at_most_three_networks(example: Path, kept: int, listed: str) -> None:
    tenants = _only_networks(example, kept)
    assert findings_of(lint_repo(example), "EVPN-010") == [
        f"{TENANTS}:{line_of(tenants, 'tenants:')}: site aus1 declares networks ({listed}) but "
        "no evpn settings, so no device renders them; add evpn: {anycast_mac: ...} to the site"
    ]


# --- a route target fits the six bytes of an extended community (RFC 4360, RFC 5668) --------


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        ("65535:4294967295", None),  # 2-byte ASN, 4-byte number: both at their largest
        ("65535:4294967296", "the number of a route target is 0 to 4294967295"),
        ("65536:65535", None),  # the smallest 4-byte ASN, the largest 2-byte number
        ("65536:65536", "4-byte"),
        ("4200100000:151001", "4-byte"),  # a private 4-byte ASN and a VNI-like tag
        ("4294967295:65535", None),
        ("4294967296:1", "the ASN of a route target is 0 to 4294967295"),
    ],
)
def test_a_route_target_a_device_can_encode(
    example: Path, target: str, problem: str | None
) -> None:
    tenants = edit_tenants(
        example,
        "l2vni: 10101, gateway_v4",
        f'l2vni: 10101, route_target: "{target}", gateway_v4',
    )
    if problem is None:
        assert lint_repo(example).errors == []
        return
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    four = (
        "a route target with a 4-byte ASN takes a number of 0 to 65535 (RFC 5668); use a 2-byte "
        "ASN for a larger number"
    )
    (only,) = caught.value.problems
    assert only.message == (
        "sites.aus1.tenants.gpu-tenant-a.networks.gpu-a-compute-1.route_target: "
        f"'{target}': {four if problem == '4-byte' else problem}"
    )
    assert only.location.line == line_of(tenants, target)


# --- a tenant gateway is a unicast host address (refused at load, bad-value) --------------------

V4_COMPUTE_1 = "gateway_v4: 10.50.1.1/24"
V6_GATEWAY = '"2001:db8:50:1::1/64"'
NOT_A_GATEWAY = "a gateway is a unicast host address of its network's own subnet, e.g. {example}"


@pytest.mark.parametrize(
    ("value", "space"),
    [
        ("224.0.0.1/24", "a multicast (group) address (RFC 1112), never a host's"),
        ("239.255.255.254/24", "a multicast (group) address (RFC 1112), never a host's"),
        ("127.0.0.1/24", "a loopback address (RFC 1122 3.2.1.3), never on a wire"),
        ("127.255.255.254/24", "a loopback address (RFC 1122 3.2.1.3), never on a wire"),
        ("0.0.0.0/24", "in 0.0.0.0/8, 'this network' (RFC 1122 3.2.1.3), never a destination"),
        (
            "0.255.255.254/24",
            "in 0.0.0.0/8, 'this network' (RFC 1122 3.2.1.3), never a destination",
        ),
        (
            "169.254.0.1/24",
            "a link-local address (RFC 3927), and the network is routed beyond its link",
        ),
        ("240.0.0.1/24", "in the reserved 240.0.0.0/4 (RFC 1112 4), which hosts do not use"),
        (
            "fe80::1/64",
            "a link-local address (RFC 4291 2.5.6), and the network is routed beyond its link",
        ),
        (
            "febf::1/64",
            "a link-local address (RFC 4291 2.5.6), and the network is routed beyond its link",
        ),
        ("::1/64", "a loopback address (RFC 4291 2.5.3), never on a wire"),
        ("::/64", "the unspecified address (RFC 4291 2.5.2)"),
        ("ff02::1/64", "a multicast (group) address (RFC 4291 2.7), never a host's"),
    ],
)
def test_a_tenant_gateway_outside_unicast_host_space_is_refused_at_the_value(
    example: Path, value: str, space: str
) -> None:
    """Were clean (exit 0) and rendered as the network's gateway, which no host can use."""
    v6 = ":" in value
    old, new = (V6_GATEWAY, f'"{value}"') if v6 else (V4_COMPUTE_1, f"gateway_v4: {value}")
    tenants = edit_tenants(example, old, new)
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    (only,) = caught.value.problems
    key = "gateway_v6" if v6 else "gateway_v4"
    address = value.split("/")[0]
    example_gateway = "2001:db8:50:1::1/64" if v6 else "10.50.1.1/24"
    assert only.kind == "bad-value"
    assert (only.location.file, only.location.line) == (TENANTS, line_of(tenants, value))
    written = f'"{value}"' if v6 else value  # the column of the value as written
    line = tenants.read_text().splitlines()[only.location.line - 1]
    assert only.location.column == line.index(written) + 1
    assert only.message == (
        f"sites.aus1.tenants.gpu-tenant-a.networks.gpu-a-compute-1.{key}: '{value}': {address} "
        f"is {space}; " + NOT_A_GATEWAY.format(example=example_gateway)
    )


@pytest.mark.parametrize(
    "value",
    [
        "1.0.0.1/24",
        "126.255.255.1/24",
        "128.0.0.1/24",
        "223.255.255.1/24",
        "169.253.0.1/24",
        "fc00::1/64",
        "fec0::1/64",
        "2001:db8:50:1::1/64",
    ],
)
def test_a_tenant_gateway_just_inside_unicast_space_loads(example: Path, value: str) -> None:
    v6 = ":" in value
    old, new = (V6_GATEWAY, f'"{value}"') if v6 else (V4_COMPUTE_1, f"gateway_v4: {value}")
    edit_tenants(example, old, new)
    lint_repo(example)  # no IntentError: the rules read it


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        ("10.50.1.1/32", True),
        ("10.50.1.1/31", False),  # the gateway and one host
        ("2001:db8:50:1::1/128", True),
        ("2001:db8:50:1::1/127", False),
    ],
)
def test_a_tenant_gateway_subnet_holds_a_host_besides_the_gateway(
    example: Path, value: str, refused: bool
) -> None:
    """A /32 or /128 gateway rendered clean (`ip address 10.50.1.1/32` on the SVI): every host
    of the network would be off-link. Refused at the value, the shortest with room for one
    host loads."""
    v6 = ":" in value
    old, new = (V6_GATEWAY, f'"{value}"') if v6 else (V4_COMPUTE_1, f"gateway_v4: {value}")
    tenants = edit_tenants(example, old, new)
    if not refused:
        lint_repo(example)  # no IntentError
        return
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    (only,) = caught.value.problems
    assert only.kind == "bad-value"
    assert (only.location.file, only.location.line) == (TENANTS, line_of(tenants, value))
    length = value.split("/")[1]
    assert f"'{value}': a /{length} holds the gateway alone, so no host" in only.message
