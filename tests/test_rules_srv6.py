"""SRV6-*: each rule passes on the example and fails on the edit an engineer could make, with
the boundary just inside and just outside every limit; the platforms that cannot carry SRv6
L3VPN are refused by name (PLAT-018/019, exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import (
    findings_of,
    line_of,
    lint_repo,
    mel1_borders_to_iosxr,
    private_vrfs_online,
    replace_in,
)
from srv6_example import add_third_site
from typer.testing import CliRunner

from meetme.cli import app

SRV6 = "intent/srv6.yaml"
DCI = "intent/dci.yaml"
MEMBERS = "aus1: {id: 1, devices: [aus1-br1, aus1-br2, aus1-lf1, aus1-lf2]}"


def _storage_between_sites(repo: Path, mel1: str = "mel1: {id: 2, devices: []}") -> None:
    """VRF storage (in both sites' tenants) rides SRv6 between aus1 and mel1."""
    srv6 = repo / SRV6
    replace_in(srv6, "mel1: {id: 2, devices: []}", mel1)
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n")


def test_the_example_passes_every_srv6_rule(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule.startswith(("SRV6", "PLAT-018", "PLAT-019"))] == []


# --- SRV6-001 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("site_id", "found"), [(223, False), (224, True)])
def test_srv6_001_a_site_id_fits_below_the_local_id_range(
    example: Path, site_id: int, found: bool
) -> None:
    replace_in(example / SRV6, "aus1: {id: 1,", f"aus1: {{id: {site_id},")
    expected = [
        f"{SRV6}:{line_of(example / SRV6, 'aus1: {id:')}: site aus1's SRv6 id 224 is outside "
        "1-223: it is the high byte of every node uSID, which must stay below the local-ID "
        "range 0xE000"
    ]
    assert findings_of(lint_repo(example), "SRV6-001") == (expected if found else [])


@pytest.mark.parametrize(("device_id", "found"), [(255, False), (256, True)])
def test_srv6_001_a_members_device_id_fits_the_low_byte(
    example: Path, device_id: int, found: bool
) -> None:
    devices = example / "intent/aus1/devices.yaml"
    # room for an id of 256: 64 links each in the /16 p2p pool, and its own loopbacks beyond
    # the /24 pools
    replace_in(example / "intent/aus1/site.yaml", "links_per_device: 128", "links_per_device: 64")
    replace_in(
        devices,
        "aus1-lf2:\n        id: 102",
        f"aus1-lf2:\n        id: {device_id}\n        loopback_v4: 10.0.2.1/32\n"
        "        vtep_v4: 10.0.2.2/32",
    )
    got = findings_of(lint_repo(example), "SRV6-001")
    line = line_of(devices, f"id: {device_id}")
    expected = [
        f"intent/aus1/devices.yaml:{line}: aus1-lf2's id 256 does not fit the node uSID's low "
        "byte (1-255): renumber it or leave it out of the SRv6 domain"
    ]
    assert got == (expected if found else [])


def test_srv6_001_two_sites_with_one_id_a_block_of_the_wrong_length_or_overlapping(
    example: Path,
) -> None:
    srv6 = example / SRV6
    replace_in(srv6, "mel1: {id: 2,", "mel1: {id: 1,")
    replace_in(srv6, "format: F3216", "format: F3216\n  block: 2001:db8:0::/48")
    got = findings_of(lint_repo(example), "SRV6-001")
    block, mel1 = line_of(srv6, "block:"), line_of(srv6, "mel1: {id")
    assert got == [
        f"{SRV6}:{block}: SRv6 block 2001:db8::/48 is a /48; the F3216 format takes a /32 block",
        f"{SRV6}:{block}: SRv6 block 2001:db8::/48 overlaps site aus1's loopback_v6 pool "
        "2001:db8:0:ff::/64",
        f"{SRV6}:{block}: SRv6 block 2001:db8::/48 overlaps site aus1's p2p_v6 pool "
        "2001:db8:0:1000::/52",
        f"{SRV6}:{mel1}: sites aus1 and mel1 share SRv6 id 1: their devices would take the same "
        "locators; give each site its own id",
    ]


# --- SRV6-002 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("mtu", "found"), [(9040, False), (9039, True)])
def test_srv6_002_the_dci_mtu_covers_tenant_mtu_plus_the_outer_header(
    example: Path, mtu: int, found: bool
) -> None:
    """storage's networks run the default 9000: 9000 + 40 = 9040 fits exactly."""
    _storage_between_sites(example, "mel1: {id: 2}")
    replace_in(example / DCI, "    syd-mel-coastal:\n", f"    syd-mel-coastal:\n      mtu: {mtu}\n")
    expected = [
        f"{DCI}:{line_of(example / DCI, f'mtu: {mtu}')}: DCI circuit syd-mel-coastal carries IP "
        "packets of 9039 bytes, but VRF storage rides it over SRv6 with networks of up to 9000 "
        "bytes: 9000 + 40 (outer IPv6) + 0 (SRH) = 9040; raise the circuit's mtu or lower the "
        "networks'"
    ]
    assert findings_of(lint_repo(example), "SRV6-002") == (expected if found else [])


# --- SRV6-003 ---------------------------------------------------------------------------------


def test_srv6_003_a_block_outside_5f00_is_accepted_from_the_internet(example: Path) -> None:
    """A global block no import policy drops: every Internet session would take it in, on
    every border of both sites; nothing is announced (exports stay our aggregates)."""
    replace_in(example / SRV6, "format: F3216", "format: F3216\n  block: 2a0d:a000::/32")
    got = findings_of(lint_repo(example), "SRV6-003")
    line = line_of(example / SRV6, "block:")
    prefixes = (
        "2a0d:a000::/32, 2a0d:a000:101::/48, 2a0d:a000:102::/48, 2a0d:a000:165::/48, "
        "2a0d:a000:166::/48"
    )
    assert [g.split(": ", 2)[1].split(" ")[:2] for g in got] == [
        [border, "accepts"] for border in ("aus1-br1", "aus1-br2", "mel1-br1", "mel1-br2")
    ]
    first = got[0]
    assert first.startswith(f"{SRV6}:{line}: aus1-br1 accepts SRv6 prefixes {prefixes} from ")
    assert "transit transit-a XC-TA-1" in first
    assert first.endswith(
        "their import policies let them through; draw the block from 5f00::/16 (RFC 9602), "
        "which every import policy drops as a bogon"
    )


# SRV6-002 through a third site: per1 (a copy of mel1, tests/srv6_example.py) in the domain.
# An end: site, device, port, room, entrance.
End = tuple[str, str, str, str, str]
AUS1_BR1: End = ("aus1", "aus1-br1", "FourHundredGigE0/0/0/27", "aus1-mmr1", "north")
MEL1_BR1: End = ("mel1", "mel1-br1", "Ethernet35/1", "mel1-mmr1", "east")
MEL1_BR2: End = ("mel1", "mel1-br2", "Ethernet35/1", "mel1-mmr2", "west")
PER1_BR1: End = ("per1", "per1-br1", "Ethernet35/1", "per1-mmr1", "east")
PER1_BR2: End = ("per1", "per1-br2", "Ethernet35/1", "per1-mmr2", "west")


def _circuit(name: str, index: int, mtu: int, a: End, b: End) -> str:
    def end(e: End) -> str:
        return (
            f"{{site: {e[0]}, device: {e[1]}, interface: {e[2]}, room: {e[3]}, entrance: {e[4]}}}"
        )

    lease = "{provider: wavecarrier, capacity_gbps: 400, monthly: 55000, term_months: 36}"
    return (
        f"    {name}:\n      index: {index}\n      mtu: {mtu}\n      a: {end(a)}\n"
        f"      b: {end(b)}\n      speed: 400G\n      latency_ms: 20\n      leased: {lease}\n"
    )


def _three_sites(repo: Path, circuits: str) -> Path:
    """aus1, mel1 and per1 all in the domain, storage between aus1 and mel1, and `circuits`
    as the whole of dci.circuits; returns dci.yaml."""
    add_third_site(repo)
    _storage_between_sites(repo, "mel1: {id: 2}")
    dci = repo / DCI
    text = dci.read_text()
    dci.write_text(text[: text.index("  circuits:")] + "  circuits:\n" + circuits)
    return dci


@pytest.mark.parametrize(("mtu", "found"), [(9040, False), (9039, True)])
def test_srv6_002_a_circuit_through_a_third_site(example: Path, mtu: int, found: bool) -> None:
    """aus1 and mel1 joined only through per1: the mel1-per1 circuit carries storage too."""
    dci = _three_sites(
        example,
        _circuit("syd-per", 0, 9200, AUS1_BR1, PER1_BR1)
        + _circuit("mel-per", 1, mtu, MEL1_BR2, PER1_BR2),
    )
    line = line_of(dci, f"mtu: {mtu}")
    expected = [
        f"{DCI}:{line}: DCI circuit mel-per carries IP packets of {mtu} bytes, but VRF storage "
        "rides it over SRv6 with networks of up to 9000 bytes: 9000 + 40 (outer IPv6) + 0 (SRH) "
        "= 9040; raise the circuit's mtu or lower the networks'"
    ]
    assert findings_of(lint_repo(example), "SRV6-002") == (expected if found else [])


def test_srv6_002_a_circuit_to_a_site_that_leads_nowhere_else_is_not_the_vrf_s(
    example: Path,
) -> None:
    """aus1-mel1 direct; per1 hangs off mel1 alone: no way between storage's sites crosses it."""
    _three_sites(
        example,
        _circuit("syd-mel", 0, 9200, AUS1_BR1, MEL1_BR1)
        + _circuit("mel-per", 1, 1500, MEL1_BR2, PER1_BR2),
    )
    assert findings_of(lint_repo(example), "SRV6-002") == []


# --- SRV6-004 ---------------------------------------------------------------------------------


def test_srv6_004_a_vrf_site_without_a_border_in_the_domain(example: Path) -> None:
    _storage_between_sites(example)  # mel1 keeps `devices: []`
    line = line_of(example / SRV6, "    storage: {id: 10")
    assert findings_of(lint_repo(example), "SRV6-004") == [
        f"{SRV6}:{line}: VRF storage rides SRv6 to site mel1, but no border of mel1 is in the "
        "SRv6 domain: list its borders under srv6.sites.mel1.devices (or drop that line for "
        "the default)"
    ]


# --- SRV6-007..009: a VRF's route target, its sites and the circuits between them -------------

MEL1_IN = "mel1: {id: 2, devices: [mel1-br1, mel1-br2]}"  # EOS: PLAT-018, not these rules


def _vrfs(repo: Path, lines: str) -> int:
    """mel1's borders in the domain and `lines` as srv6.vrfs; the line of the first VRF."""
    srv6 = repo / SRV6
    replace_in(srv6, "mel1: {id: 2, devices: []}", MEL1_IN)
    with srv6.open("a") as handle:
        handle.write("  vrfs:\n" + lines)
    return line_of(srv6, lines.splitlines()[0])


def _gpu_a_in_mel1(repo: Path) -> None:
    """mel1's tenant VRF gpu-b renamed gpu-a, so both sites have gpu-a and storage."""
    for path in sorted((repo / "intent/mel1").glob("*.yaml")):
        path.write_text(path.read_text().replace("gpu-b", "gpu-a"))


@pytest.mark.parametrize(("gpu_id", "found"), [(11, False), (10, True)])
def test_srv6_007_two_vrfs_with_one_id_share_a_route_target(
    example: Path, gpu_id: int, found: bool
) -> None:
    _gpu_a_in_mel1(example)
    first = _vrfs(
        example,
        "    storage: {id: 10, sites: [aus1, mel1]}\n"
        f"    gpu-a: {{id: {gpu_id}, sites: [aus1, mel1]}}\n",
    )
    # sorted by where they are written: storage first, so gpu-a is the one to renumber
    expected = [
        f"{SRV6}:{first + 1}: VRFs storage and gpu-a share SRv6 id 10: both would import and "
        "export route target 64500:10, joining the two tenants across sites; give gpu-a an "
        "id of its own"
    ]
    assert findings_of(lint_repo(example), "SRV6-007") == (expected if found else [])


def test_srv6_008_a_site_listed_twice(example: Path) -> None:
    line = _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1, aus1]}\n")
    assert findings_of(lint_repo(example), "SRV6-008") == [
        f"{SRV6}:{line}: VRF storage lists site aus1 twice: a VRF rides SRv6 between different "
        "sites; remove the repeat"
    ]


