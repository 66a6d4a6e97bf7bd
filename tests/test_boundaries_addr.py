"""ADDR-*: boundary cases and the cases that killed surviving mutants (docs/mutation.md)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from meetme.validators.rules.addr import _first_overlap

DEVICES = "intent/aus1/devices.yaml"


# ADDR-006: a border's ASN is not internal (ADDR-020 wants the organisation's); any other
# device's is, even the organisation's ASN

ADDR006_TAIL = (
    ": not a private ASN; internal ASNs must be private (64512-65534 or 4200000000-4294967294)"
)


def _give_asn(devices: Path, management: str, asn: int) -> int:
    replace_in(
        devices, f"management: {management}\n", f"management: {management}\n        asn: {asn}\n"
    )
    return line_of(devices, f"asn: {asn}")


def test_addr006_leaf_with_the_organisation_asn_is_not_exempt(example: Path) -> None:
    devices = example / DEVICES
    line = _give_asn(devices, "192.168.10.103/24", 64500)
    assert findings_of(lint_repo(example), "ADDR-006") == [
        f"{DEVICES}:{line}: aus1-lf3 (ASN 64500){ADDR006_TAIL}"
    ]


def test_addr006_leaves_a_border_with_another_asn_to_addr020(example: Path) -> None:
    """A border's ASN is not internal: ADDR-006 once told the user to make it private, which
    lints clean and breaks every session of the border; ADDR-020 wants the organisation's."""
    devices = example / DEVICES
    line = _give_asn(devices, "192.168.10.11/24", 64499)
    result = lint_repo(example)
    assert findings_of(result, "ADDR-006") == []
    assert [hit.split(": border ")[0] for hit in findings_of(result, "ADDR-020")] == [
        f"{DEVICES}:{line}"
    ]


def test_addr006_border_with_the_organisation_asn_written_out_is_exempt(example: Path) -> None:
    _give_asn(example / DEVICES, "192.168.10.11/24", 64500)
    assert findings_of(lint_repo(example), "ADDR-006") == []


# ADDR-006: the private ranges are 64512-65534 and 4200000000-4294967294 (RFC 6996)

SITE = "intent/aus1/site.yaml"
SPINES = "aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4"


@pytest.mark.parametrize(
    ("asn", "private"),
    [
        (64511, False),
        (64512, True),
        (65534, True),
        (4199999999, False),
        (4200000000, True),
        (4294967294, True),
    ],
)
def test_addr006_spine_asn_at_the_private_range_ends(
    example: Path, asn: int, private: bool
) -> None:
    site = example / SITE
    replace_in(site, "spine: 4200009000", f"spine: {asn}")
    expected = [f"{SITE}:{line_of(site, f'spine: {asn}')}: {SPINES} (ASN {asn}){ADDR006_TAIL}"]
    assert findings_of(lint_repo(example), "ADDR-006") == ([] if private else expected)


# ADDR-005: overlapping pools are reported once, on the pools; an allocation outside its own
# pool that lies in the other one is still reported


def test_addr005_override_outside_its_own_overlapping_pool(example: Path) -> None:
    site = example / SITE
    replace_in(site, "vtep_v4: 10.0.1.0/24 ", "vtep_v4: 10.0.0.128/25")
    devices = example / DEVICES
    replace_in(
        devices,
        "management: 192.168.10.103/24\n",
        "management: 192.168.10.103/24\n        vtep_v4: 10.0.0.5/32\n",
    )
    assert findings_of(lint_repo(example), "ADDR-005") == [
        f"{DEVICES}:{line_of(devices, 'vtep_v4: 10.0.0.5/32')}: aus1-lf3 vtep_v4 10.0.0.5/32 "
        "lies in pool loopback_v4 10.0.0.0/24; take it from outside that pool",
        f"{SITE}:{line_of(site, 'vtep_v4: 10.0.0.128/25')}: pool vtep_v4 10.0.0.128/25 overlaps "
        "pool loopback_v4 10.0.0.0/24; pools must be disjoint",
    ]


