"""SRv6 on a device: its locator, the DCI ports it terminates, IS-IS with SRv6 over the border
pair and the DCI links inside the domain, BGP VPNv4/VPNv6 to the other sites' borders for the
tenant VRFs that ride SRv6, and static uN SIDs where no IGP hands them out (NVUE).

The DCI ports live here because SRv6 is what runs over them: each is a routed port with the
circuit's /31 and /127 (dci.p2p_v4 / p2p_v6 by the circuit's index) and its IP MTU.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from meetme.generators.build.handoff import AFIS, remote_prefixes
from meetme.generators.build.links import pair_link
from meetme.generators.build.underlay import device_bfd
from meetme.generators.model import (
    Acl,
    AclRule,
    Address,
    Interface,
    IsisInterface,
    PeerPort,
    Srv6,
    Srv6Peer,
    Srv6StaticSid,
    Srv6Vrf,
)
from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve import allocate
from meetme.generators.resolve.fabric import SiteFabric
from meetme.generators.resolve.ports import PortPlan
from meetme.generators.resolve.srv6 import Locator, block_of, locators, vrf_sites

from meetme.intent.schema import Device, Intent
from meetme.intent.schema_dci import DciCircuit, DciEnd

ISIS_INSTANCE = "SRV6"
SID_FILTER = "ACL-SRV6-EDGE-IN-V6"


def fabric_locators(intent: Intent, site_name: str) -> dict[str, str]:
    """The locators a site's eBGP underlay carries, by device: those of its domain members
    inside the fabric, whose static uN SIDs the NICs steer packets through (every hop needs a
    route to each), in device order. A border's locator rides IS-IS between the borders."""
    site = intent.sites[site_name]
    return {
        name: loc.prefix
        for name, loc in sorted(locators(intent).items())
        if loc.site == site_name and site.devices[name].role != "border"
    }


def dci_addresses(intent: Intent, circuit: DciCircuit) -> dict[str, tuple[str | None, str | None]]:
    """Each end's (IPv4 /31, IPv6 /127) by "a" / "b"; None where no pool or index is given."""
    dci = intent.dci
    out: dict[str, tuple[str | None, str | None]] = {"a": (None, None), "b": (None, None)}
    if dci is None or circuit.index is None:
        return out
    for k, end in enumerate(("a", "b")):
        v4 = _nth(dci.p2p_v4, 2 * circuit.index + k, 31)
        v6 = _nth(dci.p2p_v6, 2 * circuit.index + k, 127)
        out[end] = (v4, v6)
    return out


def _nth(pool: str | None, offset: int, length: int) -> str | None:
    """Address `offset` of `pool` with `length`; None without a pool or past its end (DCI-010
    reports the index)."""
    if pool is None:
        return None
    net = ipaddress.ip_network(pool)
    if offset >= net.num_addresses:
        return None
    return f"{net.network_address + offset}/{length}"


def dci_ip_mtu(intent: Intent, circuit: DciCircuit) -> int:
    """The circuit's IP MTU: as written, else the lower underlay MTU of its two sites."""
    if circuit.mtu is not None:
        return circuit.mtu
    return min(intent.sites[end.site].underlay.mtu for end in (circuit.a, circuit.b))


def dci_ends(intent: Intent, name: str) -> list[tuple[str, DciCircuit, DciEnd, DciEnd, str]]:
    """(circuit name, circuit, local end, far end, side) of every circuit ending on `name`."""
    if intent.dci is None:
        return []
    found = []
    for circuit_name, circuit in sorted(intent.dci.circuits.items()):
        for side, local, far in (("a", circuit.a, circuit.b), ("b", circuit.b, circuit.a)):
            if local.device == name:
                found.append((circuit_name, circuit, local, far, side))
    return found


def dci_ports(intent: Intent, name: str, device: Device, plan: PortPlan) -> list[Interface]:
    """Each DCI circuit's port on the device, told the circuit's speed where the plan says."""
    platform = PLATFORMS[device.platform]
    ports = []
    for circuit_name, circuit, local, far, side in dci_ends(intent, name):
        v4, v6 = dci_addresses(intent, circuit)[side]
        ip_mtu = dci_ip_mtu(intent, circuit)
        ports.append(
            Interface(
                name=local.interface,
                kind="routed",
                description=f"DCI {circuit_name} to {far.device} {far.interface}",
                ipv4=Address.of(v4) if v4 else None,
                ipv6=Address.of(v6) if v6 else None,
                ip_mtu=ip_mtu,
                mtu=platform.mtu(ip_mtu),
                port_speed=plan.speed_of(name, local.interface),
                peer=PeerPort(device=far.device, interface=far.interface),
            )
        )
    return ports


