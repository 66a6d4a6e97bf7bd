"""The VRF-lite handoff: EVPN-013 and HANDOFF-*; each rule passes on the example and fails on
one realistic edit, at the exact line."""

from __future__ import annotations

from pathlib import Path

from conftest import findings_of, line_of, lint_repo, private_vrfs_online, replace_in
from overlay_edits import (
    ATTACHMENTS,
    TENANTS,
    edit_attachments,
    edit_tenants,
)

from meetme.pipeline import LintResult

FEATURE_RULES = ("EVPN-", "HANDOFF-")
# the example's one: mel1's gpu-b gets the Internet's default route but has private IPv4 only
# (the organisation's one IPv4 /24 is aus1's), so its IPv4 hosts need a NAT beyond meetme
EXAMPLE_NAT = ("HANDOFF-013", "sites.mel1.handoff.vrfs.gpu-b.internet")


def _feature_findings(result: LintResult) -> list[tuple[str, str]]:
    """(rule, path) of the EVPN and handoff findings the example does not have."""
    found = [(f.rule, f.path) for f in result.findings if f.rule.startswith(FEATURE_RULES)]
    return [f for f in found if f != EXAMPLE_NAT]


def test_example_handoff_findings_are_mel1s_private_ipv4_internet_only(example: Path) -> None:
    result = lint_repo(example)
    found = [f for f in result.findings if f.rule.startswith(FEATURE_RULES)]
    assert [(f.rule, f.path, f.severity) for f in found] == [(*EXAMPLE_NAT, "warning")]


# --- EVPN-013, HANDOFF-001: the handoff's devices --------------------------------------------


def test_evpn013_handoff_from_a_leaf(example: Path) -> None:
    attachments = edit_attachments(
        example, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1, aus1-lf1]"
    )
    result = lint_repo(example)
    assert findings_of(result, "EVPN-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}: handoff border leaf aus1-lf1 "
        "is a leaf: the handoff runs on border leaves, over their links to the border routers; "
        "name a border_leaf"
    ]
    assert result.errors


def test_handoff001_border_leaves_not_cabled_to_the_borders(example: Path) -> None:
    links = example / "intent/aus1/links.yaml"
    text = links.read_text()
    start = text.index("      - name: border-leaf-to-border-eos")
    end = text.index("      - name: border-leaf-to-border-nxos")
    links.write_text(text[:start] + text[end:])
    attachments = example / ATTACHMENTS
    at = f"{ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}"
    why = (
        "has no link to a border router: each handed-off VRF rides a sub-interface of a "
        "border-leaf-to-border link, so nothing would be handed off there; cable it to the "
        "borders (link_rules or links) or remove it"
    )
    assert findings_of(lint_repo(example), "HANDOFF-001") == [
        f"{at}: handoff border leaf aus1-bl1 {why}",
        f"{at}: handoff border leaf aus1-bl2 {why}",
    ]


# --- HANDOFF-002: what the border leaves learn ---------------------------------------------------


def test_handoff002_handed_off_vrf_without_l3vni(example: Path) -> None:
    edit_tenants(example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {vlan: 3001}")
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "HANDOFF-002") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'gpu-a:   {vlan: 3101')}: handoff VRF gpu-a (VRF "
        "gpu-a of tenant gpu-tenant-a) has no l3vni: the border leaves learn its subnets from "
        "the leaves over the L3VNI (symmetric IRB), so they would hand nothing to the borders; "
        "give the VRF an l3vni"
    ]


def handoff_from_the_nxos_border_leaves(repo: Path) -> Path:
    return edit_attachments(
        repo, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl3, aus1-bl4]"
    )


