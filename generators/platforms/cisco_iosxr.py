"""Cisco IOS-XR: the plug-in's facts; templates in templates/cisco_iosxr."""

from __future__ import annotations

from meetme.generators.platforms import gaps, spellings
from meetme.generators.platforms.base import (
    Capabilities,
    LocalUsers,
    Platform,
    PortForms,
    Srv6Support,
    UserRole,
)

PLATFORM = Platform(
    name="cisco_iosxr",
    title="Cisco IOS-XR",
    management_interface="MgmtEth0/RP0/CPU0/0",
    fixed_management_vrf=None,
    # XR `mtu` is the L2 MTU and includes the 14-byte Ethernet header: IP MTU + 14.
    mtu_overhead=14,
    subinterface_mtu_overhead=18,  # XR counts the 14-byte header and the 4-byte dot1q tag
    lag_format="Bundle-Ether{n}",
    mlag_peer_link="Bundle-Ether1000",
    svi_format="BVI{vlan}",
    loopback_names=("Loopback0", "Loopback1"),
    # urpf: `ipv4 verify unicast source reachable-via any` (docs/syntax.md#iosxr-urpf).
    capabilities=Capabilities(rpki=True, urpf=True),
    # Predefined user groups (Cisco IOS XR Getting Started Guide, "Predefined User Groups":
    # root-lr = all commands in the SDR, operator = day-to-day monitoring); `secret 10`
    # takes a $6$ SHA-512-crypt hash (IOS XR 24.4 `show running-config` excerpts).
    local_users=LocalUsers(
        admin=UserRole(("root-lr", "cisco-support")),
        operator=UserRole(("operator",)),
        password_hash="sha512_crypt",
    ),
    push_drivers=("iosxr", "iosxr_netconf"),
    # every community to iBGP neighbours, none to eBGP ones without `send-community-ebgp`
    # (Cisco 8000 BGP Configuration Guide, "BGP community and extended-community
    # advertisements"), which templates/cisco_iosxr/bgp.j2 never prints
    sends_communities_unasked="ibgp",
    # The optic sets a port's speed and the interface type names it (HundredGigE0/0/0/8: a
    # 100G optic in a 400G cage); a breakout is `controller Optics0/0/0/P` `breakout 4x100`
    # (docs/syntax.md#iosxr-ports)
    ports=PortForms(
        forced_speed=False,
        speed_types={
            10: "TenGigE",
            25: "TwentyFiveGigE",
            40: "FortyGigE",
            50: "FiftyGigE",
            100: "HundredGigE",
            200: "TwoHundredGigE",
            400: "FourHundredGigE",
            800: "EightHundredGigE",
        },
    ),
    filters={
        "netmask": spellings.netmask,
        "as_path_regexes": spellings.as_path_regexes,
    },  # `ipv4 address A MASK`
    # RPL sets list only what matches and an if/elseif chain ends at a match-all clause
    # (routing_policy.j2); static routes are discard routes; VRF sessions print in plain VRFs.
    # uSID locators, IS-IS SRv6, BGP VPNv4/VPNv6 with per-VRF SIDs (Cisco 8000 SRv6
    # Configuration Guide; templates/cisco_iosxr/srv6.j2). F3216 only: the guide's uSID locator.
    # "every IPv6 access list has an implicit deny ipv6 any any" (ASR 9000 IOS XR ACL command
    # reference, `ipv6 access-list`; templates/cisco_iosxr/acls.j2)
    acl_drops_unmatched=True,
    srv6=Srv6Support(
        formats=("F3216",),
        l3vpn=True,
        sid_filter=True,  # `ipv6 access-list` / `ipv6 access-group NAME ingress` (interfaces.j2)
        note="Cisco 8000 SRv6 Configuration Guide, uSID Locator (F3216)",
    ),
    gap_checks=(
        gaps.srv6_locator,
        gaps.srv6_l3vpn,
        gaps.prefix_list_denies,
        gaps.as_path_denies,
        gaps.clauses_after_match_all,
        gaps.static_next_hop,
        gaps.vrf_sessions_in_plain_vrfs,
        gaps.no_host_bonds,
        gaps.as_path_length_form,
    ),
)
