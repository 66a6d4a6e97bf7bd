"""`meetme diff --base REF`: what an intent change does to every device's config.

The intent at REF comes out of git with `git archive` into a temporary folder, which reads the
object database only: the working tree, the index and HEAD stay exactly as they were. Both the
intent at REF and the working-tree intent are rendered by the installed meetme, so the diff is
the effect of the intent change alone. Nothing in the archive is written outside that folder:
a committed symbolic link leaving it (`intent/x.yaml -> /etc/passwd`) is not extracted but
reported as a problem of the intent at REF, as is a file larger than meetme reads.
"""

from __future__ import annotations

import difflib
import html
import os
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from meetme.core.background import Background
from meetme.core.findings import Finding
from meetme.core.problems import IntentError, Location, Problem
from meetme.hashes import Cache
from meetme.intent.loader import display_path
from meetme.intent.yaml_source import MAX_FILE_BYTES
from meetme.outputs import HASHES
from meetme.pipeline import device_models, lint, rendered_files
from meetme.record import read_back
from meetme.validators.rules.platform import has_gaps

MARKDOWN_BUDGET = 60_000  # GitHub refuses comments over 65,536 characters


class DiffError(Exception):
    """git could not give the intent at the ref (not a repository, unknown ref)."""


@dataclass
class DeviceDiff:
    device: str
    status: str  # added, removed, changed
    file: str  # rendered/<site>/<device><suffix>, the working-tree name when it exists
    added: int
    removed: int
    diff: str

    def as_dict(self) -> dict[str, object]:
        return {
            "device": self.device,
            "status": self.status,
            "file": self.file,
            "lines_added": self.added,
            "lines_removed": self.removed,
            "diff": self.diff,
        }


@dataclass
class DiffReport:
    base: str
    devices: list[DeviceDiff]
    unchanged: int
    appeared: list[Finding]
    disappeared: list[Finding]  # located where they were at the base
    base_problems: list[Problem] = field(default_factory=list)
    # devices a side's platform cannot print (its PLAT-* finding names each): not rendered on
    # that side, so not compared
    not_compared: list[str] = field(default_factory=list)

    def names(self, status: str) -> list[str]:
        return [d.device for d in self.devices if d.status == status]

    @property
    def lines_added(self) -> int:
        return sum(d.added for d in self.devices)

    @property
    def lines_removed(self) -> int:
        return sum(d.removed for d in self.devices)

    def summary_line(self) -> str:
        counts = ", ".join(f"{len(self.names(s))} {s}" for s in ("changed", "added", "removed"))
        unusable = " (unusable: compared as if it rendered no device)" if self.base_problems else ""
        return (
            f"against {self.base}{unusable}: {counts}, {self.unchanged} unchanged device(s); "
            f"{self._not_compared()}+{self.lines_added} -{self.lines_removed} lines; "
            f"{len(self.appeared)} new finding(s), {len(self.disappeared)} gone"
        )

    def _not_compared(self) -> str:
        if not self.not_compared:
            return ""
        return (
            f"{len(self.not_compared)} device(s) not compared ({', '.join(self.not_compared)}), "
            "which a side's platform cannot print (see the findings); "
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "base": self.base,
            "summary": {
                "changed": self.names("changed"),
                "added": self.names("added"),
                "removed": self.names("removed"),
                "unchanged": self.unchanged,
                "not_compared": self.not_compared,
                "lines_added": self.lines_added,
                "lines_removed": self.lines_removed,
            },
            "devices": [d.as_dict() for d in self.devices],
            "impact": {
                "appeared": [f.as_dict() for f in self.appeared],
                "disappeared": [f.as_dict() for f in self.disappeared],
            },
            "base_problems": [str(p) for p in self.base_problems],
        }


@dataclass
class _Side:
    files: dict[str, tuple[str, str]]  # device -> (output name, text)
    findings: list[Finding]
    unrendered: frozenset[str] = frozenset()  # devices with a platform gap (PLAT-*)


