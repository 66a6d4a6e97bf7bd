"""AWS-*, AZ-*, GCP-*, CLOUD-003: the provider limits of validators/data/providers.yaml, just
inside and just outside (docs/mutation.md)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.validators.engine import all_rules

# Cloud limits (validators/data/providers.yaml); the example's on-ramps are in clouds.yaml

CLOUDS = "intent/aus1/clouds.yaml"
AZ_ADVERTISE = "advertise: [10.60.0.0/16]\n"  # the peering's (block style)
PREMIUM = (
    "              type: private\n",
    "              type: private\n              premium: true\n",
)


def _prefixes(supernet: str, length: int, count: int) -> str:
    """A YAML flow list of `count` subnets of `supernet`."""
    nets = ipaddress.ip_network(supernet).subnets(new_prefix=length)
    return "[" + ", ".join(str(next(nets)) for _ in range(count)) + "]"


def _az004(clouds: Path, count: int, afi: str, limit: int, tier: str = "") -> list[str]:
    line = line_of(clouds, "              advertise: [")  # the peering's, not a VIF's
    label = {"ipv4": "IPv4", "ipv6": "IPv6"}[afi]
    return [
        f"{CLOUDS}:{line}: Azure er-syd peering private advertises {count} {label} prefixes; "
        f"private peering{tier} accepts at most {limit} and Microsoft drops the session beyond "
        "that: aggregate them"
    ]


@pytest.mark.parametrize(
    ("supernet", "length", "count", "afi", "limit", "premium"),
    [
        ("10.64.0.0/10", 24, 4000, "ipv4", 4000, False),
        ("10.64.0.0/10", 24, 4001, "ipv4", 4000, False),
        ("2001:db8:7000::/36", 48, 100, "ipv6", 100, False),
        ("2001:db8:7000::/36", 48, 101, "ipv6", 100, False),
        ("10.0.0.0/8", 24, 10000, "ipv4", 10000, True),
        ("10.0.0.0/8", 24, 10001, "ipv4", 10000, True),
    ],
)
def test_az004_prefix_limit_at_and_just_over(
    example: Path, supernet: str, length: int, count: int, afi: str, limit: int, premium: bool
) -> None:
    clouds = example / CLOUDS
    if premium:
        replace_in(clouds, *PREMIUM)
    replace_in(clouds, AZ_ADVERTISE, f"advertise: {_prefixes(supernet, length, count)}\n")
    expected = _az004(clouds, count, afi, limit, " (Premium)" if premium else "")
    assert findings_of(lint_repo(example), "AZ-004") == (expected if count > limit else [])


@pytest.mark.parametrize("committed", [10000, 10001])
def test_az006_committed_at_and_just_over_the_bandwidth(example: Path, committed: int) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "committed_mbps: 8000,", f"committed_mbps: {committed},")
    expected = [
        f"{CLOUDS}:{line_of(clouds, f'committed_mbps: {committed}')}: Azure er-syd commits "
        "10,001 Mb/s on a 10,000 Mb/s circuit; one link carries at most the circuit bandwidth: "
        "lower committed_mbps or order a larger circuit"
    ]
    assert findings_of(lint_repo(example), "AZ-006") == (expected if committed > 10000 else [])


def _cloud003(clouds: Path, which: int, text: str) -> list[str]:
    return [f"{CLOUDS}:{line_of(clouds, 'burst:', which)}: {text}"]


@pytest.mark.parametrize("burst", [100000, 100001])
def test_cloud003_aws_burst_at_and_just_over_n_minus_1(example: Path, burst: int) -> None:
    """Two 100G circuits: after losing one, 100,000 Mb/s remain."""
    clouds = example / CLOUDS
    replace_in(clouds, "burst_mbps: 80000,", f"burst_mbps: {burst},")
    expected = _cloud003(
        clouds,
        1,
        "AWS aws-syd bursts to 100,001 Mb/s, but after losing its largest circuit (XC-AWS-2) "
        "the others carry 100,000 Mb/s; add a circuit or agree a lower burst_mbps",
    )
    assert findings_of(lint_repo(example), "CLOUD-003") == (expected if burst > 100000 else [])


@pytest.mark.parametrize("committed", [80000, 80001])
def test_cloud003_committed_at_and_just_over_the_burst(example: Path, committed: int) -> None:
    clouds = example / CLOUDS
    replace_in(
        clouds,
        "committed_mbps: 40000, burst_mbps: 80000",
        f"committed_mbps: {committed}, burst_mbps: 80000",
    )
    expected = _cloud003(
        clouds,
        1,
        "AWS aws-syd commits 80,001 Mb/s, more than its burst rate 80,000 Mb/s; the burst rate "
        "includes the committed one: correct the profile agreed with the provider",
    )
    assert findings_of(lint_repo(example), "CLOUD-003") == (expected if committed > 80000 else [])


@pytest.mark.parametrize("burst", [20000, 20001])
def test_cloud003_azure_burst_at_and_just_over_twice_the_bandwidth(
    example: Path, burst: int
) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "burst_mbps: 20000,", f"burst_mbps: {burst},")
    expected = _cloud003(
        clouds,
        2,
        "Azure er-syd bursts to 20,001 Mb/s, but Microsoft delivers at most 2 x 10,000 Mb/s = "
        "20,000 Mb/s over both links; lower burst_mbps or order a larger circuit",
    )
    assert findings_of(lint_repo(example), "CLOUD-003") == (expected if burst > 20000 else [])


@pytest.mark.parametrize("burst", [150000, 150001])
def test_cloud003_google_burst_at_and_just_over_the_attachment_limit(
    example: Path, burst: int
) -> None:
    """Four 100G circuits with one attachment each: 50,000 Mb/s each, 150,000 after N-1."""
    clouds = example / CLOUDS
    replace_in(clouds, "burst_mbps: 50000,", f"burst_mbps: {burst},")
    expected = _cloud003(
        clouds,
        3,
        "Google gcp-ic bursts to 150,001 Mb/s, but after losing its largest circuit (XC-GCP-4) "
        "the others carry 150,000 Mb/s (at most 50,000 Mb/s per attachment); add a circuit or "
        "agree a lower burst_mbps",
    )
    assert findings_of(lint_repo(example), "CLOUD-003") == (expected if burst > 150000 else [])


def test_cloud003_two_attachments_share_a_circuit_up_to_its_speed(example: Path) -> None:
    """Two attachments on one 100G circuit carry 2 x 50,000, capped at the circuit's speed."""
    clouds = example / CLOUDS
    replace_in(clouds, "syd-ead2: {circuit: XC-GCP-2", "syd-ead2: {circuit: XC-GCP-1")
    replace_in(clouds, "burst_mbps: 50000,", "burst_mbps: 200001,")
    assert findings_of(lint_repo(example), "CLOUD-003") == _cloud003(
        clouds,
        3,
        "Google gcp-ic bursts to 200,001 Mb/s, but after losing its largest circuit (XC-GCP-1) "
        "the others carry 100,000 Mb/s (at most 50,000 Mb/s per attachment); add a circuit or "
        "agree a lower burst_mbps",
    )


