"""What every platform plug-in declares: typed facts, capabilities, filters, files and gaps.

A plug-in is one module holding one `Platform` plus its template folder. The registry
(`meetme.generators.platforms.PLATFORMS`) maps the intent's `platform:` value to it; the
builders read its facts, the renderer its filters and files, the lint its gaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from meetme.generators.model import DeviceModel

from meetme.intent.schema_base import MAX_PREFIX

# The global routing table's name on every platform: no tenant or management VRF may take it.
GLOBAL_VRF = "default"

IntentPath = tuple[str | int, ...]


@dataclass(frozen=True)
class UserRole:
    names: tuple[str, ...]  # the OS's role (EOS, NX-OS, NVUE) or user groups (IOS-XR)
    privilege: int | None = None  # EOS: the login's initial privilege level


@dataclass(frozen=True)
class LocalUsers:
    """How the OS writes a local user: its roles for the intent's two, and the hash it takes."""

    admin: UserRole
    operator: UserRole
    password_hash: Literal["sha512_crypt", "sha256_crypt"]  # crypt(3) $6$ / $5$
    # names the OS keeps for itself and refuses for a local user (PLAT-023), and what its
    # first character must be where the OS is stricter than the intent's names
    reserved_names: frozenset[str] = frozenset()
    first_character: str = ""  # characters a name may start with; "": any the intent takes

    def role(self, name: Literal["admin", "operator"]) -> UserRole:
        return self.admin if name == "admin" else self.operator


@dataclass(frozen=True)
class Capabilities:
    """What the platform's templates can print, each claimed only with a verified vendor form
    (docs/syntax.md#capabilities). eBGP underlay and BFD are not listed: every platform must
    have them, the builders never ask."""

    evpn_vxlan: bool = False  # a VTEP: VLAN/VRF to VNI maps, EVPN sessions
    rpki: bool = False  # RTR caches and an origin-validation match in route maps
    mlag: bool = False  # MLAG bonds, peer link and anycast VTEP
    esi_multihoming: bool = False  # EVPN Ethernet segments on host bonds
    svi_needs_unique_address: bool = False  # the anycast gateway also needs a per-leaf address
    evpn_connected_needs_route_map: bool = False  # `redistribute connected` takes a route map
    urpf: bool = False  # unicast RPF on a routed port (`verify unicast source reachable-via`)

    def __contains__(self, name: object) -> bool:
        """`"rpki" in platform.capabilities`: the spelling builders and rules used when this
        was a set of strings. New code reads the field (`platform.capabilities.rpki`)."""
        return isinstance(name, str) and name in _CAPABILITY_NAMES and getattr(self, name) is True


_CAPABILITY_NAMES = frozenset(f.name for f in fields(Capabilities))


@dataclass(frozen=True)
class Srv6Support:
    """What of SRv6 the platform's templates print, each part with a verified vendor form
    (docs/srv6.md#platforms); a platform without it renders no SRv6 at all."""

    formats: tuple[str, ...]  # the uSID formats it takes (F3216, F1616)
    l3vpn: bool  # BGP VPNv4/VPNv6 with per-VRF SRv6 SIDs, IS-IS SRv6
    asics: tuple[str, ...] | None = None  # the ASICs that forward it; None: every model
    note: str = ""  # the source and release, for refusals
    # an ingress IPv6 ACL dropping packets to the SRv6 block on external ports (SRV6-005):
    # deny by destination prefix, and one ACL per direction per interface
    sid_filter: bool = False


@dataclass(frozen=True)
class Gap:
    """A model value this platform cannot print: a PLAT-* finding, raised before rendering."""

    rule: str  # PLAT-00N (validators/rules/platform.py holds its title and rationale)
    feature: str  # what the intent asks for, in the user's words
    detail: str  # why the platform cannot print it
    # the intent line that asks for it, when the model knows it; None: the device's platform
    path: IntentPath | None = None


GapCheck = Callable[["Platform", DeviceModel], Iterator[Gap]]


@dataclass(frozen=True)
class OutputFile:
    """One rendered file of a device: its entry template and its name's suffix."""

    entry: str  # a template in the platform's folder
    suffix: str  # rendered/<site>/<device><suffix>


@dataclass(frozen=True)
class PortForms:
    """How the platform is told a port's speed and a cage's breakout (docs/syntax.md, each
    platform's "Port speed and breakout"); generators/resolve/ports.py decides from these."""

    # a port slower than its cage is told its speed (False: IOS-XR, where the optic decides
    # and the interface's type names its speed)
    forced_speed: bool = True
    # each sub-port of a breakout is told its speed (EOS: that is how a breakout is said; NVUE)
    sub_port_speed: bool = False
    # sub-ports no link uses are told their speed too (EOS: else the first lane keeps the
    # cage's default speed and claims every lane)
    idle_sub_ports: bool = False
    # front-panel cages nothing uses are rendered shut (EOS: an unconfigured port is an enabled
    # switchport in VLAN 1 after a replace push, bridging every free port; NX-OS: whether it is
    # a switchport, and up, depends on the model and `system default`; docs/syntax.md#unused-ports)
    shut_unused: bool = False
    # the breakout modes the platform has a form for ("4x100G"); None: any the cage runs
    modes: tuple[str, ...] | None = None
    # the interface type that names the port's speed, by Gb/s (IOS-XR); empty: none does
    speed_types: Mapping[int, str] = field(default_factory=dict)


