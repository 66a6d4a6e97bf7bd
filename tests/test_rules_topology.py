"""TOPO-001/002/004/005: the four broken topologies of issue 13 (a leaf without uplinks, a leaf
with 1 of 4, an extra spine-to-super-spine link, every leaf on one ASN) each stop the lint with
a TOPO finding at the intent line; each limit is tried just inside and just outside."""

import re
from pathlib import Path

import pytest
from conftest import findings_of, line_of, lint_repo, replace_in
from two_pods import three_tier, two_pods
from typer.testing import CliRunner
from variants import front_ends_private

from meetme.cli import app

TOPO_RULES = ("TOPO-001", "TOPO-002", "TOPO-004", "TOPO-005", "TOPO-006", "TOPO-007", "TOPO-009")
DEVICES = "intent/aus1/devices.yaml"
SITE = "intent/aus1/site.yaml"

# An EOS leaf: no link rule selects EOS leaves, so it has only the links a test gives it.
LF7 = """\
      aus1-lf7:
        id: 107
        role: leaf
        platform: arista_eos
        model: 7060X6-64PE
        room: aus1-dh2
        rack: dh2-r10
        management: 192.168.10.107/24
"""
# The example's links.yaml ends with its explicit `links:` list: these are items of it.
LF7_TO_SPINE = (
    "      - {a: {device: aus1-lf7, interface: Ethernet%d/1}, "
    "b: {device: aus1-sp%d, interface: Ethernet%d/1}, index: %d, speed: 400G}\n"
)


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def add_lf7(repo: Path, *spines: int) -> int:
    """Add leaf aus1-lf7 with one 400G link to each spine number given (spine n is aus1-spn,
    spine-side port 20, 21 … for repeats); the line of its device entry."""
    devices = repo / DEVICES
    append(devices, LF7)
    for index, spine in enumerate(spines):
        port = 20 + spines[:index].count(spine)
        append(repo / "intent/aus1/links.yaml", LF7_TO_SPINE % (index + 1, spine, port, index))
    return line_of(devices, "aus1-lf7:")


def lint_exit(repo: Path) -> tuple[int, str]:
    outcome = CliRunner().invoke(app, ["lint"])
    return outcome.exit_code, outcome.output


def test_example_has_no_topo_findings(example: Path) -> None:
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in TOPO_RULES] == []
    assert result.errors == []


# TOPO-001 ----------------------------------------------------------------------------------


def test_topo001_leaf_without_uplinks_stops_the_lint(example: Path) -> None:
    line = add_lf7(example)
    code, out = lint_exit(example)
    assert code == 1
    assert f"{line}:7  error    TOPO-001  leaf aus1-lf7 has no uplink" in out
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 has no uplink to any spine; link it to every spine "
        "of aus1 (aus1-sp1, aus1-sp2, aus1-sp3, aus1-sp4) by a link rule or explicit links"
    ]


@pytest.mark.parametrize(
    ("spines", "missing"),
    [((1,), "aus1-sp2, aus1-sp3, aus1-sp4"), ((1, 2, 3), "aus1-sp4")],
)
def test_topo001_leaf_missing_spines(example: Path, spines: tuple[int, ...], missing: str) -> None:
    line = add_lf7(example, *spines)
    code, _ = lint_exit(example)
    assert code == 1
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 reaches {len(spines)} of 4 spines (no link to "
        f"{missing}); link it to every spine by a link rule or explicit links"
    ]


def test_topo001_leaf_on_every_spine_is_clean(example: Path) -> None:
    add_lf7(example, 1, 2, 3, 4)
    result = lint_repo(example)
    assert result.errors == []
    assert lint_exit(example)[0] == 0


def test_topo001_one_link_too_many_to_one_spine(example: Path) -> None:
    line = add_lf7(example, 1, 2, 3, 4, 2)
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 uplinks unequally (aus1-sp1 1x400G, aus1-sp2 2x400G, "
        "aus1-sp3 1x400G, aus1-sp4 1x400G); give every spine the same count and speed of links"
    ]


