"""`meetme plan` and `meetme push`: staged pushes through NAPALM (registered by meetme.cli).

Exit codes: 0 every device fine; 1 a device failed (and was left as it was, rolled back or
reverted); 2 unusable input (inventory, intent, secrets, a refused device), before any device
is touched; 3 a device's state is unknown (see the journal and check it by hand); 130
interrupted by Ctrl-C (the devices in flight finished, the rest skipped).
Module import stays light: pydantic models, napalm and the pipeline load inside the commands.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import os
import signal
import sys
import threading
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.markup import escape
from rich.table import Table

from meetme.conventions import Console, repository, write_out
from meetme.core.problems import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_UNUSABLE,
    IntentError,
    Location,
    Problem,
)
from meetme.outputs import FileFault, check_report_path, is_journal, writing

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType

    from meetme.deploy.engine import DeviceResult, Engine
    from meetme.deploy.inventory import LoadedInventory, Settings
    from meetme.deploy.secret_store import SecretStore
    from meetme.deploy.targets import Target

EXIT_UNKNOWN = 3
EXIT_INTERRUPTED = 128 + signal.SIGINT  # Ctrl-C, as the shell reports a process it ended

deploy_app = typer.Typer(pretty_exceptions_enable=False)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class Format(StrEnum):
    text = "text"
    json = "json"


class Stage(StrEnum):
    lab = "lab"
    canary = "canary"
    production = "production"


RepoArg = Annotated[
    Path | None,
    typer.Argument(
        help="Repository holding intent/, rendered/ and inventory.yaml (default: the nearest "
        "folder at or above the working directory that holds intent/).",
        show_default=False,
    ),
]
StageOpt = Annotated[Stage, typer.Option("--stage", help="Only devices of this stage.")]
InventoryOpt = Annotated[
    Path | None, typer.Option("--inventory", help="Inventory file [REPO/inventory.yaml].")
]
SecretsOpt = Annotated[
    Path | None,
    typer.Option("--secrets", help="YAML file NAME: value, outside git (or git-ignored)."),
]
IntentOpt = Annotated[Path | None, typer.Option("--intent", help="Intent folder [REPO/intent].")]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="Rendered configs folder [REPO/rendered].")
]
DeviceOpt = Annotated[
    list[str] | None, typer.Option("--device", help="Only this device (repeatable).")
]
FormatOpt = Annotated[Format, typer.Option("--format")]
ConcurrencyOpt = Annotated[
    int | None, typer.Option("--concurrency", min=1, max=64, help="Devices at once in a wave.")
]
JournalOpt = Annotated[Path | None, typer.Option("--journal", help="Journal file (JSON lines).")]

_STATUS_COLOUR = {
    "ok": "green",
    "failed": "red",
    "waiting": "yellow",
    "skipped": "dim",
}
_RESULT_COLOUR = {
    "changes": "yellow",
    "no-changes": "green",
    "committed": "green",
    "unchanged": "green",
    "failed": "red",
    "rolled-back": "red",
    "reverted": "red",
    "discarded": "yellow",
    "skipped": "dim",
    "not-supported": "dim",
    "unknown": "bold red",
}


@deploy_app.command("plan")
def plan_command(
    stage: StageOpt,
    repo: RepoArg = None,
    inventory: InventoryOpt = None,
    secrets: SecretsOpt = None,
    intent: IntentOpt = None,
    out_dir: OutOpt = None,
    device: DeviceOpt = None,
    fmt: FormatOpt = Format.text,
    concurrency: ConcurrencyOpt = None,
    journal: JournalOpt = None,
) -> None:
    """Show what each device of a stage would change: load, diff, discard. Commits nothing."""
    _run(
        "plan",
        stage,
        repo,
        inventory,
        secrets,
        intent,
        out_dir,
        device,
        fmt,
        {"concurrency": concurrency},
        journal,
    )


@deploy_app.command("push")
def push_command(
    stage: StageOpt,
    repo: RepoArg = None,
    inventory: InventoryOpt = None,
    secrets: SecretsOpt = None,
    intent: IntentOpt = None,
    out_dir: OutOpt = None,
    device: DeviceOpt = None,
    fmt: FormatOpt = Format.text,
    concurrency: ConcurrencyOpt = None,
    journal: JournalOpt = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Exactly `meetme plan`.")] = False,
    confirm_timer: Annotated[
        int | None,
        typer.Option("--confirm-timer", help="Seconds before an unconfirmed commit reverts."),
    ] = None,
    check_timeout: Annotated[
        float | None, typer.Option("--check-timeout", help="Seconds for BGP to reach Established.")
    ] = None,
    allow_drift: Annotated[
        bool,
        typer.Option(
            "--allow-drift",
            help="Push rendered files that differ from what the intent renders (journaled).",
        ),
    ] = False,
    clean_own_sessions: Annotated[
        bool,
        typer.Option(
            "--clean-own-sessions",
            help="Abort pending config sessions meetme itself opened (meetme-<run>) first.",
        ),
    ] = False,
) -> None:
    """Push wave by wave: load, diff, commit with a confirm timer, check, confirm or roll back."""
    overrides = {
        "concurrency": concurrency,
        "confirm_timer": confirm_timer,
        "check_timeout": check_timeout,
    }
    command = "plan" if dry_run else "push"
    _run(
        command,
        stage,
        repo,
        inventory,
        secrets,
        intent,
        out_dir,
        device,
        fmt,
        overrides,
        journal,
        _PushFlags(allow_drift, clean_own_sessions),
    )


class _PushFlags:
    def __init__(self, allow_drift: bool = False, clean_own_sessions: bool = False) -> None:
        self.allow_drift = allow_drift
        self.clean_own_sessions = clean_own_sessions


def _run(
    command: str,
    stage: Stage,
    given_repo: Path | None,
    inventory_path: Path | None,
    secrets_path: Path | None,
    intent: Path | None,
    out_dir: Path | None,
    only: list[str] | None,
    fmt: Format,
    overrides: dict[str, Any],
    journal_path: Path | None,
    flags: _PushFlags | None = None,
) -> NoReturn:
    from meetme.deploy.engine import Engine, describe
    from meetme.deploy.journal import Journal, interrupted_devices
    from meetme.deploy.stage_lock import StageLocked, lock_path, stage_lock

    flags = flags or _PushFlags()

    if importlib.util.find_spec("napalm") is None:  # lint-only installs leave napalm out
        err.print(
            f"meetme {command} drives devices through NAPALM, which this install lacks: "
            "pip install 'meetme[deploy]' (from a checkout: pip install -e '.[deploy]')",
            markup=False,
        )
        raise typer.Exit(EXIT_UNUSABLE)
    _quiet_library_logs()
    repo = repository(given_repo)
    if command == "push" and journal_path is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        journal_path = repo / "journal" / f"{stamp}-push-{stage.value}.jsonl"
    if journal_path is not None:  # refused before any device is even looked up
        _check_journal(journal_path, repo, intent, out_dir)
    targets, settings, store, drifted = _preflight(
        command,
        stage,
        repo,
        inventory_path,
        secrets_path,
        intent,
        out_dir,
        only,
        fmt,
        overrides,
        flags.allow_drift,
    )
    run = {"run": uuid.uuid4().hex[:12], "command": command, "stage": stage.value}
    printer = _Printer(err if fmt is Format.json else out, show_diffs=fmt is Format.text)
    fresh = journal_path is not None and not journal_path.exists()
    with writing(journal_path or "the journal"):  # first: an unwritable journal is named
        journal = Journal(journal_path, store, run, printer)
    lock = stage_lock(repo, stage.value, run["run"]) if command == "push" else None
    try:
        if lock is not None:
            with writing(lock_path(repo, stage.value)):
                lock.__enter__()
    except StageLocked as exc:  # before any device is touched; leave no empty journal behind
        journal.close()
        if fresh and journal_path is not None and journal_path.stat().st_size == 0:
            journal_path.unlink()
        err.print(f"meetme push: {exc}", markup=False)
        raise typer.Exit(EXIT_UNUSABLE) from None
    except BaseException:
        journal.close()
        raise
    try:
        previous: dict[str, str] = {}
        if command == "push":  # what interrupted pushes of this stage left behind
            earlier = sorted((repo / "journal").glob(f"*-push-{stage.value}.jsonl"))
            if journal_path is not None and journal_path.is_file():
                earlier.append(journal_path)
            previous = interrupted_devices(list(dict.fromkeys(earlier)), stage.value)
        run_info: dict[str, Any] = {}
        if drifted:  # pushed with --allow-drift: the journal says which files were not reviewed
            run_info["allow_drift"] = drifted
        engine = Engine(
            targets,
            settings,
            store,
            journal,
            previous=previous,
            clean_own_sessions=flags.clean_own_sessions,
            run_info=run_info,
        )
        try:
            with _interrupts_stop(engine):
                results = engine.plan() if command == "plan" else engine.push()
        except OSError as exc:  # the journal could not be written (devices' errors are results)
            _journal_failed(journal_path, exc, touched=any(r["device"] for r in journal.records))
        except Exception as exc:  # never a traceback: its locals could hold resolved configs
            err.print(f"[red]internal error[/]: {escape(describe(exc, store.mask))}")
            if journal_path is not None:
                err.print(f"journal: {journal_path}", markup=False)
            raise typer.Exit(EXIT_UNKNOWN) from None
        finally:
            journal.close()
    finally:
        if lock is not None:
            lock.__exit__(None, None, None)
    if fmt is Format.json:
        write_out(json.dumps([r.as_dict() for r in results], indent=2) + "\n")
    else:
        _summary(results, command)
    if journal_path is not None:
        (err if fmt is Format.json else out).print(f"journal: {journal_path}", markup=False)
    statuses = {r.status for r in results}
    if "unknown" in statuses:
        raise typer.Exit(EXIT_UNKNOWN)
    if engine.interrupted.is_set():  # every device in flight ended, the rest never started
        raise typer.Exit(EXIT_INTERRUPTED)
    ok = {"changes", "no-changes", "not-supported", "committed", "unchanged"}
    raise typer.Exit(EXIT_OK if statuses <= ok else EXIT_FINDINGS)


INTERRUPT_NOTICE = (
    "interrupt received: finishing the devices in flight (each confirmed or rolled back; a "
    "candidate not yet committed is discarded); devices not started and later waves are "
    "skipped. Press Ctrl-C again to leave at once, leaving the devices in flight to their "
    "own confirm timers"
)
LEAVING_NOTICE = (
    "second interrupt: leaving now; the devices in flight are left to their confirm timers "
    "(the journal names them, and the next push finds them there)"
)


@contextlib.contextmanager
def _interrupts_stop(engine: Engine) -> Iterator[None]:
    """Ctrl-C during the run: the first stops the engine starting anything (the run then
    ends as usual, with its table and run-end, exit 130); the second leaves at once, as a
    kill would. Python's own ^C would instead wait, silent, for the devices in flight,
    then leave without the table or the journal's end."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return
    previous = signal.signal(signal.SIGINT, _interrupt_handler(engine))
    try:
        yield
    finally:  # None: a handler not set from Python (an embedding); Python's own then
        signal.signal(
            signal.SIGINT, previous if previous is not None else signal.default_int_handler
        )