def diff_intent(
    intent_dir: Path,
    base: str,
    *,
    rendered: Path | None = None,
    jobs: int | None = 1,
) -> DiffReport:
    """Compare the intent at git ref `base` with the working-tree intent in `intent_dir`.

    `rendered` (the repository's rendered folder; None: render every device) lends its
    content hashes (meetme/hashes.py): each side reads back the devices whose hashes hold,
    the working tree from that folder, the base from the same folder as committed at `base`
    or, where the base has no hashes, from the working tree's folder too.
    `jobs` processes render and lint the rest. Raises IntentError when the working-tree
    intent is unusable, DiffError when git cannot provide the ref."""
    intent_dir = intent_dir.resolve()
    cache = Cache.load(rendered) if rendered is not None else None
    top = Path(
        _git(
            intent_dir,
            "rev-parse",
            "--show-toplevel",
            what=f"{intent_dir} is not in a git repository; diff compares the intent with a "
            "commit of its repository (run it in the repository's work tree)",
        )
    ).resolve()
    try:
        relative = intent_dir.relative_to(top).as_posix()
    except ValueError:
        raise DiffError(f"{intent_dir} is not inside the git repository {top}") from None
    _verify_base(top, base)
    problems: list[Problem] = []
    with tempfile.TemporaryDirectory(prefix="meetme-diff-") as tmp:
        root = Path(tmp).resolve()
        exists = _exists(top, base, relative)
        if exists:
            problems = _extract(top, base, relative, root)
        # No hashes committed at the base (the usual case: .gitignore lists them): the working
        # tree's serve, as a cache keyed by model digest is exact for a base device whose model
        # is the one rendered there.
        base_folder = None
        if exists and rendered is not None:
            base_folder = _base_rendered(top, base, rendered, root)
        base_cache = Cache.load(base_folder) if base_folder else None
        if base_cache is None or not base_cache.entries:  # none of it signed by this user
            base_cache = cache
        # The base is the intent the last render linted (its lint record, meetme/record.py):
        # its findings and files are read back.
        recorded = None
        if exists and not problems and rendered is not None and cache is not None:
            for folder in filter(None, (base_folder, rendered)):
                recorded = recorded or read_back(folder, root / relative, intent_dir)
        if recorded is not None:
            head = _render(intent_dir, jobs, cache)
            texts = {d: (main, recorded.files[main]) for d, main in recorded.mains.items()}
            before = _Side(texts, recorded.findings)
        else:
            usable = exists and not problems  # a refused file would be missing: unusable
            head, before, problems = _both_sides(
                intent_dir, root / relative, jobs, (cache, base_cache), usable, problems
            )
        moved = [_relocate(f, root, top) for f in before.findings]
        problems = [Problem(_moved(p.location, root, top), p.message, p.kind) for p in problems]
    # a device one side's platform cannot print is compared on neither (not "added" or
    # "removed"): its PLAT-* finding, appeared or gone, says why
    skip = head.unrendered | before.unrendered
    old_files = {d: f for d, f in before.files.items() if d not in skip}
    new_files = {d: f for d, f in head.files.items() if d not in skip}
    devices = _device_diffs(old_files, new_files)
    unchanged = len(set(old_files) & set(new_files)) - sum(d.status == "changed" for d in devices)
    old = {_identity(f) for f in moved}
    new = {_identity(f) for f in head.findings}
    return DiffReport(
        base=base,
        devices=devices,
        unchanged=unchanged,
        appeared=[f for f in head.findings if _identity(f) not in old],
        disappeared=[f for f in moved if _identity(f) not in new],
        base_problems=problems,
        not_compared=sorted(skip),
    )


