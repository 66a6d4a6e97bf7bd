"""ADDR-001..009: each rule passes on the example and fails on one realistic edit."""

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, mel1_borders_to_iosxr, replace_in

from meetme.pipeline import LintResult

ADDR_RULES = tuple(f"ADDR-00{n}" for n in range(1, 10))

LF1_LF2_LINK = """\
      - a: {device: aus1-lf1, interface: swp40}
        b: {device: aus1-lf2, interface: swp40}
        index: 10
        speed: 400G
        %s
"""


def add_to_device(repo: Path, management: str, line: str) -> Path:
    """Add `line` to the device whose management address is `management`."""
    devices = repo / "intent/aus1/devices.yaml"
    replace_in(
        devices, f"management: {management}\n", f"management: {management}\n        {line}\n"
    )
    return devices


def add_leaf_link(repo: Path, extra: str) -> Path:
    links = repo / "intent/aus1/links.yaml"
    links.write_text(links.read_text() + LF1_LF2_LINK % extra)
    return links


def test_example_has_no_addr_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in ADDR_RULES] == []


def test_addr001_vtep_copied_from_another_leaf(example: Path) -> None:
    devices = add_to_device(example, "192.168.10.102/24", "vtep_v4: 10.0.1.101/32")
    result = lint_repo(example)
    line = line_of(devices, "vtep_v4: 10.0.1.101/32")
    assert findings_of(result, "ADDR-001") == [
        f"intent/aus1/devices.yaml:{line}: aus1-lf2 vtep_v4 10.0.1.101/32 is also aus1-lf1's "
        "vtep_v4; give it an address of its own"
    ]
    assert result.errors


def test_addr001_loopback_with_subnet_length(example: Path) -> None:
    devices = add_to_device(example, "192.168.10.102/24", "loopback_v6: 2001:db8:0:ff::66/64")
    result = lint_repo(example)
    line = line_of(devices, "loopback_v6: 2001:db8:0:ff::66/64")
    assert findings_of(result, "ADDR-001") == [
        f"intent/aus1/devices.yaml:{line}: aus1-lf2 loopback_v6 2001:db8:0:ff::66/64 is not a "
        "host address; write it as 2001:db8:0:ff::66/128"
    ]
    assert result.errors


def test_addr002_router_id_of_the_other_border(example: Path) -> None:
    devices = add_to_device(example, "192.168.10.12/24", "loopback_v4: 10.0.0.1/32")
    result = lint_repo(example)
    line = line_of(devices, "loopback_v4: 10.0.0.1/32")
    assert findings_of(result, "ADDR-002") == [
        f"intent/aus1/devices.yaml:{line}: router id 10.0.0.1 of aus1-br2 is already "
        "aus1-br1's; give aus1-br2 another loopback_v4"
    ]
    assert findings_of(result, "ADDR-001") == []  # one collision, one finding
    assert result.errors


def test_addr003_leaf_peer_link_with_a_30(example: Path) -> None:
    links = add_leaf_link(example, "ipv4: 10.9.0.0/30")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-003") == [
        f"intent/aus1/links.yaml:{line_of(links, 'ipv4: 10.9.0.0/30')}: link aus1-lf1 swp40 - "
        "aus1-lf2 swp40 (link #2) uses 10.9.0.0/30; internal point-to-point links use /31 "
        "unless the other side mandates a wider subnet"
    ]
    assert result.errors == []


def test_addr004_leaf_peer_link_with_a_126(example: Path) -> None:
    links = add_leaf_link(example, "ipv6: 2001:db8:0:2000::/126")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-004") == [
        f"intent/aus1/links.yaml:{line_of(links, 'ipv6: 2001:db8:0:2000::/126')}: link "
        "aus1-lf1 swp40 - aus1-lf2 swp40 (link #2) uses 2001:db8:0:2000::/126; internal "
        "point-to-point links use /127 unless the other side mandates a wider subnet"
    ]
    assert result.errors == []