@pytest.mark.parametrize("interval", [999, 1000])
def test_gcp006_bfd_interval_at_and_just_under_the_minimum(example: Path, interval: int) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, 'sla: "99.99"\n', f'sla: "99.99"\n          bfd_interval: {interval}\n')
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'bfd_interval')}: Google gcp-ic bfd_interval 999 ms is "
        "below the Cloud Router's minimum of 1000 ms; set it to 1000 or more"
    ]
    assert findings_of(lint_repo(example), "GCP-006") == (expected if interval < 1000 else [])


@pytest.mark.parametrize("length", [28, 30])
def test_gcp003_attachment_subnet_one_bit_off_a_29(example: Path, length: int) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "ipv4: 169.254.20.2/29", f"ipv4: 169.254.20.2/{length}")
    assert findings_of(lint_repo(example), "GCP-003") == [
        f"{CLOUDS}:{line_of(clouds, 'syd-ead1:')}: Google attachment gcp-ic/syd-ead1 ipv4 "
        f"169.254.20.2/{length} is not a /29 inside 169.254.0.0/16; use the /29 Google "
        "allocated to the attachment"
    ]


# GCP-003 for IPv6: Google's IPv6 allocation length is unsourced, so only uniqueness across the
# attachments (sorted: mel-ead1, mel-ead2, syd-ead1, syd-ead2; two Cloud Routers)

