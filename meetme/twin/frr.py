"""A device model in FRRouting's own configuration language (`frr.conf`, FRR 8.4).

The sixth rendering of the one device model, for the twin only: it is not a platform a user
selects in intent (generators/platforms knows nothing of it). Interfaces carry the twin's
Linux names (`names.linux_name`). What FRR in a namespace cannot run here is left out of the
text and said once in the template: TCP-MD5 keys (the model holds placeholders only), BFD
and RPKI (no validator: no route is invalid, so a clause matching invalid routes matches
nothing and is omitted). BFD is printed only for `up --bfd`, the model's timers as profiles.

Route leaking between a plain VRF and the default VRF (the IOS-XR borders' `import from
default-vrf` / `export to default-vrf`) is FRR's own VRF route leaking (`import vrf`, bgp.html
"VRF Route Leaking"), with the model's route maps: BGP leaks on the namespace VRF backend too,
but the kernel cannot forward from one namespace to another, so zebra marks a leaked route
whose next hop is in the other VRF as not installed (docs/twin.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import jinja2

from meetme.generators.model import BfdTimers, BgpNeighbor, DeviceModel, EvpnPeer, Interface
from meetme.generators.platforms import PLATFORMS
from meetme.generators.platforms.base import COMMUNITY_KINDS
from meetme.generators.platforms.spellings import (
    as_path_length_list,
    as_path_length_regex,
    as_path_regexes,
)
from meetme.twin.names import linux_name


@dataclass(frozen=True)
class DefaultImport:
    """What the default VRF imports from the tenant VRFs in one family (`import vrf`): the VRFs
    and the one route map FRR allows per family (`import vrf route-map`). With several
    exporting VRFs that map is the twin's own: a clause per VRF (`match source-vrf`) calling
    that VRF's export policy (routemap.html `call`: a deny there denies the route)."""

    afi: str
    vrfs: tuple[str, ...]
    route_map: str
    calls: tuple[tuple[str, str], ...] = ()  # (VRF, its export map) of the combined map


def default_imports(model: DeviceModel) -> list[DefaultImport]:
    found = []
    for afi in ("ipv4", "ipv6"):
        exports = [
            (v.name, leak.export_to_default)
            for v in model.vrfs
            if (leak := v.leak(afi)) is not None and leak.export_to_default
        ]
        if len(exports) == 1:
            found.append(DefaultImport(afi, (exports[0][0],), exports[0][1]))
        elif exports:
            name = f"TWIN-LEAK-TO-DEFAULT-{'V4' if afi == 'ipv4' else 'V6'}"
            found.append(DefaultImport(afi, tuple(v for v, _ in exports), name, tuple(exports)))
    return found


@dataclass(frozen=True)
class TwinInterface:
    """An interface of the model as the twin names it."""

    name: str  # the Linux name
    model: Interface


def twin_interfaces(model: DeviceModel) -> tuple[TwinInterface, ...]:
    """The model's addressed interfaces other than loopbacks, with Linux names; a VTEP's
    gateway SVIs are among them (in the twin a plain port toward the network's host)."""
    found = [
        TwinInterface(linux_name(i.name), i)
        for i in model.interfaces
        if i.kind in ("routed", "subinterface") and (i.ipv4 or i.ipv6)
    ]
    found += [TwinInterface(linux_name(svi.name), svi) for svi, _, _ in gateway_svis(model)]
    peer_vlan = _peer_vlan_svi(model)
    if peer_vlan is not None:
        found.append(TwinInterface(linux_name(peer_vlan.name), peer_vlan))
    found += [TwinInterface(linux_name(svi.name), svi) for svi in vrf_peering_svis(model)]
    return tuple(found)


def vrf_peering_svis(model: DeviceModel) -> list[Interface]:
    """An EOS MLAG pair's SVI per peered tenant VRF (Mlag.vrf_peerings): the peer VLAN's
    addresses again, in the VRF, for the pair's session in that VRF."""
    if model.mlag is None:
        return []
    return [
        Interface(
            name=f"Vlan{p.vlan}",
            kind="svi",
            description=f"mlag peer vlan to {model.mlag.peer} vrf {p.vrf}",
            ipv4=p.ipv4,
            ipv6=p.ipv6,
            vrf=p.vrf,
        )
        for p in model.mlag.vrf_peerings
    ]


def _peer_vlan_svi(model: DeviceModel) -> Interface | None:
    """The MLAG / vPC pair's routed peer VLAN SVI (EOS Vlan4094, NX-OS Vlan3967), which the
    model keeps on its Mlag: the pair's underlay session runs over it."""
    mlag = model.mlag
    if mlag is None or mlag.peer_vlan is None or mlag.peer_vlan_ipv4 is None:
        return None
    return Interface(
        name=f"Vlan{mlag.peer_vlan}",
        kind="svi",
        description=f"mlag peer vlan to {mlag.peer}",
        ipv4=mlag.peer_vlan_ipv4,
        ipv6=mlag.peer_vlan_ipv6,
    )


def gateway_svis(model: DeviceModel) -> list[tuple[Interface, str | None, str | None]]:
    """Each routed SVI of a VTEP with its anycast gateways (v4, v6) where they are addresses
    of their own (NVUE's VRR: the SVI holds the leaf's unique address besides)."""
    if model.evpn is None or not model.evpn.vtep:
        return []
    found: list[tuple[Interface, str | None, str | None]] = []
    for vlan in model.evpn.vlans:
        svi = vlan.svi
        if svi is None or not (svi.ipv4 or svi.ipv6):
            continue
        v4 = vlan.gateway_v4.cidr if vlan.gateway_v4 and vlan.gateway_v4 != svi.ipv4 else None
        v6 = vlan.gateway_v6.cidr if vlan.gateway_v6 and vlan.gateway_v6 != svi.ipv6 else None
        found.append((svi, v4, v6))
    return found