def test_addr005_explicit_link_reuses_an_index(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    links.write_text(
        links.read_text()
        + """\
      - a: {device: aus1-sp1, interface: Ethernet5/1}
        b: {device: aus1-br1, interface: FourHundredGigE0/0/0/30}
        index: 0
        speed: 400G
"""
    )
    result = lint_repo(example)
    line = line_of(links, "        index: 0")
    link = "aus1-sp1 Ethernet5/1 - aus1-br1 FourHundredGigE0/0/0/30 (link #2)"
    rule = "aus1-sp1 Ethernet1/1 - aus1-br1 FourHundredGigE0/0/0/0 (rule spine-to-border)"
    # one index, one fault: its /31 and /127 in one finding (they were two, one per family)
    subnets = "10.1.11.0/31 and 2001:db8:0:1000::b00/127"
    assert findings_of(result, "ADDR-005") == [
        f"intent/aus1/links.yaml:{line}: p2p {subnets} of {link} overlap p2p {subnets} of "
        f"{rule}; give one of them free prefixes",
    ]
    assert result.errors


def test_addr005_vtep_pool_widened_over_loopbacks(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "vtep_v4: 10.0.1.0/24", "vtep_v4: 10.0.0.0/23")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-005") == [
        f"intent/aus1/site.yaml:{line_of(site, 'vtep_v4: 10.0.0.0/23')}: pool vtep_v4 "
        "10.0.0.0/23 overlaps pool loopback_v4 10.0.0.0/24; pools must be disjoint"
    ]
    assert result.errors


def test_addr006_spine_asn_typo_is_public(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "spine: 4200009000", "spine: 42000")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-006") == [
        f"intent/aus1/site.yaml:{line_of(site, 'spine: 42000')}: aus1-sp1, aus1-sp2, aus1-sp3, "
        "aus1-sp4 (ASN 42000): not a private ASN; internal ASNs must be private (64512-65534 "
        "or 4200000000-4294967294)"
    ]
    assert result.errors


def test_addr007_leaf_given_as_trans(example: Path) -> None:
    devices = add_to_device(example, "192.168.10.101/24", "asn: 23456")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-007") == [
        f"intent/aus1/devices.yaml:{line_of(devices, 'asn: 23456')}: aus1-lf1 (ASN 23456): "
        "a reserved ASN (AS_TRANS, RFC 6793) that is never configured; use a private ASN "
        "(64512-65534 or 4200000000-4294967294) inside, your public ASN at the border"
    ]
    assert findings_of(result, "ADDR-006") == []  # reserved, not merely public
    assert result.errors


def test_addr007_organisation_asn_reserved(example: Path) -> None:
    organisation = example / "intent/organisation.yaml"
    replace_in(organisation, "asn: 64500", "asn: 65535")
    result = lint_repo(example)
    assert [hit.split(": ")[0] for hit in findings_of(result, "ADDR-007")] == [
        f"intent/organisation.yaml:{line_of(organisation, 'asn: 65535')}"
    ]


def test_addr008_organisation_asn_private(example: Path) -> None:
    organisation = example / "intent/organisation.yaml"
    replace_in(organisation, "asn: 64500", "asn: 65001")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-008") == [
        f"intent/organisation.yaml:{line_of(organisation, 'asn: 65001')}: organisation "
        "example-ai ASN 65001 is private (64512-65534 or 4200000000-4294967294); originate "
        "from the public ASN assigned to you"
    ]
    assert result.errors


def test_addr009_example_declared_production(example: Path) -> None:
    site = example / "intent/aus1/site.yaml"
    organisation = example / "intent/organisation.yaml"
    replace_in(site, "environment: lab", "environment: production")
    result = lint_repo(example)
    hits = findings_of(result, "ADDR-009")
    where = [hit.split(": ")[0] for hit in hits]
    peering = example / "intent/aus1/peering.yaml"
    assert {
        f"intent/aus1/peering.yaml:{line_of(peering, 'lan_v4: 203.0.113.0/24')}",
        f"intent/aus1/peering.yaml:{line_of(peering, 'asn: 64501')}",
    } <= set(where), "documentation space in the peering intent is flagged too"
    assert {
        f"intent/aus1/site.yaml:{line_of(site, 'loopback_v6:')}",
        f"intent/aus1/site.yaml:{line_of(site, 'p2p_v6:')}",
        f"intent/organisation.yaml:{line_of(organisation, 'asn: 64500')}",
        f"intent/organisation.yaml:{line_of(organisation, '198.51.100.0/24')}",
        f"intent/organisation.yaml:{line_of(organisation, '2001:db8:4000::/36')}",
    } <= set(where)
    assert (
        f"intent/organisation.yaml:{line_of(organisation, '198.51.100.0/24')}: "
        "198.51.100.0/24 is in documentation range 198.51.100.0/24 (TEST-NET-2, RFC 5737); "
        "production configs must not use it: use your own address space"
    ) in hits
    assert result.errors


