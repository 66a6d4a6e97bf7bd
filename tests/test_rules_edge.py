"""EDGE-001..012 and EDGE-014..018: each rule passes on the example and fails on one
realistic edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from typer.testing import CliRunner
from variants import borders_to_nxos

from meetme.cli import app

EDGE_RULES = (*(f"EDGE-{n:03}" for n in range(1, 13)), *(f"EDGE-{n:03}" for n in range(14, 19)))
PEERING = "intent/aus1/peering.yaml"
EYEBALL_B_V4 = "max_prefix_v4: 9000, "


def test_example_has_no_edge_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in EDGE_RULES] == []


def test_edge001_ix_peer_without_ipv4_prefix_limit(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, EYEBALL_B_V4, "")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-001") == [
        f"{PEERING}:{line_of(peering, 'eyeball-b:')}: IX peer ix-syd/eyeball-b has IPv4 "
        "sessions (203.0.113.60 on aus1-br1, aus1-br2) but no max_prefix_v4: a leak from it "
        "would be accepted without limit; set max_prefix_v4 to the peer's PeeringDB "
        "info_prefixes4 plus about 20 % headroom"
    ]
    assert result.errors


def test_edge001_transit_finding_is_on_the_party_line(example: Path) -> None:
    """Block-style party: the limit's line is gone, the finding names the party's line."""
    peering = example / PEERING
    replace_in(peering, "          max_prefix_v6: 300000\n", "")  # transit-a's
    result = lint_repo(example)
    assert findings_of(result, "EDGE-001") == [
        f"{PEERING}:{line_of(peering, 'transit-a:')}: transit transit-a has IPv6 sessions "
        "(2001:db8:a::, 2001:db8:a::2 on aus1-br1, aus1-br2) but no max_prefix_v6: a leak "
        "from it would be accepted without limit; set max_prefix_v6 to the full Internet "
        "table of that family plus 20-50 % headroom"
    ]


def test_lint_cli_exits_1_at_the_ix_peer_without_max_prefix(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, EYEBALL_B_V4, "")
    line = line_of(peering, "eyeball-b:")
    outcome = CliRunner().invoke(app, ["lint"])
    assert outcome.exit_code == 1, outcome.output
    assert f"  {line}:13  error    EDGE-001  IX peer ix-syd/eyeball-b has IPv4 sessions" in (
        outcome.output
    )
    assert "max_prefix_v4" in outcome.output


def test_edge002_warning_threshold_too_late(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "max_prefix_warning_pct: 80", "max_prefix_warning_pct: 95")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-002") == [
        f"{PEERING}:{line_of(peering, 'max_prefix_warning_pct')}: max_prefix_warning_pct 95 "
        "leaves no time to act before the session is torn down; choose a value from 75 to 90"
    ]
    assert result.errors


def test_edge003_bilateral_peer_without_key(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, ', key: "secret:ix-syd-eyeball-b"', "")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-003") == [
        f"{PEERING}:{line_of(peering, 'eyeball-b:')}: IX peer ix-syd/eyeball-b (AS64506) has "
        "no key; agree a TCP-MD5 key with the peer and set key: secret:NAME, or waive this "
        "finding if the peer refuses authentication"
    ]
    assert not result.errors


def test_edge004_transit_on_a_single_circuit(example: Path) -> None:
    peering = example / PEERING
    replace_in(
        peering,
        "            - {circuit: XC-TB-2, ipv4: 192.0.2.11/31, peer_ipv4: 192.0.2.10, "
        'ipv6: "2001:db8:b::3/127", peer_ipv6: "2001:db8:b::2"}\n',
        "",
    )
    result = lint_repo(example)
    assert findings_of(result, "EDGE-004") == [
        f"{PEERING}:{line_of(peering, 'circuits:', 2)}: transit transit-b rides a single "
        "circuit XC-TB-1 (aus1-mmr2, aus1-br1); one cross-connect or border failure cuts the "
        "site off from it: order a second circuit through the other MMR to the other border"
    ]


def test_edge005_cloud_vif_that_advertises_nothing(example: Path) -> None:
    clouds = example / "intent/aus1/clouds.yaml"
    replace_in(
        clouds,
        'key: "secret:aws-dx-aus1", advertise: [10.50.0.0/16]}',
        'key: "secret:aws-dx-aus1"}',
    )
    result = lint_repo(example)
    assert findings_of(result, "EDGE-005") == [
        f"intent/aus1/clouds.yaml:{line_of(clouds, 'private-1:')}: AWS VIF aws-syd/private-1 "
        "advertises nothing: the export policy permits no route, so the cloud learns no path "
        "back to us; list our prefixes for it in advertise"
    ]
    assert not result.errors


def test_edge006_pni_without_bfd(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "          gtsm: true\n", "          gtsm: true\n          bfd: false\n")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-006") == [
        f"{PEERING}:{line_of(peering, 'bfd: false')}: PNI pni-cdn runs without BFD: a silent "
        "circuit failure blackholes traffic until the hold timer expires; set bfd: true once "
        "the provider enables it on its side"
    ]


def test_edge007_one_rpki_cache(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "          - {address: 10.9.0.12, port: 3323}\n", "")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-007") == [
        f"{PEERING}:{line_of(peering, 'rpki_caches')}: the Internet sessions validate route "
        "origins against 1 RPKI cache(s) (only 10.9.0.11); list at least 2 independent RTR "
        "caches in rpki_caches"
    ]
    assert result.errors


def test_edge007_borders_on_a_platform_without_rpki_are_told_their_way_out(
    example: Path,
) -> None:
    """NX-OS borders cannot validate origins (PLAT-001 refuses the caches), so listing caches
    cannot meet the rule: the finding says so and names the two ways on."""
    peering = example / PEERING
    devices = example / "intent/aus1/devices.yaml"
    replace_in(devices, "platform: cisco_iosxr", "platform: cisco_nxos", count=2)
    replace_in(peering, "          - {address: 10.9.0.12, port: 3323}\n", "")
    assert findings_of(lint_repo(example), "EDGE-007") == [
        f"{PEERING}:{line_of(peering, 'rpki_caches')}: the Internet sessions validate route "
        "origins against 1 RPKI cache(s) (only 10.9.0.11); list at least 2 independent RTR "
        "caches in rpki_caches; but aus1-br1, aus1-br2 run Cisco NX-OS, which cannot "
        "validate origins (PLAT-001): move them to a platform that can, or waive this rule "
        "with the reason (waivers:), accepting RPKI-invalid routes there"
    ]


def test_edge008_transit_peer_outside_the_circuit_subnet(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "peer_ipv4: 192.0.2.0,", "peer_ipv4: 192.0.2.4,")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-008") == [
        f"{PEERING}:{line_of(peering, 'XC-TA-1')}: transit transit-a peer 192.0.2.4 is not on "
        "our subnet 192.0.2.0/31 (192.0.2.1/31 on aus1-br1 HundredGigE0/0/0/20); the session "
        "would never come up: correct the peer or our address"
    ]
    assert result.errors
    # at the peer's address itself, not at the start of the circuit's line
    line = next(t for t in peering.read_text().splitlines() if "XC-TA-1" in t)
    [finding] = [f for f in result.findings if f.rule == "EDGE-008"]
    assert finding.location.column == line.index("peer_ipv4: 192.0.2.4") + 1


SERVICES_BR2 = "aus1-br2: {interface: HundredGigE0/0/0/26, ipv4: 10.9.0.2/24}"
IX_PORT_2 = '{circuit: XC-IX-2, ipv4: 203.0.113.11/24, ipv6: "2001:db8:ff00::11/64"}'


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (  # both borders at 10.9.0.1 on the services LAN, where the RPKI caches are
            SERVICES_BR2,
            SERVICES_BR2.replace("10.9.0.2/24", "10.9.0.1/24"),
            "our address 10.9.0.1/24 is on aus1-br1 HundredGigE0/0/0/26 (services LAN (RPKI "
            "validators)) and again on aus1-br2 HundredGigE0/0/0/26 (services LAN (RPKI "
            "validators)), one LAN: both would answer for it; give each port its own address",
        ),
        (  # both borders at 203.0.113.10 on the IX's peering LAN
            IX_PORT_2,
            IX_PORT_2.replace("203.0.113.11/24", "203.0.113.10/24"),
            "our address 203.0.113.10/24 is on aus1-br1 FourHundredGigE0/0/0/23 (ix ix-syd "
            "XC-IX-1) and again on aus1-br2 FourHundredGigE0/0/0/23 (ix ix-syd XC-IX-2), one "
            "LAN: both would answer for it; give each port its own address",
        ),
    ],
)
def test_edge008_two_borders_never_share_an_address_on_one_lan(
    example: Path, old: str, new: str, expected: str
) -> None:
    """It linted clean and rendered two routers answering ARP for one address. The example's
    .1/.2 and .10/.11 are the boundary: one address apart, nothing said."""
    peering = example / PEERING
    assert findings_of(lint_repo(example), "EDGE-008") == []
    replace_in(peering, old, new)
    assert findings_of(lint_repo(example), "EDGE-008") == [
        f"{PEERING}:{line_of(peering, new)}: {expected}"
    ]


IX_PORT_1 = '{circuit: XC-IX-1, ipv4: 203.0.113.10/24, ipv6: "2001:db8:ff00::10/64"}'
RS2 = 'rs2: {asn: 64504, ipv4: [203.0.113.2], ipv6: ["2001:db8:ff00::2"]'
OURS = "the border has no connected route to the route servers and peers there, so no session "
OURS += "over the port comes up"
THEIRS = "it is on no port of ours, so its sessions never come up"


@pytest.mark.parametrize(
    ("old", "inside", "outside", "expected"),
    [
        (  # our port: the last host of lan_v4 203.0.113.0/24, then the first address past it
            IX_PORT_1,
            IX_PORT_1.replace("203.0.113.10/24", "203.0.113.254/24"),
            IX_PORT_1.replace("203.0.113.10/24", "203.0.114.0/24"),
            "our address 203.0.114.0/24 on aus1-br1 FourHundredGigE0/0/0/23 (IX ix-syd, "
            f"XC-IX-1) is outside the IX's peering LAN (lan_v4 203.0.113.0/24): {OURS}; give it "
            "an address inside 203.0.113.0/24",
        ),
        (  # our port, IPv6: the last address of lan_v6 2001:db8:ff00::/64, then the next one
            IX_PORT_1,
            IX_PORT_1.replace("2001:db8:ff00::10/64", "2001:db8:ff00:0:ffff:ffff:ffff:ffff/64"),
            IX_PORT_1.replace("2001:db8:ff00::10/64", "2001:db8:ff00:1::/64"),
            "our address 2001:db8:ff00:1::/64 on aus1-br1 FourHundredGigE0/0/0/23 (IX ix-syd, "
            f"XC-IX-1) is outside the IX's peering LAN (lan_v6 2001:db8:ff00::/64): {OURS}; give "
            "it an address inside 2001:db8:ff00::/64",
        ),
        (  # a route server: the first address below the LAN (the last host is .254)
            RS2,
            RS2.replace("[203.0.113.2]", "[203.0.113.254]"),
            RS2.replace("[203.0.113.2]", "[203.0.112.255]"),
            "IX ix-syd route server rs2's address 203.0.112.255 is outside the IX's peering LAN "
            f"(lan_v4 203.0.113.0/24): {THEIRS}; give it an address inside 203.0.113.0/24",
        ),
        (  # a route server, IPv6: the first address past lan_v6
            RS2,
            RS2.replace('["2001:db8:ff00::2"]', '["2001:db8:ff00:0:ffff:ffff:ffff:ffff"]'),
            RS2.replace('["2001:db8:ff00::2"]', '["2001:db8:ff00:1::"]'),
            "IX ix-syd route server rs2's address 2001:db8:ff00:1:: is outside the IX's peering "
            f"LAN (lan_v6 2001:db8:ff00::/64): {THEIRS}; give it an address inside "
            "2001:db8:ff00::/64",
        ),
    ],
)
def test_edge015_ix_addresses_are_on_the_peering_lan(
    example: Path, old: str, inside: str, outside: str, expected: str
) -> None:
    """An address off the IX's LAN linted as one EDGE-008 finding per session, at the
    neighbours' lines ("correct the peer or our address"), or as nothing when the port was
    moved with its neighbours; now one EDGE-015 error at the address itself, and no EDGE-008
    for the sessions it takes down."""
    peering = example / PEERING
    replace_in(peering, old, inside)
    assert [f for f in lint_repo(example).findings if f.severity == "error"] == []
    replace_in(peering, inside, outside)
    errors = [f for f in lint_repo(example).findings if f.severity == "error"]
    assert [f"{f.rule} {f.location.file}:{f.location.line}: {f.message}" for f in errors] == [
        f"EDGE-015 {PEERING}:{line_of(peering, outside)}: {expected}"
    ]


def test_edge015_a_lan_holding_none_of_the_ix_addresses_is_one_error_at_the_lan(
    example: Path,
) -> None:
    """lan_v4 mistyped (203.0.13.0/24 for 203.0.113.0/24): every address agrees with the others,
    the sessions come up, and the imports drop routes to the wrong LAN. It linted clean; now
    the LAN is named once, not the six addresses."""
    peering = example / PEERING
    replace_in(peering, "lan_v4: 203.0.113.0/24", "lan_v4: 203.0.13.0/24")
    errors = [f for f in lint_repo(example).findings if f.severity == "error"]
    assert [f"{f.rule} {f.location.file}:{f.location.line}: {f.message}" for f in errors] == [
        f"EDGE-015 {PEERING}:{line_of(peering, 'lan_v4: 203.0.13.0/24')}: IX ix-syd's lan_v4 "
        "203.0.13.0/24 holds none of its 6 ipv4 addresses (ours and the route servers' and "
        "peers', e.g. 203.0.113.10/24): the imports would drop routes to the wrong LAN and let "
        "the real one in; give the IX's peering LAN as lan_v4"
    ]


CLOUDS = "intent/aus1/clouds.yaml"
DEVICES = "intent/aus1/devices.yaml"


RS1 = 'rs1: {asn: 64504, ipv4: [203.0.113.1], ipv6: ["2001:db8:ff00::1"]'
MERGED = (
    "on aus1-br1, aus1-br2 in the default VRF: a device holds one BGP neighbour per address, so "
    "the config would merge the two and one party's session is lost; give each party its own "
    "address, or remove the copy"
)


def _rs1_copied_as_rs9(peering: Path, ipv4: str, ipv6: str) -> str:
    """rs1's line written again as rs9's, with these addresses; rs9's line."""
    line = next(t for t in peering.read_text().splitlines() if RS1 in t)
    copy = line.replace("rs1:", "rs9:").replace("[203.0.113.1]", f"[{ipv4}]")
    copy = copy.replace('["2001:db8:ff00::1"]', f'["{ipv6}"]')
    replace_in(peering, line, f"{line}\n{copy}")
    return copy


