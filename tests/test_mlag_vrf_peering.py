"""An EOS MLAG pair shares one VTEP address, so a route one leaf alone learns in a tenant VRF
(its cloud session there) is sent by the fabric to either leaf: the pair peers in each such VRF
over a VLAN of the VRF's own on the peer link (Arista AVD eos_designs `mlag_ibgp_peering_vrfs`).

The scenario: the example's EOS border leaves aus1-bl1 (id 21) and aus1-bl2 (id 22) made an
MLAG pair (tests/variants.py's EOS_MLAG), and the AWS on-ramp on aus1-bl1 alone (its
circuit XC-AWS-1 with the private VIF in gpu-a and the transit VIF in storage). Worked out by
hand: the peer VLAN's /31 is the last link slot (127) of the lower id's block of p2p_v4
10.1.0.0/16 with 128 links per device, 2 x (21 x 128 + 127) = 5630 = 10.1.21.254/31, bl1 the
lower address; each leaf's ASN is base 4200000000 + its id, so the VRF sessions are eBGP; the
VLANs are the VRFs' own `vlan:` (gpu-a 3001, gpu-a-mgmt 3002, storage 3010). gpu-a and storage
are peered for the AWS routes bl1 alone learns, and all three for the handoff links each leaf
alone has to the borders: bl1's four /31s are the first link slots of its block, 2 x 21 x 128 =
5376 = 10.1.21.0/31 to 10.1.21.6/31, bl2's 10.1.22.0/31 to 10.1.22.6/31, and in gpu-a (the
only handoff VRF with IPv6 sessions) their /127s from 2001:db8:0:1000::/52, 2 x 21 x 128 =
0x1500 and 2 x 22 x 128 = 0x1600; gpu-a's IPv6 session rides the peer VLAN's /127 (slot 5630,
0x15fe).
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

from ciscoconfparse2 import CiscoConfParse
from conftest import (
    EXAMPLE_INTENT,
    findings_of,
    line_of,
    lint_repo,
    mel1_borders_to_iosxr,
    replace_in,
)
from helpers import block, under
from meetme.generators.model import RouteMap, RouteMapEntry
from meetme.generators.render import output_name
from meetme.validators.rules.flow import flow_findings
from variants import (
    CIRCUITS,
    CLOUDS,
    TENANTS,
    add,
    eos_mlag_pair_with_one_aws_leaf,
    front_ends_private,
    without_pair_default_clause,
)

from meetme.pipeline import device_models, lint, render_all
from meetme.twin.frr import render_frr
from meetme.twin.topology import plan

SITE = "intent/aus1/site.yaml"
DEVICES = "intent/aus1/devices.yaml"
ATTACHMENTS = "intent/aus1/attachments.yaml"


@cache
def rendered() -> dict[str, str]:
    repo = Path(tempfile.mkdtemp(prefix="meetme-mlagvrf-"))
    try:
        shutil.copytree(EXAMPLE_INTENT, repo / "intent")
        eos_mlag_pair_with_one_aws_leaf(repo)
        result = lint(repo / "intent")
        assert [f.message for f in result.findings if f.severity == "error"] == []
        models = device_models(result)
        files = render_all(models)
        return {name: files[output_name(models[name])] for name in ("aus1-bl1", "aus1-bl2")}
    finally:
        shutil.rmtree(repo)


def eos(text: str) -> CiscoConfParse:
    return CiscoConfParse(text.splitlines(), syntax="ios")


def vrf_block(text: str, asn: int, vrf: str) -> list[str]:
    """The stripped lines of `vrf VRF` under `router bgp ASN`, nested ones included."""
    return under(eos(text), f"router bgp {asn}", f"vrf {vrf}")


def test_a_cloud_session_on_one_eos_mlag_leaf_is_no_longer_refused(example: Path) -> None:
    """PLAT-028 refused this design (the AWS routes of aus1-bl1 black-holed at aus1-bl2 about
    half the time); with the pair peered in gpu-a and storage the lint is clean."""
    eos_mlag_pair_with_one_aws_leaf(example)
    result = lint_repo(example)
    assert findings_of(result, "PLAT-028") == []
    assert [f.message for f in result.findings if f.severity == "error"] == []


def test_both_leaves_carry_each_vrf_peering_vlan_on_the_peer_link() -> None:
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(rendered()[leaf])
        assert block(parse, "vlan 3001") == ["   trunk group MLAG"]
        assert block(parse, "vlan 3010") == ["   trunk group MLAG"]
        assert block(parse, "interface Port-Channel1000")[-1] == "   switchport trunk group MLAG"


def test_both_leaves_put_the_peer_vlan_address_on_an_svi_in_each_vrf() -> None:
    for leaf, peer, address, address6 in (
        ("aus1-bl1", "aus1-bl2", "10.1.21.254/31", "2001:db8:0:1000::15fe/127"),
        ("aus1-bl2", "aus1-bl1", "10.1.21.255/31", "2001:db8:0:1000::15ff/127"),
    ):
        parse = eos(rendered()[leaf])
        for vlan, vrf in ((3001, "gpu-a"), (3002, "gpu-a-mgmt"), (3010, "storage")):
            assert block(parse, f"interface Vlan{vlan}") == [
                f"   description MLAG peer {peer} vrf {vrf}",
                "   no shutdown",
                "   mtu 9214",
                f"   vrf {vrf}",
                f"   ip address {address}",
                # gpu-a's handoff /127s need an IPv6 session
                *([f"   ipv6 address {address6}"] if vrf == "gpu-a" else []),
            ]


def test_both_leaves_peer_in_each_vrf_by_ebgp_with_an_asn_each() -> None:
    for leaf, asn, peer, peer_asn, address in (
        ("aus1-bl1", 4200000021, "aus1-bl2", 4200000022, "10.1.21.255"),
        ("aus1-bl2", 4200000022, "aus1-bl1", 4200000021, "10.1.21.254"),
    ):
        for vlan, vrf in ((3001, "gpu-a"), (3002, "gpu-a-mgmt"), (3010, "storage")):
            lines = vrf_block(rendered()[leaf], asn, vrf)
            assert [x for x in lines if x.startswith(f"neighbor {address} ")] == [
                f"neighbor {address} remote-as {peer_asn}",
                f"neighbor {address} description mlag peer {peer} Vlan{vlan}",
                f"neighbor {address} bfd",
                f"neighbor {address} route-map RM-MLAG-VRF-PEER-V4 in",
                f"neighbor {address} route-map RM-MLAG-VRF-PEER-V4 out",
                f"neighbor {address} send-community standard extended large",
                f"neighbor {address} maximum-routes 12000 warning-limit 80 percent",
                f"neighbor {address} activate",
            ]
            # the peering /31 stays off EVPN; the VRF's other connected subnets go as type-5
            assert "redistribute connected route-map RM-VRF-CONNECTED" in lines
            assert "redistribute connected" not in lines


def test_both_leaves_pass_external_routes_and_their_own_links_and_keep_the_peering_local() -> None:
    """aus1-bl2 has no cloud session of its own, yet matches the same class tags; both leaves
    list the same links, each leaf's own handoff /31s and /127s: what one sends the other
    takes."""
    links_v4 = [f"10.1.{leaf}.{2 * n}/31" for leaf in (21, 22) for n in range(4)]
    links_v6 = [
        f"2001:db8:0:1000::{base + 2 * n:x}/127" for base in (0x1500, 0x1600) for n in range(4)
    ]
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(rendered()[leaf])
        for sfx in ("V4", "V6"):
            assert block(parse, f"route-map RM-MLAG-VRF-PEER-{sfx} permit 10") == [
                "   description what an external party sent the pair",
                "   match large-community LC-LEARNED-EXTERNAL",
            ]
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V4 permit 20") == [
            "   description a link one leaf of the pair alone holds",
            "   match ip address prefix-list PL-MLAG-ONE-LEAF-LINKS-V4",
        ]
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V6 permit 20") == [
            "   description a link one leaf of the pair alone holds",
            "   match ipv6 address prefix-list PL-MLAG-ONE-LEAF-LINKS-V6",
        ]
        assert block(parse, "ip prefix-list PL-MLAG-ONE-LEAF-LINKS-V4") == [
            f"   seq {10 * (i + 1)} permit {subnet}" for i, subnet in enumerate(links_v4)
        ]
        assert block(parse, "ipv6 prefix-list PL-MLAG-ONE-LEAF-LINKS-V6") == [
            f"   seq {10 * (i + 1)} permit {subnet}" for i, subnet in enumerate(links_v6)
        ]
        assert "ip large-community-list LC-LEARNED-EXTERNAL permit 64500:1:400" in rendered()[leaf]
        assert block(parse, "ip prefix-list PL-MLAG-PEER-VRFS-V4") == [
            "   seq 10 permit 10.1.21.254/31"
        ]
        assert "PL-MLAG-OTHER-SITES" not in rendered()[leaf]  # no VRF rides SRv6 here
        assert block(parse, "route-map RM-VRF-CONNECTED deny 10") == [
            "   description the MLAG pair's peering subnet stays on the pair",
            "   match ip address prefix-list PL-MLAG-PEER-VRFS-V4",
        ]


def test_the_pair_passes_its_vrfs_other_sites_prefixes_as_the_handoff_takes_them(
    example: Path,
) -> None:
    """storage over SRv6 to mel1 (conftest.mel1_borders_to_iosxr): the borders hand both
    leaves mel1's storage prefixes, export_north 10.160.0.0/16 with its longer ones to /24, as
    the handoff import takes them. They carry no class tag, so the pair's sessions pass them by
    name, for a leaf cut off from both borders (the SRv6 twin proves it). The example's pair
    without SRv6 has no such clause (test above)."""
    eos_mlag_pair_with_one_aws_leaf(example)
    mel1_borders_to_iosxr(example)
    result = lint_repo(example)
    assert result.errors == []
    models = device_models(result)
    files = render_all(models)
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(files[output_name(models[leaf])])
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V4 permit 30") == [
            "   description the VRFs' other sites, for a leaf cut off from the borders",
            "   match ip address prefix-list PL-MLAG-OTHER-SITES-V4",
        ]
        assert block(parse, "ip prefix-list PL-MLAG-OTHER-SITES-V4") == [
            "   seq 10 permit 10.160.0.0/16 le 24"
        ]
        assert "PL-MLAG-OTHER-SITES-V6" not in files[output_name(models[leaf])]  # IPv4 only


def test_the_pair_passes_the_borders_default_route_by_name() -> None:
    """gpu-a promises a default route (`internet: default`), in IPv4 and IPv6. It reaches the
    pair over eBGP from the IOS-XR borders, which send no community to an eBGP neighbour, so
    no class tag marks it: the pair's sessions pass it by the handoff's own default-route
    list, for a leaf cut off from both borders, and each leaf holds that list once."""
    for leaf in ("aus1-bl1", "aus1-bl2"):
        text = rendered()[leaf]
        parse = eos(text)
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V4 permit 40") == [
            "   description the borders' default route, for a leaf cut off from them",
            "   match ip address prefix-list PL-HANDOFF-DEFAULT-V4",
        ]
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V6 permit 40") == [
            "   description the borders' default route, for a leaf cut off from them",
            "   match ipv6 address prefix-list PL-HANDOFF-DEFAULT-V6",
        ]
        assert block(parse, "ip prefix-list PL-HANDOFF-DEFAULT-V4") == [
            "   seq 10 permit 0.0.0.0/0"
        ]
        assert text.count("ip prefix-list PL-HANDOFF-DEFAULT-V4\n") == 1


def test_without_a_default_route_to_pass_the_pair_has_no_default_clause(example: Path) -> None:
    """The boundary: gpu-a without Internet access (`internet: none`, its front ends in
    private space), so no VRF of the pair takes a default route from the borders, and no
    clause passes one."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / ATTACHMENTS,
        'internet: default, public: [198.51.100.128/26, "2001:db8:4000:50::/64"]',
        "internet: none",
    )
    front_ends_private(example)
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    models = device_models(result)
    for leaf in ("aus1-bl1", "aus1-bl2"):
        maps = {m.name: m for m in models[leaf].route_maps}
        assert [e.seq for e in maps["RM-MLAG-VRF-PEER-V4"].entries] == [10, 20]
        assert "PL-HANDOFF-DEFAULT-V4" not in {pl.name for pl in models[leaf].prefix_lists}


