"""The peering edge in intent: IXes, transit, PNIs and the AWS / Azure / Google on-ramps.

Every session rides a cross-connect (`site.cross_connects`, which knows the MMR, entrance,
border device and port), so physical diversity rules and sessions read one source of truth.
Keys are secret references (`secret:NAME`), never values.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from meetme.core.secret_refs import REFERENCE_RE, reference_name

from meetme.intent.schema_base import Node
from meetme.intent.types import (
    Asn,
    Community,
    InterfaceV4,
    InterfaceV6,
    IPAddress,
    Name,
    Prefix,
    PrefixV4,
    PrefixV6,
)


def _secret(value: str) -> str:
    # fullmatch: reference_name's `$` would also accept a trailing newline
    if REFERENCE_RE.fullmatch(value) is None:
        reference_name("")  # raises ValueError with the fix, never quoting the value
    return value


SecretRef = Annotated[str, AfterValidator(_secret)]
Vlan = Annotated[int, Field(ge=1, le=4094)]
MaxPrefix = Annotated[int, Field(ge=1, le=10_000_000)]


class SessionOptions(Node):
    """Per-session hardening an operator may tune; defaults follow docs/standards.md#edge-policy."""

    key: SecretRef | None = Field(default=None, description="TCP-MD5 key, as secret:NAME.")
    bfd: bool = True
    gtsm: bool = Field(default=False, description="TTL security; only where the peer agreed.")


class IxPort(Node):
    circuit: Name = Field(description="The cross-connect of this IX port.")
    ipv4: InterfaceV4 = Field(description="Our address on the peering LAN, with its length.")
    ipv6: InterfaceV6 | None = None


class IxNeighbor(SessionOptions):
    asn: Asn
    ipv4: list[IPAddress] = Field(default_factory=list)
    ipv6: list[IPAddress] = Field(default_factory=list)
    max_prefix_v4: MaxPrefix | None = Field(
        default=None, description="From the peer's PeeringDB record."
    )
    max_prefix_v6: MaxPrefix | None = None
    import_prefixes: list[Prefix] = Field(
        default_factory=list, description="Explicit allow-list (IRR-generated) if given."
    )
    bfd: bool = False  # IX route servers and most bilateral peers run no BFD


class Ix(Node):
    lan_v4: PrefixV4
    lan_v6: PrefixV6 | None = None
    ports: list[IxPort] = Field(min_length=1)
    route_servers: dict[Name, IxNeighbor] = Field(default_factory=dict)
    peers: dict[Name, IxNeighbor] = Field(default_factory=dict)


class DirectCircuit(Node):
    """A routed point-to-point circuit to a transit provider or PNI peer."""

    circuit: Name
    ipv4: InterfaceV4 = Field(description="Our address with the provider-given length.")
    peer_ipv4: IPAddress
    ipv6: InterfaceV6 | None = None
    peer_ipv6: IPAddress | None = None


class Transit(SessionOptions):
    asn: Asn
    circuits: list[DirectCircuit] = Field(min_length=1)
    max_prefix_v4: MaxPrefix | None = None
    max_prefix_v6: MaxPrefix | None = None
    accept_default: bool = False
    communities: list[Community] = Field(
        default_factory=list,
        description="Action communities the provider honours: ASN:VALUE or ASN:DATA1:DATA2.",
    )


class Pni(Transit):
    import_prefixes: list[Prefix] = Field(
        default_factory=list, description="Explicit allow-list (IRR-generated) if given."
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


class AwsVif(CloudSession):
    type: Literal["private", "transit", "public"]
    amazon_asn: Asn
    key: SecretRef | None = Field(default=None, description="AWS always runs MD5.")
    advertise: list[Prefix] = Field(default_factory=list)
    max_prefix: MaxPrefix = Field(default=100, description="Routes we accept from AWS.")
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
    advertise: list[Prefix] = Field(default_factory=list)
    max_prefix: MaxPrefix = Field(default=4000, description="Routes we accept from Microsoft.")
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
    advertise: list[Prefix] = Field(default_factory=list)
    max_prefix: MaxPrefix = Field(default=1000, description="Routes we accept from Google.")
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


class RpkiCache(Node):
    address: IPAddress
    port: int = Field(
        default=323,
        ge=1,
        le=65535,
        description="RTR port: IANA 323; Routinator 3323, StayRTR 8282/8323.",
    )


class EdgeSettings(Node):
    """Site-wide edge policy knobs."""

    site_code: int = Field(
        ge=1, le=65535, description="Location value in our large communities (ASN:2:code)."
    )
    rpki_caches: list[RpkiCache] = Field(
        default_factory=list, description="RPKI-to-router caches (RFC 8210)."
    )
    max_prefix_warning_pct: int = Field(default=80, ge=50, le=99)


class Peering(Node):
    edge: EdgeSettings | None = None
    ixes: dict[Name, Ix] = Field(default_factory=dict)
    transits: dict[Name, Transit] = Field(default_factory=dict)
    pnis: dict[Name, Pni] = Field(default_factory=dict)
    aws: dict[Name, Aws] = Field(default_factory=dict)
    azure: dict[Name, Azure] = Field(default_factory=dict)
    gcp: dict[Name, Gcp] = Field(default_factory=dict)