def test_evpn021_nxos_handoff_border_leaves_are_named_with_the_leaves(example: Path) -> None:
    """NX-OS border leaves that hand a VRF off carry it without carrying any of its networks:
    the one finding for the VRF names them beside the NX-OS leaves of its networks, and
    neither a handoff rule nor the models' gap (PLAT-008, once per switch) says it again."""
    handoff_from_the_nxos_border_leaves(example)
    tenants = edit_tenants(
        example, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {l3vni: 50001}"
    )
    result = lint_repo(example)
    assert [f.rule for f in result.errors] == ["EVPN-021"]
    assert findings_of(result, "EVPN-021") == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a:      {l3vni: 50001}')}: VRF gpu-a of tenant "
        "gpu-tenant-a is carried by aus1-bl3, aus1-bl4, aus1-lf3, aus1-lf4 on Cisco NX-OS, "
        "which maps the L3VNI 50001 through a carrier VLAN: give the VRF a vlan (an id no "
        "network on those switches uses)"
    ]


# --- HANDOFF-004, HANDOFF-005: handoff VLANs -------------------------------------------------


def test_handoff004_two_vrfs_with_one_handoff_vlan(example: Path) -> None:
    attachments = edit_attachments(example, "storage: {vlan: 3110", "storage: {vlan: 3101")
    assert findings_of(lint_repo(example), "HANDOFF-004") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'storage: {vlan: 3101')}: vlan 3101 of handoff "
        "VRF storage is also the vlan of handoff VRF gpu-a: both would be sub-interface "
        "<link>.3101 on every handoff link; give each VRF its own vlan"
    ]


def test_handoff005_handoff_vlan_bridged_on_the_border_leaves(example: Path) -> None:
    edit_tenants(
        example,
        "mtu: 1500, racks: [dh1-r10, dh2-r10]}",
        "mtu: 1500, racks: [dh1-r10, dh2-r10], leaves: [aus1-bl1, aus1-bl2]}",
    )  # gpu-a-oob-1 (VLAN 111) also on the handoff border leaves
    attachments = edit_attachments(example, "gpu-a:   {vlan: 3101", "gpu-a:   {vlan: 111")
    assert findings_of(lint_repo(example), "HANDOFF-005") == [
        f"{ATTACHMENTS}:{line_of(attachments, '{vlan: 111')}: vlan 111 of handoff VRF gpu-a is "
        "also the VLAN of network gpu-tenant-a/gpu-a-oob-1 on aus1-bl1, aus1-bl2: one VLAN id "
        "is one thing per switch; choose another handoff vlan"
    ]


def test_handoff005_handoff_vlan_of_a_network_elsewhere_is_fine(example: Path) -> None:
    edit_attachments(example, "gpu-a:   {vlan: 3101", "gpu-a:   {vlan: 111")  # on dh1/dh2 only
    assert findings_of(lint_repo(example), "HANDOFF-005") == []


def test_handoff005_handoff_vlan_is_an_nxos_carrier_vlan(example: Path) -> None:
    attachments = handoff_from_the_nxos_border_leaves(example)
    replace_in(attachments, "storage: {vlan: 3110", "storage: {vlan: 3001")
    assert findings_of(lint_repo(example), "HANDOFF-005") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'storage: {vlan: 3001')}: vlan 3001 of handoff "
        "VRF storage is also the VLAN of VRF gpu-a of tenant gpu-tenant-a (L3VNI carrier) on "
        "aus1-bl3, aus1-bl4: one VLAN id is one thing per switch; choose another handoff vlan"
    ]


# --- HANDOFF-006..HANDOFF-009: what goes north -----------------------------------------------


