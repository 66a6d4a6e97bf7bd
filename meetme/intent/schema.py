"""The intent schema: what a network architect writes. Unknown keys are errors everywhere.

This module holds the site's skeleton (organisation, rooms, racks, devices, the site and the
whole intent); each feature's keys live in a module of its own name:
schema_underlay (pools, asn, underlay, link_rules, links), schema_overlay (evpn, tenants),
schema_multihoming (attachments), schema_handoff (handoff), schema_edge (cross_connects,
peering), schema_clouds (peering.aws / azure / gcp), schema_management (management) and, at the
top beside organisation and sites, schema_dci (dci: circuits between sites) and schema_srv6
(srv6: the SRv6 domain).

Named things (rooms, racks, devices, cross-connects) are mappings keyed by name, so a duplicate
name is a duplicate key the reader rejects, within a file or across files.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from meetme.intent.schema_base import Node, Path_
from meetme.intent.schema_dci import Dci
from meetme.intent.schema_edge import CrossConnect, Peering
from meetme.intent.schema_handoff import Handoff
from meetme.intent.schema_management import Management
from meetme.intent.schema_multihoming import Attachment
from meetme.intent.schema_overlay import EvpnSettings, Tenant
from meetme.intent.schema_srv6 import Srv6
from meetme.intent.schema_underlay import AsnScheme, Link, LinkRule, Pools, Underlay
from meetme.intent.types import (
    Asn,
    Distinct,
    Environment,
    Feed,
    HardwareModel,
    InterfaceV4,
    InterfaceV6,
    ManagementAddress,
    Name,
    Platform,
    Prefix,
    Role,
    RoomKind,
)
from meetme.intent.waivers import StandardsProfile, Waiver


class Organisation(Node):
    name: Name
    asn: Asn = Field(description="The public ASN the organisation originates its routes from.")
    aggregates: Distinct[Prefix] = Field(
        default_factory=list, description="Aggregates the organisation originates."
    )
    private_aggregates: Distinct[Prefix] = Field(
        default_factory=list,
        description="The organisation's internal (private-use) space; each site's private "
        "aggregates lie inside it (ADDR-012). Never announced.",
    )


class SiteAggregates(Node):
    """A site's own share of the organisation's space (docs/architecture.md#site-aggregates)."""

    public: Distinct[Prefix] = Field(
        default_factory=list,
        description="Inside the organisation's aggregates: the site's borders originate and "
        "announce each to their Internet parties beside the organisation's aggregates, so "
        "traffic for the site comes in at the site. One equal to an organisation aggregate "
        "claims it: only this site announces it (HANDOFF-019).",
    )
    private: Distinct[Prefix] = Field(
        default_factory=list,
        description="Inside the organisation's private_aggregates, if it declares any: the "
        "site's internal space, for the plan and its rules only (nothing renders it).",
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


class Pod(Node):
    """A pod of a 3-tier site (RFC 7938 5-stage Clos): spines and the leaves cabled to them."""

    id: int = Field(
        ge=1,
        description="Unique per site; the pod's spine ASN is asn.shared.spine + id unless `asn` "
        "is given (so adding a pod never renumbers another); super-spines keep "
        "asn.shared.super_spine.",
    )
    asn: Asn | None = Field(
        default=None,
        description="The ASN all spines of this pod share (RFC 7938 5.2.1: one per pod).",
    )


class Device(Node):
    id: int = Field(ge=1, description="Unique per site; loopbacks, ASNs and ports derive from it.")
    role: Role
    platform: Platform
    model: HardwareModel = Field(description="Hardware model, e.g. 8201-32FH.")
    room: Name
    rack: Name
    management: ManagementAddress = Field(
        description="The device's management address with its subnet's length, at least /8: "
        "a host of the subnet that holds the management gateway (MGMT-003)."
    )
    power_feeds: Distinct[Feed] | None = Field(
        default=None, description="Feeds the device's PSUs are cabled to."
    )
    loopback_v4: InterfaceV4 | None = Field(default=None, description="Override the pool.")
    loopback_v6: InterfaceV6 | None = None
    vtep_v4: InterfaceV4 | None = None
    asn: Asn | None = Field(
        default=None, description="Override the ASN scheme (not on a border: ADDR-020)."
    )
    failure_domains: dict[Name, Name] = Field(default_factory=dict)
    pod: Name | None = Field(
        default=None,
        description="The pod (sites.<site>.pods) of a spine, leaf or border leaf; super-spines "
        "and borders join the pods and belong to none.",
    )


class RedundancyGroup(Node):
    members: Annotated[Distinct[Name], Field(min_length=2)]
    max_per_domain: int | None = Field(
        default=None,
        ge=1,
        description="N+k: at most this many members in any one failure domain of `domains` "
        "(TOPO-005) instead of every member in its own (PHY-003/004).",
    )
    domains: Distinct[Name] = Field(
        default_factory=lambda: ["rack"],
        description="The failure-domain kinds max_per_domain counts in: rack, room, floor, "
        "cooling_zone, or a failure_domains tag of the rooms or devices.",
    )

    @model_validator(mode="after")
    def _domains_need_a_limit(self) -> RedundancyGroup:
        if "domains" in self.model_fields_set and self.max_per_domain is None:
            raise ValueError("domains counts members for max_per_domain; give max_per_domain")
        return self


class Site(Node):
    environment: Environment
    management: Management
    pools: Pools
    asn: AsnScheme
    underlay: Underlay = Field(default_factory=Underlay)
    rooms: dict[Name, Room] = Field(default_factory=dict)
    racks: dict[Name, Rack] = Field(default_factory=dict)
    pods: dict[Name, Pod] = Field(
        default_factory=dict,
        description="Pods of a 3-tier site: each pod's spines get an ASN of their own, its "
        "VTEPs EVPN-peer with its spines only, and the super-spines join the pods.",
    )
    devices: dict[Name, Device] = Field(default_factory=dict)
    link_rules: list[LinkRule] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    cross_connects: dict[Name, CrossConnect] = Field(default_factory=dict)
    redundancy_groups: dict[Name, RedundancyGroup] = Field(default_factory=dict)
    peering: Peering = Field(default_factory=Peering)
    evpn: EvpnSettings | None = None
    tenants: dict[Name, Tenant] = Field(default_factory=dict)
    # `attachments:` is the multihoming feature (schema_multihoming): hosts dual-homed to a
    # leaf pair by MLAG or EVPN multihoming (ESI).
    attachments: dict[Name, Attachment] = Field(default_factory=dict)
    handoff: Handoff | None = None
    aggregates: SiteAggregates = Field(
        default_factory=SiteAggregates,
        description="The site's own public and private aggregates, inside the organisation's; "
        "no two sites' overlap (ADDR-012, ADDR-013).",
    )


class Intent(Node):
    organisation: Organisation
    sites: dict[Name, Site] = Field(min_length=1)
    dci: Dci | None = Field(
        default=None, description="Circuits between sites (schema_dci): ends, economics, needs."
    )
    srv6: Srv6 | None = Field(
        default=None, description="The SRv6 domain between and inside sites (schema_srv6)."
    )
    waivers: list[Waiver] = Field(
        default_factory=list, description="Accepted exceptions to rules, with expiry."
    )
    standards: StandardsProfile = Field(default_factory=StandardsProfile)


def attach_paths(node: object, path: Path_ = ()) -> None:
    """Give every intent object its path, so rules can ask where it was written."""
    if isinstance(node, Node):
        node.set_path(path)
        for name in type(node).model_fields:
            attach_paths(getattr(node, name), (*path, name))
    elif isinstance(node, dict):
        for key, value in node.items():
            attach_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            attach_paths(value, (*path, index))
