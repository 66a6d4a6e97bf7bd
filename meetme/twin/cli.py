"""`meetme twin up | verify | down`: the site on FRRouting in network namespaces (registered
by meetme.cli). Exit codes: 0 fine; 1 a verify check failed, or the intent has errors;
2 refused (not root, no FRR, unusable intent, no twin up).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from meetme.conventions import Console, repository
from meetme.core.problems import EXIT_FINDINGS, EXIT_OK, EXIT_UNUSABLE, IntentError, printable

twin_app = typer.Typer(
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="A digital twin: the site's device models on FRRouting in network namespaces.",
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

RepoArg = Annotated[
    Path | None,
    typer.Argument(help="Repository holding intent/ (default: the nearest).", show_default=False),
]
SiteOpt = Annotated[
    str | None, typer.Option("--site", help="The site [the only site of the intent].")
]


def _refuse(line: str) -> typer.Exit:
    err.print(printable(line), markup=False)
    return typer.Exit(EXIT_UNUSABLE)


def _guard() -> None:
    from meetme.twin.runtime import refusal

    why = refusal()
    if why is not None:
        raise _refuse(why)


def _site_of(sites: list[str], given: str | None) -> str:
    if given is not None:
        if given not in sites:
            raise _refuse(f"meetme twin: no site '{given}'; known: {', '.join(sorted(sites))}")
        return given
    if len(sites) != 1:
        raise _refuse(f"meetme twin: name one site with --site ({', '.join(sorted(sites))})")
    return sites[0]


@twin_app.command("up")
def up_command(
    repo: RepoArg = None,
    site: SiteOpt = None,
    bfd: Annotated[
        bool, typer.Option("--bfd", help="Run BFD (bfdd) on every session the model runs it on.")
    ] = False,
) -> None:
    """Build the site's twin (idempotent): a namespace per device and external party, veth
    pairs for every link, FRR daemons with each device's FRR rendering."""
    _guard()
    from meetme.pipeline import device_models, lint
    from meetme.twin import runtime
    from meetme.twin.topology import plan

    intent = repository(repo) / "intent"
    try:
        result = lint(intent)
    except IntentError as exc:
        raise _refuse(
            f"meetme twin: the intent is unusable ({len(exc.problems)} problem(s)); "
            "`meetme lint` lists them"
        ) from None
    if result.errors:
        err.print(
            f"meetme twin: the intent has {len(result.errors)} error finding(s); "
            "`meetme lint` lists them; the twin runs only a design that lints clean",
            markup=False,
        )
        raise typer.Exit(EXIT_FINDINGS)
    chosen = _site_of(list(result.fabrics), site)
    twin = plan(chosen, device_models(result), result.fabrics[chosen].edge.sessions, bfd)
    try:
        with runtime.site_lock(chosen):
            out.print(runtime.up(twin), markup=False)
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None


def _running_site(given: str | None) -> str:
    from meetme.twin import runtime

    running = (
        sorted(p.name for p in runtime.STATE_ROOT.iterdir() if (p / "state.json").is_file())
        if runtime.STATE_ROOT.is_dir()
        else []
    )
    if given is not None:
        return given
    if len(running) == 1:
        return running[0]
    if not running:
        raise _refuse("meetme twin: no twin is up (run `meetme twin up`)")
    raise _refuse(f"meetme twin: name one site with --site ({', '.join(running)})")


@twin_app.command("verify")
def verify_command(
    site: SiteOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="The report as JSON.")] = False,
    failover: Annotated[
        bool, typer.Option(help="Stop each border in turn and measure convergence.")
    ] = True,
    svg: Annotated[
        Path | None,
        typer.Option(
            "--svg",
            help="Also draw the site with each session's state to this SVG file.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Prove what the design promises from the routers' own JSON state; exit 1 when a check
    fails (each failure names the device and session)."""
    _guard()
    from meetme.twin import runtime
    from meetme.twin.topology import Twin
    from meetme.twin.verify import Verifier
    from meetme.twin.verify import as_json as results_json

    chosen = _running_site(site)
    state = runtime.State.load(runtime.state_path(chosen))
    if state is None or not runtime.alive(state):
        raise _refuse(f"meetme twin: the twin of {chosen} is not up (run `meetme twin up`)")
    try:
        twin = Twin.from_json(runtime.plan_path(chosen).read_text())
    except (KeyError, TypeError, ValueError):  # written by another meetme version
        raise _refuse(
            f"meetme twin: the twin of {chosen} was built by another meetme version; "
            "run `meetme twin up` again (it rebuilds it)"
        ) from None
    try:
        with runtime.site_lock(chosen):  # failover stops and starts borders
            results = list(Verifier(twin).run(failover=failover))
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None
    failed = [r for r in results if not r.ok]
    if svg is not None:
        from meetme.twin.picture import svg as picture

        try:
            svg.write_text(picture(twin, results))
        except OSError as exc:
            raise _refuse(f"meetme twin: cannot write {svg}: {exc.strerror}") from None
    if as_json:
        report = {"site": chosen, "passed": not failed, "results": results_json(results)}
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        checks = dict.fromkeys(r.check for r in results)
        for check in checks:
            mine = [r for r in results if r.check == check]
            bad = [r for r in mine if not r.ok]
            out.print(
                f"{'FAIL' if bad else 'ok  '} {check}: {len(mine) - len(bad)}/{len(mine)}",
                markup=False,
            )
            for r in bad:
                out.print(f"     {r.message}", markup=False)
            for r in mine:
                if r.ok and r.check in ("failover", "border-pair"):
                    out.print(f"     {r.message}", markup=False)
        out.print(f"{len(failed)} of {len(results)} checks failed", markup=False)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


@twin_app.command("down")
def down_command(site: SiteOpt = None) -> None:
    """Stop every process and remove every namespace the twin's `up` recorded."""
    _guard()
    from meetme.twin import runtime

    chosen = _running_site(site) if site is None else site
    try:
        with runtime.site_lock(chosen):
            out.print(runtime.down(chosen), markup=False)
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None