GCP_PEER_V4 = {
    "syd-ead1": "169.254.20.1",
    "syd-ead2": "169.254.20.9",
    "mel-ead1": "169.254.21.1",
    "mel-ead2": "169.254.21.9",
}
GCP_V6 = {  # attachment: (ours, Google's), a /125 each
    "syd-ead1": ("2001:db8:c9:1::2/125", "2001:db8:c9:1::1"),
    "syd-ead2": ("2001:db8:c9:2::2/125", "2001:db8:c9:2::1"),
    "mel-ead1": ("2001:db8:c9:3::2/125", "2001:db8:c9:3::1"),
    "mel-ead2": ("2001:db8:c9:4::2/125", "2001:db8:c9:4::1"),
}


def _gcp_dual_stack(example: Path, **changed: tuple[str, str]) -> Path:
    """Every Google attachment dual-stack (GCP_V6, with `changed` ones); gpu-a routes IPv6."""
    clouds = example / CLOUDS
    for name, peer_v4 in GCP_PEER_V4.items():
        ours, theirs = changed.get(name.replace("-", "_"), GCP_V6[name])
        replace_in(
            clouds,
            f"peer_ipv4: {peer_v4}, ",
            f'peer_ipv4: {peer_v4}, ipv6: "{ours}", peer_ipv6: "{theirs}", ',
        )
    return clouds


def test_gcp003_distinct_ipv6_subnets_pass(example: Path) -> None:
    _gcp_dual_stack(example)
    result = lint_repo(example)
    assert findings_of(result, "GCP-003") == []
    assert findings_of(result, "EDGE-008") == []


@pytest.mark.parametrize(
    ("syd_ead1", "clash"),
    [
        # the same /125 as mel-ead2, on the other Cloud Router: the later name is reported
        (("2001:db8:c9:4::3/125", "2001:db8:c9:4::4"), "2001:db8:c9:4::/125 of mel-ead2"),
        # a /64 holding mel-ead1's /125: overlapping, not equal
        (("2001:db8:c9:3::1:2/64", "2001:db8:c9:3::1:1"), "2001:db8:c9:3::/125 of mel-ead1"),
        # the /125 next to mel-ead2's (::8 to ::f): apart
        (("2001:db8:c9:4::a/125", "2001:db8:c9:4::9"), None),
    ],
)
def test_gcp003_an_ipv6_subnet_of_another_attachment(
    example: Path, syd_ead1: tuple[str, str], clash: str | None
) -> None:
    clouds = _gcp_dual_stack(example, syd_ead1=syd_ead1)
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'syd-ead1:')}: Google attachment gcp-ic/syd-ead1 ipv6 "
        f"{syd_ead1[0]} overlaps {clash}; each attachment has its own IPv6 subnet: use the one "
        "Google allocated to the attachment"
    ]
    assert findings_of(lint_repo(example), "GCP-003") == (expected if clash else [])


@pytest.mark.parametrize("peer", ["2001:db8:c9:3::7", "2001:db8:c9:3::8"])
def test_gcp003_leaves_a_google_ipv6_peer_off_our_subnet_to_edge008(
    example: Path, peer: str
) -> None:
    """The peer on our subnet is checked once, for every session, by EDGE-008: ::7 is the
    last address of mel-ead1's /125, ::8 the first past it."""
    clouds = _gcp_dual_stack(example, mel_ead1=("2001:db8:c9:3::2/125", peer))
    result = lint_repo(example)
    assert findings_of(result, "GCP-003") == []
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'mel-ead1:')}: Google attachment gcp-ic/mel-ead1 peer "
        f"{peer} is not on our subnet 2001:db8:c9:3::/125 (2001:db8:c9:3::2/125 on aus1-bl5 "
        "swp10.303); the session would never come up: correct the peer or our address"
    ]
    assert findings_of(result, "EDGE-008") == (expected if peer.endswith("::8") else [])


