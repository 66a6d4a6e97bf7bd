"""TOPO-*: the Clos shape of a site (docs/standards.md#topo).

Every leaf reaches every spine, every spine every super-spine, with equal count and speed; the
ASN scheme follows the tiers (RFC 7938 section 5.2.1); N+k redundancy groups keep at most k
members in one failure domain. In a site of pods (RFC 7938 5-stage) a leaf reaches the spines
of its own pod (TOPO-001), each pod's spines share an ASN of their own (TOPO-004, TOPO-006),
no link joins two pods (TOPO-007) and every spine and leaf names its pod (TOPO-009). Uplinks to
the borders are PHY-006's, a device cabled to itself PHY-014's.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from meetme.generators.resolve import allocate
from meetme.validators.engine import Hit, Path_, SiteContext, rule
from meetme.validators.rules.overlay import evpn_refused

from meetme.core.problems import listed
from meetme.intent.schema import Device, RedundancyGroup

LEAF_TIER = ("leaf", "border_leaf")
RFC7938 = "RFC 7938 section 5.2.1 https://www.rfc-editor.org/rfc/rfc7938"


def _by_id(ctx: SiteContext, *roles: str) -> list[tuple[str, Device]]:
    return sorted(
        ((name, d) for name, d in ctx.site.devices.items() if d.role in roles),
        key=lambda item: item[1].id,
    )


def _uplinks(ctx: SiteContext, upper: set[str]) -> dict[str, dict[str, list[int]]]:
    """device -> upper-tier device -> the speed of each link between them."""
    found: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for link in ctx.fabric.links:
        for near, far in ((link.a, link.b), (link.b, link.a)):
            if far.device in upper and near.device not in upper:
                found[near.device][far.device].append(near.speed_gbps)
    return found


def _shape(speeds: list[int]) -> str:
    return " + ".join(f"{n}x{gbps}G" for gbps, n in sorted(Counter(speeds).items(), reverse=True))


def _reach(
    ctx: SiteContext,
    lower: list[tuple[str, Device]],
    upper: list[str],
    tier: str,
    pod: str | None = None,
    uplinks: dict[str, dict[str, list[int]]] | None = None,
) -> Iterator[Hit]:
    """Every device of `lower` has links to every device of `upper` (the `tier`, of `pod`
    when given), all alike. `uplinks`: the caller's `_uplinks` toward a tier that holds
    `upper` (none of `lower` in it), so that one scan of the links serves every pod."""
    if uplinks is None:
        uplinks = _uplinks(ctx, set(upper))
    how = "by a link rule or explicit links"
    scope = ctx.name if pod is None else f"pod {pod}"
    of_pod = "" if pod is None else f" of pod {pod}"
    refused = evpn_refused(ctx)
    for name, device in lower:
        if ctx.fabric.unnumbered_toward(name, upper):
            continue  # a link rule could not number its links there: PHY-016's finding
        mine = uplinks.get(name, {})
        missing = [far for far in upper if far not in mine]
        if len(missing) == len(upper) and name in refused:
            continue  # link rules select by platform, and EVPN-009 refuses this one's
        if len(missing) == len(upper):
            yield Hit(
                f"{device.role} {name} has no uplink to any {tier}{of_pod}; link it to every "
                f"{tier} of {scope} ({', '.join(upper)}) {how}",
                device.path,
            )
        elif missing:
            yield Hit(
                f"{device.role} {name} reaches {len(upper) - len(missing)} of {len(upper)} "
                f"{tier}s{of_pod} (no link to {', '.join(missing)}); link it to every {tier} "
                f"{how}",
                device.path,
            )
        else:
            shapes = {far: _shape(mine[far]) for far in upper}
            if len(set(shapes.values())) > 1:
                unequal = ", ".join(f"{far} {shape}" for far, shape in shapes.items())
                yield Hit(
                    f"{device.role} {name} uplinks unequally ({unequal}); give every {tier} "
                    "the same count and speed of links",
                    device.path,
                )


@rule(
    "TOPO-001",
    "error",
    "Every leaf reaches every spine of its pod with equal count and speed",
    "A leaf without uplinks still gets the overlay's EVPN sessions to the spines but has no "
    "underlay to reach them; a leaf missing a spine loses that spine's share of the fabric's "
    "bandwidth, and unequal links make ECMP send the same share over fewer or slower links. "
    "A leaf in a pod needs the spines of its pod; in a site without pods (or a border leaf in "
    "none where no spine is in none) every spine of the site; a leaf in no pod of a site with "
    "pods is TOPO-009's. A border leaf is checked once it has "
    "a spine link, or always in a site without border routers, where the spines are its only "
    "way into the fabric; one cabled to the borders only is PHY-006's. A site with leaves but "
    "neither spines nor super-spines gives its VTEPs no underlay and no EVPN peer at all.",
    "docs/standards.md#topo-001; RFC 7938 section 3.2 https://www.rfc-editor.org/rfc/rfc7938",
)
def leaves_reach_every_spine(ctx: SiteContext) -> Iterator[Hit]:
    all_spines = _by_id(ctx, "spine")
    # without border routers (PHY-006 checks the uplinks toward them), a border leaf reaches
    # the fabric through the spines only: uncabled, its EVPN sessions had no underlay
    borderless = not _by_id(ctx, "border")
    if not all_spines:
        if not _by_id(ctx, "super_spine"):  # super-spines serve a VTEP whose pod has no spine
            yield from _no_spines(ctx, borderless)
        return
    uplinks = _uplinks(ctx, {name for name, _ in all_spines})
    linked = set(uplinks)
    by_pod: dict[str | None, list[tuple[str, Device]]] = defaultdict(list)
    podless = {name for name, _ in _podless(ctx)}  # TOPO-009's: the pod is what is missing
    for name, device in _by_id(ctx, *LEAF_TIER):
        if name in podless:
            continue
        if device.role == "leaf" or name in linked or borderless:
            by_pod[device.pod].append((name, device))
    for pod, leaves in by_pod.items():
        spines = [name for name, spine in all_spines if spine.pod == pod]
        if pod is None and not spines:
            spines = [name for name, _ in all_spines]  # pods elsewhere: any spine will do
            pod_label = None
        else:
            pod_label = pod
        if spines:
            yield from _reach(ctx, leaves, spines, "spine", pod_label, uplinks)
            continue
        for name, device in leaves:
            yield Hit(
                f"{device.role} {name} is in pod {pod}, which has no spine; give pod {pod} "
                "spines or move the leaf to a pod that has them",
                (*device.path, "pod"),
            )


def _no_spines(ctx: SiteContext, borderless: bool) -> Iterator[Hit]:
    """Leaves (and border leaves with no border to uplink to) of a site without spines or
    super-spines: no underlay beyond the leaf and no EVPN route server, so no VTEP learns
    another's networks."""
    for name, device in _by_id(ctx, *LEAF_TIER):
        if device.role == "leaf" or borderless:
            yield Hit(
                f"{device.role} {name} has no spine to uplink to: {ctx.name} has none, so it "
                "has no underlay session and no EVPN peer; add spines (role: spine) and link "
                "it to every one by a link rule or explicit links",
                device.path,
            )