def test_topo001_two_links_to_every_spine_is_clean(example: Path) -> None:
    add_lf7(example, 1, 2, 3, 4, 1, 2, 3, 4)
    assert findings_of(lint_repo(example), "TOPO-001") == []


def test_topo001_border_leaf_with_a_spine_link_reaches_every_spine(example: Path) -> None:
    # Border leaves cabled to the borders only are PHY-006's (the example); one spine link
    # makes the border leaf part of the leaf tier, which then needs every spine.
    append(
        example / "intent/aus1/links.yaml",
        "      - {a: {device: aus1-bl1, interface: Ethernet30/1}, "
        "b: {device: aus1-sp1, interface: Ethernet20/1}, index: 50, speed: 100G}\n",
    )
    line = line_of(example / DEVICES, "aus1-bl1:")
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: border_leaf aus1-bl1 reaches 1 of 4 spines (no link to aus1-sp2, "
        "aus1-sp3, aus1-sp4); link it to every spine by a link rule or explicit links"
    ]


def _without_borders(repo: Path) -> None:
    """aus1 with no border routers: no edge, no handoff, no DCI; its border leaves keep only
    their cloud attachments and are cabled to nothing (their link rules were to the borders).
    With no way north, gpu-a's front ends are numbered from private space (HANDOFF-018)."""
    site = repo / "intent/aus1"
    devices = site / "devices.yaml"
    devices.write_text(re.sub(r"      aus1-br\d:\n(        .*\n)+", "", devices.read_text()))
    (site / "peering.yaml").write_text(
        "sites:\n  aus1:\n    peering:\n      edge: {site_code: 101}\n"
    )
    circuits = site / "circuits.yaml"
    circuits.write_text(re.sub(r".*XC-(IX|TA|TB|PNI)-.*\n", "", circuits.read_text()))
    links = site / "links.yaml"
    text = re.sub(r"      - name: spine-to-border.*\n(        .*\n)+", "", links.read_text())
    links.write_text(text[: text.index("      # Border leaves are dual-homed")])
    attachments = site / "attachments.yaml"
    attachments.write_text(attachments.read_text().split("    # VRF-lite from")[0])
    (repo / "intent/dci.yaml").unlink()
    replace_in(repo / "intent/srv6.yaml", "[aus1-br1, aus1-br2, aus1-lf1", "[aus1-lf1")
    front_ends_private(repo)


def test_topo001_border_leaves_of_a_site_without_borders_reach_the_spines(example: Path) -> None:
    """Without border routers PHY-006 checks nothing, and an uncabled border leaf lint clean:
    it rendered EVPN sessions to the spines' loopbacks with no underlay to reach them, and its
    cloud routes never left it."""
    _without_borders(example)
    result = lint_repo(example)
    expected = [
        f"{DEVICES}:{line_of(example / DEVICES, f'aus1-bl{n}:')}: border_leaf aus1-bl{n} has no "
        "uplink to any spine; link it to every spine of aus1 (aus1-sp1, aus1-sp2, aus1-sp3, "
        "aus1-sp4) by a link rule or explicit links"
        for n in range(1, 7)
    ]
    assert findings_of(result, "TOPO-001") == expected
    assert [f.rule for f in result.errors] == ["TOPO-001"] * 6


def test_topo001_border_leaves_cabled_to_every_spine_without_borders_are_clean(
    example: Path,
) -> None:
    _without_borders(example)
    rules = "".join(
        f"      - name: border-leaf-to-spine-{platform}\n"
        f'        a: {{role: border_leaf, platform: {platform}, interface: "{port}", '
        "first: 20, peer_id_base: 11}\n"
        '        b: {role: spine, interface: "Ethernet{n}/1", first: 40, peer_id_base: 21}\n'
        "        speed: 100G\n"
        for platform, port in (
            ("arista_eos", "Ethernet{n}/1"),
            ("cisco_nxos", "Ethernet1/{n}"),
            ("nvidia_nvue", "swp{n}"),
        )
    )
    append(example / "intent/aus1/links.yaml", rules)
    assert lint_repo(example).errors == []


