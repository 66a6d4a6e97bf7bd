"""The platform limits every plug-in may declare: one check per limit, each yielding a `Gap`
whose rule id (PLAT-00N) validators/rules/platform.py registers with its title, rationale and
source. A plug-in lists the checks that apply to it in `Platform.gap_checks`; its templates
then print every value those checks let through, and never stop on one.
"""

from __future__ import annotations

from collections.abc import Iterator

from meetme.generators.model import DeviceModel, RouteMapEntry
from meetme.generators.platforms.base import Gap, Platform

from meetme.core.hardware import asic_of

RPKI = "PLAT-001"
STATIC_NEXT_HOP = "PLAT-002"
VRF_SESSION = "PLAT-003"
PREFIX_DENY = "PLAT-004"
AS_PATH_DENY = "PLAT-005"
UNREACHABLE_CLAUSE = "PLAT-006"
NEXT_HOP_UNCHANGED = "PLAT-007"
L3VNI_VLAN = "PLAT-008"
BOND_MODE = "PLAT-009"
SEGMENT_OFF_VTEP = "PLAT-010"
TRUNK_WITHOUT_VLANS = "PLAT-011"
SEGMENT_ON_MLAG = "PLAT-012"
SEGMENT_WITHOUT_SUPPRESSION = "PLAT-013"
MLAG_WITHOUT_PEER_LINK = "PLAT-014"
MULTIHOP_BFD_RANGE = "PLAT-015"
VPC_DOMAIN_RANGE = "PLAT-017"  # PLAT-016 is the interface-name rule (validators/rules/platform.py)
SRV6_L3VPN = "PLAT-018"
SRV6_LOCATOR = "PLAT-019"
VRF_NAME = "PLAT-020"
BOND_NUMBER_RANGE = "PLAT-021"
PREFIX_LIMIT_RANGE = "PLAT-022"
USER_NAME = "PLAT-023"
VLAN_NAME = "PLAT-024"
LIST_NAME = "PLAT-025"
HOSTNAME = "PLAT-026"
AS_PATH_LENGTH_FORM = "PLAT-027"
SHARED_VTEP_ROUTES = "PLAT-028"
ECMP_RANGE = "PLAT-029"
BFD_RANGE = "PLAT-030"

RULE_IDS = (
    RPKI,
    STATIC_NEXT_HOP,
    VRF_SESSION,
    PREFIX_DENY,
    AS_PATH_DENY,
    UNREACHABLE_CLAUSE,
    NEXT_HOP_UNCHANGED,
    L3VNI_VLAN,
    BOND_MODE,
    SEGMENT_OFF_VTEP,
    TRUNK_WITHOUT_VLANS,
    SEGMENT_ON_MLAG,
    SEGMENT_WITHOUT_SUPPRESSION,
    MLAG_WITHOUT_PEER_LINK,
    MULTIHOP_BFD_RANGE,
    VPC_DOMAIN_RANGE,
    SRV6_L3VPN,
    SRV6_LOCATOR,
    VRF_NAME,
    BOND_NUMBER_RANGE,
    PREFIX_LIMIT_RANGE,
    USER_NAME,
    VLAN_NAME,
    LIST_NAME,
    HOSTNAME,
    AS_PATH_LENGTH_FORM,
    SHARED_VTEP_ROUTES,
    ECMP_RANGE,
    BFD_RANGE,
)