def test_srv6_008_a_site_whose_handoff_does_not_carry_the_vrf(example: Path) -> None:
    """mel1 keeps the storage tenant but hands only gpu-b to its borders."""
    private_vrfs_online(example)
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(
        tenants,
        "        storage: {vlan: 3110, export_north: [10.160.0.0/16], internet: default, "
        "max_prefix: 10}\n",
        "",
    )
    line = _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    assert findings_of(lint_repo(example), "SRV6-008") == [
        f"{SRV6}:{line}: VRF storage rides SRv6 to site mel1, but mel1's handoff does not carry "
        "it: add storage to sites.mel1.handoff.vrfs, or remove mel1 from the VRF's sites"
    ]


def test_srv6_009_both_circuits_in_the_domain_join_the_sites(example: Path) -> None:
    _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    assert findings_of(lint_repo(example), "SRV6-009") == []


@pytest.mark.parametrize("kept", ["syd-mel-coastal", None])
def test_srv6_009_no_circuit_inside_the_domain_between_the_sites(
    example: Path, kept: str | None
) -> None:
    """mel1-br1 alone of mel1's borders is in the domain. Just inside: the coastal circuit
    to it still has both ends in the domain (the Hume circuit to mel1-br2 is dark). Just
    outside: no circuit at all (dci.circuits emptied, with the groups and needs naming them)."""
    dci = example / DCI
    if kept is None:
        text = dci.read_text()
        dci.write_text(text[: text.index("  circuits:")] + "  circuits: {}\n")
    line = _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    replace_in(example / SRV6, MEL1_IN, "mel1: {id: 2, devices: [mel1-br1]}")
    expected = [
        f"{SRV6}:{line}: VRF storage rides SRv6 between aus1 and mel1, but no DCI circuit with "
        "both ends in the SRv6 domain joins mel1 to aus1, directly or through other sites: its "
        "VPN sessions would never come up; add a circuit between their domain borders "
        "(dci.circuits)"
    ]
    assert findings_of(lint_repo(example), "SRV6-009") == ([] if kept else expected)


