"""The design-standard rule engine: one rule, one small function, with an id and a rationale.

A rule yields `Hit`s (what is wrong and at which intent path); the engine turns them into
`Finding`s with the rule's id and severity and the file:line:column of that path. It then
applies the intent's standards profile (per-rule severity overrides) and its waivers: a waived
finding is reported with severity `waived`; expired, unused and unknown-rule waivers are
findings of their own (WAIVER-001..003), and so is a waiver or override of a platform gap
(WAIVER-004).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from meetme.generators.resolve.fabric import SiteFabric

from meetme.core.findings import SEVERITY_ORDER, Finding, Severity, WaivedBy, current_date
from meetme.intent.loader import LoadedIntent
from meetme.intent.schema import Site

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Hit:
    """What a rule found: a message and the intent path it is about."""

    message: str
    path: Path_


@dataclass(frozen=True)
class SiteContext:
    """What a rule sees of one site: the intent and the resolved fabric."""

    name: str
    site: Site
    loaded: LoadedIntent
    fabric: SiteFabric
    # every site's resolved fabric, this one's included: what the other sites announce
    fabrics: Mapping[str, SiteFabric] = field(default_factory=dict)

    @property
    def base(self) -> Path_:
        return ("sites", self.name)


CheckFn = Callable[[SiteContext], Iterator[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    title: str
    rationale: str
    source: str
    check: CheckFn
    # False: no waiver covers its findings and the standards profile cannot lower it (a
    # platform gap: the renderer refuses the device whatever the finding is called)
    waivable: bool = True


RULES: dict[str, Rule] = {}
UNUSED_WAIVER = "WAIVER-002"
UNWAIVABLE = "WAIVER-004"


def rule(
    id: str, severity: Severity, title: str, rationale: str, source: str, waivable: bool = True
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function as a rule."""

    def register(check: CheckFn) -> CheckFn:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        RULES[id] = Rule(id, severity, title, rationale, source, check, waivable)
        return check

    return register


def finding_at(loaded: LoadedIntent, rule_id: str, message: str, path: Path_) -> Finding:
    """A registered rule's finding at an intent path: the rule's severity, the path's
    file:line:column."""
    return Finding(
        rule=rule_id,
        severity=RULES[rule_id].severity,
        message=message,
        location=loaded.where(path),
        path=".".join(str(p) for p in path),
    )


def run_rules(
    loaded: LoadedIntent,
    fabrics: dict[str, SiteFabric],
    today: datetime.date | None = None,
    standards: bool = True,
) -> list[Finding]:
    """Every rule on every site, then (`standards`) the standards profile and the waivers.

    `today` decides which waivers have expired; by default $MEETME_TODAY or the real date.
    A caller that adds findings of its own passes `standards=False` and then hands all of
    them to `apply_standards`, so waivers and overrides cover those too.
    """
    findings: set[Finding] = set()  # organisation-wide rules hit once per site: keep one
    for site_name, site in sorted(loaded.intent.sites.items()):
        ctx = SiteContext(site_name, site, loaded, fabrics[site_name], fabrics)
        for rule_id in sorted(RULES):
            current = RULES[rule_id]
            for hit in current.check(ctx):
                findings.add(finding_at(loaded, current.id, hit.message, hit.path))
    reported = apply_standards(findings, loaded, today) if standards else list(findings)
    return sorted(
        reported, key=lambda f: (f.location, SEVERITY_ORDER[f.severity], f.rule, f.message)
    )


def covers(waived_object: str, path: str) -> bool:
    """A waiver's object covers a finding's path when it is the path or a prefix of it."""
    return path == waived_object or path.startswith(waived_object + ".")


