"""The underlay feature in intent: address pools, the ASN scheme, the underlay's MTU, BFD, ECMP
and prefix limit, and the fabric links (link rules and explicit links) it runs over.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from meetme.intent.schema_base import MaxPrefix, Node
from meetme.intent.types import (
    Asn,
    Breakout,
    Distinct,
    InterfaceName,
    InterfaceTemplate,
    Mtu,
    Name,
    Platform,
    PrefixV4,
    PrefixV6,
    Role,
    Speed,
)


class Pools(Node):
    loopback_v4: PrefixV4 = Field(description="Router-id loopbacks: pool address + device id.")
    loopback_v6: PrefixV6 | None = None
    vtep_v4: PrefixV4 | None = Field(
        default=None, description="VTEP loopbacks of leaves and border leaves."
    )
    p2p_v4: PrefixV4 = Field(description="Fabric /31s: block per device id, link index inside.")
    p2p_v6: PrefixV6 | None = None
    links_per_device: int = Field(default=128, ge=1, le=4096)


class AsnScheme(Node):
    base: Asn = Field(description="Per-device ASN = base + device id.")
    shared: dict[Role, Asn] = Field(
        default_factory=dict,
        description="Roles whose devices share one ASN (RFC 7938 5.2.1: spines share one).",
    )
    shared_pairs: list[Annotated[Distinct[Name], Field(min_length=2, max_length=2)]] = Field(
        default_factory=list,
        description="Leaf pairs allowed to share one ASN (an MLAG or vPC pair given the same "
        "asn: override); any other shared leaf ASN is a TOPO-004 finding.",
    )


class Bfd(Node):
    interval: int = Field(default=300, ge=50, le=30000, description="Milliseconds.")
    multiplier: int = Field(default=3, ge=2, le=50)


class Underlay(Node):
    mtu: Mtu = 9214
    bfd: Bfd = Field(default_factory=Bfd)
    ecmp: int = Field(default=64, ge=1, le=512)
    max_prefix: MaxPrefix = Field(
        default=12000, description="Prefix limit on every underlay session (LIMIT-001)."
    )


class LinkRuleSide(Node):
    role: Role
    platform: Platform | None = Field(
        default=None, description="Only devices of this platform (port names)."
    )
    pod: Name | None = Field(
        default=None,
        description="Only devices of this pod. Whatever the sides select, a rule never pairs "
        "two devices of two different pods: a leaf-to-spine rule cables each leaf to the "
        "spines of its own pod only.",
    )
    interface: InterfaceTemplate = Field(
        description="Interface name pattern with exactly one {n} where the port number goes "
        "and no other braces, e.g. Ethernet{n}/1; checked against the platform's names."
    )
    first: int = Field(default=1, ge=0)
    peer_id_base: int = Field(
        default=1,
        ge=0,
        description="Port n = first + (peer id - peer_id_base) * count + k: stable per id.",
    )
    lanes: int | None = Field(
        default=None, ge=1, le=8, description="Electrical lanes each port runs over."
    )
    breakout: Breakout | None = Field(
        default=None,
        description="The cages of this side run broken out, e.g. 4x100G; `interface` names "
        "a sub-port (swp{n}s0, Ethernet1/{n}/1, Ethernet{n}/5).",
    )


class LinkRule(Node):
    name: Name
    a: LinkRuleSide
    b: LinkRuleSide
    count: int = Field(default=1, ge=1, le=32)
    speed: Speed
    mtu: Mtu | None = None


class LinkEnd(Node):
    device: Name
    interface: InterfaceName = Field(description="As the device's platform names it.")
    speed: Speed | None = None
    lanes: int | None = Field(default=None, ge=1, le=8)
    breakout: Breakout | None = Field(
        default=None,
        description="The cage of this end runs broken out, e.g. 4x100G (4x: at the link's "
        "speed); `interface` names one of its sub-ports.",
    )
    mtu: Mtu | None = None


class Link(Node):
    a: LinkEnd
    b: LinkEnd
    index: int = Field(ge=0, description="Address index inside device a's p2p block.")
    speed: Speed | None = None
    mtu: Mtu | None = None
    ipv4: PrefixV4 | None = Field(default=None, description="Override the allocated subnet.")
    ipv6: PrefixV6 | None = None

    @model_validator(mode="after")
    def _speed_known(self) -> Link:
        if self.speed is None and (self.a.speed is None or self.b.speed is None):
            raise ValueError("a link needs a speed, on the link or on both ends")
        return self