def test_flow_008_follows_the_default_route_to_a_leaf_cut_off_from_the_borders(
    example: Path,
) -> None:
    """With the pair's clause for the default route gone from aus1-bl2's map (the map this
    project built before: it passed the route by a class tag the eBGP handoff never carries),
    a leaf cut off from the borders has no default route: bl2 does not send it to bl1, nor
    take it from bl1, in each family gpu-a routes. FLOW-008 names both, at gpu-a's
    `internet:`; with the clause it is quiet."""
    eos_mlag_pair_with_one_aws_leaf(example)
    result = lint_repo(example)
    models = dict(device_models(result))
    assert [
        f
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-008"
    ] == []
    models["aus1-bl2"] = without_pair_default_clause(models["aus1-bl2"])
    found = [
        (f.location.line, f.message)
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-008"
    ]
    line = line_of(example / ATTACHMENTS, "gpu-a:   {vlan: 3101")
    lost = (
        "VRF gpu-a, aus1-{leaf}: it has no default route ({route}) cut off from the borders "
        "(its handoff links down), while the fabric still sends it about half of the VRF's "
        "Internet traffic (the pair's shared VTEP 10.0.1.211): "
    )
    assert found == [
        (
            line,
            lost.format(leaf="bl1", route="0.0.0.0/0")
            + "aus1-bl2 does not send it the default route it takes from the borders "
            "(RM-MLAG-VRF-PEER-V4, no clause matches it)",
        ),
        (
            line,
            lost.format(leaf="bl2", route="0.0.0.0/0")
            + "it does not take the default route from aus1-bl1 (RM-MLAG-VRF-PEER-V4, no "
            "clause matches it)",
        ),
        (
            line,
            lost.format(leaf="bl1", route="::/0")
            + "aus1-bl2 does not send it the default route it takes from the borders "
            "(RM-MLAG-VRF-PEER-V6, no clause matches it)",
        ),
        (
            line,
            lost.format(leaf="bl2", route="::/0")
            + "it does not take the default route from aus1-bl1 (RM-MLAG-VRF-PEER-V6, no "
            "clause matches it)",
        ),
    ]