def apply_standards(
    findings: Iterable[Finding], loaded: LoadedIntent, today: datetime.date | None = None
) -> list[Finding]:
    """The intent's standards profile (severity overrides), then its waivers; plus the
    findings about the waivers themselves (WAIVER-001..004). Call it once, on every finding."""
    today = today or current_date()
    intent = loaded.intent
    overrides = intent.standards.severity
    findings = {
        replace(f, severity=overrides[f.rule]) if f.rule in overrides and _waivable(f.rule) else f
        for f in findings
    }
    waivers = list(enumerate(intent.waivers))
    # valid through `expires`, and only for a rule that takes a waiver (WAIVER-004 otherwise)
    active = [(i, w) for i, w in waivers if w.expires >= today and _waivable(w.rule)]
    used: set[int] = set()
    reported: list[Finding] = []
    for finding in findings:
        match = next(
            (
                (i, w)
                for i, w in active
                if w.rule == finding.rule and covers(w.object, finding.path)
            ),
            None,
        )
        severity = finding.severity
        if match is None or severity == "waived":  # (rules never report `waived` themselves)
            reported.append(finding)
            continue
        index, waiver = match
        used.add(index)
        waived_by = WaivedBy(
            loaded.where(("waivers", index)), waiver.owner, waiver.reason, waiver.expires, severity
        )
        reported.append(replace(finding, severity="waived", waived_by=waived_by))

    def meta(rule_id: str, message: str, path: Path_) -> Finding:
        severity = intent.standards.severity.get(rule_id, RULES[rule_id].severity)
        return Finding(
            rule_id, severity, message, loaded.where(path), ".".join(str(p) for p in path)
        )

    for index, waiver in waivers:
        what = f"waiver of {waiver.rule} on {waiver.object} (owner {waiver.owner})"
        if waiver.rule not in RULES:
            reported.append(
                meta(
                    "WAIVER-003",
                    f"{what} names an unknown rule; `meetme rules` lists the rule ids",
                    ("waivers", index, "rule"),
                )
            )
        elif not _waivable(waiver.rule):
            reported.append(
                meta(
                    UNWAIVABLE,
                    f"{what}: {_refused(waiver.rule)}",
                    ("waivers", index, "rule"),
                )
            )
        elif waiver.expires < today:
            still = sum(f.rule == waiver.rule and covers(waiver.object, f.path) for f in findings)
            now = (
                f"the {still} finding(s) it covered are reported again: fix them, or renew "
                "the waiver with a new expiry and reason"
                if still
                else "it matches no finding any more: remove it"
            )
            reported.append(
                meta(
                    "WAIVER-001",
                    f"{what} expired on {waiver.expires.isoformat()}; {now}",
                    ("waivers", index, "expires"),
                )
            )
        elif index not in used:
            # an earlier waiver of the rule whose object holds this one's takes every finding
            # first: this one is a copy, or narrower than one already written
            earlier = next(
                (
                    i
                    for i, w in active
                    if i < index and w.rule == waiver.rule and covers(w.object, waiver.object)
                ),
                None,
            )
            reported.append(
                meta(
                    UNUSED_WAIVER,
                    f"{what} matches no finding: "
                    + (
                        f"waiver {earlier + 1} of the list, of {waivers[earlier][1].object}, "
                        "already covers every finding it would; remove it"
                        if earlier is not None
                        else "remove it (the finding is fixed) or correct its object "
                        "(`meetme lint --format json` prints each finding's path)"
                    ),
                    ("waivers", index),
                )
            )
    for rule_id in sorted(intent.standards.severity):
        if rule_id not in RULES:
            reported.append(
                meta(
                    "WAIVER-003",
                    f"the standards profile overrides the severity of {rule_id}, an unknown "
                    "rule; `meetme rules` lists the rule ids",
                    ("standards", "severity", rule_id),
                )
            )
        elif not _waivable(rule_id) and intent.standards.severity[rule_id] != "error":
            reported.append(
                meta(
                    UNWAIVABLE,
                    f"the standards profile lowers {rule_id} to "
                    f"{intent.standards.severity[rule_id]}: {_refused(rule_id)}",
                    ("standards", "severity", rule_id),
                )
            )
    return reported


def _waivable(rule_id: str) -> bool:
    known = RULES.get(rule_id)
    return known is None or known.waivable


def _refused(rule_id: str) -> str:
    return (
        f"{rule_id} takes no waiver and no severity override, as the platform cannot print "
        "what it names: meetme refuses to render that device whatever the finding is called; "
        "move the device to a platform that can print it, or change the intent (`meetme "
        f"explain {rule_id}`)"
    )


def all_rules() -> list[Rule]:
    """Every registered rule; the pipeline imports the rule modules, which registers them."""
    return [RULES[k] for k in sorted(RULES)]


def reported_elsewhere(_ctx: SiteContext) -> Iterator[Hit]:
    """The per-site check of a rule reported from elsewhere: the pipeline's model checks
    (FLOW, LIMIT …) and config lint (CFG), or this engine's waiver judgement (WAIVER-*), which
    reads every finding."""
    return iter(())


WAIVER_SOURCE = "meetme waivers (intent `waivers:`; docs/adoption.md)"
rule(
    "WAIVER-001",
    "error",
    "Waivers are renewed or removed before they expire",
    "A waiver records an accepted exception for a limited time; once it expires the exception "
    "must be decided again, not kept by inertia. The findings it covered are reported again.",
    WAIVER_SOURCE,
)(reported_elsewhere)
rule(
    UNUSED_WAIVER,
    "error",
    "Every waiver matches a finding",
    "A waiver that matches nothing is either left over from a fixed problem or names the wrong "
    "object, and would silently waive a future finding it was never meant for.",
    WAIVER_SOURCE,
)(reported_elsewhere)
rule(
    "WAIVER-003",
    "error",
    "Waivers and severity overrides name known rules",
    "A misspelt or retired rule id waives or overrides nothing, while the team believes it does.",
    WAIVER_SOURCE,
)(reported_elsewhere)
rule(
    UNWAIVABLE,
    "error",
    "No waiver or severity override for what a platform cannot print",
    "A platform gap (PLAT-*) says the device's platform has no form for what the intent asks; "
    "the renderer refuses such a device whatever its finding is called. A waiver or a lower "
    "severity would let `meetme lint` pass a merge request that `meetme render` then cannot "
    "render (an internal error, exit 3), so neither is taken: the gap stays an error, and the "
    "waiver or override is an error of its own at its line. The platform gates of the design "
    "rules, EVPN-009 (EVPN-VXLAN) and EVPN-011 (MLAG, ESI multihoming), are closed the same "
    "way: the builders leave out what the platform cannot render, so a waived gate rendered "
    "a spine with no EVPN while every leaf still peered with it.",
    WAIVER_SOURCE,
)(reported_elsewhere)