# AZ-003: Azure reserves 65515-65520 and peers from 12076

SITE = "intent/aus1/site.yaml"
SHARED = "        spine: 4200009000"


@pytest.mark.parametrize(
    ("asn", "reserved"), [(65514, False), (65515, True), (65520, True), (65521, False)]
)
def test_az003_shared_border_leaf_asn_at_the_reserved_range(
    example: Path, asn: int, reserved: bool
) -> None:
    """The border leaves' ASN comes from the shared scheme: the finding points there."""
    site = example / SITE
    replace_in(site, SHARED, f"{SHARED}\n        border_leaf: {asn}")
    line = line_of(site, f"border_leaf: {asn}")
    expected = [
        f"{SITE}:{line}: {name} peers with Azure from AS{asn}, which Azure reserves "
        f"(65515-65520) for its own use; give {name} another ASN"
        for name in ("aus1-bl3", "aus1-bl4")
    ]
    assert findings_of(lint_repo(example), "AZ-003") == (expected if reserved else [])


def test_az003_microsofts_own_asn(example: Path) -> None:
    site = example / SITE
    replace_in(site, SHARED, f"{SHARED}\n        border_leaf: 12076")
    line = line_of(site, "border_leaf: 12076")
    assert findings_of(lint_repo(example), "AZ-003") == [
        f"{SITE}:{line}: {name} peers with Azure from AS12076, which is Microsoft's own ASN; "
        f"give {name} another ASN"
        for name in ("aus1-bl3", "aus1-bl4")
    ]


# AWS-005: one allowed IPv6 length (/125), two IPv4 ones (/30, /31)

PRIVATE_1_PEER = "ipv4: 169.254.10.1/30, peer_ipv4: 169.254.10.2,"


@pytest.mark.parametrize(("length", "allowed"), [(124, False), (125, True), (126, False)])
def test_aws005_ipv6_peering_subnet_around_a_125(example: Path, length: int, allowed: bool) -> None:
    clouds = example / CLOUDS
    replace_in(
        clouds,
        PRIVATE_1_PEER,
        f'{PRIVATE_1_PEER} ipv6: "2001:db8:10::1/{length}", peer_ipv6: "2001:db8:10::2",',
    )
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 ipv6 "
        f"2001:db8:10::1/{length} is a /{length}; AWS peers on a /125: use the VIF's peering "
        "subnet"
    ]
    assert findings_of(lint_repo(example), "AWS-005") == ([] if allowed else expected)


@pytest.mark.parametrize(("length", "allowed"), [(29, False), (30, True), (31, True)])
def test_aws005_ipv4_peering_subnet_around_a_30_and_31(
    example: Path, length: int, allowed: bool
) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, PRIVATE_1_PEER, f"ipv4: 169.254.10.1/{length}, peer_ipv4: 169.254.10.0,")
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 ipv4 "
        f"169.254.10.1/{length} is a /{length}; AWS peers on a /30 or /31: use the VIF's "
        "peering subnet"
    ]
    assert findings_of(lint_repo(example), "AWS-005") == ([] if allowed else expected)


# GCP-001: Partner needs 16550; Dedicated takes 16550 or a private ASN


@pytest.mark.parametrize(
    ("kind", "asn", "wanted"),
    [
        ("partner", 16550, None),
        ("partner", 64520, "Partner Interconnect needs 16550"),
        ("dedicated", 16550, None),
        ("dedicated", 64520, None),
        ("dedicated", 4200000000, None),
        ("dedicated", 64499, "Dedicated Interconnect takes 16550 or a private ASN"),
    ],
)
def test_gcp001_cloud_router_asn_by_interconnect_type(
    example: Path, kind: str, asn: int, wanted: str | None
) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "type: dedicated", f"type: {kind}")
    replace_in(clouds, "cloud_router_asn: 16550", f"cloud_router_asn: {asn}")
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'cloud_router_asn')}: Google gcp-ic Cloud Router ASN {asn}: "
        f"{wanted}; set cloud_router_asn to the Cloud Router's ASN"
    ]
    assert findings_of(lint_repo(example), "GCP-001") == (expected if wanted else [])