def test_edge016_a_route_server_copied_under_a_new_name(example: Path) -> None:
    """It linted clean but for two CFG errors per border at the rendered neighbour (whose
    policies were rs9's, the model's rs1's): the device would have one session, with the
    copy's policies. Now one error per family at the copy's address, and no config lint."""
    peering = example / PEERING
    copy = _rs1_copied_as_rs9(peering, "203.0.113.1", "2001:db8:ff00::1")
    result = lint_repo(example)
    line = line_of(peering, copy)
    assert findings_of(result, "EDGE-016") == [
        f"{PEERING}:{line}: IX route server ix-syd/rs9's address 203.0.113.1 is IX route "
        f"server ix-syd/rs1's too, {MERGED}",
        f"{PEERING}:{line}: IX route server ix-syd/rs9's address 2001:db8:ff00::1 is IX route "
        f"server ix-syd/rs1's too, {MERGED}",
    ]
    # at each address in its list (the IPv6 one's quote), not at the start of the line
    assert [f.location.column for f in result.findings if f.rule == "EDGE-016"] == [
        copy.index("203.0.113.1") + 1,
        copy.index('"2001:db8:ff00::1"') + 1,
    ]
    assert not [f for f in result.findings if f.rule.startswith("CFG-")]


def test_edge016_the_next_address_is_another_neighbour(example: Path) -> None:
    """The boundary: one address apart, two neighbours, nothing said."""
    peering = example / PEERING
    _rs1_copied_as_rs9(peering, "203.0.113.3", "2001:db8:ff00::3")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-016") == []
    assert not [f for f in result.findings if f.rule.startswith("CFG-")]


