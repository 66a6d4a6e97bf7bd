"""The adoption kit: pre-commit hooks and the example CI workflow work as documented."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from conftest import EXAMPLE_INTENT

from meetme.cli import app
from meetme.pipeline import device_models, lint, render_all, write_rendered

REPO = Path(__file__).resolve().parent.parent


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def hook_repository(into: Path) -> Path:
    """This working tree as a committed git repository (try-repo installs from a commit)."""
    files = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for name in files:
        source = REPO / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    git(into, "init", "-q")
    git(into, "add", "-A")
    git(into, "commit", "-qm", "meetme")
    return into


def try_repo(consumer: Path, hooks: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "--all-files"],
        cwd=consumer,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="needs the meetme git checkout")
@pytest.mark.skipif(
    os.environ.get("MEETME_SKIP_PRE_COMMIT") == "1", reason="MEETME_SKIP_PRE_COMMIT=1"
)
def test_pre_commit_try_repo_runs_both_hooks_on_the_example(tmp_path: Path) -> None:
    """What a team does first: `pre-commit try-repo <meetme> --all-files` in its intent repo.

    try-repo builds the hooks' virtualenv from scratch on every call (15-50 s here); set
    MEETME_SKIP_PRE_COMMIT=1 to leave it out of a quick local run."""
    hooks = hook_repository(tmp_path / "meetme")
    consumer = tmp_path / "network"
    shutil.copytree(EXAMPLE_INTENT, consumer / "intent")
    write_rendered(consumer / "rendered", render_all(device_models(lint(consumer / "intent"))))
    git(consumer, "init", "-q")
    git(consumer, "add", "-A")
    git(consumer, "commit", "-qm", "intent")

    done = try_repo(consumer, hooks, tmp_path / "pre-commit-home")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "meetme lint (intent against the design standards)" in done.stdout
    assert "meetme check (rendered/ is what the intent renders to)" in done.stdout
    assert done.stdout.count("Passed") == 2  # both ran: neither was skipped for no files


def workflow_commands() -> list[list[str]]:
    """Every `meetme ...` command line in the example workflow, as argument lists."""
    workflow = yaml.safe_load((REPO / "docs/ci-example.yml").read_text())
    commands = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            for line in str(step.get("run", "")).splitlines():
                words = shlex.split(line)
                if words[:1] == ["meetme"]:
                    end = next((i for i, w in enumerate(words) if w in ("||", ">", "|")), None)
                    commands.append(words[1:end])
    return commands


def test_every_meetme_command_in_the_ci_example_parses() -> None:
    commands = workflow_commands()
    assert {c[0] for c in commands} >= {"lint", "diff", "check"}
    subcommands = getattr(typer.main.get_command(app), "commands", {})
    for name, *args in commands:
        assert name in subcommands, f"no command meetme {name}"
        subcommands[name].make_context(name, list(args))  # raises on a bad option or value


def test_hooks_file_declares_lint_and_check() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"]: h["entry"] for h in hooks} == {
        "meetme-lint": "meetme lint",
        "meetme-check": "meetme check",
    }
    assert all(h["language"] == "python" and h["pass_filenames"] is False for h in hooks)
    # a commit that only deletes an intent file has no file in pre-commit's list: run anyway
    assert all(h["always_run"] is True and "files" not in h for h in hooks)
