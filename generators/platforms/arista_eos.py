"""Arista EOS: the plug-in's facts; templates in templates/arista_eos."""

from __future__ import annotations

from meetme.generators.platforms import gaps, spellings
from meetme.generators.platforms.base import (
    Capabilities,
    LocalUsers,
    Platform,
    PortForms,
    UserRole,
)

PLATFORM = Platform(
    name="arista_eos",
    title="Arista EOS",
    management_interface="Management1",
    fixed_management_vrf=None,
    mtu_overhead=0,  # EOS `mtu` on a routed port is the IP MTU (AVD sets 9214)
    subinterface_mtu_overhead=0,
    lag_format="Port-Channel{n}",
    mlag_peer_link="Port-Channel1000",
    svi_format="Vlan{vlan}",
    # AVD's EVPN MLAG leaves: both leaves source VXLAN from Loopback1 holding the pair's one
    # VTEP address, and peer over the Vlan4094 SVI on the peer link (mlag_peer_vlan 4094, AVD's
    # default; its separate L3 peering VLAN 4093 is optional and one VLAN serves both here)
    mlag_vtep="loopback",
    mlag_peer_vlan=4094,
    loopback_names=("Loopback0", "Loopback1"),
    # rpki: `rpki cache` / `rpki origin-validation` under router bgp and route-map
    # `match origin-as validity invalid` (MANRS implementation guide; NLNOG filter guide).
    # urpf: `ip verify unicast source reachable-via any` on a routed port (docs/syntax.md#eos-urpf).
    # mlag: `mlag configuration`, the Vlan4094 peer SVI, `mlag N` host port-channels
    # (templates/arista_eos/multihoming.j2); esi_multihoming: `evpn ethernet-segment` under a
    # host port-channel (same file); docs/syntax.md#eos-lags.
    capabilities=Capabilities(
        evpn_vxlan=True, rpki=True, urpf=True, mlag=True, esi_multihoming=True
    ),
    # Built-in roles network-admin / network-operator; `secret sha512` takes a $6$ hash
    # (AVD eos_cli_config_gen local_users; EOS 4.30 `show running-config` excerpts).
    local_users=LocalUsers(
        admin=UserRole(("network-admin",), privilege=15),
        operator=UserRole(("network-operator",), privilege=1),
        password_hash="sha512_crypt",
    ),
    push_drivers=("eos",),
    # `speed 400g-4` (rate, lanes) on the port; a breakout is said by the speed of each lane
    # interface that leads a sub-port, used or not (docs/syntax.md#eos-ports)
    ports=PortForms(sub_port_speed=True, idle_sub_ports=True, shut_unused=True),
    filters={
        "as_path_regexes": spellings.as_path_regexes,  # no ASN ranges in as-path lists
        "dotted_mac": spellings.dotted_mac,  # `lacp system-id 0000.0000.0010`
        "eos_esi": spellings.eos_esi,  # `identifier 0000:0000:0000:0000:0010`
        "eos_rpki_cache_name": spellings.eos_rpki_cache_name,  # `rpki cache RPKI-10-9-0-12`
    },
    # `leak routes source-vrf VRF subscribe-policy RM` under `router general`: one policy per
    # source VRF for both families (Arista EOS User Manual, "Inter-VRF Local Route Leaking").
    vrf_leak_policies="per_vrf",
    # bgp.j2 prints VRF sessions inside the EVPN and the plain (VRF-lite) VRF blocks
    # Arista documents static uN (EOS 4.34.2F, 7060X6; 7280R3 from 4.35.1F) and uA (4.35.0F)
    # in TOIs, and no BGP L3VPN over SRv6; meetme renders no EOS SRv6 (docs/srv6.md#platforms).
    srv6_missing="EOS documents static uN/uA SIDs only (Arista TOIs 'SRv6 uN Support', EOS "
    "4.34.2F, 7280R3 from 4.35.1F) and no BGP L3VPN over SRv6; meetme renders no EOS SRv6",
    gap_checks=(
        gaps.srv6_locator,
        gaps.srv6_l3vpn,
        gaps.vrf_sessions_in_any_vrfs,
        gaps.segments_on_vteps,
        gaps.trunks_with_vlans,
        gaps.segments_off_mlag,
        gaps.mlag_peer_link,
        gaps.as_path_length_form,
        gaps.vrf_sessions_behind_shared_vtep,
    ),
)
