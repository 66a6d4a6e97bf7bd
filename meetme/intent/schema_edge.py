"""The edge feature in intent: cross-connects, IXes, transit, PNIs and the site's edge policy
knobs. The cloud on-ramps (AWS, Azure, Google) are their own feature: schema_clouds.py.

Every session rides a cross-connect (`site.cross_connects`, which knows the MMR, entrance,
border device and port), so physical diversity rules and sessions read one source of truth.
Keys are secret references (`secret:NAME`), never values.
"""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator, model_validator

from meetme.intent.schema_base import MaxPrefix, Node, SecretRef, ipv6_both_ends
from meetme.intent.schema_clouds import Aws, Azure, Gcp
from meetme.intent.types import (
    Asn,
    Community,
    Distinct,
    InterfaceName,
    InterfaceV4,
    InterfaceV6,
    IPAddress,
    IPv4Address,
    IPv6Address,
    Name,
    Prefix,
    PrefixV4,
    PrefixV6,
    Speed,
    bad_value,
)


class CrossConnect(Node):
    party: Name = Field(description="The external party: carrier, IX, transit, cloud.")
    room: Name = Field(description="The MMR where the cross-connect lands.")
    entrance: Name = Field(description="Building entrance / pathway it uses.")
    device: Name
    interface: InterfaceName = Field(description="As the device's platform names it.")
    speed: Speed


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
    # one list per address family: a session's family is its peer address's, its local
    # address and peering LAN the list's
    ipv4: Distinct[IPv4Address] = Field(default_factory=list)
    ipv6: Distinct[IPv6Address] = Field(default_factory=list)
    max_prefix_v4: MaxPrefix | None = Field(
        default=None, description="From the peer's PeeringDB record."
    )
    max_prefix_v6: MaxPrefix | None = None
    import_prefixes: Distinct[Prefix] = Field(
        default_factory=list, description="Explicit allow-list (IRR-generated) if given."
    )
    bfd: bool = False  # IX route servers and most bilateral peers run no BFD

    @model_validator(mode="after")
    def _an_address_to_peer_with(self) -> IxNeighbor:
        # a session per address: with neither list, the neighbour is rendered as nothing at all
        if not self.ipv4 and not self.ipv6:
            raise bad_value(
                "ipv4 and ipv6 are both empty: no session would be rendered to this neighbour, "
                "silently; list its address on the peering LAN, e.g. ipv4: [203.0.113.1], or "
                "remove the neighbour"
            )
        return self


class Ix(Node):
    lan_v4: PrefixV4
    lan_v6: PrefixV6 | None = Field(
        default=None,
        description="Needed, with an ipv6 on every port, once a route server or peer has an "
        "IPv6 address.",
    )
    ports: list[IxPort] = Field(min_length=1)
    route_servers: dict[Name, IxNeighbor] = Field(default_factory=dict)
    peers: dict[Name, IxNeighbor] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _ipv6_everywhere_it_runs(self) -> Ix:
        # IPv6 sessions run wherever a neighbour has an IPv6 address: each needs the LAN (its
        # imports drop routes to the peering LAN itself, as lan_v4's do) and every port an
        # address (a port without one would silently have no IPv6 session to anyone)
        neighbors = [*self.route_servers.values(), *self.peers.values()]
        if not any(n.ipv6 for n in neighbors):
            return self
        if self.lan_v6 is None:
            raise ValueError(
                "route servers or peers have IPv6 addresses but the IX has no lan_v6: the "
                "IPv6 imports could not drop routes to the peering LAN; give lan_v6"
            )
        bare = [port.circuit for port in self.ports if port.ipv6 is None]
        if bare:
            raise ValueError(
                f"port(s) {', '.join(bare)} have no ipv6 though route servers or peers have "
                "IPv6 addresses: those ports would carry no IPv6 session; give each port its "
                "ipv6 on lan_v6"
            )
        return self


class DirectCircuit(Node):
    """A routed point-to-point circuit to a transit provider or PNI peer."""

    circuit: Name
    ipv4: InterfaceV4 = Field(description="Our address with the provider-given length.")
    peer_ipv4: IPAddress
    ipv6: InterfaceV6 | None = Field(default=None, description="With peer_ipv6, or neither.")
    peer_ipv6: IPAddress | None = None

    @model_validator(mode="after")
    def _ipv6_both_ends(self) -> DirectCircuit:
        ipv6_both_ends(self.ipv6, self.peer_ipv6)
        return self


