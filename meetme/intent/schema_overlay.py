"""The overlay feature (EVPN-VXLAN) in intent: the site's `evpn:` settings and its `tenants:`,
their VRFs and networks. Hosts dual-homed to leaf pairs are the multihoming feature
(schema_multihoming), the VRF-lite handoff to the borders the handoff feature (schema_handoff).

A network names the racks (or leaves) that carry it; the leaves in those racks become its VTEPs.
Route targets default to `route_target_admin:VNI` on every VTEP, so one VNI has one RT
fabric-wide (EVPN-004) whatever each leaf's ASN.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from meetme.core.problems import shown
from meetme.intent.schema_base import Node
from meetme.intent.types import Distinct, GatewayV4, GatewayV6, Mtu, Name, RouteTarget, bad_value

Vni = Annotated[int, Field(ge=1, le=16_777_215, description="24-bit VXLAN network identifier.")]
VlanId = Annotated[int, Field(ge=2, le=4094)]
MacAddress = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")]


def mac_problem(value: str) -> str | None:
    """Why a MAC (aa:bb:cc:dd:ee:ff) is none a station may own, or None: a group address (the
    IEEE 802 individual/group bit, the lowest bit of the first octet; broadcast is one), or all
    zeros (no station's address). The LACP system MAC's check and EVPN-018's."""
    octets = [int(part, 16) for part in value.split(":")]
    if all(octet == 0xFF for octet in octets):
        return "is the broadcast MAC"
    if octets[0] & 1:
        return (
            "is a group (multicast) MAC: its first octet is odd (the IEEE 802 individual/group bit)"
        )
    if not any(octets):
        return "is all zeros, no station's address"
    return None


def _unicast_mac(value: str) -> str:
    problem = mac_problem(value)
    if problem is not None:
        raise bad_value(
            f"{shown(value)} {problem}; an LACP system MAC is a unicast MAC: first octet "
            "even, e.g. 02:00:00:00:00:01 (locally administered)"
        )
    return value


# the pattern first (a wrong shape is the pattern's message), then the address itself
UnicastMac = Annotated[MacAddress, AfterValidator(_unicast_mac)]


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
        default=None,
        description="Carrier VLAN of the L3VNI (NX-OS needs one). On an EOS MLAG pair with a "
        "cloud session in the VRF, the VLAN the pair peers the VRF over (PLAT-028).",
    )
    route_target: RouteTarget | None = Field(default=None, description="Override the default.")


class Network(Node):
    vrf: Name
    vlan: VlanId
    l2vni: Vni
    gateway_v4: GatewayV4 | None = Field(
        default=None,
        description="Anycast gateway address with length: a unicast host address, never "
        "multicast, loopback, link-local, 0.0.0.0/8 or 240.0.0.0/4.",
    )
    gateway_v6: GatewayV6 | None = Field(
        default=None,
        description="IPv6 anycast gateway address with length: global unicast or unique local, "
        "never multicast, loopback, link-local or unspecified.",
    )
    router_advertisement: bool = Field(
        default=True,
        description="Send IPv6 router advertisements from the IPv6 gateway (hosts using SLAAC or "
        "RA learn their default router only from them); false for hosts configured statically. "
        "Only with gateway_v6.",
    )
    mtu: Mtu = 9000
    racks: Distinct[Name] = Field(default_factory=list, description="Racks whose leaves carry it.")
    leaves: Distinct[Name] = Field(
        default_factory=list, description="Further leaves that carry it."
    )
    route_target: RouteTarget | None = None


class Tenant(Node):
    vrfs: dict[Name, Vrf] = Field(default_factory=dict)
    networks: dict[Name, Network] = Field(default_factory=dict)