def test_edge016_two_kinds_of_party_on_one_address(example: Path) -> None:
    """A bilateral peer given a route server's address: the later party in session order
    (route servers after peers) carries the error, naming the other."""
    peering = example / PEERING
    replace_in(
        peering,
        "content-a: {asn: 64505, ipv4: [203.0.113.50]",
        "content-a: {asn: 64505, ipv4: [203.0.113.1]",
    )
    assert findings_of(lint_repo(example), "EDGE-016") == [
        f"{PEERING}:{line_of(peering, RS1)}: IX route server ix-syd/rs1's address 203.0.113.1 "
        f"is IX peer ix-syd/content-a's too, {MERGED}"
    ]


def test_edge016_leaves_two_ports_on_one_subnet_to_addr018(example: Path) -> None:
    """The PNI's circuit numbered as transit-a's on the same border: the peer is shared
    because the ports are; ADDR-018 names the ports, and EDGE-016 says nothing more."""
    peering = example / PEERING
    replace_in(
        peering,
        "{circuit: XC-PNI-1, ipv4: 192.0.2.17/31, peer_ipv4: 192.0.2.16",
        "{circuit: XC-PNI-1, ipv4: 192.0.2.1/31, peer_ipv4: 192.0.2.0",
    )
    result = lint_repo(example)
    assert findings_of(result, "EDGE-016") == []
    assert [f.rule for f in result.findings if f.rule == "ADDR-018"] == ["ADDR-018"]


