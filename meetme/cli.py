"""The `meetme` command line. Exit codes: 0 clean, 1 findings or drift, 2 unusable input,
3 a bug in meetme (an internal error; for plan and push also a device whose state is unknown).

Typer (on Click) gives typed options, help text and shell completion without hand-written
argument parsing; rich colours terminal output and stays plain when piped.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import traceback
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from meetme.conventions import Console, repository, write_out
from meetme.core.findings import BadToday
from meetme.core.gc_tuning import tune_gc
from meetme.core.problems import (
    EXIT_FINDINGS,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_UNUSABLE,
    IntentError,
    Location,
    Problem,
    printable,
)
from meetme.outputs import (
    FileFault,
    Refused,
    check_compare_target,
    check_render_target,
    check_report_path,
    compare_rendered,
    is_lint_report,
    is_schema,
    remember_written,
    write_file,
)

if TYPE_CHECKING:  # heavy imports stay lazy: `meetme rules` must not load the pipeline
    from meetme.core.findings import Finding
    from meetme.gitdiff import DiffReport
    from meetme.pipeline import LintResult
    from meetme.record import Recorded
    from meetme.validators.engine import Rule

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class _Guarded(TyperGroup):
    """Runs every command so that whatever escapes it ends as one line, never a traceback."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _reflowed(self)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException, EOFError):
            raise  # Typer's own ways out: an exit code, a usage error, ^C
        except Exception as exc:
            raise typer.Exit(report_fault(exc)) from None


def _reflowed(command: Any) -> None:
    """Each help text of the command tree as paragraphs: the line breaks of a docstring,
    which rich printed as they were (a sentence cut at `checks,`), become spaces; a blank line
    still parts two paragraphs."""
    if command.help:
        paragraphs = command.help.split("\n\n")
        command.help = "\n\n".join(" ".join(p.split()) for p in paragraphs)
    for sub in getattr(command, "commands", {}).values():
        _reflowed(sub)


app = typer.Typer(
    cls=_Guarded,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,  # its tracebacks can show locals: resolved configs, keys
    help="Intent-based config generator and standards linter for AI-datacenter border and fabric."
    "\n\nRun it anywhere inside a repository: without REPO a command works on the nearest folder "
    "at or above the working directory that holds intent/ (looking no higher than a folder "
    "holding .git).",
)


def report_fault(exc: BaseException) -> int:
    """One line on stderr for an exception no command handled; returns the exit code."""
    if isinstance(exc, Refused | FileFault | BadToday):
        _fail(f"meetme: {exc}")
        return EXIT_UNUSABLE
    if isinstance(exc, BrokenPipeError) and not exc.filename:
        return _reader_gone()
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else _stream(exc)
        _fail(f"meetme: cannot {_verb(exc)}{where}: {exc.strerror or exc}")
        return EXIT_UNUSABLE
    if isinstance(exc, RecursionError | MemoryError):
        _fail("meetme: input too large or too deeply nested")
        return EXIT_UNUSABLE
    _debug(exc)
    _fail(
        f"meetme: internal error: {type(exc).__name__} at {_origin(exc)}; this is a bug in "
        "meetme (set MEETME_DEBUG=1 to see the traceback)"
    )
    return EXIT_INTERNAL


# Standard output's reader went away (`meetme rules | head`): the status a process killed by
# SIGPIPE has, as `cat` or `git log` would end, and nothing said; Python ignores the signal.
EXIT_READER_GONE = 128 + 13


