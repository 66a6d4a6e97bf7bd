"""Hosts on every leaf platform (`attachments:`), rendered and read back against hand-written
lines: MLAG on Arista EOS, the same `mode: mlag` as vPC on Cisco NX-OS, EVPN multihoming (ESI)
on EOS, and single-homed hosts (access port, trunk port, one-leaf LACP port-channel) on EOS,
NX-OS and NVUE. Addresses are worked out by hand from the example's pools: the peer VLAN's /31
is the last link slot (127) of the lower device id's block of p2p_v4 10.1.0.0/16 with 128 links
per device, so for ids 21/22 slot 21 x 128 + 127 = 2815, address 5630 = 10.1.21.254, and for ids
103/104 address 2 x (103 x 128 + 127) = 26622 = 10.1.103.254; the /127 likewise in
2001:db8:0:1000::/52 (5630 = 0x15fe, 26622 = 0x67fe).
"""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT, findings_of, line_of, lint_repo, replace_in
from helpers import block, under, validate
from meetme.generators.render import RenderError, output_name, render_device
from pydantic import BaseModel
from variants import CIRCUITS, CLOUDS, EOS_MLAG, STORAGE_ON_EOS, TENANTS, add

from meetme.core.problems import IntentError
from meetme.pipeline import device_models, lint, render_all

ATTACHMENTS = "intent/aus1/attachments.yaml"

NXOS_VPC = """
mode: mlag
leaves: [aus1-lf3, aus1-lf4]
ports: [Ethernet1/20]
peer_link: [Ethernet1/49, Ethernet1/50]
anycast_vtep: 10.0.1.212/32
lacp_system_mac: "02:00:00:00:10:03"
networks: [storage-back-1, storage-back-2]
"""
NXOS_ACCESS = """
mode: single
leaves: [aus1-lf3]
ports: [Ethernet1/30]
access: true
networks: [storage-back-1]
"""
NXOS_LACP = """
mode: single
leaves: [aus1-lf4]
ports: [Ethernet1/31]
lacp: true
lag_base: 40
networks: [storage-back-1, storage-back-2]
"""
NVUE_ACCESS = """
mode: single
leaves: [aus1-lf1]
ports: [swp20]
access: true
networks: [gpu-a-compute-1]
"""
NVUE_LACP = """
mode: single
leaves: [aus1-lf1]
ports: [swp21]
lacp: true
lag_base: 30
networks: [gpu-a-compute-1, gpu-a-compute-2]
"""
EOS_ESI = """
mode: esi
leaves: [aus1-bl1, aus1-bl2]
ports: [Ethernet20/1]
lacp_system_mac: "02:1c:73:00:00:21"
segment_base: 7
networks: [storage-back-1]
"""
EOS_TRUNK = """
mode: single
leaves: [aus1-bl1]
ports: [Ethernet22/1]
networks: [storage-back-1]
"""
EOS_ACCESS_LACP = """
mode: single
leaves: [aus1-bl2]
ports: [Ethernet23/1]
access: true
lacp: true
lag_base: 50
networks: [storage-back-1]
"""


def without_aws(repo: Path) -> None:
    """The example without its AWS on-ramp (circuits XC-AWS-1/2 on aus1-bl1/bl2), so these
    hosts' tests read only the hosts' lines: an EOS MLAG pair with a cloud session gets VRF
    peerings over its peer link (tests/test_mlag_vrf_peering.py)."""
    clouds = repo / CLOUDS
    text = clouds.read_text()
    clouds.write_text(text[: text.index("      aws:\n")] + text[text.index("      azure:\n") :])
    circuits = repo / CIRCUITS
    lines = circuits.read_text().splitlines(keepends=True)
    circuits.write_text("".join(line for line in lines if "XC-AWS-" not in line))


def _scenario(*attachments: tuple[str, str]) -> dict[str, str]:
    """The example with `attachments` added: each device's rendered text, after a clean lint.
    An MLAG pair of the EOS border leaves takes their AWS on-ramp away (`without_aws`)."""
    repo = Path(tempfile.mkdtemp(prefix="meetme-hosts-"))
    try:
        shutil.copytree(EXAMPLE_INTENT, repo / "intent")
        replace_in(repo / TENANTS, *STORAGE_ON_EOS)
        if any("mode: mlag" in body and "aus1-bl1" in body for _, body in attachments):
            without_aws(repo)
        for name, body in attachments:
            add(repo, name, body)
        result = lint(repo / "intent")
        assert [f.message for f in result.findings if f.severity == "error"] == []
        models = device_models(result)
        files = render_all(models)
        return {name: files[output_name(m)] for name, m in models.items()}
    finally:
        shutil.rmtree(repo)