def test_edge016_one_address_in_two_vrfs_is_two_neighbours(example: Path) -> None:
    """AWS's transit VIF numbered as the private VIF beside it on the same border leaf and
    port, in VRF storage instead of gpu-a: two neighbours, nothing said."""
    clouds = example / "intent/aus1/clouds.yaml"
    replace_in(
        clouds,
        "ipv4: 169.254.11.1/30, peer_ipv4: 169.254.11.2",
        "ipv4: 169.254.10.1/30, peer_ipv4: 169.254.10.2",
    )
    result = lint_repo(example)
    assert findings_of(result, "EDGE-016") == []
    assert not [f for f in result.findings if f.rule in ("ADDR-018", "EDGE-008")]


def test_edge009_transit_given_our_own_asn(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "asn: 64501", "asn: 64500")  # transit-a: the organisation's ASN
    result = lint_repo(example)
    assert findings_of(result, "EDGE-009") == [
        f"{PEERING}:{line_of(peering, 'asn: 64500')}: transit transit-a has ASN 64500, which "
        "organisation example-ai already runs here: the session would be iBGP or drop every "
        "route as a loop; write the peer's own ASN"
    ]
    assert result.errors


def test_edge009_alone_on_nxos_borders_where_the_session_is_ibgp(example: Path) -> None:
    """On NX-OS the long-path drop is BGP's own (`maxas-limit`), which an iBGP session skips:
    a transit with our ASN also gave four EDGE-013 findings on its line, what follows from
    the one mistake EDGE-009 names."""
    borders_to_nxos(example)
    replace_in(example / PEERING, "asn: 64501", "asn: 64500")
    result = lint_repo(example)
    assert [f.rule for f in result.errors] == ["EDGE-009"]


