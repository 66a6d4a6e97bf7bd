"""AWS-*, AZ-*, GCP-*, CLOUD-003: each rule passes on the example and fails on one realistic
edit of the on-ramps (intent/aus1/clouds.yaml)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.generators.model import DeviceModel
from meetme.validators.engine import all_rules
from meetme.validators.policy_eval import Route, evaluate

from meetme.pipeline import device_models

CLOUD_RULES = (
    "AWS-001", "AWS-002", "AWS-003", "AWS-004", "AWS-005",
    "AZ-001", "AZ-002", "AZ-003", "AZ-004", "AZ-006",
    "GCP-001", "GCP-002", "GCP-003", "GCP-004", "GCP-006",
    "CLOUD-003", "CLOUD-004", "CLOUD-007", "CLOUD-008", "CLOUD-009",
)  # fmt: skip
CLOUDS = "intent/aus1/clouds.yaml"
PRIVATE_1_KEY = ', key: "secret:aws-dx-aus1", advertise: [10.50.0.0/16]}'


def clouds_of(repo: Path) -> Path:
    return repo / CLOUDS


def prefixes(supernet: str, length: int, count: int) -> str:
    """A YAML flow list of `count` subnets of `supernet`."""
    nets = ipaddress.ip_network(supernet).subnets(new_prefix=length)
    return "[" + ", ".join(str(next(nets)) for _ in range(count)) + "]"


def test_every_cloud_rule_is_registered_with_its_standard_and_a_link() -> None:
    rules = {r.id: r for r in all_rules()}
    for rule_id in CLOUD_RULES:
        assert rule_id.lower() in rules[rule_id].source, rule_id
        assert "https://" in rules[rule_id].source, rule_id


def test_example_has_no_cloud_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in CLOUD_RULES] == []


def test_aws001_private_vif_advertises_101_prefixes(example: Path) -> None:
    clouds = clouds_of(example)
    many = prefixes("10.50.0.0/16", 24, 101)
    replace_in(clouds, PRIVATE_1_KEY, f', key: "secret:aws-dx-aus1", advertise: {many}}}')
    result = lint_repo(example)
    assert findings_of(result, "AWS-001") == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 advertises 101 "
        "IPv4 prefixes; a private VIF accepts at most 100 per address family and AWS idles the "
        "session beyond that: aggregate them"
    ]
    assert result.errors


def test_aws001_a_hundred_prefixes_are_fine(example: Path) -> None:
    many = prefixes("10.50.0.0/16", 24, 100)
    replace_in(
        clouds_of(example), PRIVATE_1_KEY, f', key: "secret:aws-dx-aus1", advertise: {many}}}'
    )
    assert findings_of(lint_repo(example), "AWS-001") == []


def test_aws002_vif_without_key_and_one_with_gtsm(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, PRIVATE_1_KEY, ", advertise: [10.50.0.0/16]}")
    replace_in(clouds, "vlan: 102, amazon_asn", "vlan: 102, gtsm: true, amazon_asn")  # transit-1
    result = lint_repo(example)
    assert findings_of(result, "AWS-002") == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 has no key; AWS "
        "always runs TCP-MD5 on the BGP session, which stays down until both sides have the "
        "same key: set key: secret:NAME to the VIF's BGP authentication key",
        f"{CLOUDS}:{line_of(clouds, 'transit-1:')}: AWS VIF aws-syd/transit-1 asks for GTSM, "
        "but AWS sends BGP with TTL 1 and supports no TTL security: the session would never "
        "come up; remove gtsm",
    ]
    assert result.errors


def test_aws003_transit_vif_with_the_private_jumbo_mtu(example: Path) -> None:
    """The wrong value is reported once, at its own VIF; transit-2, right as written, is not
    blamed for differing from it (it was, as a second finding at its line)."""
    clouds = clouds_of(example)
    replace_in(clouds, "mtu: 8500", "mtu: 9001")  # transit-1
    result = lint_repo(example)
    assert findings_of(result, "AWS-003") == [
        f"{CLOUDS}:{line_of(clouds, 'transit-1:')}: AWS VIF aws-syd/transit-1 has mtu 9001; a "
        "transit VIF runs 1500 or 8500; set mtu to the VIF's MTU",
    ]
    assert result.errors


def test_aws003_private_vif_accepts_8500_but_not_a_different_mtu_for_the_same_prefix(
    example: Path,
) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "mtu: 9001", "mtu: 8500", count=1)  # private-1, not private-2
    result = lint_repo(example)
    assert findings_of(result, "AWS-003") == [
        f"{CLOUDS}:{line_of(clouds, 'private-2:')}: AWS VIF aws-syd/private-2 advertises "
        "10.50.0.0/16 with mtu 9001, but private-1 advertises it with mtu 8500; VIFs "
        "advertising the same prefix must use the same MTU"
    ]


def test_aws003_private_vif_mtu_names_the_documented_conflict(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "mtu: 9001", "mtu: 9000", count=2)
    result = lint_repo(example)
    message = (
        "has mtu 9000; a private VIF runs 1500, 9001 or 8500 (AWS documents both 9001 and "
        "8500 for jumbo: use the console's); set mtu to the VIF's MTU"
    )
    assert findings_of(result, "AWS-003") == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 {message}",
        f"{CLOUDS}:{line_of(clouds, 'private-2:')}: AWS VIF aws-syd/private-2 {message}",
    ]


def test_aws004_private_vifs_on_one_device(example: Path) -> None:
    clouds = clouds_of(example)
    text = clouds.read_text()
    clouds.write_text("".join(ln for ln in text.splitlines(True) if "private-2:" not in ln))
    result = lint_repo(example)
    assert findings_of(result, "AWS-004") == [
        f"{CLOUDS}:{line_of(clouds, 'vifs:')}: AWS aws-syd private VIFs (private-1) ride "
        "XC-AWS-1 on aus1-bl1 only; add a private VIF on a connection that lands on another "
        "border device"
    ]
    assert not result.errors


def test_aws005_ipv4_peering_subnet_is_a_29(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds,
        "ipv4: 169.254.10.1/30, peer_ipv4: 169.254.10.2,",
        "ipv4: 169.254.12.1/29, peer_ipv4: 169.254.12.2,",
    )
    result = lint_repo(example)
    assert findings_of(result, "AWS-005") == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 ipv4 "
        "169.254.12.1/29 is a /29; AWS peers on a /30 or /31: use the VIF's peering subnet"
    ]
    assert result.errors


def test_az001_peering_without_secondary(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds, "              secondary: {circuit: XC-AZ-2, vlan: 200, ipv4: 172.16.0.4/30}\n", ""
    )
    result = lint_repo(example)
    assert findings_of(result, "AZ-001") == [
        f"{CLOUDS}:{line_of(clouds, 'private:')}: Azure er-syd peering private has no "
        "secondary link; ExpressRoute needs both BGP sessions for its SLA: add secondary on a "
        "circuit to another border device"
    ]
    assert result.errors


def test_az001_primary_and_secondary_on_one_device(example: Path) -> None:
    circuits = example / "intent/aus1/circuits.yaml"
    with circuits.open("a") as out:
        out.write(
            "      XC-AZ-3:  {party: er-syd, room: aus1-mmr2, entrance: south, "
            "device: aus1-bl3, interface: Ethernet1/10, speed: 100G}\n"
        )
    clouds = clouds_of(example)
    replace_in(clouds, "secondary: {circuit: XC-AZ-2,", "secondary: {circuit: XC-AZ-3,")
    result = lint_repo(example)
    assert findings_of(result, "AZ-001") == [
        f"{CLOUDS}:{line_of(clouds, 'secondary:')}: Azure er-syd peering private: primary "
        "(XC-AZ-1) and secondary (XC-AZ-3) both land on aus1-bl3; put the secondary on a "
        "circuit to another border device"
    ]


@pytest.mark.parametrize(("mtu", "refused"), [(1500, False), (1501, True), (9000, True)])
def test_az008_expressroute_carries_1500(example: Path, mtu: int, refused: bool) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds,
        "              vrf: storage\n",
        f"              vrf: storage\n              mtu: {mtu}\n",
    )
    found = findings_of(lint_repo(example), "AZ-008")
    if not refused:
        assert found == []
        return
    assert found == [
        f"{CLOUDS}:{line_of(clouds, f'mtu: {mtu}')}: Azure er-syd peering private has mtu "
        f"{mtu}; ExpressRoute carries 1500: set the peering's mtu to 1500"
    ]


SECONDARY = "secondary: {circuit: XC-AZ-2, vlan: 200, ipv4: 172.16.0.4/30}"


@pytest.mark.parametrize(
    ("secondary", "expected"),
    [
        (SECONDARY, []),
        (
            "secondary: {circuit: XC-AZ-2, vlan: 201, ipv4: 172.16.0.4/30}",
            [
                "the secondary link is on VLAN 201, the primary on 200; Microsoft tags both links "
                "with the peering's one VLAN: give the secondary VLAN 200"
            ],
        ),
        (
            "secondary: {circuit: XC-AZ-2, vlan: 200, ipv4: 172.16.0.0/30}",
            [
                "the secondary link's ipv4 172.16.0.0/30 overlaps the primary's 172.16.0.0/30; "
                "Microsoft gives each link a subnet of its own: use the secondary subnet agreed "
                "for the peering"
            ],
        ),
    ],
)
def test_az009_one_vlan_and_two_subnets(example: Path, secondary: str, expected: list[str]) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, SECONDARY, secondary)
    at = f"{CLOUDS}:{line_of(clouds, 'secondary:')}"
    assert findings_of(lint_repo(example), "AZ-009") == [
        f"{at}: Azure er-syd peering private: {tail}" for tail in expected
    ]


def test_az002_link_on_a_29(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "ipv4: 172.16.0.0/30}", "ipv4: 172.16.1.0/29}")
    result = lint_repo(example)
    assert findings_of(result, "AZ-002") == [
        f"{CLOUDS}:{line_of(clouds, 'primary:')}: Azure er-syd peering private primary ipv4 "
        "172.16.1.0/29 is a /29; ExpressRoute takes one /30 per link (we use its first "
        "address, Microsoft the second)"
    ]
    assert result.errors


def test_az003_border_leaf_on_an_azure_reserved_asn(example: Path) -> None:
    devices = example / "intent/aus1/devices.yaml"
    replace_in(
        devices,
        "management: 192.168.10.33/24\n",
        "management: 192.168.10.33/24\n        asn: 65515\n",
    )
    result = lint_repo(example)
    assert findings_of(result, "AZ-003") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'asn: 65515')}: aus1-bl3 peers with Azure "
        "from AS65515, which Azure reserves (65515-65520) for its own use; give aus1-bl3 "
        "another ASN"
    ]
    assert result.errors


def test_az004_private_peering_over_4000_prefixes(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds, "advertise: [10.60.0.0/16]\n", f"advertise: {prefixes('10.64.0.0/10', 24, 4001)}\n"
    )
    result = lint_repo(example)
    assert findings_of(result, "AZ-004") == [
        f"{CLOUDS}:{line_of(clouds, 'advertise: [10.64.0.0/24')}: Azure er-syd peering private "
        "advertises 4001 IPv4 prefixes; private peering accepts at most 4000 and Microsoft "
        "drops the session beyond that: aggregate them"
    ]
    assert result.errors


def test_az004_premium_takes_10000(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds,
        "              type: private\n",
        "              type: private\n              premium: true\n",
    )
    replace_in(
        clouds, "advertise: [10.60.0.0/16]\n", f"advertise: {prefixes('10.64.0.0/10', 24, 4001)}\n"
    )
    assert findings_of(lint_repo(example), "AZ-004") == []


CIRCUITS = "intent/aus1/circuits.yaml"


@pytest.mark.parametrize(
    ("ends", "role"),
    [
        (("aus1-sp1", "Ethernet40/1", "aus1-sp2", "Ethernet40/1"), "spine"),
        (("aus1-br1", "HundredGigE0/0/0/27", "aus1-br2", "HundredGigE0/0/0/27"), "border"),
        (("aus1-lf3", "Ethernet1/40", "aus1-lf4", "Ethernet1/40"), None),  # VTEPs: fine
    ],
)
def test_cloud009_a_private_attachment_lands_on_a_vtep(
    example: Path, ends: tuple[str, str, str, str], role: str | None
) -> None:
    """ExpressRoute landed on the spines linted clean: they rendered VRF storage and its
    session with no VXLAN tunnel endpoint, exporting the cloud's routes to no VTEP."""
    circuits = example / CIRCUITS
    for n, (device, port) in enumerate((ends[:2], ends[2:]), start=1):
        replace_in(
            circuits,
            f"device: aus1-bl{n + 2}, interface: Ethernet1/9",
            f"device: {device}, interface: {port}",
        )
    expected = [
        f"{CIRCUITS}:{line_of(circuits, f'XC-AZ-{n}:')}: Azure er-syd/private is on circuit "
        f"XC-AZ-{n}, which lands on {device}, a {role}: only a VTEP carries a cloud's routes "
        "into its tenant VRF over EVPN; land the circuit on a border leaf"
        for n, device in ((1, ends[0]), (2, ends[2]))
    ]
    result = lint_repo(example)
    assert findings_of(result, "CLOUD-009") == (expected if role else [])
    # one message for one problem: the exports that stop on a non-VTEP go unsaid
    assert findings_of(result, "FLOW-001") == []