@pytest.mark.parametrize("vtep", ["10.0.0.128/32", "10.0.0.255/32"])
def test_addr005_override_at_either_end_of_its_own_overlapping_pool(
    example: Path, vtep: str
) -> None:
    """Inside its own pool (first and last address included): only the pools are reported."""
    site = example / SITE
    replace_in(site, "vtep_v4: 10.0.1.0/24 ", "vtep_v4: 10.0.0.128/25")
    replace_in(
        example / DEVICES,
        "management: 192.168.10.103/24\n",
        f"management: 192.168.10.103/24\n        vtep_v4: {vtep}\n",
    )
    assert findings_of(lint_repo(example), "ADDR-005") == [
        f"{SITE}:{line_of(site, 'vtep_v4: 10.0.0.128/25')}: pool vtep_v4 10.0.0.128/25 overlaps "
        "pool loopback_v4 10.0.0.0/24; pools must be disjoint",
    ]


def test_addr005_two_loopbacks_on_the_last_address_of_a_p2p_31(example: Path) -> None:
    """Both overlap the /31 (its last address included), not each other: one address on two
    loopbacks is ADDR-001/002's."""
    devices = example / DEVICES
    for address in ("192.168.10.103/24", "192.168.10.104/24"):
        replace_in(
            devices,
            f"management: {address}\n",
            f"management: {address}\n        loopback_v4: 10.1.11.1/32\n",
        )
    link = (
        "p2p 10.1.11.0/31 of aus1-sp1 Ethernet1/1 - aus1-br1 FourHundredGigE0/0/0/0 "
        "(rule spine-to-border)"
    )
    expected = []
    for number, leaf in ((1, "aus1-lf3"), (2, "aus1-lf4")):
        line = line_of(devices, "loopback_v4: 10.1.11.1/32", number)
        where = f"{DEVICES}:{line}: {leaf} loopback_v4 10.1.11.1/32"
        expected += [
            f"{where} lies in pool p2p_v4 10.1.0.0/16; take it from outside that pool",
            f"{where} overlaps {link}; give one of them a free prefix",
        ]
    assert findings_of(lint_repo(example), "ADDR-005") == expected


# ADDR-006 lists at most four devices of one scheme, then how many more


@pytest.mark.parametrize("overridden", [0, 7])
def test_addr006_public_base_lists_four_devices_and_the_rest(
    example: Path, overridden: int
) -> None:
    """The base scheme numbers the six border leaves (ids 21-26) and six leaves (101-106);
    `overridden` of them get their own private ASN, leaving 12 or 5 on the public base."""
    devices = example / DEVICES
    own = [("31", 21), ("32", 22), ("33", 23), ("34", 24), ("35", 25), ("36", 26), ("101", 101)]
    for host, device_id in own[:overridden]:
        address = f"192.168.10.{host}/24"
        replace_in(
            devices,
            f"management: {address}\n",
            f"management: {address}\n        asn: {4200000000 + device_id}\n",
        )
    site = example / SITE
    replace_in(site, "base: 4200000000 ", "base: 42000      ")
    public = [f"aus1-bl{n} (ASN {42020 + n})" for n in range(1, 7)]
    public += [f"aus1-lf{n} (ASN {42100 + n})" for n in range(1, 7)]
    shown = ", ".join(public[overridden : overridden + 4])
    more = 12 - overridden - 4
    assert findings_of(lint_repo(example), "ADDR-006") == [
        f"{SITE}:{line_of(site, 'base: 42000 ')}: {shown} and {more} more{ADDR006_TAIL}"
    ]


def test_addr005_override_straddling_its_own_pool_lies_only_in_the_other(example: Path) -> None:
    """A /23 VTEP around its /24 pool: it lies in the loopback pool, not "in" its own."""
    devices = example / DEVICES
    replace_in(
        devices,
        "management: 192.168.10.103/24\n",
        "management: 192.168.10.103/24\n        vtep_v4: 10.0.1.103/23\n",
    )
    hits = [h for h in findings_of(lint_repo(example), "ADDR-005") if "lies in pool" in h]
    assert hits == [
        f"{DEVICES}:{line_of(devices, 'vtep_v4: 10.0.1.103/23')}: aus1-lf3 vtep_v4 "
        "10.0.1.103/23 lies in pool loopback_v4 10.0.0.0/24; take it from outside that pool"
    ]


# ADDR-001 names the first device that holds the address