# AZ-002: one /30 (IPv4) and one /126 (IPv6) per ExpressRoute link


@pytest.mark.parametrize(
    ("afi", "prefix", "allowed"),
    [
        ("ipv4", "172.16.0.0/31", False),
        ("ipv6", "2001:db8:7a::/125", False),
        ("ipv6", "2001:db8:7a::/126", True),
        ("ipv6", "2001:db8:7a::/127", False),
    ],
)
def test_az002_link_one_bit_either_side(
    example: Path, afi: str, prefix: str, allowed: bool
) -> None:
    clouds = example / CLOUDS
    written = f"ipv4: {prefix}}}" if afi == "ipv4" else f'ipv4: 172.16.0.0/30, ipv6: "{prefix}"}}'
    replace_in(clouds, "ipv4: 172.16.0.0/30}", written)
    length = prefix.rsplit("/", 1)[1]
    wanted = "/30" if afi == "ipv4" else "/126"
    expected = [
        f"{CLOUDS}:{line_of(clouds, 'primary:')}: Azure er-syd peering private primary {afi} "
        f"{prefix} is a /{length}; ExpressRoute takes one {wanted} per link (we use its first "
        "address, Microsoft the second)"
    ]
    assert findings_of(lint_repo(example), "AZ-002") == ([] if allowed else expected)


# What `meetme rules` and docs/rules.md say of the limits is read from providers.yaml


@pytest.mark.parametrize(
    ("rule_id", "quoted"),
    [
        ("AWS-003", "A private VIF runs 1500, 9001 or 8500, a transit VIF 1500 or 8500, a public "
         "VIF 1500 (AWS documents both 9001 and 8500 as the private jumbo MTU"),
        ("AZ-003", "Azure reserves ASNs 65515-65520 for internal use and peers from 12076"),
        ("AZ-004", "(private peering 4,000 IPv4 and 100 IPv6, 10,000 IPv4 with Premium; "
         "Microsoft peering 200 IPv4 and 200 IPv6)"),
        ("CLOUD-003", "(Azure: 2x the circuit bandwidth over both links; Google: 50,000 Mb/s per "
         "VLAN attachment)"),
        ("GCP-006", "Cloud Router BFD accepts 1000 ms or slower"),
    ],
)  # fmt: skip
def test_rule_rationale_quotes_the_provider_limits(rule_id: str, quoted: str) -> None:
    rules = {r.id: r for r in all_rules()}
    assert quoted in rules[rule_id].rationale


# EDGE-008: a cloud link's own address and its peer are hosts of the link's subnet

AWS_PRIVATE_1 = "ipv4: 169.254.10.1/30, peer_ipv4: 169.254.10.2"
GCP_SYD_EAD1 = "ipv4: 169.254.20.2/29, peer_ipv4: 169.254.20.1"


def _edge008(repo: Path) -> list[tuple[int, int, str]]:
    return [
        (f.location.line, f.location.column, f.message)
        for f in lint_repo(repo).findings
        if f.rule == "EDGE-008"
    ]


def _column(clouds: Path, line: int, key: str) -> int:
    return clouds.read_text().splitlines()[line - 1].index(f"{key}: ") + 1