@rule(
    "TOPO-002",
    "error",
    "Every spine reaches every super-spine with equal count and speed",
    "In a 3-tier site the super-spines join the spines; a spine missing a super-spine, or "
    "with more or faster links to one of them, loses or skews its share of the traffic "
    "between spines exactly as a leaf does toward its spines (TOPO-001).",
    "docs/standards.md#topo-002; RFC 7938 section 3.2 https://www.rfc-editor.org/rfc/rfc7938",
)
def spines_reach_every_super_spine(ctx: SiteContext) -> Iterator[Hit]:
    supers = [name for name, _ in _by_id(ctx, "super_spine")]
    if supers:
        yield from _reach(ctx, _by_id(ctx, "spine"), supers, "super-spine")


def _asn_source(ctx: SiteContext, device: Device) -> Path_:
    """Where a device's ASN is written: its override, its role's shared ASN, or the device."""
    if device.asn is not None:
        return (*device.path, "asn")
    if device.role == "spine" and device.pod is not None:
        pod = ctx.site.pods[device.pod]
        if pod.asn is not None:
            return (*pod.path, "asn")
        if "spine" in ctx.site.asn.shared:
            return (*pod.path, "id")  # asn.shared.spine + the pod id
    if device.role in ctx.site.asn.shared:
        return (*ctx.site.asn.path, "shared", device.role)
    return device.path