def test_a_handoff_vrf_without_external_sessions_is_peered_for_its_links_alone() -> None:
    """gpu-a-mgmt learns the same routes on both leaves (the handoff), but each leaf has its
    own links to the borders in it: an IPv4 session (its handoff is IPv4 only) that carries
    them, with the VRF's connected subnets, the peering /31 but, as type-5 routes."""
    text = rendered()["aus1-bl1"]
    lines = vrf_block(text, 4200000021, "gpu-a-mgmt")
    assert [x for x in lines if x.startswith("neighbor ") and x.endswith(" activate")] == [
        "neighbor 10.1.21.255 activate",  # aus1-bl2, then the borders' handoff ends
        *(f"neighbor 10.1.21.{2 * n + 1} activate" for n in range(4)),
    ]
    assert "redistribute connected route-map RM-VRF-CONNECTED" in lines


def test_with_the_handoff_on_one_leaf_the_other_still_peers_in_every_handoff_vrf(
    example: Path,
) -> None:
    """The handoff on aus1-bl1 alone (HANDOFF-016 warns of it): the fabric still sends
    aus1-bl2 half of what the pair's shared VTEP advertises, so aus1-bl2 peers with aus1-bl1
    in each handoff VRF, and the links one leaf alone holds are aus1-bl1's four /31s only."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / ATTACHMENTS, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1]"
    )
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    assert [f.rule for f in result.findings if f.rule.startswith("FLOW")] == []
    models = device_models(result)
    files = render_all(models)
    bl2 = files[output_name(models["aus1-bl2"])]
    for vlan, vrf in ((3001, "gpu-a"), (3002, "gpu-a-mgmt"), (3010, "storage")):
        lines = vrf_block(bl2, 4200000022, vrf)
        assert f"neighbor 10.1.21.254 description mlag peer aus1-bl1 Vlan{vlan}" in lines
        # no handoff session of its own: the pair's session is its only one in the VRF
        assert [x for x in lines if x.endswith(" activate")] == [
            "neighbor 10.1.21.254 activate",
            *(["neighbor 2001:db8:0:1000::15fe activate"] if vrf == "gpu-a" else []),
        ]
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(files[output_name(models[leaf])])
        assert block(parse, "ip prefix-list PL-MLAG-ONE-LEAF-LINKS-V4") == [
            f"   seq {10 * (n + 1)} permit 10.1.21.{2 * n}/31" for n in range(4)
        ]
        # aus1-bl2 has no handoff of its own: the default route comes over the pair alone,
        # by the list the pair's policy brings along (once: bl1's handoff has it already)
        assert block(parse, "route-map RM-MLAG-VRF-PEER-V4 permit 40")[1:] == [
            "   match ip address prefix-list PL-HANDOFF-DEFAULT-V4"
        ]
        assert files[output_name(models[leaf])].count("ip prefix-list PL-HANDOFF-DEFAULT-V4\n") == 1


def test_flow_008_names_a_leaf_with_no_handoff_of_its_own(example: Path) -> None:
    """The handoff on aus1-bl1 alone: aus1-bl2's only default route is bl1's, over the pair.
    With bl1's clause for it gone, FLOW-008 names bl2 as it is, with no handoff link of its
    own (not merely cut off), and bl1 not at all: bl2 has no default route to send it."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / ATTACHMENTS, "border_leaves: [aus1-bl1, aus1-bl2]", "border_leaves: [aus1-bl1]"
    )
    result = lint_repo(example)
    models = dict(device_models(result))
    models["aus1-bl1"] = without_pair_default_clause(models["aus1-bl1"], "RM-MLAG-VRF-PEER-V4")
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-008"
    ]
    assert found == [
        "VRF gpu-a, aus1-bl2: it has no default route (0.0.0.0/0) with no handoff link of its "
        "own, while the fabric still sends it about half of the VRF's Internet traffic (the "
        "pair's shared VTEP 10.0.1.211): aus1-bl1 does not send it the default route it takes "
        "from the borders (RM-MLAG-VRF-PEER-V4, no clause matches it)"
    ]


