"""Name resolution over the merged raw data: dangling names and duplicate ids.

It runs on the raw tree, before and independently of schema validation, so that a wrong type in
one device and a dangling room in another are both reported in the same run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from meetme.core.problems import Location, Problem, clip, closest, listed
from meetme.intent.interfaces import foreign_name, platform_problem, sample
from meetme.intent.types import PLACEHOLDER_MESSAGE, InterfaceTemplate, has_placeholder
from meetme.intent.yaml_source import Path_

DANGLING = "dangling-name"
DUPLICATE = "duplicate-name"
BAD_INTERFACE = "bad-interface"


@cache
def _template() -> TypeAdapter[str]:
    """The interface template's validator, built on first use: `meetme rules` and `explain`
    import this module and never call it (~4 ms at import)."""
    return TypeAdapter(InterfaceTemplate)


def check_references(
    data: Any,
    positions: dict[Path_, Location],
    value_positions: dict[Path_, Location] | None = None,
) -> list[Problem]:
    """`positions` are where keys are written; a wrong name is reported at the value when
    `value_positions` knows where it starts."""
    problems = _placeholders(data, positions, value_positions or {})
    sites = _mapping(data, "sites")
    device_site: dict[str, tuple[str, str]] = {}  # lower-case name -> (name, site)
    for site_name, site in sites.items():
        if not isinstance(site, dict):
            continue
        base: Path_ = ("sites", site_name)
        for message, where, kind in _site_problems(
            site, base, device_site, site_name, positions, value_positions or {}
        ):
            problems.append(Problem(where, message, kind))
    for message, where, kind in _dci_references(data, sites, positions, value_positions or {}):
        problems.append(Problem(where, message, kind))
    for message, where, kind in _srv6_references(data, sites, positions, value_positions or {}):
        problems.append(Problem(where, message, kind))
    return problems


def _srv6_references(
    data: Any,
    sites: dict[str, Any],
    positions: dict[Path_, Location],
    value_positions: dict[Path_, Location],
) -> Iterator[tuple[str, Location, str]]:
    """The SRv6 domain names sites, devices of those sites, and tenant VRFs each of whose
    sites defines (a VRF joins the domain where a tenant of the site has it)."""
    srv6 = _get(data, "srv6")

    def at(*path: str | int) -> Location:
        full: Path_ = ("srv6", *path)
        if full in value_positions:
            return value_positions[full]
        return _nearest(positions, full)

    domain_sites = _mapping(srv6, "sites")
    for site_name, entry in domain_sites.items():
        if site_name not in sites:
            # at the key, the name written wrong (its value's position is the `{`)
            where = positions.get(("srv6", "sites", site_name)) or at("sites", site_name)
            yield unknown_name("site", site_name, sites), where, DANGLING
            continue
        devices = _mapping(sites[site_name], "devices")
        for index, device in enumerate(_list(entry, "devices")):
            if isinstance(device, str) and device not in devices:
                yield (
                    unknown_name(f"device of site {site_name}", device, devices),
                    at("sites", site_name, "devices", index),
                    DANGLING,
                )
    for vrf, entry in _mapping(srv6, "vrfs").items():
        for index, site_name in enumerate(_list(entry, "sites")):
            if not isinstance(site_name, str):
                continue
            where = at("vrfs", vrf, "sites", index)
            if site_name not in domain_sites:
                if site_name in sites and any(s not in sites for s in domain_sites):
                    continue  # a site key written wrong, reported there, not here
                yield (
                    unknown_name(
                        "site of the SRv6 domain",
                        site_name,
                        {s: v for s, v in domain_sites.items() if s in sites},
                    ),
                    where,
                    DANGLING,
                )
            elif site_name in sites and vrf not in (known := _site_vrfs(sites[site_name])):
                yield (
                    f"VRF '{vrf}' rides SRv6 to site {site_name}, but no tenant of "
                    f"{site_name} has it (known: {listed(sorted(known)) or 'none'})",
                    where,
                    DANGLING,
                )


def _site_vrfs(site: Any) -> set[str]:
    return {
        vrf for tenant in _mapping(site, "tenants").values() for vrf in _mapping(tenant, "vrfs")
    }


def _dci_references(
    data: Any,
    sites: dict[str, Any],
    positions: dict[Path_, Location],
    value_positions: dict[Path_, Location],
) -> Iterator[tuple[str, Location, str]]:
    """A DCI circuit joins two sites at border devices, ports and meet-me rooms of each; a
    diverse group names circuits; a need names two sites, once per pair."""
    dci = _get(data, "dci")

    def at(*path: str | int) -> Location:
        full: Path_ = ("dci", *path)
        if full in value_positions:
            return value_positions[full]
        return _nearest(positions, full)

    circuits = _mapping(dci, "circuits")
    for name, circuit in circuits.items():
        for end in ("a", "b"):
            yield from _dci_end(_get(circuit, end), sites, ("circuits", name, end), at)
        a_site = _get(_get(circuit, "a"), "site")
        if isinstance(a_site, str) and a_site == _get(_get(circuit, "b"), "site"):
            yield (
                f"DCI circuit '{name}' has both ends in site '{a_site}'; a DCI circuit joins "
                "two sites (a circuit inside one site is a link or a cross-connect)",
                at("circuits", name, "b", "site"),
                "bad-value",
            )
    for group, members in _mapping(dci, "diverse_groups").items():
        for index, member in enumerate(members if isinstance(members, list) else []):
            if isinstance(member, str) and member not in circuits:
                yield (
                    unknown_name("DCI circuit", member, circuits),
                    at("diverse_groups", group, index),
                    DANGLING,
                )
    pairs: dict[frozenset[str], int] = {}
    for index, need in enumerate(_list(dci, "needs")):
        named = _list(need, "sites")
        for k, site in enumerate(named):
            if isinstance(site, str) and site not in sites:
                yield unknown_name("site", site, sites), at("needs", index, "sites", k), DANGLING
        if not all(isinstance(s, str) for s in named) or len(named) != 2:
            continue  # the schema reports the shape
        pair = frozenset(named)
        if len(pair) == 1:
            yield (
                f"a DCI need is between two sites, not '{named[0]}' and itself",
                at("needs", index, "sites", 1),
                "bad-value",
            )
        elif pair in pairs:
            yield (
                f"sites {' and '.join(sorted(pair))} already have a need (at "
                f"{at('needs', pairs[pair])}); one need per site pair: merge them",
                at("needs", index, "sites"),
                DUPLICATE,
            )
        else:
            pairs[pair] = index


def _dci_end(
    end: Any,
    sites: dict[str, Any],
    path: Path_,
    at: Callable[..., Location],
) -> Iterator[tuple[str, Location, str]]:
    site_name = _get(end, "site")
    if not isinstance(site_name, str):
        return
    if site_name not in sites:
        yield unknown_name("site", site_name, sites), at(*path, "site"), DANGLING
        return
    site = sites[site_name]
    devices, rooms = _mapping(site, "devices"), _mapping(site, "rooms")
    device, room = _get(end, "device"), _get(end, "room")
    if isinstance(device, str) and device not in devices:
        unknown = unknown_name(f"device of site {site_name}", device, devices)
        yield unknown, at(*path, "device"), DANGLING
    else:  # a device that is no border is DCI-008's finding: a role change lints
        platform = _platform(devices, device)
        name = _get(end, "interface")
        if platform is not None and isinstance(name, str):
            problem = platform_problem(platform, name)
            if problem is not None and not foreign_name(platform, name):
                yield f"{problem} (device {device})", at(*path, "interface"), BAD_INTERFACE
    if isinstance(room, str) and room not in rooms:
        yield unknown_name(f"room of site {site_name}", room, rooms), at(*path, "room"), DANGLING
    elif isinstance(room, str) and _get(rooms[room], "kind") != "mmr":
        mmrs = sorted(n for n, r in rooms.items() if _get(r, "kind") == "mmr")
        instead = f"; write one of the MMRs: {', '.join(mmrs)}" if mmrs else ""
        yield (
            f"a DCI circuit lands in a meet-me room, and '{room}' is kind "
            f"{_get(rooms[room], 'kind')}{instead}",
            at(*path, "room"),
            "bad-value",
        )


def _site_problems(
    site: dict[str, Any],
    base: Path_,
    device_site: dict[str, tuple[str, str]],
    site_name: str,
    positions: dict[Path_, Location],
    value_positions: dict[Path_, Location],
) -> Iterator[tuple[str, Location, str]]:
    rooms = _mapping(site, "rooms")
    racks = _mapping(site, "racks")
    devices = _mapping(site, "devices")

    def key_at(*path: str | int) -> Location:
        full = (*base, *path)
        for end in range(len(full), -1, -1):
            if full[:end] in positions:
                return positions[full[:end]]
        return Location("intent", 1, 1)

    def at(*path: str | int) -> Location:
        """Where the value at a path starts: the name that is wrong."""
        return value_positions.get((*base, *path)) or key_at(*path)

    for rack_name, rack in racks.items():
        room = _get(rack, "room")
        if isinstance(room, str) and room not in rooms:
            yield unknown_name("room", room, rooms), at("racks", rack_name, "room"), DANGLING

    ids: dict[int, str] = {}
    for dev_name, device in devices.items():
        seen = device_site.get(dev_name.lower())
        if seen is not None and seen[0] == dev_name:
            other = seen[1]
            first = positions.get(("sites", other, "devices", dev_name))
            where_first = f" (at {first})" if first is not None else ""
            yield (
                f"device name '{dev_name}' is already used in site '{other}'{where_first}; "
                "device names are unique across sites (they name the config files and "
                "the hostnames): rename one",
                key_at("devices", dev_name),
                DUPLICATE,
            )
        elif seen is not None:
            yield (
                f"device name '{dev_name}' differs from '{seen[0]}' (site '{seen[1]}') only in "
                "letter case: on a case-insensitive checkout (macOS, Windows) both configs are "
                "one file, and DNS takes them for one host: rename one",
                key_at("devices", dev_name),
                DUPLICATE,
            )
        device_site.setdefault(dev_name.lower(), (dev_name, site_name))
        room, rack, dev_id = _get(device, "room"), _get(device, "rack"), _get(device, "id")
        if isinstance(room, str) and room not in rooms:
            yield unknown_name("room", room, rooms), at("devices", dev_name, "room"), DANGLING
        if isinstance(rack, str) and rack not in racks:
            yield unknown_name("rack", rack, racks), at("devices", dev_name, "rack"), DANGLING
        if isinstance(dev_id, int) and not isinstance(dev_id, bool):
            if dev_id in ids:
                yield (
                    f"device id {dev_id} is already used by '{ids[dev_id]}' "
                    f"(at {key_at('devices', ids[dev_id], 'id')}); ids are unique per site "
                    f"(addresses and ASNs derive from them): the next free id is "
                    f"{_next_free(dev_id, devices)}",
                    at("devices", dev_name, "id"),
                    DUPLICATE,
                )
            else:
                ids[dev_id] = dev_name

    for index, link in enumerate(_list(site, "links")):
        for end in ("a", "b"):
            device = _get(_get(link, end), "device")
            if isinstance(device, str) and device not in devices:
                yield (
                    unknown_name("device", device, devices),
                    at("links", index, end, "device"),
                    DANGLING,
                )

    for xc_name, xc in _mapping(site, "cross_connects").items():
        device, room = _get(xc, "device"), _get(xc, "room")
        if isinstance(device, str) and device not in devices:
            yield (
                unknown_name("device", device, devices),
                at("cross_connects", xc_name, "device"),
                DANGLING,
            )
        if isinstance(room, str) and room not in rooms:
            yield unknown_name("room", room, rooms), at("cross_connects", xc_name, "room"), DANGLING
        elif isinstance(room, str) and _get(rooms[room], "kind") != "mmr":
            mmrs = sorted(n for n, r in rooms.items() if _get(r, "kind") == "mmr")
            instead = (
                f"; write one of the MMRs: {', '.join(mmrs)}"
                if mmrs
                else "; no room of this site has kind: mmr"
            )
            yield (
                f"cross-connect lands in '{room}', which is not a meet-me room "
                f"(kind: {_get(rooms[room], 'kind')}, not mmr){instead}",
                at("cross_connects", xc_name, "room"),
                "bad-value",
            )

    for group_name, group in _mapping(site, "redundancy_groups").items():
        for index, member in enumerate(_list(group, "members")):
            if isinstance(member, str) and member not in devices:
                yield (
                    unknown_name("device", member, devices),
                    at("redundancy_groups", group_name, "members", index),
                    DANGLING,
                )

    for pair_index, pair in enumerate(_list(_mapping(site, "asn"), "shared_pairs")):
        for index, member in enumerate(pair if isinstance(pair, list) else []):
            if isinstance(member, str) and member not in devices:
                yield (
                    unknown_name("device", member, devices),
                    at("asn", "shared_pairs", pair_index, index),
                    DANGLING,
                )

    yield from _pod_references(site, devices, at)
    yield from _tenant_references(site, racks, devices, at)
    yield from _attachment_references(site, devices, at, key_at)
    yield from _interface_names(site, devices, at)
    yield from _link_rule_patterns(site, devices, at)

    services = _mapping(_get(_mapping(site, "peering"), "edge"), "services")
    for device in services:
        if device not in devices:
            yield (
                unknown_name("device", device, devices),
                key_at("peering", "edge", "services", device),
                DANGLING,
            )

    circuits = _mapping(site, "cross_connects")
    peering = _mapping(site, "peering")
    parties = sorted({party for kind in _CIRCUIT_FIELDS for party in _mapping(peering, kind)})
    dangling: set[str] = set()
    for party, path in _circuit_references(peering):
        circuit = _resolve(site, ("peering", *path))
        if not isinstance(circuit, str):
            continue
        if circuit not in circuits:
            yield unknown_name("cross-connect", circuit, circuits), at("peering", *path), DANGLING
            continue
        owner = _get(circuits[circuit], "party")
        if not isinstance(owner, str) or owner == party:
            continue
        if owner not in parties:
            # a cross-connect a party uses belongs to that party (the check below): a name of
            # no party of the site is certainly a wrong one, said once, at the party
            if circuit not in dangling:
                dangling.add(circuit)
                yield (
                    f"unknown party '{clip(owner, 64)}'; did you mean '{party}', the "
                    f"{_KIND_LABEL[str(path[0])]} that uses this cross-connect (at "
                    f"{at('peering', *path)})? (known: {listed(parties)})",
                    at("cross_connects", circuit, "party"),
                    DANGLING,
                )
            continue
        yield (
            f"cross-connect '{circuit}' belongs to party '{owner}', not '{party}'; "
            "fix the circuit id or the cross-connect's party",
            at("peering", *path),
            "bad-value",
        )


# where each kind of party names its circuits, below sites.NAME.peering.<kind>.<party>
_CIRCUIT_FIELDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ixes": (("ports", "*", "circuit"),),
    "transits": (("circuits", "*", "circuit"),),
    "pnis": (("circuits", "*", "circuit"),),
    "aws": (("vifs", "*", "circuit"),),
    "azure": (("peerings", "*", "primary", "circuit"), ("peerings", "*", "secondary", "circuit")),
    "gcp": (("attachments", "*", "circuit"),),
}
_KIND_LABEL = {
    "ixes": "IX",
    "transits": "transit",
    "pnis": "PNI",
    "aws": "AWS Direct Connect",
    "azure": "Azure ExpressRoute",
    "gcp": "Google Cloud Interconnect",
}


def _circuit_references(peering: dict[str, Any]) -> Iterator[tuple[str, Path_]]:
    """(party name, path below peering) of every circuit id a party names."""
    for kind, patterns in _CIRCUIT_FIELDS.items():
        for party, body in _mapping(peering, kind).items():
            for pattern in patterns:
                for path in _expand(body, pattern):
                    yield party, (kind, party, *path)


def _expand(node: Any, pattern: tuple[str, ...]) -> Iterator[Path_]:
    """Concrete paths matching a pattern in which '*' stands for every list index or key."""
    if not pattern:
        yield ()
        return
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        items: list[tuple[str | int, Any]] = (
            list(enumerate(node))
            if isinstance(node, list)
            else list(node.items())
            if isinstance(node, dict)
            else []
        )
        for key, child in items:
            for tail in _expand(child, rest):
                yield (key, *tail)
    elif isinstance(node, dict) and head in node:
        for tail in _expand(node[head], rest):
            yield (head, *tail)


def _resolve(node: Any, path: Path_) -> Any:
    for part in path:
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return None
    return node


def _next_free(taken: int, devices: dict[str, Any]) -> int:
    used = {_get(d, "id") for d in devices.values()}
    candidate = taken + 1
    while candidate in used:
        candidate += 1
    return candidate


def unknown_name(kind: str, name: str, known: Iterable[str]) -> str:
    """`unknown KIND 'NAME'`, the closest known name, and some of the known ones."""
    ordered = sorted(known)
    close = closest(name, ordered)
    hint = f"; did you mean '{close}'?" if close else ""
    # the name as given may hold anything a shell passes (`meetme show $'a\nb'`): escaped
    shown_name = clip(name, 64)
    return f"unknown {kind} '{shown_name}'{hint} (known: {listed(ordered) or 'none defined'})"


def _mapping(node: Any, key: str) -> dict[str, Any]:
    value = _get(node, key)
    return value if isinstance(value, dict) else {}


def _list(node: Any, key: str) -> list[Any]:
    value = _get(node, key)
    return value if isinstance(value, list) else []


def _get(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, dict) else None


def _pod_references(
    site: dict[str, Any], devices: dict[str, Any], at: Callable[..., Location]
) -> Iterator[tuple[str, Location, str]]:
    """Devices and link rule sides name pods of their site; pod ids are unique per site (the
    default spine ASN derives from them)."""
    pods = _mapping(site, "pods")
    ids: dict[int, str] = {}
    for pod_name, pod in pods.items():
        pod_id = _get(pod, "id")
        if isinstance(pod_id, int) and not isinstance(pod_id, bool):
            if pod_id in ids:
                yield (
                    f"pod id {pod_id} is already used by pod '{ids[pod_id]}'; pod ids are "
                    "unique per site (the pod's spine ASN derives from it)",
                    at("pods", pod_name, "id"),
                    DUPLICATE,
                )
            else:
                ids[pod_id] = pod_name
    for dev_name, device in devices.items():
        pod = _get(device, "pod")
        if not isinstance(pod, str):
            continue
        # a pod on a super-spine or border is TOPO-008's finding (a role change must lint,
        # not stop the run); here only whether the pod exists
        if pod not in pods:
            yield unknown_name("pod", pod, pods), at("devices", dev_name, "pod"), DANGLING
    for index, rule in enumerate(_list(site, "link_rules")):
        for end in ("a", "b"):
            pod = _get(_get(rule, end), "pod")
            if isinstance(pod, str) and pod not in pods:
                yield unknown_name("pod", pod, pods), at("link_rules", index, end, "pod"), DANGLING


def _tenant_references(
    site: dict[str, Any],
    racks: dict[str, Any],
    devices: dict[str, Any],
    at: Callable[..., Location],
) -> Iterator[tuple[str, Location, str]]:
    """A network names a VRF of its own tenant, and racks and leaves of its site."""
    for tenant_name, tenant in _mapping(site, "tenants").items():
        vrfs = _mapping(tenant, "vrfs")
        for net_name, network in _mapping(tenant, "networks").items():
            base = ("tenants", tenant_name, "networks", net_name)
            vrf = _get(network, "vrf")
            if isinstance(vrf, str) and vrf not in vrfs:
                yield (
                    unknown_name(f"VRF of tenant {tenant_name}", vrf, vrfs),
                    at(*base, "vrf"),
                    DANGLING,
                )
            for index, rack in enumerate(_list(network, "racks")):
                if isinstance(rack, str) and rack not in racks:
                    yield unknown_name("rack", rack, racks), at(*base, "racks", index), DANGLING
            for index, leaf in enumerate(_list(network, "leaves")):
                if isinstance(leaf, str) and leaf not in devices:
                    yield (
                        unknown_name("device", leaf, devices),
                        at(*base, "leaves", index),
                        DANGLING,
                    )


def _attachment_references(
    site: dict[str, Any],
    devices: dict[str, Any],
    at: Callable[..., Location],
    key_at: Callable[..., Location],
) -> Iterator[tuple[str, Location, str]]:
    """Attachments name leaves and networks of their site, the handoff border leaves and VRFs;
    networks and VRFs by name alone, in any of the site's tenants."""
    tenants = _mapping(site, "tenants").values()
    networks = {
        name: net for tenant in tenants for name, net in _mapping(tenant, "networks").items()
    }
    vrfs = {name: vrf for tenant in tenants for name, vrf in _mapping(tenant, "vrfs").items()}
    for att_name, attachment in _mapping(site, "attachments").items():
        base = ("attachments", att_name)
        for index, leaf in enumerate(_list(attachment, "leaves")):
            if isinstance(leaf, str) and leaf not in devices:
                yield unknown_name("device", leaf, devices), at(*base, "leaves", index), DANGLING
        for index, name in enumerate(_list(attachment, "networks")):
            if isinstance(name, str) and name not in networks:
                yield (
                    unknown_name("network", name, networks),
                    at(*base, "networks", index),
                    DANGLING,
                )
    handoff = _get(site, "handoff")
    for index, leaf in enumerate(_list(handoff, "border_leaves")):
        if isinstance(leaf, str) and leaf not in devices:
            yield (
                unknown_name("device", leaf, devices),
                at("handoff", "border_leaves", index),
                DANGLING,
            )
    for name in _mapping(handoff, "vrfs"):
        if name not in vrfs:
            yield unknown_name("VRF", name, vrfs), key_at("handoff", "vrfs", name), DANGLING
    yield from _cloud_vrf_references(site, vrfs, at)