def test_handoff006_ipv6_export_over_ipv4_only_links(example: Path) -> None:
    """IPv6 goes north on the links' /127s; without pools.p2p_v6 the links have none."""
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", 'export_north: [10.50.0.0/16, "2001:db8:50::/48"]'
    )
    replace_in(example / "intent/aus1/site.yaml", "      p2p_v6: 2001:db8:0:1000::/52\n", "")
    found = findings_of(lint_repo(example), "HANDOFF-006")
    assert found[0] == (
        f"{ATTACHMENTS}:{line_of(attachments, '2001:db8:50::/48')}: export_north "
        "2001:db8:50::/48 of handoff VRF gpu-a is IPv6, but the handoff links (aus1-bl1 "
        "Ethernet1/1, aus1-bl1 Ethernet2/1, aus1-bl1 Ethernet3/1, aus1-bl1 Ethernet4/1, aus1-bl2 "
        "Ethernet1/1, aus1-bl2 Ethernet2/1, aus1-bl2 Ethernet3/1, aus1-bl2 Ethernet4/1) have no "
        "IPv6 addresses, so it would never be advertised; give the site a pools.p2p_v6 or "
        "remove it"
    )


def test_handoff006_ipv6_export_with_ipv6_links_is_fine(example: Path) -> None:
    edit_attachments(
        example, "export_north: [10.50.0.0/16]", 'export_north: [10.50.0.0/16, "2001:db8:50::/48"]'
    )
    assert findings_of(lint_repo(example), "HANDOFF-006") == []


def test_handoff007_export_matching_no_gateway_subnet(example: Path) -> None:
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", "export_north: [10.70.0.0/16]"
    )
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-007") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.70.0.0/16')}: export_north 10.70.0.0/16 of "
        "handoff VRF gpu-a matches none of the VRF's gateway subnets (10.50.1.0/24, "
        "2001:db8:50:1::/64, 10.50.2.0/24, 2001:db8:50:2::/64, 10.50.3.0/24, 10.50.4.0/24, "
        "198.51.100.128/26, 2001:db8:4000:50::/64): the border leaves would advertise nothing "
        "for it; write a prefix covering the subnets to export"
    ]
    assert result.errors


def test_handoff008_gateway_subnet_longer_than_the_handoff_exports(example: Path) -> None:
    edit_tenants(example, "gateway_v4: 10.50.4.1/24", "gateway_v4: 10.50.4.1/25")
    attachments = example / ATTACHMENTS
    assert findings_of(lint_repo(example), "HANDOFF-008") == [
        f"{ATTACHMENTS}:{line_of(attachments, '10.50.0.0/16')}: gateway subnet 10.50.4.0/25 of "
        "network gpu-tenant-a/gpu-a-compute-4 lies in export_north 10.50.0.0/16 of handoff VRF "
        "gpu-a, but the handoff exports subnets of it up to /24, so it would not go north; add "
        "10.50.4.0/25 to export_north"
    ]
    # as its own entry it is exported exactly, and overlapping its own VRF's export is fine
    replace_in(
        attachments, "export_north: [10.50.0.0/16]", "export_north: [10.50.0.0/16, 10.50.4.0/25]"
    )
    assert _feature_findings(lint_repo(example)) == []


def test_handoff009_exports_of_two_vrfs_overlap(example: Path) -> None:
    attachments = edit_attachments(
        example, "export_north: [10.50.0.0/16]", "export_north: [10.0.0.0/8]"
    )
    assert findings_of(lint_repo(example), "HANDOFF-009") == [
        f"{ATTACHMENTS}:{line_of(attachments, other)}: export_north {other} of handoff VRF "
        f"{vrf} overlaps 10.0.0.0/8 of handoff VRF gpu-a: the borders would learn the same "
        "addresses from two tenants' VRFs and route one's traffic to the other once they meet "
        "north of the border; export disjoint prefixes"
        for vrf, other in (("gpu-a-mgmt", "10.51.0.0/16"), ("storage", "10.60.0.0/16"))
    ]


# --- HANDOFF-013: Internet access needs a public source ---------------------------------------