def _asns(ctx: SiteContext) -> dict[str, int]:
    intent = ctx.loaded.intent
    return {
        name: allocate.device_asn(intent, ctx.site, device)
        for name, device in ctx.site.devices.items()
        if device.role != "border"  # the organisation's ASN: ADDR-006..008
    }


@rule(
    "TOPO-004",
    "error",
    "The ASN scheme follows the tiers: leaves unique, spines one (per pod), super-spines another",
    "Each leaf has an ASN of its own: BGP drops a route whose AS path holds the receiver's ASN, "
    "so leaves of one ASN never learn each other's prefixes (meetme renders no allowas-in). "
    "The exception is a pair declared in asn.shared_pairs (an MLAG or vPC pair acting as one "
    "switch). All spines (of one pod) share one ASN, so a route never returns through a "
    "second spine (path hunting); super-spines share another, so routes pass between spines "
    "through them.",
    RFC7938,
)
def asns_follow_the_tiers(ctx: SiteContext) -> Iterator[Hit]:
    asns = _asns(ctx)
    yield from _leaf_asns_unique(ctx, asns)
    for role, label in (("spine", "spine"), ("super_spine", "super-spine")):
        yield from _tier_shares_one_asn(ctx, asns, role, label)
    spine_asns = {asns[name] for name, _ in _by_id(ctx, "spine")}
    for name, device in _by_id(ctx, "super_spine"):
        if asns[name] in spine_asns:
            yield Hit(
                f"super-spine {name} has ASN {asns[name]}, the spines' ASN; give the "
                "super-spines an ASN of their own (asn.shared: {super_spine: ...})",
                _asn_source(ctx, device),
            )
            break


def _leaf_asns_unique(ctx: SiteContext, asns: dict[str, int]) -> Iterator[Hit]:
    pairs = {frozenset(pair) for pair in ctx.site.asn.shared_pairs}
    users: dict[int, list[str]] = defaultdict(list)
    for name, _ in sorted(ctx.site.devices.items(), key=lambda item: item[1].id):
        if name in asns:
            users[asns[name]].append(name)
    reported: set[Path_] = set()
    for asn, names in sorted(users.items()):
        devices = [ctx.site.devices[name] for name in names]
        if len(names) < 2 or not any(d.role in LEAF_TIER for d in devices):
            continue
        if frozenset(names) in pairs:
            continue
        for index, (name, device) in enumerate(zip(names, devices, strict=True)):
            where = _asn_source(ctx, device)
            if device.role not in LEAF_TIER or where in reported:
                continue
            if where[-2:-1] == ("shared",):
                reported.add(where)
                yield Hit(
                    f"asn.shared gives every {device.role} one ASN {asn} "
                    f"({listed(names, 4)}); a leaf needs an ASN of its own: remove "
                    f"{device.role} from asn.shared (ASN = base + id), or declare an MLAG or "
                    "vPC pair in asn.shared_pairs",
                    where,
                )
            elif index > 0:
                yield Hit(
                    f"{device.role} {name} has ASN {asn}, as {names[0]} does; a leaf needs an "
                    "ASN of its own unless the two are an MLAG or vPC pair listed in "
                    "asn.shared_pairs",
                    where,
                )


