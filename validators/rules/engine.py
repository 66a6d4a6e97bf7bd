"""The design-standard rule engine: one rule, one small function, with an id and a rationale.

A rule yields `Hit`s (what is wrong and at which intent path); the engine turns them into
`Finding`s with the rule's id and severity and the file:line:column of that path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from meetme.validators.loader import LoadedIntent
from meetme.validators.schema import Site

from meetme.problems import Location

Severity = Literal["error", "warning", "info"]
Path_ = tuple[str | int, ...]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Hit:
    """What a rule found: a message and the intent path it is about."""

    message: str
    path: Path_


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    location: Location
    path: str  # dotted object path, e.g. sites.aus1.devices.aus1-br2.room

    def as_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
            "path": self.path,
        }

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}[{self.rule}]: {self.message}"


@dataclass(frozen=True)
class SiteContext:
    """What a rule sees of one site: the intent and the resolved fabric."""

    name: str
    site: Site
    loaded: LoadedIntent
    fabric: object  # generators.fabric.SiteFabric; typed loosely to keep layers apart

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


RULES: dict[str, Rule] = {}


def rule(
    id: str, severity: Severity, title: str, rationale: str, source: str
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function as a rule."""

    def register(check: CheckFn) -> CheckFn:
        if id in RULES:
            raise ValueError(f"rule {id} registered twice")
        RULES[id] = Rule(id, severity, title, rationale, source, check)
        return check

    return register


def run_rules(loaded: LoadedIntent, fabrics: dict[str, object]) -> list[Finding]:
    from . import catalogue  # noqa: F401  (importing registers every rule)

    findings: set[Finding] = set()  # organisation-wide rules hit once per site: keep one
    for site_name, site in sorted(loaded.intent.sites.items()):
        ctx = SiteContext(site_name, site, loaded, fabrics[site_name])
        for rule_id in sorted(RULES):
            current = RULES[rule_id]
            for hit in current.check(ctx):
                findings.add(
                    Finding(
                        rule=current.id,
                        severity=current.severity,
                        message=hit.message,
                        location=loaded.where(hit.path),
                        path=".".join(str(p) for p in hit.path),
                    )
                )
    return sorted(
        findings, key=lambda f: (f.location, SEVERITY_ORDER[f.severity], f.rule, f.message)
    )


def all_rules() -> list[Rule]:
    from . import catalogue  # noqa: F401

    return [RULES[k] for k in sorted(RULES)]