@pytest.mark.parametrize(("mel1", "found"), [("[mel1-br1, mel1-br2]", False), ("[mel1-br1]", True)])
def test_srv6_010_a_handoff_border_outside_the_domain(
    example: Path, mel1: str, found: bool
) -> None:
    """Both mel1 borders carry the storage handoff (the border leaves link to each); with
    mel1-br2 left out of the domain, what the leaves send it has no VPN route. mel1's storage
    has `internet: none`: those flows are dropped (it said they followed an Internet default
    the VRF does not have)."""
    _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    replace_in(example / SRV6, MEL1_IN, f"mel1: {{id: 2, devices: {mel1}}}")
    line = line_of(example / SRV6, "mel1: {id: 2, devices:")
    expected = [
        f"{SRV6}:{line}: mel1-br2 carries the handoff of storage (riding SRv6 to other sites) "
        "but is outside the SRv6 domain: the flows the border leaves send it have no VPN route "
        "and are dropped (storage); list mel1-br2 in srv6.sites.mel1.devices"
    ]
    assert findings_of(lint_repo(example), "SRV6-010") == (expected if found else [])


@pytest.mark.parametrize(("gateway", "found"), [("10.61.4.1/24", False), ("10.60.4.1/24", True)])
def test_srv6_011_two_sites_of_a_vrf_hold_one_subnet(
    example: Path, gateway: str, found: bool
) -> None:
    """mel1's storage network moved into aus1's storage space (aus1's storage-front-4 is
    10.60.4.0/24, its export_north 10.60.0.0/16): each border would prefer its own route.
    Just outside: the /24 next to aus1's /16."""
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(tenants, "gateway_v4: 10.160.1.1/24", f"gateway_v4: {gateway}")
    _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    line = line_of(tenants, f"gateway_v4: {gateway}")
    expected = [
        f"intent/mel1/tenants.yaml:{line}: VRF storage rides SRv6 between aus1 and mel1, and "
        f"mel1's network storage-front-1 {gateway.replace('.1/24', '.0/24')} overlaps aus1's "
        "10.60.4.0/24: each border prefers its own site's route, so neither site reaches the "
        "other's; give mel1 address space of its own"
    ]
    assert findings_of(lint_repo(example), "SRV6-011") == (expected if found else [])


