"""Lint reports for people and for CI: text, json, sarif, junit, github; the rule catalogue.

Every format reports the same findings. A problem that makes the intent unusable (exit 2) is
reported through the same formats as an error whose rule id is the problem's kind (e.g.
`unknown-key`), so CI annotates a broken file as well as a broken standard.

A message may carry text from the intent, so no format lets it start a line of its own: text
and JUnit escape every control character, GitHub annotations escape as the runner's own
toolkit does, JSON and SARIF are written by json.dumps.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from meetme.core.findings import Finding
from meetme.core.problems import Problem, printable

if TYPE_CHECKING:  # the rule engine loads the schema and the fabric: printing needs neither
    from meetme.validators.engine import Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice", "waived": "notice"}
COLOUR = {"error": "red", "warning": "yellow", "info": "cyan", "waived": "magenta"}
_URL = re.compile(r"https?://[^\s;,)\]]+")


def problem_findings(problems: Iterable[Problem]) -> list[Finding]:
    """Problems that made the intent unusable, as error findings named by their kind."""
    return [Finding(p.kind, "error", p.message, p.location, "") for p in problems]


FORMATS = ("text", "json", "sarif", "junit", "github")


def render(
    findings: list[Finding], fmt: str, rules: list[Rule], intent_dir: Path | None = None
) -> str:
    """The report in one of FORMATS; text here is plain (the CLI colours it in a terminal).
    `intent_dir`: the intent folder linted, whose parent names the files of the CI formats
    outside any git work tree (`repository_path`)."""
    if fmt == "json":
        return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"
    if fmt in ("sarif", "junit", "github"):
        home = None if intent_dir is None else Path(intent_dir).resolve().parent
        findings = [_from_repository_root(f, home) for f in findings]
    if fmt == "sarif":
        return json.dumps(sarif(findings, rules), indent=2) + "\n"
    if fmt == "junit":
        return junit(findings, rules)
    if fmt == "github":
        return github(findings, rules)
    return "".join(f"{line}\n" for line in text_lines(findings, markup=False))


def _from_repository_root(finding: Finding, home: Path | None) -> Finding:
    """The finding with its file (and its waiver's) named from the root of the git work tree
    holding it: CI annotations and code scanning read paths from there, wherever meetme ran
    (`meetme lint` in intent/aus1 names a file `devices.yaml` on the terminal)."""
    located = replace(finding.location, file=repository_path(finding.location.file, home))
    waiver = finding.waived_by
    if waiver is not None:
        where = waiver.location
        waiver = replace(waiver, location=replace(where, file=repository_path(where.file, home)))
    return replace(finding, location=located, waived_by=waiver)


@functools.cache
def _work_tree(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git`."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def repository_path(file: str, home: Path | None = None) -> str:
    """`file` (as the loader names it: relative to the working directory, or absolute)
    relative to its git work tree's root; outside any, relative to `home` (the intent
    folder's parent: where the work tree's root would be), so that a report names a file the
    same way from whichever folder meetme ran; as it is when below neither. A name that is no
    path on disk (`environment`, for $MEETME_TODAY) stays as it is."""
    absolute = Path(os.path.abspath(file))
    if not absolute.exists():
        return file
    root = _work_tree(absolute.parent) or home
    if root is None:
        return file
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:  # a file outside `home`
        return file


def summary(findings: list[Finding]) -> str:
    count = {s: sum(f.severity == s for f in findings) for s in COLOUR}
    line = f"{count['error']} error(s), {count['warning']} warning(s)"
    if count["info"]:
        line += f", {count['info']} info"
    if count["waived"]:
        line += f", {count['waived']} waived"
    return line


# --- text: grouped by file, in line order -------------------------------------------------


def text_lines(findings: list[Finding], markup: bool = True) -> list[str]:
    """One heading per file, then `line:column  severity  RULE  message` under it.

    With `markup`, the lines carry rich markup (colour in a terminal, plain when piped)."""

    def style(text: str, spec: str) -> str:
        return f"[{spec}]{_escape(text)}[/]" if markup else text

    lines: list[str] = []
    for file, group in groupby(sorted(findings, key=_order), key=lambda f: f.location.file):
        items = list(group)
        place_width = max(len(_place(f)) for f in items)
        rule_width = max(len(f.rule) for f in items)
        lines.append(style(printable(file), "bold underline"))
        for f in items:
            severity = style(f"{f.severity:<7}", COLOUR[f.severity])
            message = _escape(printable(f.message)) if markup else printable(f.message)
            rule = printable(f.rule)
            lines.append(
                f"  {_place(f):<{place_width}}  {severity}  {rule:<{rule_width}}  {message}"
            )
            if f.waived_by is not None:
                indent = " " * (2 + place_width + 2)
                lines.append(f"{indent}{style(printable(str(f.waived_by)), 'dim')}")
        lines.append("")
    lines.append(summary(findings))
    return lines


def _place(finding: Finding) -> str:
    return f"{finding.location.line}:{finding.location.column}"


def _order(finding: Finding) -> tuple[str, int, int, str, str]:
    loc = finding.location
    return (loc.file, loc.line, loc.column, finding.rule, finding.message)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# --- SARIF 2.1.0, as GitHub code scanning reads it ------------------------------------------


def help_uri(rule: Rule) -> str | None:
    """The first link in a rule's source, if it has one."""
    found = _URL.search(rule.source)
    return found.group(0).rstrip(".") if found else None