def test_a_pair_sharing_one_asn_peers_in_each_vrf_by_ibgp_with_next_hop_self(
    example: Path,
) -> None:
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / SITE,
        "      base: 4200000000",
        "      base: 4200000000\n      shared_pairs: [[aus1-bl1, aus1-bl2]]",
    )
    devices = example / DEVICES
    replace_in(devices, "        id: 21\n", "        id: 21\n        asn: 4200000121\n")
    replace_in(devices, "        id: 22\n", "        id: 22\n        asn: 4200000121\n")
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    models = device_models(result)
    files = render_all(models)
    bl2 = files[output_name(models["aus1-bl2"])]
    lines = vrf_block(bl2, 4200000121, "gpu-a")
    assert [x for x in lines if x.startswith("neighbor 10.1.21.254 ")][:6] == [
        "neighbor 10.1.21.254 remote-as 4200000121",
        "neighbor 10.1.21.254 description mlag peer aus1-bl1 Vlan3001",
        "neighbor 10.1.21.254 bfd",
        "neighbor 10.1.21.254 route-map RM-MLAG-VRF-PEER-V4 in",
        "neighbor 10.1.21.254 route-map RM-MLAG-VRF-PEER-V4 out",
        "neighbor 10.1.21.254 next-hop-self",
    ]