def _tier_shares_one_asn(
    ctx: SiteContext, asns: dict[str, int], role: str, label: str
) -> Iterator[Hit]:
    tier = _by_id(ctx, role)
    if role == "spine":  # spines in a pod share the pod's ASN: TOPO-006 compares the pods
        yield from _pod_spines_share_one_asn(ctx, asns, [d for d in tier if d[1].pod])
        tier = [(name, device) for name, device in tier if device.pod is None]
    if len({asns[name] for name, _ in tier}) < 2:
        return
    if role not in ctx.site.asn.shared:
        each = listed([f"{name} {asns[name]}" for name, _ in tier], 4)
        yield Hit(
            f"the {label}s of {ctx.name} have {len({asns[n] for n, _ in tier})} ASNs "
            f"({each}); {label}s share one ASN: add "
            f"{role} to asn.shared",
            ctx.site.asn.path,
        )
        return
    shared = ctx.site.asn.shared[role]
    for name, device in tier:
        if asns[name] != shared:
            yield Hit(
                f"{label} {name} has ASN {asns[name]}, not the {label}s' shared ASN "
                f"{shared}; {label}s share one ASN: remove the override",
                _asn_source(ctx, device),
            )


def _pod_spines_share_one_asn(
    ctx: SiteContext, asns: dict[str, int], spines: list[tuple[str, Device]]
) -> Iterator[Hit]:
    by_pod: dict[str, list[tuple[str, Device]]] = defaultdict(list)
    for name, device in spines:
        assert device.pod is not None
        by_pod[device.pod].append((name, device))
    for pod_name, members in sorted(by_pod.items()):
        pod = ctx.site.pods[pod_name]
        if pod.asn is None and "spine" not in ctx.site.asn.shared:
            if len({asns[name] for name, _ in members}) > 1:
                yield Hit(
                    f"the spines of pod {pod_name} have {len({asns[n] for n, _ in members})} "
                    f"ASNs; a pod's spines share one: give pod {pod_name} an asn, or add "
                    "spine to asn.shared (a pod's spines then get it + the pod id)",
                    pod.path,
                )
            continue
        shared = allocate.pod_spine_asn(ctx.site, pod_name)
        for name, device in members:
            if asns[name] != shared:
                yield Hit(
                    f"spine {name} has ASN {asns[name]}, not pod {pod_name}'s spine ASN "
                    f"{shared}; a pod's spines share one ASN: remove the override",
                    _asn_source(ctx, device),
                )


@rule(
    "TOPO-006",
    "error",
    "Each pod's spines have an ASN no other pod's spines have",
    "A route from a leaf of one pod reaches a leaf of another through a spine of each pod "
    "(leaf, spine, super-spine, spine, leaf): when both pods' spines share one ASN, the second "
    "spine finds its own ASN in the AS path and drops the route, so the pods never learn each "
    "other's loopbacks or EVPN routes (meetme renders no allowas-in). RFC 7938 gives each "
    "pod's tier 2 an ASN of its own.",
    "docs/standards.md#topo-006; " + RFC7938,
)
def pods_have_their_own_spine_asn(ctx: SiteContext) -> Iterator[Hit]:
    asns = _asns(ctx)
    owner: dict[int, str] = {}
    reported: set[str] = set()  # once per pod
    for name, device in _by_id(ctx, "spine"):
        if device.pod is None:
            continue
        asn = asns[name]
        first = owner.setdefault(asn, device.pod)
        if first != device.pod and device.pod not in reported:
            reported.add(device.pod)
            yield Hit(
                f"spine {name} of pod {device.pod} has ASN {asn}, as the spines of pod {first} "
                "do; routes between the two pods would be dropped as AS-path loops: give pod "
                f"{device.pod} an ASN of its own",
                _asn_source(ctx, device),
            )


@rule(
    "TOPO-007",
    "error",
    "No link joins two pods",
    "A pod's spines and leaves link within their pod; pods meet at the super-spines. A link "
    "from a leaf of one pod to a spine of another is a path the overlay does not use (a VTEP "
    "peers with its own pod's spines) and that breaks the pod's failure and ASN boundary. Link "
    "rules never pair devices of two pods; an explicit link can.",
    "docs/standards.md#topo-007; RFC 7938 section 3.2 https://www.rfc-editor.org/rfc/rfc7938",
)
def no_link_between_pods(ctx: SiteContext) -> Iterator[Hit]:
    devices = ctx.site.devices
    for link in ctx.fabric.links:
        a_pod, b_pod = devices[link.a.device].pod, devices[link.b.device].pod
        if a_pod is not None and b_pod is not None and a_pod != b_pod:
            yield Hit(
                f"{link.origin} joins {link.a.device} {link.a.interface} (pod {a_pod}) and "
                f"{link.b.device} {link.b.interface} (pod {b_pod}); pods meet only at the "
                "super-spines: link each device within its own pod",
                link.source,
            )


