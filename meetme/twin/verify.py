"""`meetme twin verify`: what the design promises, proven from the routers' own JSON state.

Each check yields results that name the device and the session (or VRF) they are about; a
check that cannot be proven on this kernel fails and says why, it never passes silently.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from meetme.twin import runtime
from meetme.twin.parties import CLOUDS
from meetme.twin.topology import Declared, Twin

SETTLE_SECONDS = 60.0  # every declared session must be up within this after `up`
FAILOVER_SECONDS = 20.0  # a border's loss must be absorbed within this (hold time 9 s)
POLL = 0.25

Query = Callable[[str, str], Any]  # (namespace, show command) -> parsed JSON


@dataclass(frozen=True)
class Result:
    check: str  # sessions, ecmp, edge, prefix-limit, exports, clouds, tenant-vrfs, failover
    ok: bool
    device: str
    subject: str  # the session, route or VRF
    message: str
    seconds: float | None = None  # failover: the measured convergence time


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


def _from(paths: list[dict[str, Any]], peer: str) -> bool:
    return any(p.get("peerId") == peer for p in paths)


class Verifier:
    def __init__(self, twin: Twin, query: Query = runtime.vtysh_json) -> None:
        self.twin = twin
        self.query = query
        self.ns = {n.name: n.namespace for n in twin.nodes}
        self.flooded = {
            (s.device, s.their_address)
            for p in twin.party_plans
            if p.flood_afi
            for s in p.sessions
            if s.afi == p.flood_afi
        }

    # -- sessions ------------------------------------------------------------------------
    def session_results(self) -> list[Result]:
        return [r for _, r in self._sessions()]

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
                    ),
                )
            )
        return results

    def settle(self, deadline: float = SETTLE_SECONDS) -> float:
        """Wait until every declared session is Established (or the deadline); seconds."""
        started = time.monotonic()
        while time.monotonic() - started < deadline:
            if all(r.ok for r in self.session_results()):
                break
            time.sleep(1.0)
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
            want = self.twin.uplinks[leaf]
            for target, width in self._widths(leaf, others).items():
                loopback = f"{self.twin.router_ids[target]}/32"
                results.append(
                    Result(
                        "ecmp",
                        width == want,
                        leaf,
                        f"route to {target} {loopback}",
                        f"{leaf}: route to {target} loopback {loopback} has {width} next hops"
                        + ("" if width == want else f", expected {want} (one per uplink)"),
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
                results.append(Result("prefix-limit", ok, s.device, subject, message))
            # the flood must not touch any other external session of those routers
            for device in sorted({s.device for s in party.sessions}):
                peers = _peers(self.query, self.ns[device])
                down = [
                    d
                    for d in self.twin.declared
                    if d.device == device
                    and d.party not in (None, party.name)
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
    def cloud_routes(self) -> dict[str, list[tuple[str, str]]]:
        """VRF -> (prefix, cloud) of every cloud's legitimate route learned into it."""
        found: dict[str, list[tuple[str, str]]] = {}
        for party in self.twin.party_plans:
            for vrf in sorted({s.vrf for s in party.sessions if s.vrf}):
                for a in party.announcements:
                    if a.must_accept and a.afi == "ipv4":
                        found.setdefault(vrf, []).append((a.prefix, party.name))
        return {vrf: sorted(set(routes)) for vrf, routes in found.items()}

    def _vrf_routes(self, leaf: str, vrf: str) -> dict[str, list[Any]]:
        raw = self.query(self.ns[leaf], f"show ip route vrf {vrf} json") or {}
        return {p: [e for e in entries if e.get("selected")] for p, entries in raw.items()}

    def tenant_results(self) -> list[Result]:
        """Each leaf's tenant VRF has the default route and each cloud's route it serves."""
        results = []
        clouds = self.cloud_routes()
        for leaf, vrf in self.twin.tenant_vrfs:
            routes = self._vrf_routes(leaf, vrf)
            wanted = [("0.0.0.0/0", "the default route")]
            wanted += [(p, f"{cloud}'s {p}") for p, cloud in clouds.get(vrf, [])]
            for prefix, what in wanted:
                ok = bool(routes.get(prefix))
                why = "" if ok else self._why_missing(vrf, prefix)
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

    def _why_missing(self, vrf: str, prefix: str) -> str:
        """Where along border -> border leaf -> EVPN -> leaf a route of the VRF stops."""
        exits = self.twin.vrf_exits.get(vrf, [])
        if not exits:
            return f": no border leaf carries VRF {vrf} (no handoff, no cloud attachment)"
        if prefix == "0.0.0.0/0" and not self.twin.default_origins.get(vrf):
            return (
                f": no router sends a default route into VRF {vrf} (no handoff session of the "
                "model originates one)"
            )
        holding = [bl for bl in exits if self._vrf_routes(bl, vrf).get(prefix)]
        if not holding:
            return f": none of the border leaves of VRF {vrf} ({', '.join(exits)}) has it"
        return f": {', '.join(holding)} has it, but EVPN type-5 did not bring it here"

    # -- failover -------------------------------------------------------------------------
    def _exits(self, stopped: str) -> list[str]:
        """What a leaf must still reach with one border stopped: every border leaf and every
        other border (the north-south exits toward each external party)."""
        return [d for d in self._role("border_leaf") + self._role("border") if d != stopped]

    def _vrf_baseline(self) -> dict[tuple[str, str], set[str]]:
        """(leaf, VRF) -> the prefixes its tenant VRF has now."""
        return {
            (leaf, vrf): {p for p, e in self._vrf_routes(leaf, vrf).items() if e}
            for leaf, vrf in self.twin.tenant_vrfs
        }

    def _failover_faults(
        self,
        stopped: str,
        baseline: dict[str, dict[str, int]],
        vrf_baseline: dict[tuple[str, str], set[str]],
    ) -> list[Result]:
        faults = []
        for (leaf, vrf), before in vrf_baseline.items():
            present = {p for p, e in self._vrf_routes(leaf, vrf).items() if e}
            for prefix in sorted(before - present):
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

    def failover_results(self) -> list[Result]:
        results = []
        for border in self._role("border"):
            baseline = {
                leaf: self._widths(leaf, self._exits(border)) for leaf in self._role("leaf")
            }
            vrf_baseline = self._vrf_baseline()
            runtime.set_links(self.ns[border], up_=False)
            started = time.monotonic()
            time.sleep(POLL)
            faults = self._failover_faults(border, baseline, vrf_baseline)
            while faults and time.monotonic() - started < FAILOVER_SECONDS:
                time.sleep(POLL)
                faults = self._failover_faults(border, baseline, vrf_baseline)
            took = time.monotonic() - started
            if faults:
                results += faults
            else:
                results.append(
                    Result(
                        "failover",
                        True,
                        border,
                        "stopped",
                        f"{border} stopped: every leaf still reaches every exit with full "
                        f"ECMP and keeps every route of its tenant VRFs; converged in {took:.1f} s",
                        round(took, 2),
                    )
                )
            runtime.set_links(self.ns[border], up_=True)
            self.settle(FAILOVER_SECONDS * 2)
        return results

    def run(self, failover: bool = True) -> Iterator[Result]:
        self.settle()
        yield from self.session_results()
        yield from self.ecmp_results()
        yield from self.edge_results()
        yield from self.flood_results()
        yield from self.export_results()
        yield from self.cloud_results()
        yield from self.tenant_results()
        if failover:
            yield from self.failover_results()


def _family(afi: str) -> str:
    return "ipv4Unicast" if afi == "ipv4" else "ipv6Unicast"


def as_json(results: list[Result]) -> list[dict[str, Any]]:
    return [asdict(r) for r in results]