def test_handoff013_private_only_vrfs_with_internet_access(example: Path) -> None:
    """The example as it was: storage and gpu-a-mgmt route private space only, yet asked for a
    default route; one warning per VRF and family, at its `internet:` value."""
    private_vrfs_online(example)
    result = lint_repo(example)
    attachments = example / ATTACHMENTS
    tenants = example / "intent/mel1/tenants.yaml"
    tail = (
        "would get a default route and reach the Internet from addresses we do not announce, "
        "so no reply comes back; list the VRF's public subnets under `public`, or set "
        "`internet: none` (a NAT beyond meetme's configs: waive this finding)"
    )
    assert findings_of(result, "HANDOFF-013") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'gpu-a-mgmt: {vlan: 3102')}: handoff VRF "
        "gpu-a-mgmt of site aus1 has `internet: default` but no public IPv4 prefix: its hosts "
        f"(10.51.1.0/24, 10.51.2.0/24) {tail}",
        f"{ATTACHMENTS}:{line_of(attachments, 'storage: {vlan: 3110')}: handoff VRF storage of "
        "site aus1 has `internet: default` but no public IPv4 prefix: its hosts (10.60.1.0/24, "
        f"10.60.2.0/24, 10.60.3.0/24, 10.60.4.0/24) {tail}",
        f"intent/mel1/tenants.yaml:{line_of(tenants, 'gpu-b:   {vlan: 3101')}: handoff VRF "
        "gpu-b of site mel1 has `internet: default` but no public IPv4 prefix: its hosts "
        f"(10.150.1.0/24, 10.150.2.0/24) {tail}",
        f"intent/mel1/tenants.yaml:{line_of(tenants, 'storage: {vlan: 3110')}: handoff VRF "
        "storage of site mel1 has `internet: default` but no public IPv4 prefix: its hosts "
        f"(10.160.1.0/24) {tail}",
    ]
    assert {f.severity for f in result.findings if f.rule == "HANDOFF-013"} == {"warning"}
    assert result.errors == []


def test_handoff013_is_per_family(example: Path) -> None:
    """gpu-a keeps its public IPv4 prefix and loses its IPv6 one: IPv6 only is named, with
    every IPv6 subnet the VRF routes; IPv4 is quiet though its compute subnets are private."""
    replace_in(
        example / ATTACHMENTS,
        'public: [198.51.100.128/26, "2001:db8:4000:50::/64"]',
        "public: [198.51.100.128/26]",
    )
    result = lint_repo(example)
    (message,) = [m for m in findings_of(result, "HANDOFF-013") if "VRF gpu-a " in m]
    assert (
        "handoff VRF gpu-a of site aus1 has `internet: default` but no public IPv6 prefix: its "
        "hosts (2001:db8:50:1::/64, 2001:db8:50:2::/64, 2001:db8:4000:50::/64) would get"
    ) in message


def test_handoff013_one_public_prefix_in_the_family_is_enough(example: Path) -> None:
    """The boundary: aus1 storage online with a single public IPv4 prefix covering one of its
    four subnets is quiet; the other two private VRFs still warn."""
    private_vrfs_online(example)
    replace_in(
        example / ATTACHMENTS,
        "export_north: [10.60.0.0/16], internet: default,",
        "export_north: [10.60.0.0/16], internet: default, public: [198.51.100.0/28],",
    )
    edit_tenants(example, "gateway_v4: 10.60.4.1/24", "gateway_v4: 198.51.100.1/28")
    result = lint_repo(example)
    assert [m.split(": handoff VRF ")[1][:24] for m in findings_of(result, "HANDOFF-013")] == [
        "gpu-a-mgmt of site aus1 ",
        "gpu-b of site mel1 has `",
        "storage of site mel1 has",
    ]
    assert result.errors == []


# --- HANDOFF-015: a public prefix belongs to one site -----------------------------------------