def test_topo001_leaves_of_a_site_without_spines(example: Path) -> None:
    """aus1 without its spines linted clean on the leaves: each rendered no underlay session
    and no EVPN peer, so no network spanning two leaves joined up. The border leaves still
    uplink to the borders (PHY-006's)."""
    devices = example / DEVICES
    devices.write_text(re.sub(r"      aus1-sp\d:\n(        .*\n)+", "", devices.read_text()))
    links = example / "intent/aus1/links.yaml"
    links.write_text(
        re.sub(
            r"      - name: (spine-to-border|leaf-to-spine-\w+).*\n(        .*\n)+",
            "",
            links.read_text(),
        )
    )
    expected = [
        f"{DEVICES}:{line_of(devices, f'{leaf}:')}: leaf {leaf} has no spine to uplink to: "
        "aus1 has none, so it has no underlay session and no EVPN peer; add spines (role: "
        "spine) and link it to every one by a link rule or explicit links"
        for leaf in ("aus1-lf1", "aus1-lf2", "aus1-lf5", "aus1-lf6", "aus1-lf3", "aus1-lf4")
    ]
    assert findings_of(lint_repo(example), "TOPO-001") == expected


# TOPO-002: a 3-tier site: two EOS super-spines take the borders' links from the spines ------


def test_three_tier_site_is_clean(example: Path) -> None:
    three_tier(example)
    result = lint_repo(example)
    assert result.errors == []


def test_topo002_extra_spine_to_super_spine_link_stops_the_lint(example: Path) -> None:
    three_tier(example)
    append(
        example / "intent/aus1/links.yaml",
        "      - {a: {device: aus1-sp1, interface: Ethernet20/1}, "
        "b: {device: aus1-ss1, interface: Ethernet30/1}, index: 100, speed: 400G}\n",
    )
    code, out = lint_exit(example)
    assert code == 1
    line = line_of(example / DEVICES, "aus1-sp1:")
    assert f"{line}:7  error    TOPO-002" in out
    assert findings_of(lint_repo(example), "TOPO-002") == [
        f"{DEVICES}:{line}: spine aus1-sp1 uplinks unequally (aus1-ss1 2x400G, aus1-ss2 "
        "1x400G); give every super-spine the same count and speed of links"
    ]


SP1_TO_SUPER_SPINE = (
    "      - {a: {device: aus1-sp1, interface: Ethernet%d/1}, "
    "b: {device: aus1-ss%d, interface: Ethernet30/1}, index: %d, speed: 400G}\n"
)


def test_topo002_a_second_link_to_every_super_spine_is_clean(example: Path) -> None:
    three_tier(example)
    links = example / "intent/aus1/links.yaml"
    append(links, SP1_TO_SUPER_SPINE % (20, 1, 100) + SP1_TO_SUPER_SPINE % (21, 2, 101))
    result = lint_repo(example)
    assert findings_of(result, "TOPO-002") == []
    assert result.errors == []


# TOPO-004 ----------------------------------------------------------------------------------


def test_topo004_every_leaf_on_one_asn_stops_the_lint(example: Path) -> None:
    site = example / SITE
    replace_in(
        site, "        spine: 4200009000", "        spine: 4200009000\n        leaf: 4200009100"
    )
    code, out = lint_exit(example)
    assert code == 1
    line = line_of(site, "leaf: 4200009100")
    assert f"{line}:9  error    TOPO-004" in out
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{SITE}:{line}: asn.shared gives every leaf one ASN 4200009100 (aus1-lf1, aus1-lf2, "
        "aus1-lf3, aus1-lf4 and 2 more); a leaf needs an ASN of its own: remove leaf from "
        "asn.shared (ASN = base + id), or declare an MLAG or vPC pair in asn.shared_pairs"
    ]


def lf2_takes_lf1_asn(repo: Path) -> int:
    devices = repo / DEVICES
    replace_in(devices, "192.168.10.102/24\n", "192.168.10.102/24\n        asn: 4200000101\n")
    return line_of(devices, "asn: 4200000101")