@cache
def pairs() -> dict[str, str]:
    return _scenario(
        ("mdf-eos-mlag", EOS_MLAG),
        ("dh2-nxos-vpc", NXOS_VPC),
        ("dh2-nxos-access", NXOS_ACCESS),
        ("dh2-nxos-lacp", NXOS_LACP),
        ("dh1-nvue-access", NVUE_ACCESS),
        ("dh1-nvue-lacp", NVUE_LACP),
    )


@cache
def segments() -> dict[str, str]:
    return _scenario(
        ("mdf-eos-esi", EOS_ESI),
        ("mdf-eos-trunk", EOS_TRUNK),
        ("mdf-eos-access-lacp", EOS_ACCESS_LACP),
    )


def eos(text: str) -> CiscoConfParse:
    return CiscoConfParse(text.splitlines(), syntax="ios")


def nxos(text: str) -> CiscoConfParse:
    return CiscoConfParse(text.splitlines(), syntax="nxos")


def top(parse: CiscoConfParse) -> list[str]:
    return [o.text for o in parse.objs if o.indent == 0]


# --- MLAG on Arista EOS ---------------------------------------------------------------------


def test_eos_mlag_peer_link_peer_vlan_and_mlag_configuration() -> None:
    bl1, bl2 = eos(pairs()["aus1-bl1"]), eos(pairs()["aus1-bl2"])
    assert block(bl1, "vlan 4094") == ["   trunk group MLAG"]
    assert "no spanning-tree vlan-id 4094" in top(bl1)
    assert block(bl1, "interface Port-Channel1000") == [
        "   description MLAG peer link to aus1-bl2",
        "   no shutdown",
        "   switchport",
        "   switchport mode trunk",
        "   switchport trunk group MLAG",
    ]
    for member in ("Ethernet30/1", "Ethernet31/1"):
        assert block(bl1, f"interface {member}") == [
            "   description MLAG peer link to aus1-bl2",
            "   no shutdown",
            "   channel-group 1000 mode active",
        ]
    assert block(bl1, "interface Vlan4094") == [
        "   description MLAG peer aus1-bl2",
        "   no shutdown",
        "   mtu 9214",
        "   no autostate",
        "   ip address 10.1.21.254/31",
        "   ipv6 address 2001:db8:0:1000::15fe/127",
    ]
    assert block(bl2, "interface Vlan4094")[4:] == [
        "   ip address 10.1.21.255/31",
        "   ipv6 address 2001:db8:0:1000::15ff/127",
    ]
    # domain: the pair's lower device id (21); each leaf names the other's peer-VLAN address
    assert block(bl1, "mlag configuration") == [
        "   domain-id 21",
        "   local-interface Vlan4094",
        "   peer-address 10.1.21.255",
        "   peer-link Port-Channel1000",
    ]
    assert block(bl2, "mlag configuration")[2] == "   peer-address 10.1.21.254"


def test_eos_mlag_host_port_channels_trunk_the_networks_with_one_mlag_id_per_host() -> None:
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(pairs()[leaf])
        for channel, port, mlag_id in (("10", "Ethernet20/1", 1), ("11", "Ethernet21/1", 2)):
            host = f"mdf-eos-mlag host {mlag_id} mlag"
            assert block(parse, f"interface Port-Channel{channel}") == [
                f"   description {host}",
                "   no shutdown",
                "   mtu 9214",
                "   switchport",
                "   switchport trunk allowed vlan 211",
                "   switchport mode trunk",
                f"   mlag {mlag_id}",
            ]
            assert block(parse, f"interface {port}") == [
                f"   description {host}",
                "   no shutdown",
                f"   channel-group {channel} mode active",
            ]


def test_eos_mlag_shares_the_anycast_vtep_as_the_vxlan_source() -> None:
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(pairs()[leaf])
        assert block(parse, "interface Loopback1") == [
            "   description VXLAN tunnel source, MLAG pair shared",
            "   no shutdown",
            "   ip address 10.0.1.211/32",
        ]
        assert block(parse, "interface Vxlan1")[:3] == [
            "   vxlan source-interface Loopback1",
            "   vxlan virtual-router encapsulation mac-address mlag-system-id",
            "   vxlan udp-port 4789",
        ]
        assert "network 10.0.1.211/32" in under(
            parse, "router bgp " + _asn(leaf), "address-family ipv4"
        )


