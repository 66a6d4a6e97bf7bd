"""PHY-*: physical layout and failure domains (docs/standards.md#phy)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING

from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.ports import port_id

from meetme.core.problems import Location, closest, listed
from meetme.intent.schema import Device, Site

if TYPE_CHECKING:
    from meetme.generators.resolve.fabric import FabricLink, LinkEndFacts, SiteFabric

DUAL_FED_ROLES = ("border", "spine")
FEEDS = ("A", "B")


@rule(
    "PHY-001",
    "error",
    "Border group members live in different MDFs",
    "One room event (fire suppression, water, room power or cooling loss, wrong-room "
    "maintenance) must not take out all Internet and cloud egress. meetme's standard puts "
    "the border routers in MDFs (TIA-942 main distribution areas), one per border, and "
    "leaves the meet-me rooms (TIA-942 entrance rooms) to the carriers' demarcation and "
    "cross-connects: an MMR is shared with the carriers and their work, and the cross-connect "
    "diversity rules (PHY-005) count MMRs apart from the rooms the borders stand in.",
    "TIA-942 entrance room / MDA separation; "
    "https://docs.aws.amazon.com/directconnect/latest/UserGuide/maximum_resiliency.html",
)
def border_members_in_distinct_mdfs(ctx: SiteContext) -> Iterator[Hit]:
    seen: dict[str, str] = {}
    for name, device in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        if device.role != "border":
            continue
        room = ctx.site.rooms[device.room]
        if room.kind != "mdf":
            yield Hit(
                f"border {name} is in {device.room}, a {room.kind}, not an MDF: meetme's "
                "standard stands each border in an MDF of its own and leaves the MMRs to the "
                "carriers' cross-connects; move it to an MDF (a room of `kind: mdf`)",
                (*device.path, "room"),
            )
        elif device.room in seen:
            yield Hit(
                f"border {name} shares MDF {device.room} with {seen[device.room]}",
                (*device.path, "room"),
            )
        else:
            seen[device.room] = name


@rule(
    "LOC-001",
    "error",
    "A device stands in the room of its rack",
    "Failure-domain rules read the device's room; a room that contradicts the rack means one "
    "of them is wrong, and the diversity the rules prove may not exist on the floor.",
    "meetme intent consistency (docs/standards.md#phy-004 failure-domain tags)",
)
def device_room_matches_rack(ctx: SiteContext) -> Iterator[Hit]:
    for name, device in sorted(ctx.site.devices.items()):
        rack_room = ctx.site.racks[device.rack].room
        if rack_room != device.room:
            yield Hit(
                f"{name} is placed in {device.room}, but its rack {device.rack} stands "
                f"in {rack_room}",
                (*device.path, "room"),
            )


def _fabric(ctx: SiteContext) -> SiteFabric:
    return ctx.fabric


def _by_id(ctx: SiteContext) -> list[tuple[str, Device]]:
    return sorted(ctx.site.devices.items(), key=lambda item: item[1].id)


def _borders(ctx: SiteContext) -> list[str]:
    return [name for name, device in _by_id(ctx) if device.role == "border"]


def _redundancy_groups(ctx: SiteContext) -> list[tuple[str, list[str]]]:
    """(label, members): the site's borders, the handoff's border leaves, then every declared
    redundancy group that wants each member apart; an N+k group (max_per_domain) is
    TOPO-005's."""
    groups = []
    borders = _borders(ctx)
    if len(borders) >= 2:
        groups.append(("the border group", borders))
    handoff = ctx.site.handoff
    leaves = [  # a name that is no border leaf is EVPN-013's or the reference check's
        name
        for name in dict.fromkeys(handoff.border_leaves if handoff is not None else [])
        if name in ctx.site.devices and ctx.site.devices[name].role == "border_leaf"
    ]
    if len(leaves) >= 2:
        # the tenants' only way north: one room's loss must not take both (HANDOFF-016: two)
        groups.append(("the handoff's border leaves", leaves))
    for name, group in sorted(ctx.site.redundancy_groups.items()):
        if group.max_per_domain is not None:
            continue
        groups.append((f"redundancy group {name}", list(dict.fromkeys(group.members))))
    return groups