@pytest.mark.parametrize("rides", [True, False])
def test_one_public_prefix_at_two_sites_is_srv6_011s_when_the_vrf_rides_srv6(
    example: Path, rides: bool
) -> None:
    """Both sites' storage hand off the same public /28: within one SRv6 VRF it is SRV6-011's
    overlap (and HANDOFF-015 stays silent, one message per problem); between two separate
    VRFs of the same name it is HANDOFF-015's."""
    aus1, mel1 = example / "intent/aus1", example / "intent/mel1"
    replace_in(aus1 / "tenants.yaml", "gateway_v4: 10.60.4.1/24", "gateway_v4: 198.51.100.1/28")
    replace_in(mel1 / "tenants.yaml", "gateway_v4: 10.160.1.1/24", "gateway_v4: 198.51.100.1/28")
    public = "internet: default, public: [198.51.100.0/28], max_prefix: 10"
    replace_in(
        aus1 / "attachments.yaml",
        "[10.60.0.0/16], internet: none, max_prefix: 10",
        f"[10.60.0.0/16], {public}",
    )
    replace_in(
        mel1 / "tenants.yaml",
        "[10.160.0.0/16], internet: none, max_prefix: 10",
        f"[10.160.0.0/16], {public}",
    )
    if rides:
        _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    result = lint_repo(example)
    assert len(findings_of(result, "SRV6-011")) == (1 if rides else 0)
    line = line_of(mel1 / "tenants.yaml", "public: [198.51.100.0/28]")
    assert findings_of(result, "HANDOFF-015") == (
        []
        if rides
        else [
            f"intent/mel1/tenants.yaml:{line}: public 198.51.100.0/28 of handoff VRF storage "
            "of site mel1 overlaps public 198.51.100.0/28 of handoff VRF storage of site "
            "aus1: the Internet would deliver its traffic to whichever site it enters, to "
            "that site's tenant; give each site's tenants public space of their own"
        ]
    )