@rule(
    "TOPO-008",
    "error",
    "Only spines, leaves and border leaves belong to a pod",
    "A pod is a tier-2 cluster: its spines and the leaves below them (RFC 7938 5-stage). The "
    "super-spines join the pods and the borders sit above them, so neither is in one; a pod on "
    "them would scope their links and EVPN sessions to one pod and cut the others off.",
    "docs/standards.md#topo-008; RFC 7938 section 3.2 https://www.rfc-editor.org/rfc/rfc7938",
)
def pods_hold_spines_and_leaves(ctx: SiteContext) -> Iterator[Hit]:
    for name, device in _by_id(ctx, "super_spine", "border"):
        if device.pod is not None:
            yield Hit(
                f"{name} is a {device.role}, which belongs to no pod (super-spines and borders "
                f"join the pods); only spines, leaves and border leaves have one: remove "
                f"pod: {device.pod}",
                (*device.path, "pod"),
            )


POD_TIER = ("spine", "leaf")


def _podless(ctx: SiteContext) -> list[tuple[str, Device]]:
    """The spines and leaves of a site with pods that name none (TOPO-009)."""
    if not ctx.site.pods:
        return []
    return [(name, d) for name, d in _by_id(ctx, *POD_TIER) if d.pod is None]


@rule(
    "TOPO-009",
    "error",
    "In a site with pods, every spine and leaf names its pod",
    "In a 3-tier site the pod decides a spine's and a leaf's links (a link rule naming a pod "
    "leaves a device of none out; one naming none cables it to every pod), a spine's ASN and "
    "a VTEP's EVPN peers. A spine or leaf without `pod:` is a line forgotten, not a design: it "
    "lints clean while the spine silently loses its leaves or a leaf its uplinks, or either "
    "is cabled across the pods. Border leaves may stay outside the pods (cabled to the borders "
    "or to every pod's spines). The missing uplinks that follow are this rule's finding, not "
    "also TOPO-001's.",
    "docs/standards.md#topo-009; RFC 7938 section 3.2 https://www.rfc-editor.org/rfc/rfc7938",
)
def pod_devices_name_their_pod(ctx: SiteContext) -> Iterator[Hit]:
    pods = sorted(ctx.site.pods)
    for name, device in _podless(ctx):
        # the pod of the other spines and leaves of its room, when they agree on one
        around = {
            d.pod
            for n, d in ctx.site.devices.items()
            if n != name and d.room == device.room and d.role in POD_TIER and d.pod is not None
        }
        pod = around.pop() if len(around) == 1 else f"one of {listed(pods, 4)}"
        if device.role == "spine":
            what, others = "leaf links and ASN", "leaves"
        else:
            what, others = "uplinks and EVPN peers", "spines"
        yield Hit(
            f"{device.role} {name} names no pod, and {ctx.name} has pods ({listed(pods, 4)}): "
            f"a {device.role}'s {what} follow its pod, so link rules naming a pod leave it out "
            f"and any naming none cable it to every pod's {others}; add pod: {pod}",
            device.path,
        )


def _domain_of(ctx: SiteContext, device: Device, kind: str) -> tuple[str, Path_] | None:
    """The failure domain `device` is in, of one kind, and where that is written."""
    room = ctx.site.rooms[device.room]
    if kind == "rack":
        return device.rack, (*device.path, "rack")
    if kind == "room":
        return device.room, (*device.path, "room")
    if kind == "floor":
        return str(room.floor), (*room.path, "floor")
    if kind == "cooling_zone":
        return room.cooling_zone, (*room.path, "cooling_zone")
    if kind in device.failure_domains:  # the device's own tag wins over its room's
        return device.failure_domains[kind], (*device.path, "failure_domains", kind)
    if kind in room.failure_domains:
        return room.failure_domains[kind], (*room.path, "failure_domains", kind)
    return None


