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
    loopback_names=("Loopback0", "Loopback1"),
    # rpki: `rpki cache` / `rpki origin-validation` under router bgp and route-map
    # `match origin-as validity invalid` (MANRS implementation guide; NLNOG filter guide).
    # urpf: `ip verify unicast source reachable-via any` on a routed port (docs/syntax.md#eos-urpf).
    capabilities=Capabilities(evpn_vxlan=True, rpki=True, urpf=True),
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
    ports=PortForms(sub_port_speed=True, idle_sub_ports=True),
    filters={"as_path_regexes": spellings.as_path_regexes},  # no ASN ranges in as-path lists
    # `leak routes source-vrf VRF subscribe-policy RM` under `router general`: one policy per
    # source VRF for both families (Arista EOS User Manual, "Inter-VRF Local Route Leaking").
    vrf_leak_policies="per_vrf",
    # bgp.j2 prints VRF sessions inside the EVPN and the plain (VRF-lite) VRF blocks;
    # no template prints host bonds or MLAG.
    gap_checks=(gaps.vrf_sessions_in_any_vrfs, gaps.no_host_bonds),
)
