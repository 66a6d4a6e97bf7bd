"""The intent schema: what a network architect writes. Unknown keys are errors everywhere.

Named things (rooms, racks, devices, cross-connects) are mappings keyed by name, so a duplicate
name is a duplicate key the reader rejects, within a file or across files.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from meetme.intent.schema_base import Node, Path_
from meetme.intent.schema_edge import Peering, SecretRef
from meetme.intent.schema_evpn import Attachment, EvpnSettings, Handoff, Tenant
from meetme.intent.types import (
    Asn,
    Breakout,
    Environment,
    Feed,
    HardwareModel,
    InterfaceAddress,
    InterfaceName,
    InterfaceTemplate,
    InterfaceV4,
    InterfaceV6,
    IPAddress,
    Mtu,
    Name,
    Platform,
    Prefix,
    PrefixV4,
    PrefixV6,
    Role,
    RoomKind,
    Speed,
)
from meetme.intent.waivers import StandardsProfile, Waiver


class Organisation(Node):
    name: Name
    asn: Asn = Field(description="The public ASN the organisation originates its routes from.")
    aggregates: list[Prefix] = Field(
        default_factory=list, description="Aggregates the organisation originates."
    )


class Room(Node):
    kind: RoomKind
    floor: int
    power: dict[Feed, Name] = Field(
        description="Upstream UPS/PDU string per power feed, e.g. {A: ups-1a, B: ups-2b}."
    )
    cooling_zone: Name = Field(description="The CRAH/CDU loop that cools this room.")
    failure_domains: dict[Name, Name] = Field(
        default_factory=dict, description="Other shared-fate tags: conduit, riser, building."
    )


class Rack(Node):
    room: Name


class Device(Node):
    id: int = Field(ge=1, description="Unique per site; loopbacks, ASNs and ports derive from it.")
    role: Role
    platform: Platform
    model: HardwareModel = Field(description="Hardware model, e.g. 8201-32FH.")
    room: Name
    rack: Name
    management: InterfaceAddress
    power_feeds: list[Feed] | None = Field(
        default=None, description="Feeds the device's PSUs are cabled to."
    )
    loopback_v4: InterfaceV4 | None = Field(default=None, description="Override the pool.")
    loopback_v6: InterfaceV6 | None = None
    vtep_v4: InterfaceV4 | None = None
    asn: Asn | None = Field(default=None, description="Override the ASN scheme.")
    failure_domains: dict[Name, Name] = Field(default_factory=dict)


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


class Bfd(Node):
    interval: int = Field(default=300, ge=50, le=30000, description="Milliseconds.")
    multiplier: int = Field(default=3, ge=2, le=50)


class Underlay(Node):
    mtu: Mtu = 9214
    bfd: Bfd = Field(default_factory=Bfd)
    ecmp: int = Field(default=64, ge=1, le=512)
    max_prefix: int = Field(
        default=12000, ge=1, description="Prefix limit on every underlay session."
    )


# Local user names: a Linux login on Cumulus (lower case) and at most 28 characters on NX-OS.
UserName = Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_-]{0,27}$")]


class LocalUser(Node):
    """A local login in the rendered config: a replace push removes every user it does not name."""

    role: Literal["admin", "operator"] = Field(
        description="admin: full rights; operator: read-only. Mapped to each OS's own roles."
    )
    password_hash: SecretRef = Field(
        description="secret:NAME holding the SHA-512-crypt hash ($6$...): EOS, IOS-XR, Cumulus."
    )
    password_hash_sha256: SecretRef | None = Field(
        default=None,
        description="secret:NAME holding the SHA-256-crypt hash ($5$...) of the same password: "
        "NX-OS `password 5` takes only this format; required when the site has NX-OS devices.",
    )


class Management(Node):
    gateway: IPAddress
    vrf: Name = "MGMT"
    users: dict[UserName, LocalUser] = Field(
        default_factory=dict, description="Local logins on every device of the site."
    )
    api: bool = Field(
        default=True,
        description="Render the management API a push drives (EOS eAPI, NX-OS NX-API, IOS-XR "
        "NETCONF over SSH, NVUE REST API), reachable in the management VRF.",
    )
    ntp_servers: list[IPAddress] = Field(
        default_factory=list, description="NTP servers, reached through the management VRF."
    )
    syslog_servers: list[IPAddress] = Field(
        default_factory=list, description="Syslog servers, reached through the management VRF."
    )


class LinkRuleSide(Node):
    role: Role
    platform: Platform | None = Field(
        default=None, description="Only devices of this platform (port names)."
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
    breakout: Breakout | None = Field(default=None, description="e.g. 4x or 4x100G.")
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


class CrossConnect(Node):
    party: Name = Field(description="The external party: carrier, IX, transit, cloud.")
    room: Name = Field(description="The MMR where the cross-connect lands.")
    entrance: Name = Field(description="Building entrance / pathway it uses.")
    device: Name
    interface: InterfaceName = Field(description="As the device's platform names it.")
    speed: Speed


class RedundancyGroup(Node):
    members: Annotated[list[Name], Field(min_length=2)]


class Site(Node):
    environment: Environment
    management: Management
    pools: Pools
    asn: AsnScheme
    underlay: Underlay = Field(default_factory=Underlay)
    rooms: dict[Name, Room] = Field(default_factory=dict)
    racks: dict[Name, Rack] = Field(default_factory=dict)
    devices: dict[Name, Device] = Field(default_factory=dict)
    link_rules: list[LinkRule] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    cross_connects: dict[Name, CrossConnect] = Field(default_factory=dict)
    redundancy_groups: dict[Name, RedundancyGroup] = Field(default_factory=dict)
    peering: Peering = Field(default_factory=Peering)
    evpn: EvpnSettings | None = None
    tenants: dict[Name, Tenant] = Field(default_factory=dict)
    attachments: dict[Name, Attachment] = Field(default_factory=dict)
    handoff: Handoff | None = None


class Intent(Node):
    organisation: Organisation
    sites: dict[Name, Site] = Field(min_length=1)
    waivers: list[Waiver] = Field(
        default_factory=list, description="Accepted exceptions to rules, with expiry."
    )
    standards: StandardsProfile = Field(default_factory=StandardsProfile)


def attach_paths(node: object, path: Path_ = ()) -> None:
    """Give every intent object its path, so rules can ask where it was written."""
    if isinstance(node, Node):
        node._path = path
        for name in type(node).model_fields:
            attach_paths(getattr(node, name), (*path, name))
    elif isinstance(node, dict):
        for key, value in node.items():
            attach_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            attach_paths(value, (*path, index))