def sarif(findings: list[Finding], rules: list[Rule]) -> dict[str, object]:
    descriptors = [_descriptor(r) for r in rules]
    known = {r.id for r in rules}
    for kind in sorted({f.rule for f in findings} - known):  # problems that made it unusable
        descriptors.append(
            {
                "id": kind,
                "shortDescription": {"text": f"The intent is unusable: {kind}"},
                "fullDescription": {
                    "text": "meetme could not read, parse or resolve the intent; nothing is "
                    "rendered until this is fixed."
                },
                "defaultConfiguration": {"level": "error"},
                "properties": {"tags": ["meetme", "intent"]},
            }
        )
    index = {str(d["id"]): i for i, d in enumerate(descriptors)}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "meetme",
                        "version": _version(),
                        "rules": descriptors,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_result(f, index[f.rule]) for f in sorted(findings, key=_order)],
            }
        ],
    }


def _descriptor(rule: Rule) -> dict[str, object]:
    descriptor: dict[str, object] = {
        "id": rule.id,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {
            "text": f"{rule.rationale}\n\nSource: {rule.source}",
            # as text, not HTML: GitHub drops `<link>` of "sub-interface <link>.<vlan>"
            "markdown": html.escape(
                f"**{rule.title}**\n\n{rule.rationale}\n\nSource: {rule.source}", quote=False
            ),
        },
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        "properties": {"tags": ["meetme", rule.id.split("-")[0]]},
    }
    uri = help_uri(rule)
    if uri:
        descriptor["helpUri"] = uri
    return descriptor


def _result(finding: Finding, rule_index: int) -> dict[str, object]:
    severity = finding.waived_by.severity if finding.waived_by else finding.severity
    location: dict[str, object] = {
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(finding.location.file)},
            "region": {
                "startLine": finding.location.line,
                "startColumn": finding.location.column,
            },
        }
    }
    if finding.path:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.path}]
    # stable across edits that only move lines: the rule, the object it is about and what it
    # says (one rule may find several things of one object: a route per border and family)
    identity = f"{finding.rule}\0{finding.path}\0{finding.message}"
    result: dict[str, object] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": SARIF_LEVEL[severity],
        "message": {"text": finding.message},
        "locations": [location],
        "partialFingerprints": {
            "meetmeObject/v2": hashlib.sha256(identity.encode()).hexdigest()[:32]
        },
    }
    if finding.waived_by is not None:
        waiver = finding.waived_by
        result["suppressions"] = [
            {
                "kind": "external",  # the waiver lives in a file of its own, not at the finding
                "status": "accepted",
                "justification": f"{waiver.reason} (owner {waiver.owner}, "
                f"until {waiver.expires.isoformat()})",
                "location": {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(waiver.location.file)},
                        "region": {"startLine": waiver.location.line},
                    }
                },
            }
        ]
    return result


def artifact_uri(file: str) -> str:
    """Relative to the repository root when the file is inside it (what code scanning maps
    onto the tree: `render` names it so, `repository_path`); a file URI otherwise."""
    path = Path(file)
    return path.as_uri() if path.is_absolute() else quote(path.as_posix())


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("meetme")
    except PackageNotFoundError:
        return "0+unknown"


# --- JUnit XML: one test case per rule x object ---------------------------------------------


def junit(findings: list[Finding], rules: list[Rule]) -> str:
    """A suite per rule; a test case per object it reported on (one passing case when it
    reported nothing). Errors fail; waived findings are skipped; warnings and info pass
    with their message as output, as JUnit has no warning."""
    root = ET.Element("testsuites", name="meetme lint")
    by_rule: dict[str, list[Finding]] = {}
    for finding in sorted(findings, key=_order):
        by_rule.setdefault(finding.rule, []).append(finding)
    titles = {r.id: r.title for r in rules}
    order = [r.id for r in rules] + sorted(set(by_rule) - set(titles))
    for rule_id in order:
        suite = ET.SubElement(
            root, "testsuite", name=printable(f"{rule_id} {titles.get(rule_id, '')}".strip())
        )
        hits = by_rule.get(rule_id, [])
        if not hits:
            ET.SubElement(suite, "testcase", classname=f"meetme.{rule_id}", name="all objects")
        by_object: dict[str, list[Finding]] = {}
        for finding in hits:
            key = finding.path or str(finding.location)
            by_object.setdefault(key, []).append(finding)
        for name, group in by_object.items():
            _testcase(suite, rule_id, name, group)
        _count(suite)
    totals = {k: sum(int(s.get(k, "0")) for s in root) for k in _COUNTS}
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