# where each cloud names its attachments, below sites.NAME.peering.<kind>.<party>, and the
# attachment types that carry public prefixes in the default VRF (no `vrf:`)
_CLOUD_ATTACHMENTS: dict[str, tuple[str, str]] = {
    "aws": ("vifs", "public"),
    "azure": ("peerings", "microsoft"),
    "gcp": ("attachments", ""),
}


def _cloud_vrf_references(
    site: dict[str, Any], vrfs: dict[str, Any], at: Callable[..., Location]
) -> Iterator[tuple[str, Location, str]]:
    """A cloud attachment's `vrf:` names a tenant VRF of its site; a public attachment (AWS
    public VIF, Azure Microsoft peering) names none: it carries public prefixes."""
    peering = _mapping(site, "peering")
    for kind, (collection, public) in _CLOUD_ATTACHMENTS.items():
        for party, body in _mapping(peering, kind).items():
            for name, attachment in _mapping(body, collection).items():
                vrf = _get(attachment, "vrf")
                if not isinstance(vrf, str):
                    continue
                path = ("peering", kind, party, collection, name, "vrf")
                if public and _get(attachment, "type") == public:
                    yield (
                        f"a {kind} {public} attachment carries public prefixes in the default "
                        f"VRF: remove vrf: {vrf}",
                        at(*path),
                        "bad-value",
                    )
                elif vrf not in vrfs:
                    yield unknown_name("VRF", vrf, vrfs), at(*path), DANGLING