def _reader_gone() -> int:
    """Quietly out: later writes, at the interpreter's exit too, go nowhere."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_READER_GONE


def _fail(line: str) -> None:
    err.print(_plain(line), markup=False, highlight=False)


def _plain(text: object) -> str:
    """A user's text (a path, a ref, a rule id) as one line the terminal only shows: control
    characters of a hostile argument (ESC sequences, line breaks) escaped."""
    return printable(str(text))


_WRITE_ERRORS = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EPIPE})


def _verb(exc: OSError) -> str:
    """Whether a failure nobody labelled was a write (a temporary folder counts as one)."""
    if exc.errno in _WRITE_ERRORS:
        return "write"
    import tempfile  # only on this way out: a command's start-up does not load it

    name = os.fsdecode(exc.filename) if isinstance(exc.filename, str | bytes) else ""
    # the cached or configured folder: gettempdir() would probe, and may fail, right here
    temporary = tempfile.tempdir or os.environ.get("TMPDIR") or "/tmp"
    if name and os.path.abspath(name).startswith(os.path.abspath(temporary) + os.sep):
        return "write"
    return "read"


def _stream(exc: OSError) -> str:
    """An OSError without a file name, raised while printing, is about the terminal or pipe."""
    frames = traceback.extract_tb(exc.__traceback__)
    if isinstance(exc, BrokenPipeError) or any("/rich/" in f.filename for f in frames):
        return " standard output"
    return ""


def _origin(exc: BaseException) -> str:
    """Where it was raised (meetme's innermost frame): enough to file the bug, no values."""
    frames = traceback.extract_tb(exc.__traceback__)
    packages = ("meetme", "meetme.generators", "meetme.validators", "meetme.deploy")
    roots = tuple(
        os.path.dirname(str(module.__file__)) + os.sep
        for module in map(sys.modules.get, packages)
        if module is not None
    )
    ours = [f for f in frames if f.filename.startswith(roots)]
    if not (ours or frames):
        return "an unknown place"
    frame = (ours or frames)[-1]
    return f"{Path(frame.filename).name}:{frame.lineno}"


def _debug(exc: BaseException) -> None:
    if os.environ.get("MEETME_DEBUG") == "1":
        sys.stderr.write("".join(traceback.format_exception(exc)))


RepoArg = Annotated[
    Path | None,
    typer.Argument(
        help="Repository holding intent/ and rendered/ (default: the nearest folder at or above "
        "the working directory that holds intent/, as git finds its root).",
        show_default=False,
    ),
]
IntentOpt = Annotated[Path | None, typer.Option("--intent", help="Intent folder [REPO/intent].")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Output folder [REPO/rendered].")]
JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        # an escaped bracket: rich takes a lower-case `[the cores ...]` for a style and drops it
        help="Processes that render and lint the devices \\[the cores; 1 on a small site]. "
        "The output is the same for any number.",
        show_default=False,
    ),
]
FullOpt = Annotated[
    bool,
    typer.Option(
        "--full",
        help="Render and lint every device, ignoring the content hashes "
        "(.meetme-hashes.json) of the earlier render.",
    ),
]


class Format(StrEnum):
    """Report formats of `meetme lint` (meetme/report.py writes them)."""

    text = "text"
    json = "json"
    sarif = "sarif"
    junit = "junit"
    github = "github"


class RulesFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    json = "json"


class PlatformsFormat(StrEnum):
    text = "text"
    markdown = "markdown"


class DciFormat(StrEnum):
    table = "table"
    json = "json"


class DiffFormat(StrEnum):
    text = "text"
    json = "json"
    markdown = "markdown"


ReportOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write the report to this file instead of stdout."),
]


def _folders(repo: Path | None, intent: Path | None, out_dir: Path | None) -> tuple[Path, Path]:
    root = repository(repo)
    return intent or root / "intent", out_dir or root / "rendered"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        out.print(f"meetme {version('meetme')}", markup=False)
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print meetme's version and exit."
        ),
    ] = False,
) -> None:
    """Options of meetme itself (the app's help text describes it)."""
    _say_if_the_cache_folder_is_unusable()


def _say_if_the_cache_folder_is_unusable() -> None:
    """A $MEETME_CACHE_DIR that cannot be used turns the template cache and the content
    hashes off: said once, so that slow renders have a reason (an empty one is off on
    purpose)."""
    from meetme.core.userdir import CACHE_VARIABLE, private_dir

    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen and private_dir("keys") is None:
        err.print(
            f"meetme: warning: {CACHE_VARIABLE}={chosen} is not a folder this user alone can "
            "write; no compiled template or content hash is kept, so every render is a full one",
            markup=False,
        )


def _unusable(
    exc: IntentError,
    fmt: Format = Format.text,
    report_file: Path | None = None,
    intent_dir: Path | None = None,
) -> NoReturn:
    if fmt is not Format.text:  # CI reads the same format whether the intent is broken or not
        from meetme.report import problem_findings

        # no rule ran: JUnit lists the problems alone, never every rule as passed
        rules: list[Rule] | None = [] if fmt is Format.junit else None
        _emit_report(problem_findings(exc.problems), fmt, report_file, rules, intent_dir)
    else:
        for problem in exc.problems:
            err.print(
                f"[bold]{_escape(str(problem.location))}[/]: [red]error\\[{problem.kind}][/]: "
                f"{_escape(problem.message)}"
            )
        err.print(f"{len(exc.problems)} problem(s) make the intent unusable; nothing was written.")
    raise typer.Exit(EXIT_UNUSABLE)


