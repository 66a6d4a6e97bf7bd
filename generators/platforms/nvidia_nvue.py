"""NVIDIA Cumulus Linux 5.16 (NVUE): the plug-in's facts; templates in templates/nvidia_nvue."""

from __future__ import annotations

import re

from meetme.generators.platforms import gaps, spellings
from meetme.generators.platforms.base import (
    Capabilities,
    LocalUsers,
    OutputFile,
    Platform,
    PortForms,
    Srv6Support,
    UserRole,
)

PLATFORM = Platform(
    name="nvidia_nvue",
    title="NVIDIA Cumulus Linux 5.16 (NVUE)",
    management_interface="eth0",
    fixed_management_vrf="mgmt",  # eth0 always lives in VRF 'mgmt'
    mtu_overhead=0,
    subinterface_mtu_overhead=0,
    lag_format="bond{n}",
    mlag_peer_link="peerlink",
    svi_format="vlan{vlan}",
    loopback_names=("lo", "lo"),
    # No rpki: the 5.16 object model has no RPKI key at all (nvueschema v5_16, router bgp
    # and vrf bgp included), so origin validation cannot be configured through NVUE.
    capabilities=Capabilities(
        evpn_vxlan=True,
        svi_needs_unique_address=True,
        mlag=True,  # MLAG bonds, peerlink and anycast VTEP (templates/nvidia_nvue)
        esi_multihoming=True,  # EVPN multihoming bonds (CLDOCS "EVPN Multihoming")
    ),
    # Default roles (CLDOCS "User Accounts": system-admin = sudo + nv set/apply,
    # nvue-monitor = nv show only); `hashed-password` is the Linux shadow crypt string.
    local_users=LocalUsers(
        admin=UserRole(("system-admin",)),
        operator=UserRole(("nvue-monitor",)),
        password_hash="sha512_crypt",
    ),
    files=(OutputFile("device.j2", ".yaml"),),
    # NVUE keeps these words for itself in VRF names among others (CLDOCS 5.13 "NVUE Format
    # Reference", Reserved Names); a VRF is a Linux interface, so its name is a netdev name
    reserved_vrf_names=("auto", "none", "null", "any", "all"),
    vrf_name_pattern=re.compile(r"[a-zA-Z][a-zA-Z0-9_-]{0,14}"),
    vrf_name_rule="1 to 15 letters, digits, '-' and '_', starting with a letter (a Linux "
    "interface name; nvueschema v5_16 VrfName)",
    # `system hostname`: one DNS label, letters, digits and inner '-' (nvueschema v5_16
    # Hostname with the system hostname's own "^[^.]*$": no dots)
    hostname_pattern=re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"),
    hostname_rule="1 to 63 letters, digits and '-', neither first nor last (a DNS host "
    "label; nvueschema v5_16 Hostname, no dots)",
    # each `community-advertise` kind (regular, extended, large) is on when unset (nvueschema
    # v5_16, templates/nvidia_nvue/bgp_sessions.j2), and meetme sets none
    sends_communities_unasked="all",
    push_drivers=("nvue",),  # accepted in the inventory, no push adapter yet (docs/push.md)
    # `link speed` on a port; `link breakout 4x` on the cage, `link speed` on each sub-port
    # (docs/syntax.md#nvue-ports)
    ports=PortForms(sub_port_speed=True),
    filters={
        "as_path_regexes": spellings.as_path_regexes,  # no ASN ranges in as-path lists
        # no AS-path length match in route maps: an as-path-list of a regex stands for it
        "as_path_length_regex": spellings.as_path_length_regex,
        "as_path_length_list": spellings.as_path_length_list,
        "yaml_str": spellings.yaml_str,  # YAML quoting by the library, not by hand
    },
    # Transit uN SIDs only, in the default VRF, on Spectrum-4, since Cumulus Linux 5.14 (CLDOCS
    # 5.14 "Segment Routing": "On the Spectrum-4 switch only", "In the default VRF only"; the
    # NICs originate and terminate); no BGP services over SRv6 (templates/nvidia_nvue/srv6.j2).
    srv6=Srv6Support(
        formats=("F3216", "F1616"),
        l3vpn=False,
        asics=("Spectrum-4",),
        note="Cumulus Linux 5.14+ 'Segment Routing': transit uN/uA SIDs on Spectrum-4 only, no "
        "BGP services over SRv6",
        # an IPv6 ACL's `match ip dest-ip PREFIX` and `action deny`, bound `inbound` as the
        # edge's source ACLs are (CLDOCS 5.16 "Access Control List Configuration": `nv set acl
        # EXAMPLE1 rule 10 match ip dest-ip 10.0.15.8/32`; templates/nvidia_nvue/acls.j2)
        sid_filter=True,
    ),
    # `multipaths ebgp` 1-256 (nvueschema v5_16, VrfEntryRouterBgpAddressFamilyIpv4Unicast-
    # Multipaths and its IPv6 twin: Field(ge=1, le=256))
    max_paths=256,
    gap_checks=(
        gaps.ecmp_range,
        gaps.srv6_locator,
        gaps.srv6_l3vpn,
        gaps.rpki,
        gaps.static_next_hop,
        gaps.vrf_sessions_in_evpn_vrfs,
        # the NVUE form for a spine relaying VTEP next hops is unverified (overlay_peers.j2)
        gaps.next_hop_unchanged,
        gaps.segments_off_mlag,
        gaps.segments_on_vteps,
        gaps.segments_with_suppression,
        gaps.mlag_peer_link,
        gaps.vrf_names,
        gaps.hostname,
        gaps.as_path_length_form,
    ),
)
