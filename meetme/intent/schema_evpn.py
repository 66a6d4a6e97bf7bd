"""EVPN-VXLAN fabric services in intent: tenants, their VRFs and networks, the overlay settings.

A network names the racks (or leaves) that carry it; the leaves in those racks become its VTEPs.
Route targets default to `route_target_admin:VNI` on every VTEP, so one VNI has one RT
fabric-wide (EVPN-004) whatever each leaf's ASN.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from meetme.intent.schema_base import Node
from meetme.intent.types import InterfaceName, InterfaceV4, InterfaceV6, Mtu, Name, Prefix

Vni = Annotated[int, Field(ge=1, le=16_777_215, description="24-bit VXLAN network identifier.")]
VlanId = Annotated[int, Field(ge=2, le=4094)]
MacAddress = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")]
RouteTarget = Annotated[str, Field(pattern=r"^\d{1,10}:\d{1,10}$")]


class EvpnSettings(Node):
    mode: Literal["ebgp", "ibgp"] = Field(
        default="ebgp",
        description="ebgp: leaves peer with the spines over loopbacks (RFC 7938 style); ibgp: "
        "route reflectors on the spines (needs an IGP underlay).",
    )
    anycast_mac: MacAddress = Field(description="One virtual gateway MAC fabric-wide (EVPN-006).")
    route_target_admin: int = Field(
        default=65000, ge=1, le=65535, description="Administrator field of the default RTs."
    )
    max_routes: int = Field(
        default=100_000,
        ge=1,
        le=10_000_000,
        description="EVPN routes a VTEP or spine accepts per overlay session.",
    )


class Vrf(Node):
    l3vni: Vni | None = Field(
        default=None,
        description="The L3VNI of symmetric IRB; required when a network has a gateway.",
    )
    vlan: VlanId | None = Field(
        default=None, description="Carrier VLAN of the L3VNI (NX-OS needs one)."
    )
    route_target: RouteTarget | None = Field(default=None, description="Override the default.")


class Network(Node):
    vrf: Name
    vlan: VlanId
    l2vni: Vni
    gateway_v4: InterfaceV4 | None = Field(
        default=None, description="Anycast gateway address with length."
    )
    gateway_v6: InterfaceV6 | None = None
    mtu: Mtu = 9000
    racks: list[Name] = Field(default_factory=list, description="Racks whose leaves carry it.")
    leaves: list[Name] = Field(default_factory=list, description="Further leaves that carry it.")
    route_target: RouteTarget | None = None


class Tenant(Node):
    vrfs: dict[Name, Vrf] = Field(default_factory=dict)
    networks: dict[Name, Network] = Field(default_factory=dict)


class Attachment(Node):
    """Hosts dual-homed to a leaf pair: one LACP bond per host, by MLAG or EVPN multihoming."""

    mode: Literal["mlag", "esi"]
    leaves: Annotated[list[Name], Field(min_length=2, max_length=2)]
    ports: list[InterfaceName] = Field(
        min_length=1, description="Host-facing ports, the same names on both leaves."
    )
    networks: list[Name] = Field(min_length=1, description="Networks trunked to the hosts.")
    lag_base: int = Field(
        default=10, ge=1, le=4000, description="Bond / port-channel number of host i: lag_base + i."
    )
    mtu: Mtu = 9214
    lacp_system_mac: MacAddress = Field(
        description="The LACP system MAC both leaves present (MLAG system MAC / ES system MAC)."
    )
    segment_base: int = Field(
        default=1, ge=1, le=16_000, description="MLAG id / ES local id of host i: segment_base + i."
    )
    peer_link: list[InterfaceName] = Field(
        default_factory=list, description="MLAG only: the peer-link ports, same on both."
    )
    anycast_vtep: InterfaceV4 | None = Field(
        default=None, description="MLAG only: the VTEP address the pair shares (ADDR-001)."
    )


class HandoffVrf(Node):
    vlan: VlanId = Field(description="Sub-interface VLAN of this VRF on every handoff link.")
    export_north: list[Prefix] = Field(
        default_factory=list, description="What this VRF may advertise to the border."
    )
    max_prefix: int = Field(
        default=100, ge=1, le=1_000_000, description="Routes accepted from the border on this VRF."
    )


class Handoff(Node):
    """VRF-lite from the border leaves to the border routers: per VRF, an 802.1Q
    sub-interface and an eBGP session on every border-leaf-to-border link. Each VRF's
    sub-interface reuses the link's own /31: the VRFs are separate routing contexts."""

    border_leaves: list[Name] = Field(min_length=1)
    vrfs: dict[Name, HandoffVrf] = Field(min_length=1)