@rule(
    "PHY-002",
    "error",
    "Borders and spines are fed from A and B; border rooms share no UPS",
    "A single PDU or UPS fault or maintenance must not drop a border or spine, nor both "
    "borders at once.",
    "Uptime Institute / TIA-942 concurrent maintainability, dual power paths (clause UNVERIFIED)",
)
def distinct_power_feeds(ctx: SiteContext) -> Iterator[Hit]:
    yield from _device_feeds(ctx)
    yield from _rooms_with_one_ups(ctx)
    yield from _border_rooms_sharing_ups(ctx)


def _device_feeds(ctx: SiteContext) -> Iterator[Hit]:
    for name, device in _by_id(ctx):
        if device.role not in DUAL_FED_ROLES:
            continue
        where = (*device.path, "power_feeds")
        feeds = set(device.power_feeds or ())
        missing = [feed for feed in FEEDS if feed not in feeds]
        if not device.power_feeds:  # not written, or an empty list
            yield Hit(
                f"{device.role} {name} has no power_feeds recorded; cable its PSUs to "
                "feeds A and B and record power_feeds: [A, B]",
                where,
            )
        elif missing:
            yield Hit(
                f"{device.role} {name} is fed from {listed(sorted(feeds))} only; cable a "
                f"PSU to feed {listed(missing)} and record it in power_feeds",
                where,
            )
        room = ctx.site.rooms[device.room]
        for feed in sorted(feeds - set(room.power)):
            yield Hit(
                f"{name} takes power feed {feed}, but its room {device.room} records no "
                f"UPS for feed {feed}; add it to the room's power",
                where,
            )


def _rooms_with_one_ups(ctx: SiteContext) -> Iterator[Hit]:
    hosted: dict[str, list[str]] = defaultdict(list)
    for name, device in _by_id(ctx):
        if device.role in DUAL_FED_ROLES:
            hosted[device.room].append(name)
    for room_name, names in sorted(hosted.items()):
        room = ctx.site.rooms[room_name]
        ups = Counter(room.power.values())
        for shared, count in sorted(ups.items()):
            if count > 1:
                yield Hit(
                    f"room {room_name} takes feeds A and B from the same UPS {shared}, so "
                    f"one UPS fault drops {listed(names)}; give each feed its own UPS",
                    (*room.path, "power"),
                )


def _border_rooms_sharing_ups(ctx: SiteContext) -> Iterator[Hit]:
    earlier: list[tuple[str, str]] = []  # (room, border) of borders already compared
    for name in _borders(ctx):
        room_name = ctx.site.devices[name].room
        if any(room_name == seen for seen, _ in earlier):
            continue  # same room: PHY-001's finding
        room = ctx.site.rooms[room_name]
        for other_room, other in earlier:
            shared = set(room.power.values()) & set(ctx.site.rooms[other_room].power.values())
            if shared:
                yield Hit(
                    f"border rooms {other_room} ({other}) and {room_name} ({name}) share "
                    f"UPS {listed(sorted(shared))}, so one UPS fault hits both borders; "
                    f"feed {room_name} from other UPSes",
                    (*room.path, "power"),
                )
        earlier.append((room_name, name))