@pytest.mark.parametrize(
    ("asn", "who"),
    [
        (4200000101, "aus1-lf1"),  # base + id
        (4200009000, "aus1-sp1, aus1-sp2, aus1-sp3 and 1 more"),  # the spines' shared ASN
        (4200000100, None),  # base + an id no device has
        (4200000000, None),  # the base itself is no device's ASN
    ],
)
def test_edge009_cloud_asn_equal_to_a_fabric_asn(example: Path, asn: int, who: str | None) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "cloud_router_asn: 16550", f"cloud_router_asn: {asn}")
    hits = findings_of(lint_repo(example), "EDGE-009")
    if who is None:
        assert hits == []
    else:
        assert hits == [
            f"{CLOUDS}:{line_of(clouds, 'cloud_router_asn')}: Google gcp-ic Cloud Router has "
            f"ASN {asn}, which {who} already runs here: the session would be iBGP or drop "
            "every route as a loop; write the peer's own ASN"
        ]


def test_edge009_amazon_asn_equal_to_a_device_override(example: Path) -> None:
    devices = example / DEVICES
    replace_in(
        devices,
        "management: 192.168.10.103/24\n",
        "management: 192.168.10.103/24\n        asn: 64513\n",
    )
    clouds = example / CLOUDS
    hits = findings_of(lint_repo(example), "EDGE-009")
    assert [h.split(": ", 1)[0] for h in hits] == [
        f"{CLOUDS}:{line_of(clouds, 'transit-1:')}",
        f"{CLOUDS}:{line_of(clouds, 'transit-2:')}",
    ]
    assert all("ASN 64513, which aus1-lf3 already runs here" in h for h in hits)


def test_edge009_leaves_a_public_spine_asn_to_addr006(example: Path) -> None:
    """The spines' shared ASN mistyped as 64501, transit-a's (public) ASN: ADDR-006 names the
    spines' ASN, which is the fault. EDGE-009 reported transit-a too, telling the user to
    "write the peer's own ASN", which it already is: one finding, ADDR-006's."""
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "spine: 4200009000", "spine: 64501")
    result = lint_repo(example)
    assert [(f.rule, f.location.file, f.location.line) for f in result.errors] == [
        ("ADDR-006", "intent/aus1/site.yaml", line_of(site, "spine: 64501"))
    ]


