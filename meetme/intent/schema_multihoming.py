"""The multihoming feature in intent, written under the site's `attachments:` key: hosts
dual-homed to a leaf pair, one LACP bond per host, by MLAG or EVPN multihoming (ESI).

"Attachment" (the intent key), MLAG / ESI (the two modes) and bond / port-channel (what each
platform calls the host's LAG) all name this one feature.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from meetme.intent.schema_base import Node
from meetme.intent.schema_overlay import MacAddress
from meetme.intent.types import InterfaceName, InterfaceV4, Mtu, Name


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