def _internal(exc: Exception) -> NoReturn:
    err.print(f"internal error: a template failed: {_escape(str(exc))}")
    err.print("This is a bug in meetme, not in your intent; nothing was written.")
    raise typer.Exit(EXIT_INTERNAL)


def _lint_or_exit(
    intent_dir: Path,
    fmt: Format = Format.text,
    report_file: Path | None = None,
    jobs: int | None = 1,
    hashes_of: Path | None = None,
) -> LintResult:
    """Lint (`jobs` processes for the config lint), reusing unchanged devices of the rendered
    folder `hashes_of` where its content hashes hold."""
    from meetme.hashes import Cache
    from meetme.pipeline import lint

    cache = Cache.load(hashes_of) if hashes_of is not None else None
    try:
        return lint(intent_dir, jobs=jobs, cache=cache)
    except IntentError as exc:
        _unusable(exc, fmt, report_file, intent_dir)
    except BadToday as exc:
        if fmt is Format.text:
            raise  # one line on stderr (report_fault)
        # CI reads the format it asked for, even when the day to judge waivers on is no day
        where = Location("environment", 1, 1)
        _unusable(
            IntentError([Problem(where, str(exc), "bad-today")]), fmt, report_file, intent_dir
        )


def _as_last_rendered(intent_dir: Path, target: Path, exactly: bool = True) -> Recorded | None:
    """What the last render wrote into `target`, read back (meetme/record.py), when it was of
    this very intent and every file it wrote is still as written; `exactly`: and the folder
    holds nothing else, so that a render now would write nothing."""
    from meetme.record import read_back

    return read_back(target, intent_dir, exactly=exactly)


def _print_findings(findings: list[Finding], fmt: Format) -> None:
    _emit_report(findings, fmt, None)


def _emit_report(
    findings: list[Finding],
    fmt: Format,
    report_file: Path | None,
    rules: list[Rule] | None = None,
    intent_dir: Path | None = None,
) -> None:
    """The report (`rules`: those the report lists; None: every rule of the catalogue) of the
    intent in `intent_dir`, whose parent names the files outside a git work tree."""
    from meetme.report import render, summary, text_lines

    if fmt is Format.text and report_file is None:  # coloured in a terminal, plain when piped
        for line in text_lines(findings):
            out.print(line)
        return
    text = render(findings, fmt.value, _rules() if rules is None else rules, intent_dir)
    if report_file is None:
        write_out(text)
        return
    write_file(report_file, text)
    remember_written(report_file, text)
    out.print(f"{report_file}: {fmt.value} report, {summary(findings)}", markup=False)


def _rules() -> list[Rule]:
    from meetme.catalogue import rule_catalogue

    return rule_catalogue()


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


@app.command("lint")
def lint_command(
    repo: RepoArg = None,
    intent: IntentOpt = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            help="text (grouped by file), json, sarif (GitHub code scanning), junit "
            "(one test case per rule and object), github (workflow annotations).",
        ),
    ] = Format.text,
    report_file: ReportOpt = None,
    jobs: JobsOpt = None,
) -> None:
    """Check the intent against the schema and the design standards.

    Waivers (intent `waivers:`) turn matching findings into `waived`; the standards profile
    (intent `standards: {severity: {RULE: error}}`) changes a rule's severity.
    $MEETME_TODAY (YYYY-MM-DD) sets the day waivers expire against. Devices unchanged since
    the last render (the rendered folder's content hashes) have their config lint read back;
    an intent the last render linted, unchanged, has its findings read back."""
    intent_dir, rendered = _folders(repo, intent, None)
    if report_file is not None:  # refused before the intent is even read
        protected = {
            "the intent folder": intent_dir,
            "the rendered folder": rendered,
        }
        check_report_path(report_file, protected, is_lint_report)
    from meetme.record import recorded_findings

    # the intent the last render linted, unchanged: that lint's findings read back
    recorded = recorded_findings(intent_dir, rendered)
    if recorded is not None:
        _emit_report(recorded, fmt, report_file, intent_dir=intent_dir)
        errors = any(f.severity == "error" for f in recorded)
        raise typer.Exit(EXIT_FINDINGS if errors else EXIT_OK)
    # devices unchanged since the last render: their CFG-* hits read back, not linted again
    result = _lint_or_exit(intent_dir, fmt, report_file, jobs, hashes_of=rendered)
    _emit_report(result.findings, fmt, report_file, intent_dir=intent_dir)
    if result.render_errors:  # the config lint could not see these devices: a meetme bug
        _internal(result.render_errors[0])
    raise typer.Exit(EXIT_FINDINGS if result.errors else EXIT_OK)