_COUNTS = ("tests", "failures", "errors", "skipped")


def _testcase(suite: ET.Element, rule_id: str, name: str, group: list[Finding]) -> None:
    first = group[0]
    # XML 1.0 cannot hold most control characters at all: each is written as an escape
    case = ET.SubElement(
        suite,
        "testcase",
        classname=printable(f"meetme.{rule_id}"),
        name=printable(name),
        file=printable(first.location.file),
        line=str(first.location.line),
    )
    details = "\n".join(printable(str(f)) for f in group)
    errors = [f for f in group if f.severity == "error"]
    waived = [f for f in group if f.waived_by is not None]
    if errors:
        failure = ET.SubElement(
            case, "failure", message=printable(errors[0].message), type=printable(rule_id)
        )
        failure.text = details
    elif waived and len(waived) == len(group):
        skipped = f"{waived[0].message}; {waived[0].waived_by}"
        ET.SubElement(case, "skipped", message=printable(skipped))
    else:
        ET.SubElement(case, "system-out").text = details


def _count(suite: ET.Element) -> None:
    cases = list(suite.iter("testcase"))
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(c.find("failure") is not None for c in cases)))
    suite.set("errors", "0")
    suite.set("skipped", str(sum(c.find("skipped") is not None for c in cases)))


# --- GitHub Actions workflow commands -------------------------------------------------------


def github(findings: list[Finding], rules: list[Rule]) -> str:
    """`::error file=F,line=L,col=C,title=T::message`, one per finding; GitHub shows each at
    its line in the pull request."""
    titles = {r.id: r.title for r in rules}
    lines = []
    for f in sorted(findings, key=_order):
        title = f"{f.rule} {titles.get(f.rule, '')}".strip()
        message = f.message
        if f.waived_by is not None:
            title += " (waived)"
            message += f" [{f.waived_by}]"
        properties = ",".join(
            f"{key}={_property(value)}"
            for key, value in (
                ("file", f.location.file),
                ("line", str(f.location.line)),
                ("col", str(f.location.column)),
                ("title", title),
            )
        )
        lines.append(f"::{GITHUB_COMMAND[f.severity]} {properties}::{_data(message)}")
    lines.append(summary(findings))
    return "".join(f"{line}\n" for line in lines)


def _data(text: str) -> str:
    # the escaping of GitHub's runner (actions/toolkit command.ts escapeData): no value can
    # end the annotation's line and start a `::command` of its own; the other control
    # characters (a terminal escape, a NUL) are written as escapes
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(escaped)


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


# --- the rule catalogue ---------------------------------------------------------------------

CATALOGUE_COMMAND = "meetme rules --format markdown > docs/rules.md"


def rules_markdown(rules: list[Rule]) -> str:
    """docs/rules.md: every rule with id, severity, title, rationale and source."""
    lines = [
        "# Design-standard rules",
        "",
        f"Generated by `{CATALOGUE_COMMAND.split(' >')[0]}`; do not edit by hand "
        f"(regenerate: `{CATALOGUE_COMMAND}`). A team can change a rule's severity in its "
        "standards profile and record accepted exceptions as waivers (docs/adoption.md).",
        "",
        "| id | severity | title |",
        "| --- | --- | --- |",
    ]
    lines += [f"| [{r.id}](#{r.id.lower()}) | {r.severity} | {_cell(r.title)} |" for r in rules]
    for r in rules:
        lines += ["", f"## {r.id}", "", f"**{r.title}** (severity: {r.severity})", ""]
        lines += [r.rationale, "", f"Source: {_linked(r.source)}"]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _linked(source: str) -> str:
    def link(match: re.Match[str]) -> str:
        url = match.group(0).rstrip(".")
        return f"<{url}>{match.group(0)[len(url) :]}"

    return _URL.sub(link, source)


def rules_json(rules: list[Rule]) -> str:
    return (
        json.dumps(
            [
                {
                    "id": r.id,
                    "severity": r.severity,
                    "title": r.title,
                    "rationale": r.rationale,
                    "source": r.source,
                    "help_uri": help_uri(r),
                }
                for r in rules
            ],
            indent=2,
        )
        + "\n"
    )