@pytest.mark.parametrize("v6_only", [False, True])
def test_srv6_012_sites_with_no_family_in_common(example: Path, v6_only: bool) -> None:
    """aus1's storage is IPv4; mel1's too (the example) or made IPv6-only."""
    if v6_only:
        tenants = example / "intent/mel1/tenants.yaml"
        replace_in(tenants, "gateway_v4: 10.160.1.1/24", 'gateway_v6: "2001:db8:160:1::1/64"')
        replace_in(tenants, "export_north: [10.160.0.0/16]", 'export_north: ["2001:db8:160::/48"]')
    line = _vrfs(example, "    storage: {id: 10, sites: [aus1, mel1]}\n")
    expected = [
        f"{SRV6}:{line}: VRF storage rides SRv6 between aus1 and mel1, but its networks route "
        "IPv4 at aus1 and IPv6 at mel1: the two ends have no family in common to exchange; "
        "give them networks of one family"
    ]
    assert findings_of(lint_repo(example), "SRV6-012") == (expected if v6_only else [])


# --- SRV6-013 ---------------------------------------------------------------------------------

AUS1_LINKS = "intent/aus1/links.yaml"
MEL1_LINKS = "intent/mel1/links.yaml"


def _pair_link_mtu(repo: Path, links: str, index: int, speed: str, mtu: int) -> int:
    """The `index`-th explicit link (a border pair link) of a site at IP MTU `mtu`; its line."""
    replace_in(
        repo / links,
        f"index: {index}, speed: {speed}}}",
        f"index: {index}, speed: {speed}, mtu: {mtu}}}",
    )
    return line_of(repo / links, f"index: {index}, speed: {speed}, mtu: {mtu}}}")


def _pair_finding(links: str, line: int, site: str, port: str, mtu: int) -> str:
    """SRV6-013's message for a pair link, written out: storage's networks are 9000 bytes (the
    network default) at every site, so 9040 is the least a pair link on its way carries."""
    return (
        f"{links}:{line}: border pair link {site}-br1 {port} - {site}-br2 {port} carries IP "
        f"packets of {mtu} bytes, but the SRv6 domain's IS-IS runs over it and VRF storage "
        "crosses it over SRv6 with networks of up to 9000 bytes: 9000 + 40 (outer IPv6) + 0 "
        "(SRH) = 9040, dropped whenever a border reaches the far site through its pair (its own "
        "DCI circuit down); raise the link's mtu to at least 9040 or lower the networks'"
    )


@pytest.mark.parametrize(("mtu", "found"), [(9040, False), (9039, True), (1500, True)])
def test_srv6_013_a_pair_link_of_a_vrf_site_carries_the_encapsulated_packet(
    example: Path, mtu: int, found: bool
) -> None:
    """storage rides SRv6 between aus1 and mel1 (both on IOS-XR): aus1's first pair link at
    `mtu`. Before SRV6-013 a pair link at an Internet MTU of 1500 linted clean (EVPN-001 skips
    the pair, SRV6-002 reads the DCI circuits only), and IS-IS ran over it."""
    mel1_borders_to_iosxr(example)
    line = _pair_link_mtu(example, AUS1_LINKS, 0, "400G", mtu)
    expected = [_pair_finding(AUS1_LINKS, line, "aus1", "FourHundredGigE0/0/0/24", mtu)]
    assert findings_of(lint_repo(example), "SRV6-013") == (expected if found else [])


