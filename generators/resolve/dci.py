"""Resolve the DCI: per site pair, the circuits between the two sites, their capacity now and
after the worst single failure, the lowest latency, and build against lease economics.

The DCI rules (capacity after a failure) and `meetme report dci` read these figures, so a rule
and the report never disagree. Money is computed with exact fractions (no float rounding in
a crossover month) and handed out as floats.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from meetme.generators.resolve.srv6 import locators

from meetme.intent.schema import Intent
from meetme.intent.schema_dci import DciCircuit, DciNeed
from meetme.intent.types import SPEED_GBPS

Path_ = tuple[str | int, ...]
# the shared-risk tag kinds, as written under a circuit's `diversity:`
RISK_KINDS = ("fibre_routes", "ila_sites", "providers", "conduits")


def capacity_gbps(circuit: DciCircuit) -> int:
    """What a circuit carries: the leased service's capacity (never more than the port), or
    the port speed of a built one."""
    speed = SPEED_GBPS[circuit.speed]
    return speed if circuit.leased is None else min(circuit.leased.capacity_gbps, speed)


def risks(circuit: DciCircuit) -> dict[str, set[str]]:
    """Shared-risk tags by kind; a leased circuit's provider is one of its providers."""
    found = {kind: set(getattr(circuit.diversity, kind)) for kind in RISK_KINDS}
    if circuit.leased is not None:
        found["providers"].add(circuit.leased.provider)
    return found


def pair_of(circuit: DciCircuit) -> tuple[str, str]:
    a, b = sorted((circuit.a.site, circuit.b.site))
    return a, b


@dataclass(frozen=True)
class Option:
    """One way to buy a pair's capacity: its circuits' sums, over the comparison term."""

    circuits: tuple[str, ...]
    capacity_gbps: int
    capex: float  # 0 for leasing
    monthly: float
    total: float | None  # capex + monthly x term; None without a term
    per_gbps_month: float | None  # total / term / capacity
    lead_time_weeks: int | None = None  # building: the longest lead time of its circuits

    def cumulative_per_gbps(self, month: int) -> float:
        """Cost of one Gbps up to the end of `month` (0: capex only)."""
        return (self.capex + self.monthly * month) / self.capacity_gbps


@dataclass(frozen=True)
class PairFigures:
    sites: tuple[str, str]
    circuits: tuple[str, ...]
    capacity_gbps: int
    # of that, on circuits that carry routing (both ends hold SRv6 locators; DCI-009 warns of
    # the rest, lit but dark): what the tenants can actually use between the sites
    routed_gbps: int
    after_failure_gbps: int  # after the worst single circuit failure
    worst_failure: str | None  # that circuit
    # after the worst event that takes several circuits at once (one duct cut...): None when
    # the circuits share no tag
    after_shared_risk_gbps: int | None
    worst_shared_risk: str | None  # e.g. "conduits syd-north-duct"
    lowest_latency_ms: float | None
    need_gbps: int | None
    need_path: Path_ | None  # where the need is written
    term_months: int | None
    build: Option | None
    lease: Option | None
    crossover_month: int | None  # first month whose end sees building cost no more per Gbps


def _option(
    names: list[str], circuits: dict[str, DciCircuit], term: int | None, built: bool
) -> Option | None:
    chosen = [n for n in names if (circuits[n].built is not None) == built]
    capacity = sum(capacity_gbps(circuits[n]) for n in chosen)
    if not chosen or capacity <= 0:
        return None
    capex = Fraction(0)
    monthly = Fraction(0)
    for name in chosen:
        circuit = circuits[name]
        if circuit.built is not None:
            capex += Fraction(circuit.built.capex)
            monthly += Fraction(circuit.built.opex_monthly)
        elif circuit.leased is not None:
            monthly += Fraction(circuit.leased.monthly)
    leads = [c.built.lead_time_weeks for n in chosen if (c := circuits[n]).built is not None]
    total = None if term is None or term <= 0 else capex + monthly * term
    per_gbps = None if total is None or term is None else total / term / capacity
    return Option(
        tuple(chosen),
        capacity,
        float(capex),
        float(monthly),
        None if total is None else float(total),
        None if per_gbps is None else float(per_gbps),
        max(leads) if leads else None,
    )