def _both_sides(
    intent_dir: Path,
    base_dir: Path,
    jobs: int | None,
    caches: tuple[Cache | None, Cache | None],
    usable: bool,
    problems: list[Problem],
) -> tuple[_Side, _Side, list[Problem]]:
    """(working tree, base, the base's problems), both rendered (`caches`: each side's
    content hashes). The two sides share nothing: the base's renders in a second process
    meanwhile. `usable`: false when the base has no intent or a file of it was refused."""
    with Background(lambda: _render(base_dir, jobs, caches[1])) as base_side:
        if not usable:
            base_side.cancel()
        head = _render(intent_dir, jobs, caches[0])  # a broken working tree is reported first
        before = _Side({}, [])
        try:
            if usable:
                before = base_side.result()
        except IntentError as exc:
            problems = exc.problems
    return head, before, problems


def _base_rendered(top: Path, base: str, rendered: Path, root: Path) -> Path | None:
    """The rendered folder as committed at `base`, extracted under `root` beside the base's
    intent, when it holds a hash file there; None where the base has none. What the
    extraction refuses (a link, an oversized file) is left out: those devices are rendered."""
    try:
        relative = rendered.resolve().relative_to(top).as_posix()
    except ValueError:
        return None
    if relative == "." or not _exists(top, base, f"{relative}/{HASHES}"):
        return None
    _extract(top, base, relative, root)
    return root / relative


def _render(intent_dir: Path, jobs: int | None = 1, cache: Cache | None = None) -> _Side:
    """Lint and render every device but those the platform cannot print (a PLAT-* gap, which
    the lint's findings name: the renderer refuses such a model); a template failure
    (RenderError, a meetme bug) goes to the caller."""
    from meetme.generators.sources import output_name

    result = lint(intent_dir, jobs=jobs, cache=cache)
    models = device_models(result)
    unrendered = frozenset(name for name, m in models.items() if has_gaps(m))
    texts = rendered_files(result, leave_out=unrendered)
    files = {
        name: (output_name(m), texts[output_name(m)])
        for name, m in models.items()
        if name not in unrendered
    }
    return _Side(files, result.findings, unrendered)