def test_srv6_013_leaves_a_pair_link_alone_where_no_vrf_rides_srv6(example: Path) -> None:
    """The same 1500-byte pair link with mel1's borders in the domain but no SRv6 VRF: the
    pair carries no tenant packet, and nothing is said."""
    mel1_borders_to_iosxr(example)
    replace_in(example / SRV6, "  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n", "")
    _pair_link_mtu(example, AUS1_LINKS, 0, "400G", 1500)
    assert findings_of(lint_repo(example), "SRV6-013") == []


def _chain_of_three_sites(repo: Path, vrf_sites: str) -> None:
    """aus1 - mel1 - per1, every border on IOS-XR and in the domain, per1 (a copy of mel1)
    joined to mel1 by one circuit; storage rides SRv6 between `vrf_sites`."""
    mel1_borders_to_iosxr(repo)
    srv6 = repo / SRV6
    replace_in(srv6, "    mel1: {id: 2}\n", "    mel1: {id: 2, devices: []}\n")
    add_third_site(repo)
    replace_in(srv6, "mel1: {id: 2, devices: []}", "mel1: {id: 2}")
    replace_in(
        srv6,
        "    storage: {id: 10, sites: [aus1, mel1]}\n",
        f"    storage: {{id: 10, sites: [{vrf_sites}]}}\n",
    )
    replace_in(
        repo / DCI,
        "  diverse_groups:",
        "    mel-per-1:\n"
        "      index: 2\n"
        "      a: {site: mel1, device: mel1-br1, interface: FourHundredGigE0/0/0/28, "
        "room: mel1-mmr1, entrance: east}\n"
        "      b: {site: per1, device: per1-br1, interface: FourHundredGigE0/0/0/28, "
        "room: per1-mmr1, entrance: east}\n"
        "      speed: 400G\n"
        "      latency_ms: 20\n"
        "      leased: {provider: wavecarrier, capacity_gbps: 400, monthly: 55000, "
        "term_months: 36}\n"
        "  diverse_groups:",
    )


@pytest.mark.parametrize(
    ("vrf_sites", "named"), [("aus1, per1", ["mel1", "per1"]), ("aus1, mel1", ["mel1"])]
)
def test_srv6_013_a_pair_link_in_a_site_between_two_vrf_sites(
    example: Path, vrf_sites: str, named: list[str]
) -> None:
    """One pair link of mel1 and one of per1 at 1500 bytes. per1's circuit lands on mel1-br1
    and aus1's second one on mel1-br2, so storage between aus1 and per1 crosses mel1's pair,
    which is checked though mel1 is not one of its sites. Between aus1 and mel1, per1 leads
    nowhere else: its pair link is on no way of storage and is not named."""
    _chain_of_three_sites(example, vrf_sites)
    assert lint_repo(example).errors == []
    per1_links = "intent/per1/links.yaml"
    lines = {
        "mel1": _pair_link_mtu(example, MEL1_LINKS, 0, "100G", 1500),
        "per1": _pair_link_mtu(example, per1_links, 1, "100G", 1500),
    }
    where = {
        "mel1": (MEL1_LINKS, "HundredGigE0/0/0/29"),
        "per1": (per1_links, "HundredGigE0/0/0/30"),
    }
    expected = [
        _pair_finding(where[site][0], lines[site], site, where[site][1], 1500) for site in named
    ]
    assert findings_of(lint_repo(example), "SRV6-013") == expected


# --- SRV6-015 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["pool", "no pool", "first link's own", "no vrf"])
def test_srv6_015_a_pair_link_inside_the_domain_has_ipv6(example: Path, case: str) -> None:
    """mel1's IOS-XR borders hold locators and IS-IS runs over their two pair links. Without
    mel1's p2p_v6 pool the lint said nothing about SRv6 (ADDR-019 warns of the loopbacks only)
    and the pair links were rendered into IS-IS's IPv6 topology with no IPv6 address."""
    mel1_borders_to_iosxr(example)
    site = example / "intent/mel1/site.yaml"
    if case != "pool":
        replace_in(site, "      p2p_v6: 2001:db8:2:1000::/52\n", "")
    if case == "first link's own":  # a link's own ipv6 counts
        replace_in(
            example / MEL1_LINKS,
            "index: 0, speed: 100G}",
            'index: 0, speed: 100G, ipv6: "2001:db8:2:1000::/127"}',
        )
    if case == "no vrf":  # in the domain all the same: IS-IS is rendered over the pair
        replace_in(example / SRV6, "  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n", "")
    expected = [
        f"{MEL1_LINKS}:{line_of(example / MEL1_LINKS, f'index: {i}, speed: 100G')}: border "
        f"pair link mel1-br1 {port} - mel1-br2 {port} has no IPv6 address (site mel1 has no "
        "pools.p2p_v6 and the link sets no ipv6), but both borders hold SRv6 locators and the "
        "domain's IS-IS runs its IPv6 topology over it: no SRv6 packet can cross the pair, so "
        "a border whose DCI circuit is down reaches no other site through it; give site mel1 "
        "a pools.p2p_v6 or the link an ipv6"
        for i, port in ((0, "HundredGigE0/0/0/29"), (1, "HundredGigE0/0/0/30"))
    ]
    want = {"pool": [], "first link's own": expected[1:]}.get(case, expected)
    assert findings_of(lint_repo(example), "SRV6-015") == want