def _placeholders(
    data: Any, positions: dict[Path_, Location], value_positions: dict[Path_, Location]
) -> list[Problem]:
    """A secret placeholder anywhere in intent, key or value: push would fill it with the
    secret. Walked with a stack, not recursion, so no nesting depth can overflow it. The
    message is the one the schema's own types give, so the loader keeps one of the two."""
    problems = []
    stack: list[tuple[Path_, Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        children: list[tuple[str | int, Any]] = (
            list(node.items())
            if isinstance(node, dict)
            else list(enumerate(node))
            if isinstance(node, list)
            else []
        )
        for key, child in children:
            child_path = (*path, key)
            if isinstance(key, str) and has_placeholder(key):
                where = positions.get(child_path) or _nearest(positions, path)
                problems.append(Problem(where, PLACEHOLDER_MESSAGE, "bad-value"))
            if isinstance(child, str) and has_placeholder(child):
                where = value_positions.get(child_path) or _nearest(positions, child_path)
                message = f"{'.'.join(map(str, child_path))}: {PLACEHOLDER_MESSAGE}"
                problems.append(Problem(where, message, "bad-value"))
            stack.append((child_path, child))
    return problems


def _nearest(positions: dict[Path_, Location], path: Path_) -> Location:
    for end in range(len(path), -1, -1):
        if path[:end] in positions:
            return positions[path[:end]]
    return Location("intent", 1, 1)


def _platform(devices: dict[str, Any], name: Any) -> str | None:
    platform = _get(devices.get(name) if isinstance(name, str) else None, "platform")
    return platform if isinstance(platform, str) else None


def _interface_names(
    site: dict[str, Any], devices: dict[str, Any], at: Callable[..., Location]
) -> Iterator[tuple[str, Location, str]]:
    """Every interface name written in intent is one its device's platform has: links,
    cross-connects, and the host ports and peer links of attachments. An attachment's names
    are the same on both leaves: of a pair of two platforms, MH-001 reports the pair. A name
    of another platform is left to the lint (PLAT-016)."""
    named: list[tuple[Any, Any, Path_]] = []
    for index, link in enumerate(_list(site, "links")):
        for end in ("a", "b"):
            side = _get(link, end)
            where: Path_ = ("links", index, end, "interface")
            named.append((_get(side, "device"), _get(side, "interface"), where))
    for xc_name, xc in _mapping(site, "cross_connects").items():
        where = ("cross_connects", xc_name, "interface")
        named.append((_get(xc, "device"), _get(xc, "interface"), where))
    edge = _get(_mapping(site, "peering"), "edge")
    for device, port in _mapping(edge, "services").items():
        where = ("peering", "edge", "services", device, "interface")
        named.append((device, _get(port, "interface"), where))
    for att_name, attachment in _mapping(site, "attachments").items():
        leaves = _list(attachment, "leaves")
        if len({_platform(devices, leaf) for leaf in leaves}) != 1:
            continue
        for key in ("ports", "peer_link"):
            for index, port in enumerate(_list(attachment, key)):
                named.append((leaves[0], port, ("attachments", att_name, key, index)))
    for device, name, path in named:
        platform = _platform(devices, device)
        if platform is None or not isinstance(name, str):
            continue
        problem = platform_problem(platform, name)
        if problem is not None and not foreign_name(platform, name):
            yield f"{problem} (device {device})", at(*path), BAD_INTERFACE


def _link_rule_patterns(
    site: dict[str, Any], devices: dict[str, Any], at: Callable[..., Location]
) -> Iterator[tuple[str, Location, str]]:
    """A link rule's interface pattern, filled with its first port number, names an interface
    of every platform the side selects: the one it names, else those of its role's devices
    (a name of another platform is left to the lint, PLAT-016)."""
    for index, rule in enumerate(_list(site, "link_rules")):
        for end in ("a", "b"):
            side = _get(rule, end)
            pattern, first = _get(side, "interface"), _get(side, "first")
            try:  # a malformed pattern is the schema's to report
                _template().validate_python(pattern)
            except ValidationError:
                continue
            n = first if isinstance(first, int) and 0 <= first < 10**6 else 1
            chosen = _get(side, "platform")
            platforms = (
                {chosen}
                if isinstance(chosen, str)
                else {
                    p
                    for d in devices.values()
                    if _get(d, "role") == _get(side, "role")
                    and isinstance(p := _get(d, "platform"), str)
                }
            )
            for platform in sorted(platforms):
                name = sample(pattern, n)
                problem = platform_problem(platform, name)
                if problem is not None and not foreign_name(platform, name):
                    yield (
                        f"link rule side {end}, with n={n}: {problem}",
                        at("link_rules", index, end, "interface"),
                        BAD_INTERFACE,
                    )
