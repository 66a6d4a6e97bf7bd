"""Platforms are plug-ins: a templates folder plus this table of facts and capabilities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class UserRole:
    names: tuple[str, ...]  # the OS's role (EOS, NX-OS, NVUE) or user groups (IOS-XR)
    privilege: int | None = None  # EOS: the login's initial privilege level


@dataclass(frozen=True)
class LocalUsers:
    """How the OS writes a local user: its roles for the intent's two, and the hash it takes."""

    admin: UserRole
    operator: UserRole
    password_hash: Literal["sha512_crypt", "sha256_crypt"]  # crypt(3) $6$ / $5$

    def role(self, name: Literal["admin", "operator"]) -> UserRole:
        return self.admin if name == "admin" else self.operator


@dataclass(frozen=True)
class PlatformInfo:
    name: str
    title: str
    file_suffix: str  # rendered/<site>/<device><suffix>
    management_interface: str
    fixed_management_vrf: str | None  # None: the intent's VRF name is used
    mtu_overhead: int  # what the platform's `mtu` counts beyond the IP MTU
    subinterface_mtu_overhead: int  # the same for an 802.1Q sub-interface (tag included)
    svi_format: str  # the VLAN interface's name, e.g. "Vlan{vlan}"
    lag_format: str  # a bond / port-channel's name, e.g. "Port-Channel{n}"
    mlag_peer_link: str  # the MLAG peer link's name
    loopback_names: tuple[str, str]  # (router-id loopback, VTEP loopback) as the OS spells them
    capabilities: frozenset[str]
    local_users: LocalUsers
    # the only MTUs a Layer 2 port takes, when the platform restricts them (NX-OS: the default
    # or the system jumbo MTU, Cisco TAC 118994); None: any value
    l2_mtus: tuple[int, ...] | None = None


PLATFORMS: dict[str, PlatformInfo] = {
    "arista_eos": PlatformInfo(
        name="arista_eos",
        title="Arista EOS",
        file_suffix=".cfg",
        management_interface="Management1",
        fixed_management_vrf=None,
        mtu_overhead=0,  # EOS `mtu` on a routed port is the IP MTU (AVD sets 9214)
        subinterface_mtu_overhead=0,
        lag_format="Port-Channel{n}",
        mlag_peer_link="Port-Channel1000",
        svi_format="Vlan{vlan}",
        loopback_names=("Loopback0", "Loopback1"),
        # "rpki": `rpki cache` / `rpki origin-validation` under router bgp and route-map
        # `match origin-as validity invalid` (MANRS implementation guide; NLNOG filter guide).
        capabilities=frozenset({"ebgp_underlay", "bfd", "evpn_vxlan", "rpki"}),
        # Built-in roles network-admin / network-operator; `secret sha512` takes a $6$ hash
        # (AVD eos_cli_config_gen local_users; EOS 4.30 `show running-config` excerpts).
        local_users=LocalUsers(
            admin=UserRole(("network-admin",), privilege=15),
            operator=UserRole(("network-operator",), privilege=1),
            password_hash="sha512_crypt",
        ),
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
        lag_format="Bundle-Ether{n}",
        mlag_peer_link="Bundle-Ether1000",
        svi_format="BVI{vlan}",
        loopback_names=("Loopback0", "Loopback1"),
        capabilities=frozenset({"ebgp_underlay", "bfd", "rpki"}),
        # Predefined user groups (Cisco IOS XR Getting Started Guide, "Predefined User Groups":
        # root-lr = all commands in the SDR, operator = day-to-day monitoring); `secret 10`
        # takes a $6$ SHA-512-crypt hash (IOS XR 24.4 `show running-config` excerpts).
        local_users=LocalUsers(
            admin=UserRole(("root-lr", "cisco-support")),
            operator=UserRole(("operator",)),
            password_hash="sha512_crypt",
        ),
    ),
    "cisco_nxos": PlatformInfo(
        name="cisco_nxos",
        title="Cisco NX-OS",
        file_suffix=".cfg",
        management_interface="mgmt0",
        fixed_management_vrf="management",  # mgmt0 always lives in VRF 'management'
        mtu_overhead=0,
        subinterface_mtu_overhead=0,
        lag_format="port-channel{n}",
        mlag_peer_link="port-channel1000",
        l2_mtus=(1500, 9216),
        svi_format="Vlan{vlan}",
        loopback_names=("loopback0", "loopback1"),
        # No "rpki": no vendor source found for NX-OS RTR cache or `match rpki` syntax, and the
        # templates must not print an unverified origin-validation deny. Add it back with the
        # verified commands in templates/cisco_nxos (bgp.j2, routing_policy.j2).
        capabilities=frozenset(
            {
                "ebgp_underlay",
                "bfd",
                "evpn_vxlan",
                "evpn_connected_needs_route_map",
                # No "esi_multihoming": Cisco's 10.4/10.5 VXLAN guides say Nexus 9000 -EX and
                # later only import ESI routes and cannot host an Ethernet segment; the GX2
                # hosts one from 10.6(1) with a CLI not verified here. templates/cisco_nxos/
                # lags.j2 keeps the 9.3-era form for when that is settled.
            }
        ),
        # Default roles network-admin / network-operator (Nexus NX-OS security command
        # reference, `username`); NX-OS stores and accepts `password 5` as SHA-256-crypt
        # ($5$: NX-OS 10.x `show running-config`; cisco.nxos nxos_user hashed_password, tested
        # on 10.1(1), validates ^$5$).
        local_users=LocalUsers(
            admin=UserRole(("network-admin",)),
            operator=UserRole(("network-operator",)),
            password_hash="sha256_crypt",
        ),
    ),
    "nvidia_nvue": PlatformInfo(
        name="nvidia_nvue",
        title="NVIDIA Cumulus Linux 5.16 (NVUE)",
        file_suffix=".yaml",
        management_interface="eth0",
        fixed_management_vrf="mgmt",  # eth0 always lives in VRF 'mgmt'
        mtu_overhead=0,
        subinterface_mtu_overhead=0,
        lag_format="bond{n}",
        mlag_peer_link="peerlink",
        svi_format="vlan{vlan}",
        loopback_names=("lo", "lo"),
        # No "rpki": the 5.16 object model has no RPKI key at all (nvueschema v5_16, router bgp
        # and vrf bgp included), so origin validation cannot be configured through NVUE.
        capabilities=frozenset(
            {
                "ebgp_underlay",
                "bfd",
                "evpn_vxlan",
                "svi_needs_unique_address",
                "mlag",  # MLAG bonds, peerlink and anycast VTEP (templates/nvidia_nvue)
                "esi_multihoming",  # EVPN multihoming bonds (CLDOCS "EVPN Multihoming")
            }
        ),
        # Default roles (CLDOCS "User Accounts": system-admin = sudo + nv set/apply,
        # nvue-monitor = nv show only); `hashed-password` is the Linux shadow crypt string.
        local_users=LocalUsers(
            admin=UserRole(("system-admin",)),
            operator=UserRole(("nvue-monitor",)),
            password_hash="sha512_crypt",
        ),
    ),
}