def test_topo004_two_leaves_on_one_asn_undeclared(example: Path) -> None:
    line = lf2_takes_lf1_asn(example)
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{DEVICES}:{line}: leaf aus1-lf2 has ASN 4200000101, as aus1-lf1 does; a leaf needs an "
        "ASN of its own unless the two are an MLAG or vPC pair listed in asn.shared_pairs"
    ]


def test_topo004_declared_pair_may_share(example: Path) -> None:
    lf2_takes_lf1_asn(example)
    replace_in(
        example / SITE,
        "        spine: 4200009000",
        "        spine: 4200009000\n      shared_pairs: [[aus1-lf2, aus1-lf1]]",
    )
    result = lint_repo(example)
    assert findings_of(result, "TOPO-004") == []
    assert result.errors == []


def test_topo004_third_leaf_on_a_declared_pairs_asn(example: Path) -> None:
    lf2_takes_lf1_asn(example)
    replace_in(
        example / SITE,
        "        spine: 4200009000",
        "        spine: 4200009000\n      shared_pairs: [[aus1-lf1, aus1-lf2]]",
    )
    devices = example / DEVICES
    replace_in(devices, "192.168.10.105/24\n", "192.168.10.105/24\n        asn: 4200000101\n")
    lf2_line = line_of(devices, "asn: 4200000101")
    lf5_line = line_of(devices, "asn: 4200000101", 2)
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{DEVICES}:{lf2_line}: leaf aus1-lf2 has ASN 4200000101, as aus1-lf1 does; a leaf "
        "needs an ASN of its own unless the two are an MLAG or vPC pair listed in "
        "asn.shared_pairs",
        f"{DEVICES}:{lf5_line}: leaf aus1-lf5 has ASN 4200000101, as aus1-lf1 does; a leaf "
        "needs an ASN of its own unless the two are an MLAG or vPC pair listed in "
        "asn.shared_pairs",
    ]


def test_topo004_unknown_device_in_a_shared_pair_is_unusable_input(example: Path) -> None:
    replace_in(
        example / SITE,
        "        spine: 4200009000",
        "        spine: 4200009000\n      shared_pairs: [[aus1-lf1, aus1-lf9]]",
    )
    code, out = lint_exit(example)
    assert code == 2
    line = line_of(example / SITE, "shared_pairs")
    assert f"{SITE}:{line}:" in out and "unknown device 'aus1-lf9'" in out


def test_topo004_spines_without_a_shared_asn(example: Path) -> None:
    site = example / SITE
    replace_in(site, "      shared:\n        spine: 4200009000", "      shared: {}")
    line = line_of(site, "    asn:")
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{SITE}:{line}: the spines of aus1 have 4 ASNs (aus1-sp1 4200000011, aus1-sp2 "
        "4200000012, aus1-sp3 4200000013, aus1-sp4 4200000014); spines share one ASN: add "
        "spine to asn.shared"
    ]


def test_topo004_one_spine_overrides_the_shared_asn(example: Path) -> None:
    devices = example / DEVICES
    replace_in(devices, "192.168.10.24/24\n", "192.168.10.24/24\n        asn: 4200009001\n")
    line = line_of(devices, "asn: 4200009001")
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{DEVICES}:{line}: spine aus1-sp4 has ASN 4200009001, not the spines' shared ASN "
        "4200009000; spines share one ASN: remove the override"
    ]


def test_topo004_super_spines_on_the_spines_asn(example: Path) -> None:
    three_tier(example)
    site = example / SITE
    replace_in(site, "super_spine: 4200009500", "super_spine: 4200009000")
    line = line_of(site, "super_spine: 4200009000")
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{SITE}:{line}: super-spine aus1-ss1 has ASN 4200009000, the spines' ASN; give the "
        "super-spines an ASN of their own (asn.shared: {super_spine: ...})"
    ]


# TOPO-005: the four Cumulus leaves of hall 1, two per rack (dh1-r10: lf1, lf2; dh1-r11: lf5, lf6)