def srv6_of(
    intent: Intent, site_name: str, name: str, device: Device, fabric: SiteFabric
) -> Srv6 | None:
    found = locators(intent)
    mine = found.get(name)
    if mine is None or intent.srv6 is None:
        return None
    site = intent.sites[site_name]
    platform = PLATFORMS[device.platform]
    loopback = allocate.loopback_v6(site, device)
    common = {
        "locator": mine.name,
        "prefix": mine.prefix,
        "block_len": mine.block_len,
        "node_len": mine.node_len,
        "func_len": mine.func_len,
        "format": intent.srv6.format,
    }
    if device.role != "border":
        # inside the fabric: transit uN SIDs the NICs steer through, no IGP (Cumulus 5.14+)
        return Srv6(**common, static_sids=(Srv6StaticSid(sid=mine.prefix, behavior="uN"),))
    vrfs = tuple(
        Srv6Vrf(name=vrf, route_target=f"{intent.organisation.asn}:{intent.srv6.vrfs[vrf].id}",
                sites=others, remote_prefixes=tuple(
                    p for afi in AFIS for p in remote_prefixes(intent, site_name, vrf, afi)))
        for vrf, others in vrf_sites(intent, site_name).items()
    )  # fmt: skip
    isis = [IsisInterface(name=platform.loopback_names[0], passive=True)]
    bfd = device_bfd(site)
    for local, remote, _link in fabric.links_of(name):
        if pair_link(intent, site, device, remote) and remote.device in found:
            isis.append(IsisInterface(name=local.interface, bfd=bfd))
    for _circuit, _c, dci_local, dci_far, _side in dci_ends(intent, name):
        if dci_far.device in found:  # the far border is in the domain: the IGP runs over the DCI
            isis.append(IsisInterface(name=dci_local.interface, bfd=bfd))
    return Srv6(
        **common,
        source_address=str(ipaddress.ip_interface(loopback).ip) if loopback else None,
        isis_instance=ISIS_INSTANCE,
        isis_net=f"{intent.srv6.isis_area}.{_system_id(fabric.router_ids[name])}.00",
        isis_interfaces=tuple(dict.fromkeys(isis)),
        peers=tuple(_peers(intent, site_name, name, vrfs, found, platform.loopback_names[0])),
        vrfs=vrfs,
    )


def _peers(
    intent: Intent,
    site_name: str,
    name: str,
    vrfs: tuple[Srv6Vrf, ...],
    found: Mapping[str, Locator],
    update_source: str,
) -> list[Srv6Peer]:
    """Every border of the domain in a site one of this border's SRv6 VRFs reaches."""
    far_sites = sorted({s for vrf in vrfs for s in vrf.sites})
    peers = []
    for far_site in far_sites:
        site = intent.sites[far_site]
        for far_name, locator in sorted(found.items()):
            far = site.devices.get(far_name)
            if locator.site != far_site or far is None or far.role != "border":
                continue
            address = allocate.loopback_v6(site, far)
            if address is None:
                continue
            peers.append(
                Srv6Peer(
                    address=str(ipaddress.ip_interface(address).ip),
                    remote_as=allocate.device_asn(intent, site, far),
                    description=f"SRv6 L3VPN to {far_name} ({far_site})",
                    peer_device=far_name,
                    update_source=update_source,
                )
            )
    return peers


def sid_filter(
    intent: Intent,
    name: str,
    device: Device,
    interfaces: list[Interface],
    acls: list[Acl],
    external: set[str],
) -> tuple[list[Interface], list[Acl]]:
    """On a member of the SRv6 domain, every external port with IPv6 drops packets addressed to
    the SRv6 block: from outside, a packet to one of our SIDs would run our instructions (RFC
    8754 section 5.1, RFC 8986 section 9.3). A port without IPv6 forwards none. A port that
    already has an ingress IPv6 ACL (the edge's, where the platform has no uRPF) gets the deny
    at the top of that one, since a port takes one ACL per direction per family; else it gets
    its own, which permits the rest. Only platforms with a verified form print it
    (`Srv6Support.sid_filter`); on the others SRV6-005 reports the unfiltered ports."""
    support = PLATFORMS[device.platform].srv6
    if intent.srv6 is None or name not in locators(intent) or not (support and support.sid_filter):
        return interfaces, acls
    deny = AclRule(
        seq=10,
        action="deny",
        source=None,
        destination=str(block_of(intent.srv6)),
        description="to the SRv6 block: SIDs are for the domain only",
    )
    known = {acl.name: acl for acl in acls}
    changed: dict[str, Acl] = {}
    result = []
    for intf in interfaces:
        if intf.name not in external or intf.ipv6 is None:
            result.append(intf)
            continue
        v6 = [n for n in intf.acls_in if n in known and known[n].afi == "ipv6"]
        if v6:
            if v6[0] not in changed:
                rules = (deny, *known[v6[0]].rules)
                changed[v6[0]] = known[v6[0]].model_copy(
                    update={
                        "rules": tuple(
                            r.model_copy(update={"seq": 10 * (i + 1)}) for i, r in enumerate(rules)
                        )
                    }
                )
            result.append(intf)
            continue
        changed.setdefault(
            SID_FILTER,
            Acl(
                name=SID_FILTER,
                afi="ipv6",
                rules=(
                    deny,
                    AclRule(seq=20, action="permit", source=None, description="the rest"),
                ),
            ),
        )
        result.append(intf.model_copy(update={"acls_in": (*intf.acls_in, SID_FILTER)}))
    merged = [changed.get(acl.name, acl) for acl in acls]
    merged += [acl for key, acl in sorted(changed.items()) if key not in known]
    return result, merged


def _system_id(router_id: str) -> str:
    """IS-IS system id from the IPv4 router id, each octet three digits: 10.0.0.1 ->
    0100.0000.0001; unique wherever router ids are (the convention of Juniper's
    "Understanding IS-IS Configuration": pad the router id to 12 digits, a dot every 4)."""
    digits = "".join(f"{int(octet):03d}" for octet in router_id.split("."))
    return ".".join(digits[i : i + 4] for i in range(0, 12, 4))