def test_a_peering_vlan_that_is_a_network_vlan_on_the_pair_is_reported(example: Path) -> None:
    """storage's VLAN 211 is storage-back-1's, which the pair carries: EVPN-003 at the later
    of the two lines, the network's (NX-OS's L3VNI carrier on aus1-lf3/lf4 meets it too)."""
    eos_mlag_pair_with_one_aws_leaf(example)
    tenants = example / TENANTS
    replace_in(tenants, "storage: {l3vni: 50010, vlan: 3010}", "storage: {l3vni: 50010, vlan: 211}")
    result = lint_repo(example)
    found = [
        f"{f.location.file}:{f.location.line}:{f.location.column}: {f.message}"
        for f in result.findings
        if f.rule == "EVPN-003" and "MLAG" in f.message
    ]
    line = line_of(tenants, "storage-back-1:")
    column = tenants.read_text().splitlines()[line - 1].index("vlan: 211") + 1
    assert found == [
        f"{TENANTS}:{line}:{column}: VLAN 211 of network storage/storage-back-1 is also the VLAN "
        "of VRF storage of tenant storage (its session between the MLAG pair, over the peer "
        "link) on aus1-bl1, aus1-bl2: one VLAN id is one bridge domain per switch; choose "
        "another VLAN id"
    ]


def test_a_peering_vlan_that_is_the_peer_vlan_is_reported(example: Path) -> None:
    eos_mlag_pair_with_one_aws_leaf(example)
    tenants = example / TENANTS
    replace_in(
        tenants, "gpu-a:      {l3vni: 50001, vlan: 3001}", "gpu-a:      {l3vni: 50001, vlan: 4094}"
    )
    found = findings_of(lint_repo(example), "MH-019")
    assert found == [
        f"{TENANTS}:{line_of(tenants, 'gpu-a:      {')}: VRF gpu-a of tenant gpu-tenant-a peers "
        "the MLAG pair aus1-bl1, aus1-bl2 in the VRF over its VLAN 4094, the pair's peer VLAN: "
        "one SVI cannot be both the VRF's and the pair's underlay adjacency in the default "
        "VRF; give the VRF another VLAN"
    ]