PEERING = "intent/aus1/peering.yaml"
CLOUDS = "intent/aus1/clouds.yaml"


def test_addr007_transit_asn_zero(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "asn: 64501", "asn: 0")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-007") == [
        f"{PEERING}:{line_of(peering, 'asn: 0')}: transit transit-a has ASN 0, a reserved ASN "
        "(reserved, RFC 7607) that no network uses: the session would never establish; write "
        "the peer's real ASN"
    ]
    assert result.errors


@pytest.mark.parametrize(
    ("old", "asn", "reserved"),
    [
        ("asn: 64505", 23456, True),  # IX peer content-a: AS_TRANS
        ("asn: 64505", 23455, False),
        ("asn: 64503", 65535, True),  # PNI pni-cdn
        ("asn: 64503", 65534, False),  # private: not reserved
        ("asn: 64503", 65551, False),  # documentation: ADDR-009's
        ("asn: 64503", 65552, True),
        ("asn: 64503", 131071, True),
        ("asn: 64503", 131072, False),
        ("amazon_asn: 64512", 4294967295, True),  # AWS
        ("amazon_asn: 64512", 4294967294, False),
    ],
)
def test_addr007_peer_asn_limits(example: Path, old: str, asn: int, reserved: bool) -> None:
    path = example / (CLOUDS if "amazon" in old else PEERING)
    replace_in(path, old, f"{old.split(':')[0]}: {asn}")
    hits = findings_of(lint_repo(example), "ADDR-007")
    assert len(hits) == (1 if reserved else 0), hits
    if reserved:
        assert f"has ASN {asn}, a reserved ASN" in hits[0]


def test_addr007_leaves_google_cloud_router_to_gcp001(example: Path) -> None:
    replace_in(example / CLOUDS, "cloud_router_asn: 16550", "cloud_router_asn: 0")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-007") == []
    assert len(findings_of(result, "GCP-001")) == 1


@pytest.mark.parametrize(("asn", "documentation"), [(64495, False), (64496, True), (64511, True)])
def test_addr009_peer_documentation_asn_limits_in_production(
    example: Path, asn: int, documentation: bool
) -> None:
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: production")
    peering = example / PEERING
    replace_in(peering, "asn: 64503", f"asn: {asn}")  # pni-cdn
    where = f"{PEERING}:{line_of(peering, f'asn: {asn}')}"
    hits = [h for h in findings_of(lint_repo(example), "ADDR-009") if h.startswith(where + ":")]
    assert len(hits) == (1 if documentation else 0), hits


# --- ADDR-014: loopbacks unique across sites ------------------------------------------------

MEL1_SITE = "intent/mel1/site.yaml"


def test_addr014_a_site_drawing_loopbacks_from_another_sites_pool(example: Path) -> None:
    """mel1 given aus1's IPv4 loopback pool: device id 1 of each site (aus1-br1, mel1-br1)
    draws 10.0.0.1, and so on for every id both sites use; each at the mel1 device (a device
    drawn from a pool is reported where ADDR-001 reports it)."""
    replace_in(example / MEL1_SITE, "loopback_v4: 10.2.0.0/24", "loopback_v4: 10.0.0.0/24")
    result = lint_repo(example)
    found = findings_of(result, "ADDR-014")
    devices = example / "intent/mel1/devices.yaml"
    assert (
        f"intent/mel1/devices.yaml:{line_of(devices, 'mel1-br1:')}: mel1-br1 loopback_v4 "
        "10.0.0.1/32 is also site aus1's aus1-br1 loopback_v4: the sites route to each other; "
        "give it an address of its own"
    ) in found
    assert all(hit.startswith("intent/mel1/devices.yaml:") for hit in found)
    assert result.errors


