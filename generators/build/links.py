"""What every routed fabric link end becomes, whichever feature runs a session over it."""

from __future__ import annotations

from meetme.generators.model import Address, Interface, PeerPort, PortSpeed
from meetme.generators.platforms import Platform
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import LinkEndFacts

from meetme.intent.schema import Device, Intent, Site


def routed_port(
    local: LinkEndFacts,
    remote: LinkEndFacts,
    platform: Platform,
    description: str,
    port_speed: PortSpeed | None = None,
) -> Interface:
    """A link end as a routed port: the link's /31 and /127, its MTU and speed, its far end;
    `port_speed` the speed the port must be told (resolve/ports.py), None for its cage's own."""
    return Interface(
        name=local.interface,
        kind="routed",
        description=description,
        ipv4=Address.of(local.address_v4),
        ipv6=Address.of(local.address_v6) if local.address_v6 else None,
        ip_mtu=local.ip_mtu,
        mtu=platform.mtu(local.ip_mtu),
        speed_gbps=local.speed_gbps,
        port_speed=port_speed,
        peer=PeerPort(device=remote.device, interface=remote.interface),
    )


def pair_link(intent: Intent, site: Site, local_device: Device, remote: LinkEndFacts) -> bool:
    """A direct link between two borders of one ASN: it carries their iBGP, not the underlay."""
    peer = site.devices[remote.device]
    return (
        local_device.role == "border"
        and peer.role == "border"
        and allocate.device_asn(intent, site, local_device)
        == allocate.device_asn(intent, site, peer)
    )