def test_az006_committed_above_the_circuit_bandwidth(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "committed_mbps: 8000,", "committed_mbps: 12000,")
    result = lint_repo(example)
    assert findings_of(result, "AZ-006") == [
        f"{CLOUDS}:{line_of(clouds, 'committed_mbps: 12000')}: Azure er-syd commits 12,000 Mb/s "
        "on a 10,000 Mb/s circuit; one link carries at most the circuit bandwidth: lower "
        "committed_mbps or order a larger circuit"
    ]
    assert not result.errors


def test_gcp001_partner_interconnect_with_a_private_asn(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "type: dedicated", "type: partner")
    replace_in(clouds, "cloud_router_asn: 16550", "cloud_router_asn: 64520")
    result = lint_repo(example)
    assert findings_of(result, "GCP-001") == [
        f"{CLOUDS}:{line_of(clouds, 'cloud_router_asn')}: Google gcp-ic Cloud Router ASN 64520: "
        "Partner Interconnect needs 16550; set cloud_router_asn to the Cloud Router's ASN"
    ]
    assert result.errors


def test_gcp002_attachment_mtu_9000(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "vlan: 301,", "vlan: 301, mtu: 9000,")
    result = lint_repo(example)
    assert findings_of(result, "GCP-002") == [
        f"{CLOUDS}:{line_of(clouds, 'syd-ead1:')}: Google attachment gcp-ic/syd-ead1 has mtu "
        "9000; an attachment runs 1440, 1460, 1500 or 8896: set the attachment's MTU"
    ]
    assert result.errors