def test_addr014_a_pool_of_its_own_is_fine(example: Path) -> None:
    replace_in(example / MEL1_SITE, "loopback_v4: 10.2.0.0/24", "loopback_v4: 10.0.9.0/24")
    assert findings_of(lint_repo(example), "ADDR-014") == []


# --- ADDR-006: a device ASN counted past the last ASN ---------------------------------------


def test_addr006_leaf_asns_counted_past_the_last_asn(example: Path) -> None:
    """Leaves take base + device id; the highest id of aus1 is 106 (aus1-lf6): base
    4294967190 makes it 4294967296, one past the last four-octet ASN."""
    site = example / "intent/aus1/site.yaml"
    replace_in(site, "base: 4200000000 ", "base: 4294967190 ")
    assert findings_of(lint_repo(example), "ADDR-006") == [
        f"intent/aus1/site.yaml:{line_of(site, 'base: 4294967190')}: aus1-lf6 (ASN "
        "4294967296): not an ASN; ASNs end at 4294967295 (RFC 6793), so lower the base the "
        "device ASNs are counted from"
    ]


def test_addr006_leaf_asns_up_to_the_last_private_asn_are_fine(example: Path) -> None:
    """base 4294967188: aus1-lf6 takes 4294967294, the last private ASN (RFC 6996)."""
    replace_in(example / "intent/aus1/site.yaml", "base: 4200000000 ", "base: 4294967188 ")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-006") == []
    assert findings_of(result, "ADDR-007") == []


# ADDR-020: a border runs the organisation's ASN (64500 in the example)

AUS1_BR1_PARTIES = "ix-syd/content-a, ix-syd/eyeball-b, ix-syd/rs1, ix-syd/rs2 and 3 more"
MEL1_PARTIES = "ix-mel/rs1, ix-mel/rs2, transit-c, transit-d"
ADDR020_PAIR = (
    "the links to aus1-br2 carry the underlay instead of the border pair's iBGP, so the pair "
    "no longer shares its Internet table"
)
ADDR020_SRV6 = (
    "the other sites' borders peer with it for the SRv6 VPN in eBGP between loopbacks, with no "
    "multihop and no policy, so no VPN route crosses"
)


def _addr020(border: str, asn: int, parties: str, *broken: str) -> str:
    return "; ".join(
        (
            f"border {border} has ASN {asn}, not the organisation's ASN 64500: its sessions to "
            f"{parties} would open from {asn} while the parties expect 64500, so they never "
            "establish",
            *broken,
            "remove its asn: line",
        )
    )


def _placed(result: LintResult, rule_id: str) -> list[tuple[str, int, int, str]]:
    return [
        (f.location.file, f.location.line, f.location.column, f.message)
        for f in result.findings
        if f.rule == rule_id
    ]


def test_addr020_a_border_with_a_private_asn_of_its_own(example: Path) -> None:
    """aus1-br1 given a private ASN: ADDR-006 has nothing to say, and before ADDR-020 the lint
    was clean while aus1-br1 rendered its transit and IX sessions from 4200100001 and its links
    to aus1-br2 as underlay sessions (loopbacks only) instead of the pair's iBGP."""
    devices = add_to_device(example, "192.168.10.11/24", "asn: 4200100001")
    result = lint_repo(example)
    assert _placed(result, "ADDR-020") == [
        (
            "intent/aus1/devices.yaml",
            line_of(devices, "asn: 4200100001"),
            9,
            _addr020("aus1-br1", 4200100001, AUS1_BR1_PARTIES, ADDR020_PAIR),
        )
    ]
    assert [f.rule for f in result.findings if f.severity == "error"] == ["ADDR-020"]