def _render_or_exit(
    intent_dir: Path,
    show_findings: bool,
    jobs: int | None,
    hashes_of: Path | None,
    refused: str = "lint found errors; nothing was written.",
) -> tuple[dict[str, str], LintResult]:
    """Lint and render in memory; exit 1 on error findings (saying `refused`, the command's
    own word for what it did not do), 2 unusable, 3 template failure."""
    from meetme.generators.sources import RenderError
    from meetme.pipeline import rendered_files

    result = _lint_or_exit(intent_dir, jobs=jobs, hashes_of=hashes_of)
    if result.findings and (show_findings or result.errors):
        _print_findings(result.findings, Format.text)
    if result.errors:
        err.print(refused, markup=False)
        raise typer.Exit(EXIT_FINDINGS)
    try:
        return rendered_files(result), result
    except IntentError as exc:
        _unusable(exc)
    except RenderError as exc:
        _internal(exc)


@app.command("render")
def render_command(
    repo: RepoArg = None,
    intent: IntentOpt = None,
    out_dir: OutOpt = None,
    jobs: JobsOpt = None,
    full: FullOpt = False,
) -> None:
    """Lint, then render every device into the output folder (atomically).

    Devices whose model and templates are unchanged since the last render (content hashes in
    the folder's .meetme-hashes.json, which meetme owns) are not rendered again, and files
    whose text is unchanged are not rewritten; an intent unchanged since the last render,
    whose files are all still as written, writes nothing."""
    intent_dir, target = _folders(repo, intent, out_dir)
    check_render_target(target, intent_dir)  # refused before anything is read or written
    kept = None if full else _as_last_rendered(intent_dir, target)
    if kept is not None:  # the folder already holds exactly what this render would write
        if kept.findings:
            _print_findings(kept.findings, Format.text)
        out.print(f"0 of {len(kept.mains)} device(s) rendered anew, 0 file(s) written")
        out.print(f"rendered {len(kept.mains)} device(s) into {_plain(target)}", markup=False)
        return
    from meetme.pipeline import hash_file, write_rendered

    files, result = _render_or_exit(intent_dir, True, jobs, None if full else target)
    inside = _cwd_inside(target)
    written = write_rendered(target, files, intent_dir, hash_file(result))
    devices = len(result.outcomes)
    out.print(
        f"{devices - len(result.reused)} of {devices} device(s) rendered anew, "
        f"{written} file(s) written"
    )
    out.print(f"rendered {len(files)} device(s) into {_plain(target)}", markup=False)
    if inside:
        err.print(
            f"note: this shell's folder was inside {_plain(target)}, which render replaces as "
            "a whole; `cd .` to see the new files",
            markup=False,
        )


def _cwd_inside(folder: Path) -> bool:
    """Whether the working directory is `folder` or in it: the swap leaves the shell in the
    old, removed folder."""
    try:
        here = Path.cwd().resolve()
    except OSError:
        return False
    return here == folder.resolve() or folder.resolve() in here.parents