def test_a_vrf_without_a_vlan_still_refuses_its_cloud_session(example: Path) -> None:
    """storage without `vlan:` has no VLAN to peer over: PLAT-028 stays, for storage only."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(example / TENANTS, "storage: {l3vni: 50010, vlan: 3010}", "storage: {l3vni: 50010}")
    found = findings_of(lint_repo(example), "PLAT-028")
    assert found == [
        f"{CIRCUITS}:{line_of(example / CIRCUITS, 'XC-AWS-1:')}: aus1-bl1 (Arista EOS) cannot "
        "render the aws session 169.254.11.2 in VRF storage (aws-syd/transit-1, XC-AWS-1) on "
        "one leaf of the MLAG pair with aus1-bl2: what it learns (10.101.0.0/16) this leaf "
        "alone holds, yet EVPN type-5 routes carry it with the pair's shared VTEP 10.0.1.211 "
        "as next hop: remote VTEPs tunnel about half of that traffic to aus1-bl2, which drops "
        "it unless a session of its own learns the same. The pair shares such routes over a "
        "BGP session in the VRF on a VLAN of the VRF's own across the peer link, which needs "
        "the VRF's `vlan:` and its L3VNI, and for IPv6 the peer VLAN's /127 (pools.p2p_v6): "
        "give VRF storage what it lacks, or land the circuit on a leaf outside an MLAG pair"
    ]


def test_flow_006_follows_a_cloud_route_across_the_pair(example: Path) -> None:
    """The agreed AWS range must cross to aus1-bl2 as well: with bl2's import of the VRF
    session turned into a deny, FLOW-006 names where it stops."""
    eos_mlag_pair_with_one_aws_leaf(example)
    result = lint_repo(example)
    models = device_models(result)
    assert [
        f
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-006"
    ] == []
    bl2 = models["aus1-bl2"]
    deny = RouteMap(
        name="RM-MLAG-VRF-PEER-V4",
        afi="ipv4",
        entries=[RouteMapEntry(seq=10, action="deny", description="nothing")],
    )
    maps = tuple(deny if m.name == deny.name else m for m in bl2.route_maps)
    models["aus1-bl2"] = bl2.model_copy(update={"route_maps": maps})
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-006"
    ]
    assert found == [
        "VRF gpu-a, aus1-bl1: aus1-bl2, which shares the VTEP 10.0.1.211, drops 10.100.0.0/16 "
        "from its MLAG peer at RM-MLAG-VRF-PEER-V4 (clause 10, nothing), and with it the "
        "traffic the fabric sends it",
        "VRF storage, aus1-bl1: aus1-bl2, which shares the VTEP 10.0.1.211, drops "
        "10.101.0.0/16 from its MLAG peer at RM-MLAG-VRF-PEER-V4 (clause 10, nothing), and "
        "with it the traffic the fabric sends it",
    ]


def test_the_twin_links_the_pair_in_each_peered_vrf_and_runs_the_session(example: Path) -> None:
    """The twin runs every leaf's FRR, the MLAG peer VLAN as a link of its own: each peered
    VRF gets its link too, in the VRF on both ends, and the VRF session runs over it."""
    eos_mlag_pair_with_one_aws_leaf(example)
    result = lint_repo(example)
    models = device_models(result)
    twin = plan("aus1", models, result.fabrics["aus1"].edge.sessions)
    assert [
        (s.key, [(e.node, e.ifname, e.vrf) for e in s.endpoints])
        for s in twin.segments
        if s.key.startswith("aus1-bl1:Vlan30")
    ] == [
        (
            "aus1-bl1:Vlan3001--aus1-bl2:Vlan3001",
            [("aus1-bl1", "vlan3001", "gpu-a"), ("aus1-bl2", "vlan3001", "gpu-a")],
        ),
        (
            "aus1-bl1:Vlan3002--aus1-bl2:Vlan3002",
            [("aus1-bl1", "vlan3002", "gpu-a-mgmt"), ("aus1-bl2", "vlan3002", "gpu-a-mgmt")],
        ),
        (
            "aus1-bl1:Vlan3010--aus1-bl2:Vlan3010",
            [("aus1-bl1", "vlan3010", "storage"), ("aus1-bl2", "vlan3010", "storage")],
        ),
    ]
    frr = render_frr(models["aus1-bl2"])
    assert (
        "interface vlan3001 vrf gpu-a\n"
        " description Vlan3001: mlag peer vlan to aus1-bl1 vrf gpu-a\n"
        " ip address 10.1.21.255/31\n"
    ) in frr
    vrf = frr[frr.index("router bgp 4200000022 vrf gpu-a\n") :]
    vrf = vrf[: vrf.index("exit-address-family")]
    assert " neighbor 10.1.21.254 remote-as 4200000021\n" in vrf
    assert "  neighbor 10.1.21.254 route-map RM-MLAG-VRF-PEER-V4 in\n" in vrf
    assert "  redistribute connected route-map RM-VRF-CONNECTED\n" in vrf
    assert [
        (d.device, d.address, d.vrf)
        for d in twin.declared
        if d.kind == "mlag_vrf" and d.device == "aus1-bl2"
    ] == [
        ("aus1-bl2", "10.1.21.254", "gpu-a"),
        ("aus1-bl2", "2001:db8:0:1000::15fe", "gpu-a"),
        ("aus1-bl2", "10.1.21.254", "gpu-a-mgmt"),
        ("aus1-bl2", "10.1.21.254", "storage"),
    ]


NXOS_VPC_BORDER_LEAVES = """
mode: mlag
leaves: [aus1-bl3, aus1-bl4]
ports: [Ethernet1/20]
peer_link: [Ethernet1/25, Ethernet1/26]
anycast_vtep: 10.0.1.213/32
lacp_system_mac: "02:00:00:00:10:23"
networks: [storage-back-1]
"""


def test_an_nxos_vpc_pair_with_cloud_sessions_advertises_from_its_own_address(
    example: Path,
) -> None:
    """The Azure border leaves as a vPC pair: their type-5 routes leave with each leaf's own
    VTEP address (advertise-pip), so they need no VRF peering and get none."""
    replace_in(
        example / TENANTS,
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10]}",
        "l2vni: 10211, racks: [dh1-r10, dh1-r11, dh2-r10], leaves: [aus1-bl3, aus1-bl4]}",
    )
    add(example, "mdf-nxos-vpc", NXOS_VPC_BORDER_LEAVES)
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    models = device_models(result)
    for leaf in ("aus1-bl3", "aus1-bl4"):
        mlag = models[leaf].mlag
        assert mlag is not None and mlag.advertise_pip and mlag.vrf_peerings == ()
        assert [n for n in models[leaf].bgp.neighbors if n.kind == "mlag_vrf"] == []
        assert any(n.kind == "azure" and n.vrf for n in models[leaf].bgp.neighbors)
    # each leaf's handoff /31s leave with its own address too: nothing for FLOW-007
    assert findings_of(result, "FLOW-007") == []


def test_each_leafs_own_links_reach_the_other_leaf_so_flow_007_is_quiet(example: Path) -> None:
    """A twin of this pair failed `hosts` for bl1's handoff addresses about half the time:
    bl1's /31s and /127s toward the borders are type-5 routes with the shared VTEP as next
    hop, and bl2 had no route to them. The pair's VRF sessions now carry them, and FLOW-007,
    which follows each one through the connected redistribution and both leaves' policies,
    finds nothing."""
    eos_mlag_pair_with_one_aws_leaf(example)
    assert findings_of(lint_repo(example), "FLOW-007") == []


def test_flow_007_names_the_links_of_a_vrf_the_pair_cannot_peer_in(example: Path) -> None:
    """gpu-a-mgmt without its `vlan:` (its networks moved off the NX-OS leaves, which need it
    as the L3VNI carrier): no VLAN to peer over, so each leaf's handoff /31s in it stay
    behind the shared VTEP. A warning per leaf, at the device, naming the links and why; the
    other VRFs' links are carried, and the cloud sub-interface's 169.254.x link is left out."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / TENANTS, "gpu-a-mgmt: {l3vni: 50002, vlan: 3002}", "gpu-a-mgmt: {l3vni: 50002}"
    )
    text = (example / TENANTS).read_text()
    assert text.count("mtu: 1500, racks: [dh1-r10, dh2-r10]}") == 2
    (example / TENANTS).write_text(
        text.replace("mtu: 1500, racks: [dh1-r10, dh2-r10]}", "mtu: 1500, racks: [dh1-r10]}")
    )
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    found = findings_of(result, "FLOW-007")
    assert [f.severity for f in result.findings if f.rule == "FLOW-007"] == ["warning"] * 2
    devices = example / DEVICES
    bl1 = f"{DEVICES}:{line_of(devices, 'aus1-bl1:')}"
    bl2 = f"{DEVICES}:{line_of(devices, 'aus1-bl2:')}"
    assert [f.split(": ", 1)[0] for f in found] == [bl1, bl2]
    links = ", ".join(f"10.1.21.{2 * n}/31 (Ethernet{n + 1}/1.3102)" for n in range(4))
    assert found[0] == (
        f"{bl1}: VRF gpu-a-mgmt, aus1-bl1: its connected subnets {links} are EVPN type-5 routes "
        "with the pair's shared VTEP 10.0.1.211 as next hop, and aus1-bl2, which the fabric "
        "sends about half of that traffic to, has no route to them: the pair has no IPv4 BGP "
        "session in VRF gpu-a-mgmt over the peer link, which needs the VRF's `vlan:` and L3VNI, "
        "and for IPv6 the peer VLAN's /127. Traffic to these addresses (BGP to the far end's "
        "interface address, traceroute, monitoring) is lost half the time; tenant traffic to "
        "the Internet and the clouds is not (both leaves hold those routes)"
    )
    assert "10.1.22.0/31 (Ethernet1/1.3102)" in found[1]
    assert "169.254." not in "".join(found)