def _asn(leaf: str) -> str:
    return {"aus1-bl1": "4200000021", "aus1-bl2": "4200000022"}[leaf]


def test_eos_mlag_pair_runs_the_underlay_over_the_peer_vlan() -> None:
    parse = eos(pairs()["aus1-bl1"])
    (bgp,) = parse.find_objects(r"^router bgp 4200000021$")
    mine = [c.text.strip() for c in bgp.children if "10.1.21.255" in c.text]
    assert mine == [
        "neighbor 10.1.21.255 remote-as 4200000022",
        "neighbor 10.1.21.255 description mlag peer aus1-bl2 Vlan4094",
        "neighbor 10.1.21.255 bfd",
        "neighbor 10.1.21.255 route-map RM-UNDERLAY-V4-IN in",
        "neighbor 10.1.21.255 route-map RM-UNDERLAY-V4-OUT out",
        "neighbor 10.1.21.255 maximum-routes 12000 warning-limit 80 percent",
    ]
    assert "neighbor 10.1.21.255 activate" in under(
        parse, "router bgp 4200000021", "address-family ipv4"
    )
    v6 = under(parse, "router bgp 4200000021", "address-family ipv6")
    assert "neighbor 2001:db8:0:1000::15ff activate" in v6


def test_eos_leaf_without_attachments_prints_no_mlag() -> None:
    # an EOS border leaf of another scenario (ESI only): no peer link, no mlag lines
    parse = eos(segments()["aus1-bl1"])
    assert not parse.find_objects(r"^mlag configuration")
    assert not parse.find_objects(r"^interface Vlan4094")
    assert (
        "vxlan virtual-router encapsulation mac-address mlag-system-id"
        not in segments()["aus1-bl1"]
    )


# --- vPC on Cisco NX-OS (mode: mlag) --------------------------------------------------------


def test_nxos_vpc_domain_keepalive_and_peer_link() -> None:
    lf3, lf4 = nxos(pairs()["aus1-lf3"]), nxos(pairs()["aus1-lf4"])
    assert {"feature lacp", "feature vpc", "system nve infra-vlans 3967"} <= set(top(lf3))
    assert block(lf3, "vlan 3967") == ["  name vpc-backup-routing"]
    assert block(lf3, "vpc domain 103") == [
        "  peer-keepalive destination 192.168.10.104 source 192.168.10.103 vrf management",
        "  peer-gateway",
        # the pair's lacp_system_mac (02:00:00:00:10:03): the LACP system both peers present
        "  system-mac 0200.0000.1003",
        # both address tables kept in step with the peer (Cisco: "You must enable" both)
        "  ip arp synchronize",
        "  ipv6 nd synchronize",
    ]
    assert block(lf4, "vpc domain 103")[:3] == [
        "  peer-keepalive destination 192.168.10.103 source 192.168.10.104 vrf management",
        "  peer-gateway",
        "  system-mac 0200.0000.1003",
    ]
    assert block(lf3, "interface port-channel1000") == [
        "  description vPC peer link to aus1-lf4",
        "  switchport",
        "  switchport mode trunk",
        "  spanning-tree port type network",
        "  mtu 9216",
        "  vpc peer-link",
        "  no shutdown",
    ]
    assert block(lf3, "interface Ethernet1/49") == [
        "  description vPC peer link to aus1-lf4",
        "  switchport",
        "  switchport mode trunk",
        "  mtu 9216",
        "  channel-group 1000 mode active",
        "  no shutdown",
    ]


def test_nxos_vpc_backup_routing_svi_and_its_underlay_session() -> None:
    lf3 = nxos(pairs()["aus1-lf3"])
    assert block(lf3, "interface Vlan3967") == [
        "  description vPC backup routing to aus1-lf4",
        "  no shutdown",
        "  mtu 9214",
        "  no ip redirects",
        "  ip address 10.1.103.254/31",
        "  ipv6 address 2001:db8:0:1000::67fe/127",
        "  no ipv6 redirects",
    ]
    assert block(nxos(pairs()["aus1-lf4"]), "interface Vlan3967")[4] == (
        "  ip address 10.1.103.255/31"
    )
    assert under(lf3, "router bgp 4200000103", "neighbor 10.1.103.255") == [
        "remote-as 4200000104",
        "description mlag peer aus1-lf4 Vlan3967",
        "bfd",
        "address-family ipv4 unicast",
        "route-map RM-UNDERLAY-V4-IN in",
        "route-map RM-UNDERLAY-V4-OUT out",
        "maximum-prefix 12000 80",
    ]


