"""DCI-*: circuits between sites (intent `dci:`).

A circuit joins two sites, so these rules look at the whole intent, not at one site: each runs
once, in the context of the first site by name (the engine calls every rule once per site).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

from meetme.generators.platforms import PLATFORMS
from meetme.generators.resolve.dci import RISK_KINDS, capacity_gbps, pair_figures, pair_of, risks
from meetme.generators.resolve.srv6 import locators
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.hardware import port_problem

from meetme.core.hardware import NAMING, hardware
from meetme.intent.schema import Device
from meetme.intent.schema_dci import Dci, DciCircuit, DciEnd
from meetme.intent.types import SPEED_GBPS

# The slowest light can be in solid-core silica fibre: group index 1.46 (pure-silica-core
# fibres; standard G.652 single-mode is about 1.468, 4.9 us/km). Hollow-core fibre is faster:
# waive DCI-005 for such a route.
FIBRE_GROUP_INDEX = Fraction(146, 100)
LIGHT_KM_PER_MS = Fraction(299_792_458, 1_000_000)  # c in vacuum, km per millisecond
# A cage's top speed, from the catalogue's cage text ("QSFP-DD 400G", "QSFP100", "SFP+").
_CAGE_SPEED = re.compile(r"(\d+)G?$")
_CAGE_NAMED = {"SFP+": 10, "SFP28": 25, "QSFP+": 40}
# IOS-XR names a port by its optic's speed (FourHundredGigE: 400G).
_IOSXR_SPEED = {
    "TenGigE": 10, "TwentyFiveGigE": 25, "FortyGigE": 40, "FiftyGigE": 50,
    "HundredGigE": 100, "TwoHundredGigE": 200, "FourHundredGigE": 400,
    "EightHundredGigE": 800,
}  # fmt: skip


def _dci(ctx: SiteContext) -> Dci | None:
    """The intent's DCI, in the first site's context only: one finding per problem."""
    intent = ctx.loaded.intent
    if intent.dci is None or ctx.name != min(intent.sites):
        return None
    return intent.dci


def _circuits(ctx: SiteContext) -> list[tuple[str, DciCircuit]]:
    """The intent's circuits by name, in the first site's context only (see _dci)."""
    dci = _dci(ctx)
    return [] if dci is None else sorted(dci.circuits.items())


@rule(
    "DCI-001",
    "error",
    "Circuits declared diverse share no fibre route, ILA site, provider or conduit",
    "Circuits are declared diverse so that one event cannot take them all: a backhoe in a "
    "shared duct, a fire in a shared in-line amplifier hut, a carrier's outage. Two members "
    "of a diverse group that share any such tag fail together, and the capacity that was meant "
    "to survive (DCI-002) does not. A leased circuit's provider counts as one of its "
    "providers.",
    "docs/standards.md#dci-001",
)
def diverse_circuits_share_nothing(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    for group, members in sorted(dci.diverse_groups.items()):
        known = [m for m in dict.fromkeys(members) if m in dci.circuits]
        for first, second in combinations(known, 2):
            mine, theirs = risks(dci.circuits[first]), risks(dci.circuits[second])
            for kind in RISK_KINDS:
                shared = sorted(mine[kind] & theirs[kind])
                if shared:
                    label = kind.replace("_", " ")
                    yield Hit(
                        f"diverse group {group}: circuits {first} and {second} share "
                        f"{label} {', '.join(shared)}; one event there takes both: route one "
                        "elsewhere, or do not declare them diverse",
                        _tag_path(dci.circuits[second], kind),
                    )


def _tag_path(circuit: DciCircuit, kind: str) -> Path_:
    """Where a circuit writes its tags of a kind: under diversity:, else (providers) its
    leased provider, else the circuit."""
    if kind in circuit.diversity.model_fields_set:
        return (*circuit.path, "diversity", kind)
    if kind == "providers" and circuit.leased is not None:
        return (*circuit.leased.path, "provider")
    return circuit.path


@rule(
    "DCI-002",
    "error",
    "The capacity between two sites after any one circuit fails meets the declared need",
    "A site pair's need is what the tenants and replication between the sites must still get "
    "when a circuit is cut or a carrier has an outage. Capacity that meets it only while every "
    "circuit is up is not redundancy. A leased circuit counts its leased capacity, a built "
    "one its port speed.",
    "docs/standards.md#dci-002",
)
def capacity_survives_a_failure(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    # a capacity DCI-006 refuses (0 or less) makes no figure worth a second finding
    refused = {n for n, c in dci.circuits.items() if c.leased and c.leased.capacity_gbps <= 0}
    for pair in pair_figures(ctx.loaded.intent):
        if pair.need_gbps is None or pair.need_path is None:
            continue
        if pair.need_gbps <= 0 or refused & set(pair.circuits):
            continue
        between = f"{pair.sites[0]}-{pair.sites[1]}"
        where = (*pair.need_path, "capacity_gbps")
        if not pair.circuits:
            yield Hit(
                f"{between} needs {pair.need_gbps} Gbps and no DCI circuit joins the two sites",
                where,
            )
        elif pair.after_failure_gbps < pair.need_gbps:
            yield Hit(
                f"{between} needs {pair.need_gbps} Gbps; its circuits carry "
                f"{pair.capacity_gbps} Gbps, {pair.after_failure_gbps} Gbps after "
                f"{pair.worst_failure} fails: add {pair.need_gbps - pair.after_failure_gbps} "
                "Gbps on another circuit",
                where,
            )


def _entrances(ctx: SiteContext, site_name: str) -> set[str]:
    """Every building entrance the site is known to have: its cross-connects', its rooms'
    building_entrance tags, and the DCI ends landing there."""
    site = ctx.loaded.intent.sites[site_name]
    found = {xc.entrance for xc in site.cross_connects.values()}
    found |= {
        room.failure_domains["building_entrance"]
        for room in site.rooms.values()
        if "building_entrance" in room.failure_domains
    }
    dci = ctx.loaded.intent.dci
    for circuit in dci.circuits.values() if dci else ():
        found |= {end.entrance for end in (circuit.a, circuit.b) if end.site == site_name}
    return found


@rule(
    "DCI-003",
    "error",
    "Redundant circuits between two sites use distinct MMRs, entrances and borders at each end",
    "PHY-005 for the DCI: where a site has two meet-me rooms, two building entrances or two "
    "border routers, the circuits to the other site must not all land in one of them; a "
    "cross-connect panel, a riser or duct cut, or one border failure would otherwise cut the "
    "sites apart however diverse the routes between them are.",
    "docs/standards.md#dci-003",
)
def dci_ends_diverse(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    by_pair: dict[tuple[str, str], list[str]] = {}
    for name, circuit in sorted(dci.circuits.items()):
        by_pair.setdefault(pair_of(circuit), []).append(name)
    intent = ctx.loaded.intent
    for pair, names in sorted(by_pair.items()):
        if len(names) < 2:
            continue
        for site_name in pair:
            site = intent.sites[site_name]
            ends = [
                (name, side, end)
                for name in names
                for side, end in (("a", dci.circuits[name].a), ("b", dci.circuits[name].b))
                if end.site == site_name
            ]
            has = {
                "room": sum(r.kind == "mmr" for r in site.rooms.values()),
                "entrance": len(_entrances(ctx, site_name)),
                "device": sum(d.role == "border" for d in site.devices.values()),
            }
            for field, label, advice in (
                ("room", "MMR", "land one in another MMR"),
                ("entrance", "building entrance", "bring one in by another entrance"),
                ("device", "border", "land one on another border"),
            ):
                used = {getattr(end, field) for _, _, end in ends}
                if len(used) == 1 and has[field] >= 2:
                    last_name, side, _ = ends[-1]
                    yield Hit(
                        f"all {len(names)} circuits {pair[0]}-{pair[1]} ({', '.join(names)}) "
                        f"use {label} {used.pop()} at {site_name}, which has {has[field]}: "
                        f"{advice}",
                        (*dci.circuits[last_name].path, side, field),
                    )


def _cage_speed(cage: str) -> int | None:
    if cage in _CAGE_NAMED:
        return _CAGE_NAMED[cage]
    found = _CAGE_SPEED.search(cage)
    return int(found.group(1)) if found else None


def _port_misfit(ctx: SiteContext, circuit: DciCircuit, side: str) -> str | None:
    end = circuit.a if side == "a" else circuit.b
    site = ctx.loaded.intent.sites.get(end.site)
    device = site.devices.get(end.device) if site else None
    if device is None:
        return None
    speed = SPEED_GBPS[circuit.speed]
    if device.platform == "cisco_iosxr":
        word = end.interface.rstrip("0123456789/.")
        named = _IOSXR_SPEED.get(word)
        if named is not None and named != speed:
            return f"{end.interface} names a {named}G optic (IOS-XR names a port by its optic)"
    spec = hardware()["models"].get(device.model)
    if spec is None or spec["platform"] != device.platform:
        return None  # HW-002 / HW-003 report the model
    problem = port_problem(device, end.interface)
    if problem is not None:
        return problem
    found = NAMING[device.platform].pattern.fullmatch(end.interface.split(".", 1)[0])
    port = int(found["port"]) if found else -1
    group = next((g for g in spec["groups"] if g["first"] <= port <= g["last"]), None)
    top = None if group is None else _cage_speed(group["cage"])
    if group is not None and top is not None and speed > top:
        return f"port {port} of a {device.model} is a {group['cage']} cage"
    return None


@rule(
    "DCI-004",
    "error",
    "A DCI circuit's speed fits the port at each end",
    "A DCI port is a front-panel port of the border's hardware whose cage takes the circuit's "
    "speed (validators/data/hardware.yaml), and on IOS-XR the interface name says the optic's "
    "speed, which must be the circuit's; a leased service carries no more than the port. "
    "Otherwise the optic ordered for the circuit does not fit, or the capacity counted by "
    "DCI-002 is not there.",
    "docs/standards.md#dci-004",
)
def dci_speed_fits_ports(ctx: SiteContext) -> Iterator[Hit]:
    for name, circuit in _circuits(ctx):
        for side in ("a", "b"):
            misfit = _port_misfit(ctx, circuit, side)
            if misfit is not None:
                end = circuit.a if side == "a" else circuit.b
                yield Hit(
                    f"circuit {name} runs at {circuit.speed} on {end.device} {end.interface}, "
                    f"but {misfit}",
                    (*circuit.path, side, "interface"),
                )
        leased = circuit.leased
        if leased is not None and leased.capacity_gbps > SPEED_GBPS[circuit.speed]:
            yield Hit(
                f"circuit {name} leases {leased.capacity_gbps} Gbps over {circuit.speed} ports; "
                f"it carries at most {capacity_gbps(circuit)} Gbps: lease what the ports carry "
                "or use faster ports",
                (*leased.path, "capacity_gbps"),
            )


def _light_floor_ms(route_km: float) -> Fraction:
    return Fraction(route_km) * FIBRE_GROUP_INDEX / LIGHT_KM_PER_MS


@rule(
    "DCI-005",
    "error",
    "A DCI circuit's one-way latency is positive and no faster than light in fibre",
    "Latency decides which workloads may span the sites (synchronous replication, a stretched "
    "training job) and picks the preferred path; zero or a negative number is a typo, and a "
    "built route's latency below what light needs over its route length (about 4.9 us per km "
    "in silica fibre) is a route length or a latency that is wrong.",
    "docs/standards.md#dci-005",
)
def dci_latency_sane(ctx: SiteContext) -> Iterator[Hit]:
    for name, circuit in _circuits(ctx):
        where = (*circuit.path, "latency_ms")
        if circuit.latency_ms <= 0:
            yield Hit(
                f"circuit {name} has latency {circuit.latency_ms} ms: give the measured or "
                "quoted one-way latency, above 0",
                where,
            )
        elif circuit.built is not None and circuit.built.route_km > 0:
            floor = _light_floor_ms(circuit.built.route_km)
            if Fraction(circuit.latency_ms) < floor:
                yield Hit(
                    f"circuit {name} claims {circuit.latency_ms} ms one way over "
                    f"{circuit.built.route_km:g} km of fibre, but light needs at least "
                    f"{float(floor):.3f} ms over that route: check latency_ms and route_km",
                    where,
                )


@rule(
    "DCI-006",
    "error",
    "DCI economics are sane: lengths, capacities, charges and terms positive, costs not "
    "negative, none past what a circuit can be",
    "`meetme report dci` compares building with leasing from these numbers; a zero term or "
    "capacity divides by nothing, and a negative cost makes the cheaper option look dearer. "
    "Capex and opex may be 0 (fibre already owned), a lease's monthly charge may not. Each "
    "also has a ceiling no real circuit reaches (a fibre route of 20,000 km, ten years' lead "
    "time, a 50-year term, 1 Pb/s, a charge of a trillion): past it the value is a typo, and "
    "the report's totals would be too large to print exactly.",
    "docs/standards.md#dci-006",
)
def dci_economics_sane(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    for name, circuit in sorted(dci.circuits.items()):
        checks: list[tuple[str, float]] = []
        block = circuit.built or circuit.leased
        if circuit.built is not None:
            built = circuit.built
            checks += [
                ("route_km", built.route_km),
                ("lead_time_weeks", built.lead_time_weeks),
                ("capex", built.capex),
                ("opex_monthly", built.opex_monthly),
            ]
        if circuit.leased is not None:
            leased = circuit.leased
            checks += [
                ("capacity_gbps", leased.capacity_gbps),
                ("monthly", leased.monthly),
                ("term_months", leased.term_months),
            ]
        for key, value in checks:
            problem = _insane(key, value)
            if problem is not None:
                assert block is not None
                yield Hit(
                    f"circuit {name}: {key} is {_shown(value)}; {problem}", (*block.path, key)
                )
    for index, need in enumerate(dci.needs):
        numbers: tuple[tuple[str, int | None], ...] = (
            ("capacity_gbps", need.capacity_gbps),
            ("term_months", need.term_months),
        )
        for key, number in numbers:
            if number is None:
                continue
            problem = _insane(key, number)
            if problem is not None:
                yield Hit(
                    f"the need {need.sites[0]}-{need.sites[1]}: {key} is {_shown(number)}; "
                    f"{problem}",
                    ("dci", "needs", index, key),
                )


# key -> (0 allowed, the ceiling): DCI-006
ECONOMICS: dict[str, tuple[bool, float]] = {
    "route_km": (False, 20_000),
    "lead_time_weeks": (True, 520),
    "capex": (True, 1e12),
    "opex_monthly": (True, 1e12),
    "capacity_gbps": (False, 1_000_000),
    "monthly": (False, 1e12),
    "term_months": (False, 600),
}


def _shown(value: float) -> str:
    """A DCI number as written: a whole one in full (1,000,001, never 1e+06)."""
    whole = isinstance(value, int) or value.is_integer()
    return f"{int(value):,}" if whole else f"{value:,.15g}"


def _insane(key: str, value: float) -> str | None:
    """Why a DCI number is no circuit's (DCI-006), or None."""
    zero, ceiling = ECONOMICS[key]
    if value <= 0 if not zero else value < 0:
        return "it must be " + ("0 or more" if zero else "above 0")
    if value > ceiling:
        return f"it must be at most {ceiling:,.0f}; a real circuit stays far below that"
    return None