def test_handoff015_one_public_prefix_at_two_sites(example: Path) -> None:
    """mel1's front ends copied from aus1's: both sites leak 198.51.100.128/26 into their
    Internet tables, so whichever site the traffic enters delivers it to its own tenant."""
    tenants = example / "intent/mel1/tenants.yaml"
    replace_in(
        tenants,
        'gateway_v6: "2001:db8:4100:60::1/64"',
        'gateway_v4: 198.51.100.129/26, gateway_v6: "2001:db8:4100:60::1/64"',
    )
    replace_in(
        tenants,
        'public: ["2001:db8:4100:60::/64"]',
        'public: [198.51.100.128/26, "2001:db8:4100:60::/64"]',
    )
    result = lint_repo(example)
    line = line_of(tenants, "public: [198.51.100.128/26,")
    assert findings_of(result, "HANDOFF-015") == [
        f"intent/mel1/tenants.yaml:{line}: public 198.51.100.128/26 of handoff VRF gpu-b of "
        "site mel1 overlaps public 198.51.100.128/26 of handoff VRF gpu-a of site aus1: the "
        "Internet would deliver its traffic to whichever site it enters, to that site's "
        "tenant; give each site's tenants public space of their own"
    ]


# --- HANDOFF-017: a site's aggregate draws only its own public prefixes ---------------------


def _mel1_aggregate(repo: Path, aggregate: str) -> Path:
    """mel1's public aggregates, in place of its 2001:db8:4100::/40."""
    site = repo / "intent/mel1/site.yaml"
    replace_in(
        site,
        '    aggregates: {public: ["2001:db8:4100::/40"]}\n',
        f'    aggregates: {{public: [{aggregate}, "2001:db8:4100::/40"]}}\n',
    )
    return site


def test_handoff017_a_site_aggregate_over_another_sites_public_prefix(example: Path) -> None:
    """mel1 announces 2001:db8:4000::/40 by itself: the Internet sends aus1's front ends
    (2001:db8:4000:50::/64) to mel1, which has only the /40's discard route for them."""
    site = _mel1_aggregate(example, '"2001:db8:4000::/40"')
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-017") == [
        f"intent/mel1/site.yaml:{line_of(site, 'aggregates:')}: site mel1's public aggregate "
        "2001:db8:4000::/40 overlaps public 2001:db8:4000:50::/64 of handoff VRF gpu-a of site "
        "aus1: the Internet would send that tenant's traffic to mel1's borders, which do not "
        "leak it and drop it at the aggregate's discard route; keep each site's aggregates "
        "clear of the other sites' public prefixes"
    ]
    assert result.errors


def test_handoff017_boundaries(example: Path) -> None:
    """2001:db8:4000:40::/60 ends at :4f::, one /64 short of aus1's :50::/64 (just outside);
    2001:db8:4000:50::/60 begins at it (just inside)."""
    site = _mel1_aggregate(example, '"2001:db8:4000:40::/60"')
    assert findings_of(lint_repo(example), "HANDOFF-017") == []
    replace_in(site, '"2001:db8:4000:40::/60"', '"2001:db8:4000:50::/60"')
    assert [m.split(": ", 1)[1][:60] for m in findings_of(lint_repo(example), "HANDOFF-017")] == [
        "site mel1's public aggregate 2001:db8:4000:50::/60 overlaps "
    ]


# --- HANDOFF-016, PHY-003/004: the handoff survives one border leaf or room -----------------


def test_handoff016_a_handoff_on_one_border_leaf(example: Path) -> None:
    attachments = edit_attachments(
        example, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1]"
    )
    result = lint_repo(example)
    assert findings_of(result, "HANDOFF-016") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'border_leaves:')}: the handoff of site aus1 "
        "runs on aus1-bl1 alone: its failure would cut every handed-off VRF off from the "
        "borders; add a second border leaf, in another room and cooling zone"
    ]
    assert result.errors == []  # a warning