def test_edge009_leaves_a_border_asn_override_to_addr020(example: Path) -> None:
    """aus1-br1 given transit-b's ASN by an asn: line: ADDR-020 (remove the line) alone."""
    devices = example / DEVICES
    replace_in(
        devices,
        "management: 192.168.10.11/24\n",
        "management: 192.168.10.11/24\n        asn: 64502\n",
    )
    result = lint_repo(example)
    assert [(f.rule, f.location.line) for f in result.errors] == [
        ("ADDR-020", line_of(devices, "asn: 64502"))
    ]


def test_edge010_private_transit_asn(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "asn: 64501", "asn: 65001")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-010") == [
        f"{PEERING}:{line_of(peering, 'asn: 65001')}: transit transit-a has ASN 65001, a "
        "private ASN (RFC 6996): every route it sends would be dropped by the private-ASN "
        "filter; write the peer's public ASN (PeeringDB lists it)"
    ]
    assert result.errors


@pytest.mark.parametrize(
    ("asn", "private"),
    [
        (64511, False),  # documentation (ADDR-009's in production)
        (64512, True),
        (65534, True),
        (65535, False),  # reserved: ADDR-007's
        (4199999999, False),
        (4200000000, True),
        (4294967294, True),
        (4294967295, False),  # reserved: ADDR-007's
    ],
)
def test_edge010_limits_of_the_private_ranges_in_production(
    example: Path, asn: int, private: bool
) -> None:
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: production")
    peering = example / PEERING
    replace_in(peering, "asn: 64503", f"asn: {asn}")  # pni-cdn
    hits = findings_of(lint_repo(example), "EDGE-010")
    expected = [f"{PEERING}:{line_of(peering, f'asn: {asn}')}"] if private else []
    assert [h.split(": ", 1)[0] for h in hits] == expected


def test_edge010_private_asns_are_fine_on_clouds_and_route_servers(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "asn: 64504", "asn: 65100", 2)  # both IX route servers
    replace_in(example / CLOUDS, "cloud_router_asn: 16550", "cloud_router_asn: 64600")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-010") == []
    assert findings_of(result, "GCP-001") == []  # Dedicated takes a private ASN


# --- EDGE-012: the tenants' default over two circuits on two borders ---------------------------

AUS1_INTERNET_VRFS = "gpu-a"  # aus1's handoff VRFs with internet: default
TB_DEFAULT = (
    "          accept_default: true\n          max_prefix_v4: 1500000\n"
    '          max_prefix_v6: 300000\n          key: "secret:transit-b"'
)
TA_SECOND = (
    "            - {circuit: XC-TA-2, ipv4: 192.0.2.3/31, peer_ipv4: 192.0.2.2, "
    'ipv6: "2001:db8:a::3/127", peer_ipv6: "2001:db8:a::2"}\n'
)


def _only_transit_a_sends_a_default(example: Path) -> None:
    replace_in(example / PEERING, TB_DEFAULT, TB_DEFAULT.replace("true", "false"))


def test_edge012_one_transit_on_two_circuits_and_two_borders_is_enough(example: Path) -> None:
    _only_transit_a_sends_a_default(example)
    assert findings_of(lint_repo(example), "EDGE-012") == []


def test_edge012_the_default_on_one_circuit(example: Path) -> None:
    _only_transit_a_sends_a_default(example)
    replace_in(example / PEERING, TA_SECOND, "")
    line = line_of(example / PEERING, "accept_default: true")
    assert findings_of(lint_repo(example), "EDGE-012") == [
        f"{PEERING}:{line}: the default route of every internet: default VRF "
        f"({AUS1_INTERNET_VRFS}) comes from transit transit-a over one circuit XC-TA-1 on "
        "aus1-br1: one cross-connect or border failure leaves them without a way out; set "
        "accept_default on a transit or PNI with a circuit on the other border"
    ]


def test_edge012_two_circuits_on_one_border(example: Path) -> None:
    """transit-a sends no default; transit-b's two circuits both land on aus1-br1."""
    peering = example / PEERING
    replace_in(peering, "accept_default: true             #", "accept_default: false            #")
    replace_in(
        example / "intent/aus1/circuits.yaml",
        "device: aus1-br2, interface: HundredGigE0/0/0/21",
        "device: aus1-br1, interface: HundredGigE0/0/0/25",
    )
    line = line_of(peering, "accept_default: true")
    assert findings_of(lint_repo(example), "EDGE-012") == [
        f"{PEERING}:{line}: the default route of every internet: default VRF "
        f"({AUS1_INTERNET_VRFS}) comes from transit transit-b over circuits XC-TB-1, XC-TB-2, "
        "all on aus1-br1: one border failure leaves them without a way out; set "
        "accept_default on a transit or PNI with a circuit on the other border"
    ]