@app.command("check")
def check_command(
    repo: RepoArg = None,
    intent: IntentOpt = None,
    out_dir: OutOpt = None,
    jobs: JobsOpt = None,
    full: FullOpt = False,
) -> None:
    """Is the output folder exactly what `render` would write? (the pre-merge gate)

    Devices whose model, templates and files match the folder's content hashes are not
    rendered again, nor is anything of an intent unchanged since the last render (its files
    are compared as that render recorded them); --full renders every one."""
    intent_dir, target = _folders(repo, intent, out_dir)
    check_compare_target(target, intent_dir)
    kept = None if full else _as_last_rendered(intent_dir, target, exactly=False)
    if kept is not None:  # the intent the last render linted: its files, read back
        files = kept.files
    else:
        files, _ = _render_or_exit(
            intent_dir,
            False,
            jobs,
            None if full else target,
            refused="lint found errors; render would refuse this intent, so nothing was compared.",
        )
    if not target.exists():  # one line, not one `missing:` per device
        out.print(f"{target}: no such folder; run `meetme render`", markup=False)
        raise typer.Exit(EXIT_FINDINGS)
    drift = compare_rendered(target, files)
    if drift.clean:
        out.print(f"{_plain(target)}: {len(files)} file(s) match the intent", markup=False)
        raise typer.Exit(EXIT_OK)
    for label, names in (
        ("changed", drift.changed),
        ("missing", drift.missing),
        ("stale", drift.extra),
    ):
        for name in names:
            out.print(f"{label}: {target / name}", markup=False)
    out.print("rendered output differs from the intent; run `meetme render`")
    raise typer.Exit(EXIT_FINDINGS)


@app.command("show")
def show_command(device: str, repo: RepoArg = None, intent: IntentOpt = None) -> None:
    """Print one device's resolved, vendor-neutral model as YAML."""
    # only what one model needs: no rules run, no other device built, nothing rendered
    import yaml

    from meetme.generators.build.devices import build_models
    from meetme.generators.resolve.fabric import resolve_fabric
    from meetme.intent.loader import load_intent
    from meetme.intent.references import unknown_name

    intent_dir, _ = _folders(repo, intent, None)
    try:
        loaded = load_intent(intent_dir)
        known = {name for site in loaded.intent.sites.values() for name in site.devices}
        if device not in known:  # said before the fabric is worked out for nothing
            err.print(unknown_name("device", device, known), markup=False, highlight=False)
            raise typer.Exit(EXIT_UNUSABLE)
        fabrics = resolve_fabric(loaded)
        models = build_models(loaded, fabrics, only={device})
    except IntentError as exc:
        _unusable(exc)
    text = yaml.safe_dump(models[device].model_dump(mode="json"), sort_keys=False)
    write_out(text)


@app.command("rules")
def rules_command(
    fmt: Annotated[
        RulesFormat,
        typer.Option("--format", help="markdown writes the catalogue page (docs/rules.md)."),
    ] = RulesFormat.text,
) -> None:
    """List the design-standard rules."""
    from meetme.report import rules_json, rules_markdown

    rules = _rules()
    if fmt is RulesFormat.markdown:
        write_out(rules_markdown(rules))
    elif fmt is RulesFormat.json:
        write_out(rules_json(rules))
    else:
        for current in rules:
            out.print(f"{current.id:<10} {current.severity:<8} {_escape(current.title)}")


@app.command("platforms")
def platforms_command(
    fmt: Annotated[
        PlatformsFormat,
        typer.Option("--format", help="markdown writes the support matrix (docs/platforms.md)."),
    ] = PlatformsFormat.text,
) -> None:
    """The platform x role support matrix: what renders, and which rule refuses the rest."""
    from meetme.generators.platforms import support

    if fmt is PlatformsFormat.markdown:
        write_out(support.markdown())
        return
    for platform in support.platforms():
        for role in support.ROLES:
            refusals = support.refused(platform, role)
            said = "; ".join(f"{f.name} ({r})" for f, r in refusals) or "renders every feature"
            out.print(f"{platform.name:<12} {role:<12} {_escape(said)}")


@app.command("explain")
def explain_command(rule_id: str) -> None:
    """Print one rule: title, severity, rationale and source."""
    from meetme.catalogue import find_rule

    current = find_rule(rule_id)
    if current is None:
        err.print(f"unknown rule '{_plain(rule_id)}'; `meetme rules` lists them", markup=False)
        raise typer.Exit(EXIT_UNUSABLE)
    out.print(f"{current.id} ({current.severity}): {_escape(current.title)}\n")
    out.print(f"Why: {_escape(current.rationale)}\n")
    out.print(f"Source: {_escape(current.source)}")


