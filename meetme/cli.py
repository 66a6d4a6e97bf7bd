"""The `meetme` command line. Exit codes: 0 clean, 1 findings or drift, 2 unusable input.

Typer (on Click) gives typed options, help text and shell completion without hand-written
argument parsing; rich colours terminal output and stays plain when piped.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
import yaml
from rich.console import Console

from meetme.problems import EXIT_FINDINGS, EXIT_OK, EXIT_UNUSABLE, IntentError

if TYPE_CHECKING:  # heavy imports stay lazy: `meetme rules` must not load the pipeline
    from meetme.pipeline import LintResult
    from meetme.validators.rules.engine import Finding

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Intent-based config generator and standards linter for AI-datacenter border and fabric.",
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

RepoArg = Annotated[Path, typer.Argument(help="Repository holding intent/ and rendered/.")]
IntentOpt = Annotated[Path | None, typer.Option("--intent", help="Intent folder [REPO/intent].")]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Output folder [REPO/rendered].")]


class Format(StrEnum):
    text = "text"
    json = "json"


def _folders(repo: Path, intent: Path | None, out_dir: Path | None) -> tuple[Path, Path]:
    return intent or repo / "intent", out_dir or repo / "rendered"


def _unusable(exc: IntentError, fmt: Format = Format.text) -> NoReturn:
    if fmt is Format.json:
        print(
            json.dumps(
                [
                    {
                        "rule": p.kind,
                        "severity": "error",
                        "message": p.message,
                        "file": p.location.file,
                        "line": p.location.line,
                        "column": p.location.column,
                        "path": "",
                    }
                    for p in exc.problems
                ],
                indent=2,
            )
        )
    else:
        for problem in exc.problems:
            err.print(
                f"[bold]{problem.location}[/]: [red]error\\[{problem.kind}][/]: "
                f"{_escape(problem.message)}"
            )
        err.print(f"{len(exc.problems)} problem(s) make the intent unusable; nothing was written.")
    raise typer.Exit(EXIT_UNUSABLE)


def _lint_or_exit(intent_dir: Path, fmt: Format = Format.text) -> LintResult:
    from meetme.pipeline import lint

    try:
        return lint(intent_dir)
    except IntentError as exc:
        _unusable(exc, fmt)


def _print_findings(findings: list[Finding], fmt: Format) -> None:
    if fmt is Format.json:
        print(json.dumps([f.as_dict() for f in findings], indent=2))
        return
    colour = {"error": "red", "warning": "yellow", "info": "cyan"}
    for finding in findings:
        out.print(
            f"[bold]{finding.location}[/]: [{colour[finding.severity]}]"
            f"{finding.severity}\\[{finding.rule}][/]: {_escape(finding.message)}"
        )
    errors = sum(f.severity == "error" for f in findings)
    warnings = sum(f.severity == "warning" for f in findings)
    out.print(f"{errors} error(s), {warnings} warning(s)")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


@app.command("lint")
def lint_command(
    repo: RepoArg = Path("."),
    intent: IntentOpt = None,
    fmt: Annotated[Format, typer.Option("--format")] = Format.text,
) -> None:
    """Check the intent against the schema and the design standards."""
    intent_dir, _ = _folders(repo, intent, None)
    result = _lint_or_exit(intent_dir, fmt)
    _print_findings(result.findings, fmt)
    raise typer.Exit(EXIT_FINDINGS if result.errors else EXIT_OK)


@app.command("render")
def render_command(
    repo: RepoArg = Path("."), intent: IntentOpt = None, out_dir: OutOpt = None
) -> None:
    """Lint, then render every device into the output folder (atomically)."""
    from meetme.pipeline import device_models, render_all, write_rendered

    intent_dir, target = _folders(repo, intent, out_dir)
    result = _lint_or_exit(intent_dir)
    if result.findings:
        _print_findings(result.findings, Format.text)
    if result.errors:
        err.print("lint found errors; nothing was written.")
        raise typer.Exit(EXIT_FINDINGS)
    try:
        files = render_all(device_models(result))
    except IntentError as exc:
        _unusable(exc)
    write_rendered(target, files)
    out.print(f"rendered {len(files)} device(s) into {target}")


@app.command("check")
def check_command(
    repo: RepoArg = Path("."), intent: IntentOpt = None, out_dir: OutOpt = None
) -> None:
    """Is the output folder exactly what `render` would write? (the pre-merge gate)"""
    from meetme.pipeline import compare_rendered, device_models, render_all

    intent_dir, target = _folders(repo, intent, out_dir)
    result = _lint_or_exit(intent_dir)
    if result.errors:
        _print_findings(result.findings, Format.text)
        raise typer.Exit(EXIT_FINDINGS)
    try:
        files = render_all(device_models(result))
    except IntentError as exc:
        _unusable(exc)
    drift = compare_rendered(target, files)
    if drift.clean:
        out.print(f"{target}: {len(files)} file(s) match the intent")
        raise typer.Exit(EXIT_OK)
    for label, names in (
        ("changed", drift.changed),
        ("missing", drift.missing),
        ("stale", drift.extra),
    ):
        for name in names:
            out.print(f"{label}: {target / name}")
    out.print("rendered output differs from the intent; run `meetme render`")
    raise typer.Exit(EXIT_FINDINGS)


@app.command("show")
def show_command(device: str, repo: RepoArg = Path("."), intent: IntentOpt = None) -> None:
    """Print one device's resolved, vendor-neutral model as YAML."""
    from meetme.pipeline import device_models

    intent_dir, _ = _folders(repo, intent, None)
    result = _lint_or_exit(intent_dir)
    try:
        models = device_models(result)
    except IntentError as exc:
        _unusable(exc)
    if device not in models:
        err.print(f"unknown device '{device}'; known: {', '.join(sorted(models))}")
        raise typer.Exit(EXIT_UNUSABLE)
    text = yaml.safe_dump(models[device].model_dump(mode="json"), sort_keys=False)
    sys.stdout.write(text)


@app.command("rules")
def rules_command() -> None:
    """List the design-standard rules."""
    from meetme.validators.rules.engine import all_rules

    for current in all_rules():
        out.print(f"{current.id:<10} {current.severity:<8} {_escape(current.title)}")


@app.command("explain")
def explain_command(rule_id: str) -> None:
    """Print one rule: title, severity, rationale and source."""
    from meetme.validators.rules.engine import RULES, all_rules

    all_rules()
    current = RULES.get(rule_id.upper())
    if current is None:
        err.print(f"unknown rule '{rule_id}'; `meetme rules` lists them")
        raise typer.Exit(EXIT_UNUSABLE)
    out.print(f"{current.id} ({current.severity}): {_escape(current.title)}\n")
    out.print(f"Why: {_escape(current.rationale)}\n")
    out.print(f"Source: {_escape(current.source)}")


def main() -> None:
    app()


def _register_deploy_commands() -> None:
    from meetme.deploy_cli import deploy_app

    for command in deploy_app.registered_commands:
        app.registered_commands.append(command)


_register_deploy_commands()
