"""Routing policy for external sessions, per party type (docs/standards.md#edge-policy).

Import, first match wins: drop bogon prefixes, too-long and too-short prefixes, our own space,
the default route (unless asked for), the IX peering LANs the device is on, paths with reserved
or private ASNs, paths through well-known transit networks on peering sessions, RPKI-invalid
routes where the platform validates origins, AS paths of `peering.edge.drop_as_path_length`
ASNs or more (EDGE-013); then accept — only the explicit allow-list where one is given —
tagging each route with its class and site as large communities and setting local preference
by relationship. A graceful-shutdown route (RFC 8326) is accepted at local preference 0.
Export: never a route learned from any external party (by its class community); otherwise only
our aggregates to Internet parties and only the declared prefixes to a cloud.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from meetme.generators.model import (
    AsPathEntry,
    AsPathList,
    CommunityList,
    PrefixList,
    PrefixListEntry,
    RouteMap,
    RouteMapEntry,
)
from meetme.generators.resolve.edge_sessions import (
    CLASS_VALUE,
    LOCAL_PREFERENCE,
    Afi,
    ExternalSession,
)

from meetme.core import addresses
from meetme.core.numbering import (
    DOCUMENTATION_ASNS,
    PRIVATE_ASNS,
    RESERVED_ASNS,
    AsnRange,
    documentation_prefix,
)

BOGONS_V4 = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
)  # fmt: skip  (NLNOG bogon prefixes, docs/standards.md#edge-import)
BOGONS_V6 = (
    "::/8", "100::/64", "2001:2::/48", "2001:10::/28", "2001:db8::/32", "2002::/16",
    "3ffe::/16", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
)  # fmt: skip
# Well-known transit-free networks (NLNOG no_transit_leaks, docs/standards.md#numbering).
TRANSIT_ASNS = (
    174,
    209,
    701,
    702,
    1239,
    1299,
    2914,
    3257,
    3320,
    3356,
    3549,
    3561,
    4134,
    5511,
    6453,
    6461,
    6762,
    7018,
)
GRACEFUL_SHUTDOWN = "65535:0"  # RFC 8326
PrefixRange = tuple[str, int | None, int | None]  # prefix, ge, le
HOST_LENGTH = {"ipv4": 32, "ipv6": 128}
# the longest prefixes the Internet's table carries (RFC 7454 section 6.1.3; NLNOG small
# prefixes): longer ones are dropped on import, ours and everyone else's
GLOBAL_LONGEST = {"ipv4": 24, "ipv6": 48}
# the shortest the Internet's table carries, the default route aside (an RIR's largest
# allocation): a shorter one from any party is a default route in disguise, 0.0.0.0/1 and
# 128.0.0.0/1 get past `accept_default: false` and beat the default the tenants should use
# (DENOG routing guide, prefix length filtering; NLNOG small prefixes' `ge 8 le 24`)
GLOBAL_SHORTEST = {"ipv4": 8, "ipv6": 16}
SUFFIX = {"ipv4": "V4", "ipv6": "V6"}
# the import clause that refuses the default route itself, absent with `accept_default`
DEFAULT_REFUSED = "default route"
LEARNED_EXTERNAL = "LC-LEARNED-EXTERNAL"


@dataclass
class PolicySet:
    """The policy objects one device needs, keyed by name so shared objects appear once."""

    prefix_lists: dict[str, PrefixList] = field(default_factory=dict)
    as_path_lists: dict[str, AsPathList] = field(default_factory=dict)
    community_lists: dict[str, CommunityList] = field(default_factory=dict)
    route_maps: dict[str, RouteMap] = field(default_factory=dict)

    def prefix_list(self, name: str, afi: Afi, prefixes: list[PrefixRange]) -> str:
        """Define a permit list once per device; return its name for a route-map match. A
        second definition of the name must match the first: a name shared by lists of
        different content would filter one session with another's prefixes (a builder bug)."""
        wanted = PrefixList(
            name=name,
            afi=afi,
            entries=[
                PrefixListEntry(seq=10 * (i + 1), action="permit", prefix=p, ge=ge, le=le)
                for i, (p, ge, le) in enumerate(prefixes)
            ],
        )
        known = self.prefix_lists.setdefault(name, wanted)
        if known != wanted:
            raise ValueError(f"prefix list {name} defined twice, with different entries")
        return name