@app.command("diff")
def diff_command(
    repo: RepoArg = None,
    base: Annotated[
        str, typer.Option("--base", help="Git ref to compare with, e.g. origin/main or HEAD~1.")
    ] = "HEAD",
    intent: IntentOpt = None,
    fmt: Annotated[
        DiffFormat,
        typer.Option("--format", help="markdown suits a merge-request comment."),
    ] = DiffFormat.text,
    jobs: JobsOpt = None,
    full: FullOpt = False,
) -> None:
    """What a change does to the configs: render the intent at --base and in the working tree,
    print per-device unified diffs, a summary and the findings that appeared or disappeared.

    The intent at --base is read with `git archive` into a temporary folder: the working tree
    and the index are never touched. Both sides render with the installed meetme, so the diff
    shows what the intent change does. Devices whose content hashes hold are read back from
    REPO/rendered, and for the base side from REPO/rendered as committed at --base (--full:
    render every device). Exit 0; 2 when the working-tree intent is unusable or git cannot
    give the ref; 3 when a template cannot render a device (a bug in meetme)."""
    from meetme.generators.sources import RenderError
    from meetme.gitdiff import DiffError, diff_intent, markdown_report

    intent_dir, rendered = _folders(repo, intent, None)
    try:
        report = diff_intent(intent_dir, base, rendered=None if full else rendered, jobs=jobs)
    except IntentError as exc:
        if fmt is not DiffFormat.text:  # the comment or the script says why, as stderr does
            write_out(_unusable_diff(exc, fmt, base))
        _unusable(exc)
    except RenderError as exc:
        _internal(exc)
    except DiffError as exc:
        _fail(f"meetme diff: {exc}")
        raise typer.Exit(EXIT_UNUSABLE) from None
    if fmt is DiffFormat.json:
        write_out(json.dumps(report.as_dict(), indent=2) + "\n")
    elif fmt is DiffFormat.markdown:
        write_out(markdown_report(report))
    else:
        _print_diff(report)
    raise typer.Exit(EXIT_OK)


def _unusable_diff(exc: IntentError, fmt: DiffFormat, base: str) -> str:
    """An unusable working-tree intent in the diff's own format: a merge-request comment
    that says why there is no diff, or JSON a script can read."""
    from meetme.gitdiff import markdown_problems

    if fmt is DiffFormat.json:
        problems = [
            {
                "kind": p.kind,
                "message": p.message,
                "file": p.location.file,
                "line": p.location.line,
                "column": p.location.column,
            }
            for p in exc.problems
        ]
        return json.dumps({"base": base, "unusable": problems}, indent=2) + "\n"
    return markdown_problems(exc.problems, base)


def _print_diff(report: DiffReport) -> None:
    from meetme.report import text_lines

    styles = {"+": "green", "-": "red", "@": "cyan"}
    if report.base_problems:  # first: every device below reads as added because of it
        out.print(
            f"the intent at {_plain(report.base)} is unusable ({len(report.base_problems)} "
            "problem(s)); it is compared as if it rendered no device:",
            markup=False,
        )
        for problem in report.base_problems:
            out.print(f"  {_plain(problem)}", markup=False, highlight=False)
    for device in report.devices:
        for line in device.diff.splitlines():
            header = line.startswith(("+++", "---"))
            out.print(line, style="bold" if header else styles.get(line[:1]), markup=False)
    for label, findings in (("new findings", report.appeared), ("gone", report.disappeared)):
        if findings:
            out.print(f"{label}:", style="bold", markup=False)
            for line in text_lines(findings)[:-1]:
                out.print(line)
    out.print(report.summary_line(), markup=False)


@app.command("schema")
def schema_command(
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the JSON Schema here \\[stdout].")
    ] = None,
    whole: Annotated[
        bool,
        typer.Option(
            "--whole",
            help="The schema of the merged intent (all files together) instead of the "
            "per-file schema editors need.",
        ),
    ] = False,
) -> None:
    """The intent JSON Schema, for editors (YAML language server) and other tools.

    By default each intent file is valid on its own: keys that may live in other files
    (organisation, a site's pools or rooms ...) are not required, while everything written in
    one place (a device, a room) is checked completely."""
    from meetme.editor_schema import intent_schema

    if out_file is not None:
        root = repository(None)
        protected = {"the intent folder": root / "intent", "the rendered folder": root / "rendered"}
        check_report_path(out_file, protected, is_schema)
    text = json.dumps(intent_schema(partial=not whole), indent=2) + "\n"
    if out_file is None:
        write_out(text)
        return
    write_file(out_file, text)
    remember_written(out_file, text)
    out.print(f"wrote {_plain(out_file)}", markup=False)


report_app = typer.Typer(
    no_args_is_help=True, help="Reports on the intent beyond the lint (`meetme report dci`)."
)
app.add_typer(report_app, name="report")