def test_nxos_vpc_anycast_vtep_is_the_nve_loopback_secondary() -> None:
    for leaf, own in (("aus1-lf3", "10.0.1.103/32"), ("aus1-lf4", "10.0.1.104/32")):
        assert block(nxos(pairs()[leaf]), "interface loopback1") == [
            "  description VXLAN tunnel source",
            f"  ip address {own}",
            "  ip address 10.0.1.212/32 secondary",
        ]


def test_nxos_vpc_leaves_advertise_type5_routes_from_their_own_vtep_address() -> None:
    """A vPC pair's type-5 routes left with the shared (secondary) VTEP address as next hop, so
    a prefix one leaf alone holds was sent half the time to its peer and black-holed there
    (Cisco: advertise-pip with advertise virtual-rmac, always together). A VTEP without vPC
    has no PIP of its own to choose and prints neither."""
    for leaf, asn in (("aus1-lf3", "4200000103"), ("aus1-lf4", "4200000104")):
        parse = nxos(pairs()[leaf])
        assert under(parse, f"router bgp {asn}", "address-family l2vpn evpn") == ["advertise-pip"]
        assert "  advertise virtual-rmac" in block(parse, "interface nve1")
    bl3 = pairs()["aus1-bl3"]  # an NX-OS border leaf without vPC
    assert "advertise-pip" not in bl3
    assert "advertise virtual-rmac" not in bl3


def test_eos_mlag_border_leaf_cloud_sessions_are_shared_over_the_peer_link(
    example: Path,
) -> None:
    """An EOS MLAG pair sources VXLAN from its one shared Loopback1 address, so the AWS routes
    a border leaf learns on its own circuit leave in type-5 routes with that address as next
    hop. Each AWS VRF (gpu-a, storage) is now peered between the two leaves over the peer link
    (tests/test_mlag_vrf_peering.py), as is gpu-a-mgmt for the handoff links each leaf alone
    has in it, and PLAT-028, which refused every such session, is
    silent; the NX-OS vPC pairs (advertise-pip) and NVUE's MLAG pair never needed it
    (tests/test_mlag_vrf_peering.py, the Azure border leaves as a vPC pair)."""
    add(example, "mdf-eos-mlag", EOS_MLAG)
    replace_in(example / TENANTS, *STORAGE_ON_EOS)
    result = lint_repo(example)
    assert findings_of(result, "PLAT-028") == []
    models = device_models(result)
    for leaf in ("aus1-bl1", "aus1-bl2"):
        assert [(p.vrf, p.vlan) for p in models[leaf].mlag.vrf_peerings] == [
            ("gpu-a", 3001),
            ("gpu-a-mgmt", 3002),
            ("storage", 3010),
        ]


def test_nxos_vpc_host_port_channel_and_member() -> None:
    for leaf in ("aus1-lf3", "aus1-lf4"):
        parse = nxos(pairs()[leaf])
        assert block(parse, "interface port-channel10") == [
            "  description dh2-nxos-vpc host 1 mlag",
            "  switchport",
            "  switchport mode trunk",
            "  switchport trunk allowed vlan 211,212",
            "  mtu 9216",
            "  no shutdown",
            "  vpc 1",
        ]
        assert block(parse, "interface Ethernet1/20") == [
            "  description dh2-nxos-vpc host 1 mlag",
            "  switchport",
            "  switchport mode trunk",
            "  switchport trunk allowed vlan 211,212",
            "  mtu 9216",
            "  channel-group 10 mode active",
            "  no shutdown",
        ]


# --- single-homed hosts on every leaf platform ------------------------------------------------


def test_nxos_single_homed_access_port_and_lacp_port_channel() -> None:
    assert block(nxos(pairs()["aus1-lf3"]), "interface Ethernet1/30") == [
        "  description dh2-nxos-access host 1 single",
        "  switchport",
        "  switchport mode access",
        "  switchport access vlan 211",
        "  mtu 9216",
        "  no shutdown",
    ]
    lf4 = nxos(pairs()["aus1-lf4"])
    assert block(lf4, "interface port-channel40") == [
        "  description dh2-nxos-lacp host 1 single",
        "  switchport",
        "  switchport mode trunk",
        "  switchport trunk allowed vlan 211,212",
        "  mtu 9216",
        "  no shutdown",
    ]
    assert "  channel-group 40 mode active" in block(lf4, "interface Ethernet1/31")