def _interrupt_handler(engine: Engine) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        if engine.interrupted.is_set():
            _say(LEAVING_NOTICE)
            with contextlib.suppress(OSError):
                sys.stdout.flush()
            os._exit(EXIT_INTERRUPTED)  # no finalizer may talk to a device any more
        else:
            engine.interrupt()
            _say(INTERRUPT_NOTICE)

    return handler


def _say(text: str) -> None:
    with contextlib.suppress(OSError):  # a closed stderr must not turn ^C into a traceback
        err.print(text, markup=False)
        sys.stderr.flush()


def _check_journal(
    journal_path: Path, repo: Path, intent: Path | None, out_dir: Path | None
) -> None:
    protected = {
        "the intent folder": intent or repo / "intent",
        "the rendered folder": out_dir or repo / "rendered",
    }
    check_report_path(journal_path, protected, is_journal)


def _journal_failed(journal_path: Path | None, exc: OSError, touched: bool) -> NoReturn:
    """Before any device step nothing happened (exit 2); after one, the journal no longer
    says what the devices did, so their state is unknown (exit 3)."""
    if not touched:
        raise FileFault("write", journal_path or "the journal", exc.strerror or str(exc))
    err.print(
        f"meetme: cannot write {journal_path}: {exc.strerror or exc}; the devices' state is "
        "unknown: check each device of this run by hand",
        markup=False,
    )
    raise typer.Exit(EXIT_UNKNOWN)


