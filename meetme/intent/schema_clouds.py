"""The clouds feature in intent: the AWS Direct Connect, Azure ExpressRoute and Google Cloud
Interconnect on-ramps under `peering.aws`, `peering.azure` and `peering.gcp`.

Each session rides a cross-connect of the edge (`site.cross_connects`); keys are secret
references (`secret:NAME`), never values. A private attachment names the tenant VRF it serves
(`vrf:`); public ones (AWS public VIF, Azure Microsoft peering) stay in the default VRF.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from meetme.intent.schema_base import MaxPrefix, Node, SecretRef, ipv6_both_ends
from meetme.intent.types import (
    Asn,
    Distinct,
    InterfaceV4,
    InterfaceV6,
    IPAddress,
    Name,
    Prefix,
    PrefixV4,
    PrefixV6,
)

Vlan = Annotated[int, Field(ge=1, le=4094)]
VRF_HELP = (
    "The tenant VRF this attachment serves: its session, sub-interface and originated "
    "`advertise` prefixes live in that VRF on the border leaf. Required (FLOW-001) on AWS "
    "private/transit VIFs, Azure private peering and GCP attachments; never on an AWS public "
    "VIF or Azure Microsoft peering, which carry public prefixes in the default VRF."
)
RECEIVE_HELP = (
    "The cloud's prefixes agreed with the provider (VPC, VNet or VPC-network ranges): an "
    "import allow-list (they and their subnets), each promised to every leaf of the VRF "
    "(FLOW-006). Empty: everything the import filters let through."
)


class BurstProfile(Node):
    """The burst profile agreed with the provider; both sides must support it."""

    committed_mbps: int = Field(ge=1)
    burst_mbps: int = Field(ge=1)
    burst_seconds: int = Field(ge=0)


class CloudSession(Node):
    """One eBGP session on an 802.1Q sub-interface of a cloud cross-connect."""

    circuit: Name
    vlan: Vlan
    ipv4: InterfaceV4
    peer_ipv4: IPAddress
    ipv6: InterfaceV6 | None = None
    peer_ipv6: IPAddress | None = None
    mtu: int = Field(default=1500, ge=1280, le=9216)

    @model_validator(mode="after")
    def _ipv6_both_ends(self) -> CloudSession:
        ipv6_both_ends(self.ipv6, self.peer_ipv6)
        return self


def _limit(default: int | None, provider: str) -> Any:
    """A cloud session's prefix limit: `max_prefix` (a number, both families) or
    `max_prefix_v6` (None: the IPv6 sessions take max_prefix)."""
    if default is None:
        return Field(
            default=None,
            description=f"Routes we accept from {provider} on each IPv6 session; default: "
            "max_prefix.",
        )
    return Field(
        default=default,
        description=f"Routes we accept from {provider} on each session (IPv6 too, unless "
        "max_prefix_v6 says otherwise).",
    )


class AwsVif(CloudSession):
    type: Literal["private", "transit", "public"]
    amazon_asn: Asn
    key: SecretRef | None = Field(default=None, description="AWS always runs MD5.")
    advertise: Distinct[Prefix] = Field(default_factory=list)
    receive: Distinct[Prefix] = Field(default_factory=list, description=RECEIVE_HELP)
    vrf: Name | None = Field(default=None, description=VRF_HELP)
    max_prefix: MaxPrefix = _limit(100, "AWS")
    max_prefix_v6: MaxPrefix | None = _limit(None, "AWS")
    gtsm: bool = False


class Aws(Node):
    vifs: dict[Name, AwsVif] = Field(min_length=1)
    burst: BurstProfile


class AzureLink(Node):
    circuit: Name
    vlan: Vlan
    ipv4: PrefixV4 = Field(description="The /30 of this link: we take the first usable.")
    ipv6: PrefixV6 | None = Field(default=None, description="The /126 of this link.")


class AzurePeering(Node):
    type: Literal["private", "microsoft"]
    primary: AzureLink
    secondary: AzureLink | None = None
    key: SecretRef | None = None
    premium: bool = False
    advertise: Distinct[Prefix] = Field(default_factory=list)
    receive: Distinct[Prefix] = Field(default_factory=list, description=RECEIVE_HELP)
    vrf: Name | None = Field(default=None, description=VRF_HELP)
    max_prefix: MaxPrefix = _limit(4000, "Microsoft")
    max_prefix_v6: MaxPrefix | None = _limit(None, "Microsoft")
    mtu: int = Field(default=1500, ge=1280, le=9216)


class Azure(Node):
    bandwidth_mbps: int = Field(ge=50)
    peerings: dict[Name, AzurePeering] = Field(min_length=1)
    burst: BurstProfile


class GcpAttachment(CloudSession):
    cloud_router: Name
    region: Name
    metro: Name
    edge_availability_domain: Literal["availability-domain-1", "availability-domain-2"]
    key: SecretRef | None = None
    advertise: Distinct[Prefix] = Field(default_factory=list)
    receive: Distinct[Prefix] = Field(default_factory=list, description=RECEIVE_HELP)
    vrf: Name | None = Field(default=None, description=VRF_HELP)
    max_prefix: MaxPrefix = _limit(1000, "Google")
    max_prefix_v6: MaxPrefix | None = _limit(None, "Google")
    mtu: int = Field(default=1440, ge=1280, le=9216)


class Gcp(Node):
    type: Literal["dedicated", "partner"]
    sla: Literal["99.9", "99.99"]
    cloud_router_asn: Asn
    attachments: dict[Name, GcpAttachment] = Field(min_length=1)
    burst: BurstProfile
    bfd_interval: int = Field(
        default=1000, ge=50, le=30000, description="Cloud Router BFD accepts 1000-30000 ms."
    )