@rule(
    "DCI-007",
    "warning",
    "Circuits declared diverse record every kind of shared-risk tag",
    "DCI-001 can only compare the tags that are written: a member of a diverse group with no "
    "conduits recorded may share a duct with the other member, and nothing would say so. "
    "Diversity that cannot be shown is unproven (the standard's 'diversity unproven' warning "
    "of PHY-004); recording the tags is cheap, a shared duct found in an outage is not. A "
    "leased circuit's provider counts as a recorded provider.",
    "docs/standards.md#dci-007",
)
def diverse_circuits_tagged(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    for group, members in sorted(dci.diverse_groups.items()):
        for name in dict.fromkeys(members):
            circuit = dci.circuits.get(name)
            if circuit is None:
                continue
            tags = risks(circuit)
            missing = [kind.replace("_", " ") for kind in RISK_KINDS if not tags[kind]]
            if missing:
                yield Hit(
                    f"diverse group {group}: circuit {name} records no {', no '.join(missing)}, "
                    "so DCI-001 cannot show it shares none with the others: record them under "
                    "its diversity:",
                    (*circuit.path, "diversity")
                    if "diversity" in circuit.model_fields_set
                    else circuit.path,
                )


@rule(
    "DCI-008",
    "error",
    "A DCI circuit lands on a border router",
    "The DCI joins the sites at their borders, which hold the inter-site routing and its "
    "policy; a circuit on a spine or leaf would carry the other site's routes into the fabric "
    "underlay with no edge policy on the way.",
    "docs/standards.md#dci-008",
)
def dci_lands_on_borders(ctx: SiteContext) -> Iterator[Hit]:
    for _, circuit in _circuits(ctx):
        for side, end in (("a", circuit.a), ("b", circuit.b)):
            devices = ctx.loaded.intent.sites[end.site].devices
            role = devices[end.device].role
            if role != "border":
                borders = sorted(n for n, d in devices.items() if d.role == "border")
                yield Hit(
                    f"a DCI circuit lands on a border router, and {end.device} is a {role}; "
                    f"write one of the borders: {', '.join(borders) or 'none defined'}",
                    (*circuit.path, side, "device"),
                )


@rule(
    "DCI-010",
    "error",
    "Each DCI circuit has an index of its own inside the DCI pools",
    "A circuit's /31 and /127 are the index-th of dci.p2p_v4 and dci.p2p_v6. Two circuits with "
    "one index give two borders one address on their DCI ports, and one border the far end's "
    "IS-IS neighbour twice; an index past the end of a pool has no subnet in it.",
    "docs/standards.md#dci-010",
)
def dci_indexes_unique(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    pools = [(key, ipaddress.ip_network(value)) for key, value in _dci_pools(dci)]
    for key, pool in pools:
        if pool.num_addresses < 2:  # once, at the pool: no index fits it
            length = "/31" if pool.version == 4 else "/127"
            yield Hit(
                f"dci.{key} {pool} holds no point-to-point subnet ({length}): a DCI pool needs "
                "one for every circuit's index; widen the pool",
                ("dci", key),
            )
    pools = [(key, pool) for key, pool in pools if pool.num_addresses >= 2]
    seen: dict[int, str] = {}
    for name, circuit in dci.circuits.items():  # as written: the later one is renumbered
        if circuit.index is None:
            continue
        where = (*circuit.path, "index")
        first = seen.setdefault(circuit.index, name)
        if first != name:
            yield Hit(
                f"circuits {first} and {name} share index {circuit.index}: both would take the "
                "same /31 and /127 from the DCI pools; give the circuit an index of its own",
                where,
            )
        for key, pool in pools:
            if 2 * circuit.index + 1 >= pool.num_addresses:
                yield Hit(
                    f"circuit {name}'s index {circuit.index} is past the end of dci.{key} "
                    f"{pool} ({_subnets(pool.num_addresses // 2)}); lower the index or widen "
                    "the pool",
                    where,
                )


def _subnets(count: int) -> str:
    if count == 1:
        return "1 point-to-point subnet, index 0"
    return f"{count} point-to-point subnets, indexes 0-{count - 1}"


@rule(
    "DCI-011",
    "error",
    "The DCI pools overlap no site's pools",
    "The DCI's /31s and /127s join borders of different sites, and each site's IGP and BGP "
    "carry that site's loopbacks and links. A DCI pool that overlaps a site's pool can give a "
    "DCI port a site's loopback or link address, the address a VPN session is aimed at.",
    "docs/standards.md#dci-011",
)
def dci_pools_apart(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    for key, value in _dci_pools(dci):
        pool = ipaddress.ip_network(value)
        for site_name, site in sorted(ctx.loaded.intent.sites.items()):
            for field, other in sorted(site.pools.model_dump().items()):
                if not isinstance(other, str):
                    continue
                theirs = ipaddress.ip_network(other)
                if theirs.version == pool.version and theirs.overlaps(pool):
                    yield Hit(
                        f"dci.{key} {pool} overlaps site {site_name}'s pool {field} {theirs}; "
                        "give the DCI a range of its own",
                        ("dci", key),
                    )


@rule(
    "DCI-012",
    "error",
    "A DCI circuit inside the SRv6 domain has IPv6 addresses",
    "SRv6 packets are IPv6, and the IS-IS that carries the locators and the VPN sessions "
    "between sites runs its IPv6 topology over the DCI ports. A port with no IPv6 address "
    "neither forwards them nor forms that adjacency, so a circuit whose two ends hold locators "
    "(DCI-009) needs an `index` and the DCI's p2p_v6 pool to take its /127 from.",
    "docs/standards.md#dci-012",
)
def dci_in_domain_has_ipv6(ctx: SiteContext) -> Iterator[Hit]:
    dci = _dci(ctx)
    if dci is None:
        return
    inside = locators(ctx.loaded.intent)
    for name, circuit in _circuits(ctx):
        if circuit.a.device not in inside or circuit.b.device not in inside:
            continue  # carries no routing: DCI-009
        if circuit.index is None:
            why, fix = "it has no index", "give it an index"
        elif dci.p2p_v6 is None:
            why, fix = "the DCI has no p2p_v6 pool", "set dci.p2p_v6"
        else:
            continue
        yield Hit(
            f"circuit {name} joins {circuit.a.device} and {circuit.b.device}, both in the SRv6 "
            f"domain, but its ports get no IPv6 address ({why}): SRv6 and the IS-IS between "
            f"the sites run over IPv6; {fix}",
            circuit.path,
        )


def _dci_pools(dci: Dci) -> list[tuple[str, str]]:
    return [(key, value) for key in ("p2p_v4", "p2p_v6") if (value := getattr(dci, key))]


@rule(
    "DCI-009",
    "warning",
    "A DCI circuit carries inter-site routing: the border at each end is in the SRv6 domain",
    "meetme routes between sites over SRv6 only: IS-IS runs on a DCI port, and the VPN "
    "sessions that carry the tenant VRFs reach the far site, only where the border at each end "
    "holds a locator (docs/srv6.md). A circuit with an end outside the domain is lit and "
    "addressed but carries no route: no tenant reaches the other site over it, and the "
    "capacity DCI-002 counts towards a need is there on paper only.",
    "docs/standards.md#dci-009",
)
def dci_carries_routing(ctx: SiteContext) -> Iterator[Hit]:
    intent = ctx.loaded.intent
    inside = locators(intent)
    for name, circuit in _circuits(ctx):
        ends = (circuit.a, circuit.b)
        if any(intent.sites[e.site].devices[e.device].role != "border" for e in ends):
            continue  # DCI-008: the circuit lands on the wrong device; that is the fix
        outside = [end for end in ends if end.device not in inside]
        if not outside:
            continue
        named = " and ".join(end.device for end in outside)
        if intent.srv6 is None:
            why, fixes = "the intent declares no SRv6 domain (srv6:)", ["declare one"]
        else:
            why = f"{named} {'is' if len(outside) == 1 else 'are'} outside the SRv6 domain"
            joined = set(intent.srv6.sites)
            fixes = [
                _to_join(intent.sites[end.site].devices[end.device], end, end.site in joined)
                for end in outside
            ]
        yield Hit(
            f"circuit {name} carries no routing: {why}, the only routing meetme runs between "
            f"sites; {'; '.join(fixes)}; until then the circuit stays dark",
            circuit.path,
        )


def _to_join(device: Device, end: DciEnd, site_joined: bool) -> str:
    """What takes one border into the SRv6 domain: listing it (its site first, where the
    domain has no entry for it), where its platform can run SRv6 L3VPN at all; else a
    platform that can (PLAT-018 refuses the others)."""
    platform = PLATFORMS[device.platform]
    if platform.srv6 is None or not platform.srv6.l3vpn:
        return (
            f"{end.device} runs {platform.title}, which has no SRv6 L3VPN (PLAT-018): that end "
            "needs a platform with one"
        )
    if not site_joined:
        return (
            f"add site {end.site} to srv6.sites with an id of its own ({end.site}: {{id: N}}; "
            f"every border of it joins, or name them in devices:)"
        )
    return f"list {end.device} in srv6.sites.{end.site}.devices"