def test_the_handoffs_border_leaves_stay_apart_like_the_borders(example: Path) -> None:
    """aus1-bl1 and aus1-bl3 both stand in rack mdf-a-r02 of aus1-mdf-a: one room, cooling
    zone, rack and floor for the tenants' only way north, said once, of the room. The
    example's bl1 and bl2 (two MDFs) and the NX-OS pair bl3, bl4 are the boundary: apart,
    nothing said."""
    edit_attachments(
        example, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1, aus1-bl3]"
    )
    result = lint_repo(example)
    group = "the handoff's border leaves"
    devices = (example / "intent/aus1/devices.yaml").read_text().splitlines()
    room = next(  # aus1-bl3's own `room:` line
        n
        for n, text in enumerate(devices, 1)
        if n > devices.index("      aus1-bl3:") and "room:" in text
    )
    assert findings_of(result, "PHY-003") == [
        f"intent/aus1/devices.yaml:{room}: {group}: aus1-bl3 shares room aus1-mdf-a and so "
        "cooling zone crah-1 with aus1-bl1; move aus1-bl3 to a room on another cooling loop"
    ]
    # the rack and the floor come with the room: one finding, whose fix moves them too
    assert findings_of(result, "PHY-004") == []
    assert findings_of(result, "HANDOFF-016") == []
    replace_in(example / ATTACHMENTS, "[aus1-bl1, aus1-bl3]", "[aus1-bl3, aus1-bl4]")
    apart = lint_repo(example)
    assert [f for f in apart.findings if f.rule.startswith("PHY-")] == []


# --- HANDOFF-018: a tenant subnet in our announced space is a public prefix of its handoff ---
# The borders announce 198.51.100.0/24 and 2001:db8:4000::/36 (organisation.yaml); handoff VRF
# gpu-a has `public: [198.51.100.128/26, "2001:db8:4000:50::/64"]`, gpu-a-public's subnets.

COMPUTE_4 = "gpu-a-compute-4: {vrf: gpu-a, vlan: 104, l2vni: 10104, gateway_v4: 10.50.4.1/24"
GPU_A_PUBLIC = 'public: [198.51.100.128/26, "2001:db8:4000:50::/64"]'
GREEN = """\
      green:
        vrfs:
          green: {l3vni: 50020, vlan: 3020}
        networks:
          green-web: {vrf: green, vlan: 301, l2vni: 10301, gateway_v4: 198.51.100.1/26, \
racks: [dh2-r10]}
"""


def _handoff018(result: object) -> list[str]:
    return findings_of(result, "HANDOFF-018")  # type: ignore[arg-type]


def _gateway_at(path: Path, needle: str, key: str) -> str:
    """file:line:column of `key` on the line holding `needle` (a flow mapping's key)."""
    line = line_of(path, needle)
    column = path.read_text().splitlines()[line - 1].index(key) + 1
    return f"{TENANTS}:{line}:{column}"


def test_handoff018_public_subnet_outside_the_vrfs_public_prefixes(example: Path) -> None:
    """The reviewer's case: a network numbered from the announced /24 beside the VRF's public
    /26; the borders hold no route to it but the aggregate's discard route."""
    tenants = example / TENANTS
    replace_in(tenants, COMPUTE_4, COMPUTE_4.replace("10.50.4.1/24", "198.51.100.193/26"))
    result = lint_repo(example)
    line = line_of(tenants, "gpu-a-compute-4:")
    assert _handoff018(result) == [
        f"{TENANTS}:{line}: network gpu-tenant-a/gpu-a-compute-4 has gateway 198.51.100.193/26 "
        "in 198.51.100.0/24, which the borders announce, but no `public` prefix of handoff VRF "
        "gpu-a holds it: the Internet's traffic for 198.51.100.192/26 stops at the borders' "
        "discard route and its hosts get no reply; add 198.51.100.192/26 to the VRF's handoff "
        "`public`, or number the network from private space"
    ]
    assert result.errors
    # exactly the subnet listed as public: clean
    attachments = example / ATTACHMENTS
    replace_in(
        attachments,
        GPU_A_PUBLIC,
        'public: [198.51.100.128/26, 198.51.100.192/26, "2001:db8:4000:50::/64"]',
    )
    assert _handoff018(lint_repo(example)) == []