def _preflight(
    command: str,
    stage: Stage,
    repo: Path,
    inventory_path: Path | None,
    secrets_path: Path | None,
    intent: Path | None,
    out_dir: Path | None,
    only: list[str] | None,
    fmt: Format,
    overrides: dict[str, Any],
    allow_drift: bool = False,
) -> tuple[list[Target], Settings, SecretStore, list[str]]:
    """Everything that can be checked without a device; any problem exits 2 right here.

    One run names every problem: each stage's problems are collected and the run stops once,
    at the end. Only work that needs a failed stage is skipped (no targets without the
    inventory and a clean lint, no secrets to resolve without targets or a readable secrets
    file); a drifted file or a refused secrets-file entry hides nothing else."""
    from meetme.deploy.inventory import load_inventory
    from meetme.deploy.secret_store import SecretsEntryError, loose_permissions, read_secrets_file
    from meetme.deploy.targets import (
        drift_problems,
        lockout_risk,
        resolve_secrets,
        select_targets,
    )
    from meetme.intent.loader import display_path
    from meetme.pipeline import device_models, lint, rendered_files

    inventory_file = inventory_path or repo / "inventory.yaml"
    given = {k: v for k, v in overrides.items() if v is not None}
    problems: list[Problem] = []
    loaded: LoadedInventory | None = None
    settings: Settings | None = None
    try:
        loaded = load_inventory(inventory_file, display_path(inventory_file))
    except IntentError as exc:
        problems += exc.problems
    if loaded is not None:
        settings, settings_problems = _settings(loaded, given)
        problems += settings_problems
    result = lint(intent or repo / "intent")
    lint_failed = bool(result.errors)
    targets: list[Target] | None = None
    if loaded is not None and not lint_failed:
        try:
            targets = select_targets(
                loaded,
                device_models(result),
                out_dir or repo / "rendered",
                stage.value,
                only,
                command == "push",
            )
        except IntentError as exc:
            problems += exc.problems
    drifted: list[str] = []
    if targets is not None:
        drift = drift_problems(targets, rendered_files(result))
        if drift and command == "push" and not allow_drift:
            problems += drift  # refused, and the secrets are still checked below
        else:
            for problem in drift:  # plan shows the diff; --allow-drift pushes it, journaled
                err.print(
                    f"[yellow]warning[/]: {escape(str(problem.location))}: "
                    f"{escape(problem.message)}"
                )
            drifted = [p.message.split(":", 1)[0] for p in drift]
        for target in targets:
            risk = lockout_risk(target)
            if risk:  # push refuses it above; plan shows the diff, which makes the point
                err.print(f"[yellow]warning[/]: {escape(risk)}")
    file_values: dict[str, str] | None = None
    refused: set[str] = set()
    file_readable = True
    if secrets_path is not None:
        try:
            file_values = read_secrets_file(secrets_path)
        except SecretsEntryError as exc:  # the other entries still count
            problems += exc.problems
            file_values, refused = exc.values, exc.refused
        except IntentError as exc:  # unreadable as a whole: which secret it holds is unknown
            problems += exc.problems
            file_readable = False
        if file_readable and loose_permissions(secrets_path):
            err.print(
                f"[yellow]warning[/]: {escape(str(secrets_path))} is readable by group or "
                "others; chmod 600 it"
            )
    store: SecretStore | None = None
    if targets is not None and loaded is not None and file_readable:
        try:
            store = resolve_secrets(targets, loaded, file_values, refused=refused)
        except IntentError as exc:
            problems += exc.problems
    if problems:
        if lint_failed:  # said too, with the count, so that this run names everything
            _lint_failed(len(result.errors))
        _unusable(IntentError(problems), fmt)
    if lint_failed:
        _lint_failed(len(result.errors))
        raise typer.Exit(EXIT_FINDINGS)
    assert targets is not None and settings is not None and store is not None
    return targets, settings, store, drifted