def test_addr001_third_copy_of_a_vtep_names_the_pool_owner(example: Path) -> None:
    devices = example / DEVICES
    for address in ("192.168.10.103/24", "192.168.10.104/24"):
        replace_in(
            devices,
            f"management: {address}\n",
            f"management: {address}\n        vtep_v4: 10.0.1.101/32\n",
        )
    assert findings_of(lint_repo(example), "ADDR-001") == [
        f"{DEVICES}:{line_of(devices, 'vtep_v4: 10.0.1.101/32', n)}: {leaf} vtep_v4 "
        "10.0.1.101/32 is also aus1-lf1's vtep_v4; give it an address of its own"
        for n, leaf in ((1, "aus1-lf3"), (2, "aus1-lf4"))
    ]


# ADDR-017: an address written on a device lies in a pool the underlay's route maps pass
# (aus1: loopback_v4 10.0.0.0/24 and vtep_v4 10.0.1.0/24, loopback_v6 2001:db8:0:ff::/64)


def _override(example: Path, key: str, address: str) -> int:
    devices = example / DEVICES
    replace_in(
        devices,
        "management: 192.168.10.103/24\n",
        f'management: 192.168.10.103/24\n        {key}: "{address}"\n',
    )
    return line_of(devices, f'{key}: "{address}"')


@pytest.mark.parametrize(
    ("key", "address", "outside"),
    [
        ("vtep_v4", "10.0.1.255/32", False),  # the last address the lists pass
        ("vtep_v4", "10.0.2.0/32", True),
        ("loopback_v4", "10.0.0.0/32", False),  # the first
        ("loopback_v4", "9.255.255.255/32", True),
        ("loopback_v6", "2001:db8:0:ff:ffff:ffff:ffff:ffff/128", False),
        ("loopback_v6", "2001:db8:0:100::/128", True),
    ],
)
def test_addr017_an_override_the_underlay_does_not_pass(
    example: Path, key: str, address: str, outside: bool
) -> None:
    line = _override(example, key, address)
    found = findings_of(lint_repo(example), "ADDR-017")
    if not outside:
        assert found == []
        return
    passed = "2001:db8:0:ff::/64" if key == "loopback_v6" else "10.0.0.0/24, 10.0.1.0/24"
    lost = {
        "loopback_v4": "its EVPN sessions, between loopbacks, never come up",
        "vtep_v4": "no VTEP resolves the next hop of its routes: every tunnel to it is dead",
        "loopback_v6": "no other device reaches it",
    }[key]
    assert found == [
        f"{DEVICES}:{line}: aus1-lf3 {key} {address} is outside {passed}, the pools the "
        f"underlay's route maps pass: it is never advertised, and {lost}; take a free address "
        f"of pools.{key}, or widen that pool"
    ]


def test_addr017_a_vtep_without_a_vtep_pool_is_taken_from_the_loopbacks(example: Path) -> None:
    replace_in(example / "intent/aus1/site.yaml", "      vtep_v4: 10.0.1.0/24", "")
    line = _override(example, "vtep_v4", "10.9.1.103/32")
    assert findings_of(lint_repo(example), "ADDR-017") == [
        f"{DEVICES}:{line}: aus1-lf3 vtep_v4 10.9.1.103/32 is outside 10.0.0.0/24, the pools the "
        "underlay's route maps pass: it is never advertised, and no VTEP resolves the next hop "
        "of its routes: every tunnel to it is dead; take a free address of pools.loopback_v4, "
        "or widen that pool"
    ]


# ADDR-019: IPv6 loopbacks only with an IPv6 underlay (both pools.loopback_v6 and
# pools.p2p_v6; mel1 has both)

MEL1_SITE = "intent/mel1/site.yaml"
MEL1_DEVICES = "intent/mel1/devices.yaml"
MEL1_LOOPBACKS_V6 = "      loopback_v6: 2001:db8:2:ff::/64\n"
MEL1_P2P_V6 = "      p2p_v6: 2001:db8:2:1000::/52\n"
ADDR019_TAIL = (
    "the underlay runs no IPv6 sessions: they are originated into BGP and no session carries "
    "them, so no other device reaches them"
)


def _mel1_own_loopback_v6(example: Path, management: str, address: str) -> int:
    devices = example / MEL1_DEVICES
    replace_in(
        devices,
        f"management: {management}\n",
        f'management: {management}\n        loopback_v6: "{address}"\n',
    )
    return line_of(devices, f'loopback_v6: "{address}"')


def test_addr019_both_ipv6_pools_run_an_ipv6_underlay(example: Path) -> None:
    _mel1_own_loopback_v6(example, "192.168.20.101/24", "2001:db8:2:ff::1:65/128")
    assert findings_of(lint_repo(example), "ADDR-019") == []