def test_eos_single_homed_trunk_port_and_access_lacp_port_channel() -> None:
    assert block(eos(segments()["aus1-bl1"]), "interface Ethernet22/1") == [
        "   description mdf-eos-trunk host 1 single",
        "   no shutdown",
        "   mtu 9214",
        "   switchport",
        "   switchport trunk allowed vlan 211",
        "   switchport mode trunk",
    ]
    bl2 = eos(segments()["aus1-bl2"])
    assert block(bl2, "interface Port-Channel50") == [
        "   description mdf-eos-access-lacp host 1 single",
        "   no shutdown",
        "   mtu 9214",
        "   switchport",
        "   switchport access vlan 211",
        "   switchport mode access",
    ]
    assert block(bl2, "interface Ethernet23/1") == [
        "   description mdf-eos-access-lacp host 1 single",
        "   no shutdown",
        "   channel-group 50 mode active",
    ]


def _nvue_interfaces(text: str) -> dict[str, Any]:
    for doc in yaml.safe_load(text):
        if "set" in doc:
            return dict(doc["set"]["interface"])
    raise AssertionError("no `set` document")


def _nvue_evpn(text: str) -> dict[str, Any]:
    for doc in yaml.safe_load(text):
        if "set" in doc:
            return dict(doc["set"]["evpn"])
    raise AssertionError("no `set` document")


def test_nvue_mlag_leaves_advertise_type5_routes_from_their_own_vtep_address() -> None:
    """NVUE's MLAG pair (aus1-lf1/lf2) sends type-5 routes from each leaf's own address and
    router MAC, as Cumulus does by default (CLDOCS 5.16 Inter-subnet Routing): printed on both
    leaves, so the file says it and a route one leaf alone holds is not tunnelled to the other;
    a VTEP outside an MLAG pair (aus1-lf5, ESI) has no shared address and prints nothing."""
    for leaf in ("aus1-lf1", "aus1-lf2"):
        evpn = _nvue_evpn(pairs()[leaf])
        assert evpn["route-advertise"] == {"nexthop-setting": "system-ip-mac"}, leaf
    assert "route-advertise" not in _nvue_evpn(pairs()["aus1-lf5"])


def test_nvue_single_homed_access_port_and_lacp_bond() -> None:
    interfaces = _nvue_interfaces(pairs()["aus1-lf1"])
    assert interfaces["swp20"] == {
        "type": "swp",
        "description": "dh1-nvue-access host 1 single",
        "bridge": {"domain": {"br_default": {"access": 101}}},
        "link": {"mtu": 9214},
    }
    assert interfaces["bond30"] == {
        "type": "bond",
        "description": "dh1-nvue-lacp host 1 single",
        "bond": {"member": {"swp21": {}}, "mode": "lacp"},
        "bridge": {"domain": {"br_default": {"untagged": "none", "vlan": {"101": {}, "102": {}}}}},
        "link": {"mtu": 9214},
    }
    assert interfaces["swp21"] == {
        "type": "swp",
        "description": "bond30 member: dh1-nvue-lacp host 1 single",
    }


def test_nvue_single_homed_file_is_valid_nvue_516(forbid_schema: type[BaseModel]) -> None:
    # `access` and a bond without mlag/evpn keys, against NVIDIA's 5.16 object model with
    # unknown keys forbidden
    validate(forbid_schema, "aus1-lf1", pairs()["aus1-lf1"])


# --- EVPN multihoming (ESI) on Arista EOS -----------------------------------------------------


def test_eos_esi_port_channel_names_the_segment_on_both_leaves() -> None:
    for leaf in ("aus1-bl1", "aus1-bl2"):
        parse = eos(segments()[leaf])
        # ESI type 0: 00, the pair's MAC 02:1c:73:00:00:21, segment id 7 (segment_base)
        assert block(parse, "interface Port-Channel10") == [
            "   description mdf-eos-esi host 1 esi",
            "   no shutdown",
            "   mtu 9214",
            "   switchport",
            "   switchport trunk allowed vlan 211",
            "   switchport mode trunk",
            "   !",
            "   evpn ethernet-segment",
            "      identifier 0002:1c73:0000:2100:0007",
            "      route-target import 02:1c:73:00:00:21",
            "   lacp system-id 021c.7300.0021",
        ]
        assert block(parse, "interface Ethernet20/1")[-1] == "   channel-group 10 mode active"
        # ESI leaves keep their own VTEP address
        own = "10.0.1.21/32" if leaf == "aus1-bl1" else "10.0.1.22/32"
        assert block(parse, "interface Loopback1")[-1] == f"   ip address {own}"


# --- the NX-OS vPC domain range (PLAT-017) ----------------------------------------------------


