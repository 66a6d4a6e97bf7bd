"""Issue #11, "smaller breakages", overlay part: the example's rendered configs read back, each
against lines written out here by hand (not taken from meetme).

- NX-OS: the L3VNI carrier SVI carries an MTU at least its VRF's tenant SVIs'.
- ECMP in every tenant / handoff VRF (EOS, NX-OS, NVUE, IOS-XR), with the AS-path relax where the
  platform needs one (the same prefix arrives from border leaves with different ASNs).
- Multihop BFD on the loopback-to-loopback EVPN sessions (EOS, NX-OS, NVUE).
- EOS EVPN sessions send standard, extended and large communities.
- The NVUE MLAG pair peers over peerlink.4094 (BGP unnumbered, underlay policies, EVPN).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from ciscoconfparse2 import CiscoConfParse
from conftest import EXAMPLE_INTENT, findings_of, line_of, lint_repo, replace_in
from meetme.generators.platforms import PLATFORMS

from meetme.pipeline import device_models, lint, render_all

ECMP = 64  # intent/aus1/site.yaml underlay.ecmp
EOS_BFD_MULTIHOP = "multihop interval 300 min-rx 300 multiplier 3"  # underlay.bfd 300 ms x 3
NXOS_BFD_MULTIHOP = "bfd multihop interval 300 min_rx 300 multiplier 3"
SPINES = ["10.0.0.11", "10.0.0.12", "10.0.0.13", "10.0.0.14"]  # sp1..sp4 router ids
VTEPS = ["10.0.0.21", "10.0.0.22", "10.0.0.23", "10.0.0.24", "10.0.0.25", "10.0.0.26"]
VTEPS += ["10.0.0.101", "10.0.0.102", "10.0.0.103", "10.0.0.104", "10.0.0.105", "10.0.0.106"]


@cache
def _files() -> dict[str, str]:
    """Device name -> rendered text of the shipped example."""
    rendered = render_all(device_models(lint(EXAMPLE_INTENT)))
    return {path.rsplit("/", 1)[-1].rsplit(".", 1)[0]: text for path, text in rendered.items()}


def _cli(name: str, syntax: str) -> CiscoConfParse:
    return CiscoConfParse(_files()[name].splitlines(), syntax=syntax)


def _tree(name: str) -> Any:
    (item,) = yaml.safe_load(_files()[name])
    return item["set"]


def _children(parse: CiscoConfParse, *path: str) -> list[str]:
    """The stripped child lines of the block reached by the exact parent lines in `path`."""
    (block,) = [o for o in parse.objs if o.text.strip() == path[0] and o.indent == 0]
    for step in path[1:]:
        (block,) = [c for c in block.children if c.text.strip() == step]
    return [c.text.strip() for c in block.children]


# --- 1. NX-OS L3VNI SVI MTU ----------------------------------------------------------------


def test_nxos_l3vni_svi_mtu_covers_the_vrf_tenant_svis() -> None:
    """lf3 carries gpu-a-mgmt (networks of MTU 1500) and storage (9000, the default)."""
    for name in ("aus1-lf3", "aus1-lf4"):
        parse = _cli(name, "nxos")
        assert _children(parse, "interface Vlan3002") == [
            "description gpu-a-mgmt L3VNI 50002",
            "no shutdown",
            "mtu 1500",
            "vrf member gpu-a-mgmt",
            "ip forward",
        ], name
        assert _children(parse, "interface Vlan3010") == [
            "description storage L3VNI 50010",
            "no shutdown",
            "mtu 9000",
            "vrf member storage",
            "ip forward",
        ], name
        # the tenant SVIs of storage run 9000: the carrier is not smaller
        assert "mtu 9000" in _children(parse, "interface Vlan201"), name


# --- 2. ECMP in tenant VRFs ----------------------------------------------------------------


def test_eos_tenant_vrfs_install_ecmp_paths() -> None:
    for name in ("aus1-bl1", "aus1-bl2"):
        parse = _cli(name, "ios")
        (bgp,) = [o.text for o in parse.objs if o.text.startswith("router bgp ")]
        assert f"maximum-paths {ECMP} ecmp {ECMP}" in _children(parse, bgp), name
        for vrf in ("gpu-a", "storage"):
            assert f"maximum-paths {ECMP} ecmp {ECMP}" in _children(parse, bgp, f"vrf {vrf}")
            # EOS relaxes the AS-path comparison by default: nothing turns it off
            assert not parse.find_objects(r"no bgp bestpath as-path multipath-relax"), name


def test_nxos_tenant_vrfs_install_ecmp_paths_across_asns() -> None:
    for name in ("aus1-lf3", "aus1-lf4"):
        parse = _cli(name, "nxos")
        (bgp,) = [o.text for o in parse.objs if o.text.startswith("router bgp ")]
        for vrf in ("gpu-a-mgmt", "storage"):
            lines = _children(parse, bgp, f"vrf {vrf}")
            assert "bestpath as-path multipath-relax" in lines, (name, vrf)
            for family in ("ipv4", "ipv6"):
                af = _children(parse, bgp, f"vrf {vrf}", f"address-family {family} unicast")
                assert f"maximum-paths {ECMP}" in af, (name, vrf, family)


def test_nvue_tenant_vrfs_install_ecmp_paths_across_asns() -> None:
    for name in ("aus1-lf1", "aus1-lf2", "aus1-lf5", "aus1-lf6"):
        vrfs = _tree(name)["vrf"]
        assert vrfs["default"]["router"]["bgp"]["address-family"]["ipv4-unicast"]["multipaths"] == {
            "ebgp": ECMP
        }
        for vrf in ("gpu-a", "storage"):
            bgp = vrfs[vrf]["router"]["bgp"]
            assert bgp["path-selection"] == {"multipath": {"aspath-ignore": "enabled"}}, name
            for family in ("ipv4-unicast", "ipv6-unicast"):
                assert bgp["address-family"][family]["multipaths"] == {"ebgp": ECMP}, name


def test_iosxr_handoff_vrfs_install_ecmp_paths_across_border_leaves() -> None:
    for name in ("aus1-br1", "aus1-br2"):
        parse = _cli(name, "iosxr")
        (bgp,) = [o.text for o in parse.objs if o.text.startswith("router bgp ")]
        for vrf in ("gpu-a", "storage"):
            lines = _children(parse, bgp, f"vrf {vrf}")
            assert "bgp bestpath as-path multipath-relax" in lines, (name, vrf)
            af = _children(parse, bgp, f"vrf {vrf}", "address-family ipv4 unicast")
            assert af == [f"maximum-paths ebgp {ECMP}"], (name, vrf)


# --- 3. BFD on the EVPN sessions, 4. EOS communities ---------------------------------------


@pytest.mark.parametrize(
    ("name", "peers"), [("aus1-bl1", SPINES), ("aus1-bl2", SPINES), ("aus1-sp1", VTEPS)]
)
def test_eos_evpn_sessions_run_multihop_bfd_and_send_every_community(
    name: str, peers: list[str]
) -> None:
    parse = _cli(name, "ios")
    assert _children(parse, "router bfd") == [
        "interval 300 min-rx 300 multiplier 3 default",
        EOS_BFD_MULTIHOP,
    ]
    (bgp,) = [o.text for o in parse.objs if o.text.startswith("router bgp ")]
    lines = _children(parse, bgp)
    for peer in peers:
        assert f"neighbor {peer} bfd" in lines, peer
        assert f"neighbor {peer} send-community standard extended large" in lines, peer
        assert f"neighbor {peer} send-community extended" not in lines, peer


def test_nxos_evpn_sessions_run_multihop_bfd() -> None:
    for name in ("aus1-lf3", "aus1-lf4", "aus1-bl3", "aus1-bl4"):
        parse = _cli(name, "nxos")
        assert parse.find_objects(rf"^{NXOS_BFD_MULTIHOP}$"), name
        (bgp,) = [o.text for o in parse.objs if o.text.startswith("router bgp ")]
        for peer in SPINES:
            lines = _children(parse, bgp, f"neighbor {peer}")
            assert "bfd multihop" in lines, (name, peer)
            af = _children(parse, bgp, f"neighbor {peer}", "address-family l2vpn evpn")
            assert "send-community" in af and "send-community extended" in af, (name, peer)


def test_nvue_evpn_sessions_run_bfd_with_the_fabric_timers() -> None:
    for name in ("aus1-lf1", "aus1-lf2", "aus1-lf5", "aus1-lf6", "aus1-bl5", "aus1-bl6"):
        tree = _tree(name)
        profile = tree["router"]["bfd"]["profile"]["BFD-UNDERLAY"]
        assert profile == {"detect-multiplier": 3, "min-tx-interval": 300, "min-rx-interval": 300}
        neighbors = tree["vrf"]["default"]["router"]["bgp"]["neighbor"]
        for peer in SPINES:
            assert neighbors[peer]["bfd"] == {"profile": "BFD-UNDERLAY"}, (name, peer)


# --- 5. NVUE MLAG peer-link routing --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "peer_asn", "peer"),
    [("aus1-lf1", 4200000102, "aus1-lf2"), ("aus1-lf2", 4200000101, "aus1-lf1")],
)
def test_nvue_mlag_pair_peers_over_the_peer_link(name: str, peer_asn: int, peer: str) -> None:
    for other in ("aus1-lf5", "aus1-lf6", "aus1-bl5", "aus1-bl6"):  # ESI and unpaired leaves
        assert "peerlink.4094" not in _tree(other)["vrf"]["default"]["router"]["bgp"]["neighbor"]
    tree = _tree(name)
    assert tree["interface"]["peerlink.4094"]["type"] == "sub"
    session = tree["vrf"]["default"]["router"]["bgp"]["neighbor"]["peerlink.4094"]
    limits = {"inbound": {"maximum": 12000, "warning-threshold": 80}}
    assert session == {
        "remote-as": peer_asn,
        "type": "unnumbered",
        "description": f"mlag peer link to {peer}",
        "bfd": {"profile": "BFD-UNDERLAY"},
        "address-family": {
            "ipv4-unicast": {
                "state": "enabled",
                "policy": {
                    "inbound": {"route-map": "RM-UNDERLAY-V4-IN"},
                    "outbound": {"route-map": "RM-UNDERLAY-V4-OUT"},
                },
                "prefix-limits": limits,
            },
            "ipv6-unicast": {
                "state": "enabled",
                "policy": {
                    "inbound": {"route-map": "RM-UNDERLAY-V6-IN"},
                    "outbound": {"route-map": "RM-UNDERLAY-V6-OUT"},
                },
                "prefix-limits": limits,
            },
            "l2vpn-evpn": {
                "state": "enabled",
                "prefix-limits": {"inbound": {"maximum": 100000, "warning-threshold": 80}},
            },
        },
    }


# --- PLAT-015: NX-OS multihop BFD timers --------------------------------------------------


@pytest.mark.parametrize(
    ("interval", "found"), [(249, True), (250, False), (300, False), (999, False), (1000, True)]
)
def test_plat015_nxos_multihop_bfd_interval_range(interval: int, found: bool) -> None:
    models = device_models(lint(EXAMPLE_INTENT))
    lf3 = models["aus1-lf3"]
    assert lf3.evpn is not None and lf3.evpn.multihop_bfd is not None
    timers = lf3.evpn.multihop_bfd.model_copy(update={"interval": interval})
    model = lf3.model_copy(update={"evpn": lf3.evpn.model_copy(update={"multihop_bfd": timers})})
    gaps = [g for g in PLATFORMS["cisco_nxos"].gaps(model) if g.rule == "PLAT-015"]
    assert bool(gaps) == found, interval
    # EOS and NVUE take any interval the schema allows: no such limit there
    for name in ("aus1-bl1", "aus1-lf1"):
        other = models[name]
        assert other.evpn is not None and other.evpn.multihop_bfd is not None
        evpn = other.evpn.model_copy(update={"multihop_bfd": timers})
        assert not [
            g
            for g in PLATFORMS[other.platform].gaps(other.model_copy(update={"evpn": evpn}))
            if g.rule == "PLAT-015"
        ]


def test_plat015_points_at_the_underlay_bfd_interval(example: Path) -> None:
    site = example / "intent" / "aus1" / "site.yaml"
    replace_in(site, "bfd: {interval: 300, multiplier: 3}", "bfd: {interval: 200, multiplier: 3}")
    line = line_of(site, "bfd: {interval: 200")
    found = findings_of(lint_repo(example), "PLAT-015")
    devices = ("aus1-bl3", "aus1-bl4", "aus1-lf3", "aus1-lf4")  # the NX-OS VTEPs
    assert found == [
        f"intent/aus1/site.yaml:{line}: {name} (Cisco NX-OS) cannot render multihop BFD every "
        "200 ms on the EVPN sessions: NX-OS takes 250-999 ms"
        for name in devices
    ]


def test_nxos_l3vni_svi_of_an_ipv6_vrf_runs_ipv6_link_local_only() -> None:
    """gpu-a routes IPv6 (its gateways and sessions): its L3VNI SVI carries IPv6 with no
    address of its own, as Cisco's L3VNI SVI does; storage and gpu-a-mgmt (IPv4 only) not."""
    for name in ("aus1-lf3", "aus1-lf4"):
        parse = _cli(name, "nxos")
        assert _children(parse, "interface Vlan3001")[-2:] == [
            "ip forward",
            "ipv6 address use-link-local-only",
        ], name
        assert "ipv6 address use-link-local-only" not in _children(parse, "interface Vlan3010")
