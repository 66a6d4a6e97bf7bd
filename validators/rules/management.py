"""MGMT-*: the management feature, the out-of-band management addresses a replace push
depends on (intent: `management:`, meetme.intent.schema_management).

A push replaces the whole config, management address included, over that very address: a
duplicate, an address the data plane also claims, or one whose subnet does not hold the gateway
is a device that answers nobody once the push commits.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass

from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.base import GLOBAL_VRF
from meetme.validators.engine import Hit, SiteContext, rule

from meetme.core import addresses
from meetme.core.numbering import Network
from meetme.intent.schema import Device

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
POOL_KEYS = ("loopback_v4", "loopback_v6", "vtep_v4", "p2p_v4", "p2p_v6")
RFC_1122 = "https://www.rfc-editor.org/rfc/rfc1122"
OOB = "https://www.cisco.com/c/en/us/solutions/collateral/service-provider/out-of-band-best-practices-wp.html"


def _by_place(ctx: SiteContext) -> list[tuple[str, Device]]:
    """Devices in the order they are written, so 'the second' is the one written later."""
    return sorted(
        ctx.site.devices.items(), key=lambda item: ctx.loaded.where((*item[1].path, "management"))
    )


def _management(device: Device) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    return addresses.interface(device.management)


@rule(
    "MGMT-001",
    "error",
    "Every device has a management address of its own",
    "Two devices with one management address both answer on it: a replace push may land on "
    "the wrong device, and ARP on the management network flaps between the two.",
    "docs/standards.md#mgmt-001; RFC 5227 (IPv4 address conflict detection) "
    "https://www.rfc-editor.org/rfc/rfc5227",
)
def management_addresses_unique(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[Address, str] = {}
    for name, device in _by_place(ctx):
        address = _management(device).ip
        if address in seen:
            yield Hit(
                f"{name} has management address {address}, already {seen[address]}'s; give "
                "each device an address of its own",
                (*device.path, "management"),
            )
        else:
            seen[address] = name


@dataclass(frozen=True)
class Claimed:
    """Address space the data plane uses: a fabric pool, a tenant subnet, an edge subnet."""

    network: Network
    label: str


def _interface_network(value: str | None) -> Network | None:
    return None if value is None else addresses.interface(value).network


def _claimed(ctx: SiteContext) -> list[Claimed]:
    site = ctx.site
    found: list[Claimed] = []

    def add(value: str | None, label: str) -> None:
        network = _interface_network(value)
        if network is not None:
            found.append(Claimed(network, label))

    for key in POOL_KEYS:
        add(getattr(site.pools, key), f"pool {key}")
    for name, device in site.devices.items():
        for key in ("loopback_v4", "loopback_v6", "vtep_v4"):
            add(getattr(device, key), f"{name}'s {key}")
    for link in ctx.fabric.links:
        if link.source[-2:-1] != ("links",):
            continue  # a rule-made link's subnets come from the p2p pools, claimed above
        label = f"the link {link.a.device} {link.a.interface} - {link.b.device} {link.b.interface}"
        add(link.subnet_v4, label)
        add(link.subnet_v6, label)
    for name, attachment in site.attachments.items():
        add(attachment.anycast_vtep, f"attachment {name}'s anycast VTEP")
    for tenant in site.tenants.values():
        for name, network in tenant.networks.items():
            add(network.gateway_v4, f"network {name}")
            add(network.gateway_v6, f"network {name}")
    if site.handoff is not None:
        for name, vrf in site.handoff.vrfs.items():
            for prefix in vrf.export_north:
                add(prefix, f"handoff VRF {name}'s export_north")
    peering = site.peering
    for name, ix in peering.ixes.items():
        add(ix.lan_v4, f"IX {name}'s peering LAN")
        add(ix.lan_v6, f"IX {name}'s peering LAN")
    for port in ctx.fabric.edge.ports:  # transit, PNI and cloud subnets
        label = f"{port.device} {port.name} ({port.description})"
        add(port.ipv4, label)
        add(port.ipv6, label)
    return found


class _Index:
    """Claimed networks by (version, length, network address): an address is looked up once
    per distinct length, not compared with every link of a large fabric."""

    def __init__(self, claimed: list[Claimed]) -> None:
        self.by_key: dict[tuple[int, int, int], Claimed] = {}
        for item in claimed:
            net = item.network
            self.by_key.setdefault((net.version, net.prefixlen, int(net.network_address)), item)
        self.lengths = sorted({(v, length) for v, length, _ in self.by_key}, reverse=True)

    def holding(self, address: Address) -> Claimed | None:
        """The narrowest claimed network that holds `address`: the most specific name."""
        for version, length in self.lengths:
            if version != address.version:
                continue
            host_bits = address.max_prefixlen - length
            key = (version, length, int(address) >> host_bits << host_bits)
            if key in self.by_key:
                return self.by_key[key]
        return None


@rule(
    "MGMT-002",
    "error",
    "Management addresses lie outside the data plane's address space",
    "A management address (or gateway) inside a fabric pool, a link or loopback, a tenant "
    "network, the handoff's exports or an edge subnet (IX LAN, transit, PNI or cloud link) is "
    "claimed twice: a route to that space where the push comes from (the jump host's network, "
    "or the device once the data plane's prefixes are configured) may lead into the data plane "
    "instead of the out-of-band network, and the device is unreachable once the push commits. "
    "The management network is its own address space.",
    "docs/standards.md#mgmt-002; "
    f"Cisco, Out of band best practices (a management network independent of the production "
    f"network) {OOB}",
)
def management_outside_data_plane(ctx: SiteContext) -> Iterator[Hit]:
    index = _Index(_claimed(ctx))
    for name, device in _by_place(ctx):
        address = _management(device).ip
        claimed = index.holding(address)
        if claimed is not None:
            yield Hit(
                f"{name}'s management address {address} lies in {claimed.label} "
                f"{claimed.network}; take it from the management network's own space",
                (*device.path, "management"),
            )
    gateway = ipaddress.ip_address(ctx.site.management.gateway)
    claimed = index.holding(gateway)
    if claimed is not None:
        yield Hit(
            f"the management gateway {gateway} lies in {claimed.label} {claimed.network}; take "
            "it from the management network's own space",
            (*ctx.site.management.path, "gateway"),
        )


def _gateway_problem(
    iface: ipaddress.IPv4Interface | ipaddress.IPv6Interface, gateway: Address
) -> str | None:
    net = iface.network
    if iface.ip == gateway:
        return f"is the management gateway {gateway} itself"
    if iface.version == 4 and net.prefixlen <= 30:
        if iface.ip == net.network_address:
            return f"is the network address of {net}"
        if iface.ip == net.broadcast_address:
            return f"is the broadcast address of {net}"
    if iface.version == 6 and net.prefixlen <= 126 and iface.ip == net.network_address:
        return f"is the subnet-router anycast address of {net}"
    if gateway.version != iface.version or gateway not in net:
        return (
            f"is on {net}, which does not hold the management gateway {gateway}: the device "
            "has no route back to the jump host"
        )
    return None


@rule(
    "MGMT-003",
    "error",
    "Each management address is a host of a subnet that holds the management gateway",
    "The management default route points at the gateway; a gateway outside the device's "
    "subnet is unreachable, so after a replace push the device answers nobody beyond its own "
    "segment. The gateway's own address, and an IPv4 subnet's network or broadcast address "
    "(IPv6: the subnet-router anycast address), is no host address, neither for a device nor "
    "for the gateway itself (a /31 has neither, RFC 3021).",
    "docs/standards.md#mgmt-003; "
    f"RFC 1122 section 3.3.1.1 (the first-hop gateway is on a connected network) and 3.2.1.3 "
    f"(network and broadcast addresses) {RFC_1122}; RFC 4291 section 2.6.1 (subnet-router "
    "anycast) https://www.rfc-editor.org/rfc/rfc4291; RFC 3021 (/31 point-to-point links) "
    "https://www.rfc-editor.org/rfc/rfc3021",
)
def management_subnet_holds_gateway(ctx: SiteContext) -> Iterator[Hit]:
    gateway = ipaddress.ip_address(ctx.site.management.gateway)
    reported: set[Network] = set()
    for name, device in _by_place(ctx):
        iface = _management(device)
        problem = _gateway_problem(iface, gateway)
        if problem is not None:
            yield Hit(
                f"{name}'s management address {device.management} {problem}; correct the "
                "address or its length",
                (*device.path, "management"),
            )
            continue
        unusable = _gateway_unusable(iface.network, gateway)
        if unusable is not None and iface.network not in reported:
            reported.add(iface.network)
            yield Hit(
                f"the management gateway {gateway} is {unusable} of {iface.network} ({name}'s "
                "management subnet), no host address: the devices' default route would "
                "point at it; make the gateway a host address of the subnet, e.g. "
                f"{iface.network[1]}",
                (*ctx.site.management.path, "gateway"),
            )


def _gateway_unusable(net: Network, gateway: Address) -> str | None:
    """'the network address' or 'the broadcast address' (IPv6: the subnet-router anycast
    address) when the gateway is that of `net`; a /31 or /32 (/127, /128) has neither
    (RFC 3021)."""
    if net.version == 4 and net.prefixlen <= 30:
        if gateway == net.network_address:
            return "the network address"
        if gateway == net.broadcast_address:
            return "the broadcast address"
    if net.version == 6 and net.prefixlen <= 126 and gateway == net.network_address:
        return "the subnet-router anycast address"
    return None


@rule(
    "MGMT-004",
    "error",
    "The management network is IPv4",
    "meetme renders the management interface, its default route in the management VRF and the "
    "NX-OS VTY filter for an IPv4 management network, on every platform: an IPv6 management "
    "address or gateway would be printed into IPv4 commands (`ip address`, `ipv4 address`, "
    "`ip route 0.0.0.0/0`, NVUE `ipv4 gateway`) that every device refuses, and the site would "
    "fail at its first push. Until an IPv6 management network is rendered, it is refused here.",
    "docs/standards.md#mgmt-004; docs/syntax.md (the management commands of each platform)",
)
def management_is_ipv4(ctx: SiteContext) -> Iterator[Hit]:
    gateway = ipaddress.ip_address(ctx.site.management.gateway)
    if gateway.version != 4:
        yield Hit(
            f"the management gateway {gateway} is IPv6: meetme renders an IPv4 management "
            "network only; give the management network IPv4 addresses",
            (*ctx.site.management.path, "gateway"),
        )
    for name, device in _by_place(ctx):
        if _management(device).version != 4:
            yield Hit(
                f"{name}'s management address {device.management} is IPv6: meetme renders an "
                "IPv4 management network only; give it an IPv4 address",
                (*device.path, "management"),
            )


@rule(
    "MGMT-005",
    "error",
    "NTP and syslog servers are reachable through the management network",
    "Every device reaches its NTP and syslog servers through the management VRF, whose only "
    "route is the IPv4 default to the management gateway. An IPv6 server is unreachable there, "
    "and a server inside the data plane's address space (a loopback, a fabric pool, a tenant "
    "or edge subnet) is sent out of the management port toward a network that does not hold "
    "it. Nothing fails loudly: clocks drift and logs are lost until certificates, BGP "
    "authentication windows or log correlation break.",
    "docs/standards.md#mgmt-005; Cisco, Out of band best practices (management services on the "
    f"management network) {OOB}",
)
def management_servers_reachable(ctx: SiteContext) -> Iterator[Hit]:
    management = ctx.site.management
    index: _Index | None = None
    for key in ("ntp_servers", "syslog_servers"):
        kind = "NTP" if key == "ntp_servers" else "syslog"
        for position, server in enumerate(getattr(management, key)):
            address = ipaddress.ip_address(server)
            where = (*management.path, key, position)
            if address.version != 4:
                yield Hit(
                    f"{kind} server {address} is IPv6, and the management VRF routes IPv4 only "
                    "(its default route to the management gateway): name an IPv4 server",
                    where,
                )
                continue
            index = index or _Index(_claimed(ctx))
            claimed = index.holding(address)
            if claimed is not None:
                yield Hit(
                    f"{kind} server {address} lies in {claimed.label} {claimed.network}, which "
                    "the data plane holds: the devices send to it out of their management port; "
                    "name a server on the management network",
                    where,
                )


@rule(
    "MGMT-006",
    "error",
    "The management VRF is a VRF of its own, not the global table",
    "EOS and IOS-XR put the management port in the site's `management.vrf` (NX-OS and Cumulus "
    "Linux in their own fixed one). Named `default`, it is the global table: the rendered "
    "config would define a VRF of the global table's name, the management gateway's default "
    "route would join the data plane's routes and the management services would answer on "
    "every fabric and Internet-facing address. Every such rendered file fails CFG-010 "
    "(management services in the management VRF only), far from the one intent line that must "
    "change.",
    "docs/standards.md#mgmt-006; docs/standards.md#mgmt-plane",
)
def management_vrf_is_its_own(ctx: SiteContext) -> Iterator[Hit]:
    vrf = ctx.site.management.vrf
    if vrf.lower() != GLOBAL_VRF:
        return
    named = sorted(
        name
        for name, device in ctx.site.devices.items()
        if PLATFORMS[device.platform].fixed_management_vrf is None
    )
    if named:
        yield Hit(
            f"management VRF {vrf} is the global routing table: {len(named)} device(s) (first: "
            f"{named[0]}) would put their management port, its default route and services "
            "beside the data plane; name a VRF of its own (such as MGMT)",
            (*ctx.site.management.path, "vrf"),
        )


@rule(
    "MGMT-007",
    "error",
    "Every site names a local admin login",
    "meetme renders whole configurations, and a push replaces a device's configuration with "
    "one: the users of `management.users` become the device's only local logins (meetme "
    "renders no TACACS+ or RADIUS). With no admin among them, a device whose config was "
    "replaced (by a push, or pasted by hand) has no login with the rights to change it again: "
    "the next change, or the repair, needs the console. Users who are all operators "
    "(read-only) leave it the same. Once per site, at its `users` (or its `management`).",
    "docs/standards.md#mgmt-007; docs/standards.md#mgmt-plane",
)
def an_admin_login(ctx: SiteContext) -> Iterator[Hit]:
    users = ctx.site.management.users
    if any(user.role == "admin" for user in users.values()):
        return
    what = (
        "name no login"
        if not users
        else f"name only operators ({', '.join(sorted(users))}), who cannot change a config"
    )
    yield Hit(
        f"site {ctx.name}'s management.users {what}: meetme renders no other login (no TACACS+ "
        "or RADIUS), so once a rendered config replaces a device's, no one can log in to "
        "change it but at the console; add an admin, e.g. netops: {role: admin, "
        'password_hash: "secret:NAME"}',
        (*ctx.site.management.path, "users"),
    )