def _lint_failed(errors: int) -> None:
    err.print(
        f"lint found {errors} error(s) in the intent; run `meetme lint` and fix them before "
        "touching devices"
    )


def _settings(
    loaded: LoadedInventory, given: dict[str, Any]
) -> tuple[Settings | None, list[Problem]]:
    """The inventory's settings with the command line's over them, or the problems of each
    value: at the inventory line that set it, or naming the option that did."""
    from pydantic import ValidationError

    from meetme.deploy.inventory import Settings

    try:
        return Settings.model_validate({**loaded.inventory.settings.model_dump(), **given}), []
    except ValidationError as exc:
        problems: list[Problem] = []
        for error in exc.errors(include_url=False):
            message = str(error["msg"]).removeprefix("Value error, ")
            field = str(error["loc"][0]) if error["loc"] else ""
            if field in given:
                where = Location("command line", 1, 1)
                message = f"--{field.replace('_', '-')} {given[field]}: {message}"
            else:
                where = loaded.value_at("settings", field) if field else loaded.where("settings")
                message = f"settings: {message}" if not field else f"{field}: {message}"
            problems.append(Problem(where, message, "bad-setting"))
        return None, problems


def _unusable(exc: IntentError, fmt: Format) -> NoReturn:
    if fmt is Format.json:
        problems = [
            {
                "rule": p.kind,
                "severity": "error",
                "message": p.message,
                "file": p.location.file,
                "line": p.location.line,
                "column": p.location.column,
            }
            for p in exc.problems
        ]
        write_out(json.dumps(problems, indent=2) + "\n")
    else:
        for problem in exc.problems:
            err.print(
                f"[bold]{escape(str(problem.location))}[/]: [red]error\\[{problem.kind}][/]: "
                f"{escape(problem.message)}"
            )
        err.print(f"{len(exc.problems)} problem(s); no device was touched.")
    raise typer.Exit(EXIT_UNUSABLE)


