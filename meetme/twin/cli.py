"""`meetme twin up | verify | down`: the site on FRRouting in network namespaces (registered
by meetme.cli). Exit codes: 0 fine; 1 a verify check failed, or the intent has errors;
2 refused (an invalid MEETME_TWIN_PREFIX, not root, no FRR, unusable intent, no twin up, a twin
`verify` finds built from an intent other than the one on disk now, meetme/twin/source.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from meetme.conventions import Console, repository, write_out
from meetme.core.problems import EXIT_FINDINGS, EXIT_OK, EXIT_UNUSABLE, IntentError, printable

if TYPE_CHECKING:
    from meetme.twin.topology import Twin

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
    list[str] | None,
    typer.Option(
        "--site",
        help="A site; repeat it for a twin of several sites, their DCI circuits cabled "
        "\\[up: the only site of the intent; verify, down: every site whose twin is up].",
    ),
]


def _refuse(line: str) -> typer.Exit:
    err.print(printable(line), markup=False)
    return typer.Exit(EXIT_UNUSABLE)


def _guard() -> None:
    from meetme.twin.names import prefix_problem
    from meetme.twin.runtime import refusal

    why = prefix_problem() or refusal()
    if why is not None:
        raise _refuse(why)


def _sites_of(sites: list[str], given: list[str] | None) -> list[str]:
    if given:
        unknown = [s for s in given if s not in sites]
        if unknown:
            raise _refuse(f"meetme twin: no site '{unknown[0]}'; known: {', '.join(sorted(sites))}")
        return sorted(set(given))
    if len(sites) != 1:
        raise _refuse(
            f"meetme twin: name the site(s) with --site ({', '.join(sorted(sites))}; "
            "repeat --site for several)"
        )
    return sites


@contextlib.contextmanager
def _locked(sites: list[str]) -> Iterator[None]:
    """Every named site's lock, in name order: a twin of several sites is worked on by one
    command at a time, and never beside a command on one of its sites alone."""
    from meetme.twin import runtime

    with contextlib.ExitStack() as stack:
        for site in sorted(sites):
            stack.enter_context(runtime.site_lock(site))
        yield


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
    from meetme.twin.source import source_of
    from meetme.twin.topology import dci_links, plan

    intent = repository(repo) / "intent"
    source = source_of(intent)  # before the lint reads it: an edit meanwhile is not missed
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
    chosen = _sites_of(list(result.fabrics), site)
    models = device_models(result)
    twins = [plan(s, models, result.fabrics[s].edge.sessions, bfd) for s in chosen]
    links = dci_links(chosen, models)
    try:
        with _locked(chosen):
            for twin in twins:
                out.print(runtime.up(twin, source), markup=False)
            if len(chosen) > 1:
                made = runtime.connect(links)
                out.print(
                    f"twin {' + '.join(chosen)}: {len(links)} DCI circuit(s) cabled ({made} new)",
                    markup=False,
                )
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None


def _running_sites(given: list[str] | None) -> list[str]:
    from meetme.twin import runtime

    if given:
        return sorted(set(given))
    running = (
        sorted(p.name for p in runtime.STATE_ROOT.iterdir() if (p / "state.json").is_file())
        if runtime.STATE_ROOT.is_dir()
        else []
    )
    if not running:
        raise _refuse("meetme twin: no twin is up (run `meetme twin up`)")
    return running


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
    allow_stale: Annotated[
        bool,
        typer.Option(
            "--allow-stale",
            help="Verify a twin even when it is out of date (its intent or meetme changed "
            "since `up`): the results are of the twin as built, and a note says so.",
        ),
    ] = False,
) -> None:
    """Prove what the design promises from the routers' own JSON state; exit 1 when a check
    fails (each failure names the device and session). With several sites, each site's checks,
    srv6-vpn (every SRv6 VRF holds the other sites' routes with their SIDs) and srv6-south
    (every border leaf and leaf of such a VRF holds them too). Refused (exit 2) when a twin is
    not the one the intent on disk builds now (run `up` again), unless --allow-stale."""
    _guard()
    from meetme.twin import runtime, source
    from meetme.twin.verify import SRV6_NOTE, Srv6Verifier, Verifier
    from meetme.twin.verify import as_json as results_json

    chosen = _running_sites(site)
    if svg is not None and len(chosen) > 1:
        raise _refuse("meetme twin: --svg draws one site; name one --site with it")
    notes = []
    try:
        with _locked(chosen):  # failover stops and starts borders
            # under the lock: no `up` rebuilds a twin between its check and its verify
            twins = [_loaded(s) for s in chosen]
            for one in chosen:
                why = source.stale(one)
                if why is not None and not allow_stale:
                    raise _refuse(source.refusal(one, why))
                if why is not None:
                    notes.append(source.note(why))
            verifiers = [Verifier(twin) for twin in twins]
            results = [r for v in verifiers for r in v.run(failover=failover)]
            srv6 = Srv6Verifier(twins)
            if srv6.borders:
                results += srv6.run()
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None
    repaired = [name for v in verifiers for name in v.repaired]
    if repaired:  # said, not hidden: the twin's own FRR defect, repaired (runtime.repair_l3vnis)
        notes.append(
            "zebra (FRR 8.4) left remote router MACs out of these L3VNIs; the twin installed them: "
            + ", ".join(repaired)
        )
    if any(r.check == "srv6-vpn" for r in results):
        notes.append(SRV6_NOTE)
    if srv6.missing_sites():
        notes.append(
            "srv6-vpn not checked toward "
            + ", ".join(srv6.missing_sites())
            + ": their site's twin is not part of this verify (name every site with --site)"
        )
    skipped = [(check, why) for v in verifiers for check, why in v.skipped]
    failed = [r for r in results if not r.ok]
    if svg is not None:
        from meetme.twin.picture import svg as picture

        try:
            svg.write_text(picture(twins[0], results))
        except OSError as exc:
            raise _refuse(f"meetme twin: cannot write {svg}: {exc.strerror}") from None
    if as_json:
        report: dict[str, object] = {"site": chosen[0]} if len(chosen) == 1 else {}
        report |= {
            "sites": chosen,
            "passed": not failed,
            "results": results_json(results),
            "skipped": [{"check": check, "why": why} for check, why in skipped],
            "notes": notes,
        }
        write_out(json.dumps(report, indent=2) + "\n")
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
                if r.ok and r.check in ("failover", "border-pair", "mlag-pair", "srv6-vpn"):
                    out.print(f"     {r.message}", markup=False)
        for check, why in skipped:
            out.print(f"skip {check}: {why}", markup=False)
        for note in notes:
            out.print(f"note: {note}", markup=False)
        out.print(f"{len(failed)} of {len(results)} checks failed", markup=False)
    raise typer.Exit(EXIT_FINDINGS if failed else EXIT_OK)


def _loaded(site: str) -> Twin:
    """The plan `up` wrote for a site whose twin is up."""
    from meetme.twin import runtime
    from meetme.twin.topology import Twin

    state = runtime.State.load(runtime.state_path(site))
    if state is None or not runtime.alive(state):
        raise _refuse(f"meetme twin: the twin of {site} is not up (run `meetme twin up`)")
    try:
        return Twin.from_json(runtime.plan_path(site).read_text())
    except (KeyError, TypeError, ValueError):  # written by another meetme version
        raise _refuse(
            f"meetme twin: the twin of {site} was built by another meetme version; "
            "run `meetme twin up` again (it rebuilds it)"
        ) from None


@twin_app.command("down")
def down_command(site: SiteOpt = None) -> None:
    """Stop every process and remove every namespace the twins' `up` recorded (with several
    sites, their DCI circuits go with their namespaces)."""
    _guard()
    from meetme.twin import runtime

    chosen = _running_sites(site)
    try:
        with _locked(chosen):
            for one in chosen:
                out.print(runtime.down(one), markup=False)
    except runtime.TwinRefused as exc:
        raise _refuse(str(exc)) from None
