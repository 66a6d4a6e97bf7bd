"""The multihoming feature in intent, written under the site's `attachments:` key: hosts
dual-homed to a leaf pair, one LACP bond per host, by MLAG or EVPN multihoming (ESI), or
single-homed to one leaf (a switch port, or a one-leaf LACP port-channel).

"Attachment" (the intent key), MLAG / ESI / single (the three modes) and bond / port-channel
(what each platform calls the host's LAG) all name this one feature. `mode: mlag` is the one
name of multi-chassis LAG: Arista EOS and NVIDIA NVUE print it as MLAG, Cisco NX-OS as vPC
(virtual port channel); the intent says mlag for all three.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from meetme.intent.schema_base import Node
from meetme.intent.schema_overlay import UnicastMac
from meetme.intent.types import Distinct, InterfaceName, InterfaceV4, Mtu, Name


class Attachment(Node):
    """Hosts on leaves: dual-homed to a leaf pair (one LACP bond per host, by MLAG, which NX-OS
    calls vPC, or by EVPN multihoming), or single-homed to one leaf."""

    mode: Literal["mlag", "esi", "single"] = Field(
        description="mlag: multi-chassis LAG on a leaf pair (MLAG on EOS and NVUE, vPC on NX-OS); "
        "esi: EVPN multihoming (Ethernet segments) on a leaf pair; single: one leaf (MH-017)."
    )
    leaves: Annotated[list[Name], Field(min_length=1, max_length=2)] = Field(
        description="The leaf pair (mlag, esi) or the one leaf (single)."
    )
    ports: list[InterfaceName] = Field(
        min_length=1,
        description="Host-facing ports, one per host, the same names on both leaves of a pair.",
    )
    networks: Distinct[Name] = Field(
        min_length=1, description="Networks trunked (tagged) to the hosts, or the one of `access`."
    )
    access: bool = Field(
        default=False,
        description="The hosts get their one network untagged (an access port / access VLAN) "
        "instead of a tagged trunk; exactly one network (MH-020).",
    )
    lacp: bool | None = Field(
        default=None,
        description="single only: true bundles each host's port into a one-leaf LACP "
        "port-channel (bond); absent or false: a plain switch port. MLAG and ESI bonds are "
        "always LACP (MH-002).",
    )
    lag_base: int = Field(
        default=10, ge=1, le=4000, description="Bond / port-channel number of host i: lag_base + i."
    )
    mtu: Mtu = 9214
    lacp_system_mac: UnicastMac | None = Field(
        default=None,
        description="mlag and esi: the LACP system MAC both leaves present (MLAG system MAC / "
        "ES system MAC); required there, not set for single (MH-002).",
    )
    segment_base: int = Field(
        default=1, ge=1, le=16_000, description="MLAG id / ES local id of host i: segment_base + i."
    )
    peer_link: list[InterfaceName] = Field(
        default_factory=list, description="MLAG only: the peer-link ports, same on both."
    )
    anycast_vtep: InterfaceV4 | None = Field(
        default=None,
        description="MLAG only: the VTEP address the pair shares (ADDR-001): NVUE's shared "
        "address, EOS's Loopback1 address on both leaves, NX-OS's loopback secondary address.",
    )
    domain_id: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="MLAG only: the pair's domain (EOS `mlag configuration` domain-id, NX-OS "
        "`vpc domain`); default the lower device id of the pair (NX-OS takes 1-1000, PLAT-017).",
    )