class _Printer:
    """Live per-device status lines, one per journal record (already masked)."""

    def __init__(self, console: Console, show_diffs: bool) -> None:
        self.console = console
        self.show_diffs = show_diffs
        self.lock = threading.Lock()

    def __call__(self, record: dict[str, Any]) -> None:
        clock = str(record["ts"])[11:19]
        status = str(record["status"])
        colour = _STATUS_COLOUR.get(status, "white")
        if record["device"] is None:
            line = f"{clock}  {record['command']} {record['stage']}: {record['step']}"
            if record["step"] == "run-end":
                line += f" ({status})"
        else:
            line = (
                f"{clock}  wave {record['wave']}  {record['device']:<14} {record['step']:<11} "
                f"[{colour}]{status:<8}[/] {escape(str(record['detail']))}"
            )
        block = [line]
        diff = record.get("diff")
        if self.show_diffs and diff:
            block.extend(_diff_line(x) for x in str(diff).splitlines())
        with self.lock:
            for text in block:
                self.console.print(text)


def _diff_line(line: str) -> str:
    colour = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
    return f"    [{colour}]{escape(line)}[/]"


def _summary(results: list[DeviceResult], command: str) -> None:
    table = Table(title=f"meetme {command}", title_justify="left")
    for column in ("device", "wave", "driver", "host", "result", "changes", "detail"):
        table.add_column(column, overflow="fold")
    for r in results:
        colour = _RESULT_COLOUR.get(r.status, "white")
        changes = f"+{r.added} -{r.removed}" if r.diff is not None else ""
        table.add_row(
            r.device,
            str(r.wave),
            r.driver,
            r.host,
            f"[{colour}]{r.status}[/]",
            changes,
            escape(r.detail),
        )
    out.print(table)


def _quiet_library_logs() -> None:
    """pyeapi logs socket errors with tracebacks on the root logger; the journal says it better."""
    for name in ("pyeapi", "napalm", "netmiko", "paramiko", "ncclient", "httpx", "scp"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