def test_flow_007_names_the_policy_that_stops_a_link(example: Path) -> None:
    """The rule follows the route, not the config's shape: bl2's import map without its
    clause for the links (as a hand edit or a template bug would leave it) stops bl1's
    links, and the finding names the map."""
    eos_mlag_pair_with_one_aws_leaf(example)
    result = lint_repo(example)
    models = dict(device_models(result))
    bl2 = models["aus1-bl2"]
    models["aus1-bl2"] = bl2.model_copy(
        update={
            "route_maps": tuple(
                rm.model_copy(update={"entries": rm.entries[:1]})
                if rm.name == "RM-MLAG-VRF-PEER-V4"
                else rm
                for rm in bl2.route_maps
            )
        }
    )
    found = [
        f.message
        for f in flow_findings(result.loaded, result.fabrics, models.values())
        if f.rule == "FLOW-007"
    ]
    # bl2's map is its export policy too: bl1's links are not taken, bl2's own not sent
    stops = sorted(
        (message.split(": ", 1)[0], message.split("has no route to them: ")[1].split(".")[0])
        for message in found
    )
    assert stops == [
        (f"VRF {vrf}, {leaf}", f"aus1-bl2 does not {verb} it: RM-MLAG-VRF-PEER-V4 denies it")
        for vrf in ("gpu-a", "gpu-a-mgmt", "storage")
        for leaf, verb in (("aus1-bl1", "take"), ("aus1-bl2", "send"))
    ]