class Transit(SessionOptions):
    asn: Asn
    circuits: list[DirectCircuit] = Field(min_length=1)
    max_prefix_v4: MaxPrefix | None = None
    max_prefix_v6: MaxPrefix | None = None
    accept_default: bool = False
    communities: Distinct[Community] = Field(
        default_factory=list,
        description="Action communities the provider honours (ASN:VALUE or ASN:DATA1:DATA2), "
        "kept with the circuit for the operators: meetme renders nothing from them (no "
        "blackholing, prepending or local-preference by community).",
    )


class Pni(Transit):
    import_prefixes: Distinct[Prefix] = Field(
        default_factory=list, description="Explicit allow-list (IRR-generated) if given."
    )


class RpkiCache(Node):
    address: IPAddress
    port: int = Field(
        default=323,
        ge=1,
        le=65535,
        description="RTR port: IANA 323; Routinator 3323, StayRTR 8282/8323.",
    )


class ServicesPort(Node):
    """A border's routed port on the in-band services LAN, where the RPKI validators live."""

    interface: InterfaceName = Field(description="As the device's platform names it.")
    ipv4: InterfaceV4 = Field(description="Our address on the LAN, with its length.")
    ipv6: InterfaceV6 | None = None


# NLNOG long paths (https://bgpfilterguide.nlnog.net/guides/long_paths/): drop 100 ASNs and more
DROP_AS_PATH_LENGTH = 100


class EdgeSettings(Node):
    """Site-wide edge policy knobs."""

    site_code: int = Field(
        ge=1, le=65535, description="Location value in our large communities (ASN:2:code)."
    )
    rpki_caches: list[RpkiCache] = Field(
        default_factory=list,
        description="RPKI-to-router caches (RFC 8210), used by every device with an Internet "
        "session; each must be reachable in that device's default VRF (FLOW-005), e.g. on the "
        "services LAN.",
    )
    services: dict[Name, ServicesPort] = Field(
        default_factory=dict,
        description="Per border device: its port on the in-band services LAN (RPKI "
        "validators), routed in the default VRF.",
    )
    max_prefix_warning_pct: int = Field(default=80, ge=50, le=99)

    @field_validator("rpki_caches")
    @classmethod
    def _one_cache_per_address(cls, caches: list[RpkiCache]) -> list[RpkiCache]:
        # IOS-XR (`rpki server ADDRESS`) and EOS (`rpki cache` named after its address) key a
        # cache by its address: a second entry at one address would replace the first there
        seen: dict[str, int] = {}
        for cache in caches:
            address = str(ipaddress.ip_address(cache.address))
            if address in seen:
                raise ValueError(
                    f"rpki_caches lists {address} twice (ports {seen[address]} and "
                    f"{cache.port}): routers key an RTR cache by its address, so one entry "
                    "would replace the other; give each cache its own address"
                )
            seen[address] = cache.port
        return caches

    # 2..255: a limit of 1 would drop every eBGP route (each path holds the peer's ASN); 255
    # keeps NX-OS's `maxas-limit` (limit - 1, no vendor range found) and FRR's regex interval
    # ({limit - 1}, POSIX RE_DUP_MAX is at least 255) within what is known to be accepted
    drop_as_path_length: int = Field(
        default=DROP_AS_PATH_LENGTH,
        ge=2,
        le=255,
        description="Every external session (transit, IX, PNI, cloud) drops a route whose AS "
        "path holds this many ASNs or more (default 100: a path of 99 passes, 100 is dropped; "
        "docs/standards.md#edge-013, NLNOG long paths).",
    )


class Peering(Node):
    edge: EdgeSettings | None = None
    ixes: dict[Name, Ix] = Field(default_factory=dict)
    transits: dict[Name, Transit] = Field(default_factory=dict)
    pnis: dict[Name, Pni] = Field(default_factory=dict)
    aws: dict[Name, Aws] = Field(default_factory=dict)
    azure: dict[Name, Azure] = Field(default_factory=dict)
    gcp: dict[Name, Gcp] = Field(default_factory=dict)