@pytest.mark.parametrize(("asn", "found"), [(64499, True), (64500, False), (64501, True)])
def test_addr020_a_shared_border_asn_is_reported_as_ignored(
    example: Path, asn: int, found: bool
) -> None:
    """`asn.shared: {border: N}` linted clean while every border still rendered `router bgp
    64500` and N appeared in no config; the organisation's own ASN there changes nothing."""
    site = example / "intent/aus1/site.yaml"
    replace_in(
        site, "        spine: 4200009000 ", f"        border: {asn}\n        spine: 4200009000 "
    )
    expected = [
        (
            "intent/aus1/site.yaml",
            line_of(site, f"border: {asn}"),
            9,
            f"asn.shared gives site aus1's borders ASN {asn}, but a border always runs the "
            "organisation's ASN 64500, which its Internet, pair and inter-site sessions expect: "
            "the value is ignored, and no config holds it; remove `border` from asn.shared",
        )
    ]
    assert _placed(lint_repo(example), "ADDR-020") == (expected if found else [])


@pytest.mark.parametrize(("asn", "found"), [(64499, True), (64500, False), (64501, True)])
def test_addr020_only_the_organisation_asn_may_be_written_on_a_border(
    example: Path, asn: int, found: bool
) -> None:
    """Writing the organisation's own ASN on a border changes nothing rendered; one either side
    of it (public, so ADDR-006 once told the user to make it private) is ADDR-020's alone."""
    devices = add_to_device(example, "192.168.10.11/24", f"asn: {asn}")
    result = lint_repo(example)
    expected = [
        f"intent/aus1/devices.yaml:{line_of(devices, f'asn: {asn}')}: "
        + _addr020("aus1-br1", asn, AUS1_BR1_PARTIES, ADDR020_PAIR)
    ]
    assert findings_of(result, "ADDR-020") == (expected if found else [])
    assert findings_of(result, "ADDR-006") == []


@pytest.mark.parametrize("asn", [0, 23456, 65535, 4294967295])
def test_addr020_a_reserved_asn_on_a_border_is_reported_once(example: Path, asn: int) -> None:
    """A reserved number on a border's asn: line is one fault, the line itself: ADDR-020 says
    so and what it breaks; ADDR-007 said it again at the same line, telling the user to pick
    "your public ASN at the border", which is what removing the line gives."""
    devices = add_to_device(example, "192.168.10.11/24", f"asn: {asn}")
    result = lint_repo(example)
    assert [(f.rule, f.location.line) for f in result.errors] == [
        ("ADDR-020", line_of(devices, f"asn: {asn}"))
    ]


def test_addr020_a_documentation_asn_on_a_border_in_production_is_reported_once(
    example: Path,
) -> None:
    """In production a documentation ASN on a border's asn: line was ADDR-009's as well as
    ADDR-020's, at the same line: one fault, ADDR-020's."""
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: production")
    devices = add_to_device(example, "192.168.10.11/24", "asn: 64499")
    line = line_of(devices, "asn: 64499")
    result = lint_repo(example)
    assert [
        f.rule
        for f in result.findings
        if (f.location.file, f.location.line) == ("intent/aus1/devices.yaml", line)
    ] == ["ADDR-020"]


def test_addr007_a_reserved_organisation_asn_written_on_a_border_too_is_reported_once(
    example: Path,
) -> None:
    """The organisation's ASN reserved, and the same number written on aus1-br1: one number,
    reported at the organisation's line, where it is fixed (the border's line then is
    ADDR-020's unless it goes too)."""
    organisation = example / "intent/organisation.yaml"
    replace_in(organisation, "asn: 64500", "asn: 65535")
    add_to_device(example, "192.168.10.11/24", "asn: 65535")
    result = lint_repo(example)
    assert [hit.split(": ")[0] for hit in findings_of(result, "ADDR-007")] == [
        f"intent/organisation.yaml:{line_of(organisation, 'asn: 65535')}"
    ]
    assert findings_of(result, "ADDR-020") == []


def test_addr020_a_leaf_may_override_its_asn(example: Path) -> None:
    add_to_device(example, "192.168.10.101/24", "asn: 4200000901")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-020") == []
    assert not result.errors