def test_addr019_a_loopback_pool_without_a_p2p_pool(example: Path) -> None:
    replace_in(example / MEL1_SITE, MEL1_P2P_V6, "")
    result = lint_repo(example)
    assert findings_of(result, "ADDR-019") == [
        f"{MEL1_SITE}:{line_of(example / MEL1_SITE, 'loopback_v6:')}: site mel1's "
        "pools.loopback_v6 2001:db8:2:ff::/64 gives every device an IPv6 loopback, but without "
        f"pools.p2p_v6 {ADDR019_TAIL}; add pools.p2p_v6 (a /127 per fabric link), or drop "
        "pools.loopback_v6"
    ]
    assert {f.severity for f in result.findings if f.rule == "ADDR-019"} == {"warning"}


def test_addr019_no_ipv6_loopbacks_at_all_is_fine(example: Path) -> None:
    """An IPv4-only fabric (a p2p_v6 pool alone renders link addresses, not loopbacks)."""
    replace_in(example / MEL1_SITE, MEL1_LOOPBACKS_V6, "")
    assert findings_of(lint_repo(example), "ADDR-019") == []


@pytest.mark.parametrize("p2p_v6", [True, False])
def test_addr019_loopbacks_written_on_devices_without_the_pool(example: Path, p2p_v6: bool) -> None:
    replace_in(example / MEL1_SITE, MEL1_LOOPBACKS_V6, "")
    if not p2p_v6:
        replace_in(example / MEL1_SITE, MEL1_P2P_V6, "")
    line = _mel1_own_loopback_v6(example, "192.168.20.101/24", "2001:db8:2:ff::65/128")
    _mel1_own_loopback_v6(example, "192.168.20.102/24", "2001:db8:2:ff::66/128")
    missing = "pools.loopback_v6" if p2p_v6 else "pools.loopback_v6 and pools.p2p_v6"
    assert findings_of(lint_repo(example), "ADDR-019") == [
        f"{MEL1_DEVICES}:{line}: site mel1 has IPv6 loopbacks on its devices (mel1-lf101 "
        "loopback_v6 2001:db8:2:ff::65/128, mel1-lf102 loopback_v6 2001:db8:2:ff::66/128), "
        f"but without {missing} {ADDR019_TAIL}; add {missing}, or drop the devices' loopback_v6"
    ]


# ADDR-018: no two interfaces of a device hold overlapping subnets in one VRF (built models)

DCI = "intent/dci.yaml"


@pytest.mark.parametrize(
    ("pool", "expected"),
    [
        ("10.9.1.0/24", []),  # beside aus1's services LAN 10.9.0.0/24: apart
        (
            "10.9.0.0/24",  # across it: each border's DCI /31 inside its services LAN
            [
                ("aus1-br1", "10.9.0.1/24", "syd-mel-coastal", "mel1-br1", "10.9.0.0/31"),
                ("aus1-br2", "10.9.0.2/24", "syd-mel-hume", "mel1-br2", "10.9.0.2/31"),
            ],
        ),
    ],
)
def test_addr018_a_dci_pool_across_the_services_lan(
    example: Path, pool: str, expected: list[tuple[str, str, str, str, str]]
) -> None:
    replace_in(example / DCI, "p2p_v4: 10.255.0.0/24", f"p2p_v4: {pool}")
    devices = example / DEVICES
    assert findings_of(lint_repo(example), "ADDR-018") == [
        f"{DEVICES}:{line_of(devices, f'{border}:')}: {border}: HundredGigE0/0/0/26 (services "
        f"LAN (RPKI validators)) {lan} overlaps FourHundredGigE0/0/0/27 (DCI {circuit} to "
        f"{far} Ethernet35/1) {dci} in the default VRF: the device would hold one subnet on two "
        "interfaces and bring one down or route out of the wrong one; number them apart (a pool "
        "or circuit address drawn across the other)"
        for border, lan, circuit, far, dci in expected
    ]