@rule(
    "PHY-003",
    "error",
    "Members of a redundancy group are in distinct cooling zones",
    "A chiller, CRAH or CDU loop failure overheats one zone; both borders (or both handoff "
    "border leaves, or both members of any redundancy group) must not throttle or shut down "
    "together. A room has one cooling "
    "zone, so this also keeps members out of a shared room (two borders in one MDF are "
    "PHY-001's, at the same line).",
    "Uptime Institute / TIA-942 concurrent maintainability (clause UNVERIFIED)",
)
def distinct_cooling_zones(ctx: SiteContext) -> Iterator[Hit]:
    for label, members in _redundancy_groups(ctx):
        for index, name in enumerate(members):
            device = ctx.site.devices[name]
            zone = ctx.site.rooms[device.room].cooling_zone
            for other in members[:index]:
                other_room = ctx.site.devices[other].room
                if ctx.site.rooms[other_room].cooling_zone != zone:
                    continue
                if other_room == device.room and _borders_in_one_mdf(ctx, name, other):
                    break  # PHY-001 says the borders share an MDF, at the same line
                if other_room == device.room:
                    yield Hit(
                        f"{label}: {name} shares room {device.room} and so cooling zone "
                        f"{zone} with {other}; move {name} to a room on another cooling "
                        "loop",
                        (*device.path, "room"),
                    )
                else:
                    yield Hit(
                        f"{label}: rooms {other_room} ({other}) and {device.room} "
                        f"({name}) are both cooled by {zone}; move {name} or cool "
                        f"{device.room} from another loop",
                        (*ctx.site.rooms[device.room].path, "cooling_zone"),
                    )
                break


def _failure_tags(ctx: SiteContext, device: Device) -> dict[str, tuple[str, Path_]]:
    """Tag -> (value, where it is written): rack, floor, the room's and the device's tags."""
    room = ctx.site.rooms[device.room]
    tags: dict[str, tuple[str, Path_]] = {
        "rack": (device.rack, (*device.path, "rack")),
        "floor": (str(room.floor), (*room.path, "floor")),
    }
    for tag, value in room.failure_domains.items():
        tags[tag] = (value, (*room.path, "failure_domains", tag))
    for tag, value in device.failure_domains.items():  # the device's own tag wins
        tags[tag] = (value, (*device.path, "failure_domains", tag))
    return tags


def _borders_in_one_mdf(ctx: SiteContext, name: str, other: str) -> bool:
    """Both borders, in one MDF: PHY-001's finding."""
    devices = ctx.site.devices
    return (
        devices[name].role == devices[other].role == "border"
        and devices[name].room == devices[other].room
        and ctx.site.rooms[devices[name].room].kind == "mdf"
    )


def _by_the_room(ctx: SiteContext, name: str, other: str, where: Path_) -> bool:
    """A tag two members share because they share a room: its floor, its tags, a rack in it.
    Sharing the room is the one problem (PHY-001, PHY-003 say so); moving one fixes these."""
    device = ctx.site.devices[name]
    if device.room != ctx.site.devices[other].room:
        return False
    room = ctx.site.rooms[device.room].path
    return where[: len(room)] == room or where == (*device.path, "rack")


@rule(
    "PHY-004",
    "error",
    "No shared failure domain in any redundancy group",
    "Redundancy that shares a rack, floor, conduit, riser, carrier or building entrance is not "
    "redundancy. A tag recorded on one member but not another is reported too, as an error: "
    "the standard's 'diversity unproven' is a warning, but a rule has one severity, and the fix "
    "(record the tag on every member or its room) is cheap while a shared conduit found in an "
    "outage is not. Room, power and cooling are PHY-001..003's, and so are the rack, floor "
    "and room tags two members share by standing in one room: the room is the one problem, "
    "and moving a member out of it moves the rest.",
    "docs/standards.md#phy-004 (design principle; AWS/GCP/Azure redundancy models)",
)
def no_shared_failure_domain(ctx: SiteContext) -> Iterator[Hit]:
    for label, members in _redundancy_groups(ctx):
        tags = {name: _failure_tags(ctx, ctx.site.devices[name]) for name in members}
        for tag in sorted({tag for found in tags.values() for tag in found}):
            recorded = [name for name in members if tag in tags[name]]
            for name in members:
                if tag not in tags[name]:
                    yield Hit(
                        f"{label}: diversity unproven: {tag} is recorded for "
                        f"{listed(recorded)} but not for {name}; record {tag} on {name} or "
                        f"its room {ctx.site.devices[name].room}",
                        (*ctx.site.devices[name].path, "failure_domains"),
                    )
            for index, name in enumerate(recorded):
                value, where = tags[name][tag]
                same = [
                    other
                    for other in recorded[:index]
                    if tags[other][tag][0] == value
                    and not _by_the_room(ctx, name, other, tags[name][tag][1])
                ]
                if same:
                    yield Hit(
                        f"{label}: {name} shares {tag} {value} with {same[0]}; "
                        f"members must not share a {tag}",
                        where,
                    )