@pytest.mark.parametrize("second_v6", [True, False])
def test_edge012_counts_the_circuits_of_each_family(example: Path, second_v6: bool) -> None:
    """transit-b sends IPv4 only and the IPv6 half of XC-TA-2 is not delivered: IPv4 still
    comes in over four circuits on two borders, IPv6 over XC-TA-1 on aus1-br1 alone. With
    XC-TA-2's IPv6 in place (the boundary), IPv6 has two circuits on two borders too."""
    peering = example / PEERING
    for circuit in ("XC-TB-1", "XC-TB-2", *(() if second_v6 else ("XC-TA-2",))):
        text = peering.read_text()
        start = text.index(f"{{circuit: {circuit}, ")
        end = text.index("}", start)
        line = text[start:end]
        peering.write_text(text.replace(line, line[: line.index(", ipv6:")]))
    line = line_of(peering, "accept_default: true")
    assert findings_of(lint_repo(example), "EDGE-012") == (
        []
        if second_v6
        else [
            f"{PEERING}:{line}: the IPv6 default route of every internet: default VRF "
            "(gpu-a) comes from transit transit-a over one circuit XC-TA-1 "
            "on aus1-br1: one cross-connect or border failure leaves them without a way out; "
            "set accept_default on a transit or PNI with an IPv6 circuit on the other border"
        ]
    )


def test_edge012_names_only_the_site_whose_default_hangs_on_one_circuit(example: Path) -> None:
    _only_transit_a_sends_a_default(example)
    replace_in(example / PEERING, TA_SECOND, "")
    messages = findings_of(lint_repo(example), "EDGE-012")
    assert len(messages) == 1 and messages[0].startswith(PEERING)


CIRCUITS = "intent/aus1/circuits.yaml"


@pytest.mark.parametrize(
    ("device", "port", "role"),
    [
        ("aus1-bl{n}", "Ethernet20/1", "border_leaf"),
        ("aus1-sp{n}", "Ethernet40/1", "spine"),
        ("aus1-br{n}", "HundredGigE0/0/0/20", None),  # the example: on the borders
    ],
)
def test_edge014_an_internet_circuit_lands_on_a_border(
    example: Path, device: str, port: str, role: str | None
) -> None:
    """transit-a landed on the EOS border leaves was told only that its RPKI caches had no
    route there (FLOW-005); without caches it rendered a full-table transit session into a
    border leaf's underlay."""
    circuits = example / CIRCUITS
    for n in (1, 2):
        replace_in(
            circuits,
            f"device: aus1-br{n}, interface: HundredGigE0/0/0/20",
            f"device: {device.format(n=n)}, interface: {port}",
        )
    expected = [
        f"{CIRCUITS}:{line_of(circuits, f'XC-TA-{n}:')}: transit transit-a is on circuit "
        f"XC-TA-{n}, which lands on {device.format(n=n)}, a {role}: the Internet's parties peer "
        "on the border routers; land it on one of aus1-br1, aus1-br2"
        for n in (1, 2)
    ]
    result = lint_repo(example)
    assert findings_of(result, "EDGE-014") == (expected if role else [])
    # one message for one problem: the caches' reachability from a non-border goes unsaid
    assert findings_of(result, "FLOW-005") == []


@pytest.mark.parametrize(
    ("device", "port"),
    [
        ("aus1-lf1", "HundredGigE0/0/0/20"),  # the border's port name, kept: not NVUE's
        ("aus1-lf1", "swp30"),  # renamed for the leaf
        ("aus1-bl5", "HundredGigE0/0/0/20"),  # an NVUE border leaf
    ],
)
def test_edge014_is_the_one_message_for_a_transit_moved_off_the_borders(
    example: Path, device: str, port: str
) -> None:
    """transit-a's first circuit written onto an NVUE switch: the device is the mistake. The
    port's name of another platform (PLAT-016) and RPKI that NVUE cannot render toward the
    transit (PLAT-001) both follow from it and go unsaid; the edit that fixes EDGE-014 (the
    border it names) fixes them too."""
    circuits = example / CIRCUITS
    replace_in(
        circuits,
        "device: aus1-br1, interface: HundredGigE0/0/0/20",
        f"device: {device}, interface: {port}",
    )
    result = lint_repo(example)
    assert [f.rule for f in result.findings if f.severity == "error"] == ["EDGE-014"]