def test_addr018_leaves_two_fabric_links_on_one_subnet_to_addr005(example: Path) -> None:
    """The border pair's second link given index 0 again: both links draw the same /31 and
    /127. ADDR-005 names the two links at the index line; ADDR-018 said it again at aus1-br1
    and at aus1-br2, the two ends, and ADDR-005 itself once per family: one fault, one
    finding, ADDR-005's."""
    links = example / "intent/aus1/links.yaml"
    replace_in(links, "FourHundredGigE0/0/0/25}, index: 1", "FourHundredGigE0/0/0/25}, index: 0")
    result = lint_repo(example)
    line = line_of(links, "FourHundredGigE0/0/0/25}, index: 0")
    assert [(f.rule, f.location.file, f.location.line) for f in result.errors] == [
        ("ADDR-005", "intent/aus1/links.yaml", line)
    ]
    pair = "aus1-br1 FourHundredGigE0/0/0/{0} - aus1-br2 FourHundredGigE0/0/0/{0} (link #{1})"
    subnets = "10.1.1.0/31 and 2001:db8:0:1000::100/127"
    assert result.errors[0].message == (
        f"p2p {subnets} of {pair.format(25, 1)} overlap p2p {subnets} of {pair.format(24, 0)}; "
        "give one of them free prefixes"
    )


def test_addr018_the_same_subnet_in_two_vrfs_is_fine(example: Path) -> None:
    """The handoff's sub-interfaces carry one /31 per VRF on one port: VRFs keep them apart."""
    assert findings_of(lint_repo(example), "ADDR-018") == []


def _device(*interfaces: tuple[str, str | None, str]) -> SimpleNamespace:
    """A device with these (name, vrf, cidr) interfaces, the first a loopback; enough of a
    model for ADDR-018's sweep."""

    def one(name: str, vrf: str | None, cidr: str) -> SimpleNamespace:
        ip, prefixlen = cidr.split("/")
        v6 = ":" in ip
        address = SimpleNamespace(ip=ip, prefixlen=int(prefixlen), cidr=cidr)
        return SimpleNamespace(
            name=name,
            vrf=vrf,
            ipv4=None if v6 else address,
            ipv6=address if v6 else None,
            ipv4_secondary=None,
        )

    made = [one(*i) for i in interfaces]
    management = SimpleNamespace(interface=one("Management1", "MGMT", "192.168.0.9/24"))
    return SimpleNamespace(loopbacks=made[:1], interfaces=made[1:], management=management)


def _clash(model: SimpleNamespace) -> tuple[str, str, str, str, str | None] | None:
    found = _first_overlap(model)  # type: ignore[arg-type]
    if found is None:
        return None
    (one, one_net), (other, other_net), vrf = found
    return one.name, str(one_net), other.name, str(other_net), vrf


@pytest.mark.parametrize(
    ("interfaces", "expected"),
    [
        # neighbouring /31s: apart; a /30 holding the second: the pair, the later port first
        (
            [
                ("lo0", None, "10.0.0.9/32"),
                ("e1", None, "10.0.0.0/31"),
                ("e2", None, "10.0.0.2/31"),
            ],
            None,
        ),
        (
            [
                ("lo0", None, "10.0.0.9/32"),
                ("e1", None, "10.0.0.2/31"),
                ("e2", None, "10.0.0.1/30"),
            ],
            ("e1", "10.0.0.2/31", "e2", "10.0.0.1/30", None),
        ),
        # the loopback inside a later port's /24, in VRF red only: that VRF's pair
        (
            [
                ("lo0", "red", "10.1.0.7/32"),
                ("e1", None, "10.1.0.1/24"),
                ("e2", "red", "10.1.0.1/24"),
            ],
            ("lo0", "10.1.0.7/32", "e2", "10.1.0.1/24", "red"),
        ),
        # IPv6: a /127 inside a /64 two ports later; the first clash in port order is named
        (
            [
                ("lo0", None, "2001:db8::ff/128"),
                ("e1", None, "2001:db8:1::/127"),
                ("e2", None, "10.2.0.0/31"),
                ("e3", None, "10.2.0.1/31"),
                ("e4", None, "2001:db8:1::1/64"),
            ],
            ("e2", "10.2.0.0/31", "e3", "10.2.0.1/31", None),
        ),
        ([("lo0", None, "2001:db8::1/128"), ("e1", None, "2001:db8::2/127")], None),
    ],
)
def test_addr018_sweep_finds_the_first_clash_in_port_order(
    interfaces: list[tuple[str, str | None, str]], expected: tuple[str, ...] | None
) -> None:
    assert _clash(_device(*interfaces)) == expected