@rule(
    "PHY-005",
    "error",
    "Redundant circuits to one party use distinct MMRs, entrances, devices",
    "A single cross-connect panel, riser or entrance duct cut, or one border failure, would "
    "otherwise isolate the site from that party. A party with a single circuit has no "
    "redundancy to check; the standard's warning for it needs a warning-severity rule and is "
    "not reported here.",
    "https://docs.aws.amazon.com/directconnect/latest/UserGuide/maximum_resiliency.html",
)
def cross_connect_diversity(ctx: SiteContext) -> Iterator[Hit]:
    by_party: dict[str, list[str]] = defaultdict(list)
    for name, xc in sorted(ctx.site.cross_connects.items()):
        by_party[xc.party].append(name)
    for party, names in sorted(by_party.items()):
        if len(names) < 2:
            continue
        last = ctx.site.cross_connects[names[-1]]
        for field, label, advice in (
            ("room", "MMR", "terminate one in another MMR, ideally on another floor"),
            ("entrance", "building entrance", "route one through another entrance"),
            ("device", "device", "land one on another border device"),
        ):
            values = {getattr(ctx.site.cross_connects[n], field) for n in names}
            if len(values) == 1:
                yield Hit(
                    f"all {len(names)} circuits to {party} ({listed(names)}) use "
                    f"{label} {values.pop()}; {advice}",
                    (*last.path, field),
                )


# what each kind of party under `peering` is called and where it names its circuits
_PARTY_CIRCUITS = {
    "ixes": ("IX", "the ports"),
    "transits": ("transit", "the circuits"),
    "pnis": ("PNI", "the circuits"),
    "aws": ("AWS Direct Connect", "a VIF"),
    "azure": ("Azure ExpressRoute", "a peering's primary or secondary"),
    "gcp": ("Google Cloud Interconnect", "an attachment"),
}


def _circuits_in_use(site: Site) -> set[str]:
    """The cross-connects the site's parties name: IX ports, transit and PNI circuits, AWS
    VIFs, ExpressRoute links, Google attachments (references.py's _CIRCUIT_FIELDS)."""
    peering = site.peering
    used = {port.circuit for ix in peering.ixes.values() for port in ix.ports}
    for direct in (*peering.transits.values(), *peering.pnis.values()):
        used.update(circuit.circuit for circuit in direct.circuits)
    for aws in peering.aws.values():
        used.update(vif.circuit for vif in aws.vifs.values())
    for azure in peering.azure.values():
        for er_peering in azure.peerings.values():
            used.update(
                link.circuit
                for link in (er_peering.primary, er_peering.secondary)
                if link is not None
            )
    for gcp in peering.gcp.values():
        used.update(attachment.circuit for attachment in gcp.attachments.values())
    return used


def _dci_ports(ctx: SiteContext) -> set[tuple[str, object]]:
    """The ports of this site's DCI circuit ends, by physical port where meetme reads it."""
    dci = ctx.loaded.intent.dci
    ports: set[tuple[str, object]] = set()
    for circuit in dci.circuits.values() if dci else ():
        for end in (circuit.a, circuit.b):
            if end.site == ctx.name:
                ports.add(_port_key(ctx, end.device, end.interface))
    return ports


def _port_key(ctx: SiteContext, device: str, interface: str) -> tuple[str, object]:
    known = ctx.site.devices.get(device)
    port = port_id(known.platform, interface) if known is not None else None
    return device, (port.cage if port is not None else interface)