@pytest.mark.parametrize(("domain", "refused"), [(1000, False), (1001, True)])
def test_nxos_vpc_domain_is_at_most_1000(example: Path, domain: int, refused: bool) -> None:
    # the intent's domain_id stops at 1000 (schema); a pair's default, its lower device id, can
    # pass it: the model is checked at the boundary
    add(example, "dh2-nxos-vpc", NXOS_VPC)
    model = device_models(lint_repo(example))["aus1-lf3"]
    assert model.mlag is not None
    changed = model.model_copy(update={"mlag": model.mlag.model_copy(update={"domain_id": domain})})
    if refused:
        with pytest.raises(RenderError, match="PLAT-017 vPC domain 1001 with aus1-lf4"):
            render_device(changed)
    else:
        assert f"vpc domain {domain}" in render_device(changed)


@pytest.mark.parametrize(
    ("domain", "accepted"), [(1, True), (1000, True), (0, False), (1001, False)]
)
def test_domain_id_schema_bounds(example: Path, domain: int, accepted: bool) -> None:
    add(example, "dh2-nxos-vpc", NXOS_VPC + f"domain_id: {domain}\n")
    if accepted:
        model = device_models(lint_repo(example))["aus1-lf4"]
        assert model.mlag is not None and model.mlag.domain_id == domain
    else:
        with pytest.raises(IntentError) as refused:
            lint_repo(example)
        assert [p.message for p in refused.value.problems] == [
            "sites.aus1.attachments.dh2-nxos-vpc.domain_id: must be between 1 and 1000, "
            f"got {domain}"
        ]


# --- the NX-OS vPC peer link's MTU ------------------------------------------------------------


@pytest.mark.parametrize(("underlay", "mtu"), [(9214, 9216), (1500, 1500)])
def test_nxos_peer_link_carries_the_frames_that_cross_it(
    example: Path, underlay: int, mtu: int
) -> None:
    """mel1-lf101/102 are an NX-OS vPC pair. An L2 port stays at 1500 unless told: the peer
    link dropped the hosts' 9216-byte frames and the backup VLAN's 9214-byte packets whenever
    traffic crossed it. It and its members now carry the platform's size for the larger of the
    underlay MTU and the hosts' (NX-OS takes 1500 or 9216 on an L2 port)."""
    site = example / "intent/mel1/site.yaml"
    replace_in(site, "mtu: 9214", f"mtu: {underlay}")
    if underlay == 1500:  # the pair's hosts at 1500 too (an attachment's mtu is 9214 unset)
        replace_in(
            example / "intent/mel1/attachments.yaml",
            "        mode: mlag\n        leaves: [mel1-lf101, mel1-lf102]\n",
            "        mode: mlag\n        mtu: 1500\n        leaves: [mel1-lf101, mel1-lf102]\n",
        )
    model = device_models(lint_repo(example))["mel1-lf101"]
    parse = CiscoConfParse(render_device(model).splitlines(), syntax="nxos")
    assert block(parse, "interface port-channel1000") == [
        "  description vPC peer link to mel1-lf102",
        "  switchport",
        "  switchport mode trunk",
        "  spanning-tree port type network",
        f"  mtu {mtu}",
        "  vpc peer-link",
        "  no shutdown",
    ]
    for member in ("interface Ethernet1/53", "interface Ethernet1/54"):
        assert f"  mtu {mtu}" in block(parse, member)


# --- NX-OS bond numbers and vPC numbers (PLAT-021) --------------------------------------------


@pytest.mark.parametrize(("segment_base", "refused"), [(4096, False), (4097, True)])
def test_nxos_vpc_number_is_at_most_4096(example: Path, segment_base: int, refused: bool) -> None:
    """The one host of the pair gets vPC segment_base + 0; the intent takes up to 16000."""
    add(example, "dh2-nxos-vpc", NXOS_VPC + f"segment_base: {segment_base}\n")
    result = lint_repo(example)
    devices = example / "intent/aus1/devices.yaml"
    expected = [  # at each leaf's platform line: lf3's is the file's first NX-OS one
        f"intent/aus1/devices.yaml:{line_of(devices, 'platform: cisco_nxos', n)}: {leaf} "
        "(Cisco NX-OS) cannot render MLAG id 4097 of host bond port-channel10: it takes MLAG "
        "ids 1-4096; lower the attachment's segment_base"
        for n, leaf in ((1, "aus1-lf3"), (2, "aus1-lf4"))
    ]
    assert findings_of(result, "PLAT-021") == (expected if refused else [])
    if not refused:
        assert "  vpc 4096" in render_device(device_models(result)["aus1-lf3"])