def test_plat016_still_names_a_foreign_port_of_a_transit_on_a_border(example: Path) -> None:
    """On a border, where the circuit belongs, a port name of another platform is PLAT-016's."""
    circuits = example / CIRCUITS
    replace_in(
        circuits,
        "device: aus1-br1, interface: HundredGigE0/0/0/20",
        "device: aus1-br1, interface: swp30",
    )
    result = lint_repo(example)
    assert [f.rule for f in result.findings if f.severity == "error"] == ["PLAT-016"]
    assert findings_of(result, "PLAT-016")[0].startswith(
        f"{CIRCUITS}:{line_of(circuits, 'XC-TA-1:')}:"
    )


PNI_ALLOWED = 'import_prefixes: [192.0.2.0/24, "2001:db8:c000::/36"]'  # pni-cdn's


@pytest.mark.parametrize(
    ("entry", "found"),
    [
        (
            "0.0.0.0/0",
            "shorter than /8, the largest block an RIR allocates: it admits every "
            "route inside it, the whole Internet table",
        ),
        (
            "128.0.0.0/7",
            "shorter than /8, the largest block an RIR allocates: it admits every route inside it",
        ),
        ("12.0.0.0/8", None),  # the boundary: a legacy /8 holder's block
        (
            '"2001:db8:c000::/36", "2c00::/15"',
            "shorter than /16, the largest block an RIR allocates: it admits every route inside it",
        ),
        ('"2001:db8:c000::/36", "2c00::/16"', None),
    ],
)
def test_edge017_an_allow_list_entry_is_no_shorter_than_an_allocation(
    example: Path, entry: str, found: str | None
) -> None:
    """pni-cdn's allow-list given 0.0.0.0/0 linted clean and rendered `0.0.0.0/0 le 32`: the
    whole table from a PNI, held back by its prefix limit alone."""
    peering = example / PEERING
    if entry.startswith('"'):
        written = f"import_prefixes: [192.0.2.0/24, {entry}]"
        shown = entry.split(", ")[1].strip('"')
    else:
        written = f'import_prefixes: [{entry}, "2001:db8:c000::/36"]'
        shown = entry
    replace_in(peering, PNI_ALLOWED, written)
    expected = [
        f"{PEERING}:{line_of(peering, written)}: PNI pni-cdn's import_prefixes entry {shown} is "
        f"{found}, so the allow-list no longer limits what the party sends; list the prefixes "
        "agreed with the party (from its IRR as-set)"
    ]
    assert findings_of(lint_repo(example), "EDGE-017") == (expected if found else [])


def test_edge017_names_an_ix_peer_at_its_entry(example: Path) -> None:
    peering = example / PEERING
    old = "max_prefix_v4: 1200, max_prefix_v6: 300, "  # content-a's
    replace_in(peering, old, old + 'import_prefixes: [9.9.9.0/24, "::/0"], ')
    line = line_of(peering, '"::/0"')
    column = next(t for t in peering.read_text().splitlines() if '"::/0"' in t).index('"::/0"') + 1
    found = [f for f in lint_repo(example).findings if f.rule == "EDGE-017"]
    assert [(f.location.line, f.location.column, f.message) for f in found] == [
        (
            line,
            column,
            "IX ix-syd peer content-a's import_prefixes entry ::/0 is shorter than /16, the "
            "largest block an RIR allocates: it admits every route inside it, the whole "
            "Internet table, so the allow-list no longer limits what the party sends; list the "
            "prefixes agreed with the party (from its IRR as-set)",
        )
    ]


def test_edge018_an_ix_with_no_neighbour(example: Path) -> None:
    """ix-syd with its route servers and peers removed linted clean: its two ports rendered
    on the peering LAN, and nothing ran over them. One neighbour left is the boundary."""
    peering = example / PEERING
    text = peering.read_text()
    start = text.index("          route_servers:\n")
    end = text.index("      transits:\n")
    kept = [t for t in text[start:end].splitlines(keepends=True) if "content-a:" in t]
    peering.write_text(text[:start] + "          peers:\n" + "".join(kept) + text[end:])
    assert findings_of(lint_repo(example), "EDGE-018") == []
    peering.write_text(text[:start] + text[end:])
    assert findings_of(lint_repo(example), "EDGE-018") == [
        f"{PEERING}:{line_of(peering, 'ix-syd:')}: IX ix-syd lists no route server and no "
        "peer: its 2 port(s) are rendered on the peering LAN, and no BGP session runs over "
        "them; add its route servers (route_servers:) or bilateral peers (peers:), or remove "
        "the IX"
    ]