def n_plus_k(repo: Path, group: str) -> Path:
    devices = repo / DEVICES
    append(devices, f"    redundancy_groups:\n      hall1: {{{group}}}\n")
    return devices


MEMBERS = "members: [aus1-lf1, aus1-lf2, aus1-lf5, aus1-lf6]"


def test_topo005_two_per_rack_allowed_is_clean(example: Path) -> None:
    n_plus_k(example, f"{MEMBERS}, max_per_domain: 2")
    result = lint_repo(example)
    assert result.errors == []  # PHY-003/004 leave an N+k group alone


def test_topo005_one_per_rack_allowed(example: Path) -> None:
    devices = n_plus_k(example, f"{MEMBERS}, max_per_domain: 1, domains: [rack]")
    assert findings_of(lint_repo(example), "TOPO-005") == [
        f"{DEVICES}:{line_of(devices, 'rack: dh1-r10', 2)}: redundancy group hall1 allows 1 per "
        "rack, but rack dh1-r10 holds 2 (aus1-lf1, aus1-lf2); move aus1-lf2 to another rack",
        f"{DEVICES}:{line_of(devices, 'rack: dh1-r11', 2)}: redundancy group hall1 allows 1 per "
        "rack, but rack dh1-r11 holds 2 (aus1-lf5, aus1-lf6); move aus1-lf6 to another rack",
    ]


@pytest.mark.parametrize(("k", "found"), [(3, 1), (4, 0)])
def test_topo005_members_per_room(example: Path, k: int, found: int) -> None:
    devices = n_plus_k(example, f"{MEMBERS}, max_per_domain: {k}, domains: [room]")
    expected = [
        f"{DEVICES}:{line_of(devices, 'room: aus1-dh1', 6)}: redundancy group hall1 allows 3 "
        "per room, but room aus1-dh1 holds 4 (aus1-lf1, aus1-lf2, aus1-lf5, aus1-lf6); move "
        "aus1-lf6 to another room"
    ]
    assert findings_of(lint_repo(example), "TOPO-005") == expected[:found]


def test_topo005_unrecorded_domain_is_reported(example: Path) -> None:
    devices = n_plus_k(
        example, "members: [aus1-lf1, aus1-lf5], max_per_domain: 1, domains: [conduit]"
    )
    replace_in(
        devices,
        "192.168.10.101/24\n",
        "192.168.10.101/24\n        failure_domains: {conduit: c1}\n",
    )
    line = line_of(devices, "aus1-lf5:")
    assert findings_of(lint_repo(example), "TOPO-005") == [
        f"{DEVICES}:{line}: redundancy group hall1 counts its members per conduit, but aus1-lf5 "
        "records no conduit; record it on aus1-lf5 or its room aus1-dh1"
    ]


def test_all_apart_group_is_still_phys(example: Path) -> None:
    """Without max_per_domain every member must stand apart: the four leaves of aus1-dh1 share
    its room, PHY-003's finding for each (their racks and floor come with it: PHY-004 is
    quiet), and TOPO-005 counts nothing."""
    n_plus_k(example, MEMBERS)
    result = lint_repo(example)
    assert findings_of(result, "TOPO-005") == []
    assert findings_of(result, "PHY-004") == []
    line = line_of(example / DEVICES, "room: aus1-dh1", 4)  # aus1-lf2's
    assert next(m for m in findings_of(result, "PHY-003") if "hall1" in m) == (
        f"{DEVICES}:{line}: redundancy group hall1: aus1-lf2 shares room aus1-dh1 and so "
        "cooling zone cdu-1 with aus1-lf1; move aus1-lf2 to a room on another cooling loop"
    )


def test_domains_without_max_per_domain_is_unusable_input(example: Path) -> None:
    n_plus_k(example, f"{MEMBERS}, domains: [rack]")
    code, out = lint_exit(example)
    assert code == 2
    assert "give max_per_domain" in out


# Pods (TOPO-001 per pod, TOPO-006, TOPO-007): the example as two pods (tests/two_pods.py) --------


def test_two_pod_site_is_clean(example: Path) -> None:
    two_pods(example)
    result = lint_repo(example)
    assert [f for f in result.findings if f.rule in TOPO_RULES] == []
    assert result.errors == []