def _orlonger(prefixes: tuple[str, ...] | list[str], afi: Afi) -> list[PrefixRange]:
    host = HOST_LENGTH[afi]
    return [(p, None, host if not p.endswith(f"/{host}") else None) for p in prefixes]


def _own_space(own: list[str], others: list[str], afi: Afi) -> list[PrefixRange]:
    """Each of our prefixes or longer, except what other sites announce inside it
    (`ExternalSession.other_sites`, reached through the Internet only): every prefix from ours
    down to theirs is matched exactly (each also covers our own part), the rest of ours or
    longer. So another site's aggregate and its more specifics pass; ours, and anything that
    spans both, do not."""
    holes = [addresses.network(o) for o in others]
    holes = [h for h in holes if not any(h != o and h.subnet_of(o) for o in holes)]  # type: ignore[arg-type]
    found: list[PrefixRange] = []
    for prefix in own:
        outer = addresses.network(prefix)
        inside = [h for h in holes if h != outer and h.subnet_of(outer)]  # type: ignore[arg-type]
        if not inside:
            found += _orlonger([prefix], afi)
            continue
        exact = {
            h.supernet(new_prefix=n) for h in inside for n in range(outer.prefixlen, h.prefixlen)
        }
        found += [(str(n), None, None) for n in sorted(exact)]
        found += _orlonger([str(n) for n in addresses.excluding(outer, inside)], afi)
    # a site's own aggregate inside the organisation's lies in one of the parts left (or is
    # one): an "or longer" entry inside another is not listed
    wide = [addresses.network(p) for p, _, le in found if le is not None]

    def covered(prefix: str) -> bool:
        net = addresses.network(prefix)
        return any(w != net and net.subnet_of(w) for w in wide)  # type: ignore[arg-type]

    kept = [r for r in dict.fromkeys(found) if r[2] is None or not covered(r[0])]
    return sorted(kept, key=lambda r: (addresses.network(r[0]), r[2] or 0))


def _of(afi: Afi, prefixes: tuple[str, ...]) -> list[str]:
    return [p for p in prefixes if (":" in p) == (afi == "ipv6")]


def _as_path_list(name: str, ranges: tuple[AsnRange, ...] | list[AsnRange]) -> AsPathList:
    return AsPathList(
        name=name,
        entries=[
            AsPathEntry(
                seq=10 * (i + 1),
                action="permit",
                first=r.first,
                last=r.last,
                description=r.why,
            )
            for i, r in enumerate(ranges)
        ],
    )


def build_policies(
    org_asn: int,
    site_code: int,
    sessions: list[ExternalSession],
    rpki: bool,
    lab: bool,
    length_in_route_map: bool = True,
) -> tuple[PolicySet, dict[ExternalSession, tuple[str, str]]]:
    """Policy objects for one device and, per session, its (import, export) route-map names.

    In a lab the documentation ranges (RFC 5737/3849/9637 prefixes, RFC 5398 ASNs) stand in for
    real ones, so lab filters let them through; production filters drop them (ADDR-009).
    `length_in_route_map`: the import maps drop long AS paths themselves (EDGE-013); False
    where the platform drops them in BGP instead (NX-OS, `Bgp.drop_as_path_length`).
    """
    policies = PolicySet()
    names: dict[ExternalSession, tuple[str, str]] = {}
    if not sessions:
        return policies, names
    policies.community_lists[LEARNED_EXTERNAL] = learned_external(org_asn)
    policies.community_lists["CL-GRACEFUL-SHUTDOWN"] = CommunityList(
        name="CL-GRACEFUL-SHUTDOWN", kind="standard", communities=[GRACEFUL_SHUTDOWN]
    )
    reserved = list(RESERVED_ASNS) if lab else [*RESERVED_ASNS, *DOCUMENTATION_ASNS]
    policies.as_path_lists["AS-RESERVED"] = _as_path_list("AS-RESERVED", reserved)
    lans = _ix_lans(sessions)
    for session in sessions:
        base = f"RM-{session.kind.upper().replace('_', '-')}-{party_tag(session.party)}"
        import_name = f"{base}-IN-{SUFFIX[session.afi]}"
        export_name = f"{base}-OUT-{SUFFIX[session.afi]}"
        if import_name not in policies.route_maps:
            policies.route_maps[import_name] = RouteMap(
                name=import_name,
                afi=session.afi,
                entries=_import_entries(
                    policies, session, org_asn, site_code, rpki, lab, lans, length_in_route_map
                ),
            )
            policies.route_maps[export_name] = RouteMap(
                name=export_name, afi=session.afi, entries=_export_entries(policies, session)
            )
        names[session] = (import_name, export_name)
    return policies, names


