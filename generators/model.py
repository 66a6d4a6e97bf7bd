"""The vendor-neutral device model: everything one box must be, fully resolved.

Templates read only this model and never compute; every value a template prints is decided here
or in the generators that fill it. `meetme show DEVICE` prints it as YAML.
"""

from __future__ import annotations

import ipaddress
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Address(Model):
    """An interface address in every spelling a platform may want."""

    ip: str  # 10.1.0.1
    prefixlen: int  # 31
    cidr: str  # 10.1.0.1/31
    netmask: str | None  # 255.255.255.254; None for IPv6

    @classmethod
    def of(cls, cidr: str) -> Address:
        iface = ipaddress.ip_interface(cidr)
        netmask = str(iface.netmask) if iface.version == 4 else None
        return cls(ip=str(iface.ip), prefixlen=iface.network.prefixlen, cidr=str(iface),
                   netmask=netmask)


class PeerPort(Model):
    device: str
    interface: str


class Interface(Model):
    name: str
    kind: Literal["loopback", "routed", "subinterface", "management"]
    description: str
    vlan: int | None = None  # 802.1Q tag of a sub-interface (name is parent.vlan)
    parent: str | None = None  # the physical port of a sub-interface
    ipv4: Address | None = None
    ipv6: Address | None = None
    vrf: str | None = None
    ip_mtu: int | None = None  # the IP MTU both ends must agree on (PHY-010)
    mtu: int | None = None  # the number the platform's own `mtu` command takes
    speed_gbps: int | None = None
    peer: PeerPort | None = None


class PrefixListEntry(Model):
    seq: int
    action: Literal["permit", "deny"]
    prefix: str
    ge: int | None = None
    le: int | None = None


class PrefixList(Model):
    name: str
    afi: Literal["ipv4", "ipv6"]
    entries: list[PrefixListEntry]


class AsPathEntry(Model):
    """Matches a path that contains any ASN in [first, last]."""

    seq: int
    action: Literal["permit", "deny"]
    first: int
    last: int
    regexes: list[str]  # the same range as AS-path regular expressions, for platforms without
    description: str


class AsPathList(Model):
    name: str
    entries: list[AsPathEntry]


class CommunityList(Model):
    """Matches a route carrying any of these communities (standard `A:B` or large `A:B:C`)."""

    name: str
    kind: Literal["standard", "large"]
    communities: list[str]


class RouteMapEntry(Model):
    """One clause; every match given must hold (AND). First matching clause wins; a route no
    clause matches is denied."""

    seq: int
    action: Literal["permit", "deny"]
    description: str | None = None
    match_prefix_list: str | None = None
    match_as_path: str | None = None
    match_community: str | None = None  # a standard community list
    match_large_community: str | None = None
    match_rpki_invalid: bool = False
    set_local_preference: int | None = None
    set_large_communities: list[str] = Field(default_factory=list)  # added, not replaced


class RouteMap(Model):
    """A policy; IOS-XR renders it as an RPL route-policy with the same meaning."""

    name: str
    afi: Literal["ipv4", "ipv6"]
    entries: list[RouteMapEntry]


class StaticRoute(Model):
    prefix: str
    afi: Literal["ipv4", "ipv6"]
    discard: bool  # to Null0 / blackhole: anchors an aggregate we originate
    description: str


class RpkiCache(Model):
    address: str
    port: int


class BfdTimers(Model):
    profile: str  # the name platforms with BFD profiles (NVUE) give these timers
    interval: int
    min_rx: int
    multiplier: int


class BgpNeighbor(Model):
    address: str
    afi: Literal["ipv4", "ipv6"]
    remote_as: int
    description: str
    local_interface: str
    peer_device: str
    bfd: bool
    route_map_in: str
    route_map_out: str
    max_prefix: int
    max_prefix_warning_pct: int
    kind: Literal["underlay", "transit", "ix_rs", "ix_peer", "pni", "aws", "azure", "gcp"] = (
        "underlay"
    )
    party: str | None = None  # the external party, e.g. transit-a
    circuit: str | None = None  # the cross-connect id the session rides on
    password: str | None = None  # a secret placeholder, never a value (meetme.secret_refs)
    ttl_security: bool = False  # GTSM: accept only TTL 255 (one hop)
    enforce_first_as: bool = True  # off toward IX route servers (RFC 7947)
    bfd_timers: BfdTimers | None = None  # per-session timers; None = the device's defaults

    @property
    def external(self) -> bool:
        return self.kind != "underlay"


class Bgp(Model):
    asn: int
    router_id: str
    maximum_paths: int
    bfd: BfdTimers
    networks_v4: list[str] = Field(default_factory=list)
    networks_v6: list[str] = Field(default_factory=list)
    neighbors: list[BgpNeighbor] = Field(default_factory=list)
    rpki_caches: list[RpkiCache] = Field(default_factory=list)  # RTR caches: origin validation

    @property
    def neighbors_v4(self) -> list[BgpNeighbor]:
        return [n for n in self.neighbors if n.afi == "ipv4"]

    @property
    def neighbors_v6(self) -> list[BgpNeighbor]:
        return [n for n in self.neighbors if n.afi == "ipv6"]


class Management(Model):
    interface: Interface
    gateway: str
    vrf: str


class DeviceModel(Model):
    hostname: str
    site: str
    role: str
    platform: str
    hardware_model: str
    source: str  # file:line:column where the device is declared
    management: Management
    loopbacks: list[Interface]
    interfaces: list[Interface]
    prefix_lists: list[PrefixList]
    as_path_lists: list[AsPathList] = Field(default_factory=list)
    community_lists: list[CommunityList] = Field(default_factory=list)
    route_maps: list[RouteMap]
    static_routes: list[StaticRoute] = Field(default_factory=list)
    bgp: Bgp