def add_pod_leaf(repo: Path, pod: str, *spines: int) -> int:
    """aus1-lf7 in `pod`, with one 400G link to each spine number given; its line."""
    line = add_lf7(repo, *spines)
    replace_in(repo / DEVICES, "        id: 107\n", f"        id: 107\n        pod: {pod}\n")
    return line


def test_topo001_a_pod_leaf_needs_its_pods_spines_only(example: Path) -> None:
    two_pods(example)
    add_pod_leaf(example, "hall2", 3, 4)
    result = lint_repo(example)
    assert result.errors == []


def test_topo001_a_pod_leaf_missing_a_spine_of_its_pod(example: Path) -> None:
    two_pods(example)
    line = add_pod_leaf(example, "hall2", 3)
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 reaches 1 of 2 spines of pod hall2 (no link to "
        "aus1-sp4); link it to every spine by a link rule or explicit links"
    ]


def test_topo001_a_pod_leaf_without_uplinks(example: Path) -> None:
    two_pods(example)
    line = add_pod_leaf(example, "hall1")
    code, _ = lint_exit(example)
    assert code == 1
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 has no uplink to any spine of pod hall1; link it to "
        "every spine of pod hall1 (aus1-sp1, aus1-sp2) by a link rule or explicit links"
    ]


def test_topo001_a_leaf_in_a_pod_without_spines(example: Path) -> None:
    two_pods(example, pods="      hall1: {id: 1}\n      hall2: {id: 2}\n      hall3: {id: 3}\n")
    add_pod_leaf(example, "hall3", 3, 4)
    line = line_of(example / DEVICES, "pod: hall3")
    assert findings_of(lint_repo(example), "TOPO-001") == [
        f"{DEVICES}:{line}: leaf aus1-lf7 is in pod hall3, which has no spine; give pod hall3 "
        "spines or move the leaf to a pod that has them"
    ]


def test_topo006_two_pods_on_one_spine_asn(example: Path) -> None:
    two_pods(
        example,
        pods="      hall1: {id: 1, asn: 4200009100}\n      hall2: {id: 2, asn: 4200009100}\n",
    )
    code, _ = lint_exit(example)
    assert code == 1
    line = line_of(example / SITE, "hall2: {id: 2")
    assert findings_of(lint_repo(example), "TOPO-006") == [
        f"{SITE}:{line}: spine aus1-sp3 of pod hall2 has ASN 4200009100, as the spines of pod "
        "hall1 do; routes between the two pods would be dropped as AS-path loops: give pod "
        "hall2 an ASN of its own"
    ]


def test_topo006_a_pod_asn_on_another_pods_default(example: Path) -> None:
    """hall1's asn is what hall2 gets by default (asn.shared.spine + 2)."""
    two_pods(example, pods="      hall1: {id: 1, asn: 4200009002}\n      hall2: {id: 2}\n")
    assert len(findings_of(lint_repo(example), "TOPO-006")) == 1


def test_topo006_one_asn_apart_is_clean(example: Path) -> None:
    two_pods(
        example,
        pods="      hall1: {id: 1, asn: 4200009100}\n      hall2: {id: 2, asn: 4200009101}\n",
    )
    assert findings_of(lint_repo(example), "TOPO-006") == []


def test_topo004_a_spine_overriding_its_pods_asn(example: Path) -> None:
    two_pods(example)
    replace_in(
        example / DEVICES, "        pod: hall2\n", "        pod: hall2\n        asn: 4200009777\n"
    )
    line = line_of(example / DEVICES, "asn: 4200009777")
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{DEVICES}:{line}: spine aus1-sp3 has ASN 4200009777, not pod hall2's spine ASN "
        "4200009002; a pod's spines share one ASN: remove the override"
    ]