def test_handoff018_public_ipv6_gateway_is_reported_at_its_own_key(example: Path) -> None:
    tenants = example / TENANTS
    old = 'gateway_v4: 10.50.2.1/24, gateway_v6: "2001:db8:50:2::1/64"'
    replace_in(tenants, old, old.replace("2001:db8:50:2::1/64", "2001:db8:4000:51::1/64"))
    (found,) = [f for f in lint_repo(example).findings if f.rule == "HANDOFF-018"]
    assert str(found.location).endswith(_gateway_at(tenants, "gpu-a-compute-2:", "gateway_v6"))
    assert "has gateway 2001:db8:4000:51::1/64 in 2001:db8:4000::/36" in found.message


def test_handoff018_a_vrf_in_no_handoff(example: Path) -> None:
    tenants = example / TENANTS
    replace_in(tenants, "      storage:\n", GREEN + "      storage:\n")
    assert _handoff018(lint_repo(example)) == [
        f"{TENANTS}:{line_of(tenants, 'green-web:')}: network green/green-web has gateway "
        "198.51.100.1/26 in 198.51.100.0/24, which the borders announce, but VRF green is in "
        "no handoff of site aus1: the Internet's traffic for 198.51.100.0/26 stops at the "
        "borders' discard route and its hosts get no reply; hand VRF green off "
        "(`handoff.vrfs`) with `internet: default` and `public: [198.51.100.0/26]`, or number "
        "the network from private space"
    ]


def test_handoff007_leaves_networks_on_leafless_racks_to_evpn020(example: Path) -> None:
    """The storage networks and gpu-a's front ends on the borders' rack (no leaf): EVPN-020
    names each network; the exports that match their subnets said it again as HANDOFF-007,
    with "it has none" for a VRF whose gateways are all written."""
    tenants = example / TENANTS
    tenants.write_text(tenants.read_text().replace("racks: [dh2-r10]}", "racks: [mdf-a-r01]}"))
    result = lint_repo(example)
    assert sorted({f.rule for f in result.errors}) == ["EVPN-020"]
    assert len(result.errors) == 5  # gpu-a-public and storage-front-1..4


def test_handoff008_a_public_prefix_over_a_longer_subnet_says_to_write_the_subnet(
    example: Path,
) -> None:
    """gpu-a-public made a /27 under its /26 public prefix: neither the north export nor the
    borders' leak into the Internet table matches a /27 with a /26 entry (longer than /24:
    exact). One finding, at the public prefix, saying to write the /27 there; HANDOFF-018
    says nothing more, and the fix it gives lints clean."""
    tenants = example / TENANTS
    replace_in(tenants, "gateway_v4: 198.51.100.129/26", "gateway_v4: 198.51.100.129/27")
    result = lint_repo(example)
    attachments = example / ATTACHMENTS
    assert [f"{f.rule} {f.location.line}: {f.message}" for f in result.errors] == [
        f"HANDOFF-008 {line_of(attachments, GPU_A_PUBLIC)}: gateway subnet 198.51.100.128/27 of "
        "network gpu-tenant-a/gpu-a-public lies in public 198.51.100.128/26 of handoff VRF "
        "gpu-a, but the handoff exports 198.51.100.128/26 itself, so it would not go north nor "
        "reach the Internet; write it in public in that prefix's place"
    ]
    replace_in(attachments, "public: [198.51.100.128/26,", "public: [198.51.100.128/27,")
    assert lint_repo(example).errors == []


# --- HANDOFF-019: a public prefix lies under an aggregate its site alone announces ----------


def _without_site_aggregates(repo: Path) -> None:
    """The example as it was: no site aggregates, both sites announce the organisation's."""
    for site in ("aus1", "mel1"):
        path = repo / f"intent/{site}/site.yaml"
        kept = [x for x in path.read_text().splitlines(True) if not x.startswith("    aggregates:")]
        path.write_text("".join(kept))