@report_app.command("dci")
def report_dci_command(
    repo: RepoArg = None,
    intent: IntentOpt = None,
    fmt: Annotated[
        DciFormat, typer.Option("--format", help="table (for people) or json.")
    ] = DciFormat.table,
    chart: Annotated[
        Path | None,
        typer.Option(
            "--chart",
            help="Also draw cumulative cost per Gbps, build against lease, to this SVG file.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Per site pair: DCI capacity now and after the worst single failure, the lowest latency,
    and building against leasing over the declared term (monthly, total, per Gbps per month,
    the month from which building is cheaper). Exit 1 when a DCI-* rule finds an error: the
    figures would rest on it."""
    from meetme.dci_report import as_json, is_chart, tables
    from meetme.dci_report import chart as draw
    from meetme.generators.resolve.dci import pair_figures
    from meetme.report import text_lines

    intent_dir, _ = _folders(repo, intent, None)
    if chart is not None:  # refused before the intent is even read
        root = repository(repo)
        protected = {"the intent folder": intent_dir, "the rendered folder": root / "rendered"}
        check_report_path(chart, protected, is_chart)
    result = _lint_or_exit(intent_dir)
    blocking = [f for f in result.findings if f.rule.startswith("DCI-") and f.severity == "error"]
    if blocking:
        for line in text_lines(blocking):
            err.print(line)
        err.print("the DCI figures rest on these errors; fix them first. No report was written.")
        raise typer.Exit(EXIT_FINDINGS)
    dci = result.loaded.intent.dci
    currency = dci.currency if dci is not None else "USD"
    pairs = pair_figures(result.loaded.intent)
    if chart is not None:
        write_file(chart, draw(pairs, currency))
    if fmt is DciFormat.json:
        write_out(json.dumps(as_json(pairs, currency), indent=2) + "\n")
    elif not pairs:
        out.print("no DCI circuits or needs in the intent (dci:)", markup=False)
    else:
        for table in tables(pairs, currency):
            out.print(table)
    raise typer.Exit(EXIT_OK)


def main() -> None:
    """The `meetme` script: the app, with whatever escapes it (even outside a command, or
    while flushing standard output at the end) ending as one line and exit 2 or 3."""
    tune_gc()
    try:
        try:
            app()
        except SystemExit as exc:
            if exc.code == 1 and _typer_saw_the_reader_go():
                # a closed pipe under typer's own output, when typer's wrapper shows it;
                # its rich help and usage errors end with 1 before this (README)
                sys.exit(_reader_gone())
            raise
        except Exception as exc:
            sys.exit(report_fault(exc))
    finally:
        _flush_stdout()


def _typer_saw_the_reader_go() -> bool:
    """typer ends its own output (help, version, a usage error) on a closed pipe with exit 1,
    after wrapping standard output so that later flushes stay quiet."""
    return type(sys.stdout).__name__ == "PacifyFlushWrapper"


def script() -> NoReturn:
    """The console script and `python -m meetme`: `main`, then out of the process without
    tearing the interpreter down. A large site leaves millions of objects that Python would
    free one by one (about a quarter of a second of `render` at 1,040 devices, timed from
    outside the process against the end of `main`); the operating system takes them back at
    once. Both streams are flushed first, since
    os._exit does not; `main` has already flushed standard output or failed on it."""
    try:
        main()
        code = EXIT_OK
    except SystemExit as exc:
        code = _exit_status(exc.code)
    with contextlib.suppress(OSError):  # nowhere left to say anything
        sys.stderr.flush()
    os._exit(code)


def _exit_status(code: object) -> int:
    """What Python's own exit makes of `sys.exit(code)`: None is 0, an int itself; anything
    else is printed to standard error and gives 1."""
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    _fail(str(code))
    return 1


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        sys.exit(_reader_gone())
    except OSError as exc:
        # further flushes, at interpreter exit too, go nowhere instead of failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _fail(f"meetme: cannot write standard output: {exc.strerror or exc}")
        sys.exit(EXIT_UNUSABLE)


def _register_deploy_commands() -> None:
    from meetme.deploy_cli import deploy_app

    for command in deploy_app.registered_commands:
        app.registered_commands.append(command)


_register_deploy_commands()


def _register_twin_commands() -> None:
    from meetme.twin.cli import twin_app

    app.add_typer(twin_app, name="twin")


_register_twin_commands()