Community = Literal["standard", "extended", "large"]
COMMUNITY_KINDS: tuple[Community, ...] = ("standard", "extended", "large")


@dataclass(frozen=True)
class Platform:
    name: str  # the intent's `platform:` value and the template folder's name
    title: str
    management_interface: str
    fixed_management_vrf: str | None  # None: the intent's VRF name is used
    mtu_overhead: int  # what the platform's `mtu` counts beyond the IP MTU
    subinterface_mtu_overhead: int  # the same for an 802.1Q sub-interface (tag included)
    svi_format: str  # the VLAN interface's name, e.g. "Vlan{vlan}"
    lag_format: str  # a bond / port-channel's name, e.g. "Port-Channel{n}"
    mlag_peer_link: str  # the MLAG peer link's name
    loopback_names: tuple[str, str]  # (router-id loopback, VTEP loopback) as the OS spells them
    capabilities: Capabilities
    local_users: LocalUsers
    files: tuple[OutputFile, ...] = (OutputFile("device.j2", ".cfg"),)
    # How the pair's anycast VTEP is printed: "shared_address" (NVUE `nve vxlan mlag
    # shared-address`), "loopback" (EOS: the VTEP loopback's address on both leaves),
    # "loopback_secondary" (NX-OS vPC: a secondary address of the VTEP loopback)
    mlag_vtep: Literal["shared_address", "loopback", "loopback_secondary"] = "shared_address"
    # The routed VLAN over the peer link that carries the pair's underlay session (numbered,
    # a /31 and /127 from the p2p pools); None: the platform peers unnumbered (NVUE)
    mlag_peer_vlan: int | None = None
    # the push drivers (deploy/inventory.py DRIVER_PLATFORMS) that can push this platform
    push_drivers: tuple[str, ...] = ()
    # the only MTUs a Layer 2 port takes, when the platform restricts them (NX-OS: the default
    # or the system jumbo MTU, Cisco TAC 118994); None: any value
    l2_mtus: tuple[int, ...] | None = None
    # the community attributes a session can be told to send, where the platform has a
    # verified form for each (docs/syntax.md, `<platform>-evpn`): the EVPN sessions and the
    # border pair's iBGP ask for all of them
    send_communities: tuple[Literal["standard", "extended", "large"], ...] = (
        "standard",
        "extended",
        "large",
    )
    # the communities a session sends that no line of its own asks for: "none" - only the
    # kinds its `send-community` names (EOS, NX-OS: docs/syntax.md#eos-bgp, #nxos-evpn);
    # "ibgp" - every kind to an iBGP neighbour, none to an eBGP one without
    # `send-community-ebgp`, which meetme never prints (IOS-XR: Cisco 8000 BGP Configuration
    # Guide, "BGP community and extended-community advertisements"); "all" - every kind
    # (NVUE: each `community-advertise` kind is on when unset, nvueschema v5_16). What
    # FLOW-008 carries a class tag over, and what the twin's FRR sends (templates/frr).
    sends_communities_unasked: Literal["none", "ibgp", "all"] = "none"
    # how a route server keeps the VTEP next hop on its EVPN sessions: "neighbor" - a line of
    # the session (EOS `next-hop-unchanged`); "route_map" - an outbound route map that sets
    # `ip next-hop unchanged` (NX-OS, docs/syntax.md#nxos-evpn); PLAT-007 where neither is
    # verified (next_hop_unchanged among the platform's gaps)
    next_hop_unchanged_form: Literal["neighbor", "route_map"] = "neighbor"
    # how a plain VRF leaks with the default VRF (the Internet table): "per_family" - one
    # policy per family and direction (IOS-XR `import from default-vrf route-policy`);
    # "per_vrf" - one policy per source VRF serving both families (EOS `leak routes source-vrf
    # VRF subscribe-policy RM`, docs/syntax.md#eos-vrf-leaking)
    vrf_leak_policies: Literal["per_family", "per_vrf"] = "per_family"
    # how long AS paths are dropped on external sessions (EDGE-013): "route_map" - a clause of
    # the import map matching the length (IOS-XR, EOS; NVUE and FRR by an AS-path regex);
    # "bgp" - BGP's own limit in each VRF holding an external session, before any route map
    # (NX-OS `maxas-limit`, which has no route-map match for the length)
    drop_as_path_length: Literal["route_map", "bgp"] = "route_map"
    # how a port's speed and a cage's breakout are said (generators/resolve/ports.py)
    ports: PortForms = field(default_factory=PortForms)
    # whether a packet no rule of an ACL matches is dropped (an implicit deny at the end), where
    # a template cites it; False: meetme counts on explicit rules only (Cumulus documents its
    # ACLs as netfilter rules, CLDOCS "Netfilter - ACLs", in chains shown with `policy ACCEPT`,
    # CLDOCS 3.7 "Default Cumulus Linux ACL Configuration")
    acl_drops_unmatched: bool = False
    # names the platform keeps for itself besides its management VRF, which no tenant VRF
    # may take (EVPN-024 refuses them on every platform, so an intent stays portable)
    reserved_vrf_names: tuple[str, ...] = ()
    # the VRF names the platform takes, where it restricts them more than the intent's names
    # (PLAT-020), and that rule in words with its source; None: any intent name
    vrf_name_pattern: re.Pattern[str] | None = None
    vrf_name_rule: str = ""
    # the longest VLAN name its `name` command takes, where shorter than the names the model
    # makes (tenant_network, up to 127 characters; PLAT-024); None: not checked. Set by NX-OS
    # only (cisco_nxos.py, with its source). EOS prints `name` too (arista_eos/vrfs.j2), but no
    # Arista document found states its longest value: the EOS User Manual's "Virtual LANs
    # (VLANs)" chapter (https://www.arista.com/en/um-eos/eos-virtual-lans-vlans) calls the name
    # "a text string" with no length, and neither the arista.eos eos_vlans module nor AVD's
    # schema bounds it (searched 2026-12-04), so EOS is left unchecked rather than given a
    # guessed limit. NVUE writes the name as a YAML comment only; IOS-XR prints no VLAN.
    vlan_name_max: int | None = None
    # the longest name its prefix-list and AS-path list commands take, where shorter than the
    # names the model makes (a party's, circuit's or VRF's name inside; PLAT-025); None: not
    # checked
    list_name_max: int | None = None
    # the hostnames it takes, where stricter than the intent's device names (PLAT-026), and
    # that rule in words with its source; None: any device name
    hostname_pattern: re.Pattern[str] | None = None
    hostname_rule: str = ""
    # the largest prefix (or EVPN route) limit its BGP commands take, where below the intent's
    # own bound (PLAT-022); limits meetme raises itself (the handoff's) stop there
    max_prefix_limit: int = MAX_PREFIX
    # the most ECMP paths its BGP multipath command takes, where below the intent's own bound
    # (`underlay.ecmp`, 512; PLAT-029); None: not checked (no vendor range found)
    max_paths: int | None = None
    # the bond (port-channel) numbers and the MLAG ids (vPC numbers) its commands take, where
    # the vendor states a range; None: not checked (PLAT-021, generators/platforms/gaps.py)
    bond_numbers: tuple[int, int] | None = None
    mlag_ids: tuple[int, int] | None = None
    # SRv6 uSID locators and services; None: none (generators/platforms/gaps.py srv6_*)
    srv6: Srv6Support | None = None
    # what the vendor documents of SRv6 where the templates print none, for the refusal
    srv6_missing: str = "no SRv6 form verified for this platform"
    # why the platform lacks a capability, for the lint's refusal (capability name -> reason)
    missing_reasons: Mapping[str, str] = field(default_factory=dict)
    # vendor spellings, as Jinja filters of this platform's templates
    filters: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    # what the templates cannot print: each check yields a Gap per value it meets
    gap_checks: tuple[GapCheck, ...] = ()
    # the template folder; None: the installed package's meetme/templates/<name>
    templates: Path | None = None

    @property
    def file_suffix(self) -> str:
        """The suffix of the device's first (main) file."""
        return self.files[0].suffix

    def mtu(self, ip_mtu: int, *, subinterface: bool = False) -> int:
        """The number the platform's `mtu` command takes for a routed port carrying `ip_mtu`."""
        return ip_mtu + (self.subinterface_mtu_overhead if subinterface else self.mtu_overhead)

    def l2_mtu(self, wanted: int) -> int:
        """The smallest MTU the platform accepts on a Layer 2 port that carries `wanted`."""
        if self.l2_mtus is None:
            return wanted
        return min((m for m in self.l2_mtus if m >= wanted), default=max(self.l2_mtus))

    def communities_sent(self, told: tuple[Community, ...], ibgp: bool) -> tuple[Community, ...]:
        """The community kinds a session sends: those it is `told` to, and those the platform
        sends unasked (`sends_communities_unasked`), in COMMUNITY_KINDS order."""
        unasked = self.sends_communities_unasked
        if unasked == "all" or (unasked == "ibgp" and ibgp):
            return COMMUNITY_KINDS
        if unasked == "ibgp":
            return ()  # told or not: no `send-community-ebgp` is ever printed
        return tuple(kind for kind in COMMUNITY_KINDS if kind in told)

    def gaps(self, model: DeviceModel) -> list[Gap]:
        """Every value of `model` this platform cannot print; empty when it renders whole."""
        return [gap for check in self.gap_checks for gap in check(self, model)]