def rpki(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """RTR caches or an origin-validation match on a platform without a verified form."""
    if platform.capabilities.rpki:
        return
    clauses = [
        f"{rm.name} {e.seq}" for rm in model.route_maps for e in rm.entries if e.match_rpki_invalid
    ]
    if model.bgp.rpki_caches or clauses:
        asked = ", ".join(["RTR caches"] * bool(model.bgp.rpki_caches) + clauses)
        yield Gap(RPKI, "RPKI origin validation", f"asked for by {asked}")


def static_next_hop(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A static route the model gives no next hop to print: only discard routes render."""
    for route in model.static_routes:
        if not route.discard:
            yield Gap(STATIC_NEXT_HOP, f"static route {route.prefix}", "not a discard route")


def vrf_sessions_in_plain_vrfs(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """The templates print VRF sessions inside the device's plain (VRF-lite) VRF blocks only."""
    known = {vrf.name for vrf in model.vrfs}
    yield from _vrf_sessions(model, known, "a VRF the device does not define as a plain VRF")


def vrf_sessions_in_evpn_vrfs(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """The templates print VRF sessions inside the device's EVPN VRF blocks only."""
    known = {vrf.name for vrf in model.evpn.vrfs} if model.evpn else set()
    yield from _vrf_sessions(model, known, "a VRF-lite VRF: only EVPN VRFs carry BGP sessions")


def vrf_sessions_in_any_vrfs(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """The templates print VRF sessions inside the device's EVPN and plain VRF blocks only."""
    known = {vrf.name for vrf in model.vrfs} | (
        {vrf.name for vrf in model.evpn.vrfs} if model.evpn else set()
    )
    yield from _vrf_sessions(model, known, "a VRF the device defines neither as EVPN nor plain")


def _vrf_sessions(model: DeviceModel, known: set[str], why: str) -> Iterator[Gap]:
    for vrf in sorted({n.vrf for n in model.bgp.neighbors if n.vrf and n.vrf not in known}):
        peers = ", ".join(n.address for n in model.bgp.in_vrf(vrf))
        yield Gap(VRF_SESSION, f"BGP sessions in VRF {vrf} ({peers})", why)


def prefix_list_denies(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A prefix-set lists what matches; a deny entry has no form in it."""
    for pl in model.prefix_lists:
        for entry in pl.entries:
            if entry.action != "permit":
                yield Gap(PREFIX_DENY, f"prefix list {pl.name} {entry.seq}", "a deny entry")


def as_path_denies(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """An as-path-set lists what matches; a deny entry has no form in it."""
    for aspath in model.as_path_lists:
        for entry in aspath.entries:
            if entry.action != "permit":
                yield Gap(AS_PATH_DENY, f"AS-path list {aspath.name} {entry.seq}", "a deny entry")


def clauses_after_match_all(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """An if/elseif chain ends at a clause without a match: nothing after it is reachable."""
    for rm in model.route_maps:
        for entry, following in zip(rm.entries, rm.entries[1:], strict=False):
            if not _matches(entry):
                yield Gap(
                    UNREACHABLE_CLAUSE,
                    f"route map {rm.name} {following.seq}",
                    f"follows clause {entry.seq}, which matches every route",
                )
                break


def _matches(entry: RouteMapEntry) -> bool:
    return (
        entry.match_rpki_invalid
        or entry.match_as_path_length_ge is not None
        or any(
            value is not None
            for value in (
                entry.match_prefix_list,
                entry.match_as_path,
                entry.match_community,
                entry.match_large_community,
            )
        )
    )


_RELAYED = "EVPN next hop unchanged toward VTEPs (a route server's EVPN sessions)"


def _relayed(model: DeviceModel) -> list[str]:
    """The peers a route server (spine, super-spine) keeps the VTEP next hop toward."""
    return (
        []
        if model.evpn is None
        else [p.peer_device for p in model.evpn.peers if p.next_hop_unchanged]
    )


def next_hop_unchanged(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A route server (spine, super-spine) relaying VTEP next hops needs a form the
    platform's templates do not have."""
    peers = _relayed(model)
    if peers:
        detail = f"no verified form for its {len(peers)} sessions (first: {peers[0]})"
        yield Gap(NEXT_HOP_UNCHANGED, _RELAYED, detail)


def next_hop_map_named(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A route server keeping VTEP next hops by a route map (NX-OS) names the map in its
    model; one naming none (a builder's fault) would print `route-map None out`."""
    peers = [] if model.evpn is None or model.evpn.next_hop_map else _relayed(model)
    if peers:
        detail = (
            f"the model names no route map to keep it on its {len(peers)} sessions "
            f"(first: {peers[0]})"
        )
        yield Gap(NEXT_HOP_UNCHANGED, _RELAYED, detail)


def l3vni_carrier_vlan(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """The L3VNI rides a VLAN of its own: a VTEP's VRF without one leaves the L3VNI unmapped."""
    if model.evpn is None or not model.evpn.vtep:
        return
    for vrf in model.evpn.vrfs:
        if vrf.vlan is None:
            yield Gap(L3VNI_VLAN, f"EVPN VRF {vrf.name} (L3VNI {vrf.vni})", "no carrier VLAN")


def no_host_bonds(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """The platform's templates print no host port, host bond or MLAG pair at all."""
    for lag in model.lags:
        yield Gap(BOND_MODE, f"{lag.mode.upper()} host bond {lag.name}", "no bond template")
    for port in model.host_ports:
        yield Gap(BOND_MODE, f"host port {port.name}", "no host port template")
    if model.mlag is not None:
        yield Gap(BOND_MODE, f"MLAG pair with {model.mlag.peer}", "no MLAG template")


VPC_DOMAINS = (1, 1000)  # Cisco NX-OS: "a vPC domain ID ... using a number from 1 to 1000"


def vpc_domain_range(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """NX-OS takes vPC domains 1-1000 (the default is the pair's lower device id)."""
    low, high = VPC_DOMAINS
    if model.mlag is None or low <= model.mlag.domain_id <= high:
        return
    yield Gap(
        VPC_DOMAIN_RANGE,
        f"vPC domain {model.mlag.domain_id} with {model.mlag.peer}",
        f"NX-OS takes {low}-{high}; set the attachment's domain_id",
    )


def segments_on_vteps(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """An Ethernet segment needs the BGP EVPN control plane of a VTEP."""
    vtep = model.evpn is not None and model.evpn.vtep
    for lag in model.lags:
        if lag.mode == "esi" and not vtep:
            yield Gap(SEGMENT_OFF_VTEP, f"Ethernet segment on {lag.name}", "not a VTEP")


def trunks_with_vlans(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A trunk without VLANs would print an incomplete `allowed vlan` command."""
    for lag in model.lags:
        if not lag.vlans:
            yield Gap(TRUNK_WITHOUT_VLANS, f"host bond {lag.name}", "a trunk without VLANs")


def segments_off_mlag(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """EVPN multihoming and MLAG exclude each other on one switch."""
    if model.mlag is None:
        return
    for lag in model.lags:
        if lag.mode == "esi":
            yield Gap(SEGMENT_ON_MLAG, f"Ethernet segment on {lag.name}", "the leaf runs MLAG")


def segments_with_suppression(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """ARP/ND suppression is a required feature of EVPN multihoming."""
    if model.evpn is None or not model.evpn.vtep or model.evpn.arp_nd_suppression:
        return
    for lag in model.lags:
        if lag.mode == "esi":
            yield Gap(
                SEGMENT_WITHOUT_SUPPRESSION,
                f"Ethernet segment on {lag.name}",
                "ARP/ND suppression is off",
            )


def mlag_peer_link(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """An MLAG pair needs peer-link ports."""
    if model.mlag is not None and not model.mlag.peer_link_members:
        yield Gap(MLAG_WITHOUT_PEER_LINK, f"MLAG pair with {model.mlag.peer}", "no peer-link ports")


NXOS_MULTIHOP_BFD_MS = (250, 999)  # Nexus 9000 Interfaces guide, "BFD Multihop": 250-999 ms


def nxos_multihop_bfd(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """NX-OS takes multihop BFD intervals of 250-999 ms only (the EVPN sessions' timers)."""
    timers = model.evpn.multihop_bfd if model.evpn else None
    low, high = NXOS_MULTIHOP_BFD_MS
    if timers is None or low <= timers.interval <= high:
        return
    yield Gap(
        MULTIHOP_BFD_RANGE,
        f"multihop BFD every {timers.interval} ms on the EVPN sessions",
        f"NX-OS takes {low}-{high} ms",
        path=("sites", model.site, "underlay", "bfd", "interval"),
    )


# NX-OS single-hop BFD (`bfd interval` globally and on an interface): 50-999 ms. Cisco's own
# Ansible collection, cisco.nxos nxos_bfd_global: bfd_interval and bfd_min_rx "range:
# 50-999" (secondary; the Interfaces guide states the multihop 250-999 above)
NXOS_BFD_MS = (50, 999)


def nxos_bfd(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """NX-OS takes single-hop BFD intervals of 50-999 ms only: the global timers (the
    underlay's, printed on every NX-OS device) and each session's own (a cloud's, printed on
    its interface). Google Cloud Router takes 1000 ms and up: never on NX-OS."""
    low, high = NXOS_BFD_MS
    timers = model.bgp.bfd
    multihop = model.evpn.multihop_bfd if model.evpn else None
    # the same underlay interval past 999 is PLAT-015's on a VTEP, at the same line
    reported = multihop is not None and multihop.interval > NXOS_MULTIHOP_BFD_MS[1]
    if not low <= timers.interval <= high and not reported:
        yield Gap(
            BFD_RANGE,
            f"BFD every {timers.interval} ms (the underlay's timers)",
            f"NX-OS takes {low}-{high} ms",
            path=("sites", model.site, "underlay", "bfd", "interval"),
        )
    over: dict[int, list[str]] = {}
    for n in model.bgp.neighbors:
        if n.bfd and n.bfd_timers is not None and not low <= n.bfd_timers.interval <= high:
            over.setdefault(n.bfd_timers.interval, []).append(n.description)
    for interval, sessions in sorted(over.items()):
        yield Gap(
            BFD_RANGE,
            f"BFD every {interval} ms on {len(sessions)} session(s) (first: {sessions[0]})",
            f"NX-OS takes {low}-{high} ms; put the session on another platform, or give the "
            "party timers NX-OS takes where it allows them",
        )


def ecmp_range(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """More ECMP paths than the platform's multipath command takes (the site's
    `underlay.ecmp`, printed in every VRF)."""
    if platform.max_paths is None or model.bgp.maximum_paths <= platform.max_paths:
        return
    yield Gap(
        ECMP_RANGE,
        f"ECMP over {model.bgp.maximum_paths} paths",
        f"its BGP multipath command takes 1-{platform.max_paths}",
        path=("sites", model.site, "underlay", "ecmp"),
    )


def srv6_locator(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """An SRv6 uSID locator where the platform, its ASIC or the format has no verified form."""
    if model.srv6 is None:
        return
    support = platform.srv6
    path = ("srv6", "sites", model.site)
    feature = f"an SRv6 uSID locator ({model.srv6.format} {model.srv6.prefix})"
    if support is None:
        yield Gap(SRV6_LOCATOR, feature, platform.srv6_missing, path)
        return
    asic = asic_of(model.hardware_model)
    if support.asics is not None and asic not in support.asics:
        yield Gap(
            SRV6_LOCATOR,
            feature,
            f"{model.hardware_model} ({asic or 'ASIC not catalogued'}) is not "
            f"{' or '.join(support.asics)}: {support.note}",
            path,
        )
    if model.srv6.format not in support.formats:
        yield Gap(
            SRV6_LOCATOR,
            feature,
            f"it takes the {', '.join(support.formats)} format only: {support.note}",
            ("srv6", "format"),
        )


def srv6_l3vpn(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """Tenant VRFs over SRv6 (BGP VPNv4/VPNv6, per-VRF SIDs) where no form is verified."""
    if model.srv6 is None or not model.srv6.vrfs:
        return
    if platform.srv6 is not None and platform.srv6.l3vpn:
        return
    detail = platform.srv6.note if platform.srv6 is not None else platform.srv6_missing
    for vrf in model.srv6.vrfs:
        yield Gap(
            SRV6_L3VPN,
            f"SRv6 L3VPN for VRF {vrf.name} (BGP VPNv4/VPNv6 with a per-VRF SRv6 SID)",
            detail,
            ("srv6", "vrfs", vrf.name, "sites"),
        )


def vrf_names(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A VRF name longer than the platform takes, or in characters it refuses."""
    pattern = platform.vrf_name_pattern
    if pattern is None:
        return
    names = {vrf.name for vrf in model.vrfs}
    names |= {vrf.name for vrf in model.evpn.vrfs} if model.evpn is not None else set()
    names |= {vrf.name for vrf in model.srv6.vrfs} if model.srv6 is not None else set()
    for name in sorted(names):
        if pattern.fullmatch(name) is None:
            yield Gap(VRF_NAME, f"VRF {name}", f"it takes {platform.vrf_name_rule}; rename the VRF")


def vlan_names(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A VLAN name (the tenant's and the network's names joined) longer than the platform's
    `name` command takes."""
    longest = platform.vlan_name_max
    if longest is None or model.evpn is None:
        return
    for vlan in model.evpn.vlans:
        if len(vlan.name) > longest:
            yield Gap(
                VLAN_NAME,
                f"VLAN {vlan.id} name {vlan.name}",
                f"{len(vlan.name)} characters, and its `name` takes at most {longest}; shorten "
                "the tenant's or the network's name",
            )


def as_path_length_form(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A long-path drop in the form the platform does not print: a route-map clause matching
    the AS-path length where the platform drops long paths in BGP (NX-OS `maxas-limit`), or
    a BGP-level drop where its templates print the route-map clause only (EDGE-013)."""
    if platform.drop_as_path_length == "bgp":
        for route_map in model.route_maps:
            for entry in route_map.entries:
                if entry.match_as_path_length_ge is not None:
                    yield Gap(
                        AS_PATH_LENGTH_FORM,
                        f"route-map {route_map.name} clause {entry.seq} matching the AS-path "
                        "length",
                        "the platform has no route-map match for the length; it drops long "
                        "paths with BGP's own limit (Bgp.drop_as_path_length)",
                    )
        return
    for drop in model.bgp.drop_as_path_length:
        yield Gap(
            AS_PATH_LENGTH_FORM,
            f"BGP's own drop of AS paths of {drop.length} ASNs in VRF {drop.vrf or 'default'}",
            "the platform drops long paths with a clause of each import route map instead",
        )


def hostname(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A device name the platform refuses as its hostname (intent names take `.`, `_` and a
    trailing `-`, which a DNS host label does not)."""
    pattern = platform.hostname_pattern
    if pattern is not None and pattern.fullmatch(model.hostname) is None:
        yield Gap(
            HOSTNAME,
            f"hostname {model.hostname}",
            f"it takes {platform.hostname_rule}; rename the device",
        )


def list_names(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A prefix list or AS-path list whose name (built from a party's, a circuit's or a VRF's
    name) is longer than the platform's list commands take."""
    longest = platform.list_name_max
    if longest is None:
        return
    named = [("prefix-list", p.name) for p in model.prefix_lists]
    named += [("AS-path list", a.name) for a in model.as_path_lists]
    for kind, name in sorted(set(named)):
        if len(name) > longest:
            yield Gap(
                LIST_NAME,
                f"{kind} {name}",
                f"{len(name)} characters, and its name takes at most {longest}; shorten the "
                "name of the party, circuit or VRF it is named after",
            )


def user_names(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A local user the OS refuses by name: one it keeps for itself, or one that does not
    start as its names must."""
    rules = platform.local_users
    if rules is None:
        return
    for user in model.management.users:
        if user.name in rules.reserved_names:
            why = "the OS keeps that name for itself"
        elif rules.first_character and user.name[0] not in rules.first_character:
            why = "a name must start with a letter or a digit"
        else:
            continue
        yield Gap(
            USER_NAME,
            f"local user {user.name}",
            f"{why}; rename the user",
            ("sites", model.site, "management", "users", user.name),
        )


def bond_number_ranges(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A host bond's number, or an MLAG bond's MLAG id (vPC number), outside the range the
    platform's command takes (the attachment's lag_base or segment_base plus its host)."""
    for lag in model.lags:
        numbers = platform.bond_numbers
        if numbers is not None and not numbers[0] <= lag.number <= numbers[1]:
            yield Gap(
                BOND_NUMBER_RANGE,
                f"host bond {lag.name}",
                f"it takes bond numbers {numbers[0]}-{numbers[1]}; lower the attachment's lag_base",
            )
        ids = platform.mlag_ids
        if lag.mode == "mlag" and ids is not None and not ids[0] <= lag.segment_id <= ids[1]:
            yield Gap(
                BOND_NUMBER_RANGE,
                f"MLAG id {lag.segment_id} of host bond {lag.name}",
                f"it takes MLAG ids {ids[0]}-{ids[1]}; lower the attachment's segment_base",
            )


def prefix_limit_range(platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """Prefix and EVPN route limits above what the platform's command takes: one gap per
    value, naming how many sessions carry it and the first."""
    limits: list[tuple[int, str, bool]] = [
        (n.max_prefix, n.description, n.kind == "border_ibgp")
        for n in model.bgp.neighbors
        if n.max_prefix is not None
    ]
    if model.evpn is not None:
        limits += [(p.max_routes, p.description, False) for p in model.evpn.peers]
    if model.mlag is not None and model.mlag.peer_link_session is not None:
        session = model.mlag.peer_link_session
        limits += [(v, session.description, False) for v in (session.max_prefix, session.max_routes)
                   if v is not None]  # fmt: skip
    over: dict[int, list[tuple[str, bool]]] = {}
    for value, description, derived in limits:
        if value > platform.max_prefix_limit:
            over.setdefault(value, []).append((description, derived))
    for value, sessions in sorted(over.items()):
        fix = (
            # build/border_pair.py: the pair's limit follows from what the other border holds
            "the border pair's session carries the other border's table, as large as the "
            "largest Internet party's max_prefix with the site's underlay.max_prefix and public "
            "prefixes added: take smaller tables from the parties, or put the borders on "
            "another platform"
            if all(derived for _, derived in sessions)
            else "lower the limit, or put what needs more on another platform"
        )
        yield Gap(
            PREFIX_LIMIT_RANGE,
            f"prefix limit {value} on {len(sessions)} session(s) (first: {sessions[0][0]})",
            f"it takes 1-{platform.max_prefix_limit}; {fix}",
        )


def vrf_sessions_behind_shared_vtep(_platform: Platform, model: DeviceModel) -> Iterator[Gap]:
    """A cloud session in a tenant VRF on an MLAG leaf whose routes leave with the shared VTEP
    and that no session of the pair in the VRF, over the peer link, shares with the peer."""
    mlag = model.mlag
    if mlag is None or mlag.anycast_vtep is None or mlag.advertise_pip:
        return
    shared = {
        (p.vrf, afi)
        for p in mlag.vrf_peerings
        for afi in ("ipv4", "ipv6")
        if afi == "ipv4" or p.ipv6 is not None
    }
    for neighbor in model.bgp.neighbors:
        if neighbor.vrf is None or not neighbor.external:
            continue
        if (neighbor.vrf, neighbor.afi) in shared:
            continue  # the VRF session over the peer link carries it to the other leaf
        who = ", ".join(p for p in (neighbor.party, neighbor.circuit) if p) or neighbor.kind
        routes = ", ".join(_accepted_prefixes(model, neighbor.route_map_in)) or "its routes"
        path = (
            ("sites", model.site, "cross_connects", neighbor.circuit, "device")
            if neighbor.circuit
            else None
        )
        yield Gap(
            SHARED_VTEP_ROUTES,
            f"the {neighbor.kind} session {neighbor.address} in VRF {neighbor.vrf} ({who}) on "
            f"one leaf of the MLAG pair with {mlag.peer}",
            f"what it learns ({routes}) this leaf alone holds, yet EVPN type-5 routes carry it "
            f"with the pair's shared VTEP {mlag.anycast_vtep} as next hop: remote VTEPs tunnel "
            f"about half of that traffic to {mlag.peer}, which drops it unless a session of "
            "its own learns the same. The pair shares such routes over a BGP session in the "
            "VRF on a VLAN of the VRF's own across the peer link, which needs the VRF's "
            f"`vlan:` and its L3VNI, and for IPv6 the peer VLAN's /127 (pools.p2p_v6): give VRF "
            f"{neighbor.vrf} what it lacks, or land the circuit on a leaf outside an MLAG pair",
            path,
        )


def _accepted_prefixes(model: DeviceModel, route_map: str) -> list[str]:
    """The prefixes the permit clauses of `route_map` match by prefix list, in order."""
    lists = {pl.name: pl for pl in model.prefix_lists}
    found: list[str] = []
    for rm in model.route_maps:
        if rm.name != route_map:
            continue
        for entry in rm.entries:
            pl = lists.get(entry.match_prefix_list or "")
            if entry.action != "permit" or pl is None:
                continue
            found += [
                e.prefix for e in pl.entries if e.action == "permit" and e.prefix not in found
            ]
    return found