def loopback_addresses(model: DeviceModel) -> tuple[str, ...]:
    """Every loopback address of the model: all of them live on `lo` in a namespace."""
    found: list[str] = []
    for lo in model.loopbacks:
        found += [a.cidr for a in (lo.ipv4, lo.ipv6) if a is not None]
    return tuple(found)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resources.files("meetme.templates").joinpath("frr"))),
        undefined=jinja2.StrictUndefined,  # a missing model field is a bug, never a blank
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # router configuration, not HTML
    )
    env.filters["as_path_regexes"] = as_path_regexes
    env.filters["as_path_length_regex"] = as_path_length_regex
    env.filters["as_path_length_list"] = as_path_length_list
    env.globals["linux_name"] = linux_name
    env.globals["unsent_communities"] = unsent_communities
    env.globals["overlay_unsent_map"] = overlay_unsent_map
    env.globals["overlay_unsent_maps"] = overlay_unsent_maps
    return env


_ENV: jinja2.Environment | None = None


def template(name: str) -> jinja2.Template:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV.get_template(name)


def unsent_communities(model: DeviceModel, n: BgpNeighbor | EvpnPeer) -> tuple[str, ...]:
    """The community kinds the real device does not send on session `n` (unicast or EVPN):
    FRR sends every kind unless told not to (bgp.html `neighbor PEER send-community`), so the
    twin says `no neighbor X send-community KIND` for each, and a policy that counts on a tag
    a hop drops fails in the twin as it would on the device."""
    platform = PLATFORMS[model.platform]
    sent = platform.communities_sent(n.send_communities, n.remote_as == model.bgp.asn)
    return tuple(kind for kind in COMMUNITY_KINDS if kind not in sent)


# What strips each community kind from a route (FRR 8.4 accepts these in an outbound map;
# bgp.html "Communities Attribute", "Extended Communities Attribute", "Large Communities").
_STRIP = {
    "standard": "set community none",
    "extended": "set extcommunity none",
    "large": "set large-community none",
}


def overlay_unsent_map(model: DeviceModel, p: EvpnPeer) -> str | None:
    """The twin's outbound map on an EVPN session that strips the kinds the device would not
    send there: FRR 8.4 has no `send-community` under `address-family l2vpn evpn` (vtysh
    takes the line as the IPv4 family's and leaves the EVPN one), so an outbound map does it."""
    kinds = unsent_communities(model, p)
    return _unsent_map_name(kinds) if kinds else None


def _unsent_map_name(kinds: tuple[str, ...]) -> str:
    return "TWIN-UNSENT-" + "-".join(kind.upper() for kind in kinds)


def overlay_unsent_maps(model: DeviceModel) -> dict[str, list[str]]:
    """Each of those maps the device's EVPN sessions use, by name: its `set` lines."""
    maps: dict[str, list[str]] = {}
    for p in model.evpn.peers if model.evpn else ():
        kinds = unsent_communities(model, p)
        if kinds:
            maps[_unsent_map_name(kinds)] = [_STRIP[kind] for kind in kinds]
    return maps


def render_frr(model: DeviceModel, bfd: bool = False) -> str:
    """The device's `frr.conf` text; with `bfd`, its BFD profiles and sessions too."""
    text = template("device.j2").render(
        device=model,
        interfaces=twin_interfaces(model),
        loopbacks=loopback_addresses(model),
        vrf_names=vrf_names(model),
        default_imports=default_imports(model),
        anycast={linux_name(svi.name): (v4, v6) for svi, v4, v6 in gateway_svis(model)},
        redistribute=redistributed_vrfs(model),
        bfd=bfd,
        bfd_profiles=bfd_profiles(model) if bfd else [],
        bfd_stretch=BFD_STRETCH,
    )
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


# BFD intervals in the twin (`up --bfd`) are the model's times this factor, so that a late
# packet on a shared, loaded machine running 46 routers does not reset a session mid-verify.
# The profiles, multipliers and sessions are the model's; BFD is proven up, not timed.
BFD_STRETCH = 10


def bfd_profiles(model: DeviceModel) -> list[BfdTimers]:
    """Every BFD timer set a session of the device runs, once each by profile name."""
    found = [t for n in model.bgp.neighbors if (t := model.bgp.bfd_of(n)) is not None]
    if model.evpn and model.evpn.multihop_bfd and any(p.bfd for p in model.evpn.peers):
        found.append(model.evpn.multihop_bfd)
    return sorted({t.profile: t for t in found}.values(), key=lambda t: t.profile)


def redistributed_vrfs(model: DeviceModel) -> dict[str, str | None]:
    """VRF -> the route map (or None) of the connected subnets a VTEP advertises as EVPN
    type-5 routes: every platform's rendering redistributes connected in its EVPN VRFs."""
    if model.evpn is None or not model.evpn.vtep:
        return {}
    return {v.name: v.connected_route_map for v in model.evpn.vrfs}


def vrf_names(model: DeviceModel) -> list[str]:
    """The tenant VRFs on the device: EVPN IP-VRFs and plain (VRF-lite) ones."""
    evpn = {v.name for v in model.evpn.vrfs} if model.evpn else set()
    return sorted({v.name for v in model.vrfs} | evpn)