def learned_external(org_asn: int) -> CommunityList:
    """The large communities every import policy tags a route with, one per party class: a
    route carrying one was learned from an external party (never re-advertised to one)."""
    class_tags = [f"{org_asn}:1:{value}" for _, value in sorted(CLASS_VALUE.items())]
    return CommunityList(name=LEARNED_EXTERNAL, kind="large", communities=class_tags)


def _ix_lans(sessions: list[ExternalSession]) -> dict[Afi, dict[str, str]]:
    """Per family, each IX the device is on (by name) and its peering LAN."""
    lans: dict[Afi, dict[str, str]] = {}
    for s in sorted(sessions, key=lambda s: s.party):
        if s.peer_lan is not None:
            lans.setdefault(s.afi, {}).setdefault(s.party.split("/")[0], s.peer_lan)
    return lans


def party_tag(party: str) -> str:
    return party.upper().replace("/", "-").replace(".", "-").replace("_", "-")


def _import_entries(
    policies: PolicySet,
    s: ExternalSession,
    org_asn: int,
    site_code: int,
    rpki: bool,
    lab: bool,
    lans: dict[Afi, dict[str, str]],
    length_in_route_map: bool = True,
) -> list[RouteMapEntry]:
    afi, sfx = s.afi, SUFFIX[s.afi]
    host = HOST_LENGTH[afi]
    entries: list[RouteMapEntry] = []

    def deny(
        description: str,
        prefix_list: str | None = None,
        as_path: str | None = None,
        rpki_invalid: bool = False,
        as_path_length_ge: int | None = None,
    ) -> None:
        entries.append(
            RouteMapEntry(
                seq=10 * (len(entries) + 1),
                action="deny",
                description=description,
                match_prefix_list=prefix_list,
                match_as_path=as_path,
                match_rpki_invalid=rpki_invalid,
                match_as_path_length_ge=as_path_length_ge,
            )
        )

    if s.internet:
        bogons = [
            p
            for p in (BOGONS_V4 if afi == "ipv4" else BOGONS_V6)
            if not (lab and documentation_prefix(addresses.network(p)))
        ]
        deny(
            "bogon prefixes",
            prefix_list=policies.prefix_list(
                f"PL-BOGONS-{sfx}", afi, [(p, None, host) for p in bogons]
            ),
        )
        anything = "0.0.0.0/0" if afi == "ipv4" else "::/0"
        too_long = (anything, GLOBAL_LONGEST[afi] + 1, HOST_LENGTH[afi])
        deny(
            "too long for the global table",
            prefix_list=policies.prefix_list(f"PL-TOO-LONG-{sfx}", afi, [too_long]),
        )
    # our own space sent back: an Internet party's copy of our aggregates, or a cloud echoing
    # the tenant prefixes we advertise to it (either would pull our traffic out of the site)
    own = _of(afi, s.export_prefixes)
    if own:
        # the aggregates, one list for every Internet session; a cloud's, the prefixes of the
        # VRF it serves, one list per party (two clouds of two VRFs share a border leaf)
        owner = "" if s.internet else f"{party_tag(s.party)}-"
        deny(
            "our own address space",
            prefix_list=policies.prefix_list(
                f"PL-{owner}OWN-ORLONGER-{sfx}", afi, _own_space(own, _of(afi, s.other_sites), afi)
            ),
        )
    default = "0.0.0.0/0" if afi == "ipv4" else "::/0"
    if not s.accept_default:
        deny(
            DEFAULT_REFUSED,
            prefix_list=policies.prefix_list(f"PL-DEFAULT-{sfx}", afi, [(default, None, None)]),
        )
    # a default route in disguise (0.0.0.0/1 + 128.0.0.0/1), from any party: it beats the
    # transits' default at the border, the borders' in a tenant VRF; ge 1 leaves the default
    # itself to the clause above
    too_short = (default, 1, GLOBAL_SHORTEST[afi] - 1)
    deny(
        "too short: a default route in disguise",
        prefix_list=policies.prefix_list(f"PL-TOO-SHORT-{sfx}", afi, [too_short]),
    )
    # an IX peering LAN is never accepted: the device holds its IXes' LANs as connected
    # subnets, and from anyone but the IX (a transit, another exchange's party) the route
    # would draw the members' traffic off the exchange (NLNOG BGP Filter Guide, "Filtering
    # IXP Peering LANs": never from any other neighbour than the IXP itself)
    own_ix = s.party.split("/")[0] if s.peer_lan is not None else None
    for ix, lan in lans.get(afi, {}).items() if s.internet or own_ix else ():
        deny(
            "the IX peering LAN" if ix == own_ix else f"the IX peering LAN of {ix}",
            prefix_list=policies.prefix_list(
                f"PL-IXLAN-{party_tag(ix)}-{sfx}", afi, [(lan, None, host)]
            ),
        )
    deny("reserved ASN in the path", as_path="AS-RESERVED")
    if not s.private_asns_ok:
        policies.as_path_lists.setdefault("AS-PRIVATE", _as_path_list("AS-PRIVATE", PRIVATE_ASNS))
        deny("private ASN in the path", as_path="AS-PRIVATE")
    if s.peer_lock and s.remote_as not in TRANSIT_ASNS:
        policies.as_path_lists.setdefault(
            "AS-TRANSIT-FREE",
            _as_path_list(
                "AS-TRANSIT-FREE", [AsnRange(a, a, "transit-free network") for a in TRANSIT_ASNS]
            ),
        )
        deny("a transit-free network behind a peer (route leak)", as_path="AS-TRANSIT-FREE")
    if rpki and s.internet:
        deny("RPKI origin validation invalid", rpki_invalid=True)
    # absurdly long paths (NLNOG long paths, docs/standards.md#edge-013), on every external
    # session: a cloud's paths are a few ASNs long, so the clause never drops a route of its
    # business, while one of 100 ASNs from a cloud is as much a fault as from the Internet
    # (and on NX-OS the limit holds for the whole VRF anyway, cloud sessions included)
    if length_in_route_map:
        deny(
            f"AS path of {s.drop_as_path_length} ASNs or more",
            as_path_length_ge=s.drop_as_path_length,
        )

    allow = None
    if s.import_prefixes and not _of(afi, s.import_prefixes):
        # an allow-list with nothing of this family agreed: the session accepts nothing
        deny("nothing agreed in this address family")
        return entries
    if s.import_prefixes:
        allow = policies.prefix_list(
            f"PL-{party_tag(s.party)}-IN-{sfx}", afi, _orlonger(_of(afi, s.import_prefixes), afi)
        )
    tags = [f"{org_asn}:1:{CLASS_VALUE[s.kind]}", f"{org_asn}:2:{site_code}"]
    seq = 10 * (len(entries) + 1)
    entries.append(
        RouteMapEntry(
            seq=seq,
            action="permit",
            description="graceful shutdown (RFC 8326): least preferred",
            match_community="CL-GRACEFUL-SHUTDOWN",
            match_prefix_list=allow,
            set_local_preference=0,
            set_large_communities=tags,
        )
    )
    entries.append(
        RouteMapEntry(
            seq=seq + 10,
            action="permit",
            description=f"accept{' the allow-list' if allow else ''}: tag class and site",
            match_prefix_list=allow,
            set_local_preference=LOCAL_PREFERENCE[s.kind],
            set_large_communities=tags,
        )
    )
    return entries


def _export_entries(policies: PolicySet, s: ExternalSession) -> list[RouteMapEntry]:
    afi, sfx = s.afi, SUFFIX[s.afi]
    entries = [
        RouteMapEntry(
            seq=10,
            action="deny",
            description="never re-advertise what an external party sent",
            match_large_community=LEARNED_EXTERNAL,
        )
    ]
    prefixes = _of(afi, s.export_prefixes)
    if prefixes:
        name = f"PL-OWN-{sfx}" if s.internet else f"PL-{party_tag(s.party)}-OUT-{sfx}"
        entries.append(
            RouteMapEntry(
                seq=20,
                action="permit",
                description="our aggregates only" if s.internet else "the prefixes agreed for it",
                match_prefix_list=policies.prefix_list(
                    name, afi, [(p, None, None) for p in prefixes]
                ),
            )
        )
    return entries
