"""Platforms are plug-ins: a templates folder plus this table of facts and capabilities."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlatformInfo:
    name: str
    title: str
    file_suffix: str  # rendered/<site>/<device><suffix>
    management_interface: str
    fixed_management_vrf: str | None  # None: the intent's VRF name is used
    mtu_overhead: int  # what the platform's `mtu` counts beyond the IP MTU
    subinterface_mtu_overhead: int  # the same for an 802.1Q sub-interface (tag included)
    loopback_names: tuple[str, str]  # (router-id loopback, VTEP loopback) as the OS spells them
    capabilities: frozenset[str]


PLATFORMS: dict[str, PlatformInfo] = {
    "arista_eos": PlatformInfo(
        name="arista_eos",
        title="Arista EOS",
        file_suffix=".cfg",
        management_interface="Management1",
        fixed_management_vrf=None,
        mtu_overhead=0,  # EOS `mtu` on a routed port is the IP MTU (AVD sets 9214)
        subinterface_mtu_overhead=0,
        loopback_names=("Loopback0", "Loopback1"),
        # "rpki": `rpki cache` / `rpki origin-validation` under router bgp and route-map
        # `match origin-as validity invalid` (MANRS implementation guide; NLNOG filter guide).
        capabilities=frozenset({"ebgp_underlay", "bfd", "evpn_vxlan", "rpki"}),
    ),
    "cisco_iosxr": PlatformInfo(
        name="cisco_iosxr",
        title="Cisco IOS-XR",
        file_suffix=".cfg",
        management_interface="MgmtEth0/RP0/CPU0/0",
        fixed_management_vrf=None,
        # XR `mtu` is the L2 MTU and includes the 14-byte Ethernet header: IP MTU + 14.
        mtu_overhead=14,
        subinterface_mtu_overhead=18,  # XR counts the 14-byte header and the 4-byte dot1q tag
        loopback_names=("Loopback0", "Loopback1"),
        capabilities=frozenset({"ebgp_underlay", "bfd", "rpki"}),
    ),
    "cisco_nxos": PlatformInfo(
        name="cisco_nxos",
        title="Cisco NX-OS",
        file_suffix=".cfg",
        management_interface="mgmt0",
        fixed_management_vrf="management",  # mgmt0 always lives in VRF 'management'
        mtu_overhead=0,
        subinterface_mtu_overhead=0,
        loopback_names=("loopback0", "loopback1"),
        # No "rpki": no vendor source found for NX-OS RTR cache or `match rpki` syntax, and the
        # templates must not print an unverified origin-validation deny. Add it back with the
        # verified commands in templates/cisco_nxos (bgp.j2, routing_policy.j2).
        capabilities=frozenset({"ebgp_underlay", "bfd", "evpn_vxlan"}),
    ),
    "nvidia_nvue": PlatformInfo(
        name="nvidia_nvue",
        title="NVIDIA Cumulus Linux 5.16 (NVUE)",
        file_suffix=".yaml",
        management_interface="eth0",
        fixed_management_vrf="mgmt",  # eth0 always lives in VRF 'mgmt'
        mtu_overhead=0,
        subinterface_mtu_overhead=0,
        loopback_names=("lo", "lo"),
        # No "rpki": the 5.16 object model has no RPKI key at all (nvueschema v5_16, router bgp
        # and vrf bgp included), so origin validation cannot be configured through NVUE.
        capabilities=frozenset({"ebgp_underlay", "bfd", "evpn_vxlan"}),
    ),
}
