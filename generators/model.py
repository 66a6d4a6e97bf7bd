"""The vendor-neutral device model: everything one box must be, fully resolved.

Templates read only this model and never compute; every value a template prints is decided here
or in the generators that fill it. `meetme show DEVICE` prints it as YAML.
"""

from __future__ import annotations

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


class PeerPort(Model):
    device: str
    interface: str


class Interface(Model):
    name: str
    kind: Literal["loopback", "routed", "management"]
    description: str
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


class RouteMapEntry(Model):
    seq: int
    action: Literal["permit", "deny"]
    match_prefix_list: str | None = None
    description: str | None = None


class RouteMap(Model):
    """A policy; IOS-XR renders it as an RPL route-policy with the same meaning."""

    name: str
    afi: Literal["ipv4", "ipv6"]
    entries: list[RouteMapEntry]


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
    kind: Literal["underlay"] = "underlay"


class Bgp(Model):
    asn: int
    router_id: str
    maximum_paths: int
    bfd: BfdTimers
    networks_v4: list[str] = Field(default_factory=list)
    networks_v6: list[str] = Field(default_factory=list)
    neighbors: list[BgpNeighbor] = Field(default_factory=list)

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
    route_maps: list[RouteMap]
    bgp: Bgp
