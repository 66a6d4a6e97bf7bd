"""Network placement: which VTEP carries which tenant network, decided once per site.

A leaf or border leaf carries a network when its rack is listed in the network's `racks` or the
device is named in its `leaves`. The device builder (build/overlay.py) and the EVPN rules read
the same resolved Placement, so what is checked is exactly what is rendered.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve.allocate import VTEP_ROLES

from meetme.intent.schema import Site
from meetme.intent.schema_overlay import Network

NetworkKey = tuple[str, str]  # (tenant, network)


@dataclass(frozen=True)
class PlacedNetwork:
    tenant: str
    name: str
    network: Network

    @property
    def key(self) -> NetworkKey:
        return (self.tenant, self.name)


def _empty() -> Mapping[str, tuple[PlacedNetwork, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Placement:
    """Both directions of one site's placement, read-only."""

    # (tenant, network) -> the VTEPs carrying it, by device id; every network of the site
    vteps: Mapping[NetworkKey, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    # VTEP -> the networks it carries, by VLAN id; every VTEP of the site
    networks: Mapping[str, tuple[PlacedNetwork, ...]] = field(default_factory=_empty)
    # svi_owners of each network, computed once: every leaf of a network asks for them
    owners: dict[NetworkKey, tuple[str, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def networks_of(self, device: str) -> tuple[PlacedNetwork, ...]:
        """The networks a device carries; none on a device that is no VTEP."""
        return self.networks.get(device, ())

    def vteps_of(self, tenant: str, network: str) -> tuple[str, ...]:
        return self.vteps.get((tenant, network), ())


def resolve_placement(site: Site) -> Placement:
    vteps: dict[NetworkKey, list[str]] = {
        (tenant_name, net_name): []
        for tenant_name, tenant in site.tenants.items()
        for net_name in tenant.networks
    }
    networks: dict[str, tuple[PlacedNetwork, ...]] = {}
    # each network's racks and leaves as sets: a network on every rack lists thousands
    where = [
        (PlacedNetwork(tenant_name, net_name, network), set(network.racks), set(network.leaves))
        for tenant_name, tenant in sorted(site.tenants.items())
        for net_name, network in sorted(tenant.networks.items())
    ]
    for name, device in sorted(site.devices.items(), key=lambda item: item[1].id):
        if device.role not in VTEP_ROLES:
            continue
        placed = [p for p, racks, leaves in where if device.rack in racks or name in leaves]
        placed.sort(key=lambda p: p.network.vlan)
        networks[name] = tuple(placed)
        for p in placed:
            vteps[p.key].append(name)
    return Placement(
        vteps=MappingProxyType({key: tuple(names) for key, names in vteps.items()}),
        networks=MappingProxyType(networks),
    )


def svi_owners(site: Site, placement: Placement, tenant: str, network: str) -> tuple[str, ...]:
    """The VTEPs carrying a network whose platform gives its SVI an address of its own besides
    the anycast gateway (NVUE VRR), by device id: the k-th of them takes the k-th own address
    (`svi_own_addresses`)."""
    found = placement.owners.get((tenant, network))
    if found is None:
        found = placement.owners[(tenant, network)] = tuple(
            name
            for name in placement.vteps_of(tenant, network)
            if (platform := PLATFORMS.get(site.devices[name].platform)) is not None
            and platform.capabilities.svi_needs_unique_address
        )
    return found


@lru_cache(maxsize=4096)  # every leaf of a network asks for the same list: once per network
def svi_own_addresses(gateway: str, count: int) -> list[str] | None:
    """`count` own SVI addresses (with the prefix length) for the leaves of a network, taken from
    the top of the gateway's subnet down, skipping the gateway: leaf k of `svi_owners` gets the
    k-th. Works for any prefix length: only as many addresses as there are leaves needing one
    are used, and the hosts keep the rest of the subnet below them. None when the subnet's host
    addresses (IPv4 without network and broadcast, IPv6 without the subnet-router anycast) hold
    fewer than the gateway and `count` leaves (rule EVPN-023). Callers share the list: read only."""
    iface = ipaddress.ip_interface(gateway)
    net = iface.network
    top = int(net.broadcast_address) - (1 if net.version == 4 else 0)
    bottom = int(net.network_address) + 1
    own: list[str] = []
    candidate = top
    while len(own) < count and candidate >= bottom:
        if candidate != int(iface.ip):
            own.append(f"{ipaddress.ip_address(candidate)}/{net.prefixlen}")
        candidate -= 1
    return own if len(own) == count else None
