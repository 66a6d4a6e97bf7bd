"""DCI-001..007 and PHY-013 on DCI ports: each rule passes on two sites joined by a built and a
leased circuit (tests/data/dci) and fails on one realistic edit, with cases just inside and
just outside every limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from dci_example import DATA, with_dci

DCI_RULES = (
    "DCI-001", "DCI-002", "DCI-003", "DCI-004", "DCI-005", "DCI-006", "DCI-007", "DCI-008",
    "DCI-010", "DCI-011", "DCI-012",
)  # fmt: skip
BUILT = "      built: {route_km: 1100, lead_time_weeks: 40, capex: 1200000, opex_monthly: 10000}\n"
LEASED = "leased: {provider: wavecarrier, capacity_gbps: 400, monthly: 50000, term_months: 36}"


@pytest.fixture
def dci(example: Path) -> Path:
    """The example's aus1, the tests' mel1 and tests/data/dci/dci.yaml; returns dci.yaml."""
    return with_dci(example)


def found(dci: Path, rule_id: str) -> list[str]:
    return findings_of(lint_repo(dci.parents[1]), rule_id)


def test_two_sites_joined_diversely_pass_every_dci_rule(dci: Path) -> None:
    result = lint_repo(dci.parents[1])
    assert [f for f in result.findings if f.rule in (*DCI_RULES, "PHY-013")] == []


def test_the_rules_run_once_for_the_whole_intent(dci: Path) -> None:
    replace_in(dci, "latency_ms: 5.0", "latency_ms: 0")
    assert len(found(dci, "DCI-005")) == 1  # two sites, one finding


# ---- DCI-001: diverse circuits share nothing ------------------------------------------------


def test_dci001_a_shared_conduit_is_found(dci: Path) -> None:
    replace_in(
        dci,
        "conduits: [syd-south-duct, mel-west-duct]",
        "conduits: [syd-north-duct, mel-west-duct]",
    )
    line = line_of(dci, "conduits: [syd-north-duct, mel-west-duct]")
    assert found(dci, "DCI-001") == [
        f"intent/dci.yaml:{line}: diverse group syd-mel: circuits syd-mel-1 and syd-mel-2 share "
        "conduits syd-north-duct; one event there takes both: route one elsewhere, or do not "
        "declare them diverse"
    ]


def test_dci001_a_leased_circuit_s_provider_is_one_of_its_providers(dci: Path) -> None:
    replace_in(dci, "providers: [fibreco]", "providers: [fibreco, wavecarrier]")
    (message,) = found(dci, "DCI-001")
    assert "share providers wavecarrier;" in message
    # reported at the second circuit's lease, which names the provider
    assert message.startswith(f"intent/dci.yaml:{line_of(dci, 'leased:')}:")


@pytest.mark.parametrize("kind", ["fibre_routes", "ila_sites"])
def test_dci001_each_tag_kind_counts(dci: Path, kind: str) -> None:
    first = {"fibre_routes": "coastal", "ila_sites": "ila-eden"}[kind]
    second = {"fibre_routes": "[hume]", "ila_sites": "[ila-goulburn, ila-albury]"}[kind]
    replace_in(dci, f"{kind}: {second}", f"{kind}: [{first}]")
    (message,) = found(dci, "DCI-001")
    assert f"share {kind.replace('_', ' ')} {first};" in message


def test_dci001_circuits_not_declared_diverse_may_share(dci: Path) -> None:
    replace_in(
        dci,
        "conduits: [syd-south-duct, mel-west-duct]",
        "conduits: [syd-north-duct, mel-west-duct]",
    )
    replace_in(dci, "  diverse_groups:\n    syd-mel: [syd-mel-1, syd-mel-2]\n", "")
    assert found(dci, "DCI-001") == []


# ---- DCI-002: capacity after one failure --------------------------------------------------


def test_dci002_need_exactly_met_after_a_failure_passes(dci: Path) -> None:
    # 400G + 400G: either fails, 400 remain; 400 needed (the fixture) passes, 401 fails
    replace_in(dci, "capacity_gbps: 400}", "capacity_gbps: 401}")
    line = line_of(dci, "capacity_gbps: 401}")
    assert found(dci, "DCI-002") == [
        f"intent/dci.yaml:{line}: aus1-mel1 needs 401 Gbps; its circuits carry 800 Gbps, "
        "400 Gbps after syd-mel-2 fails: add 1 Gbps on another circuit"
    ]


def test_dci002_a_smaller_lease_is_the_failure_that_remains(dci: Path) -> None:
    # lease 399 Gbps: the built 400G circuit fails worst, 399 remain, 1 Gbps short of the need
    replace_in(dci, LEASED, LEASED.replace("capacity_gbps: 400", "capacity_gbps: 399"))
    (message,) = found(dci, "DCI-002")
    assert "carry 799 Gbps, 399 Gbps after syd-mel-1 fails: add 1 Gbps" in message


def test_dci002_leaves_a_capacity_dci006_refuses_to_dci006(dci: Path) -> None:
    replace_in(dci, LEASED, LEASED.replace("capacity_gbps: 400", "capacity_gbps: -400"))
    assert found(dci, "DCI-002") == []
    assert len(found(dci, "DCI-006")) == 1


def test_dci002_a_need_without_circuits(dci: Path) -> None:
    syd2 = (DATA / "mel1.yaml").read_text().replace("mel1", "syd2")
    (dci.parent / "syd2").mkdir()
    (dci.parent / "syd2/site.yaml").write_text(syd2.replace("192.168.20", "192.168.30"))
    dci.write_text(dci.read_text() + "    - {sites: [aus1, syd2], capacity_gbps: 10}\n")
    line = line_of(dci, "syd2")
    assert found(dci, "DCI-002") == [
        f"intent/dci.yaml:{line}: aus1-syd2 needs 10 Gbps and no DCI circuit joins the two sites"
    ]


# ---- DCI-003: MMRs, entrances, borders at each end ----------------------------------------


def test_dci003_both_circuits_in_one_mmr_on_one_border(dci: Path) -> None:
    replace_in(
        dci,
        "device: mel1-br2, interface: Ethernet34/1, room: mel1-mmr2",
        "device: mel1-br1, interface: Ethernet34/1, room: mel1-mmr1",
    )
    line = line_of(dci, "device: mel1-br1, interface: Ethernet34/1")
    assert found(dci, "DCI-003") == [
        f"intent/dci.yaml:{line}: all 2 circuits aus1-mel1 (syd-mel-1, syd-mel-2) use border "
        "mel1-br1 at mel1, which has 2: land one on another border",
        f"intent/dci.yaml:{line}: all 2 circuits aus1-mel1 (syd-mel-1, syd-mel-2) use MMR "
        "mel1-mmr1 at mel1, which has 2: land one in another MMR",
    ]


def test_dci003_one_entrance_where_the_site_has_two(dci: Path) -> None:
    replace_in(dci, "room: aus1-mmr2, entrance: south", "room: aus1-mmr2, entrance: north")
    (message,) = found(dci, "DCI-003")
    # aus1 has two entrances: its cross-connects come in by north and south
    assert "use building entrance north at aus1, which has 2" in message


def test_dci003_a_site_with_one_entrance_is_not_asked_for_two(dci: Path) -> None:
    # mel1 knows only the entrances its DCI ends name: both east, so it has one
    replace_in(dci, "room: mel1-mmr2, entrance: west", "room: mel1-mmr2, entrance: east")
    assert found(dci, "DCI-003") == []


# ---- DCI-004: speed fits the port ---------------------------------------------------------


def test_dci004_a_400g_circuit_on_a_100g_cage(dci: Path) -> None:
    # Ethernet32/1 is the last QSFP100 of a 7280CR3-32P4; Ethernet33/1 (OSFP 400G) passes
    replace_in(dci, "interface: Ethernet33/1", "interface: Ethernet32/1")
    line = line_of(dci, "Ethernet32/1")
    assert found(dci, "DCI-004") == [
        f"intent/dci.yaml:{line}: circuit syd-mel-1 runs at 400G on mel1-br1 Ethernet32/1, but "
        "port 32 of a 7280CR3-32P4 is a QSFP100 cage"
    ]


def test_dci004_a_port_the_hardware_lacks(dci: Path) -> None:
    replace_in(dci, "interface: Ethernet34/1", "interface: Ethernet37/1")
    (message,) = found(dci, "DCI-004")
    assert message.endswith(
        "circuit syd-mel-2 runs at 400G on mel1-br2 Ethernet37/1, but a 7280CR3-32P4 has ports "
        "1-32 (QSFP100), 33-36 (OSFP 400G)"
    )


def test_dci004_an_iosxr_name_says_the_optic_speed(dci: Path) -> None:
    replace_in(
        dci,
        "interface: FourHundredGigE0/0/0/28, room: aus1-mmr1",
        "interface: HundredGigE0/0/0/28, room: aus1-mmr1",
    )
    (message,) = found(dci, "DCI-004")
    assert message.endswith(
        "circuit syd-mel-1 runs at 400G on aus1-br1 HundredGigE0/0/0/28, but "
        "HundredGigE0/0/0/28 names a 100G optic (IOS-XR names a port by its optic)"
    )


@pytest.mark.parametrize(
    ("name", "gbps"),
    [
        ("TenGigE", 10), ("TwentyFiveGigE", 25), ("FortyGigE", 40), ("FiftyGigE", 50),
        ("HundredGigE", 100), ("TwoHundredGigE", 200), ("FourHundredGigE", 400),
        ("EightHundredGigE", 800),
    ],
)  # fmt: skip
def test_dci004_every_iosxr_port_name_says_its_speed(dci: Path, name: str, gbps: int) -> None:
    """A 400G circuit: only FourHundredGigE fits; every other name says its own speed."""
    replace_in(
        dci,
        "interface: FourHundredGigE0/0/0/28, room: aus1-mmr1",
        f"interface: {name}0/0/0/28, room: aus1-mmr1",
    )
    said = [m for m in found(dci, "DCI-004") if "names a" in m]
    if gbps == 400:
        assert said == []
    else:
        assert [m.split(", but ", 1)[1] for m in said] == [
            f"{name}0/0/0/28 names a {gbps}G optic (IOS-XR names a port by its optic)"
        ]


def test_dci004_a_lease_above_the_port_speed(dci: Path) -> None:
    replace_in(dci, LEASED, LEASED.replace("capacity_gbps: 400", "capacity_gbps: 401"))
    line = line_of(dci, "capacity_gbps: 401")
    assert found(dci, "DCI-004") == [
        f"intent/dci.yaml:{line}: circuit syd-mel-2 leases 401 Gbps over 400G ports; it carries "
        "at most 400 Gbps: lease what the ports carry or use faster ports"
    ]


# ---- DCI-005: latency -----------------------------------------------------------------------

# light over 1100 km of fibre at group index 1.46: 1100 x 1.46 / 299.792458 = 5.357 ms


@pytest.mark.parametrize(
    ("latency", "fails"), [("5.358", False), ("5.357", True), ("0", True), ("-1", True)]
)
def test_dci005_latency_positive_and_no_faster_than_light(
    dci: Path, latency: str, fails: bool
) -> None:
    replace_in(dci, "latency_ms: 7.5", f"latency_ms: {latency}")
    messages = found(dci, "DCI-005")
    assert bool(messages) == fails, messages
    if latency == "5.357":
        assert messages[0].endswith(
            "circuit syd-mel-1 claims 5.357 ms one way over 1100 km of fibre, but light needs "
            "at least 5.357 ms over that route: check latency_ms and route_km"
        )
    if latency == "0":
        assert messages[0].endswith(
            "circuit syd-mel-1 has latency 0.0 ms: give the measured or quoted one-way "
            "latency, above 0"
        )


def test_dci005_a_leased_circuit_has_no_route_to_check(dci: Path) -> None:
    replace_in(dci, "latency_ms: 5.0", "latency_ms: 0.001")
    assert found(dci, "DCI-005") == []


# ---- DCI-006: economics -------------------------------------------------------------------

CEILING = "it must be at most %s; a real circuit stays far below that"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("term_months: 36", "term_months: 0", "syd-mel-2: term_months is 0; it must be above 0"),
        ("term_months: 36", "term_months: 1", None),
        ("monthly: 50000", "monthly: 0", "syd-mel-2: monthly is 0; it must be above 0"),
        ("monthly: 50000", "monthly: 0.01", None),
        ("capex: 1200000", "capex: -1", "syd-mel-1: capex is -1; it must be 0 or more"),
        ("capex: 1200000", "capex: 0", None),
        (
            "opex_monthly: 10000",
            "opex_monthly: -0.5",
            "syd-mel-1: opex_monthly is -0.5; it must be 0 or more",
        ),
        ("route_km: 1100", "route_km: 0", "syd-mel-1: route_km is 0; it must be above 0"),
        (
            "lead_time_weeks: 40",
            "lead_time_weeks: -1",
            "syd-mel-1: lead_time_weeks is -1; it must be 0 or more",
        ),
        # each ceiling: the value itself passes, one more is a typo
        ("term_months: 36", "term_months: 600", None),
        (
            "term_months: 36",
            "term_months: 601",
            f"syd-mel-2: term_months is 601; {CEILING % '600'}",
        ),
        ("route_km: 1100", "route_km: 20000", None),
        (
            "route_km: 1100",
            "route_km: 20000.5",
            f"syd-mel-1: route_km is 20,000.5; {CEILING % '20,000'}",
        ),
        ("lead_time_weeks: 40", "lead_time_weeks: 520", None),
        (
            "lead_time_weeks: 40",
            "lead_time_weeks: 521",
            f"syd-mel-1: lead_time_weeks is 521; {CEILING % '520'}",
        ),
        ("capex: 1200000", "capex: 1000000000000", None),
        (
            "capex: 1200000",
            "capex: 1000000000001",
            f"syd-mel-1: capex is 1,000,000,000,001; {CEILING % '1,000,000,000,000'}",
        ),
    ],
)
def test_dci006_economics_boundaries(dci: Path, old: str, new: str, message: str | None) -> None:
    replace_in(dci, old, new)
    line = line_of(dci, new)
    expected = [] if message is None else [f"intent/dci.yaml:{line}: circuit {message}"]
    assert found(dci, "DCI-006") == expected


def test_dci006_a_need_past_every_ceiling(dci: Path) -> None:
    replace_in(dci, "capacity_gbps: 400}", "capacity_gbps: 1000001, term_months: 99999999}")
    line = line_of(dci, "term_months: 99999999}")
    assert found(dci, "DCI-006") == [
        f"intent/dci.yaml:{line}: the need aus1-mel1: capacity_gbps is 1,000,001; "
        + CEILING % "1,000,000",
        f"intent/dci.yaml:{line}: the need aus1-mel1: term_months is 99,999,999; "
        + CEILING % "600",
    ]


def test_dci006_a_need_of_nothing(dci: Path) -> None:
    replace_in(dci, "capacity_gbps: 400}", "capacity_gbps: 0, term_months: 0}")
    line = line_of(dci, "term_months: 0}")
    assert found(dci, "DCI-006") == [
        f"intent/dci.yaml:{line}: the need aus1-mel1: capacity_gbps is 0; it must be above 0",
        f"intent/dci.yaml:{line}: the need aus1-mel1: term_months is 0; it must be above 0",
    ]
    assert found(dci, "DCI-002") == []  # no capacity to fall short of: DCI-006 says it


# ---- PHY-013: a DCI port is a port of its own ---------------------------------------------


def test_phy013_a_dci_port_already_used_by_a_cross_connect(dci: Path) -> None:
    replace_in(
        dci,
        "interface: FourHundredGigE0/0/0/28, room: aus1-mmr1",
        "interface: FourHundredGigE0/0/0/23, room: aus1-mmr1",
    )
    line = line_of(dci, "FourHundredGigE0/0/0/23")
    xc = line_of(dci.parent / "aus1/circuits.yaml", "XC-IX-1:")
    assert found(dci, "PHY-013") == [
        f"intent/dci.yaml:{line}: aus1-br1: DCI circuit syd-mel-1 to mel1 uses "
        "FourHundredGigE0/0/0/23, but cross-connect XC-IX-1 of ix-syd (at "
        f"intent/aus1/circuits.yaml:{xc}:85) already uses FourHundredGigE0/0/0/23; one port "
        "carries one cable: move one of them to a free port"
    ]


def test_phy013_two_dci_circuits_on_one_port(dci: Path) -> None:
    replace_in(
        dci,
        "device: mel1-br2, interface: Ethernet34/1",
        "device: mel1-br1, interface: Ethernet33/1",
    )
    (message,) = found(dci, "PHY-013")
    assert (
        "mel1-br1: DCI circuit syd-mel-2 to aus1 uses Ethernet33/1, but DCI circuit syd-mel-1"
        in message
    )


# ---- DCI-007: diversity recorded ----------------------------------------------------------


def test_dci007_a_diverse_member_without_conduits_is_unproven(dci: Path) -> None:
    replace_in(dci, "        conduits: [syd-south-duct, mel-west-duct]\n", "")
    line = line_of(dci, "diversity:", 2)
    assert found(dci, "DCI-007") == [
        f"intent/dci.yaml:{line}: diverse group syd-mel: circuit syd-mel-2 records no conduits, "
        "so DCI-001 cannot show it shares none with the others: record them under its "
        "diversity:"
    ]


def test_dci007_the_lease_s_provider_is_a_recorded_provider(dci: Path) -> None:
    # syd-mel-2 writes no providers: under diversity: and passes (see the first test); the
    # built circuit without its providers does not
    replace_in(dci, "        providers: [fibreco]\n", "")
    (message,) = found(dci, "DCI-007")
    assert "circuit syd-mel-1 records no providers," in message


def test_dci007_circuits_outside_diverse_groups_need_no_tags(dci: Path) -> None:
    replace_in(dci, "        conduits: [syd-south-duct, mel-west-duct]\n", "")
    replace_in(dci, "  diverse_groups:\n    syd-mel: [syd-mel-1, syd-mel-2]\n", "")
    assert found(dci, "DCI-007") == []


# ---- DCI-008: a circuit lands on a border -----------------------------------------------------


def test_dci008_a_circuit_on_a_spine_is_found_at_its_device(dci: Path) -> None:
    replace_in(dci, "device: aus1-br2", "device: aus1-sp1")
    line = line_of(dci, "aus1-sp1")
    assert found(dci, "DCI-008") == [
        f"intent/dci.yaml:{line}: a DCI circuit lands on a border router, and aus1-sp1 is a "
        "spine; write one of the borders: aus1-br1, aus1-br2"
    ]
    # the fix is the device, not the spine's platform: DCI-009 says nothing of that circuit
    dark = found(dci, "DCI-009")
    assert dark and not [m for m in dark if "aus1-sp1" in m]


def test_dci008_a_border_moved_to_another_role_is_a_finding_not_a_stop(dci: Path) -> None:
    """A role change (the platform x role matrix does this) lints: exit 1, never exit 2."""
    devices = dci.parents[1] / "intent/aus1/devices.yaml"
    text = devices.read_text()
    at = text.index("  aus1-br1:")
    devices.write_text(text[:at] + text[at:].replace("role: border", "role: super_spine", 1))
    (message,) = found(dci, "DCI-008")
    assert "aus1-br1 is a super_spine; write one of the borders: aus1-br2" in message


# ---- DCI-009: a circuit carries routing --------------------------------------------------------

SRV6 = "intent/srv6.yaml"
MEL1_OUT = "mel1: {id: 2, devices: []}"  # the example's: mel1's EOS borders take no locator


def test_dci009_circuits_to_borders_outside_the_domain_are_dark(dci: Path) -> None:
    assert MEL1_OUT in (dci.parents[1] / SRV6).read_text()
    assert found(dci, "DCI-009") == [
        f"intent/dci.yaml:{line_of(dci, 'syd-mel-1:')}: circuit syd-mel-1 carries no routing: "
        "mel1-br1 is outside the SRv6 domain, the only routing meetme runs between sites; "
        "mel1-br1 runs Arista EOS, which has no SRv6 L3VPN (PLAT-018): that end needs a "
        "platform with one; until then the circuit stays dark",
        f"intent/dci.yaml:{line_of(dci, 'syd-mel-2:')}: circuit syd-mel-2 carries no routing: "
        "mel1-br2 is outside the SRv6 domain, the only routing meetme runs between sites; "
        "mel1-br2 runs Arista EOS, which has no SRv6 L3VPN (PLAT-018): that end needs a "
        "platform with one; until then the circuit stays dark",
    ]


def test_dci009_both_ends_in_the_domain_carry_routing(dci: Path) -> None:
    # mel1's borders take locators (PLAT-018 then says EOS cannot run SRv6 L3VPN: not this rule)
    replace_in(dci.parents[1] / SRV6, MEL1_OUT, "mel1: {id: 2}")
    assert found(dci, "DCI-009") == []


def test_dci009_one_end_out_darkens_its_circuit_only_and_names_that_end(dci: Path) -> None:
    srv6 = dci.parents[1] / SRV6
    replace_in(srv6, MEL1_OUT, "mel1: {id: 2}")
    replace_in(srv6, "devices: [aus1-br1, aus1-br2,", "devices: [aus1-br1,")
    assert found(dci, "DCI-009") == [
        f"intent/dci.yaml:{line_of(dci, 'syd-mel-2:')}: circuit syd-mel-2 carries no routing: "
        "aus1-br2 is outside the SRv6 domain, the only routing meetme runs between sites; list "
        "aus1-br2 in srv6.sites.aus1.devices; until then the circuit stays dark"
    ]


def test_dci009_without_any_srv6_domain_every_circuit_is_dark(dci: Path) -> None:
    (dci.parents[1] / SRV6).unlink()
    messages = found(dci, "DCI-009")
    assert len(messages) == 2
    assert all(
        m.endswith(
            "the intent declares no SRv6 domain (srv6:), the only routing meetme runs between "
            "sites; declare one; until then the circuit stays dark"
        )
        for m in messages
    )


# ---- DCI-010 / DCI-011: the circuits' addresses ---------------------------------------------
# The example's own dci.yaml: p2p_v4 10.255.0.0/24 (128 /31s), p2p_v6 2001:db8:ffff::/64,
# syd-mel-coastal at index 0 and syd-mel-hume at index 1; aus1's p2p_v4 pool is 10.1.0.0/16.
EXAMPLE_DCI = "intent/dci.yaml"


def test_dci010_two_circuits_with_one_index(example: Path) -> None:
    dci = example / EXAMPLE_DCI
    replace_in(dci, "      index: 1\n", "      index: 0\n")
    line = line_of(dci, "index: 0", 2)
    assert findings_of(lint_repo(example), "DCI-010") == [
        f"{EXAMPLE_DCI}:{line}: circuits syd-mel-coastal and syd-mel-hume share index 0: both "
        "would take the same /31 and /127 from the DCI pools; give the circuit an index of its "
        "own"
    ]


@pytest.mark.parametrize(("index", "outside"), [(127, False), (128, True)])
def test_dci010_an_index_at_the_end_of_the_ipv4_pool(
    example: Path, index: int, outside: bool
) -> None:
    dci = example / EXAMPLE_DCI
    replace_in(dci, "      index: 1\n", f"      index: {index}\n")
    line = line_of(dci, f"index: {index}")
    expected = [
        f"{EXAMPLE_DCI}:{line}: circuit syd-mel-hume's index 128 is past the end of dci.p2p_v4 "
        "10.255.0.0/24 (128 point-to-point subnets, indexes 0-127); lower the index or widen "
        "the pool"
    ]
    assert findings_of(lint_repo(example), "DCI-010") == (expected if outside else [])


@pytest.mark.parametrize(("pool", "room"), [("10.255.0.0/32", False), ("10.255.0.0/31", True)])
def test_dci010_a_pool_with_no_room_is_one_finding_at_the_pool(
    example: Path, pool: str, room: bool
) -> None:
    """A /32 holds no /31: said once, at the pool; a /31 holds index 0 (syd-mel-coastal's),
    and index 1 (syd-mel-hume's) is past its end."""
    dci = example / EXAMPLE_DCI
    replace_in(dci, "p2p_v4: 10.255.0.0/24", f"p2p_v4: {pool}")
    line = line_of(dci, f"p2p_v4: {pool}")
    hume = line_of(dci, "index: 1")
    expected = (
        [
            f"{EXAMPLE_DCI}:{hume}: circuit syd-mel-hume's index 1 is past the end of "
            "dci.p2p_v4 10.255.0.0/31 (1 point-to-point subnet, index 0); lower the index or "
            "widen the pool"
        ]
        if room
        else [
            f"{EXAMPLE_DCI}:{line}: dci.p2p_v4 10.255.0.0/32 holds no point-to-point subnet "
            "(/31): a DCI pool needs one for every circuit's index; widen the pool"
        ]
    )
    assert findings_of(lint_repo(example), "DCI-010") == expected


@pytest.mark.parametrize(("pool", "overlaps"), [("10.0.255.0/24", False), ("10.1.0.0/24", True)])
def test_dci011_a_dci_pool_inside_a_site_pool(example: Path, pool: str, overlaps: bool) -> None:
    """Just outside aus1's p2p_v4 10.1.0.0/16 (the /24 right before it, free in every site)
    and just inside (its first /24)."""
    dci = example / EXAMPLE_DCI
    replace_in(dci, "p2p_v4: 10.255.0.0/24", f"p2p_v4: {pool}")
    line = line_of(dci, f"p2p_v4: {pool}")
    expected = [
        f"{EXAMPLE_DCI}:{line}: dci.p2p_v4 {pool} overlaps site aus1's pool p2p_v4 10.1.0.0/16; "
        "give the DCI a range of its own"
    ]
    assert findings_of(lint_repo(example), "DCI-011") == (expected if overlaps else [])


# ---- DCI-012: a circuit inside the SRv6 domain has IPv6 -------------------------------------


@pytest.mark.parametrize("edit", ["none", "no index", "no p2p_v6"])
def test_dci012_a_circuit_inside_the_domain_needs_ipv6(example: Path, edit: str) -> None:
    """mel1's borders join the domain, so both circuits carry routing: with the example's
    index and p2p_v6 they pass; without the Hume circuit's index, or without the pool, the
    ports have no IPv6 for SRv6 and IS-IS."""
    replace_in(example / SRV6, MEL1_OUT, "mel1: {id: 2}")
    dci = example / EXAMPLE_DCI
    if edit == "no index":
        replace_in(dci, "      index: 1\n", "")
    if edit == "no p2p_v6":
        replace_in(dci, "  p2p_v6: 2001:db8:ffff::/64", "")
    message = (
        "circuit {name} joins aus1-br{n} and mel1-br{n}, both in the SRv6 domain, but its ports "
        "get no IPv6 address ({why}): SRv6 and the IS-IS between the sites run over IPv6; {fix}"
    )
    expected = {
        "none": [],
        "no index": [
            f"{EXAMPLE_DCI}:{line_of(dci, 'syd-mel-hume:')}: "
            + message.format(
                name="syd-mel-hume", n=2, why="it has no index", fix="give it an index"
            )
        ],
        "no p2p_v6": [
            f"{EXAMPLE_DCI}:{line_of(dci, f'{name}:')}: "
            + message.format(name=name, n=n, why="the DCI has no p2p_v6 pool", fix="set dci.p2p_v6")
            for name, n in (("syd-mel-coastal", 1), ("syd-mel-hume", 2))
        ],
    }[edit]
    assert findings_of(lint_repo(example), "DCI-012") == expected


def test_dci009_a_site_missing_from_the_domain_is_to_be_added_with_an_id(dci: Path) -> None:
    """aus1 taken out of srv6.sites: listing aus1-br1 in srv6.sites.aus1.devices, the advice
    was, names a key that does not exist; the site goes in first, with an id."""
    srv6 = dci.parents[1] / SRV6
    replace_in(srv6, "    aus1: {id: 1, devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2]}\n", "")
    first = found(dci, "DCI-009")[0]
    assert first == (
        f"intent/dci.yaml:{line_of(dci, 'syd-mel-1:')}: circuit syd-mel-1 carries no routing: "
        "aus1-br1 and mel1-br1 are outside the SRv6 domain, the only routing meetme runs "
        "between sites; add site aus1 to srv6.sites with an id of its own (aus1: {id: N}; "
        "every border of it joins, or name them in devices:); mel1-br1 runs Arista EOS, which "
        "has no SRv6 L3VPN (PLAT-018): that end needs a platform with one; until then the "
        "circuit stays dark"
    )
