"""EDGE-*: boundary cases just inside and just outside each limit, and the cases that killed
surviving mutants (docs/mutation.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.validators.engine import all_rules

from meetme.core.problems import IntentError

DEVICES = "intent/aus1/devices.yaml"
CLOUDS = "intent/aus1/clouds.yaml"


# EDGE-002: the prefix-limit warning threshold is 75-90 % (validators/data/providers.yaml)

PEERING = "intent/aus1/peering.yaml"


@pytest.mark.parametrize("pct", [75, 90])
def test_edge002_threshold_at_either_end_of_the_range_passes(example: Path, pct: int) -> None:
    replace_in(example / PEERING, "max_prefix_warning_pct: 80", f"max_prefix_warning_pct: {pct}")
    assert findings_of(lint_repo(example), "EDGE-002") == []


@pytest.mark.parametrize(
    ("pct", "why"),
    [
        (74, "warns on every normal growth of a peer"),
        (91, "leaves no time to act before the session is torn down"),
    ],
)
def test_edge002_threshold_just_outside_the_range(example: Path, pct: int, why: str) -> None:
    peering = example / PEERING
    replace_in(peering, "max_prefix_warning_pct: 80", f"max_prefix_warning_pct: {pct}")
    assert findings_of(lint_repo(example), "EDGE-002") == [
        f"{PEERING}:{line_of(peering, 'max_prefix_warning_pct')}: max_prefix_warning_pct {pct} "
        f"{why}; choose a value from 75 to 90"
    ]


# EDGE-007: at least two RPKI caches


def test_edge007_one_cache_is_not_enough(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "          - {address: 10.9.0.12, port: 3323}\n", "")
    assert findings_of(lint_repo(example), "EDGE-007") == [
        f"{PEERING}:{line_of(peering, 'rpki_caches:')}: the Internet sessions validate route "
        "origins against 1 RPKI cache(s) (only 10.9.0.11); list at least 2 independent RTR "
        "caches in rpki_caches"
    ]


def test_the_same_cache_address_twice_is_unusable(example: Path) -> None:
    """Routers key a cache by its address (IOS-XR `rpki server A`, EOS's name from it): a
    second port at one address would silently replace the first entry's."""
    peering = example / PEERING
    replace_in(peering, "{address: 10.9.0.12, port: 3323}", "{address: 10.9.0.11, port: 3324}")
    assert _problems(example) == [
        f"{PEERING}:{line_of(peering, '10.9.0.11, port: 3323')}: "
        "sites.aus1.peering.edge.rpki_caches: rpki_caches lists 10.9.0.11 twice (ports 3323 "
        "and 3324): routers key an RTR cache by its address, so one entry would replace the "
        "other; give each cache its own address"
    ]


def test_two_caches_at_two_addresses_on_one_port_are_two(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "{address: 10.9.0.12, port: 3323}", "{address: 10.9.0.13, port: 3323}")
    assert findings_of(lint_repo(example), "EDGE-007") == []


# EDGE-002 and EDGE-007 judge the Internet edge only where there is one


def test_edge002_and_edge007_are_silent_without_external_sessions(example: Path) -> None:
    """A site with edge settings but no session: neither threshold nor caches matter yet."""
    peering = example / PEERING
    text = peering.read_text()
    text = text[: text.index("      ixes:")]  # keep only the edge settings
    text = text.replace("max_prefix_warning_pct: 80", "max_prefix_warning_pct: 95")
    peering.write_text(text.replace("          - {address: 10.9.0.12, port: 3323}\n", ""))
    (example / CLOUDS).unlink()
    result = lint_repo(example)
    assert findings_of(result, "EDGE-002") == []
    assert findings_of(result, "EDGE-007") == []


# EDGE-009 names at most three devices that run the ASN


def test_edge009_names_exactly_three_devices_without_more(example: Path) -> None:
    devices = example / DEVICES
    for address in ("192.168.10.103/24", "192.168.10.104/24"):
        replace_in(
            devices, f"management: {address}\n", f"management: {address}\n        asn: 4200000101\n"
        )
    clouds = example / CLOUDS
    replace_in(clouds, "cloud_router_asn: 16550", "cloud_router_asn: 4200000101")
    assert findings_of(lint_repo(example), "EDGE-009") == [
        f"{CLOUDS}:{line_of(clouds, 'cloud_router_asn')}: Google gcp-ic Cloud Router has ASN "
        "4200000101, which aus1-lf1, aus1-lf3, aus1-lf4 already runs here: the session would "
        "be iBGP or drop every route as a loop; write the peer's own ASN"
    ]


# EDGE-008: network and broadcast addresses are unusable on a /30 or wider, usable on a /31

EDGE008_TAIL = "the session would never come up: correct the peer or our address"


@pytest.mark.parametrize(
    ("ours", "peer", "problem"),
    [
        ("192.0.2.1/30", "192.0.2.0", "is the network or broadcast address of 192.0.2.0/30"),
        ("192.0.2.1/30", "192.0.2.3", "is the network or broadcast address of 192.0.2.0/30"),
        ("192.0.2.1/30", "192.0.2.2", None),
        ("192.0.2.1/31", "192.0.2.0", None),  # RFC 3021: both addresses of a /31 are hosts
        ("192.0.2.1/31", "192.0.2.1", "is our own address"),
    ],
)
def test_edge008_peer_address_on_a_30_and_a_31(
    example: Path, ours: str, peer: str, problem: str | None
) -> None:
    peering = example / PEERING
    replace_in(
        peering, "ipv4: 192.0.2.1/31, peer_ipv4: 192.0.2.0,", f"ipv4: {ours}, peer_ipv4: {peer},"
    )
    expected = [
        f"{PEERING}:{line_of(peering, 'XC-TA-1')}: transit transit-a peer {peer} {problem} "
        f"({ours} on aus1-br1 HundredGigE0/0/0/20); {EDGE008_TAIL}"
    ]
    assert findings_of(lint_repo(example), "EDGE-008") == (expected if problem else [])


def test_edge008_ix_peer_finding_is_on_the_neighbor_not_the_port(example: Path) -> None:
    """A peer on the IX's LAN (203.0.113.0/24) but off our port's /25."""
    peering = example / PEERING
    replace_in(peering, "ipv4: 203.0.113.10/24", "ipv4: 203.0.113.10/25")
    replace_in(peering, "ipv4: [203.0.113.60]", "ipv4: [203.0.113.160]")
    assert findings_of(lint_repo(example), "EDGE-008") == [
        f"{PEERING}:{line_of(peering, 'eyeball-b:')}: IX peer ix-syd/eyeball-b peer "
        "203.0.113.160 is not on our subnet 203.0.113.0/25 (203.0.113.10/25 on aus1-br1 "
        f"FourHundredGigE0/0/0/23); {EDGE008_TAIL}"
    ]


def test_an_ix_peer_off_the_peering_lan_is_edge015s_alone(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "ipv4: [203.0.113.60]", "ipv4: [198.51.100.60]")
    result = lint_repo(example)
    assert findings_of(result, "EDGE-008") == []
    assert findings_of(result, "EDGE-015") == [
        f"{PEERING}:{line_of(peering, 'eyeball-b:')}: IX ix-syd peer eyeball-b's address "
        "198.51.100.60 is outside the IX's peering LAN (lan_v4 203.0.113.0/24): it is on no "
        "port of ours, so its sessions never come up; give it an address inside 203.0.113.0/24"
    ]


# EDGE-005: an Azure peering's finding is on the peering, whose links share its export list


def test_edge005_azure_peering_that_advertises_nothing(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(clouds, "advertise: [10.60.0.0/16]\n", "advertise: []\n")
    assert findings_of(lint_repo(example), "EDGE-005") == [
        f"{CLOUDS}:{line_of(clouds, '            private:')}: Azure peering er-syd/private "
        "advertises nothing: the export policy permits no route, so the cloud learns no path "
        "back to us; list our prefixes for it in advertise"
    ]


# EDGE-001 on a party with a single session (one circuit, one family)


def test_edge001_single_circuit_transit_without_ipv4_limit(example: Path) -> None:
    peering = example / PEERING
    replace_in(
        peering,
        "            - {circuit: XC-TB-2, ipv4: 192.0.2.11/31, peer_ipv4: 192.0.2.10, "
        'ipv6: "2001:db8:b::3/127", peer_ipv6: "2001:db8:b::2"}\n',
        "",
    )
    replace_in(
        peering,
        "accept_default: true\n          max_prefix_v4: 1500000\n",
        "accept_default: true\n",
        count=1,
    )
    assert findings_of(lint_repo(example), "EDGE-001") == [
        f"{PEERING}:{line_of(peering, 'transit-b:')}: transit transit-b has IPv4 sessions "
        "(192.0.2.8 on aus1-br1) but no max_prefix_v4: a leak from it would be accepted "
        "without limit; set max_prefix_v4 to the full Internet table of that family plus "
        "20-50 % headroom"
    ]


def test_edge_rule_titles_quote_the_limits() -> None:
    rules = {r.id: r for r in all_rules()}
    assert rules["EDGE-002"].title == "The prefix-limit warning threshold is between 75 and 90 %"
    assert rules["EDGE-007"].title == (
        "Routers validate route origins against at least 2 RPKI caches"
    )


# IPv6 runs on a session only with both its addresses, and on an IX with its LAN and an address
# on every port: with one missing the port had an address and no session, and nothing said so
# (docs/notes hunt-ipv6: the IPv6 IX-LAN import filter vanished, EDGE-012 counted a circuit
# with no IPv6 session as an IPv6 default source).

MEL_PEERING = "intent/mel1/peering.yaml"


def _problems(repo: Path) -> list[str]:
    with pytest.raises(IntentError) as caught:
        lint_repo(repo)
    return [f"{p.location.file}:{p.location.line}: {p.message}" for p in caught.value.problems]


@pytest.mark.parametrize("drop", ["peer_ipv6", "ipv6"])
def test_a_transit_circuit_with_one_ipv6_address_is_unusable(example: Path, drop: str) -> None:
    peering = example / PEERING
    if drop == "peer_ipv6":
        replace_in(peering, ', peer_ipv6: "2001:db8:a::2"', "")
        given = "ipv6"
    else:
        replace_in(peering, ', ipv6: "2001:db8:a::3/127"', "")
        given = "peer_ipv6"
    assert _problems(example) == [
        f"{PEERING}:{line_of(peering, 'XC-TA-2')}: sites.aus1.peering.transits.transit-a."
        f"circuits.1: {given} is given without {drop}: an IPv6 session needs both addresses; "
        f"give {drop}, or neither for an IPv4-only session"
    ]


def test_a_transit_circuit_without_ipv6_at_all_is_ipv4_only(example: Path) -> None:
    """Neither address: an IPv4-only circuit, usable; transit-b still brings the IPv6 default
    to both borders, so nothing is refused."""
    replace_in(example / PEERING, ', ipv6: "2001:db8:a::3/127", peer_ipv6: "2001:db8:a::2"', "")
    assert lint_repo(example).errors == []


def test_an_ix_with_ipv6_neighbours_needs_its_ipv6_lan(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, "          lan_v6: 2001:db8:ff00::/64\n", "")
    assert _problems(example) == [
        # at the IX's first line, where its mapping starts
        f"{PEERING}:{line_of(peering, 'lan_v4:')}: sites.aus1.peering.ixes.ix-syd: route "
        "servers or peers have IPv6 addresses but the IX has no lan_v6: the IPv6 imports could "
        "not drop routes to the peering LAN; give lan_v6"
    ]


def test_an_ix_port_without_ipv6_beside_ipv6_neighbours_is_unusable(example: Path) -> None:
    peering = example / MEL_PEERING
    replace_in(peering, ', ipv6: "2001:db8:ff01::141/64"', "")
    assert _problems(example) == [
        f"{MEL_PEERING}:{line_of(peering, 'lan_v4:')}: sites.mel1.peering.ixes.ix-mel: port(s) "
        "XC-MEL-IX-2 have no ipv6 though route servers or peers have IPv6 addresses: those "
        "ports would carry no IPv6 session; give each port its ipv6 on lan_v6"
    ]


def test_a_cloud_session_with_one_ipv6_address_is_unusable(example: Path) -> None:
    clouds = example / CLOUDS
    replace_in(
        clouds, "ipv4: 169.254.10.1/30,", 'ipv4: 169.254.10.1/30, ipv6: "2001:db8:c::1/126",'
    )
    assert _problems(example) == [
        f"{CLOUDS}:{line_of(clouds, 'private-1:')}: sites.aus1.peering.aws.aws-syd.vifs.private-1: "
        "ipv6 is given without peer_ipv6: an IPv6 session needs both addresses; give "
        "peer_ipv6, or neither for an IPv4-only session"
    ]


@pytest.mark.parametrize(("ours", "found"), [("192.0.2.0/30", True), ("192.0.2.0/31", False)])
def test_edge008_our_transit_address_on_a_30_and_a_31(
    example: Path, ours: str, found: bool
) -> None:
    """RFC 3021: the first address of a /31 is a host; of a /30, the network address."""
    peering = example / PEERING
    replace_in(
        peering, "ipv4: 192.0.2.1/31, peer_ipv4: 192.0.2.0,", f"ipv4: {ours}, peer_ipv4: 192.0.2.1,"
    )
    expected = [
        f"{PEERING}:{line_of(peering, 'XC-TA-1')}: our address 192.0.2.0/30 on aus1-br1 "
        "HundredGigE0/0/0/20 (transit transit-a XC-TA-1) is the network address of "
        "192.0.2.0/30, no host's: the session over it would never come up; use a host address "
        "of the subnet, e.g. 192.0.2.2/30"
    ]
    assert findings_of(lint_repo(example), "EDGE-008") == (expected if found else [])


# An IX neighbour with no address: one session per address, so none at all (refused at load)

RS1_ADDRESSES = 'ipv4: [203.0.113.1], ipv6: ["2001:db8:ff00::1"]'
NO_ADDRESS = (
    "ipv4 and ipv6 are both empty: no session would be rendered to this neighbour, silently; "
    "list its address on the peering LAN, e.g. ipv4: [203.0.113.1], or remove the neighbour"
)


@pytest.mark.parametrize(
    ("addresses", "refused"),
    [
        ("ipv4: [], ipv6: []", True),
        ("ipv4: []", True),  # ipv6 left out: empty too
        ("", True),  # both left out
        ("ipv4: [203.0.113.1], ipv6: []", False),  # one address is one session
        ('ipv4: [], ipv6: ["2001:db8:ff00::1"]', False),
    ],
)
def test_an_ix_route_server_with_no_address_is_refused_at_it(
    example: Path, addresses: str, refused: bool
) -> None:
    """Was clean (exit 0): the route server was rendered as no session at all, silently."""
    peering = example / PEERING
    replace_in(
        peering,
        f"rs1: {{asn: 64504, {RS1_ADDRESSES}, ",
        f"rs1: {{asn: 64504, {addresses}, " if addresses else "rs1: {asn: 64504, ",
    )
    if not refused:
        lint_repo(example)  # loads: the rules read it
        return
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    (only,) = caught.value.problems
    line = line_of(peering, "rs1: {")
    column = peering.read_text().splitlines()[line - 1].index("{asn: 64504") + 1
    assert (only.location.file, only.location.line, only.location.column, only.kind) == (
        PEERING,
        line,
        column,
        "bad-value",
    )
    assert only.message == f"sites.aus1.peering.ixes.ix-syd.route_servers.rs1: {NO_ADDRESS}"


def test_an_ix_peer_with_no_address_is_refused_at_it(example: Path) -> None:
    peering = example / PEERING
    replace_in(peering, 'ipv4: [203.0.113.60], ipv6: ["2001:db8:ff00::60"]', "ipv4: [], ipv6: []")
    with pytest.raises(IntentError) as caught:
        lint_repo(example)
    (only,) = caught.value.problems
    assert (only.location.line, only.kind) == (line_of(peering, "eyeball-b:"), "bad-value")
    assert only.message == f"sites.aus1.peering.ixes.ix-syd.peers.eyeball-b: {NO_ADDRESS}"