def test_addr020_both_borders_of_a_site_in_the_srv6_vpn(example: Path) -> None:
    """mel1's borders on IOS-XR, storage riding SRv6 to aus1, both given one private ASN: the
    pair's iBGP survives (one ASN), but the VPN sessions to aus1's borders rendered as eBGP
    between loopbacks with no multihop and no route policy, and the Internet sessions from
    4200100001; the lint was clean. One finding per border, at its own asn: line."""
    mel1_borders_to_iosxr(example)
    devices = example / "intent/mel1/devices.yaml"
    for address in ("192.168.20.11/24", "192.168.20.12/24"):
        replace_in(
            devices, f"management: {address}\n", f"management: {address}\n        asn: 4200100001\n"
        )
    result = lint_repo(example)
    assert _placed(result, "ADDR-020") == [
        (
            "intent/mel1/devices.yaml",
            line_of(devices, "asn: 4200100001", occurrence),
            9,
            _addr020(border, 4200100001, MEL1_PARTIES, ADDR020_SRV6),
        )
        for occurrence, border in ((1, "mel1-br1"), (2, "mel1-br2"))
    ]
    assert [f.rule for f in result.findings if f.severity == "error"] == ["ADDR-020"] * 2


ORGANISATION = "intent/organisation.yaml"
ANNOUNCED = (
    "every border originates it (a discard route and a `network` statement) and announces it "
    "to every transit, IX and PNI"
)


def add_aggregates(repo: Path, *aggregates: str) -> Path:
    """Further organisation aggregates, after the example's two (each on a line of its own)."""
    organisation = repo / ORGANISATION
    last = "    - 2001:db8:4000::/36\n"
    replace_in(organisation, last, last + "".join(f"    - {a}\n" for a in aggregates))
    return organisation


def _at_aggregate(organisation: Path, aggregate: str) -> tuple[str, int, int]:
    return ORGANISATION, line_of(organisation, f"    - {aggregate}"), 7


def test_addr021_a_bogon_aggregate_and_its_public_neighbour(example: Path) -> None:
    """The user's site: 10.0.0.0/8 beside the example's aggregates linted clean, and the
    borders originated it and announced it to every transit, IX and PNI. 11.0.0.0/8, next to
    it, is public space. The example's own aggregates are documentation ranges, allowed in a
    lab (ADDR-009's concern): no finding."""
    assert _placed(lint_repo(example), "ADDR-021") == []
    organisation = add_aggregates(example, "10.0.0.0/8", "11.0.0.0/8")
    result = lint_repo(example)
    assert _placed(result, "ADDR-021") == [
        (
            *_at_aggregate(organisation, "10.0.0.0/8"),
            f"organisation aggregate 10.0.0.0/8 is the bogon range 10.0.0.0/8: {ANNOUNCED}, "
            "whose import filters drop bogons (ours too, docs/standards.md#edge-import), so it "
            "draws no traffic; move it to organisation.private_aggregates, which is never "
            "announced",
        )
    ]
    assert result.errors


def test_addr021_inside_or_holding_a_bogon_range(example: Path) -> None:
    """Inside private-use space (10.1.0.0/16, fd00::/8 in fc00::/7 although shorter than
    /16), inside shared space (100.64.0.0/16, no private-use hint), or holding a bogon
    (100.0.0.0/8 holds 100.64.0.0/10); 2a00::/16 is public and exactly the shortest length."""
    organisation = add_aggregates(
        example, "10.1.0.0/16", "fd00::/8", "100.64.0.0/16", "100.0.0.0/8", "2a00::/16"
    )
    found = {line: message for _, line, _, message in _placed(lint_repo(example), "ADDR-021")}
    lines = {a: _at_aggregate(organisation, a)[1] for a in ("10.1.0.0/16", "fd00::/8")}
    lines |= {a: _at_aggregate(organisation, a)[1] for a in ("100.64.0.0/16", "100.0.0.0/8")}
    assert sorted(found) == sorted(lines.values())
    private = "move it to organisation.private_aggregates"
    assert found[lines["10.1.0.0/16"]].startswith(
        "organisation aggregate 10.1.0.0/16 lies inside the bogon range 10.0.0.0/8: "
    )
    assert private in found[lines["10.1.0.0/16"]]
    assert found[lines["fd00::/8"]].startswith(
        "organisation aggregate fd00::/8 lies inside the bogon range fc00::/7: "
    )
    assert private in found[lines["fd00::/8"]]
    shared = found[lines["100.64.0.0/16"]]
    assert "lies inside the bogon range 100.64.0.0/10" in shared and private not in shared
    assert shared.endswith("list only public address blocks the organisation holds")
    assert found[lines["100.0.0.0/8"]] == (
        f"organisation aggregate 100.0.0.0/8 holds the bogon range 100.64.0.0/10: {ANNOUNCED}, "
        "claiming the bogon's addresses as ours (the parties' filters drop the bogon range "
        "itself, not an aggregate holding it); list only public address blocks the "
        "organisation holds, none of them holding a bogon range"
    )