def test_gcp003_attachment_outside_link_local(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds,
        "ipv4: 169.254.20.10/29, peer_ipv4: 169.254.20.9,",
        "ipv4: 192.168.20.10/29, peer_ipv4: 192.168.20.9,",
    )
    result = lint_repo(example)
    assert findings_of(result, "GCP-003") == [
        f"{CLOUDS}:{line_of(clouds, 'syd-ead2:')}: Google attachment gcp-ic/syd-ead2 ipv4 "
        "192.168.20.10/29 is not a /29 inside 169.254.0.0/16; use the /29 Google allocated to "
        "the attachment"
    ]
    assert result.errors


def test_gcp004_9999_with_one_domain_in_melbourne(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(
        clouds,
        "metro: mel, edge_availability_domain: availability-domain-2",
        "metro: mel, edge_availability_domain: availability-domain-1",
    )
    result = lint_repo(example)
    assert findings_of(result, "GCP-004") == [
        f"{CLOUDS}:{line_of(clouds, 'sla:')}: Google gcp-ic declares a 99.99 % SLA, which needs "
        "both edge availability domains in 2 metro(s) (has 1; mel has only "
        "availability-domain-1); add attachments to complete the topology or declare the SLA "
        "it meets"
    ]
    assert result.errors


def test_gcp004_the_same_attachments_meet_999(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, 'sla: "99.99"', 'sla: "99.9"')
    replace_in(
        clouds,
        "metro: mel, edge_availability_domain: availability-domain-2",
        "metro: mel, edge_availability_domain: availability-domain-1",
    )
    assert findings_of(lint_repo(example), "GCP-004") == []


def test_gcp006_bfd_faster_than_cloud_router_allows(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, 'sla: "99.99"\n', 'sla: "99.99"\n          bfd_interval: 300\n')
    result = lint_repo(example)
    assert findings_of(result, "GCP-006") == [
        f"{CLOUDS}:{line_of(clouds, 'bfd_interval')}: Google gcp-ic bfd_interval 300 ms is "
        "below the Cloud Router's minimum of 1000 ms; set it to 1000 or more"
    ]
    assert not result.errors


def test_cloud003_bursts_beyond_n_minus_1_and_provider_limits(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "burst_mbps: 80000,", "burst_mbps: 120000,")  # AWS: 2 x 100G
    replace_in(clouds, "burst_mbps: 20000,", "burst_mbps: 30000,")  # Azure: 10G circuit
    replace_in(clouds, "burst_mbps: 50000,", "burst_mbps: 160000,")  # Google: 4 x 50G
    replace_in(
        clouds,
        "committed_mbps: 40000, burst_mbps: 160000",
        "committed_mbps: 170000, burst_mbps: 160000",
    )
    result = lint_repo(example)
    aws, azure, gcp = (line_of(clouds, "burst:", n) for n in (1, 2, 3))
    assert findings_of(result, "CLOUD-003") == [
        f"{CLOUDS}:{aws}: AWS aws-syd bursts to 120,000 Mb/s, but after losing its largest "
        "circuit (XC-AWS-2) the others carry 100,000 Mb/s; add a circuit or agree a lower "
        "burst_mbps",
        f"{CLOUDS}:{azure}: Azure er-syd bursts to 30,000 Mb/s, but Microsoft delivers at most "
        "2 x 10,000 Mb/s = 20,000 Mb/s over both links; lower burst_mbps or order a larger "
        "circuit",
        f"{CLOUDS}:{gcp}: Google gcp-ic commits 170,000 Mb/s, more than its burst rate "
        "160,000 Mb/s; the burst rate includes the committed one: correct the profile agreed "
        "with the provider",
        f"{CLOUDS}:{gcp}: Google gcp-ic bursts to 160,000 Mb/s, but after losing its largest "
        "circuit (XC-GCP-4) the others carry 150,000 Mb/s (at most 50,000 Mb/s per "
        "attachment); add a circuit or agree a lower burst_mbps",
    ]
    assert not result.errors


@pytest.mark.parametrize(
    ("gcp", "vrf", "found"),
    [
        ("10.100.0.0/16", "gpu-a", True),  # AWS private-1/2's range, into the same VRF
        ("10.100.128.0/17", "gpu-a", True),  # inside it
        ("10.101.0.0/16", "gpu-a", False),  # next to it (AWS's transit range, another VRF)
        ("10.100.0.0/16", "storage", False),  # the same range into another VRF
    ],
)
def test_cloud004_two_clouds_of_one_vrf_agree_overlapping_ranges(
    example: Path, gcp: str, vrf: str, found: bool
) -> None:
    """The four GCP attachments copy a range: Google and AWS would both send it into the VRF.
    AWS's two private VIFs agreeing one range (one VPC, redundant links) are the example."""
    clouds = clouds_of(example)
    replace_in(clouds, "vrf: gpu-a, receive: [10.120.0.0/16]", f"vrf: {vrf}, receive: [{gcp}]", 4)
    if vrf == "storage":
        replace_in(clouds, "advertise: [10.50.0.0/16]}", "advertise: [10.60.0.0/16]}", 6)
        replace_in(clouds, "advertise: [10.60.0.0/16]}", "advertise: [10.50.0.0/16]}", 2)
    result = lint_repo(example)
    if not found:
        assert findings_of(result, "CLOUD-004") == []
        return
    line = line_of(clouds, "mel-ead1:")
    assert findings_of(result, "CLOUD-004") == [
        f"{CLOUDS}:{line}: Google Cloud gcp-ic agrees to send {gcp} into VRF gpu-a "
        "(gcp-ic/mel-ead1, gcp-ic/mel-ead2, gcp-ic/syd-ead1, gcp-ic/syd-ead2), which overlaps "
        "10.100.0.0/16 of AWS aws-syd (aws-syd/private-1, aws-syd/private-2): the VRF's leaves "
        "would reach one cloud for the other's addresses; agree ranges apart, or serve the "
        "clouds in different VRFs"
    ]


# --- each cloud session's own-space guard is its VRF's, not the first session's on the leaf ---


def _own_space(models: dict[str, DeviceModel], device: str, route_map: str) -> list[str]:
    model = models[device]
    (entry,) = [
        e
        for m in model.route_maps
        if m.name == route_map
        for e in m.entries
        if e.description == "our own address space"
    ]
    (listed,) = [p for p in model.prefix_lists if p.name == entry.match_prefix_list]
    return [e.prefix for e in listed.entries]


def test_two_clouds_of_two_vrfs_on_one_leaf_each_guard_their_own_space(example: Path) -> None:
    """aus1-bl1 holds AWS private-1 (gpu-a, 10.50/16) and transit-1 (storage, 10.60/16)."""
    models = device_models(lint_repo(example))
    assert _own_space(models, "aus1-bl1", "RM-AWS-AWS-SYD-PRIVATE-1-IN-V4") == ["10.50.0.0/16"]
    assert _own_space(models, "aus1-bl1", "RM-AWS-AWS-SYD-TRANSIT-1-IN-V4") == ["10.60.0.0/16"]


def test_a_storage_vpc_inside_gpu_as_space_is_not_refused_as_ours(example: Path) -> None:
    """Before, storage's session filtered with gpu-a's 10.50/16, and FLOW-006 blamed a right
    VPC range 10.50.128.0/17 (VRFs may overlap)."""
    replace_in(
        example / "intent/aus1/clouds.yaml",
        "receive: [10.101.0.0/16]",
        "receive: [10.50.128.0/17]",
        count=2,
    )
    assert findings_of(lint_repo(example), "FLOW-006") == []


# --- CLOUD-005: an entry of a family the attachment has no session in ------------------------

PRIVATE_1 = 'mtu: 9001, key: "secret:aws-dx-aus1", advertise: [10.50.0.0/16]}'


@pytest.mark.parametrize("with_session", [True, False])
def test_cloud005_an_ipv6_advertise_needs_an_ipv6_session(
    example: Path, with_session: bool
) -> None:
    clouds = clouds_of(example)
    session = ', ipv6: "2001:db8:aa::1/125", peer_ipv6: "2001:db8:aa::2"' if with_session else ""
    replace_in(
        clouds,
        PRIVATE_1,
        f'mtu: 9001, key: "secret:aws-dx-aus1"{session}, '
        'advertise: [10.50.0.0/16, "2001:db8:50::/48"]}',
    )
    found = findings_of(lint_repo(example), "CLOUD-005")
    if with_session:
        assert found == []
        return
    assert found == [
        f"{CLOUDS}:{line_of(clouds, '2001:db8:50::/48')}: AWS aws-syd/private-1's advertise "
        "entry 2001:db8:50::/48 is IPv6, but the attachment has no IPv6 BGP session to send it "
        "over: give the attachment its IPv6 addresses (both ends), or drop the entry"
    ]


def test_cloud005_an_ipv6_receive_on_an_ipv4_expressroute_peering(example: Path) -> None:
    clouds = clouds_of(example)
    replace_in(clouds, "receive: [10.110.0.0/16]", 'receive: [10.110.0.0/16, "2001:db8:110::/48"]')
    assert findings_of(lint_repo(example), "CLOUD-005") == [
        f"{CLOUDS}:{line_of(clouds, '2001:db8:110::/48')}: Azure er-syd/private's receive entry "
        "2001:db8:110::/48 is IPv6, but the attachment has no IPv6 BGP session to bring it: "
        "give the attachment its IPv6 addresses (both ends), or drop the entry"
    ]


# --- CLOUD-007: a default route advertised to a cloud ------------------------------------------


@pytest.mark.parametrize(
    ("extra", "flagged"),
    [("0.0.0.0/0", True), ("::/0", True), ("10.0.0.0/8", False), ("10.0.0.0/7", False)],
)
def test_cloud007_a_default_route_advertised_to_a_cloud(
    example: Path, extra: str, flagged: bool
) -> None:
    """A /0 of either family is the discard default; the shortest private aggregates a tenant
    writes (a /8, even a /7 over it) are aggregates like any other (FLOW-001 and CLOUD-006
    judge them)."""
    clouds = clouds_of(example)
    replace_in(clouds, PRIVATE_1, PRIVATE_1.replace("[10.50.0.0/16]", f'[10.50.0.0/16, "{extra}"]'))
    found = findings_of(lint_repo(example), "CLOUD-007")
    if not flagged:
        assert found == []
        return
    assert found == [
        f"{CLOUDS}:{line_of(clouds, extra)}: AWS aws-syd/private-1 advertises the default route "
        f"{extra}: the border leaf would anchor it with a discard route in VRF gpu-a and send it "
        "to every leaf of the VRF, where it draws the tenant's Internet traffic into the "
        "discard, and its own-space filters would drop everything the cloud sends; advertise "
        "the VRF's aggregates only"
    ]


def test_cloud007_the_discard_default_it_prevents(example: Path) -> None:
    """What the rule keeps from the border leaf: a discard default in the tenant VRF, which
    `network` originates beside the aggregate, and an own-space import filter that holds every
    route, the cloud's agreed range included."""
    clouds = clouds_of(example)
    replace_in(clouds, PRIVATE_1, PRIVATE_1.replace("[10.50.0.0/16]", "[10.50.0.0/16, 0.0.0.0/0]"))
    bl1 = device_models(lint_repo(example))["aus1-bl1"]
    assert [(r.prefix, r.discard) for r in bl1.static_routes if r.vrf == "gpu-a"] == [
        ("0.0.0.0/0", True),
        ("10.50.0.0/16", True),
    ]
    vif = next(n for n in bl1.bgp.neighbors if n.party == "aws-syd/private-1")
    verdict = evaluate(bl1, vif.route_map_in, Route("10.100.0.0/16", as_path=(64512,)))
    assert (verdict.accepted, verdict.description) == (False, "our own address space")


# --- CLOUD-008: the prefix limit holds the agreed ranges ---------------------------------------

RECEIVE_1 = "private-1: {type: private, vrf: gpu-a, receive: [10.100.0.0/16]"


@pytest.mark.parametrize(
    ("count", "limit", "flagged"), [(100, None, False), (101, None, True), (101, 101, False)]
)
def test_cloud008_more_agreed_ranges_than_the_prefix_limit(
    example: Path, count: int, limit: int | None, flagged: bool
) -> None:
    """private-1 keeps AWS's default limit of 100 routes: 100 agreed /24s fit it exactly, a
    101st tears the session down when AWS sends it; a limit of 101 holds them again."""
    clouds = clouds_of(example)
    receive = RECEIVE_1.replace("[10.100.0.0/16]", prefixes("10.100.0.0/16", 24, count))
    if limit is not None:
        receive = receive.replace("{type: private,", f"{{max_prefix: {limit}, type: private,")
    replace_in(clouds, RECEIVE_1, receive)
    found = findings_of(lint_repo(example), "CLOUD-008")
    if not flagged:
        assert found == []
        return
    assert found == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: AWS aws-syd/private-1 agrees to send 101 "
        "IPv4 ranges (receive:), but its sessions accept at most 100 routes (max_prefix): the "
        "provider sending what was agreed tears them down; set max_prefix to 101 or more, with "
        "headroom, or agree fewer, shorter ranges"
    ]


# --- CLOUD-006: an advertised prefix equal to one of the VRF's subnets -----------------------


@pytest.mark.parametrize(("prefix", "subnet"), [("10.50.0.0/22", False), ("10.50.1.0/24", True)])
def test_cloud006_an_advertised_subnet_would_be_discarded(
    example: Path, prefix: str, subnet: bool
) -> None:
    """gpu-a-compute-1 is 10.50.1.0/24; a /22 over it is an aggregate, the /24 itself is not."""
    clouds = clouds_of(example)
    replace_in(clouds, PRIVATE_1, PRIVATE_1.replace("10.50.0.0/16", prefix))
    found = findings_of(lint_repo(example), "CLOUD-006")
    if not subnet:
        assert found == []
        return
    assert found == [
        f"{CLOUDS}:{line_of(clouds, prefix)}: AWS aws-syd/private-1 advertises {prefix}, a subnet "
        "of VRF gpu-a itself: its discard anchor on the border leaf would beat the subnet's own "
        "route there; advertise a prefix shorter than the subnet (the VRF's aggregate)"
    ]
