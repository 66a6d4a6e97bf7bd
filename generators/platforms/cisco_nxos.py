"""Cisco NX-OS: the plug-in's facts; templates in templates/cisco_nxos."""

from __future__ import annotations

import re

from meetme.generators.platforms import gaps, spellings
from meetme.generators.platforms.base import (
    Capabilities,
    LocalUsers,
    Platform,
    PortForms,
    UserRole,
)

PLATFORM = Platform(
    name="cisco_nxos",
    title="Cisco NX-OS",
    management_interface="mgmt0",
    fixed_management_vrf="management",  # mgmt0 always lives in VRF 'management'
    mtu_overhead=0,
    subinterface_mtu_overhead=0,
    lag_format="port-channel{n}",
    mlag_peer_link="port-channel1000",
    l2_mtus=(1500, 9216),
    # `send-community` and `send-community extended` under a neighbor's address family
    # (docs/syntax.md#nxos-evpn); no NX-OS source read shows a large-community form there
    # (Batfish CiscoNxos_bgp.g4 knows `send-community [both|standard|extended]` only)
    send_communities=("standard", "extended"),
    # a route server's EVPN sessions keep the VTEP next hop by an outbound route map
    # (templates/cisco_nxos/bgp.j2, docs/syntax.md#nxos-evpn)
    next_hop_unchanged_form="route_map",
    svi_format="Vlan{vlan}",
    # vPC VTEPs: the pair's VTEP address is a secondary address of the NVE source loopback
    # (Cisco NX-OS VXLAN Configuration Guide, Guidelines and Limitations for VXLAN: "For VPC, the
    # loopback interface has 2 IP addresses ... The secondary IP address on loopback is
    # necessary because the interface NVE uses it for the VTEP IP address"); the backup routing
    # SVI over the peer link is VLAN 3967, the highest VLAN below NX-OS's reserved 3968-4094
    # (validators/data/reserved_vlans.yaml; Cisco TAC 214624: the VLAN is local to the pair,
    # in the default VRF).
    mlag_vtep="loopback_secondary",
    mlag_peer_vlan=3967,
    loopback_names=("loopback0", "loopback1"),
    # No rpki: no vendor source found for NX-OS RTR cache or `match rpki` syntax (PLAT-001
    # reports a model that asks). No esi_multihoming: Cisco's 10.4/10.5 VXLAN guides say
    # Nexus 9000 -EX and later only import ESI routes and cannot host an Ethernet segment; the
    # GX2 hosts one from 10.6(1) with a CLI not verified here. templates/cisco_nxos/multihoming.j2
    # keeps the 9.3-era form for when that is settled (EVPN-011 refuses it in intent).
    # urpf: `ip verify unicast source reachable-via any` (docs/syntax.md#nxos-urpf).
    # mlag: vPC (`feature vpc`, `vpc domain`, `vpc peer-link`, `vpc N`; multihoming.j2).
    capabilities=Capabilities(
        evpn_vxlan=True, evpn_connected_needs_route_map=True, urpf=True, mlag=True
    ),
    missing_reasons={
        "esi_multihoming": "Nexus 9000 -EX and later only resolve remote ESI routes and cannot "
        "host an Ethernet segment, Cisco NX-OS VXLAN Configuration Guide 10.4(x); vPC is the "
        "NX-OS answer",
    },
    # Default roles network-admin / network-operator (Nexus NX-OS security command
    # reference, `username`); NX-OS stores and accepts `password 5` as SHA-256-crypt
    # ($5$: NX-OS 10.x `show running-config`; cisco.nxos nxos_user hashed_password, tested
    # on 10.1(1), validates ^$5$). Reserved names, and names starting with an alphanumeric
    # character: Cisco Nexus 9000 NX-OS Security Configuration Guide 10.4(x), "Configuring
    # User Accounts and RBAC" ("These words are reserved and cannot be used to configure
    # users"; "Usernames must begin with an alphanumeric character").
    local_users=LocalUsers(
        admin=UserRole(("network-admin",)),
        operator=UserRole(("network-operator",)),
        password_hash="sha256_crypt",
        reserved_names=frozenset(
            [
                "bin",
                "daemon",
                "adm",
                "lp",
                "sync",
                "shutdown",
                "halt",
                "mail",
                "news",
                "uucp",
                "operator",
                "games",
                "gopher",
                "ftp",
                "nobody",
                "nscd",
                "mailnull",
                "root",
                "rpc",
                "rpcuser",
                "xfs",
                "gdm",
                "mtsuser",
                "ftpuser",
                "man",
                "sys",
            ]
        ),
        first_character="abcdefghijklmnopqrstuvwxyz0123456789",  # the intent takes a-z and _
    ),
    # NX-OS has no route-map match for the AS-path length; `maxas-limit N` under `router bgp`
    # and `router bgp` / `vrf NAME` discards eBGP routes whose path holds more than N ASNs
    # (Ansible cisco.nxos nxos_bgp_global `maxas_limit`, global and per VRF; bgp.j2)
    drop_as_path_length="bgp",
    push_drivers=("nxos", "nxos_ssh"),
    # `speed <Mb/s>` on a port; `interface breakout module 1 port P map <S>g-<k>x`, whose maps
    # are these (Cisco Nexus-as-Code data model, interface_breakouts `map`;
    # docs/syntax.md#nxos-ports)
    ports=PortForms(
        modes=("4x10G", "4x25G", "2x50G", "4x50G", "2x100G", "4x100G", "2x200G"),
        shut_unused=True,
    ),
    filters={
        "dotted_mac": spellings.dotted_mac,
        "as_path_regexes": spellings.as_path_regexes,
    },  # `system-mac 0000.0000.0011`
    srv6_missing="no SRv6 form found for NX-OS on the Nexus 9000 (docs/srv6.md#platforms)",
    # `interface port-channel N`: "The range is from 1 to 4096" (Cisco Nexus 9000 NX-OS
    # Interfaces Configuration Guide 10.6(x), "Configuring Port Channels"); `vpc N` on a host
    # port-channel: 1-4096 (the cisco.nxos.nxos_vpc_interface parameters, as documented in
    # allenrobel/ask's cisco.nxos.nxos_vpc_interface page)
    bond_numbers=(1, 4096),
    mlag_ids=(1, 4096),
    # `maximum-prefix maximum`: "The range is from 1 to 300000" (Cisco Nexus 3548 NX-OS
    # Unicast Routing Command Reference, "maximum-prefix (BGP)", the reference docs/syntax.md
    # cites for the command); Cisco's Nexus-as-Code BGP data model bounds it the same
    max_prefix_limit=300_000,
    # `vlan N` / `name NAME`: 32 characters unless `system vlan long-name` is configured
    # (Cisco's own DCNM Ansible collection, CiscoDevNet/ansible-dcnm dcnm_network.py: "if > 32
    # chars enable, system vlan long-name on switch"); meetme does not print that command
    vlan_name_max=32,
    # `vrf context NAME`: at most 32 characters (Cisco's cisco.nxos collection, nxos_vrf:
    # "VRF name exceeded max length of 32" for len(vrf) > 32; its notes: "vrf name must be
    # shorter than 32 chars"); the characters are the intent's own (PLAT-020)
    vrf_name_pattern=re.compile(r".{1,32}"),
    vrf_name_rule="at most 32 characters (cisco.nxos nxos_vrf: VRF name max length 32)",
    # `ip prefix-list NAME` and `ip as-path access-list NAME`: "any alphanumeric string up to
    # 63 characters" (Cisco Nexus 5000 NX-OS Unicast Routing Command Reference, `ip
    # prefix-list`; Nexus 7000 / NX-OS 4.2 Unicast Routing Command Reference, "M Commands",
    # `match as-number`, as-path-access-list name,
    # https://www.cisco.com/en/US/docs/switches/datacenter/sw/4_2/nx-os/unicast/command/reference/l3_cmds_m.html).
    # Route-map names (RM-<PARTY>-..., so they can pass 63 too) are not checked: no Cisco
    # document found states the `route-map` name's limit (searched 2026-12-04; the Nexus
    # unicast command references and configuration guides in reach give none). Only a
    # secondary source bounds it, Batfish's NX-OS model (batfish/batfish,
    # projects/batfish/src/main/java/org/batfish/grammar/cisco_nxos/
    # CiscoNxosControlPlaneExtractor.java: ROUTE_MAP_NAME_LENGTH_RANGE 1-63, as its prefix-list
    # and as-path ranges, which match Cisco's 63). Community-list names are fixed and short
    # (CL-GRACEFUL-SHUTDOWN, LC-LEARNED-EXTERNAL: generators/build/edge_policy.py).
    list_name_max=63,
    gap_checks=(
        gaps.srv6_locator,
        gaps.srv6_l3vpn,
        gaps.rpki,
        gaps.static_next_hop,
        # VRF sessions print in the EVPN and the plain (VRF-lite) VRF blocks of bgp.j2
        gaps.vrf_sessions_in_any_vrfs,
        # a route server keeps VTEP next hops by the route map the model names (Evpn.next_hop_map)
        gaps.next_hop_map_named,
        gaps.l3vni_carrier_vlan,
        gaps.segments_on_vteps,
        gaps.vpc_domain_range,
        gaps.bond_number_ranges,
        gaps.prefix_limit_range,
        gaps.trunks_with_vlans,
        gaps.nxos_multihop_bfd,
        gaps.nxos_bfd,
        gaps.user_names,
        gaps.vlan_names,
        gaps.vrf_names,
        gaps.list_names,
        gaps.as_path_length_form,
    ),
)