def test_addr021_a_default_route_and_aggregates_shorter_than_the_global_table_carries(
    example: Path,
) -> None:
    """0.0.0.0/0 gave only a misleading FLOW-003 before; /7 and /15 are one bit shorter than
    the shortest the Internet's table carries (IPv4 /8, IPv6 /16), 12.0.0.0/8 and 2a00::/16
    (public) are exactly that long. What they swallow as our own space (the tenants' default
    route, FLOW-003; the PNI's 192.0.2.0/24, FLOW-009) is this finding's, not reported again."""
    organisation = add_aggregates(
        example, "0.0.0.0/0", "12.0.0.0/7", "12.0.0.0/8", "2000::/15", "2a00::/16"
    )
    result = lint_repo(example)
    assert _placed(result, "ADDR-021") == [
        (
            *_at_aggregate(organisation, "0.0.0.0/0"),
            f"organisation aggregate 0.0.0.0/0 is a default route: {ANNOUNCED}, which would "
            "draw the whole Internet's traffic to us, and every party's import filter drops "
            "it; list the address blocks the organisation holds, and take a default route "
            "from a transit (accept_default: true) where the tenants need one",
        ),
        *[
            (
                *_at_aggregate(organisation, short),
                f"organisation aggregate {short} is shorter than /{length}, the shortest prefix "
                f"the Internet's table carries (an RIR's largest allocation): {ANNOUNCED}, and "
                "every party's import filter drops it as a default route in disguise; list the "
                "address blocks the organisation holds instead",
            )
            for short, length in (("12.0.0.0/7", 8), ("2000::/15", 16))
        ],
    ]
    assert [f.rule for f in result.errors] == ["ADDR-021"] * 3


def test_addr021_leaves_documentation_ranges_to_addr009(example: Path) -> None:
    """The example's aggregates are documentation ranges (bogons in production): allowed in a
    lab, ADDR-009's error in production, never ADDR-021's; a real bogon beside them is
    ADDR-021's in either."""
    organisation = add_aggregates(example, "192.168.0.0/16")
    bogon = _at_aggregate(organisation, "192.168.0.0/16")
    assert [at[:3] for at in _placed(lint_repo(example), "ADDR-021")] == [bogon]
    replace_in(example / "intent/aus1/site.yaml", "environment: lab", "environment: production")
    result = lint_repo(example)
    assert [at[:3] for at in _placed(result, "ADDR-021")] == [bogon]
    assert [
        at[:3] for at in _placed(result, "ADDR-009") if at[0] == ORGANISATION and at[2] == 7
    ] == [_at_aggregate(organisation, a) for a in ("198.51.100.0/24", "2001:db8:4000::/36")]


def test_addr021_aggregates_longer_than_the_global_table_carries(example: Path) -> None:
    """/25 and /49 are one bit longer than the longest the Internet's table carries (IPv4 /24,
    IPv6 /48): every party's import filter drops them; 12.0.0.0/24 and 2a00::/48 are exactly
    that long."""
    organisation = add_aggregates(example, "12.0.0.0/24", "12.0.1.0/25", "2a00::/48", "2a00:1::/49")
    assert _placed(lint_repo(example), "ADDR-021") == [
        (
            *_at_aggregate(organisation, long),
            f"organisation aggregate {long} is longer than /{length}, the longest prefix the "
            "Internet's table carries: every border originates it (a discard route and a "
            "`network` statement) and announces it to every transit, IX and PNI, whose import "
            "filters drop it (ours too, docs/standards.md#edge-import), so it draws no "
            f"traffic; announce a block of /{length} or shorter that holds it",
        )
        for long, length in (("12.0.1.0/25", 24), ("2a00:1::/49", 48))
    ]
