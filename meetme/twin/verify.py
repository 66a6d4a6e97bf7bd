"""`meetme twin verify`: what the design promises, proven from the routers' own JSON state.

Each check yields results that name the device and the session (or VRF) they are about; a
check that cannot be proven on this kernel fails and says why, it never passes silently.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any, TypeVar

from meetme.generators.build.handoff import tenant_entries
from meetme.generators.model import PrefixList
from meetme.twin import runtime
from meetme.twin.parties import CLOUDS
from meetme.twin.topology import SERVICES, Declared, Srv6Border, Twin
from meetme.validators.policy_eval import prefix_list_permits

T = TypeVar("T")
SETTLE_SECONDS = 60.0  # every declared session must be up within this after `up`
FAILOVER_SECONDS = 20.0  # a border's loss must be absorbed within this (hold time 9 s)
HOLD_SECONDS = 12.0  # FRR's datacenter hold time (9 s) and a keepalive (3 s) of slack
STABLE_SECONDS = 4.0  # a failover converged once no poll finds a fault for this long
POLL = 0.25

Query = Callable[[str, str], Any]  # (namespace, show command) -> parsed JSON


@dataclass(frozen=True)
class Result:
    # sessions, ecmp, srv6-locators, edge, prefix-limit, exports, clouds, tenant-vrfs, failover ...
    check: str
    ok: bool
    device: str
    subject: str  # the session, route or VRF
    message: str
    seconds: float | None = None  # failover: the measured convergence time
    peer: str | None = None  # a session's other end (device or party): the picture's line
    state: str | None = None  # a session's BGP state as its router says it (Established, ...)


Peers = dict[tuple[str, str], dict[str, dict[str, Any]]]


def _peers(query: Query, ns: str) -> Peers:
    """(VRF, family) -> peer address -> its `show bgp vrf all summary json` entry."""
    raw = query(ns, "show bgp vrf all summary json") or {}
    found: Peers = {}
    for vrf, families in raw.items():
        for family, body in families.items() if isinstance(families, dict) else ():
            if isinstance(body, dict):
                found[(vrf, family)] = dict(body.get("peers", {}))
    return found


def _entry(peers: Peers, vrf: str | None, family: str, address: str) -> dict[str, Any]:
    return peers.get((vrf or "default", family), {}).get(address, {})


def _table(query: Query, ns: str, afi: str, vrf: str | None = None) -> dict[str, list[Any]]:
    where = f" vrf {vrf}" if vrf else ""
    raw = query(ns, f"show bgp{where} {afi} unicast json") or {}
    routes: dict[str, list[Any]] = raw.get("routes", {})
    return routes


def _selected(query: Query, ns: str, vrf: str, afi: str) -> dict[str, list[Any]]:
    """A VRF's routes in zebra's table (`show ip route vrf V json`), each with its selected
    entries only (none: not installed)."""
    ip = "ip" if afi == "ipv4" else "ipv6"
    raw = query(ns, f"show {ip} route vrf {vrf} json") or {}
    return {p: [e for e in entries if e.get("selected")] for p, entries in raw.items()}


def why_not_established(entry: dict[str, Any]) -> str:
    """What FRR says of a session that is not Established, from its `show bgp [vrf V]
    neighbors ADDR json` entry, in one clause: the last reset and its cause (a NOTIFICATION's
    reason and code, or FRR's own, such as "Waiting for NHT": no connected route to a
    directly connected peer), how often it came up and went down, the addresses of its last
    TCP connection (a connection sourced from another link's address is filed under that
    link's neighbour at the far end) and when FRR tries again."""
    if not entry:
        return "FRR: no such neighbour"
    parts = []
    reset = entry.get("lastResetDueTo")
    if reset:
        notified = entry.get("lastNotificationReason")
        code = entry.get("lastErrorCodeSubcode")
        detail = ", ".join(str(x) for x in (notified, code) if x)
        ago = entry.get("lastResetTimerMsecs")
        when = f" {int(ago) // 1000} s ago" if isinstance(ago, int) else ""
        parts.append(f"last reset{when}: {reset}" + (f" ({detail})" if detail else ""))
    shutdown = entry.get("lastShutdownDescription")
    if shutdown:
        parts.append(f"shutdown message: {shutdown}")
    up, dropped = entry.get("connectionsEstablished"), entry.get("connectionsDropped")
    if up is not None or dropped is not None:
        parts.append(f"established {up or 0} times, dropped {dropped or 0}")
    if entry.get("prefixesConfigExceedMax"):
        parts.append("past its maximum-prefix")
    if entry.get("hostLocal") or entry.get("hostForeign"):  # kept from the last connection
        parts.append(f"last TCP {entry.get('hostLocal', '?')} -> {entry.get('hostForeign', '?')}")
    for key, what in (
        ("nextConnectTimerDueInMsecs", "next connect"),
        ("nextStartTimerDueInMsecs", "next start"),
    ):
        due = entry.get(key)
        if isinstance(due, int):
            parts.append(f"{what} in {due / 1000:.0f} s")
    return "FRR: " + ("; ".join(parts) if parts else "no reason given")


def _from(paths: list[dict[str, Any]], peer: str) -> bool:
    return any(p.get("peerId") == peer for p in paths)


class Verifier:
    def __init__(
        self,
        twin: Twin,
        query: Query = runtime.vtysh_json,
        repair: Callable[[Twin], list[str]] = runtime.repair_l3vnis,
    ) -> None:
        self.twin = twin
        self.query = query
        self.repair = repair
        self.repaired: list[str] = []  # L3VNIs whose router MACs the twin had to install
        self.skipped: list[tuple[str, str]] = []  # (check, why): said, never silently absent
        self.ns = {n.name: n.namespace for n in twin.nodes}
        self.flooded = {
            (s.device, s.their_address)
            for p in twin.party_plans
            if p.flood_afi
            for s in p.sessions
            if s.afi == p.flood_afi
        }

    # -- sessions ------------------------------------------------------------------------
    def session_results(self, explain: bool = False) -> list[Result]:
        """Every declared session's state; with `explain`, one that is not Established also
        says what its router says of why (one more vtysh call each: for the results reported,
        not for a polling loop)."""
        return [
            replace(r, message=f"{r.message} ({self._why(d)})") if explain and not r.ok else r
            for d, r in self._sessions()
        ]

    def _why(self, d: Declared) -> str:
        """FRR's account of why a session is not Established."""
        where = f" vrf {d.vrf}" if d.vrf else ""
        raw = self.query(self.ns[d.device], f"show bgp{where} neighbors {d.address} json")
        entry = raw.get(d.address) if isinstance(raw, dict) else None
        return why_not_established(entry if isinstance(entry, dict) else {})

    def _sessions(self) -> list[tuple[Declared, Result]]:
        results: list[tuple[Declared, Result]] = []
        peers = {dev: _peers(self.query, self.ns[dev]) for dev in self._devices()}
        for d in self.twin.declared:
            if (d.device, d.address) in self.flooded:
                continue
            entry = _entry(peers[d.device], d.vrf, d.family, d.address)
            state = entry.get("state", "absent")
            where = f", VRF {d.vrf}" if d.vrf else ""
            subject = f"{d.description} ({d.address}, {d.family}{where})"
            ok = state == "Established"
            message = f"{d.device}: session {subject} is {state}"
            results.append(
                (
                    d,
                    Result(
                        "sessions",
                        ok,
                        d.device,
                        subject,
                        message + ("" if ok else ", not Established"),
                        peer=d.peer or d.party,
                        state=state,
                    ),
                )
            )
        return results

    def bfd_results(self) -> list[Result]:
        """Every session the model runs BFD on has its BFD session up (bfdd, the model's
        timers; `show bfd peers json` lists every VRF's)."""
        results = []
        up: dict[str, set[tuple[str, str]]] = {}
        for device in self._devices():
            peers = self.query(self.ns[device], "show bfd peers json") or []
            up[device] = {
                (p.get("vrf", "default"), p.get("peer", ""))
                for p in peers
                if isinstance(p, dict) and p.get("status") == "up"
            }
        for d in self.twin.declared:
            if not d.bfd or (d.device, d.address) in self.flooded:
                continue
            ok = (d.vrf or "default", d.address) in up[d.device]
            where = f", VRF {d.vrf}" if d.vrf else ""
            subject = f"{d.description} ({d.address}{where})"
            results.append(
                Result(
                    "bfd",
                    ok,
                    d.device,
                    subject,
                    f"{d.device}: BFD toward {subject} is " + ("up" if ok else "not up"),
                    peer=d.peer or d.party,
                )
            )
        return results

    def settle(self, deadline: float = SETTLE_SECONDS) -> float:
        """Wait until every declared session is Established, its BFD up, every party holds
        what it is agreed to receive and every leaf's tenant VRF its default and cloud routes
        (or the deadline); seconds. An Established
        session has not necessarily sent its updates yet: checking then would fail a
        design that is right (seen after a border's Internet ports came back)."""
        started = time.monotonic()
        while time.monotonic() - started < deadline:
            if (
                all(r.ok for r in self.session_results())
                and all(r.ok for r in self.bfd_results())
                and all(r.ok for r in self._receives(clouds=False) + self._receives(clouds=True))
                and all(r.ok for r in self.tenant_results())
            ):
                break
            time.sleep(1.0)
        # then the L3VNIs' data plane, where FRR 8.4 may have left a router MAC out
        # (runtime.repair_l3vnis); every settle (after each failover too) repairs again, and
        # each L3VNI is named once
        self.repaired += [n for n in self.repair(self.twin) if n not in self.repaired]
        return time.monotonic() - started

    def _devices(self) -> list[str]:
        return [n.name for n in self.twin.nodes if n.kind == "device"]

    def _role(self, role: str) -> list[str]:
        return [n.name for n in self.twin.nodes if n.kind == "device" and n.role == role]

    # -- leaf-to-leaf ECMP ----------------------------------------------------------------
    def _widths(self, leaf: str, targets: list[str]) -> dict[str, int]:
        """target device -> installed next hops toward its loopback from `leaf`."""
        widths = {}
        for target in targets:
            prefix = f"{self.twin.router_ids[target]}/32"
            raw = self.query(self.ns[leaf], f"show ip route {prefix} json") or {}
            entries = [e for e in raw.get(prefix, []) if e.get("selected")]
            hops = entries[0].get("nexthops", []) if entries else []
            widths[target] = len([h for h in hops if h.get("fib")])
        return widths

    def ecmp_results(self) -> list[Result]:
        results = []
        leaves = self._role("leaf")
        for leaf in leaves:
            others = [x for x in leaves if x != leaf]
            # an MLAG / vPC peer is one hop away over the peer VLAN: that path is the best
            direct = {
                d.peer for d in self.twin.declared if d.device == leaf and d.kind == "underlay"
            }
            for target, width in self._widths(leaf, others).items():
                want = 1 if target in direct else self.twin.uplinks[leaf]
                loopback = f"{self.twin.router_ids[target]}/32"
                results.append(
                    Result(
                        "ecmp",
                        width == want,
                        leaf,
                        f"route to {target} {loopback}",
                        f"{leaf}: route to {target} loopback {loopback} has {width} next hops"
                        + (
                            ""
                            if width == want
                            else f", expected {want} "
                            + ("(the peer VLAN)" if target in direct else "(one per uplink)")
                        ),
                    )
                )
        return results

    # -- the SRv6 fabric members' locators -----------------------------------------------
    def locator_results(self) -> list[Result]:
        """Every device running the IPv6 underlay routes to every SRv6 fabric member's locator
        by BGP: the route each hop forwards a packet steered through that member by."""
        results = []
        for member, prefix in sorted(self.twin.locators.items()):
            for device in self.twin.v6_underlay:
                if device == member:
                    continue
                raw = self.query(self.ns[device], f"show ipv6 route {prefix} json") or {}
                chosen = [e for e in raw.get(prefix, []) if e.get("selected")]
                how = chosen[0].get("protocol", "?") if chosen else "none"
                ok = how == "bgp"
                results.append(
                    Result(
                        "srv6-locators",
                        ok,
                        device,
                        f"route to {member}'s locator {prefix}",
                        f"{device}: route to {member}'s locator {prefix}: {how}"
                        + ("" if ok else ", expected one learned by BGP"),
                    )
                )
        return results

    # -- the edge: hostile rejected, legitimate accepted ----------------------------------
    def edge_results(self) -> list[Result]:
        results = []
        tables: dict[tuple[str, str, str | None], dict[str, list[Any]]] = {}
        for party in self.twin.party_plans:
            for s in party.sessions:
                if (s.device, s.their_address) in self.flooded:
                    continue
                key = (s.device, s.afi, s.vrf)
                if key not in tables:
                    tables[key] = _table(self.query, self.ns[s.device], s.afi, s.vrf)
                for a in party.announcements:
                    if a.afi != s.afi:
                        continue
                    learned = _from(tables[key].get(a.prefix, []), s.their_address)
                    ok = learned == a.must_accept
                    verdict = "accepted" if learned else "rejected"
                    subject = f"{party.name} ({s.their_address})"
                    results.append(
                        Result(
                            "edge",
                            ok,
                            s.device,
                            f"{subject} {a.prefix}",
                            f"{s.device}: session {subject}: {a.label} {a.prefix} {verdict}"
                            + (
                                ""
                                if ok
                                else " (must be "
                                + ("accepted" if a.must_accept else "rejected")
                                + ")"
                            ),
                        )
                    )
        return results

    # -- the prefix-limit flood -----------------------------------------------------------
    def flood_results(self) -> list[Result]:
        results = []
        for party in self.twin.party_plans:
            if not party.flood_afi:
                continue
            for s in party.sessions:
                peers = _peers(self.query, self.ns[s.device])
                entry = _entry(peers, s.vrf, _family(s.afi), s.their_address)
                state = entry.get("state", "absent")
                subject = f"{party.name} ({s.their_address}, {s.afi})"
                if s.afi == party.flood_afi:
                    ok = entry.get("peerState") == "PfxCt"
                    message = (
                        f"{s.device}: session {subject} sent {party.flood_count} routes past "
                        f"its limit and is {state}"
                        + ("" if ok else " (must be torn down by the limit)")
                    )
                else:
                    ok = state == "Established"
                    message = f"{s.device}: session {subject}, not flooded, is {state}"
                results.append(
                    Result("prefix-limit", ok, s.device, subject, message, peer=party.name)
                )
            # the flood must not touch any other external session of those routers (but
            # those another party floods, in the other family: its own results say those)
            for device in sorted({s.device for s in party.sessions}):
                peers = _peers(self.query, self.ns[device])
                down = [
                    d
                    for d in self.twin.declared
                    if d.device == device
                    and d.party not in (None, party.name)
                    and (d.device, d.address) not in self.flooded
                    and _entry(peers, d.vrf, d.family, d.address).get("state") != "Established"
                ]
                results.append(
                    Result(
                        "prefix-limit",
                        not down,
                        device,
                        "other external sessions",
                        f"{device}: other external sessions "
                        + (
                            "all Established"
                            if not down
                            else "down: " + ", ".join(d.description for d in down)
                        ),
                    )
                )
        return results

    # -- what each party receives ---------------------------------------------------------
    def _receives(self, clouds: bool) -> list[Result]:
        results = []
        for party in self.twin.party_plans:
            if (party.kind in CLOUDS) != clouds:
                continue
            tables = {afi: _table(self.query, self.ns[party.name], afi) for afi in party.afis()}
            for s in party.sessions:
                if (s.device, s.their_address) in self.flooded:
                    continue
                got = {p for p, paths in tables[s.afi].items() if _from(paths, s.our_address)}
                want = set(s.export_prefixes)
                ok = got == want
                where = f" in VRF {s.vrf}" if s.vrf else ""
                subject = f"{party.name} ({s.their_address}){where}"
                detail = "" if ok else f"; extra {sorted(got - want)}, missing {sorted(want - got)}"
                results.append(
                    Result(
                        "clouds" if clouds else "exports",
                        ok,
                        s.device,
                        subject,
                        f"{s.device}: session {subject} receives {sorted(got)}, "
                        f"agreed {sorted(want)}{detail}",
                    )
                )
        return results

    def export_results(self) -> list[Result]:
        """Each Internet party receives exactly our aggregates."""
        return self._receives(clouds=False)

    def cloud_results(self) -> list[Result]:
        """Each cloud receives exactly its agreed prefixes, from the VRF it serves."""
        return self._receives(clouds=True)

    # -- tenant VRFs on the leaves ---------------------------------------------------------
    def cloud_routes(self) -> dict[str, list[tuple[str, str, str]]]:
        """VRF -> (family, prefix, cloud) of every cloud's legitimate route learned into it,
        in each family the cloud's sessions carry."""
        found: dict[str, list[tuple[str, str, str]]] = {}
        for party in self.twin.party_plans:
            for vrf in sorted({s.vrf for s in party.sessions if s.vrf}):
                for a in party.announcements:
                    if a.must_accept:
                        found.setdefault(vrf, []).append((a.afi, a.prefix, party.name))
        return {vrf: sorted(set(routes)) for vrf, routes in found.items()}

    def _vrf_routes(self, leaf: str, vrf: str, afi: str = "ipv4") -> dict[str, list[Any]]:
        return _selected(self.query, self.ns[leaf], vrf, afi)

    def tenant_results(self) -> list[Result]:
        """Each leaf's tenant VRF has the default route, in each of its families, where the
        model puts one of that family into the VRF, and none where it does not (`internet:
        none`, or a family the VRF's handoff does not carry), and each cloud's route it
        serves."""
        results = []
        clouds = self.cloud_routes()
        for leaf, vrf, families in self.twin.tenant_vrfs:
            for afi in families:
                routes = self._vrf_routes(leaf, vrf, afi)
                origins = self.twin.default_origins.get(vrf, {})
                if not origins.get(afi):
                    other = bool(origins)
                    results.append(_no_default("tenant-vrfs", leaf, vrf, afi, routes, other))
                    wanted = []
                else:
                    wanted = [(_DEFAULT[afi], f"the default route ({afi})")]
                wanted += [(p, f"{cloud}'s {p}") for a, p, cloud in clouds.get(vrf, []) if a == afi]
                for prefix, what in wanted:
                    ok = bool(routes.get(prefix))
                    why = "" if ok else self._why_missing(vrf, prefix, afi)
                    if not ok and prefix == _DEFAULT[afi] and vrf in self.twin.unleaked:
                        why += UNLEAKED
                    results.append(
                        Result(
                            "tenant-vrfs",
                            ok,
                            leaf,
                            f"VRF {vrf} {prefix}",
                            f"{leaf}: VRF {vrf} " + ("has " if ok else "lacks ") + what + why,
                        )
                    )
        return results

    def _handoff_peers(self) -> dict[tuple[str, str, str], dict[str, str]]:
        """(border leaf, VRF, afi) -> handoff peer address -> the border behind it."""
        found: dict[tuple[str, str, str], dict[str, str]] = {}
        for d in self.twin.declared:
            if d.kind == "handoff" and d.vrf and d.peer and self.twin.role(d.device) != "border":
                afi = "ipv4" if d.family == "ipv4Unicast" else "ipv6"
                found.setdefault((d.device, d.vrf, afi), {})[d.address] = d.peer
        return found

    def north_south_results(self) -> list[Result]:
        """Each border leaf's handoff VRF has the default route from every border that puts
        one into the VRF (leaks it from its Internet table), in every family of the handoff;
        one no border puts one of the family into (`internet: none`) has none."""
        results = []
        for (leaf, vrf, afi), peers in sorted(self._handoff_peers().items()):
            origins = self.twin.default_origins.get(vrf, {})
            borders = [b for b in self._role("border") if b in origins.get(afi, [])]
            table = _table(self.query, self.ns[leaf], afi, vrf)
            if not borders:
                other = bool(origins)
                results.append(_no_default("north-south", leaf, vrf, afi, table, other))
                continue
            paths = table.get(_DEFAULT[afi], [])
            via = sorted({peers[p["peerId"]] for p in paths if p.get("peerId") in peers})
            missing = [b for b in sorted(borders) if b not in via]
            results.append(
                Result(
                    "north-south",
                    not missing,
                    leaf,
                    f"VRF {vrf} {_DEFAULT[afi]}",
                    f"{leaf}: VRF {vrf} has the default route ({afi}) from "
                    + (", ".join(via) or "no border")
                    + (f"; missing from {', '.join(missing)}" if missing else "")
                    + (UNLEAKED if missing and vrf in self.twin.unleaked else ""),
                )
            )
        return results

    def _why_missing(self, vrf: str, prefix: str, afi: str = "ipv4") -> str:
        """Where along border -> border leaf -> EVPN -> leaf a route of the VRF stops."""
        exits = self.twin.vrf_exits.get(vrf, [])
        if not exits:
            return f": no border leaf carries VRF {vrf} (no handoff, no cloud attachment)"
        holding = [bl for bl in exits if self._vrf_routes(bl, vrf, afi).get(prefix)]
        if not holding:
            return f": none of the border leaves of VRF {vrf} ({', '.join(exits)}) has it"
        return f": {', '.join(holding)} has it, but EVPN type-5 did not bring it here"

    def leak_results(self) -> list[Result]:
        """Each border's Internet table holds every public prefix its VRFs export (leaked
        from the VRF): the routes `exports` proves never leave alone."""
        results = []
        for border, public in sorted(self.twin.public.items()):
            tables = {afi: _table(self.query, self.ns[border], afi) for afi in ("ipv4", "ipv6")}
            for vrf, prefix in public:
                afi = "ipv6" if ":" in prefix else "ipv4"
                ok = bool(tables[afi].get(prefix))
                results.append(
                    Result(
                        "north-south",
                        ok,
                        border,
                        f"Internet table {prefix}",
                        f"{border}: the Internet table "
                        + ("holds" if ok else "lacks")
                        + f" VRF {vrf}'s public {prefix} (leaked from the VRF)",
                    )
                )
        return results

    # -- the services LAN ---------------------------------------------------------------------
    def services_results(self) -> list[Result]:
        """Each device on the services LAN reaches every RPKI cache (FLOW-005, in packets)."""
        hosts = [n for n in self.twin.nodes if n.kind == "host" and n.name == SERVICES]
        segments = [s for s in self.twin.segments if s.key.startswith(SERVICES + ":")]
        if not hosts or not segments:
            return []
        caches = [a.split("/")[0] for _, a in hosts[0].addresses]
        devices = [e.node for e in segments[0].endpoints if e.node != SERVICES]
        targets = [(d, c) for d in devices for c in caches]
        answered = runtime.pings([(self.ns[d], c) for d, c in targets])
        return [
            Result(
                "services",
                ok,
                d,
                f"RPKI cache {c}",
                f"{d}: RPKI cache {c} on the services LAN "
                + ("answers" if ok else "does not answer a ping"),
            )
            for (d, c), ok in zip(targets, answered, strict=True)
        ]

    # -- tenant hosts: packets through the fabric --------------------------------------------
    def _hosts(self) -> list[Any]:
        return [n for n in self.twin.nodes if n.kind == "host" and n.name != SERVICES]

    def host_results(self) -> list[Result]:
        """Each tenant network's host reaches its anycast gateway and each border leaf of
        its VRF (an address of the border leaf's own in the VRF: over the L3VNI, so a VRF
        with a single network and no cloud is crossed too), in each family; every other host
        of its VRF, in every family both have (over the L3VNI where they sit on other
        leaves), and every cloud address of its VRF whose agreed prefixes cover the host
        (the cloud's way back)."""
        targets: list[tuple[str, str, str, str]] = []  # (host, its address, target, address)
        hosts = self._hosts()
        for host in hosts:
            mine = [a.split("/")[0] for _, a in host.addresses]
            for gateway in host.gateways:
                source = next(m for m in mine if (":" in m) == (":" in gateway))
                targets.append((host.name, source, "its anycast gateway", gateway))
            for exit_, address in self._exit_addresses(host.role):
                source = next((m for m in mine if (":" in m) == (":" in address)), None)
                if source:
                    targets.append((host.name, source, exit_, address))
            for other in hosts:
                if other is host or other.role != host.role:
                    continue
                for _, theirs in other.addresses:
                    address = theirs.split("/")[0]
                    source = next((m for m in mine if (":" in m) == (":" in address)), None)
                    if source:
                        targets.append((host.name, source, other.name, address))
            for party in self.twin.party_plans:
                for s in party.sessions:
                    if s.vrf != host.role:
                        continue
                    # the cloud's address of the session's family, from a host address its
                    # agreed prefixes cover (export_prefixes hold that family's only)
                    for loopback in [a for a in party.loopbacks if (":" in a) == (s.afi == "ipv6")]:
                        covered = [m for m in mine if _inside(m, s.export_prefixes)]
                        if covered and (party.name, loopback) not in [
                            (t[2], t[3]) for t in targets if t[0] == host.name
                        ]:
                            targets.append((host.name, covered[0], party.name, loopback))
        answered = runtime.pings([(self.ns[h], address) for h, _, _, address in targets])
        return [
            Result(
                "hosts",
                ok,
                host,
                f"{target} {address}",
                f"host {host} ({source}) "
                + ("reaches" if ok else "does not reach")
                + f" {target} ({address})",
            )
            for (host, source, target, address), ok in zip(targets, answered, strict=True)
        ]

    def _exit_addresses(self, vrf: str) -> list[tuple[str, str]]:
        """(border leaf, address): each border leaf's first own address in the VRF per
        family, but link-local ones (a cloud attachment's 169.254.x: not routed)."""
        found = []
        for exit_ in self.twin.vrf_exits.get(vrf, []):
            own = [
                a.split("/")[0]
                for v, a in self.twin.vrf_addresses.get(exit_, [])
                if v == vrf and not ipaddress.ip_interface(a).is_link_local
            ]
            for v6 in (False, True):
                found += [(exit_, ip) for ip in own if (":" in ip) == v6][:1]
        return found

    # -- failover -------------------------------------------------------------------------
    def _exits(self, stopped: str) -> list[str]:
        """What a leaf must still reach with one border stopped: every border leaf and every
        other border (the north-south exits toward each external party)."""
        return [d for d in self._role("border_leaf") + self._role("border") if d != stopped]

    def _failover_vrfs(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """The tenant VRFs a border's loss must leave whole: the leaves' and the exits'."""
        return self.twin.tenant_vrfs + self.twin.exit_vrfs

    def _vrf_baseline(self) -> dict[tuple[str, str], set[str]]:
        """(leaf or border leaf, VRF) -> the prefixes its tenant VRF has now, in every family."""
        return {
            (leaf, vrf): self._vrf_prefixes(leaf, vrf, fams)
            for leaf, vrf, fams in self._failover_vrfs()
        }

    def _vrf_prefixes(self, leaf: str, vrf: str, families: tuple[str, ...]) -> set[str]:
        return {p for afi in families for p, e in self._vrf_routes(leaf, vrf, afi).items() if e}

    def _failover_faults(
        self,
        stopped: str,
        baseline: dict[str, dict[str, int]],
        vrf_baseline: dict[tuple[str, str], set[str]],
    ) -> list[Result]:
        faults = []
        families = {(leaf, vrf): fams for leaf, vrf, fams in self._failover_vrfs()}
        gone = {  # its own links' subnets go with it
            (v, str(ipaddress.ip_interface(a).network))
            for v, a in self.twin.vrf_addresses.get(stopped, [])
        }
        for (leaf, vrf), before in vrf_baseline.items():
            present = self._vrf_prefixes(leaf, vrf, families[(leaf, vrf)])
            for prefix in sorted(p for p in before - present if (vrf, p) not in gone):
                faults.append(
                    Result(
                        "failover",
                        False,
                        leaf,
                        f"VRF {vrf} {prefix}",
                        f"{leaf}: with {stopped} stopped, VRF {vrf} lost {prefix}",
                    )
                )
        for leaf in self._role("leaf"):
            now = self._widths(leaf, self._exits(stopped))
            for target, width in now.items():
                if width < baseline[leaf][target] or width == 0:
                    faults.append(
                        Result(
                            "failover",
                            False,
                            leaf,
                            f"route to {target}",
                            f"{leaf}: with {stopped} stopped, route to {target} "
                            f"{self.twin.router_ids[target]}/32 has {width} next hops "
                            f"(was {baseline[leaf][target]})",
                        )
                    )
        for d, r in self._sessions():
            if r.ok or stopped in (d.device, d.peer):
                continue  # the stopped router's own sessions go down by design
            faults.append(
                Result(
                    "failover",
                    False,
                    r.device,
                    r.subject,
                    f"{r.device}: with {stopped} stopped, session {r.subject} went down",
                )
            )
        return faults

    def _stop(self, border: str, up_: bool) -> None:
        """A border's every link down (or up again), its VRF namespaces' sub-interfaces too."""
        runtime.set_links(Twin.namespaces_of(self.twin.node(border)), up_)

    def _toward(self, stopped: str) -> list[str]:
        """The sessions of other routers to `stopped` that are still Established."""
        return [
            f"{d.device} {r.subject}"
            for d, r in self._sessions()
            if r.ok and d.peer == stopped and d.device != stopped
        ]

    def _converge(
        self,
        stopped: str,
        baseline: dict[str, dict[str, int]],
        vrf_baseline: dict[tuple[str, str], set[str]],
    ) -> tuple[list[Result], float, str]:
        """Poll the faults of a stopped border until no poll finds one for STABLE_SECONDS:
        the faults, the seconds from the links' loss to the end of the first clean poll, and
        how it went. A poll right after the links drop reads the routes from before the
        failure, so polling starts once every peer has dropped its sessions to the border
        (or their hold time has passed: a session still up then is a fault)."""
        started = time.monotonic()
        while (alive := self._toward(stopped)) and time.monotonic() - started < HOLD_SECONDS:
            time.sleep(POLL)
        dropped = time.monotonic() - started
        if alive:
            return (
                [
                    Result(
                        "failover",
                        False,
                        stopped,
                        "stopped",
                        f"{stopped} stopped: after {dropped:.1f} s these sessions to it are "
                        f"still Established: {', '.join(alive)}",
                    )
                ],
                dropped,
                "",
            )
        faults, history, stable = _until_stable(
            lambda: self._failover_faults(stopped, baseline, vrf_baseline), started
        )
        clean = _clean_run(history)
        if stable:
            return (
                [],
                clean[0],
                (
                    f"its peers' sessions to it down after {dropped:.1f} s; no fault on "
                    f"{len(clean)} polls over the next {clean[-1] - clean[0]:.1f} s"
                ),
            )
        if not faults:  # clean at the end, but not for long enough to call it converged
            faults = [
                Result(
                    "failover",
                    False,
                    stopped,
                    "stopped",
                    f"{stopped} stopped: faults still came and went "
                    f"{history[-1][0]:.1f} s after its links went down",
                )
            ]
        return faults, history[-1][0], ""

    def failover_results(self) -> list[Result]:
        results = []
        for border in self._role("border"):
            baseline = {
                leaf: self._widths(leaf, self._exits(border)) for leaf in self._role("leaf")
            }
            vrf_baseline = self._vrf_baseline()
            self._stop(border, up_=False)
            faults, took, how = self._converge(border, baseline, vrf_baseline)
            if faults:
                results += faults
            else:
                defaults = sum(
                    1
                    for prefixes in vrf_baseline.values()
                    for d in _DEFAULT.values()
                    if d in prefixes
                )
                results.append(
                    Result(
                        "failover",
                        True,
                        border,
                        "stopped",
                        f"{border} stopped: every leaf still reaches every exit with full "
                        "ECMP, every leaf and border leaf keeps every route of its tenant "
                        f"VRFs ({defaults} default routes among them); converged in "
                        f"{took:.1f} s ({how})",
                        round(took, 2),
                    )
                )
            self._stop(border, up_=True)
            self.settle(FAILOVER_SECONDS * 2)
            results += self._restored(border, vrf_baseline)
        return results

    def _restored(self, border: str, before: dict[tuple[str, str], set[str]]) -> list[Result]:
        """Once the border is back every tenant route it took away is back too (a route
        the routers never re-install would fail every later check), and every session is
        Established again (one that is not is said here, where it went wrong, with FRR's
        account of why, rather than only by a later check)."""
        started = time.monotonic()
        while True:
            now = self._vrf_baseline()
            missing = [(k, sorted(p - now[k])) for k, p in sorted(before.items()) if p - now[k]]
            if not missing or time.monotonic() - started > FAILOVER_SECONDS:
                break
            time.sleep(POLL)
        down = [
            Result(
                "failover",
                False,
                r.device,
                f"{r.subject} after {border} returned",
                f"{r.device}: {border} is back but session {r.subject} is {r.state}, not "
                f"Established ({self._why(d)})",
            )
            for d, r in self._sessions()
            if not r.ok
        ]
        return [
            Result(
                "failover",
                False,
                leaf,
                f"VRF {vrf} after {border} returned",
                f"{leaf}: {border} is back but VRF {vrf} still lacks {', '.join(prefixes)}",
            )
            for (leaf, vrf), prefixes in missing
        ] + down

    # -- a border without its Internet sessions: the pair iBGP ----------------------------
    def _internet_ports(self, border: str) -> list[str]:
        """The border's ports toward Internet parties (transits, PNIs, the IX)."""
        internet = {p.name for p in self.twin.party_plans if p.kind not in CLOUDS}
        return sorted(
            e.ifname
            for s in self.twin.segments
            if any(x.node in internet for x in s.endpoints)
            for e in s.endpoints
            if e.node == border
        )

    def _pair_defaults(self, border: str, links: set[str], afis: list[str]) -> dict[str, bool]:
        """afi -> whether the border's Internet table routes the default over the pair's
        links only (by interface: an IPv6 next hop is the peer's link-local address)."""
        found = {}
        for afi in afis:
            ip = "ip" if afi == "ipv4" else "ipv6"
            raw = self.query(self.ns[border], f"show {ip} route {_DEFAULT[afi]} json") or {}
            entries = [e for e in raw.get(_DEFAULT[afi], []) if e.get("selected")]
            via = {h.get("interfaceName") for e in entries for h in e.get("nexthops", [])}
            found[afi] = bool(via) and via <= links
        return found

    def pair_results(self) -> list[Result]:
        """Each border in turn loses every Internet session (its transit, PNI and IX ports
        down): it must keep the default over the border pair's iBGP (next-hop-self), so
        every tenant VRF keeps its default through both borders; the time is reported."""
        results = []
        for border in self._role("border"):
            afis = sorted(
                {
                    "ipv4" if d.family == "ipv4Unicast" else "ipv6"
                    for d in self.twin.declared
                    if d.device == border and d.kind == "border_ibgp"
                }
            )
            others = {
                d.peer for d in self.twin.declared if d.device == border and d.kind == "border_ibgp"
            }
            links = {
                e.ifname
                for s in self.twin.segments
                if len(s.endpoints) == 2 and {x.node for x in s.endpoints} == {border, *others}
                for e in s.endpoints
                if e.node == border and e.vrf is None
            }
            ports = self._internet_ports(border)
            if not afis or not ports:
                why = (
                    "no pair iBGP (no iBGP session to another border)"
                    if not afis
                    else "no port toward an Internet party"
                )
                self.skipped.append(
                    ("border-pair", f"{border}: {why}; losing its Internet sessions is not run")
                )
                continue
            before = self._vrf_baseline()
            runtime.set_links([self.ns[border]], up_=False, only=ports)
            started = time.monotonic()
            while True:
                time.sleep(POLL)
                over_pair = self._pair_defaults(border, links, afis)
                now = self._vrf_baseline()
                lost = sorted(
                    f"{leaf} VRF {vrf} {d}"
                    for (leaf, vrf), prefixes in before.items()
                    for d in _DEFAULT.values()
                    if d in prefixes and d not in now[(leaf, vrf)]
                )
                done = all(over_pair.values()) and not lost
                if done or time.monotonic() - started > FAILOVER_SECONDS:
                    break
            took = time.monotonic() - started
            runtime.set_links([self.ns[border]], up_=True, only=ports)
            detail = ", ".join(
                f"{afi} {'over the pair' if ok else 'NOT over the pair'}"
                for afi, ok in sorted(over_pair.items())
            )
            results.append(
                Result(
                    "border-pair",
                    done,
                    border,
                    "Internet sessions lost",
                    f"{border} without its Internet sessions: its default routes {detail}"
                    + (
                        f"; every tenant VRF keeps its default; converged in {took:.1f} s"
                        if done
                        else f"; tenant VRFs lost {', '.join(lost) or 'nothing'}"
                    ),
                    round(took, 2) if done else None,
                )
            )
            self.settle(FAILOVER_SECONDS * 2)
        return results

    # -- a leaf of a shared-VTEP pair cut off from the borders ----------------------------
    def _shared_vtep_pairs(self) -> list[tuple[str, str]]:
        """The border leaves that share one VTEP address with another (an EOS MLAG pair): the
        fabric sends either of them half the traffic for what the pair advertises."""
        by_vtep: dict[str, list[str]] = {}
        for node in self.twin.nodes:
            if node.kind == "device" and node.role == "border_leaf" and node.vtep:
                by_vtep.setdefault(node.vtep, []).append(node.name)
        return [(a, b) for names in by_vtep.values() if len(names) == 2 for a, b in [names]]

    def _kept_routes(self, leaf: str, cut: list[str]) -> dict[str, set[str]]:
        """VRF -> what the leaf's tenant VRF must keep once `cut` is down: every route it has
        now but the connected subnets of those links."""
        kept: dict[str, set[str]] = {}
        for vrf in self.twin.node(leaf).vrfs:
            for afi in ("ipv4", "ipv6"):
                for prefix, entries in self._vrf_routes(leaf, vrf, afi).items():
                    own = any(
                        e.get("protocol") == "connected"
                        and any(h.get("interfaceName") in cut for h in e.get("nexthops", []))
                        for e in entries
                    )
                    if entries and not own:
                        kept.setdefault(vrf, set()).add(prefix)
        return kept

    def mlag_results(self) -> list[Result]:
        """mlag-pair: each border leaf of a shared-VTEP pair in turn cut off from every border
        (its links to them down): the fabric still sends it half the traffic for the routes the
        pair advertises, so each of its tenant VRFs must keep every route it had, those the
        borders handed it now over the pair's VRF sessions; the time is reported."""
        results = []
        for pair in self._shared_vtep_pairs():
            for leaf in pair:
                borders = set(self._role("border"))
                cut = sorted(
                    e.ifname
                    for seg in self.twin.segments
                    if any(x.node in borders for x in seg.endpoints)
                    for e in seg.endpoints
                    if e.node == leaf
                )
                if not cut:
                    self.skipped.append(("mlag-pair", f"{leaf}: no link to a border to cut"))
                    continue
                kept = self._kept_routes(leaf, cut)
                namespaces = Twin.namespaces_of(self.twin.node(leaf))
                runtime.set_links(namespaces, up_=False, only=cut)
                started = time.monotonic()
                # a poll before the leaf's sessions to the borders are down reads the routes
                # from before the cut
                while self._to_borders(leaf) and time.monotonic() - started < HOLD_SECONDS:
                    time.sleep(POLL)
                lost, history, done = _until_stable(partial(self._lost, leaf, kept), started)
                clean = _clean_run(history)
                took = clean[0] if clean else history[-1][0]
                runtime.set_links(namespaces, up_=True, only=cut)
                results.append(
                    Result(
                        "mlag-pair",
                        done and not lost,
                        leaf,
                        "cut off from the borders",
                        f"{leaf} cut off from the borders ({len(cut)} interfaces down): "
                        + (
                            f"its tenant VRFs keep all {sum(map(len, kept.values()))} routes, "
                            f"those of the borders over {pair[1 - pair.index(leaf)]}; stable "
                            f"after {took:.1f} s"
                            if not lost
                            else f"its tenant VRFs lost {', '.join(lost)}"
                        ),
                        round(took, 2) if not lost else None,
                    )
                )
                self.settle(FAILOVER_SECONDS * 2)
        return results

    def _to_borders(self, leaf: str) -> list[str]:
        """The leaf's sessions to the borders that are still Established."""
        borders = set(self._role("border"))
        return [
            r.subject
            for d, r in self._sessions()
            if d.device == leaf and d.peer in borders and r.ok
        ]

    def _lost(self, leaf: str, kept: dict[str, set[str]]) -> list[str]:
        """What of `kept` the leaf's tenant VRFs no longer have."""
        return sorted(
            f"VRF {vrf} {prefix}"
            for vrf, prefixes in kept.items()
            for prefix in prefixes - self._vrf_prefixes(leaf, vrf, ("ipv4", "ipv6"))
        )

    def run(self, failover: bool = True) -> Iterator[Result]:
        self.settle()
        yield from self.session_results(explain=True)
        yield from self.bfd_results()
        yield from self.ecmp_results()
        yield from self.locator_results()
        yield from self.edge_results()
        yield from self.flood_results()
        yield from self.export_results()
        yield from self.cloud_results()
        yield from self.tenant_results()
        yield from self.north_south_results()
        yield from self.leak_results()
        yield from self.services_results()
        yield from self.host_results()
        if failover:
            yield from self.failover_results()
            yield from self.pair_results()
            yield from self.mlag_results()


# What the srv6-vpn check proves, and what it cannot, said beside its results.
SRV6_NOTE = (
    "srv6-vpn is the control plane only: FRR 8.4 carries the VPN routes and their SRv6 SIDs, "
    "but this kernel has no End.DT4 (and the twin's namespace VRFs no VRF table for End.DT6): "
    "no tenant packet crosses SRv6 in the twin"
)
UNLEAKED = (
    " (the twin cannot leak the Internet table into a VRF over SRv6: FRR 8.4 refuses "
    "`import vrf` beside VPN import/export, docs/twin.md)"
)
SRV6_SECONDS = 120.0  # IS-IS between the sites (LSP generation), then the VPN sessions


class Srv6Verifier:
    """The srv6-vpn check over the twins of several sites: each SRv6 VRF of each border holds
    every prefix each other site's border exports into the VPN, received from that border with
    a SID inside its locator (`show bgp <afi> vpn rd RD PREFIX json`: FRR 8.4 files the SID as
    `remoteSid`, with the function in `remoteLabel`, transposed)."""

    def __init__(self, twins: list[Twin], query: Query = runtime.vtysh_json) -> None:
        self.query = query
        self.twins = twins
        self.borders: dict[str, tuple[str, Srv6Border]] = {
            b.device: (twin.node(b.device).namespace, b) for twin in twins for b in twin.srv6
        }
        self.site_of = {b.device: twin.site for twin in twins for b in twin.srv6}

    def missing_sites(self) -> list[str]:
        """The far borders of a VRF whose site is not among the twins verified (not checked)."""
        return sorted(
            {d for _, b in self.borders.values() for _, d in b.peers if d not in self.borders}
        )

    def _exports(self, far: Srv6Border, rd: str, afi: str) -> list[str]:
        """The prefixes `far` exports under its RD: its own VPN table's routes of that RD."""
        ns = self.borders[far.device][0]
        raw = self.query(ns, f"show bgp {afi} vpn json") or {}
        return sorted(raw.get("routes", {}).get("routeDistinguishers", {}).get(rd, {}))

    def results(self) -> list[Result]:
        results = []
        for ns, border in sorted(self.borders.values(), key=lambda x: x[1].device):
            peers = _peers(self.query, ns)
            for address, far_name in border.peers:
                if far_name not in self.borders:
                    continue
                far = self.borders[far_name][1]
                for afi in ("ipv4", "ipv6"):
                    family = "ipv4Vpn" if afi == "ipv4" else "ipv6Vpn"
                    state = _entry(peers, None, family, address).get("state", "absent")
                    subject = f"{afi} VPN session to {far_name} ({address})"
                    ok = state == "Established"
                    message = f"{border.device}: {subject} is {state}"
                    results.append(
                        Result(
                            "srv6-vpn",
                            ok,
                            border.device,
                            subject,
                            message + ("" if ok else ", not Established"),
                            peer=far_name,
                        )
                    )
                far_vrfs = {v: rd for v, rd, _ in far.vrfs}
                for vrf, _, families in border.vrfs:
                    if vrf not in far_vrfs:
                        continue
                    for afi in families:
                        results.append(self._vrf_result(ns, border, far, vrf, far_vrfs[vrf], afi))
        return results

    def _vrf_result(
        self, ns: str, border: Srv6Border, far: Srv6Border, vrf: str, rd: str, afi: str
    ) -> Result:
        subject = f"VRF {vrf} {afi} from {far.device} (RD {rd})"
        exported = self._exports(far, rd, afi)
        faults = [] if exported else [f"{far.device} exports no {afi} route of VRF {vrf}"]
        in_vrf = _table(self.query, ns, afi, vrf)
        far_address = next(a for a, d in border.peers if d == far.device)
        sids = []
        for prefix in exported:
            raw = self.query(ns, f"show bgp {afi} vpn rd {rd} {prefix} json") or {}
            paths = raw.get(rd, {}).get("paths", [])
            mine = [p for p in paths if p.get("peer", {}).get("peerId") == far_address]
            sid = next((p["remoteSid"] for p in mine if "remoteSid" in p), None)
            if not mine:
                faults.append(f"{prefix} not received from {far.device}")
            elif sid is None or not _inside(sid, (far.locator,)):
                faults.append(f"{prefix} carries SID {sid}, not in {far.device}'s {far.locator}")
            elif prefix not in in_vrf:
                faults.append(f"{prefix} not imported into VRF {vrf}")
            else:
                sids.append(f"{prefix} SID {sid}")
        ok = not faults
        message = (
            f"{border.device}: VRF {vrf} holds {len(sids)} {afi} prefix(es) of {far.device} "
            f"over SRv6, SIDs in its locator {far.locator}: {', '.join(sids)}"
            if ok
            else f"{border.device}: VRF {vrf} ({afi}) from {far.device}: {'; '.join(faults)}"
        )
        return Result("srv6-vpn", ok, border.device, subject, message, peer=far.device)

    def south_results(self) -> list[Result]:
        """srv6-south: each border leaf and leaf of a site's VRF over SRv6 holds every prefix
        the VRF's other sites' borders (those in this verify) export into the VPN that this
        site's borders hand south (`Twin.srv6_south`, longer prefixes up to the handoff's
        longest): the VPN, the border's south policy, the handoff and EVPN, end to end."""
        results = []
        for twin in self.twins:
            for vrf, south in sorted(twin.srv6_south.items()):
                fars = self._far_borders(twin.site, vrf)
                if not fars:
                    continue  # no other site of the VRF in this verify (missing_sites says so)
                for afi in ("ipv4", "ipv6"):
                    handed = [p for p in south if _family_of(p) == afi]
                    if handed:
                        results += self._south_vrf(twin, vrf, afi, handed, fars)
        return results

    def _far_borders(self, site: str, vrf: str) -> list[tuple[Srv6Border, str]]:
        """The borders of the VRF's other sites in this verify, each with its RD there."""
        return [
            (border, rd)
            for _, border in sorted(self.borders.values(), key=lambda x: x[1].device)
            if self.site_of[border.device] != site
            for name, rd, _ in border.vrfs
            if name == vrf
        ]

    def _south_vrf(
        self,
        twin: Twin,
        vrf: str,
        afi: str,
        handed: list[str],
        fars: list[tuple[Srv6Border, str]],
    ) -> list[Result]:
        # what the border's south policy admits: the builder's own entries for these prefixes
        south = PrefixList(name="south", afi=afi, entries=tuple(tenant_entries(handed, afi)))
        wanted = sorted(
            {
                p
                for far, rd in fars
                for p in self._exports(far, rd, afi)
                if prefix_list_permits(south, p)
            },
            key=_sort_key,
        )
        exits = twin.vrf_exits.get(vrf, [])
        leaves = [leaf for leaf, v, families in twin.tenant_vrfs if v == vrf and afi in families]
        held = {d: _selected(self.query, twin.node(d).namespace, vrf, afi) for d in exits + leaves}
        sources = ", ".join(sorted({far.device for far, _ in fars}))
        results = []
        for device in [*exits, *leaves]:
            subject = f"VRF {vrf} {afi} from other sites"
            if not wanted:
                message = (
                    f"{device}: VRF {vrf} ({afi}): no route exported by {sources} lies "
                    f"within what this site's borders hand south ({', '.join(handed)})"
                )
                results.append(Result("srv6-south", False, device, subject, message))
                continue
            missing = [p for p in wanted if not held[device].get(p)]
            if not missing:
                message = (
                    f"{device}: VRF {vrf} holds the other sites' {len(wanted)} {afi} "
                    f"prefix(es) from {sources}: {', '.join(wanted)}"
                )
            else:
                message = f"{device}: VRF {vrf} lacks {', '.join(missing)} ({afi}) of {sources}"
                if device in leaves:
                    message += _where_south_stops(missing, exits, held)
            results.append(Result("srv6-south", not missing, device, subject, message))
        return results

    def run(self, deadline: float = SRV6_SECONDS) -> list[Result]:
        """The results (srv6-vpn, then srv6-south) once all pass, or as they stand at the
        deadline."""
        started = time.monotonic()
        results = self.results() + self.south_results()
        while not all(r.ok for r in results) and time.monotonic() - started < deadline:
            time.sleep(2.0)
            results = self.results() + self.south_results()
        return results


def _where_south_stops(
    missing: list[str], exits: list[str], held: dict[str, dict[str, list[Any]]]
) -> str:
    """Why a leaf lacks the other sites' prefixes: the border leaves lack them too (the
    borders hand them no further), or EVPN did not bring them from the border leaves."""
    if not exits:
        return ": no border leaf carries the VRF"
    if all(not held[e].get(p) for e in exits for p in missing):
        return ": the border leaves lack them too (the borders do not hand them south)"
    return ": the border leaves hold them, EVPN did not bring them"


def _family_of(prefix: str) -> str:
    return "ipv6" if ":" in prefix else "ipv4"


def _sort_key(prefix: str) -> tuple[int, int, int]:
    net = ipaddress.ip_network(prefix)
    return net.version, int(net.network_address), net.prefixlen


_DEFAULT = {"ipv4": "0.0.0.0/0", "ipv6": "::/0"}


def _no_default(
    check: str, device: str, vrf: str, afi: str, routes: dict[str, Any], other: bool = False
) -> Result:
    """A VRF no router of the model puts a default route of the family into (its handoff's
    `internet: none`: no border leaks one from its Internet table, no session originates one;
    or, `other`, it gets one in the other family only: its handoff carries none in this one)
    has none: a default there is a way out the design does not give it."""
    ok = not routes.get(_DEFAULT[afi])
    why = "as" if ok else "though"
    reason = f"its handoff carries no {afi} default" if other else "internet: none"
    return Result(
        check,
        ok,
        device,
        f"VRF {vrf} {_DEFAULT[afi]}",
        f"{device}: VRF {vrf} has {'no' if ok else 'a'} default route ({afi}), {why} no "
        f"router puts one into it ({reason})",
    )


def _until_stable(
    poll: Callable[[], list[T]], started: float
) -> tuple[list[T], list[tuple[float, int]], bool]:
    """Poll the faults until no poll finds one for STABLE_SECONDS (at least two polls) or
    the deadline passes: the last faults, (seconds since `started` at each poll's end,
    faults) per poll, and whether it came to rest. The deadline is on a poll's start: a
    poll reads every router in turn (15 s for 69 routers on a busy 2-core machine), and a
    clean poll that ended past the deadline must still get the
    second one that shows the site at rest, not read as faults that came and went."""
    history: list[tuple[float, int]] = []
    while True:
        began = time.monotonic() - started
        faults = poll()
        history.append((time.monotonic() - started, len(faults)))
        clean = _clean_run(history)
        stable = len(clean) > 1 and clean[-1] - clean[0] >= STABLE_SECONDS
        if stable or began > FAILOVER_SECONDS + STABLE_SECONDS:
            return faults, history, stable
        time.sleep(POLL)


def _clean_run(history: list[tuple[float, int]]) -> list[float]:
    """The times of the trailing polls that found no fault (history: (seconds, faults))."""
    run: list[float] = []
    for seconds, faults in history:
        run = [] if faults else [*run, seconds]
    return run


def _inside(address: str, prefixes: tuple[str, ...]) -> bool:
    ip = ipaddress.ip_address(address)
    return any(
        ip.version == net.version and ip in net for net in map(ipaddress.ip_network, prefixes)
    )


def _family(afi: str) -> str:
    return "ipv4Unicast" if afi == "ipv4" else "ipv6Unicast"


def as_json(results: list[Result]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