def test_handoff019_public_prefixes_under_the_aggregates_both_sites_announce(
    example: Path,
) -> None:
    """Without site aggregates both sites announce 198.51.100.0/24 and 2001:db8:4000::/36:
    the Internet's traffic for either site's front ends enters at both, and the other site
    drops it. Each public prefix is named once, with the fix that fits its family: the /24
    can only be claimed whole, the /36 leaves room for a site's own aggregate."""
    _without_site_aggregates(example)
    result = lint_repo(example)
    attachments = example / ATTACHMENTS
    line = line_of(attachments, GPU_A_PUBLIC)
    v4 = attachments.read_text().splitlines()[line - 1].index("198.51.100.128/26") + 1
    dropped = (
        "meets the discard route for {a} there and is dropped (no site carries another's "
        "Internet routes); "
    )
    found = [f for f in result.findings if f.rule == "HANDOFF-019"]
    assert [(f.location.file, f.location.line, f.severity) for f in found] == [
        (ATTACHMENTS, line, "error"),
        (ATTACHMENTS, line, "error"),
        (
            "intent/mel1/tenants.yaml",
            line_of(example / "intent/mel1/tenants.yaml", "gpu-b:   {"),
            "error",
        ),
    ]
    assert found[0].location.column == v4
    assert found[0].message == (
        "public 198.51.100.128/26 of handoff VRF gpu-a lies under 198.51.100.0/24, which mel1 "
        "announces as well: the Internet's traffic for it that enters at mel1 "
        + dropped.format(a="198.51.100.0/24")
        + "claim 198.51.100.0/24 for site aus1 by writing it in sites.aus1.aggregates.public"
    )
    assert found[1].message == (
        "public 2001:db8:4000:50::/64 of handoff VRF gpu-a lies under 2001:db8:4000::/36, which "
        "mel1 announces as well: the Internet's traffic for it that enters at mel1 "
        + dropped.format(a="2001:db8:4000::/36")
        + "give site aus1 a public aggregate of its own inside 2001:db8:4000::/36 that holds it "
        "(sites.aus1.aggregates.public), or claim 2001:db8:4000::/36 by writing it there"
    )
    assert found[2].message.startswith("public 2001:db8:4100:60::/64 of handoff VRF gpu-b lies")


def test_handoff019_a_site_aggregate_counts_only_when_the_internet_carries_it(
    example: Path,
) -> None:
    """aus1's own IPv6 aggregate at /48, the longest the Internet carries, holds its front
    ends (just inside: quiet); at /49 the Internet drops it (ADDR-016) and the shared /36 is
    again the longest announcement that holds them (just outside)."""
    site = example / "intent/aus1/site.yaml"
    replace_in(site, '"2001:db8:4000::/40"', '"2001:db8:4000::/48"')
    assert findings_of(lint_repo(example), "HANDOFF-019") == []
    replace_in(site, '"2001:db8:4000::/48"', '"2001:db8:4000::/49"')
    result = lint_repo(example)
    assert [m.split(": ", 1)[1][:86] for m in findings_of(result, "HANDOFF-019")] == [
        "public 2001:db8:4000:50::/64 of handoff VRF gpu-a lies under 2001:db8:4000::/36, which"
    ]
    assert [f.rule for f in result.findings if f.rule == "ADDR-016"] == ["ADDR-016"]


def test_handoff019_a_claimed_aggregate_is_the_claiming_sites_alone(example: Path) -> None:
    """mel1 claims the /24 that aus1 claims as well: ADDR-013 names the overlap, and both
    sites announce it again, so aus1's front ends are drawn to mel1 too."""
    replace_in(
        example / "intent/mel1/site.yaml",
        '{public: ["2001:db8:4100::/40"]}',
        '{public: [198.51.100.0/24, "2001:db8:4100::/40"]}',
    )
    result = lint_repo(example)
    assert findings_of(result, "ADDR-013")
    assert [m.split(": ", 1)[1][:84] for m in findings_of(result, "HANDOFF-019")] == [
        "public 198.51.100.128/26 of handoff VRF gpu-a lies under 198.51.100.0/24, which mel1"
    ]