@rule(
    "PHY-019",
    "warning",
    "Every cross-connect is used by a party's port, circuit or attachment",
    "meetme configures a cross-connect's port for the IX ports, transit and PNI circuits and "
    "cloud attachments (AWS VIFs, ExpressRoute links, Google attachments) that name it; a "
    "cross-connect nothing names renders nothing: the circuit, paid for every month from its "
    "order on, stays dark and unmonitored, and no other rule sees it. Either the party's list "
    "lacks it (a redundant circuit that carries no traffic) or the circuit was cancelled and "
    "its entry left behind. A cross-connect on the port of a DCI circuit's end is left to "
    "PHY-013.",
    "docs/standards.md#phy-019",
)
def cross_connect_in_use(ctx: SiteContext) -> Iterator[Hit]:
    used = _circuits_in_use(ctx.site)
    dci = _dci_ports(ctx)
    peering = ctx.site.peering
    kinds = {party: kind for kind in _PARTY_CIRCUITS for party in getattr(peering, kind)}
    for name, xc in sorted(ctx.site.cross_connects.items()):
        if name in used or _port_key(ctx, xc.device, xc.interface) in dci:
            continue
        if xc.party in kinds:
            label, where = _PARTY_CIRCUITS[kinds[xc.party]]
            advice = (
                f"add circuit: {name} to {where} of {label} {xc.party} under peering, or "
                "remove the cross-connect"
            )
        else:
            close = closest(xc.party, sorted(kinds))
            hint = f" (did you mean '{close}'?)" if close else ""
            advice = (
                f"its party {xc.party} is no IX, transit, PNI or cloud under peering{hint}: "
                f"correct the party or add it under peering with circuit: {name}, or remove "
                "the cross-connect"
            )
        yield Hit(
            f"cross-connect {name} of site {ctx.name} ({xc.party}, {xc.device} "
            f"{xc.interface}) is used by nothing: no IX port, transit or PNI circuit or cloud "
            "attachment names it, so its port is left unconfigured and a paid circuit stays "
            f"dark; {advice}",
            xc.path,
        )


@rule(
    "PHY-020",
    "warning",
    "A cross-connect's circuit id is declared in one site only",
    "A cross-connect's key is the carrier's circuit id, which names one circuit: the "
    "carrier's tickets, maintenance and outage notices and invoices quote it. The same id in "
    "two sites is a copied entry or a mistyped id: a notice matched against the intent finds "
    "two circuits, perhaps the wrong site's, and the inventory counts one circuit twice and "
    "misses another. Ids are compared regardless of letter case; the finding is at every "
    "declaration after the first (by file and line) and names the first.",
    "docs/standards.md#phy-020",
)
def cross_connect_id_once(ctx: SiteContext) -> Iterator[Hit]:
    loaded = ctx.loaded
    first: dict[str, tuple[Location, str, str]] = {}  # casefolded id -> where, site, id
    for site_name, site in loaded.intent.sites.items():
        for name, xc in site.cross_connects.items():
            here = (loaded.where(xc.path), site_name, name)
            seen = first.get(name.casefold())
            if seen is None or here < seen:
                first[name.casefold()] = here
    for name, xc in sorted(ctx.site.cross_connects.items()):
        where, site_name, other = first[name.casefold()]
        if (site_name, other) == (ctx.name, name):
            continue
        yield Hit(
            f"cross-connect {name} of site {ctx.name} repeats the circuit id of cross-connect "
            f"{other} of site {site_name} (at {where}); a carrier's circuit id names one "
            "circuit: give each cross-connect the id on its own carrier order, or remove the "
            "copy",
            xc.path,
        )


def _uplinkers(ctx: SiteContext, linked: set[str]) -> list[tuple[str, Device]]:
    """Devices that uplink to the border layer: the top fabric tier, border leaves, and any
    other device already linked to a border. Spines are the top tier without super-spines."""
    roles = {"super_spine", "border_leaf"}
    if not any(d.role == "super_spine" for d in ctx.site.devices.values()):
        roles.add("spine")
    return [
        (name, device)
        for name, device in _by_id(ctx)
        if device.role != "border" and (device.role in roles or name in linked)
    ]


def _shape(speeds: list[int]) -> str:
    return " + ".join(f"{n}x{gbps}G" for gbps, n in sorted(Counter(speeds).items(), reverse=True))