# --- SRV6-016 ---------------------------------------------------------------------------------


def _loop_finding(repo: Path, far: str, near: str, far_spines: str, near_spines: str) -> str:
    site = f"intent/{near}/site.yaml"
    return (
        f"{site}:{line_of(repo / site, '    asn:')}: VRF storage rides SRv6 from {far} to {near}, "
        f"and {far}'s routes of it can arrive with AS paths holding ASN 4200009000 "
        f"({far_spines}), which {near_spines} of {near} also run: BGP drops a route whose AS "
        "path holds its own ASN (meetme renders no allowas-in), so "
        f"{far}'s storage prefixes stop there; give the two sites ASNs of their own"
    )


@pytest.mark.parametrize(
    ("shared_spine", "rides", "found"),
    [(4200008999, True, True), (4200009000, True, False), (4200008999, False, False)],
)
def test_srv6_016_two_sites_of_a_vrf_on_one_spine_asn(
    example: Path, shared_spine: int, rides: bool, found: bool
) -> None:
    """mel1's pod spines take asn.shared.spine + the pod id: 4200008999 gives pod1's spines
    aus1's spine ASN 4200009000 (4200009000 gives them 4200009001, pod2 4200009002). storage's
    routes cross each site's spines, so with storage riding SRv6 each site's spines drop the
    other's (the lint was clean); without the VRF the sites share no route and nothing is said."""
    mel1_borders_to_iosxr(example)
    replace_in(example / "intent/mel1/site.yaml", "spine: 4200109100", f"spine: {shared_spine}")
    if not rides:
        replace_in(example / SRV6, "  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n", "")
    aus1_spines = "aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4"
    expected = [
        _loop_finding(example, "mel1", "aus1", "mel1-sp11, mel1-sp12", aus1_spines),
        _loop_finding(example, "aus1", "mel1", aus1_spines, "mel1-sp11, mel1-sp12"),
    ]
    assert findings_of(lint_repo(example), "SRV6-016") == (expected if found else [])


# --- SRV6-014 ---------------------------------------------------------------------------------


def _finding_014(repo: Path, border: str) -> str:
    line = line_of(repo / "intent/mel1/devices.yaml", f"      {border}:")
    return (
        f"intent/mel1/devices.yaml:{line}: {border} carries SRv6 VRF storage but has no IPv6 "
        f"loopback (site mel1 has no pools.loopback_v6 and {border} sets no loopback_v6): the "
        "VPN sessions between the sites' borders run between IPv6 loopbacks, which also source "
        f"the SRv6 encapsulation, so the other sites' borders render no session to {border} and "
        "its own never come up; give site mel1 a pools.loopback_v6"
    )


MEL1_LOOPBACK_V6 = "      loopback_v6: 2001:db8:2:ff::/64\n"


@pytest.mark.parametrize("case", ["pool", "no pool", "br1 own", "no vrf"])
def test_srv6_014_a_border_of_an_srv6_vrf_needs_an_ipv6_loopback(example: Path, case: str) -> None:
    """mel1's IOS-XR borders carry storage over SRv6. Without mel1's loopback_v6 pool the lint
    was clean, and aus1-br1 rendered no VPN session to mel1's borders while theirs pointed at
    aus1 from a Loopback0 with no IPv6 address; the VRF reached nothing across the sites."""
    mel1_borders_to_iosxr(example)
    if case != "pool":
        replace_in(example / "intent/mel1/site.yaml", MEL1_LOOPBACK_V6, "")
    if case == "br1 own":  # a device's own address counts
        replace_in(
            example / "intent/mel1/devices.yaml",
            "        management: 192.168.20.11/24\n",
            "        management: 192.168.20.11/24\n        loopback_v6: 2001:db8:2:ff::1/128\n",
        )
    if case == "no vrf":  # in the domain but carrying no VRF: no session, nothing encapsulated
        replace_in(example / SRV6, "  vrfs:\n    storage: {id: 10, sites: [aus1, mel1]}\n", "")
    expected = {
        "pool": [],
        "no pool": [_finding_014(example, "mel1-br1"), _finding_014(example, "mel1-br2")],
        "br1 own": [_finding_014(example, "mel1-br2")],
        "no vrf": [],
    }[case]
    assert findings_of(lint_repo(example), "SRV6-014") == expected


