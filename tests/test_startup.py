"""Small commands load only what they use (issue 16, "fast small commands"), and lose nothing.

Each command runs in a fresh interpreter, as a person runs it, and reports the modules it
loaded: `--help` reads no intent machinery, `rules` and `explain` read the rule catalogue
without the renderer or the workers, and the catalogue they read is the one `lint` runs.
What these tests hold is which modules load, never how long anything takes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from meetme.validators.engine import all_rules
from typer.main import get_command
from typer.testing import CliRunner

from meetme.cli import app

# Print the modules a command loaded: `meetme ARGS` as the script runs it, then sys.modules.
PROBE = """
import json, sys
sys.argv = ["meetme", *json.loads(sys.argv[1])]
from meetme.cli import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""

RENDERER = {"jinja2", "meetme.devicework", "meetme.generators.render", "meetme.pipeline"}
WORKERS = {"concurrent.futures.process"}


def loaded_by(*args: str, cwd: Path | None = None) -> tuple[set[str], str]:
    """The modules `meetme ARGS` loaded in a fresh interpreter, and what it printed."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    marker = done.stderr.rindex("\nMODULES ")
    return set(json.loads(done.stderr[marker + len("\nMODULES ") :])), done.stdout


def test_help_loads_no_intent_schema_renderer_or_yaml() -> None:
    modules, output = loaded_by("--help")
    assert "lint" in output and "show" in output  # the help was printed
    heavy = RENDERER | WORKERS | {"yaml", "meetme.intent.schema", "meetme.catalogue"}
    assert not modules & heavy


@pytest.mark.parametrize("args", [("rules",), ("explain", "EDGE-001")])
def test_rules_and_explain_load_no_renderer_or_workers(args: tuple[str, ...]) -> None:
    modules, output = loaded_by(*args)
    assert "EDGE-001" in output
    assert "meetme.catalogue" in modules  # the rules were registered ...
    assert not modules & (RENDERER | WORKERS)  # ... without what only lint and render use


def test_rules_lists_every_rule_the_lint_runs() -> None:
    """`meetme rules` registers the rules through meetme.catalogue alone; this process
    registered them through the pipeline (conftest imports it): the same catalogue."""
    done = subprocess.run(
        [sys.executable, "-m", "meetme", "rules", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    listed = [r["id"] for r in json.loads(done.stdout)]
    assert listed == [r.id for r in all_rules()]
    assert {"CFG-001", "EVPN-001", "FLOW-001", "WAIVER-001"} <= set(listed)


def test_show_loads_no_rule_or_renderer(example: Path) -> None:
    modules, output = loaded_by("show", "aus1-lf1", cwd=example)
    assert output.startswith("hostname: aus1-lf1\n")
    assert not modules & (RENDERER | WORKERS | {"meetme.catalogue", "meetme.validators.engine"})


Options = list[tuple[tuple[str, ...], Any]]


def _options(command: Any, path: tuple[str, ...] = ()) -> Options:
    """(command path, parameter) of every parameter with a help text, in every (sub)command."""
    subcommands = getattr(command, "commands", None)  # a group (typer's own Click)
    if subcommands is not None:
        return [
            option
            for name, sub in sorted(subcommands.items())
            for option in _options(sub, (*path, name))
        ]
    return [(path, p) for p in command.params if getattr(p, "help", None)]


@pytest.mark.parametrize(
    ("path", "param"),
    [pytest.param(p, o, id=" ".join((*p, o.name or ""))) for p, o in _options(get_command(app))],
)
def test_every_option_help_is_printed_whole(
    path: tuple[str, ...], param: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bracketed default like `[the cores; ...]` is markup to rich unless escaped: it
    vanished from `meetme render --help`, leaving 'the devices . The output ...'."""
    monkeypatch.setenv("COLUMNS", "2000")  # one line per option: nothing wrapped
    output = CliRunner().invoke(app, [*path, "--help"]).output
    text = " ".join(str(getattr(param, "help", "")).split()).replace("\\[", "[")
    assert text in " ".join(output.split())


def _groups(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    subs = getattr(command, "commands", {})
    return [path] * bool(subs) + [g for n, c in subs.items() for g in _groups(c, (*path, n))]


@pytest.mark.parametrize("path", _groups(get_command(app)), ids=lambda p: " ".join(p) or "meetme")
def test_each_command_is_listed_in_whole_lines(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A docstring's own line breaks were printed as they were: `meetme twin --help` cut
    verify's sentence after `each site's checks,`. At 2,000 columns each command's summary is
    one line, its sentences whole."""
    monkeypatch.setenv("COLUMNS", "2000")
    group = get_command(app)
    for name in path:
        group = group.commands[name]
    output = CliRunner().invoke(app, [*path, "--help"]).output
    for name, command in group.commands.items():
        summary = " ".join((command.short_help or command.help or "").split("\n\n")[0].split())
        (line,) = [row for row in output.splitlines() if f" {name} " in row and summary[:20] in row]
        assert summary[:-1] in line, (name, line)


def test_script_leaves_with_mains_status_and_every_byte_written() -> None:
    """`python -m meetme` leaves without tearing the interpreter down (cli.script); what it
    printed into a pipe is all there, and its exit status is the command's."""
    whole = CliRunner().invoke(app, ["rules", "--format", "markdown"])
    piped = subprocess.run(
        [sys.executable, "-m", "meetme", "rules", "--format", "markdown"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert piped.returncode == 0
    assert len(piped.stdout) > 65536  # more than any pipe's buffer: flushed at the end
    assert piped.stdout == whole.stdout
    unknown = subprocess.run(
        [sys.executable, "-m", "meetme", "explain", "NO-SUCH-RULE"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == "unknown rule 'NO-SUCH-RULE'; `meetme rules` lists them"


@pytest.mark.parametrize("args", [("rules", "--format", "markdown"), ("rules",)])
def test_a_reader_that_stops_early_ends_meetme_quietly_as_sigpipe_would(
    args: tuple[str, ...],
) -> None:
    """`meetme rules | head`: the reader is gone before meetme writes (its end of the pipe is
    closed first), so every write fails with EPIPE; meetme says nothing and exits 141, the
    status of a process SIGPIPE ended, as `cat` would."""
    started = subprocess.Popen(
        [sys.executable, "-m", "meetme", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert started.stdout is not None and started.stderr is not None
    started.stdout.close()
    said = started.stderr.read()
    assert (started.wait(timeout=60), said) == (141, b"")


@pytest.mark.parametrize(
    ("code", "status", "said"),
    [(None, 0, ""), (0, 0, ""), (3, 3, ""), ("gone wrong", 1, "gone wrong\n")],
)
def test_exit_status_is_pythons_own(
    code: object, status: int, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from meetme.cli import _exit_status

    assert _exit_status(code) == status
    assert capsys.readouterr().err == said