def test_topo007_a_link_from_a_leaf_to_another_pods_spine(example: Path) -> None:
    two_pods(example)
    append(
        example / "intent/aus1/links.yaml",
        "      - {a: {device: aus1-lf3, interface: Ethernet1/40}, "
        "b: {device: aus1-sp1, interface: Ethernet20/1}, index: 60, speed: 400G}\n",
    )
    line = line_of(example / "intent/aus1/links.yaml", "index: 60")
    code, _ = lint_exit(example)
    assert code == 1
    assert findings_of(lint_repo(example), "TOPO-007") == [
        f"intent/aus1/links.yaml:{line}: link #2 joins aus1-lf3 Ethernet1/40 (pod hall2) and "
        "aus1-sp1 Ethernet20/1 (pod hall1); pods meet only at the super-spines: link each "
        "device within its own pod"
    ]


def drop_shared_spine_asn(repo: Path) -> None:
    lines = (repo / SITE).read_text().splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith("        spine: 4200009000")]
    assert len(kept) == len(lines) - 1
    (repo / SITE).write_text("".join(kept))


def test_topo004_pod_spines_without_a_pod_asn_or_shared_spine_asn(example: Path) -> None:
    """No asn.shared.spine and no pod asn: each spine keeps base + id, reported per pod."""
    two_pods(example)
    drop_shared_spine_asn(example)
    site = example / SITE
    assert findings_of(lint_repo(example), "TOPO-004") == [
        f"{SITE}:{line_of(site, f'{pod}: {{id:')}: the spines of pod {pod} have 2 ASNs; a pod's "
        f"spines share one: give pod {pod} an asn, or add spine to asn.shared (a pod's spines "
        "then get it + the pod id)"
        for pod in ("hall1", "hall2")
    ]


def test_topo004_a_pod_asn_without_a_shared_spine_asn_is_clean(example: Path) -> None:
    two_pods(
        example,
        pods="      hall1: {id: 1, asn: 4200009100}\n      hall2: {id: 2, asn: 4200009200}\n",
    )
    drop_shared_spine_asn(example)
    assert findings_of(lint_repo(example), "TOPO-004") == []


# --- TOPO-010: underlay.ecmp installs every uplink ------------------------------------------
# Counted from the example's links: aus1's six leaves each have one link to each of its four
# spines; mel1 (3-tier) has four spines with two links to each of its two super-spines, and six
# leaves with one link to each of their pod's two spines.


def _ecmp(repo: Path, site: str, paths: int) -> None:
    replace_in(repo / f"intent/{site}/site.yaml", "ecmp: 64", f"ecmp: {paths}")


def test_topo010_ecmp_just_below_a_leafs_uplinks_warns_at_the_line(example: Path) -> None:
    _ecmp(example, "aus1", 3)
    result = lint_repo(example)
    assert findings_of(result, "TOPO-010") == [
        f"intent/aus1/site.yaml:{line_of(example / SITE, 'ecmp: 3')}: underlay.ecmp is 3, but leaf "
        "aus1-lf1 has 4 uplinks to the spines (5 other devices also more than 3): BGP installs "
        "3 paths per prefix, so 1 uplink carries none of a prefix's traffic until another "
        "fails; set ecmp to at least 4"
    ]
    assert {f.severity for f in result.findings if f.rule == "TOPO-010"} == {"warning"}


def test_topo010_ecmp_equal_to_the_uplinks_is_clean(example: Path) -> None:
    _ecmp(example, "aus1", 4)
    _ecmp(example, "mel1", 4)
    assert findings_of(lint_repo(example), "TOPO-010") == []


def test_topo010_one_path_in_a_three_tier_site_names_the_super_spine_uplinks(
    example: Path,
) -> None:
    _ecmp(example, "mel1", 1)
    site = example / "intent/mel1/site.yaml"
    assert findings_of(lint_repo(example), "TOPO-010") == [
        f"intent/mel1/site.yaml:{line_of(site, 'ecmp: 1')}: underlay.ecmp is 1, but spine "
        "mel1-sp11 has 4 uplinks to the super-spines (9 other devices also more than 1): BGP "
        "installs 1 path per prefix, so 3 uplinks carry none of a prefix's traffic until "
        "another fails; set ecmp to at least 4"
    ]