@rule(
    "PHY-006",
    "error",
    "Every uplinking fabric device is dual-homed to all borders equally",
    "Loss of one border must not partition a cluster; unequal uplinks create ECMP imbalance and "
    "hot spots after failover.",
    "https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/"
    "latest/network-fabrics.html",
)
def dual_homed_to_borders(ctx: SiteContext) -> Iterator[Hit]:
    borders = _borders(ctx)
    if not borders:
        return
    uplinks: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for link in _fabric(ctx).links:
        for near, far in ((link.a, link.b), (link.b, link.a)):
            if far.device in borders and near.device not in borders:
                uplinks[near.device][far.device].append(near.speed_gbps)
    for name, device in _uplinkers(ctx, set(uplinks)):
        if _fabric(ctx).unnumbered_toward(name, borders):
            continue  # a link rule could not number its links there: PHY-016's finding
        mine = uplinks[name]
        missing = [border for border in borders if border not in mine]
        if missing:
            yield Hit(
                f"{device.role} {name} has no link to border {listed(missing)}; link it "
                "to every border (a link rule or explicit links)",
                device.path,
            )
            continue
        shapes = {border: _shape(mine[border]) for border in borders}
        if len(set(shapes.values())) > 1:
            unequal = ", ".join(f"{border} {shape}" for border, shape in shapes.items())
            yield Hit(
                f"{device.role} {name} uplinks unequally ({unequal}); give every border "
                "the same count and speed of links",
                device.path,
            )


def _end_field(ctx: SiteContext, link: FabricLink, field: str) -> Path_:
    """Where a per-end value of `link` is written: the end that sets it, b before a."""
    source = link.source
    if len(source) >= 2 and source[-2] == "links" and isinstance(source[-1], int):
        written = ctx.site.links[source[-1]]
        for side, end in (("b", written.b), ("a", written.a)):
            if getattr(end, field) is not None:
                return (*source, side, field)
        return (*source, field)
    return source


def _mtu_source(link: FabricLink) -> Path_:
    """Where the differing MTU is written (resolved once, with the link): b's own, else a's."""
    b_written = link.b.ip_mtu_source[-2:] == ("b", "mtu")
    return link.b.ip_mtu_source if b_written else link.a.ip_mtu_source


def _ends(link: FabricLink) -> str:
    return f"{link.a.device} {link.a.interface} and {link.b.device} {link.b.interface}"


def _value(end: LinkEndFacts, attr: str) -> str:
    value = getattr(end, attr)
    return "unset" if value is None else f"{value}G" if attr == "speed_gbps" else str(value)


@rule(
    "PHY-007",
    "error",
    "Speed and lanes match on both ends of a link",
    "Mismatched speed or lane count means no link. A breakout is not compared: it describes "
    "one end's cage (a 4x100G spine port cabled to a leaf's native 100G port is one link), "
    "and HW-004 checks it against that cage.",
    "IEEE 802.3; Cumulus `link breakout 4x lanes-per-port 2` (lanes are explicit config)",
)
def speed_and_lanes_match(ctx: SiteContext) -> Iterator[Hit]:
    for link in _fabric(ctx).links:
        for attr, field in (("speed_gbps", "speed"), ("lanes", "lanes")):
            if getattr(link.a, attr) != getattr(link.b, attr):
                yield Hit(
                    f"{field} differs between {_ends(link)} ({_value(link.a, attr)} vs "
                    f"{_value(link.b, attr)}); set the same {field} on both ends",
                    _end_field(ctx, link, field),
                )


@rule(
    "PHY-010",
    "error",
    "IP MTU identical on both ends of a link",
    "An MTU mismatch silently black-holes large packets and breaks routing adjacencies.",
    "docs/standards.md#phy-010",
)
def ip_mtu_matches(ctx: SiteContext) -> Iterator[Hit]:
    for link in _fabric(ctx).links:
        if link.a.ip_mtu != link.b.ip_mtu:
            yield Hit(
                f"IP MTU differs between {_ends(link)} ({link.a.ip_mtu} vs "
                f"{link.b.ip_mtu}); set the same mtu on both ends",
                _mtu_source(link),
            )