@pytest.mark.parametrize(("number", "refused"), [(4096, False), (4097, True)])
def test_nxos_port_channel_number_is_at_most_4096(
    example: Path, number: int, refused: bool
) -> None:
    """lag_base stops at 4000, so an attachment of more than 96 hosts passes 4096: the model
    is checked at the boundary."""
    add(example, "dh2-nxos-lacp", NXOS_LACP)
    model = device_models(lint_repo(example))["aus1-lf4"]
    (lag,) = [lag for lag in model.lags if lag.number == 40]
    bigger = lag.model_copy(update={"number": number, "name": f"port-channel{number}"})
    changed = model.model_copy(update={"lags": (bigger,)})
    if refused:
        with pytest.raises(RenderError, match="PLAT-021 host bond port-channel4097"):
            render_device(changed)
    else:
        assert f"interface port-channel{number}" in render_device(changed)


# --- rules at the intent line -----------------------------------------------------------------


def test_mh016_keepalive_needs_one_management_subnet(example: Path) -> None:
    """Two subnets that both hold the management gateway (a /24 and a /25 inside it)."""
    attachments = add(example, "dh2-nxos-vpc", NXOS_VPC)
    assert findings_of(lint_repo(example), "MH-016") == []
    replace_in(
        example / "intent/aus1/devices.yaml",
        "management: 192.168.10.104/24",
        "management: 192.168.10.104/25",
    )
    assert findings_of(lint_repo(example), "MH-016") == [
        f"{ATTACHMENTS}:{line_of(attachments, 'leaves: [aus1-lf3, aus1-lf4]')}: attachment "
        "dh2-nxos-vpc pairs aus1-lf3 (management 192.168.10.0/24) with aus1-lf4 (management "
        "192.168.10.0/25): the pair's keepalive runs between the two management addresses, "
        "which need one subnet; move one leaf's management address into the other's subnet"
    ]


def test_mh016_leaves_an_address_off_the_gateways_subnet_to_mgmt003(example: Path) -> None:
    """aus1-lf4's management address mistyped into 192.168.11.0/24: MGMT-003 names the
    address (its subnet does not hold the gateway). MH-016 reported the pair's keepalive too,
    at the attachment, for the same typo: one finding, MGMT-003's."""
    add(example, "dh2-nxos-vpc", NXOS_VPC)
    devices = example / "intent/aus1/devices.yaml"
    replace_in(devices, "management: 192.168.10.104/24", "management: 192.168.11.104/24")
    result = lint_repo(example)
    assert [(f.rule, f.location.file, f.location.line) for f in result.errors] == [
        ("MGMT-003", "intent/aus1/devices.yaml", line_of(devices, "192.168.11.104/24"))
    ]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            NXOS_ACCESS.replace("[aus1-lf3]", "[aus1-lf3, aus1-lf4]"),
            "names 2 leaves, its mode needs 1; name 1, or use mode: mlag or esi",
        ),
        (
            NXOS_VPC.replace("[aus1-lf3, aus1-lf4]", "[aus1-lf3]"),
            "names 1 leaf, its mode needs 2; name 2, or use mode: single",
        ),
    ],
    ids=["single-with-two", "mlag-with-one"],
)
def test_mh017_leaf_count_of_the_mode(example: Path, body: str, says: str) -> None:
    attachments = add(example, "hosts", body)
    found = findings_of(lint_repo(example), "MH-017")
    assert len(found) == 1
    assert found[0].startswith(f"{ATTACHMENTS}:{line_of(attachments, 'leaves: [aus1-lf3')}: ")
    assert found[0].endswith(says)


def test_mh018_a_fabric_link_in_the_peer_vlan_slot(example: Path) -> None:
    add(example, "dh2-nxos-vpc", NXOS_VPC)
    links = example / "intent/aus1/links.yaml"
    # index 126 is just inside the block and free of the peer VLAN; 127 is its slot
    text = links.read_text().rstrip("\n")
    link = (
        "\n      - {a: {device: aus1-lf3, interface: Ethernet1/60}, "
        "b: {device: aus1-lf4, interface: Ethernet1/60}, index: INDEX, speed: 400G}\n"
    )
    links.write_text(text + link.replace("INDEX", "126"))
    assert findings_of(lint_repo(example), "MH-018") == []
    links.write_text(text + link.replace("INDEX", "127"))
    found = findings_of(lint_repo(example), "MH-018")
    assert len(found) == 1 and "takes 10.1.103.254/31 (slot 127" in found[0], found