def crossover(build: Option, lease: Option) -> int | None:
    """The first month m >= 1 at whose end building has cost no more per Gbps than leasing:
    capex/Cb + opex/Cb x m <= L/Cl x m. None when building never catches up."""
    fixed = Fraction(build.capex) / build.capacity_gbps
    gap = Fraction(lease.monthly) / lease.capacity_gbps - Fraction(build.monthly) / (
        build.capacity_gbps
    )
    if fixed <= 0:
        return 1 if gap >= 0 else None
    if gap <= 0:
        return None
    return max(1, math.ceil(fixed / gap))


def _term(need: DciNeed | None, names: list[str], circuits: dict[str, DciCircuit]) -> int | None:
    if need is not None and need.term_months is not None:
        return need.term_months
    terms = [c.leased.term_months for n in names if (c := circuits[n]).leased is not None]
    return max(terms) if terms else None


def pair_figures(intent: Intent) -> list[PairFigures]:
    """One entry per site pair that has circuits or a need, sorted by the pair."""
    dci = intent.dci
    if dci is None:
        return []
    by_pair: dict[tuple[str, str], list[str]] = {}
    for name, circuit in sorted(dci.circuits.items()):
        by_pair.setdefault(pair_of(circuit), []).append(name)
    needs: dict[tuple[str, str], tuple[DciNeed, Path_]] = {}
    for index, declared in enumerate(dci.needs):
        a, b = sorted(declared.sites)
        needs.setdefault((a, b), (declared, ("dci", "needs", index)))
    # circuits whose two ends hold locators: the only ones carrying routing (DCI-009)
    inside = locators(intent)
    routed = {n for n, c in dci.circuits.items() if {c.a.device, c.b.device} <= set(inside)}
    figures = []
    for pair in sorted(set(by_pair) | set(needs)):
        names = by_pair.get(pair, [])
        need: DciNeed | None = None
        need_path: Path_ | None = None
        if pair in needs:
            need, need_path = needs[pair]
        figures.append(_figures(pair, names, dci.circuits, need, need_path, routed))
    return figures


def _figures(
    pair: tuple[str, str],
    names: list[str],
    circuits: dict[str, DciCircuit],
    need: DciNeed | None,
    need_path: Path_ | None,
    routed: set[str],
) -> PairFigures:
    capacity = {n: capacity_gbps(circuits[n]) for n in names}
    total = sum(capacity.values())
    worst = max(names, key=lambda n: (capacity[n], n), default=None)
    # a shared-risk event takes every circuit carrying the tag; a tag of one circuit only is
    # that circuit's failure, already counted
    carriers: dict[str, list[str]] = {}
    for name in names:
        for kind, tags in risks(circuits[name]).items():
            for tag in tags:
                carriers.setdefault(f"{kind} {tag}", []).append(name)
    events = {e: sum(capacity[n] for n in c) for e, c in carriers.items() if len(c) > 1}
    risk = max(sorted(events), key=lambda e: events[e], default=None)
    term = _term(need, names, circuits)
    build = _option(names, circuits, term, built=True)
    lease = _option(names, circuits, term, built=False)
    return PairFigures(
        sites=pair,
        circuits=tuple(names),
        capacity_gbps=total,
        routed_gbps=sum(capacity[n] for n in names if n in routed),
        after_failure_gbps=total - (capacity[worst] if worst is not None else 0),
        worst_failure=worst,
        after_shared_risk_gbps=None if risk is None else total - events[risk],
        worst_shared_risk=risk,
        lowest_latency_ms=min((circuits[n].latency_ms for n in names), default=None),
        need_gbps=None if need is None else need.capacity_gbps,
        need_path=need_path,
        term_months=term,
        build=build,
        lease=lease,
        crossover_month=None if build is None or lease is None else crossover(build, lease),
    )