def _verify_base(top: Path, base: str) -> None:
    """DiffError unless `base` names a commit, saying what to name instead."""
    try:
        _git(top, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
    except DiffError:
        try:
            _git(top, "rev-parse", "--verify", "--quiet", "HEAD")
        except DiffError:
            raise DiffError("the repository has no commit yet; commit the intent first") from None
        raise DiffError(
            f"unknown ref {base}; name a branch, tag or commit (e.g. origin/main, HEAD~1)"
        ) from None


def _git(cwd: Path, *args: str, what: str = "") -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise DiffError("git is not installed") from None
    if done.returncode != 0:
        raise DiffError(what or done.stderr.strip() or f"git {' '.join(args)} failed")
    return done.stdout.strip()


def _exists(top: Path, ref: str, relative: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{ref}:{relative}"], cwd=top, capture_output=True, check=False
    )
    return done.returncode == 0


def _extract(top: Path, ref: str, relative: str, into: Path) -> list[Problem]:
    """`git archive REF -- PATH`, unpacked: reads objects only, never the index or the tree.

    The archive is spooled to a file, not memory; a member that would leave `into` (an
    absolute or climbing link) or is larger than an intent file may be is left out and
    returned as a problem at its path."""
    refused: list[Problem] = []

    def admit(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
        problem = _refusal(member, dest, into)
        if problem is None and hasattr(tarfile, "data_filter"):
            try:  # also Python's own checks: modes, special files
                return tarfile.data_filter(member, dest)
            except tarfile.FilterError:
                problem = _outside(into / member.name)
        if problem is not None:
            refused.append(problem)
            return None
        return member

    with tempfile.TemporaryFile() as spool:
        done = subprocess.run(
            ["git", "archive", "--format=tar", ref, "--", relative],
            cwd=top,
            stdout=spool,
            stderr=subprocess.PIPE,
            check=False,
        )
        if done.returncode != 0:
            raise DiffError(done.stderr.decode(errors="replace").strip())
        spool.seek(0)
        with tarfile.open(fileobj=spool) as archive:
            if hasattr(tarfile, "data_filter"):
                archive.extractall(into, filter=admit)
            else:  # pragma: no cover - Python before 3.11.4 has no extraction filters
                admitted = [m for m in archive if admit(m, str(into)) is not None]
                archive.extractall(into, members=admitted)
    return refused


def _refusal(member: tarfile.TarInfo, dest: str, into: Path) -> Problem | None:
    """Why a member of the base's archive is not extracted, if it is not."""
    at = Location(str(into / member.name), 1, 1)
    if member.isfile() and member.size > MAX_FILE_BYTES:
        return Problem(
            at,
            f"file of {member.size:,} bytes is larger than the {MAX_FILE_BYTES:,} bytes meetme "
            "reads per intent file",
            "too-large",
        )
    safe = member.isfile() or member.isdir() or (member.issym() and _link_stays(member, dest))
    if safe and not Path(member.name).is_absolute() and ".." not in Path(member.name).parts:
        return None
    return _outside(into / member.name)


def _outside(path: Path) -> Problem:
    return Problem(
        Location(str(path), 1, 1),
        "symbolic link (or special file) leaving the intent folder, committed at the base; "
        "intent is read from the repository only, so it was not followed",
        "outside-intent",
    )


def _link_stays(member: tarfile.TarInfo, dest: str) -> bool:
    """A link whose target, resolved from where it sits, stays inside the extraction folder."""
    if Path(member.linkname).is_absolute():
        return False
    target = os.path.normpath(os.path.join(dest, os.path.dirname(member.name), member.linkname))
    root = os.path.normpath(dest)
    return target == root or target.startswith(root + os.sep)


def _moved(location: Location, root: Path, top: Path) -> Location:
    """A base file's location under the name it has in the working tree."""
    try:
        relative = Path(location.file).resolve().relative_to(root)
    except ValueError:
        return location
    return replace(location, file=display_path(top / relative))


def _relocate(finding: Finding, root: Path, top: Path) -> Finding:
    """The finding, and the waiver covering it, named as the working tree's files are."""
    waiver = finding.waived_by
    if waiver is not None:
        waiver = replace(waiver, location=_moved(waiver.location, root, top))
    return replace(finding, location=_moved(finding.location, root, top), waived_by=waiver)


def _identity(finding: Finding) -> tuple[str, str, str, str]:
    # not the location: a finding that only moved lines is the same finding
    return (finding.rule, finding.severity, finding.path, finding.message)


def _device_diffs(
    before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]
) -> list[DeviceDiff]:
    diffs = []
    for device in sorted(set(before) | set(after)):
        old_name, old_text = before.get(device, ("", ""))
        new_name, new_text = after.get(device, ("", ""))
        if old_text == new_text and old_name == new_name:
            continue
        status = (
            "added" if device not in before else "removed" if device not in after else "changed"
        )
        lines = list(
            difflib.unified_diff(
                old_text.splitlines(keepends=True),
                new_text.splitlines(keepends=True),
                fromfile=f"a/rendered/{old_name}" if old_name else "/dev/null",
                tofile=f"b/rendered/{new_name}" if new_name else "/dev/null",
            )
        )
        body = lines[2:]  # after the ---/+++ header
        diffs.append(
            DeviceDiff(
                device=device,
                status=status,
                file=f"rendered/{new_name or old_name}",
                added=sum(line.startswith("+") for line in body),
                removed=sum(line.startswith("-") for line in body),
                diff="".join(line if line.endswith("\n") else line + "\n" for line in lines),
            )
        )
    return diffs


def markdown_report(report: DiffReport) -> str:
    """A merge-request comment: summary table, standards impact, diffs folded per device."""
    lines = [
        f"### meetme: rendered configs against `{report.base}`",
        "",
        f"**{len(report.names('changed'))} changed, {len(report.names('added'))} added, "
        f"{len(report.names('removed'))} removed** device(s), {report.unchanged} unchanged; "
        f"**+{report.lines_added} -{report.lines_removed}** lines.",
        "",
    ]
    if report.base_problems:
        lines += [
            f"The intent at `{report.base}` is unusable ({len(report.base_problems)} "
            "problem(s)); it is compared as if it rendered no device:",
            "",
        ]
        rows = [
            f"- `{p.location.file}:{p.location.line}:{p.location.column}` `{p.kind}`: "
            f"{_inline(p.message)}"
            for p in report.base_problems
        ]
        lines += _within(rows, lines, "problem(s) of the base left out to fit a comment.")
        lines.append("")
    if report.not_compared:
        named = ", ".join(f"`{d}`" for d in report.not_compared)
        lines += [
            f"{len(report.not_compared)} device(s) not compared ({named}): a side's platform "
            "cannot print them (see the standards impact).",
            "",
        ]
    more = f"run `meetme diff --base {report.base}` to see them."
    if report.devices:
        lines += ["| device | status | + | - |", "| --- | --- | ---: | ---: |"]
        rows = [f"| `{d.device}` | {d.status} | {d.added} | {d.removed} |" for d in report.devices]
        lines += _within(rows, lines, f"device row(s) left out to fit a comment; {more}")
        lines.append("")
    lines.append("#### Standards impact")
    lines.append("")
    if not (report.appeared or report.disappeared):
        lines += ["No finding appeared or disappeared.", ""]
    impact = [
        f"- {label}: **{f.severity}** `{f.rule}` at `{f.location.file}:"
        f"{f.location.line}`: {_inline(f.message)}"
        for label, findings in (("New", report.appeared), ("Gone", report.disappeared))
        for f in findings
    ]
    lines += _within(impact, lines, f"finding(s) left out to fit a comment; {more}")
    if report.appeared or report.disappeared:
        lines.append("")
    used = sum(len(line) + 1 for line in lines)
    omitted = 0
    for d in report.devices:
        block = [
            f"<details><summary><code>{d.device}</code> {d.status} (+{d.added} -{d.removed})"
            "</summary>",
            "",
            "```diff",
            d.diff.rstrip("\n").replace("```", "`\u200b``"),
            "```",
            "</details>",
            "",
        ]
        size = sum(len(line) + 1 for line in block)
        if used + size > MARKDOWN_BUDGET:
            omitted += 1
            continue
        used += size
        lines += block
    if omitted:
        lines.append(f"{omitted} device diff(s) left out to fit a comment; {more}")
    return "\n".join(lines).rstrip("\n") + "\n"


def markdown_problems(problems: list[Problem], base: str) -> str:
    """The merge-request comment of a working-tree intent meetme cannot use: no diff, and why."""
    lines = [
        f"### meetme: rendered configs against `{base}`",
        "",
        f"**The intent is unusable** ({len(problems)} problem(s)); nothing was rendered. "
        "Fix these, then the diff shows:",
        "",
    ]
    rows = [
        f"- `{p.location.file}:{p.location.line}:{p.location.column}` `{p.kind}`: "
        f"{_inline(p.message)}"
        for p in problems
    ]
    lines += _within(rows, lines, "problem(s) left out to fit a comment; run `meetme lint`.")
    return "\n".join(lines) + "\n"


# What the closing lines of a comment may need beyond the budget's rows (the notes of what was
# left out), so that the whole stays under GitHub's limit.
_CLOSING = 1_000


def _within(rows: list[str], above: list[str], left_out: str) -> list[str]:
    """As many of `rows` as fit the budget after the lines `above`; the rest said as a count."""
    used = sum(len(line) + 1 for line in above)
    for index, row in enumerate(rows):
        used += len(row) + 1
        if used > MARKDOWN_BUDGET - _CLOSING:
            return [*rows[:index], f"{len(rows) - index} {left_out}"]
    return rows


def _inline(text: str) -> str:
    """Text for one markdown line: a `|` would end a table cell, and `<`, `>` and `&` would
    be read as HTML (GitHub drops `<link>` as a tag)."""
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")