def test_srv6_014_stops_the_half_rendered_vpn(example: Path) -> None:
    """What a user runs: `meetme render` exits 1 and writes nothing, naming both borders."""
    mel1_borders_to_iosxr(example)
    replace_in(example / "intent/mel1/site.yaml", MEL1_LOOPBACK_V6, "")
    result = CliRunner().invoke(app, ["render"])
    assert result.exit_code == 1, result.output
    assert result.output.count("SRV6-014") == 2
    assert not (example / "rendered").exists()


# --- PLAT-018 / PLAT-019: the platforms that cannot -------------------------------------------


def test_srv6_l3vpn_to_eos_borders_exits_1_naming_device_platform_and_feature(
    example: Path,
) -> None:
    _storage_between_sites(example, "mel1: {id: 2}")
    result = CliRunner().invoke(app, ["lint"])
    assert result.exit_code == 1, result.output
    lint = lint_repo(example)
    line = line_of(example / SRV6, "    storage: {id: 10")
    eos = "Arista EOS"
    l3vpn = findings_of(lint, "PLAT-018")
    assert len(l3vpn) == 2
    for border in ("mel1-br1", "mel1-br2"):
        match = [g for g in l3vpn if g.startswith(f"{SRV6}:{line}: {border} (")]
        assert len(match) == 1
        assert eos in match[0]
        assert "cannot render SRv6 L3VPN for VRF storage (BGP VPNv4/VPNv6" in match[0]
        assert "no BGP L3VPN over SRv6" in match[0]
    locator = findings_of(lint, "PLAT-019")
    assert [g.split(": ", 1)[1].split(" (")[0] for g in locator] == ["mel1-br1", "mel1-br2"]
    assert all("cannot render an SRv6 uSID locator (F3216 5f00:0:201::/48)" in g or
               "5f00:0:202::/48" in g for g in locator)  # fmt: skip


def test_a_locator_on_a_spectrum_3_switch_is_refused(example: Path) -> None:
    """aus1-bl5 is an SN4700 (Spectrum-3): Cumulus programs SRv6 on Spectrum-4 only."""
    replace_in(example / SRV6, "aus1-lf1, aus1-lf2]", "aus1-lf1, aus1-lf2, aus1-bl5]")
    got = findings_of(lint_repo(example), "PLAT-019")
    assert got == [
        f"{SRV6}:{line_of(example / SRV6, 'aus1: {id')}: aus1-bl5 (NVIDIA Cumulus Linux 5.16 "
        "(NVUE)) cannot render an SRv6 uSID locator (F3216 5f00:0:119::/48): SN4700 (Spectrum-3) "
        "is not Spectrum-4: Cumulus Linux 5.14+ 'Segment Routing': transit uN/uA SIDs on "
        "Spectrum-4 only, no BGP services over SRv6"
    ]


def test_iosxr_takes_no_f1616_locator(example: Path) -> None:
    replace_in(example / SRV6, "format: F3216", "format: F1616")
    got = findings_of(lint_repo(example), "PLAT-019")
    line = line_of(example / SRV6, "format: F1616")
    assert [g.split(": ", 2)[1].split(" ")[0] for g in got] == ["aus1-br1", "aus1-br2"]
    assert all(g.startswith(f"{SRV6}:{line}: ") for g in got)
    assert all("it takes the F3216 format only" in g for g in got)


def test_a_locator_on_nxos_is_refused_by_name(example: Path) -> None:
    """aus1-lf3 is a Nexus 9000 leaf: no NX-OS SRv6 form was found."""
    replace_in(example / SRV6, "aus1-lf1, aus1-lf2]", "aus1-lf1, aus1-lf2, aus1-lf3]")
    assert findings_of(lint_repo(example), "PLAT-019") == [
        f"{SRV6}:{line_of(example / SRV6, 'aus1: {id')}: aus1-lf3 (Cisco NX-OS) cannot render "
        "an SRv6 uSID locator (F3216 5f00:0:167::/48): no SRv6 form found for NX-OS on the "
        "Nexus 9000 (docs/srv6.md#platforms)"
    ]