@rule(
    "TOPO-005",
    "error",
    "An N+k redundancy group has at most k members in one failure domain",
    "A group declared with max_per_domain (say two of four uplinks may share a rack) survives "
    "losing any one rack, room or other listed domain only if no domain holds more than k "
    "members. A member whose domain is not recorded cannot be counted and is reported too. "
    "Groups without max_per_domain want every member apart: PHY-003/004.",
    "docs/standards.md#topo-005 (N+k redundancy; failure-domain tags as in PHY-004)",
)
def redundancy_groups_k_per_domain(ctx: SiteContext) -> Iterator[Hit]:
    for group_name, group in sorted(ctx.site.redundancy_groups.items()):
        if group.max_per_domain is not None:
            yield from _group_per_domain(ctx, group_name, group, group.max_per_domain)


def _group_per_domain(
    ctx: SiteContext, group_name: str, group: RedundancyGroup, k: int
) -> Iterator[Hit]:
    members = list(dict.fromkeys(group.members))
    for kind in dict.fromkeys(group.domains):
        held: dict[str, list[tuple[str, Path_]]] = defaultdict(list)
        for name in members:
            device = ctx.site.devices[name]
            found = _domain_of(ctx, device, kind)
            if found is None:
                yield Hit(
                    f"redundancy group {group_name} counts its members per {kind}, but "
                    f"{name} records no {kind}; record it on {name} or its room {device.room}",
                    (*device.path, "failure_domains"),
                )
                continue
            held[found[0]].append((name, found[1]))
        for value, inside in sorted(held.items()):
            if len(inside) > k:
                name, where = inside[k]
                yield Hit(
                    f"redundancy group {group_name} allows {k} per {kind}, but {kind} {value} "
                    f"holds {len(inside)} ({listed([n for n, _ in inside], 4)}); move {name} to "
                    f"another {kind}",
                    where,
                )


@rule(
    "TOPO-010",
    "warning",
    "underlay.ecmp installs every uplink a device has toward the next tier",
    "A leaf spreads traffic over its spines only as far as BGP installs equal-cost paths: "
    "with `underlay.ecmp` below its uplinks, each prefix goes over that many of them and the "
    "rest carry none of it until one fails, so a leaf with four uplinks and `ecmp: 2` leaves "
    "half its bandwidth idle with nothing to show it until the busy links congest. The same "
    "holds for a spine's links to its super-spines. Counted per link: two links to one spine "
    "are two sessions and two paths. A warning: a design may cap ECMP on purpose.",
    "docs/standards.md#topo-010; RFC 7938 section 6.1 https://www.rfc-editor.org/rfc/rfc7938",
)
def ecmp_installs_every_uplink(ctx: SiteContext) -> Iterator[Hit]:
    ecmp = ctx.site.underlay.ecmp
    counts: dict[str, tuple[int, str]] = {}  # device -> its uplinks, and the tier they reach
    for lower, upper in ((LEAF_TIER, "spine"), (("spine",), "super_spine")):
        uplinks = _uplinks(ctx, {name for name, _ in _by_id(ctx, upper)})
        for name, _ in _by_id(ctx, *lower):
            links = sum(len(speeds) for speeds in uplinks.get(name, {}).values())
            if links > ecmp:
                counts[name] = (links, upper.replace("_", "-"))
    if not counts:
        return
    widest = max(counts, key=lambda name: (counts[name][0], -ctx.site.devices[name].id))
    (links, tier), role = counts[widest], ctx.site.devices[widest].role
    others = len(counts) - 1
    also = f" ({others} other device{'s' if others > 1 else ''} also more than {ecmp})"
    idle = links - ecmp
    yield Hit(
        f"underlay.ecmp is {ecmp}, but {role} {widest} has {links} uplinks to the {tier}s"
        f"{also if others else ''}: BGP installs {ecmp} path{'s' if ecmp > 1 else ''} per "
        f"prefix, so {idle} uplink{'s carry' if idle > 1 else ' carries'} none of a prefix's "
        f"traffic until another fails; set ecmp to at least "
        f"{max(n for n, _ in counts.values())}",
        (*ctx.base, "underlay", "ecmp"),
    )