@pytest.mark.parametrize(
    ("old", "ours", "peer", "party", "port", "problem", "host"),
    [
        # AWS /30: .0 and .3 are no host's; .1 and .2 are the two ends
        (
            AWS_PRIVATE_1,
            "169.254.10.0/30",
            "169.254.10.2",
            "aws aws-syd/private-1 XC-AWS-1 vlan 101",
            "aus1-bl1 Ethernet9/1.101",
            "network address of 169.254.10.0/30",
            "169.254.10.1/30",
        ),
        (
            AWS_PRIVATE_1,
            "169.254.10.3/30",
            "169.254.10.2",
            "aws aws-syd/private-1 XC-AWS-1 vlan 101",
            "aus1-bl1 Ethernet9/1.101",
            "broadcast address of 169.254.10.0/30",
            "169.254.10.1/30",
        ),
        (AWS_PRIVATE_1, "169.254.10.2/30", "169.254.10.1", "", "", None, ""),
        # GCP /29: .0 and .7; Google's end (.1) is not offered as ours
        (
            GCP_SYD_EAD1,
            "169.254.20.0/29",
            "169.254.20.1",
            "gcp gcp-ic/syd-ead1 XC-GCP-1 vlan 301",
            "aus1-bl5 swp9.301",
            "network address of 169.254.20.0/29",
            "169.254.20.2/29",
        ),
        (
            GCP_SYD_EAD1,
            "169.254.20.7/29",
            "169.254.20.1",
            "gcp gcp-ic/syd-ead1 XC-GCP-1 vlan 301",
            "aus1-bl5 swp9.301",
            "broadcast address of 169.254.20.0/29",
            "169.254.20.2/29",
        ),
        (GCP_SYD_EAD1, "169.254.20.6/29", "169.254.20.1", "", "", None, ""),
    ],
)
def test_edge008_a_cloud_links_own_address_is_a_host_of_its_subnet(
    example: Path,
    old: str,
    ours: str,
    peer: str,
    party: str,
    port: str,
    problem: str | None,
    host: str,
) -> None:
    """Was clean (exit 0): the network or broadcast address was rendered as our address of
    the VIF or attachment, and its session never came up."""
    clouds = example / CLOUDS
    replace_in(clouds, old, f"ipv4: {ours}, peer_ipv4: {peer}")
    if problem is None:
        assert _edge008(example) == []
        return
    line = line_of(clouds, f"ipv4: {ours},")
    assert _edge008(example) == [
        (
            line,
            _column(clouds, line, "ipv4"),
            f"our address {ours} on {port} ({party}) is the {problem}, no host's: the session "
            f"over it would never come up; use a host address of the subnet, e.g. {host}",
        )
    ]


@pytest.mark.parametrize(
    ("old", "ours", "peer", "label", "port"),
    [
        (
            AWS_PRIVATE_1,
            "169.254.10.1/30",
            "169.254.10.3",
            "AWS VIF aws-syd/private-1",
            "aus1-bl1 Ethernet9/1.101",
        ),
        (
            AWS_PRIVATE_1,
            "169.254.10.1/30",
            "169.254.10.0",
            "AWS VIF aws-syd/private-1",
            "aus1-bl1 Ethernet9/1.101",
        ),
        (
            GCP_SYD_EAD1,
            "169.254.20.2/29",
            "169.254.20.7",
            "Google attachment gcp-ic/syd-ead1",
            "aus1-bl5 swp9.301",
        ),
        (
            GCP_SYD_EAD1,
            "169.254.20.2/29",
            "169.254.20.0",
            "Google attachment gcp-ic/syd-ead1",
            "aus1-bl5 swp9.301",
        ),
    ],
)
def test_edge008_a_cloud_peer_finding_is_at_its_peer_ipv4(
    example: Path, old: str, ours: str, peer: str, label: str, port: str
) -> None:
    """Was reported at the start of the VIF's line: now at its peer_ipv4."""
    clouds = example / CLOUDS
    replace_in(clouds, old, f"ipv4: {ours}, peer_ipv4: {peer}")
    line = line_of(clouds, f"peer_ipv4: {peer},")
    net = ours.rsplit(".", 1)[0] + (".0/30" if ours.endswith("/30") else ".0/29")
    assert _edge008(example) == [
        (
            line,
            _column(clouds, line, "peer_ipv4"),
            f"{label} peer {peer} is the network or broadcast address of {net} ({ours} on "
            f"{port}); the session would never come up: correct the peer or our address",
        )
    ]