def test_mh019_a_network_on_the_peer_vlan(example: Path) -> None:
    add(example, "dh2-nxos-vpc", NXOS_VPC)
    tenants = example / TENANTS
    replace_in(
        tenants,
        "storage-front-1: {vrf: storage, vlan: 201,",
        "storage-front-1: {vrf: storage, vlan: 3967,",
    )
    assert findings_of(lint_repo(example), "MH-019") == [
        f"{TENANTS}:{line_of(tenants, 'vlan: 3967')}: network storage/storage-front-1 uses VLAN "
        "3967 on aus1-lf3, aus1-lf4, the MLAG pair's peer VLAN (attachment dh2-nxos-vpc): the "
        "pair routes its underlay adjacency there; give the network another VLAN"
    ]


def test_mh020_access_takes_exactly_one_network(example: Path) -> None:
    add(example, "one", NXOS_ACCESS)
    assert findings_of(lint_repo(example), "MH-020") == []
    two = NXOS_ACCESS.replace("[storage-back-1]", "[storage-back-1, storage-back-2]")
    attachments = add(example, "two", two.replace("Ethernet1/30", "Ethernet1/32"))
    assert findings_of(lint_repo(example), "MH-020") == [
        f"{ATTACHMENTS}:{line_of(attachments, '[storage-back-1, storage-back-2]')}: attachment "
        "two is an access attachment with 2 networks: an access port carries one VLAN "
        "untagged; name one network, or drop access: true to trunk them tagged"
    ]


@pytest.mark.parametrize(
    ("body", "key", "says"),
    [
        (
            NXOS_VPC + "lacp: true\n",
            "lacp: true",
            "MLAG attachment hosts sets lacp, a setting of "
            "mode: single: MLAG and ESI bonds are always LACP; remove it",
        ),
        (
            NXOS_ACCESS + 'lacp_system_mac: "02:00:00:00:10:09"\n',
            '"02:00:00:00:10:09"',
            "single-homed attachment hosts sets lacp_system_mac, a setting of a leaf pair: a "
            "single-leaf bond presents the leaf's own LACP system; remove it",
        ),
        (
            NXOS_ACCESS + "peer_link: [Ethernet1/49]\n",
            "peer_link: [Ethernet1/49]",
            "single-homed attachment "
            "hosts sets peer_link, an MLAG setting: a single-homed host has no leaf pair; remove "
            "it (or use mode: mlag)",
        ),
    ],
    ids=["lacp-on-mlag", "mac-on-single", "peer-link-on-single"],
)
def test_mh002_settings_of_another_mode(example: Path, body: str, key: str, says: str) -> None:
    attachments = add(example, "hosts", body)
    found = findings_of(lint_repo(example), "MH-002")
    assert found == [f"{ATTACHMENTS}:{line_of(attachments, key)}: {says}"]


def test_mh002_a_pair_needs_its_lacp_system_mac(example: Path) -> None:
    body = EOS_ESI.replace('lacp_system_mac: "02:1c:73:00:00:21"\n', "")
    replace_in(example / TENANTS, *STORAGE_ON_EOS)
    attachments = add(example, "hosts", body)
    assert findings_of(lint_repo(example), "MH-002") == [
        f"{ATTACHMENTS}:{line_of(attachments, '      hosts:')}: ESI (EVPN multihoming) "
        "attachment hosts has no lacp_system_mac: both leaves must present one LACP system to "
        "the host so its bond forms across them; give the pair a MAC of its own"
    ]


@pytest.mark.parametrize(("lag_base", "clash"), [(999, True), (1000, True), (1001, False)])
def test_mh021_a_host_bond_on_the_peer_link_number(
    example: Path, lag_base: int, clash: bool
) -> None:
    # two hosts from lag_base 999 take 999 and 1000; from 1001 they are clear of it
    attachments = add(
        example,
        "dh2-nxos-vpc",
        NXOS_VPC.replace("[Ethernet1/20]", "[Ethernet1/20, Ethernet1/21]")
        + f"lag_base: {lag_base}\n",
    )
    found = findings_of(lint_repo(example), "MH-021")
    expected = [
        f"{ATTACHMENTS}:{line_of(attachments, f'lag_base: {lag_base}')}: attachment "
        "dh2-nxos-vpc numbers a host bond port-channel1000 on aus1-lf3, the name of its MLAG "
        "peer link: one port-channel cannot be both; choose a lag_base whose numbers stay "
        "clear of it"
    ]
    assert found == (expected if clash else [])