def test_an_ipv6_cloud_session_gets_an_ipv6_session_over_the_peer_vlan_127(example: Path) -> None:
    """AWS private-1 given IPv6 too: gpu-a's SVI takes the peer VLAN's /127 (slot 5630 of
    2001:db8:0:1000::/52, 0x15fe), an IPv6 session joins the IPv4 one, and the /127 stays off
    EVPN as the /31 does."""
    eos_mlag_pair_with_one_aws_leaf(example)
    replace_in(
        example / CLOUDS,
        "private-1: {type: private, vrf: gpu-a, receive: [10.100.0.0/16],",
        'private-1: {type: private, vrf: gpu-a, receive: [10.100.0.0/16, "2001:db8:100::/48"], '
        'ipv6: "2001:db8:aa::1/125", peer_ipv6: "2001:db8:aa::2",',
    )
    result = lint_repo(example)
    assert [f.message for f in result.findings if f.severity == "error"] == []
    models = device_models(result)
    files = render_all(models)
    bl2 = files[output_name(models["aus1-bl2"])]
    parse = eos(bl2)
    assert block(parse, "interface Vlan3001")[-2:] == [
        "   ip address 10.1.21.255/31",
        "   ipv6 address 2001:db8:0:1000::15ff/127",
    ]
    assert block(parse, "interface Vlan3010")[-1] == "   ip address 10.1.21.255/31"
    lines = vrf_block(bl2, 4200000022, "gpu-a")
    assert [x for x in lines if x.startswith("neighbor 2001:db8:0:1000::15fe ")] == [
        "neighbor 2001:db8:0:1000::15fe remote-as 4200000021",
        "neighbor 2001:db8:0:1000::15fe description mlag peer aus1-bl1 Vlan3001",
        "neighbor 2001:db8:0:1000::15fe bfd",
        "neighbor 2001:db8:0:1000::15fe route-map RM-MLAG-VRF-PEER-V6 in",
        "neighbor 2001:db8:0:1000::15fe route-map RM-MLAG-VRF-PEER-V6 out",
        "neighbor 2001:db8:0:1000::15fe send-community standard extended large",
        "neighbor 2001:db8:0:1000::15fe maximum-routes 12000 warning-limit 80 percent",
        "neighbor 2001:db8:0:1000::15fe activate",
    ]
    assert block(parse, "ipv6 prefix-list PL-MLAG-PEER-VRFS-V6") == [
        "   seq 10 permit 2001:db8:0:1000::15fe/127"
    ]
    assert block(parse, "route-map RM-VRF-CONNECTED deny 20") == [
        "   description the MLAG pair's peering subnet stays on the pair",
        "   match ipv6 address prefix-list PL-MLAG-PEER-VRFS-V6",
    ]
